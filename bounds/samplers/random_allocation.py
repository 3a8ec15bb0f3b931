"""Random allocation: each record is used in ``selected`` = k of the ``steps`` = T steps of an epoch, chosen
uniformly at random (issue 21).  Proof note: ``docs/samplers/random_allocation.md``.

Upper side: the decomposition of k-of-T into k allocations of one out of ⌊T/k⌋ or ⌈T/k⌉ steps (Feldman &
Shenfeld 2025, *Privacy amplification by random allocation*, arXiv 2502.08202, the reduction used by
dp_accounting PR #414; *source* as cited, not re-proven here), each a balls-and-bins epoch
(:mod:`bounds.samplers.balls_and_bins`), composed.  Lower side: for k = 1 the balls-and-bins lower side
(the same mechanism); for k > 1 the post-processing "sum of the T noisy steps", a Gaussian at θ·k/√T
(valid, loose except at k = T, where it is exact).
"""
from __future__ import annotations

from dataclasses import dataclass

from .._dask import refuses_dask
from ..mechanisms import Gaussian
from ._common import check_gaussian, check_int
from .balls_and_bins import BallsAndBinsRound

_CACHE: dict = {}


@refuses_dask
@dataclass(frozen=True)
class RandomAllocationRound:
    """One epoch of random allocation (k of T steps per record); build it with :func:`random_allocation`.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import random_allocation
    >>> r = random_allocation(bounds.Gaussian.from_noise_multiplier(2.0), 100, selected=10)
    >>> r.blocks
    ((10, 10),)
    """

    mechanism: Gaussian
    steps: int
    selected: int = 1
    adjacency = "add_remove"
    _asymmetric = True

    @property
    def blocks(self) -> tuple[tuple[int, int], ...]:
        """((block length, how many blocks), ...): k = k₁ + k₂ blocks of ⌊T/k⌋ and ⌈T/k⌉ steps, Σ = T."""
        T, k = self.steps, self.selected
        short = T // k
        n_long = T - short * k
        out = []
        if k - n_long:
            out.append((short, k - n_long))
        if n_long:
            out.append((short + 1, n_long))
        return tuple(out)

    @property
    def _gap_is_inherent(self) -> bool:
        return self.selected > 1 and self.selected < self.steps

    def _composition_grids(self, direction: int, h: float):
        from ..composition import _C

        C = _C()
        key = (self, direction, h)
        if key in _CACHE:
            return _CACHE[key]
        up = None
        for length, count in self.blocks:
            u, lw = BallsAndBinsRound(self.mechanism, length)._composition_grids(direction, h)
            p = C.untilted(C.power(u, count, True, lam=0.0), True)
            up = p if up is None else C.convolve(up, p, up.k0 + p.k0 - 8, up.k1 + p.k1, True)
        if self.selected == 1:
            low = lw  # k = 1: balls-and-bins itself
        else:
            # post-processing: the sum of all T outputs is N(k, Tσ²) against N(0, Tσ²): θ·k/√T (rounded down)
            g = self.mechanism
            theta = (g.theta_lower * self.selected / self.steps ** 0.5) * (1 - 2 ** -50)
            _, low = C.one_step(C.GAUSSIAN, C.REMOVE, theta, 1.0, h)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[key] = (up, low)
        return up, low

    def _loss_scale(self) -> tuple[float, float]:
        rng = 0.0
        var = 0.0
        for length, count in self.blocks:
            r, s = BallsAndBinsRound(self.mechanism, length)._loss_scale()
            rng += r
            var += count * s * s
        return rng, var ** 0.5


@refuses_dask
def random_allocation(mechanism: Gaussian, steps: int, *, selected: int = 1) -> RandomAllocationRound:
    """One epoch of random allocation (each record in ``selected`` of ``steps`` steps, chosen uniformly) as a
    round for :func:`bounds.compose` (add/remove).

    Upper side: k allocations of one out of ⌊T/k⌋ or ⌈T/k⌉ steps (Feldman & Shenfeld 2025, arXiv 2502.08202;
    the decomposition of dp_accounting PR #414; *source* as cited), each a certified balls-and-bins epoch (Chua
    et al.'s dominating pair; record C2), composed.  Lower side:
    k = 1 is balls-and-bins (certified sandwich); for 1 < k < T the post-processing "sum of the epoch's outputs"
    (Gaussian θk/√T) — valid and loose; k = T is exact (the Gaussian at θ√T).

    Parameters
    ----------
    mechanism : Gaussian
        ``Gaussian.from_noise_multiplier(σ)``.
    steps : int
        T ≥ 1 steps per epoch.
    selected : int
        k ∈ [1, T], steps each record is used in.

    Returns
    -------
    RandomAllocationRound

    Raises
    ------
    TypeError
        If ``mechanism`` is not a Gaussian.
    ValueError
        For T outside [1, 1e7] or k outside [1, T].

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import random_allocation
    >>> g = bounds.Gaussian.from_noise_multiplier(2.0)
    >>> e = bounds.compose([(random_allocation(g, 100, selected=10), 1)]).epsilon(1e-6)
    >>> e.upper <= 2.4265                    # dp_accounting PR #414's (float64) value: 2.4265
    True
    """
    function = "random_allocation"
    m = check_gaussian(function, mechanism)
    t = check_int(function, "steps", steps, 1, 10 ** 7)
    k = check_int(function, "selected", selected, 1, t)
    return RandomAllocationRound(m, t, k)
