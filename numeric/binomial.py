"""Binomial probabilities in log space, accurate in the far tails (Loader's saddle-point method).

log C(n,x) p^x q^(n−x) = stirlerr(n) − stirlerr(x) − stirlerr(n−x) − bd0(x, np) − bd0(n−x, nq)
                          + ½ ln(n / (2π x (n − x)))

where stirlerr(n) = ln n! − ln(√(2πn)(n/e)^n) and bd0(x, μ) = x ln(x/μ) + μ − x, both evaluated without
cancellation (a table and the Stirling series; a series in v = (x − μ)/(x + μ) near x = μ).  The naive
lgamma route loses |ln n!|·2⁻⁵³ absolutely, i.e. 1e-9 relative at n = 10⁶.
Reference: C. Loader, "Fast and accurate computation of binomial probabilities" (2000).
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .special import EXACT_SPLIT_MAX, EXACT_SPLIT_MIN, two_product

# stirlerr(n) for n = 0..50 (from mpmath at 40 digits; n = 0 is never used).  Checked in tests.
STIRLERR_TABLE = np.array([
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
    0.0052076559196096404,
    0.004901395948434738,
    0.004629153749334028,
    0.004385560249232324,
    0.004166319691996922,
    0.00396795421864086,
    0.0037876180684444346,
    0.0036229602246830948,
    0.003472021382978767,
    0.003333155636728093,
    0.003204970228055038,
    0.0030862786826087773,
    0.002976063983550409,
    0.0028734493623524663,
    0.0027776749297526936,
    0.002688078828531143,
    0.0026040819192516564,
    0.0025251752497567844,
    0.002450909735438118,
    0.002380887608234112,
    0.002314755290514684,
    0.002252197424337524,
    0.002192931843287834,
    0.0021367053177525,
    0.0020832899383024218,
    0.0020324800282566307,
    0.0019840894972457954,
    0.0019379495639957995,
    0.0018939067896006345,
    0.0018518213729931796,
    0.0018115656687196307,
    0.0017730228939128539,
    0.0017360859968765974,
    0.0017006566641960617,
    0.0016666444469833656,
])
# Stirling series coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188.
S0, S1, S2, S3, S4 = 1.0 / 12.0, 1.0 / 360.0, 1.0 / 1260.0, 1.0 / 1680.0, 1.0 / 1188.0
LOG_2PI = 1.8378770664093453
U = 2.0 ** -53  # unit roundoff


@njit(cache=True)
def stirlerr(n: float) -> float:
    """ln n! − ln(√(2πn)(n/e)^n) for integer n ≥ 1.

    A table up to 50; above, five terms of the Stirling series, whose truncation error (the next term,
    691/360360 · n⁻¹¹) is below 4e-22 for n > 50, far below the rounding error.
    """
    if n <= 50.0:
        return STIRLERR_TABLE[int(n)]
    nn = n * n
    return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n


@njit(cache=True)
def bd0_with_error(x: float, mu: float, mu_lo: float, mu_exact: bool):
    """(bd0(x, μ), a bound on its absolute error), bd0(x, μ) = x ln(x/μ) + μ − x ≥ 0, for x ≥ 0, μ > 0.

    μ = mu + mu_lo (a double-double; ``mu_exact`` False means mu is only within u of μ and mu_lo = 0; a plain
    double μ is ``mu, 0.0, True``).  No default arguments: numba compiles a call that omits one as a separate
    specialisation of this whole function.
    u = 2⁻⁵³, u' = 1.01u (absorbs second-order products); libm log is assumed within 1 ulp (≤ 2u relative:
    glibc's documented maximum for x86-64); +, −, ×, ÷ are correctly rounded, and the rounding error of
    an addition a + b is ≤ min(u|a + b|, |b|) (a itself is a neighbouring double).

    **Series branch, |v| ≤ ½** (v = (x − μ)/(x + μ), i.e. ⅓ ≤ x/μ ≤ 3).  With d = x − μ, s = x + μ and
    ln(x/μ) = 2 atanh v, the identity 2xv − d = dv gives exactly

        bd0 = d·v + 2x Σ_{j≥1} v^{2j+1}/(2j+1),

    whose terms after the first (d·v ≥ 0) all have the sign of v, with ratio v² ≤ ¼.  It never cancels:
    for v < 0 the negative part is ≤ |v|/(3(1 + |v|))·dv ≤ dv/9 (2x = s(1 + v), dv = v²s), so the
    condition number of the sum is ≤ 1.25 and the error is a few u of the *value*.  Per operation:
    d̂ = x − μ̂ is exact when μ̂/2 ≤ x ≤ 2μ̂ (Sterbenz), else within u; ŝ: u; v̂ = d̂/ŝ: (2 + c_d)u';
    d̂·v̂: (3 + 2c_d)u' (c_d = 0 or 1); w = v̂²: (5 + 2c_d)u'.  The series is evaluated as
    dv + 2xv³·P(w), P(w) = Σ_{i≥0} wⁱ/(2i + 3) ∈ [⅓, 0.38], by Horner with Higham's running error bound
    (Alg. 5.1: every step's error is damped by w ≤ ¼ afterwards, so ê_P ≈ 3u·P), truncated at w^K ≤ 2⁻⁵⁸
    with the tail Σ_{i≥K} wⁱ/(2i + 3) ≤ w^K/((2K + 3)(1 − w)) added to the bound; 2x·v·w·P: (10 + 3c_d)u'
    plus ê_P/P relative; the final sum u|value|.

    **Direct branch, |v| > ½** (x/μ outside [⅓, 3]).  r = x/μ̂: u; L = ln r̂: ≤ u (from r̂) + 2u|L|;
    x·L̂: ≤ x u(1 + 2|L|) + u|xL|; (μ̂ − x): u|μ − x|; the final sum: u|value|.  Condition number of the
    cancellation-prone sum x·L + (μ − x): (|xL| + |μ − x|)/bd0 = (r|ln r| + |1 − r|)/(r ln r − r + 1) ≤ 5.7
    (at r = ⅓ and r = 3, falling to 1 as r → 0 or ∞).  The old band |v| < 0.1 left r ≈ 0.82 to this
    branch, where the number is ≈ 20, and the fitted budget failed there.

    **μ's low part**: ∂bd0/∂μ = (μ − x)/μ, so bd0(x, μ̂ + μ_lo) = bd0(x, μ̂) + (1 − x/μ̂)μ_lo + R with
    |R| ≤ x μ_lo²/μ̂² ≤ u²x (|μ_lo| ≤ u μ̂); the correction is added (3u' of it bounds its rounding).  When
    μ is not exact the error u|μ − x| of μ̂ is bounded instead.  2u²(x + μ) covers R and the other
    second-order terms.
    """
    if x == 0.0:  # the limit x ln x → 0: bd0(0, μ) = μ
        value = mu + mu_lo
        return value, U * abs(value) * (1.0 if mu_exact else 2.0)
    d = x - mu
    s = x + mu
    up1 = 1.01 * U
    if abs(d) <= 0.5 * s:
        c_d = 0.0 if (0.5 * mu <= x <= 2.0 * mu) else 1.0
        v = d / s
        w = v * v
        dv = d * v
        # P(w) = Σ_{i≥0} wⁱ/(2i + 3) by Horner from i = K − 1 down, K the first with w^K ≤ 2⁻⁵⁸
        K = 1
        wk = w
        while wk > 2.0 ** -58 and K < 200:
            wk *= w
            K += 1
        P = 1.0 / (2 * K + 1)
        e_p = U * P
        for i in range(K - 2, -1, -1):
            c = 1.0 / (2 * i + 3)
            wp = w * P
            P = c + wp
            # running error (Higham Alg. 5.1): old error ×w, ×: u|wP|, +: u|P|, c rounded: u·c;
            # w itself is within (5 + 2c_d)u' relative: ≤ (5 + 2c_d)u'|wP|
            e_p = w * e_p + U * (wp + P + c) + (5.0 + 2.0 * c_d) * up1 * wp
        e_p += wk / (2 * K + 3) / (1.0 - w)  # truncated tail Σ_{i≥K} wⁱ/(2i + 3)
        t2 = 2.0 * x * v * w * P  # 2x v³ P: v (2 + c_d)u', w (5 + 2c_d)u', three products
        value = dv + t2
        err = ((3.0 + 2.0 * c_d) * up1 * abs(dv) + (10.0 + 3.0 * c_d) * up1 * abs(t2)
               + abs(t2) * 1.01 * e_p / P + U * abs(value))
    else:
        r = x / mu
        if 1e-300 < r < 1e300:
            L = math.log(r)
            l_err = 1.0 + 2.0 * abs(L)  # r̂ within u, libm log within 2u|L|
        else:
            # x/μ overflows or leaves the normal range (μ subnormal, x ≪ μ): the logs separately, each within
            # 2u of itself, their difference within u|L|
            lx = math.log(x)
            lm = math.log(mu)
            L = lx - lm
            l_err = 2.0 * (abs(lx) + abs(lm)) + abs(L)
        xl = x * L
        value = xl + (mu - x)
        err = up1 * (x * l_err + abs(xl) + abs(mu - x) + abs(value))
    if mu_exact and mu_lo != 0.0:
        corr = (1.0 - x / mu) * mu_lo
        value += corr
        err += 3.0 * up1 * abs(corr) + U * abs(value)
    else:
        err += U * abs(d)
    return value, err + 2.0 * U * U * s


@njit(cache=True)
def bd0(x: float, mu: float) -> float:
    """x ln(x/μ) + μ − x ≥ 0 without cancellation (``bd0_with_error``'s value)."""
    return bd0_with_error(x, mu, 0.0, True)[0]


@njit(cache=True)
def log_pmf(x: float, n: float, p: float) -> float:
    """ln P{Bin(n, p) = x} for integers 0 ≤ x ≤ n and 0 < p < 1 (``log_pmf_with_error``'s value)."""
    return log_pmf_with_error(x, n, p)[0]


@njit(cache=True)
def _product_exact(a: float, b: float):
    """(hi, lo, exact): a·b = hi + lo exactly when ``exact`` (Dekker's error term; no under/overflow)."""
    hi, lo = two_product(a, b)
    exact = EXACT_SPLIT_MIN < abs(hi) < EXACT_SPLIT_MAX
    return hi, (lo if exact else 0.0), exact


@njit(cache=True)
def log_pmf_with_error(x: float, n: float, p: float):
    """(ln P{Bin(n, p) = x}, a bound on its absolute error), for the running error bound of sums.

    μ₁ = np and μ₂ = n(1 − p) are carried as double-doubles (Dekker's product; 1 − p = q + q_lo exactly),
    so bd0 is evaluated at the exact means (``bd0_with_error``'s first-order correction).
    """
    if x == 0.0:
        value = n * math.log1p(-p)
        return value, 3.0 * U * abs(value)
    if x == n:
        value = n * math.log(p)
        return value, 3.0 * U * abs(value) + U
    q = 1.0 - p
    q_lo = (1.0 - q) - p  # exact: 1 − q is exact (Sterbenz for q ≥ ½; q exact when q < ½)
    m1, m1_lo, ex1 = _product_exact(n, p)
    m2, m2_lo, ex2 = _product_exact(n, q)
    m2_lo += n * q_lo  # n·q_lo ≤ u·n·q: its rounding is second order (covered by bd0's u² term)
    b1, e1 = bd0_with_error(x, m1, m1_lo, ex1)
    b2, e2 = bd0_with_error(n - x, m2, m2_lo, ex2)
    s = stirlerr(n) - stirlerr(x) - stirlerr(n - x)
    log_term = 0.5 * (math.log(n / (x * (n - x))) - LOG_2PI)
    bsum = b1 + b2
    small = s + log_term
    value = small - bsum
    # stirlerr: ≤ 8u of each value (≤ 0.0811: table rounded to nearest, or five series operations);
    # log term: x(n − x) and the quotient 2u, so ln ±2u, ln itself 2u|ln|, ln 2π u·1.84, the subtraction
    # and the halving u|·|: ≤ u(2|log_term| + 5); the four additions (b1 + b2, the two stirlerr
    # differences, s + log_term, the final difference): ≤ u(|bsum| + 2|s| + |small| + |value|)
    err = (e1 + e2 + 3.0 * 8.0 * U * 0.0811 + U * (2.0 * abs(log_term) + 5.0)
           + 1.01 * U * (bsum + 2.0 * abs(s) + abs(small) + abs(value)))
    return value, err
