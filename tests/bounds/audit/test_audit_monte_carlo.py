"""Monte Carlo audits: the audit mechanisms sample exactly their stated distributions (G-tests at fixed seeds),
the tight T1/T2 scenarios are approached to within a computed margin, output modes, reproducibility and input
validation."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from bounds.audit import NoisyCount, RandomizedResponse, clopper_pearson, monte_carlo_audit, scenario
from bounds.procedures._bernoulli import bernoulli

from tests.goodness_of_fit import g_test_pooled


@pytest.mark.parametrize("eps", [0.05, 0.7, 3.0])
def test_noisy_count_samples_discrete_laplace(eps: float) -> None:
    """Z = output − S has P(Z = z) = (1 − α)/(1 + α)·α^|z|, α = e^−ε (G-test, 200,000 draws, seed 9)."""
    mech = NoisyCount(eps, weights=lambda d: np.where(d > 0, 1, -1))
    data = np.array([1.0, -1.0, 1.0])
    kept = np.zeros((200_000, 3), dtype=bool)
    kept[:, 0] = True                                            # S = 1 in every row
    z = mech.sample(kept, data, np.random.default_rng(9)) - 1
    span = int(np.abs(z).max())
    values = range(-span - 1, span + 2)
    observed = {v: int((z == v).sum()) for v in values}
    with mpmath.workdps(30):
        a = mpmath.exp(-eps)
        probs = {v: (1 - a) / (1 + a) * a ** abs(v) for v in values}
        probs[-span - 1] += (1 - a) / (1 + a) * a ** (span + 2) / (1 - a)   # tails beyond the window, into
        probs[span + 1] += (1 - a) / (1 + a) * a ** (span + 2) / (1 - a)    # the end cells
    assert g_test_pooled(observed, probs, 200_000) > 1e-6


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_randomized_response_flip_rate(eps: float) -> None:
    """Reported bits against flips at 1/(1 + e^ε) (G-test, 4 cells: truth × report, 10⁵ draws, seed 4)."""
    mech = RandomizedResponse(eps, weights=lambda d: (d == 1.0).astype(int))
    data = np.array([0.0, 1.0])
    kept = np.zeros((100_000, 2), dtype=bool)
    kept[:50_000, 1] = True                                      # bit 1 in the first half
    out = mech.sample(kept, data, np.random.default_rng(4))
    ones_1, ones_0 = int(out[:50_000].sum()), int(out[50_000:].sum())
    observed = {(1, 1): ones_1, (1, 0): 50_000 - ones_1, (0, 1): ones_0, (0, 0): 50_000 - ones_0}
    with mpmath.workdps(30):
        f = 1 / (1 + mpmath.exp(eps))
        probs = {(1, 1): (1 - f) / 2, (1, 0): f / 2, (0, 1): f / 2, (0, 0): (1 - f) / 2}
    assert g_test_pooled(observed, probs, 100_000) > 1e-6


@pytest.mark.parametrize("eps", [1e-6, 0.1, 1.0, 4.0, 10.0, 50.0])
def test_randomized_response_flip_is_exact_and_eps_dp(eps: float) -> None:
    """The flip probability q is 1/(1 + e^ε) rounded up to a double (60-digit reference), so (1 − q)/q ≤ e^ε
    (ε-DP); the sampler flips with exact Bernoulli(q) draws (the same draws as ``bernoulli(q)`` from the same
    generator state; its exactness is tested in tests/bounds/procedures/test_bernoulli.py) and the exact
    output distribution uses the same q."""
    mech = RandomizedResponse(eps, weights=lambda d: (d == 1.0).astype(int))
    q = mech.flip
    with mpmath.workdps(60):
        ref = 1 / (1 + mpmath.exp(mpmath.mpf(eps)))
        assert mpmath.mpf(q) >= ref > mpmath.mpf(math.nextafter(q, 0.0))
        assert (1 - mpmath.mpf(q)) / q <= mpmath.exp(mpmath.mpf(eps))
        _, _, mass, *_ = mech.output_pmf({0: mpmath.mpf(1)})          # truth 0: reported 1 with probability q
        assert mass[1] == mpmath.mpf(q)
    kept = np.zeros((5_000, 2), dtype=bool)
    kept[:2_500, 1] = True
    out = mech.sample(kept, np.array([0.0, 1.0]), np.random.default_rng(8))
    truth = np.r_[np.ones(2_500, dtype=np.int64), np.zeros(2_500, dtype=np.int64)]
    assert np.array_equal(out ^ truth, bernoulli(q, 5_000, np.random.default_rng(8)).astype(np.int64))


def _pessimistic_single(p1: float, p0: float, n: int, z: float = 4.0) -> float:
    """ln(p1_lo/p0_hi) at α/4 per limit from counts moved z standard deviations against the bound."""
    k1 = math.floor(n * p1 - z * math.sqrt(n * p1 * (1 - p1)))
    k0 = math.ceil(n * p0 + z * math.sqrt(n * p0 * (1 - p0)))
    lo = clopper_pearson(k1, n, confidence=1 - 0.05 / 4, side="lower")[0]
    hi = clopper_pearson(k0, n, confidence=1 - 0.05 / 4, side="upper")[1]
    return math.log(lo / hi)


@pytest.mark.parametrize("name,kw", [("poisson-rr", dict(epsilon=2.0, rate=0.5, n=10)),
                                     ("swor-rr", dict(epsilon=2.0, m=5, n=10))])
def test_tight_scenarios_are_approached(name: str, kw: dict) -> None:
    """T1/T2 are tight: the Monte Carlo bound (10⁵ runs per input, seed 0) lies between a pessimistic value
    computed from the exact event probabilities (p₁ = p(1 − f) + (1 − p)f, p₀ = f, f = 1/(1 + e^ε); counts
    moved 4σ) and the exact ε = ln(1 + p(e^ε − 1))."""
    s = scenario(name, **kw)
    p = 0.5
    f = 1 / (1 + math.exp(2.0))
    low = _pessimistic_single(p * (1 - f) + (1 - p) * f, f, 50_000)
    assert 0.9 * s.expected < low < s.expected
    r = s.monte_carlo(trials=100_000, seed=0)
    assert r.verdict == "not refuted"
    assert low <= r.epsilon <= s.expected
    assert r.details["event"].startswith("output >= 1")


def test_output_modes_reproducibility_and_progress() -> None:
    from bounds.procedures import poisson_sample, sample_with_replacement, sample_without_replacement

    d0, d1 = np.zeros(4), np.r_[np.zeros(4), 1.0]
    mech = NoisyCount(1.0)
    claim = (1.0, 0.0)
    seen = []
    a = monte_carlo_audit(lambda d, rng: poisson_sample(d, 0.5, rng=rng), mech, d0, d1, claim=claim, trials=3_000,
                          seed=5, progress=seen.append, chunk=1_000)
    b = monte_carlo_audit(lambda d, rng: poisson_sample(d, 0.5, rng=rng), mech, d0, d1, claim=claim, trials=3_000,
                          seed=np.random.default_rng(5))
    assert a.epsilon == b.epsilon and a.details == b.details and sum(seen) == 6_000 and len(seen) == 6
    c = monte_carlo_audit(lambda d, rng: sample_without_replacement(d, 2, rng=rng), mech, d0, d1, claim=claim,
                          trials=500, seed=1, output="indices")
    d = monte_carlo_audit(lambda d, rng: sample_with_replacement(d, 3, rng=rng), mech, d0, d1, claim=claim,
                          trials=500, seed=1, output="counts", event=lambda o: o >= 3)
    assert c.verdict == d.verdict == "not refuted" and d.details["event"] == "given"
    batched = lambda d, rng, size: rng.random((size, len(d))) < 0.5  # noqa: E731
    e = monte_carlo_audit(batched, mech, d0, d1, claim=claim, trials=2_000, seed=1, batched=True)
    assert e.kind == "monte carlo" and "never prove" in str(e)


def test_validation() -> None:
    d0, d1 = np.zeros(3), np.zeros(4)
    mech = NoisyCount(1.0)
    good = lambda d, rng: rng.random(len(d)) < 0.5  # noqa: E731
    with pytest.raises(ValueError, match="boolean keep mask"):
        monte_carlo_audit(lambda d, rng: np.ones(len(d)), mech, d0, d1, claim=(1, 0), trials=10)
    with pytest.raises(ValueError, match="batched procedure must return shape"):
        monte_carlo_audit(lambda d, rng, size: np.ones((size, 2), bool), mech, d0, d1, claim=(1, 0), trials=10,
                          batched=True)
    with pytest.raises(ValueError, match="output"):
        monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=10, output="bits")
    for bad in (1, float("nan"), -5, 2.5):
        with pytest.raises(ValueError, match="trials"):
            monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=bad)
    for bad in (True, "10", None):
        with pytest.raises(TypeError, match="trials"):
            monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=bad)
    with pytest.raises(ValueError, match="confidence"):
        monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=10, confidence=1.0)
    with pytest.raises(TypeError, match="mechanism"):
        monte_carlo_audit(good, "noisy", d0, d1, claim=(1, 0), trials=10)
    # seeds follow the procedures' rule (bounds.procedures._checks.generator), named "seed"
    with pytest.raises(ValueError, match="seed = -1"):
        monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=10, seed=-1)
    for bad in ("1", 1.0, True, np.random.RandomState(0), [1, 2]):
        with pytest.raises(TypeError, match="seed"):
            monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=10, seed=bad)
    with pytest.raises(ValueError, match="trials"):                   # counts capped at 2⁵³ (array sizes)
        monte_carlo_audit(good, mech, d0, d1, claim=(1, 0), trials=2**53 + 1)
    with pytest.raises(TypeError, match="procedure"):
        monte_carlo_audit(None, mech, d0, d1, claim=(1, 0), trials=10)
    with pytest.raises(ValueError, match="claim delta"):
        monte_carlo_audit(good, mech, d0, d1, claim=(1, 2), trials=10)
    for builder, kw, pat in [("poisson-rr", dict(n=1), "n = 1"), ("swor-rr", dict(m=11, n=10), "m = 11"),
                             ("suppression-copies", dict(copies=0), "copies"), ("suppression-star", dict(leaves=1.5),
                                                                                  "leaves"),
                             ("normalisation", dict(far=float("inf")), "far")]:
        with pytest.raises(ValueError, match=pat):
            scenario(builder, **kw)


def test_scenario_default_suppressor_deletes_exactly_with_the_scores() -> None:
    """With user scores and no suppressor, each record is deleted with probability exactly its score (as a
    double, the value the exact audit uses): the same draws as ``bernoulli(scores)`` from the same generator
    state, and a G-test of the joint keep pattern of the 2 records of D₁ against Π of the exact keep
    probabilities (10⁵ runs, seed 6); bad scores are clear errors."""
    from fractions import Fraction
    from itertools import product

    scores = lambda d, metric, m, M: np.full(len(d), 0.1) if len(d) == 1 else np.array([0.1, 1 / 3])  # noqa: E731
    s = scenario("self-exclusion", scores=scores)
    d1 = s.dataset_1
    keep = s.procedure(d1, np.random.default_rng(6))
    assert np.array_equal(keep, ~bernoulli(np.array([0.1, 1 / 3]), 2, np.random.default_rng(6)))
    rng = np.random.default_rng(6)
    runs = np.array([s.procedure(d1, rng) for _ in range(100_000)])
    observed: dict = {}
    for row in map(tuple, runs.tolist()):
        observed[row] = observed.get(row, 0) + 1
    p = [1 - Fraction(0.1), 1 - Fraction(1 / 3)]          # exact keep probabilities of the two doubles
    probs = {(a, b): (p[0] if a else 1 - p[0]) * (p[1] if b else 1 - p[1]) for a, b in product((True, False), repeat=2)}
    assert g_test_pooled(observed, probs, 100_000) > 1e-6
    assert [Fraction(x) for x in s.keep_probabilities(d1)] == p
    for bad, pattern in [(lambda d, *a: np.full(len(d), 1.5), "outside its domain"),
                         (lambda d, *a: np.full(len(d), np.nan), "outside its domain"),
                         (lambda d, *a: np.zeros(len(d) + 1), "one score per record")]:
        with pytest.raises(ValueError, match=pattern):
            scenario("self-exclusion", scores=bad).procedure(d1, np.random.default_rng(0))
