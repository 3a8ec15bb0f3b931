"""Public API for suppression of records: SPEC T12 (deterministic), T13 (general probabilistic, exact
evaluator on finite universes), T14 (outlier-score suppression) — Miranda-Pascual, Parra-Arnau, Strufe,
*The Adverse Effects of Omitting Records in Differential Privacy*, USENIX Security '26.

Convention for user-supplied suppression algorithms (T12's ``suppression_sensitivity`` and T13's
``suppression_bound``): records are distinct, hashable, orderable elements of ``universe`` (two people with
equal values are two elements); a database is a sorted tuple of distinct elements; ``algorithm(D)`` returns a
dict mapping each kept sub-tuple of D (sorted) to its probability (``Fraction``s for exact results, floats
accepted).  For T12 the algorithm is deterministic: ``algorithm(D)`` returns the kept sub-tuple itself (a
dict with a single entry of probability 1 is accepted too).
"""
from __future__ import annotations

import itertools
import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational
from typing import Any, Callable, Hashable, Iterable

import numpy as np
from numpy.typing import ArrayLike

from ._core import Guarantee, as_output, evaluate, guarantee, is_scalar, real, validate
from ._dask import refuses_dask, supports_dask

__all__ = ["SuppressionBound", "deterministic_suppression", "outlier_score_suppression",
           "outlier_score_suppression_inverse", "suppression_bound", "suppression_sensitivity"]


# ---------------------------------------------------------------------------------------------- T12
@supports_dask(pair=True)
def deterministic_suppression(epsilon: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike) -> Guarantee:
    r"""Privacy of M∘S for a deterministic suppression S of sensitivity Δ (SPEC T12).

    Returns an upper bound on (ε^S, δ^S), rounded up and with δ^S reported as at most 1, or raises.

    .. math::

        \varepsilon^{\mathcal{S}} = \Delta\,\varepsilon, \qquad
        \delta^{\mathcal{S}} = \delta \sum_{k=0}^{\Delta-1} e^{k\varepsilon}
        = \delta\,\frac{e^{\Delta\varepsilon} - 1}{e^{\varepsilon} - 1}

    S deterministic with S(𝔻) ⊆ 𝕊 ⊆ 𝔻, M restricted to 𝕊 is (ε, δ)-DP, and Δ = Δ_𝕊S is the largest
    neighbour-path distance inside 𝕊 between S(D) and S(D') over neighbours D, D' (see
    :func:`suppression_sensitivity`).  The closed form is group privacy (T7) at k = Δ; the identity is proven
    symbolically in ``proofs_checks``.  Δ = 1 (e.g. every database-independent S(D) = D ∩ A) leaves the
    guarantee unchanged; Δ = 0 (S constant) gives (0, 0).

    Relation: add/remove.  Provenance: *source* — Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26,
    Thm 5.1; tight whenever δ^S < 1 (Prop B.1).

    Parameters
    ----------
    epsilon, delta : array_like
        The guarantee of M on 𝕊, ε ∈ [0, inf], δ ∈ [0, 1].
    sensitivity : array_like
        Δ, an integer ≥ 0.  ``inf`` is rejected: then M∘S is not differentially private at all (e.g.
        "delete records whose mean distance exceeds a threshold", "delete the top P% furthest", P ≤ 50).

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If Δ = inf (the composition is not differentially private), or a parameter is NaN, outside its
        domain, or Δ is not an integer.

    Examples
    --------
    >>> import bounds
    >>> bounds.deterministic_suppression(0.5, 0.0, 1)
    Guarantee(epsilon=0.5, delta=0.0)
    >>> bounds.deterministic_suppression(0.5, 1e-6, 3).epsilon
    1.5
    """
    arr = np.asarray(real("deterministic_suppression", "sensitivity", sensitivity, "(SPEC T12)"))
    if np.isinf(arr).any():
        raise ValueError("deterministic_suppression: sensitivity = inf: the suppression changes S(D) by an "
                         "unbounded number of records between neighbouring databases, so M∘S is NOT "
                         "differentially private for any (ε, δ) with δ < 1 (SPEC T12, Miranda-Pascual et al. "
                         "Thm 5.1 / Prop B.2); no bound is returned")
    return guarantee("deterministic_suppression", "T12", epsilon=epsilon, delta=delta, sensitivity=sensitivity)


