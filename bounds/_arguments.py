"""Validation of the object API's arguments (mechanism constructors, ``compose``, ``crosscheck``, the peers'
formats, the DP-SGD calibrations): one real number, one integer, one real array.

The rules are ``_core``'s (issue 19, reliability sweep): ``float``, ``int``, numpy integers and floats,
``Fraction``/``Decimal`` when float64 holds them exactly are numbers; a bool, a string, bytes, ``None`` or a
complex number (even with a zero imaginary part) is refused with :class:`ParameterTypeError` (a ``TypeError``
that is also a ``ValueError``); an integer float64 cannot hold exactly (2⁵³ + 1, 10⁴⁰⁰) and a value outside
the parameter's domain with a ``ValueError`` naming the function, the parameter, the value and the domain —
never a raw ``OverflowError`` from ``float(10**400)`` or ``int(inf)``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._core import ParameterTypeError, _fmt, _kind_name, _real_scalar, _short_repr, real

__all__ = ["ParameterTypeError", "integer", "real_array", "real_number", "shown"]


def shown(value: Any) -> str:
    """A value for a message: plain numbers (long integers abbreviated), other objects' short repr."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return _fmt(value)
    return _short_repr(value)


def _single(function: str, name: str, value: Any, kind: str, note: str) -> float:
    """``value`` as one float (a scalar, or a 0-d array through ``real``'s rules); an array of any other shape is
    a ValueError saying a single ``kind`` is needed."""
    v = _real_scalar(function, name, value, "")
    if v is None:
        array = real(function, name, value)
        if np.ndim(array) != 0:
            raise ValueError(f"{function}: {name} must be a single {kind}, got an array of shape "
                             f"{np.shape(array)}{note}")
        v = float(array)
    return v


def real_number(function: str, name: str, value: Any, *, low: float = -math.inf, high: float = math.inf,
                low_open: bool = False, high_open: bool = False, finite: bool = False) -> float:
    """``value`` as one float in the interval given (closed unless ``low_open``/``high_open``).

    Raises ``ParameterTypeError`` for what is not a real number; ``ValueError`` for arrays (a single number
    is needed), NaN, values outside the interval (``finite``: ±inf too) and values float64 cannot hold
    exactly."""
    v = _single(function, name, value, "number", "")
    domain = f"{'(' if low_open else '['}{_fmt(low)}, {_fmt(high)}{')' if high_open else ']'}"
    if v != v:
        raise ValueError(f"{function}: {name} is NaN; it must lie in {domain}")
    if (v <= low if low_open else v < low) or (v >= high if high_open else v > high) or \
            (finite and math.isinf(v)):
        raise ValueError(f"{function}: {name} = {_fmt(v)} is outside its domain {domain}"
                         + (" (a finite number is needed)" if finite and math.isinf(v) else ""))
    return v


def integer(function: str, name: str, value: Any, *, low: int = 0, high: int | None = None,
            what: str = "") -> int:
    """``value`` as a Python ``int`` in [low, high] (``high=None``: no upper limit).

    Accepts Python and numpy integers (any size: exact) and floats with an integer value (``3.0``); refuses
    bools, strings, ``None`` and complex numbers (``ParameterTypeError``), NaN, ±inf and fractional values
    (``ValueError``).  ``what`` is appended to the messages (e.g. "number of steps")."""
    note = f" ({what})" if what else ""
    bound = f"≥ {low}" if high is None else f"in [{low}, {_fmt(high)}]"
    if isinstance(value, (bool, np.bool_, str, bytes, bytearray, np.str_, np.bytes_, complex,
                          np.complexfloating)) or value is None:
        raise ParameterTypeError(f"{function}: {name} = {_short_repr(value)} is not an integer "
                                 f"({_kind_name(value)}){note}")
    if isinstance(value, (int, np.integer)):
        i = int(value)
    else:
        v = _single(function, name, value, "integer", note)
        if not math.isfinite(v) or v != math.floor(v):
            raise ValueError(f"{function}: {name} = {_fmt(v)} must be an integer {bound}{note}")
        i = int(v)
    if i < low or (high is not None and i > high):
        raise ValueError(f"{function}: {name} = {_fmt(i)} is outside its domain: integers {bound}{note}")
    return i


def real_array(function: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a float64 array (a 0-d array for a scalar), with ``_core``'s refusals (bools, strings,
    complex, ``None``, integers float64 cannot hold exactly); NaN is left to the caller."""
    return np.asarray(real(function, name, value), dtype=np.float64)
