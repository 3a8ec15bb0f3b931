"""expm1, log1p and the amplification map A_η(ε) as straight-line floating-point code with derived error bounds
(issue 14).

Why: numba compiles ``math.expm1``/``math.log1p`` to calls of glibc's scalar functions (≈ 6–10 ns each on this
project's AVX2 machine), and a call in a loop body stops LLVM's loop vectoriser.  The functions here use only +,
−, ×, ÷, comparisons (selects) and integer/bit operations, so a loop over them vectorises (4 lanes with AVX2)
provided (1) the kernel is inlined into the loop (numba ``inline="always"``: LLVM does not inline a separately
compiled, cached kernel), (2) it is compiled with ``error_model="numpy"`` (no ZeroDivisionError branch), and
(3) no branch of it calls libm.  Called once per element through a function call they run scalar and are
slower than glibc (benchmarks/README.md, bench_elementary.py).  Used by the generated T1, T2, T5, T6 and T17 ε
kernels (``numeric.generate.ELEMENTARY_KERNELS``); every other kernel keeps libm.

Bit-identical in plain Python and on every CPU: every operation is an IEEE-754 binary64 operation with
round-to-nearest-even — +, −, ×, ÷ and the fused multiply–add fusedMultiplyAdd where the code calls ``fma``
(``numeric.special.fma``, LLVM's ``llvm.fma.f64``: the FMA instruction where the CPU has one, else a call of the C
library's ``fma``, which a conforming libm — glibc, musl, macOS, current UCRT — rounds correctly; the plain-Python
tier computes it exactly with integers, ``numeric.pure._fma``); numba never contracts a written a·b + c into an
FMA (fastmath is off), so an FMA is exactly where ``fma`` is written — the nearest integer comes
from the 1.5·2⁵² shifter, and the two bit casts have a ``struct`` equivalent (``as_bits``/``as_double``; the
compiled route gets an LLVM ``bitcast`` through ``@overload``).  So ``expm1.py_func(x) == expm1(x)`` bit for
bit (tests/numeric/test_elementary.py), which the numba-free scalar route needs.

Error bounds (u = 2⁻⁵³; proofs in each docstring; relative error e ⇒ at most e/u ulps, since an ulp of a
double x is ≥ u·|x|):

- ``expm1``: |computed − (e^x − 1)| ≤ 1.38·u·|e^x − 1| for −45 ≤ x ≤ 709.78 (EXPM1_BOUND_U).
- ``log1p``: |computed − ln(1 + y)| ≤ 1.34·u·|ln(1 + y)| for −1 < y < ∞ (LOG1P_BOUND_U).
- ``amplify``: A_η(ε) = ln(1 + η(e^ε − 1)) fused, with e^ε − 1 and η·(e^ε − 1) carried in double-double:
  |error| ≤ 1.76u·A + 2⁻¹⁰⁷⁴ (ε ≤ 1400), ≤ 2.76u·A + 2⁻¹⁰⁷⁴ (ε > 1400), i.e. ≤ 2.76 ulps (AMPLIFY_BOUND_U).
- ``amplify_quotient``: the same for η = num/den, the mantissas' quotient rounded once: one u more, ≤ 3.76 ulps.

Issue 20 (AVX-512: the loops were already 8 lanes wide, the work was the limit) shortened the dependency chains
and the additions of ``amplify``/``amplify_quotient`` (and of ``group_delta``'s reductions): Estrin's scheme for
both polynomials, Fast2Sum wherever the order of the summands is proven, and the exact squares and the product
ηₙ·σ_hi by one FMA where the CPU has one (``_exact_product``: Dekker's product elsewhere, the same exact result,
so the same bits on every CPU).  The bounds moved from 1.80/1.40 to 1.89/1.43; the budgets did not.

A second round for issue 20 uses the FMA generally in ``amplify``'s chain (and so in ``amplify_quotient``,
``group_delta``, ``log1p`` and ``log``): both polynomials' steps, the reduction x − k·ln 2 and its error term,
d·q + h2 and the correction, ηₙ·σ_lo + e, the logarithm's V = s·W added to its tail, and its e·ln 2 terms.  Each
FMA rounds once where a product and a sum rounded twice, so every bound went down (σ 0.451u → 0.417u, log1p
1.43u → 1.34u, amplify 1.89u → 1.76u), and the T1 loop shrank from 188 to 166 instructions (AVX-512).  A CPU
without an FMA instruction computes the same bits through libm's ``fma``, only slower
(tests/numeric/test_vector_width.py compiles for such a CPU and checks it).

All are checked against 50-digit mpmath on random and edge arguments (tests/numeric/test_elementary.py,
asserting the measured error ≤ the derived bound).  For comparison, glibc documents no bound for these two;
measured, it is below 1 ulp.
"""
from __future__ import annotations

import struct

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from numeric.jit import njit

from .special import HAS_FMA, fma, select

U = 2.0 ** -53
EXPM1_BOUND_U = 1.38
LOG1P_BOUND_U = 1.34
AMPLIFY_BOUND_U = 1.76  # ε ≤ 1400 (plus 2⁻¹⁰⁷⁴ absolute); 2.76 above

# Cody–Waite split of ln 2 (the same as numeric.special): LN2_HI has 21 trailing zero bits, so k·LN2_HI is exact
# for |k| < 2²⁰; |ln 2 − LN2_HI − LN2_LO| < 1.17e-26.
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.4426950408889634
SQRT2 = 1.4142135623730951
SHIFTER = 6755399441055744.0  # 1.5·2⁵²: (t + SHIFTER) − SHIFTER is t rounded to the nearest integer, |t| < 2⁵¹
SPLITTER = 134217729.0  # 2²⁷ + 1 (Veltkamp)
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
# 2/(2j + 1), j = 1 … 10 (2·atanh(s) = 2s + s·R(s²), R(z) = Σ 2zʲ/(2j + 1))
P1, P2, P3, P4 = 0.6666666666666666, 0.4, 0.2857142857142857, 0.2222222222222222
P5, P6, P7, P8 = 0.18181818181818182, 0.15384615384615385, 0.13333333333333333, 0.11764705882352941
P9, P10 = 0.10526315789473684, 0.09523809523809523


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
def _exact_product(a: float, b: float):
    """(p, e) with p = fl(a·b) and a·b = p + e exactly, for finite a, b with |a|, |b| < 4 and ulp(a)·ulp(b) ≥
    2⁻¹⁰⁷⁴ (a or b zero also works): then a·b, Dekker's partial products and the error term are multiples of
    ulp(a)·ulp(b), so nothing underflows and e (≤ 53 bits) is representable.  The callers: f² (ulp(f) ≥ 2⁻⁵³),
    r² for |r| ≥ 2⁻⁴⁰⁰ (ulp ≥ 2⁻⁴⁵²; below, the caller discards e), ηₙ·σ_hi with σ_hi ≥ 2⁻⁸⁰⁰ (2⁻⁵²·2⁻⁸⁵²).
    One FMA where ``HAS_FMA`` (fma(a, b, −p) is then exact: its exact value is representable), else Dekker's
    product (exact under the same conditions), so both give the same (p, e), and so does the plain-Python route
    (its ``fma`` is exact).  ``two_product`` without its guard for an infinite p (never the case here)."""
    p = a * b
    if HAS_FMA:
        e = fma(a, b, -p)
    else:
        t = SPLITTER * a
        a_hi = t - (t - a)
        a_lo = a - a_hi
        t = SPLITTER * b
        b_hi = t - (t - b)
        b_lo = b - b_hi
        e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, e


