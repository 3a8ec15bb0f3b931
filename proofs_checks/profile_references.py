"""High-precision references and grids for SPEC T8–T10 (privacy profiles and calibration).

The references evaluate SPEC's Φ form directly in mpmath (not the erfcx form the kernels use) at
60 + 2·(digits lost to tiny arguments) digits; for |x| > 1e6, where mpmath's erfc refuses the argument,
erfc(x) = e^{−x²}/(x√π)·(1 − 1/(2x²) + 3/(4x⁴) − …) with the omitted terms below 15/(8x⁶) < 1e-35
relative.  Inverses and σ are roots of the SPEC equation found by mpmath's bracketed solver at that
precision, independently of the float searches (the float result only seeds the bracket, which is then
checked to contain a sign change).
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np

from . import points
from .references import working_digits
from .refstore import memo

EPSILONS = [0.0, 1e-300, 1e-100, 1e-30, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0,
            50.0, 100.0, 300.0, 500.0, 700.0, 800.0, 1000.0, 1e4]
NEGATIVE_EPSILONS = [-1e-300, -1e-10, -1e-3, -0.1, -1.0, -3.0, -10.0, -100.0, -800.0, -1e4]
THETAS = [1e-300, 1e-10, 1e-3, 0.01, 0.1, 0.5, 1.0, 1.9, 2.0, 3.0, 10.0, 30.0, 100.0, 1e3, 1e5]
# δ ≤ 0.9: above it ln δ ≈ δ − 1 is resolved only to 1e-16/(1 − δ) relative in floats, so the searched
# ε or σ is only that accurate there (still on the safe side: tests/bounds/test_profiles.py checks it)
TARGET_DELTAS = [1e-300, 1e-200, 1e-100, 1e-50, 1e-20, 1e-15, 1e-10, 1e-5, 1e-3, 0.1, 0.5, 0.9]
CALIBRATION_EPSILONS = [0.0, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0, 500.0]
SENSITIVITIES = [1e-3, 1.0, 1e3]
RANDOM_POINTS = 200


def erfc(x: mp.mpf) -> mp.mpf:
    if abs(x) < 1e6:
        return mp.erfc(x)
    y = abs(x)
    tail = mp.exp(-y * y) / (y * mp.sqrt(mp.pi)) * (1 - 1 / (2 * y * y) + 3 / (4 * y ** 4))
    return tail if x > 0 else 2 - tail


def phi(x: mp.mpf) -> mp.mpf:
    return erfc(-x / mp.sqrt(2)) / 2


@memo("profile_references.gaussian_delta")
def gaussian_delta(epsilon: float, theta: float) -> mp.mpf:
    """SPEC T9 Φ form, Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ), high precision; limits at ε = ±inf."""
    if epsilon == math.inf:
        return mp.mpf(0)
    if epsilon == -math.inf:
        return mp.mpf(1)
    with mp.workdps(working_digits(epsilon, theta) + 20):
        e, t = mp.mpf(epsilon), mp.mpf(theta)
        return +(phi(t / 2 - e / t) - mp.exp(e) * phi(-t / 2 - e / t))


@memo("profile_references.laplace_delta")
def laplace_delta(epsilon: float, theta: float) -> mp.mpf:
    """SPEC T8 (and its symmetric extension to ε < 0), high precision."""
    if epsilon >= theta:
        return mp.mpf(0)
    with mp.workdps(working_digits(epsilon, theta) + 20):
        e, t = mp.mpf(epsilon), mp.mpf(theta)
        if e <= -t:
            return 1 - mp.exp(e)
        return 1 - mp.exp((e - t) / 2)


@memo("profile_references.laplace_epsilon")
def laplace_epsilon(delta: float, theta: float) -> mp.mpf:
    with mp.workdps(working_digits(delta, theta) + 20):
        d, t = mp.mpf(delta), mp.mpf(theta)
        if d == 1:
            return mp.ninf
        candidate = t + 2 * mp.log(1 - d)
        return candidate if candidate > -t else mp.log(1 - d)


def _root(f, lo: mp.mpf, hi: mp.mpf) -> mp.mpf:
    """Root of a monotone f with f(lo)·f(hi) ≤ 0, by mpmath's Illinois solver then bisection polish."""
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if (flo > 0) == (fhi > 0):
        raise ArithmeticError("bracket without sign change")
    try:
        x = mp.findroot(f, (lo, hi), solver="illinois", tol=mp.mpf(10) ** (-mp.mp.dps + 5), maxsteps=400)
        if lo <= x <= hi:
            return x
    except Exception:
        pass
    for _ in range(4 * mp.mp.prec):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (flo > 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@memo("profile_references.gaussian_epsilon", ignore=("seed",))
@lru_cache(maxsize=None)
def gaussian_epsilon(delta: float, theta: float, seed: float) -> mp.mpf | None:
    """min{ε : δ_θ(ε) ≤ δ} at high precision; ``seed`` (the float result) only places the bracket."""
    if delta == 0:
        return mp.inf
    if delta >= 1:
        return mp.ninf
    digits = working_digits(theta) + 30  # a tiny δ is not a cancellation: only θ sets the precision
    with mp.workdps(digits):
        target = mp.log(mp.mpf(delta))

        def f(e):
            v = _gd(e, mp.mpf(theta))
            return (mp.log(v) if v > 0 else mp.mpf(-10) ** 9) - target
        width = max(abs(seed) * mp.mpf(2) ** -30, mp.mpf(10) ** -290)
        lo, hi = mp.mpf(seed) - width, mp.mpf(seed) + width
        for _ in range(200):
            if f(lo) >= 0 and f(hi) <= 0:
                break
            width *= 4
            lo, hi = mp.mpf(seed) - width, mp.mpf(seed) + width
        return +_root(f, lo, hi)


def _gd(e: mp.mpf, t: mp.mpf) -> mp.mpf:
    return phi(t / 2 - e / t) - mp.exp(e) * phi(-t / 2 - e / t)


@memo("profile_references.gaussian_theta", ignore=("seed",))
@lru_cache(maxsize=None)
def gaussian_theta(epsilon: float, delta: float, seed: float) -> mp.mpf:
    """max{θ : δ_θ(ε) ≤ δ} at high precision (T10 with Δ = 1: σ = 1/θ)."""
    digits = working_digits(epsilon, seed) + 30
    with mp.workdps(digits):
        target = mp.log(mp.mpf(delta))
        e = mp.mpf(epsilon)

        def f(u):  # in ln θ
            v = _gd(e, mp.exp(u))
            return (mp.log(v) if v > 0 else mp.mpf(-10) ** 9) - target
        center = mp.log(mp.mpf(seed))
        width = mp.mpf(2) ** -30
        for _ in range(200):
            lo, hi = center - width, center + width
            if f(lo) <= 0 <= f(hi):
                break
            width *= 4
        return mp.exp(_root(f, lo, hi))


def reference(theorem_id: str, output: str):
    """A function of the kernel's arguments returning the mpmath reference (None to skip a point).

    Searched values (T9 inverse, T10 σ) are roots found at high precision; the unrounded float result
    only seeds their bracket."""
    if theorem_id == "T8" and output == "delta":
        return lambda epsilon, delta, theta: laplace_delta(epsilon, theta)
    if theorem_id == "T8" and output == "epsilon":
        return lambda epsilon, delta, theta: laplace_epsilon(delta, theta)
    if theorem_id == "T9" and output == "delta":
        return lambda epsilon, delta, theta: gaussian_delta(epsilon, theta)
    seeded = seeded_reference(theorem_id, output)
    if seeded is None:
        raise KeyError((theorem_id, output))
    from numeric._generated.metadata import THEOREMS

    from .accuracy import unrounded  # the unrounded twin as plain Python, as the accuracy checks run it

    spec = THEOREMS[theorem_id]["outputs"][output]["kernel"]

    def ref(*point):
        return seeded(point, float(unrounded(spec, [point])[0]))
    return ref


def seeded_reference(theorem_id: str, output: str):
    """References of searched values: f(point, float_result) → mpmath value."""
    if theorem_id == "T9" and output == "epsilon":
        def ref(point, value):
            _, delta, theta = point
            if not math.isfinite(value):
                return None
            return gaussian_epsilon(delta, theta, value)
        return ref
    if theorem_id == "T10" and output == "sigma":
        def ref(point, value):
            epsilon, delta, sensitivity = point
            if not (math.isfinite(value) and value > 0):
                return None
            theta = gaussian_theta(epsilon, delta, sensitivity / value)
            with mp.workdps(mp.mp.dps + 40):
                return mp.mpf(sensitivity) / theta
        return ref
    return None


def _log_uniform(rng, lo, hi, size):
    return points.log_uniform(rng, lo, hi, size)  # the same bits on every CPU (keys stored references)


def grid(theorem_id: str, output: str, rng: np.random.Generator) -> list[tuple]:
    """Points (in the kernel's argument order) for the profile kernels."""
    points = []
    if output == "delta":  # (epsilon, delta, theta): delta unused
        for e in EPSILONS + NEGATIVE_EPSILONS + [math.inf, -math.inf]:
            for t in THETAS:
                points.append((e, 0.0, t))
        es = _log_uniform(rng, 1e-3, 1e3, RANDOM_POINTS)
        ts = _log_uniform(rng, 1e-3, 1e3, RANDOM_POINTS)
        signs = np.where(rng.random(RANDOM_POINTS) < 0.2, -1.0, 1.0)
        points += [(float(s * e), 0.0, float(t)) for s, e, t in zip(signs, es, ts)]
    elif output == "epsilon":  # (epsilon, delta, theta): epsilon unused
        for d in [0.0] + TARGET_DELTAS + [1.0]:
            for t in THETAS[2:-1]:
                points.append((0.0, d, t))
        ds = _log_uniform(rng, 1e-300, 0.9, RANDOM_POINTS // 2)
        ts = _log_uniform(rng, 1e-3, 1e3, RANDOM_POINTS // 2)
        points += [(0.0, float(d), float(t)) for d, t in zip(ds, ts)]
    elif output == "sigma":  # (epsilon, delta, sensitivity)
        for e in CALIBRATION_EPSILONS:
            for d in TARGET_DELTAS:
                points.append((e, d, 1.0))
        for s in SENSITIVITIES:
            points.append((1.0, 1e-5, s))
        es = _log_uniform(rng, 1e-3, 500.0, RANDOM_POINTS // 2)
        ds = _log_uniform(rng, 1e-300, 0.5, RANDOM_POINTS // 2)
        ss = _log_uniform(rng, 1e-3, 1e3, RANDOM_POINTS // 2)
        points += [(float(e), float(d), float(s)) for e, d, s in zip(es, ds, ss)]
    return points
