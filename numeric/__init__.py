"""Float kernels: generated closed forms (``numeric/_generated``) and hand-written non-closed forms.

Nothing is compiled at import: ``kernel(spec)`` imports numba and builds the float64 ufunc on first use,
with numba's on-disk cache (``cache=True``) so later processes load machine code instead of compiling.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

_UFUNCS: dict[str, Any] = {}


def scalar_function(spec: str) -> Callable:
    """The plain Python function behind ``spec`` (``"module:function"``)."""
    module_name, _, function_name = spec.partition(":")
    return getattr(importlib.import_module(module_name), function_name)


def kernel(spec: str, nargs: int) -> Any:
    """The numba float64 ufunc for ``spec``, compiled (or loaded from cache) on first request."""
    ufunc = _UFUNCS.get(spec)
    if ufunc is None:
        from numba import vectorize

        signature = "float64(" + ", ".join(["float64"] * nargs) + ")"
        ufunc = vectorize([signature], cache=True)(scalar_function(spec))
        _UFUNCS[spec] = ufunc
    return ufunc
