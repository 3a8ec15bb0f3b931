"""Composition FFTs (issue 20, item 4): the balls-and-bins compositions of the test suite and a Poisson squaring
route, on this tree and on a before-tree, side by side in one run: CPU seconds (time.process_time of a child
process per (tree, case), the children run one after another, so both see the same load), the long-double
FFT points transformed (Σ N over numpy's rfft/irfft calls: a cost that does not depend on the load), the
sandwiches of both trees and the ratio.

    git archive <before-commit> | tar -x -C /tmp/h19_before
    PYTHONPATH=$PWD python benchmarks/bench_composition_ffts.py [--before /tmp/h19_before] [--repeats 2]
    PYTHONPATH=$PWD python benchmarks/bench_composition_ffts.py --corner   # σ = 0.35, T = 1000 only

Each child builds one composition and asks δ at the listed ε (what the tests do); a first untimed child per
tree warms the numba cache.  CPU time of the faster of ``--repeats`` runs.  Nothing here is asserted in a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

# (label, python expression of the composition, ε values)
CASES = [
    ("balls-and-bins σ=0.35 T=8 E=1", "bounds.compose([(balls_and_bins(g(0.35), 8), 1)], tolerance=1e-2)",
     [1.0, 2.0, 4.0]),
    ("balls-and-bins σ=0.35 T=4 E=2", "bounds.compose([(balls_and_bins(g(0.35), 4), 2)], tolerance=1e-2)", [2.0]),
    ("balls-and-bins σ=0.4 T=8 E=1", "bounds.compose([(balls_and_bins(g(0.4), 8), 1)], tolerance=1e-2)",
     [1.0, 2.0, 4.0]),
    ("balls-and-bins σ=1 T=10 E=3", "bounds.compose([(balls_and_bins(g(1.0), 10), 3)], tolerance=1e-2)", [1.5]),
    ("Poisson q=0.01 σ=1, 3000 steps (squaring)",
     "bounds.compose([(bounds.poisson_sampled(g(1.0), 0.01), 3000)], tolerance=1e-3)", [1.0]),
]

# --corner: the issue-21 corner, ε at δ = 1e-5 (≈ 20–40 s per child)
CORNER = [("balls-and-bins σ=0.35 T=1000 E=1, ε(1e-5)",
           "bounds.compose([(balls_and_bins(g(0.35), 1000), 1)], tolerance=1e-2)", None)]

CHILD = """
import json, resource, sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
import bounds
from bounds.samplers import balls_and_bins
g = bounds.Gaussian.from_noise_multiplier
expr, eps = sys.argv[1], json.loads(sys.argv[2])
points = {"ld": 0, "f64": 0}  # transform lengths summed over the rfft/irfft calls (a load-independent cost)
raw_rfft, raw_irfft = np.fft.rfft, np.fft.irfft

def count(x, n, inverse):
    ld = x.dtype in (np.longdouble, np.clongdouble) and np.finfo(np.longdouble).eps < 2.0 ** -60
    points["ld" if ld else "f64"] += int(n) if n is not None else (2 * (len(x) - 1) if inverse else len(x))

def rfft(x, n=None, *a, **k):
    count(np.asarray(x), n, False)
    return raw_rfft(x, n, *a, **k)

def irfft(x, n=None, *a, **k):
    count(np.asarray(x), n, True)
    return raw_irfft(x, n, *a, **k)
np.fft.rfft, np.fft.irfft = rfft, irfft
t = time.process_time()
s = eval(expr).delta(eps) if eps is not None else eval(expr).epsilon([1e-5])
cpu = time.process_time() - t
print(json.dumps({"cpu": cpu, "lower": [float(x) for x in s.lower], "upper": [float(x) for x in s.upper],
                  "points": points, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def run(tree: str, expr: str, eps: list) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", CHILD, expr, json.dumps(eps)], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="/tmp/h19_before")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--corner", action="store_true", help="only the σ = 0.35, T = 1000 corner (peak RSS too)")
    args = ap.parse_args()
    cases = CORNER if args.corner else CASES
    now = os.getcwd()
    trees = [("before", args.before), ("now", now)]
    for _, tree in trees:  # warm the numba caches of both trees (balls-and-bins and Poisson kernels)
        run(tree, CASES[3][1], CASES[3][2])
        run(tree, CASES[-1][1], [1.0])
    print(f"{'case':44s} {'before s':>9s} {'now s':>8s} {'ratio':>6s}  {'long-double FFT points':>22s}  "
          "max |Δ lower|, |Δ upper|  (width now)")
    for label, expr, eps in cases:
        res = {name: [] for name, _ in trees}
        for _ in range(args.repeats):
            for name, tree in trees:  # interleaved
                res[name].append(run(tree, expr, eps))
        b = min(r["cpu"] for r in res["before"])
        n = min(r["cpu"] for r in res["now"])
        rb, rn = res["before"][0], res["now"][0]
        dl = max(abs(x - y) for x, y in zip(rb["lower"], rn["lower"]))
        du = max(abs(x - y) for x, y in zip(rb["upper"], rn["upper"]))
        w = max(u - lo for lo, u in zip(rn["lower"], rn["upper"]))
        pb, pn = rb["points"]["ld"], rn["points"]["ld"]
        pts = f"{pb / 1e6:.1f}M → {pn / 1e6:.1f}M" if pb else "— (binary64)"
        print(f"{label:44s} {b:9.2f} {n:8.2f} {b / n:6.2f}  {pts:>22s}  {dl:.2e}, {du:.2e}  ({w:.2e})  "
              f"peak RSS {rb['rss_mb']} → {rn['rss_mb']} MB")


if __name__ == "__main__":
    main()
