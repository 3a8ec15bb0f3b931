"""Public API for subsampling and rate change: SPEC T1, T2, T3/T4, T5."""
from __future__ import annotations

from numpy.typing import ArrayLike

import numpy as np

from ._core import (Guarantee, as_output, evaluate, evaluate_pair, evaluate_scalar, guarantee, is_scalar, validate,
                    validate_scalars)
from ._dask import supports_dask


def poisson_subsampling(epsilon: ArrayLike, delta: ArrayLike, rate: ArrayLike) -> Guarantee:
    r"""Privacy of an (ε, δ)-DP mechanism run on a Poisson sample (SPEC T1).

    Returns an upper bound on the (ε', δ') of M∘S_p, rounded up (never below the exact value), or raises.

    .. math::

        \varepsilon' = \ln\bigl(1 + p(e^{\varepsilon} - 1)\bigr), \qquad \delta' = p\,\delta

    Relation: add/remove.  Provenance: *source* — Li, Qardaji, Su 2012; Balle, Barthe, Gaboardi 2018,
    Thm 8; Steinke 2022.  Tight for every (ε, δ, p) (randomized response on the membership bit).
    With non-uniform rates p_x use p = max_x p_x.

    Parameters
    ----------
    epsilon : array_like
        ε of the base mechanism, in [0, inf] (inf gives ε' = inf when p > 0).
    delta : array_like
        δ of the base mechanism, in [0, 1].
    rate : array_like
        Probability p ∈ [0, 1] that each record is kept.

    Returns
    -------
    Guarantee
        ``(epsilon, delta)``: floats for scalar input, broadcast arrays otherwise.  ε' is evaluated as
        log1p(p·expm1(ε)) for ε ≤ 709 and in log space above, so ε = 1e4 works.  What the limits give:
        rate 0 returns exactly (0, 0); rate 1 returns δ exactly and ε rounded up by the kernel's outward
        rounding (4 ulps on top of an evaluation error ≤ 1.44 ulps measured by ``ampbounds certify``:
        0.5 → 0.5000000000000006, 5 ulps), not ε itself — returning ε there would make the
        bound non-monotone in the rate, since the rounded-up value just below rate 1 already exceeds ε.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (the message names it, its value and the domain).

    Examples
    --------
    >>> import math, bounds
    >>> g = bounds.poisson_subsampling(1.0, 1e-6, 0.01)
    >>> round(g.epsilon, 12), g.delta >= 1e-8
    (0.017036863236, True)
    >>> bounds.poisson_subsampling(1e4, 0.0, 1e-300).epsilon > 1e4 - 691
    True
    """
    return guarantee("poisson_subsampling", "T1", epsilon=epsilon, delta=delta, rate=rate)


