"""“Is my accountant right?”: certified verdicts on a claimed (ε, δ) (issue 13).

``crosscheck(mechanism_or_composition, epsilon=ε, delta=δ)`` decides whether a mechanism is (ε, δ)-DP, the
claim another accountant (dp_accounting, Opacus, autodp, prv_accountant, …) reports, from *certified*
enclosures of the mechanism's privacy profile δ_M(ε):

- **invalid** — a certified *lower* bound on δ_M(ε) exceeds the claimed δ (or, equivalently, the claimed ε lies
  below a certified lower bound on ε_M(δ) = min{ε ≥ 0 : δ_M(ε) ≤ δ}): the claim promises more privacy than
  the mechanism has.  Never a false alarm: only a proven lower bound can refute a claim.
- **valid** — a certified *upper* bound on δ_M(ε) is at most the claimed δ (or the claimed ε is at least a
  certified upper bound on ε_M(δ)).
- **undecided** — the claim lies inside the certified sandwich; the verdict says by how much and how to
  tighten it.

The two criteria of each verdict are each sound on their own: δ_M is non-increasing in ε, so
ε ≥ ε⁺ ≥ ε_M(δ) gives δ_M(ε) ≤ δ_M(ε_M(δ)) ≤ δ, and ε < ε⁻ ≤ ε_M(δ) gives δ_M(ε) > δ by the minimality of
ε_M(δ).  Using both makes the verdict consistent between the ε and δ views even where a rounded profile is
not monotone at the level of single ulps.

Mechanisms and where their enclosures come from (one shot):

======================================  ===========  ===============================================
mechanism                               SPEC         enclosure
======================================  ===========  ===============================================
``Gaussian(theta=θ)``, ``Laplace``    T9, T8       exact profile ± kernel budget (both sides)
``poisson_sampled(Gaussian|Laplace)``   T11          exact profile ± running error + budget (both)
``EpsDelta(ε₀, δ₀)``                    Conventions  worst case over (ε₀, δ₀)-DP mechanisms, exact
``poisson_sampled(EpsDelta, p)``        T1           worst case, exact (T1 is tight)
``WithoutReplacement(EpsDelta, m, n)``  T2           worst case, exact (T2 is tight)
``WithoutReplacement(Gaussian, …)``     T2           upper only
``WithReplacement(…)``                  T3, T4       upper only (no proven lower bound)
``RateChange(EpsDelta, β₁, β₂)``        T5           upper only (see ``RateChange``)
``DiscretePairs(pairs)``                definition   exact (hockey-stick sums of finite laws)
======================================  ===========  ===============================================

Anything with callable ``.delta(epsilon)`` and ``.epsilon(delta)`` returning ``Sandwich`` (``bounds.compose``)
is accepted as a composition.  ``from_dp_event`` and ``from_opacus_history`` translate the peers'
vocabulary; DP-SGD's ``noise_multiplier`` σ/Δ is accepted wherever a Gaussian is taken
(``Gaussian.from_noise_multiplier``, which keeps θ = 1/σ rounded up for the upper and down for the lower
bounds).
"""
from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from ._arguments import ParameterTypeError, integer, real_number, shown
from .composition import MAX_STEPS, PoissonSampled, Sandwich, poisson_sampled
from .mechanisms import EpsDelta, Gaussian, Laplace
from ._dask import refuses_dask

VERDICTS = ("valid", "invalid", "undecided")


# ----------------------------------------------------------------------------------------------------
# noise multipliers: θ = 1/σ through the public constructors, which keep θ rounded both ways
# ----------------------------------------------------------------------------------------------------

def _from_noise_multiplier(function: str, value: Any, laplace: bool = False) -> Gaussian | Laplace:
    """``Gaussian.from_noise_multiplier(σ)`` (or ``Laplace.from_scale(b)``), errors naming the caller."""
    try:
        return Laplace.from_scale(value) if laplace else Gaussian.from_noise_multiplier(value)
    except ValueError as exc:
        detail = str(exc).split(": ", 1)[-1]
        raise ValueError(f"{function}: noise_multiplier = {shown(value)}: {detail}") from None


def _theta_bounds(mechanism: Gaussian | Laplace) -> tuple[float, float]:
    """(θ⁻, θ⁺): ``theta_lower`` ≤ exact θ ≤ ``theta`` (equal unless built from a noise scale)."""
    return mechanism.theta_lower, mechanism.theta


# ----------------------------------------------------------------------------------------------------
# further one-shot vocabulary
# ----------------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------------
# certified profile enclosures of one-shot mechanisms
# ----------------------------------------------------------------------------------------------------

def _lower_from_raw(v: float, err: float, budget: int) -> float:
    """A float ≤ the exact value, from an unrounded kernel value ``v``, its running error bound ``err`` and
    its budget in ulps.

    Proof.  The library's upper bound is up(v + err, B): by the kernel's contract |v − exact| ≤ err + B ulps
    (the budget is a peak *absolute* error in ulps measured against 50-digit references, symmetric; ``err``
    bounds the argument's error in both directions, see ``numeric.subsampled_profiles``).  An ulp of the
    exact value is at most 2 ulps of v when the two lie in adjacent binades, so exact ≥ v − err − 2(B + 1)·
    ulp(v) ≥ (v − err) − (2B + 4)·2⁻⁵²·v − (2B + 4)·2⁻¹⁰⁷⁴ (ulp(v) ≤ 2⁻⁵²v for normal v, 2⁻¹⁰⁷⁴ below).  The
    two float operations below round to nearest, each moving by ≤ half an ulp of a result ≥ the final one; the
    final ``nextafter`` twice covers them.  Clamped at 0 (δ ≥ 0).
    """
    if not math.isfinite(v):
        return 0.0
    x = (v - err) - ((2 * budget + 4) * 2.0 ** -52 * abs(v) + (2 * budget + 4) * 5e-324)
    x = math.nextafter(math.nextafter(x, -math.inf), -math.inf)
    return max(x, 0.0)


class _Enclosure:
    """δ sandwich δ⁻(ε) ≤ δ_M(ε) ≤ δ⁺(ε) of a one-shot mechanism, and the ε sandwich it implies."""

    exact = True  # both sides certified (False: only the upper side is proven; the lower is 0)
    theorem = ""
    description = ""
    lower_note = ""

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        raise NotImplementedError

    def delta(self, epsilon: float) -> Sandwich:
        lo, hi = self.delta_bounds(float(epsilon))
        return Sandwich(lo, hi)

    def epsilon(self, delta: float) -> Sandwich:
        d = float(delta)
        upper = _search_upper(lambda e: self.delta_bounds(e)[1] <= d)
        lower = _search_lower(lambda e: self.delta_bounds(e)[0] > d)
        return Sandwich(lower, upper)


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _from_bits(i: int) -> float:
    return struct.unpack("<d", struct.pack("<q", i))[0]


