"""Machinery shared by every public function: validation against the record's domains, broadcasting,
kernel dispatch, scalar-in → float-out.  Reads only the generated plain-data metadata (no sympy).

Two routes, one contract.  Scalar arguments (Python/numpy real scalars) take a fast path: plain Python
comparisons against the domain (the domain text is built only when raising) and a direct call of the kernel
(``scalar_call``): its own source run as plain Python for the first calls of a process (``numeric.pure``: no
numba import), then the kernel's compiled scalar route (``numeric.scalar_route``: a generated closed form's
array loop at one point if the process has built it, so it is not compiled twice; the ``@njit`` kernel
otherwise).  Arrays
are checked in one fused pass per parameter (numpy then only finds the offender) and run through the kernel's
cached array loop (``numeric.kernel``, ``numeric.loops``); an (ε, δ) function whose two kernels are closed forms
runs both in one loop that also checks the domains and the constraint (``_guarantee_arrays``).
``tests/bounds/test_contract.py`` and ``tests/bounds/test_array_route.py`` prove the routes bit-identical over
the accuracy grids.

What counts as a real number: ``float``, ``int`` (not ``bool``), numpy real scalars and arrays of real dtype,
``numbers.Real`` (``Fraction``, ``Decimal``) when float64 represents them exactly.  A value that float64
cannot hold exactly — an integer above 2⁵³ such as 2⁵³ + 1, an integer beyond the float range such as 10⁴⁰⁰,
an inexact ``Fraction`` or ``longdouble`` — is refused with a ``ValueError``: rounding it silently could move a
bound below the exact value (k = 2⁵³ + 1 would give kε below the truth).  Strings, bytes, ``None``, booleans
and complex numbers are refused with :class:`ParameterTypeError` (a ``TypeError`` that is also a
``ValueError``, so code that catches ``ValueError`` for bad input keeps working).
"""
from __future__ import annotations

import math
import numbers
import sys
import time
from typing import Any, NamedTuple

import numpy as np

from numeric._generated.metadata import THEOREMS

from . import _dask  # imports no dask: recognises dask arrays only if the caller imported dask


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


class ParameterTypeError(TypeError, ValueError):
    """A parameter is not a real number (a string, ``None``, a bool, a complex number, an object...).

    Subclasses both ``TypeError`` (what it is) and ``ValueError`` (what every other bad input raises)."""


_OPS = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal}
_PY_OPS = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b}
_TWO53 = 2 ** 53


