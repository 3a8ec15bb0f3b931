"""Seed-000 experiment "kmedian": the k-median local search of Gupta et al. (SODA 2010, Algorithm 2) with the
exponential mechanism, with sampling / outlier-score suppression (Euclidean metric, points already divided by
the domain diagonal, so d ≤ 1) first.

The mechanism (SYSTEMS §1.2): candidates V = {0..99}²/141.42 (10,000 points); F₀ = k uniform candidates;
T = ⌊6k ln n⌋ swaps (n = 100, the database size, a public constant: T = 110 for k = 4), each choosing
F_{i+1} = F_i − {x} + {y} over all x ∈ F_i, y ∈ V − F_i with probability ∝ exp(−ε′·cost(F_{i+1})), where
cost(F) = Σ_{v∈D} min_{f∈F} d(v, f) (sensitivity Δ = 1 under add/remove: d ≤ 1) and ε′ = ε/(2Δ(T + 1)); then
one of F₀, …, F_T chosen with probability ∝ exp(−ε′·cost(F_j)).  Utility: the average cost cost(F)/|D| of the
output on the data the mechanism ran on.  Erratum 2 (``kmedian_metric``): the authors report
exp(−ε′·cost(F))/|D| instead (≈ 1/|sample| for small ε′; infinite — here ``None`` — on an empty sample).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .budgets import VARIANTS, variant_budget
from .datasets import load_table
from .errata import FIXED, Errata
from .runner import EPSILONS, Cell, cell_rng, check_pure, keep_masks, make_cells, record_base, run_cells, summary
from .scores import scores_euclidean

__all__ = ["KMedianSpec", "reproduce_kmedian", "kmedian", "candidates", "swap_cost_matrix"]

K = 4
DIAGONAL = 141.42  # the authors' normalisation (√2·100 rounded), applied to the shipped points already


@dataclass(frozen=True)
class KMedianSpec:
    repetitions: int = 20
    seed: int = 0
    errata: Errata = field(default=FIXED)
    k: int = K


def candidates() -> np.ndarray:
    """The candidate medians {0..99}²/141.42, 10,000 × 2."""
    g = np.arange(100, dtype=np.float64)
    a, b = np.meshgrid(g, g, indexing="ij")
    return np.stack([a.ravel(), b.ravel()], axis=1) / DIAGONAL


def _draw(logw: np.ndarray, rng: np.random.Generator) -> int:
    """Index drawn with probability ∝ exp(logw) (inverse CDF on the max-shifted weights)."""
    w = np.exp(logw - logw.max())
    cdf = np.cumsum(w)
    return int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), w.size - 1))


def swap_cost_matrix(dist: np.ndarray, f: np.ndarray) -> np.ndarray:
    """cost(F − {x} + {y}) for every x = F[i] (rows) and candidate y (columns); ``inf`` where y ∈ F (not a
    swap).  cost(G) = Σ_v min_{g∈G} d(v, g) = Σ_v min(d(v, y), min_{F−x} d(v, ·))."""
    k, v = f.size, dist.shape[0]
    out = np.empty((k, v))
    for i in range(k):
        rest = np.delete(f, i)
        m = dist[rest].min(axis=0) if rest.size else np.full(dist.shape[1], np.inf)
        out[i] = np.minimum(dist, m[None, :]).sum(axis=1)
    out[:, f] = np.inf
    return out


def kmedian(dist: np.ndarray, epsilon: float, n_public: int, rng: np.random.Generator,
            k: int = K) -> tuple[np.ndarray, float]:
    """One run of the private local search on the points whose distances to the candidates are the columns
    of ``dist`` (V × n_kept).  Returns (chosen medians' indices, cost(F) on those points)."""
    v = dist.shape[0]
    t = int(math.floor(6 * k * math.log(n_public)))
    eps1 = epsilon / (2.0 * 1.0 * (t + 1))
    f = rng.choice(v, size=k, replace=False)
    history = [f.copy()]
    costs = [float(dist[f].min(axis=0).sum())]
    for _ in range(t):
        swap_costs = swap_cost_matrix(dist, f)
        j = _draw(-eps1 * swap_costs.ravel(), rng)
        i, y = divmod(j, v)
        f = f.copy()
        f[i] = y
        history.append(f.copy())
        costs.append(float(swap_costs[i, y]))
    c = np.array(costs)
    pick = _draw(-eps1 * c, rng)
    return history[pick], float(c[pick])


def kmedian_cell(spec: KMedianSpec, cell: Cell) -> list[dict[str, Any]]:
    header, pts = load_table("database1.csv")
    n = pts.shape[0]
    cand = candidates()
    dist_all = np.sqrt(((cand[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))  # V × n
    budget = variant_budget(cell.variant, cell.epsilon, 0.0, cell.m, cell.M, spec.errata)
    base = record_base("kmedian", "database1", "row1,row2", cell, budget, 0.0, spec.repetitions, spec.errata, "expmech")
    if not budget.feasible:
        return [{**base, "utility": None, "stderr": None, "kept": None}]
    if budget.suppress:
        scores = scores_euclidean(pts, 1.0, cell.m, cell.M, "database1")
        masks = keep_masks(scores, spec.repetitions, cell_rng(spec.seed, "kmedian", cell, 0))
    else:
        masks = np.ones((spec.repetitions, n), dtype=bool)
    rng = cell_rng(spec.seed, "kmedian", cell, 1)
    t = int(math.floor(6 * spec.k * math.log(n)))
    eps1 = budget.epsilon / (2.0 * (t + 1))
    values = []
    for keep in masks:
        kept = int(keep.sum())
        _, cost = kmedian(dist_all[:, keep], budget.epsilon, n, rng, spec.k)
        if spec.errata.kmedian_metric:
            values.append(math.exp(-eps1 * cost) / kept if kept else math.inf)
        else:
            values.append(cost / kept if kept else math.inf)
    return [{**base, **summary(np.array(values)), "kept": float(masks.sum(axis=1).mean())}]


def reproduce_kmedian(*, mechanisms: Sequence[str] = ("expmech",), epsilons: Sequence[float] = EPSILONS,
                      pairs: Sequence[tuple[float, float]] = ((0.0, 0.0),), variants: Sequence[str] = VARIANTS,
                      repetitions: int = 20, seed: int = 0, errata: Errata = FIXED, progress: bool = False,
                      scheduler: Any = None, delta: float | None = None) -> list[dict[str, Any]]:
    """The k-median local search (k = 4, T = 110) in the paper's four variants over a grid of (ε, m, M).

    Parameters as :func:`bounds.experiments.reproduce_mean` (pure ε-DP; ``mechanisms`` only ``"expmech"``).
    ``utility`` = average cost cost(F)/|D| on the data the mechanism ran on (an empty sample is left out
    of the average; ``kept`` reports the mean sample size).

    Examples
    --------
    >>> from bounds.experiments.kmedian import reproduce_kmedian
    >>> recs = reproduce_kmedian(epsilons=[2.0], variants=["M"], repetitions=1, seed=1)
    >>> 0 < recs[0]["utility"] < 1   # distances are at most 1 after the normalisation
    True
    """
    check_pure("k-median", mechanisms, "expmech", repetitions, seed, delta)
    spec = KMedianSpec(int(repetitions), int(seed), errata)
    cells = make_cells(epsilons, pairs, variants)
    return run_cells(kmedian_cell, spec, cells, progress=progress, label="kmedian", scheduler=scheduler)
