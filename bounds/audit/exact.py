"""Exact audits: the exact output distribution of procedure ∘ mechanism on two neighbouring inputs, and the
exact privacy profile δ(ε) of that pair — no sampling error, no truncation of the noise support.

The procedure enters through its keep probabilities: every procedure of SYSTEMS §1.1 keeps each record
independently (Poisson sampling with rate p: keep probability p; outlier-score suppression: 1 − out_D(x)), so
``keep_probabilities(data)`` (e.g. the exact complements ``1 − Fraction(s)`` of ``outlier_scores(data,
metric, m, M)``, the implementation's own scores) determines the distribution of the kept multiset.  The
weighted count S = Σ_{kept} w(x) then has an exact Poisson-binomial distribution (records grouped by (weight,
probability), binomial pmfs convolved), and the mechanism's output distribution follows exactly, geometric
tails in closed form (:meth:`NoisyCount.output_pmf`).  A procedure whose records are not kept independently
(a fixed-size batch, scores recomputed after each deletion) is audited by Monte Carlo instead, or through the
pmfs of its statistic (:func:`exact_epsilon`, :func:`privacy_profile`) computed from a model of it.

Arithmetic: mpmath at 50 digits; the probabilities' relative error is below 1e-40, and a refutation is reported
only when the exact δ at the claimed ε exceeds the claimed δ by more than 1e-30 (absolute), so rounding cannot
create one.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np

from .mechanisms import NoisyCount, check_mechanism, weights_of
from .result import AuditResult, claim_of

__all__ = ["statistic_pmf", "privacy_profile", "exact_epsilon", "exact_audit"]

_DPS = 50
_MARGIN = mpmath.mpf("1e-30")


def _binomial_pmf(g: int, p: Any) -> list:
    """[P(Bin(g, p) = j) for j = 0..g] in mpmath."""
    q = 1 - p
    if p == 0:
        return [mpmath.mpf(1)] + [mpmath.mpf(0)] * g
    if q == 0:
        return [mpmath.mpf(0)] * g + [mpmath.mpf(1)]
    out = [q ** g]
    ratio = p / q
    for j in range(g):                        # P(j + 1) = P(j)·(g − j)/(j + 1)·p/q (no under/overflow in mpmath)
        out.append(out[-1] * (g - j) / (j + 1) * ratio)
    return out


def _exact(function: str, x: Any) -> Fraction:
    """A probability as an exact rational (floats, ints, numpy numbers and Fractions; NaN/inf refused)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, Fraction, np.integer, np.floating)):
        raise TypeError(f"{function}: probability {x!r} is not a real number")
    if isinstance(x, (float, np.floating)) and not np.isfinite(x):
        raise ValueError(f"{function}: keep probability {x!r} is outside [0, 1] (the procedure's scores are not "
                         f"probabilities)")
    f = Fraction(x) if not isinstance(x, np.floating) else Fraction(float(x))
    if not 0 <= f <= 1:
        raise ValueError(f"{function}: keep probability {float(f)!r} is outside [0, 1] (the procedure's scores "
                         f"are not probabilities)")
    return f


def statistic_pmf(keep_probabilities: Any, weights: Any) -> dict[int, Any]:
    """Exact pmf of S = Σ_i w_i B_i, B_i ~ Bernoulli(keep_probabilities[i]) independent, w_i ∈ {−1, 0, 1}.

    Probabilities may be floats or ``Fraction``s (e.g. ``1 - Fraction(score)``, exact); each is taken as an exact
    rational.  Returns a dict {s: P(S = s)} (mpmath numbers; call inside ``mpmath.workdps``)."""
    p = [_exact("statistic_pmf", x) for x in np.asarray(keep_probabilities, dtype=object).reshape(-1)]
    w = np.asarray(weights, dtype=np.int64)
    if np.ndim(keep_probabilities) != 1 or w.shape != (len(p),):
        raise ValueError("statistic_pmf: keep_probabilities and weights must be 1-D of equal length")
    pmf: dict[int, Any] = {0: mpmath.mpf(1)}
    for (wi, pi), g in sorted(Counter(zip(w.tolist(), p)).items()):
        if wi == 0:
            continue
        group = _binomial_pmf(g, mpmath.mpf(pi.numerator) / pi.denominator)
        new: dict[int, Any] = {}
        for s, ps in pmf.items():
            for j, pj in enumerate(group):
                if pj:
                    key = s + wi * j
                    new[key] = new.get(key, 0) + ps * pj
        pmf = new
    return pmf


