"""Independent Bernoulli draws with probability exactly p for float64 p, one p per draw (private, vectorised).

``rng.random() < p`` succeeds with probability ⌈p·2⁵³⌉/2⁵³ (``random()`` returns multiples of 2⁻⁵³), which
exceeds p by up to 2⁻⁵³ for p < 1/2 (p = 0.1, say): the draw would then not be the procedure the bound is
proven for.  Here U ∈ [0, 1) is read as its binary expansion, 64 bits at a time (``rng.integers`` over the
full uint64 range: uniform words), and compared with p's expansion word by word: U < p is decided by the
first word that differs.  Every float64 p is a dyadic rational, p·2⁶⁴ is exact in float64 (a power-of-two
scaling), so is its floor (the next word) and the remainder; a float64 has at most 1074 fractional bits, so
at most 17 words.  Hence P[draw] = p **exactly**; a tie on a word has probability 2⁻⁶⁴, so the cost is one
64-bit word per draw.  (Method: the classic lazy comparison of a uniform variate's bits, e.g. Knuth & Yao
1976; written here from the definition.)
"""
from __future__ import annotations

import numpy as np

_SCALE = float(2 ** 64)
_BLOCK = 1 << 16  # per-record probabilities are processed in blocks (temporaries stay in cache)


def _words(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(next 64-bit word of p's expansion as uint64, the exact remainder in [0, 1)) for p ∈ [0, 1)."""
    scaled = p * _SCALE  # exact: power-of-two scaling of a float in [0, 1)
    word = np.floor(scaled)  # exact, ≤ 2⁶⁴ − 2¹¹
    return word.astype(np.uint64), scaled - word  # both exact


def bernoulli(p: float | np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent draws, draw i True with probability exactly ``p`` (a float in [0, 1]) or ``p[i]``.

    ``p`` must already be validated (no NaN, inside [0, 1]); an array must have shape (n,)."""
    if np.ndim(p) == 0:
        p = float(p)
        if p >= 1.0:
            return np.ones(n, dtype=bool)
        if p <= 0.0 or n == 0:
            return np.zeros(n, dtype=bool)
        word, rest = _words(np.array([p]))
        u = rng.integers(0, 2 ** 64, size=n, dtype=np.uint64)
        out = u < word[0]
        if rest[0] > 0.0:
            _ties(out, np.flatnonzero(u == word[0]), np.full(np.count_nonzero(u == word[0]), rest[0]), rng)
        return out
    p = np.asarray(p, dtype=np.float64)
    out = np.empty(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        pb = p[start:stop]
        sure = pb >= 1.0
        word, rest = _words(np.where(sure, 0.0, pb))
        u = rng.integers(0, 2 ** 64, size=stop - start, dtype=np.uint64)
        block = out[start:stop]
        np.less(u, word, out=block)
        block |= sure
        tie = (u == word) & (rest > 0.0) & ~sure
        if tie.any():
            where = np.flatnonzero(tie)
            _ties(block, where, rest[where], rng)
    return out


def _ties(out: np.ndarray, where: np.ndarray, rest: np.ndarray, rng: np.random.Generator) -> None:
    """Decide the draws whose first words tied, with the next words of U and of p (remainder ``rest``)."""
    while where.size:
        word, rest = _words(rest)
        u = rng.integers(0, 2 ** 64, size=where.size, dtype=np.uint64)
        out[where] = u < word
        again = (u == word) & (rest > 0.0)  # equal so far and p's expansion goes on: undecided
        where, rest = where[again], rest[again]
