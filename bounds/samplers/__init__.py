"""Samplers of DP-SGD batches (issue 21): each function returns one *round* — one epoch, or one step for
per-step samplers — usable as ``compose([(round, count)])``, with its adjacency as data.

| sampler | function | certified |
|---|---|---|
| cyclic / deterministic | :func:`cyclic` | exact (θ√E) |
| balls-and-bins (fresh bins each epoch) | :func:`balls_and_bins` | lower ≤ exact ≤ upper |
| shuffled fixed-size batches | :func:`shuffled` | certified lower side; upper = cyclic |
| random allocation, k of T | :func:`random_allocation` | upper by decomposition; lower (k = 1 tight) |
| fixed-size batches, per step | :func:`fixed_size_sampled` | lower ≤ exact ≤ upper |

The procedures that draw these batches are the ``*Batches`` classes of :mod:`bounds.procedures.sampling`;
their ``accounting(mechanism, epochs, adjacency=...)`` returns the matching rounds through
:func:`bounds.samplers.wiring.sampler_steps`, the one source of the sampler words (``SAMPLERS``), their
adjacencies and the step convention, which :func:`sampler_composition` also uses.

Proof notes: ``docs/samplers/<name>.md``.
"""
from .balls_and_bins import BallsAndBinsRound, balls_and_bins
from .cyclic import CyclicRound, cyclic
from .random_allocation import RandomAllocationRound, random_allocation
from .shuffle import ShuffledRound, shuffled
from .wiring import SAMPLERS, sampler_composition

__all__ = ["BallsAndBinsRound", "CyclicRound", "RandomAllocationRound", "ShuffledRound", "balls_and_bins", "cyclic",
           "random_allocation", "sampler_composition", "shuffled", "SAMPLERS"]
from .fixed_size import FixedSizeRound, fixed_size_sampled  # noqa: E402  (issue 21 item 4; helper h21-ra)

__all__ += ["FixedSizeRound", "fixed_size_sampled"]
