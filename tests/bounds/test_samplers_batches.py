"""The batch procedures are exactly the ones the samplers' theorems assume: chi-square tests (fixed seed) of
the distributions that matter, and exact structure checks."""
import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from bounds.samplers.batches import (balls_and_bins_batches, cyclic_batches, random_allocation_batches,
                                     shuffled_batches)


def _chi2_pvalue(counts, expected):
    stat = float(((counts - expected) ** 2 / expected).sum())
    df = len(counts) - 1
    return float(mp.gammainc(df / 2.0, stat / 2.0, mp.inf, regularized=True))


def test_balls_and_bins_uniform_and_independent():
    rng = np.random.default_rng(20261201)
    T, trials = 5, 4000
    first = np.zeros(T)
    pair = np.zeros(T * T)
    for _ in range(trials):
        b = balls_and_bins_batches(3, T, rng)
        where = {int(i): t for t, batch in enumerate(b) for i in batch}
        first[where[0]] += 1
        pair[where[0] * T + where[1]] += 1
    assert _chi2_pvalue(first, np.full(T, trials / T)) > 1e-3
    assert _chi2_pvalue(pair, np.full(T * T, trials / T ** 2)) > 1e-3  # records independent


def test_random_allocation_uniform_k_subsets():
    rng = np.random.default_rng(7)
    T, k, trials = 5, 2, 5000
    subsets = {s: i for i, s in enumerate(itertools.combinations(range(T), k))}
    counts = np.zeros(len(subsets))
    for _ in range(trials):
        b = random_allocation_batches(1, T, k, rng)
        counts[subsets[tuple(t for t in range(T) if len(b[t]))]] += 1
    assert _chi2_pvalue(counts, np.full(len(subsets), trials / len(subsets))) > 1e-3


def test_shuffled_uniform_position_and_exact_sizes():
    rng = np.random.default_rng(11)
    n, b, trials = 7, 3, 6000
    counts = np.zeros(n)  # position of record 0 in the permutation
    for _ in range(trials):
        batches = shuffled_batches(n, b, rng)
        assert [len(x) for x in batches] == [3, 3, 1]
        flat = np.concatenate(batches)
        counts[int(np.flatnonzero(flat == 0)[0])] += 1
        assert sorted(flat.tolist()) == list(range(n))
    assert _chi2_pvalue(counts, np.full(n, trials / n)) > 1e-3


def test_cyclic_and_bad_input():
    assert [x.tolist() for x in cyclic_batches(7, 3)] == [[0, 1, 2], [3, 4, 5], [6]]
    for bad in (0, -1, 2.5, math.nan, "3", True):
        with pytest.raises(ValueError):
            shuffled_batches(10, bad)
    with pytest.raises(ValueError, match="batch_size"):
        cyclic_batches(3, 4)
    with pytest.raises(ValueError, match="selected"):
        random_allocation_batches(3, 4, 5)
    with pytest.raises(TypeError, match="rng"):
        balls_and_bins_batches(3, 2, rng="seed")
