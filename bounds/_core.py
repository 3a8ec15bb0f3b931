"""Machinery shared by every public function: validation against the record's domains, broadcasting,
kernel dispatch, scalar-in → float-out.  Reads only the generated plain-data metadata (no sympy)."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from numeric._generated.metadata import THEOREMS


class Guarantee(NamedTuple):
    """An (ε, δ) differential-privacy guarantee (floats for scalar input, arrays otherwise).

    Returned by every (ε, δ) function; a ``NamedTuple``, so it unpacks as ``epsilon, delta = g``.

    Parameters
    ----------
    epsilon : float or ndarray
        ε (an upper bound on the exact value, or a base budget on the safe side for inverses).
    delta : float or ndarray
        δ, likewise.

    Examples
    --------
    >>> import bounds
    >>> epsilon, delta = bounds.poisson_subsampling(1.0, 1e-6, 0.01)
    >>> delta
    1e-08
    """

    epsilon: Any
    delta: Any


_OPS = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal}


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x) if x != int(x) else f"{int(x)}"


def describe_domain(domain: tuple) -> str:
    lo, hi, lo_open, hi_open, integer = domain
    text = f"{'(' if lo_open else '['}{_fmt(lo)}, {_fmt(hi)}{')' if hi_open else ']'}"
    return f"integers in {text}" if integer else text


def _where(values: np.ndarray, bad: np.ndarray) -> tuple[str, float]:
    """Index text and value of the first offending element."""
    index = np.argwhere(bad)[0]
    value = float(values[tuple(index)])
    return ("" if values.ndim == 0 else "[" + ", ".join(str(int(i)) for i in index) + "]"), value


def validate(function: str, theorem_id: str, **params: Any) -> dict[str, np.ndarray]:
    """Check every parameter against its declared domain and the record's constraints.

    Returns the parameters as broadcast float64 arrays.  Raises ``ValueError`` naming the function,
    parameter, offending value (first offending element for arrays), domain and theorem.
    """
    meta = THEOREMS[theorem_id]
    where = f"(SPEC {theorem_id}, {meta['name']})"
    arrays = {}
    for name, value in params.items():
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{function}: {name} = {value!r} is not a real number {where}") from None
        domain = meta["parameters"][name]["domain"]
        lo, hi, lo_open, hi_open, integer = domain
        allowed = describe_domain(domain)
        nan = np.isnan(array)
        if nan.any():
            idx, _ = _where(array, nan)
            raise ValueError(f"{function}: {name}{idx} is NaN; it must lie in {allowed} {where}")
        below = array <= lo if lo_open else array < lo
        above = array >= hi if hi_open else array > hi
        bad = below | above
        if integer:
            bad |= np.isinf(array)
        if bad.any():
            idx, v = _where(array, bad)
            raise ValueError(f"{function}: {name}{idx} = {_fmt(v)} is outside its domain {allowed} {where}")
        if integer:
            fractional = array != np.floor(array)
            if fractional.any():
                idx, v = _where(array, fractional)
                raise ValueError(f"{function}: {name}{idx} = {_fmt(v)} must be an integer; domain: {allowed} {where}")
        arrays[name] = array
    try:
        broadcast = np.broadcast_arrays(*arrays.values())
    except ValueError as exc:
        raise ValueError(f"{function}: parameter shapes do not broadcast: "
                         + ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())) from exc
    arrays = dict(zip(arrays, broadcast))
    for lhs, op, rhs in meta["constraints"]:
        bad = ~_OPS[op](arrays[lhs], arrays[rhs])
        if bad.any():
            idx, v = _where(arrays[lhs], bad)
            w = float(arrays[rhs][tuple(np.argwhere(bad)[0])])
            raise ValueError(f"{function}: {lhs}{idx} = {_fmt(v)} must be {op} {rhs} = {_fmt(w)} {where}")
    return arrays


def evaluate(theorem_id: str, output: str, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """Run an output's (rounded) kernel on validated arrays."""
    from numeric import kernel

    spec = THEOREMS[theorem_id]["outputs"][output]
    # Hand-written kernels receive every record parameter; one a public function does not take (the δ of a
    # profile evaluated at ε, the ε of an inverse) is not read by that kernel and is passed as 0.
    args = [arrays.get(a, 0.0) for a in spec["args"]]
    with np.errstate(all="ignore"):  # inf is a legitimate intermediate (ε = inf, overflow to a capped δ)
        result = kernel(spec["kernel"], len(args))(*args)
    return np.asarray(result, dtype=np.float64)


def value(function: str, theorem_id: str, output: str, **params: Any) -> Any:
    """Validate, evaluate one output, return a float for scalar input (an array otherwise)."""
    scalar = is_scalar(*params.values())
    return as_output(evaluate(theorem_id, output, validate(function, theorem_id, **params)), scalar)


def as_output(result: np.ndarray, scalar: bool) -> Any:
    return float(result) if scalar else result


def is_scalar(*values: Any) -> bool:
    return all(np.ndim(v) == 0 for v in values)


def guarantee(function: str, theorem_id: str, outputs: tuple[str, str] = ("epsilon", "delta"),
              **params: Any) -> Guarantee:
    """Validate, evaluate two outputs, and return them as a ``Guarantee``."""
    scalar = is_scalar(*params.values())
    arrays = validate(function, theorem_id, **params)
    eps = evaluate(theorem_id, outputs[0], arrays)
    dlt = evaluate(theorem_id, outputs[1], arrays)
    return Guarantee(as_output(eps, scalar), as_output(dlt, scalar))
