"""DP-SGD words → a composition of the sampler's rounds (issue 21): the one-line hook for ``crosscheck``.

``sampler_composition(sampler=..., noise_multiplier=..., epochs=..., steps_per_epoch=... or batch_size=...
and dataset_size=..., adjacency=...)`` returns ``(Composition, description)``; the description names the
sampler, the adjacency the result is decided under, the step/rate convention, and — for shuffled batches —
that the upper side is the cyclic bound and a claim computed for Poisson does not apply.
"""
from __future__ import annotations

from .._dask import refuses_dask
from ..composition import Composition, compose, poisson_sampled
from ..mechanisms import Gaussian
from ._common import check_int

SAMPLERS = ("poisson", "balls_and_bins", "shuffle", "random_allocation", "fixed_size", "cyclic")
_ADJACENCY = {  # sampler → (default, allowed)
    "poisson": ("add_remove", ("add_remove",)),
    "balls_and_bins": ("add_remove", ("add_remove",)),
    "random_allocation": ("add_remove", ("add_remove",)),
    "shuffle": ("zero_out", ("zero_out", "replace_one")),
    "cyclic": ("zero_out", ("zero_out", "replace_one")),
    "fixed_size": ("replace_one", ("zero_out", "replace_one")),
}


@refuses_dask
def sampler_composition(*, sampler: str, noise_multiplier: float, epochs: int, steps_per_epoch: int | None = None,
                        batch_size: int | None = None, dataset_size: int | None = None,
                        adjacency: str | None = None, selected: int = 1,
                        tolerance: float = 1e-3) -> tuple[Composition, str]:
    """The certified composition of ``epochs`` epochs of DP-SGD under ``sampler``, and a description of it.

    Steps per epoch: ``steps_per_epoch`` = T, or T = ⌈dataset_size / batch_size⌉ (the last, partial batch
    counted); Poisson uses rate q = batch_size/dataset_size (or 1/T) for E·T steps.  Each sampler's round is
    the one of :mod:`bounds.samplers` (Poisson: :func:`bounds.poisson_sampled`); record C2, *source* (Chua
    et al. 2024/2025 for the shuffling and balls-and-bins pairs; Feldman & Shenfeld 2025 for random allocation).

    Parameters
    ----------
    sampler : {"poisson", "balls_and_bins", "shuffle", "random_allocation", "fixed_size", "cyclic"}
    noise_multiplier : float
        σ (θ = 1/σ).
    epochs : int
        E ≥ 1.
    steps_per_epoch, batch_size, dataset_size : int, optional
        T directly, or b and n.
    adjacency : str, optional
        The sampler's default when omitted ("add_remove" for Poisson, balls-and-bins and random allocation;
        "zero_out" for shuffle and cyclic; "replace_one" for fixed-size batches).
    selected : int
        k for random allocation.
    tolerance : float
        Passed to :func:`bounds.compose`.

    Returns
    -------
    (Composition, str)

    Raises
    ------
    ValueError
        For an unknown sampler, an adjacency the sampler does not support, or inconsistent sizes.

    Examples
    --------
    >>> from bounds.samplers import sampler_composition
    >>> comp, text = sampler_composition(sampler="shuffle", noise_multiplier=1.0, epochs=2, steps_per_epoch=10)
    >>> text.split(";")[0]
    'shuffled fixed-size batches (reshuffled every epoch), zero-out adjacency'
    """
    from . import balls_and_bins, cyclic, random_allocation, shuffled

    function = "sampler_composition"
    if not isinstance(sampler, str) or sampler not in SAMPLERS:
        raise ValueError(f"{function}: sampler = {sampler!r} must be one of {SAMPLERS}")
    default, allowed = _ADJACENCY[sampler]
    adj = default if adjacency is None else adjacency
    if adj not in allowed:
        raise ValueError(f"{function}: adjacency = {adjacency!r} is not supported for sampler {sampler!r} "
                         f"(supported: {allowed})")
    g = Gaussian.from_noise_multiplier(noise_multiplier)
    E = check_int(function, "epochs", epochs)
    b = n = None
    if steps_per_epoch is not None:
        T = check_int(function, "steps_per_epoch", steps_per_epoch)
    else:
        if batch_size is None or dataset_size is None:
            raise ValueError(f"{function}: give steps_per_epoch, or batch_size and dataset_size")
        n = check_int(function, "dataset_size", dataset_size, 1, 10 ** 12)
        b = check_int(function, "batch_size", batch_size, 1, n)
        T = -(-n // b)
    sigma = f"σ = {float(noise_multiplier):g}"
    conv = f"{T} steps per epoch × {E} epochs = {T * E} steps"
    if b is not None:
        conv += f" (T = ⌈n/b⌉ = ⌈{n}/{b}⌉)"
    adj_text = adj.replace("_", "-") + " adjacency"
    if sampler == "poisson":
        q = b / n if b is not None else 1.0 / T
        comp = compose([(poisson_sampled(g, q), T * E)], tolerance=tolerance)
        text = (f"Poisson sampling, rate q = {q:.6g} per step, {adj_text}; {conv}; {sigma}; certified sandwich")
    elif sampler == "balls_and_bins":
        comp = compose([(balls_and_bins(g, T), E)], tolerance=tolerance)
        text = f"balls-and-bins (fresh bins every epoch), {adj_text}; {conv}; {sigma}; certified sandwich"
    elif sampler == "random_allocation":
        k = check_int(function, "selected", selected, 1, T)
        comp = compose([(random_allocation(g, T, selected=k), E)], tolerance=tolerance)
        text = (f"random allocation ({k} of {T} steps per epoch), {adj_text}; {conv}; {sigma}; upper by "
                "decomposition" + ("" if k == 1 else ", lower side loose"))
    elif sampler == "shuffle":
        comp = compose([(shuffled(g, T, adjacency=adj), E)], tolerance=tolerance)
        text = (f"shuffled fixed-size batches (reshuffled every epoch), {adj_text}; {conv}; {sigma}; lower side "
                "certified, upper side = the cyclic (deterministic-batch) bound — no tighter upper bound is known; "
                "a claim computed for Poisson sampling does not apply to shuffled batches (compare it with the "
                "lower side)")
    elif sampler == "cyclic":
        comp = compose([(cyclic(g, T, adjacency=adj), E)], tolerance=tolerance)
        text = f"cyclic (deterministic) batches, {adj_text}; {conv}; {sigma}; exact (Gaussian at σ/√E)"
    else:
        try:
            from .fixed_size import fixed_size_sampled  # type: ignore[attr-defined]
        except ImportError:
            raise ValueError(f"{function}: sampler 'fixed_size' is not available in this build") from None
        if b is None:
            raise ValueError(f"{function}: sampler 'fixed_size' needs batch_size and dataset_size")
        comp = compose([(fixed_size_sampled(g, b, n, adjacency=adj), T * E)], tolerance=tolerance)
        text = f"fixed-size batches drawn each step (b = {b} of n = {n}), {adj_text}; {conv}; {sigma}"
    return comp, text
