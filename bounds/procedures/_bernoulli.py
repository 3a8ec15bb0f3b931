"""Exact Bernoulli draws for rational probabilities (shared by ``kanonymity`` and ``missing``).

``rng.random(n) < p`` keeps a record with probability ⌈p·2⁵³⌉/2⁵³, not p (off by up to 2⁻⁵³ for p = 0.1): a
bound computed at p would then describe a slightly different procedure.  Here a uniform U ∈ [0, 1) is read
64 bits at a time and compared with p's binary expansion (exact rational arithmetic); the first differing
word decides U < p, so P[keep] = p exactly for every rational p (every double, every Fraction).  One word
decides with probability 1 − 2⁻⁶⁴, so the cost is one 64-bit draw per record.
"""
from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any

import numpy as np

_WORD = 2 ** 64


def generator(function: str, rng: Any) -> np.random.Generator:
    """``rng`` as a ``numpy.random.Generator``: None → a fresh default generator, an int → ``default_rng(rng)``."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and int(rng) >= 0:
        return np.random.default_rng(int(rng))
    raise TypeError(f"{function}: rng = {rng!r} must be a numpy.random.Generator, a non-negative int seed or None")


def bernoulli(n: int, p: Fraction, rng: np.random.Generator) -> np.ndarray:
    """n independent draws, True with probability exactly ``p`` (a Fraction in [0, 1])."""
    out = np.zeros(n, dtype=bool)
    if p <= 0 or n == 0:
        return out
    if p >= 1:
        out[:] = True
        return out
    undecided = np.arange(n)
    rest = p
    while undecided.size:
        rest *= _WORD
        word = int(rest)  # the next 64 bits of p's binary expansion
        rest -= word
        u = rng.integers(0, _WORD, size=undecided.size, dtype=np.uint64)
        w = np.uint64(word)
        out[undecided[u < w]] = True
        if rest == 0:  # p's expansion ends here: equal so far means U ≥ p
            break
        undecided = undecided[u == w]
    return out

