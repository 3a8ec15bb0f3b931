"""numeric.elementary against glibc in numba loops, and the T1 ε kernel (libm vs elementary.amplify) under the
three ways of running a kernel over an array: a ``numba.vectorize`` ufunc, an ``@njit`` loop calling the kernel
(compiled separately), and an ``@njit`` loop with the kernel inlined (``inline="always"``).  CPU time
(``time.process_time``), every case once per round, medians of the rounds, ratios from the same run.

    PYTHONPATH=. python benchmarks/bench_elementary.py [--points 1000000] [--rounds 7]

Nothing here is asserted in a test.
"""
from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from numba import njit, vectorize

from numeric.elementary import amplify, expm1, log1p
from numeric.special import amplify_large, up


def t1_epsilon_libm(epsilon, rate):  # the T1 ε kernel as generated before issue 14 (glibc expm1/log1p)
    return ((0.0) if (rate == 0.0) or (epsilon == 0.0) else (up(math.log1p(rate*math.expm1(epsilon)), 4))
            if (epsilon <= 709.0) else (up(amplify_large(epsilon, rate), 4)))


def t1_epsilon_elementary(epsilon, rate):  # as generated now (numeric/_generated/subsampling.py)
    return ((0.0) if ((rate == 0.0) or (epsilon == 0.0)) else (up(amplify(epsilon, rate), 4)))


def loop_over(kernel, inline: str):
    jitted = njit(error_model="numpy", inline=inline)(kernel)

    @njit(error_model="numpy")
    def run(a, b, out):
        for i in range(out.size):
            out[i] = jitted(a[i], b[i])
    return run


@njit(error_model="numpy")
def _expm1_ours(a, out):
    for i in range(out.size):
        out[i] = expm1(a[i])


@njit(error_model="numpy")
def _expm1_glibc(a, out):
    for i in range(out.size):
        out[i] = math.expm1(a[i])


@njit(error_model="numpy")
def _log1p_ours(a, out):
    for i in range(out.size):
        out[i] = log1p(a[i])


@njit(error_model="numpy")
def _log1p_glibc(a, out):
    for i in range(out.size):
        out[i] = math.log1p(a[i])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=10**6)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--public", action="store_true",
                        help="time the public T1/T2/T5 functions with inlined kernel loops instead")
    args = parser.parse_args()
    if args.public:
        public(args.points, args.rounds)
        return
    n = args.points
    rng = np.random.default_rng(20261130)
    eps = 10 ** rng.uniform(-3, 1, n)  # the bench_ratios.py T1 inputs
    rate = 10 ** rng.uniform(-6, 0, n)
    y = rate * np.expm1(eps)
    out = np.empty(n)
    cases = {
        "expm1 elementary (loop)": lambda: _expm1_ours(eps, out),
        "expm1 glibc (loop)": lambda: _expm1_glibc(eps, out),
        "log1p elementary (loop)": lambda: _log1p_ours(y, out),
        "log1p glibc (loop)": lambda: _log1p_glibc(y, out),
        "numpy log1p(q*expm1(eps))": lambda: np.log1p(rate * np.expm1(eps)),
    }
    for name, kernel in (("libm", t1_epsilon_libm), ("elementary", t1_epsilon_elementary)):
        ufunc = vectorize(["float64(float64, float64)"])(kernel)
        cases[f"T1 eps {name}: vectorize"] = lambda u=ufunc: u(eps, rate)
        for inline in ("never", "always"):
            run = loop_over(kernel, inline)
            cases[f"T1 eps {name}: loop, inline={inline}"] = lambda r=run: r(eps, rate, out)
    for case in cases.values():  # compile outside the timing
        case()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, case in cases.items():
            t = time.process_time()
            case()
            times[name].append(time.process_time() - t)
    load = os.getloadavg()
    print(f"{n} points, medians of {args.rounds} interleaved rounds (CPU time), load average {load[0]:.1f}")
    ref = float(np.median(times["numpy log1p(q*expm1(eps))"]))
    for name in cases:
        med = float(np.median(times[name]))
        print(f"{name:<40}{med / n * 1e9:8.2f} ns/pt{med / ref:8.2f}× numpy")


