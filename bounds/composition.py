"""Composition of mechanisms with a certified sandwich: lower ≤ exact ≤ upper (issue 12).

``Sandwich``, ``PoissonSampled``, ``poisson_sampled`` (fixed interface), ``compose``/``Composition`` and
the DP-SGD calibrations ``dpsgd_noise_multiplier``/``dpsgd_max_steps``.  Names fixed by DESIGN.md,
"Composition and cross-checking".  Proof of soundness: ``docs/composition_proof.md``; kernels:
``numeric.composition``.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._core import is_scalar


def _short(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 40 else f"{r[:12]}…({len(r)} characters)"


def _real(function: str, name: str, value: Any) -> float:
    """``value`` as a float, or a ValueError naming the function and parameter (strings, bytes, None and
    integers beyond the float range are refused rather than parsed or overflowing)."""
    if isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{function}: {name} = {value!r} is not a real number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{function}: {name} = {value!r} is not a real number") from None
    except OverflowError:
        raise ValueError(f"{function}: {name} = {_short(value)} is outside the float range") from None
from .mechanisms import EpsDelta, Gaussian, Laplace
from ._dask import refuses_dask


def _real_array(function: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a float64 array; strings and out-of-range integers refused with a ValueError."""
    try:
        raw = np.asarray(value)
        if raw.dtype.kind in "USV":
            raise ValueError
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{function}: {name} = {value!r} is not a real number (or array of them)") from None
    except OverflowError:
        raise ValueError(f"{function}: {name} = {_short(value)} is outside the float range") from None


class Sandwich(NamedTuple):
    """Certified enclosure ``lower ≤ exact ≤ upper`` (floats for scalar queries, arrays otherwise).

    Returned by ``Composition.delta``/``Composition.epsilon``, the DP-SGD calibrations and ``crosscheck``'s
    verdicts.  ``upper`` is the value safe to report as a guarantee; ``lower`` shows how tight it is (and
    refutes any claim below it).

    Parameters
    ----------
    lower : float or ndarray
        A certified lower bound on the exact value.
    upper : float or ndarray
        A certified upper bound on the exact value.

    Examples
    --------
    >>> import bounds
    >>> s = bounds.Sandwich(0.12, 0.13)
    >>> s.lower <= s.upper, s.upper - s.lower < 0.02
    (True, True)
    >>> lo, hi = s                                        # a NamedTuple
    """

    lower: Any
    upper: Any


@refuses_dask
@dataclass(frozen=True)
class PoissonSampled:
    """``mechanism`` run on a Poisson sample of rate ``rate`` (add/remove relation); SPEC T11 for one step.

    Build it with :func:`poisson_sampled`, which validates its arguments; ``compose`` and ``crosscheck``
    accept it as a step.  Provenance of the one-step profile: SPEC T11 (*source*).

    Parameters
    ----------
    mechanism : Gaussian, Laplace or EpsDelta
        The base mechanism, run on the sample.
    rate : float
        The probability p ∈ [0, 1] with which each record is kept, independently.

    Examples
    --------
    >>> import bounds
    >>> step = bounds.PoissonSampled(bounds.Gaussian(1.0), 0.01)
    >>> step == bounds.poisson_sampled(bounds.Gaussian(1.0), 0.01)
    True
    """

    mechanism: Gaussian | Laplace | EpsDelta
    rate: float


@refuses_dask
def poisson_sampled(mechanism: Gaussian | Laplace | EpsDelta, rate: float) -> PoissonSampled:
    """The Poisson-subsampled mechanism (add/remove): each record kept independently with probability ``rate``.

    One step of DP-SGD is ``poisson_sampled(Gaussian.from_noise_multiplier(σ), q)``.  Its one-step profile is
    SPEC T11 (*source*: the REMOVE/ADD dominating pairs of Google's dp_accounting and autodp, closed forms
    checked against numerical integration); a sequence of such steps is composed by :func:`compose`.

    Parameters
    ----------
    mechanism : Gaussian, Laplace or EpsDelta
        The base mechanism.
    rate : float
        Sampling probability p ∈ [0, 1].

    Returns
    -------
    PoissonSampled

    Raises
    ------
    TypeError
        If ``mechanism`` is not a ``Gaussian``, ``Laplace`` or ``EpsDelta``.
    ValueError
        If ``rate`` is not a real number in [0, 1] (NaN included).

    Examples
    --------
    >>> import bounds
    >>> step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01)
    >>> step.rate, step.mechanism.theta
    (0.01, 1.0)
    """
    if not isinstance(mechanism, (Gaussian, Laplace, EpsDelta)):
        raise TypeError(f"poisson_sampled: mechanism must be Gaussian, Laplace or EpsDelta, not {type(mechanism).__name__}")
    r = _real("poisson_sampled", "rate", rate)
    if not (0.0 <= r <= 1.0) or math.isnan(r):
        raise ValueError(f"poisson_sampled: rate = {r!r} is outside its domain [0, 1]")
    return PoissonSampled(mechanism, r)


