"""Checks of SPEC T8–T10 beyond the generated ones (``accuracy`` measures every kernel against the Φ form):

- an independent route: the hockey-stick divergence ∫(p − e^ε q)₊ of the Laplace and Gaussian pairs by
  mpmath quadrature (no closed form involved) against the library;
- Arb (python-flint) certified enclosures of the T9 Φ form: the returned δ must be ≥ the ball's upper
  endpoint (a certified soundness statement) and within 1e-13 relative of it; the same for the δ that a
  calibrated σ (T10) delivers, which must be ≤ the target with certainty;
- erfcx against mpmath over the whole real line (peak ulps);
- properties: monotonicity in ε and θ, inverse ∘ profile on the safe side.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np

import bounds

from . import points as exact_points
from . import accuracy, profile_references
from .framework import Outcome, check
from .pointwise import pointwise
from .refstore import memo

# negative ε and θ axes, and references in the Φ form with a safe erfc (roots for inverses and σ)
for _tid in ("T8", "T9", "T10"):
    accuracy.register((_tid,), grid=lambda output, rng, _t=_tid: profile_references.grid(_t, output, rng),
                      reference=lambda output, _t=_tid: profile_references.reference(_t, output))

QUAD_POINTS = [(-2.0, 1.0), (-0.3, 1.0), (0.0, 0.5), (0.1, 0.1), (0.5, 2.0), (1.0, 1.0), (3.0, 2.5),
               (5.0, 1.0), (0.01, 0.05), (10.0, 4.0)]


@memo("profiles_checks._gauss_quad", precision=True, digits="30 (the caller's)")
def _gauss_quad(epsilon: float, theta: float) -> mp.mpf:
    """∫(p − e^ε q)₊ for P = N(θ, 1), Q = N(0, 1), split at the crossing x* = ε/θ + θ/2."""
    e, t = mp.mpf(epsilon), mp.mpf(theta)
    p = lambda x: mp.npdf(x, t, 1)  # noqa: E731
    q = lambda x: mp.npdf(x, 0, 1)  # noqa: E731
    x_star = e / t + t / 2
    return mp.quad(lambda x: p(x) - mp.exp(e) * q(x), [x_star, x_star + 5, x_star + 40, mp.inf])


@memo("profiles_checks._laplace_quad", precision=True, digits="30 (the caller's)")
def _laplace_quad(epsilon: float, theta: float) -> mp.mpf:
    """∫(p − e^ε q)₊ for P = Lap(θ, 1), Q = Lap(0, 1), integrand clipped at 0, split at its kinks."""
    e, t = mp.mpf(epsilon), mp.mpf(theta)
    p = lambda x: mp.exp(-abs(x - t)) / 2  # noqa: E731
    q = lambda x: mp.exp(-abs(x)) / 2  # noqa: E731
    kinks = sorted({mp.mpf(0), t, (e + t) / 2})
    return mp.quad(lambda x: max(p(x) - mp.exp(e) * q(x), 0), [-mp.inf] + kinks + [mp.inf])


@check("brute-force", "T8", "T9", name="T8/T9 equal the hockey-stick integral of the shifted pair (mpmath quadrature)")
def quadrature_route() -> Outcome:
    worst = 0.0
    bad = []
    with mp.workdps(30):
        for e, t in QUAD_POINTS:
            for name, quad, lib in (("T9", _gauss_quad, bounds.gaussian_profile),
                                    ("T8", _laplace_quad, bounds.laplace_profile)):
                ref = quad(e, t)
                got = lib(e, theta=t)
                if got == 0 or ref == 0:  # δ = 0 exactly (ε ≥ θ, Laplace): the quadrature leaves noise
                    ok = got == 0 and abs(ref) < 1e-25 or (ref == 0 and got < 1e-300)
                    rel = 0.0
                else:
                    rel = float(abs(mp.mpf(got) / ref - 1))
                    ok = rel < 1e-12 and mp.mpf(got) >= ref * (1 - mp.mpf(10) ** -20)
                worst = max(worst, rel)
                if not ok:
                    bad.append((name, e, t, got, mp.nstr(ref, 17)))
    return Outcome(not bad, f"{2 * len(QUAD_POINTS)} points, worst relative gap {worst:.1e}"
                   + (f"; MISMATCH {bad[:3]}" if bad else ""), {"worst_rel": worst})


ARB_POINTS = [(e, t) for e in (-5.0, -0.5, 0.0, 1e-8, 0.1, 1.0, 10.0, 100.0, 500.0, 800.0)
              for t in (1e-3, 0.05, 0.7, 1.0, 2.0, 10.0, 40.0, 1e3)]


def _mpf(ball) -> mp.mpf:
    """The ball's midpoint as an mpf (for reporting distances only; bounds use upper()/lower())."""
    with mp.workdps(60):
        return mp.mpf(ball.mid().str(50, radius=False))


def _arb_profile(epsilon: float, theta: float, prec: int):
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = prec
    try:
        e, t = arb(epsilon), arb(theta)
        s2 = arb(2).sqrt()
        phi = lambda x: (-x / s2).erfc() / 2  # noqa: E731
        return phi(t / 2 - e / t) - e.exp() * phi(-t / 2 - e / t)
    finally:
        ctx.prec = old


