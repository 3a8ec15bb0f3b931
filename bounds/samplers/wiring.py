"""DP-SGD words → the rounds that certify the sampler (issue 21): the one source of truth for the sampler words
and the step convention.

``sampler_steps(sampler=..., mechanism=..., epochs=..., ...)`` returns ``(steps, description)``: ``steps`` is the
list of ``bounds.compose`` and ``description`` names the sampler, the adjacency the result is decided under, the
step/rate convention, and — for shuffled batches — that the upper side is the cyclic bound and a claim computed
for Poisson does not apply.  ``sampler_composition`` composes it for a Gaussian of noise multiplier σ; the batch
procedures of :mod:`bounds.procedures.sampling` call ``sampler_steps`` with their own parameters
(``BatchSampler.accounting``), so a pipeline that draws its batches with a procedure gets exactly this accounting.
"""
from __future__ import annotations

from typing import Any

from .._dask import refuses_dask
from ..composition import Composition, compose, poisson_sampled
from ..mechanisms import Gaussian
from ._common import check_int

SAMPLERS = ("poisson", "balls_and_bins", "shuffle", "random_allocation", "fixed_size", "cyclic")
ADJACENCY = {  # sampler → (default, allowed)
    "poisson": ("add_remove", ("add_remove",)),
    "balls_and_bins": ("add_remove", ("add_remove",)),
    "random_allocation": ("add_remove", ("add_remove",)),
    "shuffle": ("zero_out", ("zero_out", "replace_one")),
    "cyclic": ("zero_out", ("zero_out", "replace_one")),
    "fixed_size": ("replace_one", ("zero_out", "replace_one")),
}


