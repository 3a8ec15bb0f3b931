"""The kernels of ``numeric`` executed as plain Python, without importing numba (the first scalar calls of a process).

``import numba`` alone costs about 2.8× ``import numpy`` in CPU time, so a process that evaluates a handful of
scalar bounds would spend most of its time loading numba.  This module runs the *same source* — the
generated ``numeric/_generated/*.py`` and the hand-written ``numeric/*.py`` kernels — as plain Python: each
module's code object (from its own ``__pycache__``) is executed a second time, as a *twin* module named
``numeric._pure.<name>``, with stand-ins for what numba provides:

- ``njit``/``jit`` (with or without options) return the function unchanged;
- ``intrinsic`` returns the plain-Python equivalent registered in ``INTRINSICS`` by name (``fma``: a·b + c
  rounded once, computed exactly with integers); an unknown intrinsic raises when called;
- ``overload(target)`` calls the overload's generator once and installs the implementation it returns in
  place of ``target`` in the twin module (so ``product_error`` is the FMA form where the compiled code uses
  the FMA, Dekker's form where it does not — the same choice, ``HAS_FMA``, made by the same code);
- ``objmode`` is a context manager that lifts the int64 guards below (its body is Python under numba too);
- ``numpy`` is numpy except ``nextafter`` (``math.nextafter``, same IEEE result on Python floats);
  ``math.floor``, ``math.ceil`` and ``int`` raise ``OverflowError`` beyond int64 (where numba's int64 result
  wraps, and a Python loop bound would never end);
- ``range`` raises ``TooLong`` for a loop of more than ``MAX_TRIPS`` iterations, and ``GUARDS`` wrap the few
  functions that fix the trip count of a ``while`` loop (``numeric.with_replacement.cutoffs``: the binomial
  window) to raise it likewise (see "Work limit" below);
- imports of ``numeric.*`` inside a twin resolve to twins; anything else from numba raises ``ImportError``
  at load, so a module using a feature not emulated here is *unsupported* (``pure_function`` returns None)
  and its kernels keep the compiled route.

Semantics.  Compiled kernels use numpy's error model (IEEE results: x/0 → ±inf or NaN, ``math.log(0)`` →
−inf, ``math.exp(1000)`` → inf).  Plain Python raises instead (``ZeroDivisionError``, ``ValueError``,
``OverflowError``) and may return a non-float (a complex from ``(-1.0) ** 0.5``).  The caller
(``bounds._core``) therefore treats *any* exception or non-real result as "no answer" and evaluates that
call with the compiled kernel.  Where plain Python returns a float, it performs the same IEEE double
operations in the same order as the compiled code (numba does not contract a·b + c into an FMA without
``fastmath``), calling the same libm (CPython's ``math.exp``/``log``/``log1p``/``expm1``/``erfc``/``sqrt``
call the C library's), so the results are bit-identical.  That argument has one gap — integer arithmetic
that wraps at int64 in numba but not in Python, guarded above only where an int is made from a float — and
``tests/bounds/test_contract.py`` checks the outcome: pure == compiled == ufunc over the accuracy grids of
every kernel served.

Work limit.  Plain Python runs a kernel's loop ≈ 100× slower than compiled code (≈ 8 µs per
``numeric.with_replacement`` block step against ≈ 50 ns): a call whose loop is long (m = 10¹², n = 1711 sums
≈ 10⁶ blocks: 8 s as plain Python) must not be served here, since importing numba and loading (or compiling)
the kernel costs ≈ 0.5–3 s once.  Where the trip count is known before the loop starts — a ``range`` of more
than ``MAX_TRIPS`` = 2¹² iterations, or a binomial window (``GUARDS``) wider than that — the twin raises
``TooLong`` instead of looping, and the caller (like for any exception) evaluates the call with the compiled
kernel, so the answer is the compiled kernel's bits by construction.  Inside ``objmode`` blocks (Python under
numba too) nothing is limited.  2¹² steps of the costliest loop body (≈ 10 µs) stay below ≈ 40 ms.  ``HAS_FMA`` is computed in the twin from /proc/cpuinfo's flags (loading LLVM for
``llvmlite``'s host features costs ≈ 45 ms), the compiled module's from llvmlite; tests/bounds/test_pure.py
checks that they agree.
"""
from __future__ import annotations

import builtins
import importlib
import importlib.machinery
import importlib.util
import math
import struct
import sys
import threading
import types
from pathlib import Path
from typing import Any, Callable