def _fmt(x: Any) -> str:
    """A plain number for messages: ``0.5``, ``3``, ``inf``, ``nan`` (never ``np.float64(0.5)``); long integers
    are abbreviated."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        text = str(int(x))
        return text if len(text) <= 24 else f"{text[:6]}…({len(text)} digits)"
    try:
        x = float(x)
    except (TypeError, ValueError, OverflowError):
        return _short_repr(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x) if x != int(x) or abs(x) >= 1e16 else f"{int(x)}"


def _short_repr(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def describe_domain(domain: tuple) -> str:
    lo, hi, lo_open, hi_open, integer = domain
    text = f"{'(' if lo_open else '['}{_fmt(lo)}, {_fmt(hi)}{')' if hi_open else ']'}"
    return f"integers in {text}" if integer else text


def _where_text(meta_name: str, theorem_id: str) -> str:
    return f"(SPEC {theorem_id}, {meta_name})"


def _kind_name(x: Any) -> str:
    if x is None:
        return "None"
    if isinstance(x, (str, np.str_)):
        return "a string"
    if isinstance(x, (bytes, bytearray, np.bytes_)):
        return "bytes"
    if isinstance(x, (bool, np.bool_)):
        return "a bool"
    if isinstance(x, (complex, np.complexfloating)):
        return "a complex number"
    return f"of type {type(x).__name__}"


def _not_real(function: str, name: str, x: Any, where: str, index: str = "") -> ParameterTypeError:
    return ParameterTypeError(f"{function}: {name}{index} = {_short_repr(x)} is not a real number "
                              f"({_kind_name(x)}) {where}")


def _exact_int(function: str, name: str, i: int, where: str, index: str = "") -> float:
    """An integer as a float64, refused unless exactly representable (compared as Python ints)."""
    try:
        v = float(i)
    except OverflowError:
        raise ValueError(f"{function}: {name}{index} = {_fmt(i)} is beyond the float64 range; it cannot be "
                         f"evaluated {where}") from None
    if v != i:  # int == float compares exactly in Python
        raise ValueError(f"{function}: {name}{index} = {i} is an integer above 2^53 that float64 cannot hold "
                         f"exactly (nearest: {v!r}); rounding it could make the bound unsound, so it is refused "
                         f"{where}")
    return v


def _real_scalar(function: str, name: str, x: Any, where: str, index: str = "") -> float | None:
    """``x`` as an exact float64 if it is a real scalar; ``None`` if it is an array-like (left to numpy);
    raises for anything else."""
    t = type(x)
    if t is float:
        return x
    if t is int:
        return float(x) if -_TWO53 <= x <= _TWO53 else _exact_int(function, name, x, where, index)
    if isinstance(x, (bool, np.bool_, str, bytes, bytearray, np.str_, np.bytes_, complex, np.complexfloating)) \
            or x is None:
        raise _not_real(function, name, x, where, index)
    if isinstance(x, float):  # np.float64 and other float subclasses
        return float(x)
    if isinstance(x, (int, np.integer)):
        return _exact_int(function, name, int(x), where, index)
    if isinstance(x, np.floating):  # float16/32 widen exactly; longdouble may not fit
        v = float(x)
        if v != x and not math.isnan(v):
            raise ValueError(f"{function}: {name}{index} = {x} ({type(x).__name__}) is not exactly representable "
                             f"as float64; convert it explicitly {where}")
        return v
    if isinstance(x, np.ndarray) or hasattr(x, "__array__") or isinstance(x, (list, tuple)):
        return None
    if isinstance(x, numbers.Real):  # Fraction, Decimal, other real types: exact or refused
        try:
            v = float(x)
        except (OverflowError, ValueError, TypeError, ArithmeticError):
            raise ValueError(f"{function}: {name}{index} = {_short_repr(x)} is beyond the float64 range "
                             f"{where}") from None
        try:
            exact = math.isnan(v) or math.isinf(v) or v == x
        except (TypeError, ArithmeticError):
            exact = False
        if not exact:
            raise ValueError(f"{function}: {name}{index} = {_short_repr(x)} is not exactly representable as "
                             f"float64; convert it explicitly (float(...)) {where}")
        return v
    raise _not_real(function, name, x, where, index)


def _check_scalar(function: str, name: str, v: float, domain: tuple, where: str) -> None:
    """Domain check of one float with plain comparisons; the domain text is built only when raising."""
    lo, hi, lo_open, hi_open, integer = domain
    if v != v:
        raise ValueError(f"{function}: {name} is NaN; it must lie in {describe_domain(domain)} {where}")
    if (v <= lo if lo_open else v < lo) or (v >= hi if hi_open else v > hi) or (integer and math.isinf(v)):
        raise ValueError(f"{function}: {name} = {_fmt(v)} is outside its domain {describe_domain(domain)} {where}")
    if integer and v != math.floor(v):
        raise ValueError(f"{function}: {name} = {_fmt(v)} must be an integer; domain: {describe_domain(domain)} "
                         f"{where}")


def _index(values: np.ndarray, bad: np.ndarray) -> tuple[str, tuple]:
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return ("" if values.ndim == 0 else "[" + ", ".join(str(i) for i in index) + "]"), index


def _where(values: np.ndarray, bad: np.ndarray) -> tuple[str, float]:
    """Index text and value of the first offending element."""
    text, index = _index(values, bad)
    return text, float(values[index])


def _real_array(function: str, name: str, value: Any, where: str) -> np.ndarray:
    """``value`` as a float64 array, refusing non-real dtypes and values float64 cannot hold exactly."""
    if _dask.is_dask(value):  # reached only where dask is not supported: never read the whole array in
        raise _dask.refusal(function, name)
    try:
        array = np.asarray(value)
    except Exception:  # ragged nesting and the like
        raise ParameterTypeError(f"{function}: {name} = {_short_repr(value)} is not a real number or an array "
                                 f"of real numbers {where}") from None
    kind = array.dtype.kind
    if kind == "f":
        converted = array.astype(np.float64)
        if array.dtype.itemsize > 8:  # longdouble: refuse what float64 would round
            inexact = (converted != array) & ~np.isnan(array)
            if inexact.any():
                text, index = _index(array, inexact)
                raise ValueError(f"{function}: {name}{text} = {array[index]} is not exactly representable as "
                                 f"float64 {where}")
        return converted
    if kind in "iu":
        converted = array.astype(np.float64)
        big = (array > _TWO53) | (array < -_TWO53)  # compared as integers: 2⁵³ + 1 is not rounded first
        if big.any():  # rare: check exactness element by element, as Python ints
            for index in zip(*np.nonzero(big)):
                text = "" if array.ndim == 0 else "[" + ", ".join(str(int(i)) for i in index) + "]"
                _exact_int(function, name, int(array[index]), where, text)
        return converted
    if kind == "O":  # Python objects (big ints, Fractions, None...): element by element
        out = np.empty(array.shape, dtype=np.float64)
        for index in np.ndindex(array.shape):
            text = "" if array.ndim == 0 else "[" + ", ".join(str(i) for i in index) + "]"
            element = array[index]
            v = _real_scalar(function, name, element, where, text)
            if v is None:
                raise _not_real(function, name, element, where, text)
            out[index] = v
        return out
    kinds = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes", "M": "datetimes",
             "m": "timedeltas"}
    raise ParameterTypeError(f"{function}: {name} = {_short_repr(value)} is not a real number or an array of "
                             f"real numbers ({kinds.get(kind, 'dtype ' + str(array.dtype))}) {where}")


_FUSED_MIN_SIZE = 4096  # below this (and before numba is loaded), numpy's passes cost less than importing numba
_DOMAIN_BOUNDS: dict[tuple, tuple[float, float]] = {}


def _in_domain(array: np.ndarray, domain: tuple) -> bool:
    """One fused pass (``numeric.loops.in_domain``): True iff ``_check_array`` would accept ``array``."""
    from numeric import loops

    bounds = _DOMAIN_BOUNDS.get(domain)
    if bounds is None:
        bounds = _DOMAIN_BOUNDS[domain] = loops.domain_bounds(*domain)
    flat = np.ascontiguousarray(array).reshape(-1)
    if flat.flags.writeable:  # always read-only (as validate's own views are): one compiled specialisation
        flat = flat.view()
        flat.flags.writeable = False
    return loops.in_domain(flat, bounds[0], bounds[1], bool(domain[4]))


def _check_array(function: str, name: str, array: np.ndarray, domain: tuple, where: str) -> None:
    """Raise for the first NaN, else the first element outside the domain, else the first non-integer (of an
    integer domain), in C order.  Large arrays are first checked in one fused pass; numpy's passes below then
    run only to find and report an offender."""
    if (array.size >= _FUSED_MIN_SIZE or (array.size > 1 and "numba" in sys.modules)) \
            and _in_domain(array, domain):
        return
    lo, hi, lo_open, hi_open, integer = domain
    nan = np.isnan(array)
    if nan.any():
        idx, _ = _where(array, nan)
        raise ValueError(f"{function}: {name}{idx} is NaN; it must lie in {describe_domain(domain)} {where}")
    below = array <= lo if lo_open else array < lo
    above = array >= hi if hi_open else array > hi
    bad = below | above
    if integer:
        bad |= np.isinf(array)
    if bad.any():
        idx, v = _where(array, bad)
        raise ValueError(f"{function}: {name}{idx} = {_fmt(v)} is outside its domain {describe_domain(domain)} "
                         f"{where}")
    if integer:
        fractional = array != np.floor(array)
        if fractional.any():
            idx, v = _where(array, fractional)
            raise ValueError(f"{function}: {name}{idx} = {_fmt(v)} must be an integer; domain: "
                             f"{describe_domain(domain)} {where}")


def real(function: str, name: str, value: Any, where: str = "") -> Any:
    """``value`` as a float (scalars) or float64 array, or a ``ParameterTypeError``/``ValueError`` naming
    ``function`` and ``name`` — for parameters without a record domain (checked by their caller)."""
    v = _real_scalar(function, name, value, where)
    return v if v is not None else _real_array(function, name, value, where)


def validate_scalars(function: str, theorem_id: str, params: dict[str, Any]) -> dict[str, float] | None:
    """The fast path of ``validate``: the parameters as floats if every one is a real scalar (checked against
    its domain and the record's constraints with plain comparisons), ``None`` if any is an array."""
    meta = THEOREMS[theorem_id]
    declared = meta["parameters"]
    floats = {}
    for name, x in params.items():
        v = x if type(x) is float else _real_scalar(function, name, x, _where_text(meta["name"], theorem_id))
        if v is None:
            return None
        floats[name] = v
    for name, v in floats.items():
        lo, hi, lo_open, hi_open, integer = domain = declared[name]["domain"]
        if v != v or (v <= lo if lo_open else v < lo) or (v >= hi if hi_open else v > hi) or \
                (integer and (math.isinf(v) or v != math.floor(v))):
            _check_scalar(function, name, v, domain, _where_text(meta["name"], theorem_id))
    for lhs, op, rhs in meta["constraints"]:
        if lhs in floats and rhs in floats and not _PY_OPS[op](floats[lhs], floats[rhs]):
            raise ValueError(f"{function}: {lhs} = {_fmt(floats[lhs])} must be {op} {rhs} = {_fmt(floats[rhs])} "
                             f"{_where_text(meta['name'], theorem_id)}")
    return floats


def validate(function: str, theorem_id: str, **params: Any) -> dict[str, np.ndarray]:
    """Check every parameter against its declared domain and the record's constraints.

    Returns the parameters as broadcast float64 arrays (read-only: a float64 array argument is returned as a view,
    not copied).  Raises ``ValueError`` naming the function,
    parameter, offending value (first offending element for arrays), domain and theorem; a
    :class:`ParameterTypeError` for a value that is not a real number.
    """
    return _validate(function, theorem_id, params, False)[0]


def _validate(function: str, theorem_id: str, params: dict[str, Any],
              defer: bool) -> tuple[dict[str, np.ndarray], list[str]]:
    """``validate``'s work; with ``defer``, the domain check of each array of at least ``_FUSED_MIN_SIZE``
    points whose shape is the broadcast shape (every element reaches the loop) is left to the caller's fused
    loop, and those names are returned; if there is any, the constraints are left to that loop too.  Whatever it
    raises then may not be the first error in ``validate``'s order: the caller re-runs ``validate`` for the
    message."""
    meta = THEOREMS[theorem_id]
    where = _where_text(meta["name"], theorem_id)
    arrays = {}
    deferred = []
    for name, value in params.items():
        domain = meta["parameters"][name]["domain"]
        v = _real_scalar(function, name, value, where)
        if v is not None:
            _check_scalar(function, name, v, domain, where)
            arrays[name] = np.asarray(v)
        else:
            if type(value) is np.ndarray and value.dtype == np.float64:  # already float64: a read-only view, no copy
                array = value.view()
                array.flags.writeable = False
            else:
                array = _real_array(function, name, value, where)
            if defer and array.size >= _FUSED_MIN_SIZE:
                deferred.append(name)
            else:
                _check_array(function, name, array, domain, where)
            arrays[name] = array
    if len(arrays) > 1 and any(a.ndim for a in arrays.values()):
        try:
            broadcast = np.broadcast_arrays(*arrays.values())
        except ValueError:
            raise ValueError(f"{function}: parameter shapes do not broadcast: "
                             + ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items()) + f" {where}") from None
        shape = broadcast[0].shape
        for name in [n for n in deferred if arrays[n].shape != shape]:  # some elements never reach the loop
            deferred.remove(name)
            _check_array(function, name, arrays[name], meta["parameters"][name]["domain"], where)
        arrays = dict(zip(arrays, broadcast))
    if deferred:  # the fused loop tests the constraint at every point, with the domains
        return arrays, deferred
    for lhs, op, rhs in meta["constraints"]:
        if lhs not in arrays or rhs not in arrays:
            continue
        if _OPS[op](arrays[lhs], arrays[rhs]).all():
            continue
        bad = ~_OPS[op](arrays[lhs], arrays[rhs])
        if bad.any():
            idx, v = _where(arrays[lhs], bad)
            w = float(arrays[rhs][tuple(np.argwhere(bad)[0])])
            raise ValueError(f"{function}: {lhs}{idx} = {_fmt(v)} must be {op} {rhs} = {_fmt(w)} {where}")
    return arrays, deferred


