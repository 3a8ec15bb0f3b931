"""The seed-000 experiments (sampling and suppression of records before a DP mechanism), reproducible.

``shared/SYSTEMS.md`` §1.2–§1.4: NoisyAverage, report-noisy-max and the exponential mechanism for the mode,
DPLloyd and k-median, each in the paper's four variants, with the authors' errata fixed (``faithful=True``
reproduces them).  Command line: ``ampbounds reproduce EXPERIMENT``.
"""
from __future__ import annotations
