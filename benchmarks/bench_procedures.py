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

Per call (issue 20 item 4: the procedures are called 10⁴–10⁶ times by the audits and their tests)::

    git archive main | tar -x -C /tmp/h18_before        # the tree to compare with
    python benchmarks/bench_procedures.py --per-call --before /tmp/h18_before --rounds 3

µs per call of each procedure on the small inputs the audits use, and CPU seconds of whole Monte Carlo
audits, for the tree given by ``--before`` and for this one, each measured in a fresh subprocess (same code:
this file's ``per_call``), rounds interleaved, medians; ratio = before / now.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
if "--tree" in sys.argv:  # --per-call-json --tree DIR: measure the bounds package of DIR (the tree before)
    sys.path.insert(0, sys.argv[sys.argv.index("--tree") + 1])
elif str(REPO) not in sys.path:
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


def per_call() -> dict[str, float]:
    """µs per call (CPU) of each procedure on small inputs, and CPU seconds of whole audits — public API only,
    so that the same code measures an older tree."""
    from bounds.audit import scenario

    g = np.random.default_rng(0)
    d10, d37 = np.zeros(10), np.zeros(37)
    metric = P.AbsoluteDifference(0.0, 1.0)
    copies = np.r_[np.zeros(20), 1.0]
    ralloc, bins = P.RandomAllocationBatches(2, 5, selected=3), P.BallsAndBinsBatches(3, 5)
    own_scores = scenario("self-exclusion", scores=lambda d, metric, m, M: np.full(len(d), 0.1) if len(d) == 1
                          else np.array([0.1, 1 / 3]))
    calls = {
        "poisson_sample(10, 0.5)": lambda: P.poisson_sample(d10, 0.5, rng=g),
        "poisson_sample(37 records, 0.1)": lambda: P.poisson_sample(d37, 0.1, rng=g),
        "poisson_sample(6, per-record rates)": lambda: P.poisson_sample(6, [0.1, 0.2, 0.3, 0.5, 0.9, 1.0], rng=g),
        "sample_without_replacement(10, 5)": lambda: P.sample_without_replacement(d10, 5, rng=g),
        "sample_with_replacement(5, 8)": lambda: P.sample_with_replacement(5, 8, rng=g),
        "suppress_outliers(21 records)": lambda: P.suppress_outliers(copies, metric, 0.1, 0.5, rng=g),
        "suppress_outliers([0, .5, 1] list)": lambda: P.suppress_outliers([0.0, 0.5, 1.0], metric, 0.1, 0.5, rng=g),
        "RandomAllocationBatches(2, 5, 3) epoch": lambda: list(ralloc.epoch(g)),
        "BallsAndBinsBatches(3, 5) epoch": lambda: list(bins.epoch(g)),
        "scenario procedure with user scores": lambda: own_scores.procedure(own_scores.dataset_1, g),
    }
    out = {}
    for name, fn in calls.items():
        fn()
        k = 20_000
        t = time.process_time()
        for _ in range(k):
            fn()
        out[name] = (time.process_time() - t) / k * 1e6
    audits = {"audit poisson-rr, 10^5 runs/input (s)": (scenario("poisson-rr", epsilon=2.0, rate=0.5, n=10), 100_000),
              "audit swor-rr, 10^5 runs/input (s)": (scenario("swor-rr", epsilon=2.0, m=5, n=10), 100_000),
              "audit suppression-copies, 2*10^4 runs/input (s)": (scenario("suppression-copies"), 20_000)}
    for name, (sc, trials) in audits.items():
        t = time.process_time()
        sc.monte_carlo(trials=trials, seed=0)
        out[name] = time.process_time() - t
    return out


def per_call_table(before: str, rounds: int) -> None:
    import json
    import subprocess

    runs: dict[str, list] = {"before": [], "now": []}
    for _ in range(rounds):  # interleaved, each in a fresh process (no cache carried between rounds)
        for label, extra in (("before", ["--tree", before]), ("now", [])):
            text = subprocess.run([sys.executable, __file__, "--per-call-json", *extra], check=True,
                                  capture_output=True, text=True, cwd=REPO).stdout
            runs[label].append(json.loads(text.strip().splitlines()[-1]))
    print(f"per call, CPU, medians of {rounds} interleaved rounds (before = {before})")
    print(f"{'':48s} {'before':>10s} {'now':>10s} {'ratio':>7s}")
    for name in runs["now"][0]:
        b = statistics.median(r[name] for r in runs["before"])
        n = statistics.median(r[name] for r in runs["now"])
        unit = "" if name.endswith("(s)") else " µs"
        print(f"{name:48s} {b:10.2f} {n:10.2f} {b / n:6.1f}×{unit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=10 ** 7)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-adult", action="store_true", help="skip the 32,561 × 6 Euclidean scores")
    parser.add_argument("--per-call", action="store_true", help="µs per call, --before tree vs this one")
    parser.add_argument("--before", default="/tmp/h18_before", help="tree to compare with (--per-call)")
    parser.add_argument("--per-call-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.per_call_json:
        import json
        print(json.dumps(per_call()))
        return
    if args.per_call:
        per_call_table(args.before, args.rounds)
        return
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
