"""Suppression of records (seed 000, Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26): SPEC T12
(deterministic suppression), T13 (general probabilistic suppression), T14 (outlier-score suppression).

T14's ε^S is a maximum over p ∈ [0, 1] of Λ1(p), Λ2(p), and Λ3.  The maximisers are 0, 1 or a real root of
the cubic numerator of dΛᵢ/dp; those cubics are *derived here by sympy* (``cubic_numerators``) and written
by ``numeric.generate_suppression`` into ``numeric/_generated/suppression_cubics.py`` together with the
stable float forms of the Λᵢ (``STABLE``), which ``proofs_checks.suppression_checks`` proves equal to the
SPEC forms.

Variables of the derivation: F = e^ε, q = e^{−ε} = 1/F, r = 1 − e^{−ε} = (F − 1)/F (so q + r = 1; both are
computed accurately in floats, and both are bounded for every ε ∈ [0, ∞], unlike F), d = M − m ≥ 0 (kept as
its own variable: every dΛᵢ/dp carries a factor d, divided out so that M ≈ m loses no digits).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .core import Constraint, Domain, Output, Parameter, Reduction, Theorem, register
from .functions import DELTA, EPSILON, amplify, delta, epsilon
from .group import _delta_group
from .group import k as group_k

# ----------------------------------------------------------------------------------------------- symbols
sensitivity = sp.Symbol("Delta", nonnegative=True, integer=True)
m = sp.Symbol("m", positive=True)
M = sp.Symbol("M", positive=True)
p = sp.Symbol("p", nonnegative=True)
F = sp.exp(epsilon)
j = sp.Symbol("j", nonnegative=True, integer=True)

# derivation / stable-form variables
q = sp.Symbol("q", nonnegative=True)  # e^{−ε}
r = sp.Symbol("r", nonnegative=True)  # 1 − e^{−ε}
d = sp.Symbol("d", nonnegative=True)  # M − m
om = sp.Symbol("om", positive=True)   # 1 − m
oM = sp.Symbol("oM", positive=True)   # 1 − M
eta = sp.Symbol("eta", positive=True)
oB = sp.Symbol("oB", positive=True)

# ------------------------------------------------------------------------------------------ T12 records
SENSITIVITY = Parameter("sensitivity", sensitivity, Domain(0.0, float("inf"), hi_open=True, integer=True),
                        "sensitivity Δ of the suppression S: largest neighbour-path distance in 𝕊 between "
                        "S(D) and S(D') over neighbours D, D' (inf: not DP)")

_t12_delta = _delta_group.xreplace({group_k: sensitivity})
_t12_delta_sum = delta * sp.Sum(sp.exp(j * epsilon), (j, 0, sensitivity - 1))  # proven equal for every Δ in
# proofs_checks.suppression_checks (sympy's Sum.doit is a Piecewise the generic reduction check cannot decide)
_ratio12 = sp.Symbol("ratio", positive=True)


def _t12_delta_branches():
    """T7's stable branches with k → Δ, plus the exact zero at Δ = 0 (S constant: M∘S is (0, 0)-DP)."""
    from sympy.codegen.cfunctions import expm1

    from .functions import ExpMulScaled, Expm1Mul
    D = sensitivity
    return (
        (sp.Or(sp.Eq(D, 0), sp.Eq(delta, 0)), sp.Integer(0)),
        (sp.Eq(D, 1), delta),
        (sp.Eq(epsilon, 0), D * delta),
        (sp.Eq(epsilon, sp.oo, evaluate=False), sp.Integer(1)),
        (D * epsilon - sp.log(epsilon) <= 700, delta * _ratio12),  # as T7: no overflow of the ratio
        (sp.true, ExpMulScaled(delta, D - 1, epsilon,
                               sp.log(-expm1(-D * epsilon)) - sp.log(-expm1(-epsilon)))),
    ), ((_ratio12, Expm1Mul(D, epsilon) / (sp.exp(epsilon) - 1)),)


_branches12, _let12 = _t12_delta_branches()

