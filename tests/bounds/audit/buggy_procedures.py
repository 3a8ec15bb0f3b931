"""Planted bugs: four procedures that look like the ones the theorems assume and are not (issue 22, part 2).

Each is a realistic mistake (seen in published code or easy to make) and each is refuted by the auditor on a
scenario designed for it (``bounds.audit.scenarios``; tests in ``test_audit_bugs.py``), while the library's
procedure passes the same scenario.  The suppressors take the scenario's public ``AbsoluteDifference`` metric
(they read its ``lo``/``hi``) and one number per record.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def _T(data: Any, scale: float, m: float, M: float) -> np.ndarray:
    x = np.asarray(data, dtype=np.float64)
    return m + (M - m) * np.abs(x[:, None] - x[None, :]) / scale


def scores_data_normalised(data: Any, metric: Any, m: float, M: float) -> np.ndarray:
    """BUG: distances divided by the data's own range max(D) − min(D) instead of the public hi − lo
    (the authors' DPLloyd code, SYSTEMS §1.4 erratum 6): one far record rescales every score."""
    x = np.asarray(data, dtype=np.float64)
    span = float(x.max() - x.min()) or 1.0
    return _T(x, span, m, M).mean(axis=1)


def scores_excluding_self(data: Any, metric: Any, m: float, M: float) -> np.ndarray:
    """BUG: out(x) = (1/n) Σ_{y ≠ x} T(x, y) — the sum skips y = x (whose term is m)."""
    t = _T(data, metric.hi - metric.lo, m, M)
    n = t.shape[0]
    return (t.sum(axis=1) - np.diag(t)) / n


def recompute_suppressor_batch(data: Any, metric: Any, m: float, M: float, rng: np.random.Generator,
                               size: int) -> np.ndarray:
    """BUG: records visited in order, each deleted with probability out_C(x) where C is the current data
    (scores recomputed after every deletion).  ``size`` independent runs at once; returns keep masks
    (size, n)."""
    t = _T(data, metric.hi - metric.lo, m, M)
    n = t.shape[0]
    alive = np.ones((size, n), dtype=bool)
    for i in range(n):
        current = alive.sum(axis=1)                         # ≥ 1: record i itself is still there
        score = (alive * t[i][None, :]).sum(axis=1) / current
        alive[:, i] = ~(rng.random(size) < score)
    return alive


def recompute_suppressor(data: Any, metric: Any, m: float, M: float, rng: np.random.Generator) -> np.ndarray:
    """One run of :func:`recompute_suppressor_batch` (the same code)."""
    return recompute_suppressor_batch(data, metric, m, M, rng, 1)[0]


def fixed_size_poisson(n_or_data: Any, rate: float, *, rng: np.random.Generator) -> np.ndarray:
    """BUG: a "Poisson" sampler that keeps a uniformly random subset of fixed size round(rate·n)
    (jax_privacy #121); the keep mask has the right marginals but the wrong joint distribution."""
    n = n_or_data if isinstance(n_or_data, int) else len(n_or_data)
    k = int(round(rate * n))
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, size=k, replace=False)] = True
    return mask
