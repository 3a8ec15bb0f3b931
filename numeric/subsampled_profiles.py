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
Hence s is computed in double-double (≈ 2⁻¹⁰⁴ relative), as s = log1p(E/w) with w = q (REMOVE) or c (ADD)
(E/w = (q e^ε − c)/c for ADD), so s keeps a *relative* accuracy as ε → 0 — the difference ln Z − ln q used
before had an absolute error floor ≈ 2⁻⁹⁴ that cost 1e-7 relative at ε = 0, θ = 1e-20 (issue 10):

- E = e^ε − 1: |ε| < 0.35 table-driven (ε = j/256 + r, |r| ≤ 2⁻⁹, e^{j/256} − 1 from ``numeric.expm1_table``,
  e^r − 1 by an 11-term series whose first five terms are double-double); larger |ε| by the three-part ln 2
  reduction first.  The table also gives R = e^ε − 1 − ε without cancellation.
- Near the thresholds Z = q + E → 0 (REMOVE, ε ≈ −q) and c → 0 (ADD, e^ε(1 − q) ≈ 1) the small quantity is
  formed as (q + ε) + R and (q − ε) + qε − (1 − q)R: q ± ε and qε are exact (two_sum, two_product), so its
  error is DD_REL times |q ± ε| + qε + R (≈ ε²) instead of times q — the ADD point one float from the
  threshold (ε = 3.337e-6, q = 3.337e-6, c ≈ 1e-24) went from 1.1e-6 to 1e-13 relative.
- log1p of a double-double by a float log1p and one Newton step with the double-double expm1; ln of a
  double-double (|X| ≳ 0.28) table-driven (``dd_log``: ``numeric.log_table`` and a short series); then
  a = s/θ − θ/2 in double-double.
- ``delta_up_both`` (direction="both") computes E (and R) once for both directions.

