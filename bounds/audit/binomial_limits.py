"""Exact (Clopper–Pearson) confidence limits for a binomial proportion and the ε lower bound they give.

The one-sided Clopper–Pearson limits are the quantiles of beta distributions; they are computed here by
inverting the binomial tail P_p(X ≥ k) = I_p(k, n − k + 1) (regularised incomplete beta function), evaluated by
its continued fraction: a fast float search first, then a check of the returned limit in mpmath at 25 digits,
stepping it outward until the check passes.  A returned lower limit p_lo therefore satisfies
P_{p_lo}(X ≥ k) ≤ level (so p_lo is at or below the exact limit), an upper limit p_hi satisfies
P_{p_hi}(X ≤ k) ≤ level.  Never a normal approximation.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, NamedTuple

import mpmath

from ..procedures._checks import count
from ._checks import real

__all__ = ["clopper_pearson", "epsilon_lower_bound", "LowerBound"]

_DPS = 25           # mpmath digits of the verification: its error (< 1e-20 relative) is far below _SAFETY
_SAFETY = 1e-12     # the verified tail must be ≤ level·(1 − _SAFETY)
# Counts stay exact Python ints here (the returned limits are checked in mpmath on the exact k and n), so the
# procedures' 2⁵³ cap for array sizes does not apply; the cap is the largest count a numpy int64 counter holds.
_MAX_EVENTS = 2 ** 63 - 1


def _continued_fraction(x: Any, a: Any, b: Any, tiny: Any, eps: Any) -> Any:
    """The continued fraction of I_x(a, b) (modified Lentz), x < (a + 1)/(a + b + 2): floats or mpmath numbers
    (the arithmetic of ``x``; ``tiny`` guards the divisions, the loop stops when a step is within ``eps`` of 1)."""
    c, d = 1, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1) < eps:
            return h
    raise ArithmeticError("incomplete beta continued fraction did not converge")  # pragma: no cover


def _ibeta_float(x: float, a: float, b: float, log_beta: float, swapped: bool = False) -> float:
    """Regularised incomplete beta I_x(a, b) in floats (a search aid only; never the returned statement);
    ``log_beta`` = ln B(a, b), computed once in mpmath (lgamma differences cancel catastrophically for large
    arguments)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if not swapped and x > (a + 1.0) / (a + b + 2.0):   # the fraction converges fast below the mean
        return 1.0 - _ibeta_float(1.0 - x, b, a, log_beta, True)
    log_front = a * math.log(x) + b * math.log1p(-x) - math.log(a) - log_beta
    return math.exp(log_front) * _continued_fraction(x, a, b, 1e-300, 1e-15)


def _ibeta_mp(x: Any, a: int, b: int, swapped: bool = False) -> Any:
    """Regularised incomplete beta I_x(a, b) in mpmath (current precision), integer a, b ≥ 1, 0 < x < 1."""
    x = mpmath.mpf(x)
    if not swapped and x > mpmath.mpf(a + 1) / (a + b + 2):
        return 1 - _ibeta_mp(1 - x, b, a, True)
    h = _continued_fraction(x, a, b, mpmath.mpf(10) ** (-(mpmath.mp.dps * 4)),
                            mpmath.mpf(10) ** (-(mpmath.mp.dps - 3)))
    log_front = a * mpmath.log(x) + b * mpmath.log1p(-x) - mpmath.log(a) - mpmath.log(mpmath.beta(a, b))
    return mpmath.exp(log_front) * h


def _upper_tail(p: float, k: int, n: int, exact: bool, log_beta: float = 0.0) -> Any:
    """P_p(X ≥ k) for X ~ Bin(n, p), 1 ≤ k ≤ n (floats: ``log_beta`` = ln B(k, n − k + 1))."""
    if exact:
        return _ibeta_mp(p, k, n - k + 1) if 0.0 < p < 1.0 else mpmath.mpf(1 if p >= 1.0 else 0)
    return _ibeta_float(p, float(k), float(n - k + 1), log_beta)


@functools.lru_cache(maxsize=4096)
def _lower_limit(k: int, n: int, level: float) -> float:
    """The one-sided Clopper–Pearson lower limit at error level ``level``, rounded down (see module doc).

    Remembered per (k, n, level) (a pure function of exact ints and a float, milliseconds each): an audit
    computes four limits per candidate event and the audits of one dataset repeat counts."""
    if k == 0:
        return 0.0
    lo, hi = 0.0, 1.0   # tail(lo) ≤ level < tail(hi); the tail increases with p
    if k == n:
        guess = level ** (1.0 / n)
    else:
        with mpmath.workdps(20):
            log_beta = float(mpmath.log(mpmath.beta(k, n - k + 1)))
        for _ in range(2000):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if _upper_tail(mid, k, n, False, log_beta) <= level:
                lo = mid
            else:
                hi = mid
        guess = lo
    with mpmath.workdps(_DPS):
        target = mpmath.mpf(level) * (1 - mpmath.mpf(_SAFETY))
        step = max(guess * 1e-13, 5e-324)
        p = guess
        while p > 0.0 and _upper_tail(p, k, n, True) > target:
            p = max(0.0, guess - step)
            step *= 4.0
    return p


