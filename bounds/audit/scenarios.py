"""Built-in audit scenarios: a neighbouring pair, a procedure, an ε-DP mechanism and the certified claim, each
designed so that the audit has a known answer (self-tests) or so that a known implementation mistake of the
procedure shows up as a refutation.

Self-tests with known answers (SYSTEMS §2, SPEC T1, T2, T14):

- ``poisson-rr``: Poisson sampling + randomized response on "the added record is in the sample"; the exact
  ε of the pair equals ln(1 + p(e^ε − 1)) (T1 is tight; p the sampler's exact keep probability; up to the
  < 10⁻¹⁵ by which the mechanism's exact flip probability, rounded up to a double, lowers its ε);
- ``swor-rr``: sampling m of n without replacement, substitution neighbours, randomized response on "the
  substituted record is in the sample"; exact ε = ln(1 + (m/n)(e^ε − 1)) (T2 is tight; same proviso);
- ``suppression-copies``: outlier-score suppression on N copies of x and one y at distance 1 (the family that
  attains Λ1(1) of Theorem 5.4 as N → ∞; adding y raises every copy's deletion probability), mechanism
  S + Z with S = 𝟙[y kept] − #(copies kept): its upper tail weighs "few copies kept, y kept";
- ``suppression-star``: y the centre of a star whose N leaves are pairwise at distance 1 and at distance 1/2
  from y (the family of Λ2(0): adding y lowers every leaf's deletion probability), mechanism S + Z with
  S = #(records kept).

For the suppression self-tests the exact ε of the pair is computed; as N grows it tends to a closed form
(the builders' docstrings) below Λ1(1) resp. Λ2(0) ≤ ε^S — the theorem is a supremum over all pairs and all
(ε, 0)-DP mechanisms, and the noisy count reaches it only as ε → ∞ — and a Monte Carlo bound must stay below
the exact value.

Scenarios that catch implementation mistakes (each refutes the buggy procedure and passes the correct one;
the designs are in the docstrings of the builders):

- ``normalisation``: scores from distances divided by the data's own range (SYSTEMS §1.4 erratum 6);
- ``self-exclusion``: the sum of out_D(x) skips y = x;
- ``recompute``: scores recomputed after each deletion;
- ``fixed-size``: a "Poisson" sampler that draws a batch of fixed size round(p·n).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np

from .._core import Guarantee
from ..procedures._bernoulli import bernoulli
from ..procedures._checks import count, probability
from ._checks import real
from .exact import exact_audit
from .mechanisms import NoisyCount, RandomizedResponse
from .monte_carlo import monte_carlo_audit
from .result import AuditResult

__all__ = ["Scenario", "SCENARIOS", "scenario", "poisson_rr", "swor_rr", "suppression_copies",
           "suppression_star", "normalisation", "self_exclusion", "recompute", "fixed_size", "star_metric"]


@dataclass(frozen=True)
class Scenario:
    """A neighbouring pair, a procedure (as code and, where its records are kept independently, as keep
    probabilities), an ε-DP mechanism, and the certified claim for procedure ∘ mechanism.

    ``expected`` is the exact ε of the pair when the scenario has a closed-form answer (``None`` otherwise).
    """

    name: str
    description: str
    dataset_0: Any
    dataset_1: Any
    mechanism: Any
    claim: Guarantee
    procedure: Callable
    output: str = "mask"
    keep_probabilities: Callable | None = None
    expected: float | None = None
    relation: str = "add/remove"
    parameters: dict = field(default_factory=dict)
    # (procedure, twin): the library's own procedure and its batched twin ``(data, rng, size)`` → (size, n)
    # keep masks (also for ``output="indices"``: a mask marks the same records), rows bit-identical to ``size``
    # consecutive ``procedure`` calls and the same generator state after them; None for an implementation
    # under test.  Used only while ``procedure`` is that very procedure (``dataclasses.replace`` with another
    # procedure audits the other one, call by call).
    _batched: tuple | None = field(default=None, repr=False, compare=False)

    def exact(self) -> AuditResult:
        """The exact audit (needs ``keep_probabilities``)."""
        if self.keep_probabilities is None:
            raise ValueError(f"scenario {self.name!r}: no exact audit (its procedure does not keep records "
                             "independently); use monte_carlo()")
        return exact_audit(self.keep_probabilities, self.mechanism, self.dataset_0, self.dataset_1,
                           claim=self.claim, scenario=self.name)

    def monte_carlo(self, trials: int = 100_000, seed: Any = 0, *, confidence: float = 0.95,
                    progress: Callable[[int], None] | None = None, chunk: int = 10_000) -> AuditResult:
        """A Monte Carlo audit of the procedure's code (``trials`` runs per input).

        The library's own procedures run ``chunk`` runs per call (their batched twins: the same procedure, rows
        bit-identical to one call per run, so the result is the one the per-run calls give); an implementation
        under test (``sampler=``, ``scores=``, ``suppressor=``) is called once per run."""
        twin = self._batched[1] if self._batched is not None and self._batched[0] is self.procedure else None
        batched = twin is not None
        return monte_carlo_audit(twin if batched else self.procedure, self.mechanism, self.dataset_0,
                                 self.dataset_1, claim=self.claim, trials=trials, seed=seed, confidence=confidence,
                                 output="mask" if batched else self.output, batched=batched, progress=progress,
                                 chunk=chunk, scenario=self.name)


def _ln1p_scaled(p: Any, epsilon: float) -> float:
    """ln(1 + p(e^ε − 1)) in mpmath, rounded to nearest (the tight T1/T2 value, a reference only)."""
    with mpmath.workdps(50):
        q = mpmath.mpf(p.numerator) / p.denominator if isinstance(p, Fraction) else mpmath.mpf(p)
        return float(mpmath.log1p(q * mpmath.expm1(mpmath.mpf(epsilon))))


def _indicator(value: float) -> Callable:
    return lambda d: (np.asarray(d) == value).astype(np.int64)


# ------------------------------------------------------------------------------------------- samplers
def poisson_rr(epsilon: float = 1.0, rate: float = 0.1, n: int = 100, *,
               sampler: Callable | None = None) -> Scenario:
    """Poisson sampling at ``rate`` + randomized response on the membership of the added record (T1, tight).

    D₀ = n − 1 records 0, D₁ = D₀ + one record 1; ``sampler(data, rate, rng=rng)`` → keep mask (default
    :func:`bounds.procedures.poisson_sample`)."""
    from ..procedures import effective_rate, poisson_guarantee, poisson_sample
    from ..procedures.sampling import _poisson_sample_rows

    sample = poisson_sample if sampler is None else sampler
    run = lambda d, rng: sample(d, rate, rng=rng)  # noqa: E731
    rows = None if sampler is not None else (run, lambda d, rng, size: _poisson_sample_rows(d, rate, rng, size))
    n = count("poisson_rr", "n", n, minimum=2)
    p = effective_rate(rate)
    d0 = np.zeros(n - 1)
    return Scenario(
        "poisson-rr", "Poisson sampling + randomized response on the added record's membership (T1, tight)",
        d0, np.r_[d0, 1.0], RandomizedResponse(epsilon, weights=_indicator(1.0)),
        poisson_guarantee(epsilon, 0.0, rate), run,
        keep_probabilities=lambda d: np.full(len(d), p), expected=_ln1p_scaled(p, epsilon),
        parameters={"epsilon": epsilon, "rate": rate, "n": n}, _batched=rows)


def swor_rr(epsilon: float = 1.0, m: int = 10, n: int = 100, *, sampler: Callable | None = None) -> Scenario:
    """m of n without replacement + randomized response on the substituted record's membership (T2, tight).

    Substitution neighbours: D₀ = n records 0, D₁ = D₀ with its last record replaced by 1.  The exact audit
    uses the marginal m/n (exact here: the mechanism reads one record only)."""
    import bounds
    from ..procedures import sample_without_replacement
    from ..procedures.sampling import _sample_without_replacement_rows

    sample = sample_without_replacement if sampler is None else sampler
    run = lambda d, rng: sample(d, m, rng=rng)  # noqa: E731
    n = count("swor_rr", "n", n, minimum=1)
    m = count("swor_rr", "m", m)
    if m > n:
        raise ValueError(f"swor_rr: m = {m} must be ≤ n = {n}")
    d0 = np.zeros(n)
    d1 = d0.copy()
    d1[-1] = 1.0
    return Scenario(
        "swor-rr", "sampling without replacement + randomized response on the substituted record (T2, tight)",
        d0, d1, RandomizedResponse(epsilon, weights=_indicator(1.0)),
        bounds.without_replacement(epsilon, 0.0, m, n), run, output="indices",
        keep_probabilities=lambda d: [Fraction(m, n)] * len(d), expected=_ln1p_scaled(Fraction(m, n), epsilon),
        relation="substitution", parameters={"epsilon": epsilon, "m": m, "n": n},
        _batched=None if sampler is not None else (run, lambda d, rng, size: _sample_without_replacement_rows(
            d, m, rng, size)))


# ----------------------------------------------------------------------------------------- suppression
def _suppression(name: str, description: str, d0: Any, d1: Any, metric: Any, m: float, M: float,
                 mechanism: Any, epsilon: float, scores: Callable | None, suppressor: Callable | None,
                 parameters: dict) -> Scenario:
    """A suppression scenario; ``scores(data, metric, m, M)`` (default the library's ``outlier_scores``) gives
    the exact audit, ``suppressor(data, metric, m, M, rng)`` → keep mask (default: delete independently with
    probability ``scores``, exactly as ``suppress_outliers`` does; ``suppress_outliers`` itself when neither
    is given) the Monte Carlo one."""
    import bounds
    from ..procedures import outlier_scores, suppress_outliers
    from ..procedures.suppression import _suppress_outliers_rows

    rows = None
    if scores is None and suppressor is None:
        score_fn: Callable | None = outlier_scores
        run = lambda d, rng: suppress_outliers(d, metric, m, M, rng=rng).keep  # noqa: E731
        rows = (run, lambda d, rng, size: _suppress_outliers_rows(d, metric, m, M, rng, size))
    else:
        score_fn = scores
        if suppressor is not None:
            run = lambda d, rng: suppressor(d, metric, m, M, rng)  # noqa: E731
        else:
            run = lambda d, rng: _delete_with_scores(name, scores(d, metric, m, M), len(d), rng)  # noqa: E731
    # keep = 1 − score exactly (a float subtraction could round the probability the wrong way)
    keep = None if score_fn is None else (lambda d: [1 - Fraction(float(x)) for x in score_fn(d, metric, m, M)])
    return Scenario(name, description, d0, d1, mechanism, bounds.outlier_score_suppression(epsilon, 0.0, m, M),
                    run, keep_probabilities=keep, parameters={"epsilon": epsilon, "m": m, "M": M, **parameters},
                    _batched=rows)


def _delete_with_scores(name: str, scores: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """The keep mask of T14's deletion step for given scores: each record deleted independently with
    probability exactly its score (as a double — the value the exact audit's keep probabilities 1 − score are
    taken from), by the exact Bernoulli draws of ``suppress_outliers``."""
    function = f"scenario {name!r}"
    s = np.asarray(probability(function, "scores(data)", np.asarray(scores, dtype=np.float64)))
    if s.shape != (n,):
        raise ValueError(f"{function}: scores(data) must return one score per record (shape ({n},)), got shape "
                         f"{s.shape}")
    return ~bernoulli(s, n, rng)


def suppression_copies(epsilon: float = 1.0, m: float = 0.1, M: float = 0.5, copies: int = 20, *,
                       scores: Callable | None = None, suppressor: Callable | None = None) -> Scenario:
    """N copies of x = 0 and y = 1 at distance 1 (``AbsoluteDifference(0, 1)``), mechanism S + Z with
    S = 𝟙[y kept] − #(copies kept).  Adding y raises each copy's deletion probability from m to
    m + (M − m)/(N + 1): the family that attains Λ1(1) = ln(F − (F − 1)M) + M/m − 1 of T14 as N → ∞.
    Known answer: the exact ε of the pair is the upper tail's ratio of moment generating functions and rises,
    with a gap O(1/N), to L = ln(M + (1 − M)F) + (M − m)(F − 1)/(mF + 1 − m) ≤ Λ1(1) (F = e^ε; equal as
    F → ∞): the noisy count is one mechanism, the theorem a supremum over all of them."""
    from ..procedures import AbsoluteDifference

    d0 = np.zeros(count("suppression_copies", "copies", copies, minimum=1))
    mech = NoisyCount(epsilon, weights=lambda d: np.where(np.asarray(d) == 1.0, 1, -1))
    return _suppression("suppression-copies", "outlier-score suppression, N copies of x and one y at distance 1",
                        d0, np.r_[d0, 1.0], AbsoluteDifference(0.0, 1.0), m, M, mech, epsilon, scores, suppressor,
                        {"copies": copies})


def star_metric() -> Any:
    """The star metric on {0, 1, 2, …}: d(0, k) = 1/2, d(j, k) = 1 for leaves j ≠ k ≥ 1, d(x, x) = 0
    (a tree metric: the triangle inequality holds)."""
    from ..procedures import Metric

    def pairwise(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        a, b = np.asarray(A, dtype=float).reshape(-1)[:, None], np.asarray(B, dtype=float).reshape(-1)[None, :]
        return np.where(a == b, 0.0, np.where((a == 0.0) | (b == 0.0), 0.5, 1.0))

    return Metric(pairwise, bound=1.0, name="star")


def suppression_star(epsilon: float = 1.0, m: float = 0.1, M: float = 0.5, leaves: int = 20, *,
                     scores: Callable | None = None, suppressor: Callable | None = None) -> Scenario:
    """y = 0 the centre of a star with N leaves 1..N (:func:`star_metric`), mechanism S + Z with S = #kept.
    Adding y lowers each leaf's deletion probability (its score moves from m + (M − m)(N − 1)/N towards
    M − (M − m)/2 · 3/(N + 1)): the family of Λ2(0) = ln(F − (F − 1)B) + (M − m)/(2(1 − M)), B = (m + M)/2,
    which it attains as N → ∞ for the event "every leaf kept".  Known answer: the exact ε of the pair rises,
    with a gap O(1/N), to L = ln(B + (1 − B)F) + (M − m)(F − 1)/(2(M + (1 − M)F)) ≤ Λ2(0)."""
    d0 = np.arange(1, count("suppression_star", "leaves", leaves, minimum=1) + 1, dtype=float)
    mech = NoisyCount(epsilon)
    return _suppression("suppression-star", "outlier-score suppression, y the centre of a star of N leaves",
                        d0, np.r_[d0, 0.0], star_metric(), m, M, mech, epsilon, scores, suppressor,
                        {"leaves": leaves})


def normalisation(epsilon: float = 1.0, m: float = 0.2, M: float = 0.8, half: int = 20, far: float = 100.0, *,
                  scores: Callable | None = None, suppressor: Callable | None = None) -> Scenario:
    """Catches a data-derived normalisation (distances divided by max(D) − min(D), SYSTEMS §1.4 erratum 6).

    D₀ = ``half`` records 0 and ``half`` records 1; D₁ = D₀ + one record at ``far``; public metric
    ``AbsoluteDifference(0, far)``; mechanism S + Z, S = #(kept records of D₀).  With the public range every
    score of D₀'s records moves by at most (M − m)/(2·half + 1) when the far record arrives.  Normalised by the
    data's range, they sit near (m + M)/2 in D₀ (range 1) and drop to about m in D₁ (range ``far``): all
    2·half records become more likely kept at once, and the privacy loss grows linearly in ``half``
    (exact ε at the defaults ≈ 12 against ε^S(1, 0.2, 0.8) ≈ 3.34)."""
    from ..procedures import AbsoluteDifference

    half = count("normalisation", "half", half, minimum=1)
    far = real("normalisation", "far", far, 1.0, 1e300, lo_open=True)
    d0 = np.r_[np.zeros(half), np.ones(half)]
    mech = NoisyCount(epsilon, weights=lambda d: (np.asarray(d) <= 1.0).astype(np.int64))
    return _suppression("normalisation", "outlier-score suppression; one far record changes the data's range",
                        d0, np.r_[d0, far], AbsoluteDifference(0.0, far), m, M, mech, epsilon, scores, suppressor,
                        {"half": half, "far": far})


def self_exclusion(epsilon: float = 1.0, m: float = 0.4, M: float = 0.5, *, scores: Callable | None = None,
                   suppressor: Callable | None = None) -> Scenario:
    """Catches a score that skips y = x in its sum (out(x) = Σ_{y≠x} T(x, y)/n).

    D₀ = {x = 0}, D₁ = {x, y = 1}, d = 1; mechanism S + Z, S = 𝟙[y kept] − 𝟙[x kept].  The theorem's score
    gives x deletion probability m in D₀, so x's deletion alone moves the output by at most the factor the
    bound allows; skipping the self term gives out_{D₀}(x) = 0 (x never deleted) and out_{D₁} = M/2 for both
    records.  The upper tail ratio is then (qF + 1 − q)(q + (1 − q)F) with q = M/2 (a ratio of moment
    generating functions), ln ≈ 1.19 at the defaults against ε^S(1, 0.4, 0.5) ≈ 0.87; the correct scores give
    ≈ 0.72."""
    from ..procedures import AbsoluteDifference

    mech = NoisyCount(epsilon, weights=lambda d: np.where(np.asarray(d) == 1.0, 1, -1))
    return _suppression("self-exclusion", "outlier-score suppression on {x} vs {x, y}, d(x, y) = 1",
                        np.array([0.0]), np.array([0.0, 1.0]), AbsoluteDifference(0.0, 1.0), m, M, mech, epsilon,
                        scores, suppressor, {})


def recompute(epsilon: float = 3.0, m: float = 0.3, M: float = 0.7, copies: int = 5, *,
              scores: Callable | None = None, suppressor: Callable | None = None) -> Scenario:
    """Catches scores recomputed after each deletion (records visited in order, y last).

    D₀ = N copies of x = 0, D₁ = D₀ + y = 1 (d = 1), mechanism S + Z, S = 𝟙[y kept] − #(copies kept).  With
    scores computed once, y raises each copy's deletion probability by (M − m)/(N + 1).  Recomputed after
    each deletion, the k-th copy sees y's weight 1/(N − d + 1) among the N − d survivors, so deletions
    cascade: P(all copies deleted) grows like Π_j (1 + (M − m)/(m j)) instead of (1 + (M − m)/(m(N+1)))^N.
    At the defaults the exact ε of the cascade is ≈ 3.94 against ε^S(3, 0.3, 0.7) ≈ 3.38 (correct: ≈ 2.95); the
    violation sits in the upper tail {S + Z ≥ 1}, whose probability on D₀ is ≈ 2·10⁻⁴, so a Monte Carlo audit
    needs ≈ 10⁶ runs; the exact audit needs the cascade's distribution (tests/bounds/audit)."""
    return _copies_named("recompute", epsilon, m, M, copies, scores, suppressor)