def _bisect(false_at: float, true_at: float, pred: Callable[[float], bool],
            rel: float = 0.0) -> tuple[float, float]:
    """Bisection on the bit patterns of non-negative doubles (monotone in value): returns adjacent-or-close
    (f, t) with pred(f) false and pred(t) true as evaluated (at most 64 evaluations); ``rel`` > 0 stops
    once t − f ≤ rel·t (fewer evaluations where each is expensive)."""
    a, b = _bits(false_at), _bits(true_at)
    while abs(b - a) > 1 and not (rel > 0.0 and _from_bits(b) - _from_bits(a) <= rel * _from_bits(b)):
        mid = (a + b) // 2
        if pred(_from_bits(mid)):
            b = mid
        else:
            a = mid
    return _from_bits(a), _from_bits(b)


def _search_upper(ok: Callable[[float], bool], rel: float = 0.0) -> float:
    """A float ε ≥ 0 with ok(ε) (= δ⁺(ε) ≤ δ, so ε_M(δ) ≤ ε), as small as bisection finds (to a relative
    ``rel`` if > 0); inf if none."""
    if ok(0.0):
        return 0.0
    prev, e = 0.0, 1.0
    while not ok(e):
        prev, e = e, e * 4.0
        if e > 1e300:
            return math.inf
    return _bisect(prev, e, ok, rel)[1]


def _search_lower(refutes: Callable[[float], bool]) -> float:
    """A float ε ≥ 0 with refutes(ε) (= δ⁻(ε) > δ, so ε_M(δ) > ε), as large as found; 0 if refutes(0) fails
    (ε_M(δ) ≥ 0 always, restricted to ε ≥ 0); inf if δ⁻(∞) > δ (then ε_M(δ) = ∞)."""
    if not refutes(0.0):
        return 0.0
    if refutes(math.inf):
        return math.inf
    prev, e = 0.0, 1.0
    while refutes(e):
        prev, e = e, e * 4.0
        if e > 1e300:
            return prev  # refuted up to here; larger finite ε not examined
    # pred(x) = not refutes(x) is false at prev and true at e
    return _bisect(prev, e, lambda x: not refutes(x))[0]


_NUMERIC = None


def _numeric():
    """The numba kernels (imported on first use: importing bounds compiles nothing)."""
    global _NUMERIC
    if _NUMERIC is None:
        from numeric import profiles as t89
        from numeric import subsampled_profiles as t11

        _NUMERIC = (t89, t11)
    return _NUMERIC


class _NoiseEnclosure(_Enclosure):
    """Gaussian/Laplace (T9/T8) and their one-step Poisson subsampling (T11, add/remove: max of REMOVE and
    ADD).  Upper: the library's upward-rounded kernels at θ⁺; lower: ``_lower_from_raw`` of the unrounded
    kernels at θ⁻ (δ is non-decreasing in θ for T8, T9 and T11)."""

    def __init__(self, mechanism: Gaussian | Laplace, rate: float | None) -> None:
        self.gaussian = isinstance(mechanism, Gaussian)
        self.theta_lo, self.theta_hi = _theta_bounds(mechanism)
        self.rate = rate
        name = "Gaussian" if self.gaussian else "Laplace"
        # the noise multiplier 1/θ (12 digits: θ may be 1/σ rounded); θ itself when it is not a round number
        sigma = float(f"{1.0 / self.theta_hi:.12g}")
        par = f"noise multiplier {sigma!r}" if 1.0 / sigma in (self.theta_lo, self.theta_hi) else \
            f"θ = {mechanism.theta!r}"
        if self.theta_lo != self.theta_hi:
            par += f" (θ = 1/σ enclosed in [{self.theta_lo!r}, {self.theta_hi!r}])"
        if rate is None:
            self.theorem = "T9" if self.gaussian else "T8"
            self.description = f"{name} mechanism, {par} (SPEC {self.theorem}, exact profile)"
        else:
            self.theorem = "T11"
            self.description = f"Poisson-subsampled {name}, {par}, rate {rate!r}, one step (SPEC T11, exact profile)"

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        t89, t11 = _numeric()
        if self.rate is None:
            if self.gaussian:
                hi = t89.gaussian_delta_up(epsilon, self.theta_hi)
                lo = 0.0 if epsilon == math.inf else _lower_from_raw(
                    t89.gaussian_delta_kernel(epsilon, self.theta_lo), 0.0, t89.BUDGET_GAUSSIAN)
            else:
                hi = t89.laplace_delta_up(epsilon, self.theta_hi)
                raw = t89.laplace_delta_kernel(epsilon, self.theta_lo)
                # exact 0 for ε ≥ θ (the kernel's branch is exact); otherwise the budget
                lo = 0.0 if raw == 0.0 else _lower_from_raw(raw, 0.0, t89.BUDGET_LAPLACE)
            return lo, hi
        mech = t11.GAUSSIAN if self.gaussian else t11.LAPLACE
        budget = t11.BUDGET_GAUSSIAN if self.gaussian else t11.BUDGET_LAPLACE
        his, los = [], []
        for direction, with_error in ((t11.REMOVE, t11.remove_with_error), (t11.ADD, t11.add_with_error)):
            his.append(t11.delta_up(mech, direction, epsilon, self.theta_hi, self.rate))
            v, err = with_error(mech, epsilon, self.theta_lo, self.rate)
            los.append(v if err == t11.EXACT else _lower_from_raw(v, err, budget))
        return max(los), max(his)


def _mp():
    import mpmath

    return mpmath


_DIGITS = 80
_WIDEN = "1e-70"  # relative widening ≫ the accumulated error of ≤ 20 mpmath operations at 80 digits (~1e-78)


def _mp_floats(lo: Any, hi: Any) -> tuple[float, float]:
    """Directed conversion of an mpmath enclosure [lo, hi] (after widening) to floats, clamped to [0, 1]."""
    mp = _mp()
    from mpmath.libmp import round_ceiling, round_floor, to_float

    def conv(x: Any, rnd: Any) -> float:
        return to_float(mp.mpf(x)._mpf_, rnd=rnd)

    w = mp.mpf(_WIDEN)
    a = conv(lo - abs(lo) * w - mp.mpf("1e-400"), round_floor)
    b = conv(hi + abs(hi) * w + mp.mpf("1e-400"), round_ceiling)
    return min(max(a, 0.0), 1.0) + 0.0, min(max(b, 0.0), 1.0) + 0.0  # + 0.0: no −0


