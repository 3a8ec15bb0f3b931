"""Tests of SPEC T8 (laplace_profile), T9 (gaussian_profile), their inverses and T10 (gaussian_sigma).

References are computed here, independently of the library: the Φ form of SPEC T9 in mpmath at a precision
covering its cancellation (for |x| > 1e6, where mpmath's erfc refuses, the asymptotic series), the Laplace
closed form, and mpmath's erfinv for the ε = 0 calibration.  Soundness is decided on exact binary values
(mpf of the returned float), never through float(reference).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

import bounds


def _erfc(x):
    if abs(x) < 1e6:
        return mp.erfc(x)
    y = abs(x)
    tail = mp.exp(-y * y) / (y * mp.sqrt(mp.pi)) * (1 - 1 / (2 * y * y) + 3 / (4 * y ** 4))
    return tail if x > 0 else 2 - tail


def gauss_ref(epsilon: float, theta: float) -> mpf:
    extra = sum(int(2 * max(0.0, -math.log10(abs(v)))) for v in (epsilon, theta) if v)
    with mp.workdps(80 + extra):
        e, t = mpf(epsilon), mpf(theta)
        phi = lambda x: _erfc(-x / mp.sqrt(2)) / 2  # noqa: E731
        return +(phi(t / 2 - e / t) - mp.exp(e) * phi(-t / 2 - e / t))


def laplace_ref(epsilon: float, theta: float) -> mpf:
    with mp.workdps(80):
        e, t = mpf(epsilon), mpf(theta)
        if e >= t:
            return mpf(0)
        return 1 - mp.exp(e) if e <= -t else 1 - mp.exp((e - t) / 2)


EPS = [0.0, 1e-300, 1e-10, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0, 500.0, 800.0,
       -1e-10, -0.1, -1.0, -10.0, -800.0]
THETAS = [1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0, 1e3]


@pytest.mark.parametrize("theta", THETAS)
def test_gaussian_profile_sound_and_accurate(theta):
    eps = np.array(EPS)
    got = bounds.gaussian_profile(eps, theta=theta)
    for e, g in zip(eps, got):
        ref = gauss_ref(float(e), theta)
        assert mpf(float(g)) >= ref, (e, theta)
        if ref > 1e-300:
            assert mpf(float(g)) / ref - 1 < 1e-13, (e, theta, g)
        else:  # underflow region: within the rounding of the subnormal range
            assert float(g) < 1e-290


def test_gaussian_profile_tiny_delta_large_epsilon():
    # δ down to 1e-300 at ε up to 800: choose θ so that δ ≈ 1e-300, 1e-200, 1e-100
    for e in (1.0, 50.0, 500.0, 800.0):
        for target in (1e-300, 1e-200, 1e-100):
            theta = bounds.gaussian_sigma(e, target) ** -1
            ref = gauss_ref(e, theta)
            got = bounds.gaussian_profile(e, theta=theta)
            assert mpf(got) >= ref and mpf(got) / ref - 1 < 1e-13


@given(st.floats(-50, 800), st.floats(1e-3, 1e3))
@settings(max_examples=60)
def test_gaussian_profile_random(e, theta):
    ref = gauss_ref(e, theta)
    got = bounds.gaussian_profile(e, theta=theta)
    assert mpf(got) >= ref
    if ref > 1e-300:
        assert mpf(got) / ref - 1 < 1e-13


@pytest.mark.parametrize("theta", [1e-3, 0.5, 1.0, 7.0])
def test_laplace_profile_sound(theta):
    eps = np.array(EPS + [theta, -theta, theta * 0.999])
    got = bounds.laplace_profile(eps, theta=theta)
    for e, g in zip(eps, got):
        ref = laplace_ref(float(e), theta)
        assert mpf(float(g)) >= ref
        if ref > 0:
            assert mpf(float(g)) / ref - 1 < 1e-14
        else:
            assert g == 0.0


def test_limits_and_symmetry():
    assert bounds.gaussian_profile(math.inf, theta=1.0) == 0.0
    assert bounds.gaussian_profile(-math.inf, theta=1.0) == 1.0
    assert bounds.laplace_profile(1.0, theta=1.0) == 0.0
    # Gaussian at ε = 0: 2Φ(θ/2) − 1
    with mp.workdps(50):
        assert abs(bounds.gaussian_profile(0.0, theta=1.0) / (2 * mp.ncdf(0.5) - 1) - 1) < 1e-14


def test_vectorised_equals_scalar():
    e = np.linspace(-3, 30, 17)
    t = np.logspace(-2, 2, 5)[:, None]
    grid = bounds.gaussian_profile(e, theta=t)
    assert grid.shape == (5, 17)
    assert all(grid[i, j] == bounds.gaussian_profile(float(e[j]), theta=float(t[i, 0])) for i in range(5) for j in range(17))
    assert isinstance(bounds.laplace_profile(0.5, theta=1.0), float)


@pytest.mark.parametrize("target", [0.5, 0.1, 1e-5, 1e-15, 1e-100, 1e-300, 0.999999])
@pytest.mark.parametrize("theta", [1e-3, 0.3, 1.0, 5.0, 100.0])
def test_inverses_on_the_safe_side(target, theta):
    for profile, inverse, ref in ((bounds.gaussian_profile, bounds.gaussian_profile_inverse, gauss_ref),
                                  (bounds.laplace_profile, bounds.laplace_profile_inverse, laplace_ref)):
        e = inverse(target, theta=theta)
        assert ref(e, theta) <= target  # the exact profile at the returned ε meets the target
        assert profile(e, theta=theta) <= target  # and so does the upward-rounded one
        if math.isfinite(e) and target <= 0.9:  # minimality: a slightly smaller ε misses the target
            smaller = e - 1e-12 * max(abs(e), 1e-3)
            assert ref(smaller, theta) > target


def test_inverse_endpoints():
    assert bounds.laplace_profile_inverse(0.0, theta=2.0) == 2.0
    assert bounds.gaussian_profile_inverse(0.0, theta=2.0) == math.inf
    assert bounds.gaussian_profile_inverse(1.0, theta=2.0) == -math.inf


CAL_EPS = [1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0, 500.0]
CAL_DELTAS = [0.5, 0.1, 1e-3, 1e-5, 1e-10, 1e-15, 1e-20, 1e-50, 1e-100, 1e-200, 1e-300]


@pytest.mark.parametrize("epsilon", CAL_EPS)
def test_gaussian_sigma_delivers_at_most_target(epsilon):
    for target in CAL_DELTAS:
        sigma = bounds.gaussian_sigma(epsilon, target)
        with mp.workdps(120):  # Δ/σ exactly (mpf division), not through a float
            t = mpf(1) / mpf(sigma)
            e = mpf(epsilon)
            phi = lambda x: _erfc(-x / mp.sqrt(2)) / 2  # noqa: E731
            delivered = phi(t / 2 - e / t) - mp.exp(e) * phi(-t / 2 - e / t)
        assert delivered <= target, (epsilon, target, sigma)
        # the smallest σ: 1e-12 relative less noise exceeds the target
        assert gauss_ref(epsilon, 1.0 / (sigma * (1 - 1e-12))) > target


def test_gaussian_sigma_delivered_exactly_at_50_digits():
    """Δ/σ taken exactly (mpf division), not through a float."""
    for epsilon in (1e-3, 1.0, 500.0):
        for target in (0.5, 1e-15, 1e-300):
            sigma = bounds.gaussian_sigma(epsilon, target)
            with mp.workdps(120):
                t = mpf(1) / mpf(sigma)
                phi = lambda x: _erfc(-x / mp.sqrt(2)) / 2  # noqa: E731
                e = mpf(epsilon)
                delivered = phi(t / 2 - e / t) - mp.exp(e) * phi(-t / 2 - e / t)
                assert delivered <= target


def test_gaussian_sigma_epsilon_zero_closed_form():
    for target in (0.5, 1e-5, 1e-300, 0.999):
        with mp.workdps(50):
            closed = 1 / (2 * mp.sqrt(2) * mp.erfinv(mpf(target)))  # Δ/(2Φ⁻¹((1 + δ)/2))
        sigma = bounds.gaussian_sigma(0.0, target)
        # safe side, and tight up to the verification margin (the 40-ulp budget of the rounded profile)
        assert mpf(sigma) >= closed
        if target <= 0.5:  # near δ = 1 the float profile resolves 1 − δ only to ~1e-16/(1 − δ)
            assert mpf(sigma) / closed - 1 < 1e-13


def test_gaussian_sigma_scales_with_sensitivity_and_matches_known_value():
    s1 = bounds.gaussian_sigma(1.0, 1e-5)
    assert abs(s1 - 3.730631634815) < 1e-9  # Balle & Wang's analytic Gaussian at (1, 1e-5)
    s = bounds.gaussian_sigma(1.0, 1e-5, [0.5, 2.0])
    assert np.allclose(s, [0.5 * s1, 2.0 * s1], rtol=1e-14)


@pytest.mark.parametrize("call, name", [
    (lambda: bounds.gaussian_profile(math.nan, theta=1.0), "epsilon"),
    (lambda: bounds.gaussian_profile(1.0, theta=0.0), "theta"),
    (lambda: bounds.gaussian_profile(1.0, theta=-2.0), "theta"),
    (lambda: bounds.laplace_profile(1.0, theta=math.nan), "theta"),
    (lambda: bounds.laplace_profile_inverse(1.5, theta=1.0), "delta"),
    (lambda: bounds.gaussian_profile_inverse(-0.1, theta=1.0), "delta"),
    (lambda: bounds.gaussian_sigma(1.0, 0.0), "delta"),
    (lambda: bounds.gaussian_sigma(1.0, 1.0), "delta"),
    (lambda: bounds.gaussian_sigma(-1.0, 1e-5), "epsilon"),
    (lambda: bounds.gaussian_sigma(1.0, 1e-5, 0.0), "sensitivity"),
    (lambda: bounds.gaussian_sigma(1.0, [1e-5, math.nan]), "delta"),
])
def test_bad_input_raises(call, name):
    with pytest.raises(ValueError, match=name):
        call()