@njit(cache=True, error_model="numpy", inline="always")
def _cody_waite(xc: float):
    """The reduction of ``_exp_reduce`` (``expm1``, ``exp``: no FMA; ``_exp_reduce_estrin`` has its own, with FMAs):
    k = rint(xc/ln 2) (as the bits offset and as a float), r + rr = xc − k·ln 2 (r rounded, rr its exact rounding
    error) and r²/2 = h1 + h2 with h1 = r1²/2 exact (r1 = r with its low 26 bits cleared)."""
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
    return k, kf, r, rr, h1, h2


@njit(cache=True, error_model="numpy", inline="always")
def _exp_reduce(xc: float):
    """For |xc| ≤ 1500: (k as the bits offset, k as a float, r, h1, corr) with e^xc = 2^k·(1 + r + h1 + corr)
    up to the errors of ``expm1``'s proof; 1 + r + h1 are exact doubles, corr is small."""
    k, kf, r, rr, h1, h2 = _cody_waite(xc)
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
def _exp_combine2(a_hi: float, a_lo: float, r: float, h1: float, corr: float):
    """``_exp_combine`` with scale 1 and without its final rounding: (hi, lo) with hi + lo equal to the sum
    before that rounding (a last exact two-sum) and |lo| ≤ u|hi|.

    For k ≥ 0 only (its callers reduce x ≥ 0): a_hi = 1 − 2^{−k} is 0 (k = 0) or ≥ ½ > 0.3466 ≥ |r|, s1 = a_hi +
    r is r (k = 0) or ≥ 0.153, h1 ≤ r²/2·(1 + u) < |r| and ≤ 0.061, and |tail| ≤ |s2|, so each two-sum is
    Dekker's Fast2Sum (3 additions instead of Knuth's 6; the same exact error term, so the same bits)."""
    s1 = a_hi + r
    e1 = r - (s1 - a_hi)  # Fast2Sum: a_hi = 0 or |a_hi| ≥ ½ > |r|
    s2 = s1 + h1
    e2 = h1 - (s2 - s1)  # Fast2Sum: |s1| ≥ |h1|
    tail = ((e1 + e2) + a_lo) + corr
    hi = s2 + tail
    return hi, tail - (hi - s2)  # Fast2Sum: |tail| ≤ |s2|


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
    """e^x − 1 with relative error ≤ 1.38u (u = 2⁻⁵³) for −45 ≤ x ≤ 709.78; −1 below, inf above, NaN for NaN.

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

        |error| ≤ u + (5.46 + 2 + 3)u·0.0308 + 0.042u + 0.007u + 0.005u ≤ 1.3763u ≤ 1.38u.

    Subnormal x: k = 0, r = x, every correction underflows to 0 and the result is x (exact rounding of
    x + x²/2).  NaN propagates.  Monotone non-decreasing on every sample the tests try (not proven).
    """
    xc = select(x > -45.0, x, -45.0)
    xc = select(xc < 710.0, xc, 710.0)
    k, kf, r, h1, corr = _exp_reduce(xc)
    big = kf > 1023.0
    k1 = select(big, 1023, k)
    scale = as_double((k1 + 1023) << 52)  # 2^k1, k1 ∈ [−65, 1023]
    inv_f = select(big, 0.5, 1.0)
    small = (-53.0 <= kf) & (kf <= 53.0)
    a_hi = select(small, scale - inv_f, select(kf > 0.0, scale, -inv_f))
    a_lo = select(small, 0.0, select(kf > 0.0, -inv_f, scale))
    result = _exp_combine(a_hi, a_lo, scale, r, h1, corr)
    result = select(big, result * 2.0, result)
    return select((x == x) & (x != 0.0), result, x)  # NaN, and −0.0 keeps its sign


@njit(cache=True, error_model="numpy", inline="always")
def _log1p_core(yc: float, y_lo: float, extra: float) -> float:
    """extra·ln 2 + ln(1 + yc + y_lo) for −1 < yc < inf, |y_lo| ≤ 2u|yc|, |yc| ≥ 2⁻²⁷ (``log1p``'s proof, with
    y_lo added to the Fast2Sum error T: one more rounding of size ≤ u|T + y_lo| ≤ 3u²; extra is an integer-valued
    float, |extra| < 2²⁰, added to the exponent e so e·LN2_HI stays exact)."""
    s_ = 1.0 + yc
    big = yc > 1.0  # Fast2Sum with the larger summand first (yc > −1): the same exact error as TwoSum
    t_ = (select(big, 1.0, yc) - (s_ - select(big, yc, 1.0))) + y_lo
    bits = as_bits(s_)
    # the exponent as a double: 2⁵² + E (E the biased exponent) read as bits, minus 2⁵² + 1023 (or + 1022) in one
    # exact subtraction (no int64 → double conversion, which would not vectorise without AVX-512); s_ > 0 here
    m = as_double((bits & MANTISSA_MASK) | ONE_BITS)
    high = m > SQRT2
    m = select(high, m * 0.5, m)
    ef = (as_double((bits >> 52) | TWO52_BITS) - select(high, TWO52 + 1022.0, TWO52 + 1023.0)) + extra
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    # R(z)/z = P1 + P2·z + … + P10·z⁹ in Estrin's scheme with FMAs (a short dependency chain, one rounding a step)
    z2 = z * z
    z4 = z2 * z2
    w = fma(z4, fma(z4, fma(z, P10, P9), fma(z2, fma(z, P8, P7), fma(z, P6, P5))),
            fma(z2, fma(z, P4, P3), fma(z, P2, P1)))
    fsq, fsq_err = _exact_product(f, f)  # f is 0 or a multiple of 2⁻⁵³ with |f| < ½: exact, no underflow
    hh1 = 0.5 * fsq
    hh2 = 0.5 * fsq_err
    big_w = fma(z, w, hh1)  # H1 + R rounded once (H2 left out: |H2| ≤ u·f²/4)
    a1 = f - hh1
    b1 = (f - a1) - hh1  # Fast2Sum: |f| ≥ hh1
    a2 = fma(ef, LN2_HI, a1)  # e·LN2_HI + a1: e·LN2_HI is exact
    b2 = a1 + fma(ef, LN2_HI, -a2)  # Fast2Sum (e·LN2_HI = 0 or ≥ ln 2 > |a1|): e·LN2_HI − a2 is exact
    tail = fma(s, big_w, (((fma(ef, LN2_LO, -hh2) + t_ / s_) + b1) + b2))  # V = s·W added last
    return a2 + tail


