"""Noise calibration (issue 21): CIFAR-10 (ε = 8, δ = 1e-5, batch 256 of 50 000, 60 epochs), Poisson and
balls-and-bins — the search before (booleans, bisection: the code of 2026-12-01 morning, reproduced below on the
same library primitives) and after (``bounds.calibration``), side by side in one run: CPU seconds, certified
compositions, the cost of each, and the σ bracket; dp_accounting's ``calibrate_dp_mechanism`` (PLD, float64,
not certified) beside the Poisson case when it is installed.

Run: ``PYTHONPATH=$PWD python benchmarks/bench_calibration.py [poisson] [balls-and-bins] [--no-before]
[--no-after]``
(CPU seconds from time.process_time: wall clock on a shared machine is polluted by other processes; the numba
kernels are warmed up first, so compile time is not counted).
"""
from __future__ import annotations

import math
import sys
import time
import warnings

import bounds
from bounds import calibration
from bounds.samplers import sampler_composition

EPS, DELTA, BATCH, N, EPOCHS = 8.0, 1e-5, 256, 50_000, 60
RATE, STEPS = BATCH / N, EPOCHS * -(-N // BATCH)  # q = 0.00512, T = 60 · 196 = 11 760


class Counter:
    """Counts and times the certified compositions a search evaluates."""

    def __init__(self):
        self.certified, self.located, self.cpu_certified = 0, 0, 0.0

    def __call__(self, step):
        if step.done:
            if step.stage == "certified":
                self.certified += 1
                self.cpu_certified += step.cpu_seconds
            else:
                self.located += 1


# ----- before: the searches as they were (same primitives) --------------------------------------------------

def poisson_before(counter: Counter):
    """dpsgd_noise_multiplier before issue 21's search: doubling from σ = 1, bisection on "certified upper δ ≤
    target" to 2e-5·σ, then a walk down and a bisection for the lower side (grid of σ = 1)."""
    q, t, e, d = RATE, STEPS, EPS, DELTA
    h = calibration._grid_for(q, t, 1e-3)

    def side(s, which):
        c0 = time.process_time()
        v = calibration._dpsgd_delta(s, q, t, e, h, which)
        counter.certified += 1
        counter.cpu_certified += time.process_time() - c0
        return v

    def safe(s):
        return side(s, "upper") <= d

    def violates(s):
        return side(s, "lower") > d

    lo, hi = 1.0, 1.0
    if safe(hi):
        while safe(lo):
            hi, lo = lo, lo / 2
    else:
        while not safe(hi):
            lo, hi = hi, hi * 2
    lo, hi = calibration._bisect(lo, hi, safe, lambda a, b: b - a > 2e-5 * b)
    upper = hi
    step = 1e-4 * upper
    cand = upper - step
    while cand > 0 and not violates(cand):
        step *= 2
        cand = upper - step
    a, b = calibration._bisect(cand, upper - step / 2, lambda s: not violates(s), lambda a, b: b - a > 2e-5 * upper)
    return a, upper


def sampler_before(counter: Counter, sampler: str, rtol: float = 1e-3):
    """The CLI's bisect_noise_multiplier before issue 21's search: bracket from σ = 1 by ×1.5, then a secant
    in (log σ, log ε) safeguarded by the geometric midpoint, ``epsilon(δ)`` refined at every σ."""
    seen = {}

    def eps_at(s):
        if s not in seen:
            c0 = time.process_time()
            comp, _ = sampler_composition(sampler=sampler, noise_multiplier=s, epochs=EPOCHS, batch_size=BATCH,
                                          dataset_size=N)
            e = comp.epsilon(DELTA)
            counter.certified += 1
            counter.cpu_certified += time.process_time() - c0
            seen[s] = (float(e.lower), float(e.upper))
        return seen[s]

    a = hi = lo = None
    sigma = 1.0
    while a is None or hi is None:
        e_lo, e_hi = eps_at(sigma)
        if e_lo > EPS:
            lo = sigma if lo is None else max(lo, sigma)
        if e_hi <= EPS:
            hi, sigma = sigma, sigma / 1.5
        else:
            a, sigma = sigma, sigma * 1.5
    order = [a, hi]
    while hi / a - 1.0 > rtol:
        mid = math.sqrt(a * hi)
        (x0, f0), (x1, f1) = [(math.log(x), math.log(seen[x][0] * seen[x][1]) / 2 - math.log(EPS))
                              for x in order[-2:]]
        if f1 != f0:
            root = x0 - f0 * (x1 - x0) / (f1 - f0)
            aim = root + (0.4 * rtol if hi / math.exp(root) - 1.0 > rtol / 2 else -0.4 * rtol)
            if a < math.exp(aim) < hi:
                mid = math.exp(aim)
        e_lo, e_hi = eps_at(mid)
        order.append(mid)
        if e_lo > EPS:
            lo = mid if lo is None else max(lo, mid)
        if e_hi <= EPS:
            hi = mid
        else:
            a = mid
    return (lo or 0.0), hi


# ----- after ------------------------------------------------------------------------------------------------

def poisson_after(counter: Counter):
    return tuple(bounds.dpsgd_noise_multiplier(EPS, DELTA, RATE, STEPS, progress=counter))


def sampler_after(counter: Counter, sampler: str):
    return tuple(bounds.sampler_noise_multiplier(EPS, DELTA, sampler=sampler, epochs=EPOCHS, batch_size=BATCH,
                                                 dataset_size=N, progress=counter))


def dp_accounting_poisson():
    try:
        import dp_accounting
        from dp_accounting import mechanism_calibration as mc
    except ImportError:
        return None

    def event(sigma):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(sigma)), STEPS)

    return mc.calibrate_dp_mechanism(lambda: dp_accounting.pld.PLDAccountant(), event, EPS, DELTA,
                                     mc.LowerEndpointAndGuess(0.1, 1.0), tol=1e-4)


