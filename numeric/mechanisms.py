"""δ' of SPEC T3/T4 (sampling with replacement) for a base mechanism given by its privacy profile, with the
*white-box* group profile of Laplace/Gaussian noise: at distance k the pair is the base pair with θ → kθ.

δ' = Σ_{k=1}^{m} P{Bin(m, 1/n) = k}·δ_{kθ}(ε), summed exactly as ``numeric.with_replacement`` does for a bare
(ε, δ): log-space binomial weights with their error bounds (``numeric.binomial``), Neumaier summation, a
running absolute error bound, and a proven tail bound (δ ≤ 1 past the stopping point) *added* to the sum.
The group profiles are the upward-rounded T8/T9 kernels at an upper bound of kθ (δ increases with θ), so
each term is an upper bound of its exact value and only the weights and the sum carry rounding error.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .binomial import U, log_pmf_with_error
from .special import up
from .subsampled_profiles import REMOVE, delta_up

STOP = 2.0 ** -64


@njit(cache=True)
def group_profile_up(mech: int, epsilon: float, theta: float, k: float) -> float:
    """δ_{kθ}(ε) rounded up: the base profile (T11 at q = 1, i.e. T8/T9) at kθ rounded up."""
    kt = k * theta
    if k != 1.0:
        kt = np.nextafter(kt, np.inf)
    return delta_up(mech, REMOVE, epsilon, kt, 1.0)


@njit(cache=True)
def delta_sum(mech: int, epsilon: float, theta: float, m: float, n: float):
    """(δ' upper value, absolute error bound) for the white-box group profiles."""
    if m == 0.0:
        return 0.0, 0.0
    if n == 1.0:
        return group_profile_up(mech, epsilon, theta, m), 0.0
    p = 1.0 / n
    odds = p / (1.0 - p)
    mode = math.floor((m + 1.0) * p)
    total = 0.0
    comp = 0.0
    err = 0.0
    k = 1.0
    while k <= m:
        lw, lw_err = log_pmf_with_error(k, m, p)
        weight = math.exp(lw)
        g = group_profile_up(mech, epsilon, theta, k)
        term = weight * g
        err += term * (math.expm1(lw_err) + 2.0 * U)
        t = total + term
        if abs(total) >= abs(term):
            comp += (total - t) + term
        else:
            comp += (term - t) + total
        total = t
        if k >= mode and k < m:
            r = (m - k - 1.0) / (k + 2.0) * odds
            if r < 1.0:
                lw1, lw1_err = log_pmf_with_error(k + 1.0, m, p)
                tail = math.exp(lw1 + lw1_err) / (1.0 - r) * (1.0 + 4.0 * U)
                if tail <= STOP * (total + comp):
                    total = total + comp
                    return total + tail, err + 2.0 * U * total
        k += 1.0
    total = total + comp
    return total, err + 2.0 * U * total


def with_replacement_delta(mech, epsilon, theta, m, n):
    """δ' rounded up (value + running error bound, then 2 ulps), at most 1."""
    if m == 0.0:
        return 0.0
    value, err = delta_sum(int(mech), epsilon, theta, m, n)
    return min(1.0, up(value + err, 2))


def with_replacement_delta_raw(mech, epsilon, theta, m, n):
    return delta_sum(int(mech), epsilon, theta, m, n)[0]


