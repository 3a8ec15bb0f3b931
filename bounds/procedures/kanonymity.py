r"""Sampling + strongly-safe k-anonymization, the procedure of SPEC T15 (Li, Qardaji, Su, arXiv:1101.2604, Thm 5).

The procedure, exactly as the theorem assumes it (``shared/SYSTEMS.md`` §3):

1. **β-sampling**: keep each tuple independently with probability β (exactly β: ``_bernoulli``);
2. **a generalisation g fixed before seeing the data**: one full-domain level per attribute in hierarchies
   given as plain data; every released attribute goes through g (attributes without a hierarchy are not
   released), so the released tuple is the value the theorem counts;
3. **suppression** of every generalised tuple that occurs fewer than k times in the sample;
4. **release of the multiset** (in a canonical order, so row order says nothing about the input order).

It is (ε, d(k, β, ε))-DP under add/remove-one-tuple (unbounded DP) for every ε ≥ −ln(1 − β), with d of
``bounds.safe_k_anonymization_delta``; without sampling (β = 1) no δ < 1 holds.

What is deliberately **not** offered:

- data-dependent generalisation (levels chosen by looking at the table, ARX-style "optimal" search on the
  data, a callable or ``"auto"``): the theorem needs g fixed independently of the data;
- the ε₁-safe variant (T16, scheme chosen by an ε₁-DP algorithm): it is valid only when the choice runs on the
  *unsampled* data and is false on the sample (exact δ = 0.2663 > 0.125, SPEC T16), and this module cannot
  check how a given scheme was chosen.  Choose the levels yourself with an ε₁-DP algorithm on the full data
  and account with ``bounds.eps1_safe_k_anonymization_delta`` if you need it;
- two releases from one sample: each call draws a fresh sample.  Two generalisations of the *same* sample
  are not covered by T15 (the seed's non-composability example); independent calls compose as usual.
"""
from __future__ import annotations

import csv
import math
import numbers
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Iterable

import numpy as np

from .._core import Guarantee
from ._bernoulli import bernoulli
from ._checks import generator

__all__ = ["Hierarchy", "SafeKAnonymizer", "SafeKRelease", "SafeKReport", "interval_hierarchy",
           "safe_k_anonymize"]

#: Printed in every report: the seed's non-composability.
ONE_RELEASE_NOTE = ("one sample allows one release: each call draws a fresh β-sample; generalising the same "
                    "sample twice is not covered by SPEC T15 (Li, Qardaji, Su §5)")


def _key(value: Any) -> str:
    """Values are matched to hierarchy rows by their text: ``str(value).strip()`` (39, np.int64(39), " 39" and
    "39" are the same value).  A rule on the value alone, so the generalisation stays data-independent."""
    if isinstance(value, bytes):
        value = value.decode()
    return str(value).strip()


