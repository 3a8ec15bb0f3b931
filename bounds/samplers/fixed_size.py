"""Fixed-size batches drawn independently each step (sampling without replacement, γ = b/n): one step.

Proof note: ``docs/samplers/fixed_size.md``; kernels: ``numeric.mixture_pairs`` (hull of the upper node
values, dominated grid of a two-mixture pair) and ``numeric.composition`` (Poisson-pair profiles and grids).
Certified: lower ≤ exact ≤ upper for every composition; under replace-one both sides are tight pairs (the
upper side is the symmetrised Balle–Barthe–Gaboardi bound, the lower side realised by a data set), under
zero-out the upper side is the replace-one bound (zero-out neighbours are replace-one neighbours), which is
*not* tight — the round says so in ``description``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .._dask import refuses_dask
from ..mechanisms import Gaussian
from ._common import check_adjacency, check_gaussian, check_int

_CACHE: dict = {}


def _rate_bounds(b: int, n: int) -> tuple[float, float]:
    """b/n rounded up and down (exact rationals: fl(b/n) can fall on either side)."""
    exact = Fraction(b, n)
    f = b / n
    up = f if Fraction(f) >= exact else math.nextafter(f, math.inf)
    lo = f if Fraction(f) <= exact else math.nextafter(f, 0.0)
    return min(up, 1.0), lo


def _double_up(t: float) -> float:
    return 2.0 * t  # exact (a power-of-two multiple of a finite double, below the overflow threshold checked)


@refuses_dask
@dataclass(frozen=True)
class FixedSizeRound:
    """One DP-SGD step on a batch of ``batch_size`` records drawn uniformly without replacement from
    ``dataset_size`` (γ = b/n); build with :func:`fixed_size_sampled`.

    Parameters
    ----------
    mechanism : Gaussian
        The batch noise (θ = 1/σ for clip norm 1).
    batch_size, dataset_size : int
        b and n, 1 ≤ b ≤ n.
    adjacency : str
        "replace_one" (one record replaced by another: the substitution relation) or "zero_out" (one
        record's gradient replaced by zero, Chua et al. 2024).

    Notes
    -----
    Upper side (both adjacencies; *source* Balle, Barthe, Gaboardi 2018, Thm 9, made symmetric — *derived*,
    ``docs/samplers/fixed_size.md``): the convex hull of
    G(e^ε) = H_{e^ε}((1−γ)N(0,1) + γN(2θ,1) ‖ N(0,1)) for ε ≥ 0 and H_{e^ε}(N(0,1) ‖ (1−γ)N(0,1) + γN(2θ,1))
    for ε < 0 (the SPEC T11 REMOVE/ADD profiles at 2θ).  Lower side: a pair realised by a data set, both
    orders — replace-one ((1−γ)N(0) + γN(2θ), N(0)); zero-out ((1−γ)N(0) + γN(2θ), (1−γ)N(0) + γN(θ)).

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import fixed_size_sampled
    >>> r = fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 256, 50000)
    >>> r.adjacency, r.rate
    ('replace_one', 0.00512)
    """

    mechanism: Gaussian
    batch_size: int
    dataset_size: int
    adjacency: str = "replace_one"
    _asymmetric = True
    # the sandwich's gap is mostly the sampler's (one symmetric dominating pair for both orders; zero-out's
    # upper side is not tight): refining the grid cannot close it
    _gap_is_inherent = True

    @property
    def rate(self) -> float:
        """γ = b/n (nearest double; the grids use it rounded outward)."""
        return self.batch_size / self.dataset_size

    @property
    def description(self) -> str:
        """What is certified, in words (for reports)."""
        if self.adjacency == "replace_one":
            return (f"fixed-size batches of {self.batch_size} of {self.dataset_size} (without replacement), "
                    "replace-one: upper = symmetrised Balle-Barthe-Gaboardi 2018 Thm 9 pair at 2θ (tight "
                    "pointwise), lower = realised pair")
        return (f"fixed-size batches of {self.batch_size} of {self.dataset_size} (without replacement), "
                "zero-out: lower = realised pair ((1-γ)N(0)+γN(2θ), (1-γ)N(0)+γN(θ)); upper = the replace-one "
                "bound (valid, not tight: no tight zero-out upper bound is known here)")

    def _key(self):
        tu, tl = self.mechanism.theta, self.mechanism.theta_lower
        gu, gl = _rate_bounds(self.batch_size, self.dataset_size)
        return tu, tl, gu, gl

    def _composition_grids(self, direction: int, h: float):
        from ..composition import _C

        C = _C()
        key = (self._key(), self.adjacency, direction, h)
        if key in _CACHE:
            return _CACHE[key]
        if len(_CACHE) > 16:
            _CACHE.clear()
        tu, tl, gu, gl = self._key()
        if self.adjacency == "replace_one":
            upper = _upper_grid(C, _double_up(tu), gu, gl, h, None)
            lower = C.one_step(C.GAUSSIAN, direction, _double_up(tl), gl, h)[1]
        else:
            upper = _upper_grid(C, _double_up(tu), gu, gl, h, tu)
            lower = _zero_out_lower(C, tl, gl, direction, h)
        _CACHE[key] = (upper, lower)
        return upper, lower

    def _loss_scale(self) -> tuple[float, float]:
        t = 2.0 * self.mechanism.theta
        g = self.rate
        # the REMOVE pair's loss at x = 2θ + 9 (its top) and its standard deviation ≈ γ√(e^{4θ²} − 1)
        top = math.log1p(g * math.expm1(min(t * (t + 9.0) - 0.5 * t * t, 700.0)))
        sd = t if g >= 1.0 else g * math.sqrt(math.expm1(min(t * t, 700.0)))
        return 2.0 * top + 1.0, min(sd, top)


def _upper_grid(C, theta2: float, gamma: float, gamma_lo: float, h: float, theta_near):
    """Dominating grid of the symmetrised bound: node values (replace-one: the T11 profiles at 2θ, REMOVE
    for ε ≥ 0 and ADD for ε < 0; zero-out: ``numeric.mixture_pairs.zero_out_values``), their running
    minimum, the lower convex hull, connect-the-dots masses (Lemmas 2 and 4 of the composition proof)."""
    import numpy as np
    from numeric import mixture_pairs as MP

    a_w, s_p, b_w, s_q = C.pair_parameters(C.GAUSSIAN, C.REMOVE, theta2, gamma)
    z = C.TAIL_Z[C.GAUSSIAN]
    top = C.loss_at(C.GAUSSIAN, a_w, s_p, b_w, s_q, max(0.0, s_p) + z)
    k_hi = math.ceil(top / h) + 1
    k_lo = -k_hi
    if theta_near is None:
        ks = np.arange(k_lo, k_hi + 1)
        d = np.empty(len(ks))
        neg = ks < 0
        d[~neg] = C.profile_values(C.GAUSSIAN, C.REMOVE, theta2, gamma, 0, k_hi, h)
        if neg.any():
            d[neg] = C.profile_values(C.GAUSSIAN, C.ADD, theta2, gamma, k_lo, -1, h)
    else:
        d = MP.zero_out_values(theta2, theta_near, gamma, gamma_lo, k_hi, h)
    d = np.minimum.accumulate(np.minimum(d, 1.0))
    v = MP.hull_values(d, k_lo, h)
    mu, m_inf = C.upper_from_values(v, k_lo, h)
    return C._trim(C.Grid(mu, k_lo, m_inf))


def _zero_out_lower(C, theta: float, gamma: float, direction: int, h: float):
    """Dominated grid of the realised zero-out pair (REMOVE) or its reverse (ADD), σ = 1 units."""
    from numeric import mixture_pairs as MP

    if direction == C.REMOVE:
        a, sp, b, sq = gamma, 2.0 * theta, gamma, theta
    else:
        a, sp, b, sq = gamma, theta, gamma, 2.0 * theta
    x_lo = -MP.TAIL_Z
    x_hi = 2.0 * theta + MP.TAIL_Z
    # the loss at the ends and at its extrema (guidance: cells outside k_lo..k_hi are dropped or clamped)
    pts = [x_lo, x_hi] + list(MP._extrema(a, sp, b, sq, x_lo, x_hi, MP.EXTREMA_POINTS))
    ends = [MP.loss(a, sp, b, sq, x) for x in pts]
    k_lo = math.floor(min(min(ends), math.log1p(-gamma) if gamma < 1.0 else -abs(ends[0])) / h) - 2
    k_hi = math.ceil(max(max(ends), 0.0) / h) + 2
    m, _ = MP.lower_mixture(a, sp, b, sq, h, k_lo, k_hi)
    return C._trim(C.Grid(m, k_lo, 0.0))


@refuses_dask
def fixed_size_sampled(mechanism: Gaussian, batch_size: int, dataset_size: int, *,
                       adjacency: str = "replace_one") -> FixedSizeRound:
    """One step on a fixed-size batch drawn without replacement, as a round for :func:`bounds.compose`.

    Each step draws b of the n records uniformly without replacement (independently of other steps), sums
    their clipped gradients (norm ≤ 1) and adds N(0, σ²I).  ``compose([(round, steps)])`` returns a certified
    sandwich.  Theorems (``docs/samplers/fixed_size.md``):

    - upper, both adjacencies: Balle, Barthe, Gaboardi (NeurIPS 2018) Thm 9 (SPEC T2, *source*): for the
      substitution relation, H_{e^{ε'}} ≤ γ·δ_{2θ}(ε), e^{ε'} = 1 + γ(e^ε − 1), which for ε' ≥ 0 is the hockey
      stick of ((1−γ)N(0) + γN(2θ), N(0)); the relation is symmetric, so for ε' < 0 the reversed pair bounds
      it; a single dominating curve for composition (Zhu, Dong, Wang 2022; Lebeda et al. 2024 on why one
      direction is not enough) is the convex hull of the two — *derived*.  Zero-out neighbours (a record
      replaced by a null record with gradient 0) are replace-one neighbours, so the same upper side holds;
      it is not tight there.
    - lower: pairs realised by data sets (all other records with gradient −e, the differing one +e against
      −e (replace-one) or 0 (zero-out)), each composed in both orders, the larger δ reported.

    Parameters
    ----------
    mechanism : Gaussian
        ``Gaussian.from_noise_multiplier(σ)`` (θ = 1/σ for clip norm 1).
    batch_size : int
        b ≥ 1.
    dataset_size : int
        n ≥ b (at most 10¹⁵).
    adjacency : {"replace_one", "zero_out"}
        The neighbouring relation (add/remove is meaningless for a fixed batch size of a fixed n).

    Returns
    -------
    FixedSizeRound

    Raises
    ------
    TypeError
        If ``mechanism`` is not a Gaussian.
    ValueError
        For b, n not integers with 1 ≤ b ≤ n ≤ 10¹⁵, or an unknown adjacency.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import fixed_size_sampled
    >>> step = fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 1, 1)  # γ = 1: a Gaussian at 2θ
    >>> s = bounds.compose([(step, 1)], tolerance=1e-2).delta(1.0)   # δ_{θ=2}(1) = 0.509858...
    >>> s.lower <= 0.5098586 <= s.upper
    True
    """
    function = "fixed_size_sampled"
    m = check_gaussian(function, mechanism)
    n = check_int(function, "dataset_size", dataset_size, 1, 10 ** 15)
    b = check_int(function, "batch_size", batch_size, 1, 10 ** 15)
    if b > n:
        raise ValueError(f"{function}: batch_size = {b} must be ≤ dataset_size = {n}")
    a = check_adjacency(function, adjacency)
    if not 2.0 * m.theta < 1e150:
        raise ValueError(f"{function}: theta = {m.theta!r} is too large (2θ must stay below 1e150)")
    return FixedSizeRound(m, b, n, a)
