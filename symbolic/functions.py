"""Shared symbols, parameters and the amplification map A_η of SPEC "Conventions".

``AmplifyLarge`` is the large-ε form of A_η.  It is a sympy ``Function`` with an explicit definition
(``definition()``) so that ``proofs_checks`` can prove it equal to the SPEC form; the generated kernels
print it as a call to the hand-written double-double kernel ``numeric.special.amplify_large``.
"""
from __future__ import annotations

import math

import sympy as sp
from sympy.codegen.cfunctions import expm1

from .core import Domain, Parameter

# Symbols are declared nonnegative so sympy can simplify logs of products in the proofs.
epsilon = sp.Symbol("varepsilon", nonnegative=True)
delta = sp.Symbol("delta", nonnegative=True)
eta = sp.Symbol("eta", nonnegative=True)
rate = sp.Symbol("p", nonnegative=True)
k = sp.Symbol("k", positive=True, integer=True)
m = sp.Symbol("m", nonnegative=True, integer=True)
n = sp.Symbol("n", positive=True, integer=True)

UNIT = Domain(0.0, 1.0)
EPSILON_DOMAIN = Domain(0.0, math.inf)

EPSILON = Parameter("epsilon", epsilon, EPSILON_DOMAIN, "privacy loss ε of the base mechanism (inf allowed)")
DELTA = Parameter("delta", delta, UNIT, "failure probability δ of the base mechanism")

# Below this ε, expm1(ε) ≤ 8.2e307 cannot overflow; above it the log-space form is used.
LARGE_EPSILON = 709


class AmplifyLarge(sp.Function):
    """A_η(ε) written as softplus(ε + ln η + ln(1 − e^{−ε})): no overflow for any ε."""

    nargs = 2

    def definition(self) -> sp.Expr:
        e, h = self.args
        return sp.log(1 + sp.exp(e + sp.log(h) + sp.log(1 - sp.exp(-e))))

    def _latex(self, printer) -> str:
        return printer._print(self.definition())


class Expm1Mul(sp.Function):
    """e^{a·b} − 1, evaluated without rounding the product a·b (``numeric.special.expm1_mul``)."""

    nargs = 2

    def definition(self) -> sp.Expr:
        return sp.exp(self.args[0] * self.args[1]) - 1

    def _latex(self, printer) -> str:
        return printer._print(self.definition())


class ExpMulScaled(sp.Function):
    """s · e^{a·b + t}, with ln s + a·b in double-double (``numeric.special.exp_mul_scaled``)."""

    nargs = 4

    def definition(self) -> sp.Expr:
        s, a, b, t = self.args
        return s * sp.exp(a * b + t)

    def _latex(self, printer) -> str:
        return printer._print(self.definition())


def is_special(expr: sp.Basic) -> bool:
    """A special function is any sympy Function with a ``definition()`` (declared here or in a family)."""
    return isinstance(expr, sp.Function) and callable(getattr(type(expr), "definition", None))


def expand_special(expr: sp.Basic) -> sp.Basic:
    """Replace every special function by its definition (for proofs)."""
    return expr.replace(is_special, lambda e: e.definition())


def amplify(h: sp.Expr, e: sp.Expr = epsilon) -> sp.Expr:
    """SPEC form A_η(ε) = ln(1 + η(e^ε − 1))."""
    return sp.log(1 + h * (sp.exp(e) - 1))


def amplify_branches(h: sp.Expr, e: sp.Expr = epsilon, zero: sp.Basic | None = None) -> tuple:
    """Stable branches of A_η(ε): exact zeros, the SPEC form (→ log1p/expm1), the log-space form.

    ``zero`` is the condition for η = 0 when it is better decided on the parameters (e.g. m = 0).
    """
    return (
        (sp.Or(zero if zero is not None else sp.Eq(h, 0), sp.Eq(e, 0)), sp.Integer(0)),
        (e <= LARGE_EPSILON, amplify(h, e)),
        (sp.true, AmplifyLarge(e, h)),
    )


def amplify_inverse(h: sp.Expr, e: sp.Expr = epsilon) -> sp.Expr:
    """SPEC form A_η⁻¹(ε) = ln(1 + (e^ε − 1)/η)."""
    return sp.log(1 + (sp.exp(e) - 1) / h)


def amplify_inverse_branches(h: sp.Expr, e: sp.Expr = epsilon) -> tuple:
    """Stable branches of A_η⁻¹(ε).  The last cannot overflow: the branch is taken only when the result exceeds ln 1e300,
    ε ≥ 0 and −ln η ≥ 0, and
    ln(η e^{−ε} − expm1(−ε)) = ln(1 − (1 − η)e^{−ε}) adds two nonnegative terms (no cancellation even for
    ε = 1e-300 at a subnormal η)."""
    return (
        (sp.Eq(h, 0), sp.oo),
        (sp.Eq(e, 0), sp.Integer(0)),
        ((sp.exp(e) - 1) / h <= sp.Integer(10) ** 300, amplify_inverse(h, e)),
        (sp.true, e - sp.log(h) + sp.log(h * sp.exp(-e) - expm1(-e))),
    )


def scaled_delta_branches(h: sp.Expr, d: sp.Expr = delta) -> tuple:
    """η·δ with its exact zero kept exact (so rate = 0 gives δ = 0, not a rounded-up tiny number)."""
    return ((sp.Or(sp.Eq(h, 0), sp.Eq(d, 0)), sp.Integer(0)), (sp.true, h * d))
