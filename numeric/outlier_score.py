"""ε^S of SPEC T14 (outlier-score suppression) and its inverse, as numba kernels.

ε^S = max{max_p Λ1(p), max_p Λ2(p), Λ3}.  dΛᵢ/dp = d·Nᵢ(p)/Dᵢ(p) with Nᵢ a cubic in p whose coefficients
were derived by sympy (``numeric/_generated/suppression_cubics.py``, from ``symbolic.suppression``), so the
maximum of Λᵢ over [0, 1] is attained in {0, 1} ∪ {real roots of Nᵢ in (0, 1)}.  The roots are found without
Cardano (whose closed forms break down when the leading coefficient vanishes, e.g. c3 = 0 at ε = 0): the
critical points of the cubic split [0, 1] into pieces on which it is monotone, and each piece with a sign
change holds exactly one root, found by Newton's method safeguarded by bisection.  Each root then seeds a certified bracket (below),
and Λᵢ is evaluated in the stable forms (``suppression_cubics.lambda1`` …: sums of nonnegative
terms, log1p/expm1, the overflow-free A_η for ε > 709), so nothing cancels.

Soundness.  Evaluating Λᵢ at the float cubic's root p̂ is NOT enough: the root can be far from a few ulps
accurate.  At ε = 8.48056906499683, m = 1e-6, M = 1 − 1e-6 the expanded coefficients of the Λ2 cubic cancel
to 1e-6 of their size near p = 1 (c3 + c2 + c1 + c0 ≈ 0), the float root is 9.2e-7 from p* = 0.99938945, and
with |Λ2''| ≈ 3e6 (the (1 − p)(1 − B)/(1 − M) term) Λ2(p̂) was 1.5e-6 (6700 ulps) below the maximum; the
previous argument "p̂ costs only ½|Λ''|(p̂ − p*)², far below an ulp" assumed few-ulp roots.  Now the float
roots only say *where to look*; each is replaced by an upper bound of Λᵢ over a certified bracket
(``_bracket_bound``):

1. the sign of dΛᵢ/dp is evaluated from the *unexpanded* derivative (``_slope_sign``: dΛ1/dp = d·h1,
   dΛ2/dp = d·h2/(2 − p)², sums of a few terms, each within 16U of exact) and accepted only when |h| exceeds
   a rounding error bound 64U·Σ|terms| (U = 2⁻⁵³);
2. a bracket [a, b] is grown around p̂ until the certified signs are + at a and − at b (an interior local
   maximum lies in it) and shrunk by bisection while the sign stays certified (width: the band where h is
   within its error bound, a few ulps here since h's terms do not cancel like the cubic's coefficients);
3. on [a, b], max Λᵢ is attained at a, at b or at a critical point c; Taylor at c (Λᵢ'(c) = 0) gives
   Λᵢ(c) ≤ Λᵢ(x) + ½·max_{[a,b]}|Λᵢ''|·(x − c)² for x = (a + b)/2, with a derived bound of |Λᵢ''| in terms of
   η(b) = 1 − sᵢ(b) (``_curvature``); endpoints with a certified slope pointing into [a, b] are not the
   maximum and are skipped.  If no certificate is reached the bracket widens to [0, 1] — coarse, but still an
   upper bound.  When Λᵢ is certified rising at 0 and falling at 1 but no float root produced a bracket, one
   is grown from p = 1.

So each bracket contributes an upper bound of max Λᵢ over it, up to the float evaluation of Λᵢ at one point
(the stable forms: sums of nonnegative terms, log1p/expm1, nothing cancels), and the curvature term is
≈ K·(few ulps)², negligible.  Coverage of every interior maximum rests on the float cubic having *a* root
(any distance away) near each sign change of dΛᵢ/dp, plus the end-slope check above; a pair of exact roots
that rounding merges into none (a tangency) is not certified separately — it can only hide a local
maximum whose height above the neighbouring local minimum is at the rounding level of the cubic.  The
unrounded result is within a few ulps of a 60-digit mpmath maximisation that does not use the cubic route
(``proofs_checks.suppression_references``); the returned value is rounded up by ``BUDGET_ULPS`` (the
measured peak is checked against it by ``proofs_checks.accuracy``, which also checks that every rounded
value is ≥ the reference; ``tests/bounds/test_suppression.py`` sweeps m, 1 − M down to 1e-8).

Inverse.  ε ↦ ε^S(ε, m, M) is continuous and strictly increasing, so the base budget is found by bisection on
the bit patterns of doubles, keeping the invariant ``epsilon(lo) ≤ target`` for the *upward-rounded* forward
map: whatever the bisection does, the returned ε'' satisfies ε^S(ε'') ≤ epsilon(ε'') ≤ target (OpenDP's
remark: a search over a free parameter needs no careful rounding when its result is verified).
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

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


U = 2.0 ** -53  # unit roundoff
SIGN_SLACK = 64.0  # the relative error bound of each term of h, in units of U (derivation in _slope_sign)
BRACKET_START = 2.0 ** -44  # first half-width of the bracket around a root of the float cubic
BRACKET_STEPS = 80
# which Λ (``which``) as numpy int64s: numba typed the literals 1 and 2 as Literal[int] and compiled _max_lambda and
# the five helpers below it once per value (≈ 2.5 s of CPU with an empty cache); one specialisation now
LAMBDA_1, LAMBDA_2 = np.int64(1), np.int64(2)


@njit(cache=True)
def _eta(which: int, p: float, om: float, oM: float) -> float:
    """η = 1 − sᵢ(p) ∈ [1 − M, 1 − m] as a sum of nonnegative terms (as in lambda1/lambda2)."""
    if which == 1:
        return oM * p + om * (1.0 - p)
    oB = (oM * (1.0 - p) + om) / (2.0 - p)
    return oB * (1.0 - p) + oM * p


@njit(cache=True)
def _slope_sign(which: int, p: float, q: float, r: float, m: float, d: float, om: float, oM: float) -> int:
    """Certified sign of dΛᵢ/dp at p (+1, −1, or 0 when the rounding error bound does not decide it).

    Unexpanded derivatives (no cubic; η' = −d for Λ1 and η' = −d/(2 − p)² for Λ2, and
    (F − 1)/(1 + η(F − 1)) = r/(q + ηr) with q = e^{−ε}, r = 1 − e^{−ε}, overflow-free):
      dΛ1/dp = d·h1,  h1 = 1/m + (1 − 2p)/η + p(1 − p)d/η² − r/(q + ηr),
      dΛ2/dp = d·h2/(2 − p)²,  h2 = (2 − p)²/m − 1/(1 − M) − r/(q + ηr).
    Rounding (U = 2⁻⁵³; inputs m, M, ε exact; 1 − m, 1 − M, 1 − p, 2 − p, 1 − 2p, M − m within U; q, r within
    2U — libm exp/expm1 are faithful; every operation within U).  η is a sum of nonnegative rounded products:
    within 10U (Λ2: oB within 7U, then three more operations) or 4U (Λ1).  So q + ηr is within 14U, and
    t3 = r/(q + ηr) within 17U; t1 within 4U (Λ2) or exact-to-U (Λ1); t2 within 2U (Λ2: 1/(1 − M)) or 6U
    (Λ1: (1 − 2p)/η); t4 = p(1 − p)d/η² within 14U.  The two or three additions add at most 3U·Σ|terms|.
    Hence |fl(h) − h| ≤ 20U·Σ|terms| to first order, and ``SIGN_SLACK`` = 64 leaves a factor 3 for the
    second-order terms (underflowed terms err by ≤ 2⁻¹⁰⁷⁴ each, swamped by 64U·(1/m) ≥ 64U).  (Were the
    bound ever exceeded, the maximiser would lie outside [a, b] by at most the band where |h| is at the
    rounding level, costing about ½·max|Λᵢ''|·band² — negligible; the certificate does not rely on this.)
    Near the root these terms do not cancel catastrophically the way the cubic's expanded coefficients do
    (at ε = 8.48, m = 1e-6, M = 1 − 1e-6 the cubic's coefficients cancel
    to 1e-6 of their size at p = 1, while h2's terms are ~1e6 and its slope ~2e6).
    """
    eta = _eta(which, p, om, oM)
    t3 = r / (q + eta * r)
    if which == 1:
        t1 = 1.0 / m
        t2 = (1.0 - 2.0 * p) / eta
        t4 = p * (1.0 - p) * d / (eta * eta)
        h = ((t1 + t2) + t4) - t3
        err = SIGN_SLACK * U * (t1 + abs(t2) + t4 + t3)
    else:
        t1 = (2.0 - p) * (2.0 - p) / m
        t2 = 1.0 / oM
        h = (t1 - t2) - t3
        err = SIGN_SLACK * U * (t1 + t2 + t3)
    if h > err:
        return 1
    if h < -err:
        return -1
    return 0


@njit(cache=True)
def _curvature(which: int, b: float, d: float, om: float, oM: float) -> float:
    """An upper bound of 2·max|Λᵢ''| over [a, b] ⊂ [0, 1] (factor 2 covers its own rounding).

    η decreases in p (η' = −d or −d/(2 − p)²), so η ≥ η(b) on [a, b]; r/(q + ηr) ≤ 1/η; 2 − p ≥ 1.
      Λ1'' = d[−2/η + 2(1 − 2p)d/η² + 2p(1 − p)d²/η³ − r²d/(q + ηr)²]
           ⇒ |Λ1''| ≤ d(2/η + 3d/η² + d²/(2η³)),
      Λ2'' = −d[2/((1 − M)(2 − p)³) + r(2(2 − p)(q + ηr) + rd)/((2 − p)⁴(q + ηr)²)]
           ⇒ |Λ2''| ≤ d(2/(1 − M) + 2/η + d/η²).
    η(b) is taken 1e-12 below its float value (its error is ≤ ~16U relative).
    """
    e = _eta(which, b, om, oM) * (1.0 - 1e-12)
    if which == 1:
        k = d * (2.0 / e + 3.0 * d / (e * e) + d * d / (2.0 * e * e * e))
    else:
        k = d * (2.0 / oM + 2.0 / e + d / (e * e))
    return 2.0 * k


@njit(cache=True)
def _lam(which: int, p: float, epsilon: float, m: float, d: float, om: float, oM: float) -> float:
    return lambda1(p, epsilon, m, d, om, oM) if which == 1 else lambda2(p, epsilon, m, d, om, oM)


@njit(cache=True)
def _bracket_bound(which: int, x: float, epsilon: float, q: float, r: float, m: float, d: float, om: float,
                   oM: float) -> float:
    """An upper bound of max Λᵢ over a bracket around the float cubic's root x (see the module docstring).

    The bracket [a, b] is grown from x until the certified slope signs are + at a (or a = 0) and − at b
    (or b = 1), or − at a and + at b (x near a local minimum), then shrunk by bisection on the certified
    sign.  The maximum of Λᵢ over [a, b] is attained at a, at b, or at a critical point c (Λᵢ'(c) = 0), and
    Taylor at c gives Λᵢ(c) ≤ Λᵢ(x') + ½·max|Λᵢ''|·(x' − c)² for any x' ∈ [a, b]; so
    max(Λ(a), Λ(b), Λ(mid) + _curvature·(b − a)²) bounds it (an endpoint with a certified slope pointing
    into the bracket is not the maximum and is skipped; a = 0, b = 1 are evaluated by the caller).
    """
    a = max(x - BRACKET_START, 0.0)
    b = min(x + BRACKET_START, 1.0)
    sa = 1 if a == 0.0 else _slope_sign(which, a, q, r, m, d, om, oM)
    sb = -1 if b == 1.0 else _slope_sign(which, b, q, r, m, d, om, oM)
    if not (sa == -1 and sb == 1):
        wa = wb = BRACKET_START
        for _ in range(BRACKET_STEPS):
            if sa == 1 and sb == -1:
                break
            if sa != 1:
                wa *= 2.0
                a = max(x - wa, 0.0)
                sa = 1 if a == 0.0 else _slope_sign(which, a, q, r, m, d, om, oM)
            if sb != -1:
                wb *= 2.0
                b = min(x + wb, 1.0)
                sb = -1 if b == 1.0 else _slope_sign(which, b, q, r, m, d, om, oM)
        if sa == 1 and sb == -1:
            for _ in range(BRACKET_STEPS):
                mid = 0.5 * (a + b)
                if not (a < mid < b):
                    break
                s = _slope_sign(which, mid, q, r, m, d, om, oM)
                if s == 1:
                    a = mid
                elif s == -1:
                    b = mid
                else:
                    break
        else:  # no certified bracket: the whole of [a, b] (a = 0, b = 1 at worst) with both endpoints
            sa = sb = 0
    mid = 0.5 * (a + b)
    w = b - a
    best = _lam(which, mid, epsilon, m, d, om, oM) + _curvature(which, b, d, om, oM) * (w * w)
    if sa != 1:
        best = max(best, _lam(which, a, epsilon, m, d, om, oM))
    if sb != -1:
        best = max(best, _lam(which, b, epsilon, m, d, om, oM))
    return best, sa == 1 and sb == -1


@njit(cache=True)
def _max_lambda(which: int, epsilon: float, q: float, r: float, m: float, d: float, om: float, oM: float) -> float:
    """An upper bound (up to the float evaluation of Λᵢ) of max over p ∈ [0, 1] of Λ1 (which = 1) or Λ2."""
    if which == 1:
        c3, c2, c1, c0 = cubic1(q, r, m, d)
    else:
        c3, c2, c1, c0 = cubic2(q, r, m, d)
    best = max(_lam(which, 0.0, epsilon, m, d, om, oM), _lam(which, 1.0, epsilon, m, d, om, oM))
    roots = cubic_roots_unit(c3, c2, c1, c0)
    found = False
    for x in roots:
        if 0.0 < x < 1.0:
            v, certified = _bracket_bound(which, x, epsilon, q, r, m, d, om, oM)
            found = found or certified
            if v > best:
                best = v
    if not found and _slope_sign(which, 0.0, q, r, m, d, om, oM) == 1 \
            and _slope_sign(which, 1.0, q, r, m, d, om, oM) == -1:
        # Λᵢ certified rising at 0 and falling at 1, so its maximum is interior, yet no root of the float
        # cubic led to a certified bracket (rounding pushed the root out of (0, 1)): bracket it from p = 1
        v, certified = _bracket_bound(which, 1.0, epsilon, q, r, m, d, om, oM)
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
    v = _max_lambda(LAMBDA_1, epsilon, q, r, m, d, om, oM)
    if v > best:
        best = v
    v = _max_lambda(LAMBDA_2, epsilon, q, r, m, d, om, oM)
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