# ----------------------------------------------------------------------------------------------------
# composition (issue 12): certified sandwich of the composed privacy profile
# ----------------------------------------------------------------------------------------------------

def _C():
    """numeric.composition, imported (and numba's cache configured) on first use."""
    import numeric

    if not numeric._UFUNCS:
        numeric._configure_cache()
    from numeric import composition

    return composition


MAX_NODES = 1 << 23  # largest composed grid (64 MiB per vector; FFT work space stays well below 2 GiB)
MAX_STEPS = 10 ** 8
MAX_REFINEMENTS = 3
WIDTH_CONSTANT = 40.0  # model of the ε-width: ≈ WIDTH_CONSTANT·√T·h²·(1 + 1/θ-spread); refined by measuring


def _check_count(function: str, count: Any) -> int:
    if isinstance(count, bool):
        raise ValueError(f"{function}: count = {count!r} must be an integer ≥ 1")
    if isinstance(count, int) and count > MAX_STEPS:
        raise ValueError(f"{function}: count = {_short(count)} exceeds the supported {MAX_STEPS:.0e} steps")
    c = _real(function, "count", count)
    if not math.isfinite(c) or c != int(c):
        raise ValueError(f"{function}: count = {count!r} must be an integer ≥ 1 (number of steps)")
    c = int(c)
    if c < 1:
        raise ValueError(f"{function}: count = {c} must be ≥ 1 (a composition of zero steps is the identity)")
    if c > MAX_STEPS:
        raise ValueError(f"{function}: count = {c} exceeds the supported {MAX_STEPS:.0e} steps")
    return c


# ----- plug-in rounds (issue 21: batch samplers) ---------------------------------------------------
# A step object that is not one of the built-in mechanisms may supply its own one-round grids.  It must
# be hashable and have a distinct repr per distinct value, and define
#   _composition_grids(direction: int, h: float) -> (upper Grid, lower Grid)
#       per direction (numeric.composition.REMOVE / ADD) a dominating and a dominated grid measure on the
#       nodes k·h (H_lower ≤ H_exact ≤ H_upper for every c > 0: docs/composition_proof.md, Lemma 1);
#   _asymmetric: bool        — True when the ADD direction differs from REMOVE (both are then composed);
#   _loss_scale() -> (range, sd) — the one-round loss range and standard deviation (grid sizing only:
#       soundness never depends on them);
#   optionally _gap_is_inherent = True — the upper side is a bound, not tight (no grid refinement).
# The same direction is seen by every step of a run, so a round's REMOVE grid composes with the other
# steps' REMOVE grids (heterogeneous pipelines: epochs of one sampler, then steps of another).

def _is_round(mechanism: Any) -> bool:
    return callable(getattr(mechanism, "_composition_grids", None))


