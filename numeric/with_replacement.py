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
from numeric.jit import njit

from .binomial import U, bd0_with_error, log_pmf_with_error, stirlerr
from .special import up
from .subsampled_profiles import base_up

# mechanism code of a bare (ε, δ); 0 and 1 are Gaussian and Laplace (numeric.subsampled_profiles).  A numpy int64,
# not a Python int: numba types a Python int constant passed to a compiled function as Literal[int](-1) and compiled
# binomial_sum/block_sum once for it and once more for the int64 codes of the white-box callers
BARE = np.int64(-1)

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


# The group profile is chosen at compile time, not by a runtime branch on the mechanism code: ``sums_for``
# (below) builds the sums once per group function (a closure constant, called statically), so the bare (ε, δ)
# kernel never compiles the T8/T9 kernels behind the white-box form (≈ 2 s of cold compile, for code it
# never ran).  The sums are compiled into, and cached with, the kernels that call them.  (Passing the group
# function as an argument instead would make numba embed the function object's address: not cacheable.)
@njit(cache=True)
def bare_group(mech: int, epsilon: float, a: float, k: float):
    """(group profile at distance k, its absolute error) of a bare (ε, δ = a): the black-box form."""
    return group_profile(epsilon, a, k)


@njit(cache=True)
def white_box_group(mech: int, epsilon: float, a: float, k: float):
    """(group profile at distance k, 0) of Laplace (mech = 1) or Gaussian (mech = 0) noise at θ = a: the
    white-box form, already rounded up."""
    return white_box_group_profile(mech, epsilon, a, k), 0.0


# Summation range (issue 11: m = 10¹², m ≥ 2⁵³ and m = 10⁸ with n = 2 ran for minutes).
#
# Chernoff tails.  For K ≥ mp, P{Bin(m, p) ≥ K} ≤ exp(−m·KL(K/m ‖ p)), and for K ≤ mp,
# P{Bin(m, p) ≤ K} ≤ exp(−m·KL(K/m ‖ p)) (Chernoff–Hoeffding, exact KL form).  With q = 1 − p,
# m·KL(K/m ‖ p) = K ln(K/(mp)) + (m − K) ln((m − K)/(mq)) = bd0(K, mp) + bd0(m − K, mq)
# (the μ − x parts of the two bd0 cancel: (mp − K) + (mq − m + K) = 0), so ψ(K) = bd0(K, mp) + bd0(m − K, mq)
# is evaluated without cancellation and lowered by bd0_with_error's bound: exp(−ψ_lb) is an upper bound of the
# tail.  ψ increases away from mp, so the cut-offs are found by bisection; only the *final* K's own ψ_lb is
# used for the bound, so a non-monotone rounding glitch in the search cannot make it unsound.
# Since every group profile δ_{M,k} ≤ 1, the terms outside [K_lo + 1, K_hi − 1] add at most the two tail
# probabilities, which are *added* to the sum.  TAIL_EXPONENT = 800 puts them below e^−800 < 2⁻¹⁰⁷⁴ (every
# result then gains at most the smallest subnormal): the window is about ±40 standard deviations.
#
# Monotonicity in k.  δ_{M,k}(ε) is nondecreasing in k: in the black-box form both factors
# (e^ε − 1)/(e^{ε/k} − 1) and δ + (1 − δ)(e^ε − e^{ε/k})/(1 + e^ε) are positive and nondecreasing in k (ε/k
# decreases), and min(1, ·) keeps that; in the white-box form δ_{kθ}(ε) increases with θ' = kθ (T8/T9/T11 are
# increasing in θ).  So a block [a, a + w − 1] of terms sums to at most w · max_block P · δ_{M,a+w}.
#
# Blocks.  When the window holds more than MAX_TERMS integers (mp(1 − p) ≳ 6·10⁸, or k beyond 2⁵³ where
# k + 1 is not representable), it is covered by at most MAX_TERMS blocks of width w (a power of two, so every
# block end is an exact float).  The pmf increases up to (m + 1)p and decreases after it, so a block left of
# that point has its largest P at its right end, a block right of it at its left end; the block containing it
# uses Loader's form P(k) = e^{stirlerr(m) − stirlerr(k) − stirlerr(m−k) − ψ(k)}·√(m/(2πk(m − k)))
# ≤ e^{stirlerr(m)}·√(m/(2π·min over the block ends of k(m − k))) (stirlerr ≥ 0, ψ ≥ 0, k(m − k) concave).
# The blocks overestimate by a factor ≈ 1 + w/σ near the centre, about 10⁻⁴ relative: sound, slightly loose,
# and used only where an exact scan would take seconds to hours.
TAIL_EXPONENT = 800.0
MAX_TERMS = 2.0 ** 20
TINY = 2.0 ** -1074


