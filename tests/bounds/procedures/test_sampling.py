"""bounds.procedures.sampling: each sampler draws exactly the distribution its theorem assumes.

Distributions are checked with a G-test (likelihood-ratio test of the observed cell counts against the exact
probabilities from enumeration, in exact rationals) at a fixed seed; a test fails when the p-value is below
ALPHA = 1e-4 (the chi-square tail from mpmath's regularised incomplete gamma function, no normal
approximation, no scipy).  With a fixed seed each test is deterministic; a wrong sampler (a fixed-size batch
in place of Poisson, a non-uniform subset) gives p-values of 1e-30 or less at these sample sizes.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from mpmath import mp, mpf

import bounds
from bounds.procedures import (BallsAndBinsBatches, CyclicBatches, FixedSizeBatches, PoissonBatches,
                               RandomAllocationBatches, ShuffledBatches, effective_rate, poisson_guarantee,
                               poisson_sample, sample_with_replacement, sample_without_replacement)
from bounds.samplers import SAMPLERS
from tests.goodness_of_fit import g_test

ALPHA = 1e-4


def counts_of(rows) -> dict:
    out: dict = {}
    for r in rows:
        out[r] = out.get(r, 0) + 1
    return out


def test_g_test_rejects_a_wrong_distribution():
    # the check can fail: a fair coin's counts against a 0.45/0.55 coin
    rng = np.random.default_rng(0)
    flips = rng.random(100_000) < 0.5
    obs = {True: int(flips.sum()), False: int((~flips).sum())}
    assert g_test(obs, {True: Fraction(1, 2), False: Fraction(1, 2)}, 100_000) > ALPHA
    assert g_test(obs, {True: Fraction(45, 100), False: Fraction(55, 100)}, 100_000) < 1e-30


# ------------------------------------------------------------------------------------------------ Poisson
def test_poisson_joint_keep_patterns_per_record_rates():
    rates = [0.1, 0.5, 0.7, 0.95]
    trials = 100_000
    mask = poisson_sample(4 * trials, np.tile(rates, trials), rng=np.random.default_rng(1)).reshape(trials, 4)
    obs = counts_of(map(tuple, mask.tolist()))
    exact = [Fraction(r) for r in rates]
    expected = {pattern: math.prod(p if k else 1 - p for p, k in zip(exact, pattern))
                for pattern in itertools.product([False, True], repeat=4)}
    assert g_test(obs, expected, trials) > ALPHA


def test_poisson_uniform_rate_sizes_are_binomial():
    n, p, trials = 6, 0.3, 50_000
    g = np.random.default_rng(2)
    sizes = [int(poisson_sample(n, p, rng=g).sum()) for _ in range(trials)]
    q = Fraction(p)
    expected = {k: math.comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(n + 1)}
    assert g_test(counts_of(sizes), expected, trials) > ALPHA


def test_a_fixed_size_batch_is_not_poisson():
    # the planted bug of jax_privacy #121 fails the same size test
    n, p, trials = 6, 0.5, 20_000
    g = np.random.default_rng(3)
    sizes = [len(sample_without_replacement(n, 3, rng=g)) for _ in range(trials)]
    expected = {k: Fraction(math.comb(n, k), 2 ** n) for k in range(n + 1)}
    assert g_test(counts_of(sizes), expected, trials) < 1e-30


def test_poisson_edge_rates_and_data_input():
    assert not poisson_sample(5, 0.0, rng=0).any()
    assert poisson_sample(5, 1.0, rng=0).all()
    assert poisson_sample(["a", "b", "c"], 1.0, rng=0).tolist() == [True, True, True]
    assert poisson_sample(np.zeros((7, 3)), 0.5, rng=0).shape == (7,)
    assert poisson_sample(0, 0.5, rng=0).shape == (0,)


def test_poisson_reproducible_by_seed():
    a = poisson_sample(1000, 0.3, rng=np.random.default_rng(42))
    b = poisson_sample(1000, 0.3, rng=np.random.default_rng(42))
    c = poisson_sample(1000, 0.3, rng=42)
    assert np.array_equal(a, b) and np.array_equal(a, c)


def test_effective_rate_is_the_rate():
    for p in [0.0, 1.0, 0.5, 0.1, 1 / 3, 5e-324]:
        assert effective_rate(p) == p
    assert np.array_equal(effective_rate(np.array([0.5, 0.1])), [0.5, 0.1])


def test_poisson_guarantee_uses_the_largest_rate():
    rates = np.array([0.001, 0.2, 0.05])
    g = poisson_guarantee(1.0, 1e-6, rates)
    assert g == bounds.poisson_subsampling(1.0, 1e-6, 0.2)
    assert g.epsilon > bounds.poisson_subsampling(1.0, 1e-6, 0.05).epsilon
    # reference from the definition at p = max rate (mpmath, 50 digits): ln(1 + p(e − 1)) ≤ returned ε
    with mp.workdps(50):
        ref = mp.log(1 + mpf(Fraction(0.2).numerator) / Fraction(0.2).denominator * (mp.e - 1))
    assert mpf(g.epsilon) >= ref
    assert poisson_guarantee(1.0, 1e-6, 0.5) == bounds.poisson_subsampling(1.0, 1e-6, 0.5)


# ------------------------------------------------------------------------------------- without replacement
# m close to n takes numpy's other branch (a partial shuffle): uniform too
@pytest.mark.parametrize("n, m, trials, seed", [(5, 2, 60_000, 5), (6, 5, 30_000, 6)])
def test_without_replacement_uniform_subsets(n, m, trials, seed):
    g = np.random.default_rng(seed)
    obs = counts_of(tuple(sample_without_replacement(n, m, rng=g).tolist()) for _ in range(trials))
    expected = {c: Fraction(1, math.comb(n, m)) for c in itertools.combinations(range(n), m)}
    assert g_test(obs, expected, trials) > ALPHA


def test_without_replacement_shape_and_edges():
    idx = sample_without_replacement(1000, 300, rng=7)
    assert idx.dtype == np.int64 and len(np.unique(idx)) == 300 and (np.diff(idx) > 0).all()
    assert sample_without_replacement(4, 0, rng=0).tolist() == []
    assert sample_without_replacement(4, 4, rng=0).tolist() == [0, 1, 2, 3]
    assert sample_without_replacement([10, 20, 30], 3.0, rng=0).tolist() == [0, 1, 2]


# ---------------------------------------------------------------------------------------- with replacement
def test_with_replacement_multinomial_counts():
    n, m, trials = 3, 4, 60_000
    g = np.random.default_rng(8)
    obs = counts_of(tuple(sample_with_replacement(n, m, rng=g).tolist()) for _ in range(trials))
    expected = {}
    for c in itertools.product(range(m + 1), repeat=n):
        if sum(c) == m:
            expected[c] = Fraction(math.factorial(m), math.prod(math.factorial(k) for k in c) * n ** m)
    assert g_test(obs, expected, trials) > ALPHA


def test_with_replacement_edges():
    c = sample_with_replacement(10, 1000, rng=9)
    assert c.dtype == np.int64 and c.shape == (10,) and c.sum() == 1000 and (c >= 0).all()
    assert sample_with_replacement(3, 0, rng=0).tolist() == [0, 0, 0]


# ------------------------------------------------------------------------------------------ batch samplers
def test_shuffled_first_batch_uniform_and_partition():
    trials = 30_000
    s = ShuffledBatches(4, 2)
    g = np.random.default_rng(10)
    firsts = []
    for _ in range(trials):
        b = list(s.epoch(g))
        assert len(b) == 2 and sorted(np.concatenate(b).tolist()) == [0, 1, 2, 3]
        firsts.append(tuple(b[0].tolist()))
    expected = {c: Fraction(1, 6) for c in itertools.combinations(range(4), 2)}
    assert g_test(counts_of(firsts), expected, trials) > ALPHA


def test_shuffled_drop_remainder_uniform_ordered_batches():
    # n = 7, b = 3, drop_remainder: the two batches are a uniform ordered pair of disjoint 3-subsets (140
    # cells) and the seventh record sits out; sizes exact
    n, b, trials = 7, 3, 28_000
    s = ShuffledBatches(n, b, drop_remainder=True)
    g = np.random.default_rng(11)
    obs = []
    for _ in range(trials):
        batches = [tuple(x.tolist()) for x in s.epoch(g)]
        assert [len(x) for x in batches] == [3, 3]
        obs.append(tuple(batches))
    cells = [(a, c) for a in itertools.combinations(range(n), b) for c in itertools.combinations(range(n), b)
             if not set(a) & set(c)]
    assert len(cells) == 140
    assert g_test(counts_of(obs), {c: Fraction(1, len(cells)) for c in cells}, trials) > ALPHA


def test_shuffled_partial_last_batch_uniform_ordered_partition():
    # n = 7, b = 3 (drop_last=False): batches of sizes 3, 3, 1, a uniform ordered partition of the records into
    # them (7!/(3!·3!·1!) = 140 cells) — the pipeline whose T = ⌈n/b⌉ = 3 pair docs/samplers/shuffle.md proves
    n, b, trials = 7, 3, 28_000
    s = ShuffledBatches(n, b)
    assert len(s) == 3 and s.steps_per_epoch == 3
    g = np.random.default_rng(12)
    obs = []
    for _ in range(trials):
        batches = [tuple(x.tolist()) for x in s.epoch(g)]
        assert [len(x) for x in batches] == [3, 3, 1]
        obs.append(tuple(batches))
    cells = [(a, c, tuple(sorted(set(range(n)) - set(a) - set(c))))
             for a in itertools.combinations(range(n), b) for c in itertools.combinations(range(n), b)
             if not set(a) & set(c)]
    assert len(cells) == 140
    assert g_test(counts_of(obs), {c: Fraction(1, len(cells)) for c in cells}, trials) > ALPHA


def test_partial_last_batch_accounting_counts_it():
    # the procedure and the accountant's words agree on T = ⌈n/b⌉ (sampler_composition's step convention)
    g = bounds.Gaussian.from_noise_multiplier(1.0)
    for sampler in (ShuffledBatches(7, 3), CyclicBatches(7, 3)):
        words = sampler.crosscheck_keywords(epochs=2)
        assert words["steps_per_epoch"] == 3 and words["batch_size"] == 3 and words["dataset_size"] == 7
        assert sampler.accounting(g, epochs=2)[0][1] == 2
    assert ShuffledBatches(7, 3).accounting(g)[0][0].steps_per_epoch == 3
    with pytest.raises(ValueError, match="sit out"):
        ShuffledBatches(7, 3, drop_remainder=True).accounting(g)


@pytest.mark.parametrize("n,T,trials,seed", [(3, 2, 40_000, 11), (3, 5, 25_000, 20261201)])
def test_balls_and_bins_assignment_uniform(n, T, trials, seed):
    # the joint assignment of all n records: every bin uniform and the records independent
    s = BallsAndBinsBatches(n, T)
    g = np.random.default_rng(seed)
    obs = []
    for _ in range(trials):
        where = [None] * n
        for t, batch in enumerate(s.epoch(g)):
            for i in batch.tolist():
                assert where[i] is None
                where[i] = t
        obs.append(tuple(where))
    expected = {c: Fraction(1, T ** n) for c in itertools.product(range(T), repeat=n)}
    assert g_test(counts_of(obs), expected, trials) > ALPHA


@pytest.mark.parametrize("n,T,k,trials,seed", [(2, 4, 2, 40_000, 12), (1, 5, 2, 5_000, 7), (2, 5, 3, 40_000, 21)])
def test_random_allocation_uniform_k_subsets_independent(n, T, k, trials, seed):
    s = RandomAllocationBatches(n, T, selected=k)
    g = np.random.default_rng(seed)
    obs = []
    for _ in range(trials):
        steps = [[] for _ in range(n)]
        for t, batch in enumerate(s.epoch(g)):
            for i in batch.tolist():
                steps[i].append(t)
        assert all(len(x) == k for x in steps)
        obs.append(tuple(map(tuple, steps)))
    subsets = list(itertools.combinations(range(T), k))
    expected = {c: Fraction(1, len(subsets) ** n) for c in itertools.product(subsets, repeat=n)}
    assert g_test(counts_of(obs), expected, trials) > ALPHA


def test_poisson_batches_sizes_binomial_and_accounting():
    n, q, trials = 5, 0.25, 10_000
    s = PoissonBatches(n, q, trials)
    sizes = [len(b) for b in s.epoch(np.random.default_rng(13))]
    expected = {k: math.comb(n, k) * Fraction(1, 4) ** k * Fraction(3, 4) ** (n - k) for k in range(n + 1)}
    assert g_test(counts_of(sizes), expected, trials) > ALPHA
    mech = bounds.Gaussian.from_noise_multiplier(1.1)
    [(step, count)] = s.accounting(mech, epochs=2)
    assert step == bounds.poisson_sampled(mech, 0.25) and count == 2 * trials
    assert s.crosscheck_keywords(3)["sampler"] == "poisson" and s.crosscheck_keywords(3)["epochs"] == 3


def test_fixed_size_batches_each_step_uniform():
    s = FixedSizeBatches(4, 2, 30_000)
    obs = counts_of(tuple(b.tolist()) for b in s.epoch(np.random.default_rng(14)))
    expected = {c: Fraction(1, 6) for c in itertools.combinations(range(4), 2)}
    assert g_test(obs, expected, 30_000) > ALPHA


def test_cyclic_batches_fixed():
    s = CyclicBatches(6, 3, order=[5, 4, 3, 2, 1, 0])
    assert [b.tolist() for b in s.epoch()] == [[3, 4, 5], [0, 1, 2]]
    assert [b.tolist() for b in s.epochs(2, rng=0)] == [[3, 4, 5], [0, 1, 2], [3, 4, 5], [0, 1, 2]]
    assert [b.tolist() for b in CyclicBatches(7, 3, drop_remainder=True)] == [[0, 1, 2], [3, 4, 5]]
    assert [b.tolist() for b in CyclicBatches(9, 3)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert [b.tolist() for b in CyclicBatches(7, 3)] == [[0, 1, 2], [3, 4, 5], [6]]


def test_cyclic_accounting():
    g = bounds.Gaussian.from_noise_multiplier(2.0)
    s = CyclicBatches(60, 6)
    assert s.accounting(g, epochs=5) == [(bounds.cyclic(g, 10), 5)]
    [(doubled, count)] = s.accounting(g, epochs=5, adjacency="replace_one")
    assert count == 5 and doubled.adjacency == "replace_one"
    effective = doubled._effective  # the step at sensitivity 2: θ → 2θ, rounded up
    assert effective.theta >= 2 * g.theta and effective.theta <= 2 * g.theta * (1 + 2 ** -51)
    # one step of the Gaussian per epoch: 5 epochs at σ = 2 are the Gaussian at θ = √5/2 (mpmath reference)
    with mp.workdps(50):
        theta = mp.sqrt(5) / 2
        ref = mp.ncdf(theta / 2 - 1 / theta) - mp.e * mp.ncdf(-theta / 2 - 1 / theta)
    sandwich = bounds.compose(s.accounting(g, epochs=5), tolerance=1e-2).delta(1.0)
    assert sandwich.lower <= float(ref) <= sandwich.upper
    with pytest.raises(ValueError, match="adjacency"):
        s.accounting(g, adjacency="add_remove")
    with pytest.raises(ValueError, match="replace_one"):
        s.accounting(bounds.EpsDelta(1.0, 1e-6), adjacency="replace_one")
    assert s.accounting(bounds.EpsDelta(1.0, 1e-6), epochs=3) == [(bounds.EpsDelta(1.0, 1e-6), 3)]
    with pytest.raises(TypeError, match="mechanism"):
        s.accounting("gaussian")
    with pytest.raises(ValueError, match="epochs"):
        s.accounting(g, epochs=0)


def test_shuffled_accounting_upper():
    # the fixed-batch upper bound: also for records sitting out (drop_remainder) and for Laplace / EpsDelta
    g = bounds.Gaussian.from_noise_multiplier(2.0)
    assert ShuffledBatches(60, 6).accounting_upper(g, epochs=5) == [(g, 5)]
    assert ShuffledBatches(61, 6, drop_remainder=True).accounting_upper(g, epochs=5) == [(g, 5)]
    lap = bounds.Laplace(theta=0.5)
    assert ShuffledBatches(60, 6).accounting_upper(lap, epochs=2, adjacency="replace_one") == [(lap.group(2), 2)]
    with pytest.raises(ValueError, match="add/remove"):
        ShuffledBatches(60, 6).accounting_upper(g, adjacency="add/remove")
    # the certified lower side assumes every record in a batch: refused when records sit out
    with pytest.raises(ValueError, match="sit out"):
        ShuffledBatches(61, 6, drop_remainder=True).accounting(g)


SAMPLERS_OF_EACH_KIND = [
    (lambda: PoissonBatches(1000, 0.01, 100), dict(sampler="poisson", steps_per_epoch=100, rate=0.01)),
    (lambda: BallsAndBinsBatches(1000, 20), dict(sampler="balls_and_bins", steps_per_epoch=20)),
    (lambda: RandomAllocationBatches(1000, 20, selected=3),
     dict(sampler="random_allocation", steps_per_epoch=20, selected=3)),
    (lambda: ShuffledBatches(1000, 50), dict(sampler="shuffle", batch_size=50, dataset_size=1000)),
    (lambda: FixedSizeBatches(1000, 50, 20), dict(sampler="fixed_size", batch_size=50, dataset_size=1000)),
    (lambda: CyclicBatches(1000, 50), dict(sampler="cyclic", batch_size=50, dataset_size=1000)),
]


@pytest.mark.parametrize("make,words", SAMPLERS_OF_EACH_KIND, ids=[w["sampler"] for _, w in SAMPLERS_OF_EACH_KIND])
def test_accounting_is_the_sampler_composition_of_the_same_words(make, words):
    # the procedure's accounting = what sampler_composition builds from the DP-SGD words written by hand
    # (T = ⌈n/b⌉ = 20 steps per epoch, q = b/n), and from the procedure's own crosscheck_keywords
    from bounds.samplers.wiring import ADJACENCY, sampler_steps

    s = make()
    g = bounds.Gaussian.from_noise_multiplier(2.0)
    for adjacency in ADJACENCY[s.sampler][1]:
        steps = s.accounting(g, epochs=3, adjacency=adjacency)
        by_hand, _ = sampler_steps(mechanism=g, epochs=3, adjacency=adjacency, **words)
        by_keywords, _ = sampler_steps(mechanism=g, adjacency=adjacency, **s.crosscheck_keywords(3))
        assert steps == by_hand == by_keywords
        assert getattr(steps[0][0], "adjacency", "add_remove") == adjacency  # carried as data in the round
    if s.sampler == "cyclic":  # cheap to compose: the Composition itself agrees
        comp, text = bounds.sampler_composition(noise_multiplier=2.0, tolerance=1e-2, **s.crosscheck_keywords(3))
        assert comp.delta(1.0) == bounds.compose(s.accounting(g, epochs=3), tolerance=1e-2).delta(1.0)
        assert comp.total_steps == bounds.compose(s.accounting(g, epochs=3)).total_steps


def test_sampler_parameters_as_data():
    assert ShuffledBatches(60, 6).crosscheck_keywords() == {"sampler": "shuffle", "steps_per_epoch": 10,
                                                           "batch_size": 6, "dataset_size": 60, "epochs": 1}
    assert BallsAndBinsBatches(60, 10).crosscheck_keywords(2) == {
        "sampler": "balls_and_bins", "steps_per_epoch": 10, "dataset_size": 60, "epochs": 2}
    assert BallsAndBinsBatches(60, 10).batch_size == 6.0
    assert RandomAllocationBatches(60, 10, selected=2).crosscheck_keywords()["selected"] == 2
    assert FixedSizeBatches(60, 6, 10).sampler == "fixed_size"
    assert CyclicBatches(60, 6).sampler == "cyclic"
    assert "ShuffledBatches(" in repr(ShuffledBatches(60, 6))
    assert {cls.sampler for cls in (PoissonBatches, BallsAndBinsBatches, RandomAllocationBatches, ShuffledBatches,
                                    FixedSizeBatches, CyclicBatches)} == set(SAMPLERS)


def test_samplers_iterate_with_their_own_generator():
    a = [b.tolist() for b in ShuffledBatches(12, 3, rng=5)]
    b = [b.tolist() for b in ShuffledBatches(12, 3).epoch(np.random.default_rng(5))]
    assert a == b and len(ShuffledBatches(12, 3)) == 4
    s = BallsAndBinsBatches(30, 3, rng=np.random.default_rng(6))
    first, second = [x.tolist() for x in s], [x.tolist() for x in s]  # the stream goes on: a fresh epoch
    g = np.random.default_rng(6)
    assert first == [x.tolist() for x in BallsAndBinsBatches(30, 3).epoch(g)]
    assert second == [x.tolist() for x in BallsAndBinsBatches(30, 3).epoch(g)]
    assert sum(len(x) for x in PoissonBatches(10, 1.0, 3, rng=0)) == 30
    with pytest.raises(ValueError, match="rng"):
        FixedSizeBatches(10, 2, 3, rng="x")


def test_batch_epochs_reproducible_by_seed():
    for s in (ShuffledBatches(20, 5), BallsAndBinsBatches(20, 4), RandomAllocationBatches(20, 5, selected=2),
              PoissonBatches(20, 0.3, 4), FixedSizeBatches(20, 5, 4)):
        a = [b.tolist() for b in s.epochs(3, rng=np.random.default_rng(99))]
        b = [b.tolist() for b in s.epochs(3, rng=np.random.default_rng(99))]
        assert a == b


# ------------------------------------------------------------------------------------------------ bad input
BAD_RATES = [math.nan, -0.1, 1.5, math.inf, "0.5", True, 1j, None, 10 ** 400]


@pytest.mark.parametrize("rate", BAD_RATES)
def test_poisson_bad_rate(rate):
    with pytest.raises(ValueError, match="rate"):
        poisson_sample(5, rate, rng=0)


def test_poisson_bad_shapes_and_counts():
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        poisson_sample(3, [0.1, 0.2], rng=0)
    with pytest.raises(ValueError, match="rate"):
        poisson_sample(3, [0.1, np.nan, 0.2], rng=0)
    with pytest.raises(ValueError, match="rate"):
        poisson_sample(3, [[0.1, 0.2, 0.3]], rng=0)
    for n in (-1, True, 2.5, "abc", None, 1j, 10 ** 400, 2 ** 53 + 1):
        with pytest.raises(ValueError, match="n_or_data"):
            poisson_sample(n, 0.5, rng=0)
    with pytest.raises(ValueError, match="empty"):
        poisson_guarantee(1.0, 0.0, [])
    with pytest.raises(ValueError, match="rng"):
        poisson_sample(3, 0.5, rng="seed")
    with pytest.raises(ValueError, match="rng"):
        poisson_sample(3, 0.5, rng=np.random.RandomState(0))
    with pytest.raises(ValueError, match="rng"):
        poisson_sample(3, 0.5, rng=-1)


def test_subset_samplers_bad_input():
    with pytest.raises(ValueError, match="m = 6"):
        sample_without_replacement(5, 6, rng=0)
    for m in (-1, 2.5, math.nan, math.inf, "2", True, 10 ** 400, 2 ** 53 + 1):
        with pytest.raises(ValueError, match="m"):
            sample_without_replacement(5, m, rng=0)
        with pytest.raises(ValueError, match="m"):
            sample_with_replacement(5, m, rng=0)
    with pytest.raises(ValueError, match="n = 0"):
        sample_with_replacement(0, 1, rng=0)
    assert sample_without_replacement(np.int64(5), np.int32(2), rng=0).shape == (2,)


def test_batch_samplers_bad_input():
    assert len(ShuffledBatches(10, 3)) == 4 and len(ShuffledBatches(10, 3, drop_remainder=True)) == 3
    for bad in (0, -1, 2.5, math.nan, "3", True, 11, 10 ** 400):
        with pytest.raises(ValueError, match="batch_size"):
            ShuffledBatches(10, bad)
        with pytest.raises(ValueError, match="batch_size"):
            CyclicBatches(10, bad)
    with pytest.raises(TypeError, match="rng"):
        BallsAndBinsBatches(3, 2, rng="seed")
    with pytest.raises(ValueError, match="batch_size"):
        FixedSizeBatches(10, 11, 2)
    with pytest.raises(ValueError, match="rate"):
        PoissonBatches(10, 1.5, 2)
    with pytest.raises(ValueError, match="rate"):
        PoissonBatches(10, [0.1, 0.2], 2)
    with pytest.raises(ValueError, match="selected"):
        RandomAllocationBatches(10, 3, selected=4)
    with pytest.raises(ValueError, match="order"):
        CyclicBatches(4, 2, order=[0, 0, 1, 2])
    with pytest.raises(ValueError, match="steps"):
        BallsAndBinsBatches(10, 0)
    with pytest.raises(ValueError, match="drop_remainder"):
        CyclicBatches(4, 2, drop_remainder="yes")