def _grid(mech: Any, pmf_0: dict, pmf_1: dict) -> tuple:
    """Both output distributions on a common support [L, H] plus their tail constants."""
    out0, out1 = mech.output_pmf(pmf_0), mech.output_pmf(pmf_1)
    L, H = min(out0[0], out1[0]), max(out0[1], out1[1])

    def at(out: tuple, o: int) -> Any:
        lo, hi, mass, c, upper, lower = out
        if lo <= o <= hi:
            return mass[o - lo]
        a = mech.alpha
        return c * a ** o * upper if o > hi else c * a ** (-o) * lower

    P0 = [at(out0, o) for o in range(L, H + 1)]
    P1 = [at(out1, o) for o in range(L, H + 1)]
    tails = []
    if isinstance(mech, NoisyCount):
        a, c = mech.alpha, out0[3]
        # o > H: P_i(o) = c α^o upper_i; Σ_{o>H} c α^o = c α^{H+1}/(1 − α); o < L likewise with α^{−o}
        tails.append((c * a ** (H + 1) / (1 - a), out0[4], out1[4]))
        tails.append((c * a ** (1 - L) / (1 - a), out0[5], out1[5]))
    return P0, P1, tails


def _delta(P: list, Q: list, tails: list, side: int, epsilon: Any) -> Any:
    """δ_{P‖Q}(ε) = Σ_o (P(o) − e^ε Q(o))₊, tails summed in closed form; ``side`` 1: P = D₁, 0: P = D₀."""
    F = mpmath.exp(epsilon)
    total = mpmath.fsum(max(p - F * q, 0) for p, q in zip(P, Q))
    for weight, t0, t1 in tails:
        tp, tq = (t1, t0) if side == 1 else (t0, t1)
        total += weight * max(tp - F * tq, 0)
    return total


def privacy_profile(mechanism: Any, pmf_0: dict, pmf_1: dict, epsilon: float) -> float:
    """Exact δ(ε) = max(δ_{D₁‖D₀}(ε), δ_{D₀‖D₁}(ε)) of the mechanism fed the statistic pmfs (a float)."""
    with mpmath.workdps(_DPS):
        P0, P1, tails = _grid(mechanism, pmf_0, pmf_1)
        e = mpmath.mpf(epsilon)
        return float(max(_delta(P1, P0, tails, 1, e), _delta(P0, P1, tails, 0, e)))


def _log_ratio_max(P0: list, P1: list, tails: list) -> Any:
    best = mpmath.mpf(0)
    pairs = list(zip(P0, P1)) + [(t0, t1) for _, t0, t1 in tails]
    for p0, p1 in pairs:
        if p0 == 0 and p1 == 0:
            continue
        if p0 == 0 or p1 == 0:
            return mpmath.inf
        best = max(best, abs(mpmath.log(p1 / p0)))
    return best


def exact_epsilon(mechanism: Any, pmf_0: dict, pmf_1: dict, delta: float = 0.0) -> float:
    """The exact ε of the pair at δ: the smallest ε ≥ 0 with δ(ε) ≤ δ, rounded down (a float; ``inf`` if no
    finite ε works).  δ = 0: the largest |log-ratio| over all outputs (tails included)."""
    with mpmath.workdps(_DPS):
        return _epsilon_of_grid(*_grid(mechanism, pmf_0, pmf_1), delta)


def _epsilon_of_grid(P0: list, P1: list, tails: list, delta: float) -> float:
    """:func:`exact_epsilon` from the pair's output distributions (``_grid``'s result; at ``_DPS`` digits)."""
    with mpmath.workdps(_DPS):
        top = _log_ratio_max(P0, P1, tails)
        if delta == 0:
            v = top
        else:
            d = mpmath.mpf(delta)
            prof = lambda e: max(_delta(P1, P0, tails, 1, e), _delta(P0, P1, tails, 0, e))  # noqa: E731
            if prof(mpmath.mpf(0)) <= d:
                return 0.0
            hi = top if top != mpmath.inf else mpmath.mpf(1)
            while top == mpmath.inf and prof(hi) > d:
                hi *= 2
                if hi > 1e6:
                    return float("inf")
            lo = mpmath.mpf(0)
            for _ in range(120):          # prof(lo) > δ ≥ prof(hi): the exact ε is in (lo, hi]
                mid = (lo + hi) / 2
                if prof(mid) > d:
                    lo = mid
                else:
                    hi = mid
            v = lo
        if v == mpmath.inf:
            return float("inf")
        f = float(v)
        return float(np.nextafter(f, -np.inf)) if mpmath.mpf(f) > v else f