def _fraction_floats(x: Fraction) -> tuple[float, float]:
    """Floats lo ≤ x ≤ hi, adjacent (equal when x is a double); ``float(Fraction)`` is correctly rounded."""
    f = float(x)
    fx = Fraction(f)
    if fx == x:
        return f, f
    return (f, math.nextafter(f, math.inf)) if fx < x else (math.nextafter(f, -math.inf), f)


class _ImpliedEnclosure(_Enclosure):
    """The worst case over (ε₀, δ₀)-DP mechanisms M of the profile of M∘S, S a subsampling of ratio η
    (η = 1: M itself).  For ε ≥ 0 it is η·δ_{ε₀,δ₀}(A_η⁻¹(ε)) (SPEC Conventions and T1/T2 profile form, tight),
    which with e^{A_η⁻¹(ε)} = 1 + (e^ε − 1)/η simplifies to

        δ'(ε) = η δ₀ + (1 − δ₀)·[η(e^{ε₀} − 1) − (e^ε − 1)]₊ / (1 + e^{ε₀}),

    evaluated in mpmath at 80 digits (η as the exact quotient m/n or a float, all inputs exact there) and
    widened by 1e-70 relative to each term's magnitude — far above the ≤ 20 roundings of 2⁻²⁶⁵ it
    accumulates — before directed conversion to floats.  ``exact=False`` keeps only the upper side (T5)."""

    def __init__(self, eps0: float, delta0: float, eta_num: Any, eta_den: Any = 1, *, exact: bool = True,
                 theorem: str = "", description: str = "", lower_note: str = "") -> None:
        self.eps0, self.delta0 = float(eps0), float(delta0)
        self.eta_num, self.eta_den = eta_num, eta_den
        self.exact, self.theorem, self.description, self.lower_note = exact, theorem, description, lower_note

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        mp = _mp()
        with mp.workdps(_DIGITS):
            eta = mp.mpf(self.eta_num) / mp.mpf(self.eta_den)
            d0 = mp.mpf(self.delta0)
            if eta == 0:
                lo = hi = mp.mpf(0)  # ε ≥ 0: the two laws are equal
            elif self.eps0 == math.inf:
                lo = hi = eta if epsilon < math.inf else eta * d0
            else:
                e0 = mp.exp(mp.mpf(self.eps0))
                if epsilon == math.inf:
                    core, mag = mp.mpf(0), mp.mpf(0)
                else:
                    ee = mp.exp(mp.mpf(epsilon))
                    core = eta * (e0 - 1) - (ee - 1)
                    mag = eta * e0 + ee + 1
                w = mp.mpf(_WIDEN) * mag
                c_lo, c_hi = max(core - w, mp.mpf(0)), max(core + w, mp.mpf(0))
                # decided exactly where the sign of the core can be 0: η = 1 (e^{ε₀} − e^ε), ε₀ = 0; elsewhere
                # (Lindemann–Weierstrass: floats are algebraic) it is never 0 and the widened sign is used
                if (self.eta_num == self.eta_den and epsilon >= self.eps0) or self.eps0 == 0.0:
                    c_hi = mp.mpf(0)
                if c_hi == 0:  # certainly on the plateau δ' = ηδ₀: exact rational, rounded outward
                    lo_f, hi_f = _fraction_floats(Fraction(self.eta_num) / Fraction(self.eta_den)
                                                  * Fraction(self.delta0))
                    return (lo_f if self.exact else 0.0), hi_f
                lo = eta * d0 + (1 - d0) * c_lo / (1 + e0)
                hi = eta * d0 + (1 - d0) * c_hi / (1 + e0)
            lo_f, hi_f = _mp_floats(lo, hi)
        return (lo_f if self.exact else 0.0), hi_f


class _DiscreteEnclosure(_Enclosure):
    """δ(ε) = max over pairs and orders of Σ (P − e^ε Q)₊ for rational laws, in mpmath at 80 digits with each
    term widened by 1e-70·(P + e^ε Q) before directed conversion (the same argument as ``_ImpliedEnclosure``)."""

    theorem = "definition"

    def __init__(self, mechanism: DiscretePairs) -> None:
        self.pairs = mechanism.pairs
        self.description = f"finite mechanism with {len(self.pairs)} neighbouring pair(s) (exact hockey-stick sums)"

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        if epsilon == 0.0:  # e^0 = 1: the sums are exact rationals
            return _fraction_floats(max(sum(max(x - y, 0) for x, y in zip(a, b))
                                        for p, q in self.pairs for a, b in ((p, q), (q, p))))
        mp = _mp()
        best_lo = best_hi = mp.mpf(0)
        with mp.workdps(_DIGITS):
            ee = mp.exp(mp.mpf(epsilon)) if epsilon < math.inf else None
            for p, q in self.pairs:
                for a, b in ((p, q), (q, p)):
                    lo = hi = mp.mpf(0)
                    for x, y in zip(a, b):
                        px = mp.mpf(x.numerator) / x.denominator
                        if ee is None:
                            t, mag = (px if y == 0 else mp.mpf(0)), px
                        else:
                            qy = mp.mpf(y.numerator) / y.denominator
                            t, mag = px - ee * qy, px + ee * qy
                        w = mp.mpf(_WIDEN) * mag
                        lo += max(t - w, 0)
                        hi += max(t + w, 0)
                    best_lo, best_hi = max(best_lo, lo), max(best_hi, hi)
            return _mp_floats(best_lo, best_hi)


class _UpperOnlyEnclosure(_Enclosure):
    """Only the upper side is proven: the lower sides are 0 (no evaluation).  The ε upper bound is bisected
    to a relative 2⁻⁴⁰ only (about 40 evaluations instead of 64: the T3/T4 sums can cost ~0.3 s each); any
    ε with δ⁺(ε) ≤ δ is a sound upper bound, and "valid" verdicts are decided by δ⁺ at the claimed ε."""

    exact = False
    SEARCH_REL = 2.0 ** -40

    def __init__(self, upper: Callable[[float], float], theorem: str, description: str, lower_note: str) -> None:
        self._upper = upper
        self.theorem, self.description, self.lower_note = theorem, description, lower_note

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        return 0.0, float(self._upper(epsilon))

    def epsilon(self, delta: float) -> Sandwich:
        d = float(delta)
        return Sandwich(0.0, _search_upper(lambda e: self._upper(e) <= d, self.SEARCH_REL))


def _amplified_base_epsilon(eps: float, eta: float, forward: Callable[[float], float]) -> float:
    """A base ε_b ≥ 0 with forward(ε_b) ≤ eps, forward being the library's upward-rounded A_η: start at the
    float A_η⁻¹(eps) and move down until the check passes (any ε_b that passes gives a sound bound)."""
    if eps == math.inf:
        return math.inf
    e = math.log1p(math.expm1(eps) / eta) if eta > 0 and eps < 700 else (eps - math.log(eta) if eta > 0 else math.inf)
    if not math.isfinite(e):
        return e
    step = 2.0 ** -52
    for _ in range(200):
        if e <= 0.0:
            return 0.0
        if forward(e) <= eps:
            return e
        e = e * (1.0 - step)
        step *= 2.0
        if step >= 1.0:
            return 0.0
    return 0.0


