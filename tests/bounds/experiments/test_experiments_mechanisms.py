"""The seed-000 mechanisms are the ones their budgets assume: distributions checked against independent
formulas (closed-form CDFs, exact win probabilities, mpmath), at fixed seeds."""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import bounds
from bounds.experiments import FAITHFUL, FIXED, Errata
from bounds.experiments.mechanisms import (exponential_mechanism, exponential_mechanism_probabilities,
                                           gaussian_sigma, noisy_average, report_noisy_max, sum_sensitivity)
from bounds.experiments import runner
from bounds.experiments.runner import keep_blocks
from tests.goodness_of_fit import Z_999, g_test_pooled, wilson

N = 40_000
KS_999 = 1.95 / math.sqrt(N)  # two-sided Kolmogorov–Smirnov critical value at α = 0.001


def ks_statistic(sample: np.ndarray, cdf) -> float:
    xs = np.sort(sample)
    f = np.array([cdf(float(x)) for x in xs])
    i = np.arange(1, xs.size + 1)
    return float(max(np.max(i / xs.size - f), np.max(f - (i - 1) / xs.size)))


def laplace_cdf(b: float):
    return lambda x: 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)


def test_noisy_average_laplace_sum_noise_scale():
    # a huge count makes the count noise negligible: out·C − S is the sum's noise, Lap(Δ/(ε/2))
    eps, lo, hi = 0.5, 0.0, 11890.0
    C, S = 2.0 ** 60, 1000.0
    out = noisy_average(np.full(N, S), np.full(N, C), eps, 0.0, lo, hi, "laplace", np.random.default_rng(11))
    noise = out * C - S
    b = 11890.0 / (eps / 2)
    assert ks_statistic(noise, laplace_cdf(b)) < KS_999
    assert abs(np.mean(np.abs(noise)) / b - 1) < 0.03  # E|L| = b; sd of the mean ≈ b/√N


def test_noisy_average_laplace_count_noise_scale():
    # a huge sum makes the sum noise negligible: S/out − c is the count's noise, Lap(1/(ε/2))
    eps = 1.0
    S, c = 2.0 ** 60, 1000.0
    out = noisy_average(np.full(N, S), np.full(N, c), eps, 0.0, 0.0, 1.0, "laplace", np.random.default_rng(12))
    noise = S / out - c
    assert ks_statistic(noise, laplace_cdf(2.0)) < KS_999


def test_noisy_average_gaussian_uses_the_delta_constrained_sigma():
    eps, delta, hi = 0.5, 1e-6, 100.0
    C, S = 2.0 ** 60, 0.0
    out = noisy_average(np.full(N, S), np.full(N, C), eps, delta, 0.0, hi, "gaussian", np.random.default_rng(13))
    noise = out * C
    sigma = bounds.gaussian_sigma(eps / 2, delta / 2, hi)
    cdf = lambda x: 0.5 * math.erfc(-x / (sigma * math.sqrt(2)))  # noqa: E731
    assert ks_statistic(noise, cdf) < KS_999


def _mp_sigma(eps: float, delta: float) -> mpmath.mpf:
    """Balle–Wang's σ/Δ solved from the definition with mpmath (independent of bounds.gaussian_sigma)."""
    mpmath.mp.dps = 40
    e, d = mpmath.mpf(eps), mpmath.mpf(delta)
    f = lambda s: mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s) - d  # noqa: E731
    a, b = mpmath.mpf(1), mpmath.mpf(200)  # f(a) > 0 > f(b): δ decreases in σ; bisection to 2^-100
    for _ in range(100):
        c = (a + b) / 2
        a, b = (c, b) if f(c) > 0 else (a, c)
    return b


def test_erratum1_sigma_fixed_value():
    # SYSTEMS §1.4 erratum 1: at (0.125, 4.7e-10) the δ-constrained σ/Δ is 41.56
    s = gaussian_sigma(0.125, 4.7e-10, 1.0, FIXED)
    ref = _mp_sigma(0.125, 4.7e-10)
    assert s >= float(ref) and s / float(ref) - 1 < 1e-12
    assert round(s, 2) == 41.57 and 41.56 <= s < 41.57


