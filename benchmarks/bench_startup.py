"""Start-up cost of a fresh process (issue 14): CPU time (user + sys, from ``os.wait4``) of ``python -c`` children
that import numpy, import bounds, or import bounds and make one first call of a public function, with a
warm numba cache (every case runs once before timing).  Cases are interleaved (every case once per round,
rounds repeated), medians reported with the ratio to ``import numpy`` from the same run.  Then the per-call
CPU time of scalar calls in one process: on the plain-Python tier (the first calls) and after the switch to
the compiled kernels.  Nothing here is asserted in a test.

    PYTHONPATH=. python benchmarks/bench_startup.py [--rounds 7]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

FIRST_CALLS = {
    "poisson_subsampling": "bounds.poisson_subsampling(1.0, 1e-6, 0.01)",
    "subsampled_gaussian_profile": "bounds.subsampled_gaussian_profile(1.0, theta=1.0, rate=0.01)",
    "without_replacement": "bounds.without_replacement(1.0, 1e-6, 10, 1000)",
    "with_replacement": "bounds.with_replacement(1.0, 1e-6, 10, 1000)",
    # a binomial window of 1.9·10⁶ terms: handed to the compiled kernel at once (numeric.pure, "Work limit")
    "with_replacement m=1e12": "bounds.with_replacement(1.0, 1e-6, 10**12, 1711)",
    "rate_change": "bounds.rate_change(1.0, 1e-6, 0.1, 0.05)",
    "poisson_substitution": "bounds.poisson_substitution(1.0, 0.01, 1e-6, 1e-6)",
    "group_privacy": "bounds.group_privacy(1.0, 1e-6, 3)",
    "laplace_profile": "bounds.laplace_profile(1.0, theta=1.0)",
    "gaussian_profile": "bounds.gaussian_profile(1.0, theta=1.0)",
    "gaussian_sigma": "bounds.gaussian_sigma(1.0, 1e-6)",
    "subsampled_laplace_profile": "bounds.subsampled_laplace_profile(1.0, theta=1.0, rate=0.01)",
    "subsampled_gaussian_profile_inverse": "bounds.subsampled_gaussian_profile_inverse(1e-6, theta=1.0, rate=0.01)",
    "deterministic_suppression": "bounds.deterministic_suppression(1.0, 1e-6, 3)",
    "outlier_score_suppression": "bounds.outlier_score_suppression(1.0, 1e-6, 0.1, 0.2)",
    "missing_data": "bounds.missing_data(1.0, 1e-6, 0.1)",
    "safe_k_anonymization_delta": "bounds.safe_k_anonymization_delta(10, 0.2, 2.0)",
    "poisson_subsampling_inverse": "bounds.poisson_subsampling_inverse(1.0, 1e-6, 0.01)",
    "gaussian_profile_inverse": "bounds.gaussian_profile_inverse(1e-6, theta=1.0)",
}

STEADY = r"""
import json, time, bounds
calls = {"poisson_subsampling": lambda: bounds.poisson_subsampling(1.0, 1e-6, 0.01),
         "subsampled_gaussian_profile": lambda: bounds.subsampled_gaussian_profile(1.0, theta=1.0, rate=0.01)}
out = {}
for name, call in calls.items():
    t = time.process_time(); call(); first = time.process_time() - t
    pure = []
    for _ in range(10):  # still on the plain-Python tier (PURE_CALLS = 48, or its CPU budget)
        t = time.process_time(); call(); pure.append(time.process_time() - t)
    for _ in range(100):  # past the switch
        call()
    best = []
    for _ in range(7):
        t = time.process_time()
        for _ in range(2000):
            call()
        best.append((time.process_time() - t) / 2000)
    out[name] = {"first_ms": first * 1e3, "pure_us": sorted(pure)[5] * 1e6, "compiled_us": min(best) * 1e6}
print(json.dumps(out))
"""


def child_cpu(code: str) -> float:
    """CPU seconds (user + sys) of ``python -c code`` in a fresh process."""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"{code!r} failed: {process.stderr.read().decode()[-500:]}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    cases = {"import numpy": "import numpy", "import numba": "import numba", "import bounds": "import bounds"}
    cases.update({f"import bounds + first {name}": f"import bounds; {call}" for name, call in FIRST_CALLS.items()})
    for code in cases.values():  # warm numba's cache (and the OS file cache)
        child_cpu(code)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, code in cases.items():
            times[name].append(child_cpu(code))
    base = statistics.median(times["import numpy"])
    print(f"load average {os.getloadavg()[0]:.2f}, {args.rounds} interleaved rounds, medians (CPU ms)\n")
    print("| what | CPU ms | × `import numpy` |\n|---|---|---|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| `{name}` | {median * 1e3:.0f} | {median / base:.2f} |")
    out = subprocess.run([sys.executable, "-c", STEADY], capture_output=True, text=True, check=True)
    print("\n| scalar call | first (ms, after import) | plain-Python tier (µs/call) | compiled (µs/call) |")
    print("|---|---|---|---|")
    for name, row in json.loads(out.stdout).items():
        print(f"| `{name}` | {row['first_ms']:.1f} | {row['pure_us']:.1f} | {row['compiled_us']:.2f} |")


if __name__ == "__main__":
    main()
