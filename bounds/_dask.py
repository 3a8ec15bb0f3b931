"""Dask arrays in, dask arrays out: grids larger than memory (issue 14, "beyond one machine").

Every elementwise public function accepts dask arrays (``pip install ".[dask]"``) and returns a lazy dask
array of float64 (a :class:`~bounds.Guarantee` of two for the (ε, δ) functions).  Each block is evaluated by
the very same numpy route as an in-memory call — the function itself is called on the numpy blocks — so the
results are bit-identical to numpy on any chunking (the kernels and searches are elementwise: no value depends
on a neighbour or on the block size).

Validation: what is cheap is checked when the call is made (the dtype of every dask argument — booleans,
complex numbers, strings and datetimes are refused with the same :class:`~bounds._core.ParameterTypeError` —
and whether the shapes broadcast).  Domain checks (NaN, ε < 0, p > 1, integrality, the record's constraints)
need the values, so they run **per block when the block is computed**: a bad value raises the same
``ValueError`` as with numpy, from ``.compute()`` (or ``dask.compute``, ``da.store``...), not from the call.
Checking eagerly would read the whole grid once more before the real pass, which is what a grid larger than
memory cannot afford.  The element index in the message is made global (the block's offset is added), so it
points at the offending element of the broadcast grid; with several bad elements, which one is reported
depends on the order in which the scheduler runs the blocks.

dask is never imported here: a dask collection is recognised through ``sys.modules`` (if dask was never
imported, no argument can be a dask array) and ``dask.is_dask_collection``.  Functions that take objects or are
not elementwise (``compose``, ``crosscheck``, the suppression enumerations...) refuse a dask argument with a
``ValueError`` instead of silently reading the whole array into memory.
"""
from __future__ import annotations

import functools
import inspect
import re
import sys
from typing import Any, Callable

import numpy as np

# Types that are never dask collections: skipped without a call (the scalar fast path pays one set lookup).
_PLAIN = frozenset({float, int, str, bool, type(None), np.ndarray, np.float64})
_MODULES = sys.modules
_REFUSED_KINDS = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes", "M": "datetimes",
                  "m": "timedeltas", "V": "structured values"}


def is_dask(x: Any) -> bool:
    """Whether ``x`` is a dask collection (without importing dask)."""
    if type(x) in _PLAIN:
        return False
    dask = sys.modules.get("dask")
    return dask is not None and dask.is_dask_collection(x)


def any_dask(values: Any) -> bool:
    """Whether any of ``values`` is a dask collection; one dictionary lookup when dask was never imported."""
    if "dask" not in sys.modules:
        return False
    return any(is_dask(v) for v in values)


def _check_collection(function: str, name: str, x: Any) -> None:
    import dask.array as da

    if not isinstance(x, da.Array):
        raise ValueError(f"{function}: {name} is a dask collection of type {type(x).__name__}; only dask arrays "
                         "(dask.array.Array) are accepted")
    kind = x.dtype.kind
    if kind in _REFUSED_KINDS:
        from ._core import ParameterTypeError

        raise ParameterTypeError(f"{function}: {name} = dask array of dtype {x.dtype} is not an array of real "
                                 f"numbers ({_REFUSED_KINDS[kind]})")


_INDEXED = re.compile(r"^(?P<head>\S+: \w+)\[(?P<index>\d+(?:, \d+)*)\]")


def _globalised(exc: ValueError, offset: tuple[int, ...]) -> ValueError:
    """The same exception with the element index of its message shifted by the block's offset (the block's
    arguments all have the block's shape, so an index into any of them is an index into the output block)."""
    message = str(exc)
    match = _INDEXED.match(message)
    if match is None or not any(offset):
        return exc
    local = [int(i) for i in match["index"].split(", ")]
    if len(local) != len(offset):
        return exc
    index = ", ".join(str(i + o) for i, o in zip(local, offset))
    try:  # ValueError and ParameterTypeError take the message alone
        return type(exc)(f"{match['head']}[{index}]{message[match.end():]}")
    except Exception:
        return exc


