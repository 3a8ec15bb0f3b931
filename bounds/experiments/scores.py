"""Outlier scores out_D(x) of the experiments' metrics, from ``bounds.procedures.outlier_scores`` (SYSTEMS §1.1).

The metrics are normalised with PUBLIC constants only (ranges fixed in advance), as T14 requires: the absolute
difference over the public range for the mean, the discrete metric for the mode, the Euclidean distance over
the public diameter for the clustering experiments.

``outlier_scores`` is called once per dataset, at (m, M) = (0, 1/2): it returns 0 + (1/2)·d̄(x) with d̄(x) the
average distance of x to D, so 2·scores = d̄ exactly (scaling by a power of two).  The score of any (m, M) is
then ``clip(m + (M − m)·d̄, m, M)`` — the very expression ``outlier_scores(x, metric, m, M)`` evaluates, so the
two are bit-identical (tested), while the O(n²) Euclidean sums are paid once, not once per (m, M).
"""
from __future__ import annotations

import numpy as np

__all__ = ["average_distance", "scores_from_average", "scores_absolute", "scores_discrete", "scores_euclidean"]

_AVERAGE: dict[tuple, np.ndarray] = {}


def average_distance(x: np.ndarray, kind: str, param, name: str) -> np.ndarray:
    """d̄(x) = (1/n)·Σ_y d(x, y) for the metric ``kind`` ("abs" with (lo, hi), "disc", "euc" with the
    diameter), cached by ``name`` (read-only array)."""
    key = (kind, name, param)
    if key not in _AVERAGE:
        from bounds import procedures

        if kind == "abs":
            metric = procedures.AbsoluteDifference(*param)
        elif kind == "disc":
            metric = procedures.Discrete()
        elif kind == "euc":
            metric = procedures.Euclidean(param)
        else:  # pragma: no cover - internal
            raise ValueError(f"kind = {kind!r}")
        d = 2.0 * np.asarray(procedures.outlier_scores(x, metric, 0.0, 0.5), dtype=np.float64)
        d.setflags(write=False)
        _AVERAGE[key] = d
    return _AVERAGE[key]


def scores_from_average(d: np.ndarray, m: float, M: float) -> np.ndarray:
    """out_D(x) = m + (M − m)·d̄(x), clipped to [m, M] exactly as ``outlier_scores`` does."""
    if M == 0.0:
        return np.zeros(d.shape[0])
    return np.clip(m + (M - m) * d, m, M)


def scores_absolute(x: np.ndarray, lo: float, hi: float, m: float, M: float, name: str) -> np.ndarray:
    """out_D(x) with d(x, y) = |x − y|/(hi − lo) (mean experiments)."""
    return scores_from_average(average_distance(x, "abs", (lo, hi), name), m, M)


def scores_discrete(x: np.ndarray, m: float, M: float, name: str) -> np.ndarray:
    """out_D(x) with the discrete metric 𝟙[x ≠ y] (mode experiments)."""
    return scores_from_average(average_distance(x, "disc", None, name), m, M)


def scores_euclidean(x: np.ndarray, diameter: float, m: float, M: float, name: str) -> np.ndarray:
    """out_D(x) with d(x, y) = ‖x − y‖₂/diameter (clustering experiments)."""
    return scores_from_average(average_distance(x, "euc", diameter, name), m, M)