# Exact evaluators enumerate every (D, y) with |D| < max_size and y ∉ D: Σ_{s<max_size} C(N, s)·(N − s) cases
# for a universe of N records, each calling the algorithm (and, for T13, summing over its output
# distribution).  The count is computed first and refused above ``max_cases`` (the defaults below run in
# seconds on the docstring's examples: T13 with a Poisson suppression on 9 records ≈ 4 s for 2,304 cases).
MAX_CASES_BOUND = 4096
MAX_CASES_SENSITIVITY = 200_000
MAX_EPSILON = 10_000.0  # e^ε is expanded to an exact rational of about 1.44·ε bits


def count_cases(records: int, max_size: int) -> int:
    """Number of (D, y) pairs with D ⊆ universe, |D| < max_size, y ∉ D (exact, Python ints)."""
    return sum(math.comb(records, s) * (records - s) for s in range(0, min(max_size - 1, records) + 1))


def _databases(function: str, universe: Iterable[Hashable], max_size: Any,
               max_cases: Any) -> tuple[tuple, list[tuple]]:
    """Check ``universe``, ``max_size`` and the enumeration's size, then list the databases."""
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or max_size < 1:
        raise ValueError(f"{function}: max_size = {max_size!r} must be an integer ≥ 1")
    max_size = int(max_size)
    if isinstance(max_cases, bool) or not isinstance(max_cases, (int, np.integer)) or max_cases < 1:
        raise ValueError(f"{function}: max_cases = {max_cases!r} must be an integer ≥ 1")
    if isinstance(universe, (str, bytes)) or not isinstance(universe, Iterable):
        raise ValueError(f"{function}: universe = {universe!r} must be an iterable of records")
    records = list(universe)  # a generator can be read once only
    try:
        distinct = set(records)
    except TypeError as exc:
        raise ValueError(f"{function}: universe: records must be hashable ({exc})") from None
    if len(distinct) != len(records):
        raise ValueError(f"{function}: universe: records must be distinct elements (two people with equal values "
                         "are two elements, e.g. (id, value) pairs)")
    try:
        elements = tuple(sorted(distinct))
    except TypeError as exc:
        raise ValueError(f"{function}: universe: records must be mutually orderable, e.g. all numbers or all "
                         f"tuples of the same types ({exc})") from None
    cases = count_cases(len(elements), max_size)
    if cases > max_cases:
        raise ValueError(f"{function}: the enumeration has {cases} cases (|universe| = {len(elements)}, "
                         f"max_size = {max_size}), more than max_cases = {max_cases}; pass a larger max_cases= "
                         "to run it anyway (the time grows with the count, for T13 also with the size of each "
                         "output distribution)")
    dbs = [D for size in range(0, min(max_size, len(elements)) + 1) for D in itertools.combinations(elements, size)]
    return elements, dbs


def _deterministic_output(algorithm: Callable, D: tuple) -> tuple:
    out = algorithm(D)
    if isinstance(out, dict):
        support = [k for k, v in out.items() if v != 0]
        if len(support) != 1 or out[support[0]] != 1:
            raise ValueError(f"suppression_sensitivity: algorithm({D!r}) is not deterministic: {out!r}")
        out = support[0]
    kept = tuple(sorted(out))
    if not set(kept) <= set(D) or len(set(kept)) != len(kept):
        raise ValueError(f"suppression_sensitivity: algorithm({D!r}) = {out!r} is not a sub-database of D")
    return kept


