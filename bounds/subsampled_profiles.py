"""Public API for SPEC T11: exact privacy profiles of the one-step Poisson-subsampled Gaussian and Laplace
mechanisms, in the REMOVE and ADD directions of add/remove, and their inverses."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._noise import required, theta_of
from ._core import (as_output, evaluate, evaluate_scalar, is_scalar, kernel_values, scalar_call, validate,
                    validate_scalars)
from ._dask import supports_dask

DIRECTIONS = ("remove", "add", "both")


def _direction(function: str, direction: Any) -> tuple[str, ...]:
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise ValueError(f"{function}: direction = {direction!r} must be 'remove', 'add' or 'both' (SPEC T11)")
    return ("remove", "add") if direction == "both" else (direction,)


def _evaluate(function: str, mechanism: str, direction: str, suffix: str, **params: Any) -> Any:
    directions = _direction(function, direction)
    floats = validate_scalars(function, "T11", params)
    if floats is not None:  # the scalar fast path (bounds._core.scalar_call): the same kernels, same bits
        if len(directions) == 2 and not suffix:
            return scalar_call(f"numeric.subsampled_profiles:{mechanism}_both",
                               [floats["epsilon"], 0.0, floats["theta"], floats["rate"]])
        results = [evaluate_scalar("T11", f"{mechanism}_{d}{suffix}", floats) for d in directions]
        return results[0] if len(results) == 1 else _maximum(*results)
    scalar = is_scalar(*params.values())
    arrays = validate(function, "T11", **params)
    if len(directions) == 2 and not suffix:  # one kernel for the maximum: e^ε − 1 computed once per point
        return as_output(_both(mechanism, arrays), scalar)
    results = [evaluate("T11", f"{mechanism}_{d}{suffix}", arrays) for d in directions]
    return as_output(np.maximum.reduce(results) if len(results) > 1 else results[0], scalar)


def _maximum(a: float, b: float) -> float:
    """``np.maximum`` of two floats (NaN if either is NaN, as the array route)."""
    return a if (a >= b or a != a) else b


def _both(mechanism: str, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """max(REMOVE, ADD) from ``numeric.subsampled_profiles.{mechanism}_both`` (the same rounded values as the
    maximum of the two direction kernels: it runs the same code on a shared e^ε − 1)."""
    return kernel_values(f"numeric.subsampled_profiles:{mechanism}_both",
                         [arrays["epsilon"], 0.0, arrays["theta"], arrays["rate"]])


@supports_dask(pair=False)
def subsampled_gaussian_profile(epsilon: ArrayLike, *, theta: ArrayLike | None = None, rate: ArrayLike | None = None,
                                direction: str = "both", noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Exact privacy profile of the Poisson-subsampled Gaussian mechanism, one step (SPEC T11).

    Returns an upper bound on δ(ε), rounded up (never below the exact value), or raises.

    .. math::

        \delta_{\mathrm{rem}}(\varepsilon) = q\,\Phi\Bigl(\frac{\theta}{2} - \frac{\varepsilon_q}{\theta}\Bigr)
            - (e^{\varepsilon} - 1 + q)\,\Phi\Bigl(-\frac{\theta}{2} - \frac{\varepsilon_q}{\theta}\Bigr)
            \ (e^\varepsilon > 1 - q), \qquad
        \delta_{\mathrm{add}}(\varepsilon) = c\,\Phi\Bigl(\frac{\theta}{2} - \frac{t}{\theta}\Bigr)
            - q e^{\varepsilon}\,\Phi\Bigl(-\frac{\theta}{2} - \frac{t}{\theta}\Bigr) \ (c > 0)

    with e^{ε_q} = 1 + (e^ε − 1)/q, c = 1 − (1 − q)e^ε, t = ln(q e^ε/c); REMOVE is 1 − e^ε for
    e^ε ≤ 1 − q and ADD is 0 for c ≤ 0.  REMOVE is the pair ((1 − q)B₀ + qB₁, B₀), ADD the pair
    (B₀, (1 − q)B₀ + qB₁), B₀ = N(0, σ²), B₁ = N(Δ, σ²), θ = Δ/σ.

    Evaluated as REMOVE = q·δ_θ(A_q⁻¹(ε)) and ADD = c·δ_θ(t) (proven in ``symbolic.subsampled_profiles``)
    with the T9 erfcx kernel at a double-double argument, plus a running bound on the argument's error,
    then rounded up by a measured budget (``ampbounds certify --theorem T11``).  Satisfies SPEC's identity
    δ_rem(A_q(ε)) = q·δ_T9(ε) (T1 is attained by the Gaussian); q = 1 is T9.

    SPEC T11.  Provenance: *source* for the dominating pairs (Google dp_accounting, autodp); the closed
    forms are verified against quadrature of the hockey-stick integral.  Relation: add/remove, both
    directions; ``direction="both"`` (the default) returns the maximum, the profile for add/remove.  For
    ε ≥ 0 REMOVE ≥ ADD.  Exact (tight).

    Parameters
    ----------
    epsilon : array_like
        ε, any real number (±inf allowed).
    theta : array_like, optional
        θ = Δ/σ > 0 (finite) (Gaussian standard deviation σ, sensitivity Δ) = 1/noise_multiplier.  **Not the noise
        multiplier**: a noise multiplier passed as θ is optimistic (unsound) whenever it is below 1;
        pass ``noise_multiplier=`` instead.  Exactly one of ``theta``, ``noise_multiplier``.
    noise_multiplier : array_like, optional
        σ/Δ > 0 (the DP-SGD noise multiplier of Opacus and dp_accounting), keyword only; θ is then
        1/noise_multiplier rounded up, which keeps the result an upper bound (δ and ε grow with θ).
    rate : array_like
        Poisson rate q ∈ [0, 1] (q = 0 gives [1 − e^ε]₊, the profile of identical laws).
    direction : {"both", "remove", "add"}
        Which neighbouring direction; "both" is the maximum of the two.

    Returns
    -------
    float or ndarray
        δ(ε) ∈ [0, 1].

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (θ ≤ 0, rate ∉ [0, 1]) or the direction is unknown.

    Examples
    --------
    >>> import bounds
    >>> d = bounds.subsampled_gaussian_profile(1.0, theta=1.0, rate=0.1, direction="remove")
    >>> round(d, 15)
    0.000207121486021
    >>> abs(bounds.subsampled_gaussian_profile(0.5, theta=1.0, rate=1.0) / bounds.gaussian_profile(0.5, theta=1.0) - 1) < 1e-13
    True
    """
    required("subsampled_gaussian_profile", rate=rate)
    theta = theta_of("subsampled_gaussian_profile", theta, noise_multiplier)
    return _evaluate("subsampled_gaussian_profile", "gaussian", direction, "", epsilon=epsilon, theta=theta,
                     rate=rate)


