"""One summand of the balls-and-bins kernels (issue 21) against mpmath: the dominating measure's call and
put functions lie above the log-normal's, the dominated ones' below (Lemma A of docs/samplers/balls_and_bins.md)."""
import math

import mpmath as mp
import numpy as np
import pytest

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
