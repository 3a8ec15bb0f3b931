"""The hand-written float helpers: outward rounding, exact products, the large-ε amplification map."""
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numeric.special import amplify_large, div_down, down, expm1_mul, exp_mul_scaled, mul_up, two_product, up

positive = st.floats(min_value=0.0, max_value=1e300, allow_nan=False, allow_infinity=False)
unit = st.floats(min_value=5e-324, max_value=1.0)


def steps(x, n, direction):
    for _ in range(n):
        x = np.nextafter(x, direction)
    return x


BOUNDARIES = [0.0, 5e-324, 2.0 ** -1022, np.nextafter(2.0 ** -1022, 0), 1.0, np.nextafter(1.0, 0), 2.0,
              np.nextafter(2.0, 0), 1e300, 0.1]


@pytest.mark.parametrize("x", BOUNDARIES)
@pytest.mark.parametrize("n", [1, 2, 4, 6, 16])
def test_up_down_take_at_least_n_steps_at_binade_edges(x, n):
    assert up(x, n) >= steps(x, n, np.inf)
    assert down(x, n) <= max(steps(x, n, -np.inf), 0.0)
    assert down(x, n) >= 0.0


@given(positive, st.integers(1, 20))
def test_up_down_take_at_least_n_steps(x, n):
    assert up(x, n) >= steps(x, n, np.inf)
    assert down(x, n) <= max(steps(x, n, -np.inf), 0.0)


def test_up_down_keep_inf():
    assert up(np.inf, 3) == np.inf and down(np.inf, 3) == np.inf


@given(st.floats(-1e150, 1e150), st.floats(-1e150, 1e150))
def test_two_product_is_exact(a, b):
    p, e = two_product(a, b)
    if abs(p) > 2.0 ** -900 or a == 0 or b == 0:
        assert Fraction(p) + Fraction(e) == Fraction(a) * Fraction(b)


@given(unit, unit)
def test_mul_up_and_div_down_are_directed_roundings(a, b):
    exact_product = Fraction(a) * Fraction(b)
    assert Fraction(mul_up(a, b)) >= exact_product
    if exact_product > Fraction(2.0 ** -900):  # away from underflow it is the nearest double above
        assert Fraction(np.nextafter(mul_up(a, b), 0)) < exact_product
    lo, hi = min(a, b), max(a, b)
    q = div_down(lo, hi)
    assert Fraction(q) <= Fraction(lo) / Fraction(hi)


@given(st.floats(709.0, 1e5), st.floats(5e-324, 1.0))
def test_amplify_large_is_accurate(eps, eta):
    with mp.workdps(80):
        ref = mp.log(1 + mp.mpf(eta) * (mp.exp(mp.mpf(eps)) - 1))
        assert abs(mp.mpf(amplify_large(eps, eta)) - ref) <= 4 * mp.mpf(np.spacing(float(ref)))


@given(st.floats(1.0, 1e4), st.floats(1e-6, 1.0))
def test_expm1_mul_removes_the_product_rounding(k, eps):
    k = float(int(k))
    with mp.workdps(60):
        ref = mp.expm1(mp.mpf(k) * mp.mpf(eps))
        if ref < mp.mpf(1e300):
            assert abs(mp.mpf(expm1_mul(k, eps)) - ref) <= 3 * mp.mpf(np.spacing(float(ref)))


@given(st.floats(1e-300, 1.0), st.floats(1.0, 1e6), st.floats(0.7, 10.0), st.floats(-20.0, 20.0))
def test_exp_mul_scaled(scale, a, b, tail):
    with mp.workdps(60):
        ref = mp.mpf(scale) * mp.exp(mp.mpf(a) * mp.mpf(b) + mp.mpf(tail))
        if mp.mpf(1e-300) < ref < mp.mpf(1e300):
            assert abs(mp.mpf(exp_mul_scaled(scale, a, b, tail)) / ref - 1) < 1e-14


def test_next_up_down_equal_nextafter():
    """next_up / next_down (one multiply, one add) are exactly one float step, like np.nextafter, on random
    doubles and on every binade edge (2ᵏ, 2ᵏ ± a few ulps) across the range where mul_up/div_down use them."""
    from numeric.special import next_down, next_up

    rng = np.random.default_rng(3)
    xs = list(rng.uniform(1.0, 2.0, 2000) * 2.0 ** rng.integers(-899, 899, 2000))
    for k in range(-899, 899, 7):
        x = 2.0 ** k
        for _ in range(3):
            xs.append(x)
            xs.append(np.nextafter(x, 0.0))
            x = np.nextafter(x, np.inf)
        xs.append(np.nextafter(2.0 ** (k + 1), 0.0))
    xs = np.array(xs)
    ups = np.array([next_up(x) for x in xs])
    downs = np.array([next_down(x) for x in xs])
    assert np.array_equal(ups, np.nextafter(xs, np.inf))
    assert np.array_equal(downs, np.nextafter(xs, -np.inf))