def test_erratum1_sigma_faithful_value():
    pytest.importorskip("scipy", reason="the faithful calibration reproduces scipy's BFGS stopping point")
    s = gaussian_sigma(0.125, 4.7e-10, 1.0, FAITHFUL)
    assert round(s, 2) == 25.80  # SYSTEMS §1.4: 25.80 instead of 41.56 — 38 % too small
    assert gaussian_sigma(0.125, 1e-3, 1.0, FAITHFUL) == s  # ignores δ (same branch)
    assert gaussian_sigma(0.125, 1e-3, 1.0, FIXED) < gaussian_sigma(0.125, 4.7e-10, 1.0, FIXED)


def test_sum_sensitivity_erratum5():
    assert sum_sensitivity(0, 11890, FIXED) == sum_sensitivity(0, 11890, FAITHFUL) == 11890
    assert sum_sensitivity(1, 10, FIXED) == 10 and sum_sensitivity(1, 10, FAITHFUL) == 9
    assert sum_sensitivity(-5, 3, FIXED) == 5 and sum_sensitivity(-5, 3, FAITHFUL) == 8


def test_exponential_mechanism_probabilities_exact():
    counts = np.array([3.0, 1.0, 0.0, 3.0, 2.0])
    eps = 0.7
    p = exponential_mechanism_probabilities(counts, eps)
    mpmath.mp.dps = 50
    w = [mpmath.exp(mpmath.mpf(eps) * int(c) / 2) for c in counts]
    ref = [float(x / sum(w)) for x in w]
    assert np.allclose(p, ref, rtol=4e-16, atol=0)


def test_exponential_mechanism_draws_match_probabilities():
    counts = np.tile(np.array([3.0, 1.0, 0.0, 3.0, 2.0]), (N, 1))
    eps = 0.7
    idx = exponential_mechanism(counts, eps, np.random.default_rng(21))
    observed = np.bincount(idx, minlength=5)
    mpmath.mp.dps = 30
    w = [mpmath.exp(mpmath.mpf(eps) * c / 2) for c in (3, 1, 0, 3, 2)]
    probabilities = {i: float(x / sum(w)) for i, x in enumerate(w)}
    p_value = g_test_pooled({i: int(o) for i, o in enumerate(observed) if o}, probabilities, N)
    assert p_value > 1e-3, (observed, probabilities)


@pytest.mark.parametrize("noise", ["laplace", "gaussian", "exponential"])
def test_report_noisy_max_huge_epsilon_returns_the_mode(noise):
    counts = np.tile(np.array([5.0, 9.0, 8.0, 2.0]), (200, 1))
    out = report_noisy_max(counts, 1e9, 1e-9, noise, np.random.default_rng(3))
    assert np.all(out == 1)


def test_exponential_mechanism_huge_epsilon_returns_the_mode():
    counts = np.tile(np.array([5.0, 9.0, 8.0, 2.0]), (200, 1))
    assert np.all(exponential_mechanism(counts, 1e9, np.random.default_rng(4)) == 1)


def test_mode_ties_go_to_the_smallest_value():
    from bounds.experiments.mode import mode_of

    assert mode_of(np.array([2, 2, 5, 5, 1, 7]), 1, 10) == 2
    assert mode_of(np.array([3, 9, 9, 3]), 1, 10) == 3


def test_report_noisy_max_win_probability_laplace():
    # two candidates with counts (1, 0): P(out = 0) = P(L1 − L0 < 1) = 1 − ½e^{−1/b}(1 + 1/(2b))
    eps = 0.8
    b = 1 / eps
    out = report_noisy_max(np.tile([1.0, 0.0], (N, 1)), eps, 0.0, "laplace", np.random.default_rng(5))
    exact = 1 - 0.5 * math.exp(-1 / b) * (1 + 1 / (2 * b))
    lo, hi = wilson(int(np.sum(out == 0)), N, Z_999)
    assert lo <= exact <= hi


def test_report_noisy_max_win_probability_one_sided_exponential():
    # counts (1, 0), noise Exp(scale s = 2/ε): P(out = 0) = 1 − ½e^{−1/s}
    eps = 0.8
    s = 2 / eps
    out = report_noisy_max(np.tile([1.0, 0.0], (N, 1)), eps, 0.0, "exponential", np.random.default_rng(6))
    exact = 1 - 0.5 * math.exp(-1 / s)
    lo, hi = wilson(int(np.sum(out == 0)), N, Z_999)
    assert lo <= exact <= hi