@dataclass(frozen=True)
class Hierarchy:
    """A generalisation hierarchy of one attribute, as plain data.

    ``rows`` maps each value's text to its generalisations at levels 1, …, ``height`` (level 0 is the value
    itself, spelled as in the hierarchy); every value has the same number of levels (full-domain
    generalisation: one level for the whole attribute).

    Build it with :meth:`from_data` from a mapping ``value → (level 1, level 2, …)``, ARX-style rows
    ``(value, level 1, …, "*")`` or the path of an ARX hierarchy CSV file (``;``-separated, no header).
    """

    name: str
    rows: Mapping[str, tuple]
    values: Mapping[str, Any]
    height: int

    @classmethod
    def from_data(cls, spec: Any, name: str = "") -> "Hierarchy":
        """Parse a hierarchy given as a mapping, a sequence of ARX rows, a CSV path, or a ``Hierarchy``."""
        where = f"hierarchy of attribute {name!r}" if name != "" else "hierarchy"
        if isinstance(spec, Hierarchy):
            return spec
        if callable(spec) and not isinstance(spec, (Mapping, Sequence)):
            raise TypeError(f"safe_k_anonymize: the {where} is a callable ({spec!r}); give it as plain data (a "
                            "mapping value → generalisations, ARX rows, or a CSV path) so the generalisation is a "
                            "fixed table, checkably independent of the data (SPEC T15)")
        if isinstance(spec, (str, os.PathLike)):
            text = _read_text(spec, where)
            lines = text.splitlines()
            spec = [row for row in csv.reader(lines, delimiter=_delimiter(lines[0] if lines else "")) if row]
        if isinstance(spec, Mapping):
            items = [(value, gens) for value, gens in spec.items()]
        elif isinstance(spec, Iterable):
            items = []
            for i, row in enumerate(spec):
                if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or len(row) < 1:
                    raise ValueError(f"safe_k_anonymize: row {i} of the {where} is {row!r}; ARX rows are sequences "
                                     "(value, level 1, …, '*')")
                items.append((row[0], tuple(row[1:])))
        else:
            raise TypeError(f"safe_k_anonymize: the {where} must be a mapping, a sequence of rows or a CSV path, "
                            f"got {type(spec).__name__}")
        rows: dict[str, tuple] = {}
        values: dict[str, Any] = {}
        height = None
        for value, gens in items:
            gens = (gens,) if isinstance(gens, (str, bytes)) or not isinstance(gens, Sequence) else tuple(gens)
            key = _key(value)
            if height is None:
                height = len(gens)
            elif len(gens) != height:
                raise ValueError(f"safe_k_anonymize: in the {where}, value {value!r} has {len(gens)} levels and "
                                 f"others {height}; full-domain generalisation needs the same number of levels for "
                                 "every value")
            if key in rows and rows[key] != gens:
                raise ValueError(f"safe_k_anonymize: the {where} lists value {value!r} twice with different "
                                 f"generalisations {rows[key]!r} and {gens!r}")
            rows[key], values[key] = gens, value
        if not rows:
            raise ValueError(f"safe_k_anonymize: the {where} is empty")
        return cls(name, MappingProxyType(rows), MappingProxyType(values), int(height))

    def generalise(self, value: Any, level: int) -> Any:
        """g(value) at ``level`` (0 = the value as spelled in the hierarchy)."""
        key = _key(value)
        try:
            return self.values[key] if level == 0 else self.rows[key][level - 1]
        except KeyError:
            raise ValueError(f"safe_k_anonymize: value {value!r} of attribute {self.name!r} is not in its "
                             "hierarchy; every value of the domain needs a row (an unknown value cannot be "
                             "generalised without looking at the data)") from None


def interval_hierarchy(domain: Iterable[int], widths: Sequence[int], *, origin: int = 0) -> dict[int, tuple]:
    """A hierarchy of integer intervals: value → ("[lo, hi)" per width, …, "*"), fixed by its arguments alone.

    Level j groups v into [origin + w_j·⌊(v − origin)/w_j⌋, … + w_j) for the j-th width; the top level is "*".
    The intervals depend only on ``origin`` and ``widths``, never on which values occur, so the
    generalisation is data-independent (give the public *domain*, e.g. ``range(17, 91)`` for Adult ages).

    Parameters
    ----------
    domain : iterable of int
        The attribute's values.
    widths : sequence of int
        Interval widths of levels 1, 2, …; each a positive multiple of the previous (nested intervals).
    origin : int
        Where the intervals start.

    Returns
    -------
    dict
        value → tuple of generalisations (levels 1, …, len(widths) + 1).

    Examples
    --------
    >>> from bounds.procedures import interval_hierarchy
    >>> interval_hierarchy(range(37, 40), [5, 10, 20])[39]
    ('[35, 40)', '[30, 40)', '[20, 40)', '*')
    """
    widths = list(widths) if isinstance(widths, Iterable) and not isinstance(widths, (str, bytes)) else None
    if not widths or any(isinstance(w, bool) or not isinstance(w, numbers.Integral) for w in widths):
        raise ValueError(f"interval_hierarchy: widths = {widths!r} must be a sequence of positive integers")
    if isinstance(origin, bool) or not isinstance(origin, numbers.Integral):
        raise ValueError(f"interval_hierarchy: origin = {origin!r} must be an integer")
    origin = int(origin)
    widths = [int(w) for w in widths]
    if any(w < 1 for w in widths) or any(b % a for a, b in zip(widths, widths[1:])):
        raise ValueError(f"interval_hierarchy: widths = {widths!r} must be positive, each a multiple of the "
                         "previous (nested intervals)")
    out = {}
    for v in domain:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(f"interval_hierarchy: domain value {v!r} is not an integer")
        v = int(v)
        gens = []
        for w in widths:
            lo = origin + w * ((v - origin) // w)
            gens.append(f"[{lo}, {lo + w})")
        out[v] = (*gens, "*")
    return out


# ------------------------------------------------------------------------------------------------------
# tables

def _read_text(path: Any, what: str) -> str:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"safe_k_anonymize: cannot read the {what} from {os.fspath(path)!r}: {error}") from None


