"""Sample points that are the same bits on every machine: grids, seeded random points, search starts.

The stored references (``refstore``) are keyed by their arguments' exact bits, so every point a check
evaluates must come out identical on every CPU and every libm.  numpy's transcendental ufuncs (``np.exp``,
``np.log``, ``np.power``, hence ``np.logspace``/``np.geomspace``) dispatch to SIMD code chosen at run time
(AVX-512 and AVX2 ``exp`` differ in the last bit at ~3 % of points), and ``math.exp``/``math.log`` are the
platform libm's.  Here only operations with one correct result are used:

* the generator's raw doubles (``Generator.random``: a 53-bit integer times 2⁻⁵³, exact) and integers;
* Python float ``+ − × ÷`` (IEEE 754 correctly rounded; no fused multiply-add in CPython);
* transcendental values from mpmath at ``_BITS`` = 128 bits, then rounded once to the nearest double by integer
  division (``to_double``): correctly rounded except when the exact value lies within about 2⁻¹²⁵ relative of a
  rounding boundary, and in every case the same integers on every machine (mpmath computes in Python or gmpy
  integers only).

``Generator.uniform`` is avoided even though numpy computes it in scalar C: a compiler may contract its
``lo + (hi − lo)·u`` into a fused multiply-add on some targets.  ``uniform`` draws the same generator values
(one ``random()`` double per point), so replacing ``rng.uniform`` keeps the rest of a seeded stream.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
from mpmath import libmp

_BITS = 128


def _nearest(value: tuple) -> float:
    """The double nearest to an mpmath raw value ``(sign, man, exp, bc)``: integer true division in CPython is
    correctly rounded (ties to even, subnormals included; OverflowError beyond the largest double)."""
    sign, man, exp, _ = value
    if not man:
        if value == libmp.fzero:
            return 0.0
        return float(mp.mpf(value))  # ±inf, nan
    man = -int(man) if sign else int(man)
    try:
        return float(man << exp) if exp >= 0 else man / (1 << -exp)
    except OverflowError:
        return -math.inf if sign else math.inf


def to_double(x) -> float:
    """The double nearest to ``x`` (an mpf, int or Fraction), ties to even."""
    if isinstance(x, Fraction):
        return x.numerator / x.denominator
    if isinstance(x, int):
        return x / 1
    return _nearest(mp.mpf(x)._mpf_)


def exp(x: float) -> float:
    """e**x rounded to the nearest double."""
    return _nearest(libmp.mpf_exp(libmp.from_float(float(x)), _BITS, libmp.round_nearest))


def log(x: float) -> float:
    """ln x rounded to the nearest double (x > 0)."""
    return _nearest(libmp.mpf_log(libmp.from_float(float(x)), _BITS, libmp.round_nearest))


def log10(x: float) -> float:
    """log₁₀ x rounded to the nearest double (x > 0)."""
    with mp.workprec(_BITS):
        return to_double(mp.log10(mp.mpf(x)))


def pow10(x: float | Fraction) -> float:
    """10**x rounded to the nearest double (x a float or an exact fraction)."""
    with mp.workprec(_BITS):
        e = mp.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mp.mpf(x)
        return to_double(mp.power(10, e))


def logspace(start: float, stop: float, num: int) -> np.ndarray:
    """``num`` points 10**t, t from ``start`` to ``stop`` in equal steps (exact rational exponents), each rounded
    to the nearest double: ``np.logspace`` without its platform-dependent ``np.power``."""
    a, b = Fraction(start), Fraction(stop)
    if num == 1:
        return np.array([pow10(a)])
    return np.array([pow10(a + (b - a) * Fraction(i, num - 1)) for i in range(num)])


def uniform(rng: np.random.Generator, lo: float, hi: float, size=None):
    """``rng.uniform(lo, hi, size)``'s stream (one ``random()`` double per value), evaluated as
    ``lo + (hi − lo)·u`` in correctly rounded Python float arithmetic."""
    u = rng.random(size)
    width = hi - lo
    if size is None:
        return lo + width * float(u)
    return np.array([lo + width * float(v) for v in np.ravel(u)]).reshape(np.shape(u))


def log_uniform(rng: np.random.Generator, lo: float, hi: float, size: int) -> np.ndarray:
    """``size`` log-uniform points in [lo, hi]: exp of a uniform point between ln lo and ln hi, each
    transcendental step correctly rounded (the seeded stream is ``rng.uniform``'s: one double per point)."""
    a, b = log(lo), log(hi)
    return np.array([exp(t) for t in uniform(rng, a, b, size)])


def standard_normal(rng: np.random.Generator) -> float:
    """One standard normal variate by Box–Muller from two ``random()`` doubles, evaluated in mpmath and rounded
    once (numpy's ziggurat falls back to the platform's ``exp``/``log1p`` in its tails)."""
    u1, u2 = rng.random(2)
    with mp.workprec(_BITS):
        r = mp.sqrt(-2 * mp.log1p(-mp.mpf(float(u1))))  # 1 − u1 ∈ (0, 1]: no log 0
        return to_double(r * mp.cos(2 * mp.pi * mp.mpf(float(u2))))


def exponential(rng: np.random.Generator, scale: float = 1.0) -> float:
    """One exponential variate of mean ``scale`` by inversion, −scale·ln(1 − u), rounded once."""
    u = float(rng.random())
    with mp.workprec(_BITS):
        return to_double(-mp.mpf(scale) * mp.log1p(-mp.mpf(u)))


def best_simd_group() -> str:
    """The names to put in ``NPY_DISABLE_CPU_FEATURES`` to turn off the best group of SIMD code numpy dispatches
    to on this CPU: every available dispatch target above the lowest (an AVX-512 machine falls back to its
    AVX2 code: ``"X86_V4 AVX512_ICL"``), or the only one (an AVX2 machine falls back to the baseline:
    ``"X86_V3"``).  Empty when numpy dispatches nothing beyond its baseline."""
    from numpy._core import _multiarray_umath as umath

    available = [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]
    return " ".join(available[1:] if len(available) > 1 else available)


if __name__ == "__main__":  # `python -m proofs_checks.points --best-simd-group` (used by .ci/run)
    import sys

    if sys.argv[1:] != ["--best-simd-group"]:
        sys.exit("usage: python -m proofs_checks.points --best-simd-group")
    print(best_simd_group())