@njit(cache=True, error_model="numpy", inline="always")
def log1p(y: float) -> float:
    """ln(1 + y) with relative error ≤ 1.34u (u = 2⁻⁵³) for −1 < y < ∞; −inf at −1, NaN below −1 or for NaN,
    inf at inf.

    Algorithm.  |y| < 2⁻²⁷: fma(−y/2, y, y) (truncation ≤ y²/3 < u/6, one rounding; −y/2 is exact unless y is
    subnormal, where y² vanishes anyway: ≤ 1.17u).  Otherwise
    S + T = 1 + y exactly (Fast2Sum, the larger of 1 and y first; S ≥ 2⁻⁵³ is normal), S = 2^e·m with
    m ∈ [1/√2, √2) read from S's bits, f = m − 1 exact (Sterbenz), and

        ln(1 + y) = e·ln 2 + log1p(f) + ln(1 + T/S),   |T/S| ≤ u,
        log1p(f) = f − f²/2 + s·(f²/2 + R(z)),   s = f/(2 + f),  z = s²,  R(z) = Σ_{j≥1} 2zʲ/(2j + 1)

    (the identity f − f²/2 + s·f²/2 = 2s and 2·atanh(s) = 2s + s·R(z)).  f²/2 = H1 + H2 with H1 = fl(f²)/2 and
    H2 = (f² − fl(f²))/2, both exact (``_exact_product``: f is 0 or a multiple of 2⁻⁵³ with |f| < ½, so the error
    term is a representable multiple of 2⁻¹⁰⁶; |H2| ≤ u·f²/4).  e·LN2_HI, f − H1 and their sum are carried
    exactly with Fast2Sums (|f| ≥ H1; e·LN2_HI is 0 or ≥ ln 2 > |f − H1|; e·LN2_HI + a and e·LN2_HI − a2 by one
    FMA each: e·LN2_HI is exact, so the same values); the small terms −H2 (one FMA with e·LN2_LO), T/S and the
    two-sum errors are added first, V = s·W, W = fl(H1 + R) (one FMA; H2 left out of W), last by one FMA, then the
    one final rounding.  R/z = Σ_{j=1}^{10} 2z^{j−1}/(2j + 1) in Estrin's scheme with FMAs (z² = z·z, z⁴ = z²·z²,
    pairs; a dependency chain of 4 FMAs instead of Horner's 10).

    Error bound (first order; relative to |L|, L = ln(1 + y); |s| ≤ 0.17158, z ≤ 0.029438):
    - R stops at z¹⁰: remainder ≤ |s|·2z¹¹/23/(1 − z), relative to |L| ≥ 2|s| ≤ z¹¹/23/(1 − z) ≤ 6.5e-19 =
      0.006u.  Estrin for R/z: term j passes through n_j = 4, 4, 5, 5, 8, 8, 9, 9, 10, 10 roundings (its
      coefficient, z² (1), z⁴ (3), and one per FMA on its path; 4, 5, 6, 7, 9, 10, 11, 12, 12, 13 without FMAs), so
      |error| ≤ Σ n_j·P_j·z^{j−1}·u ≤ 2.7151u at z = 0.029438 (increasing in z) against R/z ≥ P1 = ⅔: ≤ 4.073u.
      s: 2 + f and ÷: ≤ 2.01u; z: ≤ 5.03u, which moves R/z by ≤ 5.03u·0.0182 (z·(R/z)′/(R/z) ≤ 0.0182); R = z·(R/z)
      is not rounded (inside the FMA for W): ≤ 5.03u·1.0182 + 4.073u ≤ 9.2u (10.3u without FMAs).
    - V: W = fl(H1 + R) (one rounding; leaving H2 out costs |s|·|H2| ≤ |s|·u·f²/4), V = s·W not rounded (inside
      the tail's last FMA): |V|·2.01u + |s|·(u·f²/4 + 9.2u|R| + u|W|).  At f = √2 − 1 (s = 0.171573, f²/2 =
      0.085786, R = 0.019979, W = 0.10577, V = 0.018147) this is 0.09352u absolute, at f = 1/√2 − 1 0.0677u;
      the smallest |L| with |f| that large is ln √2 = 0.34657 (e = 0 or e = −1, m = √2), so ≤ 0.2699u relative
      (0.3544u without FMAs); for smaller |f| the ratio is smaller (V/L = O(f²); tests/numeric/test_elementary.py
      checks the ratio on a grid of f).
    - tail: the small terms (≤ 2.1e-7 + 3u) sum with rounding errors ≤ 1e-7u; its last FMA (adding V) rounds by
      ≤ u·0.0182/0.3466 = 0.053u; ln(1 + T/S) − T/S and the rounding of T/S ≤ 1.5u² absolute, |L| ≥ 2⁻²⁸ here:
      < 1e-7u; the ln 2 split |e|·1.17e-26 with |L| ≥ 0.3466 when e ≠ 0: < 1e-6u.
    - final rounding: u.

        |error| ≤ u + 0.2699u + 0.053u + 0.006u + 0.01u ≤ 1.3389u ≤ 1.34u   (1.43u without FMAs).

    (tests/numeric/test_elementary.py recomputes the constants in 50 digits.)

    Monotone non-decreasing on every sample the tests try (not proven).
    """
    # the special values are selected at the end (no ÷0 in plain Python)
    yc = select((-1.0 < y) & (y < INF), y, 0.0)
    result = _log1p_core(yc, 0.0, 0.0)
    tiny = (-TINY < y) & (y < TINY)
    result = select(tiny, fma(-0.5 * yc, yc, yc), result)
    result = select(y < INF, result, INF)
    result = select(y > -1.0, result, select(y == -1.0, -INF, NAN))
    return select(y == y, result, y)


