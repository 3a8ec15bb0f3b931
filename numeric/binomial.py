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
from numba import njit

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
def bd0(x: float, mu: float) -> float:
    """x ln(x/μ) + μ − x ≥ 0, without cancellation when x ≈ μ."""
    if abs(x - mu) < 0.1 * (x + mu):
        v = (x - mu) / (x + mu)
        s = (x - mu) * v
        ej = 2.0 * x * v
        v2 = v * v
        j = 1
        while True:
            ej *= v2
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
            j += 1
    return x * math.log(x / mu) + mu - x


@njit(cache=True)
def log_pmf(x: float, n: float, p: float) -> float:
    """ln P{Bin(n, p) = x} for integers 0 ≤ x ≤ n and 0 < p < 1."""
    q = 1.0 - p
    if x == 0.0:
        return n * math.log1p(-p)
    if x == n:
        return n * math.log(p)
    lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q)
    return lc + 0.5 * (math.log(n / (x * (n - x))) - LOG_2PI)


U = 2.0 ** -53  # unit roundoff


@njit(cache=True)
def bd0_with_error(x: float, mu: float):
    """(bd0(x, μ), a bound on its absolute error, including the error of μ = n·p itself).

    Direct branch: x·ln(x/μ) + μ − x, each of the three terms and two additions within a few units of
    roundoff of the largest magnitude: ≤ 5u(|x ln(x/μ)| + x + μ).  Series branch (|v| < 0.1): terms computed
    within (4 + 2j)u relative, truncated once the next term is below half an ulp of the sum (the tail is then
    < 1.02 × that, as the ratio is v² < 0.01): ≤ 12u(|x − μ||v| + 2x|v|³/(1 − v²)) + u|s|.  An error of u in μ
    moves bd0 by |μ − x|u.
    """
    value = bd0(x, mu)
    if abs(x - mu) < 0.1 * (x + mu):
        v = (x - mu) / (x + mu)
        err = 12.0 * U * (abs(x - mu) * abs(v) + 2.0 * x * abs(v) ** 3 / (1.0 - v * v)) + U * abs(value)
    else:
        err = 5.0 * U * (abs(x * math.log(x / mu)) + x + mu)
    return value, err + abs(mu - x) * U


@njit(cache=True)
def log_pmf_with_error(x: float, n: float, p: float):
    """(ln P{Bin(n, p) = x}, a bound on its absolute error), for the running error bound of sums."""
    if x == 0.0:
        value = n * math.log1p(-p)
        return value, 3.0 * U * abs(value)
    if x == n:
        value = n * math.log(p)
        return value, 3.0 * U * abs(value) + U
    q = 1.0 - p
    b1, e1 = bd0_with_error(x, n * p)
    b2, e2 = bd0_with_error(n - x, n * q)
    s = stirlerr(n) - stirlerr(x) - stirlerr(n - x)
    log_term = 0.5 * (math.log(n / (x * (n - x))) - LOG_2PI)
    value = s - b1 - b2 + log_term
    # stirlerr: ≤ 8u of each value (≤ 0.0811); log term: ≤ u(|·| + 5); final five additions: ≤ 6u Σ|terms|
    err = (e1 + e2 + 3.0 * 8.0 * U * 0.0811 + U * (abs(log_term) + 5.0)
           + 6.0 * U * (abs(s) + b1 + b2 + abs(log_term)))
    return value, err
