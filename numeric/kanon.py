"""d(k, β, ε) of SPEC T15 (strongly-safe k-anonymization after Poisson sampling) and T16 (d at ε − ε₁).

    d(k, β, ε) = max_{n ≥ n_m} S(n),   S(n) = Σ_{j > γn}^{n} C(n,j) β^j (1−β)^{n−j} = P{Bin(n, β) > γn},
    γ = (e^ε − 1 + β)/e^ε = 1 − q,  q = (1 − β)e^{−ε},  n_m = ⌈k/γ − 1⌉,   0 < β < 1, ε ≥ −ln(1 − β).

S(n) does not depend on k, and on ε only through the integer j₀(n) = ⌊γn⌋ + 1 (the first j in the sum);
n_m is the smallest integer n with γ(n + 1) ≥ k.  Everything below is about computing those integers
exactly and the maximum of the tail probabilities soundly.

**Exact integer decisions.**  With ε' = ε_a − ε_b (T15: ε_b = 0; T16: ε_a = ε, ε_b = ε₁, the difference
taken exactly), both integers reduce to one predicate on integers a ≥ 1, b ≥ 0:

    exceeds(a, b)  ⇔  a·q > b  ⇔  b·e^{ε'} < a(1 − β).

j > γn ⇔ n − j < n·q, so j₀(n) = n − max{m ≥ 0 : exceeds(n, m)}; and γ(n + 1) ≥ k ⇔ not exceeds(n + 1,
n + 1 − k).  The float estimate t̂ = a·q̂ has relative error below 6·2⁻⁵³ (1 − β, exp(−hi), exp(−lo) and
two products, each correctly rounded or within one ulp); whenever t̂ is within 2⁻⁴³·t̂ of b the predicate
is decided exactly in Python (``exact_sign``: ``decimal``'s exp is correctly rounded, compared in exact
``Fraction``s, with the precision doubled until the sign is certain; numba calls it through ``objmode``).
Equality never happens: for a double ε' ≠ 0, e^{ε'} is transcendental (Lindemann–Weierstrass) and
ε' > 0 here, so the loop terminates.  At ε = −ln(1 − β) (γ = β(2 − β)) and at the minimisers
ε = ln((1 − β)n/(n − m')) of the inverse query, γn sits within an ulp of an integer and this path decides.

**Tail sums.**  S(n) = pmf(j₀)·Σ_{i ≥ 0} Π_{l < i} r_{j₀+l},  r_j = (n − j)β/((j + 1)(1 − β)), in log space:
ln pmf(j₀) from Loader's saddle-point form (``numeric.binomial``), the sum of ratio products (≥ 1, ≤ 2
near the start of the scan: no underflow even for S(n) = 10⁻³⁰⁰⁰).  Since j₀ > γn > βn ≥ (n + 1)β − 1,
every ratio is < 1, and ratios decrease in j, so after term T_i the rest is at most T_i·r/(1 − r) (r the
next ratio); that bound is *added* once it is below 2⁻⁶⁰ of the sum, so a truncated sum is never low.

**Stopping the scan over n (proof).**  Let X ~ Bin(n, β) and γ > β (true: ε' > 0).  For λ > 0, Markov's
inequality on e^{λX} gives P{X ≥ γn} ≤ e^{−λγn}(1 − β + βe^λ)^n; at λ = ln(γ(1 − β)/(β(1 − γ))) > 0 this
is exp(−n·KL(γ‖β)), KL(γ‖β) = γ ln(γ/β) + (1 − γ) ln((1 − γ)/(1 − β)) = γ ln(γ/β) − (1 − γ)ε' > 0.  So
S(n) ≤ P{X ≥ γn} ≤ exp(−n·KL), which decreases in n.  Hence once exp(−N·KL_lo) ≤ M̂ (KL_lo a lower bound
on KL: bd0(γ, β) + bd0(1 − γ, 1 − β) minus their error bounds and the inputs' (``kl_lower``); M̂ the running
upper value of the maximum),
every n ≥ N has S(n) ≤ M̂ and the scan stops: nothing it skips can exceed what it returns.

**Skipping blocks (proof).**  For fixed j, P{Bin(n, β) ≥ j} is nondecreasing in n (one more trial never
lowers the count), and j₀(n) is nondecreasing in n.  So for N ≤ n < N + L,
S(n) ≤ P{Bin(N + L − 1, β) ≥ j₀(N)}; when that one tail plus its error bound is below M̂, the
whole block is skipped.  Block lengths double after a skip and halve after a miss; this only saves work
(for β = 10⁻⁴ the proof-stopped scan is ~10⁵ values of n), the maximum is the same.

**Rounding (a running error bound, proven).**  Every ln Ŝ(n) comes with a bound E(n) on its absolute
error: ``log_pmf_with_error`` (Loader's terms; the two bd0 terms without cancellation, see
``numeric.binomial.bd0_with_error`` for the per-operation derivation and condition numbers), plus the
ratio-product sum (term i within 5i·u', each addition u·s, the truncated tail bounded by twice the added
rest) and its logarithm.  The scan maximises ln Ŝ(n) + E(n), so its result is ≥ ln max S(n) for the n
examined; the stopping and block-skipping rules compare with the same upper value (and use the bound of the
block tail, also with its E), so nothing skipped can exceed it.  The returned d is exp of that, rounded up
by 2 ulps (libm exp within 1 ulp).  This replaces a fitted ERROR_PER_LOG = 25 (error measured in units
of u(|ln d| + 32)), which failed at (2073, 0.1830161114086729, 0.20296773602290802): a bd0 term cancelled
with condition number ≈ 20 just outside the old series band.  Worst case: the
returned d exceeds the exact one by at most a factor e^{2E}(1 + 6u); over the accuracy points E peaks at
14u(|ln d| + 32) (printed by the T15 accuracy check), i.e. ≤ 1e-12 relative for d ≥ 1e-120 and ≤ 2.4e-12 down
to d = 1e-308.
"""
from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numba import objmode

