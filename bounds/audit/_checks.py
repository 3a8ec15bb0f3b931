"""Argument checks shared by the audit modules: one clear error per bad value (function, parameter, value,
domain), never NaN, inf or a raw arithmetic exception further down."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core import ParameterTypeError, _kind_name, _short_repr

_NOT_REAL = (bool, np.bool_, str, bytes, bytearray, np.str_, np.bytes_, complex, np.complexfloating)


def count(function: str, name: str, value: Any, *, minimum: int = 0) -> int:
    """``value`` as a Python int ≥ ``minimum`` (ints, numpy integers and integral floats accepted)."""
    if value is None or isinstance(value, _NOT_REAL):
        raise ParameterTypeError(f"{function}: {name} = {_short_repr(value)} is not an integer ({_kind_name(value)})")
    if isinstance(value, (int, np.integer)):
        v = int(value)
    elif isinstance(value, (float, np.floating)):
        f = float(value)
        if not math.isfinite(f) or f != math.floor(f):
            raise ValueError(f"{function}: {name} = {_short_repr(value)} is not an integer (domain: integers "
                             f"≥ {minimum})")
        v = int(f)
    else:
        raise ParameterTypeError(f"{function}: {name} = {_short_repr(value)} is not an integer ({_kind_name(value)})")
    if v < minimum:
        raise ValueError(f"{function}: {name} = {v} is outside its domain (integers ≥ {minimum})")
    return v


def real(function: str, name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False,
         hi_open: bool = False) -> float:
    """``value`` as a finite float in the interval [lo, hi] (ends open as flagged)."""
    if value is None or isinstance(value, _NOT_REAL) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterTypeError(f"{function}: {name} = {_short_repr(value)} is not a real number "
                                 f"({_kind_name(value)})")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{function}: {name} = {_short_repr(value)} is beyond the float64 range") from None
    left, right = "(" if lo_open else "[", ")" if hi_open else "]"
    bad = v != v or (v <= lo if lo_open else v < lo) or (v >= hi if hi_open else v > hi)
    if bad or (isinstance(value, (int, np.integer)) and v != int(value)):
        raise ValueError(f"{function}: {name} = {_short_repr(value)} is outside its domain {left}{lo:g}, {hi:g}{right}")
    return v
