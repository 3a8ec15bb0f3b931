"""proofs_checks.pointwise: the same shapes and bits as the public function's array route (issue 20)."""
from __future__ import annotations

import numpy as np
import pytest

import bounds
from proofs_checks.pointwise import pointwise

EPS = np.array([-3.0, -0.25, 0.0, 1e-9, 0.5, 2.0, 40.0])
THETAS = np.array([0.01, 0.7, 5.0])


def _same_bits(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.mark.parametrize("function, kwargs", [
    (bounds.gaussian_profile, {}),
    (bounds.laplace_profile, {}),
    (bounds.subsampled_gaussian_profile, {"rate": 0.01, "direction": "remove"}),
    (bounds.subsampled_laplace_profile, {"rate": 0.3, "direction": "both"}),
])
def test_profiles_on_a_grid_are_the_array_route_bit_for_bit(function, kwargs):
    want = function(EPS[:, None], theta=THETAS[None, :], **kwargs)
    got = pointwise(function)(EPS[:, None], theta=THETAS[None, :], **kwargs)
    assert _same_bits(got, want)


def test_inverse_and_guarantee_results():
    targets = np.array([1e-300, 1e-12, 1e-5, 0.5])
    inv = bounds.subsampled_gaussian_profile_inverse
    assert _same_bits(pointwise(inv)(targets[:, None], theta=THETAS[None, :], rate=0.01, direction="add"),
                      inv(targets[:, None], theta=THETAS[None, :], rate=0.01, direction="add"))
    eps = np.array([0.1, 1.0, 3.0])
    rates = np.array([1e-4, 0.01, 0.5, 1.0])
    want = bounds.poisson_subsampling_inverse(eps[:, None], 1e-6, rates[None, :])
    got = pointwise(bounds.poisson_subsampling_inverse)(eps[:, None], 1e-6, rates[None, :])
    assert type(got) is type(want)
    assert _same_bits(got.epsilon, want.epsilon) and _same_bits(got.delta, want.delta)


def test_arguments_are_passed_point_by_point():
    seen = []

    def f(a, b, *, c, label):
        seen.append((a, b, c, label))
        return a * 10 + b + c

    out = pointwise(f)(np.array([1.0, 2.0])[:, None], 0.5, c=np.array([0.0, 100.0, 200.0]), label="x")
    assert out.shape == (2, 3) and out.dtype == np.float64
    assert out.tolist() == [[10.5, 110.5, 210.5], [20.5, 120.5, 220.5]]
    assert all(type(a) is float and type(c) is float and b == 0.5 and lab == "x" for a, b, c, lab in seen)
    assert len(seen) == 6


def test_without_arrays_it_is_the_function():
    assert pointwise(bounds.gaussian_profile)(1.0, theta=2.0) == bounds.gaussian_profile(1.0, theta=2.0)