def _kind(function: str, mechanism: Any) -> tuple:
    """('noise', mech, θ, q, θ_lower), ('epsdelta', ε₀, δ₀) or ('round', repr, round object).

    θ is the mechanism's ``theta`` (an upper bound on the exact θ: the upper grids use it), θ_lower its
    ``theta_lower`` (a lower bound: the lower grids use it; both profiles are non-decreasing in θ)."""
    if _is_round(mechanism):
        return ("round", repr(mechanism), mechanism)
    if isinstance(mechanism, PoissonSampled):
        inner = mechanism.mechanism
        if isinstance(inner, EpsDelta):
            raise ValueError(f"{function}: poisson_sampled(EpsDelta(...)) is not supported; compose "
                             "EpsDelta(*poisson_subsampling(eps, delta, rate)) instead (SPEC T1)")
        q = mechanism.rate
        if not q > 0.0:
            raise ValueError(f"{function}: rate = {q!r}: a rate-0 step releases nothing; leave it out")
        if q < 1e-12:
            raise ValueError(f"{function}: rate = {q!r} is below the supported 1e-12 (the privacy loss per step "
                             "is below the grid resolution; the composed δ(ε) is ≤ T·rate·δ_M(ε) by SPEC T1)")
        return ("noise", 0 if isinstance(inner, Gaussian) else 1, inner.theta, q, inner.theta_lower)
    if isinstance(mechanism, Gaussian):
        return ("noise", 0, mechanism.theta, 1.0, mechanism.theta_lower)
    if isinstance(mechanism, Laplace):
        return ("noise", 1, mechanism.theta, 1.0, mechanism.theta_lower)
    if isinstance(mechanism, EpsDelta):
        if not math.isfinite(mechanism.epsilon):
            raise ValueError(f"{function}: EpsDelta epsilon = inf has no finite composition")
        return ("epsdelta", mechanism.epsilon, mechanism.delta)
    raise ValueError(f"{function}: mechanism = {mechanism!r} must be Gaussian, Laplace, EpsDelta or "
                     "poisson_sampled(Gaussian | Laplace, rate)")


