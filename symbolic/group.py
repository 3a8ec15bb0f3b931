"""Group privacy: SPEC T7 (Vadhan 2017, Lemma 2.2), and the black-box group profile of a bare (ε, δ)."""
from __future__ import annotations

import sympy as sp

from .core import Domain, Output, Parameter, Reduction, Theorem, register
from sympy.codegen.cfunctions import expm1

from .functions import DELTA, EPSILON, ExpMulScaled, Expm1Mul, delta, epsilon, k

GROUP_SIZE = Parameter("k", k, Domain(1.0, float("inf"), hi_open=True, integer=True), "group size k (distance between datasets)")

x = sp.Symbol("x", nonnegative=True)
i = sp.Symbol("i", nonnegative=True, integer=True)


def implied_profile(at: sp.Expr, eps: sp.Expr = epsilon, dlt: sp.Expr = delta) -> sp.Expr:
    """Profile of (ε, δ)-randomized response at ``at`` ∈ [0, ε]: δ + (1 − δ)(e^ε − e^x)/(1 + e^ε)."""
    return dlt + (1 - dlt) * (sp.exp(eps) - sp.exp(at)) / (1 + sp.exp(eps))


def group_profile_implied(group: sp.Expr, eps: sp.Expr = epsilon, dlt: sp.Expr = delta) -> sp.Expr:
    """Black-box group profile δ_{M,k}(ε) = min(1, (e^ε − 1)/(e^{ε/k} − 1)·δ_M(ε/k)) of a bare (ε, δ)."""
    ratio = (sp.exp(eps) - 1) / (sp.exp(eps / group) - 1)
    return sp.Min(1, ratio * implied_profile(eps / group, eps, dlt))


_delta_group = delta * (sp.exp(k * epsilon) - 1) / (sp.exp(epsilon) - 1)
ratio = sp.Symbol("ratio", positive=True)  # Σ_{j<k} e^{jε}, formed before multiplying by δ (no underflow)

T7 = register(Theorem(
    id="T7",
    name="Group privacy",
    relation="any",
    parameters=(EPSILON, DELTA, GROUP_SIZE),
    outputs=(
        Output("epsilon", k * epsilon, "up", ((sp.Eq(k, 1), epsilon), (sp.true, k * epsilon)),
               latex_name=r"\varepsilon_k"),
        Output("delta", _delta_group, "up", (
            (sp.Or(sp.Eq(k, 1), sp.Eq(delta, 0)), delta),
            (sp.Eq(epsilon, 0), k * delta),
            (sp.Eq(epsilon, sp.oo, evaluate=False), sp.Integer(1)),  # unevaluated: ε is declared finite
            # kε − ln ε ≤ 700 keeps ratio ≤ e^{kε}/ε below e^{700} (kε ≤ 700 alone overflowed for tiny ε)
            (k * epsilon - sp.log(epsilon) <= 700, delta * ratio),
            # log space: δ e^{(k−1)ε} (1 − e^{−kε}) / (1 − e^{−ε}), no overflow for any ε
            (sp.true, ExpMulScaled(delta, k - 1, epsilon,
                                   sp.log(-expm1(-k * epsilon)) - sp.log(-expm1(-epsilon)))),
        ), latex_name=r"\delta_k", at_most_one=True,
            let=((ratio, Expm1Mul(k, epsilon) / (sp.exp(epsilon) - 1)),)),
    ),
    provenance="source",
    citation="Vadhan 2017, Lemma 2.2",
    tightness="kε is attained (k independent randomized responses, δ = 0); the δ term is the standard "
              "black-box bound, not attained in general; white-box Laplace/Gaussian profiles (θ → kθ) are "
              "never worse",
    statement="If M is (ε, δ)-DP then for datasets at distance k it is (kε, δ·Σ_{j=0}^{k−1} e^{jε})-DP. "
              "A δ above 1 is reported as 1.",
    reductions=(
        Reduction("k = 1 is the identity (ε)", k * epsilon, epsilon, ((k, 1),)),
        Reduction("k = 1 is the identity (δ)", _delta_group, delta, ((k, 1),)),
        Reduction("closed form equals the sum δ Σ_{j<k} e^{jε}", _delta_group,
                  delta * sp.Sum(sp.exp(i * epsilon), (i, 0, k - 1)), ((k, 4),)),
        Reduction("black-box group profile at k = 1 is the implied profile δ",
                  group_profile_implied(k), sp.Min(1, delta), ((k, 1),)),
    ),
    public=("group_privacy",),
))