@njit(cache=True)
def psi_lower(k: float, m: float, p: float) -> float:
    """A lower bound on ψ(k) = m·KL(k/m ‖ p) = bd0(k, mp) + bd0(m − k, mq), for 1 ≤ k ≤ m − 1."""
    b1, e1 = bd0_with_error(k, m * p, 0.0, True)
    b2, e2 = bd0_with_error(m - k, m * (1.0 - p), 0.0, True)
    return (b1 + b2) * (1.0 - 2.0 * U) - e1 - e2


@njit(cache=True)
def tail_bound(k: float, m: float, p: float) -> float:
    """An upper bound on the Chernoff tail at cut-off k (P{Bin ≥ k} for k ≥ mp, P{Bin ≤ k} for k ≤ mp)."""
    return math.exp(-max(psi_lower(k, m, p), 0.0)) * (1.0 + 4.0 * U) + TINY


@njit(cache=True)
def cutoffs(m: float, p: float):
    """(first k of the window, last k, tail bound of the two excluded ranges): Chernoff cut-offs at
    ψ ≥ TAIL_EXPONENT on each side of mp, clipped to [1, m]; see the comment above."""
    mu = m * p
    lo, tails = 1.0, 0.0
    # lower side: the largest K in [1, floor(μ)] with ψ_lb(K) ≥ E; the window starts at K + 1
    top = min(math.floor(mu), m - 1.0)
    if top >= 1.0 and psi_lower(1.0, m, p) >= TAIL_EXPONENT:
        a, b = 1.0, top  # ψ_lb(a) ≥ E; find the largest such point
        if psi_lower(b, m, p) >= TAIL_EXPONENT:
            a = b
        while b - a > 1.0:
            c = float(math.floor(0.5 * (a + b)))  # a float, as a and b: numba's floor is an int64 (exact either way)
            if c <= a or c >= b:  # above 2⁵³ the midpoint may round onto an end
                break
            if psi_lower(c, m, p) >= TAIL_EXPONENT:
                a = c
            else:
                b = c
        lo = a + 1.0 if a < 2.0 ** 53 else a  # a + 1 may round below a + 1 there: overlap instead
        tails += tail_bound(a, m, p)
    hi = m
    bottom = max(math.ceil(mu), 1.0)
    if bottom <= m - 1.0 and psi_lower(m - 1.0, m, p) >= TAIL_EXPONENT:
        a, b = bottom, m - 1.0  # ψ_lb(b) ≥ E; find the smallest such point
        if psi_lower(a, m, p) >= TAIL_EXPONENT:
            b = a
        while b - a > 1.0:
            c = float(math.floor(0.5 * (a + b)))  # a float, as a and b: numba's floor is an int64 (exact either way)
            if c <= a or c >= b:
                break
            if psi_lower(c, m, p) >= TAIL_EXPONENT:
                b = c
            else:
                a = c
        hi = b - 1.0 if b < 2.0 ** 53 else b
        tails += tail_bound(b, m, p)
    return lo, max(hi, lo - 1.0), tails


@njit(cache=True)
def _add(total: float, comp: float, term: float):
    t = total + term  # Neumaier summation
    if abs(total) >= abs(term):
        comp += (total - t) + term
    else:
        comp += (term - t) + total
    return t, comp