**Running error bound.**  Besides the float evaluation of the base profile (covered by a measured budget in
ulps, as for T9), the kernel carries an absolute error bound ``err_s`` on s (``shifted_log``: derived there
from the relative errors of E, w and N = w + E, DD_REL = 2⁻⁹⁴ per quantity) and adds 2S·err_s to the value,
S ≥ |dδ_b/ds| (Gaussian: ½e^{−a²/2}·erfcx((a + θ)/√2) bounded by Abramowitz–Stegun 7.1.13, see
``gaussian_at``; ½ for Laplace), and the relative error of the weight (q exact, c with err_c).  Branch
decisions (q + E > 0, c > 0, s ≥ θ for Laplace's exact zero) are taken only when they are certain
(Z, c > 4× their error bound, which also keeps every relative error ≤ 1/3 for the bounds in
``shifted_log``); in the uncertain band the kernel returns a value that bounds both sides.
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .erfcx import erfcx, erfcx_diff
from .expm1_table import HALF_WIDTH as EM1_HALF, STEP as EM1_STEP, TABLE as EM1_TABLE
from .log_table import STEP as LOG_STEP, TABLE as LOG_TABLE
from .elementary import MANTISSA_MASK, ONE_BITS, as_bits, as_double
from .special import spacing, two_product, up

LN2 = 0.6931471805599453
LN2_HI = 6.93147180369123816490e-01  # 21 trailing zero bits: k·LN2_HI exact for |k| < 2²⁰
LN2_LO = 1.9082149292705877e-10
LN2_LO2 = 1.1612227229362532e-26  # ln 2 = LN2_HI + LN2_LO + LN2_LO2 to ~1e-43
SQRT_HALF = 0.7071067811865476
ERFCX_BOUND = 1.1283791670955126  # 2/√π
EXACT = -1.0  # error slot of an exact result (δ = 0 or 1 by definition, not by underflow)
DD_REL = 2.0 ** -94  # generous bound on the relative error of each double-double step (actual ≲ 2⁻¹⁰⁴)

BUDGET_GAUSSIAN = 64  # ulps: float part (erfcx, e^{−a²/2}, products); measured peak in proofs_checks
BUDGET_LAPLACE = 8
SEARCH_ULPS = 4.0

# Selectors as numpy int64, not Python ints: numba types a Python int constant passed to a jitted function as
# Literal[int] and compiles one specialisation of the callee (and of everything below it) per value — delta_up
# was compiled for (0, 0), (0, 1), (1, 0), (1, 1) and for the int64 of the composition's callers, five copies of
# the same code.  A numpy int64 is typed int64: one specialisation, shared by every caller and cached once.  Only
# integer comparisons change from compile time to run time; every float operation is the same (same bits).
GAUSSIAN = np.int64(0)
LAPLACE = np.int64(1)
REMOVE = np.int64(0)
ADD = np.int64(1)


# ----------------------------------------------------------------------------------------------------
# double-double helpers
#
# Each helper below returns a double-double within a few units of 2⁻¹⁰⁶ (relative) of its exact result
# (Dekker/Knuth error-free steps; the accurate dd + dd sum has relative error ≤ 3·2⁻¹⁰⁶, dd × dd ≤ 7·2⁻¹⁰⁶,
# Joldes–Muller–Popescu 2017).  The kernels chain at most ~20 of them per quantity, so charging DD_REL = 2⁻⁹⁴
# per *quantity* (E, Z, c, X, s) leaves a factor ≥ 2⁹/20 ≈ 25 of margin; the same margin as before this
# rewrite ("same soundness margins").
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
def dd_mul_f(ah: float, al: float, b: float):
    """(ah + al)·b as a double-double (b a float)."""
    p, e = two_product(ah, b)
    e += al * b
    return quick_two_sum(p, e)


@njit(cache=True)
def dd_div_f(ah: float, al: float, b: float):
    """(ah + al)/b as a double-double (b a nonzero float; |al| ≤ u|ah|, u = 2⁻⁵³), relative error ≤ 5.1u².

    q1 = fl(ah/b) is within u|ah/b|, so p = fl(q1·b) is within ~2u of ah and ah − p is exact (Sterbenz); p + e = q1·b
    exactly (TwoProduct), so the residual a − q1·b = (ah − p) − e + al, with |(ah − p) − e| ≤ u|ah|: its two
    roundings ≤ u²|ah| + 2u²|ah|(1 + u), the quotient's ≤ u·2u|ah/b|(1 + u); the quick-two-sum is exact.  Sum
    ≤ 5u²|ah/b|(1 + 2u) ≤ 5.1u²·|a/b|.
    """
    q1 = ah / b
    p, e = two_product(q1, b)
    r = ((ah - p) - e + al) / b
    return quick_two_sum(q1, r)


@njit(cache=True)
def dd_div(ah: float, al: float, bh: float, bl: float):
    """(ah + al)/(bh + bl) as a double-double: one float quotient and one correction from the dd residual."""
    q1 = ah / bh
    ph, pl = dd_mul_f(bh, bl, q1)
    rh, rl = dd_add(ah, al, -ph, -pl)
    return quick_two_sum(q1, (rh + rl) / bh)


# 1/6, 1/24, 1/120 as double-doubles (mpmath); 1/720 … 1/11! only enter the float part of the series
INV6_HI, INV6_LO = 0.16666666666666666, 9.25185853854297e-18
INV24_HI, INV24_LO = 0.041666666666666664, 2.3129646346357427e-18
INV120_HI, INV120_LO = 0.008333333333333333, 1.1564823173178714e-19


@njit(cache=True)
def _dd_add_dominant(ah: float, al: float, bh: float, bl: float):
    """(ah + al) + (bh + bl) for normalised double-doubles with |bh| ≤ |ah|/4: one TwoSum of the heads, the tails
    added in floats.  Error (u = 2⁻⁵³): the tails' sum rounds by ≤ u(|al| + |bl|) ≤ u²(|ah| + |bh|), adding it to
    the TwoSum error (≤ u|ah + bh|) by ≤ u·(u|ah + bh| + u|ah| + u|bh|)(1 + u); the quick-two-sum is exact.  With
    |bh| ≤ |ah|/4 that is ≤ u²·(1.25 + 1.25 + 1.25)|ah|(1 + 2u), and the sum is ≥ ¾|ah|(1 − 2u): ≤ 5.1u²·|sum|.
    (The accurate ``dd_add``, ≤ 3u², is kept wherever the two can be of similar size.)"""
    s, e = two_sum(ah, bh)
    e += al + bl
    return quick_two_sum(s, e)


@njit(cache=True)
def _expm1_rest(r: float):
    """e^r − 1 − r for a float |r| ≤ 2⁻⁹ as a double-double, relative error ≲ 2⁻¹⁰⁴.

    Taylor series to r¹¹/11!: the first omitted term is below 2⁻⁹⁹/12! < 2⁻¹²⁷ of r.  Terms r⁶/6! … r¹¹/11!
    are summed in plain floats: relative to r each is ≤ 2^{−9(n−1)}/n! ≤ 2⁻⁵⁴·⁵, so their float rounding
    (and that of their coefficients) stays below 2⁻¹⁰⁷ of r.  The rest is a double-double Horner scheme with
    double-double coefficients.
    """
    g = r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0 + r * (1.0 / 362880.0
                                                                        + r * (1.0 / 3628800.0 + r / 39916800.0)))))
    h, l = two_sum(INV120_HI, g)
    h, l = dd_mul_f(h, l + INV120_LO, r)
    # each level adds r·(previous level), |r| ≤ 2⁻⁹, to a coefficient ≥ 5× that level: ``_dd_add_dominant``
    # (≤ 5.1·2⁻¹⁰⁶ relative) instead of the accurate dd_add (≤ 3·2⁻¹⁰⁶), within the ≤ 7·2⁻¹⁰⁶ per step that
    # DD_REL's margin assumes
    h, l = _dd_add_dominant(INV24_HI, INV24_LO, h, l)
    h, l = dd_mul_f(h, l, r)
    h, l = _dd_add_dominant(INV6_HI, INV6_LO, h, l)
    h, l = dd_mul_f(h, l, r)
    h, l = _dd_add_dominant(0.5, 0.0, h, l)
    p2, e2 = two_product(r, r)
    return dd_mul(h, l, p2, e2)


@njit(cache=True)
def _expm1_small(rh: float, rl: float):
    """e^r − 1 for r = rh + rl, |rh| ≤ 0.36, |rl| ≤ 2⁻⁵³|rh|, as a double-double (relative error ≲ 2⁻¹⁰³).

    Table-driven: rh = j/256 + r with |r| ≤ 2⁻⁹ exactly (Sterbenz), e^{rh} − 1 = T + p + T·p with
    T = e^{j/256} − 1 from ``numeric.expm1_table`` and p = e^r − 1 (``_expm1_rest``).  The tail rl enters as
    (1 + E)·rl (its square is below 2⁻¹⁰⁷ of E).
    """
    j = math.floor(rh * EM1_STEP + 0.5)
    r = rh - j / EM1_STEP
    ah, al = _expm1_rest(r)
    ph, pl = two_sum(r, ah)
    pl += al
    if j != 0.0:
        row = int(j) + EM1_HALF
        th = EM1_TABLE[row, 0]
        tl = EM1_TABLE[row, 1]
        xh, xl = dd_mul(th, tl, ph, pl)
        sh, sl = dd_add(th, tl, ph, pl)
        ph, pl = dd_add(sh, sl, xh, xl)
    if rl != 0.0:
        ph, pl = dd_add(ph, pl, rl * (1.0 + ph), 0.0)
    return ph, pl


