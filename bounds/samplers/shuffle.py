"""Shuffled fixed-size batches (ABLQ_S): certified lower side, cyclic (exact) upper side (issue 21).

Proof note: ``docs/samplers/shuffle.md``; kernels: ``numeric.shuffle``.  No tight upper bound is known for
shuffling: the round's dominating grid is the deterministic-batch (cyclic) Gaussian, exact; its dominated
grid is a certified lower side of the max-of-batches pair of Chua et al. (ICML 2024).
"""
from __future__ import annotations

from dataclasses import dataclass

from .._dask import refuses_dask
from ..mechanisms import Gaussian
from ._common import check_adjacency, check_gaussian, check_int, check_reuse, epoch_thetas

_CACHE: dict = {}


@refuses_dask
@dataclass(frozen=True)
class ShuffledRound:
    """One epoch of shuffled fixed-size batches (or, with ``order="fixed"``, ``epochs`` epochs in the same
    order: one epoch at θ√E).  Build it with :func:`shuffled`.  ``compose`` gives a ``Sandwich`` whose
    ``lower`` is a certified lower bound for shuffling and whose ``upper`` is the cyclic (deterministic
    batches) value — the best certified upper bound, not a tight one.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import shuffled
    >>> r = shuffled(bounds.Gaussian.from_noise_multiplier(1.0), 100)
    >>> r.adjacency, r.upper_side
    ('zero_out', 'cyclic (deterministic batches): no tighter upper bound is known for shuffling')
    """

    mechanism: Gaussian
    steps_per_epoch: int
    adjacency: str = "zero_out"
    order: str = "reshuffled"
    epochs: int = 1
    _asymmetric = False
    _gap_is_inherent = True
    upper_side = "cyclic (deterministic batches): no tighter upper bound is known for shuffling"

    def _thetas(self) -> tuple[float, float]:
        return epoch_thetas(self.mechanism, self.epochs)

    def _composition_grids(self, direction: int, h: float):
        from ..composition import _C
        from numeric import shuffle as S

        C = _C()
        tu, tl = self._thetas()
        k = 2.0 if self.adjacency == "replace_one" else 1.0  # cyclic upper side: sensitivity 1 or 2
        up, _ = C.one_step(C.GAUSSIAN, C.REMOVE, tu * k, 1.0, h)
        key = (tl, self.steps_per_epoch, self.adjacency, h)
        if key not in _CACHE:
            if len(_CACHE) > 16:
                _CACHE.clear()
            _CACHE[key] = S.lower_grid(tl, self.steps_per_epoch, self.adjacency, h)
        return up, _CACHE[key]

    def _loss_scale(self) -> tuple[float, float]:
        t = self._thetas()[0] * (2.0 if self.adjacency == "replace_one" else 1.0)
        return 18.0 * t, t


@refuses_dask
def shuffled(mechanism: Gaussian, steps_per_epoch: int, *, adjacency: str = "zero_out",
             order: str = "reshuffled", epochs: int | None = None) -> ShuffledRound:
    """One epoch of shuffled fixed-size batches as a round for :func:`bounds.compose`: certified lower side,
    cyclic upper side.

    The data are permuted uniformly at random and cut into ``steps_per_epoch`` = T batches (ABLQ_S).  The lower
    side is certified from the pair of Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang (ICML 2024,
    *source*) after the post-processing x ↦ max_t x_t: zero-out (MoG_T(2), MoG_T(1)) — the other records at −1,
    the differing one +1 against a null record that still takes a slot —, replace-one (MoG_T(2), N_T); E
    reshuffled epochs compose it E times (the epochs are independent).  The upper side is the deterministic-batch
    Gaussian (θ, or 2θ under replace-one), exact for cyclic batches and the best certified upper bound known
    for shuffling (``upper_side`` says so).  Proof: ``docs/samplers/shuffle.md``.

    Parameters
    ----------
    mechanism : Gaussian
        The batch noise, ``Gaussian.from_noise_multiplier(σ)``.
    steps_per_epoch : int
        T ≥ 1 batches per epoch.
    adjacency : {"zero_out", "replace_one"}
        The neighbouring relation (add/remove is not defined for fixed-size batches).
    order : {"reshuffled", "fixed"}
        A fresh permutation every epoch (compose the round E times), or the same order every epoch
        (``epochs`` required: the round is the whole run, one epoch at θ√E).
    epochs : int, optional
        With ``order="fixed"``: how many epochs reuse the order.

    Returns
    -------
    ShuffledRound

    Raises
    ------
    TypeError
        If ``mechanism`` is not a Gaussian.
    ValueError
        For T outside [1, 1e7], an unknown adjacency or order, or ``epochs`` missing/invalid.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers import shuffled
    >>> r = shuffled(bounds.Gaussian.from_noise_multiplier(1.0), 100)
    >>> s = bounds.compose([(r, 1)], tolerance=1e-2).delta(1.0)
    >>> 0.01670 < s.lower <= 0.0167058 and s.upper > 0.12     # lower: max-pair; upper: Gaussian(θ = 1)
    True
    """
    function = "shuffled"
    m = check_gaussian(function, mechanism)
    t = check_int(function, "steps_per_epoch", steps_per_epoch, 1, 10 ** 7)
    a = check_adjacency(function, adjacency)
    e = check_reuse(function, "order", order, "reshuffled", "fixed", "permutation", epochs)
    return ShuffledRound(m, t, a, order, e)
