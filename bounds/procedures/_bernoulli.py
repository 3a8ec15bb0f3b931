"""Independent Bernoulli draws with probability exactly p (private): the coin of every procedure that keeps or
deletes records at random — ``sampling`` (Poisson samples and batches), ``suppression`` (deletion with
probability out_D(x)), ``kanonymity`` (β-sampling) and ``missing`` (mask entries).

Why.  ``rng.random() < p`` succeeds with probability ⌈p·2⁵³⌉/2⁵³ (``random()`` returns multiples of 2⁻⁵³),
which exceeds p by up to 2⁻⁵³ for p < 1/2 (p = 0.1, say), and a rational p such as 1/3 is not a double at
all: the draw would then not be the procedure the bound is proven for.

Method (the classic lazy comparison of a uniform variate's bits, e.g. Knuth & Yao 1976; written here from the
definition).  U ∈ [0, 1) is read as its binary expansion, 64 bits at a time: ``rng.integers`` over the full
uint64 range gives independent uniform words u₁, u₂, ….  Write p = Σ_k w_k 2⁻⁶⁴ᵏ with words w_k ∈ [0, 2⁶⁴)
(p's binary expansion; for a dyadic p the words end in zeros).  U < p is decided by the first word that
differs: u_k < w_k means U < p, u_k > w_k means U > p; when every word of p's expansion has been matched
(the remainder after the last word compared is 0) U ≥ p.  Proof of exactness:
P[U < p] = Σ_k P[u₁ = w₁, …, u_{k−1} = w_{k−1}] · P[u_k < w_k] = Σ_k 2⁻⁶⁴⁽ᵏ⁻¹⁾ · w_k 2⁻⁶⁴ = p, so
P[draw] = p **exactly**.  A tie on a word has probability at most 2⁻⁶⁴, so the cost is one 64-bit word per
draw and the loop ends with probability 1 (even for an infinite expansion such as that of 1/3).

p's words, one comparison loop (:func:`_decide`) over two ways of splitting them off:

- a float64 p (one for every draw, or one per draw as an array — vectorised, in blocks of 2¹⁶ draws):
  every float64 p is a dyadic rational; p·2⁶⁴ is exact in float64 (a power-of-two scaling), so is its floor
  (the next word) and the remainder, so the words are exact; a float64 has at most 1074 fractional bits, so
  at most 17 words;
- a ``Fraction`` p (one for every draw): the same split in exact rational arithmetic, for probabilities that
  are not doubles (1/3, 27/160).

The random stream: one word for every draw (per block of per-draw probabilities), then one word per draw
still undecided, round after round, in index order.  A double and the ``Fraction`` of the same value split
into the same words, so they draw the same sample from the same generator state.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import numpy as np

_WORD = 2 ** 64
_SCALE = float(_WORD)
_BLOCK = 1 << 16  # per-draw probabilities are processed in blocks (temporaries stay in cache)


def _float_words(p: Any) -> tuple[Any, Any]:
    """(next 64-bit word of p's expansion as uint64, the exact remainder in [0, 1)) for float64 p ∈ [0, 1), a
    scalar or an array."""
    scaled = np.multiply(p, _SCALE)  # exact: power-of-two scaling of a float in [0, 1)
    word = np.floor(scaled)  # exact, ≤ 2⁶⁴ − 2¹¹
    return word.astype(np.uint64), scaled - word  # both exact


def _fraction_words(p: Fraction) -> tuple[np.uint64, Fraction]:
    """(next 64-bit word of p's expansion, the exact remainder in [0, 1)) for a rational p ∈ [0, 1)."""
    scaled = p * _WORD
    word = int(scaled)  # the floor: p ≥ 0
    return np.uint64(word), scaled - word


def _decide(out: np.ndarray, p: Any, words: Callable[[Any], tuple[Any, Any]], rng: np.random.Generator) -> None:
    """``out[i] = [U_i < p_i]`` for fresh uniforms U_i, word by word (module docstring).

    ``p`` lies in [0, 1): one probability shared by every draw (a float or a Fraction) or one per draw (a
    float64 array of ``out``'s shape); ``words`` splits off its next word and the remainder."""
    shared = not isinstance(p, np.ndarray)
    rest = p
    where = None  # the undecided draws (None: all of them, first round)
    while True:
        word, rest = words(rest)
        if where is None:
            u = rng.integers(0, _WORD, size=out.size, dtype=np.uint64)
            np.less(u, word, out=out)
        else:
            u = rng.integers(0, _WORD, size=where.size, dtype=np.uint64)
            out[where] = u < word
        # equal so far: undecided, unless p's expansion ends here (then U ≥ p)
        if shared:
            if not rest > 0:
                return
            tie = u == word
        else:
            tie = (u == word) & (rest > 0.0)
        ties = np.flatnonzero(tie)
        if not ties.size:
            return
        where = ties if where is None else where[ties]
        if not shared:
            rest = rest[ties]


def bernoulli(p: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent draws, draw i True with probability exactly ``p`` or ``p[i]``.

    ``p`` is a float or a ``Fraction`` in [0, 1] (every draw), or a float64 array of shape (n,) with values
    in [0, 1] (one per draw); it must already be validated (no NaN, inside [0, 1]).  p = 0 and p = 1 draw
    nothing from ``rng``."""
    if np.ndim(p) == 0:
        exact = isinstance(p, Fraction)
        if not exact:
            p = float(p)
        if p >= 1:
            return np.ones(n, dtype=bool)
        out = np.zeros(n, dtype=bool)
        if p > 0 and n:
            _decide(out, p, _fraction_words if exact else _float_words, rng)
        return out
    p = np.asarray(p, dtype=np.float64)
    out = np.empty(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        pb = p[start:start + _BLOCK]
        block = out[start:start + _BLOCK]
        sure = pb >= 1.0  # p = 1 has no word expansion below 1: decided without comparison
        _decide(block, np.where(sure, 0.0, pb), _float_words, rng)
        block |= sure
    return out