@njit(cache=True)
def expm1_parts(x: float):
    """(E, R, err_R) for a float |x| ≤ 0.36: E = e^x − 1 and R = e^x − 1 − x as double-doubles, and a bound
    on R's absolute error.  R is summed from nonnegative table values, the series rest and T·p, so it keeps
    its relative accuracy where E − x would cancel (x → 0); err_R charges DD_REL on each of the three parts."""
    j = math.floor(x * EM1_STEP + 0.5)
    r = x - j / EM1_STEP
    ah, al = _expm1_rest(r)  # p = r + a
    if j == 0.0:
        eh, el = two_sum(r, ah)
        return eh, el + al, ah, al, DD_REL * abs(ah) + 1e-322  # (x²/2 may underflow)
    row = int(j) + EM1_HALF
    th = EM1_TABLE[row, 0]
    tl = EM1_TABLE[row, 1]
    ph, pl = two_sum(r, ah)
    pl += al
    xh, xl = dd_mul(th, tl, ph, pl)  # T·p
    sh, sl = dd_add(th, tl, ph, pl)
    eh, el = dd_add(sh, sl, xh, xl)
    # R = (T − j/256) + a + T·p
    rh, rl = dd_add(EM1_TABLE[row, 2], EM1_TABLE[row, 3], ah, al)
    rh, rl = dd_add(rh, rl, xh, xl)
    return eh, el, rh, rl, DD_REL * (EM1_TABLE[row, 2] + abs(ah) + abs(xh)) + 1e-322


@njit(cache=True)
def dd_exp_parts(x: float):
    """(k, m) with e^x = 2^k(1 + m) for a float −745 ≤ x ≤ 709.8, m a double-double, |ln(1 + m)| ≤ 0.35."""
    k = math.floor(x / LN2 + 0.5)
    rh = x - k * LN2_HI  # exact (Sterbenz; k·LN2_HI exact)
    # k as a float (exact: |k| ≤ 1075): numba's math.floor gives an int64, which compiled two_product a second
    # time for (int64, float64); k·LN2_LO converts k to float64 either way, so the bits are the same
    p, e = two_product(float(k), LN2_LO)
    rh, rl = dd_add(rh, 0.0, -p, -e - k * LN2_LO2)
    mh, ml = _expm1_small(rh, rl)
    return k, mh, ml


@njit(cache=True)
def dd_expm1(x: float):
    """e^x − 1 as a double-double for a float x ≤ 709.7 (relative error ≲ 2⁻¹⁰³)."""
    if abs(x) < 0.35:
        return _expm1_small(x, 0.0)
    if x < -745.0:
        return -1.0, 0.0
    k, mh, ml = dd_exp_parts(x)
    scale = math.ldexp(1.0, int(k))
    # 2^k(1 + m) − 1 = 2^k·m + (2^k − 1)
    h, l = dd_add(mh * scale, ml * scale, scale, 0.0)
    return dd_add(h, l, -1.0, 0.0)


@njit(cache=True)
def dd_exp(x: float):
    """e^x as a double-double for a float x ≤ 709.7 (relative error ≲ 2⁻¹⁰³ while e^x is normal)."""
    if x < -745.0:
        return 0.0, 0.0
    k, mh, ml = dd_exp_parts(x)
    if k < -1000.0:  # 2^k would lose bits as a subnormal scale: scale in two steps after the sum
        h, l = dd_add(mh, ml, 1.0, 0.0)
        return math.ldexp(math.ldexp(h, 600), int(k) - 600), 0.0
    scale = math.ldexp(1.0, int(k))
    return dd_add(mh * scale, ml * scale, scale, 0.0)


@njit(cache=True)
def _log1p_newton(fh: float, fl: float):
    """ln(1 + f) for a double-double f ∈ [−0.293, 0.415], relative error ≲ 2⁻¹⁰³.

    y₀ = log1p(f) in floats (|y₀ − y| ≤ 2⁻⁵²|y|), then one Newton step y = y₀ + (f − (e^{y₀} − 1))/e^{y₀} with
    e^{y₀} − 1 in double-double: the step's quadratic error is ≤ (2⁻⁵²y)²/2 and the float division of the
    (≤ 2⁻⁵¹|y|) correction costs ≤ 2⁻¹⁰⁴|y|; |y₀| ≤ 0.35 keeps ``_expm1_small`` in its range.
    """
    y = math.log1p(fh + fl)
    eh, el = _expm1_small(y, 0.0)
    dh, dl = dd_add(fh, fl, -eh, -el)  # (1 + f) − e^y
    return quick_two_sum(y, (dh + dl) / (1.0 + eh))


# 1/3 and 1/5 as double-doubles (mpmath); 1/4, 1/2 are exact; 1/6 … 1/11 only enter the float part
INV3_HI, INV3_LO = 0.3333333333333333, 1.850371707708594e-17
INV5_HI, INV5_LO = 0.2, -1.1102230246251566e-17