# Work limit of a with-replacement cross-check: binomial terms summed in all (≈ 0.1–0.2 µs of CPU each).  One
# δ⁺ evaluation sums the Chernoff window of Bin(m, 1/n), at most ~2·10⁶ terms (numeric.with_replacement's
# blocks); a verdict needs one δ⁺ at the claimed ε and ≤ ~70 for the ε search.
WITH_REPLACEMENT_MAX_TERMS = 4 * 10 ** 7
WITH_REPLACEMENT_EVALUATIONS = 60  # δ⁺ evaluations of a verdict: 1 at the claim, ~15 doublings, ~41 bisections
_SECONDS_PER_TERM = 1.5e-7


def _with_replacement_terms(m: int, n: int) -> int:
    """Binomial terms one T3/T4 δ' evaluation sums (the window of ``numeric.with_replacement.cutoffs``,
    capped as its block sums are)."""
    if m == 0 or n == 1:
        return 1
    from numeric import with_replacement as wr

    lo, hi, _ = wr.cutoffs(float(m), 1.0 / n)
    return int(min(hi - lo + 1.0, 2.0 * wr.MAX_TERMS)) + 1


def _with_replacement_upper(mech: WithReplacement) -> Callable[[float], float]:
    from ._core import value
    from .mechanisms import with_replacement_profile
    from .subsampling import with_replacement

    base, m, n, rel = mech.mechanism, int(mech.m), int(mech.n), mech.relation
    if isinstance(base, EpsDelta):
        g = with_replacement(base.epsilon, base.delta, m, n, relation=rel)
        return lambda eps: g.delta if eps >= g.epsilon else 1.0
    eta = -math.expm1(m * math.log1p(-1.0 / n)) if n > 1 else 1.0
    theorem = "T3" if rel == "substitute" else "T4"

    def forward(x: float) -> float:
        # ε' = A_η(x) rounded up: the record's ε output alone (the δ sum is not needed to invert A_η)
        return value("with_replacement_profile", theorem, "epsilon", epsilon=x, m=m, n=n)

    def upper(eps: float) -> float:
        if m == 0:
            return 0.0
        e = _amplified_base_epsilon(eps, eta, forward)
        if e == math.inf:
            return 0.0 if eps == math.inf else 1.0
        return with_replacement_profile(base, e, m, n, relation=rel).delta

    return upper


def _check_with_replacement_work(mech: WithReplacement, evaluations: int) -> None:
    """Refuse a cross-check whose T3/T4 sums would run for minutes, saying the estimate."""
    if isinstance(mech.mechanism, EpsDelta):
        return  # one evaluation in all
    terms = _with_replacement_terms(int(mech.m), int(mech.n)) * evaluations
    if terms > WITH_REPLACEMENT_MAX_TERMS:
        raise ValueError(f"crosscheck: WithReplacement(m={mech.m}, n={mech.n}) needs about {terms:.2g} binomial "
                         f"terms (≈ {terms * _SECONDS_PER_TERM:.0f} s of CPU: {evaluations} evaluations of the "
                         f"SPEC T3/T4 sum over the window of Bin(m, 1/n), mean m/n = {mech.m / mech.n:.3g}); the "
                         f"limit is {WITH_REPLACEMENT_MAX_TERMS:.0e} terms.  With m/n that large every record is "
                         "drawn many times and sampling amplifies nothing: check the base mechanism composed "
                         "m/n times instead, or call bounds.with_replacement_profile for single values")


def _without_replacement_noise_upper(mech: WithoutReplacement) -> Callable[[float], float]:
    from .mechanisms import without_replacement_profile

    base, m, n = mech.mechanism, int(mech.m), int(mech.n)

    def upper(eps: float) -> float:
        if m == 0:
            return 0.0
        e = _amplified_base_epsilon(eps, m / n, lambda x: without_replacement_profile(base, x, m, n).epsilon)
        if e == math.inf:
            return 0.0 if eps == math.inf else 1.0
        return without_replacement_profile(base, e, m, n).delta

    return upper


_NO_LOWER_T3 = ("SPEC {t} (sampling with replacement) is proven only as an upper bound; no certified lower "
                "bound on the exact δ is available here, so a claim below the upper bound cannot be refuted")


def enclosure(mechanism: Any) -> _Enclosure:
    """The certified δ-profile enclosure of a one-shot mechanism (``ValueError`` for anything else)."""
    if isinstance(mechanism, (Gaussian, Laplace)):
        return _NoiseEnclosure(mechanism, None)
    if isinstance(mechanism, EpsDelta):
        return _ImpliedEnclosure(mechanism.epsilon, mechanism.delta, 1, theorem="Conventions",
                                 description=f"an ({mechanism.epsilon!r}, {mechanism.delta!r})-DP mechanism "
                                             "(worst case: the implied profile, tight)")
    if isinstance(mechanism, PoissonSampled):
        base, rate = mechanism.mechanism, mechanism.rate
        if isinstance(base, (Gaussian, Laplace)):
            return _NoiseEnclosure(base, rate)
        return _ImpliedEnclosure(base.epsilon, base.delta, rate, theorem="T1",
                                 description=f"an ({base.epsilon!r}, {base.delta!r})-DP mechanism on a Poisson "
                                             f"sample of rate {rate!r} (SPEC T1, tight worst case)")
    if isinstance(mechanism, WithoutReplacement):
        base = mechanism.mechanism
        if isinstance(base, EpsDelta):
            return _ImpliedEnclosure(base.epsilon, base.delta, int(mechanism.m), int(mechanism.n), theorem="T2",
                                     description=f"an ({base.epsilon!r}, {base.delta!r})-DP mechanism on {mechanism.m} "
                                                 f"of {mechanism.n} records without replacement (SPEC T2, tight)")
        return _UpperOnlyEnclosure(_without_replacement_noise_upper(mechanism), "T2",
                                   f"{base!r} on {mechanism.m} of {mechanism.n} records without replacement "
                                   "(SPEC T2, upper bound)",
                                   "SPEC T2 is tight for a bare (ε, δ) but only an upper bound for a specific "
                                   "Gaussian/Laplace mechanism; no certified lower bound is available here")
    if isinstance(mechanism, WithReplacement):
        t = "T3" if mechanism.relation == "substitute" else "T4"
        _check_with_replacement_work(mechanism, WITH_REPLACEMENT_EVALUATIONS)
        return _UpperOnlyEnclosure(_with_replacement_upper(mechanism), t,
                                   f"{mechanism.mechanism!r} on {mechanism.m} draws with replacement from "
                                   f"{mechanism.n} records (SPEC {t}, upper bound)", _NO_LOWER_T3.format(t=t))
    if isinstance(mechanism, RateChange):
        g = mechanism.guarantee
        return _ImpliedEnclosure(g.epsilon, g.delta, mechanism.rate_to, mechanism.rate_from, exact=False,
                                 theorem="T5",
                                 description=f"({g.epsilon!r}, {g.delta!r})-DP at rate {mechanism.rate_from!r} run at "
                                             f"rate {mechanism.rate_to!r} (SPEC T5, upper bound)",
                                 lower_note="SPEC T5 is proven only as an upper bound (its worst case is not "
                                            "attained by a subsampled pair); no certified lower bound")
    if isinstance(mechanism, DiscretePairs):
        return _DiscreteEnclosure(mechanism)
    raise ValueError(f"crosscheck: not supported: {mechanism!r} (expected Gaussian, Laplace, EpsDelta, "
                     "poisson_sampled(...), WithoutReplacement, WithReplacement, RateChange, DiscretePairs, or a "
                     "composition with .delta(epsilon) and .epsilon(delta))")


