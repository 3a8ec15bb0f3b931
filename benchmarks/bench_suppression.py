"""Speed of T14 (outlier-score suppression) ε^S against numerical maximisation in numpy/scipy.

Run from the repository root::

    python benchmarks/bench_suppression.py                 # 10^6 points
    python benchmarks/bench_suppression.py --points 100000

Rows (best of R; nothing here is asserted):

(a)  ``bounds.outlier_score_suppression`` on N random (ε, m, M) (validation + ε^S and δ^S kernels, one core);
(a') the ε^S numba ufunc alone (``numeric.kernel``), one core;
(b)  the same scalar kernel as a ``numba.vectorize(target="parallel")`` ufunc on every core;
(c)  numpy, vectorised over the N points: each Λᵢ on a 33-point p-grid, then 40 golden-section steps around
     the best grid point (the usual "maximise numerically" implementation), plus Λ3;
(d)  scipy.optimize.minimize_scalar (bounded Brent) per point on N/1000 points, scaled to N;
and the largest relative difference of (c) below (a') (numerical maximisation can only undershoot).
"""
from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402


def lambdas(p, eps, m, M):
    F = np.exp(eps)
    s1 = p * M + (1 - p) * m
    B = (M + m - p * M) / (2 - p)
    s2 = p * M + (1 - p) * B
    l1 = np.log(F - (F - 1) * s1) + p * M / m + (1 - p) * (1 - m) / (1 - s1) - 1
    l2 = np.log(F - (F - 1) * s2) + p * M / m + (1 - p) * (1 - B) / (1 - M) - 1
    return l1, l2


def numpy_max(eps, m, M, grid=33, steps=40):
    best = np.full(eps.shape, -np.inf)
    ps = np.linspace(0, 1, grid)
    for which in (0, 1):
        vals = np.stack([lambdas(p, eps, m, M)[which] for p in ps])
        i = vals.argmax(axis=0)
        a = ps[np.maximum(i - 1, 0)]
        b = ps[np.minimum(i + 1, grid - 1)]
        g = (math.sqrt(5) - 1) / 2
        for _ in range(steps):
            c, d = b - g * (b - a), a + g * (b - a)
            fc, fd = lambdas(c, eps, m, M)[which], lambdas(d, eps, m, M)[which]
            left = fc > fd
            b = np.where(left, d, b)
            a = np.where(left, a, c)
        best = np.maximum(best, np.maximum(vals.max(axis=0), lambdas((a + b) / 2, eps, m, M)[which]))
    l3 = -np.log(np.exp(-eps) + (1 - np.exp(-eps)) * M) + 1 - (1 - M) / (1 - m)
    return np.maximum(best, l3)


def scipy_max(eps, m, M):
    from scipy.optimize import minimize_scalar

    out = np.empty(eps.size)
    for k in range(eps.size):
        best = -np.inf
        for which in (0, 1):
            f = lambda p: -lambdas(p, eps[k], m[k], M[k])[which]  # noqa: E731
            r = minimize_scalar(f, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12})
            best = max(best, -r.fun, -f(0.0), -f(1.0))
        l3 = -math.log(math.exp(-eps[k]) + (1 - math.exp(-eps[k])) * M[k]) + 1 - (1 - M[k]) / (1 - m[k])
        out[k] = max(best, l3)
    return out


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=10**6)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n = args.points
    rng = np.random.default_rng(7)
    eps = np.exp(rng.uniform(math.log(1e-3), math.log(10.0), n))
    a, b = rng.uniform(0.01, 0.99, (2, n))
    m, M = np.minimum(a, b), np.maximum(a, b)

    import bounds
    from numba import vectorize

    from numeric import kernel
    from numeric.outlier_score import epsilon as scalar

    bounds.outlier_score_suppression(eps[:10], 0.0, m[:10], M[:10])  # compile / load cache
    ufunc = kernel("numeric.outlier_score:epsilon", 4)
    par = vectorize(["float64(float64, float64, float64, float64)"], target="parallel")(scalar)
    par(eps[:10], 0.0 * eps[:10], m[:10], M[:10])
    zeros = np.zeros(n)
    ta, _ = best_of(lambda: bounds.outlier_score_suppression(eps, 1e-6, m, M), args.repeats)
    tk, ours = best_of(lambda: ufunc(eps, zeros, m, M), args.repeats)
    tp, _ = best_of(lambda: par(eps, zeros, m, M), args.repeats)
    tn, theirs = best_of(lambda: numpy_max(eps, m, M), 1)
    k = max(n // 1000, 10)
    ts, _ = best_of(lambda: scipy_max(eps[:k], m[:k], M[:k]), 1)
    ts *= n / k
    under = float(np.max((ours - theirs) / ours))
    print(f"N = {n}, cores = {os.cpu_count()}")
    print(f"(a)  bounds.outlier_score_suppression     {ta:8.3f} s")
    print(f"(a') ε^S ufunc, one core                  {tk:8.3f} s   ({n / tk / 1e6:.2f} M points/s)")
    print(f"(b)  ε^S ufunc, parallel                  {tp:8.3f} s   (×{tk / tp:.2f} vs one core)")
    print(f"(c)  numpy grid + golden section          {tn:8.3f} s   (×{tn / tk:.1f} slower than (a'))")
    print(f"(d)  scipy minimize_scalar per point      {ts:8.1f} s   (scaled from {k}; ×{ts / tk:.0f} slower)")
    print(f"largest relative shortfall of (c) below (a'): {under:.3g} (negative: (c) above, by rounding)")


if __name__ == "__main__":
    main()