@njit(cache=True)
def _log1p_table_rest(u: float):
    """ln(1 + u) for a float |u| ≤ U = 2⁻⁹(1 + 2⁻⁴¹) as a double-double, absolute error ≤ 2⁻⁹⁷·⁴|u| (below).

    ln(1 + u) = u − u²·G(u), G(u) = Σ_{n≥0} (−1)ⁿuⁿ/(n + 2) = 1/2 − u/3 + u²/4 − u³/5 + u⁴(1/6 − u/7 + …), by
    Horner: G = 1/2 − u(1/3 − u(1/4 − u(1/5 − u·g))), g = 1/6 − u(1/7 − u(1/8 − u(1/9 − u(1/10 − u/11)))) in
    plain floats, the four outer levels in double-double (dd coefficients 1/3, 1/5; 1/4, 1/2 exact).
    Error of G (absolute; |u| ≤ 2⁻⁸·⁹⁹, u^k/(k + 2) the terms):
    - truncation: alternating series with decreasing terms, so ≤ the first omitted term u¹⁰/12 < 2⁻⁹³;
    - g (≈ 1/6, enters multiplied by u⁴ < 2⁻³⁵·⁹): the coefficients' rounding ≤ 2⁻⁵⁵·⁵, the inner Horner
      (each product and sum ≤ 2⁻⁵³ relative, the inner part ≤ 2⁻¹² of g) and the outer sum 1/6 − u(·) ≤ 2⁻⁵⁵:
      ≤ 2⁻⁵³·⁵ absolute on g, ≤ 2⁻⁸⁹ on G;
    - level 1/5: −u·g rounded once (≤ 2⁻⁵³·|u·g| ≤ 2⁻⁶⁴·⁵), then an exact TwoSum with 1/5 and the dd tail:
      ≤ 2⁻⁶⁴ absolute, times u³ < 2⁻²⁶·⁹: ≤ 2⁻⁹⁰·⁹ on G;
    - the three dd levels (dd_mul_f ≤ 2·2⁻¹⁰⁶, ``_dd_add_dominant`` ≤ 5.1·2⁻¹⁰⁶ relative to results ≤ 1/2; the
      added part is ≤ 2⁻⁸·⁹⁹/2 of the coefficient): ≤ 2⁻¹⁰¹·⁵;
    so G is within 2⁻⁹³ + 2⁻⁸⁹ + 2⁻⁹⁰·⁹ + 2⁻¹⁰¹·⁵ < 2⁻⁸⁸·⁶ of the exact G(u), and u²·G, formed as dd_mul of G and
    the exact u² (TwoProduct, ≤ 7·2⁻¹⁰⁶ relative), carries ≤ u²·(2⁻⁸⁸·⁶ + 2⁻¹⁰³) ≤ 2⁻⁹⁷·⁵·|u| (u² ≤ 2⁻⁸·⁹⁹|u|);
    the final u − u²G (``_dd_add_dominant``, |u²G| ≤ 2⁻⁹·⁹|u|: ≤ 5.1·2⁻¹⁰⁶ of a result ≤ |u|) adds ≤ 2⁻¹⁰³·⁶|u|.
    In all ≤ 2⁻⁹⁷·⁴|u| (measured against mpmath: ≈ 2⁻¹⁰⁰|u| at |u| = 2⁻⁹; tests/numeric/test_subsampled_dd.py).
    """
    g = 1.0 / 6.0 - u * (1.0 / 7.0 - u * (0.125 - u * (1.0 / 9.0 - u * (0.1 - u * (1.0 / 11.0)))))
    h, l = two_sum(INV5_HI, -u * g)
    h, l = dd_mul_f(h, l + INV5_LO, u)
    h, l = _dd_add_dominant(0.25, 0.0, -h, -l)
    h, l = dd_mul_f(h, l, u)
    h, l = _dd_add_dominant(INV3_HI, INV3_LO, -h, -l)
    h, l = dd_mul_f(h, l, u)
    h, l = _dd_add_dominant(0.5, 0.0, -h, -l)
    p2, e2 = two_product(u, u)
    wh, wl = dd_mul(h, l, p2, e2)
    return _dd_add_dominant(u, 0.0, -wh, -wl)