_HERE = Path(__file__).parent
PREFIX = "numeric._pure"
# Modules whose kernels are never run as plain Python (none today: numeric.kanon's objmode blocks are Python
# anyway).  A module listed here keeps the compiled route; tests/bounds/test_contract.py checks that every
# other kernel module loads as a twin.
EXCLUDED: frozenset[str] = frozenset()


class Unsupported(Exception):
    """A numba feature with no plain-Python stand-in was reached."""


# --- exact fma -------------------------------------------------------------------------------------------

def _fma(a: float, b: float, c: float) -> float:
    """a·b + c rounded once to nearest-even, as ``llvm.fma.f64`` (IEEE 754 fusedMultiplyAdd).

    Finite operands: every double is an integer times a power of two (``as_integer_ratio``), so the sum is
    an exact rational num/den with den a power of two, and CPython's int true division is correctly rounded
    (also into the subnormals); a result beyond the double range raises ``OverflowError`` there and is ±inf
    here.  An exact zero takes IEEE's sign rules: −0 only if a·b and c are both zeros of sign −.  Infinite or
    NaN a or b: a·b + c in double arithmetic (a·b is then exact: inf, NaN or inf·0 = NaN); finite a, b with
    infinite or NaN c: c.
    """
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):  # the exact product is finite (even where fl(a·b) would overflow)
        return c
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    nc, dc = c.as_integer_ratio()
    num = na * nb * dc + nc * da * db
    if num == 0:
        product_negative = (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0.0
        if (a == 0.0 or b == 0.0) and c == 0.0 and product_negative and math.copysign(1.0, c) < 0.0:
            return -0.0
        return 0.0
    try:
        return num / (da * db * dc)
    except OverflowError:
        return math.inf if num > 0 else -math.inf


def _bitcast_to_double(bits: int) -> float:
    """The double whose IEEE-754 pattern is the int64 ``bits`` (LLVM's bitcast in compiled code)."""
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _bitcast_to_int(x: float) -> int:
    """The IEEE-754 pattern of ``x`` as a signed int64 (LLVM's bitcast in compiled code)."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _select(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``numeric.special.select``: both operands were evaluated by the caller (as in compiled code)."""
    return if_true if condition else if_false


# by the intrinsic's name: numeric.special.fma and select, numeric.elementary's two bit casts
INTRINSICS: dict[str, Callable] = {"fma": _fma, "select": _select, "_bitcast_to_double": _bitcast_to_double,
                                   "_bitcast_to_int": _bitcast_to_int}


# --- numba stand-in --------------------------------------------------------------------------------------

def _identity_decorator(*args: Any, **kwargs: Any) -> Any:
    """``njit``/``jit``: ``@njit``, ``@njit(...)``, ``njit(f)``, ``njit(signature)(f)`` all give f itself."""
    if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], (str, list, tuple)):
        return args[0]
    return lambda function: function


def _intrinsic(*args: Any, **kwargs: Any) -> Any:
    def make(function: Callable) -> Callable:
        replacement = INTRINSICS.get(function.__name__)
        if replacement is not None:
            return replacement

        def unsupported(*_: Any) -> Any:
            raise Unsupported(f"intrinsic {function.__name__} has no plain-Python form")
        return unsupported
    if len(args) == 1 and not kwargs and callable(args[0]):
        return make(args[0])
    return make


class _AnyType:
    """What an overload generator receives for each argument type (ours do not inspect it)."""


def _overload(target: Callable, *args: Any, **kwargs: Any) -> Callable:
    """The implementation the generator returns replaces ``target`` in its twin module.  A generator that
    inspects its types (and fails on ``_AnyType``) or returns nothing leaves no plain form: ``target`` then
    raises ``Unsupported`` (its own Python body may differ from what numba compiles, e.g. Dekker vs FMA)."""
    def register(generator: Callable) -> Callable:
        try:
            implementation = generator(*[_AnyType()] * generator.__code__.co_argcount)
        except Exception:
            implementation = None
        if not callable(implementation):
            def implementation(*_: Any, **__: Any) -> Any:
                raise Unsupported(f"overload of {getattr(target, '__name__', target)!r} has no plain-Python form")
        module = sys.modules.get(getattr(target, "__module__", ""))
        name = getattr(target, "__name__", "")
        if module is not None and module.__dict__.get(name) is target:
            setattr(module, name, implementation)
        return generator
    return register


class _Opaque:
    """Any attribute, any call: the typing/codegen objects (``types.float64``, ``ir``, ``cgutils``) that
    only intrinsic bodies, never run here, use."""

    def __getattr__(self, name: str) -> "_Opaque":
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> "_Opaque":
        return self