def evaluate_scalar(theorem_id: str, output: str, floats: dict[str, float]) -> float:
    """One output at one point: ``scalar_call`` of the output's kernel with the record's arguments."""
    spec = THEOREMS[theorem_id]["outputs"][output]
    return scalar_call(spec["kernel"], [floats.get(a, 0.0) for a in spec["args"]])


def scalar_call(kernel: str, args: list[float]) -> float:
    """Kernel ``kernel`` (``"module:function"``) at one point of floats, bit-identical on every route.

    Two execution tiers.  The first ``PURE_CALLS`` calls of a kernel in a process run its source as plain
    Python (``numeric.pure``: no numba import, ≈ 0.5 s of CPU saved for a process that needs a few values);
    a call where plain Python raises or returns a non-real (where the compiled code, under numpy's error
    model, gives an IEEE inf/NaN) is evaluated by the compiled kernel instead.  A call that would run a long
    loop (more than ``numeric.pure.MAX_TRIPS`` iterations known before the loop starts, such as T3/T4's
    binomial window at m = 10¹²) raises ``numeric.pure.TooLong`` in plain Python at once: it is evaluated by the
    compiled kernel (compiled first if numba's cache lacks it, ≈ 1–3 s, against seconds to minutes of plain
    Python), which then serves every later call of that kernel.  From call ``PURE_CALLS + 1``
    on, the kernel's compiled scalar route (``numeric.scalar_route``, loaded from numba's disk cache: a
    generated closed form's array loop at one point when this process has built it, ≈ 0.4–0.5 µs, so the
    kernel is not compiled a second time; else the ``@njit`` kernel, ≈ 0.3 µs) is called directly.  Both tiers give the ufunc route's bits (tests/bounds/test_pure.py,
    tests/bounds/test_contract.py).
    """
    function = _SCALAR_KERNELS.get(kernel)
    if function is None:
        function = _SCALAR_KERNELS[kernel] = _tiered(kernel)
    return float(function(*args))


