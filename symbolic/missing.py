"""Privacy amplification by missing data: SPEC T17 (MAR/MCAR missingness, any mechanism) and T18
(feature-wise Lipschitz queries with the Laplace and Gaussian mechanisms), Roburin, Pinot, Scornet,
*Privacy Amplification by Missing Data*, arXiv:2602.01928 (Thm 3.2, Thm 4.5, Cor 4.6, Thm 4.7).

T17 is the amplification map A_η of SPEC "Conventions" at η = p*, the probability that the differing
record is at least partially observed.  T18 is the same map at the reduced base budget ε₀ = r·ε, where
r = C̃/C is the FWL sensitivity ratio (``bounds.fwl_ratio``).  The product r·ε is never rounded before
the exponential: the moderate branch uses ``Expm1Mul`` (e^{r·ε} − 1 with r·ε in double-double), the first
large branch ``ExpMulScaled`` (p*·e^{r·ε} with ln p* + r·ε in double-double), and only where the result
exceeds ~700 (so a rounded r·ε costs at most a few ulps of it) is ``AmplifyLarge`` given fl(r·ε).
"""
from __future__ import annotations

import sympy as sp

from .core import Domain, Output, Parameter, Reduction, Theorem, register
from .functions import (
    DELTA,
    EPSILON,
    LARGE_EPSILON,
    UNIT,
    AmplifyLarge,
    ExpMulScaled,
    Expm1Mul,
    amplify,
    amplify_branches,
    delta,
    epsilon,
    rate,
    scaled_delta_branches,
)

p_star = sp.Symbol("p_{*}", nonnegative=True)
ratio = sp.Symbol("r", nonnegative=True)  # FWL sensitivity ratio C̃/C
rho = sp.Symbol("rho", positive=True)  # fraction of observed features per record
d = sp.Symbol("d", positive=True, integer=True)  # number of features
kk = sp.Symbol("k", positive=True, integer=True)
j = sp.Symbol("j", positive=True, integer=True)
L = sp.Symbol("L", positive=True)  # a common feature-wise Lipschitz constant

P_STAR = Parameter("p_star", p_star, UNIT,
                   "probability p* that the differing record is at least partially observed")
RATIO = Parameter("ratio", ratio, UNIT,
                  "FWL sensitivity ratio r = C̃/C (the ⌊ρd⌋ largest Lipschitz constants over their sum; "
                  "bounds.fwl_ratio)")

#: Corollary 4.6 (stated for r = ρ): ε₀' ≤ min((e − 1)p*, 1)·ρ·ε, valid for ρε ≤ 1 (or (e − 1)p* ≥ 1).
corollary_bound = sp.Min((sp.E - 1) * p_star, 1) * rho * epsilon

#: ε₀' of T18 (SPEC form): the T1 map at η = p*, applied to ε₀ = r·ε.
fwl_epsilon = amplify(p_star, ratio * epsilon)

_PRECONDITIONS = ("The missingness mechanism is MAR (a fortiori MCAR) and acts independently on each record; "
                  "p* is the probability that the differing record is at least partially observed (the same "
                  "for both neighbours under MAR, Lemma 3.1).")

T17 = register(Theorem(
    id="T17",
    name="Missing data (MAR/MCAR), any mechanism",
    relation="substitute",
    parameters=(EPSILON, DELTA, P_STAR),
    outputs=(
        Output("epsilon", amplify(p_star), "up", amplify_branches(p_star), latex_name=r"\varepsilon'"),
        Output("delta", p_star * delta, "up", scaled_delta_branches(p_star), latex_name=r"\delta'"),
    ),
    provenance="source",
    citation="Roburin, Pinot, Scornet, arXiv:2602.01928, Thm 3.2 (p* = 1: Prop B.3)",
    tightness="tight: attained by randomized response on a bit of the differing record's observed values "
              "(observed with probability p*); at p* = 1 there is no amplification in general (Prop B.3)",
    statement="If A is (ε, δ)-DP on incomplete datasets (substitute one record) and the missing-data "
              "mechanism D is MAR or MCAR, independent per record, then A∘D is "
              "(ln(1 + p*(e^ε − 1)), p*·δ)-DP, p* the probability that the differing record is at least "
              "partially observed. " + _PRECONDITIONS,
    reductions=(
        Reduction("T17 is the T1 map at η = p* (ε)", amplify(p_star), amplify(rate), ((rate, p_star),)),
        Reduction("T17 is the T1 map at η = p* (δ)", p_star * delta, rate * delta, ((rate, p_star),)),
        Reduction("p* = 1 gives no amplification (ε)", amplify(p_star), epsilon, ((p_star, 1),)),
        Reduction("p* = 1 gives no amplification (δ)", p_star * delta, delta, ((p_star, 1),)),
        Reduction("p* = 0 (differing record never observed) gives ε' = 0", amplify(p_star), sp.Integer(0),
                  ((p_star, 0),)),
    ),
    public=("missing_data",),
))

