"""Noise calibration for DP-SGD (issue 21): the least noise multiplier σ a budget (ε, δ) allows, certified on
both sides, found with few certified compositions.

``dpsgd_noise_multiplier`` (Poisson sampling, fixed name of DESIGN.md), ``dpsgd_max_steps`` (the number of steps
a σ allows) and ``sampler_noise_multiplier`` (every batch sampler of :mod:`bounds.samplers`, by its words).

How the search stays sound and cheap
------------------------------------
A certified composition at σ gives a sandwich ``lower ≤ exact ≤ upper`` of a quantity that falls as σ grows (δ at
the target ε for Poisson, ε at the target δ for the samplers).  The result is ``Sandwich(σ⁻, σ⁺)``:

* σ⁺ is a noise multiplier at which a certified *upper* bound meets the budget (training with σ⁺, or any larger
  σ — more noise is post-processing — is (ε, δ)-DP);
* σ⁻ is one at which a certified *lower* bound exceeds it (σ⁻, and every smaller σ, provably violates it), or 0.0
  when no evaluated σ was proven to violate it.

Only evaluated σ are ever returned, each with its own certified composition: soundness rests on the sandwiches,
never on the search.  The search itself uses anything that is cheap (uncertified):

1. *locate* — the root of an estimate (a coarse-grid composition, or for the batch samplers the Poisson
   composition at the same rate, their usual approximation) by regula falsi (Illinois) in (ln σ, ln value),
   started from the μ-GDP (central-limit) estimate; this also gives the slope d ln value / d ln σ;
2. *certify* — certified compositions aimed by the secant in (ln σ, ln value), separately for the upper side
   (aim just above the root of ln upper) and the lower side (just below the root of ln lower): one composition
   gives both sides, so a point aimed below the lower root also closes the upper bracket.

Stopping rule (tightness, not soundness): σ⁺ lies within ``rtol`` (relative) of the least σ whose certified
upper bound meets the budget, and σ⁻ within ``rtol`` of the largest σ whose certified lower bound violates it.
This is shown either by an evaluated bracket (a σ within ``rtol`` below σ⁺ that is not certified, resp. above σ⁻
that is not proven to violate) or — to save a composition — by the secant root of the certified values at two
evaluated σ that bracket it, at most 32·rtol apart (ln value is smooth in ln σ: the interpolation error over
such a span is ≈ 1e-3·rtol at the slopes measured), with σ⁺ within 0.9·rtol of that root.  The gap σ⁺ − σ⁻ is
therefore the width of the certified sandwich (translated to σ) plus at most 2·rtol·σ⁺; the certified width
itself is set by the composition's ``tolerance``.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, NamedTuple

import numpy as np

from ._dask import refuses_dask
from .composition import (MAX_NODES, MAX_STEPS_WORK, Composition, Sandwich, _check_count, _real, poisson_sampled)
from .mechanisms import Gaussian

__all__ = ["CalibrationStep", "dpsgd_max_steps", "dpsgd_noise_multiplier", "sampler_noise_multiplier"]

SIGMA_MIN = 1e-2  # the noise multipliers searched (dpsgd_noise_multiplier's documented range)
SIGMA_MAX = 1e4
MAX_CERTIFIED = 40  # certified compositions per search (a bound on the work; measured: 3–6 are needed)
INTERPOLATION_SPAN = 32.0  # a bracket of at most 32·rtol may close a side by interpolation (module docstring)
ACCEPT = 0.9  # ... when the side's σ lies within 0.9·rtol of the interpolated crossing
COARSE = 8.0  # dpsgd_noise_multiplier's locating grid: 8× the certified spacing (≈ 1/8 of its nodes)


class CalibrationStep(NamedTuple):
    """One evaluation of a noise calibration, as told to its ``progress`` callback.

    Parameters
    ----------
    stage : str
        ``"locate"`` (an uncertified estimate that only steers the search) or ``"certified"`` (a certified
        composition: the result is taken from these only).
    noise_multiplier : float
        The σ evaluated.
    lower, upper : float
        The sandwich of the quantity searched (δ at the target ε for :func:`dpsgd_noise_multiplier`, ε at the
        target δ for :func:`sampler_noise_multiplier`); for ``"locate"`` the estimate's own (uncertified)
        sandwich.  ``upper = inf`` / ``lower = 0`` where the grid could not resolve σ.
    cpu_seconds : float
        Process CPU time of this evaluation.
    done : bool
        False when the evaluation is announced (``lower`` = 0, ``upper`` = inf, no time yet: a progress line can
        show the σ being tried), True when it is finished.

    Examples
    --------
    >>> import bounds
    >>> seen = []
    >>> s = bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, 100, tolerance=1e-2, progress=seen.append)
    >>> last = [step for step in seen if step.done and step.stage == "certified"][-1]
    >>> last.noise_multiplier in (s.lower, s.upper), last.lower <= last.upper
    (True, True)
    """

    stage: str
    noise_multiplier: float
    lower: float
    upper: float
    cpu_seconds: float
    done: bool = True


class _Unresolved(Exception):
    """The composition at this σ needs more grid nodes than the limit (too little noise for the grid)."""


def _ln(v: float) -> float:
    if v > 0.0:
        return math.log(v) if math.isfinite(v) else math.inf
    return -math.inf


def _secant(p: tuple[float, float], r: tuple[float, float], level: float) -> float | None:
    """x where the line through (x, y) points p and r takes ``level`` (None when undefined)."""
    (x0, y0), (x1, y1) = p, r
    if not (math.isfinite(y0) and math.isfinite(y1)) or y0 == y1 or x0 == x1:
        return None
    x = x0 + (level - y0) * (x1 - x0) / (y1 - y0)
    return x if math.isfinite(x) else None


def _dyadic(sigma: float) -> float:
    """σ rounded to 30 significant bits (exact operations only: frexp, a product by a power of two, round,
    ldexp).  The search aims with libm's exp and log; rounding the aim makes the σ evaluated — and returned —
    independent of those functions' last bits (except within 2⁻²² of a rounding boundary), and short to print."""
    m, e = math.frexp(sigma)
    return math.ldexp(round(m * 2.0 ** 30), e - 30)


