"""Benchmark certified composition (issue 12) side by side with dp_accounting's PLD accountant and
prv_accountant, CPU time (time.process_time), interleaved repeats, ratios from one run.

    PYTHONPATH=. python benchmarks/bench_composition.py            # 1000 steps, q = 0.01, σ = 1, δ = 1e-5
    PYTHONPATH=. python benchmarks/bench_composition.py --large    # also 1e5 / 1e6 steps and 10 phases

Peers are optional (skipped if not installed); nothing here is asserted in a test.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings

sys.path.insert(0, ".")
warnings.filterwarnings("ignore")

import bounds  # noqa: E402


def ours(steps=1000, q=0.01, sigma=1.0, delta=1e-5, tolerance=1e-3):
    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(sigma), q)
    s = bounds.compose([(step, steps)], tolerance=tolerance).epsilon(delta)
    return s.lower, s.upper


def dp_accounting_pld(steps=1000, q=0.01, sigma=1.0, delta=1e-5):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    e = acc.get_epsilon(delta)
    return e, e


def prv(steps=1000, q=0.01, sigma=1.0, delta=1e-5):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    mech = PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=q)
    acc = PRVAccountant(prvs=[mech], max_self_compositions=[steps], eps_error=1e-3, delta_error=1e-10)
    lo, _, hi = acc.compute_epsilon(delta=delta, num_self_compositions=[steps])
    return lo, hi


def timed(f, *a, **k):
    t = time.process_time()
    r = f(*a, **k)
    return time.process_time() - t, r


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large", action="store_true")
    args = parser.parse_args()
    ours(steps=10)  # compile / load the numba cache
    runners = {"ampbounds (certified)": ours, "dp_accounting PLD": dp_accounting_pld, "prv_accountant": prv}
    best: dict[str, float] = {}
    result: dict[str, tuple] = {}
    for _ in range(args.repeats):  # interleaved
        for name, f in runners.items():
            try:
                t, r = timed(f)
            except ImportError:
                continue
            best[name] = min(best.get(name, 1e9), t)
            result[name] = r
    print("1000 steps, q = 0.01, σ = 1, ε at δ = 1e-5 (CPU seconds, best of %d)" % args.repeats)
    base = best["ampbounds (certified)"]
    for name in best:
        lo, hi = result[name]
        print(f"  {name:24s} {best[name]:7.3f} s  (×{best[name] / base:5.2f} of ours)  ε ∈ [{lo:.6f}, {hi:.6f}] "
              f"width {hi - lo:.2e}")
    if args.large:
        for steps, q, sigma in ((100_000, 0.001, 1.0), (1_000_000, 0.0001, 1.0)):
            t, r = timed(ours, steps=steps, q=q, sigma=sigma)
            print(f"  ours, {steps} steps, q = {q}, σ = {sigma}: {t:.2f} s, ε ∈ [{r[0]:.6f}, {r[1]:.6f}] "
                  f"width {r[1] - r[0]:.2e}")
        phases = [(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(0.8 + 0.1 * i), 0.01 + 0.002 * i), 1000)
                  for i in range(10)]
        t, s = timed(lambda: bounds.compose(phases).epsilon(1e-5))
        print(f"  ours, 10 phases × 1000 steps: {t:.2f} s, ε ∈ [{s.lower:.6f}, {s.upper:.6f}] width {s.upper - s.lower:.2e}")
        # issue 19: a schedule of 100 distinct steps, and a 10⁵-point array query on a built composition
        sched = [(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(0.8 + i / 200), 0.01 + i / 10000), 10)
                 for i in range(100)]
        t, s = timed(lambda: bounds.compose(sched).delta(1.0))
        print(f"  ours, 100 distinct steps × 10: {t:.2f} s, δ(1) ∈ [{s.lower:.6e}, {s.upper:.6e}]")
        import numpy as np

        comp = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01), 1000)])
        comp.delta(1.0)
        t, _ = timed(comp.delta, np.linspace(0.0, 3.0, 100_000))
        print(f"  ours, δ at 10⁵ points on a built composition: {t:.2f} s")
        print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