class Composition:
    """The composition of ``steps`` (a list of ``(mechanism, count)``) with a certified sandwich.

    Built by :func:`compose`; see there (SPEC C1, *source*: Koskela et al. 2021; Gopi et al. 2021;
    Doroshenko et al. 2022).  ``delta(epsilon)`` and ``epsilon(delta)`` return ``Sandwich(lower, upper)``
    with ``lower ≤ exact ≤ upper`` (proof: ``docs/composition_proof.md``).  The grids are built on first
    use and cached, so further queries on the same object are fast.

    Parameters
    ----------
    steps : list of (mechanism, count)
        As for :func:`compose`.
    tolerance : float
        Target width of the ε sandwich, in [1e-7, inf).

    Examples
    --------
    >>> import bounds
    >>> comp = bounds.Composition([(bounds.Gaussian(0.5), 4)], tolerance=1e-2)   # = compose(...)
    >>> s = comp.delta(1.0)              # 4 × Gaussian(0.5) = Gaussian(1): exact δ(1) = 0.126936737...
    >>> s.lower <= 0.1269367375 <= s.upper
    True
    >>> comp.total_steps
    4
    """

    def __init__(self, steps: Sequence, tolerance: float = 1e-3):
        function = "compose"
        tol = _real(function, "tolerance", tolerance)
        if not (tol > 0.0) or not math.isfinite(tol):
            raise ValueError(f"{function}: tolerance = {tolerance!r} must lie in (0, inf) (target width of the "
                             "ε sandwich)")
        if tol < 1e-7:
            raise ValueError(f"{function}: tolerance = {tol!r} is not reachable: the floating-point floor of "
                             "the certified ε width is about 1e-7 (grid ≤ 2^23 nodes, FFT error); use ≥ 1e-7")
        if isinstance(steps, tuple) and len(steps) == 2 and not isinstance(steps[0], tuple):
            steps = [steps]
        try:
            items = list(steps)
        except TypeError:
            raise ValueError(f"{function}: steps = {steps!r} must be a list of (mechanism, count)") from None
        if not items:
            raise ValueError(f"{function}: steps is empty (nothing to compose)")
        parsed: dict[tuple, int] = {}
        for item in items:
            try:
                mech, count = item
            except (TypeError, ValueError):
                raise ValueError(f"{function}: step {item!r} must be a pair (mechanism, count)") from None
            key = _kind(function, mech)
            parsed[key] = parsed.get(key, 0) + _check_count(function, count)
        total = sum(parsed.values())
        if total > MAX_STEPS:
            raise ValueError(f"{function}: {total} steps in all exceed the supported {MAX_STEPS:.0e}")
        self.steps = parsed
        self.tolerance = tol
        self.total_steps = total
        self._cache: dict[float, tuple] = {}
        self._h = self._initial_h()
        # optional callable(str) told which stage a long computation is in (the CLI's progress line)
        self.progress: Any = None

    def _report(self, stage: str) -> None:
        if self.progress is not None:
            self.progress(stage)

    # -- grid ---------------------------------------------------------------------------------------
    def _initial_h(self) -> float:
        width = WIDTH_CONSTANT * math.sqrt(self.total_steps)
        h = math.sqrt(self.tolerance / width)
        # the grid must also resolve each step's own loss distribution (standard deviation s₁ ≈ q·√(e^{θ²} − 1)
        # for a subsampled Gaussian, θ for the plain one): h ≤ s₁/16 (measured: the greedy lower side needs
        # many cells per step)
        for key in self.steps:
            if key[0] == "round":
                s1 = key[2]._loss_scale()[1]
                if s1 > 0:
                    h = min(h, max(s1 / 16.0, 2.0 ** -20))
            if key[0] == "noise":
                _, mech, theta, q, theta_lower = key
                s1 = theta if q >= 1.0 else q * math.sqrt(math.expm1(min(theta * theta, 700.0)))
                if s1 > 0:
                    h = min(h, max(s1 / 16.0, 2.0 ** -20))
        return 2.0 ** math.floor(math.log2(min(h, 2.0 ** -6)))

    def _directions(self) -> tuple[int, ...]:
        C = _C()
        asym = any((k[0] == "noise" and k[3] < 1.0) or (k[0] == "round" and k[2]._asymmetric) for k in self.steps)
        return (C.REMOVE, C.ADD) if asym else (C.REMOVE,)

    def _estimate_nodes(self, h: float) -> int:
        C = _C()
        n = 0.0
        spread = 0.0
        for key, count in self.steps.items():
            if key[0] == "epsdelta":
                rng = 2 * key[1]
                sd = key[1]
            elif key[0] == "round":
                rng, sd = key[2]._loss_scale()
            else:
                _, mech, theta, q, theta_lower = key
                a_w, s_p, b_w, s_q = C.pair_parameters(mech, C.REMOVE, theta, q)
                z = C.TAIL_Z[mech]
                lo = C.loss_at(mech, a_w, s_p, b_w, s_q, min(0.0, s_p) - z)
                hi = C.loss_at(mech, a_w, s_p, b_w, s_q, max(0.0, s_p) + z)
                rng = hi - lo
                sd = min(rng, theta if q >= 1.0 else 2.0 * q * math.sqrt(math.expm1(min(theta * theta, 700.0))))
            n = max(n, rng)
            spread += count * sd * sd
        return int((3 * n + 24 * math.sqrt(spread)) / h) + 16

    def _grids(self, h: float):
        """Per direction, the composed (upper, lower) grids (cached per h)."""
        C = _C()
        if h in self._cache:
            return self._cache[h]
        need = self._estimate_nodes(h)
        if need > MAX_NODES:
            raise ValueError(f"compose: this composition needs about {need} grid nodes at spacing {h!r} "
                             f"(limit {MAX_NODES}): the privacy loss range is too wide for the requested "
                             f"tolerance {self.tolerance!r}; a larger tolerance (or more noise) is needed")
        out = []
        directions = self._directions()
        for i, direction in enumerate(directions):
            self._report(f"grid spacing 2^{math.log2(h):.0f}, about {need} nodes: direction {i + 1}/{len(directions)}, "
                         "one-step grids")
            steps = []
            for key, count in sorted(self.steps.items()):
                if key[0] == "epsdelta":
                    u, lw = C.eps_delta_step(key[1], key[2], h)
                elif key[0] == "round":
                    u, lw = key[2]._composition_grids(direction, h)
                else:
                    _, mech, theta, q, theta_lower = key
                    u, lw = C.one_step(mech, direction, theta, q, h)
                    if theta_lower != theta:  # the lower grid from θ rounded down (σ or b kept exactly)
                        _, lw = C.one_step(mech, direction, theta_lower, q, h)
                u = C.cut_left(u, C.LEFT_TAIL / self.total_steps, True)
                lw = C.cut_left(lw, C.LEFT_TAIL / self.total_steps, False)
                steps.append((u, lw, count))
            # one tilt for the whole sequence (convolution needs equal tilts): the smallest phase choice
            lam = min(C.choose_tilt(u, self.total_steps, h) for u, _, _ in steps)
            up = low = None
            for j, (u, lw, count) in enumerate(steps):
                self._report(f"grid spacing 2^{math.log2(h):.0f}, about {need} nodes: direction {i + 1}/"
                             f"{len(directions)}, phase {j + 1}/{len(steps)}: {count} steps by FFT")
                ext = self.total_steps >= C.EXTENDED_FROM
                pu = C.power(u, count, True, lam=lam, extended=ext)
                pl = C.power(lw, count, False, lam=lam, extended=ext)
                if up is None:
                    up, low = pu, pl
                else:
                    up = C.convolve(up, pu, up.k0 + pu.k0 - 8, up.k1 + pu.k1, True, ext)
                    low = C.convolve(low, pl, low.k0 + pl.k0 - 8, low.k1 + pl.k1, False, ext)
            out.append((C.untilted(up, True), C.untilted(low, False)))
        self._cache[h] = (h, out)
        return self._cache[h]

    def _delta_at(self, h: float, eps: float) -> tuple[float, float]:
        C = _C()
        _, grids = self._grids(h)
        lo = max(C.hockey_stick(g_l.m, g_l.k0, h, g_l.m_inf, eps, False) for _, g_l in grids)
        hi = max(C.hockey_stick(g_u.m, g_u.k0, h, g_u.m_inf, eps, True) for g_u, _ in grids)
        return lo, hi

    def _floor(self, h: float) -> float:
        """δ_upper at the top of the grid: the smallest δ this grid certifies."""
        C = _C()
        _, grids = self._grids(h)
        return max(C.hockey_stick(g.m, g.k0, h, g.m_inf, (g.k1 + 1) * h, True) for g, _ in grids)

    def _tables(self, h: float):
        C = _C()
        key = ("tables", h)
        if key not in self._cache:
            _, grids = self._grids(h)
            self._cache[key] = [(C.suffix_tables(g.m, g.k0, h), g) for pair in grids for g in pair]
        return self._cache[key]

    def _epsilon_at(self, h: float, delta: float) -> tuple[float, float]:
        """(lower, upper) for ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ} at grid spacing h.

        The search runs on unrounded suffix sums (fast); its results are then *verified* with the rigorously
        rounded hockey-stick sums and moved outward until the verification holds: upper with
        δ_upper(ε) ≤ δ (so the exact δ(ε) ≤ δ), lower with δ_lower(ε) > δ (so the exact ε(δ) > ε).
        """
        C = _C()
        _, grids = self._grids(h)
        tables = self._tables(h)
        ups = tables[0::2]
        lows = tables[1::2]
        top = max(g.k1 for g, _ in grids) * h + h

        def approx(side, e):
            return max(C.approx_hockey_stick(sp, sq, g.k0, h, g.m_inf, e) for (sp, sq), g in side)

        def search(side):
            if approx(side, 0.0) <= delta:
                return 0.0
            if approx(side, top) > delta:
                return math.inf
            a, b = 0.0, top
            for _ in range(200):
                mid = 0.5 * (a + b)
                if not (a < mid < b) or b - a <= 1e-14 * max(1.0, b):
                    break
                if approx(side, mid) <= delta:
                    b = mid
                else:
                    a = mid
            return b

        upper = search(ups)
        if math.isfinite(upper):
            step = 1e-13 * max(1.0, upper)
            for _ in range(200):
                if self._delta_at(h, upper)[1] <= delta:
                    break
                upper += step
                step *= 2
            else:
                upper = math.inf
        lower = search(lows)
        if lower > 0.0:
            lower = min(lower, top)
            step = 1e-13 * max(1.0, lower)
            for _ in range(200):
                if lower <= 0.0:
                    lower = 0.0
                    break
                if self._delta_at(h, lower)[0] > delta:
                    break
                lower -= step
                step *= 2
            lower = max(lower, 0.0)
        return lower, upper

    def _refined(self, width_of) -> float:
        """The grid spacing: halve h until width_of(h) ≤ tolerance or the node limit is reached."""
        h = self._h
        if any(k[0] == "round" and getattr(k[2], "_gap_is_inherent", False) for k in self.steps):
            # a plug-in round whose upper side is only a bound (shuffling: the cyclic value): the sandwich's
            # gap is the sampler's, refining the grid cannot close it
            return h
        for _ in range(MAX_REFINEMENTS + 1):
            w = width_of(h)
            if w <= self.tolerance:
                self._h = h
                return h
            if self._estimate_nodes(h / 2) > MAX_NODES or h < 2.0 ** -30:
                break
            h /= 2
        else:
            h *= 2
        warnings.warn(f"compose: certified ε width {w:.3g} exceeds the tolerance {self.tolerance!r} at grid "
                      f"spacing {h!r} (refinement limit reached: {MAX_NODES} nodes or {MAX_REFINEMENTS} halvings; "
                      "lower sides with atoms off the grid — EpsDelta, Laplace — converge only like h)",
                      stacklevel=3)
        self._h = h
        return h

    # -- public -------------------------------------------------------------------------------------
    def delta(self, epsilon: ArrayLike) -> Sandwich:
        """Certified ``Sandwich(lower, upper)`` of δ(ε), the worse of the REMOVE and ADD directions.

        Parameters
        ----------
        epsilon : array_like
            ε ∈ ℝ (finite or +inf).

        Returns
        -------
        Sandwich
            Floats for scalar input, arrays otherwise.

        Raises
        ------
        ValueError
            If ε is NaN.
        """
        _C()  # numeric.composition imported (kernels compiled or loaded) before the grids are built
        scalar = is_scalar(epsilon)
        e = _real_array("Composition.delta", "epsilon", epsilon)
        if np.isnan(e).any():
            raise ValueError("Composition.delta: epsilon is NaN")

        def width(h):
            # relative width of the δ sandwich (≈ the ε width times |d ln δ/dε|, which is ≥ 1 in the range
            # of interest): a proxy that also suits profiles with flat parts (atoms), where ε(δ) jumps
            worst = 0.0
            for x in e.ravel():
                if not math.isfinite(x):
                    continue
                lo, hi = self._delta_at(h, float(x))
                if lo > 0 and hi < 1:
                    worst = max(worst, (hi - lo) / hi)
            return worst

        h = self._refined(width)
        lows = np.empty(e.shape)
        ups = np.empty(e.shape)
        for idx, x in np.ndenumerate(e):
            if x == math.inf:
                lows[idx], ups[idx] = 0.0, max(g.m_inf for g, _ in self._grids(h)[1])
                continue
            lows[idx], ups[idx] = self._delta_at(h, float(x))
        if scalar:
            return Sandwich(float(lows), float(ups))
        return Sandwich(lows, ups)

    def epsilon(self, delta: ArrayLike) -> Sandwich:
        """Certified ``Sandwich(lower, upper)`` of ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ} (worse direction).

        Parameters
        ----------
        delta : array_like
            δ ∈ (0, 1).

        Returns
        -------
        Sandwich
            ``upper`` is safe to report: the composition is (upper, δ)-DP.

        Raises
        ------
        ValueError
            If δ is NaN, outside (0, 1), or below the smallest δ the grid certifies.
        """
        scalar = is_scalar(delta)
        d = _real_array("Composition.epsilon", "delta", delta)
        if np.isnan(d).any() or (d <= 0).any() or (d >= 1).any():
            raise ValueError(f"Composition.epsilon: delta = {delta!r} must lie in (0, 1)")

        def width(h):
            floor = self._floor(h)
            if (d <= floor).any():
                raise ValueError(f"Composition.epsilon: delta = {float(d.min())!r} is below {floor:.3g}, the "
                                 "smallest δ this grid certifies (floating-point error of the convolutions and "
                                 "the truncated tails); the exact ε there is not certified")
            return max(u - lo for lo, u in (self._epsilon_at(h, float(x)) for x in d.ravel()))

        h = self._refined(width)
        lows = np.empty(d.shape)
        ups = np.empty(d.shape)
        for idx, x in np.ndenumerate(d):
            lows[idx], ups[idx] = self._epsilon_at(h, float(x))
        if scalar:
            return Sandwich(float(lows), float(ups))
        return Sandwich(lows, ups)

    def __repr__(self) -> str:
        return f"Composition({self.total_steps} steps, tolerance={self.tolerance!r})"


