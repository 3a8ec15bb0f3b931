"""ampbounds: formally-checked, soundly rounded bounds for differential-privacy amplification.

Every function returns an upper bound on the exact (ε, δ) (or, for inverses, a base budget rounded to the
safe side) or raises ``ValueError``.  See ``theorem(id)`` for each bound's statement and provenance and
``latex(id)`` for its formulas.  Importing this package loads neither sympy nor numba; kernels compile on
first use and are cached on disk.
"""
from ._core import Guarantee
from .group import group_privacy
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
from .registry import TheoremInfo, latex, theorem, theorems
from .subsampling import (
    poisson_subsampling,
    poisson_subsampling_inverse,
    rate_change,
    with_replacement,
    without_replacement,
)

__version__ = "0.1.0"

__all__ = [
    "FWLQuery",
    "Guarantee",
    "TheoremInfo",
    "fwl_clipped_mean",
    "fwl_covariance",
    "fwl_histogram",
    "fwl_linear",
    "fwl_mean",
    "fwl_projected_mean",
    "fwl_ratio",
    "group_privacy",
    "latex",
    "missing_data",
    "missing_data_corollary",
    "missing_data_gaussian",
    "missing_data_laplace",
    "poisson_subsampling",
    "poisson_subsampling_inverse",
    "rate_change",
    "theorem",
    "theorems",
    "with_replacement",
    "without_replacement",
]
