"""Speed of the privacy auditor (issue 22 part 2).

Run from the repository root::

    python benchmarks/bench_audit.py                   # 10^6 trials per input, 10^3 records
    python benchmarks/bench_audit.py --trials 100000

CPU time (``time.process_time``; the machine is shared, wall-clock is not meaningful).  Nothing is asserted.
Rows:

- the goal: a Monte Carlo audit of Poisson sampling (rate 0.1) + a noisy count (discrete Laplace, ε = 1) on
  10³ records, ``trials`` runs per input, with the library's ``poisson_sample`` drawing one chunk of runs per
  call (``batched=True``: the mask of chunk × n independent records reshaped, which *is* chunk independent
  runs for an independent sampler), event chosen on half the runs, Clopper–Pearson bound on the other half;
- the same audit calling ``poisson_sample`` once per run (what an audit of an arbitrary procedure does), on
  trials/20 runs, with the per-run cost;
- the parts: masks alone, the mechanism on the masks, one ``epsilon_lower_bound`` at n = trials/2;
- exact audits: the suppression families at N = 100 and N = 1,000 records.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bounds.audit import NoisyCount, epsilon_lower_bound, monte_carlo_audit, scenario  # noqa: E402
from bounds.procedures import poisson_guarantee, poisson_sample  # noqa: E402


def cpu(f):
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=1_000_000)
    ap.add_argument("--records", type=int, default=1_000)
    args = ap.parse_args()
    n, rate, eps, T = args.records, 0.1, 1.0, args.trials
    d0, d1 = np.zeros(n - 1), np.zeros(n)
    mech = NoisyCount(eps)
    claim = poisson_guarantee(eps, 0.0, rate)
    batched = lambda d, rng, size: poisson_sample(size * len(d), rate, rng=rng).reshape(size, len(d))  # noqa
    per_run = lambda d, rng: poisson_sample(d, rate, rng=rng)  # noqa: E731

    print(f"Monte Carlo audit, Poisson({rate}) + noisy count (ε = {eps}), {n} records, CPU seconds")
    s, r = cpu(lambda: monte_carlo_audit(batched, mech, d0, d1, claim=claim, trials=T, seed=1, batched=True))
    print(f"  batched sampler, {T:>9,} runs per input: {s:7.2f} s  ({1e9 * s / (2 * T * n):.2f} ns per record-run)"
          f"  ε ≥ {r.epsilon:.4f} vs certified {claim.epsilon:.4f}: {r.verdict}")
    small = max(T // 20, 2)
    s2, r2 = cpu(lambda: monte_carlo_audit(per_run, mech, d0, d1, claim=claim, trials=small, seed=1))
    print(f"  one call per run,  {small:>9,} runs per input: {s2:7.2f} s  ({1e6 * s2 / (2 * small):.1f} µs per run)")
    rng = np.random.default_rng(2)
    chunk = 10_000
    s3, masks = cpu(lambda: batched(d1, rng, chunk))
    s4, _ = cpu(lambda: mech.sample(masks, d1, rng))
    print(f"  parts per {chunk:,} runs: masks {1e3 * s3:.1f} ms, mechanism {1e3 * s4:.1f} ms")
    s5, _ = cpu(lambda: epsilon_lower_bound(T // 4, T // 2, T // 5, T // 2))
    print(f"  epsilon_lower_bound at n = {T // 2:,}: {1e3 * s5:.1f} ms")
    print("exact audits (mpmath, 50 digits)")
    for name, key in (("suppression-copies", "copies"), ("suppression-star", "leaves")):
        for N in (100, 1_000):
            sc = scenario(name, **{key: N})
            s6, r6 = cpu(sc.exact)
            print(f"  {name:<19} N = {N:>5}: {s6:6.2f} s  exact ε = {r6.epsilon:.4f} vs ε^S = {sc.claim.epsilon:.4f}")


if __name__ == "__main__":
    main()