# Calls of one kernel served as plain Python before switching to the compiled kernel: at most PURE_CALLS, and
# no more once they took PURE_SECONDS in all (wall clock, perf_counter).  Plain Python costs 1–15 µs per call
# for the closed forms, 20–300 µs for the erfcx-based profiles (T9 δ, T11), 0.4–6 ms for the searches (T9/T10/
# T11 inverses, T14 ε_base), against the compiled ≈ 0.3 µs; importing numba and loading a kernel costs
# ≈ 0.5–0.9 s once.  On CPU alone plain Python would pay for itself up to ~10⁵ calls of a closed form, but a
# process making many calls wants the compiled speed: so the first calls, which a short-lived process may be
# all there is, skip numba, and a busy process switches after at most ≈ 20 ms of plain-Python time per
# kernel (benchmarks/bench_startup.py).
PURE_CALLS = 48
PURE_SECONDS = 0.02
_SCALAR_KERNELS: dict[str, Any] = {}


def _compiled(kernel: str) -> Any:
    from numeric import scalar_route

    return scalar_route(kernel)


def _tiered(kernel: str) -> Any:
    """The first-calls form of ``kernel``: plain Python with a compiled fallback, replacing itself in
    ``_SCALAR_KERNELS`` by the compiled kernel after ``PURE_CALLS`` calls (at once if no plain form exists)."""
    from numeric.pure import TooLong, pure_function

    pure = pure_function(kernel)
    if pure is None:
        return _compiled(kernel)
    calls = 0
    spent = 0.0

    def call(*args: float) -> float:
        nonlocal calls, spent
        calls += 1
        if calls > PURE_CALLS or spent > PURE_SECONDS:
            compiled = _SCALAR_KERNELS[kernel] = _compiled(kernel)
            return compiled(*args)
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"):  # numpy scalars (table entries) in the kernels: no warnings
                result = pure(*args)
        except TooLong:  # a long loop (numeric.pure, "Work limit"): this process needs the compiled speed
            compiled = _SCALAR_KERNELS[kernel] = _compiled(kernel)
            return compiled(*args)
        except Exception:  # plain Python's ZeroDivisionError/ValueError/OverflowError: numba's IEEE value
            result = None
        spent += time.perf_counter() - start
        if isinstance(result, (float, int)) and not isinstance(result, bool):
            return result
        return _compiled(kernel)(*args)
    return call