def _delimiter(first_line: str) -> str:
    """The separator of a CSV table or ARX hierarchy file: ``;`` if the first line has one, else tab, else ``,``."""
    return ";" if ";" in first_line else ("\t" if "\t" in first_line else ",")


def _read_csv(path: Any) -> tuple[list[str], list[tuple]]:
    text = _read_text(path, "table")
    lines = text.splitlines()
    if not lines:
        raise ValueError(f"safe_k_anonymize: the CSV file {os.fspath(path)!r} is empty")
    reader = csv.reader(lines, delimiter=_delimiter(lines[0]))
    header = [h.strip() for h in next(reader)]
    return header, [tuple(row) for row in reader if row]


def _table(table: Any, keys: list, named: bool, positional: bool) -> list[tuple]:
    """The released attributes (``keys``: names or column indices) of every row, in hierarchy order."""
    if isinstance(table, (str, os.PathLike)):
        header, rows = _read_csv(table)
        index = []
        for key in keys:
            if isinstance(key, str):
                if key not in header:
                    raise ValueError(f"safe_k_anonymize: attribute {key!r} is not a column of {os.fspath(table)!r} "
                                     f"(columns {header})")
                index.append(header.index(key))
            else:
                index.append(int(key))
        return [tuple(row[i] for i in index) for row in rows]
    if isinstance(table, np.ndarray) and table.dtype.names is not None:
        names = table.dtype.names
        for key in keys:
            if isinstance(key, str) and key not in names:
                raise ValueError(f"safe_k_anonymize: attribute {key!r} is not a field of the structured array "
                                 f"(fields {names})")
        columns = [table[key] if isinstance(key, str) else table[names[key]] for key in keys]
        return [tuple(c[i] for c in columns) for i in range(table.shape[0])] if table.ndim == 1 else _bad_table(table)
    if isinstance(table, np.ndarray):
        if table.ndim != 2:
            return _bad_table(table)
        table = table.tolist()
    if isinstance(table, (Mapping, str, bytes)) or not isinstance(table, Iterable):
        return _bad_table(table)
    out = []
    for i, row in enumerate(table):
        if isinstance(row, Mapping):
            try:
                out.append(tuple(row[key] for key in keys))
            except KeyError as missing:
                raise ValueError(f"safe_k_anonymize: row {i} has no attribute {missing}") from None
            continue
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise ValueError(f"safe_k_anonymize: row {i} = {row!r} is not a sequence of attribute values")
        if named:
            raise ValueError("safe_k_anonymize: hierarchies are keyed by attribute name but the rows are plain "
                             "sequences; key the hierarchies by column index or pass mappings/CSV/structured arrays")
        if positional and len(row) != len(keys):
            raise ValueError(f"safe_k_anonymize: row {i} has {len(row)} values but {len(keys)} hierarchies were "
                             "given; every released attribute needs a hierarchy (key the hierarchies by column "
                             "index to release only some columns)")
        try:
            out.append(tuple(row[key] for key in keys))
        except IndexError:
            raise ValueError(f"safe_k_anonymize: row {i} has {len(row)} values; column {max(keys)} was "
                             "asked for") from None
    return out


def _bad_table(table: Any) -> list:
    raise TypeError(f"safe_k_anonymize: the table must be a sequence of rows, a 2-D or structured numpy array or "
                    f"a CSV path, got {type(table).__name__}")


# ------------------------------------------------------------------------------------------------------
# parameters

def _k(function: str, k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (numbers.Integral, float)) or (
            isinstance(k, float) and not (k.is_integer() and abs(k) < 2.0 ** 53)):
        raise ValueError(f"{function}: k = {k!r} must be a positive integer (SPEC T15)")
    if int(k) < 1:
        raise ValueError(f"{function}: k = {k!r} must be a positive integer (SPEC T15)")
    return int(k)


def _beta(function: str, beta: Any) -> float:
    """β ∈ (0, 1], exactly a double (the sampler draws with probability exactly β and the bound is evaluated at
    the same β: d is not monotone in β, so a rounded β would not be safe)."""
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise ValueError(f"{function}: beta = {beta!r} must be a real number in (0, 1] (SPEC T15)")
    try:
        value = float(beta)
    except OverflowError:
        raise ValueError(f"{function}: beta = {beta!r} must lie in (0, 1] (SPEC T15)") from None
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{function}: beta = {beta!r} must lie in (0, 1] (SPEC T15)")
    if not isinstance(beta, float) and Fraction(beta) != Fraction(value):
        raise ValueError(f"{function}: beta = {beta!r} is not exactly a double; the bound d(k, β, ε) is not "
                         "monotone in β, so β cannot be rounded — pass a float")
    return value


