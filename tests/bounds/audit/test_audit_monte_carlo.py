"""Monte Carlo audits: the audit mechanisms sample exactly their stated distributions (G-tests at fixed seeds),
the tight T1/T2 scenarios are approached to within a computed margin, output modes, reproducibility and input
validation."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from bounds.audit import NoisyCount, RandomizedResponse, clopper_pearson, monte_carlo_audit, scenario


def _g_p_value(observed: np.ndarray, expected: np.ndarray) -> float:
    """P-value of the G-test (cells with expected < 5 merged into one)."""
    big = expected >= 5
    obs = np.r_[observed[big], observed[~big].sum()] if (~big).any() else observed[big]
    exp = np.r_[expected[big], expected[~big].sum()] if (~big).any() else expected[big]
    nz = obs > 0
    g = 2.0 * float(np.sum(obs[nz] * np.log(obs[nz] / exp[nz])))
    return float(mpmath.gammainc((len(obs) - 1) / 2, g / 2, mpmath.inf, regularized=True))


@pytest.mark.parametrize("eps", [0.05, 0.7, 3.0])
def test_noisy_count_samples_discrete_laplace(eps: float) -> None:
    """Z = output − S has P(Z = z) = (1 − α)/(1 + α)·α^|z|, α = e^−ε (G-test, 200,000 draws, seed 9)."""
    mech = NoisyCount(eps, weights=lambda d: np.where(d > 0, 1, -1))
    data = np.array([1.0, -1.0, 1.0])
    kept = np.zeros((200_000, 3), dtype=bool)
    kept[:, 0] = True                                            # S = 1 in every row
    z = mech.sample(kept, data, np.random.default_rng(9)) - 1
    span = int(np.abs(z).max())
    values = np.arange(-span - 1, span + 2)
    obs = np.array([(z == v).sum() for v in values], dtype=float)
    with mpmath.workdps(30):
        a = mpmath.exp(-eps)
        probs = [(1 - a) / (1 + a) * a ** abs(int(v)) for v in values]
        probs[0] += (1 - a) / (1 + a) * a ** (span + 2) / (1 - a)   # tails beyond the window, into the end cells
        probs[-1] += (1 - a) / (1 + a) * a ** (span + 2) / (1 - a)
    expected = 200_000 * np.array([float(p) for p in probs])
    assert _g_p_value(obs, expected) > 1e-6


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_randomized_response_flip_rate(eps: float) -> None:
    mech = RandomizedResponse(eps, weights=lambda d: (d == 1.0).astype(int))
    data = np.array([0.0, 1.0])
    kept = np.zeros((100_000, 2), dtype=bool)
    kept[:50_000, 1] = True                                      # bit 1 in the first half
    out = mech.sample(kept, data, np.random.default_rng(4))
    flip = 1 / (1 + math.exp(eps))
    obs = np.array([out[:50_000].sum(), 50_000 - out[:50_000].sum(), out[50_000:].sum(), 50_000 - out[50_000:].sum()])
    exp = 50_000 * np.array([1 - flip, flip, flip, 1 - flip])
    assert _g_p_value(obs.astype(float), exp) > 1e-6


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
