"""Cold compile (issue 14): CPU time (user + sys, from ``os.wait4``) of a fresh process that imports bounds and
makes one call of a public function with an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary directory),
for every family of ``bench_startup.FIRST_CALLS``, once with scalar input and once with an 8-point array as the
first argument.  Scalar first calls run on the plain-Python tier (``numeric.pure``) and compile nothing; array
calls compile the kernel's loop.  Nothing here is asserted in a test.

    PYTHONPATH=. python benchmarks/bench_cold.py [--only NAME ...]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_startup import FIRST_CALLS  # noqa: E402


def as_array_call(call: str) -> str:
    """``f(a, b, ...)`` → ``f(np.full(8, a), b, ...)``."""
    return re.sub(r"\(([^,()]+),", r"(np.full(8, \1),", call, count=1)


def child_cpu(code: str) -> float | str:
    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="ampbounds-cold-"))
    env.pop("AMPBOUNDS_AUTO_NUMBA_CACHE_DIR", None)
    process = subprocess.Popen([sys.executable, "-c", "import numpy as np, bounds\n" + code], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    error = process.stderr.read().strip()
    process.stderr.close()
    if status:
        return "error: " + error.splitlines()[-1] if error else f"exit status {status}"
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    totals = {"scalar": 0.0, "array": 0.0}
    print(f"{'family':38s} {'scalar CPU s':>13s} {'array CPU s':>12s}")
    for name, call in FIRST_CALLS.items():
        if args.only and name not in args.only:
            continue
        scalar, array = child_cpu(call), child_cpu(as_array_call(call))
        for kind, value in (("scalar", scalar), ("array", array)):
            if isinstance(value, float):
                totals[kind] += value
        show = [f"{v:.2f}" if isinstance(v, float) else v for v in (scalar, array)]
        print(f"{name:38s} {show[0]:>13s} {show[1]:>12s}", flush=True)
    print(f"{'total (each process with its imports)':38s} {totals['scalar']:13.2f} {totals['array']:12.2f}")


if __name__ == "__main__":
    main()