@njit(cache=True)
def dd_log(zh: float, zl: float):
    """ln(zh + zl) for a positive double-double (|zl| ≤ 2⁻⁵³|zh|), absolute error ≤ 2⁻¹⁰²(1 + |ln z|).

    Table-driven (it replaced a float log1p and a Newton step with the double-double expm1, which cost ≈ 1.8× as much):
    z = 2^k·m, m = mh + ml, mh ∈ [1, 2) exact (read from the bits; ml = zl·2^{−k}, an exact power-of-two
    scaling); j = ⌊256(mh − 1) + ½⌋ (exact arithmetic: 256(mh − 1) is a multiple of 2⁻⁴⁴ below 256), so
    |mh − c_j| ≤ 2⁻⁹, c_j = 1 + j/256.  With r_j = fl(1/c_j) and T_j = −ln r_j from ``numeric.log_table`` (dd,
    ≤ 2⁻¹⁰⁶ relative, r_j the rounded value so the identity is exact):

        ln z = k·ln 2 + T_j + ln(1 + u),   u = m·r_j − 1.

    u: TwoProduct gives mh·r_j = p + e exactly; p ∈ [1 − 2⁻⁸, 1 + 2⁻⁸] so p − 1 is exact (Sterbenz); e + ml·r_j is
    rounded twice (|e| ≤ 2⁻⁵³, |ml·r_j| ≤ 2⁻⁵²): ≤ 2⁻¹⁰³·⁴ absolute; TwoSum then splits u = uh + ul exactly,
    |ul| ≤ 2⁻⁵³|uh|.  |u| ≤ |m/c_j − 1|(1 + 2⁻⁵³) + 2⁻⁵³·|m/c_j| ≤ 2⁻⁹ + 2⁻⁵¹ = U (|m − c_j| ≤ 2⁻⁹ + |ml|).
    ln(1 + uh + ul) = ln(1 + uh) + ln(1 + ul/(1 + uh)): the first by ``_log1p_table_rest`` (≤ 2⁻⁹⁷·⁴|uh| ≤
    2⁻¹⁰⁶·⁴), the second as the float ul/(1 + uh) (two roundings ≤ 2⁻⁵²·|ul| and the dropped square ≤ ul²: below
    2⁻¹¹³).  A quick-two-sum renormalises (exact) before the dd additions (accurate ones ≤ 3·2⁻¹⁰⁶ relative to
    their result): + T_j gives ln m ≤ ln 2·(1 + 2⁻⁹⁰): ≤ 2⁻¹⁰⁴·⁵; k·ln 2 from ln 2 = LN2_HI + LN2_LO + LN2_LO2 (to
    1.2e-43, so ≤ 2⁻¹⁴¹|k|; k·LN2_HI and TwoProduct exact; ``_dd_add_dominant``, ≤ 5.1·2⁻¹⁰⁶):
    ≤ 5.1·2⁻¹⁰⁶(|ln z| + ln 2) + 2⁻¹³⁸|k|; the last sum ≤ 3·2⁻¹⁰⁶|ln z|; T_j itself ≤ 2⁻¹⁰⁶·ln 2.  Sum, with
    |k| ≤ 1700 and |k|·ln 2 ≤ |ln z| + ln 2: (2⁻¹⁰³·⁴ + 2⁻¹⁰⁶·⁴ + 2⁻¹¹³ + 2⁻¹⁰⁴·⁵ + 5.1·2⁻¹⁰⁶·ln 2 + 2⁻¹⁰⁶·⁵ +
    2⁻¹²⁷) + 8.1·2⁻¹⁰⁶|ln z| ≤ 1.75·2⁻¹⁰³ + 1.02·2⁻¹⁰³|ln z| < 2⁻¹⁰²(1 + |ln z|)
    — well inside the DD_REL = 2⁻⁹⁴ per quantity that ``shifted_log`` charges.
    """
    extra = 0.0
    if zh < 2.2250738585072014e-308:  # subnormal: scale into the normal range first (exact)
        zh = zh * 2.0 ** 600
        zl = zl * 2.0 ** 600
        extra = -600.0
    bits = as_bits(zh)
    biased = bits >> 52  # zh = mh·2^{biased − 1023}, zh > 0 normal
    mh = as_double((bits & MANTISSA_MASK) | ONE_BITS)
    # zl·2^{1023 − biased}: exact (the factor is normal) unless it underflows (then off by ≤ 2⁻¹⁰⁷⁴)
    ml = (zl * as_double((2047 - biased) << 52)) * 0.5
    j = int((mh - 1.0) * LOG_STEP + 0.5)
    r = LOG_TABLE[j, 0]
    p, e = two_product(mh, r)
    uh, ul = two_sum(p - 1.0, e + ml * r)
    lh, ll = _log1p_table_rest(uh)
    lh, ll = quick_two_sum(lh, ll + ul / (1.0 + uh))
    lh, ll = dd_add(LOG_TABLE[j, 1], LOG_TABLE[j, 2], lh, ll)
    k = float(biased - 1023) + extra
    p, e = two_product(k, LN2_LO)
    kh, kl = _dd_add_dominant(k * LN2_HI, 0.0, p, e + k * LN2_LO2)  # |p| ≤ 2⁻³²|k·LN2_HI| (0 when k = 0)
    return dd_add(kh, kl, lh, ll)


# ----------------------------------------------------------------------------------------------------
# base profiles at a double-double argument s ≥ 0: (value, S ≥ |dδ_b/ds|)
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def gaussian_at(sh: float, sl: float, theta: float):
    """T9 δ_θ(s) for s = sh + sl ≥ 0 (double-double), unrounded, and a bound S on |dδ/ds| there.

    With δ = Φ(−a) − e^sΦ(−a − θ), a = s/θ − θ/2, the φ terms of the derivative cancel (e^sφ(a + θ) = φ(a)):
    |dδ/ds| = e^sΦ(−a − θ) = ½e^{−a²/2}·erfcx(y), y = (a + θ)/√2 ≥ 0 (s − y² = −a²/2).  Since
    erfcx(y) ≤ 2/(√π(y + √(y² + 4/π))) (Abramowitz–Stegun 7.1.13; = 1 at y = 0), S = ½e^{−a²/2}·that bound,
    times 1.01 for the float evaluation.  Far in the tail S/δ ≈ a/θ (instead of ≈ a²/θ·… with S = ½e^{−a²/2}),
    so an argument error costs a relative (a/θ)·err_s.
    """
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
    y = max(x + h, 0.0)
    slope = 0.505 * scale * ERFCX_BOUND / (y + math.sqrt(y * y + 4.0 / math.pi))
    if a_hi >= 0.0 or theta < 2.0:
        return 0.5 * scale * erfcx_diff(x, h), slope
    b = a_hi + theta
    return 1.0 - 0.5 * scale * (erfcx(-x) + erfcx(b * SQRT_HALF)), slope


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
def shifted_log(eh: float, el: float, rho_e: float, nh: float, nl: float, rho_n: float, wh: float, wl: float,
                rho_w: float):
    """(s, err_s): s = ln(1 + E/w) = ln(N/w) with N = w + E supplied separately (computed without
    cancellation by the caller), given the relative errors rho_e, rho_n, rho_w ≤ 1/3 of E, N and w.

    Error bound (absolute, on s):
    - |X| ≤ 0.29, X = E/w: s = log1p(X) directly (no 1 + X is formed, so s keeps its *relative* accuracy as
      X → 0: the absolute floor of ln(Z) − ln(q) is gone).  The computed X is X(1 + d) with
      |d| ≤ (rho_e + rho_w + DD_REL)/(1 − rho_w) ≤ 1.5(rho_e + rho_w + DD_REL) ≤ 0.51, so 1 + X and 1 + X(1 + d)
      are ≥ 1 − 0.29·1.51 ≥ 0.56, and |log1p(X(1 + d)) − log1p(X)| ≤ |X|·|d|/0.56 ≤ 3|X|(rho_e + rho_w + DD_REL);
      ``_log1p_newton`` adds ≤ DD_REL·|s|.
    - otherwise (computed |X| > 0.279) s = ln(N/w), |s| ≳ 0.24: the ratio's perturbation changes s by at most
      −ln(1 − rho_n) − ln(1 − rho_w) ≤ 1.5(rho_n + rho_w) (each ≤ 1/3); dd_log adds ≤ DD_REL(1 + |s|) (or,
      where the quotient leaves the normal range, ln N − ln w with ≤ DD_REL(2 + |ln N| + |ln w|)).
    """
    # the float quotient decides the route (a dd quotient only where it is used): |eh/wh − X| ≤ 2⁻⁵⁰|X|, so
    # |eh/wh| ≤ 0.28 puts the dd X below 0.29 in magnitude, and elsewhere |X| > 0.279
    if abs(eh / wh) <= 0.28:
        xh, xl = dd_div_f(eh, el, wh) if wl == 0.0 else dd_div(eh, el, wh, wl)
        sh, sl = _log1p_newton(xh, xl)
        return sh, sl, 3.0 * abs(xh) * (rho_e + rho_w + DD_REL) + DD_REL * abs(sh)
    rho = 1.5 * (rho_n + rho_w)
    if wl == 0.0:  # w a float (REMOVE: w = q): the float-divisor quotient, one dd addition less
        yh, yl = dd_div_f(nh, nl, wh)
    else:
        yh, yl = dd_div(nh, nl, wh, wl)
    if 2.2250738585072014e-308 <= yh <= 1e300:
        sh, sl = dd_log(yh, yl)
        return sh, sl, rho + DD_REL * (abs(sh) + 2.0)
    ah, al = dd_log(nh, nl)
    bh, bl = dd_log(wh, wl)
    sh, sl = dd_add(ah, al, -bh, -bl)
    return sh, sl, rho + DD_REL * (abs(ah) + abs(bh) + 3.0)