def _levels(levels: Any, keys: list, heights: list[int], names: list[str]) -> tuple[int, ...]:
    if callable(levels) or isinstance(levels, (str, bytes)) or levels is None:
        raise ValueError(f"safe_k_anonymize: levels = {levels!r} is refused: the generalisation must be fixed "
                         "BEFORE seeing the data (SPEC T15, Li, Qardaji, Su Thm 5); a level chosen from the data "
                         "(an optimal/'auto' search, a callable of the table) makes the procedure data-dependent "
                         "and the bound void.  Give one int per attribute")
    if isinstance(levels, Mapping):
        missing = [k for k in keys if k not in levels]
        extra = [k for k in levels if k not in keys]
        if missing or extra:
            raise ValueError(f"safe_k_anonymize: levels has keys {list(levels)} but the hierarchies have {keys}")
        levels = [levels[k] for k in keys]
    elif isinstance(levels, Iterable):
        levels = list(levels)
    else:
        raise ValueError(f"safe_k_anonymize: levels = {levels!r} must be one int per attribute")
    if len(levels) != len(keys):
        raise ValueError(f"safe_k_anonymize: {len(levels)} levels for {len(keys)} attributes")
    out = []
    for level, height, name in zip(levels, heights, names):
        if isinstance(level, bool) or not isinstance(level, numbers.Integral) or not 0 <= int(level) <= height:
            raise ValueError(f"safe_k_anonymize: level {level!r} of attribute {name!r} must be an int in "
                             f"[0, {height}] (0 = the value, {height} = the top of its hierarchy)")
        out.append(int(level))
    return tuple(out)


def _sort_key(cls: tuple) -> tuple:
    return tuple((type(v).__name__, str(v), repr(v)) for v in cls)


# ------------------------------------------------------------------------------------------------------
# release

@dataclass(frozen=True)
class SafeKReport:
    """What a release did — for the data holder, **not all of it publishable**.

    The (ε, δ) guarantee covers the released multiset only.  ``released``, ``classes``,
    ``average_class_size`` and ``discernibility`` are functions of it (post-processing, publishable with it);
    ``generalisation_loss``, ``levels`` and ``heights`` are fixed by the scheme (public).  ``n``, ``sampled``,
    ``suppressed`` and ``discernibility_penalised`` read the input table or the sample and are **not** covered:
    publishing them leaks (e.g. ``sampled`` is Bin(n, β) and reveals n).

    Attributes
    ----------
    n : int
        Tuples in the input table.
    sampled : int
        Tuples kept by β-sampling.
    suppressed : int
        Sampled tuples removed because their generalised value occurs fewer than k times.
    released : int
        Released tuples (sampled − suppressed).
    classes : int
        Released equivalence classes (distinct generalised tuples).
    average_class_size : float
        released / classes (0.0 when nothing is released).
    discernibility : int
        Σ |class|² over the released classes.
    discernibility_penalised : int
        Bayardo & Agrawal's C_DM: discernibility + suppressed · sampled (a suppressed tuple is
        indistinguishable from the whole sample).
    generalisation_loss : float
        The average over attributes of level / height (0 = nothing generalised, 1 = every attribute at
        the top "*").  A property of the scheme alone (data-independent); not ARX's information loss.
    levels, heights : tuple of int
        The scheme and the height of each hierarchy.
    note : str
        The one-release warning.
    """

    n: int
    sampled: int
    suppressed: int
    released: int
    classes: int
    average_class_size: float
    discernibility: int
    discernibility_penalised: int
    generalisation_loss: float
    levels: tuple
    heights: tuple
    note: str = ONE_RELEASE_NOTE


