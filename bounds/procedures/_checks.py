"""Input checks shared by the procedures (private): the project's contract — bad input raises a ``ValueError``
naming the function, the parameter, its value and its domain; a wrong kind of object (a string, a bool, a
complex number, ``None``) raises ``ParameterTypeError`` (a ``TypeError`` that is also a ``ValueError``).

``generator`` serves every procedure (samplers, suppressors, k-anonymization, missing-data masks) and the
audits (``bounds.audit``); ``count``, ``size_of`` and ``probability`` are the float rules of the samplers,
suppressors and audits (``kanonymity`` and ``missing`` read their parameters as exact rationals and keep their
own checks)."""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._core import ParameterTypeError, _fmt, _short_repr, real


def generator(function: str, rng: Any, name: str = "rng") -> np.random.Generator:
    """``rng`` as a ``numpy.random.Generator``: ``None`` → a fresh default generator, a non-negative int → seeded
    ``default_rng(seed)``, a Generator as is.  The legacy ``RandomState`` is refused (its streams differ).
    ``name`` is the parameter's name in errors (``seed`` in the audits)."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"{function}: {name} = {_fmt(rng)} must be a non-negative seed, a "
                             "numpy.random.Generator or None")
        return np.random.default_rng(int(rng))
    raise ParameterTypeError(f"{function}: {name} = {_short_repr(rng)} must be a numpy.random.Generator, a "
                             "non-negative int seed or None")


_MAX_COUNT = 2 ** 53  # counts beyond it are not array sizes (and a float64 cannot hold them all exactly)


def count(function: str, name: str, value: Any, *, minimum: int = 0, maximum: int | None = None) -> int:
    """An integer count (``int``/numpy integer, or a float/Fraction with an integer value) in [minimum, maximum].

    ``maximum`` defaults to 2⁵³ (counts that become array sizes or float64 values).  A caller that keeps its
    counts as exact Python ints throughout (the Clopper–Pearson limits of ``bounds.audit``) may pass a larger
    ``maximum``; an integral float above 2⁵³ is then taken at its exact value."""
    if isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(f"{function}: {name} = {value!r} is a bool, not an integer")
    if isinstance(value, (int, np.integer)):
        v = int(value)
    else:
        x = real(function, name, value)
        if isinstance(x, np.ndarray):
            if x.ndim != 0:
                raise ValueError(f"{function}: {name} must be a single integer, not an array of shape {x.shape}")
            x = float(x)
        if math.isnan(x) or math.isinf(x) or x != math.floor(x):
            raise ValueError(f"{function}: {name} = {_fmt(x)} must be an integer ≥ {minimum}")
        v = int(x)
    maximum = _MAX_COUNT if maximum is None else maximum
    if v < minimum or v > maximum:
        upper = f" and ≤ {maximum}"
        raise ValueError(f"{function}: {name} = {_fmt(v)} is outside its domain: an integer ≥ {minimum}{upper}")
    return v


def size_of(function: str, n_or_data: Any) -> int:
    """The number of records: ``n_or_data`` is a count n ≥ 0 or the data (records along the first axis)."""
    if isinstance(n_or_data, (numbers.Integral, np.integer)) and not isinstance(n_or_data, (bool, np.bool_)):
        return count(function, "n_or_data", n_or_data)
    if isinstance(n_or_data, (bool, np.bool_, str, bytes, np.str_, np.bytes_, float, complex, np.floating,
                              np.complexfloating)) or n_or_data is None:
        raise ParameterTypeError(f"{function}: n_or_data = {_short_repr(n_or_data)} must be a record count "
                                 "(an int ≥ 0) or the data (a sequence or array of records)")
    try:
        return len(n_or_data)
    except TypeError:
        raise ParameterTypeError(f"{function}: n_or_data = {_short_repr(n_or_data)} must be a record count "
                                 "(an int ≥ 0) or the data (a sequence or array of records)") from None


def probability(function: str, name: str, value: Any, *, upper_open: bool = False) -> float | np.ndarray:
    """A probability (scalar or array) in [0, 1] (or [0, 1) when ``upper_open``), NaN refused."""
    if type(value) is float and 0.0 <= value and (value < 1.0 if upper_open else value <= 1.0):
        return value  # the common case, as ``real`` returns it (NaN fails the comparisons: reported below)
    if type(value) is np.ndarray and value.dtype == np.float64:  # valid arrays: a copy, as ``real`` returns
        if np.all((value >= 0.0) & ((value < 1.0) if upper_open else (value <= 1.0))):
            return value.copy()
    x = real(function, name, value)
    a = np.asarray(x, dtype=np.float64)
    bad = np.isnan(a) | (a < 0.0) | ((a >= 1.0) if upper_open else (a > 1.0))
    if bad.any():
        where = "" if a.ndim == 0 else "[" + ", ".join(str(int(i)) for i in np.argwhere(bad)[0]) + "]"
        v = float(a[tuple(np.argwhere(bad)[0])]) if a.ndim else float(a)
        domain = "[0, 1)" if upper_open else "[0, 1]"
        raise ValueError(f"{function}: {name}{where} = {_fmt(v)} is outside its domain {domain}")
    return x
