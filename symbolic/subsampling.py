"""Subsampling and rate change: SPEC T1 (Poisson), T2 (without replacement), T3/T4 (with replacement),
T5 (rate change)."""
from __future__ import annotations

import sympy as sp

from .core import Constraint, Domain, Output, Parameter, Reduction, Theorem, register
from .functions import (
    DELTA,
    EPSILON,
    UNIT,
    amplify,
    amplify_branches,
    amplify_inverse,
    amplify_inverse_branches,
    delta,
    epsilon,
    eta,
    m,
    n,
    rate,
    scaled_delta_branches,
)
from .group import group_profile_implied

RATE = Parameter("rate", rate, UNIT, "probability p that each record is kept (Poisson sampling)")
M_DRAWS = Parameter("m", m, Domain(0.0, float("inf"), hi_open=True, integer=True), "sample size m")
N_RECORDS = Parameter("n", n, Domain(1.0, float("inf"), hi_open=True, integer=True), "number of records n")

beta1 = sp.Symbol("beta_1", positive=True)
beta2 = sp.Symbol("beta_2", nonnegative=True)
j = sp.Symbol("j", positive=True, integer=True)

T1 = register(Theorem(
    id="T1",
    name="Poisson subsampling",
    relation="add/remove",
    parameters=(EPSILON, DELTA, RATE),
    outputs=(
        Output("epsilon", amplify(rate), "up", amplify_branches(rate), latex_name=r"\varepsilon'"),
        Output("delta", rate * delta, "up", scaled_delta_branches(rate), latex_name=r"\delta'",
               at_most_one=True),
        Output("epsilon_base", amplify_inverse(rate), "down", amplify_inverse_branches(rate),
               latex_name=r"\varepsilon_0"),
        Output("delta_base", delta / rate, "down",
               ((sp.Eq(rate, 0), sp.Integer(1)), (sp.Eq(delta, 0), sp.Integer(0)), (sp.true, delta / rate)),
               latex_name=r"\delta_0", at_most_one=True),
    ),
    provenance="source",
    citation="Li, Qardaji, Su 2012; Balle, Barthe, Gaboardi 2018 Thm 8; Steinke 2022",
    tightness="tight for every (ε, δ, p): attained by randomized response on the bit "
              "'is the differing record in the sample'",
    statement="If M is (ε, δ)-DP then M∘S_p (each record kept independently with probability p) is "
              "(ln(1 + p(e^ε − 1)), p·δ)-DP. Non-uniform rates p_x: use p = max_x p_x. The inverse "
              "(epsilon_base, delta_base) is the base budget that T1 maps to the target (ε, δ).",
    reductions=(
        Reduction("p = 1 leaves ε unchanged", amplify(rate), epsilon, ((rate, 1),)),
        Reduction("p = 0 gives ε' = 0", amplify(rate), sp.Integer(0), ((rate, 0),)),
        Reduction("inverse ∘ T1 = identity", amplify(rate, amplify_inverse(rate)), epsilon),
        Reduction("T1 ∘ inverse = identity", amplify_inverse(rate, amplify(rate)), epsilon),
    ),
    public=("poisson_subsampling", "poisson_subsampling_inverse"),
))

T2 = register(Theorem(
    id="T2",
    name="Sampling without replacement",
    relation="substitute",
    parameters=(EPSILON, DELTA, M_DRAWS, N_RECORDS),
    outputs=(
        Output("epsilon", amplify(m / n), "up", amplify_branches(eta), latex_name=r"\varepsilon'",
               let=((eta, m / n),)),
        Output("delta", m / n * delta, "up", scaled_delta_branches(eta), latex_name=r"\delta'",
               let=((eta, m / n),), at_most_one=True),
    ),
    constraints=(Constraint("m", "<=", "n"),),
    provenance="source",
    citation="Balle, Barthe, Gaboardi 2018 Thm 9",
    tightness="tight (randomized response on the membership bit of the substituted record)",
    statement="A uniformly random size-m subset of the n records, then an (ε, δ)-DP M: "
              "(ln(1 + (m/n)(e^ε − 1)), (m/n)·δ)-DP under substitution.",
    reductions=(
        Reduction("T2 is the T1 map at η = m/n", amplify(m / n), amplify(rate), ((rate, m / n),)),
        Reduction("m = n leaves ε unchanged", amplify(m / n), epsilon, ((m, n),)),
    ),
    public=("without_replacement",),
))

# η = 1 − (1 − 1/n)^m: probability that a given record is drawn at least once in m draws.
_eta_wr = 1 - (1 - 1 / n) ** m
_eta_wr_stable = 1 - sp.exp(m * sp.log(1 - 1 / n))  # → −expm1(m·log1p(−1/n))
_binom_term = sp.binomial(m, j) * n ** (-j) * (1 - 1 / n) ** (m - j)
_delta_wr = sp.Sum(_binom_term * group_profile_implied(j), (j, 1, m))