def _copies_named(name: str, epsilon: float, m: float, M: float, copies: int, scores: Callable | None,
                  suppressor: Callable | None) -> Scenario:
    s = suppression_copies(epsilon, m, M, copies, scores=scores, suppressor=suppressor)
    return Scenario(name, "N copies of x then y at distance 1 (a deletion cascade shows here)", s.dataset_0,
                    s.dataset_1, s.mechanism, s.claim, s.procedure, s.output, s.keep_probabilities, s.expected,
                    s.relation, s.parameters, s._batched)


def fixed_size(epsilon: float = 1.0, rate: float = 0.5, n: int = 10, *, sampler: Callable | None = None
               ) -> Scenario:
    """Catches a "Poisson" sampler that draws a batch of fixed size round(rate·n) (jax_privacy #121).

    D₀ = n − 1 records, D₁ = D₀ + one record, mechanism S + Z with S = #kept.  Under Poisson sampling the
    count is Bin(n − 1, p) vs Bin(n − 1, p) + Bernoulli(p) and T1 holds.  With a fixed size the count is the
    constant round(p(n − 1)) vs round(p·n): at the defaults 4 vs 5 (round half to even), so the outputs are
    4 + Z vs 5 + Z and the privacy loss is the full ε = 1 against T1's ln(1 + 0.5(e − 1)) ≈ 0.620; the event
    {S + Z ≥ 5} has probabilities 0.269 and 0.731, so 10⁴ runs per input refute with a wide margin."""
    s = poisson_rr(epsilon, rate, n, sampler=sampler)
    return Scenario("fixed-size", "Poisson sampling counted: n − 1 vs n records, mechanism = noisy count",
                    s.dataset_0, s.dataset_1, NoisyCount(epsilon), s.claim, s.procedure, s.output,
                    s.keep_probabilities, None, s.relation, s.parameters, s._batched)