@refuses_dask
def compose(steps: Sequence, *, tolerance: float = 1e-3) -> Composition:
    """Certified composition of DP mechanisms: ``lower ≤ exact ≤ upper`` for δ(ε) and ε(δ).

    The composed privacy profile δ(ε) = E[(1 − e^{ε − ΣLᵢ})₊] (Lᵢ the privacy losses of the steps) is
    enclosed by discretising each step's privacy-loss distribution on a grid of spacing h (a power of two):
    a *dominating* grid measure (connect-the-dots: the chordal interpolation of the exact profile, which is
    convex in e^ε) and a *dominated* one (outputs merged into cells, post-processing; losses rounded down),
    composed by FFT with a proven floating-point error bound added (upper) or subtracted (lower).  Proof and
    what is and is not certified: ``docs/composition_proof.md``.  Provenance: *source* (SPEC C1; Koskela
    et al. 2021; Gopi et al. 2021;
    Doroshenko et al. 2022; Ghazi et al. 2022; Dong, Roth, Su 2022 for dominance).

    Add/remove relation: for Poisson-subsampled steps the REMOVE and ADD directions are composed separately
    and the worse is reported (every step sees the same direction).  Plain ``Gaussian(θ)``/``Laplace(θ)``
    (θ = Δ/σ resp. Δ/b; a DP-SGD noise multiplier σ is ``Gaussian.from_noise_multiplier(σ)``, θ = 1/σ) and
    ``EpsDelta(ε, δ)`` (its four-atom randomized-response pair) are symmetric.

    Parameters
    ----------
    steps : list of (mechanism, count)
        ``mechanism`` is ``Gaussian``, ``Laplace``, ``EpsDelta`` or ``poisson_sampled(Gaussian | Laplace,
        rate)``; ``count`` an integer ≥ 1.  Heterogeneous sequences are allowed.
    tolerance : float
        Target width of the ε sandwich (absolute, default 1e-3).  The grid is refined until
        ``epsilon(δ)``'s width (for ``delta(ε)``: the relative width of the δ sandwich) meets it; if the
        refinement limit is reached first, a warning states the width reached.

    Returns
    -------
    Composition

    Raises
    ------
    ValueError
        For an unsupported mechanism, a count that is not an integer in [1, 1e8], a tolerance outside
        [1e-7, inf), or a composition whose loss range needs more than 2^23 grid nodes.

    Examples
    --------
    >>> import bounds
    >>> step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01)
    >>> eps = bounds.compose([(step, 1000)]).epsilon(1e-5)
    >>> eps.lower <= 1.8282 <= eps.upper and eps.upper - eps.lower <= 1e-3
    True
    """
    return Composition(steps, tolerance=tolerance)


