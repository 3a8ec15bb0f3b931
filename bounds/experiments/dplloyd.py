"""Seed-000 experiment "dplloyd": DPLloyd (Blum et al. 2005, as in Su et al. 2017) on Adult's six numeric
columns, with sampling / outlier-score suppression (Euclidean metric over the public diameter 2√6) first.

DPLloyd (SYSTEMS §1.2): columns scaled to [−1, 1] with their PUBLIC ranges; k = 5 centroids drawn uniformly in
[−1, 1]^6; T = 20 iterations of: assign each record to its nearest centroid; per cluster a noisy count and
noisy coordinate sums; centroid = sums/count clipped to [−1, 1].

Noise (fixed): Lap((d + 1)T/ε) on every count and coordinate sum.  Under add/remove one record changes one
cluster's count by 1 and that cluster's d sums by at most |x_j| ≤ 1 each, an L1 change ≤ d + 1 per iteration;
T iterations compose to ε.  The authors (``dplloyd_noise_scale``) use Lap(2(dk + 1)T/ε), valid but k·2 times
larger than needed.  Utility: NICV = mean over the data the mechanism ran on of min_c ‖x − c‖².
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .budgets import VARIANTS, variant_budget
from .datasets import CLUSTERING_RANGES, load_table
from .errata import FIXED, Errata
from .runner import EPSILONS, Cell, cell_rng, check_pure, keep_masks, make_cells, record_base, run_cells, summary
from .scores import scores_euclidean

__all__ = ["DPLloydSpec", "reproduce_dplloyd", "dplloyd", "scaled_adult"]

K, T = 5, 20
_ROWS = 16  # repetitions per vectorised block (16 × 32561 × 5 float64 ≈ 21 MB per temporary)


@dataclass(frozen=True)
class DPLloydSpec:
    repetitions: int = 50
    seed: int = 0
    errata: Errata = field(default=FIXED)
    k: int = K
    iterations: int = T


def scaled_adult(errata: Errata = FIXED) -> np.ndarray:
    """Adult's six numeric columns scaled to [−1, 1]: with the public ranges (fixed) or, erratum 6
    (``dplloyd_data_ranges``), with the data's own min and max as the authors do."""
    header, values = load_table("adult_clustering.csv")
    if errata.dplloyd_data_ranges:
        lo, hi = values.min(axis=0), values.max(axis=0)
    else:
        lo = np.array([CLUSTERING_RANGES[c][0] for c in header], dtype=np.float64)
        hi = np.array([CLUSTERING_RANGES[c][1] for c in header], dtype=np.float64)
    x = -1.0 + 2.0 * (values - lo) / (hi - lo)
    x.setflags(write=False)
    return x


def dplloyd(x: np.ndarray, weights: np.ndarray, epsilon: float, rng: np.random.Generator, *,
            k: int = K, iterations: int = T, errata: Errata = FIXED) -> np.ndarray:
    """DPLloyd on the records of ``x`` (n × d, in [−1, 1]) kept in each repetition (``weights``: R × n of 0/1),
    vectorised over the R repetitions; returns the final centroids, R × k × d."""
    r, n = weights.shape
    d = x.shape[1]
    scale = (2.0 * (d * k + 1) if errata.dplloyd_noise_scale else float(d + 1)) * iterations / epsilon
    c = rng.uniform(-1.0, 1.0, (r, k, d))
    offset = (np.arange(r, dtype=np.int64) * k)[:, None]
    w = weights.ravel()
    wx = [(weights * x[None, :, j]).ravel() for j in range(d)]  # per-coordinate weights for the cluster sums
    for _ in range(iterations):
        a = _nearest(x, c)                                        # R × n, ties to the first centroid
        idx = (a + offset).ravel()
        counts = np.bincount(idx, weights=w, minlength=r * k).reshape(r, k)
        sums = np.stack([np.bincount(idx, weights=wj, minlength=r * k).reshape(r, k) for wj in wx], axis=2)
        counts = counts + rng.laplace(0.0, scale, counts.shape)
        sums = sums + rng.laplace(0.0, scale, sums.shape)
        c = np.clip(sums / counts[:, :, None], -1.0, 1.0)
    return c