# ----------------------------------------------------------------------------------------------------
# the verdict
# ----------------------------------------------------------------------------------------------------

def _g(x: float) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.12g}"


@dataclass(frozen=True)
class Verdict:
    """A certified verdict on the claim "the mechanism is (epsilon_claim, delta_claim)-DP".

    Returned by :func:`crosscheck` (frozen; ``as_dict()`` gives its JSON form).  "invalid" rests on a
    certified lower bound only, so it is never a false alarm; "valid" on a certified upper bound.

    Parameters
    ----------
    verdict : {"valid", "invalid", "undecided"}
    epsilon_claim, delta_claim : float
        The claim checked.
    delta : Sandwich
        Certified enclosure of the mechanism's δ at the claimed ε.
    epsilon : Sandwich
        Certified enclosure of the smallest ε ≥ 0 at which the mechanism is (ε, delta_claim)-DP.
    slack : Sandwich
        Enclosure of ε_claim − ε_M(δ_claim): positive = the claim is loose by that much, negative = it is
        short by that much.
    mechanism : str
        What was checked.
    explanation : str
        One paragraph for a human (for "undecided": by how much and how to tighten).

    Examples
    --------
    >>> import bounds
    >>> v = bounds.crosscheck(bounds.EpsDelta(1.0, 1e-6), epsilon=1.0, delta=1e-6)
    >>> v.verdict, v.delta.upper <= 1e-6
    ('valid', True)
    >>> sorted(v.as_dict())[:3]
    ['delta', 'delta_claim', 'epsilon']
    """

    verdict: str
    epsilon_claim: float
    delta_claim: float
    delta: Sandwich
    epsilon: Sandwich
    slack: Sandwich
    mechanism: str
    explanation: str = field(repr=False)

    def __repr__(self) -> str:
        return (f"Verdict({self.verdict!r}, claim=(ε={_g(self.epsilon_claim)}, δ={_g(self.delta_claim)}), "
                f"δ(ε) ∈ [{_g(self.delta.lower)}, {_g(self.delta.upper)}], "
                f"ε(δ) ∈ [{_g(self.epsilon.lower)}, {_g(self.epsilon.upper)}], "
                f"slack ∈ [{_g(self.slack.lower)}, {_g(self.slack.upper)}])")

    def __str__(self) -> str:
        return f"{self.verdict}: {self.explanation}"

    def as_dict(self) -> dict:
        """Plain JSON-ready fields (inf as the string "inf")."""
        def j(x: float) -> Any:
            return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {"verdict": self.verdict, "epsilon_claim": j(self.epsilon_claim), "delta_claim": j(self.delta_claim),
                "delta": [j(self.delta.lower), j(self.delta.upper)],
                "epsilon": [j(self.epsilon.lower), j(self.epsilon.upper)],
                "slack": [j(self.slack.lower), j(self.slack.upper)],
                "mechanism": self.mechanism, "explanation": self.explanation}


def _claim(name: str, value: Any, hi: float) -> float:
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_)) \
            and value != value:
        raise ValueError(f"crosscheck: {name} is NaN; it must lie in [0, {_g(hi)}]"
                         + " (a peer that reports NaN has failed; its claim cannot be checked)")
    try:
        return real_number("crosscheck", name, value, low=0.0, high=hi)
    except ParameterTypeError:
        raise
    except ValueError as exc:
        negative = isinstance(value, (float, int)) and value < 0 and name == "epsilon"
        raise ValueError(str(exc) + (" (a negative ε is a peer error)" if negative else "")) from None


def _scalar_sandwich(s: Any, what: str) -> Sandwich:
    try:
        lo, hi = float(s[0]), float(s[1])
    except Exception:
        raise ValueError(f"crosscheck: the composition's {what} returned {s!r}, not a Sandwich(lower, upper)") from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"crosscheck: the composition's {what} returned an invalid enclosure {s!r}")
    return Sandwich(lo, hi)


def _noise_text(gaussian: bool, theta: float) -> str:
    """"noise multiplier σ" (σ = 1/θ to 12 digits) when that round-trips, else "θ = …"."""
    sigma = float(f"{1.0 / theta:.12g}")
    name = "Gaussian" if gaussian else "Laplace"
    return f"{name}, noise multiplier {sigma!r}" if 1.0 / sigma == theta or \
        abs(1.0 / sigma - theta) <= 2.0 ** -50 * theta else f"{name}, θ = {theta!r}"


def describe_composition(target: Any) -> str:
    """A composition for humans: its phases with noise multiplier σ (or θ), rate and steps, e.g.
    "composition of 11719 steps: 11719 × Poisson-subsampled Gaussian, noise multiplier 1.1, rate 0.004 (add/remove)"
    (``repr`` for compositions not built by ``bounds.compose``)."""
    steps = getattr(target, "steps", None)
    if not isinstance(steps, dict):
        return repr(target)
    parts = []
    try:
        for key, count in steps.items():
            if key[0] == "noise":
                _, mech, theta, q = key[:4]
                text = _noise_text(mech == 0, theta)
                parts.append(f"{count} × " + (f"Poisson-subsampled {text}, rate {q!r}" if q < 1.0 else text))
            elif key[0] == "epsdelta":
                parts.append(f"{count} × an ({key[1]!r}, {key[2]!r})-DP mechanism")
            else:
                return repr(target)
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return repr(target)
    total = getattr(target, "total_steps", sum(steps.values()))
    tol = getattr(target, "tolerance", None)
    return (f"composition of {total} steps: " + "; ".join(parts)
            + (f" (bounds.compose, tolerance {tol!r})" if tol is not None else ""))


