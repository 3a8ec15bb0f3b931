"""Array loops around the hand-written (called, not inlined) kernels (issue 20, item 3): cold compile CPU and warm
per-point CPU, per kernel of the theorem records.

Cold: one fresh process with an EMPTY numba cache per tree and round; for each kernel, the CPU time
(``time.process_time``) of compiling its scalar dispatcher (``numeric.scalar_kernel``: the function itself and the
tree below it) and then, separately, of building its serial array loop (``numeric.kernel(spec, n).compiled()``):
the second figure is what the loop costs beyond the kernel.  Warm: a second process on the cache the first filled;
the best of 5 CPU times of the loop on 10⁴ points (per point), and of the scalar dispatcher called from Python on
200 points (per point).  ``--tree`` runs the same children on other source trees (``git archive <commit> | tar -x
-C /tmp/old``), interleaved round by round; the loops' outputs must agree bit for bit across trees.  Nothing is
asserted.

    PYTHONPATH=. python benchmarks/bench_compile_called.py [--rounds 3] [--tree /tmp/old]
"""
from __future__ import annotations

import json
import statistics
import tempfile

from bench_compile_t11 import child
from bench_one_route import interleaved, tree_options

SETUP = r"""
import json, time
import numpy as np
import numba
numba.njit(lambda x: x + 1.0)(1.0)
import numeric
from numeric._generated.metadata import THEOREMS
# (spec, nargs, points as columns): every hand-written kernel of the records, each parameter at a spread of values
AXES = {"epsilon": (0.05, 4.0), "epsilon1": (0.05, 4.0), "delta": (1e-9, 0.2), "theta": (0.3, 3.0),
        "rate": (0.001, 0.5), "sensitivity": (1.0, 4.0), "n": (60.0, 400.0), "beta": (0.05, 0.9)}
UNIT, INTEGER = (0.05, 0.9), (2.0, 50.0)  # other parameters: by domain, (0, 1) or an integer
kernels = {}
for tid, meta in THEOREMS.items():
    for out in meta["outputs"].values():
        spec = out["kernel"]
        if not spec.startswith("numeric._generated.") and spec not in kernels:
            kernels[spec] = [(a, meta["parameters"][a]["domain"]) for a in out["args"]]


def columns(args, size):
    cols = []
    for j, (a, domain) in enumerate(args):
        lo, hi = AXES.get(a) or (INTEGER if domain[4] else UNIT)
        t = (np.arange(size) * (2 * j + 1) % size) / max(size - 1, 1)
        col = lo + (hi - lo) * t
        cols.append(np.floor(col) if domain[4] else col)
    return cols
"""

COLD = SETUP + r"""
out = {}
for spec, args in kernels.items():
    t = time.process_time()
    numeric.scalar_kernel(spec)(*[float(c[0]) for c in columns(args, 1)])
    t1 = time.process_time()
    loop = numeric.kernel(spec, len(args))
    loop.compiled()
    t2 = time.process_time()
    with np.errstate(all="ignore"):
        values = loop(*columns(args, 64))
    out[spec] = [t1 - t, t2 - t1, [float(v).hex() for v in values]]
print(json.dumps(out))
"""

WARM = SETUP + r"""
out = {}
for spec, args in kernels.items():
    loop = numeric.kernel(spec, len(args))
    scalar = numeric.scalar_kernel(spec)
    cols = columns(args, 10_000)
    points = list(zip(*[c[:200].tolist() for c in cols]))
    with np.errstate(all="ignore"):
        loop(*cols)
        best = min(_timed(lambda: loop(*cols)) for _ in range(5)) / 10_000
        for p in points:
            scalar(*p)
        best_scalar = min(_timed(lambda: [scalar(*p) for p in points]) for _ in range(5)) / len(points)
    out[spec] = [best * 1e9, best_scalar * 1e9]
print(json.dumps(out))
"""
WARM = WARM.replace("out = {}\n", "out = {}\n\ndef _timed(f):\n    t = time.process_time()\n    f()\n"
                    "    return time.process_time() - t\n\n", 1)


def run(tree: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        cold = json.loads(child(tree, COLD, cache)[1])
        warm = json.loads(child(tree, WARM, cache)[1])
    return {"cold": cold, "warm": warm}


def main() -> None:
    args = tree_options(__doc__.splitlines()[0]).parse_args()
    runs = interleaved(args, run)
    trees = list(runs)
    print("CPU, medians over rounds; per kernel: cold scalar compile s, cold loop build s | warm loop ns/pt, "
          "warm scalar ns/pt")
    specs = list(runs[trees[0]][0]["cold"])
    for spec in specs:
        row = [spec]
        for tree in trees:
            rs = runs[tree]
            med = [statistics.median(r["cold"][spec][k] for r in rs) for k in (0, 1)]
            warm = [statistics.median(r["warm"][spec][k] for r in rs) for k in (0, 1)]
            row.append(f"{med[0]:5.2f} {med[1]:5.2f} | {warm[0]:8.1f} {warm[1]:8.1f}")
        print("  ".join(row))
    for tree in trees:
        rs = runs[tree]
        total = [sum(r["cold"][s][1] for s in specs) for r in rs]
        print(f"{tree}: loops built in {statistics.median(total):.2f} s CPU (median of {len(rs)})")
    values = {json.dumps({s: r["cold"][s][2] for s in specs}) for rs in runs.values() for r in rs}
    print("same loop values (bits) on every tree and round:", len(values) == 1)


if __name__ == "__main__":
    main()