from numeric.jit import njit

from .binomial import U, bd0_with_error, log_pmf_with_error
from .special import up

FLOAT_MARGIN = 2.0 ** -43  # |t̂ − b| ≤ 2⁻⁴³·t̂ is decided exactly (t̂ is within 6·2⁻⁵³ relative)
TAIL_STOP = 2.0 ** -60
KL_SHRINK = 1e-9
MAX_N = 2.0 ** 52  # every integer below this is exact in a double (the public API enforces it)


# ----------------------------------------------------------------------------------------------------
# exact decisions (Python, called from numba through objmode)

def exact_sign(c: Fraction, eps_a: float, eps_b: float, r: Fraction) -> int:
    """sign(c·e^{ε_a − ε_b} − r) exactly, for finite doubles ε_a, ε_b and rationals c, r ≥ 0.

    ``decimal``'s exp is correctly rounded (relative error ≤ ½·10^{1−P} at P digits); the product of the
    two exps is bracketed in exact rationals and the precision doubled until r falls outside the bracket.
    """
    if c == 0 or eps_a == eps_b:
        value = c - r if eps_a == eps_b else -r
        return (value > 0) - (value < 0)
    digits = 40
    while True:
        with localcontext() as ctx:
            ctx.prec = digits
            ctx.Emax, ctx.Emin = 10 ** 6, -10 ** 6
            ea = Fraction(Decimal(eps_a).exp())
            eb = Fraction((-Decimal(eps_b)).exp()) if eps_b != 0.0 else Fraction(1)
        tol = Fraction(1, 10 ** (digits - 1))
        mid = c * ea * eb
        if mid * (1 - tol) ** 2 > r:
            return 1
        if mid * (1 + tol) ** 2 < r:
            return -1
        digits *= 2


