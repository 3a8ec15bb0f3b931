"""Compile cost and warm speed of SPEC T11's public functions (issue 20, item 3: one shared ``t11(mode, …)`` entry
point and one moded array loop instead of eighteen wrappers and a loop each).

Cold: in fresh processes with an EMPTY numba cache each, the CPU time (``time.process_time``) of calling every
public T11 function (profiles and inverses, Gaussian and Laplace, the three directions) past the plain-Python tier
on one point and on a 3-point array, i.e. compiling the scalar route and the array loop of all eighteen kernels;
numba is imported (and a trivial function compiled) first.  Warm: per-point CPU time of the same public calls, one
point (a loop of scalar calls) and 10⁴-point arrays, in a second process on the cache the cold one filled.
``--tree`` runs the same children on other source trees (an export of an older commit: ``git archive <commit> |
tar -x -C /tmp/old``), interleaved round by round, so the trees meet the same load; the values printed by every
tree must agree bit for bit.  Nothing is asserted.

    PYTHONPATH=. python benchmarks/bench_compile_t11.py [--rounds 3] [--tree /tmp/old] [--warm]
"""
from __future__ import annotations

import json
import statistics
import tempfile

from bench_one_route import child_cpu, interleaved, tree_options

CALLS = r"""
import numpy as np
import bounds
from bounds import _core
_core.PURE_CALLS = 0  # the compiled routes at once (the tier's plain-Python calls are not what is measured)
calls = {}
for mech in ("gaussian", "laplace"):
    profile = getattr(bounds, f"subsampled_{mech}_profile")
    inverse = getattr(bounds, f"subsampled_{mech}_profile_inverse")
    for d in ("both", "remove", "add"):
        calls[f"{mech} {d}"] = (lambda x, f=profile, d=d: f(x, theta=0.8, rate=0.01, direction=d), 0.5, 2.0)
        calls[f"{mech} {d} inverse"] = (lambda x, f=inverse, d=d: f(x, theta=0.8, rate=0.01, direction=d), 1e-3, 1e-6)
"""

COLD = CALLS + r"""
import json, time, numba
numba.njit(lambda x: x + 1.0)(1.0)
start = time.process_time()
values = []
for name, (call, lo, hi) in calls.items():
    values.append(float(call(lo)))
    values.extend(float(v) for v in call(np.linspace(lo, hi, 3)))
print(json.dumps({"cpu": time.process_time() - start, "values": [v.hex() for v in values]}))
"""

WARM = CALLS + r"""
import json, time
out = {}
for name, (call, lo, hi) in calls.items():
    call(lo); call(np.linspace(lo, hi, 4))  # compiled routes loaded
    points = [lo + (hi - lo) * k / 199 for k in range(200)]
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for x in points:
            call(x)
        best = min(best, (time.process_time() - start) / len(points))
    x = np.linspace(lo, hi, 10_000)
    best_array = float("inf")
    for _ in range(5):
        start = time.process_time()
        call(x)
        best_array = min(best_array, (time.process_time() - start) / x.size)
    out[name] = (best * 1e9, best_array * 1e9)
print(json.dumps(out))
"""


def child(tree: str, source: str, cache: str) -> tuple[float, str]:
    """CPU seconds of ``source`` run on ``tree`` with ``cache`` as numba's cache, and its last output line."""
    seconds, out = child_cpu(tree, source, cache)
    return seconds, out.splitlines()[-1]


def run(tree: str, warm: bool) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        process_cpu, line = child(tree, COLD, cache)
        result = {"process": process_cpu, **json.loads(line)}
        if warm:
            result["warm"] = json.loads(child(tree, WARM, cache)[1])
    return result


def main() -> None:
    parser = tree_options(__doc__.splitlines()[0])
    parser.add_argument("--warm", action="store_true", help="also the warm per-point CPU time")
    args = parser.parse_args()
    runs = interleaved(args, lambda tree: run(tree, args.warm))
    for tree, results in runs.items():
        cpu = [r["cpu"] for r in results]
        print(f"== {tree}: cold T11 calls {statistics.median(cpu):.2f} s CPU median ({', '.join(f'{c:.2f}' for c in cpu)}); "
              f"whole process {statistics.median(r['process'] for r in results):.2f} s")
        if args.warm:
            names = results[0]["warm"]
            print("   warm CPU ns/point (median over rounds): one point | 10⁴-point array")
            for name in names:
                one = statistics.median(r["warm"][name][0] for r in results)
                many = statistics.median(r["warm"][name][1] for r in results)
                print(f"   {name:26s} {one:10.0f} | {many:8.1f}")
    values = {json.dumps(r["values"]) for results in runs.values() for r in results}
    print("same values (bits) on every tree and round:", len(values) == 1)


if __name__ == "__main__":
    main()