def _nearest(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid per repetition and record: argmin_j ‖c_j‖² − 2⟨x, c_j⟩ (‖x‖² is common)."""
    r, k, d = c.shape
    prod = (x @ c.reshape(r * k, d).T).reshape(x.shape[0], r, k)  # one GEMM for every repetition
    score = np.einsum("rkd,rkd->rk", c, c)[None, :, :] - 2.0 * prod
    return np.argmin(score, axis=2).T


def nicv(x: np.ndarray, weights: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Per repetition: mean over the kept records of min_c ‖x − c‖² (NaN-free: an empty sample gives 0/0 → inf
    is avoided by returning ``inf`` only if no record was kept)."""
    xx = np.einsum("nd,nd->n", x, x)
    r, k, d = centroids.shape
    prod = (x @ centroids.reshape(r * k, d).T).reshape(x.shape[0], r, k)
    d2 = xx[:, None, None] - 2.0 * prod + np.einsum("rkd,rkd->rk", centroids, centroids)[None, :, :]
    best = np.maximum(d2.min(axis=2), 0.0).T
    kept = weights.sum(axis=1)
    total = (best * weights).sum(axis=1)
    return np.where(kept > 0, total / np.maximum(kept, 1.0), np.inf)


def dplloyd_cell(spec: DPLloydSpec, cell: Cell) -> list[dict[str, Any]]:
    x = scaled_adult(spec.errata)
    n = x.shape[0]
    budget = variant_budget(cell.variant, cell.epsilon, 0.0, cell.m, cell.M, spec.errata)
    base = record_base("dplloyd", "adult", "6 numeric columns", cell, budget, 0.0, spec.repetitions, spec.errata, "laplace")
    if not budget.feasible:
        return [{**base, "utility": None, "stderr": None, "kept": None}]
    if budget.suppress:
        scores = scores_euclidean(x, 2.0 * np.sqrt(6.0), cell.m, cell.M,
                                  "adult6/" + ("data" if spec.errata.dplloyd_data_ranges else "public"))
        masks = keep_masks(scores, spec.repetitions, cell_rng(spec.seed, "dplloyd", cell, 0))
    else:
        masks = np.ones((spec.repetitions, n), dtype=bool)
    rng = cell_rng(spec.seed, "dplloyd", cell, 1)
    values, kept = [], []
    for start in range(0, spec.repetitions, _ROWS):
        w = masks[start:start + _ROWS].astype(np.float64)
        cent = dplloyd(x, w, budget.epsilon, rng, k=spec.k, iterations=spec.iterations, errata=spec.errata)
        values.append(nicv(x, w, cent))
        kept.append(w.sum(axis=1))
    return [{**base, **summary(np.concatenate(values)), "kept": float(np.concatenate(kept).mean())}]


def reproduce_dplloyd(*, mechanisms: Sequence[str] = ("laplace",), epsilons: Sequence[float] = EPSILONS,
                      pairs: Sequence[tuple[float, float]] = ((0.0, 0.0),), variants: Sequence[str] = VARIANTS,
                      repetitions: int = 50, seed: int = 0, errata: Errata = FIXED, progress: bool = False,
                      scheduler: Any = None, delta: float | None = None) -> list[dict[str, Any]]:
    """DPLloyd on Adult (k = 5, T = 20) in the paper's four variants over a grid of (ε, m, M).

    Parameters as :func:`bounds.experiments.reproduce_mean` (pure ε-DP: ``delta`` must be ``None`` or 0;
    ``mechanisms`` only ``"laplace"``).  ``utility`` = NICV on the data the mechanism ran on.

    Examples
    --------
    >>> from bounds.experiments.dplloyd import reproduce_dplloyd
    >>> recs = reproduce_dplloyd(epsilons=[1.0], variants=["M"], repetitions=2, seed=1)
    >>> 0 < recs[0]["utility"] < 12     # squared distances in [−1, 1]^6 are at most 24
    True
    """
    check_pure("DPLloyd", mechanisms, "laplace", repetitions, seed, delta)
    spec = DPLloydSpec(int(repetitions), int(seed), errata)
    cells = make_cells(epsilons, pairs, variants)
    return run_cells(dplloyd_cell, spec, cells, progress=progress, label="dplloyd", scheduler=scheduler)
