"""How every kernel of this package is compiled: numba's ``njit`` without the C-callable wrapper.

For each function it compiles, numba emits two entry points besides the function itself: the CPython wrapper
(what a call from Python goes through) and a C-ABI ``cfunc`` wrapper, used only when the function is passed as a
first-class function value (``numba.types.FunctionType``) or its ``.address`` is taken.  Nothing here does either:
every call between kernels is a static call of a dispatcher, inlined by numba or by LLVM.  The ``cfunc`` wrapper
still costs a lowering and its share of LLVM's optimisation and machine code in every process that compiles
(issue 20: a cold ``ampbounds certify`` compiles ≈ 270 functions).  Measured on the cold certificate (AMD EPYC
znver4, one process, numba 0.68): 78 → 72 s of compilation CPU, the same machine code for the functions
themselves.

``njit`` here takes exactly numba's arguments, bare (``@njit``) or with options (``@njit(cache=True)``).  It is also
what the plain-Python tier (``numeric.pure``) runs: there ``numba`` is the stand-in whose ``njit`` returns the
function unchanged.
"""
from __future__ import annotations

from typing import Any

import numeric

# numba without its BLAS probe importing scipy.linalg, whoever imports this module first (the plain-Python twin
# of ``numeric`` is a bare namespace: nothing to do there)
getattr(numeric, "_import_numba", lambda: None)()
import numba  # noqa: E402


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit(*args, **options)`` with ``no_cfunc_wrapper=True``."""
    decorate = numba.njit(no_cfunc_wrapper=True, **options)
    if len(args) == 1 and callable(args[0]):  # ``@njit`` or ``njit(f, ...)``
        return decorate(args[0])
    if args:  # a signature: ``njit("float64(float64)", ...)``
        return numba.njit(*args, no_cfunc_wrapper=True, **options)
    return decorate
