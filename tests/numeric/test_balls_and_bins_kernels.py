"""One summand of the balls-and-bins kernels (issue 21) against mpmath (two summands: against Arb quadrature):
the dominating measure's call and put functions lie above the log-normal's, the dominated ones' below (Lemma A of
docs/samplers/balls_and_bins.md)."""
import math

import flint
import mpmath as mp
import numpy as np
import pytest
from flint import acb, arb

from numeric import balls_and_bins as B


def _exact_call(k, theta):
    # E[(Y − k)₊], Y = exp(θZ − θ²/2): the analytic Gaussian profile at ln k (Black–Scholes form), 40 digits
    with mp.workdps(40):
        t = mp.mpf(theta)
        if k <= 0:
            return mp.mpf(1) - k
        d = (mp.log(k) + t * t / 2) / t
        return mp.ncdf(t - d) - k * mp.ncdf(-d)


def _call(nodes, masses, k, inf=0.0):
    return float(np.sum(masses * np.maximum(nodes - k, 0.0))) + inf


def _put(nodes, masses, k):
    return float(np.sum(masses * np.maximum(k - nodes, 0.0)))


@pytest.mark.parametrize("theta,delta", [(1.0, 2.0 ** -6), (0.5, 2.0 ** -8), (1.25, 2.0 ** -5)])
def test_one_summand_orders(theta, delta):
    J = int(math.ceil(B.y_top(theta) / delta)) + 1
    nodes = np.arange(J + 1) * delta
    up, inf = B.upper_y(theta, delta, J)
    pos, wl, wh, ml, mh = B.fine_cells(theta, 0.5 * delta, 2 * J)
    low_r, _, _ = B.greedy_merge(pos, wl, wh, ml, mh, False, delta, True, False, 0, J)
    low_a, _, _ = B.greedy_merge(pos, wl, wh, ml, mh, False, delta, False, False, 0, J)
    assert abs(up.sum() - 1) < 1e-9 and abs(low_r.sum() - 1) < 1e-6 and abs(low_a.sum() - 1) < 1e-6
    for k in (0.0, 0.01, 0.3, 0.77, 1.0, 1.5, 3.3, 10.0, 40.0):
        c = _exact_call(k, theta)
        p = c - 1 + k  # put-call parity for mass 1, mean 1
        assert _call(nodes, up, k, inf) >= float(c) * (1 - 1e-12) - 1e-300
        assert _put(nodes, up, k) >= float(p) * (1 - 1e-12) - 1e-15
        assert _call(nodes, low_r, k) <= float(c) * (1 + 1e-12)
        assert _put(nodes, low_a, k) <= float(p) * (1 + 1e-12) + 1e-300
        # and all three are close (second order in Δ)
        assert _call(nodes, up, k, inf) - _call(nodes, low_r, k) <= 0.05 * delta


def test_chord_on_banded_nodes_dominates():
    # Lemma B on the nodes the tail split uses (Δ-grid below K, then dyadic bands of coarser spacing)
    theta, delta = 1.5, 2.0 ** -5
    na, bands = B._bands(theta, 2, delta)
    x = np.concatenate([np.arange(na) * delta] + [s0 + np.arange(nn) * sp for s0, sp, nn in bands]
                       + [np.array([bands[-1][0] * 2.0])])
    assert len(bands) >= 2 and bands[-1][1] > delta  # the bands really are coarser
    up, inf = B.upper_nodes(theta, x)
    assert abs(up.sum() - 1) < 1e-9
    for k in (0.0, 0.05, 0.5, 1.0, 3.0, 0.5 * na * delta, na * delta * 1.37, bands[-1][0] * 1.1):
        c = _exact_call(k, theta)
        p = c - 1 + k
        assert _call(x, up, k, inf) >= float(c) * (1 - 1e-12) - 1e-300
        assert _put(x, up, k) >= float(p) * (1 - 1e-12) - 1e-15


def test_coarsen_upper_is_a_mean_preserving_split():
    rng = np.random.default_rng(7)
    p = rng.random(1001)
    for shift in (1, 3, 6):
        c = B.coarsen_upper(p, shift)
        q = np.arange(len(c)) * 2.0 ** shift
        # exact mass and mean (up to the rounding up), and every coarse atom only where the fine ones were
        assert c.sum() >= p.sum() and c.sum() - p.sum() <= 1e-12 * p.sum()
        assert abs((c * q).sum() - (p * np.arange(1001)).sum()) <= 1e-9 * (p * np.arange(1001)).sum()
        # convex order: call functions above at every node of the fine grid
        for k in (0.0, 10.5, 333.0, 999.0):
            assert (c * np.maximum(q - k, 0)).sum() >= (p * np.maximum(np.arange(1001) - k, 0)).sum() * (1 - 1e-12)


