"""The DP-SGD vocabulary: a noise multiplier σ/Δ (Opacus, dp_accounting) as this library's θ = Δ/σ.

Every function taking a Gaussian or Laplace θ also accepts ``noise_multiplier=`` (exactly one of the two).
θ = 1/noise_multiplier is rounded **up**: each such function's δ(ε) and ε(δ) are non-decreasing in θ (more
signal per unit of noise is less private), so a θ above the exact 1/σ keeps every result an upper bound.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

# One line for every θ parameter's docstring.
THETA_DOC = ("θ = Δ/σ (Gaussian) or Δ/b (Laplace) = 1/noise_multiplier.  **Not the noise multiplier**: a "
             "noise multiplier σ/Δ passed as θ gives an optimistic (unsound) answer whenever it is below 1 — "
             "pass ``noise_multiplier=`` instead.")
NOISE_MULTIPLIER_DOC = ("Noise multiplier σ/Δ (the DP-SGD convention of Opacus and dp_accounting), > 0; "
                        "instead of ``theta``, which is then 1/noise_multiplier rounded up (sound).")


def reciprocal_up(sigma: Any) -> Any:
    """An upper bound on 1/σ for σ > 0: the correctly rounded quotient is within half an ulp of 1/σ, so the next
    double up is above it; the quotient is exact (kept) when σ is a power of two."""
    s = np.asarray(sigma, dtype=np.float64)
    with np.errstate(all="ignore"):
        q = 1.0 / s
        mantissa, _ = np.frexp(s)
        up = np.where(mantissa == 0.5, q, np.nextafter(q, np.inf))
    return float(up) if np.ndim(up) == 0 else up


def quotient_bounds(a: float, b: float) -> tuple[float, float]:
    """Doubles ``(lo, hi)`` with lo ≤ a/b ≤ hi exactly (a, b > 0 finite doubles); lo == hi when a/b is a double.

    The one route from a noise scale to θ (``Gaussian.from_noise_multiplier``, ``Laplace.from_scale``): the
    quotient is correctly rounded, so the exact a/b lies between it and its neighbour on the far side; which
    side is decided exactly with rationals.  Upper bounds use ``hi`` (δ grows with θ), certified lower bounds
    ``lo``.
    """
    t = a / b
    if not (0.0 < t < math.inf):
        raise ValueError(f"θ = {a!r}/{b!r} is not a positive finite double (underflow or overflow)")
    exact = Fraction(a) / Fraction(b)
    ft = Fraction(t)
    if ft == exact:
        return t, t
    return (t, math.nextafter(t, math.inf)) if ft < exact else (math.nextafter(t, 0.0), t)


def theta_of(function: str, theta: Any, noise_multiplier: Any) -> Any:
    """θ from exactly one of ``theta`` and ``noise_multiplier`` (see the module docstring)."""
    if (theta is None) == (noise_multiplier is None):
        raise ValueError(f"{function}: give exactly one of theta (θ = Δ/σ) and noise_multiplier (σ/Δ = 1/θ)"
                         + ("; both were given" if theta is not None else ""))
    if theta is not None:
        return theta
    try:
        sigma = np.asarray(noise_multiplier, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{function}: noise_multiplier = {noise_multiplier!r} is not a real number") from None
    bad = ~((sigma > 0) & (sigma < np.inf))
    if bad.any():
        value = float(sigma[np.argwhere(bad)[0][0]] if sigma.ndim else sigma)
        raise ValueError(f"{function}: noise_multiplier = {value!r} is outside its domain (0, inf) "
                         "(σ/Δ; θ = 1/noise_multiplier)")
    theta = reciprocal_up(sigma)
    if np.any(np.isinf(theta)):
        raise ValueError(f"{function}: noise_multiplier = {float(np.min(sigma))!r} is too small: θ = "
                         "1/noise_multiplier overflows (no privacy)")
    return theta


def required(function: str, **params: Any) -> None:
    """Parameters that follow an optional θ in the signature carry a default of None but are required."""
    missing = [k for k, v in params.items() if v is None]
    if missing:
        raise ValueError(f"{function}: missing required parameter(s) " + ", ".join(missing))