T12 = register(Theorem(
    id="T12",
    name="Deterministic suppression",
    relation="add/remove",
    parameters=(EPSILON, DELTA, SENSITIVITY),
    outputs=(
        Output("epsilon", sensitivity * epsilon, "up",
               ((sp.Eq(sensitivity, 0), sp.Integer(0)), (sp.Eq(sensitivity, 1), epsilon),
                (sp.true, sensitivity * epsilon)),
               latex_name=r"\varepsilon^{\mathcal{S}}"),
        Output("delta", _t12_delta, "up", _branches12, latex_name=r"\delta^{\mathcal{S}}", at_most_one=True,
               let=_let12),
    ),
    provenance="source",
    citation="Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26, Thm 5.1 (tightness: Prop B.1)",
    tightness="tight whenever δ^S < 1 (Prop B.1)",
    statement="S deterministic with S(𝔻) ⊆ 𝕊 ⊆ 𝔻, M restricted to 𝕊 is (ε, δ)-DP, Δ = Δ_𝕊S the largest "
              "neighbour-path distance inside 𝕊 between S(D) and S(D') over neighbours D, D'. Then M∘S is "
              "(Δε, δ·Σ_{k=0}^{Δ−1} e^{kε})-DP (the T7 closed form at k = Δ). Δ = 1 leaves the guarantee "
              "unchanged; Δ = ∞ means M∘S is not differentially private at all. A δ above 1 is reported as 1.",
    reductions=(
        Reduction("δ^S is T7's group-privacy δ at k = Δ", _t12_delta, _delta_group, ((sensitivity, group_k),)),
        Reduction("Δ = 1 leaves ε unchanged", sensitivity * epsilon, epsilon, ((sensitivity, 1),)),
        Reduction("Δ = 1 leaves δ unchanged", _t12_delta, delta, ((sensitivity, 1),)),
    ),
    public=("deterministic_suppression", "suppression_sensitivity"),
))

# ------------------------------------------------------------------------------------------ T13 record
T13 = register(Theorem(
    id="T13",
    name="General probabilistic suppression",
    relation="add/remove",
    parameters=(EPSILON, DELTA),
    outputs=(),  # not a closed form: an exact evaluator over a finite universe (bounds.suppression_bound)
    provenance="derived",
    citation="Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26, Thm 5.3 (lower bound: Prop B.8, Cor B.13)",
    tightness="per-algorithm; lower bound ε^S ≥ ln(1 + (e^ε − 1)·sup P{y ∈ S(D₊y)}) for every S",
    statement="Support condition: C ∈ supp S(D) ⇔ C ∈ supp S(D₊y) or C₊y ∈ supp S(D₊y). With "
              "a_C = P{S(D)=C}, b_C = P{S(D₊y)=C}, c_C = P{S(D₊y)=C₊y} for C ⊆ D: "
              "ε_{D',D} = ln max_C (b_C + e^ε c_C)/a_C, ε_{D,D'} = −ln min_C (b_C + e^{−ε} c_C)/a_C, "
              "ε^S = sup_{D,y} max(ε_{D',D}, ε_{D,D'}), "
              "δ^S = δ·sup_{D,y} max(P{y ∈ S(D₊y)}, Σ_C (a_C − e^{ε^S} b_C)₊).",
    public=("suppression_bound",),
))

# ------------------------------------------------------------------------------------------ T14 record
M_LOW = Parameter("m", m, Domain(0.0, 1.0, lo_open=True, hi_open=True),
                  "smallest deletion probability m = T(x, x) (0 < m ≤ M < 1)")
M_HIGH = Parameter("M", M, Domain(0.0, 1.0, lo_open=True, hi_open=True),
                   "largest deletion probability M (distance 1)")

s1 = p * M + (1 - p) * m
B = (M + m - p * M) / (2 - p)
s2 = p * M + (1 - p) * B
LAMBDA1 = sp.log(F - (F - 1) * s1) + p * M / m + (1 - p) * (1 - m) / (1 - s1) - 1
LAMBDA2 = sp.log(F - (F - 1) * s2) + p * M / m + (1 - p) * (1 - B) / (1 - M) - 1
LAMBDA3 = -sp.log(sp.exp(-epsilon) + (1 - sp.exp(-epsilon)) * M) + 1 - (1 - M) / (1 - m)
LAMBDA4 = -sp.log(sp.exp(-epsilon) + (1 - sp.exp(-epsilon)) * m) + 1 - m / M  # dominated (SPEC T14)
POISSON = amplify(1 - m)  # T1 at p = 1 − m
ENDPOINT_1 = sp.log(F - (F - 1) * M) + M / m - 1


