"""Poisson subsampling under the substitute relation: SPEC T6 (profile level, *derived*).

Statement (SPEC T6): with e^{ε'} = 1 + γ(e^ε − 1) and β = e^{ε' − ε},
δ' ≤ γ[(1 − β)·δ^{(r)}_M(ε) + β·δ^{(s)}_M(ε)], δ^{(r)}, δ^{(s)} the profiles of M at ε for add/remove and for
substitute neighbours.

Provenance: the paper's supplementary statement was not recovered; this is the library's own bound,
reconstructed from the proof strategy of Balle, Barthe, Gaboardi 2018 (advanced joint convexity of the
hockey-stick divergence) and verified by brute force (``proofs_checks.poisson_substitution_checks``).

Stable evaluation: β = e^{−ε} + γ(1 − e^{−ε}) and 1 − β = (1 − γ)(1 − e^{−ε}), with u = 1 − e^{−ε} =
−expm1(−ε) ∈ [0, 1] computed first (``let``).  Then
δ' = γ[(1 − γ)·u·δ_r + (e^{−ε} + γ·u)·δ_s]: every factor lies in [0, 1] and every sum adds nonnegative terms,
so there is neither cancellation nor overflow for any ε ∈ [0, ∞] (ε = ∞ gives u = 1, e^{−ε} = 0).
"""
from __future__ import annotations

import sympy as sp

from .core import Output, Parameter, Reduction, Theorem, register
from .functions import EPSILON, UNIT, amplify, amplify_branches, delta, epsilon, rate

gamma = sp.Symbol("gamma", nonnegative=True)
delta_r = sp.Symbol("delta_r", nonnegative=True)
delta_s = sp.Symbol("delta_s", nonnegative=True)
u = sp.Symbol("u", nonnegative=True)  # 1 − e^{−ε}, an intermediate of the kernel (``let``)

RATE = Parameter("rate", gamma, UNIT, "probability γ that each record is kept (Poisson sampling)")
DELTA_REMOVE = Parameter("delta_remove", delta_r, UNIT,
                         "profile δ^(r)_M(ε) of the base mechanism for add/remove neighbours, at ε")
DELTA_SUBSTITUTE = Parameter("delta_substitute", delta_s, UNIT,
                             "profile δ^(s)_M(ε) of the base mechanism for substitute neighbours, at ε")

# SPEC form: β = e^{ε' − ε} with ε' = A_γ(ε)
beta_spec = sp.exp(amplify(gamma) - epsilon)
delta_spec = gamma * ((1 - beta_spec) * delta_r + beta_spec * delta_s)
# stable forms of β and 1 − β (proven equal to the SPEC forms by the reductions below)
beta_stable = sp.exp(-epsilon) + gamma * (1 - sp.exp(-epsilon))
one_minus_beta_stable = (1 - gamma) * (1 - sp.exp(-epsilon))
# the kernel's general branch, written with the intermediate u = 1 − e^{−ε} (→ −expm1(−ε))
delta_general = gamma * ((1 - gamma) * u * delta_r + (sp.exp(-epsilon) + gamma * u) * delta_s)

NOTES = ("Provenance 'derived': the paper's supplementary statement was not recovered; this is this library's "
         "own bound, reconstructed and verified by brute force. Derivation: for substitute neighbours "
         "x = D + z, x' = D + z' and a fixed Poisson sample of D, the outputs are μ = (1 − γ)μ₀ + γμ₁ and "
         "μ' = (1 − γ)μ₀ + γμ₁' (μ₀: z/z' not sampled, μ₁: z sampled, μ₁': z' sampled). Advanced joint convexity "
         "(Balle, Barthe, Gaboardi 2018, Thm 2) gives H_{e^ε'}(μ‖μ') = γ·H_{e^ε}(μ₁‖(1 − β)μ₀ + βμ₁'); convexity "
         "of H in its second argument bounds this by γ[(1 − β)H_{e^ε}(μ₁‖μ₀) + βH_{e^ε}(μ₁‖μ₁')], where "
         "(μ₁, μ₀) are add/remove neighbours and (μ₁, μ₁') substitute neighbours; joint convexity averages over "
         "the sample of D, and swapping z and z' gives the other direction. Brute force: exact rationals on "
         "kernels of b(S) = [z ∈ S] − [z' ∈ S] (proofs_checks.poisson_substitution_checks). "
         "Stable evaluation: β = e^{−ε} + γ(1 − e^{−ε}), 1 − β = (1 − γ)(1 − e^{−ε}), u = −expm1(−ε); "
         "δ' = γ[(1 − γ)uδ_r + (e^{−ε} + γu)δ_s] adds nonnegative terms only.")

