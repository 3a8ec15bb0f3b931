"""Privacy profiles and calibration: SPEC T8 (Laplace profile), T9 (Gaussian profile, Balle & Wang 2018
Thm 8), T10 (analytic Gaussian calibration, Balle & Wang 2018 Alg 1).

The profiles are defined for every real ε: SPEC states them for ε ≥ 0 (T8) or every real ε (T9); the
ε < 0 part of T8 is the symmetry H_γ(P‖Q) = 1 − γ + γH_{1/γ}(Q‖P) of a symmetric pair (proven below as
a reduction).  The kernels are hand-written (``numeric.profiles``): the T9 kernel evaluates SPEC's erfcx
form, whose equality with the Φ form is proven here symbolically with ``Erfcx`` expanded to
e^{x²}erfc(x); the searches of the inverses and of T10 are not closed forms.
"""
from __future__ import annotations

import math

import sympy as sp

from .core import Domain, Output, Parameter, Reduction, Theorem, register
from .functions import DELTA, EPSILON, delta, epsilon


class Erfcx(sp.Function):
    """erfcx(x) = e^{x²}·erfc(x) (``numeric.erfcx.erfcx``)."""

    nargs = 1

    def definition(self) -> sp.Expr:
        x = self.args[0]
        return sp.exp(x ** 2) * sp.erfc(x)

    def _latex(self, printer) -> str:
        return r"\operatorname{erfcx}\left(" + printer._print(self.args[0]) + r"\right)"


class SmallestSuch(sp.Function):
    """min{variable : condition} — the defining equation of a searched value (inverses, T10), for LaTeX.

    Not a closed form: its references are computed by root finding in ``proofs_checks.references``.
    """

    nargs = 2

    def _latex(self, printer) -> str:
        var, cond = self.args
        return r"\min\left\{" + printer._print(var) + r" : " + printer._print(cond) + r"\right\}"


class LargestSuch(SmallestSuch):
    def _latex(self, printer) -> str:
        var, cond = self.args
        return r"\max\left\{" + printer._print(var) + r" : " + printer._print(cond) + r"\right\}"


eps_r = sp.Symbol("varepsilon", real=True)
theta = sp.Symbol("theta", positive=True)
sensitivity = sp.Symbol("Delta", positive=True)
sigma = sp.Symbol("sigma", positive=True)

EPSILON_REAL = Parameter("epsilon", eps_r, Domain(-math.inf, math.inf),
                         "ε at which the profile is evaluated (any real; ±inf allowed)")
THETA = Parameter("theta", theta, Domain(0.0, math.inf, lo_open=True, hi_open=True),
                  "θ = Δ/b (Laplace scale b) or Δ/σ (Gaussian standard deviation σ), θ > 0")
SENSITIVITY = Parameter("sensitivity", sensitivity, Domain(0.0, math.inf, lo_open=True, hi_open=True),
                        "sensitivity Δ of the query (L1 for Laplace, L2 for Gaussian), Δ > 0")
DELTA_TARGET = Parameter("delta", delta, Domain(0.0, 1.0, lo_open=True, hi_open=True),
                         "target δ ∈ (0, 1) the calibrated mechanism must meet")
EPSILON_TARGET = Parameter("epsilon", epsilon, Domain(0.0, math.inf, hi_open=True),
                           "target ε ∈ [0, inf)")


