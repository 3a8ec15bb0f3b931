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
from .runner import EPSILONS, Cell, cell_rng, keep_blocks, make_cells, run_cells
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
    base = {"experiment": "mean", "dataset": spec.dataset, "column": spec.column, "variant": cell.variant,
            "epsilon": cell.epsilon, "delta": delta, "m": cell.m, "M": cell.M,
            "rate": round(1.0 - cell.m, 10) if cell.m == cell.M else None,
            "epsilon_M": budget.epsilon if budget.feasible else None,
            "delta_M": budget.delta if budget.feasible else None,
            "repetitions": spec.repetitions, "errata": ",".join(spec.errata.names)}
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
        ae = np.abs(truth - out)
        mpe = 100.0 * ae / truth
        records.append({**base, "mechanism": mech, "utility": float(mpe.mean()),
                        "stderr": float(mpe.std(ddof=1) / np.sqrt(mpe.size)) if mpe.size > 1 else None,
                        "kept": float(counts.mean())})
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
    _check_reps(repetitions, seed, mechanisms, delta)
    for mech in mechanisms:
        if mech not in MEAN_MECHANISMS:
            raise ValueError(f"mechanism = {mech!r} is not one of {', '.join(MEAN_MECHANISMS)}")
    spec = MeanSpec(dataset, column, tuple(mechanisms), int(repetitions), int(seed), delta, errata)
    cells = make_cells(epsilons, pairs, variants)
    return run_cells(mean_cell, spec, cells, progress=progress, label="mean", scheduler=scheduler)


MAX_REPETITIONS = 10**7


def _check_reps(repetitions: int, seed: int, mechanisms: Sequence[str] = ("",), delta: Any = None) -> None:
    """Validate the arguments every experiment shares (clear ValueError naming the parameter)."""
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or \
            not 1 <= repetitions <= MAX_REPETITIONS:
        raise ValueError(f"repetitions = {repetitions!r} must be an integer in [1, {MAX_REPETITIONS}]")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed = {seed!r} must be an integer ≥ 0")
    if isinstance(mechanisms, str) or len(mechanisms) == 0:
        raise ValueError(f"mechanisms = {mechanisms!r} must be a non-empty list of mechanism names")
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, (int, float, np.integer, np.floating)) or \
                not 0.0 < float(delta) < 1.0:
            raise ValueError(f"delta = {delta!r} must be a real number in (0, 1) (or None: 1/n²)")
