"""Public API for Poisson subsampling under the substitute relation: SPEC T6 (profile level, *derived*)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import ArrayLike

from ._core import Guarantee, as_output, guarantee, is_scalar, validate
from ._dask import supports_dask


def poisson_substitution(epsilon: ArrayLike, delta_remove: ArrayLike, delta_substitute: ArrayLike,
                         rate: ArrayLike) -> Guarantee:
    r"""Privacy profile of a Poisson-subsampled mechanism under the *substitute* relation (SPEC T6).

    Returns an upper bound on (ε', δ') — ε' = A_γ(ε) and δ' the T6 bound, both rounded up — meaning
    δ_{M∘S}(ε') ≤ δ' for substitute neighbours, or raises.

    .. math::

        e^{\varepsilon'} = 1 + \gamma(e^{\varepsilon} - 1), \qquad \beta = e^{\varepsilon' - \varepsilon},
        \qquad \delta' = \gamma\bigl[(1 - \beta)\,\delta^{(r)}_M(\varepsilon) + \beta\,\delta^{(s)}_M(\varepsilon)\bigr]

    δ^{(r)}_M(ε) and δ^{(s)}_M(ε) are (upper bounds on) the privacy profile of the base mechanism M at ε for
    add/remove and for substitute neighbours; δ' is non-decreasing in both, so upper bounds are safe.

    Relation: substitute (bounded DP) for M∘S; M's profiles for both relations are needed.
    Provenance: *derived* — the paper's supplementary statement was not recovered; this is this library's
    own bound, reconstructed and verified by brute force.  It follows the proof strategy of Balle, Barthe,
    Gaboardi 2018: advanced joint convexity H_{e^{ε'}}((1−γ)μ₀ + γμ₁ ‖ (1−γ)μ₀ + γμ₁') =
    γ·H_{e^ε}(μ₁ ‖ (1−β)μ₀ + βμ₁') (their Thm 2), then convexity in the second argument.  The brute force
    (``proofs_checks.poisson_substitution_checks``) computes the exact divergence of Poisson-subsampled
    finite mechanisms in rationals and never finds it above δ'.  Not tight in general.

    Evaluated as δ' = γ[(1 − γ)·u·δ_r + (e^{−ε} + γ·u)·δ_s] with u = −expm1(−ε) (that is
    β = e^{−ε} + γu, 1 − β = (1 − γ)u): no cancellation and no overflow for any ε ∈ [0, inf].
    Special cases kept exact: γ = 0 → (0, 0); γ = 1 → δ' = δ_s; δ_r = δ_s = δ → δ' = γδ (the T1 value).

    Parameters
    ----------
    epsilon : array_like
        ε ∈ [0, inf] at which the base profiles are taken.
    delta_remove : array_like
        δ^{(r)}_M(ε) ∈ [0, 1], the base mechanism's add/remove profile at ε.
    delta_substitute : array_like
        δ^{(s)}_M(ε) ∈ [0, 1], the base mechanism's substitute profile at ε.  Without a better value, the
        group profile at distance 2 of the add/remove profile is valid (a substitution is a removal and an
        addition); ``poisson_substitution_profile`` does that for mechanism objects.
    rate : array_like
        γ ∈ [0, 1], the probability that each record is kept.

    Returns
    -------
    Guarantee
        ``(epsilon, delta)``: floats for scalar input, broadcast arrays otherwise.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (the message names it, its value and the domain).

    Examples
    --------
    >>> import bounds
    >>> g = bounds.poisson_substitution(1.0, 1e-6, 1e-6, 0.01)   # δ_r = δ_s: the T1 value γδ
    >>> round(g.epsilon, 12), g.delta >= 1e-8
    (0.017036863236, True)
    >>> bounds.poisson_substitution(2.0, 0.3, 0.5, 1.0).delta   # γ = 1: no subsampling
    0.5
    """
    return guarantee("poisson_substitution", "T6", epsilon=epsilon, rate=rate, delta_remove=delta_remove,
                     delta_substitute=delta_substitute)


@supports_dask(pair=True)
def poisson_substitution_profile(mechanism: Any, epsilon: ArrayLike, rate: ArrayLike, *,
                                 substitute: Optional[Any] = None) -> Guarantee:
    r"""SPEC T6 for a mechanism object: Poisson subsampling at rate γ under the substitute relation.

    Returns an upper bound on (ε', δ') with δ_{M∘S}(ε') ≤ δ' for substitute neighbours, rounded up, or raises.

    .. math::

        \delta' = \gamma\bigl[(1 - \beta)\,\delta^{(r)}_M(\varepsilon) + \beta\,\delta^{(s)}_M(\varepsilon)\bigr],
        \qquad \beta = e^{\varepsilon' - \varepsilon}, \quad e^{\varepsilon'} = 1 + \gamma(e^{\varepsilon} - 1)

    The mechanism objects (``Laplace``, ``Gaussian``, ``EpsDelta``) carry one profile; here it is read as the
    **add/remove** profile δ^{(r)} (θ = Δ/σ or Δ/b with Δ the add/remove sensitivity; (ε₀, δ₀) under
    add/remove).  The substitute profile δ^{(s)} is

    - ``substitute.profile(ε)`` when ``substitute`` is given (a mechanism object describing the same
      mechanism under substitution, e.g. ``Gaussian(theta=Δ_s/σ)`` with Δ_s the substitute sensitivity — for a
      sum of values in [0, 1], Δ_s = Δ = 1, which is much tighter than the default);
    - otherwise the group profile at distance 2, ``mechanism.group_profile(ε, 2)``: a substitution is a
      removal followed by an addition, so substitute neighbours are at add/remove distance ≤ 2 and the
      group-2 profile is a valid upper bound (white box θ → 2θ for Laplace/Gaussian: the query moves by
      at most 2Δ; black box SPEC T7 for ``EpsDelta``).

    Both profiles are rounded up and δ' is non-decreasing in each, so the result stays an upper bound.
    SPEC T6, relation substitute, provenance *derived*: the paper's supplementary statement was not
    recovered; this is this library's own bound, reconstructed and verified by brute force (see
    ``poisson_substitution``).

    SPEC T6; citation: this library's own bound, from the proof strategy of Balle, Barthe, Gaboardi 2018 (advanced joint convexity, Thm 2); the paper's supplementary statement was not recovered.  Provenance: *derived*.

    Parameters
    ----------
    mechanism : Laplace, Gaussian or EpsDelta
        The base mechanism, its profile taken for add/remove neighbours.
    epsilon : array_like
        ε ∈ [0, inf] at which the base profiles are taken.
    rate : array_like
        γ ∈ [0, 1].
    substitute : Laplace, Gaussian or EpsDelta, optional
        The same mechanism described for substitute neighbours.  Default: group profile at distance 2.

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a mechanism is not one of the vocabulary or a parameter is NaN or outside its domain.

    Examples
    --------
    >>> import bounds
    >>> g = bounds.poisson_substitution_profile(bounds.Gaussian(theta=1.0), 1.0, 0.1)
    >>> g_s = bounds.poisson_substitution_profile(bounds.Gaussian(theta=1.0), 1.0, 0.1, substitute=bounds.Gaussian(theta=1.0))
    >>> g_s.delta < g.delta
    True
    """
    from .mechanisms import _check_mechanism

    _check_mechanism("poisson_substitution_profile", mechanism)
    if substitute is not None:
        _check_mechanism("poisson_substitution_profile (substitute)", substitute)
    scalar = is_scalar(epsilon, rate)
    arrays = validate("poisson_substitution_profile", "T6", epsilon=epsilon, rate=rate)
    eps = arrays["epsilon"]
    delta_r = np.asarray(mechanism.profile(eps), dtype=np.float64)
    if substitute is not None:
        delta_s = np.asarray(substitute.profile(eps), dtype=np.float64)
    else:
        delta_s = np.asarray(mechanism.group_profile(eps, 2), dtype=np.float64)
    g = poisson_substitution(eps, np.minimum(delta_r, 1.0), np.minimum(delta_s, 1.0), arrays["rate"])
    return Guarantee(as_output(np.asarray(g.epsilon), scalar), as_output(np.asarray(g.delta), scalar))
