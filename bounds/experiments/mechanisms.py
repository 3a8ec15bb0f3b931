"""The seed-000 mechanisms, vectorised over repetitions (SYSTEMS §1.2).

Every function takes the per-repetition statistics of the data it runs on (one row per repetition) and a
``numpy.random.Generator``; the noise is drawn in one call per array, so a seeded run is reproducible.
Randomness comes only from the Generator (its Laplace, normal, exponential and uniform samplers); the
exponential mechanism's probabilities use ``np.exp``, whose last-ulp variation across CPUs could move an
inverse-CDF draw only when the uniform falls within an ulp of a cumulative boundary (probability ~1e-16 per draw).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .errata import FIXED, Errata

__all__ = ["gaussian_sigma", "sum_sensitivity", "noisy_average", "report_noisy_max", "exponential_mechanism",
           "MEAN_MECHANISMS", "MODE_MECHANISMS"]

MEAN_MECHANISMS: tuple[str, ...] = ("laplace", "gaussian")
MODE_MECHANISMS: tuple[str, ...] = ("laplace", "gaussian", "exponential", "expmech")


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, errata: Errata = FIXED) -> float:
    """σ of the analytic Gaussian mechanism at (ε, δ) for L2 sensitivity Δ.

    Fixed: ``bounds.gaussian_sigma`` (SPEC T10, Balle & Wang 2018, Thm 8 with its δ constraint, rounded up).
    Faithful (``errata.gaussian_delta``, SYSTEMS §1.4 erratum 1): the authors' value, which minimises
    B∓(v) = Φ(∓√(εv)) − e^ε Φ(−√(ε(v + 2))) *without* the constraint B(v) = δ (scipy's BFGS from v = 0,
    tol 1e-6, stops somewhere on the flat tail), so σ depends on ε alone and is 4–38 % too small.  Reproducing
    that stopping point needs scipy's optimiser itself; it is imported only then.
    """
    if not epsilon > 0.0:
        raise ValueError(f"gaussian_sigma: epsilon = {epsilon} must be > 0")
    if errata.gaussian_delta:
        return _authors_sigma(float(epsilon), float(delta)) * sensitivity
    import bounds

    return float(bounds.gaussian_sigma(epsilon, delta, sensitivity))


@lru_cache(maxsize=4096)
def _authors_sigma(epsilon: float, delta: float) -> float:
    """The authors' (erroneous) σ/Δ, computed as their code does (SYSTEMS §1.4 erratum 1)."""
    try:
        from scipy.optimize import minimize
        from scipy.stats import norm
    except ImportError:  # pragma: no cover - depends on the environment
        raise ValueError("the faithful Gaussian calibration (erratum gaussian_delta) reproduces scipy's BFGS "
                         "stopping point and needs scipy: pip install scipy") from None
    import math

    e = math.exp(epsilon)
    delta0 = 0.5 - e * norm.cdf(-math.sqrt(2.0 * epsilon))
    sign = -1.0 if delta >= delta0 else 1.0  # maximise B+ / minimise B-

    def objective(v: np.ndarray) -> float:
        if v[0] < 0:
            return 100.0
        if sign < 0:
            return -(norm.cdf(math.sqrt(epsilon * v[0])) - e * norm.cdf(-math.sqrt(epsilon * (v[0] + 2))))
        return norm.cdf(-math.sqrt(epsilon * v[0])) - e * norm.cdf(-math.sqrt(epsilon * (v[0] + 2)))

    v = float(minimize(objective, x0=0.0, tol=1e-6)["x"][0])
    if sign < 0:
        v = -v
        alpha = math.sqrt(1 + v / 2) - math.sqrt(v / 2) if v >= 0 else float("nan")
    else:
        alpha = math.sqrt(1 + v / 2) + math.sqrt(v / 2)
    return alpha / math.sqrt(2.0 * epsilon)


