"""Mechanisms ``crosscheck`` accepts beyond ``bounds.mechanisms``: sampling without and with replacement of
a fixed-size sample (SPEC T2, T3/T4), a rate change (T5) and finite mechanisms given by their output laws.

Each validates its arguments on construction (``bounds._arguments``: named ``ValueError``/``TypeError``, never a
raw ``OverflowError``); their certified enclosures are in ``bounds.enclosures``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ._arguments import ParameterTypeError, integer, real_number, shown
from ._dask import refuses_dask
from .mechanisms import EpsDelta, Gaussian, Laplace

__all__ = ["DiscretePairs", "RateChange", "WithReplacement", "WithoutReplacement"]


@refuses_dask
@dataclass(frozen=True)
class WithoutReplacement:
    """``mechanism`` run on a uniform size-m subset of n records (substitute relation; SPEC T2).

    For ``crosscheck``: with ``EpsDelta`` both sides are certified (T2 is tight; *source*: Balle, Barthe,
    Gaboardi 2018 Thm 9), with ``Gaussian``/``Laplace`` only the upper side.

    Parameters
    ----------
    mechanism : Gaussian, Laplace or EpsDelta
        DP under substitution.
    m : int
        Sample size, 0 ≤ m ≤ n.
    n : int
        Number of records, n ≥ 1.

    Raises
    ------
    ValueError
        If m or n is not an integer or 0 ≤ m ≤ n, n ≥ 1 fails.

    Examples
    --------
    >>> import bounds
    >>> m = bounds.WithoutReplacement(bounds.EpsDelta(1.0, 1e-6), 10, 100)
    >>> bounds.crosscheck(m, epsilon=0.2, delta=1e-5).verdict
    'valid'
    """

    mechanism: Gaussian | Laplace | EpsDelta
    m: int
    n: int

    def __post_init__(self) -> None:
        _check_mechanism("WithoutReplacement", self.mechanism)
        m, n = _check_sample("WithoutReplacement", self.m, self.n, without=True)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "n", n)


@refuses_dask
@dataclass(frozen=True)
class WithReplacement:
    """``mechanism`` run on m draws with replacement from n records (SPEC T3 ``"substitute"``, T4
    ``"add_remove"`` with n the larger neighbour's size).  Only an upper bound is proven.

    T3 is *recovered* (Balle, Barthe, Gaboardi 2018 Thm 10), T4 *derived* (Thm 11); ``crosscheck`` can
    therefore certify "valid" but never "invalid" for it.

    Parameters
    ----------
    mechanism : Gaussian, Laplace or EpsDelta
        The base mechanism (its group profiles are used).
    m : int
        Number of draws m ≥ 0.
    n : int
        Number of records n ≥ 1.
    relation : {"substitute", "add_remove"}
        Neighbouring relation (T3 or T4).

    Raises
    ------
    ValueError
        If m, n are not integers with m ≥ 0, n ≥ 1, or the relation is unknown.

    Examples
    --------
    >>> import bounds
    >>> m = bounds.WithReplacement(bounds.Gaussian(theta=0.5), 10, 100)
    >>> bounds.crosscheck(m, epsilon=0.5, delta=1e-3).verdict
    'valid'
    """

    mechanism: Gaussian | Laplace | EpsDelta
    m: int
    n: int
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _check_mechanism("WithReplacement", self.mechanism)
        m, n = _check_sample("WithReplacement", self.m, self.n, without=False)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "n", n)
        if not isinstance(self.relation, str) or self.relation not in ("substitute", "add_remove"):
            raise ValueError(f"WithReplacement: relation = {self.relation!r} must be 'substitute' (T3) or "
                             "'add_remove' (T4)")


@refuses_dask
@dataclass(frozen=True)
class RateChange:
    """An algorithm proven (ε₁, δ₁)-DP on Poisson samples of rate β₁, run at rate β₂ ≤ β₁ (SPEC T5).

    Only the T5 *upper* bound is used: T5 is T1 with p = β₂/β₁ applied to the rate-β₁ guarantee, but the
    worst case of T1 needs a base pair whose likelihood ratio reaches 0, which a pair of the form
    ((1 − β₁)B₀ + β₁B₁, B₀) cannot have (its ratio is ≥ 1 − β₁), so T1's tightness does not carry over.
    Provenance: *source* (Li, Qardaji, Su 2012 Thm 1).

    Parameters
    ----------
    guarantee : EpsDelta
        The (ε₁, δ₁) proven at rate β₁.
    rate_from : float
        β₁ ∈ (0, 1], the rate the guarantee was proven at.
    rate_to : float
        β₂ ∈ [0, β₁], the rate actually used.

    Raises
    ------
    ValueError
        If the guarantee is not an ``EpsDelta`` or the rates are outside 0 ≤ β₂ ≤ β₁ ≤ 1.

    Examples
    --------
    >>> import bounds
    >>> m = bounds.RateChange(bounds.EpsDelta(1.0, 1e-6), 0.1, 0.05)
    >>> bounds.crosscheck(m, epsilon=0.7, delta=1e-5).verdict
    'valid'
    """

    guarantee: EpsDelta
    rate_from: float
    rate_to: float

    def __post_init__(self) -> None:
        if not isinstance(self.guarantee, EpsDelta):
            raise ValueError(f"RateChange: guarantee = {self.guarantee!r} must be EpsDelta(epsilon, delta)")
        from .subsampling import rate_change

        for name in ("rate_from", "rate_to"):
            object.__setattr__(self, name, real_number("RateChange", name, getattr(self, name)))
        rate_change(self.guarantee.epsilon, self.guarantee.delta, self.rate_from, self.rate_to)  # validates


def _sequence(function: str, name: str, value: Any) -> list:
    """``value`` as a list (a list, tuple or array); a ``ParameterTypeError`` for scalars, strings, dicts,
    ``None``."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise ParameterTypeError(f"{function}: {name} = {shown(value)} must be a sequence (list or tuple)")
    try:
        return list(value)
    except TypeError:
        raise ParameterTypeError(f"{function}: {name} = {shown(value)} must be a sequence (list or tuple)") \
            from None


def _probability(name: str, x: Any) -> Fraction:
    """A probability as its exact rational value: ints and ``Fraction`` as they are, floats (numpy's too)
    as their exact binary value; bools, strings, complex numbers, NaN and ±inf refused."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return Fraction(int(x))
    v = real_number("DiscretePairs", name, x, finite=True)  # refuses non-numbers, NaN, ±inf, inexact values
    return Fraction(v)


def _check_mechanism(function: str, mechanism: Any) -> None:
    if not isinstance(mechanism, (Gaussian, Laplace, EpsDelta)):
        raise TypeError(f"{function}: mechanism = {shown(mechanism)} must be Gaussian, Laplace or EpsDelta")


@refuses_dask
@dataclass(frozen=True)
class DiscretePairs:
    """A finite mechanism given by its neighbouring output laws: ``pairs`` = [(P, Q), …], each law a sequence
    of probabilities (floats or ``Fraction``) over the same outputs.  δ(ε) = max over pairs and both orders
    of Σ_o (P(o) − e^ε Q(o))₊ (the hockey-stick divergence; randomized response is ``[((p, 1−p), (1−p, p))]``).

    Both sides are certified (the hockey-stick sums are evaluated in exact rational arithmetic, then
    rounded outward): a reference route independent of every theorem of the library.

    Parameters
    ----------
    pairs : sequence of (P, Q)
        Neighbouring output laws; each law a sequence of probabilities ≥ 0 summing to 1 *exactly*
        (floats are read as their exact binary values; use ``Fraction`` for e.g. 1/3).

    Raises
    ------
    ValueError
        If a pair is malformed, the laws differ in length, or a law is not a probability vector.

    Examples
    --------
    >>> import bounds
    >>> rr = bounds.DiscretePairs([((0.75, 0.25), (0.25, 0.75))])     # randomized response, ε = ln 3
    >>> bounds.crosscheck(rr, epsilon=1.0, delta=0.0).verdict
    'invalid'
    >>> bounds.crosscheck(rr, epsilon=1.1, delta=0.0).verdict
    'valid'
    """

    pairs: tuple

    def __post_init__(self) -> None:
        pairs = []
        for i, pair in enumerate(_sequence("DiscretePairs", "pairs", self.pairs)):
            pair = _sequence("DiscretePairs", f"pairs[{i}]", pair)
            if len(pair) != 2:
                raise ValueError(f"DiscretePairs: pairs[{i}] must be a pair (P, Q) of probability vectors")
            p, q = (tuple(_probability(f"pairs[{i}][{j}][{k}]", x)
                          for k, x in enumerate(_sequence("DiscretePairs", f"pairs[{i}][{j}]", law)))
                    for j, law in enumerate(pair))
            if len(p) != len(q) or not p:
                raise ValueError(f"DiscretePairs: pairs[{i}]: P and Q must have the same positive length")
            for law in (p, q):
                if any(x < 0 for x in law) or sum(law) != 1:
                    total = sum(law)
                    shown_sum = f"{float(total)!r}" if abs(total) < 1e300 else "beyond 1e300"
                    raise ValueError(f"DiscretePairs: pairs[{i}]: probabilities must be ≥ 0 and sum to 1 "
                                     f"exactly (got sum {shown_sum})")
            pairs.append((p, q))
        if not pairs:
            raise ValueError("DiscretePairs: at least one pair is needed")
        object.__setattr__(self, "pairs", tuple(pairs))


# m and n up to 2⁵³: the enclosures compute m/n and n·ln(1 − 1/n) in float64, exact only there
MAX_RECORDS = 2 ** 53


def _check_sample(function: str, m: Any, n: Any, *, without: bool) -> tuple[int, int]:
    """(m, n) as ints: n ∈ [1, 2⁵³], m ∈ [0, n] (without replacement) or [0, 2⁵³] (with replacement)."""
    n_i = integer(function, "n", n, low=1, high=MAX_RECORDS, what="number of records")
    m_i = integer(function, "m", m, low=0, high=n_i if without else MAX_RECORDS,
                  what="sample size, at most n" if without else "number of draws")
    return m_i, n_i