# ----------------------------------------------------------------------------------------------------
# DP-SGD calibration
# ----------------------------------------------------------------------------------------------------

def _check_budget(function: str, epsilon: Any, delta: Any) -> tuple[float, float]:
    e, d = _real(function, "epsilon", epsilon), _real(function, "delta", delta)
    if not (e >= 0.0 and math.isfinite(e)):
        raise ValueError(f"{function}: epsilon = {epsilon!r} must lie in [0, inf)")
    if not (0.0 < d < 1.0):
        raise ValueError(f"{function}: delta = {delta!r} must lie in (0, 1)")
    if e > 100.0:
        raise ValueError(f"{function}: epsilon = {e!r} is outside the supported [0, 100]")
    if d < 1e-12:
        raise ValueError(f"{function}: delta = {d!r} is below 1e-12, the smallest δ the composition grids certify")
    return e, d


def _dpsgd_delta(sigma: float, rate: float, steps: int, epsilon: float, h: float, side: str) -> float:
    g = Gaussian.from_noise_multiplier(sigma)
    # only the side asked for is needed: a plain Gaussian at θ rounded up (upper) or down (lower)
    theta = g.theta if side == "upper" else g.theta_lower
    comp = Composition([(poisson_sampled(Gaussian(theta), rate), steps)])
    lo, hi = comp._delta_at(h, epsilon)
    return hi if side == "upper" else lo


