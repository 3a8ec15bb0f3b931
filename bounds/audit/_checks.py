"""Argument checks of the audit modules: one clear error per bad value (function, parameter, value, domain),
never NaN, inf or a raw arithmetic exception further down.

Counts and random generators follow the procedures' rules (``bounds.procedures._checks.count`` and
``generator``, imported where used); only the interval rule for reals with open or closed ends lives here, on
top of the project's kind rule (``bounds._core.real``: strings, bools, complex numbers and None refused, values
float64 cannot hold exactly refused)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._core import _short_repr
from .._core import real as _real


def real(function: str, name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False,
         hi_open: bool = False) -> float:
    """``value`` as a finite float in the interval [lo, hi] (ends open as flagged)."""
    v = _real(function, name, value)
    if isinstance(v, np.ndarray):
        raise ValueError(f"{function}: {name} = {_short_repr(value)} must be a single real number, not an array")
    left, right = "(" if lo_open else "[", ")" if hi_open else "]"
    bad = v != v or (v <= lo if lo_open else v < lo) or (v >= hi if hi_open else v > hi)
    if bad:
        raise ValueError(f"{function}: {name} = {_short_repr(value)} is outside its domain {left}{lo:g}, {hi:g}{right}")
    return v
