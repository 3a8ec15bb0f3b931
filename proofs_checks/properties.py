"""Deterministic property sweeps of the public functions (the hypothesis tests in ``tests/`` randomise the
same properties): monotonicity, limits, numeric reductions, inverse ∘ forward on the safe side."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

import bounds

from . import points as exact_points
from . import references
from .framework import Outcome, check
from .pointwise import pointwise

EPS = np.concatenate([[0.0], exact_points.logspace(-300, 4, 120)])
RATES = np.concatenate([[0.0], exact_points.logspace(-300, 0, 120)])
DELTAS = np.concatenate([[0.0], exact_points.logspace(-300, 0, 60)])


ROUNDING_SLACK = 16 * 2.0 ** -52  # returned values sit up to a budget of ulps above monotone exact values


def _nondecreasing(values: np.ndarray, axis: int) -> bool:
    """Nondecreasing up to the outward rounding (a dip of more than 16 ulps fails)."""
    steps = np.diff(values, axis=axis)
    scale = np.abs(np.delete(values, 0, axis=axis))
    return bool(np.all(steps >= -ROUNDING_SLACK * scale))


def _monotone_outcome(label: str, pairs: list[tuple[str, np.ndarray, int]]) -> Outcome:
    bad = [name for name, values, axis in pairs if not _nondecreasing(values, axis)]
    return Outcome(not bad, f"{label}: " + ("monotone in " + ", ".join(n for n, _, _ in pairs) if not bad
                                             else "NOT monotone in " + ", ".join(bad)))


@check("property", "T1", name="T1 monotone in ε, δ, p; limits p = 0, p = 1; inverse on the safe side")
def t1_properties() -> Outcome:
    g = bounds.poisson_subsampling(EPS[:, None], 1e-6, RATES[None, :])
    gd = bounds.poisson_subsampling(1.0, DELTAS[:, None], RATES[None, :])
    mono = _monotone_outcome("T1", [("ε'(ε)", g.epsilon, 0), ("ε'(p)", g.epsilon, 1),
                                    ("δ'(δ)", gd.delta, 0), ("δ'(p)", gd.delta, 1)])
    zero = bounds.poisson_subsampling(np.append(EPS, np.inf), DELTAS[-1], 0.0)
    one = bounds.poisson_subsampling(EPS, DELTAS[-3], 1.0)
    limits = (np.all(zero.epsilon == 0) and np.all(zero.delta == 0) and np.all(one.epsilon >= EPS)
              and np.all(one.epsilon <= EPS * (1 + ROUNDING_SLACK)))
    # inverse: the *exact* T1 map of the returned base budget must not exceed the target
    targets = EPS[1::7]
    base = pointwise(bounds.poisson_subsampling_inverse)(targets[:, None], 1e-6, RATES[None, 1::5])
    rates = np.broadcast_to(RATES[None, 1::5], base.epsilon.shape)
    tgt = np.broadcast_to(targets[:, None], base.epsilon.shape)
    safe = all(references.spec_value("T1", "epsilon", e0, p) <= t
               for e0, p, t in zip(base.epsilon.ravel(), rates.ravel(), tgt.ravel()) if np.isfinite(e0))
    safe = safe and all(Fraction(d0) * Fraction(p) <= Fraction(1e-6)
                        for d0, p in zip(base.delta.ravel(), rates.ravel()))
    ok = mono.passed and limits and safe
    return Outcome(ok, f"{mono.detail}; p = 0 → (0, 0) and p = 1 → input (within rounding): {bool(limits)}; "
                       f"exact T1(T1⁻¹(ε, δ)) ≤ (ε, δ) on {base.epsilon.size} points: {bool(safe)}")


@check("property", "T2", "T5", name="T2 and T5 reduce to T1; monotone in m, n, rates")
def t2_t5_properties() -> Outcome:
    n = 1000.0
    m = np.arange(0, 1001, dtype=float)
    g2 = bounds.without_replacement(EPS[:, None], 1e-6, m[None, :], n)
    g1 = bounds.poisson_subsampling(EPS[:, None], 1e-6, m[None, :] / n)
    same = np.allclose(g2.epsilon, g1.epsilon, rtol=1e-15, atol=0) and np.allclose(g2.delta, g1.delta, rtol=1e-15)
    g5 = bounds.rate_change(EPS[:, None], 1e-6, 1.0, RATES[None, :])
    g1r = bounds.poisson_subsampling(EPS[:, None], 1e-6, RATES[None, :])
    same5 = (np.allclose(g5.epsilon, g1r.epsilon, rtol=ROUNDING_SLACK, atol=0)
             and np.allclose(g5.delta, g1r.delta, rtol=ROUNDING_SLACK, atol=1e-322))
    mono = _monotone_outcome("T2/T5", [("T2 ε'(m)", g2.epsilon, 1), ("T5 ε'(β₂)", g5.epsilon, 1)])
    ok = same and same5 and mono.passed
    return Outcome(ok, f"T2 = T1 at p = m/n: {same}; T5 at β₁ = 1 = T1 within rounding: {same5}; {mono.detail}")


@check("property", "T3", "T4", name="T3/T4 m = 1 is T1 at 1/n; monotone in m and ε")
def t3_properties() -> Outcome:
    n = np.array([1.0, 2.0, 10.0, 1000.0, 1e6])
    g3 = bounds.with_replacement(EPS[:, None], 1e-6, 1, n[None, :])
    g1 = bounds.poisson_subsampling(EPS[:, None], 1e-6, 1 / n[None, :])
    same = np.allclose(g3.epsilon, g1.epsilon, rtol=4e-16 * 8, atol=0) and np.allclose(g3.delta, 1e-6 / n, rtol=1e-14)
    m = np.array([0.0, 1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**5, 10**6])
    gm = bounds.with_replacement(np.array([0.0, 1e-3, 0.5, 1.0, 4.0])[:, None], 1e-6, m[None, :], 1000.0)
    mono = _monotone_outcome("T3", [("ε'(m)", gm.epsilon, 1), ("δ'(m)", gm.delta, 1), ("δ'(ε)", gm.delta, 0)])
    g4 = bounds.with_replacement(1.0, 1e-6, m, 1000.0, relation="add_remove")
    same4 = np.array_equal(g4.delta, bounds.with_replacement(1.0, 1e-6, m, 1000.0).delta)
    ok = same and mono.passed and same4
    return Outcome(ok, f"m = 1 gives T1 at 1/n and δ/n: {same}; {mono.detail}; T4 formula = T3 formula: {same4}")


@check("property", "T7", name="T7 k = 1 identity; monotone in k, ε, δ; δ ≤ 1")
def t7_properties() -> Outcome:
    k = np.array([1.0, 2, 3, 5, 10, 100, 1000, 10**6])
    g = bounds.group_privacy(EPS[:, None], 1e-6, k[None, :])
    one = bounds.group_privacy(EPS, DELTAS[-5], 1)
    ident = np.array_equal(one.epsilon, EPS) and np.all(one.delta == DELTAS[-5])
    gd = bounds.group_privacy(1.0, DELTAS[:, None], k[None, :])
    mono = _monotone_outcome("T7", [("ε_k(k)", g.epsilon, 1), ("δ_k(k)", g.delta, 1), ("δ_k(ε)", g.delta, 0),
                                    ("δ_k(δ)", gd.delta, 0)])
    capped = bool(np.all(g.delta <= 1))
    return Outcome(ident and mono.passed and capped, f"k = 1 identity: {ident}; {mono.detail}; δ_k ≤ 1: {capped}")