@njit(cache=True)
def _scaled(w: float, rho_w: float, v: float, s: float, err_s: float):
    """w·δ_b(s) with its error bound (w known to a relative rho_w); an exact base zero (s = EXACT) stays exact."""
    if s == EXACT:
        return 0.0, EXACT
    return w * v, (DD_REL + 1.5 * rho_w) * w * v + w * 2.0 * s * err_s


@njit(cache=True)
def base_with_error(mech: int, epsilon: float, theta: float):
    """T11 at q = 1, i.e. the base profile δ_θ(ε) (T8/T9) at a float argument, extended to ε < 0 by
    δ(−s) = 1 − e^{−s} + e^{−s}δ(s): (value, error slot) for finite ε."""
    if epsilon >= 0.0:
        v, s = base_at(mech, epsilon, 0.0, theta, 0.0)
        return v, (EXACT if s == EXACT else 0.0)
    v, _ = base_at(mech, -epsilon, 0.0, theta, 0.0)
    return -math.expm1(epsilon) + math.exp(epsilon) * v, 0.0


@njit(cache=True)
def _rounded(mech: int, v: float, err: float) -> float:
    if err == EXACT:
        return v
    return min(1.0, up(v + err, BUDGET_GAUSSIAN if mech == GAUSSIAN else BUDGET_LAPLACE))


@njit(cache=True)
def base_up(mech: int, epsilon: float, theta: float) -> float:
    """δ_θ(ε) rounded up: exactly ``delta_up(mech, REMOVE, ε, θ, 1.0)``, without compiling the T11 argument
    machinery (the with-replacement white-box kernels call it once per group size)."""
    if epsilon == np.inf:
        return 0.0
    if epsilon == -np.inf:
        return 1.0
    v, err = base_with_error(mech, epsilon, theta)
    return _rounded(mech, v, err)


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
        return base_with_error(mech, epsilon, theta)
    if epsilon > 709.0:
        # ε_q = ε − ln q + ln(1 − (1 − q)e^{−ε}); the last term is below 1e-307 in magnitude
        lqh, lql = dd_log(q, 0.0)
        sh, sl = dd_add(epsilon, math.log1p(-(1.0 - q) * math.exp(-epsilon)), -lqh, -lql)
        err_s = DD_REL * (abs(epsilon) + abs(lqh) + 1.0) + 1e-300
        v, s = base_at(mech, sh, sl, theta, err_s)
        return _scaled(q, 0.0, v, s, err_s)
    eh, el, rh, rl, err_r = expm1_shared(epsilon)
    return remove_core(mech, epsilon, theta, q, eh, el, rh, rl, err_r)


@njit(cache=True)
def expm1_shared(epsilon: float):
    """The part of T11 both directions share: E = e^ε − 1 (double-double) and, for |ε| < 0.35, R = E − ε with
    its error bound (``expm1_parts``); R is not used (0) for larger |ε|.  −745 ≤ ε ≤ 709."""
    if abs(epsilon) < 0.35:
        return expm1_parts(epsilon)
    eh, el = dd_expm1(epsilon)
    return eh, el, 0.0, 0.0, 0.0


