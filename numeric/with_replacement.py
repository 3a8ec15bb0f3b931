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

from .binomial import U, log_pmf_with_error
from .special import up
from .subsampled_profiles import base_up

BARE = -1  # mechanism code of a bare (ε, δ); 0 and 1 are Gaussian and Laplace (numeric.subsampled_profiles)

# The result is rounded up by a *running* error bound computed with the sum (below), not by a fixed number
# of ulps.  BUDGET_ULPS is the most unrounded error the accuracy check tolerates (measured peak: 33 ulps).
BUDGET_ULPS = 64
GROUP_PROFILE_ERROR = 16.0 * U  # relative error of group_profile's general case (its docstring)
STOP = 2.0 ** -64  # stop when the tail bound is below STOP × the running sum


@njit(cache=True)
def group_profile(epsilon: float, delta: float, k: float):
    """(δ_{M,k}(ε), a bound on its absolute error): black-box group profile of a bare (ε, δ), k ≥ 1.

    General case, relative error ≤ 16u: the ratio expm1(ε)/expm1(ε/k) ≤ 4u; in the bracket, x − ε = ε/k − ε
    carries ≤ 3u relative for k ≥ 2, expm1 of a negative argument does not amplify it, and the division,
    weights and sum add ≤ 5u; the product and min add ≤ u.  Above ε = 700 the log-space value is ≥ 350 for
    k ≥ 2, so the min returns exactly 1.
    Tiny ε (ε·k < 2⁻⁶⁰, where ε/k may be subnormal): the ratio Σ_{j<k} e^{jε/k} is k within a relative 2εk,
    and (e^ε − e^{ε/k})/(1 + e^ε) is y/2 within a relative 2ε, y = ε(k − 1)/k, computed scaled by 2⁶⁰⁰ so it
    keeps full precision; unscaling to a subnormal costs at most 2⁻¹⁰⁷⁵ absolute, k times that after ×k.
    """
    if k == 1.0:
        return delta, 0.0
    if epsilon == 0.0:
        value = min(1.0, k * delta)
        return value, U * value
    if epsilon == np.inf:
        return 1.0, 0.0
    if epsilon * k < 2.0 ** -60:
        y = math.ldexp(math.ldexp(epsilon, 600) * (k - 1.0) / k, -600)
        value = min(1.0, k * (delta + (1.0 - delta) * 0.5 * y))
        return value, value * (8.0 * U + 4.0 * epsilon * k) + k * 2.0 ** -1073
    x = epsilon / k
    # (e^ε − e^x)/(1 + e^ε) = (1 − e^{x − ε})/(1 + e^{−ε})
    bracket = delta + (1.0 - delta) * (-math.expm1(x - epsilon)) / (1.0 + math.exp(-epsilon))
    if epsilon <= 700.0:
        value = min(1.0, math.expm1(epsilon) / math.expm1(x) * bracket)
    else:
        log_ratio = epsilon - x + math.log(-math.expm1(-epsilon)) - math.log(-math.expm1(-x))
        value = min(1.0, math.exp(min(log_ratio + math.log(bracket), 1.0)))
    return value, GROUP_PROFILE_ERROR * value


@njit(cache=True)
def is_exact_zero(epsilon: float, delta: float, m: float) -> bool:
    """δ' = 0 exactly: no draws, or δ = 0 with a single draw or ε = 0 (every group profile is 0)."""
    return m == 0.0 or (delta == 0.0 and (epsilon == 0.0 or m == 1.0))


@njit(cache=True)
def white_box_group_profile(mech: int, epsilon: float, theta: float, k: float) -> float:
    """δ_{kθ}(ε) of Laplace (mech = 1) or Gaussian (mech = 0) noise, rounded up: at distance k the pair is the
    base pair with θ → kθ; the base profile (T11 at q = 1, i.e. T8/T9) is taken at an upper bound of kθ."""
    kt = k * theta
    if k != 1.0:
        kt = np.nextafter(kt, np.inf)
    # base_up = delta_up(mech, REMOVE, ε, kθ, 1) without the T11 double-double machinery, which every kernel
    # of this module compiled before (the bare (ε, δ) kernel too, through the runtime mechanism branch)
    return base_up(mech, epsilon, kt)


@njit(cache=True)
def _group(mech: int, epsilon: float, a: float, k: float):
    """(group profile at distance k, its absolute error): the bare (ε, δ = a) black-box form for mech = BARE,
    else the white-box Laplace/Gaussian form at θ = a (already rounded up: error 0)."""
    if mech == BARE:
        return group_profile(epsilon, a, k)
    return white_box_group_profile(mech, epsilon, a, k), 0.0


@njit(cache=True)
def binomial_sum(mech: int, epsilon: float, a: float, m: float, n: float):
    """(Σ_{k=1}^{m} P{Bin(m, 1/n) = k}·δ_{M,k}(ε) unrounded, a bound on its absolute error), m ≥ 1.

    The error bound is accumulated with the sum: each term w_k·δ_{M,k} carries the error of its log weight
    (``log_pmf_with_error``, passed through exp), the group profile's own bound, and 2u for exp and the
    product; compensated (Neumaier) summation adds ≤ 2u of the total.  The stopping rule's tail bound is added
    to the value, so stopping early never lowers δ'.
    """
    if n == 1.0:  # every draw is the differing record
        return _group(mech, epsilon, a, m)
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
        g, g_err = _group(mech, epsilon, a, k)
        term = weight * g
        err += term * (math.expm1(lw_err) + 2.0 * U) + weight * math.exp(lw_err) * g_err
        t = total + term  # Neumaier summation
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


@njit(cache=True)
def delta_sum(epsilon: float, delta: float, m: float, n: float):
    """(δ' of T3 for a bare (ε, δ) unrounded, a bound on its absolute error)."""
    if is_exact_zero(epsilon, delta, m):
        return 0.0, 0.0
    return binomial_sum(BARE, epsilon, delta, m, n)

def delta(epsilon, delta, m, n):
    """T3/T4 δ' plus its running error bound, rounded up (an underflow to 0 is rounded up too), at most 1."""
    if is_exact_zero(epsilon, delta, m):
        return 0.0
    value, err = delta_sum(epsilon, delta, m, n)
    return min(1.0, up(value + err, 2))


def delta_raw(epsilon, delta, m, n):
    """T3/T4 δ', unrounded (for accuracy measurement)."""
    return delta_sum(epsilon, delta, m, n)[0]