def Phi(x: sp.Expr) -> sp.Expr:
    """Standard normal CDF, Φ(x) = ½erfc(−x/√2)."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def laplace_profile_expr(e: sp.Expr = eps_r, t: sp.Expr = theta) -> sp.Expr:
    return sp.Piecewise((1 - sp.exp(e), e <= -t), (1 - sp.exp((e - t) / 2), e < t), (0, True))


def gaussian_profile_expr(e: sp.Expr = eps_r, t: sp.Expr = theta) -> sp.Expr:
    """SPEC T9: Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ)."""
    return Phi(t / 2 - e / t) - sp.exp(e) * Phi(-t / 2 - e / t)


_a = eps_r / theta - theta / 2
_b = eps_r / theta + theta / 2
GAUSSIAN_ERFCX_POS = sp.exp(-_a ** 2 / 2) / 2 * (Erfcx(_a / sp.sqrt(2)) - Erfcx(_b / sp.sqrt(2)))
GAUSSIAN_ERFCX_NEG = 1 - sp.exp(-_a ** 2 / 2) / 2 * (Erfcx(-_a / sp.sqrt(2)) + Erfcx(_b / sp.sqrt(2)))

_lap_mid = 1 - sp.exp((eps_r - theta) / 2)
_laplace_inverse = sp.Piecewise((theta + 2 * sp.log(1 - delta), delta < 1 - sp.exp(-theta)),
                                (sp.log(1 - delta), True))

T8 = register(Theorem(
    id="T8",
    name="Laplace privacy profile",
    relation="add/remove",
    parameters=(EPSILON_REAL, DELTA, THETA),
    outputs=(
        Output("delta", laplace_profile_expr(), "up", None, kernel="numeric.profiles:laplace_delta",
               latex_name=r"\delta_\theta(\varepsilon)", at_most_one=True),
        Output("epsilon", _laplace_inverse, "up", None, kernel="numeric.profiles:laplace_epsilon",
               latex_name=r"\varepsilon_\theta(\delta)"),
    ),
    provenance="source",
    citation="standard (Laplace mechanism); e.g. Balle, Barthe, Gaboardi 2018, Sec. 5",
    tightness="exact: the profile of the Laplace mechanism with θ = Δ/b (attained by a scalar query "
              "with sensitivity Δ)",
    statement="f scalar with sensitivity Δ, noise Lap(b), θ = Δ/b: δ(ε) = [1 − e^{(ε − θ)/2}]₊ for ε ≥ 0 "
              "(evaluated as −expm1((ε − θ)/2)); for ε < 0 by symmetry δ(ε) = 1 − e^{(ε−θ)/2} down to "
              "ε = −θ and 1 − e^ε below. The inverse ε(δ) = min{ε : δ(ε) ≤ δ} = θ + 2 ln(1 − δ) (or "
              "ln(1 − δ) below −θ) is rounded up.",
    notes="Relation: the profile is per neighbouring pair at L1 distance ≤ Δ; add/remove or substitute "
          "depending on how Δ was computed. Group privacy (white box): replace θ by kθ.",
    reductions=(
        Reduction("ε < 0 (−θ < ε < 0) is the symmetric extension: δ(−ε) = 1 − e^{−ε} + e^{−ε}δ(ε)",
                  _lap_mid.subs(eps_r, -eps_r), 1 - sp.exp(-eps_r) + sp.exp(-eps_r) * _lap_mid),
        Reduction("ε ≤ −θ is the symmetric extension of δ = 0 at ε ≥ θ",
                  1 - sp.exp(-eps_r), 1 - sp.exp(-eps_r) + sp.exp(-eps_r) * 0),
        Reduction("pieces agree at ε = −θ", _lap_mid.subs(eps_r, -theta), (1 - sp.exp(eps_r)).subs(eps_r, -theta)),
        Reduction("pieces agree at ε = θ", _lap_mid.subs(eps_r, theta), sp.Integer(0)),
        Reduction("inverse: δ(θ + 2 ln(1 − δ)) = δ", _lap_mid.subs(eps_r, theta + 2 * sp.log(1 - delta)), delta),
        Reduction("inverse below −θ: 1 − e^{ln(1 − δ)} = δ", 1 - sp.exp(sp.log(1 - delta)), delta),
    ),
    public=("laplace_profile", "laplace_profile_inverse"),
))

T9 = register(Theorem(
    id="T9",
    name="Gaussian privacy profile",
    relation="add/remove",
    parameters=(EPSILON_REAL, DELTA, THETA),
    outputs=(
        Output("delta", gaussian_profile_expr(), "up", None, kernel="numeric.profiles:gaussian_delta",
               latex_name=r"\delta_\theta(\varepsilon)", at_most_one=True),
        Output("epsilon", SmallestSuch(eps_r, sp.Le(gaussian_profile_expr(), delta)), "up", None,
               kernel="numeric.profiles:gaussian_epsilon", latex_name=r"\varepsilon_\theta(\delta)"),
    ),
    provenance="source",
    citation="Balle & Wang, Improving the Gaussian Mechanism (ICML 2018, arXiv:1805.06530), Thm 8",
    tightness="exact: the profile of the Gaussian mechanism with θ = Δ/σ (analytic Gaussian)",
    statement="L2 sensitivity Δ, noise N(0, σ²I), θ = Δ/σ: δ(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ) for "
              "every real ε, evaluated in the erfcx form (a = ε/θ − θ/2, b = ε/θ + θ/2): "
              "a ≥ 0: ½e^{−a²/2}[erfcx(a/√2) − erfcx(b/√2)]; a < 0: 1 − ½e^{−a²/2}[erfcx(−a/√2) + "
              "erfcx(b/√2)]. The inverse ε(δ) = min{ε : δ(ε) ≤ δ} is rounded up.",
    notes="Relation: per neighbouring pair at L2 distance ≤ Δ (add/remove or substitute depending on Δ). "
          "Group privacy (white box): replace θ by kθ.",
    reductions=(
        Reduction("erfcx form for a ≥ 0 equals the Φ form (b² − a² = 2ε)", GAUSSIAN_ERFCX_POS,
                  gaussian_profile_expr()),
        Reduction("erfcx form for a < 0 equals the Φ form", GAUSSIAN_ERFCX_NEG, gaussian_profile_expr()),
        Reduction("symmetry used for ε < 0: δ(−ε) = 1 − e^{−ε} + e^{−ε}δ(ε)",
                  gaussian_profile_expr(-eps_r), 1 - sp.exp(-eps_r) + sp.exp(-eps_r) * gaussian_profile_expr()),
        Reduction("ε = 0: δ = 2Φ(θ/2) − 1 = erf(θ/(2√2))", gaussian_profile_expr(sp.Integer(0)),
                  2 * Phi(theta / 2) - 1),
    ),
    public=("gaussian_profile", "gaussian_profile_inverse"),
))

T10 = register(Theorem(
    id="T10",
    name="Analytic Gaussian calibration",
    relation="add/remove",
    parameters=(EPSILON_TARGET, DELTA_TARGET, SENSITIVITY),
    outputs=(
        Output("sigma", SmallestSuch(sigma, sp.Le(gaussian_profile_expr(epsilon, sensitivity / sigma), delta)),
               "up", None, kernel="numeric.profiles:gaussian_sigma", latex_name=r"\sigma"),
    ),
    provenance="source",
    citation="Balle & Wang, Improving the Gaussian Mechanism (ICML 2018, arXiv:1805.06530), Thm 8 and "
             "Algorithm 1",
    tightness="exact up to the rounding of σ (the smallest σ, rounded up): δ_{Δ/σ}(ε) is strictly "
              "decreasing in σ",
    statement="The smallest σ with δ_{θ=Δ/σ}(ε) ≤ δ (T9). Found by a bracketed search in ln θ with a "
              "relative stopping rule; the result is verified with the upward-rounded T9 profile and "
              "moved up until the delivered δ is ≤ the target. ε = 0: σ = Δ/(2Φ⁻¹((1 + δ)/2)).",
    reductions=(
        Reduction("ε = 0 closed form: θ = 2Φ⁻¹((1 + δ)/2) = 2√2·erfinv(δ) delivers exactly δ",
                  gaussian_profile_expr(sp.Integer(0), 2 * sp.sqrt(2) * sp.erfinv(delta)), delta),
    ),
    public=("gaussian_sigma",),
))
