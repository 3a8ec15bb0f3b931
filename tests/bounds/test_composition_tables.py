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


# -- the compiled ε bisection (``epsilon_bisect``; issue 21) --------------------------------------------------

def _side_max(c, h, e, upward):
    """The maximum over directions of one side's δ at the single ε e, from the tables by ``hs_eval``."""
    v = []
    for (tu, (k0u, iu)), (tl, (k0l, il)), hd in c._tables(h, 0.0):
        (b, cc), k0, m_inf = (tu, k0u, iu) if upward else (tl, k0l, il)
        v.append(C.hs_eval(b, cc, k0, hd, m_inf, np.array([e]), upward)[0])
    return max(v)


@pytest.mark.parametrize("steps", [
    [(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01), 1000)],  # REMOVE and ADD
    [(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(0.8), 0.05), 300), (bounds.Gaussian(theta=0.3), 5)],
    [(bounds.EpsDelta(1.0, 1e-6), 20)]])
def test_epsilon_bisection_ends_on_adjacent_doubles(steps):
    # what the bisection must return, checked on the tables themselves (not on the loop): upper is a double
    # with δ⁺(upper) ≤ δ and δ⁺ > δ at the double below it (or upper = 0 where δ⁺(0) ≤ δ, inf where even the
    # top fails); lower is 0 where δ⁻(0) ≤ δ, the top where δ⁻(top) > δ, else δ⁻(lower) > δ and δ⁻ ≤ δ at the
    # double above it
    c = bounds.compose(steps, tolerance=1e-2)
    c.delta(1.0)
    deltas = np.array([1.5, 1.0, 0.5, 0.1, 1e-3, 1e-5, 1e-8, 1e-12, 1e-30, 0.0])
    for h in c._built():
        top = max(g.k1 * hd + hd for g, _, hd in c._grids(h)[1])
        lo, hi = c._epsilon_many(h, deltas)
        assert lo.shape == hi.shape == deltas.shape
        for d, a, b in zip(deltas, lo, hi):
            if b == 0.0:
                assert _side_max(c, h, 0.0, True) <= d
            elif math.isfinite(b):
                assert _side_max(c, h, b, True) <= d < _side_max(c, h, math.nextafter(b, -math.inf), True)
            if a == 0.0:
                assert not _side_max(c, h, math.nextafter(0.0, 1.0), False) > d or _side_max(c, h, 0.0, False) <= d
            elif a == top:  # δ⁻ > δ up to the top of the grid
                assert _side_max(c, h, a, False) > d
            else:
                assert _side_max(c, h, a, False) > d >= _side_max(c, h, math.nextafter(a, math.inf), False)
            assert a <= b
    lo, hi = c._epsilon_many(c._built()[0], np.array([[1e-5, 1e-3], [0.5, 1e-8]]))  # shape kept
    assert lo.shape == hi.shape == (2, 2)


def test_epsilon_bisection_check_catches_a_loose_or_wrong_answer(monkeypatch):
    # fault injection: the check above must fail for an upper side one double too high (loose) and for a
    # lower side one double too high (δ⁻ no longer > δ there: wrong)
    c = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01), 1000)],
                       tolerance=1e-2)
    c.epsilon(1e-5)
    h = c._built()[0]
    real = C.epsilon_bisect
    lo, hi = c._epsilon_many(h, np.array([1e-5]))
    assert _side_max(c, h, float(hi[0]), True) <= 1e-5 < _side_max(c, h, math.nextafter(hi[0], 0.0), True)
    monkeypatch.setattr(C, "epsilon_bisect", lambda *a: (real(*a)[0], np.nextafter(real(*a)[1], np.inf)))
    _, hi2 = c._epsilon_many(h, np.array([1e-5]))
    assert not 1e-5 < _side_max(c, h, math.nextafter(hi2[0], 0.0), True)
    monkeypatch.setattr(C, "epsilon_bisect", lambda *a: (np.nextafter(real(*a)[0], np.inf), real(*a)[1]))
    lo2, _ = c._epsilon_many(h, np.array([1e-5]))
    assert not _side_max(c, h, float(lo2[0]), False) > 1e-5
