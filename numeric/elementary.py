"""expm1 and log1p as straight-line floating-point code, with derived error bounds (issue 14).

Why: numba compiles ``math.expm1``/``math.log1p`` to calls of glibc's scalar functions (≈ 10–15 ns each on this
project's AVX2 machine), and a call in a loop body stops LLVM's loop vectoriser.  The two functions here use
only +, −, ×, ÷, comparisons (selects) and integer/bit operations, so a loop over them vectorises (4 lanes
with AVX2); compiled with ``error_model="numpy"`` (as ``numeric.kernel``'s ufuncs are) a division raises
nothing and the loop body has no branch at all.

Bit-identical in plain Python: every operation is an IEEE-754 binary64 operation with round-to-nearest-even
and no fused multiply-add (numba does not contract a·b + c unless fastmath is on), the nearest integer comes
from the 1.5·2⁵² shifter, and the two bit casts have a ``struct`` equivalent (``as_bits``/``as_double``; the
compiled route gets an LLVM ``bitcast`` through ``@overload``).  So ``expm1.py_func(x) == expm1(x)`` bit for
bit (tests/numeric/test_elementary.py), which the numba-free scalar route needs.

Error bounds (u = 2⁻⁵³; proofs in each docstring; relative error e ⇒ at most e/u ulps, since an ulp of a
double x is ≥ u·|x|):

- ``expm1``: |computed − (e^x − 1)| ≤ 1.37·u·|e^x − 1| for −45 ≤ x ≤ 709.78 (EXPM1_BOUND_U).
- ``log1p``: |computed − ln(1 + y)| ≤ 1.40·u·|ln(1 + y)| for −1 < y < ∞ (LOG1P_BOUND_U).

Both are checked against 50-digit mpmath on random and edge arguments (tests/numeric/test_elementary.py,
asserting the measured error ≤ the derived bound).  For comparison, glibc documents no bound for these two;
measured, it is below 1 ulp.
"""
from __future__ import annotations

import struct

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

U = 2.0 ** -53
EXPM1_BOUND_U = 1.37
LOG1P_BOUND_U = 1.40

# Cody–Waite split of ln 2 (the same as numeric.special): LN2_HI has 21 trailing zero bits, so k·LN2_HI is exact
# for |k| < 2²⁰; |ln 2 − LN2_HI − LN2_LO| < 1.17e-26.
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.4426950408889634
SQRT2 = 1.4142135623730951
SHIFTER = 6755399441055744.0  # 1.5·2⁵²: (t + SHIFTER) − SHIFTER is t rounded to the nearest integer, |t| < 2⁵¹
SPLIT = 50331648.0  # 1.5·2²⁵: (v + SPLIT) − SPLIT is v rounded to a multiple of 2⁻²⁷ (|v| < 2²⁴)
TINY = 2.0 ** -27
INF = float("inf")
NAN = float("nan")
SHIFTER_BITS = 0x4338000000000000  # as_bits(SHIFTER)
TWO52 = 4503599627370496.0
TWO52_BITS = 0x4330000000000000  # as_bits(2⁵²)
MANTISSA_MASK = 0x000FFFFFFFFFFFFF
ONE_BITS = 0x3FF0000000000000

# Taylor coefficients 1/j!, j = 3 … 14, rounded to nearest (relative error ≤ u each)
E3, E4, E5, E6 = 0.16666666666666666, 0.041666666666666664, 0.008333333333333333, 0.001388888888888889
E7, E8, E9, E10 = 0.0001984126984126984, 2.48015873015873e-05, 2.7557319223985893e-06, 2.755731922398589e-07
E11, E12, E13, E14 = 2.505210838544172e-08, 2.08767569878681e-09, 1.6059043836821613e-10, 1.1470745597729725e-11
# 2/(2j + 1), j = 1 … 11 (2·atanh(s) = 2s + s·R(s²), R(z) = Σ 2zʲ/(2j + 1))
P1, P2, P3, P4 = 0.6666666666666666, 0.4, 0.2857142857142857, 0.2222222222222222
P5, P6, P7, P8 = 0.18181818181818182, 0.15384615384615385, 0.13333333333333333, 0.11764705882352941
P9, P10, P11 = 0.10526315789473684, 0.09523809523809523, 0.08695652173913043