# numba type names a kernel module may use in signatures (``njit("float64(float64)")``, ``from numba import
# float64``): opaque here, as the signatures are ignored
_TYPE_NAMES = frozenset({"float64", "float32", "int64", "int32", "uint64", "uint32", "intp", "uintp", "boolean",
                         "void", "optional", "UniTuple", "Tuple"})


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _TYPE_NAMES:
            return _Opaque()
        raise ImportError(f"numba.{name} has no plain-Python stand-in")  # the module is unsupported


_NUMBA = _StandIn("numba")
_NUMBA.__dict__.update(
    njit=_identity_decorator, jit=_identity_decorator, intrinsic=_intrinsic, overload=_overload,
    objmode=lambda *args, **kwargs: _ObjMode(), types=_Opaque(), cgutils=_Opaque(),
    prange=range, literal_unroll=lambda x: x)
_NUMBA.extending = _NUMBA.core = _NUMBA  # type: ignore[attr-defined]


def _host_cpu_features() -> dict:
    """The host's FMA flag without loading LLVM (≈ 45 ms): /proc/cpuinfo on Linux, else llvmlite itself."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return {"fma": "fma" in line.split(":", 1)[1].split()}
    except OSError:
        pass
    import llvmlite.binding as llvm  # noqa: F811 - the real one

    return dict(llvm.get_host_cpu_features())


_LLVMLITE = _StandIn("llvmlite")
_LLVMLITE.__dict__.update(ir=_Opaque(), binding=types.SimpleNamespace(get_host_cpu_features=_host_cpu_features))


class _Numpy(types.ModuleType):
    """numpy with ``nextafter`` on plain floats (``math.nextafter``: the same IEEE next double, a float
    rather than a numpy scalar)."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        return getattr(numpy, name)


_NP = _Numpy("numpy")
_NP.__dict__.update(nextafter=math.nextafter, inf=math.inf, nan=math.nan, pi=math.pi, e=math.e)

_INT64 = 2 ** 63
_THREAD = threading.local()  # .object_mode: depth of ``objmode`` blocks running in this thread


class _ObjMode:
    """``with objmode(...)``: the block runs as the Python it is under numba too (no int64 guard inside)."""

    def __enter__(self) -> None:
        _THREAD.object_mode = getattr(_THREAD, "object_mode", 0) + 1

    def __exit__(self, *exc: Any) -> None:
        _THREAD.object_mode -= 1


# --- work limit ------------------------------------------------------------------------------------------

MAX_TRIPS = 2 ** 12  # iterations of one loop run as plain Python (module docstring, "Work limit")


class TooLong(Exception):
    """A twin was about to run a loop of more than ``MAX_TRIPS`` iterations: the compiled kernel answers."""


def _range(*args: Any) -> range:
    """``range`` inside twins: one of more than ``MAX_TRIPS`` iterations raises ``TooLong`` (outside objmode)."""
    trips = range(*args)
    if getattr(_THREAD, "object_mode", 0):
        return trips
    try:
        long = len(trips) > MAX_TRIPS
    except OverflowError:  # more than sys.maxsize iterations
        long = True
    if long:
        raise TooLong(f"a loop of {trips!r} iterations: compiled kernel")
    return trips


def _window_guard(cutoffs: Callable) -> Callable:
    """``numeric.with_replacement.cutoffs`` whose window [lo, hi] (the trip count of the binomial sums' scan, or
    of their ≤ MAX_TERMS blocks) holds more than ``MAX_TRIPS`` integers raises ``TooLong``."""
    def guarded(m: float, p: float) -> tuple:
        lo, hi, tails = cutoffs(m, p)
        if hi - lo + 1.0 > MAX_TRIPS and not getattr(_THREAD, "object_mode", 0):
            raise TooLong(f"a binomial window of {hi - lo + 1.0:.3g} terms (m = {m!r}): compiled kernel")
        return lo, hi, tails
    return guarded


# by module, then function: wrappers installed in the twin after it is executed (its functions look the name
# up in the twin's globals at call time, so they call the wrapper)
GUARDS: dict[str, dict[str, Callable[[Callable], Callable]]] = {
    "numeric.with_replacement": {"cutoffs": _window_guard},
}


def _int64(value: int) -> int:
    if -_INT64 <= value < _INT64 or getattr(_THREAD, "object_mode", 0):
        return value
    raise OverflowError("beyond int64, where numba's result differs")


_MATH = types.ModuleType("math")
_MATH.__dict__.update({k: v for k, v in math.__dict__.items() if not k.startswith("__")})
_MATH.__dict__.update(floor=lambda x: _int64(math.floor(x)), ceil=lambda x: _int64(math.ceil(x)))


# --- the loader ------------------------------------------------------------------------------------------

