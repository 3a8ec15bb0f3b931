"""The seed-000 experiments (sampling and suppression of records before a DP mechanism), reproducible.

``shared/SYSTEMS.md`` §1.2–§1.4: NoisyAverage, report-noisy-max and the exponential mechanism for the mode,
DPLloyd and k-median, each in the paper's four variants, with the authors' errata fixed (``errata=FAITHFUL``
reproduces them).  Command line: ``ampbounds reproduce EXPERIMENT``.

Modules: ``datasets`` (shipped data, public ranges), ``errata``, ``budgets`` (the four variants' budgets from
T14), ``mechanisms`` (vectorised over repetitions), ``runner`` (grids, per-cell seeds, serial/dask loop), one
module per experiment (``mean``, ``mode``, ``dplloyd``, ``kmedian``), ``output`` (CSV), ``plots`` (matplotlib).
"""
from __future__ import annotations

import time
from typing import Any

from .budgets import VARIANTS, Budget, variant_budget
from .errata import ERRATA_NAMES, FAITHFUL, FIXED, Errata
from .mean import reproduce_mean
from .mode import reproduce_mode
from .dplloyd import reproduce_dplloyd
from .kmedian import reproduce_kmedian
from .output import write_csv
from .runner import (SAMPLING_RATES_FULL, SAMPLING_RATES_SHORT, TRIANGLE_01, sampling_pairs,
                     triangle_pairs)

__all__ = ["VARIANTS", "Budget", "variant_budget", "ERRATA_NAMES", "FAITHFUL", "FIXED", "Errata",
           "reproduce_mean", "reproduce_mode", "reproduce_dplloyd", "reproduce_kmedian", "reproduce",
           "EXPERIMENTS", "default_pairs",
           "estimate_cpu_seconds", "sampling_pairs", "triangle_pairs", "write_csv"]


# Default runs fit in ≤ 5 CPU minutes each on this project's 2-core machine (measured; README "Reproduce the
# paper"): mean and mode on the 0.1 grids with 50 repetitions; DPLloyd and k-median on coarser grids.
_COARSE = (0.1, 0.3, 0.5, 0.7, 0.9)


def _experiments() -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {
        "mean": {"run": reproduce_mean, "dataset": "census", "column": "FICA", "paper_repetitions": 500,
                 "repetitions": 50, "epsilons": (0.25, 0.5, 1.0, 2.0), "rates": SAMPLING_RATES_SHORT,
                 "triangle": TRIANGLE_01},
        "mode": {"run": reproduce_mode, "dataset": "adult", "column": "age", "paper_repetitions": 2000,
                 "repetitions": 50, "epsilons": (0.25, 0.5, 1.0, 2.0), "rates": SAMPLING_RATES_SHORT,
                 "triangle": TRIANGLE_01},
    }
    table["dplloyd"] = {"run": reproduce_dplloyd, "dataset": "adult", "column": None, "paper_repetitions": 500,
                        "repetitions": 10, "epsilons": (0.25, 1.0), "rates": (1.0, 0.8, 0.6, 0.4, 0.2),
                        "triangle": _COARSE}
    table["kmedian"] = {"run": reproduce_kmedian, "dataset": "database1", "column": None,
                        "paper_repetitions": 20, "repetitions": 5, "epsilons": (0.25, 1.0),
                        "rates": (1.0, 0.7, 0.4, 0.1), "triangle": (0.1, 0.5, 0.9)}
    return table


EXPERIMENTS = _experiments()


def default_pairs(full: bool = False, sampling: bool = True, suppression: bool = True,
                  experiment: str = "mean") -> list[tuple[float, float]]:
    """The default grid of (m, M) of an experiment: its sampling rates (mean, mode: 1, 0.9, …, 0.1) and its
    triangle (mean, mode: the 45 pairs on {0.1, …, 0.9}); ``full``: the paper's rates 1, 0.99, …, 0.01 and
    the 45-pair triangle for every experiment.  Without duplicates."""
    info = EXPERIMENTS[experiment]
    pairs: list[tuple[float, float]] = []
    if sampling:
        pairs += sampling_pairs(SAMPLING_RATES_FULL if full else info["rates"])
    if suppression:
        pairs += [p for p in triangle_pairs(TRIANGLE_01 if full else info["triangle"]) if p not in pairs]
    return pairs


def reproduce(experiment: str, **kwargs: Any) -> list[dict[str, Any]]:
    """Run one seed-000 experiment (``"mean"``, ``"mode"``, ``"dplloyd"``, ``"kmedian"``) with the keyword
    arguments of its ``reproduce_<experiment>`` function; returns its records."""
    if experiment not in EXPERIMENTS:
        raise ValueError(f"experiment = {experiment!r} is not one of {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[experiment]["run"](**kwargs)


def estimate_cpu_seconds(experiment: str, n_pairs: int, n_epsilons: int, repetitions: int,
                         **kwargs: Any) -> float:
    """CPU seconds a grid would take, measured: the four variants at (m, M) = (0.5, 0.5) and (0.3, 0.7), ε = 1,
    run with 2 and with 20 repetitions; the cost a + b·R per (pair, ε) fitted to the two timings is scaled to
    ``n_pairs × n_epsilons`` and ``repetitions``."""
    kwargs = {**kwargs, "pairs": [(0.5, 0.5), (0.3, 0.7)], "epsilons": [1.0], "progress": False,
              "scheduler": None}
    seed = kwargs.pop("seed", 0)
    reproduce(experiment, repetitions=2, seed=seed, **kwargs)  # warm-up: data, scores, caches, compilation
    timings = []
    for r in (2, 20):
        start = time.process_time()
        reproduce(experiment, repetitions=r, seed=seed + 1, **kwargs)
        timings.append((time.process_time() - start) / 2.0)  # per (pair, ε)
    slope = max((timings[1] - timings[0]) / 18.0, 0.0)
    fixed = max(timings[0] - 2.0 * slope, 0.0)
    return (fixed + slope * repetitions) * n_pairs * n_epsilons