@njit(cache=True)
def remove_core(mech: int, epsilon: float, theta: float, q: float, eh: float, el: float, rh: float, rl: float,
                err_r: float):
    """REMOVE for 0 < q < 1 and finite ε ≤ 709, given ``expm1_shared(ε)``: (δ unrounded, error bound)."""
    if abs(epsilon) < 0.35:
        # Z = q + E = (q + ε) + R, R = e^ε − 1 − ε: q + ε is exact (two_sum), so near the threshold ε ≈ −q
        # Z carries the error of R (≈ ε²/2) only, not that of E
        ah, al = two_sum(q, epsilon)
        zh, zl = dd_add(ah, al, rh, rl)
        err_z = err_r + DD_REL * (abs(ah) + abs(rh))
    else:
        zh, zl = dd_add(eh, el, q, 0.0)
        err_z = DD_REL * (2.0 * abs(eh) + q)
    if zh <= 4.0 * err_z:  # 1 − e^ε branch, or too close to its threshold to tell: −E + Z⁺ bounds both
        return -eh, max(zh, 0.0) + 2.0 * err_z + DD_REL * abs(eh)
    sh, sl, err_s = shifted_log(eh, el, DD_REL, zh, zl, err_z / (zh - err_z), q, 0.0, 0.0)  # ε_q
    if sh >= 0.0:
        v, s = base_at(mech, sh, sl, theta, err_s)
        return _scaled(q, 0.0, v, s, err_s)
    v, s = base_at(mech, -sh, -sl, theta, err_s)
    s = max(s, 0.0)
    # −E + Z·δ_b(−ε_q): both terms ≥ 0
    return -eh + zh * v, DD_REL * (abs(eh) + zh * v) + 1.5 * err_z * v + zh * 2.0 * s * err_s


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
    eh, el, rh, rl, err_r = expm1_shared(epsilon)
    return add_core(mech, epsilon, theta, q, eh, el, rh, rl, err_r)


@njit(cache=True)
def add_core(mech: int, epsilon: float, theta: float, q: float, eh: float, el: float, rh: float, rl: float,
             err_r: float):
    """ADD for 0 < q < 1 and finite ε ≤ 709, given ``expm1_shared(ε)``: (δ unrounded, error bound)."""
    oh, ol = two_sum(1.0, -q)  # 1 − q exactly
    if abs(epsilon) < 0.35:
        # c = q − (1 − q)E = (q − ε) + qε − (1 − q)R with q − ε and qε exact (two_sum, two_product): next to
        # the threshold c → 0 the error is DD_REL times |q − ε| + qε + R (≈ ε² there), not times q
        dh, dl = two_sum(q, -epsilon)
        mh, ml = two_product(q, epsilon)
        ph, pl = dd_mul(oh, ol, rh, rl)
        ch, cl = dd_add(dh, dl, mh, ml)
        ch, cl = dd_add(ch, cl, -ph, -pl)
        err_c = err_r + DD_REL * (abs(dh) + abs(mh) + abs(ph))
    else:
        if eh * (1.0 - q) > 2.0:  # c < −1 with certainty (and the products below stay far from overflow)
            return 0.0, EXACT
        ph, pl = dd_mul(oh, ol, eh, el)
        ch, cl = dd_add(q, 0.0, -ph, -pl)  # c = q − (1 − q)E
        err_c = DD_REL * (q + 2.0 * abs(ph))
    if ch <= 4.0 * err_c:  # c ≤ 0 (δ = 0), or too close to tell: 0 ≤ δ ≤ c⁺ ≤ ch + err_c
        if ch < -err_c:
            return 0.0, EXACT
        return max(ch, 0.0), 2.0 * err_c
    rho_c = err_c / (ch - err_c)
    # N = q e^ε = c + E, formed without cancellation: q(1 + E) for ε > −0.35, q·e^ε (dd_exp) below
    if epsilon > -0.35:
        nh, nl = dd_add(eh, el, 1.0, 0.0)
    else:
        nh, nl = dd_exp(epsilon)
    nh, nl = dd_mul_f(nh, nl, q)
    if epsilon <= -0.35 and nh < 1e-290:  # q e^ε (near) underflow: δ = −E + q e^ε·δ_b(−t) ∈ [−E, −E + q e^ε], −E ≥ 0.29
        return -eh, DD_REL * abs(eh) + 2.0 * nh + 1e-300
    th, tl, err_t = shifted_log(eh, el, DD_REL, nh, nl, 2.0 * DD_REL, ch, cl, rho_c)  # t = ln(q e^ε/c)
    if th >= 0.0:
        v, s = base_at(mech, th, tl, theta, err_t)
        return _scaled(ch, rho_c, v, s, err_t)
    v, s = base_at(mech, -th, -tl, theta, err_t)
    s = max(s, 0.0)
    # −E + q e^ε δ_b(−t): both terms ≥ 0
    return -eh + nh * v, DD_REL * (abs(eh) + 2.0 * nh * v) + nh * 2.0 * s * err_t


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


@njit(cache=True)
def delta_up_both(mech: int, epsilon: float, theta: float, q: float) -> float:
    """max(REMOVE, ADD) rounded up (the add/remove profile), with E = e^ε − 1 (and R) computed once."""
    if not (0.0 < q < 1.0 and -745.0 <= epsilon <= 709.0):
        return max(delta_up(mech, REMOVE, epsilon, theta, q), delta_up(mech, ADD, epsilon, theta, q))
    eh, el, rh, rl, err_r = expm1_shared(epsilon)
    v, err = remove_core(mech, epsilon, theta, q, eh, el, rh, rl, err_r)
    d_remove = _rounded(mech, v, err)
    if epsilon >= 0.0 and d_remove == 0.0:  # REMOVE ≥ ADD ≥ 0 for ε ≥ 0 (SPEC T11)
        return 0.0
    v, err = add_core(mech, epsilon, theta, q, eh, el, rh, rl, err_r)
    return max(d_remove, _rounded(mech, v, err))


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
#
# All eighteen run through ONE compiled entry point, ``t11(mode, ε, δ, θ, q)`` (issue 20, compile cost).  numba
# links every callee's LLVM module into its caller's and LLVM re-optimises and re-generates machine code for the
# whole linked tree once per separately compiled dispatcher: as eighteen ``@njit`` wrappers (and one array loop
# per wrapper) the Gaussian + Laplace tree was optimised ≈ 30 times in a process using every kernel on both
# routes (≈ 0.3–0.5 s of CPU each).  With the mode an int64 argument the tree is optimised once for the scalar
# route and once for the array loop (``numeric.loops``' moded templates), whatever the number of kernels used.
# The mode only selects which of the unchanged functions below runs; the float operations, their order and the
# callees' compiled code are those of the former wrappers, so every result has the same bits
# (tests/bounds/test_subsampled_profiles.py compares the two routes with the functions called directly).
# ----------------------------------------------------------------------------------------------------