def as_double(bits: int) -> float:
    """The double whose IEEE-754 bit pattern is the int64 ``bits`` (compiled: one LLVM bitcast)."""
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def as_bits(x: float) -> int:
    """The IEEE-754 bit pattern of the double ``x`` as an int64 (compiled: one LLVM bitcast)."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


@intrinsic
def _bitcast_to_double(typingctx, bits):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def _bitcast_to_int(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@overload(as_double, inline="always")
def _as_double_overload(bits):
    return lambda bits: _bitcast_to_double(bits)


@overload(as_bits, inline="always")
def _as_bits_overload(x):
    return lambda x: _bitcast_to_int(x)


@njit(cache=True, error_model="numpy", inline="always")
def _exp_reduce(xc: float):
    """For |xc| ≤ 1500: (k as the bits offset, k as a float, r, h1, corr) with e^xc = 2^k·(1 + r + h1 + corr)
    up to the errors of ``expm1``'s proof; 1 + r + h1 are exact doubles, corr is small."""
    t = xc * INV_LN2 + SHIFTER
    kf = t - SHIFTER
    # k from the bits of t = 1.5·2⁵² + k (a spacing of 1 there): an integer subtraction, where a float → int64
    # conversion would not vectorise without AVX-512
    k = as_bits(t) - SHIFTER_BITS
    r_hi = xc - kf * LN2_HI
    r_lo = kf * LN2_LO
    r = r_hi - r_lo
    bb = r - r_hi
    rr = (r_hi - (r - bb)) + (-r_lo - bb)
    r1 = (r + SPLIT) - SPLIT
    r2 = r - r1
    h1 = 0.5 * (r1 * r1)
    h2 = 0.5 * (r2 * (r + r1))
    q = E13 + r * E14
    q = E12 + r * q
    q = E11 + r * q
    q = E10 + r * q
    q = E9 + r * q
    q = E8 + r * q
    q = E7 + r * q
    q = E6 + r * q
    q = E5 + r * q
    q = E4 + r * q
    q = E3 + r * q
    d = ((r * r) * r) * q
    corr = (h2 + d) + rr * (1.0 + r)
    return k, kf, r, h1, corr


@njit(cache=True, error_model="numpy", inline="always")
def _exp_combine(a_hi: float, a_lo: float, scale: float, r: float, h1: float, corr: float) -> float:
    """(a_hi + a_lo) + scale·(r + h1 + corr) with one final rounding: a_hi, scale·r, scale·h1 exact, summed
    with two TwoSums; their errors, a_lo and scale·corr added before the last addition."""
    b = scale * r
    s1 = a_hi + b
    bb = s1 - a_hi
    e1 = (a_hi - (s1 - bb)) + (b - bb)
    c = scale * h1
    s2 = s1 + c
    bb = s2 - s1
    e2 = (s1 - (s2 - bb)) + (c - bb)
    return s2 + (((e1 + e2) + a_lo) + scale * corr)