@check("accuracy", "T9", name="T9 Arb-certified enclosures: returned δ ≥ ball upper endpoint, within 1e-13")
def arb_enclosures() -> Outcome:
    from flint import arb

    unsound, worst, worst_at = [], 0.0, None
    for e, t in ARB_POINTS:
        ball = _arb_profile(e, t, 600)
        got = bounds.gaussian_profile(e, theta=t)
        upper = ball.upper() if ball.upper() < 1 else arb(1)  # δ ≤ 1 always (a probability)
        if not arb(got) >= upper:
            unsound.append((e, t, got, str(ball)))
        mid = _mpf(ball)
        if mid > mp.mpf(2.2250738585072014e-308):  # relative distance is meaningful above the subnormals
            relf = float(abs(mp.mpf(got) / mid - 1))
            if relf > worst:
                worst, worst_at = relf, (e, t)
    ok = not unsound and worst < 1e-13
    return Outcome(ok, f"{len(ARB_POINTS)} points: every returned δ ≥ the certified upper endpoint: "
                       f"{not unsound}; worst relative distance {worst:.2e} at {worst_at}"
                   + (f"; UNSOUND {unsound[:2]}" if unsound else ""))


@check("accuracy", "T10", name="T10 σ delivers δ ≤ target, certified with Arb")
def arb_calibration() -> Outcome:
    from flint import arb

    failures, count, slack = [], 0, []
    for e in (0.0, 1e-3, 0.1, 1.0, 10.0, 500.0):
        for d in (0.5, 1e-5, 1e-15, 1e-100, 1e-300):
            sigma = bounds.gaussian_sigma(e, d)
            from flint import ctx
            old = ctx.prec
            ctx.prec = 4000
            theta = arb(1) / arb(sigma)  # the exact Δ/σ of the returned σ, enclosed
            ctx.prec = old
            ball = _arb_profile_ball(e, theta)
            count += 1
            if not ball.upper() <= arb(d):
                failures.append((e, d, sigma, str(ball)))
            slack.append(float(mp.mpf(d) / _mpf(ball)))
    ok = not failures
    return Outcome(ok, f"{count} (ε, δ) pairs: delivered δ ≤ target with certainty: {ok}; target/delivered "
                       f"between {min(slack):.15f} and {max(slack):.15f}" + (f"; FAIL {failures[:2]}" if failures else ""))


def _arb_profile_ball(epsilon: float, theta):
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = 4000  # Φ(θ/2) − Φ(−θ/2) at θ ≈ 2.5e-300 cancels ~1000 bits
    try:
        e = arb(epsilon)
        s2 = arb(2).sqrt()
        phi = lambda x: (-x / s2).erfc() / 2  # noqa: E731
        return phi(theta / 2 - e / theta) - e.exp() * phi(-theta / 2 - e / theta)
    finally:
        ctx.prec = old


@check("accuracy", "T9", name="erfcx (numeric.erfcx) against mpmath over the real line")
def erfcx_accuracy() -> Outcome:
    from numeric.erfcx import erfcx

    rng = np.random.default_rng(5)
    xs = np.concatenate([-exact_points.logspace(-300, exact_points.log10(26.5), 300), exact_points.logspace(-300, 300, 400),
                         exact_points.uniform(rng, -5.0, 30.0, 400), [0.0, 12.0, math.nextafter(12.0, 0.0), 26.0]])
    worst, at = 0.0, None
    with mp.workdps(50):
        for x in xs:
            xm = mp.mpf(float(x))
            if xm > 1e8:
                ref = 1 / (xm * mp.sqrt(mp.pi)) * (1 - 1 / (2 * xm * xm) + 3 / (4 * xm ** 4))
            else:
                ref = mp.exp(xm * xm) * mp.erfc(xm)
            unit = math.ulp(float(ref)) if ref >= 2.2250738585072014e-308 else 5e-324
            err = float(abs(mp.mpf(erfcx(float(x))) - ref) / unit)
            if err > worst:
                worst, at = err, float(x)
    return Outcome(worst <= 8, f"{len(xs)} points, peak {worst:.2f} ulps at x = {at} (limit 8)",
                   {"peak_ulps": worst, "kernel": "erfcx", "points": len(xs), "budget": 8, "rms_ulps": float("nan"),
                    "worst": at})


@check("property", "T8", "T9", name="T8/T9 monotone (δ ↓ in ε, ↑ in θ); inverse ∘ profile on the safe side")
def monotone_and_inverse() -> Outcome:
    eps = np.concatenate([-exact_points.logspace(3, -10, 60), [0.0], exact_points.logspace(-10, 3, 120)])
    thetas = exact_points.logspace(-3, 3, 40)
    notes, ok = [], True
    for name, f, inv in (("T8", pointwise(bounds.laplace_profile), pointwise(bounds.laplace_profile_inverse)),
                         ("T9", pointwise(bounds.gaussian_profile), pointwise(bounds.gaussian_profile_inverse))):
        d = f(eps[:, None], theta=thetas[None, :])
        # monotone up to the rounding (each value is an upper bound rounded up by a few ulps)
        slack = 1 + 64 * 2.0 ** -52
        mono = bool(np.all(d[1:, :] <= d[:-1, :] * slack) and np.all(d[:, 1:] * slack >= d[:, :-1]))
        targets = np.array([1e-300, 1e-100, 1e-12, 1e-5, 0.1, 0.5, 0.999999])
        e = inv(targets[:, None], theta=thetas[None, :])
        back = f(e, theta=thetas[None, :])
        safe = bool(np.all(back <= targets[:, None]))
        ok &= mono and safe
        notes.append(f"{name}: monotone {mono}, profile(inverse(δ)) ≤ δ on {e.size} points {safe}")
    return Outcome(ok, "; ".join(notes))
