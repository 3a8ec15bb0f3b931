"""Hand-written numba helpers that the generated kernels call.

- ``up`` / ``down``: outward rounding by at least ``n`` ulps (``n`` steps of ``nextafter``; at most about
  2n + 2).  One step is one ulp for a normal number and one unit 2⁻¹⁰⁷⁴ for a subnormal, so an error budget in
  ulps also covers the absolute error of subnormal results.
- ``amplify_large``: A_η(ε) = ln(1 + η(e^ε − 1)) for ε > 709, where e^ε overflows.  It evaluates
  softplus(ε + ln η + ln(1 − e^{−ε})) with ln η split as e·ln2 + ln(mantissa), and ln 2 split into a head
  with 21 trailing zero bits and a tail, so ε + e·ln2_hi is exact (Sterbenz) exactly where it cancels
  (η ≈ e^{−ε}).  A plain ε + ln(η + (1 − η)e^{−ε}) loses up to 7 digits there (η near the subnormals).

Changing this file does not invalidate numba's on-disk cache of the kernels that call it: clear
``numeric/_generated/__pycache__`` after editing (``python -m numeric.generate --clear-cache``).
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from numeric.jit import njit

LN2_HI = 6.93147180369123816490e-01  # 0x3FE62E42FEE00000: e * LN2_HI is exact for |e| < 2**20
LN2_LO = 1.90821492927058770002e-10  # ln 2 − LN2_HI
SQRT_HALF = 0.7071067811865476
# Dekker's product error term is exact when nothing underflows or overflows in the splitting
EXACT_SPLIT_MIN = 2.0 ** -900
EXACT_SPLIT_MAX = 2.0 ** 900


@njit(cache=True)
def spacing(x: float) -> float:
    """Distance from |x| to the next larger double (2⁻¹⁰⁷⁴ for subnormals and 0), x finite."""
    if x == 0.0:
        return 5e-324
    _, expo = math.frexp(x)  # |x| = mant · 2^expo, mant ∈ [0.5, 1): spacing 2^(expo − 53)
    return max(math.ldexp(1.0, expo - 53), 5e-324)


@njit(cache=True)
def up(x: float, n: int) -> float:
    """A double at least n floats above x ≥ 0 (at most about 2n + 2 above; inf stays inf).

    Let s be the spacing of doubles at x.  For normal x, x·2⁻⁵² lies in [s, 2s), and it is within a factor
    (1 − 2⁻⁵²·…) of 2s exactly when x is near the top of its binade, which is where the next n steps may
    cross into the next binade with steps of 2s.  So d = (n + 1)·x·2⁻⁵² covers n steps in every case, with one
    step to spare for the rounding of x + d.  For subnormal x the added (n + 1)·2⁻¹⁰⁷⁴ does the same.  One
    multiply and two adds: as cheap as the kernel's own arithmetic, unlike n calls of nextafter.
    """
    return x + (x * ((n + 1) * 2.0 ** -52) + (n + 1) * 5e-324)


@njit(cache=True)
def down(x: float, n: int) -> float:
    """A double at least n floats below x, never below 0; inf stays inf (only an infinite input gives inf).

    Steps below x are at most the spacing s at x and x·2⁻⁵² ≥ s, so subtracting (n + 1)·x·2⁻⁵² (plus
    (n + 1)·2⁻¹⁰⁷⁴ for subnormals) moves at least n steps after rounding.
    """
    if x == np.inf:
        return x
    return max(x - (x * ((n + 1) * 2.0 ** -52) + (n + 1) * 5e-324), 0.0)


@njit(cache=True)
def amplify_large(eps: float, eta: float) -> float:
    """A_η(ε) for ε > 709 and 0 < η ≤ 1, accurate to a few ulps (see the module docstring)."""
    if eps == np.inf:
        return np.inf
    mant, expo = math.frexp(eta)  # exact: eta = mant · 2^expo, mant ∈ [0.5, 1)
    if mant < SQRT_HALF:
        mant *= 2.0
        expo -= 1
    head = eps + expo * LN2_HI  # exact where it cancels
    tail = expo * LN2_LO + math.log(mant) + math.log1p(-math.exp(-eps))
    u = head + tail  # u = ε + ln η + ln(1 − e^{−ε}); A = softplus(u)
    if u > 0.0:
        return u + math.log1p(math.exp(-u))
    return math.log1p(math.exp(head) * math.exp(tail))


@intrinsic
def fma(typingctx, a, b, c):
    """a·b + c with a single rounding (LLVM's llvm.fma.f64: the FMA instruction where the CPU has one,
    else a correctly rounded library call, so the result is the same on every machine)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType()] * 3)
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.fma.f64"), args)

    return sig, codegen