@njit(cache=True, error_model="numpy", inline="always")
def expm1(x: float) -> float:
    """e^x − 1 with relative error ≤ 1.37u (u = 2⁻⁵³) for −45 ≤ x ≤ 709.78; −1 below, inf above, NaN for NaN.

    Algorithm.  x is clamped to [−45, 710] (e^{−45} < 2⁻⁶⁴, so e^x − 1 rounds to −1 below; e^{710} overflows).
    k = rint(x/ln 2) (|k| ≤ 1025), r_hi = x − k·LN2_HI is exact (k·LN2_HI has ≤ 43 bits and x/(k·LN2_HI) ∈
    [½, 2], Sterbenz), r + rr = r_hi − k·LN2_LO exactly (TwoSum), |r| ≤ 0.34658.  Then

        e^x − 1 = 2^k·(1 + r + r²/2 + r³·Q(r) + e^r(e^{rr} − 1)) − 1,   Q(r) = Σ_{j≥3} r^{j−3}/j!,

    with r²/2 = h1 + h2, h1 = r1²/2 exact (r1 = r rounded to a multiple of 2⁻²⁷: ≤ 26 bits), h2 = r2(r + r1)/2,
    r2 = r − r1 exact.  The terms 2^k − 1 (split as hi + lo when |k| > 53), 2^k·r and 2^k·h1 are exact and
    summed with two TwoSums; the rest, D = 2^k·(h2 + d + rr(1 + r)), d = r³·Q̃(r), is small and added with
    the TwoSum errors before the one final rounding.  k = 1024 (x > 709.43) is scaled by 2^1023 and the result
    doubled (exact unless it overflows to inf).

    Error bound (first order in u; the second-order terms are < 0.005u).  Relative to |E|, E = e^x − 1:
    - Truncation: Q̃ stops at 1/14!; the Lagrange remainder is ≤ |r|¹²e^{|r|}/15!·|r|³ ≤ 2.8e-19·1.42·|r|,
      and 2^k|r|/|E| ≤ 1.68 (k = 1, r = −ln2/2), so ≤ 6.7e-19 < 0.007u.
    - Horner for Q̃ (11 steps, ratio |r·q_{j+1}/q_j| ≤ 0.35/4·1.06 ≤ 0.093, coefficients ≤ u): relative
      error ε_j ≤ u + 1.103u + 0.103(u + ε_{j+1}) ⇒ ε_q ≤ 2.46u; d = ((r·r)·r)·q: ≤ 5.46u relative.
    - corr = (h2 + d) + rr·(1 + r): two roundings, ≤ 2u|d| (h2, rr are < 2⁻²⁸|r| and u|r|); approximating
      e^r(e^{rr} − 1) by rr(1 + r) errs by ≤ |rr|·|e^r − 1 − r| ≤ 0.068u|r|.
    - inner sum ((e1 + e2) + lo) + D: three roundings, ≤ 3u|D| + O(u²)|E|.
    - final rounding ≤ u|E|.
    - reduction: |k|·(|ln 2 − LN2_HI − LN2_LO| + u·LN2_LO) ≤ 3.5e-23 in the exponent: ≤ 1e-5u.
    With ρ_d = max 2^k|d|/|E| = 0.0308 (at k = 1, r = −ln2/2; k = 0: 0.0218; |k| ≥ 2 smaller, see
    tests/numeric/test_elementary.py, which recomputes it with mpmath) and 2^k·0.068u|r|/|E| ≤ 0.042u
    (|r|/|E|·2^k·|e^r − 1 − r| ≤ 1.68·0.025 at the same point):

        |error| ≤ u + (5.46 + 2 + 3)u·0.0308 + 0.042u + 0.007u + 0.005u ≤ 1.37u.

    Subnormal x: k = 0, r = x, every correction underflows to 0 and the result is x (exact rounding of
    x + x²/2).  NaN propagates.  Monotone non-decreasing on every sample the tests try (not proven).
    """
    xc = x if x > -45.0 else -45.0
    xc = xc if xc < 710.0 else 710.0
    k, kf, r, h1, corr = _exp_reduce(xc)
    big = kf > 1023.0
    k1 = 1023 if big else k
    scale = as_double((k1 + 1023) << 52)  # 2^k1, k1 ∈ [−65, 1023]
    inv_f = 0.5 if big else 1.0
    small = -53.0 <= kf <= 53.0
    a_hi = (scale - inv_f) if small else (scale if kf > 0.0 else -inv_f)
    a_lo = 0.0 if small else (-inv_f if kf > 0.0 else scale)
    result = _exp_combine(a_hi, a_lo, scale, r, h1, corr)
    result = result * 2.0 if big else result
    return result if (x == x and x != 0.0) else x  # NaN, and −0.0 keeps its sign


@njit(cache=True, error_model="numpy", inline="always")
def _log1p_core(yc: float, extra: float) -> float:
    """extra·ln 2 + ln(1 + yc) for −1 < yc < inf, |yc| ≥ 2⁻²⁷ or extra = 0 (``log1p``'s proof; extra is an
    integer-valued float, |extra| < 2²⁰, added to the exponent e so e·LN2_HI stays exact)."""
    s_ = 1.0 + yc
    bb = s_ - 1.0
    t_ = (1.0 - (s_ - bb)) + (yc - bb)
    bits = as_bits(s_)
    # the biased exponent as a double, 2⁵² + E read as bits minus 2⁵² (no int64 → double conversion, which
    # would not vectorise without AVX-512); s_ > 0 here
    biased = as_double((bits >> 52) | TWO52_BITS) - TWO52
    m = as_double((bits & MANTISSA_MASK) | ONE_BITS)
    high = m > SQRT2
    m = m * 0.5 if high else m
    ef = biased - (1022.0 if high else 1023.0) + extra
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = P10 + z * P11
    w = P9 + z * w
    w = P8 + z * w
    w = P7 + z * w
    w = P6 + z * w
    w = P5 + z * w
    w = P4 + z * w
    w = P3 + z * w
    w = P2 + z * w
    w = P1 + z * w
    rz = z * w
    f1 = (f + SPLIT) - SPLIT
    f2 = f - f1
    hh1 = 0.5 * (f1 * f1)
    hh2 = 0.5 * (f2 * (f + f1))
    v = s * ((hh1 + hh2) + rz)
    a1 = f - hh1
    bb = a1 - f
    b1 = (f - (a1 - bb)) + (-hh1 - bb)
    ehi = ef * LN2_HI
    a2 = ehi + a1
    bb = a2 - ehi
    b2 = (ehi - (a2 - bb)) + (a1 - bb)
    tail = ((((ef * LN2_LO - hh2) + t_ / s_) + b1) + b2) + v
    return a2 + tail