T6 = register(Theorem(
    id="T6",
    name="Poisson subsampling under substitution",
    relation="substitute",
    parameters=(EPSILON, RATE, DELTA_REMOVE, DELTA_SUBSTITUTE),
    outputs=(
        Output("epsilon", amplify(gamma), "up", amplify_branches(gamma), latex_name=r"\varepsilon'"),
        Output("delta", delta_spec, "up",
               ((sp.Eq(gamma, 0), sp.Integer(0)),
                (sp.Eq(gamma, 1), delta_s),
                (sp.Or(sp.Eq(epsilon, 0), sp.Eq(delta_r, delta_s)), gamma * delta_s),
                (sp.true, delta_general)),
               latex_name=r"\delta'", at_most_one=True,
               let=((u, 1 - sp.exp(-epsilon)),)),
    ),
    provenance="derived",
    citation="this library's own bound, from the proof strategy of Balle, Barthe, Gaboardi 2018 "
             "(advanced joint convexity, Thm 2); the paper's supplementary statement was not recovered",
    tightness="not tight in general (the convexity step in the second argument can lose): the brute force "
              "attains it on some instances with δ_r ≠ δ_s (staircase kernels) and on most with δ_r = δ_s, and "
              "misses it elsewhere. Where δ_s is small and δ_r is not, γ·δ_s(ε') (joint convexity without "
              "amplification, also valid) can be smaller; γ·δ_s(ε) alone is NOT valid (brute-force instance)",
    statement="Poisson subsampling at rate γ of a mechanism M with add/remove profile δ^(r)_M and substitute "
              "profile δ^(s)_M, under the substitute relation: with e^{ε'} = 1 + γ(e^ε − 1) and "
              "β = e^{ε' − ε}, δ_{M∘S}(ε') ≤ γ[(1 − β)·δ^(r)_M(ε) + β·δ^(s)_M(ε)].",
    notes=NOTES,
    reductions=(
        Reduction("ε' is the T1 map A_γ(ε)", amplify(gamma), amplify(rate), ((rate, gamma),)),
        Reduction("stable β: e^{ε' − ε} = e^{−ε} + γ(1 − e^{−ε})", beta_spec, beta_stable),
        Reduction("stable 1 − β = (1 − γ)(1 − e^{−ε})", 1 - beta_spec, one_minus_beta_stable),
        Reduction("γ = 1 (no subsampling) gives δ_s", delta_spec, delta_s, ((gamma, 1),)),
        Reduction("γ = 0 gives δ' = 0", delta_spec, sp.Integer(0), ((gamma, 0),)),
        Reduction("γ = 0 gives ε' = 0", amplify(gamma), sp.Integer(0), ((gamma, 0),)),
        Reduction("ε = 0 gives β = 1 and δ' = γδ_s", delta_spec, gamma * delta_s, ((epsilon, 0),)),
        Reduction("δ_r = δ_s = δ gives the T1 profile form γδ", delta_spec, gamma * delta,
                  ((delta_r, delta), (delta_s, delta))),
        Reduction("δ_s = 0 gives γ(1 − β)δ_r = γ(1 − γ)(1 − e^{−ε})δ_r", delta_spec,
                  gamma * one_minus_beta_stable * delta_r, ((delta_s, 0),)),
        Reduction("ε → ∞ gives γ[(1 − γ)δ_r + γδ_s]", sp.Limit(delta_spec, epsilon, sp.oo),
                  gamma * ((1 - gamma) * delta_r + gamma * delta_s)),
        Reduction("∂δ'/∂ε = γ(1 − γ)e^{−ε}(δ_r − δ_s) (increasing in ε iff δ_r > δ_s)",
                  sp.diff(delta_spec, epsilon), gamma * (1 - gamma) * sp.exp(-epsilon) * (delta_r - delta_s)),
        Reduction("∂δ'/∂γ = (1 − 2γ)(1 − e^{−ε})δ_r + (e^{−ε} + 2γ(1 − e^{−ε}))δ_s (≥ δ_r ≥ 0 when δ_s ≥ δ_r)",
                  sp.diff(delta_spec, gamma),
                  (1 - 2 * gamma) * (1 - sp.exp(-epsilon)) * delta_r
                  + (sp.exp(-epsilon) + 2 * gamma * (1 - sp.exp(-epsilon))) * delta_s),
    ),
    public=("poisson_substitution", "poisson_substitution_profile"),
))
