"""ε^S of SPEC T14 (outlier-score suppression) and its inverse, as numba kernels.

ε^S = max{max_p Λ1(p), max_p Λ2(p), Λ3}.  dΛᵢ/dp = d·Nᵢ(p)/Dᵢ(p) with Nᵢ a cubic in p whose coefficients
were derived by sympy (``numeric/_generated/suppression_cubics.py``, from ``symbolic.suppression``), so the
maximum of Λᵢ over [0, 1] is attained in {0, 1} ∪ {real roots of Nᵢ in (0, 1)}.  The roots are found without
Cardano (whose closed forms break down when the leading coefficient vanishes, e.g. c3 = 0 at ε = 0): the
critical points of the cubic split [0, 1] into pieces on which it is monotone, and each piece with a sign
change holds exactly one root, found by Newton's method safeguarded by bisection to a few ulps.  Λᵢ is then
evaluated at every candidate in the stable forms (``suppression_cubics.lambda1`` …: sums of nonnegative
terms, log1p/expm1, the overflow-free A_η for ε > 709), so nothing cancels.

Soundness.  A candidate p̂ gives Λᵢ(p̂) ≤ max_p Λᵢ, so an inaccurate root can only make the result smaller —
by at most ½|Λᵢ''|·(p̂ − p*)², which is far below an ulp for the few-ulp roots found here.  The unrounded
result is within a few ulps of a 60-digit mpmath maximisation that does not use the cubic route
(``proofs_checks.suppression_references``); the returned value is rounded up by ``BUDGET_ULPS`` (the
measured peak is checked against it by ``proofs_checks.accuracy``, which also checks that every rounded
value is ≥ the reference).

Inverse.  ε ↦ ε^S(ε, m, M) is continuous and strictly increasing, so the base budget is found by bisection on
the bit patterns of doubles, keeping the invariant ``epsilon(lo) ≤ target`` for the *upward-rounded* forward
map: whatever the bisection does, the returned ε'' satisfies ε^S(ε'') ≤ epsilon(ε'') ≤ target (OpenDP's
remark: a search over a free parameter needs no careful rounding when its result is verified).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._generated.suppression_cubics import cubic1, cubic2, lambda1, lambda2, lambda3
from .budgets import BUDGETS
from .special import div_down, up

BUDGET_ULPS = BUDGETS["t14_epsilon"]
NEWTON_STEPS = 100


@njit(cache=True)
def _horner(c3: float, c2: float, c1: float, c0: float, x: float) -> float:
    return ((c3 * x + c2) * x + c1) * x + c0


@njit(cache=True)
def _quadratic_roots(a: float, b: float, c: float):
    """Real roots of a x² + b x + c (NaN where absent), stable form; a = b = 0 gives none."""
    nan = np.nan
    if a == 0.0:
        if b == 0.0:
            return nan, nan
        return -c / b, nan
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return nan, nan
    s = math.sqrt(disc)
    t = -0.5 * (b + s) if b >= 0.0 else -0.5 * (b - s)
    x1 = t / a
    x2 = c / t if t != 0.0 else nan
    return x1, x2


@njit(cache=True)
def _root_in(c3: float, c2: float, c1: float, c0: float, a: float, b: float, fa: float) -> float:
    """The root of the cubic in [a, b], where it is monotone and changes sign (fa = f(a) ≠ 0)."""
    x = 0.5 * (a + b)
    for _ in range(NEWTON_STEPS):
        f = _horner(c3, c2, c1, c0, x)
        if f == 0.0:
            return x
        if (f < 0.0) == (fa < 0.0):
            a, fa = x, f
        else:
            b = x
        df = (3.0 * c3 * x + 2.0 * c2) * x + c1
        step = f / df if df != 0.0 else np.inf
        xn = x - step
        if not (a < xn < b):  # Newton left the bracket: bisect
            xn = 0.5 * (a + b)
        if xn == x or b - a <= 4e-16 * max(abs(a), abs(b)):
            return xn
        x = xn
    return x


@njit(cache=True)
def cubic_roots_unit(c3: float, c2: float, c1: float, c0: float) -> np.ndarray:
    """Real roots of c3 p³ + c2 p² + c1 p + c0 in [0, 1] (NaN-padded array of 3)."""
    out = np.full(3, np.nan)
    scale = max(abs(c3), abs(c2), abs(c1), abs(c0))
    if scale == 0.0 or not math.isfinite(scale):
        return out
    c3, c2, c1, c0 = c3 / scale, c2 / scale, c1 / scale, c0 / scale
    k1, k2 = _quadratic_roots(3.0 * c3, 2.0 * c2, c1)  # critical points of the cubic
    breaks = np.empty(4)
    n = 0
    breaks[n] = 0.0
    n += 1
    lo_k, hi_k = (k1, k2) if not (k2 < k1) else (k2, k1)
    for k in (lo_k, hi_k):
        if 0.0 < k < 1.0:
            breaks[n] = k
            n += 1
    breaks[n] = 1.0
    n += 1
    found = 0
    for i in range(n - 1):
        a, b = breaks[i], breaks[i + 1]
        fa, fb = _horner(c3, c2, c1, c0, a), _horner(c3, c2, c1, c0, b)
        if fa == 0.0:
            out[found] = a
            found += 1
        elif fb != 0.0 and (fa < 0.0) != (fb < 0.0):
            out[found] = _root_in(c3, c2, c1, c0, a, b, fa)
            found += 1
        if found == 3:
            break
    return out


@njit(cache=True)
def _max_lambda(which: int, epsilon: float, q: float, r: float, m: float, d: float, om: float, oM: float) -> float:
    """max over p ∈ {0, 1, roots of the cubic in (0, 1)} of Λ1 (which = 1) or Λ2 (which = 2)."""
    if which == 1:
        c3, c2, c1, c0 = cubic1(q, r, m, d)
        best = max(lambda1(0.0, epsilon, m, d, om, oM), lambda1(1.0, epsilon, m, d, om, oM))
    else:
        c3, c2, c1, c0 = cubic2(q, r, m, d)
        best = max(lambda2(0.0, epsilon, m, d, om, oM), lambda2(1.0, epsilon, m, d, om, oM))
    roots = cubic_roots_unit(c3, c2, c1, c0)
    for x in roots:
        if 0.0 < x < 1.0:
            v = lambda1(x, epsilon, m, d, om, oM) if which == 1 else lambda2(x, epsilon, m, d, om, oM)
            if v > best:
                best = v
    return best


@njit(cache=True)
def epsilon_unrounded(epsilon: float, m: float, M: float) -> float:
    """ε^S(ε, m, M), unrounded (0 < m ≤ M < 1, ε ∈ [0, ∞])."""
    if epsilon == np.inf:
        return np.inf
    q = math.exp(-epsilon)
    r = -math.expm1(-epsilon)
    d = M - m
    om = 1.0 - m
    oM = 1.0 - M
    best = lambda3(q, r, M, d, om, oM)
    v = _max_lambda(1, epsilon, q, r, m, d, om, oM)
    if v > best:
        best = v
    v = _max_lambda(2, epsilon, q, r, m, d, om, oM)
    if v > best:
        best = v
    return best


@njit(cache=True)
def epsilon_rounded(epsilon: float, m: float, M: float) -> float:
    """ε^S rounded up by ``BUDGET_ULPS``; exactly 0 for ε = 0, m = M (Poisson sampling of a 0-DP mechanism)."""
    if epsilon == 0.0 and m == M:
        return 0.0
    return up(epsilon_unrounded(epsilon, m, M), BUDGET_ULPS)


@njit(cache=True)
def _bits(x: float) -> int:
    return np.array([x]).view(np.int64)[0]


@njit(cache=True)
def _from_bits(i: int) -> float:
    return np.array([i]).view(np.float64)[0]


@njit(cache=True)
def epsilon_base_scalar(target: float, m: float, M: float) -> float:
    """Largest double ε'' found by bisection with epsilon_rounded(ε'') ≤ target; NaN if even ε'' = 0 fails."""
    if target == np.inf:
        return np.inf
    if epsilon_rounded(0.0, m, M) > target:
        return np.nan
    # bracket: ε^S ≥ the Poisson value A_{1−m}, whose inverse is ε + ln(1 − m e^{−ε}) − ln(1 − m)
    hi = target + math.log1p(-m * math.exp(-target)) - math.log1p(-m)
    hi = hi * (1.0 + 1e-12) + 1e-300
    lo = 0.0
    while epsilon_rounded(hi, m, M) <= target:
        lo = hi
        hi = 2.0 * hi + 1.0
        if hi == np.inf:
            return lo
    ilo, ihi = _bits(lo), _bits(hi)  # nonnegative doubles: bit patterns are ordered like the values
    while ihi - ilo > 1:
        mid = ilo + (ihi - ilo) // 2
        if epsilon_rounded(_from_bits(mid), m, M) <= target:
            ilo = mid
        else:
            ihi = mid
    return _from_bits(ilo)


@njit(cache=True)
def delta_base_scalar(delta: float, m: float) -> float:
    """δ'' = δ/(1 − m) rounded down (1 − m is taken at or above its exact value first); ≥ 1 only if δ ≥ 1 − m."""
    if delta == 0.0:
        return 0.0
    c = 1.0 - m
    if (1.0 - c) - m > 0.0:  # Fast2Sum: 1 − m = c + ((1 − c) − m) exactly; c is below 1 − m
        c = np.nextafter(c, np.inf)
    return div_down(delta, c)


# --- scalar kernels with the theorem's parameter order (epsilon, delta, m, M); numeric.kernel vectorises them


def epsilon(epsilon, delta, m, M):
    """T14 ε^S, rounded up by ``BUDGET_ULPS``."""
    return epsilon_rounded(epsilon, m, M)


def epsilon_raw(epsilon, delta, m, M):
    """T14 ε^S, unrounded (for accuracy measurement)."""
    return epsilon_unrounded(epsilon, m, M)


def epsilon_base(epsilon, delta, m, M):
    """T14 inverse ε'': ε^S(ε'', m, M) ≤ epsilon (verified with the upward-rounded forward map); NaN when
    epsilon < ε^S(0, m, M)."""
    return epsilon_base_scalar(epsilon, m, M)


def epsilon_base_raw(epsilon, delta, m, M):
    """Same as ``epsilon_base`` (the search is already on the safe side)."""
    return epsilon_base_scalar(epsilon, m, M)


def delta_base(epsilon, delta, m, M):
    """T14 inverse δ'' = δ/(1 − m), rounded down."""
    return delta_base_scalar(delta, m)


def delta_base_raw(epsilon, delta, m, M):
    """δ/(1 − m) in round-to-nearest (for accuracy measurement)."""
    return delta / (1.0 - m)
