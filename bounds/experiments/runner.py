"""Grids, per-cell seeds, suppression draws and the serial / dask loop shared by the seed-000 experiments.

Reproducibility: every cell (ε, m, M, variant) draws from its own ``numpy.random.Generator`` seeded by
``SeedSequence(seed, spawn_key=(experiment, ε, m, M, variant, stream))`` — a key made of the cell's *identity*
(integers: ε, m, M in millionths), not of its position.  A cell's result therefore does not depend on the
order the cells run in, on the other cells of the grid, or on the number of workers: a serial run and a dask
run give the same numbers.  Within a cell, stream 0 draws the suppression and stream 1 + j the noise of the
j-th mechanism of the experiment's fixed list, so asking for fewer mechanisms does not change the others.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from ..procedures._bernoulli import bernoulli
from .budgets import VARIANTS, Budget
from .errata import Errata

__all__ = ["Cell", "cell_rng", "sampling_pairs", "triangle_pairs", "make_cells", "keep_blocks", "keep_masks",
           "check_run", "check_pure", "record_base", "summary", "run_cells", "Progress", "SAMPLING_RATES_SHORT",
           "SAMPLING_RATES_FULL", "TRIANGLE_01", "EPSILONS", "MAX_REPETITIONS"]

EXPERIMENT_CODE = {"mean": 1, "mode": 2, "dplloyd": 3, "kmedian": 4}
EPSILONS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0)
#: The default sampling rates 1, 0.9, …, 0.1 (keep probability p = 1 − m, m = M).
SAMPLING_RATES_SHORT: tuple[float, ...] = tuple(round(1.0 - k / 10, 10) for k in range(10))
#: The paper's sampling rates 1, 0.99, …, 0.01 (its m = M ∈ {0, 0.01, …, 0.99}).
SAMPLING_RATES_FULL: tuple[float, ...] = tuple(round(1.0 - k / 100, 10) for k in range(100))
#: The paper's (m, M) triangle: m ≤ M on {0.1, …, 0.9}, 45 pairs.
TRIANGLE_01: tuple[float, ...] = tuple(round(k / 10, 10) for k in range(1, 10))

# Keep-mask blocks of at most this many entries (repetitions × records): 4 Mi booleans, 32 MiB of tiled scores.
_BLOCK = 1 << 22


@dataclass(frozen=True)
class Cell:
    """One point of an experiment's grid."""

    epsilon: float
    m: float
    M: float
    variant: str

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (round(self.epsilon * 1e6), round(self.m * 1e6), round(self.M * 1e6), VARIANTS.index(self.variant))


def cell_rng(seed: int, experiment: str, cell: Cell, stream: int) -> np.random.Generator:
    """The Generator of one stream of one cell (see the module docstring)."""
    key = (EXPERIMENT_CODE[experiment], *cell.key, stream)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def sampling_pairs(rates: Iterable[float]) -> list[tuple[float, float]]:
    """(m, M) = (1 − p, 1 − p) for each sampling (keep) rate p ∈ (0, 1]."""
    pairs = []
    for p in rates:
        p = float(p)
        if not 0.0 < p <= 1.0:
            raise ValueError(f"rate = {p} is outside (0, 1] (the probability of keeping a record)")
        m = round(1.0 - p, 10)
        pairs.append((m, m))
    return pairs


def triangle_pairs(values: Iterable[float] = TRIANGLE_01) -> list[tuple[float, float]]:
    """Every (m, M) with m ≤ M from ``values`` (the paper's difference-map grid)."""
    vs = sorted({round(float(v), 10) for v in values})
    for v in vs:
        if not 0.0 < v < 1.0:
            raise ValueError(f"m/M = {v} is outside (0, 1)")
    return [(a, b) for a in vs for b in vs if a <= b]