# --- public functions with the kernels inlined into @njit loops (what helper h2's array route does once its
# loops compile the kernel with inline="always"), libm kernels (the branch point's generated code) against the
# elementary ones (now), interleaved; run with --public.

def _inline_loop(function, nargs: int):
    jitted = njit(error_model="numpy", inline="always")(function)
    if nargs == 2:
        @njit(error_model="numpy")
        def run(a0, a1, out):
            for i in range(out.size):
                out[i] = jitted(a0[i], a1[i])
    elif nargs == 3:
        @njit(error_model="numpy")
        def run(a0, a1, a2, out):
            for i in range(out.size):
                out[i] = jitted(a0[i], a1[i], a2[i])
    else:
        raise ValueError(nargs)

    def call(*args):
        arrays = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in args])
        flat = [np.ascontiguousarray(a).ravel() for a in arrays]
        out = np.empty(flat[0].size)
        run(*flat, out)
        return out.reshape(arrays[0].shape)
    return call


def _old_generated(family: str) -> dict:
    """The branch point's generated module (libm kernels), from git."""
    import subprocess

    source = subprocess.run(["git", "show", f"54675fa:numeric/_generated/{family}.py"], capture_output=True,
                            text=True, check=True).stdout
    namespace: dict = {}
    exec(compile(source, f"<54675fa {family}>", "exec"), namespace)
    return namespace


def public(points: int, rounds: int) -> None:
    import numeric
    import bounds
    from bounds._core import THEOREMS
    from benchmarks.bench_ratios import cases as ratio_cases

    rng = np.random.default_rng(20261130)
    table = ratio_cases(points, rng)
    names = ["T1 poisson_subsampling", "T2 without_replacement", "T5 rate_change"]
    routes: dict[str, dict] = {"libm": {}, "elementary": {}}
    old = {family: _old_generated(family) for family in ("subsampling",)}
    import importlib

    for theorem in ("T1", "T2", "T5"):
        for output in ("epsilon", "delta"):
            spec = THEOREMS[theorem]["outputs"][output]["kernel"]
            module, _, name = spec.partition(":")
            nargs = len(THEOREMS[theorem]["outputs"][output]["args"])
            routes["elementary"][spec] = _inline_loop(getattr(importlib.import_module(module), name), nargs)
            routes["libm"][spec] = _inline_loop(old[module.rsplit(".", 1)[1]][name], nargs)
    current = dict(numeric._UFUNCS)
    timings: dict[str, list[float]] = {}
    runs = []
    for name in names:
        ours, ref = table[name]
        for route in ("libm", "elementary"):
            runs.append((f"{name}: inlined loops, {route}", ours, route))
        runs.append((f"{name}: this branch's route (vectorize)", ours, None))
        runs.append((f"{name}: numpy", ref, "numpy"))
    for label, fn, route in runs:  # compile and warm
        numeric._UFUNCS.clear()
        numeric._UFUNCS.update(current if route in (None, "numpy") else routes[route])
        fn()
        if route is None:
            current = dict(numeric._UFUNCS)
        timings[label] = []
    for _ in range(rounds):
        for label, fn, route in runs:
            numeric._UFUNCS.clear()
            numeric._UFUNCS.update(current if route in (None, "numpy") else routes[route])
            t = time.process_time()
            fn()
            timings[label].append(time.process_time() - t)
    load = os.getloadavg()
    print(f"public functions, {points} points, medians of {rounds} interleaved rounds (CPU time), "
          f"load average {load[0]:.1f}")
    for name in names:
        ref = float(np.median(timings[f"{name}: numpy"]))
        for label in timings:
            if label.startswith(name):
                med = float(np.median(timings[label]))
                print(f"{label:<58}{med / points * 1e9:8.2f} ns/pt{med / ref:8.2f}× numpy")
    del bounds


if __name__ == "__main__":
    main()