def _gdp_sigma(epsilon: float, delta: float, rate: float, steps: int) -> float:
    """An uncertified starting σ: the μ-GDP (central-limit) approximation of Poisson-subsampled Gaussian
    steps, μ = q·√(T·(e^{1/σ²} − 1)) (Bu, Dong, Long, Su 2020), δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2),
    solved by bisection in ln σ (exact for q = 1: T Gaussian steps are one Gaussian of μ = √T/σ)."""

    def phi(x: float) -> float:
        return 0.5 * math.erfc(-x / math.sqrt(2.0))

    def d(sigma: float) -> float:
        x = 1.0 / (sigma * sigma)
        mu = math.sqrt(steps) / sigma if rate >= 1.0 else rate * math.sqrt(steps * math.expm1(min(x, 700.0)))
        if mu <= 0.0:
            return 0.0
        if not math.isfinite(mu) or mu > 1e150:
            return 1.0
        return phi(-epsilon / mu + mu / 2) - math.exp(epsilon) * phi(-epsilon / mu - mu / 2)

    lo, hi = math.log(SIGMA_MIN), math.log(SIGMA_MAX)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if d(math.exp(mid)) > delta:
            lo = mid
        else:
            hi = mid
    return math.exp(hi)


class _Search:
    """The two-stage search (module docstring) over a quantity non-increasing in σ.

    ``certified(σ) → (lower, upper)`` is a certified sandwich (raises ``_Unresolved`` where the grid cannot
    resolve σ); ``estimate(σ) → (lower, upper)`` an uncertified one, or None (then the search runs on the
    certified evaluations alone)."""

    def __init__(self, function: str, certified: Callable[[float], tuple[float, float]], target: float, *,
                 rtol: float, estimate: Callable[[float], tuple[float, float]] | None, start: float,
                 progress: Callable[[CalibrationStep], Any] | None, loose: str):
        self.function, self.certified_at, self.estimate_at = function, certified, estimate
        self.level = math.log(target)
        self.target = target
        self.step = math.log1p(rtol)  # rtol in ln σ
        self.start = min(max(start, SIGMA_MIN), SIGMA_MAX)
        self.progress = progress
        self.loose = loose  # what the budget is, for the messages
        self.points: dict[float, tuple[float, float]] = {}  # ln σ → (ln lower, ln upper), certified
        self.sigma: dict[float, float] = {}  # ln σ → the σ evaluated there (returned as is)
        self.raw: dict[float, tuple[float, float]] = {}  # ln σ → (lower, upper) as certified
        self.unresolved_below = False  # the lower side's search reached σ the grid cannot resolve
        self.slope: float | None = None  # d ln value / d ln σ from the estimate
        self.steps: list[CalibrationStep] = []

    # -- evaluation -----------------------------------------------------------------------------------
    def _announce(self, stage: str, sigma: float) -> None:
        if self.progress is not None:
            self.progress(CalibrationStep(stage, sigma, 0.0, math.inf, 0.0, False))

    def _record(self, stage: str, sigma: float, lo: float, hi: float, cpu: float) -> None:
        step = CalibrationStep(stage, sigma, lo, hi, cpu)
        self.steps.append(step)
        if self.progress is not None:
            self.progress(step)

    def _estimate(self, x: float) -> float:
        """ln of the estimate's geometric midpoint at σ = e^x (+inf where unresolved: too little noise)."""
        sigma = _dyadic(math.exp(x))
        self._announce("locate", sigma)
        t = time.process_time()
        try:
            lo, hi = self.estimate_at(sigma)
        except _Unresolved:
            lo, hi = 0.0, math.inf
        self._record("locate", sigma, lo, hi, time.process_time() - t)
        a, b = _ln(lo), _ln(hi)
        return b if a == -math.inf else 0.5 * (a + b)

    def _certify(self, x: float, lower_side: bool = False) -> tuple[float, float]:
        sigma = _dyadic(math.exp(x))
        x = math.log(sigma)  # the point is keyed by the σ actually evaluated
        if x in self.points:
            return self.points[x]
        self._announce("certified", sigma)
        t = time.process_time()
        try:
            lo, hi = self.certified_at(sigma)
        except _Unresolved:
            if not lower_side and self._best_certified() is not None and x < self._best_certified():
                best = self.sigma[self._best_certified()]
                raise ValueError(f"{self.function}: the budget {self.loose} is so loose that the noise multiplier "
                                 f"it needs lies below σ = {sigma!r}, where the composition's privacy-loss range is "
                                 f"too wide for the grid; σ = {best!r} is certified to meet it") from None
            # not certified, not proven to violate: the upper search moves up; the lower search stops here
            lo, hi = 0.0, math.inf
            self.unresolved_below = self.unresolved_below or lower_side
        self._record("certified", sigma, lo, hi, time.process_time() - t)
        self.points[x] = (_ln(lo), _ln(hi))
        self.raw[x] = (lo, hi)
        self.sigma[x] = sigma
        return self.points[x]

    @staticmethod
    def _key(x: float) -> float:
        """The key of the point an aim at ln σ = x evaluates (σ rounded by :func:`_dyadic`)."""
        return math.log(_dyadic(math.exp(min(max(x, -745.0), 709.0))))

    # the decisions compare the certified values themselves with the target (ln rounds: ln u ≤ ln target
    # can hold for a u one ulp above the target); the logarithms only steer the search
    def _certified(self, x: float) -> bool:
        return self.raw[x][1] <= self.target

    def _violates(self, x: float) -> bool:
        return self.raw[x][0] > self.target

    def _best_certified(self) -> float | None:
        ok = [x for x in self.points if self._certified(x)]
        return min(ok) if ok else None

    # -- stage 1: locate (uncertified) ------------------------------------------------------------------
    def locate(self) -> float:
        """The root of the estimate in ln σ (and ``self.slope``); falls back to the start."""
        x0 = math.log(self.start)
        if self.estimate_at is None:
            return x0
        lo_lim, hi_lim = math.log(SIGMA_MIN) - 1.0, math.log(SIGMA_MAX) + 1.0
        tol = max(self.step, math.log1p(1e-4))
        pts: list[tuple[float, float]] = []

        def f(x: float) -> float:
            y = self._estimate(x) - self.level
            pts.append((x, y))
            return y

        y = f(x0)
        a = b = None  # a: y > 0 (too little noise), b: y ≤ 0
        if y > 0:
            a = (x0, y)
        else:
            b = (x0, y)
        x = x0
        while a is None or b is None:  # bracket: secant extrapolation, steps clamped to [×1.05, ×4]
            up = b is None
            dx = math.log(1.1) if len(pts) == 1 else math.log(2.0)  # the start is a good estimate: step ×1.1
            if len(pts) >= 2:
                r = _secant(pts[-2], pts[-1], 0.0)
                if r is not None and (r - x > 0) == up:
                    dx = min(max(abs(r - x) * 1.1, math.log(1.05)), math.log(4.0))
            x = x + dx if up else x - dx
            if not lo_lim <= x <= hi_lim:
                return pts[-1][0]
            y = f(x)
            if y > 0:
                a = (x, y)
            else:
                b = (x, y)
        side = 0
        root = 0.5 * (a[0] + b[0])
        for _ in range(40):  # Illinois regula falsi in (ln σ, ln value)
            fa, fb = a[1], b[1]
            new = _secant((a[0], fa), (b[0], fb), 0.0)
            if new is None or not a[0] < new < b[0]:
                new = 0.5 * (a[0] + b[0])
            if abs(new - root) <= tol / 2 or b[0] - a[0] <= tol:
                root = new
                break
            root = new
            y = f(new)
            if y > 0:
                a = (new, y)
                if side == 1:
                    b = (b[0], b[1] / 2)
                side = 1
            else:
                b = (new, y)
                if side == -1:
                    a = (a[0], a[1] / 2)
                side = -1
        # the slope from the point nearest the root and the next one at least 0.5 % away (two points a few
        # 1e-5 apart carry the estimate's own roughness into the slope)
        finite = [(x, y) for x, y in pts if math.isfinite(y)]
        finite.sort(key=lambda p: abs(p[0] - root))
        if len(finite) >= 2:
            p0 = finite[0]
            far = [p for p in finite[1:] if abs(p[0] - p0[0]) >= 5e-3] or \
                sorted(finite[1:], key=lambda p: -abs(p[0] - p0[0]))
            p1 = far[0]
            if p1[0] != p0[0]:
                s = (p0[1] - p1[1]) / (p0[0] - p1[0])
                self.slope = s if s < 0 else None
        return root

    # -- stage 2: certify -----------------------------------------------------------------------------
    def _side(self, k: int) -> list[tuple[float, float]]:
        return sorted((x, v[k]) for x, v in self.points.items())

    def _root(self, k: int, near: float) -> float:
        """Estimated root of ln value (k = 0 lower, 1 upper) = level: the secant through the evaluated pair
        that brackets it (nearest to ``near``), else through the two nearest finite points, else the nearest
        point with the estimate's slope, else a step of ×2 in the right direction."""
        pts = [(x, y) for x, y in self._side(k) if math.isfinite(y)]
        brackets = [(p, r) for p, r in zip(pts, pts[1:]) if p[1] > self.level >= r[1]]
        if brackets:
            p, r = min(brackets, key=lambda pr: abs(pr[0][0] - near) + abs(pr[1][0] - near))
            x = _secant(p, r, self.level)
            if x is not None:
                return x
        pts.sort(key=lambda p: abs(p[0] - near))
        if len(pts) >= 2:
            x = _secant(pts[0], pts[1], self.level)
            slope = (pts[0][1] - pts[1][1]) / (pts[0][0] - pts[1][0])
            if x is not None and slope < 0 and abs(x - pts[0][0]) <= math.log(4.0):
                return x
        if pts and self.slope is not None:
            x, y = pts[0]
            x = x + (self.level - y) / self.slope
            if abs(x - pts[0][0]) <= math.log(4.0):
                return x
        # no usable slope: move by ×2 towards the root (the last point's side decides)
        if not self.points:
            return near
        x = near
        y = self.points.get(x, (math.inf, math.inf))[k]
        return x + math.log(2.0) if y > self.level else x - math.log(2.0)

    def _closed(self, good: Callable[[float], bool], k: int, sign: int) -> tuple[float | None, float | None, bool]:
        """(anchor, other, done) of one side.  anchor = the ln σ nearest the crossing where ``good`` holds (the
        least certified one for the upper side, sign = +1; the largest violating one for the lower side,
        sign = −1); other = the nearest evaluated ln σ beyond it (below for +1, above for −1) where it does not.
        Done when the two are within rtol, or within INTERPOLATION_SPAN·rtol with the anchor within
        ACCEPT·rtol of the secant's crossing of side k (0 lower, 1 upper values)."""
        ok = [x for x in self.points if good(x)]
        if not ok:
            return None, None, False
        anchor = min(ok) if sign > 0 else max(ok)
        beyond = [x for x in self.points if sign * (anchor - x) > 0 and not good(x)]
        if not beyond:
            return anchor, None, False
        other = max(beyond) if sign > 0 else min(beyond)
        gap = sign * (anchor - other)
        if gap <= self.step:
            return anchor, other, True
        if gap <= INTERPOLATION_SPAN * self.step:
            left, right = sorted((other, anchor))  # the smaller ln σ first, as the secant was always taken
            r = _secant((left, self.points[left][k]), (right, self.points[right][k]), self.level)
            if r is not None and sign * (anchor - r) <= ACCEPT * self.step:
                return anchor, other, True
        return anchor, other, False

    def _upper_state(self) -> tuple[float | None, float | None, bool]:
        """(a, b, done): b = least certified ln σ, a = largest evaluated ln σ below b not certified."""
        b, a, done = self._closed(self._certified, 1, +1)
        return a, b, done

    def _lower_state(self) -> tuple[float | None, float | None, bool]:
        """(c, d, done): c = largest ln σ proven to violate, d = least evaluated ln σ above c not proven."""
        return self._closed(self._violates, 0, -1)

    def certify(self, x: float) -> tuple[float, float]:
        """(σ⁻, σ⁺) from certified evaluations, starting at ln σ = x."""
        # aim this far beside an estimated root: inside the accepted window (0.9·rtol) with room for the
        # prediction's error both ways, nearer the crossing than its middle (a narrower σ bracket)
        m = 0.3 * self.step
        lo_lim, hi_lim = math.log(SIGMA_MIN), math.log(SIGMA_MAX)
        lower_tries = 0
        self._certify(min(max(x, lo_lim), hi_lim))
        last = x
        while True:
            a, b, up_done = self._upper_state()
            c, d, low_done = self._lower_state()
            if up_done and (low_done or lower_tries >= 6 or self.unresolved_below):
                break
            if len(self.points) >= MAX_CERTIFIED:
                if b is None:
                    raise ValueError(f"{self.function}: no noise multiplier was certified to meet the budget "
                                     f"{self.loose} in {MAX_CERTIFIED} certified compositions")
                break  # sound, if not as tight as asked
            if not up_done:
                ru = self._root(1, b if b is not None else last)
                if b is None or b - ru > ACCEPT * self.step:
                    aim = ru + m  # need a certified σ close above the root
                    if b is None and self.points and max(self.points) >= aim:
                        aim = max(self.points) + math.log(2.0)  # certified nowhere yet: move up
                else:
                    # need a non-certified σ close below b: a point aimed below the lower root serves both
                    rl = self._root(0, b)
                    aim = ru - m
                    if not low_done and c is None and b - (rl - m) <= 0.9 * INTERPOLATION_SPAN * self.step:
                        aim = rl - m
                    if a is not None and aim <= a:
                        aim = 0.5 * (a + b)
            else:
                lower_tries += 1
                # no violation proven yet: the lowest σ evaluated is the nearest to the lower crossing (the
                # secant near b kept aiming at an already evaluated σ: a standstill that ended the search
                # with σ⁻ = 0 although one step lower was provable — T = 200, q = 0.05, ε = 2)
                rl = self._root(0, c if c is not None else min(self.points))
                if c is None or rl - c > ACCEPT * self.step:
                    aim = rl - m
                    if c is None and self.points and min(self.points) <= aim:
                        aim = min(self.points) - math.log(2.0)
                    if d is not None and c is not None and not c < aim < d:
                        aim = 0.5 * (c + d)
                else:
                    aim = rl + m
                    if d is not None and not c < aim < d:
                        aim = 0.5 * (c + d)
            if self._key(aim) in self.points:  # numerical standstill: bisect the open bracket instead
                pair = (a, b) if not up_done else (c, d)
                if up_done and c is None:  # nothing proven below yet: step down past the lowest σ
                    pair = (min(self.points) - 2.0 * max(m, self.step), min(self.points))
                if pair[0] is None or pair[1] is None:
                    break
                aim = 0.5 * (pair[0] + pair[1])
                if self._key(aim) in self.points:
                    break
            if aim > hi_lim:
                if b is None:
                    raise ValueError(f"{self.function}: no noise multiplier ≤ {SIGMA_MAX:g} meets the budget "
                                     f"{self.loose}")
                break
            if aim < lo_lim:
                if up_done:
                    break
                raise ValueError(f"{self.function}: the budget {self.loose} is so loose that even σ = {SIGMA_MIN} "
                                 f"meets it; noise multipliers below {SIGMA_MIN} are outside the supported range")
            self._certify(aim, lower_side=up_done)
            last = aim
        _, b, _ = self._upper_state()
        c, _, _ = self._lower_state()
        if b is None:
            raise ValueError(f"{self.function}: no noise multiplier was certified to meet the budget {self.loose}")
        return (self.sigma[c] if c is not None else 0.0), self.sigma[b]

    def run(self) -> Sandwich:
        return Sandwich(*self.certify(self.locate()))  # σ as evaluated, each certified by its own composition