def evaluate(theorem_id: str, output: str, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """Run an output's (rounded) kernel on validated arrays (``kernel_values``)."""
    spec = THEOREMS[theorem_id]["outputs"][output]
    # Hand-written kernels receive every record parameter; one a public function does not take (the δ of a
    # profile evaluated at ε, the ε of an inverse) is not read by that kernel and is passed as 0.
    return kernel_values(spec["kernel"], [arrays.get(a, 0.0) for a in spec["args"]])


def _one_point(values: Any) -> bool:
    """Every value of size 1: one point, which ``kernel_values`` evaluates on the scalar route."""
    return all(np.size(a) == 1 for a in values)


def kernel_values(kernel_spec: str, args: list[Any]) -> np.ndarray:
    """Kernel ``kernel_spec`` at broadcast float64 arrays ``args``, as a float64 array of the broadcast shape.

    One point (every argument of size 1: a ``Fraction`` argument, a 0-d array, the one-point calls inside the
    inverses) goes through ``scalar_call``, the same kernel at the same point, so the same bits: no array loop is
    built (and compiled, ≈ 0.2–2 s in a process without numba's cache) for a single value."""
    if _one_point(args):
        shape = np.broadcast_shapes(*[np.shape(a) for a in args])
        value = scalar_call(kernel_spec, [float(np.reshape(a, -1)[0]) for a in args])
        return np.full(shape, value, dtype=np.float64)
    from numeric import kernel

    with np.errstate(all="ignore"):  # inf is a legitimate intermediate (ε = inf, overflow to a capped δ)
        result = kernel(kernel_spec, len(args))(*args)
    return np.asarray(result, dtype=np.float64)


def evaluate_pair(theorem_id: str, outputs: tuple[str, str], arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Two outputs on the same validated arrays: in ONE fused loop (``numeric.kernel_pair``: one pass over the
    inputs writing both outputs, one compilation) when their kernels are fused and the call is serial, else one
    loop each (``evaluate``).  Same bits either way (tests/bounds/test_array_route.py)."""
    if _one_point(arrays.values()):  # one point: the scalar route (``kernel_values``)
        return [evaluate(theorem_id, o, arrays) for o in outputs]
    pair = _fused_pair(theorem_id, outputs)
    if pair is None or _parallel(arrays):
        return [evaluate(theorem_id, o, arrays) for o in outputs]
    fused, union = pair
    with np.errstate(all="ignore"):  # as evaluate
        return [np.asarray(r, dtype=np.float64) for r in fused(*[arrays[a] for a in union])]


def _fused_pair(theorem_id: str, outputs: tuple[str, str]) -> Any:
    """``numeric.kernel_pair``: ``(fused loop, union of the two kernels' arguments)``, or None."""
    from numeric import kernel_pair

    return kernel_pair(theorem_id, outputs)


def _parallel(arrays: dict[str, np.ndarray]) -> bool:
    """Whether the call is large enough for the ``prange`` loops (one per output: the fused loop is serial)."""
    from numeric import loops

    return loops.PARALLEL_THRESHOLD is not None and \
        math.prod(np.broadcast_shapes(*[np.shape(a) for a in arrays.values()])) >= loops.PARALLEL_THRESHOLD


def _guarantee_arrays(function: str, theorem_id: str, outputs: tuple[str, str],
                      params: dict[str, Any]) -> list[np.ndarray]:
    """The array route of ``guarantee``.  With a fused loop (``evaluate_pair``), the domain checks of large arrays
    and the record's constraint run in the same pass as the two kernels (``FusedKernel.checked``: one pass over
    the inputs instead of one per parameter, one for the constraint and one per output, issue 20).  If a point is
    outside its domain, or anything raised on the way, ``validate`` runs again in full and raises exactly what it
    raises (the first error in parameter order, its first offending element): no result is returned for input
    ``validate`` refuses."""
    kernels = [THEOREMS[theorem_id]["outputs"][o]["kernel"] for o in outputs]
    may_fuse = all(k.startswith("numeric._generated.") for k in kernels)  # no numba import before validation
    try:
        arrays, deferred = _validate(function, theorem_id, params, may_fuse)
    except ValueError:
        validate(function, theorem_id, **params)  # the message validate gives
        raise
    pair = _fused_pair(theorem_id, outputs) if deferred else None
    if deferred and (pair is None or _parallel(arrays)):  # no fused pass (the prange loops): validate in full
        arrays, deferred = validate(function, theorem_id, **params), []
    if not deferred:
        return evaluate_pair(theorem_id, outputs, arrays)
    fused, union = pair
    with np.errstate(all="ignore"):  # as evaluate
        results, inside = fused.checked(*[arrays[a] for a in union])
    if not inside:
        validate(function, theorem_id, **params)  # raises: a point is outside its domain
        raise RuntimeError(f"{function}: the fused domain check refused a point validate accepts (a bug)")
    return [np.asarray(r, dtype=np.float64) for r in results]


def value(function: str, theorem_id: str, output: str, **params: Any) -> Any:
    """Validate, evaluate one output, return a float for scalar input (an array otherwise)."""
    floats = validate_scalars(function, theorem_id, params)
    if floats is not None:
        return evaluate_scalar(theorem_id, output, floats)
    if "dask" in sys.modules and _dask.any_dask(params.values()):  # lazy, per block (bounds/_dask.py)
        return _dask.value(function, theorem_id, output, params)
    scalar = is_scalar(*params.values())
    return as_output(evaluate(theorem_id, output, validate(function, theorem_id, **params)), scalar)


def as_output(result: np.ndarray, scalar: bool) -> Any:
    return float(result) if scalar else result


def is_scalar(*values: Any) -> bool:
    return all(np.ndim(v) == 0 for v in values)


def guarantee(function: str, theorem_id: str, outputs: tuple[str, str] = ("epsilon", "delta"),
              **params: Any) -> Guarantee:
    """Validate, evaluate two outputs, and return them as a ``Guarantee``."""
    floats = validate_scalars(function, theorem_id, params)
    if floats is not None:
        return Guarantee(evaluate_scalar(theorem_id, outputs[0], floats),
                         evaluate_scalar(theorem_id, outputs[1], floats))
    if "dask" in sys.modules and _dask.any_dask(params.values()):  # lazy, per block (bounds/_dask.py)
        return _dask.guarantee(function, theorem_id, outputs, params)
    scalar = is_scalar(*params.values())
    first, second = _guarantee_arrays(function, theorem_id, outputs, params)
    return Guarantee(as_output(first, scalar), as_output(second, scalar))
