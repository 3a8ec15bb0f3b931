"""Kernels of the certified *lower* side of shuffled batches (issue 21; proof: ``docs/samplers/shuffle.md``).

Lower-bound pair of one epoch of ABLQ_S (Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang, *How Private
are DP-SGD Implementations?*, ICML 2024), post-processed by the maximum over the T batches, in units of σ:

    P: M = max_t x_t with x_1 ~ N(a, 1), x_2..x_T ~ N(0, 1)    (a = 2θ)
    Q: zero-out:  x_1 ~ N(b, 1) (b = θ), the rest N(0, 1);  replace-one: all N(0, 1)

CDFs F_P(x) = Φ(x − a)Φ(x)^{T−1}, F_Q(x) = Φ(x − b)Φ(x)^{T−1} (b = 0 for replace-one: Φ(x)^T).  Cells of the
x-line get enclosed masses (``cell_masses``) and are merged into certified loss nodes by
``numeric.balls_and_bins.greedy_merge`` (post-processing: H only falls).
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .composition import ERFC_ULPS, GAUSSIAN, U, _upper_tail


@njit(cache=True)
def log_phi(y: float):
    """(ln Φ(y), absolute error bound).  Φ(y) = 1 − t (y ≥ 0) or t (y < 0), t the small tail with
    relative error ρ (``_upper_tail``); ln(1 − t) = log1p(−t) moves by ≤ 2tρ (t ≤ ½), ln t by ≤ 2ρ; libm's
    log/log1p add ERFC_ULPS·U relative."""
    t, rho = _upper_tail(GAUSSIAN, y)
    if y >= 0.0:
        v = math.log1p(-t)
        return v, 2.0 * t * rho + (ERFC_ULPS + 1.0) * U * abs(v) + 1e-320
    v = math.log(t)
    return v, 2.0 * rho + (ERFC_ULPS + 1.0) * U * abs(v)


@njit(cache=True)
def log_cdf(x: float, shift: float, T: int):
    """(ln F(x), abs error) for F(x) = Φ(x − shift)Φ(x)^{T−1}: the two logs' bounds, the product by T − 1
    (U relative) and the sum (U relative)."""
    l1, e1 = log_phi(x - shift)
    l2, e2 = log_phi(x)
    v = l1 + (T - 1) * l2
    return v, e1 + (T - 1) * e2 * (1.0 + 2.0 * U) + 3.0 * U * (abs(l1) + (T - 1) * abs(l2)) + 1e-320


@njit(cache=True)
def cdf_and_tail(x: float, shift: float, T: int):
    """Enclosures (F, err_F, G = 1 − F, err_G): F = exp(L), G = −expm1(L), L enclosed by ±e; the error of
    exp/expm1 from an argument error e is ≤ F·(e^e − 1) resp. ≤ e^L(e^e − 1) ≤ (F + …)·2e for e ≤ ½, plus
    libm's ERFC_ULPS·U relative."""
    if x == -np.inf:
        return 0.0, 0.0, 1.0, 0.0
    if x == np.inf:
        return 1.0, 0.0, 0.0, 0.0
    L, e = log_cdf(x, shift, T)
    F = math.exp(L)
    G = -math.expm1(L)
    ee = 2.0 * e if e < 0.5 else math.expm1(e)
    ef = F * ee * (1.0 + 2.0 * U) + (ERFC_ULPS + 1.0) * U * F
    eg = min(F * ee * (1.0 + 2.0 * U), 1.0) + (ERFC_ULPS + 1.0) * U * G
    return F, ef, G, eg


@njit(cache=True)
def _mass(x0: float, x1: float, shift: float, T: int):
    """Enclosure (lo, hi) of F(x1) − F(x0): as a difference of the CDFs left of the median, of the tails G
    right of it (no cancellation beyond the result's own size); the subtraction adds U·|v|."""
    F0, ef0, G0, eg0 = cdf_and_tail(x0, shift, T)
    F1, ef1, G1, eg1 = cdf_and_tail(x1, shift, T)
    if F1 <= 0.5:
        v = F1 - F0
        e = ef0 + ef1 + U * abs(v)
    else:
        v = G0 - G1
        e = eg0 + eg1 + U * abs(v)
    return max(v - e, 0.0), max(v + e, 0.0)


@njit(cache=True)
def cell_masses(a: float, b: float, T_p: int, T_q: int, x_lo: float, x_hi: float, n: int):
    """n equal cells of [x_lo, x_hi] plus the two unbounded end cells: (pos = P/Q guidance, Q lo/hi,
    P lo/hi).  P uses shift a with T_p coordinates; Q shift b with T_q (replace-one: b = 0)."""
    pos = np.empty(n + 2)
    ql = np.empty(n + 2)
    qh = np.empty(n + 2)
    pl = np.empty(n + 2)
    ph = np.empty(n + 2)
    step = (x_hi - x_lo) / n
    x0 = -np.inf
    for i in range(n + 2):
        if i == n + 1:
            x1 = np.inf
        else:
            x1 = x_lo + i * step
        p0, p1 = _mass(x0, x1, a, T_p)
        q0, q1 = _mass(x0, x1, b, T_q)
        pl[i] = p0
        ph[i] = p1
        ql[i] = q0
        qh[i] = q1
        mp = 0.5 * (p0 + p1)
        mq = 0.5 * (q0 + q1)
        pos[i] = mp / mq if mq > 0.0 else (1e300 if mp > 0.0 else 1.0)
        x0 = x1
    return pos, ql, qh, pl, ph


def lower_grid(theta: float, T: int, adjacency: str, h: float):
    """Dominated loss grid of one epoch's max-pair (module docstring), on the nodes k·h."""
    from . import composition as C
    from .balls_and_bins import greedy_merge

    a = 2.0 * theta  # exact (doubling)
    b = theta if adjacency == "zero_out" else 0.0
    x_lo, x_hi = -9.0, a + 9.0
    n = max(20000, int((x_hi - x_lo) * a / (0.05 * h)) + 1)
    n = min(n, 1 << 21)
    pos, ql, qh, pl, ph = cell_masses(a, b, T, T, x_lo, x_hi, n)
    # loss range: ln(P/Q) between the end cells' ratios (guidance); the greedy drops below k_lo
    ratios = pos[(pos > 0) & (pos < 1e300)]
    lr = np.log(ratios)
    k_lo = int(math.floor(lr.min() / h)) - 2
    k_hi = int(math.ceil(lr.max() / h)) + 2
    out, dropped, fails = greedy_merge(pos, ql, qh, pl, ph, True, h, True, True, k_lo, k_hi)
    return C._trim(C.Grid(out, k_lo, 0.0))