def sums_for(group):
    """(binomial_sum, block_sum) compiled for one group-profile function ``group(mech, ε, a, k)`` →
    (δ_{M,k}(ε), its absolute error bound)."""

    @njit
    def block_sum(mech: int, epsilon: float, a: float, m: float, p: float, lo: float, hi: float):
        """(an upper bound on Σ_{k=lo}^{hi} P{Bin(m, p) = k}·δ_{M,k}(ε), a bound on its absolute error) by at
        most MAX_TERMS blocks of power-of-two width (see the comment above)."""
        w = 1.0
        while (hi - lo + 1.0) / w > MAX_TERMS or w < np.spacing(hi) * 2.0:
            w *= 2.0
        split = (m + 1.0) * p
        total = 0.0
        comp = 0.0
        err = 0.0
        start = math.floor(lo / w) * w
        while start <= hi:
            end = start + w  # the block holds start .. end − 1
            last = end - 1.0 if end < 2.0 ** 53 else end  # its last integer (or, above 2⁵³, one past it)
            if last <= split * (1.0 - 4.0 * U) and last <= m:
                lw, lw_err = log_pmf_with_error(last, m, p)
                pmax = math.exp(lw + lw_err) * (1.0 + 2.0 * U)
            elif start >= split * (1.0 + 4.0 * U) + 1.0 and start >= 1.0:
                lw, lw_err = log_pmf_with_error(start, m, p)
                pmax = math.exp(lw + lw_err) * (1.0 + 2.0 * U)
            elif start >= 1.0 and last <= m - 1.0:
                smallest = min(start * (m - start), last * (m - last))
                pmax = min(1.0, math.exp(stirlerr(m)) * math.sqrt(m / (2.0 * math.pi * smallest))
                           * (1.0 + 16.0 * U))
            else:
                pmax = 1.0
            g, g_err = group(mech, epsilon, a, min(last, m))  # δ_{M,k} is nondecreasing in k
            term = w * pmax * (g + g_err) * (1.0 + 2.0 * U)
            total, comp = _add(total, comp, term)
            start = end
        total = total + comp
        return total, err + 2.0 * U * total

    @njit
    def binomial_sum(mech: int, epsilon: float, a: float, m: float, n: float):
        """(Σ_{k=1}^{m} P{Bin(m, 1/n) = k}·δ_{M,k}(ε) unrounded, a bound on its absolute error), m ≥ 1.

        The error bound is accumulated with the sum: each term w_k·δ_{M,k} carries the error of its log
        weight (``log_pmf_with_error``, passed through exp), the group profile's own bound, and 2u for exp and
        the product; compensated (Neumaier) summation adds ≤ 2u of the total.  The terms outside the Chernoff
        window (``cutoffs``) are bounded by their tail probabilities, and the scan inside it stops by the
        geometric rule below; both bounds are added to the value, so stopping early never lowers δ'.  Windows
        wider than MAX_TERMS are summed by blocks (``block_sum``): at most ~2·10⁶ kernel steps for any m, n.
        """
        if n == 1.0:  # every draw is the differing record
            return group(mech, epsilon, a, m)
        p = 1.0 / n
        odds = p / (1.0 - p)
        lo, hi, tails = cutoffs(m, p)
        if hi - lo + 1.0 > MAX_TERMS or hi >= 2.0 ** 53:
            total, err = block_sum(mech, epsilon, a, m, p, lo, hi)
            return total + tails, err + 2.0 * U * (total + tails)
        mode = math.floor((m + 1.0) * p)
        total = 0.0
        comp = 0.0
        err = 0.0
        k = lo
        while k <= hi:
            lw, lw_err = log_pmf_with_error(k, m, p)
            weight = math.exp(lw)
            g, g_err = group(mech, epsilon, a, k)
            term = weight * g
            err += term * (math.expm1(lw_err) + 2.0 * U) + weight * math.exp(lw_err) * g_err
            total, comp = _add(total, comp, term)
            if k >= mode and k < m:
                r = (m - k - 1.0) / (k + 2.0) * odds
                if r < 1.0:
                    lw1, lw1_err = log_pmf_with_error(k + 1.0, m, p)
                    tail = math.exp(lw1 + lw1_err) / (1.0 - r) * (1.0 + 4.0 * U)
                    if tail <= STOP * (total + comp):
                        total = total + comp + tails
                        return total + tail, err + 2.0 * U * total
            k += 1.0
        total = total + comp + tails
        return total, err + 2.0 * U * total

    return binomial_sum, block_sum


bare_binomial_sum, bare_block_sum = sums_for(bare_group)
white_box_binomial_sum, white_box_block_sum = sums_for(white_box_group)


@njit
def binomial_sum(mech: int, epsilon: float, a: float, m: float, n: float):
    """The sum for the group profile of ``mech`` (BARE: black-box; 0, 1: white-box), for callers from Python
    (tests); each kernel calls its own ``*_binomial_sum``."""
    if mech == BARE:
        return bare_binomial_sum(mech, epsilon, a, m, n)
    return white_box_binomial_sum(mech, epsilon, a, m, n)


@njit
def block_sum(mech: int, epsilon: float, a: float, m: float, p: float, lo: float, hi: float):
    """The block sum for the group profile of ``mech``, for callers from Python (tests)."""
    if mech == BARE:
        return bare_block_sum(mech, epsilon, a, m, p, lo, hi)
    return white_box_block_sum(mech, epsilon, a, m, p, lo, hi)


@njit(cache=True)
def delta_sum(epsilon: float, delta: float, m: float, n: float):
    """(δ' of T3 for a bare (ε, δ) unrounded, a bound on its absolute error)."""
    if is_exact_zero(epsilon, delta, m):
        return 0.0, 0.0
    return bare_binomial_sum(BARE, epsilon, delta, m, n)

def delta(epsilon, delta, m, n):
    """T3/T4 δ' plus its running error bound, rounded up (an underflow to 0 is rounded up too), at most 1."""
    if is_exact_zero(epsilon, delta, m):
        return 0.0
    value, err = delta_sum(epsilon, delta, m, n)
    return min(1.0, up(value + err, 2))


def delta_raw(epsilon, delta, m, n):
    """T3/T4 δ', unrounded (for accuracy measurement)."""
    return delta_sum(epsilon, delta, m, n)[0]
