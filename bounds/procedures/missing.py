r"""Missing-data mechanisms with exact p* and ρ, and NA-aware feature-wise Lipschitz (FWL) releases (SPEC T17, T18).

Roburin, Pinot, Scornet, *Privacy Amplification by Missing Data* (arXiv:2602.01928); ``shared/SYSTEMS.md`` §4.

**Neighbouring relation: substitute one record (bounded DP)**, unlike seeds 000 and 002 (add/remove): the
number n of records is public, and a mean divides by that n.

A missing-data mechanism draws a mask m ∈ {0, 1}^d per record, independently across records (True = missing);
z̃ replaces the masked coordinates by NA, with NA·1 = NA and NA + 0 = 0, so in a sum or any linear query a
missing entry contributes nothing (``na_fill`` writes it as 0).  Each generator here knows, exactly from its
definition:

- ``p_star`` — p* = 1 − P[every feature of the record is missing] (under MAR the all-missing probability
  cannot depend on the record, Lemma 3.1), the amplification weight of T17;
- ``rho`` — ρ = the largest fraction of features observed on the support of the mask distribution, the
  fraction of T18 (a Fraction k/d).

``p_star`` is a Fraction when the parameters are exact (ints, Fractions), otherwise the double just above the
exact value of the given doubles (the bounds are non-decreasing in p*, so rounding up is safe).  Masks are
drawn with exact Bernoulli probabilities (``_bernoulli``) and exactly uniform subsets, so the sampled masks
have exactly the distribution p* and ρ describe.

p* = 1 gives no amplification from T17 in general (Appendix B.3: a mechanism that never masks the queried
feature of the differing record); T18 can still amplify a query that uses several features (ρ < 1).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Sequence, Union

import mpmath
from mpmath import libmp
import numpy as np

from .._core import Guarantee
from ..missing import (FWLQuery, UniformConstants, float_up, fwl_clipped_mean, fwl_histogram, fwl_mean,
                       missing_data_gaussian, missing_data_laplace)
from ._bernoulli import bernoulli
from ._checks import generator

__all__ = ["MaskGenerator", "MCAR", "ObserveExactly", "MARThreshold", "MissingDataRelease", "mcar",
           "observe_exactly", "mar_threshold", "na_fill", "missing_sum", "missing_mean", "missing_clipped_mean",
           "missing_histogram"]

Number = Union[Fraction, float]
_MAX_DOUBLE = Fraction(np.finfo(np.float64).max)
_MAX_FEATURES = 2 ** 24  # a generator stores one rate per feature
_MAX_ENTRIES = 2 ** 36  # n·d of one mask or one-hot table (a larger request is refused, not attempted)
_EXACT_LIMIT = 4096  # beyond this many float factors, p* is bounded with 256-bit interval arithmetic


def _real(function: str, name: str, x: Any, domain: str) -> tuple[Fraction, bool]:
    """(exact value, given-exactly) of a finite real; ints, Fractions and Decimals are exact, floats are read
    as their exact binary value."""
    bad = ValueError(f"{function}: {name} = {x!r} must be a {domain}")
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, Decimal)):
        raise bad
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise bad
        return Fraction(x), True
    if isinstance(x, numbers.Rational):
        value = Fraction(int(x.numerator), int(x.denominator))
        if abs(value) > _MAX_DOUBLE:
            raise ValueError(f"{function}: {name} = {x!r} exceeds the largest double; it must be a {domain}")
        return value, True
    return Fraction(_finite_float(function, name, x, domain)), False


def _finite_float(function: str, name: str, x: Any, domain: str) -> float:
    """``x`` as a finite double, or ValueError (bools, strings, complex, NaN, inf, ints beyond the doubles)."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, Decimal)):
        raise ValueError(f"{function}: {name} = {x!r} must be a {domain}")
    try:
        f = float(x)
    except (OverflowError, ValueError):
        raise ValueError(f"{function}: {name} = {x!r} must be a {domain}") from None
    if not math.isfinite(f):
        raise ValueError(f"{function}: {name} = {x!r} must be a {domain}")
    return f


def _probability(function: str, name: str, x: Any) -> tuple[Fraction, bool]:
    """(exact value, given-exactly) of a probability in [0, 1]."""
    value, exact = _real(function, name, x, "real number in [0, 1]")
    if not 0 <= value <= 1:
        raise ValueError(f"{function}: {name} = {x!r} must lie in [0, 1]")
    return value, exact