def sum_sensitivity(lo: float, hi: float, errata: Errata = FIXED) -> float:
    """Sensitivity of a sum of values in [lo, hi] under add/remove: max(|lo|, |hi|) (one record added or
    removed moves the sum by its value).  Faithful (erratum 5): hi − lo, the substitution value."""
    return float(hi - lo) if errata.sum_sensitivity else float(max(abs(lo), abs(hi)))


def noisy_average(sums: np.ndarray, counts: np.ndarray, epsilon: float, delta: float, lo: float, hi: float,
                  mechanism: str, rng: np.random.Generator, errata: Errata = FIXED) -> np.ndarray:
    """NoisyAverage: (Σx + noise)/(n + noise), each half at (ε/2, δ/2) (SYSTEMS §1.2; sequential composition).

    Laplace: Lap(Δ_sum/(ε/2)) and Lap(1/(ε/2)); Gaussian: the analytic Gaussian at (ε/2, δ/2) with L2
    sensitivities Δ_sum and 1.  One output per repetition (``sums``, ``counts`` arrays of equal shape).
    """
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    ds = sum_sensitivity(lo, hi, errata)
    half = epsilon / 2.0
    if mechanism == "laplace":
        noise_sum = rng.laplace(0.0, ds / half, sums.shape)
        noise_count = rng.laplace(0.0, 1.0 / half, counts.shape)
    elif mechanism == "gaussian":
        noise_sum = rng.normal(0.0, gaussian_sigma(half, delta / 2.0, ds, errata), sums.shape)
        noise_count = rng.normal(0.0, gaussian_sigma(half, delta / 2.0, 1.0, errata), counts.shape)
    else:
        raise ValueError(f"mechanism = {mechanism!r} is not one of {', '.join(MEAN_MECHANISMS)}")
    return (sums + noise_sum) / (counts + noise_count)


def report_noisy_max(counts: np.ndarray, epsilon: float, delta: float, noise: str,
                     rng: np.random.Generator, errata: Errata = FIXED) -> np.ndarray:
    """Report-noisy-max over the columns of ``counts`` (one row per repetition): index of the largest noisy
    count, ties to the smallest index (``argmax`` returns the first).

    Noise (sensitivity 1 per count; under add/remove one record changes one count by 1): ``"laplace"``
    Lap(1/ε) (ε-DP); ``"exponential"`` one-sided Exp(scale 2/ε), the paper's ε-DP choice (Dwork & Roth; scale
    1/ε would suffice for these monotone counts); ``"gaussian"`` the analytic Gaussian at (ε, δ) with L2
    sensitivity 1 — valid here because one record moves one count, so the whole noisy count vector is a
    Gaussian mechanism (the argmax is post-processing).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if noise == "laplace":
        z = rng.laplace(0.0, 1.0 / epsilon, counts.shape)
    elif noise == "exponential":
        z = rng.exponential(2.0 / epsilon, counts.shape)
    elif noise == "gaussian":
        z = rng.normal(0.0, gaussian_sigma(epsilon, delta, 1.0, errata), counts.shape)
    else:
        raise ValueError(f"noise = {noise!r} is not one of laplace, gaussian, exponential")
    return np.argmax(counts + z, axis=-1)


def exponential_mechanism_probabilities(counts: np.ndarray, epsilon: float) -> np.ndarray:
    """P(i) ∝ exp(ε(count_i − max count)/2) per row (utility = count, sensitivity 1)."""
    counts = np.asarray(counts, dtype=np.float64)
    w = np.exp(epsilon * (counts - counts.max(axis=-1, keepdims=True)) / 2.0)
    return w / w.sum(axis=-1, keepdims=True)


def exponential_mechanism(counts: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """The exponential mechanism for the mode (McSherry–Talwar): index i with probability ∝
    exp(ε(count_i − max count)/2), drawn by inverse CDF from one uniform per repetition (ε-DP)."""
    p = exponential_mechanism_probabilities(counts, epsilon)
    cdf = np.cumsum(p, axis=-1)
    u = rng.random(p.shape[:-1] + (1,)) * cdf[..., -1:]
    return np.minimum((cdf <= u).sum(axis=-1), p.shape[-1] - 1)