_fwl_epsilon_branches = (
    (sp.Or(sp.Eq(p_star, 0), sp.Eq(epsilon, 0), sp.Eq(ratio, 0)), sp.Integer(0)),
    (ratio * epsilon <= LARGE_EPSILON, sp.log(1 + p_star * Expm1Mul(ratio, epsilon))),
    # r·ε > 709 but p*·e^{rε} ≤ e^{700}: p*·e^{rε} from the double-double exponent ln p* + r·ε
    (ratio * epsilon + sp.log(p_star) <= 700, sp.log(1 + (ExpMulScaled(p_star, ratio, epsilon, 0) - p_star))),
    # the result exceeds ~700 here, and r·ε ≤ result + 745, so fl(r·ε) costs at most ~1 ulp of it
    (sp.true, AmplifyLarge(ratio * epsilon, p_star)),
)

T18 = register(Theorem(
    id="T18",
    name="Missing data, FWL queries (Laplace, Gaussian)",
    relation="substitute",
    parameters=(EPSILON, DELTA, P_STAR, RATIO),
    outputs=(
        Output("epsilon", fwl_epsilon, "up", _fwl_epsilon_branches, latex_name=r"\varepsilon_0'"),
        Output("delta", p_star * delta, "up", scaled_delta_branches(p_star), latex_name=r"\delta'"),
    ),
    provenance="source",
    citation="Roburin, Pinot, Scornet, arXiv:2602.01928, Thm 4.5 (Laplace), Thm 4.7 (Gaussian), Cor 4.6",
    tightness="not claimed (the per-mask sensitivity bound C̃ may be loose for a given query)",
    statement="f feature-wise Lipschitz (FWL) with constants L_j, records bounded by B, at most a fraction ρ "
              "of the d features of a record observed; r = Σ_{j≤⌊ρd⌋} L_(j) / Σ_j L_j (L_(j) "
              "non-increasing), ε₀ = r·ε. Laplace noise of scale C₁/ε (C₁ = 2BΣL_j): "
              "(ln(1 + p*(e^{ε₀} − 1)), 0)-DP. Gaussian noise σ = C₂c/ε with c² > 2 ln(1.25/δ) and ε ≤ 1: "
              "(ln(1 + p*(e^{ε₀} − 1)), p*·δ)-DP. Corollary 4.6 (r = ρ, ρε ≤ 1): "
              "ε₀' ≤ min((e − 1)p*, 1)·ρ·ε. " + _PRECONDITIONS,
    notes="The delta output is the Gaussian mechanism's δ' (the Laplace mechanism's is 0). Equal constants "
          "and ρd an integer give r = ρ. Corollary 4.6 needs ρε ≤ 1 unless (e − 1)p* ≥ 1: at ρε = 3, "
          "p* = 0.01 it is false (ln(1 + 0.01(e³ − 1)) = 0.175 > 0.0515).",
    reductions=(
        Reduction("ratio = 1 gives T17", fwl_epsilon, amplify(p_star), ((ratio, 1),)),
        Reduction("p* = 1 and ratio = 1 give no amplification", fwl_epsilon, epsilon,
                  ((p_star, 1), (ratio, 1))),
        Reduction("p* = 1: masking alone reduces ε to r·ε", fwl_epsilon, ratio * epsilon, ((p_star, 1),)),
        Reduction("T18 is the T1 map at η = p* and base ε₀ = r·ε", fwl_epsilon, amplify(rate, ratio * epsilon),
                  ((rate, p_star),)),
        Reduction("equal constants L_j = L give r = ⌊ρd⌋/d",
                  sp.Sum(L, (j, 1, sp.floor(rho * d))) / sp.Sum(L, (j, 1, d)), sp.floor(rho * d) / d),
        Reduction("equal constants and ρd = k an integer give r = ρ", sp.floor(rho * d) / d, rho,
                  ((rho, kk / d),)),
        Reduction("Corollary 4.6 at p* = 1 is ρε", corollary_bound, rho * epsilon, ((p_star, 1),)),
        Reduction("Corollary 4.6 for p* ≤ 1/(e − 1) is (e − 1)p*ρε", corollary_bound,
                  (sp.E - 1) * p_star * rho * epsilon, ((p_star, 1 / (sp.E - 1) * sp.Rational(1, 2)),)),
    ),
    public=("missing_data_gaussian", "missing_data_laplace", "missing_data_corollary", "fwl_ratio"),
))