def _block(call: Callable[..., Any], names: tuple[str, ...], constants: dict[str, Any], pair: bool, dtype: type,
           *blocks: np.ndarray, block_info: dict | None = None) -> np.ndarray:
    """One block: the public numpy route on numpy blocks; ``dtype`` (float64) of the block's shape (stacked for
    pairs)."""
    kwargs = dict(constants)
    kwargs.update(zip(names, blocks))
    location = block_info[None]["array-location"] if block_info else ()
    shape = tuple(b - a for a, b in location)
    offset = tuple(a for a, _ in location)
    if pair:  # the stacked axis 0 is not a grid axis
        shape, offset = shape[1:], offset[1:]
    try:
        result = call(**kwargs)
    except ValueError as exc:
        raise _globalised(exc, offset) from None
    if pair:
        return np.stack([np.broadcast_to(np.asarray(r, dtype=dtype), shape) for r in result])
    return np.broadcast_to(np.asarray(result, dtype=dtype), shape)


def elementwise(function: str, call: Callable[..., Any], params: dict[str, Any], pair: bool,
                dtype: type = np.float64) -> Any:
    """``call(**params)`` over dask blocks: a lazy dask array of ``dtype`` (float64 everywhere but the integer
    k of ``safe_k_anonymization_min_k``), a ``Guarantee`` of two if ``pair``.

    Array arguments (dask arrays, numpy arrays and lists of ndim ≥ 1) are broadcast together with dask's
    chunk alignment (``da.broadcast_arrays``: views, no copies); scalars and other objects (a mechanism,
    ``direction=``) reach every block unchanged, so each block sees exactly what a numpy call would.
    """
    import dask.array as da

    from ._core import Guarantee

    arrays, constants = {}, {}
    for name, x in params.items():
        if is_dask(x):
            _check_collection(function, name, x)
            arrays[name] = x
            continue
        if isinstance(x, (np.ndarray, list, tuple)) or (hasattr(x, "__array__") and not np.isscalar(x)):
            try:
                a = np.asarray(x)
            except Exception:  # ragged nesting: the numpy route raises its own error in every block
                constants[name] = x
                continue
            if a.ndim and a.dtype.kind in _REFUSED_KINDS:
                from ._core import ParameterTypeError, _short_repr

                raise ParameterTypeError(f"{function}: {name} = {_short_repr(x)} is not a real number or an array "
                                         f"of real numbers ({_REFUSED_KINDS[a.dtype.kind]})")
            if a.ndim:
                arrays[name] = da.from_array(a, chunks=-1)  # one chunk, split by the alignment below
                continue
        constants[name] = x  # scalars, 0-d arrays, options, objects: every block sees them as a numpy call would
    shapes = [a.shape for a in arrays.values()]
    try:
        np.broadcast_shapes(*[tuple(1 if s != s else s for s in shape) for shape in shapes])  # nan: unknown size
    except ValueError:
        raise ValueError(f"{function}: parameter shapes do not broadcast: "
                         + ", ".join(f"{k} {v.shape}" for k, v in arrays.items())) from None
    names = tuple(arrays)
    grid = da.broadcast_arrays(*arrays.values())
    body = functools.partial(_block, call, names, constants, pair, dtype)
    token = f"{function}-{'pair' if pair else 'value'}"
    if not pair:
        return da.map_blocks(body, *grid, dtype=dtype, token=token, meta=np.empty((0,) * grid[0].ndim, dtype=dtype))
    stacked = da.map_blocks(body, *grid, dtype=dtype, new_axis=0, chunks=((2,),) + grid[0].chunks,
                            token=token, meta=np.empty((0,) * (grid[0].ndim + 1), dtype=dtype))
    return Guarantee(stacked[0], stacked[1])


