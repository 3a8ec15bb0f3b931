"""Cyclic (deterministic) batches: every record in exactly one batch per epoch, always the same one.

Proof note: ``docs/samplers/cyclic.md``.  One epoch releases each record's clipped gradient once, through
the base mechanism; E epochs are the E-fold composition, i.e. a Gaussian at θ·√E (σ/√E) — *exact*, no
amplification.  The round plugs into :func:`bounds.compose` (``numeric.composition.one_step`` grids).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .._dask import refuses_dask
from ..mechanisms import Gaussian, Laplace
from ._common import check_adjacency, check_int, check_noise


@refuses_dask
@dataclass(frozen=True)
class CyclicRound:
    """One epoch of cyclic batches (exact: the base mechanism once per record); build with :func:`cyclic`.

    Parameters
    ----------
    mechanism : Gaussian or Laplace
        The per-batch noise (θ = Δ/σ; the differing record shifts its batch's sum by Δ, or 2Δ under
        replace-one).
    steps_per_epoch : int
        T, batches per epoch (does not change the guarantee: kept for the record).
    adjacency : str
        "zero_out" (the differing record's gradient replaced by zero: sensitivity 1) or "replace_one"
        (replaced by another record's: sensitivity 2, θ → 2θ).

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import cyclic
    >>> r = cyclic(bounds.Gaussian.from_noise_multiplier(2.0), 100)
    >>> r.adjacency, r.steps_per_epoch
    ('zero_out', 100)
    """

    mechanism: Gaussian | Laplace
    steps_per_epoch: int
    adjacency: str = "zero_out"
    _asymmetric = False

    @property
    def _effective(self) -> Gaussian | Laplace:
        return self.mechanism if self.adjacency == "zero_out" else self.mechanism.group(2)

    def _composition_grids(self, direction: int, h: float):
        from ..composition import _C

        C = _C()
        m = self._effective
        kind = C.GAUSSIAN if isinstance(m, Gaussian) else C.LAPLACE
        u, lw = C.one_step(kind, C.REMOVE, m.theta, 1.0, h)
        if m.theta_lower != m.theta:
            _, lw = C.one_step(kind, C.REMOVE, m.theta_lower, 1.0, h)
        return u, lw

    def _loss_scale(self) -> tuple[float, float]:
        t = self._effective.theta
        return (2.0 * t * 9.0 if isinstance(self._effective, Gaussian) else 2.0 * t), t


@refuses_dask
def cyclic(mechanism: Gaussian | Laplace, steps_per_epoch: int, *, adjacency: str = "zero_out") -> CyclicRound:
    """One epoch of cyclic (deterministic) batches, as a round for :func:`bounds.compose`: exact.

    Each record is in exactly one batch of every epoch, so an epoch releases it once through the base
    mechanism; ``compose([(cyclic(Gaussian(θ), T), E)])`` is the Gaussian at θ√E (noise multiplier σ/√E) —
    no amplification by the batching.  Provenance: *source* (composition of Gaussians; the sandwich is the
    certified composition C1; record C2, whose shuffling lower side is Chua et al.'s).  It is also the
    certified **upper** side for shuffled batches
    (``bounds.samplers.shuffled``), where no tighter upper bound is known.

    Parameters
    ----------
    mechanism : Gaussian or Laplace
        The noise of one batch (``Gaussian.from_noise_multiplier(σ)`` for DP-SGD).
    steps_per_epoch : int
        Batches per epoch T ≥ 1.
    adjacency : {"zero_out", "replace_one"}
        Zero-out (sensitivity 1) or replace-one (sensitivity 2: θ → 2θ).

    Returns
    -------
    CyclicRound

    Raises
    ------
    TypeError
        If ``mechanism`` is not a Gaussian or Laplace.
    ValueError
        If T is not an integer in [1, 1e7] or the adjacency is unknown.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import cyclic
    >>> epoch = cyclic(bounds.Gaussian.from_noise_multiplier(2.0), 100)
    >>> s = bounds.compose([(epoch, 4)], tolerance=1e-2).delta(1.0)   # = Gaussian(θ = 1): 0.126936737...
    >>> s.lower <= 0.1269367375 <= s.upper
    True
    """
    function = "cyclic"
    m = check_noise(function, mechanism)
    t = check_int(function, "steps_per_epoch", steps_per_epoch)
    a = check_adjacency(function, adjacency)
    return CyclicRound(m, t, a)
