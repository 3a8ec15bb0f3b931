"""δ' of SPEC T3/T4 (sampling with replacement) for a base mechanism given as a bare (ε, δ).

δ' = Σ_{k=1}^{m} P{Bin(m, 1/n) = k} · δ_{M,k}(ε), with the black-box group profile of the implied profile
δ_{M,k}(ε) = min(1, (e^ε − 1)/(e^{ε/k} − 1) · [δ + (1 − δ)(e^ε − e^{ε/k})/(1 + e^ε)]).

The binomial weights are computed in log space (``numeric.binomial``), the sum is compensated (Neumaier),
and the scan stops once the remaining terms are provably negligible: past the mode the weights decrease
geometrically with ratio at most r = (m − k − 1)/(k + 2) · (1/(n − 1)) < 1 and δ_{M,k} ≤ 1, so the tail is
at most P{Bin = k + 1}/(1 − r); that bound is *added* to the sum, so stopping early never lowers δ'.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .binomial import log_pmf
from .special import up

BUDGET_ULPS = 16  # measured peak error is below this (proofs_checks.accuracy); see numeric.budgets
STOP = 2.0 ** -64  # stop when the tail bound is below STOP × the running sum


@njit(cache=True)
def group_profile(epsilon: float, delta: float, k: float) -> float:
    """Black-box group profile δ_{M,k}(ε) of a bare (ε, δ) mechanism (SPEC T3/T7), k ≥ 1."""
    if k == 1.0:
        return delta
    if epsilon == 0.0:
        return min(1.0, k * delta)
    if epsilon == np.inf:
        return 1.0
    x = epsilon / k
    # (e^ε − e^x)/(1 + e^ε) = (1 − e^{x − ε})/(1 + e^{−ε})
    bracket = delta + (1.0 - delta) * (-math.expm1(x - epsilon)) / (1.0 + math.exp(-epsilon))
    if epsilon <= 700.0:
        return min(1.0, math.expm1(epsilon) / math.expm1(x) * bracket)
    log_ratio = epsilon - x + math.log(-math.expm1(-epsilon)) - math.log(-math.expm1(-x))
    return min(1.0, math.exp(min(log_ratio + math.log(bracket), 1.0)))


@njit(cache=True)
def is_exact_zero(epsilon: float, delta: float, m: float) -> bool:
    """δ' = 0 exactly: no draws, or δ = 0 with a single draw or ε = 0 (every group profile is 0)."""
    return m == 0.0 or (delta == 0.0 and (epsilon == 0.0 or m == 1.0))


@njit(cache=True)
def delta_sum(epsilon: float, delta: float, m: float, n: float) -> float:
    """Unrounded δ' of T3 (compensated sum plus the proven tail bound)."""
    if is_exact_zero(epsilon, delta, m):
        return 0.0
    if n == 1.0:  # every draw is the differing record
        return group_profile(epsilon, delta, m)
    p = 1.0 / n
    odds = p / (1.0 - p)
    mode = math.floor((m + 1.0) * p)
    total = 0.0
    comp = 0.0
    k = 1.0
    while k <= m:
        w = math.exp(log_pmf(k, m, p))
        term = w * group_profile(epsilon, delta, k)
        t = total + term  # Neumaier summation
        if abs(total) >= abs(term):
            comp += (total - t) + term
        else:
            comp += (term - t) + total
        total = t
        if k >= mode and k < m:
            r = (m - k - 1.0) / (k + 2.0) * odds
            if r < 1.0:
                tail = math.exp(log_pmf(k + 1.0, m, p)) / (1.0 - r)
                if tail <= STOP * (total + comp):
                    return total + comp + tail
        k += 1.0
    return total + comp


def delta(epsilon, delta, m, n):
    """T3/T4 δ', rounded up by ``BUDGET_ULPS`` (an underflow to 0 is rounded up too), at most 1."""
    if is_exact_zero(epsilon, delta, m):
        return 0.0
    return min(1.0, up(delta_sum(epsilon, delta, m, n), BUDGET_ULPS))


def delta_raw(epsilon, delta, m, n):
    """T3/T4 δ', unrounded (for accuracy measurement)."""
    return delta_sum(epsilon, delta, m, n)