def _is_composition(x: Any) -> bool:
    return callable(getattr(x, "delta", None)) and callable(getattr(x, "epsilon", None)) and \
        not isinstance(x, _Enclosure)


@refuses_dask
def crosscheck(mechanism_or_composition: Any = None, *, epsilon: Any, delta: Any, noise_multiplier: Any = None,
               rate: Any = None, steps: Any = 1, mechanism: str = "gaussian", tolerance: Any = None) -> Verdict:
    r"""Is the mechanism (ε, δ)-DP?  A certified verdict on an accountant's claim (issue 13).

    Returns a ``Verdict`` that is ``"invalid"`` only if a certified *lower* bound on δ_M(ε) exceeds δ (never a
    false alarm), ``"valid"`` only if a certified *upper* bound on δ_M(ε) is at most δ, else ``"undecided"``
    with the enclosures and how to tighten them; or raises.

    .. math::

        \text{invalid} \iff \delta_M^-(\varepsilon) > \delta, \qquad
        \text{valid} \iff \delta_M^+(\varepsilon) \le \delta, \qquad
        \delta_M^-(\varepsilon) \le \delta_M(\varepsilon) \le \delta_M^+(\varepsilon)

    (each side also decided through the ε enclosure of ε_M(δ) = min{ε ≥ 0 : δ_M(ε) ≤ δ}).  One-shot
    enclosures: SPEC T8/T9 (plain noise), T11 (one-step Poisson-subsampled Gaussian/Laplace), the implied
    profile (bare ``EpsDelta``), T1/T2 (tight worst cases), T3/T4/T5 (upper bounds only); compositions
    through ``bounds.compose`` (any object with ``.delta(ε)``/``.epsilon(δ)`` → ``Sandwich``).  Relation:
    add/remove for Poisson sampling, substitute for T2/T3.

    Parameters
    ----------
    mechanism_or_composition : mechanism, composition, list of (mechanism, count), or None
        ``None``: build the mechanism from ``noise_multiplier``, ``rate``, ``steps`` (DP-SGD vocabulary).
    epsilon : float
        Claimed ε ≥ 0 (finite).
    delta : float
        Claimed δ ∈ [0, 1].
    noise_multiplier : float, optional
        σ/Δ of a Gaussian (or b/Δ of a Laplace with ``mechanism="laplace"``); never θ.
    rate : float, optional
        Poisson sampling rate q ∈ [0, 1] (default: no subsampling).
    steps : int
        Number of steps (> 1 uses ``bounds.compose``).
    mechanism : {"gaussian", "laplace"}
        Noise for the keyword form.
    tolerance : float, optional
        Passed to ``bounds.compose`` when steps > 1.

    Returns
    -------
    Verdict

    Raises
    ------
    ValueError
        If the claim is NaN, negative, infinite (ε) or outside [0, 1] (δ), or the mechanism is not supported.

    Examples
    --------
    Opacus' GDP accountant reports ε = 0.4575 at δ = 1e-5 for one step of σ = 1, q = 0.1; the RDP accountant
    2.1330:

    >>> import bounds
    >>> bounds.crosscheck(noise_multiplier=1.0, rate=0.1, epsilon=0.4575, delta=1e-5).verdict
    'invalid'
    >>> v = bounds.crosscheck(noise_multiplier=1.0, rate=0.1, epsilon=2.1330, delta=1e-5)
    >>> v.verdict, round(v.epsilon.upper, 6), round(v.slack.lower, 4)
    ('valid', 1.684544, 0.4485)
    """
    eps_c = _claim("epsilon", epsilon, math.inf)
    if eps_c == math.inf:
        raise ValueError("crosscheck: epsilon = inf claims nothing; it must be a finite ε ≥ 0")
    delta_c = _claim("delta", delta, 1.0)
    target = mechanism_or_composition
    if target is None:
        target = _from_keywords(noise_multiplier, rate, steps, mechanism, tolerance)
    elif noise_multiplier is not None or rate is not None:
        raise ValueError("crosscheck: give either a mechanism/composition or noise_multiplier/rate, not both")
    if isinstance(target, (list, tuple)):
        target = _steps_to_target(list(target), tolerance)

    if _is_composition(target):
        encl = None
        d_s = _scalar_sandwich(target.delta(eps_c), "delta(epsilon)")
        e_s = _scalar_sandwich(target.epsilon(delta_c), "epsilon(delta)")
        description = describe_composition(target)
        exact_sides = True
    else:
        encl = enclosure(target)
        d_s = encl.delta(eps_c)
        e_s = encl.epsilon(delta_c)
        description = encl.description
        exact_sides = encl.exact
    valid = d_s.upper <= delta_c or eps_c >= e_s.upper
    invalid = d_s.lower > delta_c or eps_c < e_s.lower
    if valid and invalid:  # impossible if the enclosures are sound: surface it, never guess
        raise RuntimeError(f"crosscheck: inconsistent enclosures for {description}: δ ∈ {tuple(d_s)}, "
                           f"ε ∈ {tuple(e_s)} at claim (ε={eps_c!r}, δ={delta_c!r}); please report this")
    slack = Sandwich(eps_c - e_s.upper, eps_c - e_s.lower)
    verdict = "valid" if valid else "invalid" if invalid else "undecided"
    text = _explain(verdict, eps_c, delta_c, d_s, e_s, slack, target, encl, exact_sides)
    return Verdict(verdict, eps_c, delta_c, d_s, e_s, slack, description, text)