def sampler_steps(*, sampler: str, mechanism: Any, epochs: int, steps_per_epoch: int | None = None,
                  batch_size: int | None = None, dataset_size: int | None = None, adjacency: str | None = None,
                  selected: int = 1, rate: float | None = None,
                  function: str = "sampler_steps") -> tuple[list, str]:
    """The ``bounds.compose`` steps of ``epochs`` epochs of DP-SGD under ``sampler``, and a description of them.

    Step convention: ``steps_per_epoch`` = T, or T = ⌈dataset_size / batch_size⌉ (the last, partial batch
    counted; for shuffling both certified sides hold with it — ``docs/samplers/shuffle.md``, "A partial last
    batch", *derived*); Poisson uses the rate ``rate``, else q = batch_size/dataset_size (when both are given), else 1/T,
    for E·T steps; fixed-size batches need b and n and take E·T steps.  Each sampler's round is the one of
    :mod:`bounds.samplers` (Poisson: :func:`bounds.poisson_sampled`); record C2, *source* (Chua et al.
    2024/2025 for the shuffling and balls-and-bins pairs; Feldman & Shenfeld 2025 for random allocation).

    Parameters
    ----------
    sampler : {"poisson", "balls_and_bins", "shuffle", "random_allocation", "fixed_size", "cyclic"}
    mechanism : Gaussian
        The per-step mechanism (Poisson and cyclic also take what their rounds take, e.g. a Laplace).
    epochs : int
        E ≥ 1.
    steps_per_epoch, batch_size, dataset_size : int, optional
        T directly, or b and n (fixed-size batches need b and n; T then defaults to ⌈n/b⌉); n alone is
        validated and otherwise unused.
    adjacency : str, optional
        The sampler's default when omitted (``ADJACENCY``: "add_remove" for Poisson, balls-and-bins and
        random allocation; "zero_out" for shuffle and cyclic; "replace_one" for fixed-size batches).
    selected : int
        k for random allocation.
    rate : float, optional
        Poisson's rate q (overrides b/n and 1/T).
    function : str
        The name bad input is reported under.

    Returns
    -------
    (list, str)
        ``[(round, count)]`` for :func:`bounds.compose`, and the description.

    Raises
    ------
    ValueError
        For an unknown sampler, an adjacency the sampler does not support, or inconsistent sizes.

    Examples
    --------
    >>> import bounds
    >>> from bounds.samplers.wiring import sampler_steps
    >>> steps, text = sampler_steps(sampler="cyclic", mechanism=bounds.Gaussian.from_noise_multiplier(2.0),
    ...                             epochs=4, batch_size=10, dataset_size=95)
    >>> steps[0][1], steps[0][0].steps_per_epoch, text.split(";")[1]
    (4, 10, ' 10 steps per epoch × 4 epochs = 40 steps (T = ⌈n/b⌉ = ⌈95/10⌉)')
    """
    from . import balls_and_bins, cyclic, random_allocation, shuffled

    if not isinstance(sampler, str) or sampler not in SAMPLERS:
        raise ValueError(f"{function}: sampler = {sampler!r} must be one of {SAMPLERS}")
    default, allowed = ADJACENCY[sampler]
    adj = default if adjacency is None else adjacency
    if adj not in allowed:
        raise ValueError(f"{function}: adjacency = {adjacency!r} is not supported for sampler {sampler!r} "
                         f"(supported: {allowed})")
    E = check_int(function, "epochs", epochs)
    b = n = None
    if dataset_size is not None:
        n = check_int(function, "dataset_size", dataset_size, 1, 10 ** 12)
    if batch_size is not None:
        if n is None:
            raise ValueError(f"{function}: batch_size = {batch_size!r} needs dataset_size (b is checked against n)")
        b = check_int(function, "batch_size", batch_size, 1, n)
    if steps_per_epoch is not None:
        T = check_int(function, "steps_per_epoch", steps_per_epoch)
        conv = f"{T} steps per epoch × {E} epochs = {T * E} steps"
    elif b is None:
        raise ValueError(f"{function}: give steps_per_epoch, or batch_size and dataset_size")
    else:
        T = -(-n // b)
        conv = f"{T} steps per epoch × {E} epochs = {T * E} steps (T = ⌈n/b⌉ = ⌈{n}/{b}⌉)"
    theta = getattr(mechanism, "theta", None)
    what = f"σ = {1.0 / theta:g}" if isinstance(mechanism, Gaussian) and theta else type(mechanism).__name__
    adj_text = adj.replace("_", "-") + " adjacency"
    if sampler == "poisson":
        if rate is not None:
            q = rate
        else:
            q = b / n if b is not None else 1.0 / T
        steps = [(poisson_sampled(mechanism, q), T * E)]
        text = f"Poisson sampling, rate q = {float(q):.6g} per step, {adj_text}; {conv}; {what}; certified sandwich"
    elif sampler == "balls_and_bins":
        steps = [(balls_and_bins(mechanism, T), E)]
        text = f"balls-and-bins (fresh bins every epoch), {adj_text}; {conv}; {what}; certified sandwich"
    elif sampler == "random_allocation":
        k = check_int(function, "selected", selected, 1, T)
        steps = [(random_allocation(mechanism, T, selected=k), E)]
        text = (f"random allocation ({k} of {T} steps per epoch), {adj_text}; {conv}; {what}; upper by "
                "decomposition" + ("" if k == 1 else ", lower side loose"))
    elif sampler == "shuffle":
        steps = [(shuffled(mechanism, T, adjacency=adj), E)]
        text = (f"shuffled fixed-size batches (reshuffled every epoch), {adj_text}; {conv}; {what}; lower side "
                "certified, upper side = the cyclic (deterministic-batch) bound — no tighter upper bound is known; "
                "a claim computed for Poisson sampling does not apply to shuffled batches (compare it with the "
                "lower side)")
    elif sampler == "cyclic":
        steps = [(cyclic(mechanism, T, adjacency=adj), E)]
        exact = "exact (Gaussian at σ/√E)" if isinstance(mechanism, Gaussian) else "exact (one step per epoch)"
        text = f"cyclic (deterministic) batches, {adj_text}; {conv}; {what}; {exact}"
    else:
        from .fixed_size import fixed_size_sampled

        if b is None:
            raise ValueError(f"{function}: sampler 'fixed_size' needs batch_size and dataset_size")
        steps = [(fixed_size_sampled(mechanism, b, n, adjacency=adj), T * E)]
        text = f"fixed-size batches drawn each step (b = {b} of n = {n}), {adj_text}; {conv}; {what}"
    return steps, text


@refuses_dask
def sampler_composition(*, sampler: str, noise_multiplier: float, epochs: int, steps_per_epoch: int | None = None,
                        batch_size: int | None = None, dataset_size: int | None = None,
                        adjacency: str | None = None, selected: int = 1, rate: float | None = None,
                        tolerance: float = 1e-3) -> tuple[Composition, str]:
    """The certified composition of ``epochs`` epochs of DP-SGD under ``sampler``, and a description of it:
    :func:`sampler_steps` for ``Gaussian.from_noise_multiplier(noise_multiplier)``, composed.

    The rounds, the step convention (T = ⌈n/b⌉ with the last, partial batch counted; Poisson's q = ``rate``,
    else b/n, else 1/T) and the default adjacencies are :func:`sampler_steps`'s (record C2, *source*: Chua et al.
    2024/2025 for the shuffling and balls-and-bins pairs, Feldman & Shenfeld 2025 for random allocation).  A batch
    procedure of :mod:`bounds.procedures` gives these keywords for itself (``crosscheck_keywords(epochs)``; add
    ``noise_multiplier=``), and its ``accounting`` gives the same steps.

    Parameters
    ----------
    sampler, epochs, steps_per_epoch, batch_size, dataset_size, adjacency, selected, rate : see sampler_steps
        As for :func:`sampler_steps` (``sampler`` one of ``SAMPLERS``).
    noise_multiplier : float
        σ (θ = 1/σ).
    tolerance : float
        Passed to :func:`bounds.compose`.

    Returns
    -------
    (Composition, str)

    Raises
    ------
    ValueError
        As :func:`sampler_steps`, and for σ outside (0, ∞).

    Examples
    --------
    >>> from bounds.samplers import sampler_composition
    >>> comp, text = sampler_composition(sampler="shuffle", noise_multiplier=1.0, epochs=2, steps_per_epoch=10)
    >>> text.split(";")[0]
    'shuffled fixed-size batches (reshuffled every epoch), zero-out adjacency'
    """
    g = Gaussian.from_noise_multiplier(noise_multiplier)
    steps, text = sampler_steps(sampler=sampler, mechanism=g, epochs=epochs, steps_per_epoch=steps_per_epoch,
                                batch_size=batch_size, dataset_size=dataset_size, adjacency=adjacency,
                                selected=selected, rate=rate, function="sampler_composition")
    return compose(steps, tolerance=tolerance), text