@njit(cache=True, error_model="numpy", inline="always")
def _split_pow2(x: float):
    """x = 2^j·m for x > 0 finite: (m ∈ [1, 2), j as an int, j as a float), read from the bits (a subnormal x
    first scaled by 2⁶⁴, exactly); the float j avoids an int64 → double conversion, which does not vectorise
    without AVX-512."""
    sub = x < 2.0 ** -1000
    xs = select(sub, x * 1.8446744073709552e19, x)  # ·2⁶⁴
    bits = as_bits(xs)
    m = as_double((bits & MANTISSA_MASK) | ONE_BITS)
    j = (bits >> 52) - select(sub, 1087, 1023)
    jf = as_double((bits >> 52) | TWO52_BITS) - select(sub, TWO52 + 1087.0, TWO52 + 1023.0)  # exact
    return m, j, jf


@njit(cache=True, error_model="numpy", inline="always")
def _amplify_core(eps: float, eta_n: float, j: int, jf: float, zero: bool) -> float:
    """``amplify`` for η = 2^j·eta_n, eta_n ∈ [1, 2) (0 if ``zero``)."""
    ec = select(eps < 1400.0, eps, 1400.0)
    k, kf, r, h1, corr = _exp_reduce_estrin(ec)
    low = kf <= 53.0
    inv_scale = as_double((1023 - select(kf <= 1000.0, k, 0)) << 52)  # 2^{−k} (k ≤ 1000; else unused)
    a_hi = select(low, 1.0 - inv_scale, 1.0)  # 1 − 2^{−k} = a_hi + a_lo
    a_lo = select(low, 0.0, select(kf <= 1000.0, -inv_scale, 0.0))
    s_hi, s_lo = _exp_combine2(a_hi, a_lo, r, h1, corr)
    # σ below 2⁻⁸⁰⁰ (ε < 2⁻⁸⁰⁰) is scaled by 2²⁰⁰ (exact) and the exponent lowered by 200, so that the exact
    # product below never has an error term near the underflow threshold
    small = s_hi < 2.0 ** -800
    s_hi = select(small, s_hi * 2.0 ** 200, s_hi)
    s_lo = select(small, s_lo * 2.0 ** 200, s_lo)
    kj = k + j - select(small, 200, 0)
    kjf = kf + jf
    p, e = _exact_product(eta_n, s_hi)  # eta_n·s_hi = p + e
    lo = fma(eta_n, s_lo, e)
    over = kjf > 1000.0
    kjc = select(over, 1000, kj)  # ∈ [−1274, 1000]
    half = kjc >> 1  # two factors, each a normal power of two
    f1 = as_double((half + 1023) << 52)
    f2 = as_double((kjc - half + 1023) << 52)
    y_hi = (p * f1) * f2
    y_lo = (lo * f1) * f2
    y_hi = select(zero, 0.0, y_hi)
    y_lo = select(zero, 0.0, y_lo)
    extra = select(over, kjf - 1000.0, 0.0)
    result = _log1p_core(y_hi, y_lo, extra)
    result = select((y_hi < TINY) & (extra == 0.0), y_hi + fma(-0.5 * y_hi, y_hi, y_lo), result)
    result = result + (eps - ec)
    return select(eps < INF, result, eps)


