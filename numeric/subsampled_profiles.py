"""Kernels of SPEC T11: the exact one-step Poisson-subsampled Gaussian and Laplace profiles, both directions.

B₀ = base law without the record, B₁ with it (shift Δ), θ = Δ/σ (Gaussian) or Δ/b (Laplace), q the rate,
δ_b the base profile of the pair (B₁, B₀) (T9 or T8; symmetric pairs, so H(B₀‖B₁) = H(B₁‖B₀)), extended to
negative arguments by δ_b(−s) = 1 − e^{−s} + e^{−s}δ_b(s).  With E = e^ε − 1 (proven in
``symbolic.subsampled_profiles``):

- REMOVE, pair ((1−q)B₀ + qB₁, B₀):  ∫(qb₁ − (q + E)b₀)₊ = q·δ_b(ε_q) with ε_q = ln(1 + E/q) = A_q⁻¹(ε) when
  q + E > 0, else 1 − e^ε.  For ε_q < 0 the symmetry gives the sum of two nonnegative terms
  q·δ_b(ε_q) = −E + (q + E)·δ_b(−ε_q).
- ADD, pair (B₀, (1−q)B₀ + qB₁):  ∫(c b₀ − q e^ε b₁)₊ = c·δ_b(t), c = 1 − (1 − q)e^ε = q − (1 − q)E,
  t = ln(q e^ε/c), when c > 0, else 0.  For t < 0: c·δ_b(t) = −E + q e^ε·δ_b(−t).

So the accurate T9/T8 machinery is reused at the argument s = ε_q or t.  The catch is the argument itself:
the Gaussian profile's relative sensitivity to s is about a/θ (a = s/θ − θ/2, up to ~38/θ where δ does not
underflow), so an s rounded to a float would cost up to ~a(a + θ/2)·2⁻⁵³ relative (≈ 3e-13 at δ = 1e-300).
Hence s is computed in double-double (≈ 2⁻¹⁰⁴ relative): E = expm1(ε) by range reduction with a three-part
ln 2 and a double-double Taylor series; ln of a double-double by frexp splitting, log1p and one Newton step
checked with the double-double expm1; then a = s/θ − θ/2 in double-double as in T9.

**Running error bound.**  Besides the float evaluation of the base profile (covered by a measured budget in
ulps, as for T9), the kernel carries an absolute error bound ``err_s`` on s (a generous 2⁻⁹⁴ per unit of the
logs it adds, plus, for ADD, the relative error of c, which is large where c cancels near the threshold
e^ε = 1/(1 − q)) and adds S·err_s to the value, S ≥ |dδ_b/ds| (≤ ½e^{−a²/2} for a ≥ 0, ≤ 1 otherwise; ½
for Laplace).  Branch decisions (q + E > 0, c > 0, s ≥ θ for Laplace's exact zero) are taken only when
they are certain; in the uncertain band the kernel returns a value that bounds both sides.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .erfcx import erfcx, erfcx_diff
from .special import spacing, two_product, up

LN2 = 0.6931471805599453
LN2_HI = 6.93147180369123816490e-01  # 21 trailing zero bits: k·LN2_HI exact for |k| < 2²⁰
LN2_LO = 1.9082149292705877e-10
LN2_LO2 = 1.1612227229362532e-26  # ln 2 = LN2_HI + LN2_LO + LN2_LO2 to ~1e-43
SQRT_HALF = 0.7071067811865476
EXACT = -1.0  # error slot of an exact result (δ = 0 or 1 by definition, not by underflow)
DD_REL = 2.0 ** -94  # generous bound on the relative error of each double-double step (actual ≲ 2⁻¹⁰⁴)

BUDGET_GAUSSIAN = 64  # ulps: float part (erfcx, e^{−a²/2}, products); measured peak in proofs_checks
BUDGET_LAPLACE = 8
SEARCH_ULPS = 4.0

GAUSSIAN = 0
LAPLACE = 1
REMOVE = 0
ADD = 1


# ----------------------------------------------------------------------------------------------------
# double-double helpers
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def two_sum(a: float, b: float):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True)
def quick_two_sum(a: float, b: float):
    s = a + b
    return s, b - (s - a)


@njit(cache=True)
def dd_add(ah: float, al: float, bh: float, bl: float):
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    e += t
    s, e = quick_two_sum(s, e)
    e += f
    return quick_two_sum(s, e)


@njit(cache=True)
def dd_mul(ah: float, al: float, bh: float, bl: float):
    p, e = two_product(ah, bh)
    e += ah * bl + al * bh
    return quick_two_sum(p, e)


@njit(cache=True)
def dd_div_f(ah: float, al: float, b: float):
    """(ah + al)/b as a double-double (b a nonzero float)."""
    q1 = ah / b
    p, e = two_product(q1, b)
    r = ((ah - p) - e + al) / b
    return quick_two_sum(q1, r)


@njit(cache=True)
def _expm1_small(rh: float, rl: float):
    """e^r − 1 for |r| ≤ 0.36 as a double-double: Taylor series summed in double-double."""
    sh, sl = rh, rl
    th, tl = rh, rl
    n = 2.0
    while n < 40.0:
        th, tl = dd_mul(th, tl, rh, rl)
        th, tl = dd_div_f(th, tl, n)
        sh, sl = dd_add(sh, sl, th, tl)
        if abs(th) <= 1e-36 * abs(sh):
            break
        n += 1.0
    return sh, sl


@njit(cache=True)
def dd_expm1(x: float):
    """e^x − 1 as a double-double for a float x ≤ 709.7 (relative error ≲ 2⁻¹⁰⁴)."""
    if abs(x) < 0.35:
        return _expm1_small(x, 0.0)
    if x < -745.0:
        return -1.0, 0.0
    k = math.floor(x / LN2 + 0.5)
    rh = x - k * LN2_HI  # exact (Sterbenz; k·LN2_HI exact)
    p, e = two_product(k, LN2_LO)
    rh, rl = dd_add(rh, 0.0, -p, -e - k * LN2_LO2)
    mh, ml = _expm1_small(rh, rl)
    scale = math.ldexp(1.0, int(k))
    # 2^k(1 + m) − 1 = 2^k·m + (2^k − 1)
    h, l = dd_add(mh * scale, ml * scale, scale, 0.0)
    return dd_add(h, l, -1.0, 0.0)


@njit(cache=True)
def dd_log(zh: float, zl: float):
    """ln(zh + zl) for a positive normal double-double, absolute error ≲ 2⁻¹⁰⁴(1 + |ln z|)."""
    mant, expo = math.frexp(zh)
    if mant < SQRT_HALF:
        expo -= 1
    mh = math.ldexp(zh, -expo)
    ml = math.ldexp(zl, -expo)
    fh, fl = dd_add(mh, ml, -1.0, 0.0)  # m − 1 ∈ [−0.293, 0.415]
    y = math.log1p(fh + fl)
    eh, el = _expm1_small(y, 0.0)
    dh, dl = dd_add(fh, fl, -eh, -el)  # (1 + f) − e^y
    corr = (dh + dl) / (1.0 + eh)
    lh, ll = quick_two_sum(y, corr)
    k = float(expo)
    p, e = two_product(k, LN2_LO)
    kh, kl = dd_add(k * LN2_HI, 0.0, p, e + k * LN2_LO2)
    return dd_add(kh, kl, lh, ll)


# ----------------------------------------------------------------------------------------------------
# base profiles at a double-double argument s ≥ 0: (value, S ≥ |dδ_b/ds|)
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def gaussian_at(sh: float, sl: float, theta: float):
    """T9 δ_θ(s) for s = sh + sl ≥ 0 (double-double), unrounded, and a bound on |dδ/ds| there."""
    if sh == np.inf:
        return 0.0, 0.0
    qh = sh / theta
    if not math.isfinite(qh):
        return 0.0, 0.0
    if qh > 1e150 or theta > 1e150:
        a_hi = qh - 0.5 * theta
        a_lo = 0.0
    else:
        q1, q2 = dd_div_f(sh, sl, theta)
        a_hi, a_lo = dd_add(q1, q2, -0.5 * theta, 0.0)
    p2, e2 = two_product(a_hi, a_hi)
    if p2 > 1500.0 and a_hi > 0.0:
        return 0.0, 0.0
    sq_lo = e2 + 2.0 * a_hi * a_lo if math.isfinite(p2) else 0.0
    scale = math.exp(-0.5 * p2) * (1.0 - 0.5 * sq_lo)  # e^{−a²/2}
    x = a_hi * SQRT_HALF
    h = theta * SQRT_HALF
    if a_hi >= 0.0:
        return 0.5 * scale * erfcx_diff(x, h), 0.5 * scale
    if theta < 2.0:
        return 0.5 * scale * erfcx_diff(x, h), 1.0
    b = a_hi + theta
    return 1.0 - 0.5 * scale * (erfcx(-x) + erfcx(b * SQRT_HALF)), 1.0


@njit(cache=True)
def laplace_at(sh: float, sl: float, theta: float, err: float):
    """T8 δ_θ(s) for s ≥ 0 (double-double) with s known to ±err: (value, S); exact 0 only when certain."""
    xh, xl = dd_add(sh, sl, -theta, 0.0)
    if xh - err >= 0.0 or sh == np.inf:
        return 0.0, EXACT
    x = min(xh + xl, 0.0)
    return -math.expm1(0.5 * x), 0.5


@njit(cache=True)
def base_at(mech: int, sh: float, sl: float, theta: float, err: float):
    if mech == GAUSSIAN:
        return gaussian_at(sh, sl, theta)
    return laplace_at(sh, sl, theta, err)


# ----------------------------------------------------------------------------------------------------
# T11
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def _scaled(w: float, v: float, s: float, err_s: float):
    """w·δ_b(s) with its error bound; an exact base zero (s = EXACT) stays exact."""
    if s == EXACT:
        return 0.0, EXACT
    return w * v, DD_REL * w * v + w * 2.0 * s * err_s


@njit(cache=True)
def remove_with_error(mech: int, epsilon: float, theta: float, q: float):
    """(REMOVE δ unrounded, bound on the error not covered by the budget)."""
    if epsilon == np.inf:
        return 0.0, EXACT
    if epsilon == -np.inf:
        return 1.0, EXACT
    if q == 0.0:
        return (-math.expm1(epsilon), 0.0) if epsilon < 0.0 else (0.0, EXACT)
    if q == 1.0:  # the base profile itself (T8/T9 at a float argument)
        if epsilon >= 0.0:
            v, s = base_at(mech, epsilon, 0.0, theta, 0.0)
            return v, (EXACT if s == EXACT else 0.0)
        v, _ = base_at(mech, -epsilon, 0.0, theta, 0.0)
        return -math.expm1(epsilon) + math.exp(epsilon) * v, 0.0
    lqh, lql = dd_log(q, 0.0)
    if epsilon > 709.0:
        # ε_q = ε − ln q + ln(1 − (1 − q)e^{−ε}); the last term is below 1e-307 in magnitude
        sh, sl = dd_add(epsilon, math.log1p(-(1.0 - q) * math.exp(-epsilon)), -lqh, -lql)
        err_s = DD_REL * (abs(epsilon) + abs(lqh) + 1.0) + 1e-300
        v, s = base_at(mech, sh, sl, theta, err_s)
        return _scaled(q, v, s, err_s)
    eh, el = dd_expm1(epsilon)
    zh, zl = dd_add(eh, el, q, 0.0)  # Z = q + E = q·e^{ε_q}
    err_z = DD_REL * (abs(eh) + q)
    if zh <= err_z:  # 1 − e^ε branch, or too close to its threshold to tell: bound both
        return -eh, max(zh, 0.0) + 2.0 * err_z + DD_REL * abs(eh)
    lzh, lzl = dd_log(zh, zl)
    sh, sl = dd_add(lzh, lzl, -lqh, -lql)  # ε_q
    err_s = DD_REL * (abs(lzh) + abs(lqh) + 1.0) + 2.0 * err_z / zh
    if sh >= 0.0:
        v, s = base_at(mech, sh, sl, theta, err_s)
        return _scaled(q, v, s, err_s)
    v, s = base_at(mech, -sh, -sl, theta, err_s)
    s = max(s, 0.0)
    # −E + Z·δ_b(−ε_q)
    return -eh + zh * v, DD_REL * (abs(eh) + zh * v) + zh * 2.0 * s * err_s


@njit(cache=True)
def add_with_error(mech: int, epsilon: float, theta: float, q: float):
    """(ADD δ unrounded, bound on the error not covered by the budget)."""
    if epsilon == np.inf:
        return 0.0, EXACT
    if epsilon == -np.inf:
        return 1.0, EXACT
    if q == 0.0:
        return (-math.expm1(epsilon), 0.0) if epsilon < 0.0 else (0.0, EXACT)
    if q == 1.0:
        return remove_with_error(mech, epsilon, theta, 1.0)
    if epsilon > 709.0:  # c = 1 − (1 − q)e^ε < 0 for q < 1 − 2⁻⁵³ and ε > 37
        return 0.0, EXACT
    eh, el = dd_expm1(epsilon)
    if eh * (1.0 - q) > 2.0:  # c < −1 with certainty (and the products below stay far from overflow)
        return 0.0, EXACT
    oh, ol = two_sum(1.0, -q)  # 1 − q exactly
    ph, pl = dd_mul(oh, ol, eh, el)
    ch, cl = dd_add(q, 0.0, -ph, -pl)  # c = q − (1 − q)E
    err_c = DD_REL * (q + abs(ph))
    if ch <= err_c:  # c ≤ 0 (δ = 0), or too close to tell: 0 ≤ δ ≤ c⁺ ≤ 2 err_c
        if ch < -err_c:
            return 0.0, EXACT
        return max(ch, 0.0), 2.0 * err_c
    # t = ε + ln q − ln c
    lqh, lql = dd_log(q, 0.0)
    lch, lcl = dd_log(ch, cl)
    th, tl = dd_add(epsilon, 0.0, lqh, lql)
    th, tl = dd_add(th, tl, -lch, -lcl)
    err_t = DD_REL * (abs(epsilon) + abs(lqh) + abs(lch) + 1.0) + 2.0 * err_c / ch
    if th >= 0.0:
        v, s = base_at(mech, th, tl, theta, err_t)
        return _scaled(ch, v, s, err_t)
    v, s = base_at(mech, -th, -tl, theta, err_t)
    s = max(s, 0.0)
    # −E + q e^ε δ_b(−t)
    w = q * (1.0 + eh)
    return -eh + w * v, DD_REL * (abs(eh) + w * v) + w * 2.0 * s * err_t


@njit(cache=True)
def delta_raw_kernel(mech: int, direction: int, epsilon: float, theta: float, q: float) -> float:
    if direction == REMOVE:
        return remove_with_error(mech, epsilon, theta, q)[0]
    return add_with_error(mech, epsilon, theta, q)[0]


@njit(cache=True)
def delta_up(mech: int, direction: int, epsilon: float, theta: float, q: float) -> float:
    """T11 δ rounded up: value + running error bound, then the budget in ulps; at most 1; exact 0 kept."""
    if direction == REMOVE:
        v, err = remove_with_error(mech, epsilon, theta, q)
    else:
        v, err = add_with_error(mech, epsilon, theta, q)
    if err == EXACT:
        return v
    budget = BUDGET_GAUSSIAN if mech == GAUSSIAN else BUDGET_LAPLACE
    return min(1.0, up(v + err, budget))


# ----------------------------------------------------------------------------------------------------
# inverse: min{ε : δ(ε) ≤ δ}, searched on the raw kernel, verified with the rounded one
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def log_gap(value: float, target: float) -> float:
    """ln value − ln target with ln 0 = −inf, as ln(value/target) where that is exact to 2⁻⁵³ (for the searches)."""
    if value <= 0.0:
        return -np.inf
    ratio = value / target
    if 0.0 < ratio < np.inf and ratio >= 2.3e-308:
        return math.log(ratio)
    return math.log(value) - math.log(target)


@njit(cache=True)
def epsilon_search(mech: int, direction: int, delta: float, theta: float, q: float) -> float:
    """ε with δ(ε) ≈ target (bracketed Illinois on ln δ, bisection fallback, relative stopping rule)."""
    lo = -1.0
    while delta_raw_kernel(mech, direction, lo, theta, q) <= delta:
        lo *= 2.0
        if lo < -1e300:
            return -np.inf
    hi = 1.0
    while delta_raw_kernel(mech, direction, hi, theta, q) > delta:
        hi *= 2.0
        if hi > 1e300:
            return np.inf
    f_lo = log_gap(delta_raw_kernel(mech, direction, lo, theta, q), delta)
    f_hi = log_gap(delta_raw_kernel(mech, direction, hi, theta, q), delta)
    side = 0
    for _ in range(600):
        if hi - lo <= SEARCH_ULPS * 1.1102230246251565e-16 * max(abs(lo), abs(hi)) or hi - lo < 1e-305:
            break
        if math.isfinite(f_hi) and math.isfinite(f_lo) and f_lo != f_hi and abs(side) <= 2:
            mid = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        else:
            mid = 0.5 * (lo + hi)
            side = 0
        if not (lo < mid < hi):
            mid = 0.5 * (lo + hi)
        if not (lo < mid < hi):
            break
        f_mid = log_gap(delta_raw_kernel(mech, direction, mid, theta, q), delta)
        if f_mid > 0.0:
            lo, f_lo = mid, f_mid
            side = side - 1 if side <= 0 else -1
            if side < -1:
                f_hi *= 0.5
        else:
            hi, f_hi = mid, f_mid
            side = side + 1 if side >= 0 else 1
            if side > 1:
                f_lo *= 0.5
    return hi


@njit(cache=True)
def epsilon_verified(mech: int, direction: int, delta: float, theta: float, q: float) -> float:
    """The search result moved up until the upward-rounded δ confirms δ(ε) ≤ target: never below the exact ε."""
    if delta >= 1.0:
        return -np.inf
    if delta <= 0.0 and mech == GAUSSIAN and q > 0.0:
        return np.inf  # the Gaussian profiles are positive at every finite ε
    e = epsilon_search(mech, direction, delta, theta, q)
    if not math.isfinite(e):
        return e
    step = 1.0
    for _ in range(200):
        if delta_up(mech, direction, e, theta, q) <= delta:
            return e
        e = e + step * max(spacing(e), 1e-300)
        step *= 2.0
    return np.inf


# ----------------------------------------------------------------------------------------------------
# the kernels the record names (every kernel receives every parameter: epsilon, delta, theta, rate)
# ----------------------------------------------------------------------------------------------------

def gaussian_remove(epsilon, delta, theta, rate):
    return delta_up(GAUSSIAN, REMOVE, epsilon, theta, rate)


def gaussian_remove_raw(epsilon, delta, theta, rate):
    return delta_raw_kernel(GAUSSIAN, REMOVE, epsilon, theta, rate)


def gaussian_add(epsilon, delta, theta, rate):
    return delta_up(GAUSSIAN, ADD, epsilon, theta, rate)


def gaussian_add_raw(epsilon, delta, theta, rate):
    return delta_raw_kernel(GAUSSIAN, ADD, epsilon, theta, rate)


def laplace_remove(epsilon, delta, theta, rate):
    return delta_up(LAPLACE, REMOVE, epsilon, theta, rate)


def laplace_remove_raw(epsilon, delta, theta, rate):
    return delta_raw_kernel(LAPLACE, REMOVE, epsilon, theta, rate)


def laplace_add(epsilon, delta, theta, rate):
    return delta_up(LAPLACE, ADD, epsilon, theta, rate)


def laplace_add_raw(epsilon, delta, theta, rate):
    return delta_raw_kernel(LAPLACE, ADD, epsilon, theta, rate)


def gaussian_remove_epsilon(epsilon, delta, theta, rate):
    return epsilon_verified(GAUSSIAN, REMOVE, delta, theta, rate)


def gaussian_remove_epsilon_raw(epsilon, delta, theta, rate):
    return epsilon_search(GAUSSIAN, REMOVE, delta, theta, rate) if delta < 1.0 else -np.inf


def gaussian_add_epsilon(epsilon, delta, theta, rate):
    return epsilon_verified(GAUSSIAN, ADD, delta, theta, rate)


def gaussian_add_epsilon_raw(epsilon, delta, theta, rate):
    return epsilon_search(GAUSSIAN, ADD, delta, theta, rate) if delta < 1.0 else -np.inf


def laplace_remove_epsilon(epsilon, delta, theta, rate):
    return epsilon_verified(LAPLACE, REMOVE, delta, theta, rate)


def laplace_remove_epsilon_raw(epsilon, delta, theta, rate):
    return epsilon_search(LAPLACE, REMOVE, delta, theta, rate) if delta < 1.0 else -np.inf


def laplace_add_epsilon(epsilon, delta, theta, rate):
    return epsilon_verified(LAPLACE, ADD, delta, theta, rate)


def laplace_add_epsilon_raw(epsilon, delta, theta, rate):
    return epsilon_search(LAPLACE, ADD, delta, theta, rate) if delta < 1.0 else -np.inf


BUDGETS = {
    "t11_gaussian_remove": BUDGET_GAUSSIAN,
    "t11_gaussian_add": BUDGET_GAUSSIAN,
    "t11_laplace_remove": BUDGET_LAPLACE,
    "t11_laplace_add": BUDGET_LAPLACE,
    # searched values: the budget bounds the unrounded search's error; the returned ε is verified
    "t11_gaussian_remove_epsilon": 64,
    "t11_gaussian_add_epsilon": 64,
    "t11_laplace_remove_epsilon": 64,
    "t11_laplace_add_epsilon": 64,
}