@supports_dask(pair=False)
def subsampled_laplace_profile(epsilon: ArrayLike, *, theta: ArrayLike | None = None, rate: ArrayLike | None = None,
                               direction: str = "both", noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Exact privacy profile of the Poisson-subsampled Laplace mechanism, one step (SPEC T11).

    Returns an upper bound on δ(ε), rounded up (never below the exact value), or raises.

    .. math::

        \delta_{\mathrm{rem}}(\varepsilon) = \begin{cases} 1 - e^{\varepsilon} & e^\varepsilon \le 1 - q + q e^{-\theta} \\
            q - e^{-\theta/2}\sqrt{q(q + e^{\varepsilon} - 1)} & \text{between} \\
            0 & e^\varepsilon \ge 1 - q + q e^{\theta} \end{cases}
        \qquad
        \delta_{\mathrm{add}}(\varepsilon) = \begin{cases} 1 - e^{\varepsilon} & e^\varepsilon \le 1/(1 - q + q e^{\theta}) \\
            c - e^{-\theta/2}\sqrt{q e^{\varepsilon} c} & \text{between} \\
            0 & e^\varepsilon \ge 1/(1 - q + q e^{-\theta}) \end{cases}

    with c = 1 − (1 − q)e^ε; pairs as in :func:`subsampled_gaussian_profile` with B₀ = Lap(0, b),
    B₁ = Lap(Δ, b), θ = Δ/b.  Evaluated as q·δ_θ(A_q⁻¹(ε)) and c·δ_θ(t) with the T8 form at a double-double
    argument (so the cancellation next to the upper threshold costs nothing), plus a running error bound;
    an exact 0 is returned only where the threshold is certainly passed.  q = 1 is T8.

    SPEC T11.  Provenance: *source* for the dominating pairs (dp_accounting, autodp); closed forms verified
    against quadrature.  Relation: add/remove; ``direction="both"`` is the maximum.  Exact (tight).

    SPEC T11; citation: dominating pairs: Google dp_accounting (privacy_loss_distribution), autodp; closed forms verified against numerical integration (SPEC T11).  Provenance: *source*.

    Parameters
    ----------
    epsilon : array_like
        ε, any real number (±inf allowed).
    theta : array_like, optional
        θ = Δ/b > 0 (finite) (Laplace scale b, sensitivity Δ) = 1/noise_multiplier.  **Not the noise
        multiplier**: a noise multiplier passed as θ is optimistic (unsound) whenever it is below 1;
        pass ``noise_multiplier=`` instead.  Exactly one of ``theta``, ``noise_multiplier``.
    noise_multiplier : array_like, optional
        b/Δ > 0 (the DP-SGD noise multiplier of Opacus and dp_accounting), keyword only; θ is then
        1/noise_multiplier rounded up, which keeps the result an upper bound (δ and ε grow with θ).
    rate : array_like
        Poisson rate q ∈ [0, 1].
    direction : {"both", "remove", "add"}

    Returns
    -------
    float or ndarray
        δ(ε) ∈ [0, 1].

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain or the direction is unknown.

    Examples
    --------
    >>> import bounds
    >>> bounds.subsampled_laplace_profile(2.0, theta=1.0, rate=0.5)
    0.0
    >>> round(bounds.subsampled_laplace_profile(0.1, theta=1.0, rate=0.5, direction="remove"), 12)
    0.166361019098
    """
    required("subsampled_laplace_profile", rate=rate)
    theta = theta_of("subsampled_laplace_profile", theta, noise_multiplier)
    return _evaluate("subsampled_laplace_profile", "laplace", direction, "", epsilon=epsilon, theta=theta,
                     rate=rate)


@supports_dask(pair=False)
def subsampled_gaussian_profile_inverse(delta: ArrayLike, *, theta: ArrayLike | None = None, rate: ArrayLike | None = None,
                                        direction: str = "both", noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Smallest ε with δ(ε) ≤ δ for the Poisson-subsampled Gaussian (SPEC T11 inverse; "ε at δ = 1e-5").

    Returns an upper bound on that ε (rounded up: the mechanism is (ε, δ)-DP at the returned ε), or raises.

    .. math::

        \varepsilon(\delta) = \min\{\varepsilon : \delta_{\theta,q}(\varepsilon) \le \delta\}

    Bracketed search with a relative stopping rule, then verified with the upward-rounded profile (moved up
    until that check passes).  ``direction="both"`` returns the larger of the two directions' ε.
    Provenance: *source* (see :func:`subsampled_gaussian_profile`).

    SPEC T11; dominating pairs: Google dp_accounting (privacy_loss_distribution), autodp; closed forms verified against numerical integration (SPEC T11).  Provenance: *source*.

    Parameters
    ----------
    delta : array_like
        δ ∈ [0, 1] (0 gives inf, 1 gives −inf).  For subnormal δ below ≈ 3e-322 the verification of the
        rounded-up profile cannot certify a finite ε and inf is returned (sound, but not the smallest ε).
    theta : array_like, optional
        θ = Δ/σ > 0 (Gaussian standard deviation σ, sensitivity Δ) = 1/noise_multiplier.  **Not the noise
        multiplier**: a noise multiplier passed as θ is optimistic (unsound) whenever it is below 1;
        pass ``noise_multiplier=`` instead.  Exactly one of ``theta``, ``noise_multiplier``.
    noise_multiplier : array_like, optional
        σ/Δ > 0 (the DP-SGD noise multiplier of Opacus and dp_accounting), keyword only; θ is then
        1/noise_multiplier rounded up, which keeps the result an upper bound (δ and ε grow with θ).
    rate : array_like
        Poisson rate q ∈ [0, 1].
    direction : {"both", "remove", "add"}

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain or the direction is unknown.

    Examples
    --------
    >>> import bounds
    >>> e = bounds.subsampled_gaussian_profile_inverse(1e-5, theta=1.0, rate=0.01)
    >>> bounds.subsampled_gaussian_profile(e, theta=1.0, rate=0.01) <= 1e-5
    True
    """
    required("subsampled_gaussian_profile_inverse", rate=rate)
    theta = theta_of("subsampled_gaussian_profile_inverse", theta, noise_multiplier)
    return _evaluate("subsampled_gaussian_profile_inverse", "gaussian", direction, "_epsilon", delta=delta,
                     theta=theta, rate=rate)


@supports_dask(pair=False)
def subsampled_laplace_profile_inverse(delta: ArrayLike, *, theta: ArrayLike | None = None, rate: ArrayLike | None = None,
                                       direction: str = "both", noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Smallest ε with δ(ε) ≤ δ for the Poisson-subsampled Laplace (SPEC T11 inverse).

    Returns an upper bound on that ε (rounded up), or raises.  δ = 0 gives the threshold where the
    profile reaches 0 (ln(1 − q + q e^θ) for REMOVE), rounded up.

    .. math::

        \varepsilon(\delta) = \min\{\varepsilon : \delta_{\theta,q}(\varepsilon) \le \delta\}

    SPEC T11; dominating pairs: Google dp_accounting (privacy_loss_distribution), autodp; closed forms verified against numerical integration (SPEC T11).  Provenance: *source*.

    Parameters
    ----------
    delta : array_like
        δ ∈ [0, 1].
    theta : array_like, optional
        θ = Δ/b > 0 (Laplace scale b, sensitivity Δ) = 1/noise_multiplier.  **Not the noise
        multiplier**: a noise multiplier passed as θ is optimistic (unsound) whenever it is below 1;
        pass ``noise_multiplier=`` instead.  Exactly one of ``theta``, ``noise_multiplier``.
    noise_multiplier : array_like, optional
        b/Δ > 0 (the DP-SGD noise multiplier of Opacus and dp_accounting), keyword only; θ is then
        1/noise_multiplier rounded up, which keeps the result an upper bound (δ and ε grow with θ).
    rate : array_like
        Poisson rate q ∈ [0, 1].
    direction : {"both", "remove", "add"}

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain or the direction is unknown.

    Examples
    --------
    >>> import math, bounds
    >>> e = bounds.subsampled_laplace_profile_inverse(0.0, theta=1.0, rate=0.5, direction="remove")
    >>> e >= math.log(0.5 + 0.5 * math.e) and e - math.log(0.5 + 0.5 * math.e) < 1e-14
    True
    """
    required("subsampled_laplace_profile_inverse", rate=rate)
    theta = theta_of("subsampled_laplace_profile_inverse", theta, noise_multiplier)
    return _evaluate("subsampled_laplace_profile_inverse", "laplace", direction, "_epsilon", delta=delta,
                     theta=theta, rate=rate)