class MaxOverP(sp.Function):
    """max_{p ∈ [0,1]} of an expression in p (not evaluated symbolically; a kernel computes it)."""

    nargs = 1

    def _latex(self, printer) -> str:
        return r"\max_{p \in [0, 1]} \left(" + printer._print(self.args[0]) + r"\right)"


EPSILON_S = sp.Max(MaxOverP(LAMBDA1), MaxOverP(LAMBDA2), LAMBDA3)


class Amplify(sp.Function):
    """A_η(ε) = ln(1 + η(e^ε − 1)), printed as log1p(η·expm1(ε)) (ε ≤ 709) or ``amplify_large``."""

    nargs = 2

    def definition(self) -> sp.Expr:
        e, h = self.args
        return sp.log(1 + h * (sp.exp(e) - 1))


class NegLogMix(sp.Function):
    """−ln(q + r·x) with q = e^{−ε}, r = 1 − e^{−ε}; args (q, r, x, 1 − x).  Printed as −log1p(−r(1 − x))
    when r(1 − x) ≤ 1/2, else −log(q + r·x) (a sum of nonnegative terms): accurate for every ε and x."""

    nargs = 4

    def definition(self) -> sp.Expr:
        qq, rr, x, _ = self.args
        return -sp.log(qq + rr * x)


MY_FUNCTIONS = (Amplify, NegLogMix)

# Stable float forms: every term a sum of nonnegative quantities (no cancellation), with the intermediates
# in evaluation order.  Symbols: p, ε, q, r, m, d = M − m, M, om = 1 − m, oM = 1 − M.
STABLE = {
    "lambda1": (((eta, p * oM + (1 - p) * om),),
                Amplify(epsilon, eta) + p * d * (1 / m + (1 - p) / eta)),
    "lambda2": (((oB, ((1 - p) * oM + om) / (2 - p)), (eta, p * oM + (1 - p) * oB)),
                Amplify(epsilon, eta) + p * d / m + (1 - p) * d / ((2 - p) * oM)),
    "lambda3": ((), NegLogMix(q, r, M, oM) + d / om),
    "lambda4": ((), NegLogMix(q, r, m, om) + d / M),
}
STABLE_ARGS = {"lambda1": ("p", "epsilon", "m", "d", "om", "oM"),
               "lambda2": ("p", "epsilon", "m", "d", "om", "oM"),
               "lambda3": ("q", "r", "M", "d", "om", "oM"),
               "lambda4": ("q", "r", "m", "d", "om", "M")}
SPEC_LAMBDAS = {"lambda1": LAMBDA1, "lambda2": LAMBDA2, "lambda3": LAMBDA3, "lambda4": LAMBDA4}
# substitutions that turn a stable form back into the SPEC variables
TO_SPEC = {q: sp.exp(-epsilon), r: 1 - sp.exp(-epsilon), d: M - m, om: 1 - m, oM: 1 - M}


def expand_mine(expr: sp.Basic) -> sp.Basic:
    """Replace ``Amplify``/``NegLogMix`` by their definitions."""
    return expr.replace(lambda e: isinstance(e, MY_FUNCTIONS), lambda e: e.definition())


def stable_to_spec(name: str) -> sp.Expr:
    """The stable form ``name`` with its intermediates and variables written in ε, m, M, p."""
    lets, expr = STABLE[name]
    for symbol, value in reversed(lets):
        expr = expr.xreplace({symbol: value})
    return expand_mine(expr).xreplace(TO_SPEC)


