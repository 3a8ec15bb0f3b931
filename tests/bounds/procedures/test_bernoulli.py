"""bounds.procedures._bernoulli: exact Bernoulli draws, U < p decided word by word against p's expansion.

The decisions are checked with a stand-in generator that returns prescribed 64-bit words (U's expansion),
round by round, against p's expansion computed here in exact rationals; the frequency at a fixed seed is
checked against p with a 5σ margin.  The distributions the procedures draw with it are G-tested in their own
test files (test_sampling, test_outlier_suppression, test_kanonymity, test_missing_procedures).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from bounds.procedures._bernoulli import bernoulli


class _Words:
    """A stand-in generator whose ``integers`` returns prescribed 64-bit words (U's binary expansion), one
    block per round of the comparison (the block's size must be the number of draws still undecided)."""

    def __init__(self, *blocks):
        self.blocks = [np.array(b, dtype=np.uint64) for b in blocks]

    def integers(self, lo, hi, size, dtype):
        assert (lo, hi, dtype) == (0, 2 ** 64, np.uint64)
        block = self.blocks.pop(0)
        assert block.shape == (size,)
        return block


def _expansion_words(p: Fraction, count: int) -> list[int]:
    out = []
    for _ in range(count):
        p *= 2 ** 64
        out.append(int(p))
        p -= int(p)
    return out


def test_exact_bernoulli_decides_by_the_first_differing_word():
    # U < p is decided word by word against p's exact binary expansion (Fractions); a tie goes to the next
    # word; a tie on p's last word means U ≥ p
    p = 0.1  # a single word: 0.1·2^64 is an integer
    [w0, w1] = _expansion_words(Fraction(p), 2)
    assert w1 == 0
    for draw in (lambda rng: bernoulli(p, 3, rng), lambda rng: bernoulli(np.full(3, p), 3, rng),
                 lambda rng: bernoulli(Fraction(p), 3, rng)):
        assert draw(_Words([w0 - 1, w0, w0 + 1])).tolist() == [True, False, False]
    p = (1 + 2.0 ** -52) * 2.0 ** -20  # two words: bits down to 2^-72
    [w0, w1, w2] = _expansion_words(Fraction(p), 3)
    assert w1 > 0 and w2 == 0
    for draw in (lambda rng: bernoulli(p, 5, rng), lambda rng: bernoulli(np.full(5, p), 5, rng),
                 lambda rng: bernoulli(Fraction(p), 5, rng)):
        got = draw(_Words([w0 - 1, w0 + 1, w0, w0, w0], [w1 - 1, w1, w1 + 1]))
        assert got.tolist() == [True, False, True, False, False]


def test_exact_bernoulli_tiny_rate_by_words():
    # p = 2^-70: word 0 is 0, word 1 is 2^58: only U with first word 0 and second word < 2^58 succeeds
    p = 2.0 ** -70
    assert _expansion_words(Fraction(p), 2) == [0, 2 ** 58]
    for q in (p, np.full(3, p), Fraction(p)):
        rng = _Words([0, 0, 1], [2 ** 58 - 1, 2 ** 58])
        assert bernoulli(q, 3, rng).tolist() == [True, False, False]


def test_exact_bernoulli_rational_word_by_word():
    """A rational that is not a double (1/3: the words never end) is compared in exact arithmetic."""
    third = Fraction(1, 3)
    w1 = (2 ** 64) // 3  # 0x5555…5
    assert _expansion_words(third, 3) == [w1] * 3
    # first words: below, above, equal, equal; second words for the two undecided: below, above
    rng = _Words([w1 - 1, w1 + 1, w1, w1], [w1 - 1, w1 + 7])
    assert bernoulli(third, 4, rng).tolist() == [True, False, True, False]
    # three rounds: the word after a tie is again 0x5555…5
    rng = _Words([w1, w1], [w1, w1 + 1], [w1 - 1])
    assert bernoulli(third, 2, rng).tolist() == [True, False]
    # p = 1/2: one word decides, equality (U = 1/2 exactly so far) means U ≥ p
    assert bernoulli(Fraction(1, 2), 3, _Words([2 ** 63 - 1, 2 ** 63, 0])).tolist() == [True, False, True]
    freq = bernoulli(third, 200_000, np.random.default_rng(3)).mean()
    assert abs(freq - 1 / 3) < 5 * math.sqrt(2 / 9 / 200_000)


def test_per_record_probabilities_by_words():
    # one probability per draw, 0 and 1 among them: 0 and 1 are decided without a second word, a tie on a
    # one-word p means U ≥ p, a tie on a two-word p goes on (block of 5, one round of ties)
    two = (1 + 2.0 ** -52) * 2.0 ** -20
    [v0, v1] = _expansion_words(Fraction(two), 2)
    [h0] = _expansion_words(Fraction(1, 2), 1)
    p = np.array([0.0, 1.0, 0.5, two, two])
    rng = _Words([0, 2 ** 64 - 1, h0, v0, v0], [v1 - 1, v1])
    assert bernoulli(p, 5, rng).tolist() == [False, True, False, True, False]


@pytest.mark.parametrize("p", [0.0, 1.0, Fraction(0), Fraction(1)])
def test_certain_outcomes_draw_nothing(p):
    assert bernoulli(p, 4, _Words()).tolist() == [bool(p)] * 4
    assert bernoulli(0.3, 0, _Words()).tolist() == []


@pytest.mark.parametrize("p", [0.1, 0.5, 1 / 3, (1 + 2.0 ** -52) * 2.0 ** -20, 2.0 ** -70, 0.999])
def test_a_double_and_its_fraction_draw_the_same_sample(p):
    # the same words from the same generator state: one stream for both representations (and for a
    # per-draw array holding the same p)
    n = 5000
    a = bernoulli(p, n, np.random.default_rng(17))
    assert np.array_equal(a, bernoulli(Fraction(p), n, np.random.default_rng(17)))
    assert np.array_equal(a, bernoulli(np.full(n, p), n, np.random.default_rng(17)))
