"""Public API for group privacy: SPEC T7."""
from __future__ import annotations

from numpy.typing import ArrayLike

from ._core import Guarantee, guarantee


def group_privacy(epsilon: ArrayLike, delta: ArrayLike, k: ArrayLike) -> Guarantee:
    r"""Guarantee of an (ε, δ)-DP mechanism for datasets at distance k (SPEC T7).

    Returns an upper bound on (ε_k, δ_k), rounded up and with δ_k reported as at most 1, or raises.

    .. math::

        \varepsilon_k = k\varepsilon, \qquad
        \delta_k = \delta \sum_{j=0}^{k-1} e^{j\varepsilon} = \delta\,\frac{e^{k\varepsilon} - 1}{e^{\varepsilon} - 1}

    Relation: any (the one M is DP under).  Provenance: *source* — Vadhan 2017, Lemma 2.2.  Tight for a
    bare (ε, δ) (randomized response); white-box Laplace/Gaussian profiles (θ → kθ) are never worse.
    ε = 0 gives δ_k = kδ; δ_k is evaluated in log space when e^{kε} would overflow.

    Parameters
    ----------
    epsilon : array_like
        ε ∈ [0, inf].
    delta : array_like
        δ ∈ [0, 1].
    k : array_like
        Group size, an integer ≥ 1; k = 1 returns the input unchanged.

    Returns
    -------
    Guarantee

    Raises
    ------
    ValueError
        If a parameter is NaN, outside its domain, or k is not an integer.

    Examples
    --------
    >>> import math, bounds
    >>> g = bounds.group_privacy(0.5, 1e-6, 3)
    >>> g.epsilon, abs(g.delta / (1e-6 * (1 + math.exp(0.5) + math.exp(1.0))) - 1) < 1e-14
    (1.5, True)
    """
    return guarantee("group_privacy", "T7", epsilon=epsilon, delta=delta, k=k)