def _keep_law(scores) -> dict:
    """The exact law of one repetition's keep pattern: record j kept independently with probability
    1 − scores[j], the float scores taken at their exact (dyadic) values."""
    law = {}
    for pattern in itertools.product((False, True), repeat=len(scores)):
        p = Fraction(1)
        for kept, s in zip(pattern, scores):
            p *= 1 - Fraction(float(s)) if kept else Fraction(float(s))
        law[pattern] = p
    return law


@pytest.mark.parametrize("scores", [[0.1, 0.5, 0.9, 0.0, 0.3], [0.3] * 4])  # per-record and shared scores
def test_keep_blocks_delete_with_the_score_probability(scores, monkeypatch):
    # small blocks (3 repetitions of 5 records, 2 of 4) so that the block boundaries are crossed many times
    monkeypatch.setattr(runner, "_BLOCK", 12)
    keeps = np.concatenate(list(keep_blocks(np.array(scores), N, np.random.default_rng(8))))
    assert keeps.shape == (N, len(scores)) and keeps.dtype == bool
    # the joint keep pattern (independence between records and repetitions included) against its exact law
    observed = Counter(map(tuple, keeps.tolist()))
    assert g_test_pooled(observed, _keep_law(scores), N) > 1e-4
    for j, s in enumerate(scores):
        lo, hi = wilson(int(keeps[:, j].sum()), N, Z_999)
        assert lo <= 1 - s <= hi or (s == 0 and keeps[:, j].all())


class _Words:
    """A stand-in generator handing out given 64-bit words, the binary expansion of each draw's uniform U
    (``bounds.procedures._bernoulli``: one word per draw in index order, then one per draw still undecided)."""

    def __init__(self, words):
        self.words = [int(w) for w in words]

    def integers(self, low, high, size, dtype):
        assert (low, high, dtype) == (0, 2 ** 64, np.uint64)
        out, self.words = self.words[:size], self.words[size:]
        return np.array(out, dtype=np.uint64)


def test_keep_blocks_delete_exactly_when_the_uniform_is_below_the_score():
    # Deleted iff U < s with U = Σ_k u_k 2^(−64k) (T14: probability exactly s), whatever the words.  s = 0.1
    # (the double 3602879701896397·2^−55) has the single word w = 3602879701896397·2^9: u₁ = w is U ≥ s, kept;
    # ``rng.random() < s`` would delete it (random() = ⌊u₁/2^11⌋·2^−53 = 0.09999999999999995).  s = 3·2^−70
    # has the words (0, 3·2^58): u₁ = 0 ties, then u₂ decides.
    s1, s2 = 0.1, 3 * 2.0 ** -70
    w1 = Fraction(s1) * 2 ** 64
    assert w1.denominator == 1 and Fraction(s2) * 2 ** 128 == 3 * 2 ** 58
    w1 = int(w1)
    # draws in repetition-major order: (rep 0: s1, s2), (rep 1: s1, s2); second round for the two ties
    words = [w1, 0, w1 - 1, 0, 3 * 2 ** 58 - 1, 3 * 2 ** 58]
    rng = _Words(words)
    keeps = np.concatenate(list(keep_blocks(np.array([s1, s2]), 2, rng)))
    assert rng.words == []
    assert keeps.tolist() == [[True, False], [False, True]]
    assert (w1 >> 11) * 2.0 ** -53 < s1  # the old comparison would have deleted the first draw


def test_errata_parse():
    assert Errata.parse("") == FIXED and Errata.parse("all") == FAITHFUL
    assert Errata.parse("sum_sensitivity").names == ("sum_sensitivity",)
    with pytest.raises(ValueError, match="not an erratum"):
        Errata.parse("sum")


def test_report_noisy_max_win_probability_gaussian():
    # counts (1, 0), N(0, σ²) noise with the T10 σ at (ε, δ), Δ = 1: P(out = 0) = Φ(1/(σ√2))
    eps, delta = 0.8, 1e-6
    sigma = bounds.gaussian_sigma(eps, delta)
    out = report_noisy_max(np.tile([1.0, 0.0], (N, 1)), eps, delta, "gaussian", np.random.default_rng(7))
    exact = 0.5 * math.erfc(-1 / (sigma * math.sqrt(2)) / math.sqrt(2))
    lo, hi = wilson(int(np.sum(out == 0)), N, Z_999)
    assert lo <= exact <= hi
