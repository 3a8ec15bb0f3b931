"""Hockey-stick tables read from a cut (``merged_below``; issue 21): exact above the cut, still a sandwich below.

References: the exact H of the stored dyadic grid masses in rational arithmetic (``fractions``) at ε where
e^{−(kh − ε)} is evaluated by mpmath at 50 digits, so nothing is taken from the code under test.
"""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import bounds
from bounds.composition import _C

C = _C()
H = 2.0 ** -5


def _grid(seed: int, n: int = 200, k0: int = -80):
    rng = np.random.default_rng(seed)
    m = rng.uniform(0.0, 1.0, n) * 10.0 ** -rng.uniform(0, 6, n)
    return m / m.sum() * 0.9, k0


def _exact_delta(m, k0, eps):
    mpmath.mp.dps = 50
    return mpmath.fsum(mpmath.mpf(float(x)) * (1 - mpmath.exp(mpmath.mpf(eps) - (k0 + i) * mpmath.mpf(H)))
                       for i, x in enumerate(m) if (k0 + i) * H > eps)


def _tables_delta(m, k0, eps, upward):
    b, c = C.hs_tables(m, H, upward)
    return C.hs_eval(b, c, k0, H, 0.0, np.asarray(eps, dtype=np.float64), upward)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_merged_below_is_bit_identical_above_the_cut_and_a_sandwich_below(seed):
    m, k0 = _grid(seed)
    k_cut = k0 + 70
    eps_above = np.array([k_cut * H, k_cut * H + 0.3 * H, (k_cut + 5) * H, 1.0, 3.0])
    eps_below = np.array([(k0 - 3) * H, (k0 + 10) * H + 0.1 * H, (k_cut - 1) * H, k_cut * H - 1e-9])
    for upward in (True, False):
        mc, kc = C.merged_below(m, k0, k_cut, upward)
        assert kc == k_cut and len(mc) == len(m) - 70
        # above the cut: the same bits as the full tables
        assert np.array_equal(_tables_delta(mc, kc, eps_above, upward), _tables_delta(m, k0, eps_above, upward))
        # below the cut: still on its side of the exact δ of the uncut measure
        got = _tables_delta(mc, kc, eps_below, upward)
        for e, v in zip(eps_below, got):
            exact = _exact_delta(m, k0, e)
            assert (v >= exact) if upward else (v <= exact), (upward, e, v, exact)


def test_dropping_the_merged_mass_on_the_upper_side_is_caught():
    # the upper side with the prefix dropped (the lower side's rule) falls below the exact δ under the cut
    m, k0 = _grid(4)
    k_cut = k0 + 70
    mc, kc = C.merged_below(m, k0, k_cut, False)
    e = (k0 + 10) * H
    assert float(_tables_delta(mc, kc, [e], True)[0]) < _exact_delta(m, k0, e)


def test_merged_below_edges():
    m, k0 = _grid(5, n=10)
    assert C.merged_below(m, k0, k0 - 5, True)[1] == k0  # nothing below: unchanged
    mc, kc = C.merged_below(m, k0, k0 + 50, True)  # everything below: one node keeps the mass
    assert kc == k0 + 9 and len(mc) == 1 and Fraction(float(mc[0])) >= sum(Fraction(float(x)) for x in m)


def test_composition_tables_rebuilt_for_negative_epsilon():
    # ε(δ) builds the tables from ε = 0 up; on the same grid, δ at ε ≥ 0 is then bit-identical to tables built
    # from further down, and a later δ at ε < 0 rebuilds them (the same values as a composition that never cut)
    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.05)
    a = bounds.compose([(step, 200)], tolerance=1e-2)
    a.epsilon(1e-5)
    h = a._built()[0]
    assert a._cache[("tables", h)][0] == 0.0  # cut at ε = 0
    fresh = bounds.compose([(step, 200)], tolerance=1e-2)
    eps = np.array([-2.0, -0.5, 0.0, 0.7, 1.5])
    f_lo, f_hi = fresh._delta_many(h, eps)
    assert fresh._cache[("tables", h)][0] == -2.0
    a_lo, a_hi = a._delta_many(h, eps[2:])
    assert np.array_equal(a_lo, f_lo[2:]) and np.array_equal(a_hi, f_hi[2:])
    a_lo, a_hi = a._delta_many(h, eps)
    assert a._cache[("tables", h)][0] == -2.0  # rebuilt from further down
    assert np.array_equal(a_lo, f_lo) and np.array_equal(a_hi, f_hi)
    assert np.all(a_lo <= a_hi) and a_hi[0] >= a_hi[1] >= a_hi[2]
