"""ampbounds: formally-checked, soundly rounded bounds for differential-privacy amplification.

Every function returns an upper bound on the exact (ε, δ) (or, for inverses, a base budget rounded to the
safe side) or raises ``ValueError``.  See ``theorem(id)`` for each bound's statement and provenance,
``latex(id)`` for its formulas, and ``docs/theorems.md`` (generated from the records) for the full reference
of every theorem id (T1–T18) cited in the docstrings.  θ parameters are Δ/σ = 1/noise multiplier; every
function taking θ also takes ``noise_multiplier=``.  Importing this package loads neither sympy nor numba; kernels compile on
first use and are cached on disk.
"""
from ._core import Guarantee
from .composition import (  # issue 12: certified composition
    Composition,
    PoissonSampled,
    Sandwich,
    compose,
    dpsgd_max_steps,
    dpsgd_noise_multiplier,
    poisson_sampled,
)
from .crosschecking import (  # issue 13: cross-checking other accountants
    DiscretePairs,
    RateChange,
    Verdict,
    WithReplacement,
    WithoutReplacement,
    crosscheck,
    from_dp_event,
    from_opacus_history,
)
from .group import group_privacy
from .kanon import (
    eps1_safe_k_anonymization_delta,
    safe_k_anonymization_delta,
    safe_k_anonymization_max_beta,
    safe_k_anonymization_min_epsilon,
    safe_k_anonymization_min_k,
)
from .mechanisms import (  # profile-level T1–T4 for mechanism objects
    EpsDelta,
    Gaussian,
    Laplace,
    poisson_subsampling_profile,
    with_replacement_profile,
    without_replacement_profile,
)
from .missing import (
    FWLQuery,
    fwl_clipped_mean,
    fwl_covariance,
    fwl_histogram,
    fwl_linear,
    fwl_mean,
    fwl_projected_mean,
    fwl_ratio,
    missing_data,
    missing_data_corollary,
    missing_data_gaussian,
    missing_data_laplace,
)
from .poisson_substitution import poisson_substitution, poisson_substitution_profile
from .profiles import (
    gaussian_profile,
    gaussian_profile_inverse,
    gaussian_sigma,
    laplace_profile,
    laplace_profile_inverse,
)
from .registry import TheoremInfo, latex, theorem, theorems
from .subsampled_profiles import (  # SPEC T11
    subsampled_gaussian_profile,
    subsampled_gaussian_profile_inverse,
    subsampled_laplace_profile,
    subsampled_laplace_profile_inverse,
)
from .subsampling import (
    poisson_subsampling,
    poisson_subsampling_inverse,
    rate_change,
    with_replacement,
    without_replacement,
)
from .suppression import (
    SuppressionBound,
    deterministic_suppression,
    outlier_score_suppression,
    outlier_score_suppression_inverse,
    suppression_bound,
    suppression_sensitivity,
)

__version__ = "0.1.0"

__all__ = [
    "Composition",
    "DiscretePairs",
    "EpsDelta",
    "FWLQuery",
    "Gaussian",
    "Guarantee",
    "Laplace",
    "PoissonSampled",
    "RateChange",
    "Sandwich",
    "SuppressionBound",
    "TheoremInfo",
    "Verdict",
    "WithReplacement",
    "WithoutReplacement",
    "compose",
    "crosscheck",
    "deterministic_suppression",
    "dpsgd_max_steps",
    "dpsgd_noise_multiplier",
    "eps1_safe_k_anonymization_delta",
    "from_dp_event",
    "from_opacus_history",
    "fwl_clipped_mean",
    "fwl_covariance",
    "fwl_histogram",
    "fwl_linear",
    "fwl_mean",
    "fwl_projected_mean",
    "fwl_ratio",
    "gaussian_profile",
    "gaussian_profile_inverse",
    "gaussian_sigma",
    "group_privacy",
    "laplace_profile",
    "laplace_profile_inverse",
    "latex",
    "missing_data",
    "missing_data_corollary",
    "missing_data_gaussian",
    "missing_data_laplace",
    "outlier_score_suppression",
    "outlier_score_suppression_inverse",
    "poisson_sampled",
    "poisson_subsampling",
    "poisson_subsampling_inverse",
    "poisson_subsampling_profile",
    "poisson_substitution",
    "poisson_substitution_profile",
    "rate_change",
    "safe_k_anonymization_delta",
    "safe_k_anonymization_max_beta",
    "safe_k_anonymization_min_epsilon",
    "safe_k_anonymization_min_k",
    "subsampled_gaussian_profile",
    "subsampled_gaussian_profile_inverse",
    "subsampled_laplace_profile",
    "subsampled_laplace_profile_inverse",
    "suppression_bound",
    "suppression_sensitivity",
    "theorem",
    "theorems",
    "with_replacement",
    "with_replacement_profile",
    "without_replacement",
    "without_replacement_profile",
]

