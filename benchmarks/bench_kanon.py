"""Speed and accuracy of d(k, β, ε) (SPEC T15) against the 50-digit mpmath reference.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_kanon.py          # ~1-2 min (the mpmath reference dominates)

Measured: (a) the full grid k = 20, β ∈ {0.01, 0.05, 0.1, …, 0.5}, ε ∈ {0.1, 0.2, …, 3} (points with
ε < −ln(1 − β) are outside the theorem and skipped) through the public ``safe_k_anonymization_delta``
(one vectorised call, after a warm-up), and the same points through ``proofs_checks.kanon_checks.reference``;
(b) single values up to k = 10³ where d is a normal float (for k ≥ 10³ far from the threshold
ε = −ln(1 − β), and for every k = 10⁴ tried, d underflows to 1.5e-323: such a row times only the call
overhead and is labelled so).  Reported: times, the speed ratio, and the peak relative error.
Nothing is asserted.
"""
from __future__ import annotations

import math
import time

import mpmath as mp
import numpy as np

import bounds
from proofs_checks.kanon_checks import reference


def main() -> None:
    betas = np.array([0.01, 0.05] + [round(0.1 * i, 1) for i in range(1, 6)])
    eps = np.round(np.arange(0.1, 3.01, 0.1), 1)
    B, E = np.meshgrid(betas, eps, indexing="ij")
    ok = E >= -np.log1p(-B) * (1 + 1e-12)
    b, e = B[ok], E[ok]
    bounds.safe_k_anonymization_delta(20, 0.2, 2.0)  # warm-up (compile / load cache)
    t0 = time.perf_counter()
    d = bounds.safe_k_anonymization_delta(20.0, b, e)
    t_kernel = time.perf_counter() - t0
    t0 = time.perf_counter()
    refs = [reference(20.0, float(x), float(y))[0] for x, y in zip(b, e)]
    t_ref = time.perf_counter() - t0
    rel = max(abs(float((mp.mpf(v) - r) / r)) for v, r in zip(d, refs) if r > 1e-300)
    print(f"(a) grid k = 20: {len(b)} points; kernel {t_kernel * 1e3:.2f} ms, mpmath {t_ref:.1f} s, "
          f"ratio {t_ref / t_kernel:.0f}x; peak relative error {rel:.2e}")
    for k, beta, epsilon in [(100, 0.1, 1.0), (1000, 0.1, -math.log1p(-0.1) + 1e-3), (1000, 0.3, 0.4),
                             (1000, 0.01, -math.log1p(-0.01) + 1e-3), (10000, 0.1, -math.log1p(-0.1) + 1e-4)]:
        t0 = time.perf_counter()
        v = bounds.safe_k_anonymization_delta(k, beta, epsilon)
        tk = time.perf_counter() - t0
        t0 = time.perf_counter()
        r = reference(float(k), beta, epsilon)[0]
        tr = time.perf_counter() - t0
        err = abs(float((mp.mpf(v) - r) / r)) if r > 1e-300 else float("nan")
        note = "" if v > 1e-300 else "  [d underflows: this row times the call overhead only]"
        print(f"(b) k = {k}, β = {beta}, ε = {epsilon:.6g}: d = {v:.6g} (ref {mp.nstr(r, 8)}), kernel "
              f"{tk * 1e3:.2f} ms, mpmath {tr:.2f} s, ratio {tr / tk:.0f}x, rel err {err:.1e}{note}")


if __name__ == "__main__":
    main()