@refuses_dask
def suppression_sensitivity(algorithm: Callable[[tuple], Any], universe: Iterable[Hashable], max_size: int,
                            *, domain: str = "all", max_cases: int = MAX_CASES_SENSITIVITY) -> float:
    """Sensitivity Δ_𝕊S of a deterministic suppression, by enumeration (SPEC T12).

    Enumerates every database D (sorted tuple of distinct elements of ``universe``) with |D| < ``max_size``
    and every y ∉ D, and returns the largest neighbour-path distance inside 𝕊 between S(D) and S(D₊y).

    **Enumeration gives a lower bound on the true Δ**: the true Δ is a supremum over all databases of every
    size, and larger databases can only increase it.  A value that keeps growing with ``max_size`` (e.g.
    "delete records whose mean distance exceeds a threshold") indicates Δ = ∞ and no DP at all.

    SPEC T12; citation: Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26, Thm 5.1 (tightness: Prop B.1).  Provenance: *source*.

    Parameters
    ----------
    algorithm : callable
        Deterministic suppression: ``algorithm(D)`` returns the kept sub-tuple of D (or a dict with one
        entry of probability 1).
    universe : iterable
        The finite universe of records (distinct, orderable).
    max_size : int
        Databases D of size < max_size are enumerated (so D₊y has size ≤ max_size).
    domain : {"all", "image"}
        𝕊 = all databases (paths may pass through any database: the distance is |S(D) △ S(D')|), or
        𝕊 = the image S(𝔻) of the enumerated databases (paths must stay inside it; ``inf`` is returned when
        S(D) and S(D₊y) are in different connected components, i.e. the path distance is unbounded).
    max_cases : int
        Largest enumeration allowed (number of (D, y) pairs, counted before anything runs); default 200,000.

    Returns
    -------
    float
        Δ as a float (an integer value), or ``math.inf``.

    Raises
    ------
    ValueError
        If ``max_size`` is not a positive integer, ``domain`` is unknown, or the algorithm returns something
        that is not a sub-database of its input.

    Examples
    --------
    >>> import bounds
    >>> drop_b = lambda D: tuple(x for x in D if x != "b")     # always suppress record "b"
    >>> bounds.suppression_sensitivity(drop_b, ["a", "b", "c"], 3)
    1.0
    """
    if not isinstance(domain, str) or domain not in ("all", "image"):
        raise ValueError(f"suppression_sensitivity: domain = {domain!r} must be 'all' or 'image'")
    elements, dbs = _databases("suppression_sensitivity", universe, max_size, max_cases)
    outputs = {D: _deterministic_output(algorithm, D) for D in dbs}
    pairs = [(D, tuple(sorted(D + (y,)))) for D in dbs if len(D) < max_size for y in elements if y not in D]
    if domain == "all":
        return float(max((len(set(outputs[a]) ^ set(outputs[b])) for a, b in pairs), default=0))
    image = set(outputs.values())

    def bfs(src):
        dist = {src: 0}
        queue = deque([src])
        while queue:
            u = queue.popleft()
            for v in _neighbours(u, elements):
                if v in image and v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        return dist

    cache: dict = {}
    worst = 0.0
    for a, b in pairs:
        sa, sb = outputs[a], outputs[b]
        if sa not in cache:
            cache[sa] = bfs(sa)
        worst = max(worst, float(cache[sa].get(sb, math.inf)))
    return worst


def _neighbours(db: tuple, elements: tuple):
    for x in db:
        yield tuple(e for e in db if e != x)
    for x in elements:
        if x not in db:
            yield tuple(sorted(db + (x,)))


# ---------------------------------------------------------------------------------------------- T13
@dataclass(frozen=True)
class WorstCase:
    """The case attaining ε^S: database D, added record y, kept set C ⊆ D, and which ratio."""

    D: tuple
    y: Hashable
    C: tuple
    direction: str  # "D' vs D" (ε_{D',D}) or "D vs D'" (ε_{D,D'})
    exp_epsilon: Fraction


@dataclass(frozen=True)
class SuppressionBound:
    """Result of :func:`suppression_bound`.

    ``epsilon`` is an upper bound on ε^S (rounded up); ``exp_epsilon`` is e^{ε^S} as an exact rational
    (exact when e^ε was given exactly, else computed with e^ε rounded up); ``delta`` is δ^S (a ``Fraction``,
    exact, when every input is exact, else a float rounded up); ``worst_case`` is the (D, y, C) attaining
    ε^S; ``lower_bound`` is Prop B.8's lower bound ln(1 + (e^ε − 1)·sup P{y ∈ S(D₊y)}) on ε^S (rounded down),
    ``exp_lower_bound`` its exact exponential; ``keep_probability`` = sup P{y ∈ S(D₊y)}; ``cases`` the
    number of (D, y) pairs enumerated.

    Parameters
    ----------
    epsilon, delta, exp_epsilon, worst_case, lower_bound, exp_lower_bound, keep_probability, cases : see above
        The fields of the result, as described above.

    Examples
    --------
    >>> import bounds
    >>> from fractions import Fraction
    >>> keep_all = lambda D: {D: Fraction(1)}        # no suppression: ε^S = ε
    >>> r = bounds.suppression_bound(keep_all, ["a", "b"], 2, epsilon=1.0, delta=0)
    >>> round(r.epsilon, 12), r.cases > 0
    (1.0, True)
    """

    epsilon: float
    delta: Any
    exp_epsilon: Fraction
    worst_case: WorstCase | None
    lower_bound: float
    exp_lower_bound: Fraction
    keep_probability: Fraction
    cases: int


