"""The scaled complementary error function erfcx(x) = e^{x²}·erfc(x) and differences of it, in numba.

numba has ``math.erfc`` but no erfcx.  Ranges (each chosen so that no step cancels or overflows):

- x ≥ ``ASYMPTOTIC_FROM`` (= 12): the asymptotic series
  erfcx(x) = (1/(x√π)) Σ_{n≥0} (−1)^n (2n − 1)!!/(2x²)^n.  The terms decrease while n < x² (≥ 144 here)
  and the error after stopping is below the first omitted term (alternating series with decreasing
  terms); we stop once a term is below 2⁻⁶⁰ of the sum (at most ~12 terms at x = 12).
- 0 ≤ x < 12: e^{x²}·erfc(x), where x² = p + e is split exactly (Dekker product, ``two_product``) and
  e^{x²} = e^{p}·(1 + e) (|e| ≤ 2⁻⁵³·p, so the neglected e²/2 is below 2⁻¹⁰⁰).  A plain exp(x·x) would
  carry the rounding of x·x (up to 144·2⁻⁵³ relative at x = 12) into the result.  erfc(12) ≈ 1.4e-64
  is far from the subnormals, so the libm erfc is used where it is accurate relative to its value.
- x < 0: erfcx(x) = 2e^{x²} − erfcx(−x) (erfc(−x) = 2 − erfc(x)); 2e^{x²} ≥ 2 and erfcx(−x) ≤ 1, so the
  subtraction loses at most one bit.  It overflows to inf below x ≈ −26.63, as e^{x²} does.

``erfcx_diff(x, h)`` = erfcx(x) − erfcx(x + h) for h > 0, without the cancellation of the direct
subtraction when h is small relative to the scale on which erfcx varies (SPEC T9 with a small θ): with
M_n(x) = (2/√π)∫₀^∞ tⁿ e^{−t² − 2xt} dt (so M_0 = erfcx(x) and erfcx⁽ⁿ⁾ = (−2)ⁿ M_n),
    erfcx(x) − erfcx(x + h) = (2/√π)∫₀^∞ e^{−t² − 2xt}(1 − e^{−2ht}) dt = Σ_{n≥1} (−1)^{n+1} (2h)ⁿ M_n/n!.
Integration by parts gives 2M_1 = 2/√π − 2xM_0 and 2M_n = (n − 1)M_{n−2} − 2xM_{n−1} (n ≥ 2).  For x ≤ 1
the recurrence is run forward from M_0, M_1 (for x ≤ 0 every term is positive); for x > 1 the ratios
r_n = M_n/M_{n−1} come from the backward recurrence r_{n−1} = (n − 1)/(2x + 2r_n) (M_n is the minimal
solution, n! e^{x²} iⁿerfc(x); every term is positive), started far enough out that the start value
within a proven bracket (``_series_backward``: Cauchy–Schwarz bounds on the start value, monotone steps).  The series is used only when erfcx(x + h) > ¾·erfcx(x); then its terms decrease at
least geometrically (ratio ≲ max(2h, h/x) < ½) and the alternating sum loses at most a bit or two.

Accuracy is measured against mpmath in ``proofs_checks.profiles_checks`` and ``tests/numeric/test_erfcx.py``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .special import two_product

ASYMPTOTIC_FROM = 12.0
INV_SQRT_PI = 0.5641895835477563  # 1/√π (correctly rounded)
SERIES_RATIO = 0.75  # erfcx(x + h)/erfcx(x) above which erfcx_diff sums the series
SERIES_STOP = 2.0 ** -60
BACKWARD_FROM = 1.0  # x above which M_n/M_{n−1} come from the backward recurrence


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
def erfcx(x: float) -> float:
    """e^{x²}·erfc(x) for every real x (inf at −inf and below ≈ −26.63, 0 at +inf, NaN for NaN)."""
    if x != x:
        return x
    if x >= ASYMPTOTIC_FROM:
        if x == np.inf:
            return 0.0
        return _asymptotic(x)
    if x >= 0.0:
        return exp_square(x) * math.erfc(x)
    if x < -26.7:
        return np.inf
    return 2.0 * exp_square(x) - erfcx(-x)


@njit(cache=True)
def _series_forward(x: float, h: float, m0: float) -> float:
    """Σ_{n≥1} (−1)^{n+1}(2h)ⁿ M_n/n! with M_n by the forward recurrence (x ≤ 1)."""
    m_prev = m0
    m_cur = INV_SQRT_PI - x * m0
    coef = 2.0 * h  # (2h)^n / n!
    total = coef * m_cur
    sign = -1.0
    n = 2.0
    while n < 200.0:
        m_next = 0.5 * ((n - 1.0) * m_prev - 2.0 * x * m_cur)
        m_prev, m_cur = m_cur, m_next
        coef *= 2.0 * h / n
        term = coef * m_cur
        total += sign * term
        if abs(term) < SERIES_STOP * abs(total):
            break
        sign = -sign
        n += 1.0
    return total


# Backward-recurrence start (``_series_backward``): s_N = 2M_N/M_{N−1} lies in [ℓ_N, σ_N] (proven there); the
# start bounds are widened by START_WIDEN (relative) so that their own float rounding (a few 2⁻⁵³) cannot
# move them inside the true value; the sweep is accepted when the tracked bracket is ≤ BRACKET_TOL (relative).
START_WIDEN = 2.0 ** -40
BRACKET_TOL = 2.0 ** -57


@njit(cache=True)
def _series_backward(x: float, h: float, m0: float) -> float:
    """The same series with r_n = M_n/M_{n−1} by the backward recurrence (x > 1), summed inside that loop.

    Number of terms: with s_n = 2r_n = 2M_n/M_{n−1}, the recurrence 2M_n = (n − 1)M_{n−2} − 2xM_{n−1} reads
    s_{n−1} = 2(n − 1)/(2x + s_n), so s_n ≤ n/x; the term ratio t_{n+1}/t_n = h·s_{n+1}/(n + 1) is at most
    ρ = h/x, and ρ < 1/3 where the series is used (erfcx(x + h) > ¾erfcx(x) and erfcx(x) ≤ 1/(x√π)·…
    force h < x/3).  The alternating sum after K terms is off by at most t_{K+1} ≤ t_1ρ^K, while the sum is at
    least t_1(1 − ρ); K = ⌈(60 ln 2 + ln(1/(1 − ρ)))/ln(1/ρ)⌉ + 1 ≤ 40 keeps that below 2⁻⁶⁰ of the sum.
    Horner form: S = t_1·(1 − u_2(1 − u_3(1 − … u_K))), u_n = h·s_n/n ≤ ρ, accumulated as s_n comes out of
    the backward recurrence, so no array is allocated.

    **Start: a proven bracket, tracked down the sweep (no measured constant).**  M_n = ∫tⁿ dμ for a positive
    measure μ, so by Cauchy–Schwarz M_n² ≤ M_{n−1}M_{n+1}, i.e. s_n ≤ s_{n+1}.  Then
    s_N(2x + s_N) ≤ s_N(2x + s_{N+1}) = 2N gives s_N ≤ σ_N = 2N/(x + √(x² + 2N)), and
    s_N = 2N/(2x + s_{N+1}) ≥ ℓ_N = 2N/(2x + σ_{N+1}).  The sweep starts from a = σ_N (widened up by 2⁻⁴⁰,
    ℓ_N widened down, so the float rounding of the two bounds, ≤ 4·2⁻⁵³, cannot put them inside the true
    value; the true bracket is ≈ 1/(2N) wide).  Let the exact value of the sweep at level k + 1 be a and the
    true s_{k+1} lie within W = w·a of it.  The step g(t) = 2k/(2x + t) maps both to level k, where
    |g(a) − g(b)| = 2k|a − b|/((2x + a)(2x + b)) ≤ g(a)·W/(2x + a − W), so the relative width becomes
        w' ≤ w·a/(2x + a − wa) ≤ w·c·(1 + 2w),   c = a/(2x + a) = a·d,  d = 1/(2x + a)   (w ≤ ½).
    This holds while w ≤ ½ (1/(1 − y) ≤ 1 + 2y for 0 ≤ y ≤ ½), so the sweep tracks w by that product (d is
    the step's own reciprocal, s_k = 2k·d) and its maximum.  In floats each factor carries ≤ 3u relative, a
    factor (1 + 3u)^N < 1 + 10⁻¹⁰ for the N < 10⁵ used here, so the check w_K ≤ 2⁻⁵⁷ (with max w ≤ ½) bounds
    the truncation of s_K by 2⁻⁵⁷(1 + 10⁻¹⁰) relative; below K the relative width only shrinks (the factor
    c(1 + 2w) < 1 for w ≤ 2⁻⁵⁷), so every s_n, n ≤ K, has that truncation bound too — derived, not measured.
    If the check fails, N − K is doubled
    and the sweep repeated.  The initial N = K + ⌈5.84 + (73.2 + 2.18K)/x + (127.9 + 0.394K)/x²⌉ only sets the
    speed: it was fitted (5 % + 1 above) to the smallest N passing this check for 1 ≤ x ≤ 80, 1 ≤ K ≤ 41
    (about half the former measured start 40 + 450/x² + K); where it is too small the sweep is repeated,
    never is accuracy lost.

    Float rounding (covered by the kernels' budgets): a relative error η in s_k becomes c·η in s_{k−1},
    c = s_k/(2x + s_k) ≤ (V − x)/(V + x) ≤ exp(−2x/V), V = √(x² + 2k) (s_k ≤ σ_k); each step adds ≤ 3u
    (u = 2⁻⁵³: the sum, 1/(·), 2k·d).  So s_n carries ≤ 3u(1 + Σ_{j≥1} Π_{i<j} c_{n+i}) ≤ 3u·5.36 ≈ 16u for
    x ≥ 1, n ≤ 41 (the sum evaluated with the exp bound; worst at x = 1, n = 41); the start's own error
    contracts the same way and is inside the bracket.
    """
    rho = min(h / x, 1.0 / 3.0)
    nterms = int((41.6 + math.log(1.0 / (1.0 - rho))) / math.log(1.0 / rho)) + 2 if rho > 0.0 else 1
    c = 1.0 / x
    kk = float(nterms)
    steps = float(int(5.84 + c * (73.2 + 2.18 * kk) + c * c * (127.9 + 0.394 * kk)) + 1)
    two_x = 2.0 * x
    s = 0.0
    for _ in range(30):
        top = kk + steps
        s = 2.0 * top / (x + math.sqrt(x * x + 2.0 * top)) * (1.0 + START_WIDEN)  # ≥ σ_N
        sigma_next = 2.0 * (top + 1.0) / (x + math.sqrt(x * x + 2.0 * top + 2.0))
        low = 2.0 * top / (two_x + sigma_next * (1.0 + START_WIDEN)) * (1.0 - START_WIDEN)  # ≤ ℓ_N
        w = (s - low) / s * (1.0 + START_WIDEN)
        w_max = w
        k = top
        while k > kk:
            k -= 1.0
            d = 1.0 / (two_x + s)
            w = w * (s * d) * (1.0 + 2.0 * w)
            w_max = max(w_max, w)
            s = 2.0 * k * d
        if w <= BRACKET_TOL and w_max <= 0.5:
            break
        steps *= 2.0
    acc = 1.0
    k = kk
    while k >= 2.0:  # s holds s_k
        acc = 1.0 - h * s / k * acc
        k -= 1.0
        s = 2.0 * k / (two_x + s)
    return m0 * h * s * acc


@njit(cache=True)
def erfcx_diff(x: float, h: float) -> float:
    """erfcx(x) − erfcx(x + h) for h ≥ 0, with no catastrophic cancellation (module docstring)."""
    f0 = erfcx(x)
    f1 = erfcx(x + h)
    if h == 0.0:
        return 0.0
    if f1 <= SERIES_RATIO * f0 or not math.isfinite(f0):
        return f0 - f1
    if x <= BACKWARD_FROM:
        return _series_forward(x, h, f0)
    return _series_backward(x, h, f0)
