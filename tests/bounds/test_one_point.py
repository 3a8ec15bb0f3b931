"""One point takes the scalar route even through the array API (``bounds._core.kernel_values``, issue 20): no
array loop is built for it, and its bits are the array loop's at that point."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import bounds

# (call at one point through the array API, the same call on a 2-point array whose first point is that point,
#  the kernels whose loops a one-point call must not build)
CASES = {
    "T11 both, 0-d array": (
        lambda x: bounds.subsampled_gaussian_profile(x, theta=1.3, rate=0.01),
        ["numeric.subsampled_profiles:gaussian_both"]),
    "T11 one direction, 0-d array": (
        lambda x: bounds.subsampled_laplace_profile(x, theta=0.7, rate=0.2, direction="add"),
        ["numeric.subsampled_profiles:laplace_add"]),
    "T9 inverse, 0-d array": (
        lambda x: bounds.gaussian_profile_inverse(x * 1e-6, theta=2.0),
        ["numeric.profiles:gaussian_epsilon"]),
    "T3 Gaussian profile": (
        lambda x: bounds.with_replacement_profile(bounds.Gaussian(theta=1.5), x, 3, 4).delta,
        ["numeric.mechanisms:with_replacement_delta"]),
}


@pytest.mark.parametrize("name", CASES)
def test_one_point_is_the_array_loops_value_bit_for_bit(name):
    call, _ = CASES[name]
    one = call(np.array(0.625))
    many = call(np.array([0.625, 1.5]))
    assert np.shape(one) in ((), (1,)) or np.ndim(one) == 0
    assert np.float64(one).view(np.int64) == many[0].view(np.int64)


def test_shapes_of_one_point_are_kept():
    d = bounds.subsampled_gaussian_profile(np.array([[0.5]]), theta=1.0, rate=0.1)
    assert isinstance(d, np.ndarray) and d.shape == (1, 1)
    assert d[0, 0] == bounds.subsampled_gaussian_profile(0.5, theta=1.0, rate=0.1)
    g = bounds.poisson_subsampling(np.array([1.0]), Fraction(1, 2**20), 0.5)
    assert g.epsilon.shape == (1,) and g.epsilon[0] == bounds.poisson_subsampling(1.0, 2.0 ** -20, 0.5).epsilon


CHILD = r"""
import json, sys
import numpy as np
import bounds, numeric
from fractions import Fraction
bounds.subsampled_gaussian_profile(np.array(0.5), theta=1.0, rate=0.01)
bounds.subsampled_laplace_profile(np.array([0.5]), theta=1.0, rate=0.01, direction="remove")
bounds.with_replacement_profile(bounds.Gaussian(theta=1.0), 0.5, 3, 4)
bounds.poisson_subsampling(1.0, Fraction(1, 2**20), 0.5)
bounds.outlier_score_suppression_inverse(12.0, 1e-7, 0.1, 0.9)
print(json.dumps({s: numeric.loop_built(s) for s in sys.argv[1:]}))
"""


def test_no_array_loop_is_built_for_one_point():
    specs = ["numeric.subsampled_profiles:gaussian_both", "numeric.subsampled_profiles:laplace_remove",
             "numeric.mechanisms:with_replacement_delta", "numeric._generated.subsampling:t1_epsilon",
             "numeric.outlier_score:epsilon_base", "numeric.outlier_score:delta_base"]
    out = subprocess.run([sys.executable, "-c", CHILD, *specs], capture_output=True, text=True, check=True)
    built = json.loads(out.stdout.splitlines()[-1])
    assert built == {s: False for s in specs}
