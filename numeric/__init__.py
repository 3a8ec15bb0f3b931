"""Float kernels: generated closed forms (``numeric/_generated``) and hand-written non-closed forms.

Nothing is compiled at import: ``kernel(spec)`` imports numba and builds the kernel's array loop
(``numeric.loops``) on first use, with numba's on-disk cache (``cache=True``) so later processes load machine code instead of compiling.

numba invalidates a cached function only when *its own* source file changes, not when an ``@njit`` helper
it inlines (``numeric.special``, ``numeric.binomial``) does, so a stale cache could silently keep old
rounding code.  Unless the user has set ``NUMBA_CACHE_DIR``, the cache therefore lives in a directory named
after a hash of every source file of this package: any edit starts a fresh cache.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path
from typing import Any, Callable

_UFUNCS: dict[str, Any] = {}
_JITTED: dict[str, Any] = {}  # @njit kernels: called by the scalar route, inlined by the array loops
_SOURCE_HASH: str | None = None
_HERE = Path(__file__).parent
_AUTO = "AMPBOUNDS_AUTO_NUMBA_CACHE_DIR"


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


def _writable(directory: str) -> bool:
    """Whether ``directory`` can be created and written (numba's own test: make it, open a temporary file)."""
    import tempfile

    try:
        os.makedirs(directory, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


_PRIVATE_CACHE: str | None = None


def _private_cache() -> str | None:
    """A fresh temporary directory for this process only, removed at exit: no persistent cache."""
    global _PRIVATE_CACHE
    if _PRIVATE_CACHE is None:
        import atexit
        import shutil
        import tempfile

        try:
            _PRIVATE_CACHE = tempfile.mkdtemp(prefix="ampbounds-numba-")
        except OSError:
            return None
        atexit.register(shutil.rmtree, _PRIVATE_CACHE, True)
    return _PRIVATE_CACHE


def cache_directories() -> list[str]:
    """Where the numba cache may live, in order of preference: ``$XDG_CACHE_HOME`` (or ``~/.cache``)
    ``/ampbounds-numba/<source hash>``, then ``<temp dir>/ampbounds-numba-<uid>/<source hash>``."""
    import tempfile

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    digest = source_hash()
    candidates = [base / "ampbounds-numba" / digest]
    try:
        shared = Path(tempfile.gettempdir()) / f"ampbounds-numba-{user}"
        if _private_to_us(shared):
            candidates.append(shared / digest)
    except OSError:  # no usable temporary directory at all
        pass
    return [str(c) for c in candidates]


def _private_to_us(directory: Path) -> bool:
    """``directory`` (in a shared temporary directory) exists or is created with mode 0700, is ours and is not
    writable by others: compiled code loaded from a cache another user could write would be theirs to choose."""
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = directory.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    return not info.st_mode & 0o022


def _configure_cache() -> None:
    """Point numba's cache at a writable directory outside the package, before any ``@njit(cache=True)`` of
    this package exists.

    numba picks a function's cache locator when the decorator runs (at import of the defining module), so this
    runs when ``numeric`` itself is imported, which precedes every ``numeric.*`` submodule; configured any later
    (say, at the first kernel call), functions decorated earlier would be cached in-tree under
    ``numeric/__pycache__`` (site-packages, possibly read-only).  numba is not imported here: if it is not loaded
    yet, the environment variables it reads at import are set instead.

    Never the package tree (issue 19): when the chosen directory cannot be written, numba would silently fall
    back to ``numeric/__pycache__``, where an edited inlined helper then served stale compiled code next to
    fresh plain-Python results.  So the directory is tested first (the user's ``NUMBA_CACHE_DIR``, else
    :func:`cache_directories` in order); if none is writable, a private temporary directory removed at exit
    (compiled code is not kept across processes: caching off in effect).  numba's locators are restricted
    to the chosen directory (``NUMBA_CACHE_LOCATOR_CLASSES=UserProvidedCacheLocator``) unless the user set
    them.
    """
    inherited = os.environ.get("NUMBA_CACHE_DIR")
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None and numba_config.CACHE_DIR and numba_config.CACHE_DIR != os.environ.get(_AUTO):
        return  # numba already loaded with a directory someone else chose
    user_choice = inherited if inherited and inherited != os.environ.get(_AUTO) else None
    directory = None
    for candidate in ([user_choice] if user_choice else []) + cache_directories():
        if _writable(candidate):
            directory = candidate
            break
    if directory is None:
        directory = _private_cache()
    if directory is None:  # nothing writable anywhere: numba's own fallbacks fail too, the package tree aside
        directory = user_choice or cache_directories()[0]
    restrict = "NUMBA_CACHE_LOCATOR_CLASSES" not in os.environ or \
        os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES") == os.environ.get(_AUTO + "_LOCATOR")
    if numba_config is not None:
        numba_config.CACHE_DIR = directory
        if restrict:
            numba_config.CACHE_LOCATOR_CLASSES = "UserProvidedCacheLocator"
    os.environ["NUMBA_CACHE_DIR"] = directory
    if directory != user_choice:
        os.environ[_AUTO] = directory  # marked ours: a child re-derives it
    if restrict:
        os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = os.environ[_AUTO + "_LOCATOR"] = "UserProvidedCacheLocator"


def scalar_function(spec: str) -> Callable:
    """The plain Python function behind ``spec`` (``"module:function"``)."""
    module_name, _, function_name = spec.partition(":")
    return getattr(importlib.import_module(module_name), function_name)


_CANONICAL: dict[str, str] = {}


def _same_function(a: Callable, b: Callable | None) -> bool:
    """True when ``a`` and ``b`` compute the same function of their positional arguments: the same bytecode
    and argument count, the same constants (docstring aside), the same global and attribute names, each global
    name bound to the very same object, and no defaults or closures.  Only the names of the parameters and the
    docstrings may differ (T6's and T17's ε are T1's ε, generated under other argument names)."""
    if b is None:
        return False
    ca, cb = a.__code__, b.__code__
    # constants compared by type and repr, not ==: 0.0 == -0.0 and 1 == 1.0 == True, whose code differs in bits
    consts_a = [(type(c), repr(c)) for c in (ca.co_consts[1:] if a.__doc__ is not None else ca.co_consts)]
    consts_b = [(type(c), repr(c)) for c in (cb.co_consts[1:] if b.__doc__ is not None else cb.co_consts)]
    return (ca.co_code == cb.co_code and ca.co_names == cb.co_names and consts_a == consts_b
            and ca.co_argcount == cb.co_argcount and not (ca.co_kwonlyargcount or cb.co_kwonlyargcount)
            and not (ca.co_freevars or cb.co_freevars or a.__defaults__ or b.__defaults__)
            and all(a.__globals__.get(n, _MISSING) is b.__globals__.get(n, _MISSING) for n in ca.co_names))


_MISSING = object()


def canonical(spec: str) -> str:
    """The generated kernel whose compiled code serves ``spec``: the first kernel of the theorem records
    (``numeric._generated.metadata``, in their order, each unrounded twin after its kernel) that computes the
    same function (:func:`_same_function`), else ``spec`` itself.  Identical functions give identical bits, so
    they share one scalar dispatcher and one array loop, compiled and cached once (≈ 2–4 s of CPU per duplicate
    closed form with an empty cache: T6 and T17 ε are T1 ε, T4 ε is T3 ε, T18 δ is T17 δ).  Only generated
    closed forms are merged."""
    found = _CANONICAL.get(spec)
    if found is None:
        found = spec
        if spec.startswith("numeric._generated."):
            _import_numba()  # the generated modules import numba: with its BLAS probe masked, as everywhere here
            function = scalar_function(spec)
            found = next((c for c in _generated_kernels() if c == spec or _same_function(function, _function(c))),
                         spec)
        _CANONICAL[spec] = found
    return found


def _function(spec: str) -> Callable | None:
    try:
        return scalar_function(spec)
    except AttributeError:
        return None


def _generated_kernels():
    """The generated kernels of the theorem records, in their order (each rounded kernel, then its twin)."""
    from numeric._generated.metadata import THEOREMS

    for meta in THEOREMS.values():
        for out in meta["outputs"].values():
            for spec in (out["kernel"], out["kernel"] + "_raw"):
                if spec.startswith("numeric._generated."):
                    yield spec


def scalar_kernel(spec: str) -> Any:
    """``spec`` compiled as a plain ``@njit`` function of floats (the scalar fast path of ``bounds._core``).

    Compiled with numpy's error model, as ``vectorize`` compiles the ufunc: a division by zero gives inf/NaN
    by IEEE rules instead of raising.  (numba reuses a helper's compiled overload whatever error model its
    first caller had — also across processes through the cache — so calling a kernel's ``@njit`` helpers
    straight from Python would compile them raising ``ZeroDivisionError`` and change the ufunc's behaviour
    too.)  The two routes are bit-identical on the accuracy grids (tests/bounds/test_contract.py).  Before
    it, ``bounds._core.scalar_call`` serves a kernel's first calls from its plain-Python twin
    (``numeric.pure``), which needs no numba import.
    """
    spec = canonical(spec)
    function = _JITTED.get(spec)
    if function is None and shared_kernel(spec) is not None:
        function = _JITTED[spec] = _moded_scalar(spec)
    if function is None:  # one dispatcher (and one cache entry) for this route and the array loops
        _import_numba()
        from numeric.jit import njit

        # Generated closed forms are short: inlined into the array loops at numba's IR level, so LLVM sees one
        # loop body and can vectorise the libm-free ones (numeric.elementary); called from Python as before.
        inline = "always" if spec.startswith("numeric._generated.") else "never"
        function = _JITTED[spec] = njit(error_model="numpy", cache=True, inline=inline)(scalar_function(spec))
    return function


# Hand-written kernels whose array loop still links (and lets LLVM inline) the kernel instead of calling it by
# address (``numeric.loops.indirect_loop``): the cheap ones, < 100 ns a point, where the indirect call and the
# lost inlining showed (warm, 10⁴ points, CPU: T8 δ 3.5 → 4.5 ns, T14 δ_base 4.1 → 5.3, T9 δ 79 → 84; T8 ε 46 → 47)
# and whose trees are small to link (0.06–0.13 s of CPU per loop; benchmarks/bench_compile_called.py).  Every
# other hand-written kernel costs 0.13–21 µs a point, where the call is ≤ 1 %, and 0.16–0.4 s per linked loop.
LINKED_LOOPS = frozenset({"numeric.profiles:laplace_delta", "numeric.profiles:laplace_epsilon",
                          "numeric.profiles:gaussian_delta", "numeric.outlier_score:delta_base"})

_SHARED: dict[str, tuple[str, int] | None] = {}


def shared_kernel(spec: str) -> tuple[str, int] | None:
    """``(shared spec, mode)`` when ``spec``'s module serves it by one compiled function taking an integer mode
    first (the module's ``KERNEL_MODES`` maps kernel names to modes, ``SHARED_KERNEL`` names that function:
    ``numeric.subsampled_profiles``' eighteen T11 kernels are ``t11(mode, …)``), else None.

    Why (issue 20, compile cost): numba links each callee's LLVM module into its caller's and LLVM re-optimises
    the whole linked tree for every separately compiled dispatcher, so N small wrappers over one tree cost N
    optimisations of the tree on the scalar route and N more in their array loops.  A shared function with the
    mode as an int64 argument is compiled once, and its array loop (``numeric.loops.indirect_loop``, the mode
    passed with the function's address) once, whichever kernels a process uses; the mode only selects which of
    the unchanged functions runs."""
    if spec in _SHARED:
        return _SHARED[spec]
    found = None
    module_name, _, function_name = spec.partition(":")
    if module_name.startswith("numeric.") and not module_name.startswith("numeric._generated."):
        module = importlib.import_module(module_name)
        modes = getattr(module, "KERNEL_MODES", None)
        if modes is not None and function_name in modes:
            found = (f"{module_name}:{module.SHARED_KERNEL}", modes[function_name])
    _SHARED[spec] = found
    return found


def _moded_scalar(spec: str) -> Callable[..., float]:
    """``spec``'s scalar route when it is a mode of a shared kernel (:func:`shared_kernel`): the shared
    function's compiled entry point (int64 mode, then float64 arguments) with the mode bound.  The entry point
    is the dispatcher's own compiled wrapper without the per-call type dispatch; each float argument is
    converted as the dispatcher converts a float64 (``PyNumber_Float``), so one specialisation serves every
    caller."""
    import functools

    _import_numba()
    from numba import types as nbtypes

    shared, mode = shared_kernel(spec)  # type: ignore[misc]
    dispatcher = scalar_function(shared)  # already ``@njit(cache=True, error_model="numpy")`` in its module
    nargs = dispatcher.py_func.__code__.co_argcount - 1
    signature = (nbtypes.int64,) + (nbtypes.float64,) * nargs
    dispatcher.compile(signature)
    call = functools.partial(dispatcher.overloads[signature].entry_point, mode)
    return call


def kernel(spec: str, nargs: int) -> Any:
    """``spec`` applied elementwise to float64 arrays (a ``numeric.loops.ArrayKernel``, called like the float64
    ufunc it replaces), built on first request.

    The loop is a cached ``@njit`` function with the kernel inlined (``numeric.loops``; a hand-written kernel is
    called by address from one shared loop per signature, ``loops.indirect_loop``): a new process loads it from
    numba's cache in milliseconds instead of rebuilding a ``vectorize`` wrapper through LLVM.  The
    kernel inside is compiled as ``scalar_kernel`` compiles it (numpy's error model), and the two routes are
    bit-identical on the accuracy grids (tests/bounds/test_contract.py).
    """
    spec = canonical(spec)  # kernels computing the same function share one loop
    array_kernel = _UFUNCS.get(spec)
    if array_kernel is None:
        shared = shared_kernel(spec)
        # the same dispatcher serves the scalar route and the loop (a moded kernel: its shared function, below)
        jitted = scalar_kernel(spec) if shared is None else None
        from numeric import loops  # after scalar_kernel's _import_numba (numba's BLAS probe masked)

        global _SOURCE_HASH
        if _SOURCE_HASH is None:
            _SOURCE_HASH = source_hash()
        if shared is not None:  # the shared kernel's loop, this kernel's mode bound
            array_kernel = loops.ArrayKernel(scalar_function(shared[0]), spec, nargs, _SOURCE_HASH, indirect=True,
                                             mode=shared[1])
        else:  # a generated closed form is inlined into its own loop; a hand-written kernel is called by address
            indirect = not spec.startswith("numeric._generated.") and spec not in LINKED_LOOPS
            array_kernel = loops.ArrayKernel(jitted, spec, nargs, _SOURCE_HASH, indirect=indirect)
        _UFUNCS[spec] = array_kernel
    return array_kernel


def kernel_pair(theorem_id: str, outputs: tuple[str, str] = ("epsilon", "delta")) -> tuple[Any, list[str]] | None:
    """Both outputs of a theorem record in one array loop (``numeric.loops.FusedKernel``): ``(fused, union)``
    where ``fused(*[arrays[name] for name in union])`` returns ``[out0, out1]``, bit for bit the two kernels' own
    loops, and ``fused.checked(...)`` also tells whether every point lies in the parameters' domains and meets
    the record's constraint; ``None`` when the pair is not fused.

    Fused: two generated closed forms (inlined into the loop at numba's IR level, so LLVM sees one loop body) whose
    argument pattern has a template in ``numeric.loops`` (T1, T2, T5, T6, T7, T12, T17), whose arguments are all
    parameters of the record and which has at most one constraint. Hand-written kernels are called, not inlined, and
    mostly not vectorisable: a shared pass would save little there. Records whose kernels and domains coincide share
    one loop."""
    from numeric._generated.metadata import THEOREMS

    meta = THEOREMS[theorem_id]
    (spec0, args0), (spec1, args1) = ((meta["outputs"][o]["kernel"], meta["outputs"][o]["args"]) for o in outputs)
    union = list(dict.fromkeys([*args0, *args1]))
    indices = (tuple(union.index(a) for a in args0), tuple(union.index(a) for a in args1))
    specs = (canonical(spec0), canonical(spec1))
    if not all(s.startswith("numeric._generated.") for s in specs) or \
            not all(a in meta["parameters"] for a in union):
        return None
    from numeric import loops  # numba imported by canonical (generated modules) with its BLAS probe masked

    if loops.fused_template(*indices) is None:
        return None
    rule = loops.constraint_rule(meta["constraints"], union)
    if rule is None:
        return None
    box = loops.domain_box([meta["parameters"][a]["domain"] for a in union])
    key = (specs, indices, box, rule)
    fused = _PAIRS.get(key)
    if fused is None:
        global _SOURCE_HASH
        if _SOURCE_HASH is None:
            _SOURCE_HASH = source_hash()
        fused = _PAIRS[key] = loops.FusedKernel((scalar_kernel(specs[0]), scalar_kernel(specs[1])), specs,
                                                indices, box, rule, _SOURCE_HASH)
    return fused, union


_PAIRS: dict[tuple, Any] = {}


def _own_loop(spec: str) -> Any:
    """``spec``'s own ``ArrayKernel`` (canonical spec) if this process has built its serial loop, else None."""
    array_kernel = _UFUNCS.get(spec)
    return array_kernel if array_kernel is not None and array_kernel._entries.get(False) is not None else None


def _fused_holding(spec: str) -> Any:
    """A fused loop (``FusedKernel``) this process has built that computes ``spec`` (canonical), or None."""
    return next((fused for fused in _PAIRS.values() if fused.built and spec in fused.specs), None)


def one_point(array_kernel: Any) -> Callable[..., float]:
    """``array_kernel``'s serial loop (``numeric.loops``) called at one point: the compiled scalar route of the
    public API for the generated closed forms (:func:`scalar_route`).

    Each call writes its arguments into one-element float64 arrays (through memoryviews: ≈ 30 ns a value
    against ≈ 80 for numpy's item assignment), runs the loop's compiled entry point (no type dispatch) and
    reads the one result as a Python float, hence the array route's bits.  The arrays come from a pool
    (``list.pop``/``append``, atomic under the GIL): two threads, or a signal handler interrupting a call,
    never share them, so no call reads another's arguments.  One function per arity 2 and 3 (those of the
    generated kernels but T6 δ's 4, which takes the general form): a loop over ``*args`` cost ≈ 0.4 µs more
    per call.  T1 ε at one point: 0.40–0.48 µs against 0.19–0.29 µs for the ``@njit`` dispatcher (CPU time,
    benchmarks/README.md, "one compiled route per kernel").
    """
    import numpy as np

    entry, nargs, pool = array_kernel.compiled(False), array_kernel.nargs, []

    def buffers() -> tuple:
        """One more set: the arrays the loop reads and writes, then a memoryview of each."""
        arrays = tuple(np.empty(1) for _ in range(nargs + 1))
        return (arrays, *(memoryview(a) for a in arrays))

    if nargs == 2:
        def call(a0: float, a1: float) -> float:
            try:
                arrays, v0, v1, out = pool.pop()
            except IndexError:  # the first call, or every pooled set in use (threads)
                arrays, v0, v1, out = buffers()
            v0[0], v1[0] = a0, a1
            entry(*arrays)
            result = out[0]
            pool.append((arrays, v0, v1, out))
            return result
    elif nargs == 3:
        def call(a0: float, a1: float, a2: float) -> float:  # type: ignore[misc]
            try:
                arrays, v0, v1, v2, out = pool.pop()
            except IndexError:
                arrays, v0, v1, v2, out = buffers()
            v0[0], v1[0], v2[0] = a0, a1, a2
            entry(*arrays)
            result = out[0]
            pool.append((arrays, v0, v1, v2, out))
            return result
    else:  # any arity (the generated kernels' only other one is T6 δ's 4)
        call = _pooled_point(entry, nargs + 1, tuple(range(nargs)), nargs, array_kernel.spec)
    call.__qualname__ = call.__name__ = f"one_point[{array_kernel.spec}]"
    return call


def _pooled_point(entry: Any, count: int, positions: tuple, result_at: int, spec: str) -> Callable[..., float]:
    """A compiled loop's entry point (``count`` one-element float64 arrays) at one point, any arity: the call's
    arguments go into the arrays at ``positions`` (the others keep 0.0), the result is read from array
    ``result_at``; the arrays come from a pool as in :func:`one_point` (never shared between concurrent calls)."""
    import numpy as np

    pool: list = []

    def call(*args: float) -> float:
        if len(args) != len(positions):
            raise TypeError(f"{spec} takes {len(positions)} arguments ({len(args)} given)")
        try:
            arrays, views = pool.pop()
        except IndexError:  # the first call, or every pooled set in use (threads)
            arrays = tuple(np.zeros(1) for _ in range(count))
            views = tuple(memoryview(a) for a in arrays)
        for position, value in zip(positions, args):
            views[position][0] = value
        entry(*arrays)
        result = views[result_at][0]
        pool.append((arrays, views))
        return result
    return call


_SCALAR_ROUTES: dict[str, Any] = {}


def scalar_route(spec: str) -> Callable[..., Any]:
    """The compiled scalar route of the public API (``bounds._core.scalar_call`` after its plain-Python calls):
    never a second compiled copy of a kernel whose array loop this process holds.

    A generated closed form (``numeric._generated``) is inlined into its array loop, so compiling its
    ``@njit`` dispatcher for scalar calls as well compiled it twice in a process using both routes (≈ 1–2.5 s
    of CPU per kernel with an empty cache, issue 20).  When the loop is built (:func:`loop_built`: an array
    call came first), the scalar route is that loop at one point (:func:`one_point`, ≈ 0.2 µs slower a call
    than the dispatcher).  Otherwise the dispatcher (:func:`scalar_kernel`): the vectorised loop takes longer
    to compile than the plain kernel (T2 ε ≈ 8 s against ≈ 3 s), so a process making only scalar calls
    keeps the cheaper one (a later array call then compiles the loop, as before).  Hand-written kernels are
    called, not inlined, by their loops and always use the dispatcher (one compiled function for both).
    Every route gives the array route's bits (tests/bounds/test_contract.py).
    """
    spec = canonical(spec)
    route = _SCALAR_ROUTES.get(spec)
    if route is not None:
        return route
    if spec.startswith("numeric._generated.") and loop_built(spec):
        array_kernel = _own_loop(spec)
        if array_kernel is not None:
            route = one_point(array_kernel)
        else:  # only a fused loop holds it (a public (ε, δ) array call built one)
            fused = _fused_holding(spec)
            route = fused_one_point(fused, fused.specs.index(spec))
        _SCALAR_ROUTES[spec] = route
        return route
    return scalar_kernel(spec)


def fused_one_point(fused: Any, which: int) -> Callable[..., float]:
    """Kernel ``which`` of a built fused loop (``numeric.loops.FusedKernel``) at one point: :func:`one_point` for
    a kernel whose only loop in this process is fused with its theorem's other output (the public (ε, δ) array
    calls build only the fused loop).  The union arguments the kernel does not take stay 0.0 in its buffers
    (never written), the other output is discarded; the same bits as the kernel's own loop (the fused loop is
    the two kernels' operations, inlined, in the same order), from a pool of buffers (:func:`_pooled_point`)."""
    nargs = fused.nargs
    call = _pooled_point(fused.compiled(), nargs + 2, fused.indices[which], nargs + which, fused.specs[which])
    call.__qualname__ = call.__name__ = f"fused_one_point[{fused.specs[which]}]"
    return call


def loop_built(spec: str) -> bool:
    """Whether this process already holds an array loop computing ``spec``: its own serial loop (built by
    ``kernel(spec, n)`` and called once: compiled, or loaded from numba's cache), or a fused loop holding it
    (``kernel_pair``: the public (ε, δ) functions of T1, T2, T5, T6, T7, T12, T17 build one).  Lets a caller
    that needs the kernel's compiled values but not a particular route use a loop that exists
    (``built_kernel``) instead of compiling the scalar dispatcher as well (the certificate's accuracy checks:
    ``proofs_checks.accuracy.compiled``); every route gives the same bits."""
    spec = canonical(spec)
    return _own_loop(spec) is not None or _fused_holding(spec) is not None


def built_kernel(spec: str, nargs: int) -> Any:
    """``spec`` applied elementwise to float64 arrays through a loop this process already holds: its own loop,
    else a fused loop computing it (the other kernel's output discarded; the same bits), else ``kernel(spec,
    nargs)`` (built now)."""
    canonical_spec = canonical(spec)
    if _own_loop(canonical_spec) is None:
        fused = _fused_holding(canonical_spec)
        if fused is not None:
            return fused.project(fused.specs.index(canonical_spec))
    return kernel(spec, nargs)


_configure_cache()