@njit(cache=True, error_model="numpy", inline="always")
def log1p(y: float) -> float:
    """ln(1 + y) with relative error ≤ 1.40u (u = 2⁻⁵³) for −1 < y < ∞; −inf at −1, NaN below −1 or for NaN,
    inf at inf.

    Algorithm.  |y| < 2⁻²⁷: y − (y/2)·y (truncation ≤ y²/3 < u/6, two roundings: ≤ 1.17u).  Otherwise
    S + T = 1 + y exactly (TwoSum; S ≥ 2⁻⁵³ is normal), S = 2^e·m with m ∈ [1/√2, √2) read from S's bits,
    f = m − 1 exact (Sterbenz), and

        ln(1 + y) = e·ln 2 + log1p(f) + ln(1 + T/S),   |T/S| ≤ u,
        log1p(f) = f − f²/2 + s·(f²/2 + R(z)),   s = f/(2 + f),  z = s²,  R(z) = Σ_{j≥1} 2zʲ/(2j + 1)

    (the identity f − f²/2 + s·f²/2 = 2s and 2·atanh(s) = 2s + s·R(z)).  f²/2 = H1 + H2 with H1 = f1²/2 exact
    (f1 = f rounded to a multiple of 2⁻²⁷) and H2 = f2(f + f1)/2, f2 = f − f1 exact.  e·LN2_HI, f − H1 and their
    sum are carried exactly with TwoSums; the small terms −H2, e·LN2_LO, T/S and the TwoSum errors are added
    first, V = s·((H1 + H2) + R) last, then the one final rounding.

    Error bound (first order; relative to |L|, L = ln(1 + y); |s| ≤ 0.17158, z ≤ 0.029437):
    - R stops at z¹¹: remainder ≤ |s|·2z¹²/25/(1 − z) < 1e-20 relative.  Horner for R/z (ratio ≤ 0.018): ≤ 2.1u;
      s: 2 + f and ÷: ≤ 2.01u; z: ≤ 5.03u; R = z·(R/z): ≤ 8.3u.
    - V: W = (H1 + H2) + R with two roundings, V = s·W: |V|·3.01u + |s|·(u·f²/2 + 8.3u|R| + u|W|).  At
      f = √2 − 1 (s = 0.171573, f²/2 = 0.085786, R = 0.019979, W = 0.10577, V = 0.018147) this is 0.1159u
      absolute, at f = 1/√2 − 1 0.0791u; the smallest |L| with |f| that large is ln √2 = 0.34657 (e = 0 or
      e = −1, m = √2), so ≤ 0.335u relative; for smaller |f| the ratio is smaller (V/L = O(f²)).
    - tail: the small terms (≤ 2.1e-7 + 3u) sum with rounding errors ≤ 1e-7u; adding V: ≤ u·0.0182/0.3466
      = 0.053u; ln(1 + T/S) − T/S and the rounding of T/S ≤ 1.5u² absolute, |L| ≥ 2⁻²⁸ here: < 1e-7u; the
      ln 2 split |e|·1.17e-26 with |L| ≥ 0.3466 when e ≠ 0: < 1e-6u.
    - final rounding: u.

        |error| ≤ u + 0.335u + 0.053u + 0.01u ≤ 1.40u.

    Monotone non-decreasing on every sample the tests try (not proven).
    """
    yc = y if -1.0 < y < INF else 0.0  # the special values are selected at the end (no ÷0 in plain Python)
    result = _log1p_core(yc, 0.0)
    tiny = -TINY < y < TINY
    result = (yc - (0.5 * yc) * yc) if tiny else result
    result = result if y < INF else INF
    result = result if y > -1.0 else (-INF if y == -1.0 else NAN)
    return result if y == y else y


