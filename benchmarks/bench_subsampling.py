"""Speed of the T1 (Poisson subsampling) ε bound, side by side with plain numpy and plain Python.

Run from the repository root::

    python benchmarks/bench_subsampling.py            # ~15-30 s
    python benchmarks/bench_subsampling.py --points 1000000 --repeats 3

Measured (see benchmarks/README.md for what each row means and recorded numbers):

(a)  the numba ufunc of T1's ε kernel, ``numeric.kernel(spec, 2)``, on N random points, after a warm-up call;
(a') the same generated expression without outward rounding (``t1_epsilon_raw``), to show what rounding costs;
(b)  the public ``bounds.poisson_subsampling`` on the same arrays (validation + ε and δ kernels);
(c)  the best plain numpy expression ``np.log1p(rate * np.expm1(eps))`` (no rounding, no validation);
(d)  a pure-Python loop with ``math.log1p``/``math.expm1`` on N/100 points, scaled to N;
(e)  ``import bounds`` in a fresh interpreter (median of several) and whether sympy/numba were imported;
(f)  the first ``poisson_subsampling`` call in a fresh interpreter with a warm on-disk numba cache
     (and, for scale, ``import numba`` alone in a fresh interpreter).

In-process rows are best-of-R CPU times (the least disturbed run); subprocess rows are medians of the CPU
time measured inside each child (``time.process_time``).  Nothing here is
asserted: speed is reported, never tested.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time
from typing import Callable

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402


def best_of(function: Callable[[], object], repeats: int) -> float:
    """Smallest CPU time (time.process_time) of ``repeats`` calls (seconds): the machine may be shared."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def fresh_python(code: str) -> dict:
    """Run ``code`` in a new interpreter (repository on the path); it prints one JSON object."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                         check=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


IMPORT_PROBE = """
import json, sys, time
start = time.process_time()
import bounds
elapsed = time.process_time() - start
print(json.dumps({"seconds": elapsed, "sympy": "sympy" in sys.modules, "numba": "numba" in sys.modules}))
"""

NUMBA_PROBE = """
import json, time
start = time.process_time()
import numba
print(json.dumps({"seconds": time.process_time() - start}))
"""

FIRST_CALL_PROBE = """
import json, sys, time
import bounds
start = time.process_time()
bounds.poisson_subsampling(1.0, 1e-6, 0.01)
first = time.process_time() - start
start = time.process_time()
bounds.poisson_subsampling(1.0, 1e-6, 0.01)
second = time.process_time() - start
print(json.dumps({"first": first, "second": second, "sympy": "sympy" in sys.modules}))
"""


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba

    return (f"{time.strftime('%Y-%m-%d')}  nproc={os.cpu_count()}  CPU: {model}  "
            f"python {platform.python_version()}  numpy {np.__version__}  numba {numba.__version__}  "
            f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=10**7, help="N, points per array (default 10**7)")
    parser.add_argument("--repeats", type=int, default=3, help="R for best-of-R in-process timings")
    parser.add_argument("--fresh", type=int, default=7, help="fresh interpreters per subprocess row")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    n = args.points

    import bounds
    import numeric
    from numeric._generated.metadata import THEOREMS

    print(machine())
    rng = np.random.default_rng(args.seed)
    eps = np.exp(rng.uniform(math.log(1e-3), math.log(10.0), n))   # log-uniform in [1e-3, 10]
    rate = np.exp(rng.uniform(math.log(1e-6), 0.0, n))             # log-uniform in [1e-6, 1]
    delta = np.exp(rng.uniform(math.log(1e-12), math.log(1e-3), n))  # for (b), which also computes δ

    spec = THEOREMS["T1"]["outputs"]["epsilon"]["kernel"]
    kernel = numeric.kernel(spec, 2)
    raw = numeric.kernel(spec + "_raw", 2)
    kernel(eps[:16], rate[:16])  # warm-up: compile or load from the on-disk cache
    raw(eps[:16], rate[:16])
    bounds.poisson_subsampling(eps[:16], delta[:16], rate[:16])

    def numpy_expr() -> np.ndarray:
        return np.log1p(rate * np.expm1(eps))

    small = max(1, n // 100)
    eps_list, rate_list = eps[:small].tolist(), rate[:small].tolist()

    def python_loop() -> list[float]:
        log1p, expm1 = math.log1p, math.expm1
        return [log1p(r * expm1(e)) for e, r in zip(eps_list, rate_list)]

    rows = [
        ("(a)  numba kernel t1_epsilon (rounded up)", best_of(lambda: kernel(eps, rate), args.repeats)),
        ("(a') numba kernel t1_epsilon_raw (unrounded)", best_of(lambda: raw(eps, rate), args.repeats)),
        ("(b)  bounds.poisson_subsampling (valid.+eps+delta)",
         best_of(lambda: bounds.poisson_subsampling(eps, delta, rate), args.repeats)),
        ("(c)  numpy log1p(rate*expm1(eps))", best_of(numpy_expr, max(args.repeats, 5))),
        (f"(d)  Python loop, math.log1p/expm1 ({small} pts, scaled)",
         best_of(python_loop, args.repeats) * n / small),
    ]

    # Sanity (not timing): (b) returns exactly the kernel's ε; how far (c) is from the unrounded kernel.
    same = np.array_equal(bounds.poisson_subsampling(eps, delta, rate).epsilon, kernel(eps, rate))
    reference = raw(eps, rate)
    ulps = np.abs(numpy_expr() - reference) / np.spacing(reference)
    rounded_above = bool(np.all(kernel(eps, rate) >= reference))

    numpy_time = rows[3][1]
    print(f"\nT1 epsilon on N = {n:,} points (eps log-uniform in [1e-3, 10], rate log-uniform in [1e-6, 1]); "
          f"best of {args.repeats} (numpy: best of {max(args.repeats, 5)})")
    print(f"{'case':56s} {'s per N':>9s} {'ns/point':>9s} {'x numpy':>8s}")
    for label, seconds in rows:
        print(f"{label:56s} {seconds:9.4f} {seconds / n * 1e9:9.2f} {seconds / numpy_time:8.2f}")
    print(f"check: (b).epsilon == (a) elementwise: {same}; (a) >= (a') everywhere: {rounded_above}; "
          f"|(c) - (a')| max {ulps.max():.0f} ulp, mean {ulps.mean():.3f} ulp")

    del eps, rate, delta, reference, ulps

    imports = [fresh_python(IMPORT_PROBE) for _ in range(args.fresh)]
    fresh_python(FIRST_CALL_PROBE)  # warm the on-disk numba cache (compiles if it is cold)
    calls = [fresh_python(FIRST_CALL_PROBE) for _ in range(args.fresh)]
    numba_import = [fresh_python(NUMBA_PROBE) for _ in range(args.fresh)]
    print(f"\nfresh interpreters (median of {args.fresh})")
    print(f"(e)  import bounds: {statistics.median(r['seconds'] for r in imports) * 1e3:7.1f} ms   "
          f"sympy imported: {any(r['sympy'] for r in imports)}   numba imported: {any(r['numba'] for r in imports)}")
    print(f"(f)  first poisson_subsampling call, warm cache: "
          f"{statistics.median(r['first'] for r in calls) * 1e3:7.1f} ms   "
          f"(second call {statistics.median(r['second'] for r in calls) * 1e6:.1f} us; "
          f"sympy imported: {any(r['sympy'] for r in calls)})")
    print(f"     of which `import numba` alone takes about "
          f"{statistics.median(r['seconds'] for r in numba_import) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
