r"""Outlier-score suppression exactly as SPEC T14 assumes, its metrics, and deterministic suppressors (T12).

Seed 000 (Miranda-Pascual, Parra-Arnau, Strufe, *The Adverse Effects of Omitting Records in Differential
Privacy*, USENIX Security '26, Thm 5.4; SPEC T14, *recovered*) proves its bound for one procedure:

- a **fixed** metric d on the data universe with values in [0, 1] (triangle inequality required: the bound
  is false without it), chosen without looking at the data;
- constants 0 ≤ m ≤ M < 1 and T(x, y) = m + (M − m)·d(x, y);
- for the input multiset D of size n, out_D(x) = (1/n)·Σ_{y∈D} T(x, y) — the sum includes y = x (which
  contributes m), divides by n, counts duplicates with multiplicity — computed **once**, on the input;
- every record deleted **independently** with probability out_D(x).

If M is (ε, δ)-DP then M∘S is (ε^S(ε, m, M), (1 − m)δ)-DP (:func:`bounds.outlier_score_suppression`, needs
m > 0); m = M is Poisson sampling at keep rate 1 − m (SPEC T1).

**Public normalisation only.**  A metric normalised by the data's own minimum and maximum (the authors'
DPLloyd code does this: SYSTEMS.md §1.4 erratum 6) makes out_D depend on the data through the
normalisation, which the theorem does not cover; metrics here are built from public constants only, and
``from_data`` refuses with that explanation.  Records outside the declared public range are refused too (the
distance would exceed 1): clip them to the public range first, a per-record map that needs no data.

Deterministic suppressors (for teaching and tests; SPEC T12, Thm 5.1): :func:`suppress_predicate` (a fixed
set A, Δ = 1), :func:`suppress_threshold` and :func:`suppress_top_percent` (Δ = ∞ by Prop. B.2: no DP
guarantee survives, and their ``certificate`` says so).

Numerics: scores are float64 with an absolute error stated per metric (≤ 2⁻⁴⁹ for ``AbsoluteDifference``,
≤ 2⁻⁵¹ for ``Discrete``, < 2⁻⁴⁴ for ``Euclidean`` up to 6 dimensions); each record is then deleted with
probability exactly its float score (exact Bernoulli draws, ``_bernoulli``), so the procedure run is
T14's for scores within those errors of out_D(x).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .._core import ParameterTypeError, _fmt, _short_repr, real
from ._bernoulli import bernoulli, bernoulli_rows
from ._checks import generator, probability

__all__ = ["AbsoluteDifference", "DeterministicSuppression", "Discrete", "Euclidean", "Metric", "Suppression",
           "outlier_scores", "suppress_outliers", "suppress_predicate", "suppress_threshold",
           "suppress_top_percent"]

_CHUNK_ELEMENTS = 1 << 22  # user metrics: at most this many distances in memory at once (32 MiB)
# the built-in metrics (filled in below their classes) → their public constants: they fix every distance
_MEMO_METRICS: dict[type, Callable[[Any], tuple]] = {}


def _refuse_from_data(cls: type) -> ValueError:
    return ValueError(
        f"{cls.__name__}.from_data: a metric normalised by the data (its min/max, range or diameter) makes every "
        "outlier score depend on the whole dataset through the normalisation, which Theorem 5.4 (SPEC T14) does "
        "not cover — the authors' own DPLloyd code does this (SYSTEMS.md §1.4, erratum 6) and its guarantee does "
        f"not hold.  Construct {cls.__name__}(...) from PUBLIC constants fixed before seeing the data (e.g. the "
        "attribute's documented domain), and clip the records to that public range.")


def _real_data(function: str, data: Any) -> np.ndarray:
    """The data as a finite float64 array with at least one record."""
    if isinstance(data, (str, bytes)) or data is None:
        raise ParameterTypeError(f"{function}: data = {_short_repr(data)} must be an array or sequence of records")
    x = real(function, "data", data)
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        raise ValueError(f"{function}: data must be a sequence of records (one per row), not a single number")
    if a.shape[0] == 0:
        raise ValueError(f"{function}: data is empty; outlier scores out_D(x) = (1/|D|)Σ T(x, y) need |D| ≥ 1")
    bad = ~np.isfinite(a)
    if bad.any():
        i = tuple(int(j) for j in np.argwhere(bad)[0])
        raise ValueError(f"{function}: data{list(i)} = {_fmt(a[i])} is not a finite number")
    return a


class Metric:
    """A user-supplied metric with a declared bound (SPEC T14 requires a metric with values in [0, 1]).

    Parameters
    ----------
    pairwise : callable
        ``pairwise(A, B)`` returns the (len(A), len(B)) array of distances d(a, b) between the records
        (rows) of A and B.  It must be a fixed function: the same for every dataset.
    bound : float
        A PUBLIC upper bound on d over the whole universe of records, 0 < bound ≤ 1.  Distances above it
        raise ``ValueError`` at scoring time (for the records at hand; the promise is for all records).
    name : str
        For messages.

    Notes
    -----
    The triangle inequality d(x, z) ≤ d(x, y) + d(y, z) and symmetry are **your promise**: the library checks
    d ≥ 0, d ≤ bound and d(x, x) = 0 on the data, and cannot check the rest.  Without the triangle inequality
    the bound is false (SPEC T14: a non-metric reaches ε = 8.10 where ε^S = 4.39).  Normalising by anything
    computed from the data (min, max, diameter, standard deviation) is outside the theorem.

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.procedures import Metric, outlier_scores
    >>> chebyshev = Metric(lambda A, B: np.abs(A[:, None, :] - B[None, :, :]).max(axis=2) / 10.0, bound=1.0)
    >>> outlier_scores(np.array([[0.0, 0.0], [5.0, 1.0]]), chebyshev, 0.1, 0.5).tolist()
    [0.2, 0.2]
    """

    def __init__(self, pairwise: Callable[[np.ndarray, np.ndarray], Any], *, bound: Any, name: str = "metric") -> None:
        if not callable(pairwise):
            raise ParameterTypeError(f"Metric: pairwise = {_short_repr(pairwise)} must be a callable "
                                     "pairwise(A, B) -> distance matrix")
        b = real("Metric", "bound", bound)
        if isinstance(b, np.ndarray) or not (0.0 < b <= 1.0):
            raise ValueError(f"Metric: bound = {_short_repr(bound)} must be a public number in (0, 1]: Theorem 5.4 "
                             "(SPEC T14) needs d ≤ 1; divide your distance by a PUBLIC bound on it first")
        self._pairwise = pairwise
        self.bound = float(b)
        self.name = str(name)

    @classmethod
    def from_data(cls, *args: Any, **kwargs: Any) -> "Metric":
        """Refused: a data-derived normalisation is outside Theorem 5.4 (always raises ``ValueError``)."""
        raise _refuse_from_data(cls)

    def _prepare(self, function: str, data: Any) -> np.ndarray:
        if isinstance(data, (str, bytes)) or data is None:
            raise ParameterTypeError(f"{function}: data = {_short_repr(data)} must be an array of records")
        a = np.asarray(data)
        if a.ndim == 0 or a.shape[0] == 0:
            raise ValueError(f"{function}: data must hold at least one record (rows), got shape {a.shape}")
        return a

    def _row_sums(self, function: str, data: np.ndarray) -> np.ndarray:
        """Σ_y d(x, y) for every record x (chunks of rows: bounded memory; the user's callable is trusted for
        nothing but what is checked below)."""
        n = data.shape[0]
        rows = max(1, _CHUNK_ELEMENTS // max(n, 1))
        sums = np.empty(n)
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            block = np.asarray(self._pairwise(data[start:stop], data), dtype=np.float64)
            if block.shape != (stop - start, n):
                raise ValueError(f"{function}: {self.name}: pairwise(A, B) returned shape {block.shape}, expected "
                                 f"({stop - start}, {n})")
            bad = ~np.isfinite(block) | (block < 0.0) | (block > self.bound)
            if bad.any():
                i, j = (int(v) for v in np.argwhere(bad)[0])
                raise ValueError(f"{function}: {self.name}: d(data[{start + i}], data[{j}]) = {_fmt(block[i, j])} is "
                                 f"outside [0, {_fmt(self.bound)}] (the declared bound): not a metric into [0, 1]")
            diag = block[np.arange(stop - start), np.arange(start, stop)]
            if (diag != 0.0).any():
                i = int(np.flatnonzero(diag != 0.0)[0])
                raise ValueError(f"{function}: {self.name}: d(x, x) = {_fmt(diag[i])} ≠ 0 for x = data[{start + i}]; a "
                                 "(pseudo)metric has d(x, x) = 0")
            sums[start:stop] = block.sum(axis=1)
        return sums

    def __repr__(self) -> str:
        return f"Metric({self.name}, bound={self.bound!r})"


class AbsoluteDifference(Metric):
    """d(x, y) = |x − y| / (hi − lo) for numbers in a PUBLIC range [lo, hi] (the paper's metric for the mean).

    Scores by sorting and prefix sums, O(n log n).  Records outside [lo, hi] are refused (clip them to the
    public range first).  Score error: the sum of distances is accumulated exactly in integers (2^k-scaled
    parts) plus a float residual; each normalised value (x − lo)/(hi − lo) carries two roundings, so every
    score is within 16u = 2⁻⁴⁹ of the exact rational value (tests check this against ``Fraction`` sums).

    Parameters
    ----------
    lo, hi : float
        Public bounds of the attribute, lo < hi, finite.

    Examples
    --------
    >>> from bounds.procedures import AbsoluteDifference, outlier_scores
    >>> outlier_scores([0, 10, 10, 100], AbsoluteDifference(0, 100), 0.1, 0.9).round(12).tolist()
    [0.34, 0.3, 0.3, 0.66]
    """

    def __init__(self, lo: Any, hi: Any) -> None:
        a = real("AbsoluteDifference", "lo", lo)
        b = real("AbsoluteDifference", "hi", hi)
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            raise ValueError("AbsoluteDifference: lo and hi must be single public numbers")
        if not (math.isfinite(a) and math.isfinite(b)) or not a < b or not math.isfinite(b - a):
            raise ValueError(f"AbsoluteDifference: the public range [lo, hi] = [{_fmt(a)}, {_fmt(b)}] must have "
                             "finite lo < hi")
        self.lo, self.hi = float(a), float(b)
        self.bound = 1.0
        self.name = f"AbsoluteDifference({self.lo!r}, {self.hi!r})"

    def _prepare(self, function: str, data: Any) -> np.ndarray:
        a = _real_data(function, data)
        if a.ndim == 2 and a.shape[1] == 1:
            a = a[:, 0]
        if a.ndim != 1:
            raise ValueError(f"{function}: {self.name} scores one number per record; data has shape {a.shape}")
        out = (a < self.lo) | (a > self.hi)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise ValueError(f"{function}: data[{i}] = {_fmt(a[i])} is outside the public range [{_fmt(self.lo)}, "
                             f"{_fmt(self.hi)}] of {self.name}; the distance would exceed 1.  Clip the data to the "
                             "public range first (never widen the range to the data: that is a data-derived "
                             "normalisation)")
        return a

    def _row_sums(self, function: str, data: np.ndarray) -> np.ndarray:
        return _absolute_row_sums((data - self.lo) / (self.hi - self.lo))

    def __repr__(self) -> str:
        return self.name


def _absolute_row_sums(w: np.ndarray) -> np.ndarray:
    """Σ_j |w_i − w_j| for w ∈ [0, 1]ⁿ by sorting and prefix sums, O(n log n), nearly exact.

    Each w is split into a = ⌊w·2^k⌋ (an integer, k = 62 − bitlength(n), so every partial sum below stays
    under 2⁶²) and the exact remainder b = w − a·2⁻ᵏ ∈ [0, 2⁻ᵏ).  With the values sorted, position i has
    Σ_j |a_i − a_j| = (i·a_i − A_i) + (A_n − A_{i+1} − (n − 1 − i)·a_i), A the exclusive prefix sums: integer
    arithmetic, exact.  The remainders' part is at most n·2⁻ᵏ ≤ 2⁻⁶⁰·n² in size and is added in float.  The
    result is the exact sum rounded once, plus an error below n·2⁻ᵏ·n·u."""
    n = w.shape[0]
    k = 62 - n.bit_length()
    scale = float(2 ** k)
    order = np.argsort(w, kind="stable")
    ws = w[order]
    a_float = np.floor(ws * scale)
    a = a_float.astype(np.int64)
    b = ws - a_float / scale  # exact: the bits of ws below 2^-k
    pos = np.arange(n, dtype=np.int64)
    A = np.concatenate((np.zeros(1, np.int64), np.cumsum(a)))
    B = np.concatenate((np.zeros(1), np.cumsum(b)))
    ints = (pos * a - A[:-1]) + ((A[n] - A[1:]) - (n - 1 - pos) * a)
    rest = (pos * b - B[:-1]) + ((B[n] - B[1:]) - (n - 1 - pos) * b)
    sums = np.empty(n)
    sums[order] = ints.astype(np.float64) / scale + rest
    return sums


class Discrete(Metric):
    """The discrete metric d(x, y) = 𝟙[x ≠ y] (the paper's metric for the mode); records may be numbers,
    strings or rows (compared whole).  out_D(x) = m + (M − m)(n − count_D(x))/n, by value counts: O(n) with
    ``bincount`` for integers spanning fewer than 4n values, otherwise by sorting (``np.unique``), O(n log n).
    Score error ≤ 4u = 2⁻⁵¹ (three roundings after the exact integer count).

    Examples
    --------
    >>> from bounds.procedures import Discrete, outlier_scores
    >>> outlier_scores(["a", "a", "a", "b"], Discrete(), 0.2, 0.6).round(12).tolist()
    [0.3, 0.3, 0.3, 0.5]
    """

    def __init__(self) -> None:
        self.bound = 1.0
        self.name = "Discrete()"

    def _prepare(self, function: str, data: Any) -> np.ndarray:
        a = super()._prepare(function, data)  # an array of at least one record
        if a.dtype.kind == "f" and np.isnan(a).any():
            raise ValueError(f"{function}: data holds NaN, which is not equal to itself: d(x, x) would be 1")
        if a.dtype.kind == "c":
            raise ParameterTypeError(f"{function}: data holds complex numbers")
        return a

    def _row_sums(self, function: str, data: np.ndarray) -> np.ndarray:
        n = data.shape[0]
        if data.dtype.kind in "iub" and data.ndim == 1 and n and int(data.max()) - int(data.min()) < 4 * n:
            shifted = data.astype(np.int64) - int(data.min())
            counts = np.bincount(shifted)[shifted]  # O(n)
        else:
            try:
                _, inverse, counts_ = np.unique(data, axis=0 if data.ndim > 1 else None, return_inverse=True,
                                                return_counts=True)
            except TypeError as exc:
                raise ValueError(f"{function}: Discrete(): records must be mutually comparable ({exc})") from None
            counts = counts_[inverse.reshape(-1)]
        return (n - counts).astype(np.float64)


class Euclidean(Metric):
    """d(x, y) = ‖x − y‖₂ / diameter for points in a region of PUBLIC diameter (e.g. 2√k for k columns scaled
    to [−1, 1] with their public ranges, the paper's DPLloyd metric; or 1 for points already divided by the
    domain's diagonal, its k-median metric).

    Scores: all pairs in a compiled loop (numba, cached), O(n²) time, O(n) memory; one-dimensional data use
    the O(n log n) route of :class:`AbsoluteDifference`.  A pair farther apart than ``diameter`` is refused
    (the diameter is then not a bound on the domain).  Coordinates are shifted to start at 0 and divided by
    the diameter first (two roundings each: ≤ 4u on each coordinate difference, ≤ 4√k·u on a distance), then
    the kernel's sums are within (k + 135)u relative (see ``_distance_kernels``): each score is within
    (k + 4√k + 140)u < 2⁻⁴⁴ of out_D(x) for k ≤ 6.

    Parameters
    ----------
    diameter : float
        A public upper bound on the distance between any two possible records, finite and > 0.

    Examples
    --------
    >>> from bounds.procedures import Euclidean, outlier_scores
    >>> outlier_scores([[0.0, 0.0], [3.0, 4.0]], Euclidean(10.0), 0.0, 0.5).tolist()
    [0.125, 0.125]
    """

    def __init__(self, diameter: Any) -> None:
        d = real("Euclidean", "diameter", diameter)
        if isinstance(d, np.ndarray) or not (0.0 < d < math.inf):
            raise ValueError(f"Euclidean: diameter = {_short_repr(diameter)} must be a public number in (0, inf)")
        self.diameter = float(d)
        self.bound = 1.0
        self.name = f"Euclidean({self.diameter!r})"

    def _prepare(self, function: str, data: Any) -> np.ndarray:
        a = _real_data(function, data)
        if a.ndim == 1:
            a = a[:, None]
        if a.ndim != 2 or a.shape[1] == 0:
            raise ValueError(f"{function}: {self.name} needs points as rows of a 2-D array; data has shape {a.shape}")
        return a

    def _row_sums(self, function: str, data: np.ndarray) -> np.ndarray:
        if data.shape[1] == 1:
            x = data[:, 0]
            with np.errstate(over="ignore"):  # an infinite spread is refused just below
                spread = float(x.max() - x.min())
            if spread > self.diameter:
                raise ValueError(self._too_far(function, spread))
            return _absolute_row_sums((x - x.min()) / self.diameter)  # a shift is exact enough: see docstring
        # Shift each coordinate to start at 0 and divide by the diameter first: the coordinates then lie in
        # [0, 1] for valid data (a coordinate spread above the diameter already puts two records too far apart),
        # so no square overflows, and the shift loses nothing of the differences.
        low = data.min(axis=0)
        with np.errstate(over="ignore"):  # an infinite spread is refused just below
            span = data.max(axis=0) - low
        if (span > self.diameter).any():
            raise ValueError(self._too_far(function, float(span.max())))
        xt = np.ascontiguousarray(((data - low) / self.diameter).T)
        # Every computed pair distance is at most the bounding box's computed diagonal (|x_d − y_d| ≤ max_d − min_d
        # and rounding is monotone in each operation, done in the same order), so tracking the largest pair is
        # needed only when the diagonal exceeds 1.
        diagonal = float(np.sqrt(_lane_sum_of_squares(xt.max(axis=1))))
        sums, largest = _kernels().euclidean_row_sums(xt, diagonal > 1.0)
        if largest > 1.0:
            raise ValueError(self._too_far(function, largest * self.diameter))
        return sums

    def _too_far(self, function: str, distance: float) -> str:
        return (f"{function}: two records are {_fmt(distance)} apart, more than the declared public diameter "
                f"{_fmt(self.diameter)} of {self.name}; the distance would exceed 1.  Use a diameter that bounds "
                "the public domain (not the data's spread) and clip the records to that domain")

    def __repr__(self) -> str:
        return self.name


# the built-in metrics whose distances are fixed by these public constants (user metrics are not remembered)
_MEMO_METRICS.update({AbsoluteDifference: lambda d: (d.lo, d.hi), Discrete: lambda d: (),
                      Euclidean: lambda d: (d.diameter,)})


def _lane_sum_of_squares(v: np.ndarray) -> float:
    """Σ v_d² in the kernel's order (squares added one coordinate after the other)."""
    total = 0.0
    for x in v.tolist():
        total += x * x
    return total


def _kernels():
    """The compiled kernels, imported (numba's cache configured by ``numeric`` first) on first use."""
    import numeric

    if not numeric._UFUNCS:
        numeric._configure_cache()
    from . import _distance_kernels

    return _distance_kernels


def _check_m_M(function: str, m: Any, M: Any) -> tuple[float, float]:
    lo = probability(function, "m", m, upper_open=True)
    hi = probability(function, "M", M, upper_open=True)
    if isinstance(lo, np.ndarray) or isinstance(hi, np.ndarray):
        raise ValueError(f"{function}: m and M must be single numbers (0 ≤ m ≤ M < 1)")
    if lo > hi:
        raise ValueError(f"{function}: m = {_fmt(lo)} > M = {_fmt(hi)}; need 0 ≤ m ≤ M < 1 (SPEC T14)")
    return float(lo), float(hi)


def _check_metric(function: str, metric: Any) -> Metric:
    if isinstance(metric, type) and issubclass(metric, Metric):
        raise ParameterTypeError(f"{function}: metric = {metric.__name__} is a class; pass an instance, e.g. "
                                 f"{metric.__name__}(...) with public constants")
    if not isinstance(metric, Metric):
        raise ParameterTypeError(f"{function}: metric = {_short_repr(metric)} must be AbsoluteDifference(lo, hi), "
                                 "Discrete(), Euclidean(diameter) or Metric(pairwise, bound=...)")
    return metric


_MEMO_MAX_RECORDS = 4096  # inputs up to this size key the last-scores memo (the key copies the data's bytes)
_last_scores: tuple = (None, None)  # (key, (scores, lo, hi)) of the last small input scored


def _memo_key(metric: Any, data: Any, m: Any, M: Any) -> tuple | None:
    """A key that determines ``_scores``' result and errors — the built-in metric's public constants, float m
    and M (bit patterns: −0.0 is not 0.0), and the bytes, dtype and shape of a small numeric array (a list is
    read as ``np.asarray`` reads it, which is how the checks read it too) — or None (no memo)."""
    t = type(metric)
    if t not in _MEMO_METRICS:
        return None
    constants = _MEMO_METRICS[t](metric)
    if any(type(v) is not float for v in (m, M, *constants)):  # (a constant set by hand to another type)
        return None
    if type(data) is np.ndarray:
        a = data
    elif isinstance(data, (list, tuple)) and len(data) <= _MEMO_MAX_RECORDS:
        a = np.asarray(data)
    else:
        return None
    if a.dtype.kind not in "fiu" or a.size > _MEMO_MAX_RECORDS:  # (object arrays' bytes are pointers)
        return None
    return (t, tuple(v.hex() for v in constants), m.hex(), M.hex(), a.dtype.str, a.shape, a.tobytes())


def _scores(function: str, data: Any, metric: Any, m: Any, M: Any) -> tuple[np.ndarray, np.ndarray, float, float]:
    metric = _check_metric(function, metric)
    lo, hi = _check_m_M(function, m, M)
    prepared = metric._prepare(function, data)
    n = prepared.shape[0]
    sums = metric._row_sums(function, prepared)
    scores = lo + (hi - lo) * (sums / n)
    # the exact scores lie in [m, M]; rounding must not push a probability outside the theorem's range
    return prepared, np.clip(scores, lo, hi), lo, hi


def _scores_only(function: str, data: Any, metric: Any, m: Any, M: Any) -> tuple[np.ndarray, float, float]:
    """(scores, m, M) as :func:`_scores` computes them — a fresh array on every call — remembering the last
    small input's: the scores are a function of the data, the metric's public constants and m, M alone (the
    procedure scores once per input, SPEC T14), so a run on the same input (the audits and their tests call
    the procedure 10⁴–10⁶ times on one dataset) reuses them instead of re-checking and re-sorting the data.
    Inputs that raise are never remembered, so they raise again."""
    global _last_scores
    key = _memo_key(metric, data, m, M)
    if key is not None:
        last_key, value = _last_scores
        if last_key == key:
            scores, lo, hi = value
            return scores.copy(), lo, hi
    _, scores, lo, hi = _scores(function, data, metric, m, M)
    if key is not None:
        _last_scores = (key, (scores.copy(), lo, hi))
    return scores, lo, hi


def outlier_scores(data: Any, metric: Metric, m: Any, M: Any) -> np.ndarray:
    """out_D(x) for every record x of D (SPEC T14; seed 000 Thm 5.4), exactly as the theorem defines it.

    out_D(x) = (1/n)·Σ_{y∈D} T(x, y), T(x, y) = m + (M − m)·d(x, y): the sum runs over all n records of D
    **including x itself** (contributing m), duplicates counted with multiplicity, divided by n.  Every score
    lies in [m, M].

    Parameters
    ----------
    data : array_like
        The records D (rows), n ≥ 1.
    metric : Metric
        ``AbsoluteDifference(lo, hi)``, ``Discrete()``, ``Euclidean(diameter)`` or ``Metric(pairwise,
        bound=...)``, built from public constants.
    m, M : float
        0 ≤ m ≤ M < 1.

    Returns
    -------
    ndarray of float64, shape (n,)

    Raises
    ------
    ValueError
        Empty data, NaN/inf records, records outside the metric's public range, m > M, M ≥ 1, m or M outside
        [0, 1), a distance above the declared bound; ``ParameterTypeError`` for a metric that is not a
        ``Metric`` or data that are a string.

    Examples
    --------
    >>> from bounds.procedures import AbsoluteDifference, outlier_scores
    >>> outlier_scores([0.0, 1.0], AbsoluteDifference(0, 1), 0.2, 0.6).tolist()   # (0.2 + 0.6)/2 each
    [0.4, 0.4]
    """
    return _scores_only("outlier_scores", data, metric, m, M)[0]


@dataclass(frozen=True, eq=False)
class Suppression:
    """The result of :func:`suppress_outliers`.

    Attributes
    ----------
    keep : ndarray of bool
        True for the records kept.
    scores : ndarray of float
        out_D(x), each record's deletion probability.
    data : ndarray
        The input records (as an array).
    m, M : float
        The suppression's constants.
    """

    keep: np.ndarray
    scores: np.ndarray
    data: np.ndarray
    m: float
    M: float

    @property
    def kept(self) -> np.ndarray:
        """The records kept, ``data[keep]``."""
        return self.data[self.keep]

    def certificate(self, epsilon: Any, delta: Any) -> Any:
        """(ε^S, (1 − m)δ): the guarantee of an (ε, δ)-DP mechanism run on ``kept`` (SPEC T14,
        :func:`bounds.outlier_score_suppression`; requires m > 0)."""
        import bounds

        return bounds.outlier_score_suppression(epsilon, delta, self.m, self.M)

    def calibrate(self, epsilon: Any, delta: Any) -> Any:
        """(ε'', δ''): the base budget to run the mechanism at so that M∘S is (ε, δ)-DP (SPEC T14 inverse,
        :func:`bounds.outlier_score_suppression_inverse`)."""
        import bounds

        return bounds.outlier_score_suppression_inverse(epsilon, delta, self.m, self.M)


def suppress_outliers(data: Any, metric: Metric, m: Any, M: Any, *, rng: Any = None) -> Suppression:
    """Outlier-score suppression S of SPEC T14 (seed 000, Thm 5.4): delete each record x independently with
    probability out_D(x), the scores computed once on the input D.

    If M is (ε, δ)-DP, M∘S is (ε^S(ε, m, M), (1 − m)δ)-DP (``result.certificate(ε, δ)``; needs m > 0); to
    be (ε, δ)-DP overall run M at ``result.calibrate(ε, δ)``.  m = M is Poisson sampling at rate 1 − m.

    Parameters
    ----------
    data : array_like
        The records D (rows), n ≥ 1.
    metric : Metric
        Built from public constants (see :func:`outlier_scores`).
    m, M : float
        0 ≤ m ≤ M < 1.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    Suppression
        ``.keep``, ``.scores``, ``.kept``, ``.certificate(ε, δ)``, ``.calibrate(ε, δ)``.

    Raises
    ------
    ValueError
        As :func:`outlier_scores`.

    Examples
    --------
    >>> from bounds.procedures import AbsoluteDifference, suppress_outliers
    >>> s = suppress_outliers([20, 35, 41, 90, 120], AbsoluteDifference(0, 125), 0.1, 0.5, rng=0)
    >>> s.keep.shape, bool(((s.scores >= 0.1) & (s.scores <= 0.5)).all())
    ((5,), True)
    >>> g = s.certificate(1.0, 1e-6)
    >>> g.epsilon > 1.0, round(g.delta, 15)
    (True, 9e-07)
    """
    scores, lo, hi = _scores_only("suppress_outliers", data, metric, m, M)
    g = generator("suppress_outliers", rng)
    keep = ~bernoulli(scores, scores.shape[0], g)
    return Suppression(keep=keep, scores=scores, data=np.asarray(data), m=lo, M=hi)


def _suppress_outliers_rows(data: Any, metric: Metric, m: Any, M: Any, rng: np.random.Generator,
                            size: int) -> np.ndarray:
    """The keep masks of ``size`` consecutive runs ``suppress_outliers(data, metric, m, M, rng=rng).keep`` as
    the rows of a (size, n) array — the same procedure, inputs checked and scores computed once (they are a
    function of the data alone), the deletions drawn by :func:`bernoulli_rows`: bit-identical rows and the
    same generator state afterwards (``tests/bounds/procedures/test_outlier_suppression.py``).  The audits'
    batched route (``bounds.audit.scenarios``); ``rng`` must be a Generator."""
    scores = _scores_only("suppress_outliers", data, metric, m, M)[0]
    return ~bernoulli_rows(scores, scores.shape[0], size, rng)


# ------------------------------------------------------------------------------ deterministic (SPEC T12)
@dataclass(frozen=True, eq=False)
class DeterministicSuppression:
    """The result of a deterministic suppressor (SPEC T12).

    Attributes
    ----------
    keep : ndarray of bool
    data : ndarray
    sensitivity : float
        Δ of the rule (1 for a fixed predicate; ``inf`` for the threshold and top-P % rules, Prop. B.2).
    rule : str
    """

    keep: np.ndarray
    data: np.ndarray
    sensitivity: float
    rule: str

    @property
    def kept(self) -> np.ndarray:
        return self.data[self.keep]

    def certificate(self, epsilon: Any, delta: Any) -> Any:
        """(Δε, δΣ_{k<Δ}e^{kε}) (SPEC T12, :func:`bounds.deterministic_suppression`); raises ``ValueError`` when
        Δ = ∞: no differential-privacy guarantee survives the rule."""
        import bounds

        if math.isinf(self.sensitivity):
            raise ValueError(f"{self.rule}: this suppression has sensitivity Δ = ∞ (seed 000, Prop. B.2): adding one "
                             "record can change which records are deleted without bound, so no (ε, δ)-DP "
                             "guarantee with δ < 1 survives it, whatever the mechanism (SPEC T12).  Use "
                             "suppress_outliers (T14) or a fixed predicate (Δ = 1) instead")
        return bounds.deterministic_suppression(epsilon, delta, self.sensitivity)


def suppress_predicate(data: Any, delete: Callable[[Any], Any]) -> DeterministicSuppression:
    """Delete the records x with ``delete(x)`` true, a fixed predicate decided record by record:
    S_A(D) = D ∩ A with A = {x : not delete(x)} fixed in advance (e.g. ages above 100).  Δ = 1, so the
    guarantee is unchanged (SPEC T12; seed 000 Thm 5.1).

    ``delete`` is called on each record alone (never on the dataset), so it cannot depend on the other
    records; it must not be built from the data either (a cut-off at the data's 99th percentile is not fixed).

    Examples
    --------
    >>> from bounds.procedures import suppress_predicate
    >>> s = suppress_predicate([30, 45, 130], lambda age: age > 100)
    >>> s.kept.tolist(), s.certificate(1.0, 1e-6)
    ([30, 45], Guarantee(epsilon=1.0, delta=1e-06))
    """
    if not callable(delete):
        raise ParameterTypeError(f"suppress_predicate: delete = {_short_repr(delete)} must be a callable on one record")
    if isinstance(data, (str, bytes)) or data is None:
        raise ParameterTypeError(f"suppress_predicate: data = {_short_repr(data)} must be a sequence of records")
    a = np.asarray(data)
    if a.ndim == 0:
        raise ValueError("suppress_predicate: data must be a sequence of records")
    flags = [delete(a[i]) for i in range(a.shape[0])]
    for i, f in enumerate(flags):
        if not isinstance(f, (bool, np.bool_)):
            raise ParameterTypeError(f"suppress_predicate: delete(data[{i}]) returned {_short_repr(f)}, not a bool")
    keep = ~np.array(flags, dtype=bool).reshape(a.shape[0])
    return DeterministicSuppression(keep=keep, data=a, sensitivity=1.0, rule="suppress_predicate")


def _mean_distance_to_others(function: str, data: Any, metric: Metric) -> tuple[np.ndarray, np.ndarray]:
    metric = _check_metric(function, metric)
    prepared = metric._prepare(function, data)
    n = prepared.shape[0]
    sums = metric._row_sums(function, prepared)
    return prepared, (sums / (n - 1) if n > 1 else np.zeros(n))


def suppress_threshold(data: Any, metric: Metric, threshold: Any) -> DeterministicSuppression:
    """Delete every record whose mean distance to the *other* records exceeds ``threshold`` (Δ = ∞).

    A counterexample generator, not a private procedure: seed 000 Prop. B.2 shows its sensitivity is
    unbounded (one added record can push arbitrarily many records over the threshold), so no DP guarantee
    survives (``certificate`` raises).  SPEC T12.

    Examples
    --------
    >>> from bounds.procedures import AbsoluteDifference, suppress_threshold
    >>> suppress_threshold([1, 2, 3, 90], AbsoluteDifference(0, 100), 0.5).keep.tolist()
    [True, True, True, False]
    """
    t = real("suppress_threshold", "threshold", threshold)
    if isinstance(t, np.ndarray) or math.isnan(t):
        raise ValueError(f"suppress_threshold: threshold = {_short_repr(threshold)} must be a single number")
    prepared, mean = _mean_distance_to_others("suppress_threshold", data, metric)
    return DeterministicSuppression(keep=~(mean > t), data=prepared, sensitivity=math.inf, rule="suppress_threshold")


def suppress_top_percent(data: Any, metric: Metric, percent: Any) -> DeterministicSuppression:
    """Delete the ⌊P·n/100⌋ records with the largest mean distance to the other records (P ≤ 50; Δ = ∞).

    Ties are broken by position (the earlier record is deleted first).  Seed 000 Prop. B.2: the sensitivity
    is unbounded, no DP guarantee survives (``certificate`` raises).  SPEC T12.

    Examples
    --------
    >>> from bounds.procedures import AbsoluteDifference, suppress_top_percent
    >>> suppress_top_percent([1, 2, 3, 90], AbsoluteDifference(0, 100), 25).keep.tolist()
    [True, True, True, False]
    """
    p = real("suppress_top_percent", "percent", percent)
    if isinstance(p, np.ndarray) or not (0.0 <= p <= 50.0):
        raise ValueError(f"suppress_top_percent: percent = {_short_repr(percent)} must be a number in [0, 50]")
    prepared, mean = _mean_distance_to_others("suppress_top_percent", data, metric)
    n = prepared.shape[0]
    count_ = math.floor(Fraction(p) * n / 100)  # exact: 10 % of 30 is 3, not ⌊3.0000000000000004⌋
    order = np.argsort(-mean, kind="stable")
    keep = np.ones(n, dtype=bool)
    keep[order[:count_]] = False
    return DeterministicSuppression(keep=keep, data=prepared, sensitivity=math.inf, rule="suppress_top_percent")
