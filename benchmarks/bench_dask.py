"""A T1 grid larger than the numpy run, through dask, against numpy on a grid 10× smaller: CPU time, wall time
and peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) of each run, each in its own fresh
interpreter (so one run's peak memory is not the other's), after a warm-up call that loads the kernels.

    PYTHONPATH=. python benchmarks/bench_dask.py [--points 100000000] [--chunk 1000000] [--scheduler threads]

The grid is ε (a dask column, ``da.linspace``, generated block by block) × rate (a numpy row of 10⁴ values)
with δ = 1e-7, evaluated by ``bounds.poisson_subsampling``; the dask run reduces both outputs to their maxima
and the count of points with ε ≤ 0.05 (nothing of the grid is held in memory at once), the numpy run
materialises its grid.  Nothing here is asserted in a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
import bounds
kind, points, chunk, scheduler = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
columns = 10_000
rows = points // columns
rate = np.geomspace(1e-5, 1.0, columns)
bounds.poisson_subsampling(np.array([1.0, 2.0]), 1e-7, np.array([0.1, 0.2]))  # load the kernels
if kind == "dask":
    import dask, dask.array as da
    dask.config.set(scheduler=scheduler)
    bounds.poisson_subsampling(da.ones(2), 1e-7, 0.1).epsilon.compute()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r0, w0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
if kind == "dask":
    eps = da.linspace(1e-3, 10.0, rows, chunks=max(1, chunk // columns)).reshape(rows, 1)
    g = bounds.poisson_subsampling(eps, 1e-7, rate)
    top_eps, top_delta, small = dask.compute(g.epsilon.max(), g.delta.max(), (g.epsilon <= 0.05).sum())
else:
    eps = np.linspace(1e-3, 10.0, rows).reshape(rows, 1)
    g = bounds.poisson_subsampling(eps, 1e-7, rate)
    top_eps, top_delta, small = g.epsilon.max(), g.delta.max(), (g.epsilon <= 0.05).sum()
w1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(json.dumps(dict(kind=kind, points=rows * columns, cpu=cpu, wall=w1 - w0, peak_mb=r1.ru_maxrss / 1024,
                      base_mb=base / 1024, top_eps=float(top_eps), top_delta=float(top_delta), small=int(small))))
"""


def run(kind: str, points: int, chunk: int, scheduler: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(points), str(chunk), scheduler],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10 ** 8)
    parser.add_argument("--chunk", type=int, default=10 ** 6)
    parser.add_argument("--scheduler", default="threads", help="dask scheduler: threads or synchronous")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    print(f"{'run':<34} {'points':>11} {'CPU s':>8} {'wall s':>8} {'ns/pt CPU':>10} {'peak MB':>9} {'before MB':>10}")
    for _ in range(args.rounds):  # interleaved: numpy, dask, numpy, dask...
        for kind, points in (("numpy", args.points // 10), ("dask", args.points)):
            r = run(kind, points, args.chunk, args.scheduler)
            label = "numpy" if kind == "numpy" else f"dask ({args.scheduler}, chunks {args.chunk:.0e})"
            print(f"{label:<34} {r['points']:>11.2e} {r['cpu']:>8.2f} {r['wall']:>8.2f} "
                  f"{1e9 * r['cpu'] / r['points']:>10.1f} {r['peak_mb']:>9.0f} {r['base_mb']:>10.0f}"
                  f"   max ε {r['top_eps']:.6g}, max δ {r['top_delta']:.3g}, #(ε ≤ 0.05) {r['small']}")


if __name__ == "__main__":
    main()
