"""Per-kernel error budgets, in ulps (one ``nextafter`` step each), by which results are rounded outward.

Two kinds (issue 10 audit; README's accuracy table lists each with its peak):
- *derived*: a per-operation error bound written beside the number (T7/T12 δ below; T3/T4 δ and T15 use
  running error bounds instead of a fixed budget, see ``numeric.binomial``);
- *measured*: at least the peak error against 50-digit mpmath references over the certify grids and the
  adversarial search (``proofs_checks.accuracy``, ``proofs_checks.adversarial``; each fails if an error
  exceeds its budget or a rounded value is on the unsafe side), with the margin shown in the README.
The generator writes these numbers into the kernels.
"""
from .profiles import BUDGETS as _PROFILES  # SPEC T8–T10: hand-written kernels keep theirs beside them
from .subsampled_profiles import BUDGETS as _SUBSAMPLED_PROFILES  # SPEC T11
from .with_replacement import BUDGET_ULPS as _WITH_REPLACEMENT

# T7/T12 δ_k = δ(e^{kε} − 1)/(e^ε − 1): a derived bound, replacing a fitted 6 that failed (issue 10:
# group_privacy(3.648459489611467e-12, 1.541625e-317, 192037303795183)).  u = 2⁻⁵³; one ulp at x is ≥ u|x|, so a
# relative error r is ≤ r/u ulps.
# Since issue 14 (libm-free, vectorised): ONE branch for every 0 < ε < ∞ (after δ = 0, k = 1, ε = 0, ε = ∞),
# numeric.elementary.group_delta: kε = p + e exactly; e^p − 1 = 2^K·σ_n and e^ε − 1 = 2^{K_d}·σ_d, σ in
# double-double within 0.417u (the reduction of numeric.elementary.expm1 without its final rounding, as in
# amplify, its polynomial in Estrin's scheme with fused multiply-adds: 6.765u on d (issue 20's per-term count, one
# rounding per FMA; 7.87u without FMAs, 22.1u before) instead of Horner's 5.46u); N = σ_n + (σ_n + 2^{−K})·e ≤
# 1.417u; D = σ_d rounded ≤ 1.417u; N/D and ×mantissa(δ) 2u; the
# power of two 2^{K − K_d + exponent(δ)} exact for a normal result: ≤ 4.834u ≤ 5.8u (GROUP_DELTA_BOUND_U; proof in its
# docstring); a subnormal result rounds once more (≤ ½ step), and kε > 1490 gives inf (there δ_k > 1; min → 1).
# So 8 (``up`` moves ≥ 8 steps: ≥ 8u|x| relative, and ≥ 8 steps of 2⁻¹⁰⁷⁴ for subnormals) holds with margin,
# now also where the log-space branch had 130: that branch (and its logarithms) is gone from the kernels.
#
# Before issue 14 (libm, kept for the record): libm exp, expm1, log assumed within 1 ulp (≤ 2u relative);
# - kε − ln ε ≤ 700: δ·expm1_mul(k, ε)/expm1(ε): expm1_mul ≤ 3u', expm1(ε) 2u, ÷ u, ×δ u: ≤ 7u' (u' = 1.01u);
# - otherwise exp_mul_scaled(δ, k − 1, ε, τ), τ = −ln(1 − e^{−ε}) + ln(1 − e^{−kε}): the exponent's rest
#   ≤ 124.6u absolute (ln 2u·30.3 the largest term), exp(head)·exp(rest) ≤ 5u: ≤ 129.6u' → 130 ulps.
#   (With numeric.elementary's exp ≤ 1.16u, log ≤ 1.40u, expm1 ≤ 1.38u it would be ≤ 109u'; not used: every
#   point would evaluate both branches, ten exp/log evaluations, slower than libm.)
GROUP_DELTA = 8

