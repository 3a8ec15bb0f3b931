r"""Public API for privacy amplification by missing data: SPEC T17 and T18.

Roburin, Pinot, Scornet, *Privacy Amplification by Missing Data*, arXiv:2602.01928: Thm 3.2 (any mechanism,
T17), Thm 4.5 (Laplace), Thm 4.7 (Gaussian), Cor 4.6 (T18), Prop C.2–C.4 and Table 1 (feature-wise Lipschitz
queries).

Common preconditions (every function here):

- the neighbouring relation is **substitute one record** (bounded DP) on incomplete datasets;
- the missing-data mechanism is **MAR** (missing at random; a fortiori MCAR), i.e. the probability of a
  mask depends only on the values it leaves observed, and it acts **independently on each record**
  (correlated missingness across records can degrade privacy instead, paper §6);
- ``p_star`` (p*) is the probability that the differing record is **at least partially observed**.  Under
  MAR it is the same for both neighbours (Lemma 3.1): p* = 1 − P{every feature of the record is masked}.
  With non-uniform records use the largest such probability (the bounds are nondecreasing in p*).

MNAR mechanisms (missingness depending on unobserved values) are not covered.
"""
from __future__ import annotations

import itertools
import math
import numbers
from collections import defaultdict
from collections.abc import Sequence as _SequenceABC
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from ._core import Guarantee, as_output, evaluate, guarantee, is_scalar, real, validate
from ._dask import refuses_dask, supports_dask

Number = Union[Fraction, float]

#: The smallest double ≥ e − 1 and the smallest double ≥ 1/(e − 1) (both irrational, so never equal to a
#: double: p ≥ INV_E_MINUS_1_UP ⇔ p ≥ 1/(e − 1) exactly).  Checked at 60 digits in the tests.
E_MINUS_1_UP = 1.7182818284590453
INV_E_MINUS_1_UP = 0.5819767068693265

# A float ρ whose ρ·d lies within this relative distance below an integer k is read as k/d (see fwl_ratio).
_NEAR_INTEGER = 2.0 ** -40


# --------------------------------------------------------------------------------------------------------
# T17
# --------------------------------------------------------------------------------------------------------

def missing_data(epsilon: ArrayLike, delta: ArrayLike, p_star: ArrayLike) -> Guarantee:
    r"""Privacy of an (ε, δ)-DP algorithm run on data with MAR/MCAR missing values (SPEC T17).

    Returns an upper bound on the (ε', δ') of A∘D, rounded up (never below the exact value), or raises.

    .. math::

        \varepsilon' = \ln\bigl(1 + p_*(e^{\varepsilon} - 1)\bigr), \qquad \delta' = p_*\,\delta

    This is the Poisson-subsampling map (SPEC T1) at η = p*.  SPEC T17; Roburin, Pinot, Scornet,
    arXiv:2602.01928, Thm 3.2.  Relation: substitute one record.  Provenance: *source*.

    Preconditions: A is (ε, δ)-DP on incomplete datasets under substitution; the missing-data mechanism
    D is MAR or MCAR and independent per record; p* is the probability that the differing record is at
    least partially observed (module docstring).  Tight: randomized response on a bit of the differing
    record's observed values attains it; at p* = 1 there is no amplification in general (Prop B.3), and
    a structured query can still gain from masked features (``missing_data_laplace``/``_gaussian``).

    Parameters
    ----------
    epsilon : array_like
        ε of the algorithm on incomplete data, in [0, inf].
    delta : array_like
        δ of the algorithm, in [0, 1].
    p_star : array_like
        p* ∈ [0, 1], probability that the differing record is at least partially observed.

    Returns
    -------
    Guarantee
        ``(epsilon, delta)``: floats for scalar input, broadcast arrays otherwise.  ε' is evaluated as
        log1p(p*·expm1(ε)) for ε ≤ 709 and in log space above (ε = 1e4 works).

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (the message names it, its value and the domain).

    Examples
    --------
    >>> import bounds
    >>> g = bounds.missing_data(1.0, 1e-6, 0.3)    # 70% of records fully missing, MCAR
    >>> round(g.epsilon, 12), g.delta >= 3e-7
    (0.415735221844, True)
    """
    return guarantee("missing_data", "T17", epsilon=epsilon, delta=delta, p_star=p_star)


# --------------------------------------------------------------------------------------------------------
# T18: the FWL ratio
# --------------------------------------------------------------------------------------------------------

def _is_exact(x: Any) -> bool:
    return isinstance(x, (Fraction, Decimal)) or (isinstance(x, numbers.Integral) and not isinstance(x, bool))


