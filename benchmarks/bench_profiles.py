"""Benchmark SPEC T9/T10: gaussian_profile on 10⁶ points against the naive scipy.stats.norm.cdf formula, and
gaussian_sigma against a scipy brentq calibrator (absolute tolerance, the common implementation).  Also
reports the worst relative error of the naive routes at a few points (speed is never asserted in tests).

    PYTHONPATH=. python benchmarks/bench_profiles.py
"""
from __future__ import annotations

import time

import numpy as np
from scipy import optimize, stats

import bounds


def naive_profile(epsilon, theta):
    return stats.norm.cdf(theta / 2 - epsilon / theta) - np.exp(epsilon) * stats.norm.cdf(-theta / 2 - epsilon / theta)


def brentq_sigma(epsilon, delta):
    return optimize.brentq(lambda s: naive_profile(epsilon, 1.0 / s) - delta, 1e-3, 1e4, xtol=1e-12)


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    e = rng.uniform(0, 10, 10**6)
    t = np.exp(rng.uniform(np.log(0.1), np.log(10), 10**6))
    bounds.gaussian_profile(e[:10], t[:10])  # compile / load the cache
    ours = best(lambda: bounds.gaussian_profile(e, t))
    scipy_t = best(lambda: naive_profile(e, t))
    print(f"gaussian_profile, 1e6 points: ampbounds {ours:.3f} s, scipy norm.cdf formula {scipy_t:.3f} s "
          f"(ratio {ours / scipy_t:.2f})")
    pairs = [(eps, d) for eps in (0.1, 1.0, 5.0) for d in (1e-3, 1e-5, 1e-8)]
    bounds.gaussian_sigma(1.0, 1e-5)
    ours = best(lambda: [bounds.gaussian_sigma(a, b) for a, b in pairs])
    theirs = best(lambda: [brentq_sigma(a, b) for a, b in pairs])
    print(f"gaussian_sigma, {len(pairs)} calibrations: ampbounds {ours * 1e3:.2f} ms, brentq {theirs * 1e3:.2f} ms "
          f"(ratio {ours / theirs:.2f})")
    for eps, d in ((1.0, 1e-15), (5.0, 1e-12)):
        try:
            s = optimize.brentq(lambda x: naive_profile(eps, 1.0 / x) - d, 1e-2, 1e3, xtol=1e-12)
            print(f"brentq (ε={eps}, δ={d}): σ = {s!r}, delivered/target = "
                  f"{bounds.gaussian_profile(eps, 1.0 / s) / d:.3g}; ampbounds σ = {bounds.gaussian_sigma(eps, d)!r}")
        except ValueError as exc:
            print(f"brentq (ε={eps}, δ={d}) failed: {exc}")


def naive_subsampled_remove(epsilon, theta, q):
    """SPEC T11 Gaussian REMOVE in its typeset Φ form with scipy (what a direct implementation does)."""
    eq = np.log1p(np.expm1(epsilon) / q)
    return (q * stats.norm.cdf(theta / 2 - eq / theta)
            - (np.expm1(epsilon) + q) * stats.norm.cdf(-theta / 2 - eq / theta))


def bench_subsampled() -> None:
    """SPEC T11: subsampled_gaussian_profile (REMOVE, double-double argument) against the scipy Φ form."""
    rng = np.random.default_rng(1)
    e = rng.uniform(0, 10, 10**6)
    t = np.exp(rng.uniform(np.log(0.1), np.log(10), 10**6))
    q = np.exp(rng.uniform(np.log(1e-6), 0.0, 10**6))
    bounds.subsampled_gaussian_profile(e[:10], t[:10], q[:10], direction="remove")
    ours = best(lambda: bounds.subsampled_gaussian_profile(e, t, q, direction="remove"))
    scipy_t = best(lambda: naive_subsampled_remove(e, t, q))
    both = best(lambda: bounds.subsampled_gaussian_profile(e, t, q), repeat=1)
    print(f"subsampled_gaussian_profile (remove), 1e6 points: ampbounds {ours:.3f} s, scipy Φ form {scipy_t:.3f} s "
          f"(ratio {ours / scipy_t:.2f}); direction='both' {both:.3f} s")
    bounds.subsampled_gaussian_profile_inverse(1e-5, 1.0, 0.01)
    inv = best(lambda: bounds.subsampled_gaussian_profile_inverse(np.full(1000, 1e-5), t[:1000], q[:1000]), repeat=1)
    print(f"subsampled_gaussian_profile_inverse ('both'), 1000 points: {inv * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
    bench_subsampled()