def _grid_for(rate: float, steps: int, tolerance: float, theta: float = 1.0) -> float:
    # the grid compose() would choose for this σ (θ = 1/σ; σ = 1 where σ is still being searched)
    probe = Composition([(poisson_sampled(Gaussian(theta), rate), steps)], tolerance=tolerance)
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


@refuses_dask
def dpsgd_noise_multiplier(epsilon: float, delta: float, rate: float, steps: int, *,
                           tolerance: float = 1e-3) -> Sandwich:
    """Certified noise multiplier σ for DP-SGD (Poisson rate ``rate``, ``steps`` steps, add/remove).

    ``upper`` is a σ whose certified *upper* bound on δ(ε) meets the budget: training with noise
    multiplier ``upper`` (Gaussian noise of standard deviation σ·clip norm, θ = 1/σ) is (ε, δ)-DP — safe to
    use.  ``lower`` is a σ at which the certified *lower* bound already exceeds δ: every σ ≤ ``lower``
    violates the budget.  The exact minimal σ lies in [lower, upper]; the gap is the price of the
    discretisation (typically < 0.1% of σ).

    Provenance: *source* (SPEC C1) — the certified composition of :func:`compose` (Koskela et al. 2021;
    Gopi et al. 2021; Doroshenko et al. 2022), searched over σ; σ enters as ``Gaussian.from_noise_multiplier``
    (θ = 1/σ rounded up for the safe side, down for the violating side).

    Parameters
    ----------
    epsilon : float
        Target ε ∈ [0, 100].
    delta : float
        Target δ ∈ [1e-12, 1).
    rate : float
        Poisson sampling rate q ∈ [1e-12, 1].
    steps : int
        Number of steps T ≥ 1.
    tolerance : float
        Grid tolerance passed to :func:`compose` (ε width at the reference noise).

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
    if e == 0.0:
        # δ(0) is the total-variation distance of the composed pair: a budget (0, δ) needs σ of order
        # q·√T/δ, far outside what a privacy-loss grid resolves; and it is not what DP-SGD users calibrate
        raise ValueError(f"{function}: epsilon = 0 is a degenerate budget (δ(0) is the total-variation "
                         "distance; the noise it needs grows like 1/δ); give epsilon > 0")
    q = poisson_sampled(Gaussian(1.0), rate).rate
    t = _check_count(function, steps)
    h = _grid_for(q, t, tolerance)
    certified: list[float] = []

    def safe(s):
        try:
            ok = _dpsgd_delta(s, q, t, e, h, "upper") <= d
        except ValueError as exc:
            if "grid nodes" not in str(exc):
                raise
            found = f"; σ = {min(certified)!r} is certified to meet it" if certified else ""
            raise ValueError(f"{function}: the budget (ε, δ) = ({e}, {d}) is so loose that the noise multiplier "
                             f"it needs lies below σ = {s!r}, where the composition's privacy-loss range is too "
                             f"wide for the grid{found}") from None
        if ok:
            certified.append(s)
        return ok

    def violates(s):
        return _dpsgd_delta(s, q, t, e, h, "lower") > d

    lo, hi = 1.0, 1.0
    if safe(hi):
        while safe(lo):
            hi = lo
            lo /= 2
            if lo < 1e-2:
                raise ValueError(f"{function}: even σ = 0.01 meets (ε, δ) = ({e}, {d}); noise multipliers below "
                                 "0.01 are outside the supported range")
    else:
        while not safe(hi):
            lo = hi
            hi *= 2
            if hi > 1e4:
                raise ValueError(f"{function}: no noise multiplier ≤ 1e4 meets (ε, δ) = ({e}, {d}) with rate {q} "
                                 f"and {t} steps")
    # lo unsafe (not certified), hi certified safe
    lo, hi = _bisect(lo, hi, safe, lambda a, b: b - a > 2e-5 * b)
    upper = hi
    # lower: walk down from the upper side until the lower bound proves a violation
    step = 1e-4 * upper
    cand = upper - step
    while cand > 0 and not violates(cand):
        step *= 2
        cand = upper - step
    if cand <= 0:
        return Sandwich(0.0, upper)
    a, b = cand, upper - step / 2  # a violates; b not shown to violate
    a, b = _bisect(a, b, lambda s: not violates(s), lambda a, b: b - a > 2e-5 * upper)
    return Sandwich(a, upper)


@refuses_dask
def dpsgd_max_steps(epsilon: float, delta: float, rate: float, noise_multiplier: float, *,
                    tolerance: float = 1e-3, max_steps: int = 10 ** 7) -> Sandwich:
    """Certified number of DP-SGD steps a budget allows (Poisson rate ``rate``, noise multiplier σ).

    ``lower`` is the largest T whose certified *upper* bound meets (ε, δ) — safe to run; ``upper`` is the
    largest T not proven to violate it (T = upper + 1 is a proven violation by the certified lower bound).
    The exact maximal number of steps lies in [lower, upper].

    Provenance: *source* (SPEC C1) — the certified composition of :func:`compose` (Koskela et al. 2021;
    Gopi et al. 2021; Doroshenko et al. 2022), searched over σ; σ enters as ``Gaussian.from_noise_multiplier``
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
    q = poisson_sampled(Gaussian(1.0), rate).rate
    Gaussian.from_noise_multiplier(noise_multiplier)  # validates σ
    s = _real(function, "noise_multiplier", noise_multiplier)
    cap = _check_count(function, max_steps)

    def delta_side(t, side):
        h = _grid_for(q, t, tolerance)  # the σ = 1 grid: with the actual σ's (finer) grid, σ = 30 took 195 s
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
