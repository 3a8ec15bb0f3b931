"""Hand-written numba helpers that the generated kernels call.

- ``up`` / ``down``: outward rounding by a whole number of ulps (``n`` steps of ``nextafter``).  One step is
  one ulp for a normal number and one unit 2⁻¹⁰⁷⁴ for a subnormal, so an error budget in ulps also covers
  the absolute error of subnormal results.
- ``amplify_large``: A_η(ε) = ln(1 + η(e^ε − 1)) for ε > 709, where e^ε overflows.  It evaluates
  softplus(ε + ln η + ln(1 − e^{−ε})) with ln η split as e·ln2 + ln(mantissa), and ln 2 split into a head
  with 21 trailing zero bits and a tail, so ε + e·ln2_hi is exact (Sterbenz) exactly where it cancels
  (η ≈ e^{−ε}).  A plain ε + ln(η + (1 − η)e^{−ε}) loses up to 7 digits there (η near the subnormals).

Changing this file does not invalidate numba's on-disk cache of the kernels that call it: clear
``numeric/_generated/__pycache__`` after editing (``python -m numeric.generate --clear-cache``).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

LN2_HI = 6.93147180369123816490e-01  # 0x3FE62E42FEE00000: e * LN2_HI is exact for |e| < 2**20
LN2_LO = 1.90821492927058770002e-10  # ln 2 − LN2_HI
SQRT_HALF = 0.7071067811865476


@njit(cache=True)
def up(x: float, n: int) -> float:
    """x moved n floats towards +inf (inf and exact zeros are handled by the callers' exact branches)."""
    for _ in range(n):
        x = np.nextafter(x, np.inf)
    return x


@njit(cache=True)
def down(x: float, n: int) -> float:
    """x moved n floats towards −inf, never below 0; inf stays inf (only an infinite input gives inf)."""
    if x == np.inf:
        return x
    for _ in range(n):
        x = np.nextafter(x, -np.inf)
    return max(x, 0.0)


@njit(cache=True)
def amplify_large(eps: float, eta: float) -> float:
    """A_η(ε) for ε > 709 and 0 < η ≤ 1, accurate to a few ulps (see the module docstring)."""
    if eps == np.inf:
        return np.inf
    mant, expo = math.frexp(eta)  # exact: eta = mant · 2^expo, mant ∈ [0.5, 1)
    if mant < SQRT_HALF:
        mant *= 2.0
        expo -= 1
    head = eps + expo * LN2_HI  # exact where it cancels
    tail = expo * LN2_LO + math.log(mant) + math.log1p(-math.exp(-eps))
    u = head + tail  # u = ε + ln η + ln(1 − e^{−ε}); A = softplus(u)
    if u > 0.0:
        return u + math.log1p(math.exp(-u))
    return math.log1p(math.exp(head) * math.exp(tail))