@njit(cache=True, error_model="numpy", inline="always")
def amplify(eps: float, eta: float) -> float:
    """A_η(ε) = ln(1 + η(e^ε − 1)) for 0 ≤ ε ≤ ∞ and 0 ≤ η ≤ 1 (SPEC T1's map): |error| ≤ 1.76u·A + 2⁻¹⁰⁷⁴
    for ε ≤ 1400, ≤ 2.76u·A + 2⁻¹⁰⁷⁴ above (u = 2⁻⁵³; so ≤ 2.76 ulps; *derived*), and an input η already in error by a
    relative δ adds at most δ·A.

    One exponential reduction and one logarithm for every ε and no branch (the libm route needed
    ``numeric.special.amplify_large``, three more libm calls, above ε = 709), so a loop over it vectorises.

    Algorithm.  ε_c = min(ε, 1400), e^{ε_c} − 1 = 2^k·σ with σ = (1 − 2^{−k}) + r + h1 + corr, the
    reduction of ``expm1`` with Q in Estrin's scheme and r² split exactly (``_exp_reduce_estrin``; 1 − 2^{−k}
    exact for k ≤ 53, else split as 1 and −2^{−k}, and −2^{−k} dropped for k > 1000: a relative 2^{−1000}),
    summed with two Fast2Sums and renormalised but NOT rounded: σ_hi + σ_lo (``_exp_combine2``).  η = 2^j·ηₙ
    exactly (ηₙ ∈ [1, 2) from the bits; a subnormal η prescaled by 2⁶⁴).  σ_hi < 2⁻⁸⁰⁰ (only for ε < 2⁻⁸⁰⁰) is
    scaled by 2²⁰⁰ with σ_lo, exactly, and 200 taken off the exponent k + j.  ηₙ·σ_hi = p + e exactly
    (``_exact_product``: ηₙ ∈ [1, 2) and σ_hi ∈ [2⁻⁸⁰⁰, 2) are multiples of 2⁻⁵² and of 2⁻⁸⁵², so the product's
    error term is a multiple of 2⁻⁹⁰⁴: representable, no underflow, no overflow; one FMA, or Dekker's product on
    a CPU without FMA and in plain Python — the same (p, e), so the same bits).  Then
    y_hi + y_lo = 2^{k+j}·(p + fma(ηₙ, σ_lo, e)) = η(e^{ε_c} − 1), the power of two applied as two normal factors
    and capped at 2^{1000}; the rest goes to the logarithm as an exponent (``extra``; there y ≥ 2^{999} and
    ln(1 + y) − ln y ≤ 2^{−999}).  A = ln(1 + y_hi + y_lo) by ``log1p``'s core with y_lo added to its Fast2Sum
    error (or y_hi + fma(−y_hi/2, y_hi, y_lo) for y_hi < 2⁻²⁷).  For ε > 1400, A(ε) = A(1400) + (ε − 1400).

    Error bound.
    - σ: ``expm1``'s error terms without its final rounding, with d's error that of Estrin's scheme with FMAs
      (6.765u, and the correction's two roundings those of two FMAs: ``_exp_reduce_estrin``; Horner's was 5.46u):
      (6.765 + 2 + 3)u·ρ_d + 0.042u + 0.007u + 0.005u ≤ 0.4164u ≤ 0.417u relative to σ (ρ_d ≤ 0.0308 as there;
      for k > 1000, |d|/σ ≤ 0.0107; 0.451u without FMAs).  The Fast2Sums are exact (the
      same error terms as TwoSums); h2 is now exact too (≤ u·r²/2 where dropped, |r| < 2⁻⁴⁰⁰: < 1e-100u).
    - y: lo = fma(ηₙ, σ_lo, e) rounds once, by ≤ u(|e| + 2|σ_lo|) ≤ 3u²|σ|; the factors 2^{k+j} are exact for
      y_hi (when y_hi is normal, so is p·f1), while y_lo may lose ≤ 2⁻¹⁰⁷⁴ to underflow.  So y = η(e^{ε_c} −
      1)(1 + δ_y) + δ_abs with |δ_y| ≤ 0.417u + 3u², |δ_abs| ≤ 2⁻¹⁰⁷⁴.
    - ln(1 + y) has condition number y/((1 + y)ln(1 + y)) ≤ 1 and derivative ≤ 1: δ_y costs ≤ 0.417u relative
      in A and δ_abs ≤ 2⁻¹⁰⁷⁴ absolute; ``log1p``'s core adds ≤ 1.34u (≤ 1.17u in the y_hi < 2⁻²⁷ branch: the
      truncation u/6, the last rounding u, the FMA's rounding of y_lo − y_hi²/2 ≤ u·2⁻²⁷|y_hi|; the extra rounding
      of its T is ≤ 3u², against |A| ≥ 2⁻²⁸ there).  ε ≤ 1400: ≤ 1.7553u·A + 2⁻¹⁰⁷⁴ + O(u²) ≤ 1.76u·A + 2⁻¹⁰⁷⁴
      (1.89u without FMAs); ≤ 1.59u·A + 2⁻¹⁰⁷⁴ where y_hi < 2⁻²⁷.
    - ε > 1400: A(ε) − A(1400) − (ε − 1400) = ln(1 + (1 − η)e^{−ε}/η) − ln(1 + (1 − η)e^{−1400}/η) lies
      below e^{−654} since η ≥ 2^{−1075} > e^{−746}.  A(1400) ≥ 654 with error ≤ 1.76u·A(1400); ε − 1400 is exact up
      to ε = 2800 (Sterbenz), else rounded (≤ u(ε − 1400)); the sum rounds once more: ≤ 2.76u·A.
    - An input η = η_true(1 + δ) (T2's m/n, T5's rate_to/rate_from: one division, |δ| ≤ u while η is a
      normal double) multiplies y by 1 + δ: A's error grows by ≤ |δ|·A.
    - In steps (ulps ≥ u·A): the absolute 2⁻¹⁰⁷⁴ is a whole step only for A < 2⁻¹⁰²¹, i.e. in the y_hi < 2⁻²⁷
      branch, where the bound is ≤ 1.59u·A + 2⁻¹⁰⁷⁴ (+ u·A for a quotient η): < 3.2 steps; elsewhere it is
      < 2⁻⁵² steps.  So ≤ 2.76 steps for an exact η and ≤ 3.76 for a quotient (callers round up by 4).
    - Subnormal results (y_hi < 2⁻¹⁰²²): y_hi rounds in each of the two scalings (≤ ½ step each, the first one
      then scaled down by the second factor), y_lo loses ≤ 1 step, the last addition ≤ ½: ≤ 2.5 steps of
      2⁻¹⁰⁷⁴ plus a relative 1.59u (≤ 0.80 step; a quotient η: 2.59u, ≤ 1.30 steps) — within 4 such steps.
    ε = ∞ gives ∞; η = 0 or ε = 0 gives 0 exactly.
    """
    eta_n, j, jf = _split_pow2(eta)
    return _amplify_core(eps, eta_n, j, jf, eta == 0.0)


@njit(cache=True, error_model="numpy", inline="always")
def amplify_quotient(eps: float, num: float, den: float) -> float:
    """A_η(ε) for η = num/den, 0 ≤ num ≤ den < ∞, den > 0 (T2's m/n, T5's rate_to/rate_from): ``amplify`` with
    η's power of two taken from num and den separately and its mantissa m_num/m_den rounded once.

    η = 2^{j_num − j_den}·(m_num/m_den), m ∈ [1, 2) exact (``_split_pow2``), so the one rounding of the
    quotient of mantissas is a relative ≤ u — also where num/den itself would be a subnormal double and
    lose up to all of its digits (rate_to = 1e-323, rate_from = 0.86: η = 1.2e-323 is off by 14 %, and so was
    A_η(ε) at ε ≈ 700 with the libm kernels).  Then ``amplify``'s bound plus that u: |error| ≤ 2.76u·A +
    u·A + 2⁻¹⁰⁷⁴, ≤ 3.76 ulps (≤ 2.76u·A + 2⁻¹⁰⁷⁴ below ε = 1400; 3.89 and 2.89 without FMAs).
    """
    m_num, j_num, jf_num = _split_pow2(num)
    m_den, j_den, jf_den = _split_pow2(den)
    q = m_num / m_den  # ∈ (½, 2)
    below = q < 1.0
    eta_n = select(below, q * 2.0, q)
    j = j_num - j_den - select(below, 1, 0)
    jf = jf_num - jf_den - select(below, 1.0, 0.0)
    return _amplify_core(eps, eta_n, j, jf, num == 0.0)


# --- T7/T12 δ (group privacy): exp, log, e^{ab} − 1, δ·e^{ab + τ}, a·b rounded upward -----------------------
EXP_BOUND_U = 1.16
LOG_BOUND_U = 1.34
EXACT_SPLIT_MIN = 2.0 ** -900  # as numeric.special.mul_up: Dekker's error term exact between these
EXACT_SPLIT_MAX = 2.0 ** 900