@dataclass(frozen=True)
class SafeKRelease:
    """The output of :func:`safe_k_anonymize`: the released multiset, a report and the certificate.

    ``rows`` lists the released generalised tuples grouped by class in a canonical order (sorted by the
    text of the values), so the order carries no information beyond the multiset; ``counts`` maps each
    released class to its size.  The guarantee covers ``rows``/``counts``; see :class:`SafeKReport` for which
    report fields may be published with them.
    """

    rows: tuple
    counts: Mapping[tuple, int]
    report: SafeKReport
    k: int
    beta: float
    attributes: tuple

    def guarantee(self, epsilon: Any) -> Guarantee:
        """``Guarantee(ε, d(k, β, ε))`` of this release (SPEC T15), for ε ≥ −ln(1 − β) (decided exactly).

        Raises ``ValueError`` for ε below −ln(1 − β) (the theorem's domain) and for β = 1 (no sampling: no
        δ < 1 holds for any ε).  Add/remove-one-tuple neighbours (unbounded DP).
        """
        return _guarantee("SafeKRelease.guarantee", self.k, self.beta, epsilon)


def _guarantee(function: str, k: int, beta: float, epsilon: Any) -> Guarantee:
    if beta == 1.0:
        raise ValueError(f"{function}: beta = 1 (no sampling): strongly-safe k-anonymization alone is not "
                         "(ε, δ)-DP for any δ < 1 (SPEC T15 needs 0 < β < 1 and ε ≥ −ln(1 − β))")
    from ..kanon import safe_k_anonymization_delta

    try:
        delta = safe_k_anonymization_delta(k, beta, epsilon)
    except ValueError as error:
        raise ValueError(f"{function}: {error}") from None
    return Guarantee(float(epsilon) if np.ndim(epsilon) == 0 else np.asarray(epsilon, dtype=np.float64), delta)