def _to_fraction(x: Any, what: str) -> Fraction:
    if isinstance(x, (Fraction, int)) and not isinstance(x, bool):
        return Fraction(x)
    if isinstance(x, Rational):
        return Fraction(x.numerator, x.denominator)
    try:
        f = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{what} = {x!r} is not a number") from None
    if not math.isfinite(f):
        raise ValueError(f"{what} = {x!r} must be finite")
    return Fraction(f)


def _is_exact(x: Any) -> bool:
    return isinstance(x, (Fraction, int, Rational)) and not isinstance(x, bool)


def _exp_bounds(epsilon: float) -> tuple[Fraction, Fraction]:
    """Rationals F_lo ≤ e^ε ≤ F_hi (mpmath at 80 digits, widened by 2^-200 relative)."""
    import mpmath as mp

    with mp.workdps(80):
        man, exp = mp.exp(mp.mpf(epsilon)).man_exp
    x = Fraction(man) * (Fraction(2) ** exp)
    return x * (1 - Fraction(1, 2 ** 200)), x * (1 + Fraction(1, 2 ** 200))


def _log_rounded(x: Fraction, up: bool) -> float:
    """ln x as the nearest double on the requested side (decided at 60 digits)."""
    import mpmath as mp

    with mp.workdps(60):
        exact = mp.log(mp.mpf(x.numerator) / x.denominator)
        f = float(exact)
        if up:
            while mp.mpf(f) < exact:
                f = math.nextafter(f, math.inf)
        else:
            while mp.mpf(f) > exact:
                f = math.nextafter(f, -math.inf)
    return f


def _distribution(algorithm: Callable, D: tuple, exact: list) -> dict:
    out = algorithm(D)
    if not isinstance(out, dict):
        raise ValueError(f"suppression_bound: algorithm({D!r}) must return a dict {{kept sub-tuple: probability}}")
    dist: dict = {}
    total = Fraction(0)
    for kept, prob in out.items():
        key = tuple(sorted(kept))
        if not set(key) <= set(D) or len(set(key)) != len(key):
            raise ValueError(f"suppression_bound: algorithm({D!r}) keeps {kept!r}, not a sub-database of D")
        if not _is_exact(prob):
            exact[0] = False
        pr = _to_fraction(prob, f"P{{algorithm({D!r}) = {kept!r}}}")
        if pr < 0:
            raise ValueError(f"suppression_bound: negative probability {prob!r} for algorithm({D!r}) = {kept!r}")
        if pr:
            dist[key] = dist.get(key, Fraction(0)) + pr
        total += pr
    tolerance = 0 if exact[0] else Fraction(1, 10 ** 9)
    if abs(total - 1) > tolerance:
        raise ValueError(f"suppression_bound: probabilities of algorithm({D!r}) sum to {float(total)!r}, not 1")
    return dist


def case_ratios(dist_D: dict, dist_Dy: dict, D: tuple, y: Hashable, F: Fraction):
    """For one (D, y): (max_C (b + F c)/a, its C, min_C (b + c/F)/a, its C, P{y ∈ S(D₊y)}, violation).

    ``violation`` is None or the first C breaking the support condition (a_C > 0 ⇔ b_C + c_C > 0)."""
    hi, hi_c, lo, lo_c = None, None, None, None
    keep_y = sum((p for kept, p in dist_Dy.items() if y in kept), Fraction(0))
    for size in range(len(D) + 1):
        for C in itertools.combinations(D, size):
            a = dist_D.get(C, 0)
            b = dist_Dy.get(C, 0)
            c = dist_Dy.get(tuple(sorted(C + (y,))), 0)
            if (a > 0) != (b + c > 0):
                return None, None, None, None, keep_y, (C, a, b, c)
            if a == 0:
                continue
            up = (b + F * c) / a
            down = (b + c / F) / a
            if hi is None or up > hi:
                hi, hi_c = up, C
            if lo is None or down < lo:
                lo, lo_c = down, C
    return hi, hi_c, lo, lo_c, keep_y, None