@njit(cache=True, error_model="numpy", inline="always")
def exp(x: float) -> float:
    """e^x with relative error ≤ 1.16u (u = 2⁻⁵³) where e^x is a normal double (−708.39 ≤ x ≤ 709.78); inf
    above, a subnormal result within 1.16u relative plus 2⁻¹⁰⁷⁵ absolute, 0 below −745.2, NaN for NaN.

    Algorithm.  ``expm1``'s reduction of x clamped to [−746, 710]: e^x = 2^k·(1 + r + r²/2 + r³Q(r) + e^r(e^{rr}
    − 1)), summed by ``_exp_combine`` with a_hi = 1 (exact), a_lo = 0, scale 1 and one final rounding: m ≈ e^r
    ∈ [0.70, 1.42].  Then m·2^k as (m·2^⌊k/2⌋)·2^{k − ⌊k/2⌋), both factors normal powers of two (k ∈ [−1076,
    1024]): the first product is exact, the second is exact for a normal result and rounds once (≤ 2⁻¹⁰⁷⁵) for a
    subnormal one, and overflows to inf above 709.78.

    Error bound of m relative to e^r (the terms of ``expm1``'s proof, now relative to e^r ≥ 0.7071 instead of
    |e^x − 1|): ρ_d = max |d|/e^r ≤ 0.0091 (at r = −ln2/2: |d| ≈ r³(1/6 − r/24 + r²/120) = 0.00638, e^r =
    0.7071; at r = +ln2/2 0.0054; tests/numeric/test_elementary.py recomputes it), so Horner, corr and the inner
    sum give (5.46 + 2 + 3)u·0.0091 ≤ 0.096u; rr(1 + r) for e^r(e^{rr} − 1): ≤ |rr|·|e^r − 1 − r|/e^r ≤ u·0.35·
    0.066/0.707 ≤ 0.033u; truncation and second-order terms < 0.012u; reduction ≤ 1e-5u; final rounding u:

        |error| ≤ u + 0.096u + 0.033u + 0.012u ≤ 1.141u ≤ 1.16u.
    """
    xc = select(x > -746.0, x, -746.0)
    xc = select(xc < 710.0, xc, 710.0)
    k, kf, r, h1, corr = _exp_reduce(xc)
    m = _exp_combine(1.0, 0.0, 1.0, r, h1, corr)
    half = k >> 1
    f1 = as_double((half + 1023) << 52)
    f2 = as_double((k - half + 1023) << 52)
    result = (m * f1) * f2
    return select(x == x, result, x)


@njit(cache=True, error_model="numpy", inline="always")
def log(x: float) -> float:
    """ln x with relative error ≤ 1.34u (u = 2⁻⁵³) for 0 < x < ∞ (subnormals included); −inf at 0, inf at inf,
    NaN below 0 or for NaN.

    Algorithm.  x = 2^j·m, m ∈ [1, 2), read from the bits (``_split_pow2``; a subnormal x prescaled by 2⁶⁴), and
    ln x = ``_log1p_core``(m − 1, 0, j): m − 1 is exact and so is 1 + (m − 1) = m, i.e. S = m, T = 0 in
    ``log1p``'s proof, with j added to the exponent e (|j| ≤ 1074 < 2²⁰, so (e + j)·LN2_HI stays exact).

    Error bound: ``log1p``'s proof term by term, with T = 0 and e replaced by e' = e + j.  Where e' ≠ 0, |ln x| ≥
    ln √2 = 0.3466 as there, and every term is as bounded there (the T/S terms vanish).  Where e' = 0 (x ∈
    [1/√2, √2)), ln x = log1p(f) with f exact and no exponent terms: e'·LN2_LO = 0, b2 = 0 (the sum with
    e'·LN2_HI = 0 is exact), and the remaining small terms −H2 and b1 (|b1| ≤ u|f − H1|) add rounding errors of
    order u²|f| against |ln x| ≥ 0.83|f|; V's share, ≤ 0.2699u + 0.053u at the ends of the interval, is smaller for
    smaller |f| (V/ln x = O(f²)).  ``log1p``'s restriction |y| ≥ 2⁻²⁷ only served the T/S terms.  So ≤ 1.34u
    everywhere, as ``log1p``.  Checked against 50-digit mpmath in tests/numeric/test_elementary.py, near 1 too.
    """
    # the special values are selected at the end (no exception in plain Python)
    xc = select((0.0 < x) & (x < INF), x, 1.0)
    m, j, jf = _split_pow2(xc)
    result = _log1p_core(m - 1.0, 0.0, jf)
    result = select(x < INF, result, INF)
    result = select(x > 0.0, result, select(x == 0.0, -INF, NAN))
    return select(x == x, result, x)


@njit(cache=True, error_model="numpy", inline="always")
def two_product(a: float, b: float):
    """(p, e), p = fl(a·b), a·b = p + e: ``numeric.special.two_product`` written inline (the same choice of FMA or
    Dekker's product, ``HAS_FMA``, so the same (p, e); e = 0 where p is not finite), branch-free:
    :func:`_exact_product` plus the guard for an infinite or NaN p."""
    p, e = _exact_product(a, b)
    e = select((p - p) == 0.0, e, 0.0)  # p inf or NaN
    return p, e


@njit(cache=True, error_model="numpy", inline="always")
def mul_up(a: float, b: float) -> float:
    """a·b rounded upward for a, b ≥ 0: ``numeric.special.mul_up`` without libm (``np.nextafter`` towards +inf of
    p ≥ 0 is the double whose bit pattern is one more, inf stays inf; ``next_up`` is plain arithmetic), bit
    for bit the same result."""
    p, e = two_product(a, b)
    stepped = select(p < INF, as_double(as_bits(p) + 1), p)
    stepped = select((a != 0.0) & (b != 0.0), stepped, p)
    near = p + p * 1.6653345369377348e-16  # numeric.special.next_up (3·2⁻⁵⁴)
    near = select(e > 0.0, near, p)
    return select((EXACT_SPLIT_MIN < p) & (p < EXACT_SPLIT_MAX), near, stepped)


@njit(cache=True, error_model="numpy", inline="always")
def expm1_mul(a: float, b: float) -> float:
    """e^{a·b} − 1 without the rounding of a·b (``numeric.special.expm1_mul`` with ``expm1`` above): a·b = hi + lo
    exactly, expm1(hi) + (expm1(hi) + 1)·lo.  Relative error ≤ 1.38u + u (the rounding of the correction and of
    the sum) + O(u²·|ab|) for hi ≤ 709.78."""
    hi, lo = two_product(a, b)
    head = expm1(hi)
    return head + (head + 1.0) * lo