BUDGETS: dict[str, int] = {
    # T1/T2/T5/T6/T17 ε = A_η(ε): derived since issue 14.  numeric.elementary.amplify (one straight-line exp
    # reduction and logarithm, e^ε − 1 and η(e^ε − 1) in double-double, no libm) has |error| ≤ 2.76u·A + 2⁻¹⁰⁷⁴
    # (≤ 1.76u·A + 2⁻¹⁰⁷⁴ for ε ≤ 1400; ≤ 2.5 steps of 2⁻¹⁰⁷⁴ + 1.59u·A for subnormal A), i.e. ≤ 2.76 ulps on an
    # exact η (T1, T6, T17); amplify_quotient (T2's m/n, T5's rate_to/rate_from: η's power of two from numerator
    # and denominator, the mantissas' quotient rounded once) ≤ 3.76 ulps.  Proofs in their docstrings (issue 20:
    # Estrin's scheme for both polynomials, Fast2Sums and fused multiply-adds for speed; the bounds were 2.80 and
    # 3.80 ulps with Horner's scheme, 2.89 and 3.89 before the FMAs, the budgets of 4 hold in each case).  They were
    # measured 4s, and T5's was unsound where rate_to/rate_from is subnormal (η rounded to a subnormal double:
    # rate_change(702.65, δ, 0.8594, 1e-323) was 14 % low; tests/numeric/test_elementary.py).
    "t1_epsilon": 4,
    "t1_delta": 1,
    "t1_epsilon_base": 4,
    "t1_delta_base": 1,
    "t2_epsilon": 4,  # derived (see t1_epsilon)
    "t2_delta": 2,
    "t3_epsilon": 6,
    "t3_delta": _WITH_REPLACEMENT,
    "t4_epsilon": 6,
    "t4_delta": _WITH_REPLACEMENT,
    "t5_epsilon": 4,  # derived (see t1_epsilon)
    "t5_delta": 2,
    "t7_epsilon": 1,
    "t7_delta": GROUP_DELTA,
    "t17_epsilon": 4,  # derived: the T1 map on an exact η (see t1_epsilon)
    "t17_delta": 1,
    "t18_epsilon": 4,
    "t18_delta": 1,
    "t12_epsilon": 1,
    "t12_delta": GROUP_DELTA,  # the T7 kernel with k → Δ
    "t14_epsilon": 16,  # numeric.outlier_score reads it from here
    "t14_delta": 2,
    "t14_epsilon_base": 128,  # bisection on the rounded-up forward map; measured 36 on well-conditioned targets
    "t14_delta_base": 1,
    "t6_epsilon": 4,  # SPEC T6: the T1 map A_γ(ε) on an exact γ: derived (see t1_epsilon)
    "t6_delta": 4,  # SPEC T6: measured peak 2.35 on the certify grid, 2.66 on 2e4 random points
}
# budgets of the log-space branches (those calling exp_mul_scaled) where they differ from the output's
# (T7/T12 δ had 130 here until issue 14: their elementary kernel has one branch, within 5.8u everywhere; see above)
LOG_SPACE_BUDGETS: dict[str, int] = {}

BUDGETS.update(_PROFILES)
BUDGETS.update(_SUBSAMPLED_PROFILES)

# What bounds each theorem's returned values (issue 21; README "What is certified, and what is not"; printed
# by `ampbounds certify`).  "derived": every rounding of the theorem's outputs is covered by a per-operation
# proof beside the code, a running error bound computed with the value, exact directed rounding or exact
# arithmetic.  "measured": at least one budget is a peak error against ≥ 50-digit references over the certify
# grids and the adversarial search (with the margin in the README) — evidence, not a proof.  The note says which
# output is which and what is assumed.
BUDGET_PROVENANCE: dict[str, tuple[str, str]] = {
    "T1": ("derived", "ε ≤ 2.76 ulps (numeric.elementary.amplify, libm-free); δ exact directed rounding; "
                      "inverse checked against the rounded forward map"),
    "T2": ("measured", "ε derived ≤ 3.76 ulps; δ 2 ulps measured"),
    "T3": ("measured", "ε' 6 ulps measured (margin 1.6×); δ' running error bound (derived)"),
    "T4": ("measured", "ε' 6 ulps measured (margin 1.6×); δ' running error bound (derived)"),
    "T5": ("measured", "ε derived ≤ 3.76 ulps; δ 2 ulps measured"),
    "T6": ("measured", "ε derived ≤ 2.76 ulps; δ 4 ulps measured (margin 1.6×)"),
    "T7": ("derived", "kε exact upward rounding; δ_k ≤ 5.8u (numeric.elementary.group_delta)"),
    "T8": ("measured", "δ and ε at δ: 4 ulps measured (libm exp/expm1/log)"),
    "T9": ("measured", "δ 40 ulps measured (margin 9.2×) over erfcx (derived ≤ 2.1u); ε at δ 16 ulps measured"),
    "T10": ("measured", "σ verified at the T9 profile rounded up (T9's measured budget)"),
    "T11": ("measured", "running bound on the double-double argument, then 64 (Gaussian) / 8 (Laplace) ulps "
                        "measured; libm assumed within the budget"),
    "T12": ("derived", "the T7 kernel (≤ 5.8u) and exact ε"),
    "T13": ("derived", "exact rational arithmetic (Fraction), e^ε rounded up"),
    "T14": ("measured", "ε^S 16, δ^S 2 ulps measured; interior maxima bounded over certified brackets (derived "
                        "curvature bound); open gap: maxima whose two roots the float cubic merges are not "
                        "bracketed; inverse budget 128 (measured 36)"),
    "T15": ("derived", "running error bound E (numeric.binomial, numeric.kanon); exact integer decisions"),
    "T16": ("derived", "T15's kernel at ε − ε₁ taken exactly"),
    "T17": ("derived", "ε ≤ 2.76 ulps (the T1 map on an exact η); δ exact"),
    "T18": ("measured", "ε₀' 4 ulps measured"),
    "C1": ("derived", "proof note docs/composition_proof.md; assumes libm erfc/exp/expm1/log1p within 8 ulps, "
                      "the T8/T9/T11 kernel budgets (measured) and Higham's FFT bound for pocketfft (×4)"),
    "C2": ("derived", "proof notes docs/samplers/*.md; rounds composed by C1 (its assumptions: libm, the T9/T11 "
                      "kernel budgets (measured), Higham's FFT bound); T-fold balls-and-bins sums by long-double "
                      "FFT with the proven error bound; shuffling certifies a lower side only"),
}
