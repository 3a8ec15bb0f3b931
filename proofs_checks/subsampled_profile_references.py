"""High-precision references and grids for SPEC T11 (one-step Poisson-subsampled Gaussian and Laplace).

The references evaluate SPEC T11's closed forms *as typeset* (the Φ form with the factor (e^ε − 1 + q), the
Laplace square-root forms with their thresholds), in mpmath at 60 digits plus two per decade of the smallest
argument — not the kernels' route (q·δ_b(A_q⁻¹(ε)) through erfcx in double-double).  Inverses are roots of
the SPEC profile found by mpmath's bracketed solver (the float result only seeds the bracket).
A third route, quadrature of the hockey-stick integral of the mixture densities, is in
``proofs_checks.subsampled_profiles_checks``.
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np

from . import points
from .profile_references import _root, phi
from .refstore import memo

EPSILONS = [0.0, 1e-300, 1e-30, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0,
            300.0, 500.0, 800.0]
NEGATIVE_EPSILONS = [-1e-12, -1e-3, -0.1, -1.0, -10.0]
THETAS = [1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0, 1e3]
RATES = [0.0, 1e-300, 1e-12, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.999999, 1.0]
TARGET_DELTAS = [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 1e-3, 0.1, 0.5]
RANDOM_POINTS = 300


def _digits(*values: float) -> int:
    extra = sum(max(0.0, -math.log10(abs(v))) for v in values if v and math.isfinite(v))
    return 60 + int(2 * extra)


@memo("subsampled_profile_references.spec_delta")
def spec_delta(mech: str, direction: str, epsilon: float, theta: float, rate: float) -> mp.mpf:
    """SPEC T11 closed form (mpmath), ``mech`` in {"gaussian", "laplace"}, ``direction`` in {"remove", "add"}."""
    if epsilon == math.inf:
        return mp.mpf(0)
    if epsilon == -math.inf:
        return mp.mpf(1)
    with mp.workdps(_digits(epsilon, theta, rate)):
        e, t, q = mp.mpf(epsilon), mp.mpf(theta), mp.mpf(rate)
        F = mp.exp(e)
        if q == 0:
            return max(mp.mpf(0), 1 - F)
        if mech == "gaussian" and direction == "remove":
            if F <= 1 - q:
                return 1 - F
            eq = mp.log(1 + (F - 1) / q)
            return +(q * phi(t / 2 - eq / t) - (F - 1 + q) * phi(-t / 2 - eq / t))
        if mech == "gaussian":
            c = 1 - (1 - q) * F
            if c <= 0:
                return mp.mpf(0)
            tt = mp.log(q * F / c)
            return +(c * phi(t / 2 - tt / t) - q * F * phi(-t / 2 - tt / t))
        return _at_threshold(spec_delta_mp(mech, direction, e, t, q), q)


OUTPUTS = {  # output name → (mechanism, direction, inverse?)
    "gaussian_remove": ("gaussian", "remove", False),
    "gaussian_add": ("gaussian", "add", False),
    "laplace_remove": ("laplace", "remove", False),
    "laplace_add": ("laplace", "add", False),
    "gaussian_remove_epsilon": ("gaussian", "remove", True),
    "gaussian_add_epsilon": ("gaussian", "add", True),
    "laplace_remove_epsilon": ("laplace", "remove", True),
    "laplace_add_epsilon": ("laplace", "add", True),
}


@memo("subsampled_profile_references.spec_epsilon", ignore=("seed",))
@lru_cache(maxsize=None)
def spec_epsilon(mech: str, direction: str, delta: float, theta: float, rate: float, seed: float):
    """min{ε : δ(ε) ≤ δ} of the SPEC form, at high precision; ``seed`` places the bracket."""
    if delta >= 1:
        return mp.ninf
    digits = _digits(theta, rate) + 20
    with mp.workdps(digits):
        target = mp.mpf(delta)

        t_mp, q_mp = mp.mpf(theta), mp.mpf(rate)

        def f(e):  # log gap (δ(e) − target when the target is 0)
            v = spec_delta_mp(mech, direction, e, t_mp, q_mp)
            if target == 0:
                return v
            return (mp.log(v) if v > 0 else mp.mpf(-10) ** 9) - mp.log(target)
        width = max(abs(seed) * mp.mpf(2) ** -30, mp.mpf(10) ** -200)
        s = mp.mpf(seed)
        for _ in range(300):
            lo, hi = s - width, s + width
            if f(lo) > 0 and f(hi) <= 0:
                break
            width *= 4
        else:
            return None
        if target == 0:  # Laplace: the threshold where δ reaches 0
            for _ in range(4 * mp.mp.prec):
                mid = (lo + hi) / 2
                if f(mid) > 0:
                    lo = mid
                else:
                    hi = mid
            return hi
        return +_root(f, lo, hi)


def spec_delta_mp(mech: str, direction: str, e: mp.mpf, t: mp.mpf, q: mp.mpf) -> mp.mpf:
    """The SPEC form at an mpf ε (for the root finding of the inverses)."""
    F = mp.exp(e)
    if q == 0:
        return max(mp.mpf(0), 1 - F)
    if mech == "gaussian" and direction == "remove":
        if F <= 1 - q:
            return 1 - F
        eq = mp.log(1 + (F - 1) / q)
        return q * phi(t / 2 - eq / t) - (F - 1 + q) * phi(-t / 2 - eq / t)
    if mech == "gaussian":
        c = 1 - (1 - q) * F
        if c <= 0:
            return mp.mpf(0)
        tt = mp.log(q * F / c)
        return c * phi(t / 2 - tt / t) - q * F * phi(-t / 2 - tt / t)
    if direction == "remove":
        if F <= 1 - q + q * mp.exp(-t):
            return 1 - F
        if F >= 1 - q + q * mp.exp(t):
            return mp.mpf(0)
        return q - mp.exp(-t / 2) * mp.sqrt(q * (q + F - 1))
    if F <= 1 / (1 - q + q * mp.exp(t)):
        return 1 - F
    if F >= 1 / (1 - q + q * mp.exp(-t)):
        return mp.mpf(0)
    return 1 - (1 - q) * F - mp.exp(-t / 2) * mp.sqrt(q * F * (1 - (1 - q) * F))


def _at_threshold(value: mp.mpf, q: mp.mpf) -> mp.mpf:
    """The Laplace middle forms vanish at their upper threshold; at 60+ digits a point exactly there (q = 1,
    ε = θ) leaves rounding noise of either sign: values below 10^(15 − dps)·q count as 0."""
    return mp.mpf(0) if abs(value) < mp.mpf(10) ** (15 - mp.mp.dps) * q else value


def reference(output: str):
    """f(epsilon, delta, theta, rate[, float_result]) → mpmath reference (None to skip)."""
    mech, direction, inverse = OUTPUTS[output]
    if not inverse:
        return lambda epsilon, delta, theta, rate, value=None: spec_delta(mech, direction, epsilon, theta, rate)

    def ref(epsilon, delta, theta, rate, value=None):
        if value is None or not math.isfinite(value):
            return None
        return spec_epsilon(mech, direction, delta, theta, rate, value)
    return ref


def _log_uniform(rng, lo, hi, size):
    return points.log_uniform(rng, lo, hi, size)  # the same bits on every CPU (keys stored references)


def grid(output: str, rng: np.random.Generator) -> list[tuple]:
    """(epsilon, delta, theta, rate) points."""
    _, _, inverse = OUTPUTS[output]
    points = []
    if not inverse:
        for e in EPSILONS + NEGATIVE_EPSILONS:
            for t in THETAS:
                for q in RATES:
                    points.append((e, 0.0, t, q))
        es = _log_uniform(rng, 1e-4, 500.0, RANDOM_POINTS)
        ts = _log_uniform(rng, 1e-3, 1e3, RANDOM_POINTS)
        qs = _log_uniform(rng, 1e-12, 1.0, RANDOM_POINTS)
        points += [(float(e), 0.0, float(t), float(q)) for e, t, q in zip(es, ts, qs)]
    else:
        for d in TARGET_DELTAS:
            for t in [1e-3, 0.1, 1.0, 10.0, 1e3]:
                for q in [1e-12, 1e-3, 0.1, 0.5, 1.0]:
                    points.append((0.0, d, t, q))
        ds = _log_uniform(rng, 1e-300, 0.5, RANDOM_POINTS // 3)
        ts = _log_uniform(rng, 1e-3, 1e3, RANDOM_POINTS // 3)
        qs = _log_uniform(rng, 1e-12, 1.0, RANDOM_POINTS // 3)
        points += [(0.0, float(d), float(t), float(q)) for d, t, q in zip(ds, ts, qs)]
        # targets δ ≥ q/10 are left out of the ulp measurement: there the profile sits on its flat top
        # (REMOVE ≈ q·δ_b with δ_b ≈ 1 over ε ∈ [0, ~θ²/2] for large θ), the root is arbitrarily
        # ill-conditioned and ulps of ε mean nothing; soundness there is tested (inverse ∘ profile ≤ δ)
        points = [p for p in points if p[1] < p[3] / 10]
    return points
