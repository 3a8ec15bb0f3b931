"""ε^S of SPEC T14 (outlier-score suppression) as an Arb ball: a faster test-side route beside the certificate's
reference (``proofs_checks.suppression_references.epsilon_s``, mpmath at ≥ 60 digits, kept: its stored table
is keyed by it).

Both evaluate the SPEC forms Λ1 … Λ3 (``symbolic.suppression``, lambdified; not the kernel's stable rewrites or
its cubic numerators) and maximise Λ1, Λ2 over p ∈ [0, 1] from a grid clustered at both ends.  Here the
derivatives come from Arb's Taylor series (``arb_series``: exact derivatives of the same forms, no numerical
differentiation), so a local maximum is located by the sign change of Λ' between grid points and refined by
Newton's method safeguarded by bisection (quadratic convergence instead of the golden-section search's
≈ 150 steps per endpoint interval).  Where Λ' changes sign from + to − the maximum p* is bracketed by two
points where the sign of Λ' is certain, and the value is Λ(x) ± sup|Λ'|·|bracket| (mean value theorem): a
rigorous enclosure of the local maximum.  Like the mpmath reference, a grid interval holding two critical
points with the same derivative sign at both ends would go unseen (48 clustered intervals; the forms are
smooth and have at most a few local maxima).  The working precision doubles from 192 bits until the ball's
relative radius is ≤ 2⁻¹²⁰ (the SPEC forms cancel when M ≈ m, for tiny ε or m, 1 − M).

Against the mpmath reference: every one of its 342 stored values (``with_lambda4`` false) lies in this ball (up to
the storage rounding; worst relative difference 4.3e-46, 0.62 s of CPU for all 342), and on 200 random points of
test_suppression's ranges (ε up to 1e3 and down to 1e-300, m, 1 − M down to 1e-6) the worst relative difference is
5.6e-56, at 0.79 s against 11.5 s of CPU.
"""
from __future__ import annotations

import functools
import math

import flint
from flint import arb, arb_series

GRID = 48


@functools.cache
def _forms():
    import sympy as sp

    from symbolic.functions import epsilon as e
    from symbolic.suppression import LAMBDA1, LAMBDA2, LAMBDA3, M, m, p

    arb_math = [{"log": lambda x: x.log(), "exp": lambda x: x.exp()}]
    return (sp.lambdify((p, e, m, M), LAMBDA1, modules=arb_math), sp.lambdify((p, e, m, M), LAMBDA2, modules=arb_math),
            sp.lambdify((e, m, M), LAMBDA3, modules=arb_math))


def epsilon_s(epsilon: float, m: float, M: float) -> arb:
    """ε^S(ε, m, M) = max(max_p Λ1, max_p Λ2, Λ3) as an Arb ball (relative radius ≤ 2⁻¹²⁰); 0 < m ≤ M < 1."""
    if math.isinf(epsilon):
        return arb("inf")
    prec = flint.ctx.prec
    try:
        bits = 192
        while True:
            flint.ctx.prec = bits
            value = _epsilon_s(arb(epsilon), arb(m), arb(M), bits)
            if value is not None and value.rad() <= abs(value.mid()) * arb(2) ** -120:
                return value
            bits *= 2
            assert bits <= 2 ** 15, f"ε^S({epsilon!r}, {m!r}, {M!r}) not resolved: {value}"
    finally:
        flint.ctx.prec = prec


def _union_max(a: arb, b: arb) -> arb:
    """A ball holding max(x, y) for every x in a, y in b."""
    return arb(max(a.lower(), b.lower())).union(arb(max(a.upper(), b.upper())))


def _epsilon_s(e: arb, m: arb, M: arb, bits: int) -> arb | None:
    f1, f2, f3 = _forms()
    if m == M:  # Λ1, Λ2 constant in p
        v12 = f1(arb(0), e, m, M)
    else:
        parts = [_max_on_unit(lambda x, f=f: f(x, e, m, M), bits) for f in (f1, f2)]
        if None in parts:
            return None
        v12 = _union_max(*parts)
    return _union_max(v12, f3(e, m, M))


def _series(f, x: arb, order: int) -> list[arb]:
    """[f(x), f'(x), f''(x)/2, …] up to ``order`` terms (x a point or a ball)."""
    c = f(arb_series([x, 1], prec=order)).coeffs()
    return c + [arb(0)] * (order - len(c))


def _max_on_unit(f, bits: int) -> arb | None:
    """An enclosure of max over [0, 1] of f, or None if the precision cannot decide a sign (the caller doubles it)."""
    points = [arb(0)] + [((1 - (arb.pi() * i / GRID).cos()) / 2).mid() for i in range(1, GRID)] + [arb(1)]
    values, slopes = zip(*(_series(f, x, 2) for x in points))
    best = _union_max(values[0], values[-1])
    for i in range(GRID):
        if slopes[i] < 0 or slopes[i + 1] > 0:  # certainly no + → − sign change of f' inside
            continue
        if not (slopes[i] > 0 and slopes[i + 1] < 0):  # a slope that rounds to 0 at this precision
            if bits < 2 ** 12:
                return None
            best = _union_max(best, _union_max(values[i], values[i + 1]))
            continue
        local = _refine(f, points[i], points[i + 1], bits)
        if local is None:
            return None
        best = _union_max(best, local)
    return best


def _refine(f, a: arb, b: arb, bits: int) -> arb | None:
    """The maximum of f on [a, b] where f'(a) > 0 > f'(b): Newton on f' from the bracket's midpoint, the bracket
    kept (a Newton step leaving it is replaced by bisection), then a bracket of width 2δ around the last iterate
    (δ = 2^-(bits/2 + 8), f' certainly + and − at its ends) and the mean value bound over it."""
    x = ((a + b) / 2).mid()
    for _ in range(4 * bits):
        value, slope, half_curvature = _series(f, x, 3)
        if 0 in slope:
            break
        if slope > 0:
            a = x
        else:
            b = x
        step = (x - slope / (2 * half_curvature)).mid()
        x_new = step if a < step < b else ((a + b) / 2).mid()
        if x_new == x:
            break
        x = x_new
        if b - a < arb(2) ** -(bits // 2 + 8):
            break
    delta = arb(2) ** -(bits // 2 + 8)
    lo, hi = max(a, x - delta), min(b, x + delta)
    if not (lo == a or _series(f, lo, 2)[1] > 0) or not (hi == b or _series(f, hi, 2)[1] < 0):
        return None
    value = _series(f, x, 1)[0]
    slope_bound = abs(_series(f, lo.union(hi), 2)[1]).upper()
    return value + arb(0, slope_bound * (hi - lo))
