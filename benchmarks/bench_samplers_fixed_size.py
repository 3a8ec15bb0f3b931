"""Fixed-size batches drawn each step (issue 21 item 4): CPU time and certified ε width, side by side with Poisson
accounting of the same σ, rate and step count (one run; CPU seconds by time.process_time — wall clock is
polluted by other jobs on shared machines).  Run: PYTHONPATH=$PWD python benchmarks/bench_samplers_fixed_size.py"""
import time
import warnings

import bounds
from bounds.samplers import fixed_size_sampled

warnings.filterwarnings("ignore", message="compose: certified")

CASES = [  # (σ, b, n, steps, δ)
    (1.0, 100, 10_000, 100, 1e-5),
    (2.0, 10, 1_000, 1_000, 1e-6),
    (1.0, 256, 50_000, 60 * 196, 1e-5),  # CIFAR-10-like: 60 epochs of batch 256
]


def run(label, steps_list, delta):
    t = time.process_time()
    s = bounds.compose(steps_list, tolerance=1e-2).epsilon(delta)
    return label, s, time.process_time() - t


if __name__ == "__main__":
    for sigma, b, n, steps, delta in CASES:
        g = bounds.Gaussian.from_noise_multiplier(sigma)
        print(f"σ = {sigma}, b = {b}, n = {n}, {steps} steps, δ = {delta}")
        rows = [run("fixed-size replace-one", [(fixed_size_sampled(g, b, n), steps)], delta),
                run("fixed-size zero-out", [(fixed_size_sampled(g, b, n, adjacency="zero_out"), steps)], delta),
                run("Poisson (add/remove)", [(bounds.poisson_sampled(g, b / n), steps)], delta)]
        for label, s, cpu in rows:
            print(f"  {label:24s} ε ∈ [{s.lower:.4f}, {s.upper:.4f}]  width {s.upper - s.lower:.4f}  {cpu:6.2f} s CPU")