def _source(real: str) -> Path | None:
    """The file of module ``real`` (``numeric.x`` or ``numeric._generated.x``) without importing it."""
    parts = real.split(".")
    if parts[0] != "numeric":
        return None
    base = _HERE.joinpath(*parts[1:])
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _import(name: str, globals: dict | None = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    """``__import__`` inside twins: numeric.* → twins, numba/llvmlite → stand-ins, numpy/math → shims."""
    if level:
        package = (globals or {}).get("__real_package__", "")
        name = importlib.util.resolve_name("." * level + name, package)
    top = name.partition(".")[0]
    if top == "numba":
        return _NUMBA
    if top == "llvmlite":
        return _LLVMLITE
    if name == "numpy" and not fromlist:
        return _NP
    if name == "math":
        return _MATH
    if top == "numeric":
        module = twin(name)
        if fromlist:
            for item in fromlist:
                if item != "*" and not hasattr(module, item) and _source(f"{name}.{item}") is not None:
                    setattr(module, item, twin(f"{name}.{item}"))
            return module
        return twin(top)
    return builtins.__import__(name, globals, locals, fromlist, level)


def _int(x: Any = 0, *args: Any) -> int:
    """``int`` inside twins: numba's ``int(float)`` is an int64, so a value beyond it (where numba's result
    wraps, and a Python loop bound would be astronomically long) raises, and the compiled kernel answers."""
    return _int64(int(x, *args))


_BUILTINS = dict(builtins.__dict__, __import__=_import, int=_int, range=_range)


_LOCK = threading.RLock()  # one thread executes a twin; others wait (re-entrant: twins import twins)


def twin(real: str) -> types.ModuleType:
    """The plain-Python twin of module ``real`` (``numeric.special`` → ``numeric._pure.special``), executed
    once per process.  Raises ``ImportError`` if it needs a numba feature without a stand-in."""
    name = PREFIX + real[len("numeric"):]
    module = sys.modules.get(name)
    if module is not None:
        return module
    with _LOCK:
        return _load(real, name)


def _load(real: str, name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if module is not None:  # loaded by another thread meanwhile, or being loaded by this one (a cycle)
        return module
    path = _source(real)
    if path is None:
        raise ImportError(f"no module {real}")
    module = types.ModuleType(name)
    is_package = path.name == "__init__.py"
    module.__dict__.update(__file__=str(path), __builtins__=_BUILTINS,
                           __real_package__=real if is_package else real.rpartition(".")[0])
    if is_package:
        module.__path__ = []  # type: ignore[attr-defined]
        sys.modules[name] = module
        return module  # package twins are namespaces (the packages' own code configures numba, not needed)
    code = importlib.machinery.SourceFileLoader(real, str(path)).get_code(real)  # from __pycache__ when fresh
    sys.modules[name] = module
    try:
        with _ObjMode():  # module-level code is plain Python in the real module too: no int64 or work limit
            exec(code, module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    for function_name, guard in GUARDS.get(real, {}).items():
        module.__dict__[function_name] = guard(module.__dict__[function_name])
    parent, _, last = real.rpartition(".")
    setattr(twin(parent), last, module)  # ``import numeric.x`` then ``numeric.x.f`` inside a twin
    return module


_FUNCTIONS: dict[str, Callable | None] = {}


def pure_function(spec: str) -> Callable | None:
    """The plain-Python form of kernel ``spec`` (``"module:function"``), or None if its module is excluded
    or unsupported.  Any call of it may raise or return a non-float where the compiled kernel returns an
    IEEE value (see the module docstring): its callers then use the compiled kernel."""
    if spec in _FUNCTIONS:
        return _FUNCTIONS[spec]
    module_name, _, function_name = spec.partition(":")
    function = None
    if module_name not in EXCLUDED:
        try:
            function = getattr(twin(module_name), function_name)
        except Exception:  # a numba feature without a stand-in (tests/bounds/test_contract.py flags it)
            function = None
    _FUNCTIONS[spec] = function
    return function


def python_function(spec: str) -> Callable:
    """A plain-Python function of a kernel module (one numba calls through ``objmode``, such as
    ``numeric.kanon:admissible_exact``) without importing numba: its twin, run as in object mode (Python ints
    unbounded); the module itself if it has no twin."""
    function = pure_function(spec)
    if function is None:
        return scalar_function_of(spec)

    def call(*args: Any, **kwargs: Any) -> Any:
        with _ObjMode():
            return function(*args, **kwargs)
    return call


def scalar_function_of(spec: str) -> Callable:
    module_name, _, function_name = spec.partition(":")
    return getattr(importlib.import_module(module_name), function_name)