@dataclass(frozen=True)
class SafeKAnonymizer:
    """A strongly-safe k-anonymization scheme: hierarchies, one level per attribute, k and β (SPEC T15).

    Parameters
    ----------
    hierarchies : sequence or mapping
        One hierarchy per released attribute (see :class:`Hierarchy`): a sequence (attribute i is column i
        of each row) or a mapping attribute → hierarchy, keyed by column name (CSV header, structured-array
        field, row mapping key) or column index.  Columns without a hierarchy are not released.
    levels : sequence or mapping of int
        The full-domain level of each attribute (0 = the value, the hierarchy's height = "*"), fixed before
        seeing the data; ``"auto"``, None or a callable are refused.
    k : int
        Minimum released class size, ≥ 1.
    beta : float
        Sampling rate in (0, 1] (β = 1 releases deterministically, without a DP guarantee).

    Examples
    --------
    >>> from bounds.procedures import SafeKAnonymizer
    >>> scheme = SafeKAnonymizer.from_target(1.0, 1e-6, [{"a": ("*",), "b": ("*",)}], [1])
    >>> scheme.k, round(scheme.beta, 6), scheme.guarantee(1.0).delta <= 1e-6
    (74, 0.632121, True)
    """

    hierarchies: tuple
    levels: tuple
    k: int
    beta: float
    keys: tuple = field(default=())
    positional: bool = True

    def __init__(self, hierarchies: Any, levels: Any, *, k: Any, beta: Any) -> None:
        if isinstance(hierarchies, Mapping):
            keys = list(hierarchies)
            specs = [hierarchies[key] for key in keys]
        elif isinstance(hierarchies, (str, bytes)) or not isinstance(hierarchies, Iterable):
            raise TypeError("safe_k_anonymize: hierarchies must be a sequence (one per column) or a mapping "
                            f"attribute → hierarchy, got {type(hierarchies).__name__}")
        else:
            specs = list(hierarchies)
            keys = list(range(len(specs)))
        if not specs:
            raise ValueError("safe_k_anonymize: no hierarchies: at least one attribute must be released")
        for key in keys:
            if isinstance(key, bool) or not isinstance(key, (str, numbers.Integral)):
                raise ValueError(f"safe_k_anonymize: attribute key {key!r} must be a column name or index")
        parsed = tuple(Hierarchy.from_data(spec, str(key)) for key, spec in zip(keys, specs))
        fixed = _levels(levels, keys, [h.height for h in parsed], [h.name for h in parsed])
        object.__setattr__(self, "hierarchies", parsed)
        object.__setattr__(self, "levels", fixed)
        object.__setattr__(self, "k", _k("safe_k_anonymize", k))
        object.__setattr__(self, "beta", _beta("safe_k_anonymize", beta))
        object.__setattr__(self, "keys", tuple(int(k) if not isinstance(k, str) else k for k in keys))
        object.__setattr__(self, "positional", not isinstance(hierarchies, Mapping))

    @classmethod
    def from_target(cls, epsilon: float, delta: float, hierarchies: Any, levels: Any, *, k: Any = None,
                    beta: Any = None) -> "SafeKAnonymizer":
        """The scheme meeting (ε, δ): β and the smallest k with d(k, β, ε) ≤ δ (SPEC T15).

        - Neither ``k`` nor ``beta`` given: β = the largest double with ε ≥ −ln(1 − β) (decided exactly), the
          largest sampling rate the theorem admits at ε, then the smallest k
          (``bounds.safe_k_anonymization_min_k``).  ARX (SafePub, ``ParameterCalculation``) also takes
          β = 1 − e^{−ε} (the lower end of an interval enclosure), but its k loop increments once more after
          the last test and returns one more than the smallest k with d < δ; here d is rounded up with exact
          integer decisions, so the smallest k with d ≤ δ is already safe (typically ARX's k − 1).
        - ``beta`` given: the smallest k at that β.
        - ``k`` given: the largest β with d(k, β, ε) ≤ δ (``bounds.safe_k_anonymization_max_beta``; d is not
          monotone in β, the search is the bound's).

        Choosing between a large β with a large k and a small β with a small k by looking at the data would
        make the scheme data-dependent; pick it from public knowledge.
        """
        from ..kanon import _admissible_exact, safe_k_anonymization_max_beta, safe_k_anonymization_min_k

        function = "SafeKAnonymizer.from_target"
        if k is not None and beta is not None:
            raise ValueError(f"{function}: give at most one of k and beta (the other is chosen)")
        try:
            value = float(epsilon) if isinstance(epsilon, numbers.Real) and not isinstance(epsilon, bool) else math.nan
        except OverflowError:
            value = math.inf
        if not 0 < value < math.inf:
            raise ValueError(f"{function}: epsilon = {epsilon!r} must be finite and > 0 (SPEC T15)")
        epsilon = value
        if k is not None:
            k = _k(function, k)
            beta = safe_k_anonymization_max_beta(k=k, epsilon=epsilon, delta=delta)
        else:
            if beta is None:
                beta = -math.expm1(-epsilon)
                if epsilon >= 40.0:
                    beta = math.nextafter(1.0, 0.0)
                else:
                    admissible = _admissible_exact()
                    while beta > 0 and not admissible(beta, epsilon, 0.0):
                        beta = math.nextafter(beta, 0.0)
                    while math.nextafter(beta, 1.0) < 1.0 and admissible(math.nextafter(beta, 1.0), epsilon, 0.0):
                        beta = math.nextafter(beta, 1.0)
            beta = _beta(function, beta)
            k = safe_k_anonymization_min_k(delta=delta, beta=beta, epsilon=epsilon)
        return cls(hierarchies, levels, k=k, beta=beta)

    def guarantee(self, epsilon: Any) -> Guarantee:
        """``Guarantee(ε, d(k, β, ε))`` (SPEC T15) for ε ≥ −ln(1 − β); see :meth:`SafeKRelease.guarantee`."""
        return _guarantee("SafeKAnonymizer.guarantee", self.k, self.beta, epsilon)

    def generalise(self, rows: Any) -> list[tuple]:
        """g(t) for every row of the table ``rows`` (no sampling, no suppression)."""
        named = any(isinstance(key, str) for key in self.keys)
        rows = _table(rows, list(self.keys), named, self.positional)
        return [tuple(h.generalise(v, lv) for h, v, lv in zip(self.hierarchies, row, self.levels)) for row in rows]

    def anonymize(self, rows: Any, *, rng: Any = None) -> SafeKRelease:
        """Sample, generalise, suppress, release (see :func:`safe_k_anonymize`)."""
        rng = generator("safe_k_anonymize", rng)
        generalised = self.generalise(rows)  # every row checked against the hierarchies (errors only)
        n = len(generalised)
        keep = bernoulli(self.beta, n, rng)  # β is a double: exact
        counts = Counter(g for g, kept in zip(generalised, keep) if kept)
        released = {cls: c for cls, c in counts.items() if c >= self.k}
        order = sorted(released, key=_sort_key)
        rows = tuple(cls for cls in order for _ in range(released[cls]))
        sampled = int(keep.sum())
        suppressed = sampled - len(rows)
        heights = tuple(h.height for h in self.hierarchies)
        discernibility = sum(c * c for c in released.values())
        report = SafeKReport(
            n=n, sampled=sampled, suppressed=suppressed, released=len(rows), classes=len(released),
            average_class_size=len(rows) / len(released) if released else 0.0,
            discernibility=discernibility, discernibility_penalised=discernibility + suppressed * sampled,
            generalisation_loss=sum(lv / h if h else 0.0 for lv, h in zip(self.levels, heights)) / len(heights),
            levels=self.levels, heights=heights)
        return SafeKRelease(rows, MappingProxyType({cls: released[cls] for cls in order}), report, self.k,
                            self.beta, self.keys)