def _exact_call_sum2(k, theta) -> float:
    # E[(Y1 + Y2 − k)₊] for two independent log-normals (E Y = 1): ∫ call_Y(k − y) dF(y) over y = e^{θz − θ²/2},
    # split at z_k (y = k).  Above z_k the strike k − y ≤ 0 and call_Y(k − y) = 1 − k + y, so that part is
    # (1 − k)Φ(−z_k) + Φ(θ − z_k) in closed form; below, the inner call in closed form (Black–Scholes,
    # C(s) = Φ(θ − d) − sΦ(−d), d = (ln s + θ²/2)/θ) integrated by Arb (python-flint ``acb.integral``, 160 bits,
    # a rigorous enclosure): on [−40, z_k] directly, below −40 the enclosure [0, Φ(−40)] (0 ≤ C ≤ E Y = 1).  The
    # integrand is holomorphic where Re s > 0 (the log's branch cut is checked on complex balls); on a real
    # segment reaching z_k (s ∋ 0) it is enclosed by C ∈ [0, 1 + max(0, −s)].  The ball's relative radius is
    # asserted ≤ 1e-20 and its midpoint returned.  Against the former route (mpmath quadrature at 30 digits) on
    # this test's 16 points: relative difference ≤ 4.4e-30, CPU 1.85 → 0.46 s.
    prec = flint.ctx.prec
    flint.ctx.prec = 160
    try:
        if k <= 0:
            return 2.0 - k
        t, kk = arb(theta), arb(k)
        sqrt2, inv_sqrt_2pi = arb(2).sqrt(), 1 / (2 * arb.pi()).sqrt()

        def ncdf(x):
            return (-x / sqrt2).erfc() / 2

        def integrand(z, analytic):
            if not analytic:  # the direct bound on a real segment
                z = z.real
            s = kk - (t * z - t * t / 2).exp()
            density = (-z * z / 2).exp() * inv_sqrt_2pi
            if analytic:
                log_s = s.log(analytic=True)  # non-finite where the ball touches the cut
            elif s > 0:
                log_s = s.log()
            else:  # the segment reaches z_k: 0 ≤ C(s) ≤ 1 + max(0, −s)
                return acb(arb(0).union(1 + abs(s)) * density)
            d = (log_s + t * t / 2) / t
            return acb((ncdf(t - d) - s * ncdf(-d)) * density)

        zk = (kk.log() + t * t / 2) / t
        lower = acb.integral(integrand, arb(-40), zk, rel_tol=arb(2) ** -100).real + arb(0).union(ncdf(arb(-40)))
        value = lower + (1 - kk) * ncdf(-zk) + ncdf(t - zk)
        assert value > 0 and value.rad() <= 1e-20 * value.mid(), (k, theta, value)
        return float(value.mid())
    finally:
        flint.ctx.prec = prec


@pytest.mark.parametrize("theta", [1.5, 2.5])
def test_tail_split_two_summands_against_quadrature(theta):
    # Lemma C at T = 2: the upper atoms' call and put functions (with the weight at +∞) lie above the exact ones
    # of Y1 + Y2, the lower REMOVE atoms' call below, the lower ADD atoms' put below (Arb quadrature, 160 bits)
    T, delta = 2, 2.0 ** -4
    (xu, mu), _, s_inf = B.upper_sums(theta, T, delta)
    xr, mr = B.lower_sums(theta, T, delta, True)
    xa, ma = B.lower_sums(theta, T, delta, False)
    na, bands = B._bands(theta, T, delta)
    assert len(bands) >= 1
    for k in (0.5, 1.0, 2.0, 4.0, 10.0, 0.9 * na * delta, 1.5 * na * delta, 4.0 * na * delta):
        c = _exact_call_sum2(k, theta)
        p = c - 2.0 + k  # mass 1, mean 2
        cu = float((mu * np.maximum(xu - k, 0)).sum()) + s_inf
        pu = float((mu * np.maximum(k - xu, 0)).sum())
        cr = float((mr * np.maximum(xr - k, 0)).sum())
        pa = float((ma * np.maximum(k - xa, 0)).sum())
        assert cu >= c * (1 - 1e-9) and pu >= p * (1 - 1e-9) - 1e-12, (k, cu, c, pu, p)
        assert cr <= c * (1 + 1e-9) and pa <= p * (1 + 1e-9) + 1e-12, (k, cr, c, pa, p)
        assert cu - cr <= 2e-2 * c + 1e-9  # and close
