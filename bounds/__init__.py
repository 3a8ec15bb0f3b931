"""ampbounds: formally-checked, soundly rounded bounds for differential-privacy amplification.

Every function returns an upper bound on the exact (ε, δ) (or, for inverses, a base budget rounded to the
safe side) or raises ``ValueError``.  See ``theorem(id)`` for each bound's statement and provenance,
``latex(id)`` for its formulas, and ``docs/theorems.md`` (generated from the records) for the full reference
of every theorem id (T1–T18) cited in the docstrings.  θ parameters are Δ/σ = 1/noise multiplier; every
function taking θ also takes ``noise_multiplier=``.  Importing this package loads neither sympy nor numba, and
each public name's submodule is imported on first access; the first scalar calls of a kernel run its source
as plain Python (``numeric.pure``), later calls and arrays the numba kernels, compiled on first use and cached
on disk.
"""
from ._core import Guarantee
# A public name equal to its submodule's name is bound now: importing the submodule first (say through
# ``import bounds.poisson_substitution``) would otherwise leave the module, not the function, under that name.
from .poisson_substitution import poisson_substitution

# Every public name → the submodule defining it, imported on first access (PEP 562 module __getattr__):
# ``import bounds`` loads only numpy and the record metadata (issue 14: start-up), not composition,
# cross-checking, suppression... (≈ 60 ms of CPU in all).
_LAZY = {
    "Composition": "composition",
    "PoissonSampled": "composition",
    "Sandwich": "composition",
    "compose": "composition",
    "CalibrationStep": "calibration",
    "dpsgd_max_steps": "calibration",
    "dpsgd_noise_multiplier": "calibration",
    "sampler_noise_multiplier": "calibration",
    "poisson_sampled": "composition",
    "balls_and_bins": "samplers",
    "cyclic": "samplers",
    "random_allocation": "samplers",
    "sampler_composition": "samplers",
    "shuffled": "samplers",
    "DiscretePairs": "oneshot",
    "RateChange": "oneshot",
    "Verdict": "verdicts",
    "WithReplacement": "oneshot",
    "WithoutReplacement": "oneshot",
    "crosscheck": "verdicts",
    "from_dp_event": "peer_formats",
    "from_opacus_history": "peer_formats",
    "group_privacy": "group",
    "eps1_safe_k_anonymization_delta": "kanon",
    "safe_k_anonymization_delta": "kanon",
    "safe_k_anonymization_max_beta": "kanon",
    "safe_k_anonymization_min_epsilon": "kanon",
    "safe_k_anonymization_min_k": "kanon",
    "EpsDelta": "mechanisms",
    "Gaussian": "mechanisms",
    "Laplace": "mechanisms",
    "poisson_subsampling_profile": "mechanisms",
    "with_replacement_profile": "mechanisms",
    "without_replacement_profile": "mechanisms",
    "FWLQuery": "missing",
    "fwl_clipped_mean": "missing",
    "fwl_covariance": "missing",
    "fwl_histogram": "missing",
    "fwl_linear": "missing",
    "fwl_mean": "missing",
    "fwl_projected_mean": "missing",
    "fwl_ratio": "missing",
    "missing_data": "missing",
    "missing_data_corollary": "missing",
    "missing_data_gaussian": "missing",
    "missing_data_laplace": "missing",
    "poisson_substitution_profile": "poisson_substitution",
    "gaussian_profile": "profiles",
    "gaussian_profile_inverse": "profiles",
    "gaussian_sigma": "profiles",
    "laplace_profile": "profiles",
    "laplace_profile_inverse": "profiles",
    "TheoremInfo": "registry",
    "latex": "registry",
    "theorem": "registry",
    "theorems": "registry",
    "subsampled_gaussian_profile": "subsampled_profiles",
    "subsampled_gaussian_profile_inverse": "subsampled_profiles",
    "subsampled_laplace_profile": "subsampled_profiles",
    "subsampled_laplace_profile_inverse": "subsampled_profiles",
    "poisson_subsampling": "subsampling",
    "poisson_subsampling_inverse": "subsampling",
    "rate_change": "subsampling",
    "with_replacement": "subsampling",
    "without_replacement": "subsampling",
    "SuppressionBound": "suppression",
    "deterministic_suppression": "suppression",
    "outlier_score_suppression": "suppression",
    "outlier_score_suppression_inverse": "suppression",
    "suppression_bound": "suppression",
    "suppression_sensitivity": "suppression",
}

__version__ = "0.1.0"

__all__ = [
    "CalibrationStep",
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
    "balls_and_bins",
    "compose",
    "crosscheck",
    "cyclic",
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
    "random_allocation",
    "rate_change",
    "safe_k_anonymization_delta",
    "safe_k_anonymization_max_beta",
    "safe_k_anonymization_min_epsilon",
    "safe_k_anonymization_min_k",
    "sampler_composition",
    "sampler_noise_multiplier",
    "shuffled",
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



def __getattr__(name: str):
    """Import the submodule defining public ``name`` on first access (then cached as a module attribute)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bounds' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