def _explain(verdict: str, eps_c: float, delta_c: float, d_s: Sandwich, e_s: Sandwich, slack: Sandwich,
             target: Any, encl: _Enclosure | None, exact_sides: bool) -> str:
    claim = f"(ε = {_g(eps_c)}, δ = {_g(delta_c)})"
    if verdict == "valid":
        return (f"the claim {claim} holds: δ at ε = {_g(eps_c)} is at most {_g(d_s.upper)} ≤ {_g(delta_c)}; "
                f"the smallest valid ε at this δ is at most {_g(e_s.upper)}, so the claim is loose by at least "
                f"{_g(max(slack.lower, 0.0))} in ε.")
    if verdict == "invalid":
        return (f"the claim {claim} is WRONG: δ at ε = {_g(eps_c)} is at least {_g(d_s.lower)} > {_g(delta_c)}, so "
                f"the mechanism is not ({_g(eps_c)}, {_g(delta_c)})-DP; the smallest valid ε at this δ is at least "
                f"{_g(e_s.lower)} (short by at least {_g(max(-slack.upper, 0.0))}).")
    width = d_s.upper - d_s.lower
    rel = width / delta_c if delta_c > 0 else math.inf
    parts = [f"the claim {claim} lies inside the certified enclosure: δ at ε = {_g(eps_c)} is in "
             f"[{_g(d_s.lower)}, {_g(d_s.upper)}] (width {_g(rel)} relative to the claimed δ) and the smallest "
             f"valid ε is in [{_g(e_s.lower)}, {_g(e_s.upper)}] (the claim is within {_g(e_s.upper - eps_c)} below "
             f"the certified upper ε)."]
    if encl is not None and not encl.exact:
        parts.append(encl.lower_note + "; a claim at or above the upper ε "
                     f"{_g(e_s.upper)} is certified valid.")
    elif encl is not None:
        parts.append("The enclosure is the exact profile up to the kernels' rounding budget: the claim equals the "
                     "exact value to within float accuracy; "
                     + (f"round it up to ε ≥ {_g(e_s.upper)} to be safe." if math.isfinite(e_s.upper) else
                        "no finite ε is certified at this δ: claim a slightly larger δ."))
    else:
        tol = getattr(target, "tolerance", None)
        hint = f"a smaller tolerance than {tol!r}" if tol is not None else "a smaller tolerance"
        parts.append(f"Re-run bounds.compose with {hint} (e.g. tolerance=1e-5) to narrow the enclosure, or "
                     f"publish ε ≥ {_g(e_s.upper)}.")
    return " ".join(parts)


# ----------------------------------------------------------------------------------------------------
# peers' vocabulary
# ----------------------------------------------------------------------------------------------------

def _compose(steps: list, tolerance: Any) -> Any:
    from . import composition

    compose = getattr(composition, "compose", None)
    if compose is None:
        raise ValueError(f"crosscheck: a composition of {sum(c for _, c in steps)} steps needs bounds.compose "
                         "(issue 12), which this build does not have; one-shot mechanisms work")
    return compose(steps) if tolerance is None else compose(steps, tolerance=tolerance)


def _merge(steps: list) -> list:
    out: list = []
    for mech, count in steps:
        if count == 0:
            continue
        if out and out[-1][0] == mech:
            out[-1] = (mech, out[-1][1] + count)
        else:
            out.append((mech, count))
    return out


def _steps_to_target(steps: list, tolerance: Any = None) -> Any:
    for i, step in enumerate(steps):
        if not (isinstance(step, (list, tuple)) and len(step) == 2):
            raise ValueError(f"crosscheck: steps[{i}] = {step!r} must be a (mechanism, count) pair")
    steps = [(mech, integer("crosscheck", f"steps[{i}] count", count, low=0, what="number of steps"))
             for i, (mech, count) in enumerate(steps)]
    steps = _merge(steps)
    if not steps:
        raise ValueError("crosscheck: no steps (an empty composition releases nothing)")
    if len(steps) == 1 and steps[0][1] == 1:
        return steps[0][0]
    return _compose(steps, tolerance)


def _from_keywords(noise_multiplier: Any, rate: Any, steps: Any, mechanism: str, tolerance: Any) -> Any:
    if noise_multiplier is None:
        raise ValueError("crosscheck: give a mechanism or composition, or noise_multiplier= (and rate=, steps=)")
    if not isinstance(mechanism, str) or mechanism not in ("gaussian", "laplace"):
        raise ValueError(f"crosscheck: mechanism = {shown(mechanism)} must be 'gaussian' or 'laplace'")
    base = _from_noise_multiplier("crosscheck", noise_multiplier, laplace=mechanism == "laplace")
    mech = base if rate is None else poisson_sampled(base, rate)
    count = integer("crosscheck", "steps", steps, low=1, high=MAX_STEPS, what="number of steps")
    return _steps_to_target([(mech, count)], tolerance)


@refuses_dask
def from_opacus_history(history: Sequence, *, tolerance: Any = None) -> Any:
    """The mechanism of an Opacus accountant's ``history`` = [(noise_multiplier, sample_rate, steps), …].

    Returns a one-shot mechanism (one step) that ``crosscheck`` accepts, or a ``bounds.compose`` composition
    of Poisson-subsampled Gaussians (add/remove); raises ``ValueError`` on a malformed entry.

    Parameters
    ----------
    history : sequence of (float, float, int)
        Opacus' ``accountant.history``: σ/Δ, Poisson rate, number of steps.
    tolerance : float, optional
        Passed to ``bounds.compose``.

    Returns
    -------
    mechanism or Composition

    Raises
    ------
    ValueError
        If an entry is malformed (NaN σ, rate outside [0, 1], steps not a positive integer) or history is empty.

    Examples
    --------
    >>> import bounds
    >>> m = bounds.from_opacus_history([(1.0, 0.01, 1)])
    >>> bounds.crosscheck(m, epsilon=0.2, delta=1e-5).verdict
    'valid'
    """
    steps = []
    for i, entry in enumerate(_sequence("from_opacus_history", "history", history)):
        try:
            sigma, q, count = entry
        except (TypeError, ValueError):
            raise ValueError(f"from_opacus_history: history[{i}] = {shown(entry)} must be (noise_multiplier, "
                             "sample_rate, steps)") from None
        count = integer("from_opacus_history", f"history[{i}] steps", count, low=0, what="number of steps")
        steps.append((poisson_sampled(_from_noise_multiplier(f"from_opacus_history: history[{i}]", sigma), q),
                      count))
    return _steps_to_target(steps, tolerance)


_SUPPORTED_EVENTS = ("GaussianDpEvent", "LaplaceDpEvent", "PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent",
                     "SampledWithReplacementDpEvent", "SelfComposedDpEvent", "ComposedDpEvent", "NoOpDpEvent")


def _event_node(event: Any) -> tuple[str, dict]:
    """(class name, fields) of a dp_accounting DpEvent, its NamedTuple form, or its JSON/dict form."""
    if isinstance(event, dict):
        name = event.get("class_name") or event.get("type")
        if not isinstance(name, str):
            raise ValueError(f"from_dp_event: not supported: {shown(event)} (a JSON event needs a \"class_name\")")
        return name, {k: v for k, v in event.items() if k not in ("class_name", "module_name", "type")}
    if hasattr(event, "_fields") and hasattr(event, "class_name"):  # dp_accounting's to_named_tuple()
        return str(event.class_name), {k: getattr(event, k) for k in event._fields
                                       if k not in ("class_name", "module_name")}
    name = type(event).__name__
    if name.endswith("DpEvent"):
        try:
            import attr

            fields = attr.asdict(event, recurse=False)
        except Exception:
            fields = {k: getattr(event, k) for k in getattr(event, "__slots__", ()) if hasattr(event, k)}
        return name, fields
    raise ValueError(f"from_dp_event: not supported: {shown(event)} (a DpEvent, its NamedTuple form or a dict "
                     "with \"class_name\" is needed)")