_with_replacement_common = dict(
    parameters=(EPSILON, DELTA, M_DRAWS, N_RECORDS),
    outputs=(
        Output("epsilon", amplify(_eta_wr), "up", amplify_branches(eta, zero=sp.Eq(m, 0)),
               latex_name=r"\varepsilon'",
               let=((eta, _eta_wr_stable),)),
        Output("delta", _delta_wr, "up", None, kernel="numeric.with_replacement:delta",
               latex_name=r"\delta'", at_most_one=True),
    ),
    reductions=(
        Reduction("m = 1: the ε map is T1 at η = 1/n", amplify(_eta_wr), amplify(rate),
                  ((m, 1), (rate, 1 / n))),
        # not ``_delta_wr.doit()``: sympy cannot sum it for a symbolic m and returns it unchanged after 2.7 s of
        # work at every import; the reduction check substitutes m = 1 and evaluates the one-term sum
        Reduction("m = 1: δ' = min(1, δ)/n = δ/n (the group profile at k = 1 is δ)", _delta_wr,
                  sp.Min(1, delta) / n,
                  ((m, 1),)),
        Reduction("η = 1 − (1 − 1/n)^m is the probability of being drawn at least once",
                  _eta_wr, sp.Sum(_binom_term, (j, 1, m)), ((m, 3),)),
    ),
    public=("with_replacement",),
)

T3 = register(Theorem(
    id="T3",
    name="Sampling with replacement",
    relation="substitute",
    provenance="recovered",
    citation="Balle, Barthe, Gaboardi 2018 Thm 10",
    tightness="tight for the group-profile form; with a bare (ε, δ) base the implied profile "
              "(randomized response) is used, which is the worst case for that (ε, δ)",
    statement="m draws with replacement from n records, then M: ε' = A_η(ε) with η = 1 − (1 − 1/n)^m and "
              "δ' = Σ_{k=1}^{m} C(m,k) n^{−k} (1 − 1/n)^{m−k} δ_{M,k}(ε), δ_{M,k} the group profile for "
              "distance k. Using δ_M instead of δ_{M,k} is unsound.",
    notes="With a bare (ε, δ) the group profile is δ_{M,k}(ε) = min(1, (e^ε − 1)/(e^{ε/k} − 1)·δ_M(ε/k)) with "
          "the implied profile δ_M(x) = δ + (1 − δ)(e^ε − e^x)₊/(1 + e^ε).",
    **_with_replacement_common,
))

T4 = register(Theorem(
    id="T4",
    name="Sampling with replacement, add/remove",
    relation="add/remove (base: substitute)",
    provenance="derived",
    citation="Balle, Barthe, Gaboardi 2018 Thm 11",
    tightness="conservative (n is the size of the larger neighbour); no guarantee uniform over sizes",
    statement="Same formula as T3 with n the size of the larger of the two neighbouring datasets; the base "
              "mechanism is DP under substitution, the output guarantee is under add/remove.",
    **_with_replacement_common,
))

T5 = register(Theorem(
    id="T5",
    name="Rate change",
    relation="add/remove",
    parameters=(
        EPSILON,
        DELTA,
        Parameter("rate_from", beta1, Domain(0.0, 1.0, lo_open=True), "rate β₁ the guarantee was proven at"),
        Parameter("rate_to", beta2, UNIT, "new, smaller rate β₂"),
    ),
    outputs=(
        Output("epsilon", amplify(beta2 / beta1), "up", amplify_branches(eta),
               latex_name=r"\varepsilon_2", let=((eta, beta2 / beta1),)),
        Output("delta", beta2 / beta1 * delta, "up", scaled_delta_branches(eta),
               latex_name=r"\delta_2", let=((eta, beta2 / beta1),), at_most_one=True),
    ),
    constraints=(Constraint("rate_to", "<=", "rate_from"),),
    provenance="source",
    citation="Li, Qardaji, Su 2012 Thm 1",
    tightness="tight (T1 is tight)",
    statement="An algorithm that is (ε₁, δ₁)-DP on a Poisson sample of rate β₁ is, on a sample of rate "
              "β₂ ≤ β₁, (ln(1 + (β₂/β₁)(e^{ε₁} − 1)), (β₂/β₁)·δ₁)-DP.",
    reductions=(
        Reduction("rate_from = 1 is T1", amplify(beta2 / beta1), amplify(rate), ((beta1, 1), (beta2, rate))),
        Reduction("Li et al.'s example: β = 0.1 turns ln 2 into ln 1.1",
                  amplify(beta2 / beta1), sp.log(sp.Rational(11, 10)),
                  ((epsilon, sp.log(2)), (beta1, 1), (beta2, sp.Rational(1, 10)))),
    ),
    public=("rate_change",),
))