@intrinsic
def select(typingctx, condition, if_true, if_false):
    """``if_true if condition else if_false`` with both operands already evaluated: one LLVM ``select``.

    Why (issue 20): numba lowers a conditional expression to a branch — three basic blocks each — and a kernel
    numba inlines (``inline="always"``: the libm-free functions of ``numeric.elementary`` inlined into the
    array loops) is copied block by block, each block copying the function's whole variable scope: the copies
    grow as blocks × variables and were most of a loop's compile time.  A ``select`` is one instruction in one
    block.  Same value as the conditional expression wherever both operands are defined (numba's numpy error
    model: no operand raises; LLVM's ``select`` ignores whatever the other operand holds), and what LLVM's
    if-conversion made of the branch anyway before vectorising.  The plain-Python tier (``numeric.pure``)
    evaluates both operands too, then picks one: an operand that raises there sends the call to the compiled
    kernel, as any exception of that tier does.  The operands' types are unified (a literal and an int64 give
    an int64); the condition is read as a boolean.

    The generated T7/T12 δ kernels print their branches as nested ``select`` calls (imported from
    ``numeric.elementary``), so every branch is computed for every point and LLVM sees selects, not a chain of
    conditional blocks (which, with five branches, it did not if-convert: the loop stayed scalar); the same
    values as the lazy chain (each branch is a pure function)."""
    result = typingctx.unify_types(types.unliteral(if_true), types.unliteral(if_false))
    if result is None or not isinstance(result, (types.Float, types.Integer, types.Boolean)):
        return None  # numba then reports "no implementation" for these argument types

    def codegen(context, builder, signature, args):
        condition_value = context.cast(builder, args[0], signature.args[0], types.boolean)
        a = context.cast(builder, args[1], signature.args[1], result)
        b = context.cast(builder, args[2], signature.args[2], result)
        return builder.select(condition_value, a, b)

    return result(condition, if_true, if_false), codegen


def _host_has_fma() -> bool:
    try:
        import llvmlite.binding as llvm

        return bool(llvm.get_host_cpu_features().get("fma", False))
    except Exception:  # pragma: no cover - an unusual llvmlite: fall back to Dekker's product
        return False


# With a hardware FMA the error term of a product is one instruction (fma(a, b, −p) = a·b − p exactly: the
# exact value is representable whenever Dekker's is, i.e. no underflow, and it is computed with one rounding);
# without one, Dekker/Veltkamp splitting (17 flops) is faster than a software fma.  Both give the same (p, e)
# wherever Dekker's splitting is exact (the FMA also where it is not: huge or tiny factors).
HAS_FMA = _host_has_fma()


def _dekker_error(a: float, b: float, p: float) -> float:
    """a·b − p exactly for p = fl(a·b) finite (Dekker/Veltkamp splitting; exact unless something underflows
    or the splitting overflows, |a|, |b| ≲ 2⁹⁹⁶)."""
    split = 134217729.0  # 2^27 + 1
    t = split * a
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = split * b
    b_hi = t - (t - b)
    b_lo = b - b_hi
    return ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


_dekker_error_compiled = njit(cache=True)(_dekker_error)


def product_error(a: float, b: float, p: float) -> float:
    """a·b − p for p = fl(a·b): Dekker in plain Python; compiled code gets one FMA (overload below)."""
    return _dekker_error(a, b, p)


@overload(product_error)
def _product_error_overload(a, b, p):
    if HAS_FMA:
        return lambda a, b, p: fma(a, b, -p)
    return lambda a, b, p: _dekker_error_compiled(a, b, p)


@njit(cache=True)
def two_product(a: float, b: float):
    """(p, e) with p = fl(a·b) and a·b = p + e exactly (one FMA where the CPU has one, else Dekker/Veltkamp;
    the same (p, e) wherever Dekker's is exact, and the plain-Python route uses Dekker)."""
    p = a * b
    if not math.isfinite(p):
        return p, 0.0
    return p, product_error(a, b, p)