@refuses_dask
def suppression_bound(algorithm: Callable[[tuple], dict], universe: Iterable[Hashable], max_size: int,
                      epsilon: float | None = None, delta: Any = 0, *,
                      exp_epsilon: Any = None, max_cases: int = MAX_CASES_BOUND) -> SuppressionBound:
    r"""Exact ε^S, δ^S of SPEC T13 for a user-supplied probabilistic suppression on a finite universe.

    Returns an upper bound on the (ε^S, δ^S) of Theorem 5.3 over every database with |D| < ``max_size``
    (exact rationals where the inputs are exact; ε^S rounded up), or raises.

    .. math::

        \varepsilon_{D',D} = \ln\max_{C}\frac{b_C + e^{\varepsilon} c_C}{a_C},\quad
        \varepsilon_{D,D'} = -\ln\min_{C}\frac{b_C + e^{-\varepsilon} c_C}{a_C},\quad
        \varepsilon^{\mathcal{S}} = \sup_{D,y}\max(\varepsilon_{D',D}, \varepsilon_{D,D'}),

        \delta^{\mathcal{S}} = \delta\,\sup_{D,y}\max\Bigl(P\{y \in S(D_{+y})\},
        \sum_C \bigl(a_C - e^{\varepsilon^{\mathcal{S}}} b_C\bigr)_+\Bigr)

    with a_C = P{S(D) = C}, b_C = P{S(D₊y) = C}, c_C = P{S(D₊y) = C₊y} for C ⊆ D, and the support condition
    C ∈ supp S(D) ⇔ C ∈ supp S(D₊y) or C₊y ∈ supp S(D₊y).  Every D with |D| < max_size, every y ∉ D and
    every C ⊆ D are enumerated: the result is the theorem's bound for databases of those sizes (a lower
    bound on the supremum over all sizes).  Prop B.8's lower bound
    ε^S ≥ ln(1 + (e^ε − 1)·sup P{y ∈ S(D₊y)}) is returned too.  Poisson sampling (keep each record with
    probability p) gives exactly T1: e^{ε^S} = 1 + p(e^ε − 1), δ^S = pδ.

    Relation: add/remove.  Provenance: *derived* — Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26,
    Thm 5.3 (from the Li et al. proof); lower bound Prop B.8 / Cor B.13.

    Parameters
    ----------
    algorithm : callable
        ``algorithm(D)`` → dict {kept sorted sub-tuple of D: probability}; ``Fraction`` probabilities give
        exact results, floats are converted exactly (their sum must be 1 within 1e-9).
    universe : iterable
        Finite universe of distinct, orderable records.
    max_size : int
        Databases D with |D| < max_size are enumerated (D₊y has at most max_size records).
    epsilon : float, optional
        ε of the base mechanism (finite, 0 ≤ ε ≤ 10⁴).  e^ε is bracketed by rationals, so ε^S is still an
        upper bound.
    delta : Fraction, int or float
        δ of the base mechanism, in [0, 1].
    exp_epsilon : Fraction or int, optional
        e^ε given exactly (≥ 1) instead of ``epsilon``: every result is then an exact rational.
    max_cases : int
        Largest enumeration allowed (number of (D, y) pairs, counted before anything runs); default 4,096.
        Above it a ``ValueError`` names the count; raise it knowingly (the time grows with the count and
        the size of each output distribution).

    Returns
    -------
    SuppressionBound

    Raises
    ------
    ValueError
        If the support condition fails (the message names D, y, C and the three probabilities: Thm 5.3 then
        gives no guarantee), an algorithm output is not a distribution over sub-databases, or a parameter is
        invalid.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import itertools, bounds
    >>> def poisson(D, p=Fraction(1, 3)):
    ...     return {C: p ** len(C) * (1 - p) ** (len(D) - len(C))
    ...             for k in range(len(D) + 1) for C in itertools.combinations(D, k)}
    >>> r = bounds.suppression_bound(poisson, range(3), 3, delta=Fraction(1, 100), exp_epsilon=Fraction(3))
    >>> r.exp_epsilon, r.delta
    (Fraction(5, 3), Fraction(1, 300))
    """
    if (epsilon is None) == (exp_epsilon is None):
        raise ValueError("suppression_bound: give exactly one of epsilon and exp_epsilon")
    # cheap checks first: nothing is expanded to a rational before the arguments are known to be sane
    elements, dbs = _databases("suppression_bound", universe, max_size, max_cases)
    if epsilon is not None:
        e = real("suppression_bound", "epsilon", epsilon, "(SPEC T13)")
        if np.ndim(e) != 0:
            raise ValueError(f"suppression_bound: epsilon must be a single number, got shape {np.shape(e)} "
                             "(SPEC T13)")
        e = float(e)
        if not (e >= 0) or math.isinf(e):
            raise ValueError(f"suppression_bound: epsilon = {e!r} must be finite and ≥ 0 (SPEC T13)")
        if e > MAX_EPSILON:
            raise ValueError(f"suppression_bound: epsilon = {e!r} exceeds {MAX_EPSILON:g}: the exact evaluator "
                             f"expands e^ε to a rational of about {1.4427 * e:.3g} bits (SPEC T13)")
    exact = [True]
    if exp_epsilon is not None:
        if not _is_exact(exp_epsilon):
            exact[0] = False
        F = _to_fraction(exp_epsilon, "exp_epsilon")
        if F < 1:
            raise ValueError(f"suppression_bound: exp_epsilon = {exp_epsilon!r} must be ≥ 1 (SPEC T13)")
        F_lo = F_hi = F
    else:
        F_lo, F_hi = (Fraction(1), Fraction(1)) if e == 0 else _exp_bounds(e)
        exact[0] = e == 0
    if not _is_exact(delta):
        exact[0] = False
    d = _to_fraction(delta, "delta")
    if not 0 <= d <= 1:
        raise ValueError(f"suppression_bound: delta = {delta!r} must lie in [0, 1] (SPEC T13)")
    dists: dict = {}

    def dist(D):
        if D not in dists:
            dists[D] = _distribution(algorithm, D, exact)
        return dists[D]

    pairs = [(D, y) for D in dbs if len(D) < max_size for y in elements if y not in D]
    E_hi, worst, keep_max = Fraction(1), None, Fraction(0)
    for D, y in pairs:
        Dy = tuple(sorted(D + (y,)))
        hi, hi_c, lo, lo_c, keep_y, violation = case_ratios(dist(D), dist(Dy), D, y, F_hi)
        if violation is not None:
            C, a, b, c = violation
            raise ValueError(f"suppression_bound: the support condition of SPEC T13 (Thm 5.3) fails at D = {D!r}, "
                             f"y = {y!r}, C = {C!r}: P{{S(D)=C}} = {a}, P{{S(D+y)=C}} = {b}, "
                             f"P{{S(D+y)=C+y}} = {c} (C must be a possible output of S(D) exactly when C or "
                             "C+y is one of S(D+y)); the theorem gives no guarantee for this algorithm")
        keep_max = max(keep_max, keep_y)
        if hi is not None and hi > E_hi:
            E_hi, worst = hi, WorstCase(D, y, hi_c, "D' vs D", hi)
        if lo is not None and 1 / lo > E_hi:
            E_hi, worst = 1 / lo, WorstCase(D, y, lo_c, "D vs D'", 1 / lo)
    # δ^S with e^{ε^S} bracketed from below (a smaller e^{ε^S} only enlarges the (a − e^{ε^S} b)₊ terms)
    E_lo = E_hi if F_lo == F_hi else _exp_with(F_lo, pairs, dist)
    mass = Fraction(0)
    for D, y in pairs:
        Dy = tuple(sorted(D + (y,)))
        a_dist, b_dist = dist(D), dist(Dy)
        s = sum((max(a - E_lo * b_dist.get(C, 0), 0) for C, a in a_dist.items()), Fraction(0))
        mass = max(mass, s)
    delta_s = d * max(keep_max, mass)
    exp_lower = 1 + (F_lo - 1) * keep_max
    return SuppressionBound(
        epsilon=_log_rounded(E_hi, up=True),
        delta=delta_s if exact[0] else _float_up(delta_s),
        exp_epsilon=E_hi,
        worst_case=worst,
        lower_bound=_log_rounded(exp_lower, up=False),
        exp_lower_bound=exp_lower,
        keep_probability=keep_max,
        cases=len(pairs),
    )


