"""Balls-and-bins batches: each record goes to one uniformly random batch of the epoch (issue 21).

Proof note: ``docs/samplers/balls_and_bins.md``; kernels: ``numeric.balls_and_bins``.  One epoch is
dominated by the pairs (Chua et al., AISTATS 2025) REMOVE (MoG_T(1), N_T) and ADD (N_T, MoG_T(1)),
MoG_T(μ) = (1/T)Σ_t N(μe_t, σ²I_T); the round supplies a certified dominating and dominated loss grid per
direction to :func:`bounds.compose`, which composes epochs (REMOVE with REMOVE, ADD with ADD).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .._dask import refuses_dask
from ..mechanisms import Gaussian
from ._common import check_gaussian, check_int, check_reuse, epoch_thetas

_CACHE: dict = {}
_SUMS: dict = {}
MAX_NODES = 1 << 22  # largest grid of the T-fold sum (FFT work space ≈ 0.5 GiB in long double)
FAST_NODES = 1 << 20  # above this many nodes Δ is coarsened (while Δ/T ≤ h/4) for speed


def _spacing(theta: float, T: int, h: float) -> tuple[float, float]:
    """(Δ of the upper side's Y-grid, Δ of the lower sides'): powers of two.  Preferred: ≤ 1, ≤ sd(Y)/64 (the
    spread of one summand adds ≤ Δ²/4 of variance), ≤ T·h (R-resolution no coarser than the loss grid).  The
    upper side (a chord: mean-preserving, second order) is coarsened for speed while the T-fold sum of the
    summands below the tail split (Lemma C of the proof note) has more than FAST_NODES nodes, up to
    Δ ≤ max(1, T/64).  The lower sides (cells collapsed to nodes at or below/above their mean) need Δ well below
    E[Y] = 1 — the first cell's mean must reach a node —, so Δ_lower ≤ 1/4 (≤ 1/2 when the sum would not fit).
    These limits do not depend on h for T·h ≥ min(1, sd/64), so one computation serves the refinement levels."""
    from numeric import balls_and_bins as B

    sd = B.y_sd(theta)
    d0 = 2.0 ** math.floor(math.log2(min(1.0, sd / 64.0, T * h)))
    du = d0
    limit = max(d0, 1.0, 2.0 ** math.floor(math.log2(T / 64.0)))
    while B.sum_nodes(theta, T, du) > FAST_NODES and du < limit:
        du *= 2.0
    dl = min(d0, 0.25)
    while B.sum_nodes(theta, T, dl, False) > FAST_NODES and dl < 0.5:
        dl *= 2.0
    while B.sum_nodes(theta, T, dl, False) > MAX_NODES and dl < 0.5:
        dl *= 2.0
    if B.sum_nodes(theta, T, du) > MAX_NODES or B.sum_nodes(theta, T, dl, False) > MAX_NODES:
        raise ValueError(f"balls_and_bins: noise multiplier σ = {1.0 / theta:.4g} with {T} batches is outside what "
                         f"the grid resolves (the sum of the {T} summands below the tail split would need more "
                         f"than {MAX_NODES} nodes at spacings Δ = {du:g} (upper), {dl:g} (lower)): a larger σ or "
                         "fewer batches is needed")
    return du, dl


@refuses_dask
@dataclass(frozen=True)
class BallsAndBinsRound:
    """One balls-and-bins epoch (fresh bins), or — ``epochs`` > 1 with fixed bins — the whole run of
    ``epochs`` epochs over the same bins (one epoch at θ√E).  Build it with :func:`balls_and_bins`.

    Parameters
    ----------
    mechanism : Gaussian
        Noise of one batch (θ = 1/σ).
    steps_per_epoch : int
        T, batches per epoch.
    bins : str
        "fresh" (new bins every epoch: compose the round ``epochs`` times) or "fixed".
    epochs : int
        1 for fresh bins; the number of epochs the fixed bins are used for.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import balls_and_bins
    >>> r = balls_and_bins(bounds.Gaussian.from_noise_multiplier(1.0), 10)
    >>> r.bins, r.adjacency
    ('fresh', 'add_remove')
    """

    mechanism: Gaussian
    steps_per_epoch: int
    bins: str = "fresh"
    epochs: int = 1
    adjacency = "add_remove"
    _asymmetric = True

    def _thetas(self) -> tuple[float, float]:
        return epoch_thetas(self.mechanism.group(1), self.epochs)

    def _composition_grids(self, direction: int, h: float):
        from ..composition import _C
        from numeric import balls_and_bins as B

        C = _C()
        tu, tl = self._thetas()
        T = self.steps_per_epoch
        d, dl = _spacing(tu, T, h)
        key = (tu, tl, T, h, d, dl)
        if key not in _CACHE:
            if len(_CACHE) > 8:
                _CACHE.clear()
            # the sums of the T summands do not depend on h: one computation serves every refinement level
            skey = (tu, tl, T, d, dl)
            if skey not in _SUMS:
                _SUMS.clear()  # large (up to ~10⁶ atoms per side): keep the last one only
                _SUMS[skey] = B.epoch_sums(tu, tl, T, d, dl)
            _CACHE[key] = B.epoch_grids(tu, tl, T, h, d, sums=_SUMS[skey])
        grids = _CACHE[key]
        return grids[0] if direction == C.REMOVE else grids[1]

    def _loss_scale(self) -> tuple[float, float]:
        from numeric import balls_and_bins as B

        tu, _ = self._thetas()
        T = self.steps_per_epoch
        sd = B.y_sd(tu) / math.sqrt(T)
        rng = math.log1p(B.y_top(tu) / T) + 12.0 * min(sd, 1.0)
        return rng, min(sd, rng)


@refuses_dask
def balls_and_bins(mechanism: Gaussian, steps_per_epoch: int, *, bins: str = "fresh",
                   epochs: int | None = None) -> BallsAndBinsRound:
    """One balls-and-bins epoch as a round for :func:`bounds.compose`: certified lower ≤ exact ≤ upper.

    Each record is put into one of the ``steps_per_epoch`` = T batches uniformly at random, independently
    (add/remove adjacency).  Dominating pairs (Chua et al., AISTATS 2025, *source*): REMOVE (MoG_T(1), N_T),
    ADD (N_T, MoG_T(1)).  The one-epoch loss is ln((1/T)Σ_t Y_t) with log-normal Y_t; each summand is replaced by
    a convex-order larger (upper) or smaller (lower) measure on a linear grid, summed by FFT with a proven error
    bound, and mapped to the composition's loss grid (proof: ``docs/samplers/balls_and_bins.md``).

    With ``bins="fresh"`` (default) the bins are redrawn every epoch: ``compose([(round, E)])``.  With
    ``bins="fixed"`` the same assignment is reused for all ``epochs`` (e.g. jax_privacy's
    ``BallsInBinsSampling`` run for more than one cycle): that is a *different* mechanism, one epoch at θ√E,
    and the returned round stands for the whole run (compose it once).

    Parameters
    ----------
    mechanism : Gaussian
        The batch noise, ``Gaussian.from_noise_multiplier(σ)``.
    steps_per_epoch : int
        T ≥ 1 (T = 1 is the plain Gaussian).
    bins : {"fresh", "fixed"}
        Whether bins are redrawn every epoch.
    epochs : int, optional
        Required with ``bins="fixed"`` (number of epochs over the same bins); must be omitted or 1 otherwise.

    Returns
    -------
    BallsAndBinsRound

    Raises
    ------
    TypeError
        If ``mechanism`` is not a Gaussian.
    ValueError
        For T outside [1, 1e7], an unknown ``bins``, or ``epochs`` missing/invalid for fixed bins.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import balls_and_bins
    >>> g = bounds.Gaussian.from_noise_multiplier(1.0)
    >>> s = bounds.compose([(balls_and_bins(g, 1), 1)], tolerance=1e-2).delta(1.0)  # T = 1: the Gaussian
    >>> s.lower <= 0.1269367375 <= s.upper
    True
    """
    function = "balls_and_bins"
    m = check_gaussian(function, mechanism)
    t = check_int(function, "steps_per_epoch", steps_per_epoch, 1, 10 ** 7)
    e = check_reuse(function, "bins", bins, "fresh", "fixed", "bins", epochs)
    return BallsAndBinsRound(m, t, bins, e)