SCENARIOS: dict[str, Callable[..., Scenario]] = {
    "poisson-rr": poisson_rr,
    "swor-rr": swor_rr,
    "suppression-copies": suppression_copies,
    "suppression-star": suppression_star,
    "normalisation": normalisation,
    "self-exclusion": self_exclusion,
    "recompute": recompute,
    "fixed-size": fixed_size,
}


def scenario(name: str, **parameters: Any) -> Scenario:
    """The built-in scenario ``name`` (see the module docstring), with its builder's keyword parameters.

    Parameters
    ----------
    name : str
        One of ``SCENARIOS``.
    **parameters
        Keyword parameters of the builder (ε of the mechanism, rates, sizes; ``scores``/``suppressor`` or
        ``sampler`` to audit another implementation).

    Returns
    -------
    Scenario

    Raises
    ------
    ValueError
        For an unknown name or a parameter outside its domain.

    Examples
    --------
    >>> from bounds.audit import scenario
    >>> r = scenario("poisson-rr").exact()
    >>> r.verdict, abs(r.epsilon - scenario("poisson-rr").expected) < 1e-12
    ('not refuted', True)
    """
    try:
        builder = SCENARIOS[name]
    except (KeyError, TypeError):
        raise ValueError(f"scenario: {name!r} is not a built-in scenario (one of {', '.join(SCENARIOS)})") from None
    return builder(**parameters)
