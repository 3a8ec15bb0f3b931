"""Privacy-profile kernels of SPEC T8 (Laplace), T9 (Gaussian), their inverses, and T10 (analytic Gaussian σ).

Each public kernel is a scalar function ``f(...)`` (rounded to the safe side by its budget) with an
unrounded twin ``f_raw(...)`` for the accuracy checks; ``numeric.kernel`` vectorises either.  Every kernel
takes the full parameter list of its theorem record (epsilon, delta, theta for T8/T9), ignoring what it
does not use, because hand-written kernels receive all parameters.

**T9** δ_θ(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ).  With a = ε/θ − θ/2, b = ε/θ + θ/2 (b² − a² = 2ε) and
erfcx(x) = e^{x²}erfc(x), Φ(−y) = ½erfc(y/√2) gives, for every real a (proven in ``symbolic.profiles``),

    δ = ½ e^{−a²/2} [erfcx(a/√2) − erfcx(b/√2)]           (SPEC's a ≥ 0 form)
      = 1 − ½ e^{−a²/2} [erfcx(−a/√2) + erfcx(b/√2)]      (SPEC's a < 0 form).

The kernel uses, for ε ≥ 0:
- the first form whenever a ≥ 0 or θ < 2, with the bracket from ``erfcx_diff`` (no cancellation even
  when θ is tiny and the two erfcx values agree to many digits; SPEC's a < 0 form loses ~1/δ there);
- the second form when a < 0 and θ ≥ 2, where δ ≥ δ_θ(θ²/2) ≥ ½ − e²Φ(−2) > 0.33 (it loses < 2 bits).
e^{−a²/2} is formed from a double-double a and a² (a² ~ 1400 near δ = 1e-300: a plain float exponent would
carry 1400·2⁻⁵³ ≈ 1.6e-13 relative error into δ).  For ε < 0 the symmetry of the Gaussian pair gives
δ(ε) = 1 − e^ε + e^ε δ(−ε) (H_γ(P‖Q) = 1 − γ + γ H_{1/γ}(Q‖P)), a sum of two nonnegative terms.

**T8** δ_θ(ε) = 1 − e^ε for ε ≤ −θ, 1 − e^{(ε−θ)/2} for −θ < ε < θ, 0 for ε ≥ θ (SPEC gives ε ≥ 0; the
ε < 0 part is the same symmetry).

**Inverses** ε_θ(δ) = min{ε : δ_θ(ε) ≤ δ} and **T10** θ*(ε, δ) = max{θ : δ_θ(ε) ≤ δ} (σ = Δ/θ*): the
search needs no careful rounding (any candidate is checked); the candidate is then *verified* with the
upward-rounded profile and moved to the safe side until the check passes, so the returned ε (or σ) is
never below the exact one.
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .erfcx import erfcx, erfcx_diff
from .special import down, spacing, two_product, up
from .subsampled_profiles import GAUSSIAN, REMOVE, epsilon_search, epsilon_verified, log_gap

SQRT_HALF = 0.7071067811865476  # 1/√2 rounded to nearest
BUDGET_LAPLACE = 4
BUDGET_GAUSSIAN = 40  # measured peak (proofs_checks.accuracy / profiles_checks) is below this
BUDGET_LAPLACE_INVERSE = 4
SEARCH_ULPS = 4.0  # relative width of the final search bracket, in units of 2⁻⁵³


# ----------------------------------------------------------------------------------------------------
# T8 Laplace
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def laplace_delta_kernel(epsilon: float, theta: float) -> float:
    if epsilon >= theta:
        return 0.0
    if epsilon > -theta:
        return -math.expm1(0.5 * (epsilon - theta))
    return -math.expm1(epsilon)


@njit(cache=True)
def laplace_delta_up(epsilon: float, theta: float) -> float:
    """T8 δ_θ(ε), rounded up by ``BUDGET_LAPLACE`` ulps (0 exactly for ε ≥ θ), at most 1."""
    if epsilon >= theta:
        return 0.0
    return min(1.0, up(laplace_delta_kernel(epsilon, theta), BUDGET_LAPLACE))


def laplace_delta(epsilon, delta, theta):
    """T8 δ_θ(ε), rounded up."""
    return laplace_delta_up(epsilon, theta)


def laplace_delta_raw(epsilon, delta, theta):
    """T8 δ_θ(ε), unrounded."""
    return laplace_delta_kernel(epsilon, theta)


@njit(cache=True)
def laplace_epsilon_kernel(delta: float, theta: float) -> float:
    """min{ε : δ_θ(ε) ≤ δ}: θ + 2 ln(1 − δ) while that is > −θ, else ln(1 − δ)."""
    if delta == 0.0:
        return theta
    if delta >= 1.0:
        return -np.inf
    l1 = math.log1p(-delta)
    if l1 > -theta:
        return theta + 2.0 * l1
    return l1


@njit(cache=True)
def laplace_epsilon_verified(delta: float, theta: float) -> float:
    """The closed form moved up until the upward-rounded profile confirms δ_θ(ε) ≤ δ (so the exact
    profile is ≤ δ at the returned ε, and the returned ε is ≥ the exact inverse)."""
    e = laplace_epsilon_kernel(delta, theta)
    if delta == 0.0 or e == -np.inf:
        return e  # ε = θ exactly; −inf at δ = 1
    step = 1.0
    for _ in range(200):
        if laplace_delta_up(e, theta) <= delta:
            return e
        e = e + step * spacing(e)
        step *= 2.0
    return theta


def laplace_epsilon(epsilon, delta, theta):
    """T8 inverse ε_θ(δ), on the safe side (verified with the upward-rounded profile)."""
    return laplace_epsilon_verified(delta, theta)


def laplace_epsilon_raw(epsilon, delta, theta):
    return laplace_epsilon_kernel(delta, theta)


# ----------------------------------------------------------------------------------------------------
# T9 Gaussian
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def _two_sum(a: float, b: float):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


# _gaussian_nonneg's side as numpy booleans: literal False/True were typed Literal[bool] and compiled it twice
DELTA_SIDE, COMPLEMENT_SIDE = np.bool_(False), np.bool_(True)


@njit(cache=True)
def gaussian_delta_nonneg(epsilon: float, theta: float) -> float:
    """δ_θ(ε) for 0 ≤ ε < inf, θ > 0 (module docstring), unrounded."""
    return _gaussian_nonneg(epsilon, theta, DELTA_SIDE)


@njit(cache=True)
def gaussian_complement_nonneg(epsilon: float, theta: float) -> float:
    """1 − δ_θ(ε) for 0 ≤ ε < inf, θ > 0, unrounded, accurate when δ is near 1 (T10 as δ → 1).

    In the second form (a < 0, θ ≥ 2) 1 − δ = ½e^{−a²/2}[erfcx(−a/√2) + erfcx(b/√2)], a sum of positive
    terms: relative error ≤ e^{−a²/2}'s (double-double exponent: ≤ 3u) + the two erfcx values' + 4u for
    the sum and products.  Elsewhere δ ≤ 2Φ(1) − 1 < 0.683 (ε ≥ 0, θ < 2, or a ≥ 0 where δ ≤ ½), so 1 − δ̂
    has condition number < 2.2.
    """
    return _gaussian_nonneg(epsilon, theta, COMPLEMENT_SIDE)


@njit(cache=True)
def _gaussian_nonneg(epsilon: float, theta: float, complement: bool) -> float:
    q = epsilon / theta
    if not math.isfinite(q):
        return 1.0 if complement else 0.0
    if q > 1e150 or theta > 1e150:  # a² overflows the double-double splitting; δ is 0 or 1 here
        a_hi = q - 0.5 * theta
        a_lo = 0.0
    else:
        # a = ε/θ − θ/2 as a double-double: ε/θ = q + q_lo exactly to ~2⁻¹⁰⁶
        p, e = two_product(q, theta)
        q_lo = ((epsilon - p) - e) / theta
        s, s_err = _two_sum(q, -0.5 * theta)
        lo = s_err + q_lo
        a_hi = s + lo
        a_lo = lo - (a_hi - s)
    # −a²/2 = −(p2 + sq_lo)/2
    p2, e2 = two_product(a_hi, a_hi)
    if p2 > 1500.0:  # e^{−a²/2} < 1e-325
        if a_hi > 0.0:
            return 1.0 if complement else 0.0
    sq_lo = e2 + 2.0 * a_hi * a_lo if math.isfinite(p2) else 0.0
    scale = math.exp(-0.5 * p2) * (1.0 - 0.5 * sq_lo)  # e^{−a²/2}
    x = a_hi * SQRT_HALF
    h = theta * SQRT_HALF
    if a_hi >= 0.0 or theta < 2.0:
        d = 0.5 * scale * erfcx_diff(x, h)
        return 1.0 - d if complement else d
    b = q + 0.5 * theta  # no cancellation: both ≥ 0
    c = 0.5 * scale * (erfcx(-x) + erfcx(b * SQRT_HALF))
    return c if complement else 1.0 - c


@njit(cache=True)
def gaussian_delta_kernel(epsilon: float, theta: float) -> float:
    """δ_θ(ε) for every real ε (ε = ±inf included), unrounded."""
    if epsilon == np.inf:
        return 0.0
    if epsilon == -np.inf:
        return 1.0
    if epsilon >= 0.0:
        return gaussian_delta_nonneg(epsilon, theta)
    return -math.expm1(epsilon) + math.exp(epsilon) * gaussian_delta_nonneg(-epsilon, theta)


@njit(cache=True)
def gaussian_delta_up(epsilon: float, theta: float) -> float:
    """δ_θ(ε) rounded up by ``BUDGET_GAUSSIAN`` ulps (0 exactly at ε = inf), at most 1."""
    if epsilon == np.inf:
        return 0.0
    return min(1.0, up(gaussian_delta_kernel(epsilon, theta), BUDGET_GAUSSIAN))


def gaussian_delta(epsilon, delta, theta):
    """T9 δ_θ(ε), rounded up."""
    return gaussian_delta_up(epsilon, theta)


def gaussian_delta_raw(epsilon, delta, theta):
    """T9 δ_θ(ε), unrounded."""
    return gaussian_delta_kernel(epsilon, theta)


def gaussian_epsilon(epsilon, delta, theta):
    """T9 inverse ε_θ(δ), on the safe side (never below the exact value): the T11 search at q = 1, where the
    subsampled profile is the base profile (one bracketed search and one verification loop serve both);
    subnormal targets δ are verified in log space (``epsilon_tiny``)."""
    if 0.0 < delta < TINY_DELTA:
        return epsilon_tiny(delta, theta)
    return epsilon_verified(GAUSSIAN, REMOVE, delta, theta, 1.0)


def gaussian_epsilon_raw(epsilon, delta, theta):
    if delta >= 1.0:
        return -np.inf
    if delta == 0.0:
        return np.inf
    return epsilon_search(GAUSSIAN, REMOVE, delta, theta, 1.0)


# ----------------------------------------------------------------------------------------------------
# T10 analytic Gaussian calibration
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def theta_at_zero(delta: float) -> float:
    """ε = 0 closed form θ* = 2Φ⁻¹((1 + δ)/2), i.e. erf(θ/(2√2)) = δ, by Newton on z = θ/(2√2).

    For δ ≤ ½ it solves erf(z) = δ, above it erfc(z) = 1 − δ (no cancellation near δ = 1); the derivative is
    (2/√π)e^{−z²}.  Newton on this convex/concave function from the starting point below converges
    monotonically; 100 iterations are far more than needed.
    """
    if delta <= 0.5:
        z = delta * 0.886226925452758  # √π/2: erf(z) ≈ 2z/√π for small z; erf(z) ≤ 2z/√π so z ≤ root
        for _ in range(100):
            f = math.erf(z) - delta
            znew = z - f / (1.1283791670955126 * math.exp(-z * z))
            if abs(znew - z) <= 1e-17 * abs(z):
                z = znew
                break
            z = znew
    else:
        target = 1.0 - delta  # exact for δ ≥ ½ (Sterbenz)
        z = 0.5
        for _ in range(200):
            f = math.erfc(z) - target
            znew = z + f / (1.1283791670955126 * math.exp(-z * z))
            if abs(znew - z) <= 1e-17 * abs(z):
                z = znew
                break
            z = znew
    return 2.0 * 1.4142135623730951 * z


@njit(cache=True)
def _sigma_gap(epsilon: float, theta: float, delta: float) -> float:
    """> 0 iff δ_θ(ε) > δ, as a log gap: ln δ_θ − ln δ for δ ≤ ½, and ln(1 − δ) − ln(1 − δ_θ) above, where
    1 − δ (exact, Sterbenz) and 1 − δ_θ (``gaussian_complement_nonneg``) keep their relative accuracy as
    δ → 1 (a gap taken on δ itself would cost 2⁻⁵³/(1 − δ) relative in σ)."""
    if delta <= 0.5:
        return log_gap(gaussian_delta_kernel(epsilon, theta), delta)
    c = gaussian_complement_nonneg(epsilon, theta)
    if c <= 0.0:
        return np.inf
    return log_gap(1.0 - delta, c)


@njit(cache=True)
def _profile_fits(epsilon: float, theta: float, delta: float) -> bool:
    """δ_θ(ε) ≤ δ, decided on the safe side.  δ ≤ ½: the upward-rounded profile ≤ δ.  δ > ½: a lower bound on
    1 − δ_θ(ε) ≥ 1 − δ (exact): in the second form 1 − δ_θ is rounded down by ``BUDGET_GAUSSIAN`` ulps (its
    relative error is at most the erfcx error plus 7u, see ``gaussian_complement_nonneg``), elsewhere
    1 − (upward-rounded δ), a subtraction that is exact (Sterbenz) for the δ ≥ ½ that matter."""
    if delta <= 0.5:
        return gaussian_delta_up(epsilon, theta) <= delta
    target = 1.0 - delta
    q = epsilon / theta
    a = q - 0.5 * theta
    if theta >= 2.0 and a < -1e-6 * (q + theta) and math.isfinite(q):  # second form (a < 0 with margin)
        c = down(gaussian_complement_nonneg(epsilon, theta), BUDGET_GAUSSIAN)
    else:
        c = 1.0 - gaussian_delta_up(epsilon, theta)
    return c >= target


@njit(cache=True)
def theta_search(epsilon: float, delta: float) -> float:
    """θ with δ_θ(ε) ≈ δ (δ increasing in θ), bracketed Illinois in ln θ, relative stopping rule."""
    if epsilon == 0.0:
        guess = theta_at_zero(delta)
    else:
        # δ ≈ e^{−a²/2}: a ≈ √(2 ln(1/δ)); θ solving ε/θ − θ/2 = a
        c = math.sqrt(2.0 * max(-math.log(delta), 0.0))
        guess = 2.0 * epsilon / (c + math.sqrt(c * c + 2.0 * epsilon))
        if not (guess > 0.0 and math.isfinite(guess)):
            guess = 1.0
    lo = guess
    while _sigma_gap(epsilon, lo, delta) > 0.0:
        lo *= 0.5
        if lo < 1e-320:
            return 0.0
    hi = guess * 1.0000001 + 1e-300
    while _sigma_gap(epsilon, hi, delta) <= 0.0:
        hi *= 2.0
        if hi > 1e300:
            return np.inf
    # θ brackets are kept as floats (exp of a log-space bracket would cost |ln θ|·2⁻⁵³); the secant
    # step is taken in (ln θ, ln δ) (ln(1 − δ) for δ > ½), where the profile is close to linear
    f_lo = _sigma_gap(epsilon, lo, delta)
    f_hi = _sigma_gap(epsilon, hi, delta)
    side = 0
    for _ in range(400):
        if hi - lo <= SEARCH_ULPS * 1.1102230246251565e-16 * lo:
            break
        mid = 0.0
        if math.isfinite(f_lo) and math.isfinite(f_hi) and f_hi != f_lo and abs(side) <= 2:
            ulo, uhi = math.log(lo), math.log(hi)
            mid = math.exp(ulo - f_lo * (uhi - ulo) / (f_hi - f_lo))
        else:
            side = 0
        if not (lo < mid < hi):
            mid = math.sqrt(lo) * math.sqrt(hi) if hi > 2.0 * lo else 0.5 * (lo + hi)
        if not (lo < mid < hi):
            break
        f_mid = _sigma_gap(epsilon, mid, delta)
        if f_mid <= 0.0:
            lo, f_lo = mid, f_mid
            side = side - 1 if side <= 0 else -1
            if side < -1:
                f_hi *= 0.5
        else:
            hi, f_hi = mid, f_mid
            side = side + 1 if side >= 0 else 1
            if side > 1:
                f_lo *= 0.5
    return lo


@njit(cache=True)
def _div_up(a: float, b: float) -> float:
    """An upper bound on a/b (a, b > 0): the quotient moved up one float."""
    return np.nextafter(a / b, np.inf)


@njit(cache=True)
def sigma_verified(epsilon: float, delta: float, sensitivity: float) -> float:
    """σ ≥ the smallest σ with δ_{Δ/σ}(ε) ≤ δ, confirmed with the upward-rounded profile.

    Safe direction: δ increases with θ = Δ/σ, so the check evaluates the upward-rounded δ at an upper
    bound of Δ/σ; if it is ≤ the target, the exact δ at the returned σ is too.
    """
    theta = theta_search(epsilon, delta)
    if theta == 0.0:
        return np.inf
    if theta == np.inf:
        return 0.0
    sigma = _div_up(sensitivity, theta)
    step = 1.0
    for _ in range(200):
        theta_upper = _div_up(sensitivity, sigma)
        if _profile_fits(epsilon, theta_upper, delta):
            return sigma
        sigma = sigma + step * spacing(sigma)
        step *= 2.0
    return np.inf


# Subnormal targets (issue 11: gaussian_sigma(1.0, 5e-324) was inf, the true σ ≈ 38.5).  Below the smallest
# normal double the ulp-based rounding of δ has no relative meaning (16 ulps of 5e-324 is 16× the target), so
# the check runs in log space: for a = ε/θ − θ/2 > 0 the kernel's form is δ_θ(ε) = ½e^{−a²/2}·erfcx_diff(a/√2,
# θ/√2), so ln δ = −a²/2 + ln(½·erfcx_diff) has no underflow.  Error of the upper bound ln_delta_up: a is one
# subtraction of two rounded terms, |Δa| ≤ 2u(ε/θ + θ/2 + |a|); a²/2 then moves by ≤ |a||Δa| + Δa² + u·a²; the
# erfcx_diff factor carries the kernel's relative budget (BUDGET_GAUSSIAN ulps), ln adds u; 1e-12 on top
# covers the remaining roundings of these few operations (a ≤ 40 and ln δ ≥ −745 here, so each is ≤ 1e-13).
TINY_DELTA = 2.0 ** -1022


@njit(cache=True)
def ln_delta_up(epsilon: float, theta: float) -> float:
    """An upper bound on ln δ_θ(ε) for ε > 0 (log space, see above)."""
    q = epsilon / theta
    a = q - 0.5 * theta
    if a <= 0.0:  # δ is not tiny here
        return math.log(min(1.0, up(gaussian_delta_nonneg(epsilon, theta), BUDGET_GAUSSIAN) + 5e-324))
    u = 1.1102230246251565e-16
    da = 2.0 * u * (q + 0.5 * theta + a)
    half_square = 0.5 * a * a
    err = a * da + da * da + u * a * a
    diff = erfcx_diff(a * SQRT_HALF, theta * SQRT_HALF)
    if not diff > 0.0:
        return 0.0
    return -half_square + math.log(0.5 * diff) + err + BUDGET_GAUSSIAN * 2.0 * u + 1e-12


@njit(cache=True)
def sigma_tiny(epsilon: float, delta: float, sensitivity: float) -> float:
    """σ with ln δ_{Δ/σ}(ε) ≤ ln δ verified in log space, for subnormal targets δ and ε > 0."""
    target = math.log(delta)
    c = math.sqrt(-2.0 * target)
    guess = 2.0 * epsilon / (c + math.sqrt(c * c + 2.0 * epsilon))
    lo, hi = guess, guess
    for _ in range(2000):
        if ln_delta_up(epsilon, lo) <= target or lo < 1e-300:
            break
        lo *= 0.5
    for _ in range(2000):
        if ln_delta_up(epsilon, hi) > target or hi > 1e300:
            break
        hi *= 2.0
    if not ln_delta_up(epsilon, lo) <= target:
        return np.inf
    for _ in range(200):  # θ ↦ ln δ is increasing: keep lo verified
        mid = 0.5 * (lo + hi)
        if not (lo < mid < hi):
            break
        if ln_delta_up(epsilon, mid) <= target:
            lo = mid
        else:
            hi = mid
    sigma = _div_up(sensitivity, lo)
    step = 1.0
    for _ in range(200):
        if ln_delta_up(epsilon, _div_up(sensitivity, sigma)) <= target:
            return sigma
        sigma = sigma + step * spacing(sigma)
        step *= 2.0
    return np.inf


@njit(cache=True)
def epsilon_tiny(delta: float, theta: float) -> float:
    """ε ≥ the exact ε_θ(δ) for a subnormal target δ: the smallest ε found by bisection with the log-space
    upper bound ``ln_delta_up`` ≤ ln δ (δ_θ(ε) decreases in ε, so the verified end is on the safe side)."""
    target = math.log(delta)
    hi = max(1.0, theta * (0.5 * theta + math.sqrt(-2.0 * target)))  # a = ε/θ − θ/2 ≥ √(−2 ln δ)
    for _ in range(2000):
        if ln_delta_up(hi, theta) <= target or hi > 1e300:
            break
        hi *= 2.0
    if not ln_delta_up(hi, theta) <= target:
        return np.inf
    lo = 0.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if not (lo < mid < hi):
            break
        if mid > 0.0 and ln_delta_up(mid, theta) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def gaussian_sigma(epsilon, delta, sensitivity):
    """T10 σ, on the safe side (delivered δ ≤ target)."""
    if delta <= 0.0:
        return np.inf
    if delta >= 1.0:
        return 0.0
    if delta < TINY_DELTA and 0.0 < epsilon < np.inf:
        return sigma_tiny(epsilon, delta, sensitivity)
    return sigma_verified(epsilon, delta, sensitivity)


def gaussian_sigma_raw(epsilon, delta, sensitivity):
    if delta <= 0.0:
        return np.inf
    if delta >= 1.0:
        return 0.0
    theta = theta_search(epsilon, delta)
    return sensitivity / theta


# Budgets in ulps (numeric.budgets reads these).  For the searched values (Gaussian inverse, σ) the
# budget bounds the unrounded search result's error; the returned value is made safe by verification.
BUDGETS = {
    "t8_delta": BUDGET_LAPLACE,
    "t8_epsilon": BUDGET_LAPLACE_INVERSE,
    "t9_delta": BUDGET_GAUSSIAN,
    "t9_epsilon": 16,
    "t10_sigma": 16,
}