@njit(cache=True, error_model="numpy", inline="always")
def exp_mul_scaled(scale: float, a: float, b: float, tail: float) -> float:
    """scale·e^{a·b + tail} for scale > 0 (``numeric.special.exp_mul_scaled`` without libm): ln(scale) = e·ln 2 +
    ln(mant), mant ∈ [1/√2, √2], e from the bits; e·LN2_HI + hi exact up to its TwoSum error; rest = err + lo +
    e·LN2_LO + ln(mant) + tail; exp(head)·exp(rest), with ``log`` and ``exp`` above (≤ 1.34u, ≤ 1.16u)."""
    m, j, jf = _split_pow2(scale)
    high = m > SQRT2
    mant = select(high, m * 0.5, m)
    expo = select(high, jf + 1.0, jf)
    hi, lo = two_product(a, b)
    eh = expo * LN2_HI
    head = eh + hi
    bb = head - eh
    err = (eh - (head - bb)) + (hi - bb)
    rest = err + lo + expo * LN2_LO + log(mant) + tail
    return exp(head) * exp(rest)


@njit(cache=True, error_model="numpy", inline="always")
def _exp_reduce_estrin(xc: float):
    """``_exp_reduce`` for 0 ≤ xc ≤ 1500 with FMAs (fused multiply–adds, one rounding each: ``numeric.special.fma``,
    the same bits on every CPU) and Q(r) = Σ_{j=3}^{14} r^{j−3}/j! in Estrin's scheme (pairs, then r², r⁴) — a
    dependency chain of 6 instead of 12 multiply–add steps — and r²/2 = h1 + h2 from r's exact square
    (``_exact_product``: h1 = fl(r²)/2, h2 = (r² − fl(r²))/2, both exact halvings; where |r| < 2⁻⁴⁰⁰, h2 = 0,
    an error ≤ u·r²/2 < 2⁻⁴⁵⁰u|r|, so that no error term near the underflow threshold is ever computed and FMA
    and Dekker hosts agree bit for bit).  The outputs of ``_exp_reduce`` (h1 and corr split r²/2 differently).

    Reduction (issue 20, FMA).  k = rint(xc·INV_LN2) from one FMA (the product exact, the sum with 1.5·2⁵² rounded
    to an integer): |xc·INV_LN2 − k| ≤ ½, and |1/ln 2 − INV_LN2| ≤ 1.2e-16, so |xc − k·ln 2| ≤ ln2/2 + 1500·1.2e-16·
    ln 2 ≤ 0.34658 as before; k ≤ 2165.  r_hi = xc − k·LN2_HI is exact (``expm1``'s argument; the FMA returns the
    representable exact value).  r = fl(r_hi − c), c = k·LN2_LO exact inside the FMA, and ρ = r_hi − c − r its
    rounding error (|ρ| ≤ u|r|).  rr = fl(fl(r_hi − r) − c): r_hi − r = c + ρ, so rr = ((c + ρ)(1 + δ₁) − c)(1 + δ₂)
    and |rr − ρ| ≤ u|c|(1 + u) + 3u²|r|, with |c| ≤ 2165·LN2_LO ≤ 4.2e-7.  The old route (c rounded, then an exact
    TwoSum) erred by u|c| in the same place, so ``expm1``'s reduction term |k|·(1.17e-26 + u·LN2_LO) (≤ 7.2e-23 in
    the exponent for k ≤ 2165: < 1e-6u relative) covers it; |rr| ≤ u|r| + 4.2e-7u (the proofs' "rr is second
    order" holds: rr enters only through rr·(1 + r)).

    Error of q (first order; each operation's result is its exact value times 1 + δ, |δ| ≤ u, so the computed q
    is Σ_j c_j r^{j−3}·Π(1 + δ) over the n_j roundings on term j's path: its coefficient's, r² = fl(r·r) (1),
    r⁴ = fl(r²·r²) (3), and one per FMA it passes through, product and sum rounded together): n_j = 4, 4, 5, 5
    for j = 3 … 6, 8, 8, 9, 9 for j = 7 … 10, 11, 11, 12, 12 for j = 11 … 14 (without FMAs 4, 5, 6, 7, 9 … 12,
    13 … 16), and |q − Q(r)| ≤ Σ_j n_j|c_j||r|^{j−3}·u + O(u²).  With |r| ≤ 0.34658 this sum is ≤ 0.72975u
    (increasing in |r|), and |Q(r)| ≥ Q(−0.34658) ≥ 0.1531717: ≤ 4.765u relative (tests/numeric/
    test_elementary_group.py recomputes both; 4.866u without FMAs, Horner's 2.46u).  d + h2 = fma(r²·r, q, h2):
    d's factor r²·r carries 2 roundings, the FMA one for the sum, so d + h2 is within (4.765 + 3)u·|d| + u|h2|;
    corr = fma(rr, 1 + r, d + h2) rounds once more (the rounding of 1 + r is u|rr| ≤ u²|r| + 4.2e-7u², second
    order): the two roundings of ``expm1``'s proof (≤ 2u|d| + u²r²) are the FMA's two, and d's 7.87u there is 6.765u
    here.  So the σ of ``amplify``/``_expm1_scaled`` is within (6.765 + 2 + 3)u·ρ_d + 0.042u + 0.007u + 0.005u ≤
    0.4164u for ρ_d ≤ 0.0308 (0.451u before)."""
    t = fma(xc, INV_LN2, SHIFTER)  # 1.5·2⁵² + rint(xc·(1/ln 2)), the product exact
    kf = t - SHIFTER
    k = as_bits(t) - SHIFTER_BITS
    r_hi = fma(-kf, LN2_HI, xc)  # exact, as in _cody_waite
    r = fma(-kf, LN2_LO, r_hi)  # r_hi − k·LN2_LO rounded once
    rr = fma(-kf, LN2_LO, r_hi - r)  # its rounding error, within u·|k·LN2_LO| + u|rr| (see above)
    rsq, rsq_err = _exact_product(r, r)
    rsq_err = select((r > 2.0 ** -400) | (r < -(2.0 ** -400)), rsq_err, 0.0)
    h1 = 0.5 * rsq
    h2 = 0.5 * rsq_err
    r4 = rsq * rsq
    q_ab = fma(rsq, fma(r, E6, E5), fma(r, E4, E3))
    q_cd = fma(rsq, fma(r, E10, E9), fma(r, E8, E7))
    q_ef = fma(rsq, fma(r, E14, E13), fma(r, E12, E11))
    q = fma(r4, fma(r4, q_ef, q_cd), q_ab)
    corr = fma(rr, 1.0 + r, fma(rsq * r, q, h2))  # (h2 + d) + rr·(1 + r), d = r³·q
    return k, kf, r, h1, corr