def value(function: str, theorem_id: str, output: str, params: dict[str, Any]) -> Any:
    """``_core.value`` over dask blocks (the hook of ``_core.value``)."""
    from . import _core

    return elementwise(function, functools.partial(_core.value, function, theorem_id, output), params, False)


def guarantee(function: str, theorem_id: str, outputs: tuple[str, str], params: dict[str, Any]) -> Any:
    """``_core.guarantee`` over dask blocks (the hook of ``_core.guarantee``)."""
    from . import _core

    return elementwise(function, functools.partial(_core.guarantee, function, theorem_id, outputs), params, True)


def supports_dask(pair: bool, dtype: type = np.float64) -> Callable[[Callable], Callable]:
    """Decorator for an elementwise public function with its own route (searches, ``direction=``,
    ``noise_multiplier=``, a mechanism argument): with a dask argument, the whole function runs per block.

    ``pair``: the function returns a ``Guarantee``.  Without dask arguments the wrapper costs one dictionary
    lookup (``"dask" in sys.modules``) plus the call.
    """
    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if "dask" in _MODULES:  # inline loops (the scalar route pays them only once dask is imported)
                for x in args:
                    if type(x) is not float and type(x) not in _PLAIN and is_dask(x):
                        return _lazy(args, kwargs)
                if kwargs:
                    for x in kwargs.values():
                        if type(x) not in _PLAIN and is_dask(x):
                            return _lazy(args, kwargs)
            return fn(*args, **kwargs)

        def _lazy(args: tuple, kwargs: dict) -> Any:
            bound = signature.bind(*args, **kwargs)
            return elementwise(fn.__name__, _by_keyword(wrapper), dict(bound.arguments), pair, dtype)

        wrapper.__dask__ = "elementwise"  # type: ignore[attr-defined]
        return wrapper
    return decorate


def _call(fn: Callable, **kwargs: Any) -> Any:
    return fn(**kwargs)


def _by_keyword(fn: Callable) -> Callable[..., Any]:
    # the public (decorated) function: picklable by reference for schedulers in other processes; on numpy
    # blocks its dask check is one lookup and it calls the numpy route
    return functools.partial(_call, fn)


def _contains_dask(x: Any, depth: int = 3) -> bool:
    """Whether ``x`` is a dask collection or holds one in its lists/tuples/dicts (``compose``'s (step, count)
    pairs), a few levels deep."""
    if is_dask(x):
        return True
    if depth and isinstance(x, (list, tuple, dict)):
        return any(_contains_dask(v, depth - 1) for v in (x.values() if isinstance(x, dict) else x))
    return False


def refusal(function: str, name: str) -> ValueError:
    """The error for a dask argument where only numbers and numpy arrays are accepted."""
    return ValueError(f"{function}: {name} is (or holds) a dask array; {function} is not elementwise (it takes objects or "
                      "whole sequences), so it accepts numbers and numpy arrays only — call .compute() first if "
                      "the values fit in memory")


def refuses_dask(fn: Callable) -> Callable:
    """Decorator for a public function that takes objects or is not elementwise: a dask argument (at the top
    level or inside a list/tuple/dict argument) is refused with a ``ValueError`` naming the function and the
    parameter, instead of being read into memory.  On a class, its ``__init__`` is wrapped."""
    if inspect.isclass(fn):
        fn.__init__ = _refusing(fn.__init__, fn.__name__, skip=1)  # type: ignore[misc]
        return fn
    return _refusing(fn, fn.__name__)


def _refusing(fn: Callable, name: str, skip: int = 0) -> Callable:
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if "dask" in sys.modules:
            for i, x in enumerate((*args[skip:], *kwargs.values())):
                if _contains_dask(x):
                    names = list(signature.parameters)[skip:]  # without self
                    given = len(args) - skip
                    param = list(kwargs)[i - given] if i >= given else names[min(i, len(names) - 1)]
                    raise refusal(name, param)
        return fn(*args, **kwargs)

    wrapper.__dask__ = "refused"  # type: ignore[attr-defined]
    return wrapper
