"""Array speed of the public functions against the plain numpy/scipy expression of the same formula, and T11 in
ns/point: CPU time (``time.process_time``), interleaved repeats (every case once per round, rounds repeated),
medians, ratios from the same run.  The machine may be shared: the load average is printed with the results.

    PYTHONPATH=. python benchmarks/bench_ratios.py [--points 1000000] [--rounds 7] [--cases T1,T2,T5,T7]

Other CPU families on one machine (issue 20): ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` choose the code numba
generates, ``NPY_DISABLE_CPU_FEATURES`` numpy's dispatch; both are printed in the header (see
benchmarks/README.md, "Arrays on AVX-512").

The numpy references are *unrounded* and unvalidated (the goal in issue 14 is ampbounds ≤ 1.0× them);
ampbounds' times include validation, broadcasting and both outputs where the public function returns a
``Guarantee``.  Nothing here is asserted in a test.

``--kernels`` times instead the one array loop that dominates each case (T1/T2/T5 ε: ``amplify`` /
``amplify_quotient`` rounded up; T7 δ: ``group_delta``), and T1's two outputs (the fused loop with its domain
check where ``numeric.kernel_pair`` exists, else the two own loops), called on contiguous arrays with preallocated
outputs,
against numpy's ufunc chain of the same formula writing into preallocated buffers (``out=``): the arithmetic
alone, without validation, the other output, allocation or page faults (issue 20: what limits the ratio).
Run it with ``PYTHONPATH`` pointing at another tree to compare two versions of the kernels.

``--heap`` fixes the C allocator's state, which otherwise decides the public-call ratio (issue 20, item 6: the
same run gave numpy 2.5–8.5 ns/pt).  A public call returns fresh output arrays, and so does numpy's expression;
for 10⁶ points each is 8 MB, above glibc's mmap threshold, whose *dynamic* adjustment (raised to the size of
each freed mmapped block, up to 32 MB, with the trim threshold at twice it) decides whether the next allocation
reuses heap pages or page-faults on fresh ones (≈ 1,300 minor faults, ≈ 5 ns/pt for two 8 MB outputs).  Which
side faults depends on every earlier allocation of the process.  ``steady`` (default) sets both thresholds
high with ``mallopt`` so neither side faults (a long-running process calling again and again); ``fresh`` sets
the mmap threshold to 128 KiB, fixed, so every large array of either side is new pages (a first call);
``as-is`` leaves glibc's heuristics.  Minor page faults per call are printed for both sides.  On a C library
without ``mallopt`` (not glibc) the heap is left as is and said so.
"""
from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import resource
import platform
import time

import numpy as np
from scipy import special

import bounds


def cases(n: int, rng: np.random.Generator) -> dict:
    eps = 10 ** rng.uniform(-3, 1, n)
    delta = 10 ** rng.uniform(-12, -3, n)
    rate = 10 ** rng.uniform(-6, 0, n)
    m = np.floor(10 ** rng.uniform(0, 3, n))
    nn = m + np.floor(10 ** rng.uniform(0, 4, n))
    k = np.floor(10 ** rng.uniform(0, 2, n))
    eps_small = eps / 100  # group privacy: kε ≤ 700
    theta = 10 ** rng.uniform(-1, 1, n)
    q11 = 10 ** rng.uniform(-5, 0, n)
    rate_to = rate * rng.uniform(0, 1, n)

    def t1_np():
        return np.log1p(rate * np.expm1(eps)), rate * delta

    def t2_np():
        eta = m / nn
        return np.log1p(eta * np.expm1(eps)), eta * delta

    def t5_np():
        eta = rate_to / rate
        return np.log1p(eta * np.expm1(eps)), eta * delta

    def t7_np():
        return k * eps_small, delta * np.expm1(k * eps_small) / np.expm1(eps_small)

    def t9_scipy():
        return special.ndtr(theta / 2 - eps / theta) - np.exp(eps) * special.ndtr(-theta / 2 - eps / theta)

    return {
        "T1 poisson_subsampling": (lambda: bounds.poisson_subsampling(eps, delta, rate), t1_np),
        "T2 without_replacement": (lambda: bounds.without_replacement(eps, delta, m, nn), t2_np),
        "T5 rate_change": (lambda: bounds.rate_change(eps, delta, rate, rate_to), t5_np),
        "T7 group_privacy": (lambda: bounds.group_privacy(eps_small, delta, k), t7_np),
        "T9 gaussian_profile": (lambda: bounds.gaussian_profile(eps, theta=theta), t9_scipy),
        "T11 Gaussian both": (lambda: bounds.subsampled_gaussian_profile(eps, theta=theta, rate=q11), None),
        "T11 Gaussian remove": (lambda: bounds.subsampled_gaussian_profile(eps, theta=theta, rate=q11, direction="remove"), None),
        "T11 Gaussian add": (lambda: bounds.subsampled_gaussian_profile(eps, theta=theta, rate=q11, direction="add"), None),
        "T11 Laplace both": (lambda: bounds.subsampled_laplace_profile(eps, theta=theta, rate=q11), None),
    }


