"""The ε-DP mechanisms an audit runs after the procedure: a noisy weighted count with discrete Laplace noise
and randomized response on a membership bit.  Each one has a vectorised sampler (for Monte Carlo audits) and an
exact output distribution (for exact audits), both under add/remove and substitution neighbours.

Both read the kept data only through the integer statistic S = Σ_{kept x} w(x), with weights w(x) ∈ {−1, 0, 1}
fixed in advance (a function of the record's value, never of the data set): adding or removing one record
changes S by at most 1 and substituting one by at most 2 (so the audit uses weights in {0, 1} or {−1, 0} for
substitution pairs when it needs sensitivity 1 there).  The mechanisms are then ε-DP by construction:

- :class:`NoisyCount`: S + Z, Z two-sided geometric (discrete Laplace), P(Z = z) = (1 − α)/(1 + α)·α^|z|,
  α = e^{−ε};
- :class:`RandomizedResponse`: the bit b = 𝟙[S ≥ 1] (for 0/1 weights: "some kept record has the property"),
  flipped with probability q, 1/(1 + e^ε) rounded up to a double (exact Bernoulli draws: the flip sampled is
  the q of the exact output distribution, and q ≥ 1/(1 + e^ε) keeps the mechanism ε-DP).

Sampling uses only uniform doubles, 64-bit integer comparisons and a table of probabilities built in mpmath
(no libm on arrays), so a seed gives the same outputs on every CPU.
"""
from __future__ import annotations

from typing import Any, Callable

import math

import mpmath
import numpy as np

from ..procedures._bernoulli import bernoulli, uniform_words
from ._checks import real

__all__ = ["NoisyCount", "RandomizedResponse", "weights_of"]

_TABLE_TAIL = 2.0 ** -64   # the sampling table stops where the remaining |Z| mass is below this


def weights_of(weights: Any, data: Any, function: str) -> np.ndarray:
    """The integer weight of every record of ``data``: ``None`` → all 1; a callable → ``weights(data)``;
    checked to be in {−1, 0, 1}."""
    n = len(data)
    w = np.ones(n, dtype=np.int64) if weights is None else np.asarray(weights(data))
    if w.shape != (n,):
        raise ValueError(f"{function}: weights(data) must return one weight per record (shape ({n},)), "
                         f"got shape {w.shape}")
    if w.dtype.kind not in "iub" and not (w.dtype.kind == "f" and np.all(w == np.round(w))):
        raise ValueError(f"{function}: weights must be integers in {{-1, 0, 1}}, got dtype {w.dtype}")
    w = w.astype(np.int64)
    if np.any(np.abs(w) > 1):
        raise ValueError(f"{function}: weights must be in {{-1, 0, 1}} (sensitivity 1), got {np.unique(w)}")
    return w


def check_mechanism(function: str, mechanism: Any) -> None:
    """Refuse (``TypeError``) anything but the audit's own mechanisms, whose exact output distribution is known."""
    if not isinstance(mechanism, (NoisyCount, RandomizedResponse)):
        raise TypeError(f"{function}: mechanism = {mechanism!r} is not a NoisyCount or RandomizedResponse")


class _Mechanism:
    epsilon: float
    weights: Callable | None

    def statistic(self, kept: np.ndarray, data: Any) -> np.ndarray:
        """S for each row of ``kept`` (trials × n multiplicities or a boolean mask)."""
        w = weights_of(self.weights, data, type(self).__name__)
        kept = np.asarray(kept)
        if kept.dtype != np.bool_:
            return kept.astype(np.int64) @ w
        # masks: count the kept +1 and −1 records (bytes, no int64 copy of the whole block)
        pos, neg = w == 1, w == -1
        s = np.count_nonzero(kept if pos.all() else kept[:, pos], axis=1).astype(np.int64)
        if neg.any():
            s -= np.count_nonzero(kept[:, neg], axis=1)
        return s


