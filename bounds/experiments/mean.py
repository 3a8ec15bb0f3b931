"""Seed-000 experiment "mean": NoisyAverage on one column, with sampling / outlier-score suppression first.

Utility (SYSTEMS §1.2): AE = |mean(D) − output| against the *unsuppressed* D; the cell's utility is the mean
percent error MPE = 100·mean(AE)/mean(D) over the repetitions, its ``stderr`` the standard error of that mean.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .budgets import VARIANTS, variant_budget
from .datasets import load_column, public_range
from .errata import FIXED, Errata
from .mechanisms import MEAN_MECHANISMS, noisy_average
from .runner import EPSILONS, Cell, cell_rng, check_run, keep_blocks, make_cells, record_base, run_cells, summary
from .scores import scores_absolute

__all__ = ["MeanSpec", "reproduce_mean"]


@dataclass(frozen=True)
class MeanSpec:
    dataset: str = "census"
    column: str = "FICA"
    mechanisms: tuple[str, ...] = MEAN_MECHANISMS
    repetitions: int = 50
    seed: int = 0
    delta: float | None = None  # None: 1/n² (the paper)
    errata: Errata = field(default=FIXED)


def _stats(x: np.ndarray, scores: np.ndarray, repetitions: int, rng: np.random.Generator):
    sums, counts = [], []
    for keep in keep_blocks(scores, repetitions, rng):
        # integer-valued data: the float64 sums are exact, whatever the summation order
        sums.append(keep.astype(np.float64) @ x)
        counts.append(keep.sum(axis=1))
    return np.concatenate(sums), np.concatenate(counts).astype(np.float64)


def mean_cell(spec: MeanSpec, cell: Cell) -> list[dict[str, Any]]:
    """The records of one cell (one per mechanism)."""
    x = load_column(spec.dataset, spec.column)
    lo, hi = public_range(spec.dataset, spec.column)
    n = x.shape[0]
    delta = spec.delta if spec.delta is not None else 1.0 / n**2
    truth = float(x.sum() / n)
    budget = variant_budget(cell.variant, cell.epsilon, delta, cell.m, cell.M, spec.errata)
    base = record_base("mean", spec.dataset, spec.column, cell, budget, delta, spec.repetitions, spec.errata)
    if not budget.feasible:
        return [{**base, "mechanism": mech, "utility": None, "stderr": None, "kept": None}
                for mech in spec.mechanisms]
    if budget.suppress:
        scores = scores_absolute(x, lo, hi, cell.m, cell.M, f"{spec.dataset}/{spec.column}")
        sums, counts = _stats(x, scores, spec.repetitions, cell_rng(spec.seed, "mean", cell, 0))
    else:
        sums = np.full(spec.repetitions, float(x.sum()))
        counts = np.full(spec.repetitions, float(n))
    records = []
    for mech in spec.mechanisms:
        rng = cell_rng(spec.seed, "mean", cell, 1 + MEAN_MECHANISMS.index(mech))
        out = noisy_average(sums, counts, budget.epsilon, budget.delta, lo, hi, mech, rng, spec.errata)
        mpe = 100.0 * np.abs(truth - out) / truth
        records.append({**base, "mechanism": mech, **summary(mpe), "kept": float(counts.mean())})
    return records


def reproduce_mean(dataset: str = "census", column: str = "FICA", *,
                   mechanisms: Sequence[str] = MEAN_MECHANISMS, epsilons: Sequence[float] = EPSILONS,
                   pairs: Sequence[tuple[float, float]] = ((0.0, 0.0),), variants: Sequence[str] = VARIANTS,
                   repetitions: int = 50, seed: int = 0, delta: float | None = None, errata: Errata = FIXED,
                   progress: bool = False, scheduler: Any = None) -> list[dict[str, Any]]:
    """NoisyAverage (Laplace / analytic Gaussian) in the paper's four variants over a grid of (ε, m, M).

    Parameters
    ----------
    dataset, column : str
        A seed-000 column (``bounds.experiments.datasets.COLUMNS``), e.g. ``"census"``, ``"FICA"``.
    mechanisms : sequence of {"laplace", "gaussian"}
    epsilons : sequence of float
        Target ε of each experiment (δ = 1/n² unless ``delta`` is given; the Laplace variant ignores δ).
    pairs : sequence of (m, M)
        Suppression constants, 0 < m ≤ M < 1, or (0, 0) for no suppression; (1 − p, 1 − p) is Poisson sampling
        at rate p (``runner.sampling_pairs``).
    repetitions, seed : int
        Repetitions per cell; the seed of the cells' SeedSequences.
    errata : Errata
        ``FIXED`` (default) or the authors' errata to reproduce.

    Returns
    -------
    list of dict
        One record per (cell, mechanism): ``variant``, ``epsilon``, ``m``, ``M``, ``rate`` (for m = M),
        ``epsilon_M``/``delta_M`` (the mechanism's budget), ``utility`` (MPE, %), ``stderr``; ``utility`` is
        ``None`` where the calibrated variant has no base budget.

    Examples
    --------
    >>> from bounds.experiments import reproduce_mean
    >>> recs = reproduce_mean("census", "FICA", mechanisms=["laplace"], epsilons=[1.0], repetitions=20, seed=1)
    >>> [r["variant"] for r in recs]
    ['M', 'MoS', 'M_suppressed_budget', 'MoS_calibrated']
    """
    public_range(dataset, column)
    check_run(repetitions, seed, mechanisms, delta, MEAN_MECHANISMS)
    spec = MeanSpec(dataset, column, tuple(mechanisms), int(repetitions), int(seed), delta, errata)
    cells = make_cells(epsilons, pairs, variants)
    return run_cells(mean_cell, spec, cells, progress=progress, label="mean", scheduler=scheduler)