def kernel_loops(n: int, rounds: int) -> None:
    """``--kernels``: per-point CPU time of each dominant loop and of numpy's chain (see the module docstring)."""
    from numeric import kernel

    rng = np.random.default_rng(20261130)
    eps = 10 ** rng.uniform(-3, 1, n)
    delta = 10 ** rng.uniform(-12, -3, n)
    rate = 10 ** rng.uniform(-6, 0, n)
    m = np.floor(10 ** rng.uniform(0, 3, n))
    nn = m + np.floor(10 ** rng.uniform(0, 4, n))
    k = np.floor(10 ** rng.uniform(0, 2, n))
    eps_small = eps / 100
    rate_to = rate * rng.uniform(0, 1, n)
    out, t1, t2 = np.empty(n), np.empty(n), np.empty(n)

    def loop(spec: str, *arrays: np.ndarray):
        run = kernel(spec, len(arrays)).compiled(False)
        return lambda: run(*arrays, out)

    def amplify_np(eta: np.ndarray):
        def chain():
            np.expm1(eps, out=t1)
            np.multiply(eta, t1, out=t1)
            np.log1p(t1, out=out)
        return chain

    def group_np():
        np.multiply(k, eps_small, out=t1)
        np.expm1(t1, out=t1)
        np.expm1(eps_small, out=t2)
        np.divide(t1, t2, out=t1)
        np.multiply(delta, t1, out=out)

    def both_t1():  # one fused pass (ε, δ and the domain check) where numeric has it, else the two own loops
        import numeric

        if hasattr(numeric, "kernel_pair"):
            run = numeric.kernel_pair("T1")[0].compiled()
            return lambda: run(eps, rate, delta, out, t2)
        eps_loop = kernel("numeric._generated.subsampling:t1_epsilon", 2).compiled(False)
        delta_loop = kernel("numeric._generated.subsampling:t1_delta", 2).compiled(False)
        return lambda: (eps_loop(eps, rate, out), delta_loop(delta, rate, t2))

    def both_t1_np():
        amplify_np(rate)()
        np.multiply(rate, delta, out=t2)

    eta2, eta5 = m / nn, rate_to / rate
    table = {
        "T1 ε and δ (one pass)": (both_t1(), both_t1_np),
        "T1 ε amplify": (loop("numeric._generated.subsampling:t1_epsilon", eps, rate), amplify_np(rate)),
        "T2 ε amplify_quotient": (loop("numeric._generated.subsampling:t2_epsilon", eps, m, nn), amplify_np(eta2)),
        "T5 ε amplify_quotient": (loop("numeric._generated.subsampling:t5_epsilon", eps, rate, rate_to),
                                  amplify_np(eta5)),
        "T7 δ group_delta": (loop("numeric._generated.group:t7_delta", eps_small, delta, k), group_np),
    }
    for ours, ref in table.values():  # compile or load outside the timing
        ours()
        ref()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in table}
    for _ in range(rounds):
        for name, (ours, ref) in table.items():
            t = time.process_time()
            ours()
            mid = time.process_time()
            ref()
            times[name].append((mid - t, time.process_time() - mid))
    load = os.getloadavg()
    print(f"kernel loops alone, {n} points, medians of {rounds} interleaved rounds (CPU time), load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"{'loop':<26}{'ns/point':>10}{'numpy ns/pt':>13}{'ratio':>8}")
    for name, pairs in times.items():
        ours_ns = float(np.median([a for a, _ in pairs])) / n * 1e9
        ref_ns = float(np.median([b for _, b in pairs])) / n * 1e9
        print(f"{name:<26}{ours_ns:>10.2f}{ref_ns:>13.2f}{ours_ns / ref_ns:>8.2f}")


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def set_heap(mode: str) -> str:
    """Fix glibc's allocator state for the timing (``--heap``; see the module docstring); returns what was done."""
    if mode == "as-is":
        return "heap as is (glibc's dynamic thresholds)"
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return "heap as is (no mallopt in this C library)"
    if mode == "steady":
        ok = mallopt(_M_MMAP_THRESHOLD, 1 << 30) and mallopt(_M_TRIM_THRESHOLD, 1 << 31)
        return "steady heap (mallopt: mmap threshold 1 GiB, trim 2 GiB)" if ok else "heap as is (mallopt refused)"
    ok = mallopt(_M_MMAP_THRESHOLD, 128 << 10)
    return "fresh pages (mallopt: mmap threshold 128 KiB, fixed)" if ok else "heap as is (mallopt refused)"


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=10**6)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cases", default="", help="comma-separated name prefixes (T1,T2,…); default: all")
    parser.add_argument("--kernels", action="store_true", help="time the dominant array loop of T1/T2/T5/T7 "
                        "alone against numpy's ufunc chain into preallocated buffers")
    parser.add_argument("--heap", choices=("steady", "fresh", "as-is"), default="steady",
                        help="the C allocator's state for the public calls (see the module docstring)")
    args = parser.parse_args()
    if args.kernels:
        kernel_loops(args.points, args.rounds)
        return
    rng = np.random.default_rng(20261130)
    heap = set_heap(args.heap)
    table = cases(args.points, rng)
    if args.cases:
        prefixes = tuple(p.strip() + " " for p in args.cases.split(","))
        table = {name: pair for name, pair in table.items() if name.startswith(prefixes)}
    small = cases(16, np.random.default_rng(1))
    for ours, ref in (small[name] for name in table):  # load the numba caches (or compile) outside the timing
        ours()
        if ref:
            ref()
    times: dict[str, list[float]] = {name: [] for name in table}
    ref_times: dict[str, list[float]] = {name: [] for name in table}
    faults: dict[str, list[tuple[int, int]]] = {name: [] for name in table}
    t11_points = min(args.points, 10**5)  # T11 is ~100× slower per point: time it on fewer points
    t11 = cases(t11_points, np.random.default_rng(20261130))
    for _ in range(args.rounds):
        for name, (ours, ref) in table.items():
            run = t11[name][0] if name.startswith("T11") else ours
            f0 = _faults()
            t = time.process_time()
            run()
            times[name].append(time.process_time() - t)
            f1 = _faults()
            if ref:
                t = time.process_time()
                ref()
                ref_times[name].append(time.process_time() - t)
            faults[name].append((f1 - f0, _faults() - f1))
    load = os.getloadavg()
    print(f"{platform.processor() or platform.machine()}, nproc {os.cpu_count()}, numpy {np.__version__}, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; medians of {args.rounds} interleaved rounds "
          f"(CPU time); {heap}")
    from numba.core import config
    from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__

    import llvmlite.binding as llvm

    enabled = [d for d in __cpu_dispatch__ if __cpu_features__.get(d)]
    print(f"numba CPU {config.CPU_NAME or llvm.get_host_cpu_name()} (host {llvm.get_host_cpu_name()}; "
          f"NUMBA_CPU_FEATURES {'set' if config.CPU_FEATURES is not None else 'host'}), numpy dispatch "
          f"{enabled[-1] if enabled else 'baseline ' + __cpu_baseline__[-1]}")
    print(f"{'case':<26}{'points':>9}{'ns/point':>10}{'ref ns/pt':>11}{'ratio':>8}{'faults/call':>13}"
          f"{'ref faults':>12}")
    for name in table:
        pts = t11_points if name.startswith("T11") else args.points
        ours = float(np.median(times[name])) / pts * 1e9
        ours_faults = int(np.median([a for a, _ in faults[name]]))
        if ref_times[name]:
            ref = float(np.median(ref_times[name])) / pts * 1e9
            ref_faults = int(np.median([b for _, b in faults[name]]))
            print(f"{name:<26}{pts:>9}{ours:>10.1f}{ref:>11.1f}{ours / ref:>8.2f}{ours_faults:>13}{ref_faults:>12}")
        else:
            print(f"{name:<26}{pts:>9}{ours:>10.1f}{'':>11}{'':>8}{ours_faults:>13}")


if __name__ == "__main__":
    main()