def _positive(function: str, name: str, x: Any) -> tuple[Fraction, bool]:
    value, exact = _real(function, name, x, "positive finite real")
    if value <= 0:
        raise ValueError(f"{function}: {name} = {x!r} must be a positive finite real")
    return value, exact


def _count(function: str, name: str, x: Any, low: int = 1, high: int | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or int(x) < low:
        raise ValueError(f"{function}: {name} = {x!r} must be an integer ≥ {low}")
    if high is not None and int(x) > high:
        raise ValueError(f"{function}: {name} = {x!r} exceeds {high} (too large to hold in memory)")
    return int(x)


def _product_up(rates: Sequence[Fraction], exact: bool) -> Number:
    """1 − Π rates: exact (Fraction) for exact rates; else the double above it (interval arithmetic when long)."""
    if exact or len(rates) <= _EXACT_LIMIT:
        product = Fraction(1)
        for r in rates:
            product *= r
            if product == 0:
                break
        value = 1 - product
        return value if exact else float_up(value)
    groups: dict[Fraction, int] = {}
    for r in rates:
        groups[r] = groups.get(r, 0) + 1
    # a lower bound on the product with every operation rounded toward 0 (all factors are positive, so
    # products of lower bounds are lower bounds), 256 bits
    product = libmp.fone
    for r, count in groups.items():
        if r == 0:
            product = libmp.fzero
            break
        factor = libmp.from_rational(r.numerator, r.denominator, 256, libmp.round_floor)
        product = libmp.mpf_mul(product, libmp.mpf_pow_int(factor, count, 256, libmp.round_floor), 256,
                                libmp.round_floor)
    sign, man, exp, _ = product
    low = Fraction(man) * Fraction(2) ** exp if man else Fraction(0)
    return float_up(1 - low)


class MaskGenerator:
    """A missing-data mechanism F: one mask per record, drawn independently (True = missing).

    Subclasses define ``features`` (d), ``p_star``, ``rho``, ``mechanism`` ("MCAR" or "MAR"),
    ``probability(mask, record=None)`` (the exact probability of one mask) and ``sample``.
    """

    features: int
    mechanism: str

    @property
    def p_star(self) -> Number:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def rho(self) -> Fraction:  # pragma: no cover - abstract
        raise NotImplementedError

    def probability(self, mask: Sequence[bool], record: Any = None) -> Fraction:  # pragma: no cover
        raise NotImplementedError

    def sample(self, n: int, rng: Any = None, *, data: Any = None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def supports(self, mask: np.ndarray, data: Any = None) -> np.ndarray:  # pragma: no cover - abstract
        """Per row: does the mask have positive probability under this mechanism (given the row's values)?"""
        raise NotImplementedError

    def _n(self, n: Any) -> int:
        return _count(f"{type(self).__name__}.sample", "n", n, low=0, high=_MAX_ENTRIES // self.features)


@dataclass(frozen=True)
class MCAR(MaskGenerator):
    """MCAR per feature: feature j is missing with probability π_j, independently (see :func:`mcar`)."""

    rates: tuple
    exact: bool
    features: int
    mechanism: str = "MCAR"

    @property
    def p_star(self) -> Number:
        """p* = 1 − Π_j π_j (1 − π^d for equal rates)."""
        return _product_up(self.rates, self.exact)

    @property
    def rho(self) -> Fraction:
        """ρ = #{j : π_j < 1}/d (every feature that can be observed is observed together with positive probability)."""
        return Fraction(sum(1 for r in self.rates if r < 1), self.features)

    def probability(self, mask: Sequence[bool], record: Any = None) -> Fraction:
        """P[F(z) = mask] = Π_j (π_j if missing else 1 − π_j), exactly."""
        out = Fraction(1)
        for r, m in zip(self.rates, _mask(self, mask)):
            out *= r if m else 1 - r
        return out

    def supports(self, mask: np.ndarray, data: Any = None) -> np.ndarray:
        """No feature with π_j = 0 missing, none with π_j = 1 observed."""
        return _allowed(mask, np.array([r == 0 for r in self.rates]), np.array([r == 1 for r in self.rates]))

    def sample(self, n: int, rng: Any = None, *, data: Any = None) -> np.ndarray:
        """An (n, d) boolean mask, True = missing, exactly Bernoulli(π_j) per entry."""
        rng = generator("MCAR.sample", rng)
        n = self._n(n)
        out = np.zeros((n, self.features), dtype=bool)
        for j, r in enumerate(self.rates):
            out[:, j] = bernoulli(r, n, rng)
        return out


@dataclass(frozen=True)
class ObserveExactly(MaskGenerator):
    """Each record observes a uniformly random subset of exactly r of its d features (see :func:`observe_exactly`)."""

    observed: int
    features: int
    mechanism: str = "MCAR"

    @property
    def p_star(self) -> Fraction:
        """p* = 1 if r ≥ 1 (some feature is always observed), 0 if r = 0."""
        return Fraction(1 if self.observed >= 1 else 0)

    @property
    def rho(self) -> Fraction:
        """ρ = r/d."""
        return Fraction(self.observed, self.features)

    def probability(self, mask: Sequence[bool], record: Any = None) -> Fraction:
        """1/C(d, r) for a mask with exactly r observed features, 0 otherwise."""
        m = _mask(self, mask)
        return Fraction(1, math.comb(self.features, self.observed)) if m.count(False) == self.observed else Fraction(0)

    def supports(self, mask: np.ndarray, data: Any = None) -> np.ndarray:
        """Exactly r observed features."""
        return (~mask).sum(axis=1) == self.observed

    def sample(self, n: int, rng: Any = None, *, data: Any = None) -> np.ndarray:
        """An (n, d) mask with exactly r False per row, the observed set uniform (``Generator.permuted``:
        Fisher–Yates with exact bounded integers)."""
        rng = generator("ObserveExactly.sample", rng)
        n = self._n(n)
        order = rng.permuted(np.tile(np.arange(self.features), (n, 1)), axis=1)
        out = np.ones((n, self.features), dtype=bool)
        np.put_along_axis(out, order[:, :self.observed], False, axis=1)
        return out


@dataclass(frozen=True)
class MARThreshold(MaskGenerator):
    """MAR example: missingness of the other features depends on an always-observed driver feature (see
    :func:`mar_threshold`)."""

    driver: int
    threshold: float
    rate_below: Fraction
    rate_above: Fraction
    dropout: Fraction
    exact: bool
    features: int
    mechanism: str = "MAR"

    @property
    def p_star(self) -> Number:
        """p* = 1 − dropout: a record is all-missing only by the value-independent dropout."""
        value = 1 - self.dropout
        return value if self.exact else float_up(value)

    @property
    def rho(self) -> Fraction:
        """ρ = 1 if some other feature can be observed (a rate < 1 and d > 1), else 1/d; 0 if dropout = 1."""
        if self.dropout == 1:
            return Fraction(0)
        if self.features > 1 and min(self.rate_below, self.rate_above) < 1:
            return Fraction(1)
        return Fraction(1, self.features)

    def _rate(self, driver_value: Any) -> Fraction:
        return self.rate_below if float(driver_value) < self.threshold else self.rate_above

    def probability(self, mask: Sequence[bool], record: Any = None) -> Fraction:
        """P[F(z) = mask] given the record's values (only its driver value is read)."""
        m = _mask(self, mask)
        if all(m):
            return self.dropout
        if m[self.driver]:
            return Fraction(0)
        if record is None:
            raise ValueError("MARThreshold.probability: the record is needed (its driver value decides the rate)")
        rate = self._rate(record[self.driver])
        out = 1 - self.dropout
        for j, missing in enumerate(m):
            if j != self.driver:
                out *= rate if missing else 1 - rate
        return out

    def supports(self, mask: np.ndarray, data: Any = None) -> np.ndarray:
        """All missing only if dropout > 0; otherwise the driver observed and the others allowed by its rate."""
        if data is None:
            raise ValueError("MARThreshold.supports: data is required (the driver's values set the rates)")
        below = np.asarray(data, dtype=np.float64)[:, self.driver] < self.threshold  # each row's rate
        never = np.where(below, self.rate_below == 0, self.rate_above == 0)[:, None]
        always = np.where(below, self.rate_below == 1, self.rate_above == 1)[:, None]
        ok = _allowed(np.delete(mask, self.driver, axis=1), never, always)
        full = mask.all(axis=1)
        return np.where(full, self.dropout > 0, ~mask[:, self.driver] & ok & (self.dropout < 1))

    def sample(self, n: int, rng: Any = None, *, data: Any = None) -> np.ndarray:
        """An (n, d) mask for the n records of ``data`` (required: the driver column decides the rates)."""
        rng = generator("MARThreshold.sample", rng)
        n = self._n(n)
        if data is None:
            raise ValueError("MARThreshold.sample: data is required (MAR: the driver feature's values set the rates)")
        values = np.asarray(data, dtype=np.float64)
        if values.ndim != 2 or values.shape != (n, self.features):
            raise ValueError(f"MARThreshold.sample: data must have shape ({n}, {self.features}), got {values.shape}")
        driver = values[:, self.driver]
        if np.isnan(driver).any():
            raise ValueError("MARThreshold.sample: the driver feature has NaN; it must be always observed")
        below = driver < self.threshold
        out = np.zeros((n, self.features), dtype=bool)
        others = [j for j in range(self.features) if j != self.driver]
        for rows, rate in ((np.flatnonzero(below), self.rate_below), (np.flatnonzero(~below), self.rate_above)):
            draws = bernoulli(rate, rows.size * len(others), rng).reshape(rows.size, len(others))
            out[np.ix_(rows, others)] = draws
        out[bernoulli(self.dropout, n, rng)] = True  # whole-record dropout, independent of the values
        return out


def _allowed(mask: np.ndarray, never: np.ndarray, always: np.ndarray) -> np.ndarray:
    """Per row of ``mask``: no entry missing where its rate is 0 (``never``) and none observed where it is 1
    (``always``); ``never``/``always`` broadcast against ``mask`` (one per feature, or one per row as a column)."""
    return ~((mask & never) | (~mask & always)).any(axis=1)


def _mask(gen: MaskGenerator, mask: Sequence[bool]) -> list[bool]:
    m = [bool(x) for x in np.asarray(mask, dtype=bool).ravel()]
    if len(m) != gen.features:
        raise ValueError(f"{type(gen).__name__}.probability: mask has {len(m)} entries, the generator {gen.features}")
    return m


def mcar(rate: Any, features: int) -> MCAR:
    r"""MCAR per feature: each feature j missing independently with probability π_j (SPEC T17/T18 inputs).

    .. math:: p_* = 1 - \prod_j \pi_j \;(= 1 - \pi^d), \qquad \rho = \#\{j : \pi_j < 1\}/d \;(= 1 \text{ if } \pi < 1)

    Roburin, Pinot, Scornet, arXiv:2602.01928 (the MCAR example of §3); relation substitute one record.

    Parameters
    ----------
    rate : real or sequence of real
        π ∈ [0, 1] for every feature, or one π_j per feature.  Ints and Fractions make ``p_star`` exact.
    features : int
        d ≥ 1.

    Returns
    -------
    MCAR
        With ``.p_star``, ``.rho``, ``.probability(mask)``, ``.sample(n, rng)``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from bounds.procedures import mcar
    >>> g = mcar(Fraction(1, 2), 3)
    >>> g.p_star, g.rho
    (Fraction(7, 8), Fraction(1, 1))
    >>> g.sample(2, rng=0).shape
    (2, 3)
    """
    d = _count("mcar", "features", features, high=_MAX_FEATURES)
    if isinstance(rate, (str, bytes)) or np.ndim(rate) > 1:
        raise ValueError(f"mcar: rate = {rate!r} must be a probability or one per feature")
    if np.ndim(rate) == 0:
        value, exact = _probability("mcar", "rate", rate.item() if isinstance(rate, np.ndarray) else rate)
        rates, exacts = (value,) * d, exact
    else:
        items = list(rate)
        if len(items) != d:
            raise ValueError(f"mcar: {len(items)} rates for {d} features")
        pairs = [_probability("mcar", f"rate[{j}]", x.item() if isinstance(x, np.generic) else x)
                 for j, x in enumerate(items)]
        rates, exacts = tuple(v for v, _ in pairs), all(e for _, e in pairs)
    return MCAR(rates, exacts, d)


def observe_exactly(r: int, features: int) -> ObserveExactly:
    r"""Each record observes exactly r of its d features, the subset uniform and independent of the values (MCAR).

    p* = 1 (for r ≥ 1: the record is always partly observed, so T17 gives no amplification) and ρ = r/d
    (T18 amplifies FWL queries by r ≈ ρ).  Roburin et al. §4 (the "observe r of d" example).

    Examples
    --------
    >>> from bounds.procedures import observe_exactly
    >>> g = observe_exactly(3, 10)
    >>> g.p_star, g.rho, int((~g.sample(4, rng=1)).sum(axis=1).max())
    (Fraction(1, 1), Fraction(3, 10), 3)
    """
    d = _count("observe_exactly", "features", features, high=_MAX_FEATURES)
    k = _count("observe_exactly", "r", r, low=0)
    if k > d:
        raise ValueError(f"observe_exactly: r = {r!r} exceeds features = {d}")
    return ObserveExactly(k, d)


def mar_threshold(features: int, *, driver: int = 0, threshold: float, rate_below: Any, rate_above: Any,
                  dropout: Any = 0) -> MARThreshold:
    r"""A MAR mechanism: feature ``driver`` is always observed and the others go missing at a rate set by it.

    With probability ``dropout`` the whole record is missing (independently of its values); otherwise the
    driver is observed and every other feature is missing independently with probability ``rate_below``
    if z_driver < threshold, else ``rate_above``.  The probability of each mask depends only on values it
    leaves observed, so the mechanism is MAR (not MCAR).

    .. math:: p_* = 1 - \text{dropout}, \qquad \rho = 1 \text{ (if some rate} < 1\text{ and } d > 1)

    Parameters
    ----------
    features : int
        d ≥ 1.
    driver : int
        Index of the always-observed feature.
    threshold : float
        The driver's threshold.
    rate_below, rate_above, dropout : real
        Probabilities in [0, 1] (exact types make ``p_star`` exact).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from bounds.procedures import mar_threshold
    >>> g = mar_threshold(3, driver=0, threshold=40, rate_below=Fraction(1, 4), rate_above=Fraction(3, 4),
    ...                   dropout=Fraction(1, 10))
    >>> g.p_star, g.rho
    (Fraction(9, 10), Fraction(1, 1))
    >>> g.probability([False, True, False], record=[50, 1.0, 2.0])   # 9/10 · 3/4 · 1/4
    Fraction(27, 160)
    """
    d = _count("mar_threshold", "features", features, high=_MAX_FEATURES)
    if isinstance(driver, bool) or not isinstance(driver, numbers.Integral) or not 0 <= int(driver) < d:
        raise ValueError(f"mar_threshold: driver = {driver!r} must be a feature index in [0, {d})")
    threshold = _finite_float("mar_threshold", "threshold", threshold, "finite real number")
    below, e1 = _probability("mar_threshold", "rate_below", rate_below)
    above, e2 = _probability("mar_threshold", "rate_above", rate_above)
    drop, e3 = _probability("mar_threshold", "dropout", dropout)
    return MARThreshold(int(driver), float(threshold), below, above, drop, e3, d)


# ---------------------------------------------------------------------------------------------------------
# NA-aware queries

def na_fill(data: Any, mask: Any = None) -> np.ndarray:
    """z̃ as numbers: the masked entries (``mask`` True, or NaN when ``mask`` is None) become 0, because a
    missing entry adds nothing to a sum (NA + 0 = 0, NA·1 = NA: Roburin et al. §2, SYSTEMS §4).

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.procedures import na_fill
    >>> na_fill(np.array([[1.0, np.nan], [2.0, 3.0]]))
    array([[1., 0.],
           [2., 3.]])
    """
    values = _data("na_fill", data)
    if mask is None:
        return np.where(np.isnan(values), 0.0, values)
    m = np.asarray(mask)
    if m.dtype != bool or m.shape != values.shape:
        raise ValueError(f"na_fill: mask must be a boolean array of the data's shape {values.shape}, got "
                         f"{m.dtype} {m.shape}")
    return np.where(m, 0.0, values)


def _data(function: str, data: Any) -> np.ndarray:
    try:
        if np.iscomplexobj(np.asarray(data)):
            raise TypeError
        values = np.array(data, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{function}: data must be a 2-D array of real numbers (records × features)") from None
    if values.ndim != 2 or values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(f"{function}: data must be a non-empty 2-D array (records × features), got shape "
                         f"{values.shape}")
    if np.isinf(values).any():
        raise ValueError(f"{function}: data has an infinite entry")
    return values


@dataclass(frozen=True)
class MissingDataRelease:
    """A noisy FWL query on data with missing values, with its guarantee (SPEC T18, substitution).

    Attributes
    ----------
    value : ndarray
        The released (noisy) answer.
    query : FWLQuery
        The query's FWL constants (``bounds.fwl_*``).
    noise : {"laplace", "gaussian"}
    scale : float
        Laplace scale C₁/ε or Gaussian σ = C₂c/ε (rounded up).
    guarantee : Guarantee
        ``missing_data_laplace``/``missing_data_gaussian`` at the generator's p* and the query's ratio at ρ.
    complete_data : Guarantee
        The calibration's (ε, δ) on complete data (what the same noise gives without missing values).
    p_star, rho :
        The generator's p* and ρ.
    """

    value: np.ndarray
    query: FWLQuery
    noise: str
    scale: float
    guarantee: Guarantee
    complete_data: Guarantee
    p_star: Number
    rho: Fraction


def _release(function: str, answer_of, data: Any, gen: MaskGenerator, query: FWLQuery, *, epsilon: Any,
             delta: Any, mask: Any, noise: str, rng: Any, columns: int) -> MissingDataRelease:
    if not isinstance(gen, MaskGenerator):
        raise TypeError(f"{function}: generator must be a MaskGenerator (mcar, observe_exactly, mar_threshold), "
                        f"got {type(gen).__name__}")
    if gen.features != columns:
        raise ValueError(f"{function}: the generator masks {gen.features} features, the query has {columns}")
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"{function}: noise = {noise!r} must be 'laplace' or 'gaussian'")
    rng = generator(function, rng)
    eps = _epsilon(function, epsilon, noise)
    p_star = gen.p_star
    p_up = float_up(p_star) if isinstance(p_star, Fraction) else p_star
    ratio = query.ratio(gen.rho) if gen.rho > 0 else Fraction(0)
    if noise == "laplace":
        if delta is not None:
            raise ValueError(f"{function}: delta is for noise='gaussian'; the Laplace release is (ε, 0)")
        guarantee = missing_data_laplace(eps, p_up, ratio)
        complete = Guarantee(eps, 0.0)
        scale = float_up(Fraction(query.sensitivity) / Fraction(eps))
    else:
        delta = _finite_float(function, "delta", delta, "number in (0, 1) for noise='gaussian'")
        if not 0 < delta < 1:
            raise ValueError(f"{function}: delta = {delta!r} must lie in (0, 1) for noise='gaussian'")
        guarantee = missing_data_gaussian(eps, delta, p_up, ratio)
        complete = Guarantee(eps, delta)
        with mpmath.workdps(50):  # c > √(2 ln(1.25/δ)) strictly (Thm 4.7's classical calibration)
            c = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(delta)))
            c_up = math.nextafter(float(mpmath.mpf(c) * (1 + mpmath.mpf(2) ** -60)), math.inf)
        scale = float_up(Fraction(query.sensitivity) * Fraction(c_up) / Fraction(eps))
    if not math.isfinite(scale):
        raise ValueError(f"{function}: the noise scale C/ε = {query.sensitivity}/{eps!r} overflows a double")
    values = data
    n = values.shape[0]
    if mask is None:
        if np.isnan(values).any():
            raise ValueError(f"{function}: data has NaN but mask=None draws the mask from the generator; pass "
                             "mask='nan' if the NaN are the missing values (drawn by the declared generator)")
        m = gen.sample(n, rng, data=values)
    elif isinstance(mask, str) and mask == "nan":
        m = np.isnan(values)
    else:
        m = np.asarray(mask)
        if m.dtype != bool or m.shape != (n, columns):
            raise ValueError(f"{function}: mask must be 'nan', None or a boolean array of shape ({n}, {columns})")
    if mask is not None:
        bad = ~gen.supports(m, values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{function}: the missing pattern of record {i} has probability 0 under the declared "
                             f"{type(gen).__name__}; its p* and ρ do not describe these data")
    answer = answer_of(values, m)
    draw = rng.laplace(0.0, scale, size=answer.shape) if noise == "laplace" else rng.normal(0.0, scale, answer.shape)
    return MissingDataRelease(answer + draw, query, noise, scale, guarantee, complete, p_star, gen.rho)


def _epsilon(function: str, epsilon: Any, noise: str) -> float:
    eps = _finite_float(function, "epsilon", epsilon, "finite number > 0 (the noise scale is C/ε)")
    if not eps > 0:
        raise ValueError(f"{function}: epsilon = {epsilon!r} must be finite and > 0 (the noise scale is C/ε)")
    if noise == "gaussian" and eps > 1:
        raise ValueError(f"{function}: epsilon = {epsilon!r} > 1: the classical Gaussian calibration σ = C₂c/ε of "
                         "Thm 4.7 is (ε, δ)-DP only for ε ≤ 1 (SPEC T18)")
    return eps


def _bounded(function: str, values: np.ndarray, mask: np.ndarray, bound: Fraction) -> np.ndarray:
    """z̃ with NA → 0, after checking |z_ij| ≤ B exactly (B need not be a double: for a double z and a rational
    B strictly between two doubles lo < B, z > B ⇔ z > lo)."""
    z = na_fill(values, mask)
    limit = float(bound)
    if Fraction(limit) > bound:
        limit = math.nextafter(limit, 0.0)
    if (np.abs(z) > limit).any():
        raise ValueError(f"{function}: an observed value exceeds the declared bound B = {bound} (max_i ‖z_i‖_∞ ≤ B "
                         "is the FWL precondition; clip first or use missing_clipped_mean)")
    return z


def missing_sum(data: Any, generator: MaskGenerator, *, bound: Any, epsilon: Any, delta: Any = None,
                mask: Any = None, noise: str = "laplace", rng: Any = None) -> MissingDataRelease:
    r"""Noisy coordinate-wise sum Σ_i z̃_i of records with missing values (NA → 0), with its T18 guarantee.

    FWL constants L_j = 1 (Prop C.2 (L) with B_i = I), C = 2B·d; noise Laplace(C/ε) or N(0, (Cc/ε)²) with
    c > √(2 ln(1.25/δ)) (ε ≤ 1); guarantee ``missing_data_laplace``/``_gaussian`` at the generator's p* and
    r = ⌊ρd⌋/d.  Relation: substitute one record (bounded DP).  SPEC T18; Roburin et al. Thm 4.5/4.7.

    Parameters
    ----------
    data : array_like
        (n, d) complete records with |z_ij| ≤ B (or incomplete, NaN = missing, with ``mask="nan"``).
    generator : MaskGenerator
        The missing-data mechanism (``mcar``, ``observe_exactly``, ``mar_threshold``).
    bound : real
        B > 0.
    epsilon : float
        ε of the calibration (> 0; ≤ 1 for Gaussian noise).
    delta : float, optional
        δ ∈ (0, 1) of the Gaussian calibration.
    mask : None, "nan" or boolean array
        None: drawn from ``generator`` (the procedure T18 assumes); "nan" or an array: the missing values as
        they are, **assumed** drawn by ``generator`` independently per record (each record's pattern is
        checked to have positive probability under it; independence cannot be checked).
    noise : {"laplace", "gaussian"}
    rng : numpy.random.Generator, int or None

    Returns
    -------
    MissingDataRelease

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.procedures import missing_sum, observe_exactly
    >>> data = np.ones((100, 10))
    >>> out = missing_sum(data, observe_exactly(3, 10), bound=1, epsilon=1.0, rng=0)
    >>> out.value.shape, out.scale, round(out.guarantee.epsilon, 12)
    ((10,), 20.0, 0.3)
    """
    function = "missing_sum"
    values = _data(function, data)
    b, exact = _positive(function, "bound", bound)
    query = FWLQuery("sum", UniformConstants(Fraction(1), values.shape[1]), b if exact else float_up(b), "l1",
                     "Table 1; Prop C.2 (L) with B_i = I")
    return _release(function, lambda v, m: _bounded(function, v, m, b).sum(axis=0), values, generator, query,
                    epsilon=epsilon, delta=delta, mask=mask, noise=noise, rng=rng, columns=values.shape[1])


def missing_mean(data: Any, generator: MaskGenerator, *, bound: Any, epsilon: Any, delta: Any = None,
                 mask: Any = None, noise: str = "laplace", rng: Any = None) -> MissingDataRelease:
    r"""Noisy mean (1/n)Σ_i z̃_i (NA → 0; n the public number of records, substitution DP), with its T18 guarantee.

    ``bounds.fwl_mean(d, n, B)``: L_j = 1/n, C = 2B·d/n.  Dividing by the number of *observed* entries instead
    would not be this query (that count changes with the mask).  Parameters as :func:`missing_sum`.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from bounds.procedures import missing_mean, mcar
    >>> out = missing_mean(np.zeros((50, 4)), mcar(Fraction(1, 2), 4), bound=1, epsilon=0.5, rng=0)
    >>> out.p_star, out.scale
    (Fraction(15, 16), 0.32)
    """
    function = "missing_mean"
    values = _data(function, data)
    b, _ = _positive(function, "bound", bound)
    query = fwl_mean(values.shape[1], values.shape[0], bound)
    return _release(function, lambda v, m: _bounded(function, v, m, b).sum(axis=0) / v.shape[0], values, generator,
                    query, epsilon=epsilon, delta=delta, mask=mask, noise=noise, rng=rng, columns=values.shape[1])


def missing_clipped_mean(data: Any, generator: MaskGenerator, *, clip: Any, epsilon: Any, delta: Any = None,
                         mask: Any = None, noise: str = "laplace", rng: Any = None) -> MissingDataRelease:
    r"""Noisy coordinate-wise clipped mean (1/n)Σ_i clip(z̃_i, −c, c) (NA → 0), with its T18 guarantee.

    ``bounds.fwl_clipped_mean(d, n, c)``: L_j = 1/n, B = c.  Values are clipped per entry, so any real data
    are accepted.  Parameters as :func:`missing_sum`, with ``clip`` = c > 0 instead of ``bound``.

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.procedures import missing_clipped_mean, observe_exactly
    >>> out = missing_clipped_mean(np.full((1000, 20), 7.0), observe_exactly(6, 20), clip=1, epsilon=1.0, rng=0)
    >>> round(out.guarantee.epsilon, 12), out.complete_data.epsilon
    (0.3, 1.0)
    """
    function = "missing_clipped_mean"
    values = _data(function, data)
    c_exact, _ = _positive(function, "clip", clip)
    c = float(c_exact)
    if Fraction(c) > c_exact:  # clip to a double inside [−c, c]: the clipped values stay within the bound
        c = math.nextafter(c, 0.0)
    query = fwl_clipped_mean(values.shape[1], values.shape[0], clip)
    return _release(function, lambda v, m: np.clip(na_fill(v, m), -c, c).sum(axis=0) / v.shape[0], values,
                    generator, query, epsilon=epsilon, delta=delta, mask=mask, noise=noise, rng=rng,
                    columns=values.shape[1])


def missing_histogram(data: Any, generator: MaskGenerator, *, cells: int, epsilon: Any, delta: Any = None,
                      mask: Any = None, noise: str = "laplace", rng: Any = None) -> MissingDataRelease:
    r"""Noisy histogram of one-hot records with missing indicators (NA → 0), with its T18 guarantee.

    Each record is one-hot over ``cells`` cells (the d = cells features of the paper's Table 1 histogram);
    the generator masks indicators, a masked indicator counts 0.  ``bounds.fwl_histogram(cells)``: L_j = 1,
    B = 1.  ``data``: (n, cells) 0/1 rows with one 1 each, or (n,) integer codes in [0, cells).  Other
    parameters as :func:`missing_sum`.

    Examples
    --------
    >>> from bounds.procedures import missing_histogram, observe_exactly
    >>> out = missing_histogram([0, 1, 1, 2], observe_exactly(2, 3), cells=3, epsilon=1.0, rng=0)
    >>> out.value.shape, out.rho
    ((3,), Fraction(2, 3))
    """
    function = "missing_histogram"
    d = _count(function, "cells", cells)
    array = np.asarray(data)
    if array.ndim == 1:
        _count(function, "codes × cells", array.size * d, low=0, high=_MAX_ENTRIES)
        if array.size == 0 or not np.issubdtype(array.dtype, np.integer) or (array < 0).any() or (array >= d).any():
            raise ValueError(f"{function}: codes must be a non-empty integer array with values in [0, {d})")
        onehot = np.zeros((array.size, d))
        onehot[np.arange(array.size), array] = 1.0
    else:
        onehot = _data(function, array)
        filled = np.where(np.isnan(onehot), 0.0, onehot)
        if onehot.shape[1] != d or not np.isin(filled, (0.0, 1.0)).all() or (filled.sum(axis=1) > 1).any():
            raise ValueError(f"{function}: data must be one-hot rows over {d} cells (0/1, at most one 1 per row)")
    query = fwl_histogram(d)
    return _release(function, lambda v, m: na_fill(v, m).sum(axis=0), onehot, generator, query, epsilon=epsilon,
                    delta=delta, mask=mask, noise=noise, rng=rng, columns=d)