BOTH, UP_REMOVE, UP_ADD, RAW_REMOVE, RAW_ADD, EPS_REMOVE, EPS_ADD, EPS_RAW_REMOVE, EPS_RAW_ADD = range(9)
KINDS = 9  # mode = KINDS·mechanism + kind


@njit(cache=True, error_model="numpy")
def t11(mode: int, epsilon: float, delta: float, theta: float, rate: float) -> float:
    """The T11 kernel ``mode`` (``KERNEL_MODES``) at one point: mechanism = mode // 9 (``GAUSSIAN``, ``LAPLACE``),
    kind = mode % 9 (``BOTH`` … ``EPS_RAW_ADD``).

    Each branch calls its function with the mechanism and direction as constants (int64 selectors, so each
    callee is the one specialisation every other caller uses): LLVM can then fold them into the inlined callee as
    it did in the former one-line wrappers.  Selected at run time instead, the Gaussian REMOVE array loop took
    ≈ 12 % longer per point (benchmarks/bench_compile_t11.py); this costs ≈ 0.25 s more to compile, once."""
    if mode < KINDS:
        return _t11_mechanism(GAUSSIAN, mode, epsilon, delta, theta, rate)
    return _t11_mechanism(LAPLACE, mode - KINDS, epsilon, delta, theta, rate)


@njit(cache=True, inline="always")
def _t11_mechanism(mech: int, kind: int, epsilon: float, delta: float, theta: float, rate: float) -> float:
    """``t11`` for one mechanism (inlined at numba's IR level into each of ``t11``'s two branches, where ``mech``
    is a constant)."""
    if kind == BOTH:
        return delta_up_both(mech, epsilon, theta, rate)
    if kind == UP_REMOVE:
        return delta_up(mech, REMOVE, epsilon, theta, rate)
    if kind == UP_ADD:
        return delta_up(mech, ADD, epsilon, theta, rate)
    if kind == RAW_REMOVE:
        return delta_raw_kernel(mech, REMOVE, epsilon, theta, rate)
    if kind == RAW_ADD:
        return delta_raw_kernel(mech, ADD, epsilon, theta, rate)
    if kind == EPS_REMOVE:
        return epsilon_verified(mech, REMOVE, delta, theta, rate)
    if kind == EPS_ADD:
        return epsilon_verified(mech, ADD, delta, theta, rate)
    if delta >= 1.0:  # the unrounded searches: ε = −inf at δ ≥ 1 (as ``epsilon_verified``)
        return -np.inf
    if kind == EPS_RAW_REMOVE:
        return epsilon_search(mech, REMOVE, delta, theta, rate)
    return epsilon_search(mech, ADD, delta, theta, rate)


_NAMES = ("both", "remove", "add", "remove_raw", "add_raw", "remove_epsilon", "add_epsilon", "remove_epsilon_raw",
          "add_epsilon_raw")
# the record's kernel names → their mode of ``t11``: ``numeric.scalar_kernel``/``numeric.kernel`` serve these
# specs by ``t11`` with the mode bound (one compiled function and one array loop for all of them)
KERNEL_MODES = {f"{mechanism}_{name}": KINDS * m + kind
                for m, mechanism in enumerate(("gaussian", "laplace")) for kind, name in enumerate(_NAMES)}
SHARED_KERNEL = "t11"


def gaussian_both(epsilon, delta, theta, rate):
    return t11(0, epsilon, delta, theta, rate)


def gaussian_remove(epsilon, delta, theta, rate):
    return t11(1, epsilon, delta, theta, rate)


def gaussian_add(epsilon, delta, theta, rate):
    return t11(2, epsilon, delta, theta, rate)


def gaussian_remove_raw(epsilon, delta, theta, rate):
    return t11(3, epsilon, delta, theta, rate)


def gaussian_add_raw(epsilon, delta, theta, rate):
    return t11(4, epsilon, delta, theta, rate)


def gaussian_remove_epsilon(epsilon, delta, theta, rate):
    return t11(5, epsilon, delta, theta, rate)


def gaussian_add_epsilon(epsilon, delta, theta, rate):
    return t11(6, epsilon, delta, theta, rate)


def gaussian_remove_epsilon_raw(epsilon, delta, theta, rate):
    return t11(7, epsilon, delta, theta, rate)


def gaussian_add_epsilon_raw(epsilon, delta, theta, rate):
    return t11(8, epsilon, delta, theta, rate)


def laplace_both(epsilon, delta, theta, rate):
    return t11(9, epsilon, delta, theta, rate)


def laplace_remove(epsilon, delta, theta, rate):
    return t11(10, epsilon, delta, theta, rate)


def laplace_add(epsilon, delta, theta, rate):
    return t11(11, epsilon, delta, theta, rate)


def laplace_remove_raw(epsilon, delta, theta, rate):
    return t11(12, epsilon, delta, theta, rate)


def laplace_add_raw(epsilon, delta, theta, rate):
    return t11(13, epsilon, delta, theta, rate)


def laplace_remove_epsilon(epsilon, delta, theta, rate):
    return t11(14, epsilon, delta, theta, rate)


def laplace_add_epsilon(epsilon, delta, theta, rate):
    return t11(15, epsilon, delta, theta, rate)


def laplace_remove_epsilon_raw(epsilon, delta, theta, rate):
    return t11(16, epsilon, delta, theta, rate)


def laplace_add_epsilon_raw(epsilon, delta, theta, rate):
    return t11(17, epsilon, delta, theta, rate)


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
