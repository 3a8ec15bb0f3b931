"""The four variants of the seed-000 experiments and the budget each one runs its mechanism at (SYSTEMS §1.3).

| variant | data | mechanism's budget | privacy of the release |
|---|---|---|---|
| ``M`` | D | (ε, δ) | (ε, δ) |
| ``MoS`` | S(D) | (ε, δ) | (ε^S(ε, m, M), (1 − m)δ) — weaker |
| ``M_suppressed_budget`` | D | (ε^S(ε, m, M), (1 − m)δ) | the same as ``MoS`` |
| ``MoS_calibrated`` | S(D) | (ε'', δ''): ε^S(ε'', m, M) = ε, δ'' = δ/(1 − m) | (ε, δ): the fair comparison |

ε^S and ε'' come from the library (SPEC T14: ``bounds.outlier_score_suppression`` and
``bounds.outlier_score_suppression_inverse``, the latter rounded down, so the calibrated release is never above
(ε, δ)).  m = M = 0 is no suppression at all (sampling rate 1): every budget is (ε, δ).
"""
from __future__ import annotations

from typing import NamedTuple

from .errata import FIXED, Errata

__all__ = ["VARIANTS", "Budget", "variant_budget"]

VARIANTS: tuple[str, ...] = ("M", "MoS", "M_suppressed_budget", "MoS_calibrated")

# Erratum 3: the authors' ε'' search (a minimisation started at ε) stops at its start point in these cells.
_STUCK_SEARCH = {(0.5, 0.7, 0.8), (1.0, 0.6, 0.7)}


class Budget(NamedTuple):
    """The mechanism's budget and whether it runs on the suppressed data; ``feasible=False`` when no base
    budget reaches the target (ε < ε^S(0, m, M): the suppression alone costs more), or the calibrated base
    budget is ε'' = 0 (only a constant mechanism qualifies); then ``epsilon``/``delta`` are ``None`` or 0."""

    epsilon: float | None  # None when not feasible
    delta: float | None
    suppress: bool
    feasible: bool = True


def variant_budget(variant: str, epsilon: float, delta: float, m: float, M: float,
                   errata: Errata = FIXED) -> Budget:
    """The budget at which ``variant`` runs its mechanism, for a target (ε, δ) and suppression constants m ≤ M.

    Parameters
    ----------
    variant : {"M", "MoS", "M_suppressed_budget", "MoS_calibrated"}
    epsilon, delta : float
        The target (ε, δ) of the experiment (δ = 0 for the pure mechanisms).
    m, M : float
        0 ≤ m ≤ M < 1; m = M = 0 means no suppression.
    errata : Errata
        ``inverse_search`` reproduces the authors' ε'' in the two cells where their search failed.

    Returns
    -------
    Budget
    """
    import bounds

    if variant not in VARIANTS:
        raise ValueError(f"variant = {variant!r} is not one of {', '.join(VARIANTS)}")
    if not (0.0 <= m <= M < 1.0):
        raise ValueError(f"(m, M) = ({m}, {M}) is outside 0 ≤ m ≤ M < 1")
    if m == 0.0 and M > 0.0:
        raise ValueError(f"(m, M) = (0, {M}): m = 0 < M has ε^S = ∞ (SPEC T14); use m > 0 or m = M = 0")
    suppress = variant in ("MoS", "MoS_calibrated")
    if variant in ("M", "MoS") or M == 0.0:
        return Budget(epsilon, delta, suppress)
    if variant == "M_suppressed_budget":
        g = bounds.outlier_score_suppression(epsilon, delta, m, M)
        return Budget(g.epsilon, g.delta, False)
    try:
        g = bounds.outlier_score_suppression_inverse(epsilon, delta, m, M)
    except ValueError:
        return Budget(None, None, True, feasible=False)
    if errata.inverse_search and (float(epsilon), round(m, 5), round(M, 5)) in _STUCK_SEARCH:
        return Budget(epsilon, g.delta, True)
    if g.epsilon <= 0.0:
        return Budget(g.epsilon, g.delta, True, feasible=False)
    return Budget(g.epsilon, g.delta, True)