class NoisyCount(_Mechanism):
    r"""S + Z with S = Σ_{kept x} w(x) and two-sided geometric noise Z, P(Z = z) ∝ e^{−ε|z|}: ε-DP under
    add/remove for weights in {−1, 0, 1} (the discrete Laplace mechanism, Ghosh–Roughgarden–Sundararajan 2009).

    Parameters
    ----------
    epsilon : float
        ε > 0 of the mechanism.
    weights : callable, optional
        ``weights(data)`` → one weight in {−1, 0, 1} per record (a function of each record's value, fixed before
        the audit); default all 1 (the count of kept records).
    """

    def __init__(self, epsilon: float, weights: Callable | None = None) -> None:
        self.epsilon = real("NoisyCount", "epsilon", epsilon, 0.0, 700.0, lo_open=True)
        self.weights = weights
        with mpmath.workdps(50):
            self.alpha = mpmath.exp(-mpmath.mpf(self.epsilon))
        self._table: np.ndarray | None = None
        self._powers: dict[tuple, Any] = {}  # (exponent, mpmath precision, α) → α^exponent

    def __repr__(self) -> str:
        return f"NoisyCount(epsilon={self.epsilon!r})"

    def _magnitude_table(self) -> np.ndarray:
        """Cumulative probabilities of |Z| = 0, 1, 2, … as doubles (P(|Z| = 0) = (1 − α)/(1 + α),
        P(|Z| = j) = 2(1 − α)α^j/(1 + α)), until the remaining mass is below 2⁻⁶⁴."""
        if self._table is None:
            with mpmath.workdps(50):
                a = self.alpha
                cdf, total, j = [], mpmath.mpf(0), 0
                while True:
                    total += (1 - a) / (1 + a) * (a ** j) * (1 if j == 0 else 2)
                    cdf.append(float(total))
                    if 1 - total < _TABLE_TAIL:
                        break
                    j += 1
            self._table = np.array(cdf)
        return self._table

    def sample(self, kept: np.ndarray, data: Any, rng: np.random.Generator) -> np.ndarray:
        """One output per row of ``kept`` (int64)."""
        s = self.statistic(kept, data)
        table = self._magnitude_table()
        # one 64-bit word per output: its top 53 bits make the uniform, its lowest bit the sign, so the
        # stream does not depend on how the runs are chunked
        raw = uniform_words(rng, s.shape[0])  # = rng.integers(0, 2**64 - 1, endpoint=True, dtype=np.uint64)
        u = (raw >> np.uint64(11)).astype(np.float64) * 2.0**-53
        magnitude = np.minimum(np.searchsorted(table, u, side="right"), table.size - 1)
        sign = (raw & np.uint64(1)).astype(np.int64) * 2 - 1
        return s + sign * magnitude

    def output_pmf(self, statistic_pmf: dict[int, Any]) -> tuple[int, int, list, Any, Any, Any]:
        """Exact output distribution from the pmf of S: ``(lo, hi, mass, c, upper_sum, lower_sum)`` with
        ``mass[o - lo]`` = P(o) for lo ≤ o ≤ hi (the support of S), and for o > hi
        P(o) = c·α^o·upper_sum, for o < lo P(o) = c·α^{−o}·lower_sum (geometric tails, exact)."""
        a = self.alpha
        c = (1 - a) / (1 + a)
        lo, hi = min(statistic_pmf), max(statistic_pmf)
        p = [statistic_pmf.get(s, 0) for s in range(lo, hi + 1)]
        # Σ_s p_s α^|o − s| in O(range): forward part f_o = Σ_{s ≤ o} p_s α^{o−s} = α f_{o−1} + p_o and
        # backward part b_o = Σ_{s > o} p_s α^{s−o} = α (b_{o+1} + p_{o+1}); products of numbers < 1, stable
        f, b = [0] * len(p), [0] * len(p)
        acc = mpmath.mpf(0)
        for i, pi in enumerate(p):
            acc = a * acc + pi
            f[i] = acc
        acc = mpmath.mpf(0)
        for i in range(len(p) - 1, -1, -1):
            b[i] = acc
            acc = a * (acc + p[i])
        mass = [c * (fi + bi) for fi, bi in zip(f, b)]
        upper = mpmath.fsum(q * self._power(-s) for s, q in statistic_pmf.items())
        lower = mpmath.fsum(q * self._power(s) for s, q in statistic_pmf.items())
        return lo, hi, mass, c, upper, lower

    def _power(self, exponent: int) -> Any:
        """α^exponent at the current mpmath precision — the value ``self.alpha ** exponent`` gives, remembered
        (the two inputs of an audit share most of their support, and each is read more than once)."""
        key = (exponent, mpmath.mp.prec, self.alpha)
        value = self._powers.get(key)
        if value is None:
            value = self._powers[key] = self.alpha ** exponent
        return value


