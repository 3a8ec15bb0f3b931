"""Composition of mechanisms with a certified sandwich: lower ≤ exact ≤ upper (issue 12).

INTERFACE SKELETON (lead, for integration between helpers): ``Sandwich``, ``PoissonSampled``,
``poisson_sampled`` are fixed here; ``compose``/``Composition`` are to be implemented by the composition work.
Names are fixed by DESIGN.md, "Composition and cross-checking".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from .mechanisms import EpsDelta, Gaussian, Laplace


class Sandwich(NamedTuple):
    """Certified enclosure ``lower ≤ exact ≤ upper`` (floats for scalar queries, arrays otherwise)."""

    lower: Any
    upper: Any


@dataclass(frozen=True)
class PoissonSampled:
    """``mechanism`` run on a Poisson sample of rate ``rate`` (add/remove relation); SPEC T11 for one step."""

    mechanism: Gaussian | Laplace | EpsDelta
    rate: float


def poisson_sampled(mechanism: Gaussian | Laplace | EpsDelta, rate: float) -> PoissonSampled:
    """The Poisson-subsampled mechanism (add/remove): each record kept independently with probability ``rate``."""
    if not isinstance(mechanism, (Gaussian, Laplace, EpsDelta)):
        raise TypeError(f"poisson_sampled: mechanism must be Gaussian, Laplace or EpsDelta, not {type(mechanism).__name__}")
    try:
        r = float(rate)
    except (TypeError, ValueError):
        raise ValueError(f"poisson_sampled: rate = {rate!r} is not a real number") from None
    if not (0.0 <= r <= 1.0) or math.isnan(r):
        raise ValueError(f"poisson_sampled: rate = {r!r} is outside its domain [0, 1]")
    return PoissonSampled(mechanism, r)