def _exp_with(F: Fraction, pairs, dist) -> Fraction:
    E = Fraction(1)
    for D, y in pairs:
        Dy = tuple(sorted(D + (y,)))
        hi, _, lo, _, _, _ = case_ratios(dist(D), dist(Dy), D, y, F)
        if hi is not None:
            E = max(E, hi, 1 / lo)
    return E


def _float_up(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


# ---------------------------------------------------------------------------------------------- T14
@supports_dask(pair=True)
def outlier_score_suppression(epsilon: ArrayLike, delta: ArrayLike, m: ArrayLike, M: ArrayLike) -> Guarantee:
    r"""Privacy of an (ε, δ)-DP mechanism run after outlier-score suppression (SPEC T14).

    Returns an upper bound on (ε^S, δ^S), rounded up (never below the exact value), or raises.

    .. math::

        \varepsilon^{\mathcal{S}} = \max\Bigl\{\max_{p\in[0,1]}\Lambda_1(p),\ \max_{p\in[0,1]}\Lambda_2(p),\
        \Lambda_3\Bigr\}, \qquad \delta^{\mathcal{S}} = (1 - m)\,\delta,

        \Lambda_1(p) = \ln(F - (F-1)s_1) + \frac{pM}{m} + \frac{(1-p)(1-m)}{1-s_1} - 1,\quad s_1 = pM + (1-p)m,

        \Lambda_2(p) = \ln(F - (F-1)s_2) + \frac{pM}{m} + \frac{(1-p)(1-B)}{1-M} - 1,\quad
        B = \frac{M + m - pM}{2 - p},\ s_2 = pM + (1-p)B,

        \Lambda_3 = -\ln\bigl(e^{-\varepsilon} + (1 - e^{-\varepsilon})M\bigr) + 1 - \frac{1-M}{1-m},
        \qquad F = e^{\varepsilon}.

    The suppression: d a **metric** on the data universe with values in [0, 1], T(x, y) = m + (M − m)d(x, y),
    out_D(x) = (1/|D|)Σ_{y∈D} T(x, y), and each record x is deleted independently with probability out_D(x).

    **The distance must be a metric** (a pseudometric is fine): the proof bounds how much adding a record y
    changes every out_D(x) through the triangle inequality d(x, x') ≤ d(x, y) + d(y, x').  Without it the
    bound is false — at (ε, m, M) = (2, 0.6, 0.95) a non-metric "distance" (records pairwise at distance 1,
    the added record at distance 0 from all of them) reaches an exact ε of 8.10 against ε^S = 4.39
    (reproduced in ``proofs_checks.suppression_checks``).  The library cannot check the metric for you.

    The inner maxima are taken over p ∈ {0, 1, real roots in (0, 1) of the cubic numerators of dΛᵢ/dp},
    derived symbolically from the Λᵢ.  ε^S(0, m, M) > 0 for m < M is an artifact of the bound (a 0-DP
    mechanism stays 0-DP).  m = M is Poisson sampling with p = 1 − m (T1) exactly.

    Relation: add/remove.  Provenance: *recovered* — formula recovered from the authors' code
    (Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26, Thm 5.4 and Prop B.10).  Tight as |D| → ∞ when
    the maximum sits at p ∈ {0, 1} or at Λ3; possibly loose for interior p.

    Parameters
    ----------
    epsilon : array_like
        ε of the base mechanism, in [0, inf].
    delta : array_like
        δ of the base mechanism, in [0, 1].
    m, M : array_like
        Smallest and largest deletion probabilities, 0 < m ≤ M < 1.

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a parameter is NaN, outside its domain (m ≤ 0, M ≥ 1, ε < 0, …) or m > M.

    Examples
    --------
    >>> import bounds
    >>> g = bounds.outlier_score_suppression(2.0, 1e-6, 0.6, 0.95)
    >>> round(g.epsilon, 6), round(g.delta, 12)
    (4.390988, 4e-07)
    >>> bounds.outlier_score_suppression(0.0, 0.0, 0.1, 0.9).epsilon >= 8.0
    True
    """
    g = guarantee("outlier_score_suppression", "T14", epsilon=epsilon, delta=delta, m=m, M=M)
    # δ^S = (1 − m)δ ≤ 1 exactly, but rounding 1 − m (= 1 for m < 2⁻⁵⁴) and then the product upward can step
    # past 1 (m = 1e-17, δ = 1 gave 1.0000000000000007); every mechanism is (ε, 1)-DP, so capping is sound.
    return Guarantee(g.epsilon, min(g.delta, 1.0) if isinstance(g.delta, float) else np.minimum(g.delta, 1.0))


@supports_dask(pair=True)
def outlier_score_suppression_inverse(epsilon: ArrayLike, delta: ArrayLike, m: ArrayLike,
                                      M: ArrayLike) -> Guarantee:
    r"""Base budget (ε'', δ'') whose outlier-score-suppressed guarantee (T14) is within the target (ε, δ).

    Returns a base budget rounded *down* — ``outlier_score_suppression(ε'', δ'', m, M)`` never exceeds the
    target, so calibrating noise to it is safe — or raises.

    .. math::

        \varepsilon^{\mathcal{S}}(\varepsilon'', m, M) \le \varepsilon, \qquad \delta'' = \frac{\delta}{1 - m}

    ε'' is found by bisection on the strictly increasing map ε'' ↦ ε^S(ε'', m, M), each candidate verified
    with the upward-rounded forward map (so every returned value is valid).  m = M gives
    ε'' = ln((e^ε − m)/(1 − m)), the T1 inverse at p = 1 − m.  The same metric requirement as
    :func:`outlier_score_suppression` applies.  SPEC T14 (inverse); relation add/remove; provenance
    *recovered* (Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26, Thm 5.4, Prop B.10).

    Parameters
    ----------
    epsilon, delta : array_like
        Target guarantee of M∘S, ε ∈ [0, inf], δ ∈ [0, 1].
    m, M : array_like
        0 < m ≤ M < 1.

    Returns
    -------
    Guarantee
        The base budget.

    Raises
    ------
    ValueError
        If ε < ε^S(0, m, M) (no base budget reaches the target: the suppression alone costs more), if
        δ/(1 − m) > 1, or a parameter is NaN, outside its domain, or m > M.

    Examples
    --------
    >>> import bounds
    >>> base = bounds.outlier_score_suppression_inverse(3.0, 1e-6, 0.1, 0.2)
    >>> bounds.outlier_score_suppression(*base, 0.1, 0.2).epsilon <= 3.0
    True
    """
    name = "outlier_score_suppression_inverse"
    scalar = is_scalar(epsilon, delta, m, M)
    arrays = validate(name, "T14", epsilon=epsilon, delta=delta, m=m, M=M)
    target_eps, target_delta, lo, hi = arrays["epsilon"], arrays["delta"], arrays["m"], arrays["M"]
    c = 1.0 - lo
    exact_gap = (1.0 - c) - lo  # Fast2Sum: 1 − m = c + exact_gap exactly
    too_big = (target_delta - c) > exact_gap
    if too_big.any():
        i = tuple(np.argwhere(too_big)[0])
        raise ValueError(f"{name}: delta = {float(target_delta[i])!r} needs a base δ'' = δ/(1 − m) = "
                         f"{float(target_delta[i] / c[i])!r} > 1 at m = {float(lo[i])!r}: no base mechanism reaches it (SPEC T14)")
    floor = evaluate("T14", "epsilon", {"epsilon": np.zeros_like(target_eps), "delta": target_delta, "m": lo, "M": hi})
    below = target_eps < floor
    if below.any():
        i = tuple(np.argwhere(below)[0])
        raise ValueError(f"{name}: epsilon = {float(target_eps[i])!r} is below ε^S(0, m, M) = {float(floor[i])!r} at "
                         f"m = {float(lo[i])!r}, M = {float(hi[i])!r} (rounded up): even a 0-DP base mechanism is not shown "
                         "to reach it; the bound's cost of suppression alone exceeds the target (SPEC T14)")
    base_eps = evaluate("T14", "epsilon_base", arrays)
    base_delta = evaluate("T14", "delta_base", arrays)
    # shrink δ'' until the library's own (upward-rounded) forward δ^S fits the target too
    for step in range(60):
        forward = evaluate("T14", "delta", {"epsilon": base_eps, "delta": base_delta, "m": lo, "M": hi})
        over = forward > target_delta
        if not over.any():
            break
        base_delta[over] = np.maximum(base_delta[over] * (1.0 - 2.0 ** (step - 52)), 0.0)
    return Guarantee(as_output(base_eps, scalar), as_output(base_delta, scalar))
