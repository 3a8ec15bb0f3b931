"""Composition of mechanisms with a certified sandwich: lower ≤ exact ≤ upper (issue 12).

``Sandwich``, ``PoissonSampled``, ``poisson_sampled`` (fixed interface) and ``compose``/``Composition``;
the DP-SGD calibrations live in :mod:`bounds.calibration`.  Names fixed by DESIGN.md,
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

from ._arguments import integer, real_array, real_number
from ._core import _fmt, is_scalar


def _short(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 40 else f"{r[:12]}…({len(r)} characters)"


def _real(function: str, name: str, value: Any, **domain: Any) -> float:
    """``value`` as one float in ``domain`` (``_arguments.real_number``'s keywords), or a ``ValueError`` (a
    ``ParameterTypeError`` for bools, strings, ``None``, complex numbers) naming the function and parameter."""
    return real_number(function, name, value, **domain)


from .mechanisms import EpsDelta, Gaussian, Laplace
from ._dask import refuses_dask


def _real_array(function: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a float64 array; bools, strings, complex numbers, ``None`` and integers float64 cannot
    hold exactly refused (``_arguments.real_array``)."""
    return real_array(function, name, value)


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
    >>> step = bounds.PoissonSampled(bounds.Gaussian(theta=1.0), 0.01)
    >>> step == bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 0.01)
    True
    """

    mechanism: Gaussian | Laplace | EpsDelta
    rate: float

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, (Gaussian, Laplace, EpsDelta)):
            raise TypeError(f"PoissonSampled: mechanism must be Gaussian, Laplace or EpsDelta, not "
                            f"{type(self.mechanism).__name__}")
        object.__setattr__(self, "rate", _real("PoissonSampled", "rate", self.rate, low=0.0, high=1.0))


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
    return PoissonSampled(mechanism, _real("poisson_sampled", "rate", rate, low=0.0, high=1.0))


# ----------------------------------------------------------------------------------------------------
# composition (issue 12): certified sandwich of the composed privacy profile
# ----------------------------------------------------------------------------------------------------

_COMPOSITION = None


def _C():
    """numeric.composition, imported (and numba's cache configured) on first use.

    Memoised (issue 21): it is called on every δ evaluation, and ``numeric._configure_cache`` hashes every
    source file of ``numeric`` — ≈ 3 ms a call, most of a 1000-step ``epsilon``'s 0.5 s CPU (measured)."""
    global _COMPOSITION
    if _COMPOSITION is None:
        import numeric

        if not numeric._UFUNCS:
            numeric._configure_cache()
        from numeric import composition

        _COMPOSITION = composition
    return _COMPOSITION


MAX_NODES = 1 << 23  # largest composed grid (64 MiB per vector; FFT work space stays well below 2 GiB)
MAX_STEPS = 10 ** 8
MAX_REFINEMENTS = 3
MAX_STEPS_WORK = 2e8  # dpsgd_max_steps: work limit in nodes × log₂ T units (≈ 30–50 CPU s measured)
WIDTH_CONSTANT = 40.0  # model of the ε-width: ≈ WIDTH_CONSTANT·√T·h²·(1 + 1/θ-spread); refined by measuring
WIDTH_GROWTH = 8.0  # ... and ≈ WIDTH_GROWTH·T^0.73·h² for long runs (issue 21, measured at q = 0.01, σ = 1)
SQUARING = "squaring"  # grid-set key (SQUARING, h): the squaring fallback's grids at spacing h (issue 21)
# the squaring fallback's work limit per direction grid, in nodes × squaring levels (≈ 300 ns CPU each in long
# double, measured at 10⁴ and 10⁵ steps: ≈ 6 s CPU); a grid beyond it is not squared (the width warning says so)
SQUARING_WORK = 2e7
# the start of ``Composition.delta``'s warning at points left out of the refinement (the grid's floor): callers
# that expect it (``crosscheck`` for a decided claim, certify's checks) filter by it
UNRESOLVED_WARNING = "Composition.delta: at epsilon"


def _check_count(function: str, count: Any, name: str = "count") -> int:
    """A number of steps: an integer in [1, MAX_STEPS] (numpy integers and integral floats accepted)."""
    return integer(function, name, count, low=1, high=MAX_STEPS, what="number of steps")


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


def _merge_gaussians(parsed: dict[tuple, int]) -> dict[tuple, int]:
    """All plain Gaussian steps as one Gaussian(θ) with θ² = Σ countᵢ·θᵢ² (one step).

    Exact: the dominating pairs (N(0, 1), N(θᵢ, 1)) tensorise to (N(0, I), N(θ, I)) with θ = ‖(θᵢ)‖, which a
    rotation (post-processing both ways) reduces to the one-dimensional pair at ‖θ‖ (SPEC T9; Balle–Wang
    2018).  θ is rounded outward for each side (δ is non-decreasing in θ): the sum of n products
    countᵢ·θᵢ·θᵢ carries ≤ (n + 3)U relative, sqrt ≤ U, then one ``nextafter`` outward.  Issue 19: 10⁵
    Gaussian steps needed a grid too wide for the node limit (and a wrong diagnosis in the calibration)."""
    gauss = [(key, count) for key, count in parsed.items() if key[0] == "noise" and key[1] == 0 and key[3] >= 1.0]
    if len(gauss) == 1 and gauss[0][1] == 1:
        return parsed
    if not gauss:
        return parsed
    out = {key: count for key, count in parsed.items() if not (key[0] == "noise" and key[1] == 0 and key[3] >= 1.0)}
    u = 2.0 ** -53
    rel = (len(gauss) + 3) * u
    s_up = math.fsum(float(count) * key[2] * key[2] for key, count in gauss)
    s_lo = math.fsum(float(count) * key[4] * key[4] for key, count in gauss)
    theta = float(np.nextafter(math.sqrt(s_up * (1 + rel)) * (1 + 2 * u), math.inf))
    theta_lower = float(np.nextafter(math.sqrt(s_lo * (1 - rel)) * (1 - 2 * u), 0.0))
    if not math.isfinite(theta):
        raise ValueError(f"compose: the Gaussian steps compose to θ = {theta!r} (noise too small for the float range)")
    key = ("noise", 0, theta, 1.0, theta_lower)
    out[key] = out.get(key, 0) + 1
    return out


class Composition:
    """The composition of ``steps`` (a list of ``(mechanism, count)``) with a certified sandwich.

    Built by :func:`compose`; see there (SPEC C1, *source*: Koskela et al. 2021; Gopi et al. 2021;
    Doroshenko et al. 2022).  ``delta(epsilon)`` and ``epsilon(delta)`` return ``Sandwich(lower, upper)``
    with ``lower ≤ exact ≤ upper`` (proof: ``docs/composition_proof.md``).  The grids are built on first
    use and cached, so further queries on the same object are fast.  Phases of ≥ 4096 steps are raised by
    one spectrum power (Lemma 6); where its error floor sets the width (tiny δ: ≈ 1e-9 at 10⁴ steps), the
    directions concerned are rebuilt by squaring (Lemma 5) and the tighter sandwich is kept (issue 21; a
    few seconds of CPU, limited by ``SQUARING_WORK``).

    Parameters
    ----------
    steps : list of (mechanism, count)
        As for :func:`compose`.
    tolerance : float
        Target width of the ε sandwich, in [1e-7, inf).

    Examples
    --------
    >>> import bounds
    >>> comp = bounds.Composition([(bounds.Gaussian(theta=0.5), 4)], tolerance=1e-2)   # = compose(...)
    >>> s = comp.delta(1.0)              # 4 × Gaussian(0.5) = Gaussian(1): exact δ(1) = 0.126936737...
    >>> s.lower <= 0.1269367375 <= s.upper
    True
    >>> comp.total_steps
    4
    """

    def __init__(self, steps: Sequence, tolerance: float = 1e-3):
        function = "compose"
        tol = _real(function, "tolerance", tolerance, low=0.0, low_open=True, finite=True)
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
        self.steps = _merge_gaussians(parsed)
        self.tolerance = tol
        self.total_steps = total
        self._grid_steps = sum(self.steps.values())  # steps the grids compose (plain Gaussians merged)
        # grid sets, keyed by h (the default route: the spectrum power from DIRECT_FROM steps on) or by
        # (SQUARING, h) (the fallback route, see ``_refined``), and their hockey-stick tables ("tables", key)
        self._cache: dict[Any, tuple] = {}
        self._direction_cache: dict[tuple, tuple] = {}  # (direction, spacing, squared) -> (upper, lower)
        self._sharp: set[float] = set()
        self._all_sharp = False
        # direction indices rebuilt by squaring in the (SQUARING, h) grid sets (issue 21: the spectrum power's
        # rounding-error floor); empty until a halving of h stops narrowing a sandwich those directions set
        self._squared: set[int] = set()
        self._h = self._initial_h()
        # optional callable(str) told which stage a long computation is in (the CLI's progress line)
        self.progress: Any = None

    def _report(self, stage: str) -> None:
        if self.progress is not None:
            self.progress(stage)

    # -- grid ---------------------------------------------------------------------------------------
    def _initial_h(self) -> float:
        width = WIDTH_CONSTANT * math.sqrt(self._grid_steps)
        # issue 21: measured for q = 0.01, σ = 1 (10³…10⁵ steps) the width grows like 8·T^0.73·h², faster than
        # √T; the finer of the two models is taken, so a long run builds the grid it needs first (a
        # grid that misses the tolerance costs a third of the time at 10⁴ steps).  Sizing only.
        width = max(width, WIDTH_GROWTH * self._grid_steps ** 0.73)
        h = math.sqrt(self.tolerance / width)
        # issue 21: long subsampled phases are composed on two spacings (numeric.composition.power_two_level):
        # the width is set by the fine spacing h/factor, and the grid built has spacing h
        C = _C()
        factor = max([C.two_level_plan(count, key[3], key[2])[0] for key, count in self.steps.items()
                      if key[0] == "noise"] + [1])
        if factor > 1:
            h = factor * math.sqrt(self.tolerance / (C.TWO_LEVEL_WIDTH * self._grid_steps ** 0.73))
        # the grid must also resolve each step's own loss distribution (standard deviation s₁ ≈ q·√(e^{θ²} − 1)
        # for a subsampled Gaussian, θ for the plain one): h ≤ s₁/16 (measured: the greedy lower side needs
        # many cells per step)
        for key in self.steps:
            if key[0] == "epsdelta" and key[1] > 0.0:
                # resolve the randomized-response atoms ±ε₀ (issue 19: ε₀ = 1e-3 below the spacing put both
                # atoms on nodes ≤ 0, a lower side of 0 where δ was 0.13)
                h = min(h, max(key[1] / 16.0, 2.0 ** -20))
            if key[0] == "round":
                s1 = key[2]._loss_scale()[1]
                if s1 > 0:
                    h = min(h, max(s1 / 16.0, 2.0 ** -20))
            if key[0] == "noise":
                _, mech, theta, q, theta_lower = key
                s1 = theta if q >= 1.0 else q * math.sqrt(math.expm1(min(theta * theta, 700.0)))
                if s1 > 0:  # (on the fine grid of a two-level phase)
                    h = min(h, max(s1 / 16.0, 2.0 ** -20) * C.two_level_plan(self.steps[key], q, theta)[0])
        h = 2.0 ** math.floor(math.log2(min(h, 2.0 ** -6)))
        # the T^0.73 model may ask for more nodes than the limit: back off towards the √T model's spacing (the
        # refinement then stops at the limit with a warning stating the width reached, as before issue 21)
        h_sqrt = math.sqrt(self.tolerance / (WIDTH_CONSTANT * math.sqrt(self._grid_steps)))
        while h < min(h_sqrt, 2.0 ** -6) and self._estimate_nodes(h) > MAX_NODES:
            h *= 2
        return h

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
                x0, x1 = C.p_support(mech, a_w, s_p)
                lo = C.loss_at(mech, a_w, s_p, b_w, s_q, x0)
                hi = C.loss_at(mech, a_w, s_p, b_w, s_q, x1)
                rng = hi - lo
                sd = min(rng, theta if q >= 1.0 else 2.0 * q * math.sqrt(math.expm1(min(theta * theta, 700.0))))
            n = max(n, rng)
            spread += count * sd * sd
        return int((3 * n + 24 * math.sqrt(spread)) / h) + 16

    def _block_nodes(self, key: tuple, block: int, h_fine: float) -> int:
        """Nodes of the fine grid of a two-spacing phase's block (``_estimate_nodes``'s rule for one phase
        of ``block`` steps at spacing h_fine; sizing only)."""
        C = _C()
        _, mech, theta, q, _ = key
        a_w, s_p, b_w, s_q = C.pair_parameters(mech, C.REMOVE, theta, q)
        x0, x1 = C.p_support(mech, a_w, s_p)
        rng = C.loss_at(mech, a_w, s_p, b_w, s_q, x1) - C.loss_at(mech, a_w, s_p, b_w, s_q, x0)
        sd = min(rng, 2.0 * q * math.sqrt(math.expm1(min(theta * theta, 700.0))))
        return int((3 * rng + 24 * math.sqrt(block) * sd) / h_fine) + 16

    def _spacing(self, h: float, index: int) -> float:
        """The grid spacing of direction ``index`` in the grids of spacing h.  The first direction (REMOVE)
        uses h; the others (ADD) 4h until the refinement finds that their upper side sets the width
        (``_sharpen``; issue 21: for Poisson-subsampled Gaussians the ADD direction's δ is usually far below
        REMOVE's, and its grid cost as much).  Every spacing gives a certified sandwich (Lemmas 1–6), so the
        maximum over directions stays certified whatever the spacings; only the width depends on them."""
        if index == 0 or self._all_sharp or h in self._sharp:
            return h
        return min(4.0 * h, max(h, 2.0 ** -6))

    def _sharpen(self, h: float) -> bool:
        """Rebuild the coarse directions of the grids at spacing h at h itself; False if there were none."""
        if len(self._directions()) == 1 or h in self._sharp or self._all_sharp:
            return False
        self._sharp.add(h)
        self._all_sharp = True  # a direction that mattered once is built at full resolution from now on
        for key in (h, (SQUARING, h)):
            self._cache.pop(key, None)
            self._cache.pop(("tables", key), None)
        return True

    def _powered(self) -> bool:
        """True if some phase is raised by the spectrum power (``numeric.composition.power``: a count of at
        least ``DIRECT_FROM``), the only route the squaring fallback changes."""
        return max(self.steps.values()) >= _C().DIRECT_FROM

    def _square(self, directions: set[int]) -> bool:
        """Add ``directions`` (indices into ``_directions()``) to those rebuilt by squaring; False if none
        was new.  The (SQUARING, h) grid sets built so far are dropped (their other directions come back
        from ``_direction_cache``, so only the new squarings cost time)."""
        new = set(directions) - self._squared
        if not new:
            return False
        self._squared |= new
        for key in [k for k in self._cache if isinstance(k, tuple) and (k[0] == SQUARING or (
                k[0] == "tables" and isinstance(k[1], tuple)))]:
            del self._cache[key]
        return True

    def _affordable(self, h: float) -> bool:
        """True if squaring one direction at spacing h stays within ``SQUARING_WORK`` (estimated nodes ×
        the squaring levels ⌈log₂ count⌉ of every phase)."""
        levels = sum(max(count - 1, 1).bit_length() for count in self.steps.values())
        return self._estimate_nodes(h) * levels <= SQUARING_WORK

    def _ensure(self, h: float) -> None:
        """Build the grid sets of spacing h: the default one and, once the fallback is on and within its work
        limit, the squared one."""
        self._grids(h)
        if self._squared and self._affordable(h):
            self._grids((SQUARING, h))

    def _grids(self, key):
        """Per direction, the composed (upper, lower, spacing) grids of the grid set ``key`` (cached): key h
        is the default route at spacing h, key (SQUARING, h) the same grids with the directions in
        ``_squared`` rebuilt with every phase squared (Lemma 5, ``direct=False``; issue 21).  Spacing per
        direction from ``_spacing``."""
        if key in self._cache:
            return self._cache[key]
        squaring = isinstance(key, tuple)
        h = key[1] if squaring else key
        need = self._estimate_nodes(h)
        if need > MAX_NODES:
            raise ValueError(f"compose: this composition needs about {need} grid nodes at spacing {h!r} "
                             f"(limit {MAX_NODES}): the privacy loss range is too wide for the requested "
                             f"tolerance {self.tolerance!r}; a larger tolerance (or more noise) is needed")
        out = []
        directions = self._directions()
        for i, direction in enumerate(directions):
            hd = self._spacing(h, i)
            squared = squaring and i in self._squared
            if (direction, hd, squared) not in self._direction_cache:
                self._direction_cache[(direction, hd, squared)] = self._direction_grids(
                    direction, hd, i, len(directions), squared)
            out.append(self._direction_cache[(direction, hd, squared)] + (hd,))
        self._cache[key] = (h, out)
        return self._cache[key]

    def _direction_grids(self, direction: int, h: float, i: int, n_directions: int, squared: bool = False):
        """The composed (upper, lower) grids of one direction at spacing h; ``squared``: every phase by
        squaring (Lemma 5; long double from ``EXTENDED_FROM`` steps as before issue 21), not the spectrum
        power (Lemma 6), whose entrywise error bound sets an absolute floor in δ (≈ 1e-9 at 10⁴ steps)."""
        C = _C()
        need = self._estimate_nodes(h)
        self._report(f"grid spacing 2^{math.log2(h):.0f}, about {need} nodes: direction {i + 1}/{n_directions}, "
                     "one-step grids")
        steps = []
        for key, count in sorted(self.steps.items()):
            if key[0] == "epsdelta":
                u, lw = C.eps_delta_step(key[1], key[2], h)
            elif key[0] == "round":
                u, lw = key[2]._composition_grids(direction, h)
            else:
                _, mech, theta, q, theta_lower = key
                # the lower grid from θ rounded down (σ or b kept exactly)
                # a long phase: the thin right tail on every 8th node (issue 21; a heuristic for the width only)
                # a long phase: one-step grids on the fine spacing h/factor (issue 21: two spacings)
                factor, block = C.two_level_plan(count, q, theta)
                if squared:
                    factor, block = 1, 0  # the squaring fallback: one spacing, every phase squared (Lemma 5)
                elif factor > 1 and self._block_nodes(key, block, h / factor) > MAX_NODES:
                    factor, block = 1, 0  # a memory guard: the fine block's window would exceed the node limit
                u, lw = C.one_step(mech, direction, theta, q, h / factor, theta_lower, count >= C.TAIL_FROM)
            if key[0] != "noise":
                factor, block = 1, 0
            u = C.cut_left(u, C.LEFT_TAIL / self._grid_steps, True)
            lw = C.cut_left(lw, C.LEFT_TAIL / self._grid_steps, False)
            steps.append((u, lw, count, factor, block))
        # one tilt for the whole sequence (convolution needs equal tilts): the smallest phase choice, per node
        # of spacing h
        lam = min(C.choose_tilt(u, self._grid_steps, h / f) * f for u, _, _, f, _ in steps)
        up = low = None
        # the phases' running window (as within a phase, ``numeric.composition.window``): mean ± 12 sd
        # of the composed loss, the top widened by the largest one-step range; before, the phases were
        # joined on their full ranges, so the grid grew with the number of phases (issue 19: 100
        # distinct steps took > 250 s).  A heuristic: mass outside is moved up/dropped (proof note §5).
        acc_mean = acc_var = 0.0
        reach_hi = max((g.k1 - C.moments(g)[0]) / f for g, _, _, f, _ in steps)
        reach_lo = max((C.moments(g)[0] - g.k0) / f for g, _, _, f, _ in steps)
        for j, (u, lw, count, factor, block) in enumerate(steps):
            mean, sd = C.moments(u)
            mean, sd = mean / factor, sd / factor
            acc_mean += count * mean
            acc_var += count * sd * sd
            self._report(f"grid spacing 2^{math.log2(h):.0f}, about {need} nodes: direction {i + 1}/"
                         f"{n_directions}, phase {j + 1}/{len(steps)}: {count} steps by FFT"
                         + (" (squaring: the spectrum power's error floor)" if squared else ""))
            ext = self._grid_steps >= C.EXTENDED_FROM
            if factor > 1:
                pu = C.power_two_level(u, count, True, h / factor, factor, block, lam)
                pl = C.power_two_level(lw, count, False, h / factor, factor, block, lam)
            else:
                direct = False if squared else None  # None: the power from DIRECT_FROM steps on
                pu = C.power(u, count, True, lam=lam, extended=ext, direct=direct)
                pl = C.power(lw, count, False, lam=lam, extended=ext, direct=direct)
            if up is None:
                up, low = pu, pl
            else:
                spread = 12.0 * math.sqrt(acc_var)
                w_lo = math.floor(acc_mean - spread) - 8 - (math.ceil(reach_lo) if lam == 0.0 else 0)
                w_hi = math.ceil(acc_mean + spread + reach_hi)
                up = C.convolve(up, pu, max(up.k0 + pu.k0 - 8, w_lo), min(up.k1 + pu.k1, w_hi), True, ext)
                low = C.convolve(low, pl, max(low.k0 + pl.k0 - 8, w_lo), min(low.k1 + pl.k1, w_hi), False, ext)
        up, low = C.untilted(up, True), C.untilted(low, False)
        # a last guard (issue 19: 100 phases joined on their full ranges gave tilt weights e^{λk} = inf and
        # an all-NaN lower grid): a non-finite lower mass is dropped (H only falls: still a lower bound);
        # a non-finite upper mass has no sound replacement but +∞, so it is refused
        if not (np.isfinite(up.m).all() and math.isfinite(up.m_inf)):
            raise ValueError(f"compose: the composed grid left the floating-point range at spacing {h!r} "
                             f"({self._grid_steps} steps); a larger tolerance or fewer distinct phases may help")
        bad = ~np.isfinite(low.m)
        if bad.any():
            m = low.m.copy()
            m[bad] = 0.0
            low = C.Grid(m, low.k0, low.m_inf if math.isfinite(low.m_inf) else 0.0, 0.0, low.total)
        return up, low

    def _tables(self, h, e_min: float = 0.0):
        """Per direction, the (upper, lower) hockey-stick tables of the composed grids of the grid set ``h``
        (a spacing, or a (SQUARING, spacing) key — ``_grids``; cached per grid set), exact
        for every ε ≥ min(e_min, 0): the nodes below are merged up / dropped first (``merged_below``; issue 21:
        ε(δ) reads ε ≥ 0 only, and the tables cost about a fifth of a 10⁵-step ε).  Rebuilt from further down
        when a δ at a smaller ε is asked for."""
        C = _C()
        key = ("tables", h)
        cut = min(float(e_min), 0.0)
        if key not in self._cache or self._cache[key][0] > cut:
            _, grids = self._grids(h)
            rows = []
            for g_u, g_l, hd in grids:
                sides = []
                for g, upward in ((g_u, True), (g_l, False)):
                    k_cut = math.floor(cut / hd) if math.isfinite(cut) else g.k0
                    m, k0 = C.merged_below(g.m, g.k0, k_cut, upward)
                    sides.append((C.hs_tables(m, hd, upward), (k0, g.m_inf)))
                rows.append((sides[0], sides[1], hd))
            self._cache[key] = (cut, rows)
        return self._cache[key][1]

    def _delta_directions(self, h, eps: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per direction, (lower, upper) of that direction's δ at every ε of a flat float64 array, on the
        grid set ``h`` (a spacing or a (SQUARING, spacing) key)."""
        C = _C()
        e = np.ascontiguousarray(eps, dtype=np.float64).ravel()
        finite = e[~np.isnan(e)]
        e_min = float(finite.min()) if finite.size else 0.0
        return [(C.hs_eval(bl, cl, gl_k0, hd, gl_inf, e, False), C.hs_eval(bu, cu, gu_k0, hd, gu_inf, e, True))
                for ((bu, cu), (gu_k0, gu_inf)), ((bl, cl), (gl_k0, gl_inf)), hd in self._tables(h, e_min)]

    def _delta_many(self, h, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) of δ at every ε of a float64 array, on the grid set ``h`` (a spacing or a
        (SQUARING, spacing) key; O(1) per point): the maxima over the directions."""
        e = np.ascontiguousarray(eps, dtype=np.float64).ravel()
        lo = hi = None
        for lw, u in self._delta_directions(h, e):
            lo = lw if lo is None else np.maximum(lo, lw)
            hi = u if hi is None else np.maximum(hi, u)
        # δ(−∞) = H_0(P‖Q) = P(everything) = 1 exactly, for every pair
        minus = e == -np.inf
        lo[minus] = 1.0
        hi[minus] = 1.0
        return lo.reshape(np.shape(eps)), hi.reshape(np.shape(eps))

    def _delta_at(self, h: float, eps: float) -> tuple[float, float]:
        lo, hi = self._delta_many(h, np.array([eps]))
        return float(lo[0]), float(hi[0])

    def _delta_best(self, eps: np.ndarray, memo: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The tightest sandwich over every grid built so far (max of the lowers, min of the uppers: each
        grid's sandwich is certified, so their intersection is too; issue 19: the refinement kept its last
        grid even where a coarser one was tighter)."""
        lo = hi = None
        for h in self._built():
            if memo is None:
                a, b = self._delta_many(h, eps)
            else:  # one query array, several refinement levels: each grid evaluated once
                key = self._memo_key(h)
                if key not in memo:
                    memo[key] = self._delta_many(h, eps)
                a, b = memo[key]
            lo = a if lo is None else np.maximum(lo, a)
            hi = b if hi is None else np.minimum(hi, b)
        return lo, hi

    def _built(self) -> list:
        """The grid-set keys built so far: spacings h and (SQUARING, h)."""
        return [k for k in self._cache if isinstance(k, float) or (isinstance(k, tuple) and k[0] == SQUARING)]

    def _memo_key(self, key) -> tuple:
        """What a grid set's contents depend on beyond its key: ADD sharpened at h, the squared directions."""
        h = key[1] if isinstance(key, tuple) else key
        return key, h in self._sharp, tuple(sorted(self._squared)) if isinstance(key, tuple) else ()

    def _floor(self, h: float) -> float:
        """δ_upper at the top of the grid: the smallest δ this grid certifies."""
        _, grids = self._grids(h)
        top = max(g.k1 * hd + hd for g, _, hd in grids)
        return self._delta_at(h, top)[1]

    def _epsilon_many(self, h: float, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) for ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ} at every δ of an array, at grid spacing h.

        Bisection on the rigorously rounded δ sandwich itself, all points at once (O(1) per evaluation, no
        exp(ε): any ε the grid covers, above 709.78 too — issue 19).  Invariants: upper = an ε with
        δ_upper(ε) ≤ δ verified (so the exact δ(ε) ≤ δ), lower = 0 or an ε with δ_lower(ε) > δ verified
        (so the exact ε(δ) > ε); upper = inf where even the top of the grid is not verified.
        """
        C = _C()
        _, grids = self._grids(h)
        top = max(g.k1 * hd + hd for g, _, hd in grids)
        d = np.ascontiguousarray(np.asarray(delta, dtype=np.float64).ravel())
        # the tables of every direction, flattened for the compiled bisection (``numeric.composition.
        # epsilon_bisect``: the loop that ran here, point by point, same operations and bits; issue 21)
        rows = self._tables(h, 0.0)
        flat = []
        for side in (0, 1):  # upper, lower
            tabs = [(row[side][0], row[side][1], row[2]) for row in rows]
            offs = np.cumsum([0] + [len(b) for (b, _), _, _ in tabs]).astype(np.int64)
            flat += [np.concatenate([b for (b, _), _, _ in tabs]), np.concatenate([c for (_, c), _, _ in tabs]),
                     offs, np.array([k0 for _, (k0, _), _ in tabs], dtype=np.int64),
                     np.array([hd for _, _, hd in tabs], dtype=np.float64),
                     np.array([m_inf for _, (_, m_inf), _ in tabs], dtype=np.float64)]
        lower, upper = C.epsilon_bisect(d, float(top), *flat)
        return lower.reshape(np.shape(delta)), upper.reshape(np.shape(delta))

    def _epsilon_at(self, h: float, delta: float) -> tuple[float, float]:
        lo, hi = self._epsilon_many(h, np.array([delta]))
        return float(lo[0]), float(hi[0])

    def _epsilon_best(self, delta: np.ndarray, memo: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The tightest ε sandwich over every grid built so far (each is certified)."""
        lo = hi = None
        for h in self._built():
            if memo is None:
                a, b = self._epsilon_many(h, delta)
            else:
                key = self._memo_key(h)
                if key not in memo:
                    memo[key] = self._epsilon_many(h, delta)
                a, b = memo[key]
            lo = a if lo is None else np.maximum(lo, a)
            hi = b if hi is None else np.minimum(hi, b)
        return lo, hi

    def _refined(self, width_of, setters=None) -> float:
        """The grid spacing: halve h until width_of(h) ≤ tolerance, the node limit is reached, or a halving
        no longer narrows the sandwich (then the floating-point error bounds of the convolutions, not the
        grid spacing, set the width: finer grids only cost time).  ``width_of(h)`` builds the grid sets of
        spacing h (``_ensure``) and measures the sandwich the caller returns: the best over every grid set
        built so far, h included.

        The squaring fallback (issue 21): where a halving no longer narrows the sandwich and some phase was
        raised by the spectrum power (≥ ``DIRECT_FROM`` steps; Lemma 6, whose entrywise FFT error bound is an
        absolute floor in δ — ≈ 1e-9 at 10⁴ steps), the directions ``setters(h)`` names (those whose upper
        side can set the width at the queries) are rebuilt by squaring (Lemma 5, long double from
        ``EXTENDED_FROM``) at the same h, as a second grid set (SQUARING, h); the sandwich is the intersection
        over both (each is certified), and the refinement goes on with both routes at every finer h.  For
        δ ≥ 1e-8 the floor is far below the width and this never fires (the fast path is unchanged)."""
        h = self._h
        if any(k[0] == "round" and getattr(k[2], "_gap_is_inherent", False) for k in self.steps):
            # a plug-in round whose upper side is only a bound (shuffling: the cyclic value): the sandwich's
            # gap is the sampler's, refining the grid cannot close it
            width_of(h)  # builds the grid (callers read the best over built grids)
            return h
        prev, prev_h = math.inf, h
        fell_back = False
        for _ in range(MAX_REFINEMENTS + 1):
            w = width_of(h)
            if w > self.tolerance and self._sharpen(h):
                w = width_of(h)  # the coarse directions at h itself before h is halved
            if w <= self.tolerance:
                self._h = h
                return h
            if w > 0.8 * prev:
                possible = setters is not None and self._powered()
                spacings = [x for x in dict.fromkeys((prev_h, h)) if self._affordable(x)] if possible else []
                if not spacings or not self._square(setters(h)):
                    reason = ("a halving of the grid spacing no longer narrows it: the convolutions' rounding-error "
                              "bounds dominate" + ("; squaring fallback on" if self._squared else "")
                              + ("; the squaring fallback is beyond its work limit here"
                                 if possible and not spacings else ""))
                    break
                # the squared grid sets join the intersection: first at the coarser spacing the refinement
                # came from (the floor does not depend on h, and squaring there costs a quarter or half of
                # squaring at h: measured at 10⁴ steps, ε(1e-10) to 1e-2 in 1.0 s CPU instead of 3.9 s)
                fell_back = True
                for spacing in spacings:
                    w = width_of(spacing)
                    if w <= self.tolerance:
                        self._h = spacing
                        return spacing
                    if spacing != h and w <= 3.5 * self.tolerance:
                        # one halving of the coarser spacing is expected to reach the tolerance (as below):
                        # go there instead of squaring at h, which the refinement reached by two halvings
                        # (measured at 10⁴ steps, δ(10) to 1e-3: 2⁻¹² then 2⁻¹³ in 6.3 s CPU, not 2⁻¹⁴ in 10.4 s)
                        h = spacing
                        break
            prev, prev_h = w, h
            if fell_back and not self._affordable(h / 2):
                # this query's width is set by the floor, and a finer grid could not be squared: the power
                # alone would not narrow it (measured: 10⁵ steps, 1 s CPU for nothing)
                reason = "the squaring fallback is beyond its work limit at the next spacing"
                break
            if self._estimate_nodes(h / 2) > MAX_NODES or h < 2.0 ** -30:
                reason = f"refinement limit reached: {MAX_NODES} nodes"
                break
            h /= 2
            # the width falls like h²: from more than 3.5 times the tolerance one halving cannot reach it, so
            # two are made at once (issue 21: each grid built on the way costs half of the next one)
            if w > 3.5 * self.tolerance and self._estimate_nodes(h / 2) <= MAX_NODES and h >= 2.0 ** -29:
                h /= 2
        else:
            h *= 2
            reason = f"refinement limit reached: {MAX_REFINEMENTS} halvings"
        warnings.warn(f"compose: certified width {w:.3g} exceeds the tolerance {self.tolerance!r} at grid "
                      f"spacing {h!r} ({reason}; lower sides with atoms off the grid — EpsDelta, Laplace — "
                      "converge only like h)", stacklevel=3)
        self._h = h
        return h

    # -- public -------------------------------------------------------------------------------------
    def delta(self, epsilon: ArrayLike) -> Sandwich:
        """Certified ``Sandwich(lower, upper)`` of δ(ε), the worse of the REMOVE and ADD directions.

        Parameters
        ----------
        epsilon : array_like
            ε ∈ [−inf, inf] (δ(−inf) = 1, δ(inf) = the mass at infinite loss).

        Returns
        -------
        Sandwich
            Floats for scalar input, arrays otherwise.

        Raises
        ------
        ValueError
            If ε is NaN.

        Warns
        -----
        UserWarning
            Where the sandwich stays wider than the tolerance: the refinement limit was reached, or δ(ε)
            lies within 10³ of the smallest δ the grid certifies, where the grid is not refined (``epsilon``
            raises at such δ).
        """
        scalar = is_scalar(epsilon)
        e = _real_array("Composition.delta", "epsilon", epsilon)
        if np.isnan(e).any():
            where = tuple(int(i) for i in np.argwhere(np.isnan(e))[0])
            index = "" if e.ndim == 0 else f"[{', '.join(map(str, where))}]"
            raise ValueError(f"Composition.delta: epsilon{index} is NaN; it must lie in [-inf, inf]")
        if e.size == 0:
            return Sandwich(np.empty(e.shape), np.empty(e.shape))
        _C()  # numeric.composition imported (kernels compiled or loaded) before the grids are built

        memo: dict = {}

        def width(h):
            # relative width of the δ sandwich (≈ the ε width times |d ln δ/dε|, which is ≥ 1 in the range
            # of interest): a proxy that also suits profiles with flat parts (atoms), where ε(δ) jumps.  A
            # lower side of 0 counts as width 1 (issue 19: it was ignored, and (0.0, 0.847) passed silently)
            # unless the upper side is within 1e3 of the grid's floor (δ there is not resolved anyway)
            self._ensure(h)
            lo, hi = self._delta_best(e, memo)
            keep = kept(h, hi)
            if not keep.any():
                return 0.0
            return float(np.max((hi[keep] - lo[keep]) / hi[keep]))

        def kept(h, hi):
            return np.isfinite(e) & (hi < 1) & (hi > 1e3 * self._floor(h))

        def setters(h):
            # the directions whose upper side at spacing h (default route) exceeds the best lower side at a
            # counted query: only they can set the width, so only they are worth squaring (each costs ~50×
            # the power at 10⁴ steps)
            lo, hi = self._delta_best(e, memo)
            keep = kept(h, hi).ravel()
            return {i for i, (_, u) in enumerate(self._delta_directions(h, e))
                    if (u[keep] > lo.ravel()[keep]).any()}

        self._refined(width, setters)
        lows, ups = self._delta_best(e, memo)
        # the points ``kept`` leaves out of the refinement's width, wider than the tolerance: said in a warning
        wide = np.isfinite(e) & (ups < 1) & ~kept(self._h, ups) & (ups - lows > self.tolerance * ups)
        if wide.any():
            self._warn_unresolved(e, lows, ups, wide)
        if scalar:
            return Sandwich(float(lows), float(ups))
        return Sandwich(lows, ups)

    def _warn_unresolved(self, e: np.ndarray, lows: np.ndarray, ups: np.ndarray, wide: np.ndarray) -> None:
        """Warn where ``delta`` returns a sandwich wider than the tolerance (``wide``) without the refinement having
        seen it: points whose upper side lies within 10³ of the grid's floor (the smallest δ it certifies:
        the convolutions' rounding-error bounds and the truncated tails) are left out of the refinement's
        width (issue 19: δ there is not resolved).  The sandwich there is certified but may be arbitrarily wide
        (balls-and-bins at σ = 0.35: [0.161, 0.265] at ε = 4 for a tolerance of 1e-2, with no word before);
        ``epsilon`` raises at such δ instead."""
        floor = self._floor(self._h)
        i = tuple(int(j) for j in np.argwhere(wide)[0])
        where = "" if e.ndim == 0 else f" (and {int(wide.sum()) - 1} more point(s))" if wide.sum() > 1 else ""
        warnings.warn(f"{UNRESOLVED_WARNING} = {float(e[i])!r}{where} the certified sandwich "
                      f"[{float(lows[i]):.3g}, {float(ups[i]):.3g}] is wider than the tolerance "
                      f"{self.tolerance!r} (relative): δ there lies within 10³ of {floor:.3g}, the smallest δ "
                      "this grid certifies (floating-point error of the convolutions and the truncated tails), "
                      "where the grid is not refined", stacklevel=3)

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
        bad = np.isnan(d) | (d <= 0) | (d >= 1)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            index = "" if d.ndim == 0 else f"[{', '.join(map(str, where))}]"
            value = "NaN" if math.isnan(d[where]) else f"= {_fmt(float(d[where]))}"
            raise ValueError(f"Composition.epsilon: delta{index} {value} is outside its domain (0, 1)")
        if d.size == 0:  # nothing to compute (and no grid to build)
            return Sandwich(np.empty(d.shape), np.empty(d.shape))

        memo: dict = {}

        def width(h):
            self._ensure(h)
            floor = self._floor(h)
            if (d <= floor).any():
                raise ValueError(f"Composition.epsilon: delta = {float(d.min())!r} is below {floor:.3g}, the "
                                 "smallest δ this grid certifies (floating-point error of the convolutions and "
                                 "the truncated tails); the exact ε there is not certified")
            lo, hi = self._epsilon_best(d, memo)
            return float(np.max(hi - lo))

        def setters(h):
            # a direction whose upper δ at the best lower ε is ≤ δ already has its upper ε below that lower
            # side, so it cannot set the width; the others are worth squaring
            lo, _ = self._epsilon_best(d, memo)
            return {i for i, (_, u) in enumerate(self._delta_directions(h, lo.ravel())) if (u > d.ravel()).any()}

        self._refined(width, setters)
        lows, ups = self._epsilon_best(d, memo)
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
    and the worse is reported (every step sees the same direction).  Plain ``Gaussian(theta=θ)``/``Laplace(theta=θ)``
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
        refinement limit is reached first, a warning states the width reached.  ``delta(ε)`` also warns
        where δ(ε) lies within 10³ of the smallest δ the grid certifies (not refined there; ``epsilon`` raises
        at such δ) and its sandwich is wider than the tolerance.

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
# DP-SGD calibration: moved to bounds.calibration (issue 21); the old import path still works
# ----------------------------------------------------------------------------------------------------

_MOVED = ("dpsgd_noise_multiplier", "dpsgd_max_steps")


def __getattr__(name: str) -> Any:
    # PEP 562: ``from bounds.composition import dpsgd_noise_multiplier`` keeps working (calibration imports this
    # module, so it cannot be imported at the top)
    if name in _MOVED:
        from . import calibration

        return getattr(calibration, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
