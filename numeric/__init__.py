"""Float kernels: generated closed forms (``numeric/_generated``) and hand-written non-closed forms.

Nothing is compiled at import: ``kernel(spec)`` imports numba and builds the float64 ufunc on first use,
with numba's on-disk cache (``cache=True``) so later processes load machine code instead of compiling.

numba invalidates a cached function only when *its own* source file changes, not when an ``@njit`` helper
it inlines (``numeric.special``, ``numeric.binomial``) does, so a stale cache could silently keep old
rounding code.  Unless the user has set ``NUMBA_CACHE_DIR``, the cache therefore lives in a directory named
after a hash of every source file of this package: any edit starts a fresh cache.
"""
from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from typing import Any, Callable

_UFUNCS: dict[str, Any] = {}
_HERE = Path(__file__).parent


def source_hash() -> str:
    """SHA-256 (16 hex digits) of every ``.py`` file of ``numeric``, in a fixed order."""
    digest = hashlib.sha256()
    for path in sorted(_HERE.rglob("*.py")):
        digest.update(path.relative_to(_HERE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _import_numba() -> None:
    """Import numba without its BLAS probe importing scipy.linalg (≈ 0.3–0.4 s of a fresh process; no kernel here
    uses BLAS).

    ``numba.np.arraymath`` sets ``_HAVE_BLAS`` at import by importing ``scipy.linalg.cython_blas``.  While numba
    is imported here, ``scipy.linalg`` (if not loaded yet) (or ``scipy`` itself) is masked so that probe fails fast; afterwards the
    mask is removed and ``_HAVE_BLAS`` is set to what the probe would have found (scipy installed or not),
    without importing it.  numba's BLAS users (``np.dot`` …) import scipy themselves when first compiled, so
    user code in the same process behaves as before.
    """
    import sys

    if "numba" in sys.modules:
        return
    import importlib.util

    mask = None if "scipy.linalg" in sys.modules else "scipy.linalg" if "scipy" in sys.modules else "scipy"
    if mask:
        sys.modules[mask] = None  # type: ignore[assignment]  # `import` of it raises ImportError
    try:
        import numba.np.arraymath as arraymath
    finally:
        if mask and sys.modules.get(mask, 0) is None:
            del sys.modules[mask]
    if mask:
        arraymath._HAVE_BLAS = importlib.util.find_spec("scipy") is not None


def _configure_cache() -> None:
    _import_numba()
    from numba import config

    if not config.CACHE_DIR:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        config.CACHE_DIR = str(base / "ampbounds-numba" / source_hash())


def scalar_function(spec: str) -> Callable:
    """The plain Python function behind ``spec`` (``"module:function"``)."""
    module_name, _, function_name = spec.partition(":")
    return getattr(importlib.import_module(module_name), function_name)


def kernel(spec: str, nargs: int) -> Any:
    """The numba float64 ufunc for ``spec``, compiled (or loaded from cache) on first request."""
    ufunc = _UFUNCS.get(spec)
    if ufunc is None:
        if not _UFUNCS:
            _configure_cache()
        from numba import vectorize

        signature = "float64(" + ", ".join(["float64"] * nargs) + ")"
        ufunc = vectorize([signature], cache=True)(scalar_function(spec))
        _UFUNCS[spec] = ufunc
    return ufunc