def run(label, fn, *args):
    counter = Counter()
    t = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo, hi = fn(counter, *args)
    cpu = time.process_time() - t
    per = counter.cpu_certified / max(counter.certified, 1)
    print(f"  {label:<34} σ ∈ [{lo:.7f}, {hi:.7f}] (gap {(hi - lo) / hi:.1e})  CPU {cpu:7.1f} s  "
          f"certified compositions {counter.certified:3d} × {per:5.1f} s"
          + (f"  + {counter.located} estimates ({cpu - counter.cpu_certified:.1f} s)" if counter.located else ""),
          flush=True)
    return cpu


def main(argv):
    cases = [a for a in argv if not a.startswith("--")] or ["poisson", "balls-and-bins"]
    before = "--no-before" not in argv
    after = "--no-after" not in argv
    # warm-up (compilation and cache loading, not counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, 100, tolerance=1e-2)
        bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01), 5000)]).epsilon(1e-5)
        bounds.sampler_noise_multiplier(2.0, 1e-5, sampler="balls_and_bins", epochs=2, steps_per_epoch=10,
                                        tolerance=1e-2)
    print(f"CIFAR-10: ε = {EPS}, δ = {DELTA}, q = {BATCH}/{N}, T = {STEPS} steps ({EPOCHS} epochs of {STEPS // EPOCHS})")
    if "poisson" in cases:
        print("Poisson (target ≤ 10 s):")
        new = run("after  (bounds.calibration)", poisson_after) if after else None
        if before:
            old = run("before (boolean bisection)", poisson_before)
            if new:
                print(f"  ratio before/after: {old / new:.1f}×")
        t = time.process_time()
        sigma = dp_accounting_poisson()
        if sigma is not None:
            print(f"  dp_accounting calibrate_dp_mechanism (PLD, tol 1e-4, not certified): σ = {sigma:.7f}  CPU "
                  f"{time.process_time() - t:.1f} s")
    if "balls-and-bins" in cases:
        print("balls-and-bins, fresh bins every epoch (target ≤ 60 s):")
        new = run("after  (bounds.calibration)", sampler_after, "balls_and_bins") if after else None
        if before:
            old = run("before (CLI bisection)", sampler_before, "balls_and_bins")
            if new:
                print(f"  ratio before/after: {old / new:.1f}×")


if __name__ == "__main__":
    main(sys.argv[1:])