def exact_audit(keep_probabilities: Callable[[Any], Any], mechanism: Any, dataset_0: Any, dataset_1: Any, *,
                claim: Any, scenario: str = "custom") -> AuditResult:
    r"""Exact audit of procedure ∘ mechanism on two neighbouring inputs.

    Computes the exact distribution of the mechanism's output on ``dataset_0`` and ``dataset_1`` when the
    procedure keeps record i independently with probability ``keep_probabilities(dataset)[i]``, then the
    exact δ at the claimed ε (both directions) and the exact ε at the claimed δ.  The claim is refuted iff
    the exact δ at the claimed ε exceeds the claimed δ (by more than the 1e-30 rounding margin): then
    procedure ∘ mechanism is *not* (ε, δ)-DP — with certainty, not at a confidence level.

    An audit can refute a claim, never prove it: a pass shows only that this pair, this mechanism and
    these probabilities stay within the claim.

    Parameters
    ----------
    keep_probabilities : callable
        ``keep_probabilities(data)`` → one probability in [0, 1] per record, from the implementation under
        test: floats or ``Fraction``s, each taken as an exact rational (e.g.
        ``lambda d: [1 - Fraction(s) for s in outlier_scores(d, metric, m, M)]``, exact complements).
    mechanism : NoisyCount or RandomizedResponse
        An ε-DP mechanism of the kept records.
    dataset_0, dataset_1 : array_like
        The neighbouring inputs (records along the first axis).
    claim : Guarantee or (float, float)
        The certified (ε, δ) of procedure ∘ mechanism.
    scenario : str
        A label for the report.

    Returns
    -------
    AuditResult

    Raises
    ------
    ValueError
        If a probability is outside [0, 1] or the callables return the wrong shape, weights are not in
        {−1, 0, 1}, or the claim is outside ε ≥ 0, 0 ≤ δ ≤ 1.
    TypeError
        If the mechanism is not a :class:`NoisyCount` or :class:`RandomizedResponse`, the claim is not a pair.

    Examples
    --------
    >>> import numpy as np
    >>> import bounds
    >>> from bounds.audit import RandomizedResponse, exact_audit
    >>> d0, d1 = np.zeros(9), np.r_[np.zeros(9), 1.0]          # add the record 1.0
    >>> rr = RandomizedResponse(1.0, weights=lambda d: (d == 1.0).astype(int))
    >>> claim = bounds.poisson_subsampling(1.0, 0.0, 0.25)
    >>> r = exact_audit(lambda d: np.full(len(d), 0.25), rr, d0, d1, claim=claim)
    >>> r.verdict, round(r.epsilon, 12) == round(float(np.log1p(0.25 * np.expm1(1.0))), 12)
    ('not refuted', True)
    """
    fn = "exact_audit"
    check_mechanism(fn, mechanism)
    if not callable(keep_probabilities):
        raise TypeError(f"{fn}: keep_probabilities must be callable (data → probabilities)")
    target = claim_of(fn, claim)
    pmfs = []
    with mpmath.workdps(_DPS):
        for data in (dataset_0, dataset_1):
            p = np.asarray(keep_probabilities(data), dtype=object)
            if p.shape != (len(data),):
                raise ValueError(f"{fn}: keep_probabilities(data) must return shape ({len(data)},), got {p.shape}")
            pmfs.append(statistic_pmf(p, weights_of(mechanism.weights, data, fn)))
        P0, P1, tails = _grid(mechanism, pmfs[0], pmfs[1])
        e = mpmath.mpf(target.epsilon) if np.isfinite(target.epsilon) else None
        delta_at_claim = (max(_delta(P1, P0, tails, 1, e), _delta(P0, P1, tails, 0, e)) if e is not None
                          else mpmath.mpf(0))
        refuted = bool(delta_at_claim > target.delta + _MARGIN)
        eps = _epsilon_of_grid(P0, P1, tails, target.delta)  # exact_epsilon on the grid just computed
    details = {"delta_at_claimed_epsilon": float(delta_at_claim), "mechanism": repr(mechanism),
               "mechanism_epsilon": mechanism.epsilon, "n_0": len(dataset_0), "n_1": len(dataset_1)}
    return AuditResult("exact", scenario, eps, target, refuted, 1.0, details)
