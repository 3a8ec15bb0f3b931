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
does not matter (N ≈ 100 + 450/x²).  The series is used only when erfcx(x + h) > ¾·erfcx(x); then its terms decrease at
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


@njit(cache=True)
def _series_backward(x: float, h: float, m0: float) -> float:
    """The same series with r_n = M_n/M_{n−1} by the backward recurrence (x > 1), summed inside that loop.

    Number of terms: r_{n−1} = (n − 1)/(2x + 2r_n) ≤ (n − 1)/(2x), so the term ratio t_{n+1}/t_n = 2h·r_{n+1}/(n + 1)
    is at most ρ = h/x, and ρ < 1/3 where the series is used (erfcx(x + h) > ¾erfcx(x) and erfcx(x) ≤ 1/(x√π)·…
    force h < x/3).  The alternating sum after K terms is off by at most t_{K+1} ≤ t_1ρ^K, while the sum is at
    least t_1(1 − ρ); K = ⌈(60 ln 2 + ln(1/(1 − ρ)))/ln(1/ρ)⌉ + 1 ≤ 40 keeps that below 2⁻⁶⁰ of the sum
    (the fixed 60 terms before needed the same stop, found by testing each term).
    Horner form: S = t_1·(1 − u_2(1 − u_3(1 − … u_K))), u_n = 2h·r_n/n, accumulated as r_n comes out of the
    backward recurrence, so no array is allocated.
    Start: the start value's influence decays like exp(−c·x·√N): N ≈ 400/x² suffices for 2⁻⁵⁶ (measured
    against mpmath from x = 0.5 to 10); K + 40 + 450/x² leaves the same margin above the last used index as
    before.
    """
    rho = min(h / x, 1.0 / 3.0)
    nterms = int((41.6 + math.log(1.0 / (1.0 - rho))) / math.log(1.0 / rho)) + 2 if rho > 0.0 else 1
    start = nterms + 40 + int(450.0 / (x * x))
    r = 0.0
    acc = 1.0
    k = start
    while k >= 2:
        r = (k - 1.0) / (2.0 * x + 2.0 * r)  # r_{k−1}
        n = k - 1
        if 2 <= n <= nterms:
            acc = 1.0 - 2.0 * h * r / n * acc
        k -= 1
    return m0 * 2.0 * h * r * acc


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