def _exact_value(function: str, name: str, x: Any) -> tuple[Fraction, bool]:
    """(exact rational value, was-exact) of one input number; ValueError for NaN, inf, non-numbers."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, Decimal)):
        raise ValueError(f"{function}: {name} = {x!r} is not a real number (SPEC T18)")
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{function}: {name} = {x} is {'NaN' if x.is_nan() else 'not finite'} (SPEC T18)")
        return Fraction(x), True
    if _is_exact(x):
        return Fraction(int(x)) if isinstance(x, numbers.Integral) else Fraction(x), True
    value = float(x)
    if math.isnan(value):
        raise ValueError(f"{function}: {name} is NaN (SPEC T18)")
    if math.isinf(value):
        raise ValueError(f"{function}: {name} = {value} is not finite (SPEC T18)")
    return Fraction(value), False


def _exact_sum(values: Sequence[Fraction]) -> Fraction:
    """Exact sum, grouping equal denominators (floats have ≤ ~2100 distinct ones) so 10⁶ terms stay fast."""
    groups: dict[int, int] = defaultdict(int)
    for v in values:
        groups[v.denominator] += v.numerator
    return sum((Fraction(num, den) for den, num in groups.items()), Fraction(0))


def _largest(values: list[Fraction], k: int) -> list[Fraction]:
    """The k largest of ``values`` (exactly those ``sorted(values, reverse=True)[:k]`` holds, in some order).

    Sorted by their nearest doubles first (``float`` of a Fraction rounds correctly), since comparing 10⁵ Fractions
    costs seconds: rounding is monotone (x ≤ y ⇒ fl(x) ≤ fl(y)), so a value whose double is above the k-th largest
    double exceeds every value whose double is at most that, and only the values sharing the k-th double are
    compared exactly.  Values beyond the double range fall back to the exact sort."""
    if k <= 0:
        return []
    if k >= len(values):
        return list(values)
    try:
        keys = [float(v) for v in values]
    except OverflowError:
        return sorted(values, reverse=True)[:k]
    cut = sorted(keys, reverse=True)[k - 1]
    above = [v for v, key in zip(values, keys) if key > cut]
    tied = sorted((v for v, key in zip(values, keys) if key == cut), reverse=True)
    return above + tied[:k - len(above)]


def float_up(x: Fraction) -> float:
    """The smallest double ≥ x (x ≥ 0; inf if x exceeds the largest double)."""
    try:
        f = float(x)
    except OverflowError:
        return math.inf
    if math.isfinite(f) and Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def _observed_count(function: str, rho: Any, d: int) -> int:
    """k = ⌊ρd⌋, with ρ validated in (0, 1]; a float ρ·d just below an integer is read as that integer."""
    value, exact = _exact_value(function, "rho", rho)
    if not 0 < value <= 1:
        raise ValueError(f"{function}: rho = {rho!r} is outside its domain (0, 1] (the largest fraction of a "
                         "record's features that can be observed; SPEC T18)")
    product = value * d
    k = math.floor(product)
    if not exact and k < d and (k + 1) - product <= _NEAR_INTEGER * (k + 1):
        k += 1  # e.g. ρ = 0.3 (binary 0.29999…) with d = 10: 3 features; counting more is always safe
    return k


def _constants(function: str, lipschitz: Any) -> tuple[list[Fraction], bool]:
    if isinstance(lipschitz, (str, bytes)) or np.ndim(lipschitz) != 1:
        raise ValueError(f"{function}: lipschitz must be a one-dimensional sequence of feature-wise Lipschitz "
                         f"constants, got {lipschitz!r} (SPEC T18)")
    items = lipschitz.tolist() if isinstance(lipschitz, np.ndarray) else list(lipschitz)
    if not items:
        raise ValueError(f"{function}: lipschitz is empty; give one constant per feature (d ≥ 1; SPEC T18)")
    values, all_exact = [], True
    for i, x in enumerate(items):
        v, exact = _exact_value(function, f"lipschitz[{i}]", x)
        if v < 0:
            raise ValueError(f"{function}: lipschitz[{i}] = {x!r} is negative; feature-wise Lipschitz constants "
                             "are ≥ 0 (SPEC T18)")
        values.append(v)
        all_exact &= exact
    return values, all_exact


@refuses_dask
def fwl_ratio(lipschitz: Sequence[Any] | np.ndarray, rho: Any) -> Number:
    r"""Sensitivity ratio r = C̃/C of a feature-wise Lipschitz (FWL) query when at most a fraction ρ of a
    record's d features is observed (SPEC T18).

    .. math::

        r = \frac{\tilde C}{C} = \frac{\sum_{j=1}^{\lfloor \rho d \rfloor} L_{(j)}}{\sum_{j=1}^{d} L_j},
        \qquad L_{(1)} \ge L_{(2)} \ge \dots \text{ (non-increasing rearrangement)}

    Roburin, Pinot, Scornet, arXiv:2602.01928, Lemma 4.4 and Table 1 (caption).  Provenance: *source*.
    Equal constants give ⌊ρd⌋/d, which is ρ when ρd is an integer.

    Returns the exact ratio as a ``fractions.Fraction`` when every input is exact (ints, Fractions,
    Decimals), otherwise a float rounded **up** (never below the exact ratio of the given binary values),
    or raises.  Pass it on unchanged: ``missing_data_laplace``/``_gaussian`` convert a Fraction upward.

    Parameters
    ----------
    lipschitz : sequence of real
        The d ≥ 1 feature-wise Lipschitz constants L_j ≥ 0, not all zero.  Use the constants the noise is
        calibrated with (C_p = 2B·Σ L_j); any constants at least as large as the true ones are valid.
    rho : real
        ρ ∈ (0, 1]: every record has at most ⌊ρd⌋ observed features.  A float ρ whose ρ·d is within a
        relative 2⁻⁴⁰ below an integer k is read as k/d (``0.3`` means 3 of 10 features, not the binary
        0.29999… that would floor to 2): counting more observed features only enlarges r, which is safe.
        Pass a Fraction (``Fraction(3, 10)``) to avoid any reading.

    Returns
    -------
    Fraction or float
        r ∈ [0, 1] (0 when ⌊ρd⌋ = 0: no feature is ever observed).

    Raises
    ------
    ValueError
        For an empty, non-1-D or non-numeric ``lipschitz``, a NaN, infinite or negative constant, all
        constants zero, or ρ NaN or outside (0, 1].

    Examples
    --------
    >>> from fractions import Fraction
    >>> import bounds
    >>> bounds.fwl_ratio([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], Fraction(3, 10))
    Fraction(3, 10)
    >>> bounds.fwl_ratio([4, 1, 1, 2], Fraction(1, 2))      # the two largest, 4 + 2, over 8
    Fraction(3, 4)
    >>> bounds.fwl_ratio([1.0] * 10, 0.3)
    0.30000000000000004
    """
    if isinstance(lipschitz, UniformConstants):  # equal constants: r = ⌊ρd⌋/d without listing them
        value, exact = _exact_value("fwl_ratio", "lipschitz[0]", lipschitz.value)
        _, rho_exact = _exact_value("fwl_ratio", "rho", rho)
        if value <= 0:
            raise ValueError("fwl_ratio: every lipschitz constant is 0 (or negative), so C̃/C is undefined "
                             "(SPEC T18)")
        ratio = Fraction(_observed_count("fwl_ratio", rho, lipschitz.d), lipschitz.d)
        return ratio if exact and rho_exact else float_up(ratio)
    values, exact = _constants("fwl_ratio", lipschitz)
    _, rho_exact = _exact_value("fwl_ratio", "rho", rho)
    total = _exact_sum(values)
    if total == 0:
        raise ValueError("fwl_ratio: every lipschitz constant is 0, so C̃/C = 0/0 is undefined (a query that "
                         "ignores every feature needs no noise; SPEC T18)")
    k = _observed_count("fwl_ratio", rho, len(values))
    top = _exact_sum(_largest(values, k))
    ratio = top / total
    return ratio if exact and rho_exact else float_up(ratio)


def _ratio_up(ratio: Any) -> Any:
    """Exact ratios (Fractions, ints, Decimals; scalars or sequences) → the double above them.  Anything
    else is passed through unchanged for ``validate`` to judge."""
    def one(x: Any) -> Any:
        return float_up(Fraction(x)) if _is_exact(x) else x
    try:
        if np.ndim(ratio) == 0:
            return one(ratio.item() if isinstance(ratio, np.ndarray) else ratio)
        array = ratio if isinstance(ratio, np.ndarray) else np.asarray(ratio, dtype=object)
        if array.dtype != object:
            return array
        return np.array([one(x) for x in array.ravel()], dtype=np.float64).reshape(array.shape)
    except (TypeError, ValueError):
        return ratio


# --------------------------------------------------------------------------------------------------------
# T18: Laplace, Gaussian, Corollary 4.6
# --------------------------------------------------------------------------------------------------------

@supports_dask(pair=True)
def missing_data_laplace(epsilon: ArrayLike, p_star: ArrayLike, ratio: ArrayLike) -> Guarantee:
    r"""Privacy of the Laplace mechanism on an FWL query under MAR/MCAR missing data (SPEC T18, Thm 4.5).

    Returns an upper bound on (ε₀', 0), ε₀' rounded up (never below the exact value), or raises.

    .. math::

        \varepsilon_0' = \ln\bigl(1 + p_*(e^{r\varepsilon} - 1)\bigr), \qquad \delta' = 0,
        \qquad r = \tilde C_1 / C_1

    SPEC T18; Roburin, Pinot, Scornet, arXiv:2602.01928, Thm 4.5.  Relation: substitute one record.
    Provenance: *source*.  Tightness not claimed.

    Preconditions: f is feature-wise Lipschitz under ‖·‖₁ with constants L_j, records bounded by B
    (max_i ‖z_i‖_∞ ≤ B); the mechanism adds Laplace noise of scale C₁/ε with C₁ = 2B·Σ_j L_j (so it is
    (ε, 0)-DP on complete data); every record has at most a fraction ρ of its d features observed and
    r = ``fwl_ratio(L, rho)``; the missing-data mechanism is MAR or MCAR, independent per record; p* is
    the probability that the differing record is at least partially observed.  Privacy is amplified even
    at p* = 1 (then ε₀' = r·ε).  r·ε is never rounded before the exponential (double-double products).

    Parameters
    ----------
    epsilon : array_like
        ε of the calibration (scale C₁/ε), in [0, inf].
    p_star : array_like
        p* ∈ [0, 1].
    ratio : array_like
        r ∈ [0, 1] from ``fwl_ratio``; a Fraction (or a sequence of them) is converted to the double
        above it.

    Returns
    -------
    Guarantee
        ``(epsilon, 0.0)`` (arrays of the broadcast shape for array input).

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain.

    Examples
    --------
    A coordinate-wise clipped mean over 10 features, at most 3 observed per record, every record partly
    observed (p* = 1): ε = 1 becomes 0.3.

    >>> from fractions import Fraction
    >>> import bounds
    >>> r = bounds.fwl_ratio([1] * 10, Fraction(3, 10))
    >>> g = bounds.missing_data_laplace(1.0, 1.0, r)
    >>> round(g.epsilon, 12), g.delta
    (0.3, 0.0)
    """
    scalar = is_scalar(epsilon, p_star, ratio)
    arrays = validate("missing_data_laplace", "T18", epsilon=epsilon, p_star=p_star, ratio=_ratio_up(ratio))
    eps = evaluate("T18", "epsilon", arrays)
    return Guarantee(as_output(eps, scalar), as_output(np.zeros_like(eps), scalar))


@supports_dask(pair=True)
def missing_data_gaussian(epsilon: ArrayLike, delta: ArrayLike, p_star: ArrayLike, ratio: ArrayLike) -> Guarantee:
    r"""Privacy of the classical Gaussian mechanism on an FWL query under MAR/MCAR missing data (SPEC T18,
    Thm 4.7).

    Returns an upper bound on (ε₀', δ'), rounded up (never below the exact values), or raises.

    .. math::

        \varepsilon_0' = \ln\bigl(1 + p_*(e^{r\varepsilon} - 1)\bigr), \qquad \delta' = p_*\,\delta,
        \qquad r = \tilde C_2 / C_2

    SPEC T18; Roburin, Pinot, Scornet, arXiv:2602.01928, Thm 4.7.  Relation: substitute one record.
    Provenance: *source*.  Tightness not claimed.

    Preconditions: f is feature-wise Lipschitz under ‖·‖₂ (any ‖·‖₁-FWL query is, Prop C.1) with constants
    L_j, records bounded by B; the mechanism adds N(0, σ²I) with the **classical calibration**
    σ = C₂c/ε, C₂ = 2B·Σ_j L_j, c² > 2 ln(1.25/δ), which makes it (ε, δ)-DP only for **ε ≤ 1** (ε > 1 is
    refused; use ``missing_data`` (T17) with the mechanism's actual (ε, δ) instead); at most a fraction ρ of
    each record's features observed, r = ``fwl_ratio(L, rho)``; MAR or MCAR, independent per record; p* the
    probability that the differing record is at least partially observed.  ε = 0 or δ = 0 are the limits
    σ → ∞ (accepted).

    Parameters
    ----------
    epsilon : array_like
        ε of the calibration, in [0, 1].
    delta : array_like
        δ of the calibration, in [0, 1].
    p_star : array_like
        p* ∈ [0, 1].
    ratio : array_like
        r ∈ [0, 1] from ``fwl_ratio`` (a Fraction is converted upward).

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain, or ε > 1 (the classical calibration's precondition).

    Examples
    --------
    >>> import bounds
    >>> g = bounds.missing_data_gaussian(0.5, 1e-5, 0.8, 0.25)
    >>> round(g.epsilon, 12), g.delta >= 8e-6
    (0.101218836943, True)
    """
    scalar = is_scalar(epsilon, delta, p_star, ratio)
    arrays = validate("missing_data_gaussian", "T18", epsilon=epsilon, delta=delta, p_star=p_star,
                      ratio=_ratio_up(ratio))
    big = arrays["epsilon"] > 1
    if big.any():
        index = np.argwhere(big)[0]
        where = "" if big.ndim == 0 else "[" + ", ".join(str(int(i)) for i in index) + "]"
        value = float(arrays["epsilon"][tuple(index)])
        raise ValueError(f"missing_data_gaussian: epsilon{where} = {float(value)!r} > 1: Thm 4.7 assumes the classical "
                         "Gaussian calibration σ = C₂c/ε with c² > 2 ln(1.25/δ), which is (ε, δ)-DP only for "
                         "ε ≤ 1 (SPEC T18); for ε > 1 apply missing_data (T17) to the mechanism's actual "
                         "(ε, δ)")
    eps = evaluate("T18", "epsilon", arrays)
    dlt = evaluate("T18", "delta", arrays)
    return Guarantee(as_output(eps, scalar), as_output(dlt, scalar))


def _mul_up(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a·b rounded up (a, b ≥ 0): one float step above the nearest product; exact zeros stay 0."""
    with np.errstate(all="ignore"):
        product = a * b
        return np.where((a == 0) | (b == 0), 0.0, np.nextafter(product, np.inf))


def _exact_product_le_one(rho: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """ρ·ε ≤ 1 decided exactly (1-D arrays)."""
    with np.errstate(all="ignore"):
        product = rho * eps
    ok = product < 1  # rounding is monotone: fl(ρε) < 1 ⇒ ρε < 1, fl(ρε) > 1 ⇒ ρε > 1
    for i in np.flatnonzero(product == 1):
        ok[i] = Fraction(float(rho[i])) * Fraction(float(eps[i])) <= 1
    return ok


@supports_dask(pair=False)
def missing_data_corollary(epsilon: ArrayLike, p_star: ArrayLike, rho: ArrayLike) -> Any:
    r"""Corollary 4.6: a simple upper bound on T18's ε₀' when the FWL ratio equals ρ (SPEC T18).

    Returns an upper bound on ε₀', rounded up, or raises.

    .. math::

        \varepsilon_0' = \ln\bigl(1 + p_*(e^{\rho\varepsilon} - 1)\bigr)
        \le \min\bigl((e - 1)\,p_*,\ 1\bigr)\,\rho\,\varepsilon

    SPEC T18; Roburin, Pinot, Scornet, arXiv:2602.01928, Cor 4.6 (proof D.4: ln(1 + x) ≤ x,
    e^x − 1 ≤ (e − 1)x on [0, 1], and 1 + p*(e^x − 1) ≤ e^x).  Relation: substitute one record.
    Provenance: *source*.  Same preconditions as ``missing_data_laplace`` / ``missing_data_gaussian``
    with r = ρ (equal Lipschitz constants and ρd an integer), plus **ρε ≤ 1** unless (e − 1)p* ≥ 1: the
    convexity step needs x = ρε ≤ 1, and beyond it the bound is false (ρε = 3, p* = 0.01:
    ε₀' = 0.175 > 0.0515), so such inputs are refused.  For the Gaussian result (ε ≤ 1) ρε ≤ 1 always holds.

    Parameters
    ----------
    epsilon : array_like
        ε of the calibration, in [0, inf].
    p_star : array_like
        p* ∈ [0, 1].
    rho : array_like
        ρ ∈ (0, 1], the fraction of observed features (= the FWL ratio r).

    Returns
    -------
    float or ndarray
        min((e − 1)p*, 1)·ρ·ε, rounded up.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain, or ρε > 1 while (e − 1)p* < 1.

    Examples
    --------
    >>> import bounds
    >>> round(bounds.missing_data_corollary(1.0, 0.1, 0.3), 12)
    0.051548454854
    >>> bounds.missing_data_corollary(1.0, 1.0, 0.3) >= 0.3
    True
    """
    scalar = is_scalar(epsilon, p_star, rho)
    arrays = validate("missing_data_corollary", "T18", epsilon=epsilon, p_star=p_star)
    r = np.asarray(real("missing_data_corollary", "rho", rho, "(SPEC T18)"), dtype=np.float64)
    nan = np.isnan(r)
    if nan.any():
        raise ValueError("missing_data_corollary: rho is NaN; it must lie in (0, 1] (SPEC T18)")
    bad = (r <= 0) | (r > 1)
    if bad.any():
        value = float(r[tuple(np.argwhere(bad)[0])])
        raise ValueError(f"missing_data_corollary: rho = {value!r} is outside its domain (0, 1] (SPEC T18)")
    try:
        eps, p, r = np.broadcast_arrays(arrays["epsilon"], arrays["p_star"], r)
    except ValueError as exc:
        raise ValueError(f"missing_data_corollary: parameter shapes do not broadcast: epsilon "
                         f"{np.shape(epsilon)}, p_star {np.shape(p_star)}, rho {np.shape(rho)}") from exc
    shape = eps.shape
    eps, p, r = eps.ravel(), p.ravel(), r.ravel()
    saturated = p >= INV_E_MINUS_1_UP  # ⇔ (e − 1)p* ≥ 1 exactly
    invalid = ~(saturated | _exact_product_le_one(r, eps))
    if invalid.any():
        i = int(np.flatnonzero(invalid)[0])
        where = "" if not shape else "[" + ", ".join(str(int(x)) for x in np.unravel_index(i, shape)) + "]"
        raise ValueError(f"missing_data_corollary: rho·epsilon{where} = {float(r[i])!r}·{float(eps[i])!r} > 1 "
                         f"with (e − 1)·p_star < 1 (p_star = {float(p[i])!r}): Corollary 4.6 needs ρε ≤ 1 "
                         "there and is false beyond it (SPEC T18); use missing_data_laplace with ratio = rho")
    factor = np.where(saturated, 1.0, np.minimum(_mul_up(np.full_like(p, E_MINUS_1_UP), p), 1.0))
    result = _mul_up(factor, _mul_up(r, eps)).reshape(shape)  # ρε ≤ 1 first: fewer subnormal steps
    return as_output(np.asarray(result, dtype=np.float64), scalar)


# --------------------------------------------------------------------------------------------------------
# Table 1: FWL constants of standard queries
# --------------------------------------------------------------------------------------------------------

class UniformConstants(_SequenceABC):
    """d equal feature-wise Lipschitz constants, stored once: an immutable sequence of length d in O(1)
    memory, so presets such as ``fwl_histogram(10**9)`` do not build a billion-entry tuple (issue 11)."""

    __slots__ = ("value", "d")

    def __init__(self, value: Number, d: int) -> None:
        self.value, self.d = value, int(d)

    def __len__(self) -> int:
        return self.d

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self.value for _ in range(*index.indices(self.d)))
        i = index.__index__()
        if not -self.d <= i < self.d:
            raise IndexError("UniformConstants index out of range")
        return self.value

    def __iter__(self):
        return itertools.repeat(self.value, self.d)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, UniformConstants):
            return self.d == other.d and (self.d == 0 or self.value == other.value)
        if isinstance(other, (tuple, list)):
            return len(other) == self.d and all(x == self.value for x in other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((UniformConstants, self.value, self.d))

    def __repr__(self) -> str:
        return f"({self.value!r},)*{self.d}" if self.d > 4 else repr(tuple(self))


@dataclass(frozen=True)
class FWLQuery:
    """Feature-wise Lipschitz constants of a query (Roburin et al. Def. 4.1, Table 1, Prop C.2–C.4).

    ``lipschitz`` are constants L_j with ‖f(z̃) − f(z̃')‖ ≤ Σ_j L_j |z̃_j − z̃'_j| for datasets differing in
    one record (missing entries count as 0), in the norm ``norm`` ("l1" qualifies for both the Laplace
    result, Thm 4.5, and the Gaussian one, Thm 4.7; "l2" only for Thm 4.7).  ``bound`` is B with
    max_i ‖z_i‖_∞ ≤ B.  Exact (Fractions) when the query's parameters are exact; otherwise floats rounded
    up (larger constants are still valid FWL constants).  Calibrate the noise with ``sensitivity``
    (C = 2B·Σ L_j) and use ``ratio(rho)`` from the *same* constants.

    Returned by the ``fwl_*`` helpers (Table 1); rarely built by hand.

    Parameters
    ----------
    query : str
        Name of the query.
    lipschitz : tuple
        The constants L_1, …, L_d.
    bound : float or Fraction
        The data bound B.
    norm : {"l1", "l2"}
        Norm of the FWL inequality.
    source : str
        Where the constants come from (table, proposition).

    Examples
    --------
    >>> import bounds
    >>> q = bounds.fwl_mean(4, 100, 1)
    >>> q.sensitivity, q.ratio(0.5)
    (Fraction(2, 25), 0.5)
    """

    query: str
    lipschitz: tuple
    bound: Number
    norm: str
    source: str

    @property
    def sensitivity(self) -> Number:
        """C_p = 2B·Σ_j L_j, the calibration constant of the paper's eq. (4) (rounded up for floats)."""
        if isinstance(self.lipschitz, UniformConstants):
            exact = _is_exact(self.lipschitz.value) and _is_exact(self.bound)
            c = 2 * Fraction(self.bound) * self.lipschitz.d * Fraction(self.lipschitz.value)
            return c if exact else float_up(c)
        values = [Fraction(x) for x in (*self.lipschitz, self.bound)]
        exact = all(_is_exact(x) for x in (*self.lipschitz, self.bound))
        c = 2 * values[-1] * _exact_sum(values[:-1])
        return c if exact else float_up(c)

    def ratio(self, rho: Any) -> Number:
        """``fwl_ratio(self.lipschitz, rho)``."""
        return fwl_ratio(self.lipschitz, rho)

    def laplace(self, epsilon: ArrayLike, p_star: ArrayLike, rho: Any) -> Guarantee:
        """``missing_data_laplace(epsilon, p_star, self.ratio(rho))``; needs an ℓ1-FWL query (Thm 4.5)."""
        if self.norm != "l1":
            raise ValueError(f"FWLQuery.laplace: the {self.query} query is feature-wise Lipschitz only under "
                             "‖·‖₂ here; Thm 4.5 (Laplace) needs ‖·‖₁ (SPEC T18); use gaussian()")
        return missing_data_laplace(epsilon, p_star, self.ratio(rho))

    def gaussian(self, epsilon: ArrayLike, delta: ArrayLike, p_star: ArrayLike, rho: Any) -> Guarantee:
        """``missing_data_gaussian(epsilon, delta, p_star, self.ratio(rho))`` (Thm 4.7)."""
        return missing_data_gaussian(epsilon, delta, p_star, self.ratio(rho))


def _positive_int(function: str, name: str, x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) and not (
            isinstance(x, float) and x.is_integer()):
        raise ValueError(f"{function}: {name} = {x!r} must be a positive integer")
    if isinstance(x, float) and x >= 2.0 ** 53:  # a float this large stands for many integers
        raise ValueError(f"{function}: {name} = {x!r} is a float above 2^53; pass the exact integer")
    if int(x) < 1:
        raise ValueError(f"{function}: {name} = {x!r} must be a positive integer")
    return int(x)


def _positive(function: str, name: str, x: Any) -> tuple[Fraction, bool]:
    value, exact = _exact_value(function, name, x)
    if value <= 0:
        raise ValueError(f"{function}: {name} = {x!r} must be positive and finite")
    return value, exact


def _out(value: Fraction, exact: bool) -> Number:
    return value if exact else float_up(value)


@refuses_dask
def fwl_histogram(cells: int, n: int | None = None) -> FWLQuery:
    r"""FWL constants of a histogram or marginal table (Table 1, Barak et al. 2007): ℓ1, Thm 4.5 & 4.7.

    Each record is one-hot encoded over the ``cells`` cells (a marginal over some attributes is the
    histogram of their joint cells), so the features are 0/1 indicators (B = 1) and the count vector is the
    linear query f(z̃) = Σ_i z̃_i: L_j = 1 (Prop C.2 (L) with B_i = I); relative frequencies (``n`` given)
    divide by n: L_j = 1/n.  Equal constants, so r = ⌊ρd⌋/d ≈ ρ (Table 1: amplification ≈ p*ρ).

    The extracted paper text lost the per-family constants of Table 1; these follow from the definition of
    FWL (‖f(z̃) − f(z̃')‖₁ = Σ_j |z̃_j − z̃'_j| for counts, with equality) and are checked numerically in
    ``proofs_checks.missing_checks``.

    Parameters
    ----------
    cells : int
        Number d ≥ 1 of cells (one-hot features).
    n : int, optional
        Number of records, for relative frequencies.

    Returns
    -------
    FWLQuery
        The constants L_j, the data bound B, the norm and the source; ``.sensitivity`` (C = 2B·Σ L_j),
        ``.ratio(rho)``, ``.laplace(...)``, ``.gaussian(...)``.  Exact Fractions for exact input.

    Raises
    ------
    ValueError
        If ``cells`` or ``n`` is not a positive integer.

    Examples
    --------
    >>> import bounds
    >>> q = bounds.fwl_histogram(10)
    >>> q.sensitivity, q.ratio(0.3)
    (Fraction(20, 1), 0.30000000000000004)
    """
    d = _positive_int("fwl_histogram", "cells", cells)
    scale = Fraction(1) if n is None else Fraction(1, _positive_int("fwl_histogram", "n", n))
    return FWLQuery("histogram", UniformConstants(scale, d), Fraction(1), "l1", "Table 1; Prop C.2 (L)")


@refuses_dask
def fwl_linear(matrices: Any) -> FWLQuery:
    r"""FWL constants of a linear query f(z̃) = Σ_i B_i z̃_i (Table 1, Dwork et al. 2006; Prop C.2 (L)):
    ℓ1, Thm 4.5 & 4.7, amplification ≈ p*·C̃₁/C₁.

    .. math:: L_j = \max_i \lVert B_i e_j \rVert_1 \quad\text{(the largest column ℓ1 norm)}

    Parameters
    ----------
    matrices : array_like
        One k×d matrix B (the same for every record) or a sequence of per-record k×d matrices B_i.
        Exact entries (ints, Fractions) give exact constants.

    Returns
    -------
    FWLQuery
        With ``bound`` 1: multiply by your B via the data bound when calibrating (``sensitivity`` assumes
        B = 1; use ``dataclasses.replace(q, bound=B)``).

    Raises
    ------
    ValueError
        If ``matrices`` is not one k×d matrix or a sequence of them, or an entry is not a finite real.

    Examples
    --------
    >>> import bounds
    >>> bounds.fwl_linear([[1, -2, 0], [3, 0, 0]]).lipschitz
    (Fraction(4, 1), Fraction(2, 1), Fraction(0, 1))
    """
    array = np.asarray(matrices, dtype=object)
    if array.ndim == 2:
        array = array[None]
    if array.ndim != 3 or 0 in array.shape:
        raise ValueError(f"fwl_linear: matrices must be one k×d matrix or a sequence of them, got shape "
                         f"{array.shape}")
    exact = True
    columns = []
    for j in range(array.shape[2]):
        best = Fraction(0)
        for i in range(array.shape[0]):
            total = Fraction(0)
            for r in range(array.shape[1]):
                value, e = _exact_value("fwl_linear", f"matrices[{i}][{r}][{j}]", array[i, r, j])
                exact &= e
                total += abs(value)
            best = max(best, total)
        columns.append(best)
    return FWLQuery("linear", tuple(_out(c, exact) for c in columns), Fraction(1), "l1", "Table 1; Prop C.2 (L)")


@refuses_dask
def fwl_mean(d: int, n: int, bound: Any) -> FWLQuery:
    r"""FWL constants of the mean of n bounded vectors, f(z̃) = (1/n)Σ_i z̃_i, ‖z_i‖_∞ ≤ B (Table 1, Dwork et al.
    2006): ℓ1, Thm 4.5 & 4.7, L_j = 1/n (Prop C.2 (L) with B_i = I/n), so r = ⌊ρd⌋/d ≈ ρ.

    Parameters
    ----------
    d : int
        Number of features d ≥ 1.
    n : int
        Number of records n ≥ 1.
    bound : float or Fraction
        B > 0 with max_i ‖z_i‖_∞ ≤ B.

    Returns
    -------
    FWLQuery
        The constants L_j, the data bound B, the norm and the source; ``.sensitivity`` (C = 2B·Σ L_j),
        ``.ratio(rho)``, ``.laplace(...)``, ``.gaussian(...)``.  Exact Fractions for exact input.

    Raises
    ------
    ValueError
        If ``d`` or ``n`` is not a positive integer, or ``bound`` is not positive and finite.

    Examples
    --------
    >>> import bounds
    >>> q = bounds.fwl_mean(4, 100, 1)
    >>> q.lipschitz[0], q.sensitivity
    (Fraction(1, 100), Fraction(2, 25))
    """
    d = _positive_int("fwl_mean", "d", d)
    n = _positive_int("fwl_mean", "n", n)
    b, exact = _positive("fwl_mean", "bound", bound)
    return FWLQuery("mean", UniformConstants(Fraction(1, n), d), _out(b, exact), "l1", "Table 1; Prop C.2 (L)")


@refuses_dask
def fwl_clipped_mean(d: int, n: int, clip: Any) -> FWLQuery:
    r"""FWL constants of the coordinate-wise clipped mean f(z̃) = (1/n)Σ_i clip(z̃_i, −c, c) (Table 1, Duchi
    et al. 2018): ℓ1, Thm 4.5 & 4.7, L_j = 1/n with B = c, so r = ⌊ρd⌋/d ≈ ρ.

    Clipping acts per record and per coordinate (a missing entry stays missing), so this is the mean of
    vectors bounded by c; clipping is 1-Lipschitz per coordinate, so the constants 1/n also hold for the
    raw values.  Derived from the FWL definition (the extracted Table 1 lost the constants); checked
    numerically in ``proofs_checks.missing_checks``.

    Parameters
    ----------
    d : int
        Number of features d ≥ 1.
    n : int
        Number of records n ≥ 1.
    clip : float or Fraction
        Clipping bound c > 0 (each coordinate clipped to [−c, c]).

    Returns
    -------
    FWLQuery
        The constants L_j, the data bound B, the norm and the source; ``.sensitivity`` (C = 2B·Σ L_j),
        ``.ratio(rho)``, ``.laplace(...)``, ``.gaussian(...)``.  Exact Fractions for exact input.

    Raises
    ------
    ValueError
        If ``d`` or ``n`` is not a positive integer, or ``clip`` is not positive and finite.

    Examples
    --------
    "A clipped mean over 20 features with bound 1, 30% of the features observed, every record partly
    observed, ε = 1":

    >>> import bounds
    >>> q = bounds.fwl_clipped_mean(d=20, n=1000, clip=1)
    >>> round(q.laplace(1.0, p_star=1.0, rho=0.3).epsilon, 12)
    0.3
    """
    d = _positive_int("fwl_clipped_mean", "d", d)
    n = _positive_int("fwl_clipped_mean", "n", n)
    c, exact = _positive("fwl_clipped_mean", "clip", clip)
    return FWLQuery("clipped mean", UniformConstants(Fraction(1, n), d), _out(c, exact), "l1", "Table 1 (derived from Def. 4.1)")


@refuses_dask
def fwl_covariance(d: int, n: int, bound: Any, *, norm: str = "l1") -> FWLQuery:
    r"""FWL constants of the second-moment (uncentred covariance) matrix f(z̃) = (1/n)Σ_i z̃_i z̃_iᵀ on
    [−B, B]^d, vectorised (Table 1, Kapralov & Talwar 2013): Thm 4.7 (and 4.5 with ``norm="l1"``).

    - ``norm="l1"`` (default): L_j = 2Bd/n, Prop C.2 (Q) of the paper (valid under every ℓp, Prop C.1).
    - ``norm="l2"``: L_j = 2B√d/n, derived here from the definition: z zᵀ − z'z'ᵀ = z(z − z')ᵀ + (z − z')z'ᵀ,
      so ‖·‖_F ≤ (‖z‖₂ + ‖z'‖₂)‖z − z'‖₂ ≤ 2B√d Σ_j |z_j − z'_j|; √d smaller, for the Gaussian only.
      Rounded up to a float unless √d is rational.

    Equal constants either way: r = ⌊ρd⌋/d ≈ ρ.  Checked numerically in ``proofs_checks.missing_checks``.

    Parameters
    ----------
    d : int
        Number of features d ≥ 1.
    n : int
        Number of records n ≥ 1.
    bound : float or Fraction
        B > 0 with every z_i ∈ [−B, B]^d.
    norm : {"l1", "l2"}, optional
        Norm of the FWL inequality (keyword only; "l1" by default, valid for Thm 4.5 and 4.7).

    Returns
    -------
    FWLQuery
        The constants L_j, the data bound B, the norm and the source; ``.sensitivity`` (C = 2B·Σ L_j),
        ``.ratio(rho)``, ``.laplace(...)``, ``.gaussian(...)``.  Exact Fractions for exact input.

    Raises
    ------
    ValueError
        If ``d`` or ``n`` is not a positive integer, ``bound`` is not positive and finite, or ``norm`` is unknown.

    Examples
    --------
    >>> import bounds
    >>> bounds.fwl_covariance(4, 10, 1).lipschitz[0], bounds.fwl_covariance(4, 10, 1, norm="l2").lipschitz[0]
    (Fraction(4, 5), Fraction(2, 5))
    """
    d = _positive_int("fwl_covariance", "d", d)
    n = _positive_int("fwl_covariance", "n", n)
    b, exact = _positive("fwl_covariance", "bound", bound)
    if not isinstance(norm, str):
        raise ValueError(f"fwl_covariance: norm = {norm!r} must be 'l1' or 'l2'")
    if norm == "l1":
        value, ok = 2 * b * d / n, exact
    elif norm == "l2":
        root, root_exact = _sqrt(Fraction(d))
        value, ok = 2 * b * Fraction(root) / n, exact and root_exact
    else:
        raise ValueError(f"fwl_covariance: norm = {norm!r} must be 'l1' or 'l2'")
    return FWLQuery("covariance", UniformConstants(_out(value, ok), d), _out(b, exact), norm,
                    "Table 1; Prop C.2 (Q)" if norm == "l1" else "Table 1 (ℓ2 constant derived from Def. 4.1)")


def _sqrt(x: Fraction) -> tuple[Number, bool]:
    """(√x, exact): a Fraction when x is the square of a rational, else the double above √x."""
    rn, rd = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if rn * rn == x.numerator and rd * rd == x.denominator:
        return Fraction(rn, rd), True
    f = math.sqrt(float(x))
    while Fraction(f) ** 2 < x:
        f = math.nextafter(f, math.inf)
    return f, False


@refuses_dask
def fwl_projected_mean(projection: Any, n: int, bound: Any, *, norm: str = "l2") -> FWLQuery:
    r"""FWL constants of a linear projection of the mean, f(z̃) = P·(1/n)Σ_i z̃_i, P ∈ ℝ^{k×d} (Table 1,
    Dwork & Roth 2014): Thm 4.7 (and 4.5 with ``norm="l1"``).

    .. math:: L_j = \lVert P e_j \rVert / n \quad\text{(column norms of P, in the chosen norm)}

    Derived here from the definition (P(z − z') = Σ_j (z_j − z'_j) P e_j and the triangle inequality);
    never larger than the paper's post-processing constant Λ/n of Prop C.4 (Λ the operator norm of P),
    and equal to it when every column has norm Λ (then r = ⌊ρd⌋/d ≈ ρ, as Table 1 says).  ℓ2 column norms
    are rounded up to floats unless rational.  Checked numerically in ``proofs_checks.missing_checks``.

    Parameters
    ----------
    projection : array_like
        The k×d matrix P (exact entries give exact constants).
    n : int
        Number of records n ≥ 1.
    bound : float or Fraction
        B > 0 with max_i ‖z_i‖_∞ ≤ B.
    norm : {"l1", "l2"}, optional
        Norm of the FWL inequality (keyword only; "l2" by default: Thm 4.7 only).

    Returns
    -------
    FWLQuery
        The constants L_j, the data bound B, the norm and the source; ``.sensitivity`` (C = 2B·Σ L_j),
        ``.ratio(rho)``, ``.laplace(...)``, ``.gaussian(...)``.  Exact Fractions for exact input.

    Raises
    ------
    ValueError
        If ``projection`` is not a k×d matrix of finite reals, ``n`` is not a positive integer, ``bound`` is not positive and finite, or ``norm`` is unknown.

    Examples
    --------
    >>> import bounds
    >>> q = bounds.fwl_projected_mean([[3, 1], [4, 1]], n=5, bound=1)   # columns of norm 5 and √2
    >>> q.lipschitz[0], abs(q.lipschitz[1] - 2 ** 0.5 / 5) < 1e-16
    (Fraction(1, 1), True)
    """
    array = np.asarray(projection, dtype=object)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"fwl_projected_mean: projection must be a k×d matrix, got shape {array.shape}")
    n = _positive_int("fwl_projected_mean", "n", n)
    b, b_exact = _positive("fwl_projected_mean", "bound", bound)
    if not isinstance(norm, str) or norm not in ("l1", "l2"):
        raise ValueError(f"fwl_projected_mean: norm = {norm!r} must be 'l1' or 'l2'")
    constants = []
    for j in range(array.shape[1]):
        column = [_exact_value("fwl_projected_mean", f"projection[{r}][{j}]", array[r, j]) for r in range(array.shape[0])]
        exact = all(e for _, e in column)
        if norm == "l1":
            constants.append(_out(sum((abs(v) for v, _ in column), Fraction(0)) / n, exact))
        else:
            root, root_exact = _sqrt(sum((v * v for v, _ in column), Fraction(0)))
            if root_exact and exact:
                constants.append(Fraction(root) / n)
            else:
                constants.append(float_up(Fraction(root) / n))
    return FWLQuery("projected mean", tuple(constants), _out(b, b_exact), norm,
                    "Table 1 (column norms derived from Def. 4.1; cf. Prop C.4)")