MAX_EVENT_NODES = 10 ** 6  # events visited in one tree (a bound on the work, not on the depth)


def _event_steps(event: Any) -> list:
    """Flatten a DpEvent tree into [(mechanism, count), …].

    Walked with an explicit stack, not by recursion: a tree of any depth (a ledger composed event by event
    nests one ``ComposedDpEvent`` per step) is read without reaching Python's recursion limit; at most
    ``MAX_EVENT_NODES`` events are visited."""
    results: list[list] = []  # the flattened steps of the finished subtrees, in order
    stack: list[tuple] = [("visit", event)]
    visited = 0
    while stack:
        action, item = stack.pop()
        if action == "visit":
            visited += 1
            if visited > MAX_EVENT_NODES:
                raise ValueError(f"from_dp_event: the event tree has more than {MAX_EVENT_NODES} events; "
                                 "merge repeated events with SelfComposedDpEvent(event, count)")
            name, f = _event_node(item)

            def need(key: str, name: str = name, f: dict = f) -> Any:
                if key not in f:
                    raise ValueError(f"from_dp_event: {name} lacks the field {key!r}")
                return f[key]

            if name == "NoOpDpEvent":
                results.append([])
            elif name == "GaussianDpEvent":
                results.append([(_from_noise_multiplier("from_dp_event: GaussianDpEvent",
                                                        need("noise_multiplier")), 1)])
            elif name == "LaplaceDpEvent":
                results.append([(_from_noise_multiplier("from_dp_event: LaplaceDpEvent", need("noise_multiplier"),
                                                        laplace=True), 1)])
            elif name == "SelfComposedDpEvent":
                count = integer("from_dp_event", "SelfComposedDpEvent count", need("count"), low=0,
                                what="number of repetitions")
                stack.append(("self_composed", count))
                stack.append(("visit", need("event")))
            elif name == "ComposedDpEvent":
                events = _sequence("from_dp_event", "ComposedDpEvent events", need("events"))
                stack.append(("composed", len(events)))
                stack.extend(("visit", e) for e in reversed(events))
            elif name in ("PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent",
                          "SampledWithReplacementDpEvent"):
                stack.append(("sampled", (name, f)))
                stack.append(("visit", need("event")))
            else:
                raise ValueError(f"from_dp_event: not supported: {name} ({shown(item)}); supported: "
                                 + ", ".join(_SUPPORTED_EVENTS))
        elif action == "self_composed":
            results.append([(m, c * item) for m, c in results.pop()])
        elif action == "composed":
            parts = results[len(results) - item:] if item else []
            del results[len(results) - item:]
            results.append(_merge([step for part in parts for step in part]))
        else:  # "sampled"
            name, f = item
            inner = results.pop()
            if len(inner) != 1 or inner[0][1] != 1 or not isinstance(inner[0][0], (Gaussian, Laplace)):
                raise ValueError(f"from_dp_event: not supported: {name} of {shown(f['event'])} (only one "
                                 "Gaussian or Laplace release can be sampled)")
            base = inner[0][0]
            if name == "PoissonSampledDpEvent":
                if "sampling_probability" not in f:
                    raise ValueError(f"from_dp_event: {name} lacks the field 'sampling_probability'")
                results.append([(poisson_sampled(base, f["sampling_probability"]), 1)])
            else:
                for key in ("sample_size", "source_dataset_size"):
                    if key not in f:
                        raise ValueError(f"from_dp_event: {name} lacks the field {key!r}")
                cls = WithoutReplacement if name == "SampledWithoutReplacementDpEvent" else WithReplacement
                results.append([(cls(base, f["sample_size"], f["source_dataset_size"]), 1)])
    return results[0]


@refuses_dask
def from_dp_event(event: Any, *, tolerance: Any = None) -> Any:
    """The mechanism described by a dp_accounting ``DpEvent`` tree.

    Returns a one-shot mechanism (a single release) that ``crosscheck`` accepts, or a ``bounds.compose``
    composition; raises ``ValueError("… not supported: <event>")`` for other events.  dp_accounting need not
    be installed: events are recognised by class name and fields; the NamedTuple form
    (``event.to_named_tuple()``) and its JSON form (nested objects with ``"class_name"`` and the fields, as
    written by ``dp_event_to_json``) are accepted too.

    Supported: ``GaussianDpEvent`` (noise multiplier σ/Δ), ``LaplaceDpEvent`` (scale b/Δ),
    ``PoissonSampledDpEvent`` (SPEC T11, add/remove), ``SampledWithoutReplacementDpEvent`` (T2, substitute),
    ``SampledWithReplacementDpEvent`` (T3, substitute; upper bound only), ``SelfComposedDpEvent``,
    ``ComposedDpEvent``, ``NoOpDpEvent``.

    Parameters
    ----------
    event : DpEvent, its NamedTuple form, dict, or JSON text
    tolerance : float, optional
        Passed to ``bounds.compose`` for compositions.

    Returns
    -------
    mechanism or Composition

    Raises
    ------
    ValueError
        For unsupported events or malformed fields (NaN noise multiplier, rate outside [0, 1], …).

    Examples
    --------
    >>> import bounds
    >>> ev = {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01,
    ...       "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}
    >>> bounds.crosscheck(bounds.from_dp_event(ev), epsilon=0.1995, delta=1e-5).verdict
    'valid'
    """
    if isinstance(event, (str, bytes)):
        try:
            event = json.loads(event)
        except json.JSONDecodeError as exc:
            raise ValueError(f"from_dp_event: not valid JSON: {exc}") from None
        except RecursionError:  # the json module parses nested objects recursively
            raise ValueError("from_dp_event: the JSON text nests too deeply for Python's JSON parser; pass the "
                             "parsed event (dict or DpEvent), which is walked without recursion") from None
    steps = _event_steps(event)
    if not steps:
        raise ValueError("from_dp_event: the event releases nothing (NoOpDpEvent only)")
    return _steps_to_target(steps, tolerance)


def dp_event_to_json(event: Any) -> str:
    """JSON text of a DpEvent tree (nested objects with "class_name" and the event's fields), the form that
    ``from_dp_event`` and ``ampbounds crosscheck --dp-event`` read.  dp_accounting's own serialisation is
    ``event.to_named_tuple()``; this writes that NamedTuple as nested JSON objects."""
    def conv(x: Any) -> Any:
        if hasattr(x, "to_named_tuple"):
            x = x.to_named_tuple()
        if hasattr(x, "_fields"):
            return {k: conv(getattr(x, k)) for k in x._fields}
        if isinstance(x, (list, tuple)):
            return [conv(v) for v in x]
        return x

    return json.dumps(conv(event))
