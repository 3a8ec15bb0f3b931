"""Seed-000 experiments: one cell vectorised over its repetitions vs the same work one repetition at a time.

Run: ``PYTHONPATH=. python benchmarks/bench_experiments.py``.  CPU time (``time.process_time``), best of 3,
both in the same run.  The per-repetition loop is what a straightforward port of the authors' code does (one
suppression mask, one count vector and one noise draw per repetition, still with numpy inside); the
vectorised cell draws one block of R × n exact Bernoulli deletions (``runner.keep_blocks``) and one R × k noise
matrix.  The third line is the same cell with the former inexact masks ``rng.random((R, n)) >= scores``
(deletion probability ⌈s·2⁵³⌉/2⁵³): the price of exactness.  The last line is the authors' own style, a
Python loop over the records.
"""
from __future__ import annotations

import time

import numpy as np

from bounds.experiments import mode
from bounds.experiments.datasets import load_column
from bounds.experiments.mode import ModeSpec, mode_cell
from bounds.experiments.runner import Cell
from bounds.experiments.scores import scores_discrete
from bounds.procedures._bernoulli import bernoulli

R = 200


def loop_cell(x: np.ndarray, scores: np.ndarray, eps: float, rng: np.random.Generator) -> float:
    wrong = 0
    v = x.astype(np.int64)
    for _ in range(R):
        keep = ~bernoulli(scores, x.shape[0], rng)
        counts = np.bincount(v[keep], minlength=126).astype(np.float64)
        wrong += int(np.argmax(counts + rng.laplace(0.0, 1.0 / eps, counts.shape)) != 36)
    return wrong / R


def python_cell(x: np.ndarray, scores: np.ndarray, eps: float, reps: int) -> float:
    """The authors' style: a Python loop over records (one uniform each), then over the 126 candidates."""
    rng = np.random.default_rng(0)
    wrong = 0
    for _ in range(reps):
        kept = [int(r) for r, s in zip(x, scores) if rng.random() >= s]
        counts = {}
        for r in kept:
            counts[r] = counts.get(r, 0) + 1
        noisy = [counts.get(i, 0) + rng.laplace(0.0, 1.0 / eps) for i in range(126)]
        wrong += int(noisy.index(max(noisy)) != 36)
    return wrong / reps


def inexact_keep_blocks(scores: np.ndarray, repetitions: int, rng: np.random.Generator):
    """The masks before the exact draws: kept iff random() ≥ s (one block)."""
    yield rng.random((repetitions, scores.shape[0])) >= scores


def best(f, n: int = 3) -> float:
    times = []
    for _ in range(n):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return min(times)


def main() -> None:
    x = load_column("adult", "age")
    scores = scores_discrete(x, 0.5, 0.5, "adult/age")
    spec = ModeSpec("adult", "age", ("laplace",), R, 0)
    cell = Cell(1.0, 0.5, 0.5, "MoS")
    vec = best(lambda: mode_cell(spec, cell))
    loop = best(lambda: loop_cell(x, scores, 1.0, np.random.default_rng(0)))
    print(f"mode, Adult age (n = {x.size}), RNM Laplace, M∘S at m = M = 0.5, {R} repetitions (CPU, best of 3):")
    print(f"  vectorised cell      {vec:.3f} s")
    print(f"  per-repetition loop  {loop:.3f} s   ratio loop/vectorised = {loop / vec:.2f}")
    exact = mode.keep_blocks
    for c in (cell, Cell(1.0, 0.3, 0.7, "MoS")):  # one shared score (sampling), per-record scores
        vec_c = best(lambda: mode_cell(spec, c))
        mode.keep_blocks = inexact_keep_blocks
        try:
            inexact = best(lambda: mode_cell(spec, c))
        finally:
            mode.keep_blocks = exact
        print(f"  (m, M) = ({c.m}, {c.M}): vectorised {vec_c:.3f} s, with the inexact masks {inexact:.3f} s   "
              f"ratio exact/inexact = {vec_c / inexact:.2f}")
    few = 5
    py = best(lambda: python_cell(x, scores, 1.0, few), 1) * R / few
    print(f"  pure-Python records  {py:.3f} s   (measured on {few} repetitions, scaled; ratio {py / vec:.0f})")


if __name__ == "__main__":
    main()