def safe_k_anonymize(rows: Any, hierarchies: Any, levels: Any, *, k: Any, beta: Any, rng: Any = None) -> SafeKRelease:
    r"""β-sampling then strongly-safe k-anonymization (SPEC T15; Li, Qardaji, Su, arXiv:1101.2604, Thm 5).

    Keeps each tuple independently with probability exactly β, replaces each kept tuple t by g(t) (one
    full-domain level per attribute in the given hierarchies, fixed before seeing the data), removes every
    generalised tuple occurring fewer than k times among the kept ones, and releases the multiset.  The
    release is (ε, d(k, β, ε))-DP under add/remove one tuple for every ε ≥ −ln(1 − β)
    (``release.guarantee(epsilon)``); provenance *source*.  With β = 1 the release is deterministic and has no
    DP guarantee (the theorem needs sampling).

    **One sample allows one release**: each call draws a fresh sample; do not sample yourself and pass the
    sample with β = 1 for several schemes (two generalisations of one sample are not covered — the seed's
    non-composability example).  The ε₁-safe variant (scheme chosen by an ε₁-DP algorithm, T16) is not
    offered: it is valid only when the choice runs on the unsampled data, which this function cannot check.

    Parameters
    ----------
    rows : sequence of rows, numpy array or path
        The table: a sequence of rows (sequences, or mappings keyed by attribute name), a 2-D or structured
        numpy array, or the path of a CSV file with a header (``,``, ``;`` or tab separated; values read as
        text).
    hierarchies : sequence or mapping
        One hierarchy per released attribute, as plain data: a mapping value → (level 1, …, top), ARX rows
        (value, level 1, …, "*"), or an ARX CSV path.  A sequence matches the columns in order; a mapping is
        keyed by column name or index (other columns are not released).  Values are matched by their text
        (``str(value).strip()``); a value missing from its hierarchy is an error.
    levels : sequence or mapping of int
        The level of each attribute, 0 (the value) to the hierarchy's height ("*").  Data-dependent choices
        (``"auto"``, a callable) are refused.
    k : int
        Suppression threshold, ≥ 1.
    beta : float
        Sampling rate, 0 < β ≤ 1, exactly a double.
    rng : numpy.random.Generator, int or None
        Randomness (None: a fresh default generator; an int: ``default_rng(seed)``).

    Returns
    -------
    SafeKRelease
        ``.rows`` (the released generalised tuples), ``.counts``, ``.report`` (:class:`SafeKReport`) and
        ``.guarantee(epsilon)``.

    Raises
    ------
    ValueError
        For a bad k, β, level, hierarchy or a value missing from its hierarchy.
    TypeError
        For a callable hierarchy, a table or rng of the wrong kind.

    Examples
    --------
    Ages generalised to 10-year intervals and gender kept, k = 2, half the tuples sampled:

    >>> from bounds.procedures import interval_hierarchy, safe_k_anonymize
    >>> rows = [(39, "M"), (50, "M"), (38, "M"), (53, "M"), (28, "F"), (37, "F"), (49, "F"), (52, "M")]
    >>> hierarchies = [interval_hierarchy(range(0, 126), [5, 10, 20]), {"M": ("*",), "F": ("*",)}]
    >>> release = safe_k_anonymize(rows, hierarchies, [2, 0], k=2, beta=0.75, rng=0)
    >>> dict(release.counts)
    {('[30, 40)', 'M'): 2, ('[50, 60)', 'M'): 3}
    >>> release.report.sampled, release.report.suppressed    # for the data holder: not covered by the guarantee
    (6, 1)
    >>> g = release.guarantee(2.0)                  # defined for ε ≥ −ln(1 − 0.75) ≈ 1.386
    >>> g.epsilon, 0 < g.delta < 1
    (2.0, True)
    """
    return SafeKAnonymizer(hierarchies, levels, k=k, beta=beta).anonymize(rows, rng=rng)