@lru_cache(maxsize=4096)
def _exceeds_exact(a: int, b: int, beta: float, eps_a: float, eps_b: float) -> bool:
    return exact_sign(Fraction(b), eps_a, eps_b, a * (1 - Fraction(beta))) < 0


def exceeds_exact(a: float, b: float, beta: float, eps_a: float, eps_b: float) -> bool:
    """a(1 − β)e^{−(ε_a − ε_b)} > b, decided exactly (a, b integers)."""
    a, b = int(a), int(b)
    g = math.gcd(a, b) or 1  # the predicate only depends on b/a
    return _exceeds_exact(a // g, b // g, beta, eps_a, eps_b)


def admissible_exact(beta: float, eps_a: float, eps_b: float) -> bool:
    """ε_a − ε_b ≥ −ln(1 − β) (the precondition of T15/T16), decided exactly."""
    return exact_sign(1 - Fraction(beta), eps_a, eps_b, Fraction(1)) >= 0


# ----------------------------------------------------------------------------------------------------
# numba kernels

@njit(cache=True)
def _exceeds_objmode(a: float, b: float, beta: float, eps_a: float, eps_b: float) -> bool:
    with objmode(res="boolean"):
        res = exceeds_exact(a, b, beta, eps_a, eps_b)
    return res


@njit(cache=True)
def exceeds(a: float, b: float, q: float, beta: float, eps_a: float, eps_b: float) -> bool:
    """a·q > b for q = (1 − β)e^{−(ε_a − ε_b)} (float estimate ``q``), decided exactly."""
    if b <= 0.0:
        return True  # q > 0 exactly (ε' finite)
    t = a * q
    if t > b + FLOAT_MARGIN * t:
        return True
    if t < b - FLOAT_MARGIN * t:
        return False
    return _exceeds_objmode(a, b, beta, eps_a, eps_b)


@njit(cache=True)
def _admissible_objmode(beta: float, eps_a: float, eps_b: float) -> bool:
    with objmode(res="boolean"):
        res = admissible_exact(beta, eps_a, eps_b)
    return res


@njit(cache=True)
def first_j(n: float, q: float, beta: float, eps_a: float, eps_b: float) -> float:
    """j₀(n) = ⌊γn⌋ + 1, the smallest j with j > γn, exactly."""
    m = max(math.ceil(n * q) - 1.0, 0.0)
    while m >= 1.0 and not exceeds(n, m, q, beta, eps_a, eps_b):
        m -= 1.0
    while m + 1.0 <= n and exceeds(n, m + 1.0, q, beta, eps_a, eps_b):
        m += 1.0
    return n - m


@njit(cache=True)
def start_n(k: float, gamma: float, q: float, beta: float, eps_a: float, eps_b: float) -> float:
    """n_m = ⌈k/γ − 1⌉: the smallest n with γ(n + 1) ≥ k, exactly (n_m ≥ k since γ < 1)."""
    n = max(k, math.ceil(k / gamma - 1.0))
    if not exceeds(n + 1.0, n + 1.0 - k, q, beta, eps_a, eps_b):  # condition holds: step down
        while n - 1.0 >= k and not exceeds(n, n - k, q, beta, eps_a, eps_b):
            n -= 1.0
    else:
        n += 1.0
        while exceeds(n + 1.0, n + 1.0 - k, q, beta, eps_a, eps_b):
            n += 1.0
    return n


@njit(cache=True)
def log_tail(n: float, j0: float, beta: float, odds: float):
    """(ln P̂, E): ln P{Bin(n, β) ≥ j₀} computed, and a bound E on its absolute error (module docstring).

    Returns (0, 0) (the trivial bound ln 1) if the first ratio is not below 1 (used only by block bounds),
    (−inf, 0) for an empty sum.
    """
    if j0 > n:
        return -np.inf, 0.0
    r = (n - j0) / (j0 + 1.0) * odds
    if r >= 1.0:
        return 0.0, 0.0
    lp, lp_err = log_pmf_with_error(j0, n, beta)
    s = 1.0
    s_err = 0.0
    term = 1.0
    i = 0.0
    j = j0
    while j < n:
        r = (n - j) / (j + 1.0) * odds
        term *= r
        i += 1.0
        s += term
        # term i: i products of ratios, each ratio within 4u' of exact (odds 2u, quotient u, product u),
        # each product u: ≤ 5i·u' relative; the addition ≤ min(u·s, term)
        s_err += 5.05 * i * U * term + min(U * s, term)
        r_next = (n - j - 1.0) / (j + 2.0) * odds
        rest = term * r_next / (1.0 - r_next)
        if rest <= TAIL_STOP * s and 1.0 - r_next >= 2.0 ** -20:
            # exact tail ≤ T·r/(1 − r) for the exact T, r (ratios decrease); computed with relative error
            # ≤ (5i + 9)u'·2²⁰ < 1 while i < 2³⁰, so the exact tail is < 2·rest: add rest, bound rest
            s += rest
            s_err += rest + U * s
            break
        j += 1.0
    # ln ŝ: ≤ s_err/ŝ·1.01 (from ŝ) + 2u ln ŝ (libm); the final addition u|·|
    value = lp + math.log(s)
    err = lp_err + 1.01 * s_err / s + 2.0 * U * math.log(s) + U * abs(value)
    return value, err


@njit(cache=True)
def two_diff(a: float, b: float):
    """(s, e) with s = fl(a − b) and a − b = s + e exactly (Knuth's TwoSum)."""
    s = a - b
    bb = s - a
    e = (a - (s - bb)) + (-b - bb)
    return s, e


@njit(cache=True)
def scan(k: float, beta: float, eps_a: float, eps_b: float):
    """(upper bound on ln d, argmax n, n_m, last n examined, ln d̂ unrounded) for d(k, β, ε_a − ε_b).

    ln d = nan if inadmissible.  The first entry is ln Ŝ(n*) + E(n*), maximised over n (module docstring).
    """
    nan = np.nan
    if not (0.0 < beta < 1.0) or not (k >= 1.0) or math.isnan(eps_a) or math.isnan(eps_b):
        return nan, nan, nan, nan, nan
    if eps_a == np.inf and eps_b != np.inf:
        return -np.inf, k, k, k, -np.inf  # γ = 1: the sum j > n is empty
    hi, lo = two_diff(eps_a, eps_b)
    if not math.isfinite(hi):
        return nan, nan, nan, nan, nan
    q = (1.0 - beta) * math.exp(-hi) * math.exp(-lo)
    # precondition ε' ≥ −ln(1 − β): clear cases in floats (threshold within 10⁻¹² relative), else exact
    one_minus = 1.0 - beta
    threshold = -math.log1p(-beta)
    if hi + lo < threshold * (1.0 - 1e-12):
        return nan, nan, nan, nan, nan
    if hi + lo <= threshold * (1.0 + 1e-12) and not _admissible_objmode(beta, eps_a, eps_b):
        return nan, nan, nan, nan, nan
    gamma = -math.expm1(math.log1p(-beta) - hi - lo)
    odds = beta / one_minus
    kl_lo = kl_lower(gamma, q, beta, one_minus, hi + lo)
    if not kl_lo > 0.0 or not gamma > 0.0:
        return nan, nan, nan, nan, nan  # only for β so small that n would leave the exact integers
    n = start_n(k, gamma, q, beta, eps_a, eps_b)
    n_m = n
    best = -np.inf  # max over examined n of (ln Ŝ(n) + E(n)): an upper bound on ln max S(n)
    best_value = -np.inf  # ln Ŝ at that n (unrounded, for accuracy measurement)
    arg = n
    block = 1.0
    while True:
        if n > n_m and -n * kl_lo <= best:
            break
        j0 = first_j(n, q, beta, eps_a, eps_b)
        if block > 1.0:
            bound, bound_err = log_tail(n + block - 1.0, j0, beta, odds)
            if bound + bound_err <= best:
                n += block
                block *= 2.0
                continue
            block = max(1.0, block / 4.0)
        value, err = log_tail(n, j0, beta, odds)
        if value + err > best:
            best = value + err
            best_value = value
            arg = n
        elif n > n_m:
            block = min(block * 2.0, 2.0 ** 20)
        n += 1.0
    return best, arg, n_m, n, best_value


@njit(cache=True)
def kl_lower(gamma: float, q: float, beta: float, one_minus: float, eps: float) -> float:
    """A lower bound on KL(γ‖β) = bd0(γ, β) + bd0(1 − γ, 1 − β) (the μ − x terms cancel), both ≥ 0.

    Written as two bd0 terms there is no cancellation left; their rounding is bounded by
    ``bd0_with_error``.  The inputs: γ̂ = −expm1(ln(1 − β) − ε) is within 6u' of γ (the exponent y is
    within 4u|y|, and |y|·q/γ = q|ln q|/(1 − q) ≤ 1), q̂ within 4u', 1 − β within u.  γ̂ and q̂ enter
    separate terms: ∂/∂γ of the first term is ln(γ/β) (not the total derivative ln(γ/β) + ε of KL with
    q = 1 − γ, which grows without bound in ε), ∂/∂q of the second term ln(q/(1 − β)) = −ε, ∂/∂(1 − β) = (1 − β − q)/(1 − β).  A further 10⁻⁹ of KL
    covers the float ε = hi + lo (|lo| ≤ u·hi).
    """
    b1, e1 = bd0_with_error(gamma, beta, 0.0, True)
    b2, e2 = bd0_with_error(q, one_minus, 0.0, True)
    kl = b1 + b2
    err = (e1 + e2 + U * kl + 1.01 * U * (6.0 * gamma * abs(math.log(gamma) - math.log(beta))  # γ/β may overflow
                                         + 4.0 * q * eps + abs(one_minus - q)))
    return (kl - err) * (1.0 - KL_SHRINK)


@njit(cache=True)
def rounded(log_d: float) -> float:
    """exp(ln d̂ + E) rounded up, ln d̂ + E ≥ ln d by the running bound (``scan`` returns it added).

    exp is within 1 ulp (≤ 2u relative), and ``up(·, 2)`` adds ≥ 4u relative.
    """
    if math.isnan(log_d):
        return np.nan
    if log_d == -np.inf:
        return 0.0
    return min(1.0, up(math.exp(log_d), 2))


def delta(k, beta, epsilon):
    """T15 d(k, β, ε), rounded up (running error bound); nan outside the domain."""
    return rounded(scan(k, beta, epsilon, 0.0)[0])


def delta_raw(k, beta, epsilon):
    """T15 d(k, β, ε), unrounded (for accuracy measurement)."""
    return math.exp(scan(k, beta, epsilon, 0.0)[4])


def delta_eps1(k, beta, epsilon, epsilon1):
    """T16 d(k, β, ε − ε₁) with ε − ε₁ taken exactly, rounded up; nan outside the domain."""
    return rounded(scan(k, beta, epsilon, epsilon1)[0])


def delta_eps1_raw(k, beta, epsilon, epsilon1):
    """T16 d(k, β, ε − ε₁), unrounded (for accuracy measurement)."""
    return math.exp(scan(k, beta, epsilon, epsilon1)[4])


def argmax(k, beta, epsilon):
    """The maximising n of T15 (for checks and pinned cases)."""
    return scan(k, beta, epsilon, 0.0)[1]


def start(k, beta, epsilon):
    """n_m of T15 (for checks)."""
    return scan(k, beta, epsilon, 0.0)[2]
