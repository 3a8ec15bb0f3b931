"""Certified enclosures δ⁻(ε) ≤ δ_M(ε) ≤ δ⁺(ε) of each one-shot mechanism kind, and the ε sandwich they imply
(issue 13): the evidence ``crosscheck``'s verdicts rest on.

======================================  ===========  ===============================================
mechanism                               SPEC         enclosure
======================================  ===========  ===============================================
``Gaussian(theta=θ)``, ``Laplace``      T9, T8       exact profile ± kernel budget (both sides)
``poisson_sampled(Gaussian|Laplace)``   T11          exact profile ± running error + budget (both)
``EpsDelta(ε₀, δ₀)``                    Conventions  worst case over (ε₀, δ₀)-DP mechanisms, exact
``poisson_sampled(EpsDelta, p)``        T1           worst case, exact (T1 is tight)
``WithoutReplacement(EpsDelta, m, n)``  T2           worst case, exact (T2 is tight)
``WithoutReplacement(Gaussian, …)``     T2           upper only
``WithReplacement(…)``                  T3, T4       upper only (no proven lower bound)
``RateChange(EpsDelta, β₁, β₂)``        T5           upper only (see ``RateChange``)
``DiscretePairs(pairs)``                definition   exact (hockey-stick sums of finite laws)
======================================  ===========  ===============================================

``enclosure(mechanism)`` returns the enclosure object (``delta_bounds(ε)``, ``delta(ε)``, ``epsilon(δ)``).
"""
from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Any, Callable

from .composition import PoissonSampled, Sandwich
from .mechanisms import EpsDelta, Gaussian, Laplace
from .oneshot import DiscretePairs, RateChange, WithoutReplacement, WithReplacement

__all__ = ["enclosure"]


def _theta_bounds(mechanism: Gaussian | Laplace) -> tuple[float, float]:
    """(θ⁻, θ⁺): ``theta_lower`` ≤ exact θ ≤ ``theta`` (equal unless built from a noise scale)."""
    return mechanism.theta_lower, mechanism.theta


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