@supports_dask(pair=True)
def poisson_subsampling_inverse(epsilon: ArrayLike, delta: ArrayLike, rate: ArrayLike) -> Guarantee:
    r"""Base budget (ε₀, δ₀) whose Poisson-subsampled guarantee (T1) is within the target (ε, δ).

    Returns a base budget rounded *down*, or raises: the exact T1 map of (ε₀, δ₀) never exceeds the target,
    and neither does the library's own upward-rounded ``poisson_subsampling(ε₀, δ₀, p)`` (the base budget is
    shrunk by ulps until it fits), so calibrating noise to it is safe.

    .. math::

        \varepsilon_0 = \ln\Bigl(1 + \frac{e^{\varepsilon} - 1}{p}\Bigr), \qquad
        \delta_0 = \min\Bigl(1, \frac{\delta}{p}\Bigr)

    SPEC T1 (inverse map A_p⁻¹).  Relation: add/remove.  Provenance: *source*.  ``rate = 0`` returns
    (inf, 1): any mechanism satisfies the target.  ε₀ is computed in log space when e^ε/p would overflow.

    SPEC T1; Li, Qardaji, Su 2012; Balle, Barthe, Gaboardi 2018 Thm 8; Steinke 2022.  Provenance: *source*.

    Parameters
    ----------
    epsilon, delta : array_like
        The target guarantee of the subsampled mechanism, ε ∈ [0, inf], δ ∈ [0, 1].
    rate : array_like
        Probability p ∈ [0, 1] that each record is kept.

    Returns
    -------
    Guarantee
        The base budget ``(epsilon, delta)``.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain.

    Examples
    --------
    >>> import bounds
    >>> base = bounds.poisson_subsampling_inverse(0.5, 1e-6, 0.01)
    >>> round(base.epsilon, 10), round(base.delta, 12)
    (4.1877153941, 0.0001)
    >>> bounds.poisson_subsampling(*base, 0.01).epsilon <= 0.5
    True
    """
    floats = validate_scalars("poisson_subsampling_inverse", "T1", dict(epsilon=epsilon, delta=delta, rate=rate))
    if floats is not None:  # the scalar route: the same kernels and the same shrinking steps, on floats
        bases = {"epsilon": evaluate_scalar("T1", "epsilon_base", floats),
                 "delta": evaluate_scalar("T1", "delta_base", floats)}
        for name in ("epsilon", "delta"):
            for step in range(60):
                forward = evaluate_scalar("T1", name, {"epsilon": bases[name], "delta": bases[name],
                                                       "rate": floats["rate"]})
                if not forward > floats[name]:
                    break
                bases[name] = max(bases[name] * (1.0 - 2.0 ** (step - 52)), 0.0)
        return Guarantee(bases["epsilon"], bases["delta"])
    scalar = is_scalar(epsilon, delta, rate)
    arrays = validate("poisson_subsampling_inverse", "T1", epsilon=epsilon, delta=delta, rate=rate)
    base_eps = evaluate("T1", "epsilon_base", arrays)
    base_delta = evaluate("T1", "delta_base", arrays)
    # The base budget is already below the exact inverse; shrink it further until the library's own
    # (upward-rounded) forward bound also fits the target, so a round trip never reports more than asked.  Both
    # forward values come from one pass (``evaluate_pair``: T1's fused loop, the one poisson_subsampling runs);
    # each budget keeps its own schedule (at most 60 shrinking steps, step s by 1 − 2^{s−52}), as on the scalar
    # route.
    bases = {"epsilon": base_eps, "delta": base_delta}
    targets = {"epsilon": arrays["epsilon"], "delta": arrays["delta"]}
    steps = {"epsilon": 0, "delta": 0}
    while steps:
        forward = dict(zip(("epsilon", "delta"),
                           evaluate_pair("T1", ("epsilon", "delta"), {"epsilon": bases["epsilon"],
                                                                    "delta": bases["delta"], "rate": arrays["rate"]})))
        for name in list(steps):
            over = forward[name] > targets[name]
            if steps[name] == 60 or not over.any():
                del steps[name]
                continue
            bases[name][over] = np.maximum(bases[name][over] * (1.0 - 2.0 ** (steps[name] - 52)), 0.0)
            steps[name] += 1
    return Guarantee(as_output(base_eps, scalar), as_output(base_delta, scalar))


def without_replacement(epsilon: ArrayLike, delta: ArrayLike, m: ArrayLike, n: ArrayLike) -> Guarantee:
    r"""Privacy of an (ε, δ)-DP mechanism run on a uniform size-m subset of n records (SPEC T2).

    Returns an upper bound on (ε', δ'), rounded up, or raises.

    .. math::

        \varepsilon' = \ln\Bigl(1 + \frac{m}{n}(e^{\varepsilon} - 1)\Bigr), \qquad
        \delta' = \frac{m}{n}\,\delta

    Relation: substitute (bounded DP).  Provenance: *source* — Balle, Barthe, Gaboardi 2018, Thm 9.
    Tight (randomized response on the membership bit of the substituted record).

    Parameters
    ----------
    epsilon : array_like
        ε of the base mechanism, in [0, inf].
    delta : array_like
        δ of the base mechanism, in [0, 1].
    m : array_like
        Sample size, an integer with 0 ≤ m ≤ n (a float such as 3.0 is accepted, 3.5 is not).
    n : array_like
        Number of records, an integer ≥ 1.

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a parameter is NaN, outside its domain, not an integer where one is meant, or m > n.

    Examples
    --------
    >>> import bounds
    >>> round(bounds.without_replacement(1.0, 1e-6, 100, 10_000).epsilon, 12)
    0.017036863236
    """
    return guarantee("without_replacement", "T2", epsilon=epsilon, delta=delta, m=m, n=n)