def make_cells(epsilons: Sequence[float], pairs: Sequence[tuple[float, float]],
               variants: Sequence[str] = VARIANTS) -> list[Cell]:
    """The cells of a grid, without duplicates, in a fixed order."""
    seen: dict[Cell, None] = {}
    epsilons = [_real("epsilon", e) for e in epsilons]
    pairs = [(_real("m", p[0]), _real("M", p[1])) if len(p) == 2 else _bad_pair(p) for p in pairs]
    if not epsilons or not pairs or not variants:
        raise ValueError("epsilons, pairs and variants must each hold at least one value")
    for eps in epsilons:
        if not (eps > 0.0 and np.isfinite(eps)):
            raise ValueError(f"epsilon = {eps} must be finite and > 0")
        for m, M in pairs:
            if not (0.0 <= m <= M < 1.0) or (m == 0.0 < M):
                raise ValueError(f"(m, M) = ({m}, {M}) must satisfy 0 < m ≤ M < 1, or m = M = 0 (no suppression)")
            for v in variants:
                if v not in VARIANTS:
                    raise ValueError(f"variant = {v!r} is not one of {', '.join(VARIANTS)}")
                seen[Cell(float(eps), float(m), float(M), v)] = None
    return list(seen)


def _real(name: str, value: Any) -> float:
    """A real number (int, float, numpy real; not bool, str or complex) as a float, or a clear error."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} = {value!r} must be a real number, not {type(value).__name__}")
    v = float(value)
    if v != v:
        raise ValueError(f"{name} is NaN")
    return v


def _bad_pair(p: Any) -> tuple[float, float]:
    raise ValueError(f"pairs: {p!r} is not an (m, M) pair")


def keep_blocks(scores: np.ndarray, repetitions: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Keep masks of outlier-score suppression, one row per repetition, in blocks of rows.

    Record x is deleted independently, in every repetition, with probability exactly out_D(x) = ``scores[x]``
    (SPEC T14's procedure, SYSTEMS §1.1: scores computed once on D), drawn with the procedures' exact Bernoulli
    draws (``bounds.procedures._bernoulli``, as ``suppress_outliers`` does): ``rng.random() < s`` would delete
    with probability ⌈s·2⁵³⌉/2⁵³, up to 2⁻⁵³ more than s.  A block of r repetitions is one vector of r·n
    draws (the scores tiled r times), record j of repetition i at position i·n + j.  When every score is the
    same (sampling, m = M) the draws share that one probability (the cheaper scalar path of ``bernoulli``: the
    same distribution).  m = M = 0 (scores all 0) keeps everything and draws nothing.

    Both the old and the exact draw read one 64-bit word per draw (``random()`` is its top 53 bits), so the
    masks differ only where the two comparisons disagree (u₁ within 2¹¹ of the score's first word) or on a tie:
    the default ``mean`` and ``mode`` runs give byte-identical records before and after the fix.
    """
    n = scores.shape[0]
    rows = max(1, _BLOCK // max(n, 1))
    shared = n > 0 and bool(np.all(scores == scores[0]))
    done = 0
    while done < repetitions:
        r = min(rows, repetitions - done)
        p = float(scores[0]) if shared else np.tile(scores, r)
        yield ~bernoulli(p, r * n, rng).reshape(r, n)
        done += r


def keep_masks(scores: np.ndarray, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """The keep masks of :func:`keep_blocks` as one R × n matrix (the clustering experiments, small n·R)."""
    return np.concatenate(list(keep_blocks(scores, repetitions, rng)))


MAX_REPETITIONS = 10**7


def check_run(repetitions: Any, seed: Any, mechanisms: Any = ("",), delta: Any = None,
              allowed: Sequence[str] | None = None) -> None:
    """Validate the arguments every experiment shares (clear ValueError naming the parameter); ``allowed``: the
    experiment's mechanisms, which ``mechanisms`` must be among.

    ``seed`` keys every cell's ``SeedSequence`` (module docstring), so it must be a non-negative int: the
    procedures' ``rng`` rule (``bounds.procedures._checks.generator``) also takes a Generator or None, which
    carry no entropy to key per-cell streams with, so it is not reused here."""
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
    for mech in mechanisms if allowed is not None else ():
        if mech not in allowed:
            raise ValueError(f"mechanism = {mech!r} is not one of {', '.join(allowed)}")


def check_pure(name: str, mechanisms: Sequence[str], only: str, repetitions: Any, seed: Any, delta: Any) -> None:
    """The arguments of a pure ε-DP experiment with a single mechanism (DPLloyd, k-median)."""
    if tuple(mechanisms) != (only,):
        raise ValueError(f"mechanism = {list(mechanisms)!r}: {name} has only the {_MECHANISM_NAMES[only]} "
                         f"mechanism ({only!r})")
    if delta not in (None, 0, 0.0):
        raise ValueError(f"delta = {delta!r}: {name} is pure ε-DP (δ = 0)")
    check_run(repetitions, seed)


_MECHANISM_NAMES = {"laplace": "Laplace", "expmech": "exponential"}


def record_base(experiment: str, dataset: str, column: str, cell: Cell, budget: Budget, delta: float,
                repetitions: int, errata: Errata, mechanism: str | None = None) -> dict[str, Any]:
    """The fields every record of ``cell`` carries (the experiment, the data, the cell, the budget its variant
    runs the mechanism at, ``None`` where infeasible); ``mechanism`` for the single-mechanism experiments."""
    head: dict[str, Any] = {"experiment": experiment, "dataset": dataset, "column": column}
    if mechanism is not None:
        head["mechanism"] = mechanism
    return {**head, "variant": cell.variant, "epsilon": cell.epsilon, "delta": delta, "m": cell.m, "M": cell.M,
            "rate": round(1.0 - cell.m, 10) if cell.m == cell.M else None,
            "epsilon_M": budget.epsilon if budget.feasible else None,
            "delta_M": budget.delta if budget.feasible else None,
            "repetitions": repetitions, "errata": ",".join(errata.names)}


def summary(values: np.ndarray) -> dict[str, float | None]:
    """``utility`` = the mean of the finite per-repetition values (an empty sample gives ∞ and is left out),
    ``stderr`` = its standard error; ``None`` where there are too few."""
    u = values[np.isfinite(values)]
    return {"utility": float(u.mean()) if u.size else None,
            "stderr": float(u.std(ddof=1) / np.sqrt(u.size)) if u.size > 1 else None}


class Progress:
    """One self-overwriting progress line on stderr (cells done, elapsed and estimated remaining CPU time)."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.done = 0
        self.start = time.process_time()
        self.wall = time.perf_counter()
        self.last = -1.0

    def step(self, k: int = 1) -> None:
        self.done += k
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.done < self.total and now - self.last < 0.5:  # at most two updates a second
            return
        self.last = now
        cpu = time.process_time() - self.start
        left = cpu / self.done * (self.total - self.done) if self.done else 0.0
        sys.stderr.write(f"\r{self.label}: {self.done}/{self.total} cells, {cpu:.1f} s CPU, ~{left:.0f} s left ")
        if self.done >= self.total:
            sys.stderr.write(f"(wall {time.perf_counter() - self.wall:.1f} s)\n")
        sys.stderr.flush()


def run_cells(work: Callable[[Any, Cell], list[dict]], spec: Any, cells: Sequence[Cell], *,
              progress: bool = True, label: str = "reproduce", scheduler: Any = None) -> list[dict]:
    """Run ``work(spec, cell)`` on every cell; records in cell order.

    ``scheduler``: ``None`` (serial), ``"dask"`` (a ``dask.distributed`` LocalCluster, needs the ``dask``
    extra with ``distributed``), or a ``dask.distributed.Client``.  The cells carry their own seeds, so the
    result is the same either way.
    """
    bar = Progress(len(cells), label, progress)
    out: list[list[dict]] = []
    if scheduler is None:
        for cell in cells:
            out.append(work(spec, cell))
            bar.step()
        return [r for rs in out for r in rs]
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ValueError("scheduler = 'dask' needs dask.distributed: pip install 'dask[distributed]'") from None
    own = None
    client = scheduler
    if scheduler == "dask":
        own = Client(LocalCluster(processes=True, threads_per_worker=1, dashboard_address=None))
        client = own
    try:
        futures = client.map(work, [spec] * len(cells), cells, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[list[dict] | None] = [None] * len(cells)
        for fut in as_completed(futures):
            results[index[fut.key]] = fut.result()
            bar.step()
        return [r for rs in results for r in (rs or [])]
    finally:
        if own is not None:
            own.close()
