"""Samplers of DP-SGD batches (issue 21): certified ε sandwiches, width and CPU time, side by side.

Run: ``PYTHONPATH=$PWD python benchmarks/bench_samplers.py`` (CPU seconds from time.process_time: wall
clock on a shared machine is polluted by other processes).  Each case is run in a fresh Composition (the
numba kernels are warmed up first, so compile time is not counted).
"""
import time
import warnings

import bounds
from bounds.samplers import balls_and_bins, random_allocation, shuffled

CASES = [  # (σ, T, E, δ's, target width, target CPU s)
    (1.0, 10_000, 100, (1e-6,), 0.01, 30.0),
    (0.8, 100, 10, (1e-6,), 0.005, 10.0),
    (0.68, 196, 60, (1e-5,), 1e-3, 10.0),  # CIFAR-10 (b = 256) over 60 epochs: the calibration regime
    (0.35, 1000, 1, (1e-5, 1e-6), None, 60.0),  # the small-σ corner (tail split, Lemma C of the proof note)
]


def main():
    g = bounds.Gaussian.from_noise_multiplier(1.0)
    bounds.compose([(balls_and_bins(g, 3), 2)], tolerance=1e-2).epsilon(1e-3)  # warm-up (compilation)
    for sigma, T, E, deltas, width, cpu in CASES:
        t = time.process_time()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tol = width if width else 1e-2
                comp = bounds.compose([(balls_and_bins(bounds.Gaussian.from_noise_multiplier(sigma), T), E)],
                                      tolerance=tol)
                for delta in deltas:
                    e = comp.epsilon(delta)
                    used = time.process_time() - t
                    print(f"balls-and-bins σ={sigma} T={T} E={E} δ={delta}: ε ∈ [{e.lower:.5f}, {e.upper:.5f}] "
                          f"width {e.upper - e.lower:.2e} (target {width}) CPU {used:.1f} s so far (target {cpu} s)")
        except ValueError as exc:
            print(f"balls-and-bins σ={sigma} T={T} E={E}: not supported: {exc}")
    # shuffling, lower side: 50 reshuffled epochs of 100 steps (target ≤ 5 s), and the Poisson claim beside it
    g = bounds.Gaussian.from_noise_multiplier(1.0)
    t = time.process_time()
    s = bounds.compose([(shuffled(g, 100), 50)]).epsilon(1e-5)
    used = time.process_time() - t
    t = time.process_time()
    p = bounds.compose([(bounds.poisson_sampled(g, 0.01), 5000)], tolerance=1e-2).epsilon(1e-5)
    print(f"shuffle zero-out σ=1 T=100 E=50 δ=1e-5: ε ≥ {s.lower:.4f} (cyclic upper {s.upper:.3f}) CPU {used:.1f} s "
          f"(target 5 s); Poisson q=0.01: [{p.lower:.4f}, {p.upper:.4f}] CPU {time.process_time() - t:.1f} s")
    t = time.process_time()
    r = bounds.compose([(random_allocation(bounds.Gaussian.from_noise_multiplier(2.0), 100, selected=10), 1)]).epsilon(1e-6)
    print(f"random allocation σ=2 k=10 T=100 δ=1e-6: ε ∈ [{r.lower:.5f}, {r.upper:.5f}] (PR #414: 2.4265) CPU "
          f"{time.process_time() - t:.1f} s")


if __name__ == "__main__":
    main()
