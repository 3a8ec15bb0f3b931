"""The batch procedures the samplers' guarantees assume (issue 21): index batches for one epoch.

Each generator returns a list of T integer arrays (the records of each batch).  The accounting of
:mod:`bounds.samplers` holds for exactly these procedures (tests check their distributions):

- ``balls_and_bins_batches``: every record to one batch, uniformly and independently (``balls_and_bins``);
- ``random_allocation_batches``: every record to ``selected`` distinct steps, a uniform k-subset, independently
  (``random_allocation``);
- ``shuffled_batches``: a uniform permutation cut into consecutive batches of ``batch_size`` (the last one
  partial) (``shuffled``);
- ``cyclic_batches``: the records in order, cut the same way every epoch (``cyclic``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._common import check_int


def _rng(rng: Any) -> np.random.Generator:
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    raise TypeError(f"rng must be None, an int seed or a numpy Generator, not {type(rng).__name__}")


def balls_and_bins_batches(n: int, steps_per_epoch: int, rng: Any = None) -> list[np.ndarray]:
    """One balls-and-bins epoch: record i goes to batch U_i, U_i uniform on {0..T−1}, independent.

    Parameters
    ----------
    n : int
        Number of records (≥ 1).
    steps_per_epoch : int
        T ≥ 1.
    rng : None, int or numpy.random.Generator
        Randomness (a seed or a generator).

    Returns
    -------
    list of ndarray
        T arrays of record indices (possibly empty: batch sizes are random).

    Raises
    ------
    ValueError
        For n or T not integers ≥ 1.

    Examples
    --------
    >>> from bounds.samplers.batches import balls_and_bins_batches
    >>> b = balls_and_bins_batches(10, 3, rng=1)
    >>> len(b), sorted(int(i) for batch in b for i in batch) == list(range(10))
    (3, True)
    """
    n = check_int("balls_and_bins_batches", "n", n, 1, 10 ** 10)
    T = check_int("balls_and_bins_batches", "steps_per_epoch", steps_per_epoch)
    bins = _rng(rng).integers(0, T, n)
    return [np.flatnonzero(bins == t) for t in range(T)]


def random_allocation_batches(n: int, steps: int, selected: int = 1, rng: Any = None) -> list[np.ndarray]:
    """One random-allocation epoch: record i is used in a uniform k-subset of the T steps, independently.

    Parameters
    ----------
    n : int
        Number of records.
    steps : int
        T ≥ 1.
    selected : int
        k ∈ [1, T].
    rng : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    list of ndarray
        T arrays of record indices; every record appears in exactly k of them.

    Raises
    ------
    ValueError
        For sizes outside their domains.

    Examples
    --------
    >>> from bounds.samplers.batches import random_allocation_batches
    >>> b = random_allocation_batches(5, 4, 2, rng=0)
    >>> sum(len(x) for x in b)
    10
    """
    n = check_int("random_allocation_batches", "n", n, 1, 10 ** 10)
    T = check_int("random_allocation_batches", "steps", steps)
    k = check_int("random_allocation_batches", "selected", selected, 1, T)
    g = _rng(rng)
    # the first k entries of an independent uniform permutation of the steps: a uniform k-subset
    chosen = np.argsort(g.random((n, T)), axis=1)[:, :k]
    return [np.flatnonzero((chosen == t).any(axis=1)) for t in range(T)]


def shuffled_batches(n: int, batch_size: int, rng: Any = None) -> list[np.ndarray]:
    """One shuffled epoch: a uniform permutation of the records cut into ⌈n/b⌉ consecutive batches of b (the
    last one has n − (⌈n/b⌉ − 1)b records).

    Parameters
    ----------
    n : int
        Number of records.
    batch_size : int
        b ∈ [1, n].
    rng : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    list of ndarray
        The batches.

    Raises
    ------
    ValueError
        For sizes outside their domains.

    Examples
    --------
    >>> from bounds.samplers.batches import shuffled_batches
    >>> [len(b) for b in shuffled_batches(10, 4, rng=0)]
    [4, 4, 2]
    """
    n = check_int("shuffled_batches", "n", n, 1, 10 ** 10)
    b = check_int("shuffled_batches", "batch_size", batch_size, 1, n)
    perm = _rng(rng).permutation(n)
    return [perm[i: i + b] for i in range(0, n, b)]


def cyclic_batches(n: int, batch_size: int) -> list[np.ndarray]:
    """Deterministic batches: records 0..n−1 in order, cut into ⌈n/b⌉ consecutive batches (the same every epoch).

    Parameters
    ----------
    n : int
        Number of records.
    batch_size : int
        b ∈ [1, n].

    Returns
    -------
    list of ndarray
        The batches.

    Raises
    ------
    ValueError
        For sizes outside their domains.

    Examples
    --------
    >>> from bounds.samplers.batches import cyclic_batches
    >>> [b.tolist() for b in cyclic_batches(5, 2)]
    [[0, 1], [2, 3], [4]]
    """
    n = check_int("cyclic_batches", "n", n, 1, 10 ** 10)
    b = check_int("cyclic_batches", "batch_size", batch_size, 1, n)
    idx = np.arange(n)
    return [idx[i: i + b] for i in range(0, n, b)]
