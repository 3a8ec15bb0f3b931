"""Samplers of DP-SGD batches (issue 21): each function returns one *round* — one epoch, or one step for
per-step samplers — usable as ``compose([(round, count)])``, with its adjacency as data.

| sampler | function | certified |
|---|---|---|
| cyclic / deterministic | :func:`cyclic` | exact (θ√E) |
| balls-and-bins (fresh bins each epoch) | :func:`balls_and_bins` | lower ≤ exact ≤ upper |

Proof notes: ``docs/samplers/<name>.md``.
"""
from .cyclic import CyclicRound, cyclic

__all__ = ["CyclicRound", "cyclic"]
