"""Public API for privacy profiles and calibration: SPEC T8 (Laplace), T9 (Gaussian), T10 (analytic
Gaussian σ)."""
from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from ._noise import theta_of
from ._core import value
from ._dask import supports_dask


@supports_dask(pair=False)
def laplace_profile(epsilon: ArrayLike, *, theta: ArrayLike | None = None,
                    noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Privacy profile δ_θ(ε) of the Laplace mechanism (SPEC T8).

    Returns an upper bound on δ_θ(ε), rounded up (never below the exact value), or raises.

    .. math::

        \delta_\theta(\varepsilon) = \bigl[1 - e^{(\varepsilon - \theta)/2}\bigr]_+ \quad (\varepsilon \ge -\theta),
        \qquad \delta_\theta(\varepsilon) = 1 - e^{\varepsilon} \quad (\varepsilon \le -\theta)

    θ = Δ/b for a query of L1 sensitivity Δ with Lap(b) noise.  SPEC states the ε ≥ 0 part; the ε < 0
    part follows from H_γ(P‖Q) = 1 − γ + γH_{1/γ}(Q‖P) for the symmetric pair (proven in
    ``symbolic.profiles``).  Provenance: *source* (standard).  Relation: per neighbouring pair at L1
    distance ≤ Δ (add/remove or substitute, as Δ was computed).  Exact (tight).  Group privacy of size k
    (white box): use kθ.

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

    Returns
    -------
    float or ndarray
        δ_θ(ε) ∈ [0, 1]; exactly 0 for ε ≥ θ.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (θ ≤ 0).

    Examples
    --------
    >>> import bounds
    >>> bounds.laplace_profile(1.0, theta=1.0)
    0.0
    >>> round(bounds.laplace_profile(0.0, theta=2.0), 12)
    0.632120558829
    """
    theta = theta_of("laplace_profile", theta, noise_multiplier)
    return value("laplace_profile", "T8", "delta", epsilon=epsilon, theta=theta)


@supports_dask(pair=False)
def laplace_profile_inverse(delta: ArrayLike, *, theta: ArrayLike | None = None,
                            noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Smallest ε with δ_θ(ε) ≤ δ for the Laplace mechanism (SPEC T8 inverse).

    Returns an upper bound on that ε (rounded up: the mechanism is (ε, δ)-DP at the returned ε), or raises.

    .. math::

        \varepsilon_\theta(\delta) = \theta + 2\ln(1 - \delta) \ \text{ if } \delta < 1 - e^{-\theta},
        \quad \ln(1 - \delta) \text{ otherwise}

    SPEC T8; standard (Laplace mechanism); e.g. Balle, Barthe, Gaboardi 2018, Sec. 5.  Provenance: *source*.

    Parameters
    ----------
    delta : array_like
        δ ∈ [0, 1] (δ = 0 gives ε = θ exactly, δ = 1 gives −inf).
    theta : array_like, optional
        θ = Δ/b > 0 (Laplace scale b, sensitivity Δ) = 1/noise_multiplier.  **Not the noise
        multiplier**: a noise multiplier passed as θ is optimistic (unsound) whenever it is below 1;
        pass ``noise_multiplier=`` instead.  Exactly one of ``theta``, ``noise_multiplier``.
    noise_multiplier : array_like, optional
        b/Δ > 0 (the DP-SGD noise multiplier of Opacus and dp_accounting), keyword only; θ is then
        1/noise_multiplier rounded up, which keeps the result an upper bound (δ and ε grow with θ).

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain.

    Examples
    --------
    >>> import bounds
    >>> bounds.laplace_profile_inverse(0.0, theta=1.0)
    1.0
    """
    theta = theta_of("laplace_profile_inverse", theta, noise_multiplier)
    return value("laplace_profile_inverse", "T8", "epsilon", delta=delta, theta=theta)


@supports_dask(pair=False)
def gaussian_profile(epsilon: ArrayLike, *, theta: ArrayLike | None = None,
                     noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Privacy profile δ_θ(ε) of the Gaussian mechanism, the analytic Gaussian (SPEC T9).

    Returns an upper bound on δ_θ(ε), rounded up by a measured error budget, or raises.

    .. math::

        \delta_\theta(\varepsilon) = \Phi\Bigl(\frac{\theta}{2} - \frac{\varepsilon}{\theta}\Bigr)
            - e^{\varepsilon}\,\Phi\Bigl(-\frac{\theta}{2} - \frac{\varepsilon}{\theta}\Bigr)

    θ = Δ/σ for a query of L2 sensitivity Δ with N(0, σ²I) noise.  Evaluated in SPEC's erfcx form
    (a = ε/θ − θ/2, b = ε/θ + θ/2): δ = ½e^{−a²/2}[erfcx(a/√2) − erfcx(b/√2)], with the bracket computed
    without cancellation for small θ (``numeric.erfcx.erfcx_diff``), e^{−a²/2} from a double-double a²,
    and δ(ε) = 1 − e^ε + e^ε δ(−ε) for ε < 0.  Accurate to about 1e-14 relative for ε up to 1e4, θ from
    1e-300 to 1e5 and δ down to 1e-300 (peak error measured by ``ampbounds certify --theorem T9``).

    SPEC T9.  Provenance: *source* — Balle & Wang, *Improving the Gaussian Mechanism*, ICML 2018, Thm 8.
    Relation: per neighbouring pair at L2 distance ≤ Δ.  Exact (tight).  Group privacy of size k (white
    box): use kθ.

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

    Returns
    -------
    float or ndarray
        δ_θ(ε) ∈ [0, 1].

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (θ ≤ 0).

    Examples
    --------
    >>> import bounds
    >>> d = bounds.gaussian_profile(1.0, theta=1.0)
    >>> round(d, 12)
    0.126936737507
    """
    theta = theta_of("gaussian_profile", theta, noise_multiplier)
    return value("gaussian_profile", "T9", "delta", epsilon=epsilon, theta=theta)


@supports_dask(pair=False)
def gaussian_profile_inverse(delta: ArrayLike, *, theta: ArrayLike | None = None,
                             noise_multiplier: ArrayLike | None = None) -> Any:
    r"""Smallest ε with δ_θ(ε) ≤ δ for the Gaussian mechanism ("ε at δ = 1e-5"; SPEC T9 inverse).

    Returns an upper bound on that ε (the mechanism is (ε, δ)-DP at the returned ε), or raises.

    .. math::

        \varepsilon_\theta(\delta) = \min\{\varepsilon : \delta_\theta(\varepsilon) \le \delta\}

    Found by a bracketed search with a relative stopping rule, then *verified*: the returned ε satisfies
    the upward-rounded T9 profile ≤ δ, so the exact profile does too.  Provenance: *source* (Balle & Wang
    2018, Thm 8).

    Parameters
    ----------
    delta : array_like
        δ ∈ [0, 1] (0 gives inf, 1 gives −inf).
    theta : array_like, optional
        θ = Δ/σ > 0 (Gaussian standard deviation σ, sensitivity Δ) = 1/noise_multiplier.  **Not the noise
        multiplier**: a noise multiplier passed as θ is optimistic (unsound) whenever it is below 1;
        pass ``noise_multiplier=`` instead.  Exactly one of ``theta``, ``noise_multiplier``.
    noise_multiplier : array_like, optional
        σ/Δ > 0 (the DP-SGD noise multiplier of Opacus and dp_accounting), keyword only; θ is then
        1/noise_multiplier rounded up, which keeps the result an upper bound (δ and ε grow with θ).

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain.

    Examples
    --------
    >>> import bounds
    >>> e = bounds.gaussian_profile_inverse(1e-5, theta=0.5)
    >>> bounds.gaussian_profile(e, theta=0.5) <= 1e-5
    True
    """
    theta = theta_of("gaussian_profile_inverse", theta, noise_multiplier)
    return value("gaussian_profile_inverse", "T9", "epsilon", delta=delta, theta=theta)


def gaussian_sigma(epsilon: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> Any:
    r"""Smallest Gaussian noise σ for (ε, δ)-DP, the analytic Gaussian calibration (SPEC T10).

    Returns a σ at least the smallest σ with δ_{Δ/σ}(ε) ≤ δ (rounded up, so the delivered δ never exceeds
    the target), or raises.

    .. math::

        \sigma = \min\Bigl\{\sigma > 0 : \Phi\Bigl(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Bigr)
            - e^{\varepsilon}\Phi\Bigl(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Bigr) \le \delta\Bigr\},
        \qquad \varepsilon = 0:\ \sigma = \frac{\Delta}{2\Phi^{-1}((1 + \delta)/2)}

    The search (bracketed Illinois in ln θ, θ = Δ/σ) stops on a *relative* bracket width (a few units
    of 2⁻⁵³) — an absolute tolerance with an erf-based Φ delivers up to 700× the target at δ = 1e-15.  The
    search itself needs no careful rounding; the candidate σ is then verified with the upward-rounded T9
    profile at an upper bound of Δ/σ and moved up until that check passes (δ is increasing in θ, so
    this direction is safe).  At ε = 0 the closed form is used (erf(θ/(2√2)) = δ solved by Newton).

    SPEC T10.  Provenance: *source* — Balle & Wang, *Improving the Gaussian Mechanism*, ICML 2018, Thm 8
    and Algorithm 1.  Relation: per neighbouring pair at L2 distance ≤ Δ.

    Parameters
    ----------
    epsilon : array_like
        Target ε ∈ [0, inf).
    delta : array_like
        Target δ ∈ (0, 1).
    sensitivity : array_like
        L2 sensitivity Δ > 0 (default 1).

    Returns
    -------
    float or ndarray
        σ (proportional to Δ).

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain (δ ∉ (0, 1), Δ ≤ 0, ε < 0).

    Examples
    --------
    >>> import bounds
    >>> s = bounds.gaussian_sigma(1.0, 1e-5)
    >>> round(s, 6)
    3.730632
    >>> bounds.gaussian_profile(1.0, theta=1.0 / s) <= 1e-5
    True
    """
    return value("gaussian_sigma", "T10", "sigma", epsilon=epsilon, delta=delta, sensitivity=sensitivity)
