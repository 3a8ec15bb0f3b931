"""Speed of the procedures (issue 22 part 1): samplers and outlier scores, side by side with naive numpy.

Run from the repository root::

    python benchmarks/bench_procedures.py              # 10^7 records for the samplers
    python benchmarks/bench_procedures.py --records 1000000 --rounds 3

CPU time (``time.process_time``, medians of interleaved rounds; the machine is shared, wall-clock is not
meaningful).  Nothing here is asserted.  Rows:

- Poisson masks: ``poisson_sample`` (exact Bernoulli, one 64-bit word per record) with one rate and with
  per-record rates, against numpy's ``rng.random(n) < p`` (whose keep probability is ⌈p·2⁵³⌉/2⁵³, not p);
- ``sample_without_replacement`` (n, n/100) against ``rng.choice(..., replace=False)``;
  ``sample_with_replacement`` (n, n) against ``np.bincount(rng.integers(...))``;
- one epoch of ``ShuffledBatches`` / ``BallsAndBinsBatches`` (batches of 256) against ``rng.permutation``;
- outlier scores: ``AbsoluteDifference`` on n one-dimensional records (sort + prefix sums), ``Discrete`` on
  n small integers (counts), ``Euclidean`` on Adult's 32,561 × 6 records scaled with their public ranges
  (compiled O(n²) loop; the first call's compilation reported separately), and the O(n²) numpy
  "direct" sum on n = 4,000 one-dimensional records for scale.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bounds import procedures as P  # noqa: E402

ADULT = REPO / "bounds" / "experiments" / "data" / "adult_clustering.csv"
ADULT_LO = np.array([0, 0, 1, 0, 0, 0.0])
ADULT_HI = np.array([125, 2227058, 16, 149999, 6534, 100.0])


def cpu(fn, rounds):
    times = []
    for _ in range(rounds):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=10 ** 7)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-adult", action="store_true", help="skip the 32,561 × 6 Euclidean scores")
    args = parser.parse_args()
    n, R = args.records, args.rounds
    g = np.random.default_rng(0)
    rates = g.random(n)

    rows = [
        ("poisson_sample, one rate", lambda: P.poisson_sample(n, 0.01, rng=g),
         "numpy rng.random(n) < p", lambda: g.random(n) < 0.01, n),
        ("poisson_sample, per-record rates", lambda: P.poisson_sample(n, rates, rng=g),
         "numpy rng.random(n) < rates", lambda: g.random(n) < rates, n),
        ("sample_without_replacement(n, n/100)", lambda: P.sample_without_replacement(n, n // 100, rng=g),
         "numpy choice(replace=False), unsorted", lambda: g.choice(n, n // 100, replace=False), n),
        ("sample_with_replacement(n, n)", lambda: P.sample_with_replacement(n, n, rng=g),
         "numpy bincount(integers)", lambda: np.bincount(g.integers(0, n, n), minlength=n), n),
        ("ShuffledBatches epoch (b = 256)", lambda: [None for _ in P.ShuffledBatches(n - n % 256, 256).epoch(g)],
         "numpy permutation", lambda: g.permutation(n), n),
        ("BallsAndBinsBatches epoch (n/256 steps)", lambda: [None for _ in P.BallsAndBinsBatches(n, n // 256).epoch(g)],
         "numpy permutation", lambda: g.permutation(n), n),
    ]
    print(f"samplers, n = {n:,} records, CPU time (median of {R}); records per second")
    print(f"{'procedure':44s} {'CPU s':>8s} {'rec/s':>10s}   {'numpy baseline':40s} {'CPU s':>8s}  ratio")
    for name, fn, bname, bfn, count in rows:
        fn(), bfn()  # warm up
        t = cpu(fn, R)
        tb = cpu(bfn, R)
        print(f"{name:44s} {t:8.3f} {count / t:10.3g}   {bname:40s} {tb:8.3f}  {t / tb:5.2f}×")

    m1 = min(n, 10 ** 6)
    x = g.uniform(0, 125, m1)
    ints = g.integers(0, 126, m1)
    print(f"\noutlier scores (CPU s, median of {R})")
    t = cpu(lambda: P.outlier_scores(x, P.AbsoluteDifference(0, 125), 0.1, 0.9), R)
    print(f"AbsoluteDifference, n = {m1:,} (sort + prefix sums)       {t:8.3f}")
    t = cpu(lambda: P.outlier_scores(ints, P.Discrete(), 0.1, 0.9), R)
    print(f"Discrete, n = {m1:,} small integers (counts)          {t:8.3f}")
    small = x[:4000]
    t = cpu(lambda: P.outlier_scores(small, P.AbsoluteDifference(0, 125), 0.1, 0.9), R)
    tb = cpu(lambda: 0.1 + 0.8 * (np.abs(small[:, None] - small[None, :]) / 125).mean(axis=1), R)
    print(f"AbsoluteDifference n = 4,000: {t:.4f} s; numpy direct O(n²): {tb:.4f} s ({tb / t:.0f}× slower)")
    if not args.no_adult and ADULT.exists():
        z = 2 * (np.loadtxt(ADULT, delimiter=",", skiprows=1) - ADULT_LO) / (ADULT_HI - ADULT_LO) - 1
        metric = P.Euclidean(2 * math.sqrt(6))
        t0 = time.process_time()
        P.outlier_scores(z[:64], metric, 0.1, 0.9)
        first = time.process_time() - t0
        t = cpu(lambda: P.outlier_scores(z, metric, 0.1, 0.9), max(1, R // 2))
        pairs = z.shape[0] ** 2
        print(f"Euclidean, Adult {z.shape[0]:,} × {z.shape[1]} (all pairs): {t:.2f} s ({t / pairs * 1e9:.2f} ns/pair); "
              f"first call (compile or cache load): {first:.2f} s")


if __name__ == "__main__":
    main()