@njit(cache=True, error_model="numpy", inline="always")
def amplify(eps: float, eta: float) -> float:
    """A_η(ε) = ln(1 + η(e^ε − 1)) for 0 ≤ ε ≤ ∞ and 0 ≤ η ≤ 1 (SPEC T1's map), relative error ≤ 3.78u.

    One exponential reduction and one logarithm for every ε, so that a loop over it has no branch (the
    libm route needs ``numeric.special.amplify_large``, three more libm calls, above ε = 709).

    - ε ≤ 709: y = η·expm1(ε) (``expm1``'s code), A = log1p(y) (``log1p``'s code).  Relative error of y
      ≤ 1.37u + u; ln(1 + y) has condition number y/((1 + y)ln(1 + y)) ≤ 1, so an error δ in y costs at
      most δ relative in A; with log1p's 1.40u: ≤ 3.77u + O(u²) ≤ 3.78u.
    - 709 < ε ≤ 1400: e^ε = 2^k·P, P = 1 + r + h1 + corr rounded once (``_exp_combine`` with a = 1: error
      ≤ u + 10.5u·|d|/P + 0.068u|r|/P ≤ u + 0.113u + 0.033u = 1.15u, |d| ≤ 0.0076, P ≥ 0.707); η = 2^j·ηₙ
      exactly (ηₙ ∈ [1, 2), subnormal η prescaled by 2⁶⁴), y = (ηₙ·P)·2^{k+j} (one more rounding; the
      scaling is exact: k + j ≥ 1023 − 1074), which is η·e^ε, and η(e^ε − 1) = η·e^ε·(1 − e^{−ε}) differs
      from it by a relative e^{−709}.  Where k + j > 1000 the factor 2^{k+j−1000} is passed to the logarithm
      as an exponent (``extra``), so y stays finite; ln(1 + y) − ln y ≤ 1/y ≤ 2^{−999} there.  Relative
      error of y ≤ 2.15u, then log1p's 1.40u: ≤ 3.55u.  With extra > 0, A ≥ 693 and the error of y and of
      the fractional part of the logarithm are divided by A: ≤ 1.02u.
    - ε > 1400: A(ε) = A(1400) + (ε − 1400) up to a relative e^{−655} (A = ε + ln η + ln(1 + (1 − η)e^{−ε}/η),
      η ≥ e^{−745}).  A(1400) ≥ 655 has error ≤ 1.02u as above (or ≤ u + 2.15u/655 without extra);
      ε − 1400 is exact up to ε = 2800 (Sterbenz), else one rounding; the sum one more: ≤ 3.02u.
    ε = ∞ gives ∞; η = 0 or ε = 0 gives 0 exactly.
    """
    ec = eps if eps < 1400.0 else 1400.0
    k, kf, r, h1, corr = _exp_reduce(ec)
    big = eps > 709.0
    km = 0 if big else k  # k ∈ [0, 1023] where ε ≤ 709
    kmf = 0.0 if big else kf
    scale = 1.0 if big else as_double((km + 1023) << 52)
    a_hi = 1.0 if big else ((scale - 1.0) if kmf <= 53.0 else scale)  # 2^k − 1 = a_hi + a_lo exactly
    a_lo = 0.0 if (big or kmf <= 53.0) else -1.0
    q = _exp_combine(a_hi, a_lo, scale, r, h1, corr)  # e^ε − 1 (ε ≤ 709) or P = e^ε·2^{−k}
    sub = eta < 2.0 ** -1000
    es = eta * 1.8446744073709552e19 if sub else eta  # ·2⁶⁴
    ebits = as_bits(es)
    eta_n = as_double((ebits & MANTISSA_MASK) | ONE_BITS)
    kj = k + ((ebits >> 52) - (1087 if sub else 1023))
    kjf = kf + (as_double((ebits >> 52) | TWO52_BITS) - TWO52 - (1087.0 if sub else 1023.0))
    over = kjf > 1000.0
    y_big = (eta_n * q) * as_double(((1000 if over else kj) + 1023) << 52)
    y = y_big if big else eta * q
    y = 0.0 if eta == 0.0 else y
    extra = (kjf - 1000.0) if (big and over) else 0.0
    result = _log1p_core(y, extra)
    result = (y - (0.5 * y) * y) if (y < TINY and extra == 0.0) else result
    result = result + (eps - ec)
    return result if eps < INF else eps