@njit(cache=True, error_model="numpy", inline="always")
def _expm1_scaled(x: float):
    """For 0 ≤ x ≤ 1500: (σ_hi, σ_lo, K, 2^{−K}) with e^x − 1 = 2^K·σ, σ = (σ_hi + σ_lo)(1 + η), |η| ≤ 0.417u, K =
    rint(x/ln 2): ``amplify``'s σ (``_exp_reduce_estrin``, ``_exp_combine2``), with the same proof: (6.765 + 2 +
    3)u·ρ_d + 0.042u + 0.007u + 0.005u with ρ_d ≤ 0.0308: ≤ 0.417u (0.451u without FMAs; 0.889u before issue 20,
    when Estrin's scheme was bounded by 16 roundings on every term: 22.1u on d).  For K > 1000 the term −2^{−K} is dropped, a
    relative ≤ 2^{−1000}, and 2^{−K} is returned as 0."""
    k, kf, r, h1, corr = _exp_reduce_estrin(x)
    low = kf <= 53.0
    inv_scale = as_double((1023 - select(kf <= 1000.0, k, 0)) << 52)
    a_hi = select(low, 1.0 - inv_scale, 1.0)
    a_lo = select(low, 0.0, select(kf <= 1000.0, -inv_scale, 0.0))
    s_hi, s_lo = _exp_combine2(a_hi, a_lo, r, h1, corr)
    return s_hi, s_lo, k, select(kf <= 1000.0, inv_scale, 0.0)


GROUP_DELTA_BOUND_U = 5.8
GROUP_CAP = 1490.0  # kε above this: δ_k > 1 for every δ ≥ 2⁻¹⁰⁷⁴ and k ≥ 2


@njit(cache=True, error_model="numpy", inline="always")
def group_delta(delta: float, k: float, eps: float) -> float:
    """δ_k = δ(e^{kε} − 1)/(e^ε − 1) (SPEC T7, Vadhan 2017 Lemma 2.2; T12 with k → Δ) for 0 < ε < ∞, δ > 0 and an
    integer k ≥ 2, with relative error ≤ 5.8u (u = 2⁻⁵³) where the result is a normal double, plus at
    most half a step 2⁻¹⁰⁷⁵ where it is subnormal; inf where kε > 1490 (there δ_k > 1).  One formula for every
    ε — no overflow branch, no logarithm — and two exponential reductions, so a loop over it vectorises.

    Algorithm.  kε = p + e exactly (``two_product``).  e^p − 1 = 2^K·σ_n and e^ε − 1 = 2^{K_d}·σ_d with σ in
    double-double (``_expm1_scaled``, ≤ 0.417u; ε ≤ p/2 ≤ 745 and p ≤ 1490 are within its range).  Since e^p =
    2^K(σ_n + 2^{−K}) exactly, e^{p+e} − 1 = 2^K(σ_n + (σ_n + 2^{−K})(e^e − 1)), evaluated as N = σ_hi + fma(σ_hi +
    2^{−K}, e, σ_lo).  δ = m·2^j (m ∈ [1, 2), from the bits), and δ_k = m·(N/D)·2^{K − K_d + j} with D = σ_d
    rounded to a double; q = m·(N/D) ≥ 0.1 (p ≥ ε, so K ≥ K_d; σ_n ≥ 0.207 for K ≥ 1 and σ_d ≤ 2; σ_n/σ_d ≥ 1
    for K = K_d) and q ≤ 10¹⁸ for k ≤ 2⁵³ (σ_d ≥ ε ≥ 0.34/k wherever K > 0 = K_d; a larger k with a tiny ε can
    overflow q to inf: the result is then inf, i.e. 1 after min(1, ·), an upper bound), and the power of two
    (capped at 2^{1100}, where 0.1·2^{1100} overflows: inf) is applied
    as two normal factors, so it rounds at most once, only where the result is subnormal (N/D is formed before
    the product with m: a subnormal N and D, from a subnormal ε, divide with one correctly rounded result).

    Error bound (first order; the second-order terms are below 1e-9u).
    - N: σ_n's 0.417u; |e| ≤ u·p ≤ 1490u, so the correction is ≤ 1490u·(σ_n + 2^{−K})/σ_n ≤ 1.5e4u relative to σ_n
      (σ_n ≥ 0.207 for K ≥ 1; for K = 0, (σ_n + 1)|e|/σ_n ≤ 1.42u), and its two roundings (one FMA, one sum) cost O(u²); e^e −
      1 − e ≤ e² is below 3e-26 relative; the final sum rounds once: ≤ 1.417u.
    - D: σ_d's 0.417u and its rounding to a double u: ≤ 1.417u.
    - N/D and ×m: one rounding each, 2u.  The power of two: exact for a normal result.
      Total ≤ 1.417u + 1.417u + 2u = 4.834u ≤ 5.8u (GROUP_DELTA_BOUND_U kept at 5.8, its value when σ's
      bound was 0.889u; 4.902u with σ's 0.451u before the FMAs; the budget GROUP_DELTA = 8 covers each).
    - Subnormal result: the last scaling rounds once more, ≤ 2⁻¹⁰⁷⁵.
    - kε > 1490: δ_k ≥ δe^{(k−1)ε} ≥ 2⁻¹⁰⁷⁴e^{kε/2} > 2⁻¹⁰⁷⁴e^{745} > 1; inf is returned (min(1, ·) gives 1).
    ε = 0 gives a NaN-free finite value (unused: T7's ε = 0 branch is kδ).
    """
    p, e = two_product(k, eps)
    big = not p <= GROUP_CAP  # also p = inf or NaN
    pc = select(p <= GROUP_CAP, p, GROUP_CAP)
    n_hi, n_lo, kn, inv_n = _expm1_scaled(pc)
    num = n_hi + fma(n_hi + inv_n, e, n_lo)
    ec = select(eps <= GROUP_CAP, eps, GROUP_CAP)
    d_hi, _d_lo, kd, inv_d = _expm1_scaled(ec)
    den = d_hi  # = fl(d_hi + d_lo): d_lo is the exact remainder of d_hi's rounding to nearest (a tie: d_hi even)
    den = select(den > 0.0, den, 1.0)  # ε = 0 (the value is not used there; no ZeroDivisionError in plain Python)
    m, j, jf = _split_pow2(delta)
    q = m * (num / den)
    s = kn - kd + j
    s = select(s > 1100, 1100, s)
    half = s >> 1
    f1 = as_double((half + 1023) << 52)
    f2 = as_double((s - half + 1023) << 52)
    result = (q * f1) * f2
    return select(big, INF, result)
