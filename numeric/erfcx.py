"""The scaled complementary error function erfcx(x) = e^{x²}·erfc(x) and differences of it, in numba.

numba has ``math.erfc`` but no erfcx.  Ranges (each chosen so that no step cancels or overflows):

- x ≥ ``ASYMPTOTIC_FROM`` (= 12): the asymptotic series
  erfcx(x) = (1/(x√π)) Σ_{n≥0} (−1)^n (2n − 1)!!/(2x²)^n.  The terms decrease while n < x² (≥ 144 here)
  and the error after stopping is below the first omitted term (alternating series with decreasing
  terms); we stop once a term is below 2⁻⁶⁰ of the sum (at most ~12 terms at x = 12).
- 0 ≤ x < 12: a table of 96 degree-10 polynomials (``numeric.erfcx_table``, interval width 1/8) with a
  derived relative error bound of 2.099·2⁻⁵³ (``erfcx_poly``), instead of e^{x²}·erfc(x) by libm, whose
  error was only measured (2.59 ulps) and which cost two exps and a rational function.
- x < 0: erfcx(x) = 2e^{x²} − erfcx(−x) (erfc(−x) = 2 − erfc(x)); 2e^{x²} ≥ 2 and erfcx(−x) ≤ 1, so the
  subtraction loses at most one bit.  It overflows to inf below x ≈ −26.63, as e^{x²} does.

``erfcx_diff(x, h)`` = erfcx(x) − erfcx(x + h) for h > 0, without the cancellation of the direct
subtraction when h is small relative to the scale on which erfcx varies (SPEC T9 with a small θ): with
M_n(x) = (2/√π)∫₀^∞ tⁿ e^{−t² − 2xt} dt (so M_0 = erfcx(x) and erfcx⁽ⁿ⁾ = (−2)ⁿ M_n),
    erfcx(x) − erfcx(x + h) = (2/√π)∫₀^∞ e^{−t² − 2xt}(1 − e^{−2ht}) dt = Σ_{n≥1} (−1)^{n+1} (2h)ⁿ M_n/n!.
Integration by parts gives 2M_1 = 2/√π − 2xM_0 and 2M_n = (n − 1)M_{n−2} − 2xM_{n−1} (n ≥ 2).  For x ≤ 1
the recurrence is run forward from M_0, M_1 (for x ≤ 0 every term is positive); for 1 < x < 7 the ratios
s_n = 2M_n/M_{n−1} come from the backward recurrence s_{n−1} = 2(n − 1)/(2x + s_n) (M_n is the minimal
solution, n! e^{x²} iⁿerfc(x); every term is positive), run division-free from a start N whose truncation
error is bounded by a proven bracket (``_series_backward``: Cauchy–Schwarz bounds on s_N, the sweep's
determinant), not by a measured constant.  The series is used only when erfcx(x + h) > ¾·erfcx(x) (known
from erfcx(x) alone when h·min(s_1(x), 1/x) ≤ 0.2876 < ln(4/3): s_1 = −(ln erfcx)' = 2M_1/M_0 decreases, erfcx
being log-convex, and s_1 ≤ 1/x; otherwise decided with erfcx(x + h)); then its terms decrease at least
geometrically (forward: ratio ≲ 2h; backward: ≤ 2h/(x + √(x² + 4)) ≤ 0.333) and the alternating sum loses at
most a bit or two.
Elsewhere (f(x + h) ≤ ¾f(x)) the direct difference loses at most two bits.  For x ≥ 7 (any h > 0) the
expansion of e^{−t²} under the integral above gives an alternating sum with a proven truncation bound and a
derived float error < 8u, with no erfcx evaluation at all (``_diff_asymptotic``).

Derived bounds: erfcx on [0, 12) (2.099·2⁻⁵³ relative), the x ≥ 7 route of erfcx_diff (< 8·2⁻⁵³), and the
truncation of both erfcx_diff series routes for x > 1.  The rest (the forward series, x < 0, x ≥ 12, the
backward sweep's float rounding, bounded in its docstring but not added up) is measured against mpmath in
``proofs_checks.profiles_checks`` and ``tests/numeric/test_erfcx.py`` and covered by the kernels' budgets.
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .erfcx_table import DEGREE as POLY_DEGREE
from .erfcx_table import STEP as POLY_STEP, TABLE as POLY_TABLE
from .special import two_product

ASYMPTOTIC_FROM = 12.0
INV_SQRT_PI = 0.5641895835477563  # 1/√π (correctly rounded)
SERIES_RATIO = 0.75  # erfcx(x + h)/erfcx(x) above which erfcx_diff sums the series
SERIES_STOP = 2.0 ** -60
BACKWARD_FROM = 1.0  # x above which M_n/M_{n−1} come from the backward recurrence
RECIPROCALS = 1.0 / np.maximum(np.arange(64.0), 1.0)  # 1/n rounded to nearest (n ≥ 1)
LN_FOUR_THIRDS = 0.2876  # < ln(4/3): h·s_1(x) below it puts erfcx(x + h) > ¾·erfcx(x) (``erfcx_diff``)


@njit(cache=True)
def exp_square(x: float) -> float:
    """e^{x²} with x² carried exactly as a double-double (x² = p + e)."""
    p, e = two_product(x, x)
    return math.exp(p) * (1.0 + e)


@njit(cache=True)
def _asymptotic(x: float) -> float:
    """erfcx(x) for x ≥ 12 by the asymptotic series (see the module docstring)."""
    z = 0.5 / (x * x)  # 1/(2x²)
    term = 1.0
    total = 1.0
    n = 1.0
    while n < 40.0:
        term *= -(2.0 * n - 1.0) * z
        total += term
        if abs(term) < SERIES_STOP * total:
            break
        n += 1.0
    return INV_SQRT_PI / x * total


@njit(cache=True)
def erfcx_poly(x: float) -> float:
    """erfcx(x) for 0 ≤ x < 12 from ``numeric.erfcx_table``: interval j = ⌊8x⌋, t = 16(x − (j + ½)/8), Horner.

    Relative error ≤ ``numeric.erfcx_table.REL_BOUND``·2⁻⁵³ (2.099·2⁻⁵³), derived there (interpolation,
    coefficient rounding, this Horner evaluation and the rounding of t); no libm call.  It replaces
    e^{x²}·erfc(x), which took an exp and libm's erfc (itself an exp and a rational function) and whose
    error (peak 2.59 ulps) was only measured.
    """
    j = int(x * POLY_STEP)
    t = (x - (j + 0.5) / POLY_STEP) * (2.0 * POLY_STEP)
    row = POLY_TABLE[j]
    p = row[POLY_DEGREE]
    for i in range(POLY_DEGREE - 1, -1, -1):
        p = p * t + row[i]
    return p


@njit(cache=True)
def erfcx(x: float) -> float:
    """e^{x²}·erfc(x) for every real x (inf at −inf and below ≈ −26.63, 0 at +inf, NaN for NaN)."""
    if x != x:
        return x
    if x >= ASYMPTOTIC_FROM:
        if x == np.inf:
            return 0.0
        return _asymptotic(x)
    if x >= 0.0:
        return erfcx_poly(x)
    if x < -26.7:
        return np.inf
    return 2.0 * exp_square(x) - erfcx(-x)


@njit(cache=True)
def _series_forward(x: float, h: float, m0: float) -> float:
    """Σ_{n≥1} (−1)^{n+1}(2h)ⁿ M_n/n! with M_n by the forward recurrence (x ≤ 1)."""
    m_prev = m0
    m_cur = INV_SQRT_PI - x * m0
    two_h = 2.0 * h
    coef = two_h  # (2h)^n / n!
    total = coef * m_cur
    sign = -1.0
    n = 2.0
    while n < 200.0:
        m_next = 0.5 * ((n - 1.0) * m_prev - 2.0 * x * m_cur)
        m_prev, m_cur = m_cur, m_next
        # 1/n from a table (a division per term was the loop's latency); one more rounding (≤ u) per term
        # of a geometrically decreasing series
        coef *= two_h * (RECIPROCALS[int(n)] if n < 64.0 else 1.0 / n)
        term = coef * m_cur
        total += sign * term
        if abs(term) < SERIES_STOP * abs(total):
            break
        sign = -sign
        n += 1.0
    return total


# Backward-recurrence start (``_series_backward``): s_N = 2M_N/M_{N−1} lies in [ℓ_N, σ_N] (proven there); the
# start bounds are widened by START_WIDEN (relative) so that their own float rounding (a few 2⁻⁵³) cannot
# move them inside the true value; the sweep is accepted when the proven bracket is ≤ BRACKET_TOL (relative).
START_WIDEN = 2.0 ** -40
BRACKET_TOL = 2.0 ** -57
BIG = 2.0 ** 600  # rescaling threshold of the division-free sweep (exact power-of-two rescaling)
DIFF_ASYMPTOTIC_FROM = 7.0  # x from which erfcx_diff uses the expansion of e^{−t²} (``_diff_asymptotic``)


@njit(cache=True, error_model="numpy", inline="always")
def _rescale(pp: float, qq: float, det: float, e_pq: int, e_det: int):
    """Keep the sweep's state in range by exact power-of-two scalings: Q (and P with it) below 2⁶⁰⁰, the
    determinant Δ in [2⁻⁶⁰⁰, 2⁶⁰⁰]; e_pq, e_det count the factors of 2⁶⁰⁰ taken out."""
    big_inv = 1.0 / BIG
    if qq > BIG:
        pp *= big_inv
        qq *= big_inv
        e_pq += 1
    if det > BIG:
        det *= big_inv
        e_det += 1
    elif det < big_inv:
        det *= BIG
        e_det -= 1
    return pp, qq, det, e_pq, e_det


@njit(cache=True)
def _series_backward(x: float, h: float, m0: float) -> float:
    """The same series with r_n = M_n/M_{n−1} by the backward recurrence (1 < x < 7), summed inside that loop.

    Number of terms: with s_n = 2r_n = 2M_n/M_{n−1}, the recurrence 2M_n = (n − 1)M_{n−2} − 2xM_{n−1} reads
    s_{n−1} = 2(n − 1)/(2x + s_n), and s_n ≤ σ_n = 2n/(x + √(x² + 2n)) (proven below), so the term ratio
    t_{n+1}/t_n = h·s_{n+1}/(n + 1) ≤ 2h/(x + √(x² + 2n + 2)) ≤ ρ = 2h/(x + √(x² + 4)) for n ≥ 1 (the former
    bound h/x, clamped at 1/3, could be exceeded near x = 1: there the series region reaches h/x ≈ 0.45 while
    ρ stays ≈ 0.32).  The alternating sum after K terms is off by at most t_{K+1} ≤ t_1ρ^K, while the sum is at
    least t_1(1 − ρ); K = ⌈(60 ln 2 + ln(1/(1 − ρ)))/ln(1/ρ)⌉ + 1 keeps that below 2⁻⁶⁰ of the sum (≤ 40 for
    ρ ≤ 1/3; ``erfcx_diff`` calls this only for ρ < ½).
    Horner form: S = t_1·(1 − u_2(1 − u_3(1 − … u_K))), u_n = h·s_n/n ≤ ρ < ½.

    **Division-free form.**  s_n = p_n/q_n with p_n = 2n·q_{n+1}, q_n = 2x·q_{n+1} + p_{n+1} (the step
    s ↦ 2n/(2x + s) as a linear map); scaled by (2x)^{N−n} (P_n = p_n/(2x)^{N−n+1}, Q_n = q_n/(2x)^{N−n},
    z = 1/(2x²)) it is P_n = n·z·Q_{n+1}, Q_n = Q_{n+1} + P_{n+1}, s_n = 2x·P_n/Q_n: a multiply and an add per
    level instead of a division (whose latency dominated), with exact power-of-two rescaling of (P, Q) above
    2⁶⁰⁰, checked once per four levels (the check's select was on the loop's critical path): with
    m = max(P, Q) (both ≥ 0) one level multiplies m by at most max(kz, 2) ≤ 2⁴⁰ (N < 2⁴¹, z ≤ ½), so four levels
    from ≤ 2⁶⁴⁰ stay below 2⁸⁰⁰, and |Δ| moves by a factor in [(2z)⁴, 2¹⁶⁰] ⊂ [2⁻²⁸, 2¹⁶⁰] (kz ≥ 2z ≥ 1/49 for
    k ≥ 2, x < 7) between its checks: no overflow or underflow, so every rounding is the one-level-per-pass one; one more check
    after the loop restores that loop's exit ranges (Q ≤ 2⁶⁰⁰, 2⁻⁶⁰⁰ ≤ |Δ| ≤ 2⁶⁰⁰) before w is formed.  The Horner sum in the same scale: with A_n = acc_n·Q_n, u_n = h·s_n/n = (h/x)·Q_{n+1}/Q_n gives
    A_n = Q_n − (h/x)·A_{n+1} (A_{K+1} = Q_{K+1}), each step subtracting at most ρ ≤ 1/3 of Q_n, and
    S = m0·(h/x)·A_2/Q_1.

    **Start: a proven bracket (no measured constant).**  M_n = ∫tⁿ dμ for a positive measure μ, so by
    Cauchy–Schwarz M_n² ≤ M_{n−1}M_{n+1}, i.e. s_n ≤ s_{n+1}.  Then s_N(2x + s_N) ≤ s_N(2x + s_{N+1}) = 2N gives
    s_N ≤ σ_N = 2N/(x + √(x² + 2N)), and s_N = 2N/(2x + s_{N+1}) ≥ ℓ_N = 2N/(2x + σ_{N+1}); both are widened
    outward by 2⁻⁴⁰ so that their own rounding (≤ 4·2⁻⁵³) cannot put them inside the true value (the true
    bracket is ≈ 1/(2N) wide).  The sweep from level N to level L is a nonnegative 2×2 matrix M acting on
    (τ, 1), τ = s_N/(2x), with determinant Δ = Π_{k=L}^{N−1}(−kz); for starts τ_lo ≤ τ_hi the ratios
    t = P/Q at level L differ by |Δ|(τ_hi − τ_lo)/(Q(τ_hi)Q(τ_lo)), and Q(τ_lo) ≥ (τ_lo/τ_hi)Q(τ_hi) (the
    entries are ≥ 0), so relative to t(τ_hi) = P/Q the true s_L (between the two) is within
        w = |Δ|·(τ_hi − τ_lo)·(τ_hi/τ_lo)/(P·Q).
    The sweep runs from τ_hi; w is evaluated once at level K + 1 (|Δ| tracked as a rescaled product).  Below
    K + 1 the relative width only shrinks (with endpoints a < b at level k + 1, width/min s at level k is
    (b − a)/(2x + a) < (b − a)/a).  The check w ≤ 2⁻⁵⁷ (the float evaluation of w is within a factor
    1 + 10⁻¹⁰ of it for N < 10⁵) therefore bounds the truncation error of every s_n, n ≤ K, by 2⁻⁵⁷ — derived,
    not measured.  If it fails, N − K is doubled and the sweep repeated.  The initial
    N = K + ⌈5.84 + (73.2 + 2.18K)/x + (127.9 + 0.394K)/x²⌉ only sets the speed: it was fitted (5 % + 1 above)
    to the smallest N passing a (slightly weaker) form of this check for 1 ≤ x ≤ 80, 1 ≤ K ≤ 41 (about half the
    former measured start 40 + 450/x² + K); where it is too small the sweep is repeated, never is accuracy
    lost.

    Float rounding (covered by the kernels' budgets): a relative error η in s_k becomes c·η in s_{k−1},
    c = s_k/(2x + s_k) ≤ (V − x)/(V + x) ≤ exp(−2x/V), V = √(x² + 2k) (s_k ≤ σ_k); each step adds ≤ 3u
    (u = 2⁻⁵³: k·z, the product, the sum).  So s_n carries ≤ 3u(1 + Σ_{j≥1} Π_{i<j} c_{n+i}) ≤ 3u·5.36 ≈ 16u
    for x ≥ 1, n ≤ 41 (the sum evaluated with the exp bound; worst at x = 1, n = 41), plus ≤ 2u from the
    rounding of z (one relative change of all coefficients).
    """
    rho = 2.0 * h / (x + math.sqrt(x * x + 4.0)) * (1.0 + 1e-15)  # ≥ every term ratio (docstring)
    nterms = int((41.6 + math.log(1.0 / (1.0 - rho))) / math.log(1.0 / rho)) + 2 if rho > 0.0 else 1
    inv_x = 1.0 / x
    kk = float(nterms)
    steps = float(int(5.84 + inv_x * (73.2 + 2.18 * kk) + inv_x * inv_x * (127.9 + 0.394 * kk)) + 1)
    two_x = 2.0 * x
    z = 0.5 / (x * x)
    pp = 0.0
    qq = 1.0
    for _ in range(30):
        top = kk + steps
        s_hi = 2.0 * top / (x + math.sqrt(x * x + 2.0 * top)) * (1.0 + START_WIDEN)  # ≥ σ_N
        sigma_next = 2.0 * (top + 1.0) / (x + math.sqrt(x * x + 2.0 * top + 2.0))
        s_lo = 2.0 * top / (two_x + sigma_next * (1.0 + START_WIDEN)) * (1.0 - START_WIDEN)  # ≤ ℓ_N
        pp = s_hi / two_x
        qq = 1.0
        det = 1.0
        e_pq = 0  # (P, Q) were multiplied by BIG^−e_pq
        e_det = 0  # |Δ| = det·BIG^e_det
        k = top
        levels = int(steps) - 1  # k = top − 1 … kk + 1
        for _ in range(levels % 4):
            k -= 1.0
            pp, qq = k * z * qq, qq + pp
            det *= k * z
        # four levels per pass, the rescaling checks once per pass (the same roundings in the same order as one
        # level per pass: k − 2 etc. are exact, and the rescalings by 2⁶⁰⁰ are exact; see the docstring)
        for _ in range(levels // 4):
            k1 = k - 1.0
            k2 = k - 2.0
            k3 = k - 3.0
            k -= 4.0
            pp, qq = k1 * z * qq, qq + pp
            pp, qq = k2 * z * qq, qq + pp
            pp, qq = k3 * z * qq, qq + pp
            pp, qq = k * z * qq, qq + pp
            det = det * (k1 * z) * (k2 * z) * (k3 * z) * (k * z)
            pp, qq, det, e_pq, e_det = _rescale(pp, qq, det, e_pq, e_det)
        # the one-level-per-pass loop's exit state: Q ≤ 2⁶⁰⁰ (so P ≤ kz·Q) and 2⁻⁶⁰⁰ ≤ |Δ| ≤ 2⁶⁰⁰ (scaled)
        pp, qq, det, e_pq, e_det = _rescale(pp, qq, det, e_pq, e_det)
        # w = |Δ|(τ_hi − τ_lo)(τ_hi/τ_lo)/(P·Q), the unscaled P·Q being pp·qq·BIG^{2e_pq}
        w = det * ((s_hi - s_lo) / two_x) * (s_hi / s_lo) / pp / qq * (1.0 + 1e-10)
        if math.ldexp(w, 600 * (e_det - 2 * e_pq)) <= BRACKET_TOL:
            break
        steps *= 2.0
    acc = qq  # A_{K+1} = Q_{K+1}
    ratio = h * inv_x
    k = kk
    while k >= 2.0:
        pp, qq = k * z * qq, qq + pp
        acc = qq - ratio * acc
        k -= 1.0
    qq = qq + pp  # Q_1
    return m0 * ratio * acc / qq


@njit(cache=True)
def _diff_asymptotic(x: float, h: float) -> float:
    """erfcx(x) − erfcx(x + h) for x ≥ 7 and every h > 0 (x + h finite), with no erfcx evaluation.

    (2/√π)∫₀^∞ e^{−t²}e^{−2xt}(1 − e^{−2ht}) dt with e^{−t²} = Σ_{j<J}(−t²)^j/j! + R_J, where R_J has the sign
    (−1)^J and |R_J| ≤ t^{2J}/J! (alternating Taylor series of e^{−v}, v ≥ 0), and
    ∫₀^∞ t^m e^{−2xt}(1 − e^{−2ht}) dt = m!/(2x)^{m+1}·B_{m+1}, B_m = 1 − r^m, r = x/(x + h), gives
        erfcx(x) − erfcx(x + h) = (1/(x√π))·Σ_{j<J}(−1)^j c_j B_{2j+1} + E_J,   c_j = (2j)!/(j!(2x²)^j)·…
    (c_0 = 1, c_{j+1} = c_j(2j + 1)/(2x²)), with |E_J| ≤ (1/(x√π))c_J B_{2J+1}: the first omitted term bounds
    the error — a proven truncation, with no series convergence needed.  B_{m+2} = B_m + r^m(1 − r)(1 + r)
    adds positive terms (no cancellation as h → 0; B_1 = h/(x + h) directly), and B_{m+2}/B_m ≤ (m + 2)/m (the
    added r^m, r^{m+1} are below the mean of 1, …, r^{m−1}), so the terms shrink by ≤ (2j + 3)/(2x²) per step
    and the sum is ≥ (1/(x√π))B_1(1 − 3/(2x²)) ≥ 0.969·(1/(x√π))B_1 for x ≥ 7.  The loop stops at the first
    term ≤ 2⁻⁵⁷·0.96·B_1 (reached by j = 29 at x = 7, fewer above: Π_{j<J}(2j + 3)/(2x²) ≤ 2⁻⁵⁷·0.969).
    Float rounding: B_1, r, 1/(x√π) ≤ 2u each (u = 2⁻⁵³); the j-th tail term ≤ (2j + 1)·4u relative, weighted
    by its size ≤ (2j + 1)!!/(2x²)^j·B_1 this is ≤ 0.4u of the sum; the tail (≤ 0.031 of the sum) adds ≤ 40
    roundings of itself (≤ 1.3u); the last subtraction and product 2u: ≤ 7.5u/0.969 < 8u relative in all.
    """
    xh = x + h
    b1 = h / xh  # B_1 = 1 − r, without cancellation
    r = x / xh
    r2 = r * r
    gap = b1 * (1.0 + r)  # 1 − r²
    z = 0.5 / (x * x)
    stop = 2.0 ** -57 * 0.96 * b1
    c = 1.0
    b = b1
    rm = r  # r^{2j+1}
    tail = 0.0  # Σ_{j≥1} (−1)^{j+1} c_j B_{2j+1}
    sign = 1.0
    j = 0.0
    while j < 45.0:
        c *= (2.0 * j + 1.0) * z
        b += rm * gap
        rm *= r2
        term = c * b
        if term <= stop:
            break
        tail += sign * term
        sign = -sign
        j += 1.0
    return INV_SQRT_PI / x * (b1 - tail)


@njit(cache=True)
def erfcx_diff(x: float, h: float) -> float:
    """erfcx(x) − erfcx(x + h) for h ≥ 0, with no catastrophic cancellation (module docstring)."""
    if h == 0.0:
        return 0.0
    if x >= DIFF_ASYMPTOTIC_FROM and h > 0.0 and x + h < np.inf:
        return _diff_asymptotic(x, h)
    f0 = erfcx(x)
    if math.isfinite(f0):
        # The series region known without evaluating erfcx(x + h): −d ln erfcx/dt = s_1(t) = 2M_1/M_0 and
        # (ln erfcx)'' = 4(M_0M_2 − M_1²)/M_0² ≥ 0 (Cauchy–Schwarz), so s_1 decreases and
        # erfcx(x + h) ≥ e^{−h·s_1(x)}erfcx(x) > ¾erfcx(x) once h·s_1(x) ≤ 0.2876 < ln(4/3).  s_1(x) = 2/(√π·f0) − 2x
        # (its rounding and f0's error, ≤ 1e-12 relative, are covered by the factor 1 + 1e-9); s_1 ≤ 1/x for x > 0
        # (``_series_backward``), which also keeps h/x < 1/3 there as the backward series needs.
        # h·min(s_1(x), 1/x) ≤ 0.2876 without a division: s_1(x)·f0 = 2/√π − 2x·f0
        if (h * (2.0 * INV_SQRT_PI - 2.0 * x * f0) * (1.0 + 1e-9) <= LN_FOUR_THIRDS * f0
                or (x > 0.0 and h <= LN_FOUR_THIRDS * x)):
            if x <= BACKWARD_FROM:
                return _series_forward(x, h, f0)
            if h < 0.25 * (x + math.sqrt(x * x + 4.0)):  # the backward series' ratio bound ρ < ½
                return _series_backward(x, h, f0)
    f1 = erfcx(x + h)
    if f1 <= SERIES_RATIO * f0 or not math.isfinite(f0):
        return f0 - f1
    if x <= BACKWARD_FROM:
        return _series_forward(x, h, f0)
    if h < 0.25 * (x + math.sqrt(x * x + 4.0)):
        return _series_backward(x, h, f0)
    # not reached: where erfcx(x + h) > ¾erfcx(x) and 1 < x < 7, ρ ≤ 0.333 (at x → 7; 0.312 at x = 1, mpmath);
    # kept so that no input can reach the series with a ratio bound ≥ ½
    return f0 - f1
