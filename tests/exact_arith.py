"""Shared test helpers: exact comparison of returned floats against high-precision references, and the
hypothesis strategies the bound tests draw from.

Soundness is decided exactly: the returned float against the reference (an ``mpf`` or ``Fraction``) as binary
numbers, never through ``float(reference)``; tightness as a relative error, or a number of float steps where
the exact value is subnormal.

Import as ``from tests.exact_arith import ...`` (pytest puts the repository root on ``sys.path``).  Neither
``tests/`` nor ``tests/bounds/`` may get an ``__init__.py``: a ``tests/bounds`` package would shadow ``bounds``.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from mpmath import mp, mpf

INF = math.inf
FLOAT_MAX = Fraction(np.finfo(np.float64).max)


def cap(n: int) -> int:
    """At most ``n`` examples, and never more than the active profile asks for."""
    return min(n, settings.default.max_examples)


# --------------------------------------------------------------------------------------------------------
# Exact arithmetic helpers
# --------------------------------------------------------------------------------------------------------

def exact(x) -> Fraction:
    """The exact rational value of a float, Fraction or (finite) mpf."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (float, int)):
        return Fraction(x)
    man, exp = x.man_exp
    if man == 0:
        return Fraction(0)
    return Fraction(man) * Fraction(2) ** exp


def ulp_at(x: Fraction) -> Fraction:
    """Spacing of binary64 floats at the exact value x (the subnormal step 2^-1074 below 2^-1022)."""
    x = abs(x)
    if x == 0:
        return Fraction(1, 2 ** 1074)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    return Fraction(2) ** max(e - 52, -1074)


def is_inf(ref) -> bool:
    return (isinstance(ref, float) or not isinstance(ref, Fraction)) and ref == INF


def show(ref) -> str:
    if isinstance(ref, Fraction):
        return f"{ref.numerator}/{ref.denominator} (~{mp.nstr(mpf(ref.numerator) / ref.denominator, 20)})"
    return mp.nstr(ref, 25)


def assert_upper(got, ref, *, rel: float = 1e-13, ulps: int = 8, what: str = "") -> None:
    """``got`` is a float >= the exact ``ref`` (mpf or Fraction) and within rel (or ``ulps`` float steps)."""
    assert isinstance(got, float), f"{what}: returned {type(got).__name__}, not float"
    if is_inf(ref):
        assert got == INF, f"{what}: exact value is inf, got {got!r}"
        return
    if isinstance(ref, Fraction):
        sound = Fraction(got) >= ref if math.isfinite(got) else got == INF
    else:
        sound = mpf(got) >= ref  # exact comparison of binary numbers
    assert sound, f"{what}: UNSOUND, got {got!r} below the exact value {show(ref)}"
    x = exact(ref)
    if got == INF:
        assert x > FLOAT_MAX, f"{what}: got inf for the finite exact value {show(ref)}"
        return
    excess = Fraction(got) - x
    tolerance = max(Fraction(rel) * x, ulps * ulp_at(x))
    assert excess <= tolerance, (f"{what}: too loose, got {got!r}, exact {show(ref)}, "
                                 f"excess {float(excess):.3g} = {float(excess / ulp_at(x)):.3g} ulps")


def assert_lower(got, ref, *, rel: float = 1e-13, ulps: int = 8, what: str = "") -> None:
    """``got`` is a float <= the exact ``ref`` (mpf or Fraction) and within rel (or ``ulps`` float steps)."""
    assert isinstance(got, float), f"{what}: returned {type(got).__name__}, not float"
    if is_inf(ref):
        assert got == INF, f"{what}: exact value is inf, got {got!r}"
        return
    if isinstance(ref, Fraction):
        sound = Fraction(got) <= ref if math.isfinite(got) else False
    else:
        sound = mpf(got) <= ref
    assert sound, f"{what}: UNSAFE, got {got!r} above the exact value {show(ref)}"
    x = exact(ref)
    shortfall = x - Fraction(got)
    tolerance = max(Fraction(rel) * x, ulps * ulp_at(x))
    assert shortfall <= tolerance, (f"{what}: too conservative, got {got!r}, exact {show(ref)}, "
                                    f"shortfall {float(shortfall / ulp_at(x)):.3g} ulps")


def ulps_between(a: float, b: float) -> float:
    """|a − b| in units of the float spacing at the larger of the two (finite) values."""
    return float(abs(Fraction(a) - Fraction(b)) / ulp_at(max(abs(Fraction(a)), abs(Fraction(b)))))


# --------------------------------------------------------------------------------------------------------
# Working precision for the mpmath references
# --------------------------------------------------------------------------------------------------------

def log10_of(x) -> float:
    """log10 of a positive float, Fraction or mpf, without underflow."""
    if isinstance(x, Fraction):
        return math.log10(x.numerator) - math.log10(x.denominator)
    if isinstance(x, float):
        return math.log10(x)
    return float(mp.log10(x))


def digits(*small) -> int:
    """Working digits: 60 plus twice the decimal magnitude of the smallest quantity, plus 20."""
    extra = 0.0
    for x in small:
        if 0 < x < 1:
            extra = max(extra, -log10_of(x))
    return 60 + int(2 * extra) + 20


def to_mpf(x) -> mpf:
    """A float, int or Fraction as an mpf at the working precision (exact for floats and ints)."""
    if isinstance(x, Fraction):
        return mpf(x.numerator) / x.denominator
    return mpf(x)


# --------------------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------------------

def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    """10 ** e for a float e drawn from [lo, hi]: magnitudes from 10^lo to 10^hi."""
    return st.floats(lo, hi).map(lambda e: 10.0 ** e)


@st.composite
def ordered(draw, strategy, top: float = INF) -> tuple[float, float]:
    """Two values a <= b (both <= top), often equal or adjacent."""
    a = draw(strategy)
    b = draw(st.one_of(strategy, st.just(a), st.just(min(top, math.nextafter(a, INF)))))
    return (a, b) if a <= b else (b, a)


def grid_violations(out, coeffs: list[int], shift: int, base: int, upward: bool) -> list[str]:
    """Where a composed grid ``out`` (masses ``out.m`` at nodes ``out.k0 …``, atom ``out.m_inf``) breaks its
    invariant against exact masses coeffs[k − base]·2^−shift: upper — every kept node ≥ the exact mass (the
    first also ≥ all the mass below it), the atom at +∞ ≥ the mass above the last node; lower — every kept
    node ≤ the exact mass.  Decided in exact rationals."""
    scale = 2 ** shift
    bad = []
    for i, v in enumerate(out.m):
        j = out.k0 + i - base
        exact = coeffs[j] if 0 <= j < len(coeffs) else 0
        if upward and i == 0:
            exact = sum(coeffs[: j + 1])
        lhs = Fraction(float(v)) * scale
        if (upward and lhs < exact) or (not upward and lhs > exact):
            bad.append(f"node {out.k0 + i}: {float(v)!r} vs {exact / scale:.6e}")
    if upward:
        above = sum(coeffs[out.k1 - base + 1:])
        if Fraction(out.m_inf) * scale < above:
            bad.append(f"m_inf {out.m_inf!r} < {above / scale:.6e}")
    return bad