def with_replacement(epsilon: ArrayLike, delta: ArrayLike, m: ArrayLike, n: ArrayLike, *,
                     relation: str = "substitute") -> Guarantee:
    r"""Privacy of an (ε, δ)-DP mechanism run on m draws with replacement from n records (SPEC T3/T4).

    Returns an upper bound on (ε', δ'), rounded up, or raises.

    .. math::

        \eta = 1 - (1 - 1/n)^m, \qquad \varepsilon' = \ln\bigl(1 + \eta(e^{\varepsilon} - 1)\bigr),
        \qquad \delta' = \sum_{k=1}^{m} \binom{m}{k} n^{-k} (1 - 1/n)^{m-k}\, \delta_{M,k}(\varepsilon)

    δ_{M,k} is the *group* profile for distance k (a record drawn k times); using δ instead is unsound
    (SPEC T3).  With only a bare (ε, δ) known, the black-box group profile of the implied profile is used:
    δ_{M,k}(ε) = min(1, (e^ε − 1)/(e^{ε/k} − 1)·δ_M(ε/k)), δ_M(x) = δ + (1 − δ)(e^ε − e^x)/(1 + e^ε).
    Mechanism-specific profiles (Laplace/Gaussian, white-box θ → kθ) give tighter results; they arrive
    with the privacy-profiles work.  The sum runs in log space with a proven stopping rule; m up to 10⁶.

    Parameters
    ----------
    epsilon : array_like
        ε of the base mechanism, in [0, inf].  The base mechanism must be DP under *substitution*.
    delta : array_like
        δ of the base mechanism, in [0, 1].
    m : array_like
        Number of draws, an integer ≥ 0.
    n : array_like
        Number of records, an integer ≥ 1.  For ``relation="add_remove"``: the size of the **larger**
        of the two neighbouring datasets.
    relation : {"substitute", "add_remove", "add/remove"}
        ``"substitute"``: SPEC T3, *recovered* (Balle, Barthe, Gaboardi 2018, Thm 10).
        ``"add_remove"``: SPEC T4, *derived* (Balle et al. Thm 11): the same formula with n the larger
        neighbour's size, valid and conservative; there is no guarantee uniform over dataset sizes.

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a parameter is NaN, outside its domain, not an integer where one is meant, or the relation is
        unknown.

    Examples
    --------
    >>> import bounds
    >>> g = bounds.with_replacement(1.0, 1e-6, 1, 100)   # one draw: the T1 map at η = 1/n, δ/n
    >>> round(g.epsilon, 12), round(g.delta, 20)
    (0.017036863236, 1e-08)
    """
    # "add/remove" is how theorem() and `ampbounds list` print the relation: accept what is printed
    relations = {"substitute": "T3", "add_remove": "T4", "add/remove": "T4"}
    if not isinstance(relation, str) or relation not in relations:
        raise ValueError(f"with_replacement: relation = {relation!r} must be 'substitute' (T3) "
                         "or 'add_remove' / 'add/remove' (T4)")
    return guarantee("with_replacement", relations[relation], epsilon=epsilon, delta=delta, m=m, n=n)


def rate_change(epsilon: ArrayLike, delta: ArrayLike, rate_from: ArrayLike, rate_to: ArrayLike) -> Guarantee:
    r"""Guarantee at a smaller Poisson rate from one proven at a larger rate (SPEC T5).

    Returns an upper bound on (ε₂, δ₂), rounded up, or raises.

    .. math::

        \varepsilon_2 = \ln\Bigl(1 + \frac{\beta_2}{\beta_1}(e^{\varepsilon_1} - 1)\Bigr), \qquad
        \delta_2 = \frac{\beta_2}{\beta_1}\,\delta_1

    Relation: add/remove.  Provenance: *source* — Li, Qardaji, Su 2012, Thm 1.  ``rate_from = 1`` is T1.

    Parameters
    ----------
    epsilon, delta : array_like
        The guarantee (ε₁, δ₁) proven for samples of rate β₁; ε₁ ∈ [0, inf], δ₁ ∈ [0, 1].
    rate_from : array_like
        β₁ ∈ (0, 1].
    rate_to : array_like
        β₂ ∈ [0, β₁].

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a parameter is NaN, outside its domain, or rate_to > rate_from.

    Examples
    --------
    Li et al.'s example: rate 0.1 turns ln 2 into ln 1.1.

    >>> import math, bounds
    >>> g = bounds.rate_change(math.log(2), 0.0, 1.0, 0.1)
    >>> abs(g.epsilon - math.log(1.1)) < 1e-15
    True
    """
    return guarantee("rate_change", "T5", epsilon=epsilon, delta=delta, rate_from=rate_from, rate_to=rate_to)