@lru_cache(maxsize=None)
def cubic_numerators() -> dict[str, tuple[tuple[sp.Expr, ...], sp.Expr, sp.Expr]]:
    """For Λ1 and Λ2: (coefficients c3, c2, c1, c0 in q, r, m, d; numerator N; denominator D) with
    dΛᵢ/dp = d·N(p)/D(p) identically after F → 1/q, F − 1 → r/q (``proofs_checks`` proves it).

    Derived by sympy: the log term ln(F − (F−1)s) is written ln(q + r(1 − s)) − ln q (the identity
    F − (F−1)s = (q + r(1−s))/q with q = 1/F, r = 1 − 1/F), M = m + d, the derivative is put over a
    common denominator, and the factor d is divided out.
    """
    out = {}
    for name, s in (("lambda1", s1), ("lambda2", s2)):
        spec = {"lambda1": LAMBDA1, "lambda2": LAMBDA2}[name]
        rest = spec - sp.log(F - (F - 1) * s)  # the rational part
        lam = (sp.log(q + r * (1 - s)) + rest).xreplace({M: m + d})
        num, den = sp.fraction(sp.cancel(sp.together(sp.diff(lam, p))))
        num = sp.cancel(num / d)
        poly = sp.Poly(sp.expand(num), p)
        if poly.degree() > 3:
            raise ArithmeticError(f"d{name}/dp numerator has degree {poly.degree()} > 3")
        coeffs = [sp.Integer(0)] * (3 - poly.degree()) + list(poly.all_coeffs())
        out[name] = (tuple(sp.factor(c) for c in coeffs), num, den)
    return out


_delta14 = (1 - m) * delta


class InverseEpsilonS(sp.Function):
    """ε'' with ε^S(ε'', m, M) = ε (computed by bisection; no closed form)."""

    nargs = 3

    def _latex(self, printer) -> str:
        e, lo, hi = (printer._print(a) for a in self.args)
        return rf"\left(\varepsilon^{{\mathcal{{S}}}}\right)^{{-1}}\!\left({e};\ {lo}, {hi}\right)"

T14 = register(Theorem(
    id="T14",
    name="Outlier-score suppression",
    relation="add/remove",
    parameters=(EPSILON, DELTA, M_LOW, M_HIGH),
    outputs=(
        Output("epsilon", EPSILON_S, "up", None, kernel="numeric.outlier_score:epsilon",
               latex_name=r"\varepsilon^{\mathcal{S}}"),
        Output("delta", _delta14, "up", ((sp.Eq(delta, 0), sp.Integer(0)), (sp.true, _delta14)),
               latex_name=r"\delta^{\mathcal{S}}"),
        Output("epsilon_base", InverseEpsilonS(epsilon, m, M), "down", None,
               kernel="numeric.outlier_score:epsilon_base", latex_name=r"\varepsilon''"),
        Output("delta_base", delta / (1 - m), "down", None, kernel="numeric.outlier_score:delta_base",
               latex_name=r"\delta''"),
    ),
    constraints=(Constraint("m", "<=", "M"),),
    provenance="recovered",
    citation="Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26, Thm 5.4 and Prop B.10 "
             "(formula recovered from the authors' code)",
    tightness="tight as |D| → ∞ when the maximum sits at p ∈ {0, 1} or at Λ3; possibly loose for interior p",
    statement="d: 𝒳×𝒳 → [0, 1] a metric (pseudometric fine; the bound is false without the triangle "
              "inequality), 0 < m ≤ M < 1, T(x, y) = m + (M − m)d(x, y), out_D(x) = (1/|D|)Σ_{y∈D} T(x, y); "
              "each x is deleted independently with probability out_D(x). If M is (ε, δ)-DP, M∘S is "
              "(ε^S, (1 − m)δ)-DP with ε^S = max{max_p Λ1(p), max_p Λ2(p), Λ3}. The inverse "
              "(epsilon_base, delta_base) is the base budget with ε^S(ε'', m, M) ≤ ε and δ'' = δ/(1 − m).",
    notes="Λ4 = −ln(e^{−ε} + (1 − e^{−ε})m) + 1 − m/M of the authors' analysis is dominated. "
          "ε^S(0, m, M) > 0 for m < M is an artifact of the bound.",
    reductions=(
        Reduction("M = m: Λ1 is T1 at p = 1 − m (every p)", LAMBDA1, POISSON, ((M, m),)),
        Reduction("M = m: Λ2 is T1 at p = 1 − m (every p)", LAMBDA2, POISSON, ((M, m),)),
        Reduction("Λ1(0) is the Poisson value (T1 at p = 1 − m)", LAMBDA1, POISSON, ((p, 0),)),
        Reduction("Λ1(1) = ln(F − (F−1)M) + M/m − 1", LAMBDA1, ENDPOINT_1, ((p, 1),)),
        Reduction("Λ2(1) = ln(F − (F−1)M) + M/m − 1", LAMBDA2, ENDPOINT_1, ((p, 1),)),
    ),
    public=("outlier_score_suppression", "outlier_score_suppression_inverse"),
))