# ----------------------------------------------------------------------------------------------------
# Poisson sampling: dpsgd_noise_multiplier, dpsgd_max_steps
# ----------------------------------------------------------------------------------------------------

def _check_budget(function: str, epsilon: Any, delta: Any) -> tuple[float, float]:
    e = _real(function, "epsilon", epsilon, low=0.0, finite=True)
    d = _real(function, "delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    if e > 100.0:
        raise ValueError(f"{function}: epsilon = {e!r} is outside the supported [0, 100]")
    if d < 1e-12:
        raise ValueError(f"{function}: delta = {d!r} is below 1e-12, the smallest δ the composition grids certify")
    return e, d


def _refuse_zero_epsilon(function: str, e: float) -> None:
    if e == 0.0:
        # δ(0) is the total-variation distance of the composed pair: a budget (0, δ) needs σ of order
        # q·√T/δ, far outside what a privacy-loss grid resolves; and it is not what DP-SGD users calibrate
        raise ValueError(f"{function}: epsilon = 0 is a degenerate budget (δ(0) is the total-variation "
                         "distance; the noise it needs grows like 1/δ); give epsilon > 0")


def _dpsgd_delta(sigma: float, rate: float, steps: int, epsilon: float, h: float, side: str) -> float:
    """One side of the certified δ(ε) of ``steps`` Poisson-subsampled Gaussian steps at grid spacing h
    (``dpsgd_max_steps``'s evaluation)."""
    g = Gaussian.from_noise_multiplier(sigma)
    # only the side asked for is needed: a plain Gaussian at θ rounded up (upper) or down (lower)
    theta = g.theta if side == "upper" else g.theta_lower
    comp = Composition([(poisson_sampled(Gaussian(theta=theta), rate), steps)])
    lo, hi = comp._delta_at(h, epsilon)
    return hi if side == "upper" else lo


def _dpsgd_sandwich(sigma: float, rate: float, steps: int, epsilon: float, h: float) -> tuple[float, float]:
    """Both sides of the certified δ(ε) at σ from ONE composition: its upper grids use θ = 1/σ rounded up,
    its lower grids θ rounded down (``Gaussian.from_noise_multiplier``); ``_Unresolved`` past the node limit."""
    comp = Composition([(poisson_sampled(Gaussian.from_noise_multiplier(sigma), rate), steps)])
    try:
        return comp._delta_at(h, epsilon)
    except ValueError as exc:
        if "grid nodes" in str(exc):
            raise _Unresolved() from None
        raise


def _grid_for(rate: float, steps: int, tolerance: float, theta: float = 1.0) -> float:
    # the grid compose() would choose for this σ (θ = 1/σ; σ = 1 where σ is still being searched)
    probe = Composition([(poisson_sampled(Gaussian(theta=theta), rate), steps)], tolerance=tolerance)
    return probe._h


def _bisect(a: Any, b: Any, high: Callable[[Any], bool], wide: Callable[[Any, Any], bool],
            integer: bool = False) -> tuple[Any, Any]:
    """Bisect [a, b] while ``wide(a, b)``: where ``high(mid)`` holds, b moves to mid, else a (the invariant
    ``high`` false at a, true at b is the caller's).  ``integer`` bisects integers (mid = ⌊(a + b)/2⌋)."""
    while wide(a, b):
        mid = (a + b) // 2 if integer else 0.5 * (a + b)
        if high(mid):
            b = mid
        else:
            a = mid
    return a, b


def _check_progress(function: str, progress: Any) -> None:
    if progress is not None and not callable(progress):
        raise TypeError(f"{function}: progress must be a callable taking a CalibrationStep, or None; got "
                        f"{type(progress).__name__}")


@refuses_dask
def dpsgd_noise_multiplier(epsilon: float, delta: float, rate: float, steps: int, *,
                           tolerance: float = 1e-3, progress: Callable[[CalibrationStep], Any] | None = None
                           ) -> Sandwich:
    """Certified noise multiplier σ for DP-SGD (Poisson rate ``rate``, ``steps`` steps, add/remove).

    ``upper`` is a σ whose certified *upper* bound on δ(ε) meets the budget: training with noise
    multiplier ``upper`` (Gaussian noise of standard deviation σ·clip norm, θ = 1/σ) is (ε, δ)-DP — safe to
    use.  ``lower`` is a σ at which the certified *lower* bound already exceeds δ: every σ ≤ ``lower``
    violates the budget.  The exact minimal σ lies in [lower, upper]; the gap is the certified width of the
    composition translated to σ (≈ 6e-5·σ for CIFAR-10, ε = 8, 60 epochs) plus at most 2·2e-5·σ of search
    (module docstring: each side within 2e-5 relative of the σ where its certified bound crosses δ).

    Provenance: *source* (SPEC C1) — the certified composition of :func:`compose` (Koskela et al. 2021;
    Gopi et al. 2021; Doroshenko et al. 2022) at the grid spacing compose() chooses at the μ-GDP estimate of σ,
    searched over σ;
    σ enters as ``Gaussian.from_noise_multiplier`` (θ = 1/σ rounded up for the upper grids, down for the lower
    ones: one composition gives both sides).  The search is steered by an uncertified composition on a grid 8×
    coarser and the μ-GDP approximation (Bu et al. 2020); only σ certified by the fine grid are returned.

    Parameters
    ----------
    epsilon : float
        Target ε ∈ (0, 100].
    delta : float
        Target δ ∈ [1e-12, 1).
    rate : float
        Poisson sampling rate q ∈ [1e-12, 1].
    steps : int
        Number of steps T ≥ 1.
    tolerance : float
        Grid tolerance passed to :func:`compose` (ε width at the reference noise).
    progress : callable, optional
        Called with a :class:`CalibrationStep` when each evaluation starts and ends.

    Returns
    -------
    Sandwich
        (lower, upper) noise multipliers.

    Raises
    ------
    ValueError
        For parameters outside their domains, ε = 0 (a degenerate budget), or when no σ in [1e-2, 1e4]
        the grid resolves brackets the budget (the message says which σ is certified, if any).

    Examples
    --------
    >>> import bounds
    >>> s = bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, 100, tolerance=1e-2)
    >>> 1.3 < s.lower < s.upper < 1.4 and (s.upper - s.lower) / s.upper < 1e-3
    True
    """
    function = "dpsgd_noise_multiplier"
    e, d = _check_budget(function, epsilon, delta)
    _refuse_zero_epsilon(function, e)
    q = poisson_sampled(Gaussian(theta=1.0), rate).rate
    t = _check_count(function, steps, "steps")
    _check_progress(function, progress)
    start = _gdp_sigma(e, d, q, t)
    # the grid compose() would choose at the μ-GDP estimate of σ (at σ = 1 before issue 21: too coarse for
    # σ ≫ 1 — rate 1, σ ≈ 25 had a certified gap of 0.2 %); one grid for the whole search
    h = _grid_for(q, t, tolerance, theta=1.0 / start)
    search = _Search(function, lambda s: _dpsgd_sandwich(s, q, t, e, h), d, rtol=2e-5,
                     estimate=lambda s: _dpsgd_sandwich(s, q, t, e, COARSE * h),
                     start=start, progress=progress, loose=f"(ε, δ) = ({e}, {d})")
    return search.run()


@refuses_dask
def dpsgd_max_steps(epsilon: float, delta: float, rate: float, noise_multiplier: float, *,
                    tolerance: float = 1e-3, max_steps: int = 10 ** 7) -> Sandwich:
    """Certified number of DP-SGD steps a budget allows (Poisson rate ``rate``, noise multiplier σ).

    ``lower`` is the largest T whose certified *upper* bound meets (ε, δ) — safe to run; ``upper`` is the
    largest T not proven to violate it (T = upper + 1 is a proven violation by the certified lower bound).
    The exact maximal number of steps lies in [lower, upper].

    Provenance: *source* (SPEC C1) — the certified composition of :func:`compose` (Koskela et al. 2021;
    Gopi et al. 2021; Doroshenko et al. 2022), searched over T; σ enters as ``Gaussian.from_noise_multiplier``
    (θ = 1/σ rounded up for the safe side, down for the violating side).

    Parameters
    ----------
    epsilon, delta : float
        Target budget, ε ∈ [0, 100], δ ∈ [1e-12, 1).
    rate : float
        Poisson sampling rate q.
    noise_multiplier : float
        σ > 0 (θ = 1/σ).
    tolerance : float
        Grid tolerance passed to :func:`compose`.
    max_steps : int
        Search limit (default 1e7).

    Returns
    -------
    Sandwich
        (lower, upper) step counts as ints (0 when not even one step is certified).

    Raises
    ------
    ValueError
        For parameters outside their domains.

    Examples
    --------
    >>> import bounds
    >>> s = bounds.dpsgd_max_steps(1.0, 1e-5, 0.05, 1.5, tolerance=1e-2)
    >>> 0 < s.lower <= s.upper
    True
    """
    function = "dpsgd_max_steps"
    e, d = _check_budget(function, epsilon, delta)
    q = poisson_sampled(Gaussian(theta=1.0), rate).rate
    s = _real(function, "noise_multiplier", noise_multiplier, low=0.0, low_open=True, finite=True)
    Gaussian.from_noise_multiplier(s)  # θ = 1/σ must be a positive finite double
    cap = _check_count(function, max_steps, "max_steps")

    spent = [0.0]

    def delta_side(t, side):
        h = _grid_for(q, t, tolerance)  # the σ = 1 grid: with the actual σ's (finer) grid, σ = 30 took 195 s
        # a bound on the work (issue 19: (1, 1 − 1e-16, 0.05, 1.5) ran 282 s, then failed): the cost of one
        # certified evaluation grows like nodes × log₂ T (measured ≈ 4e6–7e6 such units per CPU second)
        need = Composition([(poisson_sampled(Gaussian(theta=1.0), q), t)], tolerance=tolerance)._estimate_nodes(h)
        cost = need * max(1.0, math.log2(t))
        # refused before the work is done: the evaluation itself and the ≈ log₂ T bisection steps that
        # follow at a similar T must fit (not only what was spent so far)
        if need > MAX_NODES or spent[0] + cost * max(1.0, math.log2(t)) > MAX_STEPS_WORK:
            raise ValueError(f"{function}: the search reached T = {t} steps, where one certified evaluation needs "
                             f"about {need} grid nodes (about {cost / 5e6:.0f} CPU s; the search's work limit is "
                             f"about {MAX_STEPS_WORK / 5e6:.0f} s): the budget (ε, δ) = ({e}, {d}) allows more steps "
                             f"than are certified here; pass a smaller max_steps (or a larger tolerance) to bound T")
        spent[0] += cost
        return _dpsgd_delta(s, q, t, e, h, side)

    # lower: largest T with certified upper ≤ δ (δ is non-decreasing in T)
    if delta_side(1, "upper") > d:
        lower = 0
    else:
        a, b = 1, 2
        while b <= cap and delta_side(b, "upper") <= d:
            a, b = b, 2 * b
        if b > cap:
            if delta_side(cap, "upper") <= d:
                return Sandwich(cap, cap)
            b = cap
        a, b = _bisect(a, b, lambda m: not delta_side(m, "upper") <= d, lambda a, b: b - a > 1, integer=True)
        lower = a
    # upper: smallest T with certified lower > δ, minus one
    a = max(lower, 1)
    if delta_side(a, "lower") > d:
        return Sandwich(lower, a - 1)
    b = a + 1
    while b <= cap and not delta_side(b, "lower") > d:
        a, b = b, b + 2 * (b - a)  # doubling gaps (a + 2(b − a) kept the gap at 1: a linear walk)
    if b > cap:
        return Sandwich(lower, cap)
    a, b = _bisect(a, b, lambda m: delta_side(m, "lower") > d, lambda a, b: b - a > 1, integer=True)
    return Sandwich(lower, a)


# ----------------------------------------------------------------------------------------------------
# every batch sampler, by its words
# ----------------------------------------------------------------------------------------------------

_SHUFFLE_REFUSAL = ("sampler = 'shuffle': only a LOWER side is certified for shuffled batches (no tight upper bound "
                    "is known), so no σ can be certified to meet the budget except through the cyclic bound, which "
                    "dominates shuffling: use sampler='cyclic' for a safe σ (loose), or 'balls_and_bins' if the "
                    "pipeline can draw its batches that way")
_UNRESOLVED = ("grid nodes", "linear grid resolves", "smallest δ this grid certifies")


@refuses_dask
def sampler_noise_multiplier(epsilon: float, delta: float, *, sampler: str, epochs: int,
                             steps_per_epoch: int | None = None, batch_size: int | None = None,
                             dataset_size: int | None = None, adjacency: str | None = None, selected: int = 1,
                             rate: float | None = None, tolerance: float = 1e-3, rtol: float = 1e-3,
                             progress: Callable[[CalibrationStep], Any] | None = None) -> Sandwich:
    """Certified noise multiplier σ of DP-SGD under a batch sampler, by the sampler's words.

    ``upper`` = σ⁺: the certified *upper* ε(δ) of the sampler's composition at σ⁺ (``sampler_composition(sampler=...,
    noise_multiplier=σ⁺, ..., tolerance=tolerance)``, on the grid spacing its refinement reached at the first σ
    evaluated) is ≤ ``epsilon`` — training with σ⁺ (or any larger σ: more noise is post-processing) is
    (ε, δ)-DP under the sampler's adjacency; ``sampler_composition(...).epsilon(delta)`` re-checks it.
    ``lower`` = σ⁻: the certified *lower* ε(δ) there exceeds ``epsilon`` — σ⁻ and every smaller σ provably
    violate the budget; 0.0 when no σ evaluated was proven to violate it (a loose lower side: random allocation
    with k > 1).  Each side lies within ``rtol`` (relative) of where its certified bound crosses ε (module
    docstring); the gap between them is the certified width of the composition translated to σ, plus ≤ 2·rtol.

    Provenance: the rounds of :func:`bounds.samplers.wiring.sampler_steps` (record C2, *source*: Chua et al.
    2024/2025, Feldman & Shenfeld 2025) composed by :func:`bounds.compose` (SPEC C1).  The search is steered by
    an uncertified estimate — the Poisson composition at the sampler's rate (k/T for balls-and-bins and random
    allocation, b/n for fixed-size batches, σ/2 for replace-one), on a coarse grid — and by the μ-GDP
    approximation; the cyclic sampler is exact and cheap and is searched directly.

    Parameters
    ----------
    epsilon : float
        Target ε ∈ (0, 100].
    delta : float
        Target δ ∈ [1e-12, 1).
    sampler : {"poisson", "balls_and_bins", "random_allocation", "fixed_size", "cyclic"}
        The batch sampler's word (``bounds.samplers.SAMPLERS``; "shuffle" is refused: only its lower side is
        certified).
    epochs, steps_per_epoch, batch_size, dataset_size, adjacency, selected, rate : int, str or float
        As for :func:`bounds.samplers.sampler_composition` (T = ``steps_per_epoch`` or ⌈n/b⌉; E epochs).
    tolerance : float
        Passed to :func:`bounds.compose` (the certified ε width).
    rtol : float
        Relative precision of the search, in [1e-6, 0.1].
    progress : callable, optional
        Called with a :class:`CalibrationStep` when each evaluation starts and ends (``stage`` says whether it
        is certified).

    Returns
    -------
    Sandwich
        (σ⁻, σ⁺).

    Raises
    ------
    ValueError
        For parameters outside their domains, ε = 0, sampler "shuffle", or when no σ in [1e-2, 1e4] the grids
        resolve is certified to meet the budget.

    Examples
    --------
    >>> import bounds
    >>> s = bounds.sampler_noise_multiplier(2.0, 1e-5, sampler="cyclic", epochs=3, steps_per_epoch=10,
    ...                                     tolerance=1e-2)
    >>> s.lower < 3.4533845 < s.upper and s.upper / s.lower - 1 < 1e-3  # exact σ 3.45338445… (θ√3; mpmath)
    True
    """
    from .samplers.wiring import ADJACENCY, sampler_steps

    function = "sampler_noise_multiplier"
    e, d = _check_budget(function, epsilon, delta)
    _refuse_zero_epsilon(function, e)
    tol = _real(function, "tolerance", tolerance, low=1e-7, finite=True)
    r = _real(function, "rtol", rtol, low=1e-6, high=0.1)
    _check_progress(function, progress)
    if sampler == "shuffle":
        raise ValueError(f"{function}: {_SHUFFLE_REFUSAL}")
    words = dict(epochs=epochs, steps_per_epoch=steps_per_epoch, batch_size=batch_size, dataset_size=dataset_size,
                 adjacency=adjacency, selected=selected, rate=rate)
    # validates every word (and names this function): the steps at σ = 1
    steps, _ = sampler_steps(sampler=sampler, mechanism=Gaussian.from_noise_multiplier(1.0), function=function,
                             **words)
    E = int(epochs)
    T = int(steps_per_epoch) if steps_per_epoch is not None else -(-int(dataset_size) // int(batch_size))
    adj = adjacency if adjacency is not None else ADJACENCY[sampler][0]

    grid: list[float] = []  # the spacing the first certified composition's refinement settled on

    def certified(s: float) -> tuple[float, float]:
        st, _ = sampler_steps(sampler=sampler, mechanism=Gaussian.from_noise_multiplier(s), function=function,
                              **words)
        comp = Composition(st, tolerance=tol)
        try:
            if not grid:
                lo, hi = comp.epsilon(d)  # refined to the tolerance (or its warning)
                grid.append(comp._h)
            else:
                # one grid per σ: where the width floor is the convolutions' rounding (balls-and-bins), the
                # refinement built two grids per σ for no gain.  ``sampler_composition(σ).epsilon(δ)`` refines
                # from its own first spacing (the same power of two unless σ is far away) and keeps the best of
                # its grids, so it usually re-certifies σ⁺ (the tests check it); soundness needs only this grid
                if d <= comp._floor(grid[0]):
                    raise ValueError("below the smallest δ this grid certifies")
                lo, hi = comp._epsilon_at(grid[0], d)
        except ValueError as exc:
            if any(w in str(exc) for w in _UNRESOLVED):
                raise _Unresolved() from None
            raise
        return lo, hi

    # the estimate that steers the search: Poisson at the sampler's rate, coarse (an approximation, uncertified;
    # for cyclic batches rate 1 and E steps: the Gaussian at θ√E, which is the cyclic round itself)
    if sampler == "poisson":
        q, n_steps = float(steps[0][0].rate), E * T
    elif sampler == "fixed_size":
        q, n_steps = int(batch_size) / int(dataset_size), E * T
    elif sampler == "cyclic":
        q, n_steps = 1.0, E
    else:
        q, n_steps = int(selected) / T, E * T
    # replace-one moves a record's contribution by up to 2 clip norms: the estimate at σ/2
    scale = 0.5 if adj == "replace_one" else 1.0
    coarse = min(max(64.0 * tol, 5e-2), 1.0)  # ≈ 8× the certified spacing (h ∝ √tolerance)

    def estimate(s: float) -> tuple[float, float]:
        comp = Composition([(poisson_sampled(Gaussian.from_noise_multiplier(s * scale), q), n_steps)],
                           tolerance=coarse)
        try:
            return comp._epsilon_at(comp._h, d)
        except ValueError as exc:
            if any(w in str(exc) for w in _UNRESOLVED):
                raise _Unresolved() from None
            raise

    start = _gdp_sigma(e, d, q, n_steps) / scale
    search = _Search(function, certified, e, rtol=r, estimate=estimate, start=start, progress=progress,
                     loose=f"(ε, δ) = ({e}, {d})")
    return search.run()
