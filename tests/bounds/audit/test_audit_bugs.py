"""The auditor catches the planted bugs of ``buggy_procedures.py`` and passes the library's procedures on the
same scenarios.

Each scenario was designed analytically (see the builders' docstrings in ``bounds.audit.scenarios``).  Exact
audits decide with certainty.  Monte Carlo audits run at a fixed seed with an event fixed in advance: the
event is the threshold that maximises a *pessimistic* Clopper–Pearson bound — the one computed from the exact
expected counts moved 4 standard deviations against the refutation — and the test first asserts that this
pessimistic bound exceeds the certified ε (the margin is computed, not tuned to the seed).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest

from bounds.audit import clopper_pearson, exact_epsilon, monte_carlo_audit, scenario, statistic_pmf
from bounds.audit.exact import _grid
from bounds.procedures import AbsoluteDifference, poisson_sample

from tests.bounds.audit.buggy_procedures import (fixed_size_poisson, recompute_suppressor, recompute_suppressor_batch,
                               scores_data_normalised, scores_excluding_self)
from tests.goodness_of_fit import g_test_pooled

Z = 4.0   # standard deviations of pessimism in the designed Monte Carlo margins


def _tail_probabilities(mech, pmf0: dict, pmf1: dict) -> list[tuple[int, float, float]]:
    """[(t, P₀(o ≥ t), P₁(o ≥ t))] for every threshold t from the exact output distributions."""
    with mpmath.workdps(50):
        P0, P1, tails = _grid(mech, pmf0, pmf1)
        lo = min(min(pmf0), min(pmf1))
        if mech.__class__.__name__ == "RandomizedResponse":
            lo = 0
        up0 = tails[0][0] * tails[0][1] if tails else 0
        up1 = tails[0][0] * tails[0][2] if tails else 0
        out, s0, s1 = [], up0, up1
        for i in range(len(P0) - 1, -1, -1):
            s0, s1 = s0 + P0[i], s1 + P1[i]
            out.append((lo + i, float(s0), float(s1)))
    return out


@functools.cache
def _limit(k: int, n: int, side: str) -> float:
    """The one-sided Clopper–Pearson limit at α/4 (lower or upper) of k events in n: computed once per
    (k, n, side) in this module (the four statements of the thresholds repeat counts: 128 distinct of 352
    limits in two of the designs)."""
    return clopper_pearson(k, n, confidence=1 - 0.05 / 4, side=side)[0 if side == "lower" else 1]


def _pessimistic(p1: float, p0: float, n: int) -> float:
    """The ε lower bound of one statement ln(p_a,lo / p_b,hi) (Clopper–Pearson at α/4 per limit, as in
    :func:`epsilon_lower_bound`), from counts n·p moved Z standard deviations against the refutation, for
    the best of the four statements (the event or its complement, either direction)."""
    best = 0.0
    for a, b in ((p1, p0), (p0, p1), (1 - p1, 1 - p0), (1 - p0, 1 - p1)):
        k_a = max(0, math.floor(n * a - Z * math.sqrt(n * a * (1 - a))))
        k_b = min(n, math.ceil(n * b + Z * math.sqrt(n * b * (1 - b))))
        lo = _limit(k_a, n, "lower")
        hi = _limit(k_b, n, "upper")
        if lo > 0:
            best = max(best, math.log(lo / hi))
    return best


def _design(mech, pmf0: dict, pmf1: dict, trials: int) -> tuple[int, float]:
    """The threshold t with the largest pessimistic bound, and that bound."""
    cands = [(t, _pessimistic(p1, p0, trials)) for t, p0, p1 in _tail_probabilities(mech, pmf0, pmf1)
             if 0 < p0 < 1 and 0 < p1 < 1]
    return max(cands, key=lambda c: c[1])


def _pmfs(s, keep_probabilities) -> tuple[dict, dict]:
    with mpmath.workdps(50):
        return tuple(statistic_pmf(keep_probabilities(d), s.mechanism.statistic(np.eye(len(d), dtype=bool), d))
                     for d in (s.dataset_0, s.dataset_1))


def _mc(s, procedure, t: int, trials: int, seed: int, batched: bool = False):
    return monte_carlo_audit(procedure, s.mechanism, s.dataset_0, s.dataset_1, claim=s.claim, trials=trials,
                             seed=seed, event=lambda o: o >= t, batched=batched, chunk=100_000)


# ------------------------------------------------------------------------ 1. data-derived normalisation
def test_data_normalised_scores_are_refuted() -> None:
    buggy = scenario("normalisation", scores=scores_data_normalised)
    correct = scenario("normalisation")
    r = buggy.exact()
    assert r.verdict == "refuted" and r.epsilon > 3 * buggy.claim.epsilon       # ≈ 12 against 3.34
    assert correct.exact().verdict == "not refuted"
    trials = 2_000
    t, pessimistic = _design(buggy.mechanism, *_pmfs(buggy, buggy.keep_probabilities), trials)
    assert pessimistic > buggy.claim.epsilon
    assert _mc(buggy, buggy.procedure, t, trials, seed=1).verdict == "refuted"
    assert _mc(correct, correct.procedure, t, trials, seed=1).verdict == "not refuted"


# ---------------------------------------------------------------------------- 2. the record skips itself
def test_scores_excluding_self_are_refuted() -> None:
    buggy = scenario("self-exclusion", scores=scores_excluding_self)
    correct = scenario("self-exclusion")
    r = buggy.exact()
    assert r.verdict == "refuted"
    # closed form of the design: upper tail ratio (qF + 1 − q)(q + (1 − q)F), q = M/2 (docstring)
    F, q = math.e, 0.25
    assert r.epsilon == pytest.approx(math.log((q * F + 1 - q) * (q + (1 - q) * F)), rel=1e-12)
    assert correct.exact().verdict == "not refuted"
    trials = 200_000
    t, pessimistic = _design(buggy.mechanism, *_pmfs(buggy, buggy.keep_probabilities), trials)
    assert pessimistic > buggy.claim.epsilon
    metric = AbsoluteDifference(0.0, 1.0)
    batched = lambda d, rng, size: ~(rng.random((size, len(d))) < scores_excluding_self(d, metric, 0.4, 0.5))  # noqa
    assert _mc(buggy, batched, t, trials, seed=2, batched=True).verdict == "refuted"
    assert _mc(correct, correct.procedure, t, 20_000, seed=2).verdict == "not refuted"


# ------------------------------------------------------------------- 3. scores recomputed after deletions
def _recompute_pmf(N: int, m: float, M: float) -> dict:
    """Exact pmf of S = 𝟙[y kept] − #(copies kept) for the recomputing suppressor on N copies of x then y
    (d = 1): a Markov chain on the number of copies deleted so far (an independent model of the fixture)."""
    m, M = mpmath.mpf(m), mpmath.mpf(M)
    dist = {0: mpmath.mpf(1)}
    for _ in range(N):
        new: dict = {}
        for d, p in dist.items():
            alive = N - d + 1                               # surviving copies (N − d) and y
            q = (m * (N - d) + M) / alive
            new[d + 1] = new.get(d + 1, 0) + p * q
            new[d] = new.get(d, 0) + p * (1 - q)
        dist = new
    pmf: dict = {}
    for d, p in dist.items():
        K = N - d
        qy = (m + M * K) / (K + 1)
        pmf[1 - K] = pmf.get(1 - K, 0) + p * (1 - qy)
        pmf[-K] = pmf.get(-K, 0) + p * qy
    return pmf


def test_recomputed_scores_are_refuted() -> None:
    s = scenario("recompute")
    m, M, N = s.parameters["m"], s.parameters["M"], s.parameters["copies"]
    metric = AbsoluteDifference(0.0, 1.0)
    with mpmath.workdps(50):
        model = _recompute_pmf(N, m, M)
        d0 = statistic_pmf(np.full(N, 1 - m), -np.ones(N, dtype=int))
    # the model is the fixture's distribution: G-test on 10⁵ runs (seed 5), P-value above 10⁻⁶
    rng = np.random.default_rng(5)
    kept = recompute_suppressor_batch(s.dataset_1, metric, m, M, rng, 100_000)
    stat = s.mechanism.statistic(kept, s.dataset_1)
    values, counts = np.unique(stat, return_counts=True)
    assert g_test_pooled(dict(zip(values.tolist(), counts.tolist())), model, 100_000) > 1e-6
    assert recompute_suppressor(s.dataset_1, metric, m, M, np.random.default_rng(0)).shape == (N + 1,)
    # exact: the cascade's ε (≈ 3.94) exceeds ε^S(3, 0.3, 0.7) ≈ 3.38; the library's procedure stays below
    eps_bug = exact_epsilon(s.mechanism, d0, model)
    assert eps_bug > s.claim.epsilon + 0.5
    assert s.exact().verdict == "not refuted"
    # Monte Carlo on the fixture's code, 10⁶ runs per input (vectorised over runs)
    trials = 1_000_000
    t, pessimistic = _design(s.mechanism, d0, model, trials)
    assert pessimistic > s.claim.epsilon
    batched = lambda d, rng, size: recompute_suppressor_batch(d, metric, m, M, rng, size)  # noqa: E731
    r = _mc(s, batched, t, trials, seed=3, batched=True)
    assert r.verdict == "refuted" and r.epsilon <= eps_bug
    assert _mc(s, s.procedure, t, 20_000, seed=3).verdict == "not refuted"


# ------------------------------------------------------------------------- 4. fixed-size "Poisson" batches
def test_fixed_size_poisson_is_refuted() -> None:
    correct = scenario("fixed-size")
    buggy = scenario("fixed-size", sampler=fixed_size_poisson)
    rate = correct.parameters["rate"]
    # the fixture's count is the constant round(p·n): 4 on D₀ (9 records), 5 on D₁ (10 records)
    k0, k1 = round(rate * len(buggy.dataset_0)), round(rate * len(buggy.dataset_1))
    assert (k0, k1) == (4, 5)
    with mpmath.workdps(50):
        pm0, pm1 = {k0: mpmath.mpf(1)}, {k1: mpmath.mpf(1)}
    assert exact_epsilon(buggy.mechanism, pm0, pm1) == pytest.approx(1.0, rel=1e-14)   # the full ε
    assert correct.exact().verdict == "not refuted"
    trials = 10_000
    t, pessimistic = _design(buggy.mechanism, pm0, pm1, trials)
    assert pessimistic > buggy.claim.epsilon
    assert _mc(buggy, buggy.procedure, t, trials, seed=4).verdict == "refuted"
    assert _mc(correct, correct.procedure, t, trials, seed=4).verdict == "not refuted"
    # the library's sampler is the one passed in by default
    assert correct.procedure(np.zeros(4), np.random.default_rng(0)).dtype == poisson_sample(4, 0.5, rng=0).dtype
