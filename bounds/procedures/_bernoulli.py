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

Speed (per call, not per draw: the procedures are called 10⁴–10⁶ times by the audits and their tests).  The
words are ``rng.integers(0, 2**64, dtype=np.uint64)``; for the 64-bit bit generators (PCG64, the default,
PCG64DXSM, SFC64, Philox) that is exactly ``bit_generator.random_raw`` (numpy fills the full uint64 range
with ``next_uint64``, which ``random_raw`` returns for these generators — checked in the tests), at a tenth
of the call overhead (:func:`uniform_words`).  :func:`bernoulli_rows` draws ``size`` consecutive calls at
once: the same words in the same order when no draw needs a second word, and otherwise (probability at most
2⁻⁶⁴ per draw) it restores the generator state and makes the calls one by one — so the rows are
bit-identical to ``size`` sequential :func:`bernoulli` calls in every case.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

_WORD = 2 ** 64
_SCALE = float(_WORD)
_BLOCK = 1 << 16  # per-draw probabilities are processed in blocks (temporaries stay in cache)
_ROWS_WORDS = 1 << 20  # bernoulli_rows draws at most this many words at once (8 MiB, plus masks)


# bit generators whose ``random_raw`` returns exactly the words of ``integers(0, 2**64, dtype=np.uint64)``
# (next_uint64; MT19937's raw output is 32 bits and is not among them)
_RAW_64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox)


def uniform_words(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` independent uniform 64-bit words: exactly ``rng.integers(0, 2**64, size=size, dtype=np.uint64)``
    (the same words, the same generator state afterwards), through ``random_raw`` where that is the same."""
    bg = getattr(rng, "bit_generator", None)  # (the tests' stand-ins have ``integers`` only)
    if type(bg) in _RAW_64:
        return bg.random_raw(size)
    return rng.integers(0, _WORD, size=size, dtype=np.uint64)


def _float_words(p: Any) -> tuple[Any, Any]:
    """(next 64-bit word of p's expansion as uint64, the exact remainder in [0, 1)) for float64 p ∈ [0, 1), a
    scalar or an array."""
    if isinstance(p, float):  # one shared probability: the same exact operations on Python floats (cheaper)
        scaled = p * _SCALE  # exact: power-of-two scaling of a float in [0, 1)
        word = math.floor(scaled)  # exact integer, ≤ 2⁶⁴ − 2¹¹
        return np.uint64(word), scaled - word  # the remainder is exact (float(word) is exact)
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
            u = uniform_words(rng, out.size)
            np.less(u, word, out=out)
        else:
            u = uniform_words(rng, where.size)
            out[where] = u < word
        # equal so far: undecided, unless p's expansion ends here (then U ≥ p); no word equal to p's (the
        # common case) decides every draw at once
        tie = u == word
        if not tie.any():
            return
        if shared:
            if not rest > 0:
                return
        else:
            tie &= rest > 0.0
        ties = np.flatnonzero(tie)
        if not ties.size:
            return
        where = ties if where is None else where[ties]
        if not shared:
            rest = rest[ties]


def _is_shared(p: Any) -> bool:
    """Whether ``p`` is one probability for every draw (a float, a Fraction, a numpy scalar or 0-d array)
    rather than one per draw."""
    return isinstance(p, (float, Fraction)) or np.ndim(p) == 0


def _shared(p: Any) -> Any:
    """A shared probability as the exact number the draws compare with: a Fraction as is, else a float."""
    return p if isinstance(p, Fraction) else float(p)


def bernoulli(p: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent draws, draw i True with probability exactly ``p`` or ``p[i]``.

    ``p`` is a float or a ``Fraction`` in [0, 1] (every draw), or a float64 array of shape (n,) with values
    in [0, 1] (one per draw); it must already be validated (no NaN, inside [0, 1]).  p = 0 and p = 1 draw
    nothing from ``rng``."""
    if _is_shared(p):
        p = _shared(p)
        if p >= 1:
            return np.ones(n, dtype=bool)
        out = np.zeros(n, dtype=bool)
        if p > 0 and n:
            _decide(out, p, _fraction_words if isinstance(p, Fraction) else _float_words, rng)
        return out
    p = np.asarray(p, dtype=np.float64)
    out = np.empty(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        pb = p[start:start + _BLOCK]
        block = out[start:start + _BLOCK]
        sure = pb >= 1.0  # p = 1 has no word expansion below 1: decided without comparison
        if sure.any():
            _decide(block, np.where(sure, 0.0, pb), _float_words, rng)
            block |= sure
        else:
            _decide(block, pb, _float_words, rng)
    return out


def bernoulli_rows(p: Any, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` consecutive calls ``bernoulli(p, n, rng)`` as the rows of a (size, n) array — bit-identical to
    making the calls one by one, and leaving ``rng`` in the same state.

    Without a tie every call draws exactly one word per draw with 0 < p < 1 (all n words for per-draw
    probabilities), in order, and decides each draw by ``word < p's first word``; so one ``size·n``-word draw
    gives the same rows.  A tie (a word equal to p's first word while p has further bits: probability at most
    2⁻⁶⁴ per draw) makes the sequential calls draw more words in between; then the generator's state, saved
    before the batch, is restored and the calls are made one by one.  ``p`` as in :func:`bernoulli`
    (validated by the caller)."""
    if size == 0 or n == 0:
        return np.zeros((size, n), dtype=bool)  # no entries: nothing drawn
    rows = max(1, _ROWS_WORDS // n)
    if size > rows:  # consecutive groups of calls are consecutive calls: bounded memory, the same rows
        return np.concatenate([_bernoulli_rows(p, n, min(rows, size - start), rng) for start in range(0, size, rows)])
    return _bernoulli_rows(p, n, size, rng)


def _bernoulli_rows(p: Any, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`bernoulli_rows` for size·n ≤ 2²⁰ words (or one row), size, n ≥ 1."""
    if _is_shared(p):
        p = _shared(p)
        if p >= 1:
            return np.ones((size, n), dtype=bool)
        if not p > 0:
            return np.zeros((size, n), dtype=bool)
        word, rest = (_fraction_words if isinstance(p, Fraction) else _float_words)(p)
        sure = None
        more = rest > 0  # does p have bits after its first word (then a tie needs another word)?
    else:
        p = np.asarray(p, dtype=np.float64)
        sure = p >= 1.0
        word, rest = _float_words(np.where(sure, 0.0, p))
        more = rest > 0.0
    bg = rng.bit_generator
    state = bg.state
    u = uniform_words(rng, size * n).reshape(size, n)
    if np.any(more) and np.any((u == word) & more):
        bg.state = state  # a tie: draw exactly as the sequential calls do
        return np.array([bernoulli(p, n, rng) for _ in range(size)], dtype=bool).reshape(size, n)
    out = u < word
    if sure is not None:
        out |= sure
    return out