class RandomizedResponse(_Mechanism):
    r"""Randomized response on the bit 𝟙[S ≥ 1], S = Σ_{kept x} w(x) (with 0/1 weights: "some kept record has
    the property", e.g. "the differing record is in the sample"): the bit is flipped with probability
    ``flip`` = q, 1/(1 + e^ε) rounded up to a double, and reported truthfully otherwise.  ε-DP for add/remove
    and for substitution (the bit changes by at most 1; (1 − q)/q ≤ e^ε since q ≥ 1/(1 + e^ε)).  On the
    membership bit of the differing record it attains T1/T2 (SYSTEMS §2, seed 003) at ε' = ln((1 − q)/q), which
    is below ε by less than 10⁻¹⁵ (q is at most two units in the last place above 1/(1 + e^ε)).

    The flips are exact Bernoulli(q) draws (``bounds.procedures._bernoulli``; ``rng.random() < q`` would flip
    with probability ⌈q·2⁵³⌉/2⁵³), so the mechanism sampled by a Monte Carlo audit is the one whose output
    distribution the exact audit computes (:meth:`output_pmf`, with the same q).

    Parameters
    ----------
    epsilon : float
        ε > 0.
    weights : callable
        ``weights(data)`` → 0/1 per record (e.g. ``lambda d: (d == y).astype(int)``).
    """

    def __init__(self, epsilon: float, weights: Callable | None = None) -> None:
        self.epsilon = real("RandomizedResponse", "epsilon", epsilon, 0.0, 700.0, lo_open=True)
        self.weights = weights
        self.flip = self._flip_probability(self.epsilon)

    @staticmethod
    def _flip_probability(epsilon: float) -> float:
        """1/(1 + e^ε) rounded up to a double.  It is irrational (e^ε is transcendental for ε ≠ 0), never a double
        itself; the 50-digit value decides the rounding direction, and a double within 10⁻⁴⁰ (relative) of it is
        stepped up too (the 50-digit value cannot order them; a larger q is still ε-DP)."""
        with mpmath.workdps(50):
            exact = 1 / (1 + mpmath.exp(mpmath.mpf(epsilon)))
            q = float(exact)
            if mpmath.mpf(q) <= exact * (1 + mpmath.mpf(10) ** -40):
                q = math.nextafter(q, 1.0)
        return q

    def __repr__(self) -> str:
        return f"RandomizedResponse(epsilon={self.epsilon!r})"

    def sample(self, kept: np.ndarray, data: Any, rng: np.random.Generator) -> np.ndarray:
        """One output bit per row of ``kept`` (int64 0/1)."""
        bit = (self.statistic(kept, data) >= 1).astype(np.int64)
        # one 64-bit word per output; for q ≥ 2⁻¹¹ (ε ≤ 7.6) q·2⁶⁴ is an integer and the first word decides
        # every draw, so the stream does not depend on how the runs are chunked (beyond that, a further word
        # only after a tie, probability 2⁻⁶⁴ per draw)
        flips = bernoulli(self.flip, bit.shape[0], rng)
        return bit ^ flips.astype(np.int64)

    def output_pmf(self, statistic_pmf: dict[int, Any]) -> tuple[int, int, list, Any, Any, Any]:
        """Exact distribution of the reported bit, in the same format as :meth:`NoisyCount.output_pmf`
        (no tails: c = 0)."""
        one = mpmath.fsum(p for s, p in statistic_pmf.items() if s >= 1)
        zero = 1 - one
        q = mpmath.mpf(self.flip)   # exact: the double the sampler flips with
        return 0, 1, [zero * (1 - q) + one * q, one * (1 - q) + zero * q], mpmath.mpf(0), mpmath.mpf(0), \
            mpmath.mpf(0)
