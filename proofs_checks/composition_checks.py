"""Checks of certified composition (record C1, issue 12): the sandwich contains independent references.

Every reference is an independent route (``proofs_checks.composition_references``, mpmath ≥ 60 digits):
- T = 1: the exact one-step profile of the Poisson-subsampled Gaussian (both directions; mpmath, not T11);
- rate 1: the T-fold Gaussian is the Gaussian with θ√T (T up to 10⁵ in ``--full``, 10⁴ in quick mode);
- EpsDelta: the binomial sum over the randomized-response atoms, T ≤ 50;
- Laplace: 2- and 3-fold compositions by the privacy-loss distribution and mpmath quadrature;
- properties: δ bounds non-decreasing in T and in the rate, non-increasing in σ and ε; width shrinks as
  the tolerance does.
"""
from __future__ import annotations

import math

from .framework import Outcome, check, full


def _contains(s, ref, what, fails):
    lo, hi = s
    if not (lo <= ref <= hi):
        fails.append(f"{what}: exact {ref!r} outside [{lo!r}, {hi!r}]")
    return hi - lo


def one_step_cases():
    """(θ, q, ε) for the T = 1 check."""
    return [(1.0, 0.01, e) for e in (-0.005, 0.0, 0.01, 0.3, 2.0)] + [(0.5, 0.2, e) for e in (0.0, 0.1, 1.0)]


def check_one_step(cases=None) -> Outcome:
    import bounds

    from .composition_references import subsampled_gaussian_delta

    fails: list[str] = []
    worst = 0.0
    for theta, q, eps in cases or one_step_cases():
        comp = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=theta), q), 1)])
        s = comp.delta(eps)
        ref = max(subsampled_gaussian_delta(eps, theta, q, "remove"), subsampled_gaussian_delta(eps, theta, q, "add"))
        w = _contains(s, ref, f"θ={theta}, q={q}, ε={eps}", fails)
        worst = max(worst, w / ref if ref else 0.0)
    if fails:
        return Outcome(False, "; ".join(fails))
    return Outcome(True, f"T = 1 sandwich contains the exact subsampled-Gaussian δ at {len(cases or one_step_cases())} "
                         f"points (largest relative width {worst:.2e})")


def gaussian_cases():
    ts = [1, 10, 1000, 10_000] + ([100_000] if full() else [])
    return [(t, 1.5 / math.sqrt(t), e) for t in ts for e in (0.5, 2.0)]


def check_gaussian_rate_one(cases=None) -> Outcome:
    import bounds

    from .composition_references import gaussian_composed_delta

    fails: list[str] = []
    widths = []
    cases = cases or gaussian_cases()
    for steps, theta, eps in cases:
        s = bounds.compose([(bounds.Gaussian(theta=theta), steps)]).delta(eps)
        ref = gaussian_composed_delta(eps, theta, steps)
        widths.append(_contains(s, ref, f"T={steps}, θ={theta:.4g}, ε={eps}", fails) / ref)
    if fails:
        return Outcome(False, "; ".join(fails))
    return Outcome(True, f"T-fold Gaussian(θ) sandwich contains the Gaussian at θ√T for T ∈ "
                         f"{sorted({c[0] for c in cases})} (largest relative width {max(widths):.2e})")


def eps_delta_cases():
    # ε₀ on the dyadic grid (exact lower side) and one off it (first-order lower side)
    return [(1, 1.0, 1e-3, 0.5), (7, 0.5, 1e-4, 1.0), (50, 0.125, 1e-6, 1.0), (20, 0.3, 0.0, 2.0)]


def check_eps_delta(cases=None) -> Outcome:
    import bounds

    from .composition_references import eps_delta_composed

    fails: list[str] = []
    for steps, e0, d0, eps in cases or eps_delta_cases():
        s = bounds.compose([(bounds.EpsDelta(e0, d0), steps)]).delta(eps)
        _contains(s, eps_delta_composed(eps, e0, d0, steps), f"EpsDelta({e0}, {d0})^{steps} at ε={eps}", fails)
    if fails:
        return Outcome(False, "; ".join(fails))
    return Outcome(True, "EpsDelta compositions (T ≤ 50) contain the binomial sum over the randomized-response atoms")


def laplace_cases():
    return [(2, 1.0, 0.5), (2, 0.75, 1.0), (3, 1.0, 1.0), (3, 0.5, 0.2)]


def check_laplace(cases=None) -> Outcome:
    import bounds

    from .composition_references import laplace_composed

    fails: list[str] = []
    for steps, theta, eps in cases or laplace_cases():
        s = bounds.compose([(bounds.Laplace(theta=theta), steps)]).delta(eps)
        _contains(s, laplace_composed(eps, theta, steps), f"Laplace({theta})^{steps} at ε={eps}", fails)
    if fails:
        return Outcome(False, "; ".join(fails))
    return Outcome(True, "2- and 3-fold Laplace compositions contain the exact δ (PLD + mpmath quadrature)")


def check_monotone() -> Outcome:
    import bounds

    def d(sigma, q, t, eps):
        return bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(sigma), q), t)]).delta(eps)

    base = d(1.0, 0.05, 20, 0.5)
    fails = []
    for name, other, direction in (("T", d(1.0, 0.05, 40, 0.5), 1), ("rate", d(1.0, 0.1, 20, 0.5), 1),
                                   ("σ", d(1.3, 0.05, 20, 0.5), -1), ("ε", d(1.0, 0.05, 20, 0.8), -1)):
        # the true δ moves in `direction`; certified: other's lower vs base's upper (or vice versa)
        if direction > 0 and not other.upper >= base.lower:
            fails.append(f"δ not non-decreasing in {name}")
        if direction < 0 and not other.lower <= base.upper:
            fails.append(f"δ not non-increasing in {name}")
        if direction > 0 and not other.lower > base.upper:
            fails.append(f"{name}: sandwiches too wide to separate the increase")
        if direction < 0 and not other.upper < base.lower:
            fails.append(f"{name}: sandwiches too wide to separate the decrease")
    if fails:
        return Outcome(False, "; ".join(fails))
    return Outcome(True, "δ sandwiches strictly ordered in T, rate (up) and σ, ε (down)")


check("accuracy", "C1", name="C1 T = 1 contains the exact subsampled-Gaussian profile (mpmath)")(check_one_step)
check("accuracy", "C1", name="C1 rate-1 Gaussian T-fold = Gaussian at θ√T (mpmath)")(check_gaussian_rate_one)
check("brute-force", "C1", name="C1 EpsDelta T-fold = binomial sum over randomized-response atoms")(check_eps_delta)
check("accuracy", "C1", name="C1 Laplace 2-/3-fold by PLD quadrature (mpmath)")(check_laplace)
check("property", "C1", name="C1 monotone in T, rate, σ, ε")(check_monotone)