@njit(cache=True)
def expm1_mul(a: float, b: float) -> float:
    """e^{a·b} − 1 without the rounding of a·b: expm1(hi) + e^{hi}·lo, a·b = hi + lo exactly.

    fl(a·b) alone costs |a·b|·2⁻⁵³ relative in e^{ab} (32 ulps at a·b = 100).
    """
    hi, lo = two_product(a, b)
    head = math.expm1(hi)
    return head + (head + 1.0) * lo


@njit(cache=True)
def exp_mul_scaled(scale: float, a: float, b: float, tail: float) -> float:
    """scale · e^{a·b + tail} for scale > 0, with ln(scale) + a·b carried in double-double.

    The exponent usually cancels (scale ≈ e^{−ab}); splitting ln(scale) = e·ln2_hi + (e·ln2_lo + ln mant)
    as in ``amplify_large`` and a·b = hi + lo keeps the result accurate to a few ulps.
    """
    mant, expo = math.frexp(scale)
    if mant < SQRT_HALF:
        mant *= 2.0
        expo -= 1
    hi, lo = two_product(a, b)
    head = expo * LN2_HI + hi
    # TwoSum error of head (exact)
    bb = head - expo * LN2_HI
    err = (expo * LN2_HI - (head - bb)) + (hi - bb)
    rest = err + lo + expo * LN2_LO + math.log(mant) + tail
    return math.exp(head) * math.exp(rest)


@njit(cache=True)
def next_up(p: float) -> float:
    """The next double above p for 2⁻⁹⁰⁰ < p < 2⁹⁰⁰: p + fl(p·3·2⁻⁵⁴), one multiply and one add (no libm call).

    For p in the binade [2ᵏ, 2ᵏ⁺¹) with spacing u = 2ᵏ⁻⁵², p·3·2⁻⁵⁴ ∈ [0.75u, 1.5u) and its rounding moves it by
    at most a relative 2⁻⁵³, so the exact sum lies in (p + 0.74u, p + 1.5u]: the nearest double is p + u (the
    next one; at the binade's top it is 2ᵏ⁺¹, spaced 2u from its successor, and the sum's excess there is
    at most 0.5u).  The only tie, an offset of exactly 1.5u, needs p = 2ᵏ⁺¹ − u, where the sum is 2ᵏ⁺¹ + u/2
    and rounds to 2ᵏ⁺¹, the next double.  Checked against ``np.nextafter`` in tests/numeric/test_special.py.
    """
    return p + p * 1.6653345369377348e-16  # 3·2⁻⁵⁴, exact


@njit(cache=True)
def next_down(q: float) -> float:
    """The next double below q for 2⁻⁹⁰⁰ < q < 2⁹⁰⁰: q − q·2⁻⁵³ (the scaling is exact).

    For q = 2ᵏ the step below is u/2 (u = 2ᵏ⁻⁵²) and q·2⁻⁵³ = u/2 exactly: the difference is representable.
    Otherwise q ∈ (2ᵏ, 2ᵏ⁺¹), the step below is u and q·2⁻⁵³ ∈ (u/2, u): the difference lies strictly between
    q − u and q − u/2, nearest to q − u (also when q − u = 2ᵏ).
    """
    return q - q * 1.1102230246251565e-16  # 2⁻⁵³


@njit(cache=True)
def mul_up(a: float, b: float) -> float:
    """a·b rounded upward (a, b ≥ 0): the nearest product, moved up one float only if it was below."""
    p, e = two_product(a, b)
    if not EXACT_SPLIT_MIN < p < EXACT_SPLIT_MAX:  # the error term may be inexact: step up regardless
        return np.nextafter(p, np.inf) if (a != 0.0 and b != 0.0) else p
    return next_up(p) if e > 0.0 else p


@njit(cache=True)
def div_down(a: float, b: float) -> float:
    """a/b rounded downward (a ≥ 0, b > 0): the nearest quotient, moved down one float only if above."""
    q = a / b
    if not (EXACT_SPLIT_MIN < q < EXACT_SPLIT_MAX and EXACT_SPLIT_MIN < a < EXACT_SPLIT_MAX):
        return max(np.nextafter(q, -np.inf), 0.0)  # the residual may be inexact: step down regardless
    hi, lo = two_product(q, b)  # q·b = hi + lo exactly; a − q·b < 0 ⇔ q is above a/b
    if (a - hi) - lo < 0.0:
        return next_down(q)
    return q
