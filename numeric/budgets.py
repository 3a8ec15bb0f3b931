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
# group_privacy(3.648459489611467e-12, 1.541625e-317, 192037303795183)).  u = 2⁻⁵³; libm exp, expm1, log
# within 1 ulp (≤ 2u relative); one ulp at x is ≥ u|x|, so a relative error r is ≤ r/u ulps.
# - kε − ln ε ≤ 700 (so the ratio ≤ e^{kε}/ε stays below e^{700}): δ·expm1_mul(k, ε)/expm1(ε).
#   expm1_mul: k·ε = hi + lo exactly, expm1(hi) 2u, (1 + head)·lo adds the first-order part of lo
#   (|lo| ≤ u|hi|; the rest is O(u²)), its rounding and the sum ≤ u: ≤ 3u'; expm1(ε) 2u; ÷ u; ×δ u: ≤ 7u'
#   (u' = 1.01u).
# - otherwise: exp_mul_scaled(δ, k − 1, ε, τ), τ = −ln(1 − e^{−ε}) + ln(1 − e^{−kε}).  Since k ≤ 2⁵³ and
#   kε > 700 + ln ε, ε > 7.4e-14, so 0 ≤ −ln(1 − e^{−ε}) ≤ 30.3, and kε > 669, so ln(1 − e^{−kε}) rounds
#   to 0 (|·| < e^{−669}, far below u²).  The exponent ln δ + (k − 1)ε + τ is carried as head
#   (expo·ln2_hi + hi, its TwoSum error exact) plus rest; the absolute error of rest: expm1 2u (d ln a/da
#   · a = 1) + ln 2u·30.3 + the τ sum u·30.3 + ln(mant) 2u·0.35 + partial sums u·(0.35 + 30.7)
#   ≤ 124.6u; exp(head), exp(rest) and their product ≤ 5u.  Relative error ≤ 129.6u' < 130u·(1 + 2⁻¹⁰),
#   i.e. ≤ 130 ulps (a ulp is ≥ u|x|, and ``up`` adds ≥ 2·130u|x|).  A half ulp of τ ≈ 26 alone is ~7
#   ulps of the result: the fitted 6 could not hold.  This branch's results are normal doubles
#   ((k − 1)ε ≥ 350 there), so the absolute floor of ``up`` for subnormals is not needed.
# The direct branch gets 8 (≥ 7.07u' relative, and ≥ the ½-step rounding of a subnormal δ·ratio), the
# log-space branch (the one calling exp_mul_scaled) 130: ``LOG_SPACE_BUDGETS``.
GROUP_DELTA = 8
GROUP_DELTA_LOG_SPACE = 130

BUDGETS: dict[str, int] = {
    # T1/T2/T5/T6/T17 ε = A_η(ε): derived since issue 14.  numeric.elementary.amplify (one straight-line exp
    # reduction and logarithm, e^ε − 1 and η(e^ε − 1) in double-double, no libm) has |error| ≤ 2.80u·A + 2⁻¹⁰⁷⁴
    # (≤ 1.80u·A + 2⁻¹⁰⁷⁴ for ε ≤ 1400; ≤ 2.5 steps of 2⁻¹⁰⁷⁴ for subnormal A), i.e. ≤ 2.80 ulps on an exact η
    # (T1, T6, T17); amplify_quotient (T2's m/n, T5's rate_to/rate_from: η's power of two from numerator and
    # denominator, the mantissas' quotient rounded once) ≤ 3.80 ulps.  Proofs in their docstrings.  They were
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
LOG_SPACE_BUDGETS: dict[str, int] = {"t7_delta": GROUP_DELTA_LOG_SPACE, "t12_delta": GROUP_DELTA_LOG_SPACE}

BUDGETS.update(_PROFILES)
BUDGETS.update(_SUBSAMPLED_PROFILES)
