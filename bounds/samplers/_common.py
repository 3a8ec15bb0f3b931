"""Validation shared by the samplers of DP-SGD batches (issue 21): noise mechanisms, counts, adjacency."""
from __future__ import annotations

import math
from typing import Any

from ..mechanisms import Gaussian, Laplace

ADJACENCIES = ("zero_out", "replace_one")


def check_gaussian(function: str, mechanism: Any) -> Gaussian:
    """The sampler's base mechanism: a ``Gaussian`` (TypeError otherwise)."""
    if not isinstance(mechanism, Gaussian):
        raise TypeError(f"{function}: mechanism must be a Gaussian (e.g. Gaussian.from_noise_multiplier(sigma)), "
                        f"not {type(mechanism).__name__}")
    return mechanism


def check_noise(function: str, mechanism: Any) -> Gaussian | Laplace:
    if not isinstance(mechanism, (Gaussian, Laplace)):
        raise TypeError(f"{function}: mechanism must be a Gaussian or Laplace, not {type(mechanism).__name__}")
    return mechanism


def check_int(function: str, name: str, value: Any, low: int = 1, high: int = 10 ** 7) -> int:
    """An integer in [low, high] (bools, floats with a fraction, NaN, inf, strings refused with ValueError)."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{function}: {name} = {value!r} must be an integer in [{low}, {high}]")
    try:
        if isinstance(value, int) or hasattr(value, "__index__"):
            v = int(value)
        else:
            f = float(value)
            if not math.isfinite(f) or f != math.floor(f):
                raise ValueError
            v = int(f)
    except (TypeError, ValueError, OverflowError):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:12] + "…"
        raise ValueError(f"{function}: {name} = {shown} must be an integer in [{low}, {high}]") from None
    if not low <= v <= high:
        shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:12] + "…"
        raise ValueError(f"{function}: {name} = {shown} must be an integer in [{low}, {high}]")
    return v


def check_adjacency(function: str, adjacency: Any) -> str:
    if not isinstance(adjacency, str) or adjacency not in ADJACENCIES:
        raise ValueError(f"{function}: adjacency = {adjacency!r} must be one of {ADJACENCIES}")
    return adjacency