def _upper_limit(k: int, n: int, level: float) -> float:
    """The one-sided Clopper–Pearson upper limit at error level ``level``, rounded up: by symmetry,
    1 − (the lower limit for n − k events)."""
    if k == n:
        return 1.0
    lower = _lower_limit(n - k, n, level)
    up = 1.0 - lower
    return up if Fraction(up) >= 1 - Fraction(lower) else math.nextafter(up, 2.0)


def _alpha(confidence: float) -> float:
    """1 − confidence rounded down (the error level must not exceed the one asked for; /2, /4 are exact)."""
    exact = 1 - Fraction(confidence)
    a = float(exact)
    return a if Fraction(a) <= exact else math.nextafter(a, 0.0)


def clopper_pearson(events: Any, trials: Any, *, confidence: float = 0.95, side: str = "two-sided"
                    ) -> tuple[float, float]:
    r"""Exact Clopper–Pearson confidence limits for a binomial proportion.

    For X ~ Bin(n, p) observed as ``events`` = k out of ``trials`` = n, returns (p_lo, p_hi) such that
    P(p_lo ≤ p) ≥ 1 − α_lo and P(p ≤ p_hi) ≥ 1 − α_hi for every p, where α = 1 − ``confidence`` is split
    α/2 + α/2 for ``side="two-sided"`` and put entirely on the one limit asked for otherwise (the other is 0 or 1):

    .. math::

        P_{p_\mathrm{lo}}(X \ge k) \le \alpha_\mathrm{lo}, \qquad P_{p_\mathrm{hi}}(X \le k) \le \alpha_\mathrm{hi},

    with p_lo = 0 if k = 0 and p_hi = 1 if k = n.  The limits are the beta quantiles
    B(α_lo; k, n − k + 1) and B(1 − α_hi; k + 1, n − k), rounded outward: each is checked by evaluating the
    binomial tail in mpmath at 25 digits (see the module docstring).

    Parameters
    ----------
    events, trials : int
        0 ≤ events ≤ trials, trials ≥ 1.
    confidence : float
        1 − α, in (0, 1).
    side : {"two-sided", "lower", "upper"}

    Returns
    -------
    tuple of float

    Raises
    ------
    ValueError
        If a count is negative, not an integer, or events > trials; confidence outside (0, 1); an unknown side.
    TypeError
        For strings, bools, complex numbers or None.

    Examples
    --------
    >>> from bounds.audit import clopper_pearson
    >>> lo, hi = clopper_pearson(5, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.1871, 0.8129)
    """
    fn = "clopper_pearson"
    n = count(fn, "trials", trials, minimum=1, maximum=_MAX_EVENTS)
    k = count(fn, "events", events, maximum=_MAX_EVENTS)
    if k > n:
        raise ValueError(f"{fn}: events = {k} must be ≤ trials = {n}")
    alpha = _alpha(real(fn, "confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    if side not in ("two-sided", "lower", "upper"):
        raise ValueError(f"{fn}: side = {side!r} is not one of 'two-sided', 'lower', 'upper'")
    level = alpha / 2 if side == "two-sided" else alpha
    lo = _lower_limit(k, n, level) if side != "upper" else 0.0
    hi = _upper_limit(k, n, level) if side != "lower" else 1.0
    return lo, hi


class LowerBound(NamedTuple):
    """An ε lower bound with the statement that gave it (see :func:`epsilon_lower_bound`)."""

    epsilon: float
    statement: str
    limits: dict


def _log_ratio_down(num: float, den: float) -> float:
    """ln(num/den) rounded down (0 < num, den; exact float inputs, mpmath at 25 digits, then one ulp down)."""
    with mpmath.workdps(_DPS):
        v = mpmath.log(mpmath.mpf(num) / mpmath.mpf(den))
        f = float(v)
        return math.nextafter(f, -math.inf) if mpmath.mpf(f) > v else f


def _sub_down(a: float, b: float) -> float:
    """a − b rounded down (checked in exact rationals)."""
    d = a - b
    return d if Fraction(d) <= Fraction(a) - Fraction(b) else math.nextafter(d, -math.inf)


def epsilon_lower_bound(events_1: Any, trials_1: Any, events_0: Any, trials_0: Any, *, delta: float = 0.0,
                        confidence: float = 0.95, details: bool = False) -> Any:
    r"""A lower bound on the ε of a mechanism, from how often one event occurred on two neighbouring inputs.

    A mechanism run ``trials_1`` times on D₁ produced the event E ``events_1`` times, and ``events_0`` times
    in ``trials_0`` independent runs on a neighbour D₀.  If the mechanism is (ε, δ)-DP then for E and for its
    complement Eᶜ, in both directions,

    .. math::

        p_1 \le e^{\varepsilon} p_0 + \delta,\quad p_0 \le e^{\varepsilon} p_1 + \delta,\quad
        1 - p_1 \le e^{\varepsilon}(1 - p_0) + \delta,\quad 1 - p_0 \le e^{\varepsilon}(1 - p_1) + \delta,

    with p_i = P(E on D_i).  With exact one-sided Clopper–Pearson limits p_i,lo ≤ p_i ≤ p_i,hi
    (:func:`clopper_pearson`), each at error level α/4 (α = 1 − ``confidence``; Bonferroni over the four limits
    used), all four hold together with probability ≥ 1 − α, and then

    .. math::

        \varepsilon \ge \max\Bigl\{0,\ \ln\frac{p_{1,lo} - \delta}{p_{0,hi}},\ \ln\frac{p_{0,lo} - \delta}{p_{1,hi}},\
        \ln\frac{1 - p_{1,hi} - \delta}{1 - p_{0,lo}},\ \ln\frac{1 - p_{0,hi} - \delta}{1 - p_{1,lo}}\Bigr\}

    (a term whose numerator is ≤ 0 is dropped).  **Statement**: for every mechanism that is (ε, δ)-DP on the
    pair (D₀, D₁), the probability (over the 2 × trials runs) that the returned value exceeds ε is at most α.
    The event must be fixed before the counted runs (chosen on other runs, never on these).  The value is rounded
    down.  A value above a claimed ε refutes the claim at that confidence; a value below it proves nothing.

    Parameters
    ----------
    events_1, trials_1, events_0, trials_0 : int
        Event counts and numbers of runs on the two inputs (0 ≤ events ≤ trials, trials ≥ 1).
    delta : float
        The δ of the claim, in [0, 1].
    confidence : float
        1 − α, in (0, 1).
    details : bool
        If true, return a :class:`LowerBound` (ε, the statement that attained it, the four limits).

    Returns
    -------
    float or LowerBound

    Raises
    ------
    ValueError
        If a count is negative, not an integer or above its trials; δ outside [0, 1]; confidence outside (0, 1).
    TypeError
        For strings, bools, complex numbers or None.

    Examples
    --------
    >>> from bounds.audit import epsilon_lower_bound
    >>> round(epsilon_lower_bound(7_000, 10_000, 3_000, 10_000), 3)   # p1 ≈ 0.7, p0 ≈ 0.3: ε ≥ ln(7/3) − …
    0.798
    >>> epsilon_lower_bound(50, 100, 50, 100)
    0.0
    """
    fn = "epsilon_lower_bound"
    n1 = count(fn, "trials_1", trials_1, minimum=1, maximum=_MAX_EVENTS)
    n0 = count(fn, "trials_0", trials_0, minimum=1, maximum=_MAX_EVENTS)
    k1 = count(fn, "events_1", events_1, maximum=_MAX_EVENTS)
    k0 = count(fn, "events_0", events_0, maximum=_MAX_EVENTS)
    if k1 > n1:
        raise ValueError(f"{fn}: events_1 = {k1} must be ≤ trials_1 = {n1}")
    if k0 > n0:
        raise ValueError(f"{fn}: events_0 = {k0} must be ≤ trials_0 = {n0}")
    d = real(fn, "delta", delta, 0.0, 1.0)
    alpha = _alpha(real(fn, "confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    level = alpha / 4
    p1_lo, p1_hi = _lower_limit(k1, n1, level), _upper_limit(k1, n1, level)
    p0_lo, p0_hi = _lower_limit(k0, n0, level), _upper_limit(k0, n0, level)
    # complements: 1 − p_hi is a lower limit of P(Eᶜ) and 1 − p_lo an upper one; rounded in the safe direction
    candidates = [
        ("ln((p1_lo - delta)/p0_hi)", p1_lo, p0_hi),
        ("ln((p0_lo - delta)/p1_hi)", p0_lo, p1_hi),
        ("ln((1 - p1_hi - delta)/(1 - p0_lo))", _sub_down(1.0, p1_hi), -_sub_down(p0_lo, 1.0)),
        ("ln((1 - p0_hi - delta)/(1 - p1_lo))", _sub_down(1.0, p0_hi), -_sub_down(p1_lo, 1.0)),
    ]
    best, statement = 0.0, "none (every term ≤ 0)"
    for text, lower, upper in candidates:
        num = _sub_down(lower, d)
        if num > 0.0 and upper > 0.0:
            value = _log_ratio_down(num, upper)
            if value > best:
                best, statement = value, text
    if not details:
        return best
    return LowerBound(best, statement, {"p1_lo": p1_lo, "p1_hi": p1_hi, "p0_lo": p0_lo, "p0_hi": p0_hi,
                                        "level_each": level})
