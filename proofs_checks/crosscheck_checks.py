"""Checks of ``bounds.crosscheck`` (issue 13): the certified enclosures contain independent references and every
verdict agrees with the exact answer.

Independent routes:
- the Poisson-subsampled Gaussian's profile by *quadrature of the hockey-stick integral* of the mixture pair
  (mpmath, 40 digits; both directions of add/remove), never the closed form the kernels evaluate; ε at δ by a
  root of that integral; the published one-step values (issue 13: σ = 1, δ = 1e-5, q = 0.01/0.1/0.5 give
  ε = 0.1994504478 / 1.684543814 / 3.533997985);
- finite mechanisms (randomized response, tiny rational laws, and the (ε₀, δ₀) dominating pair, plain,
  Poisson-mixed) by *enumerating outputs* in python-flint's Arb balls, so the truth of each claim is decided
  with certainty (a ball that straddles the claim is refined at higher precision).
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath as mp

from .framework import Outcome, check

PUBLISHED = ((0.01, 0.1994504478), (0.1, 1.684543814), (0.5, 3.533997985))  # issue 13, σ = 1, δ = 1e-5


# ----------------------------------------------------------------------------------------------------
# mpmath: hockey-stick integrals of the subsampled Gaussian pair
# ----------------------------------------------------------------------------------------------------

def _phi(x):
    return mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)


def subsampled_gaussian_quad(eps, theta, q, direction: str = "remove"):
    """∫(P − e^ε Q)₊ for REMOVE (P = (1−q)N(0,1) + qN(θ,1), Q = N(0,1)) or ADD (the pair swapped), by
    quadrature over the region where the integrand is positive (its boundary solved in closed form from the
    likelihood ratio (1 − q) + q e^{θx − θ²/2}).  Call inside ``mp.workdps``."""
    eps, theta, q = mp.mpf(eps), mp.mpf(theta), mp.mpf(q)
    E = mp.exp(eps)
    if direction == "remove":
        z = E - 1 + q
        if z <= 0:
            return 1 - E
        x0 = (mp.log(z / q) + theta ** 2 / 2) / theta
        f = lambda x: (1 - q) * _phi(x) + q * _phi(x - theta) - E * _phi(x)  # noqa: E731
        return mp.quad(f, [x0, x0 + 1, x0 + 4, x0 + 12, mp.inf])
    c = 1 - E * (1 - q)
    if c <= 0:
        return mp.mpf(0)
    x0 = (mp.log(c / (q * E)) + theta ** 2 / 2) / theta
    f = lambda x: _phi(x) - E * ((1 - q) * _phi(x) + q * _phi(x - theta))  # noqa: E731
    return mp.quad(f, [-mp.inf, x0 - 12, x0 - 4, x0 - 1, x0])


def _remove_closed_form(eps, theta, q):
    """SPEC T11's REMOVE closed form qΦ(θ/2 − ε_q/θ) − (e^ε − 1 + q)Φ(−θ/2 − ε_q/θ) (for root finding only)."""
    eps, theta, q = mp.mpf(eps), mp.mpf(theta), mp.mpf(q)
    eq = mp.log(1 + mp.expm1(eps) / q)
    return q * mp.ncdf(theta / 2 - eq / theta) - (mp.expm1(eps) + q) * mp.ncdf(-theta / 2 - eq / theta)


def subsampled_gaussian_epsilon(delta, theta, q, guess):
    """ε with max(REMOVE, ADD) = δ: a root of the closed form, *verified by quadrature* (the REMOVE integral at the
    root equals δ to 1e-15 relative and the ADD integral is below δ), so the closed form is not the evidence."""
    g = lambda e: mp.log(_remove_closed_form(e, theta, q)) - mp.log(delta)  # noqa: E731
    root = mp.findroot(g, mp.mpf(guess), tol=mp.mpf(10) ** (-mp.mp.dps + 5))
    rem = subsampled_gaussian_quad(root, theta, q, "remove")
    if not abs(rem / delta - 1) < mp.mpf("1e-15") or not subsampled_gaussian_quad(root, theta, q, "add") < delta:
        raise AssertionError(f"quadrature does not confirm ε = {root} (REMOVE δ = {rem})")
    return root


# ----------------------------------------------------------------------------------------------------
# Arb: exact decisions for finite mechanisms
# ----------------------------------------------------------------------------------------------------

def arb_pairs_delta(pairs, eps: float, prec: int = 200):
    """δ(ε) = max over pairs and orders of Σ (P − e^ε Q)₊ as an Arb ball; pairs hold Fractions or ``arb``s."""
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = prec
    try:
        E = arb(eps).exp()
        best = arb(0)
        for p, q in pairs:
            for a, b in ((p, q), (q, p)):
                s = arb(0)
                for x, y in zip(a, b):
                    xa = x if isinstance(x, arb) else arb(x.numerator) / x.denominator
                    ya = y if isinstance(y, arb) else arb(y.numerator) / y.denominator
                    t = xa - E * ya
                    if t > 0:
                        s += t
                    elif not (t <= 0):  # straddles 0: (t)₊ is in [0, t.upper]
                        s += arb(t.upper()).union(arb(0))
                best = best.max(s) if hasattr(best, "max") else (s if s > best else best)
        return best
    finally:
        ctx.prec = old


def truth(pairs_fn, eps: float, delta: float) -> bool | None:
    """Whether δ(ε) ≤ δ, decided by Arb at increasing precision (None if still undecided at 2000 bits)."""
    from flint import arb

    for prec in (200, 600, 2000):
        d = pairs_fn(eps, prec)
        if d <= arb(delta):
            return True
        if d > arb(delta):
            return False
    return None


def dominating_pair_arb(eps0: float, delta0: float):
    """The (ε₀, δ₀)-DP dominating pair, 4 outputs, as Arb probabilities (ε₀ the float exactly)."""
    from flint import arb

    E0 = arb(eps0).exp()
    d0 = arb(delta0)
    a = (1 - d0) * E0 / (1 + E0)
    b = (1 - d0) / (1 + E0)
    return (d0, a, b, arb(0)), (arb(0), b, a, d0)


def poisson_mix(pair, q):
    """REMOVE pair ((1 − q)Q + qP, Q) and the ADD pair (Q, (1 − q)Q + qP) of a pair (P, Q) (Arb entries)."""
    from flint import arb

    p, qq = pair
    qa = arb(q)
    mix = tuple((1 - qa) * y + qa * x for x, y in zip(p, qq))
    return [(mix, qq)]  # arb_pairs_delta takes both orders: REMOVE and ADD


def random_discrete(rng: random.Random, outputs: int, den: int):
    """A random law on ``outputs`` points with denominators ``den`` (all probabilities > 0)."""
    cuts = sorted(rng.sample(range(1, den), outputs - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [den])]
    return tuple(Fraction(p, den) for p in parts)


# ----------------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------------

@check("accuracy", "T11", name="crosscheck: certified ε sandwich contains the quadrature ε (σ = 1, δ = 1e-5)")
def published_epsilons() -> Outcome:
    import bounds

    worst = 0.0
    for q, published in PUBLISHED:
        s = bounds.crosscheck(noise_multiplier=1.0, rate=q, epsilon=published, delta=1e-5).epsilon
        if not abs(s.upper - published) <= 6e-10:
            return Outcome(False, f"q = {q}: certified ε ≤ {s.upper!r} is not the published {published}")
        # the exact ε lies in [lower, upper] iff δ(lower) ≥ 1e-5 ≥ δ(upper) (δ non-increasing): both by quadrature
        with mp.workdps(30):
            d_lo = max(subsampled_gaussian_quad(s.lower, 1, q, d) for d in ("remove", "add"))
            d_hi = max(subsampled_gaussian_quad(s.upper, 1, q, d) for d in ("remove", "add"))
        if not (d_lo >= mp.mpf("1e-5") >= d_hi):
            return Outcome(False, f"q = {q}: ε sandwich [{s.lower!r}, {s.upper!r}] misses the exact ε: quadrature "
                                  f"δ = {mp.nstr(d_lo, 20)}, {mp.nstr(d_hi, 20)}")
        worst = max(worst, (s.upper - s.lower) / s.upper)
    return Outcome(True, f"3 published ε inside their certified sandwiches (quadrature at both ends); widest "
                         f"relative width {worst:.2g}", {"relative_width": worst})


@check("brute-force", "T1", "T11", name="crosscheck: verdicts on finite mechanisms agree with Arb enumeration")
def discrete_verdicts() -> Outcome:
    import bounds

    rng = random.Random(13)
    n = 0
    cases = []
    # randomized response 3/4 and tiny rational mechanisms
    cases.append(bounds.DiscretePairs([((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))]))
    for _ in range(2 if not _full() else 20):
        k = rng.randint(2, 4)
        cases.append(bounds.DiscretePairs([(random_discrete(rng, k, 12), random_discrete(rng, k, 12))]))
    for mech in cases:
        def pairs_fn(e, prec, mech=mech):
            return arb_pairs_delta(mech.pairs, e, prec)
        n += _agree(bounds, mech, pairs_fn, rng, 4 if not _full() else 20)
    # the (ε₀, δ₀) worst case, plain and Poisson-subsampled (SPEC T1), against its enumerated dominating pair
    for eps0, d0, q in ((math.log(3), 0.0, None), (1.0, 1e-3, None), (1.0, 1e-3, 0.1), (0.5, 0.0, 0.3)):
        pair = dominating_pair_arb(eps0, d0)
        pairs = [pair] if q is None else poisson_mix(pair, q)
        mech = bounds.EpsDelta(eps0, d0) if q is None else bounds.poisson_sampled(bounds.EpsDelta(eps0, d0), q)

        def pairs_fn(e, prec, pairs=pairs):
            return arb_pairs_delta(pairs, e, prec)
        n += _agree(bounds, mech, pairs_fn, rng, 4 if not _full() else 20)
    return Outcome(True, f"{n} verdicts agree with the exact answer (Arb), none wrong")


def _full() -> bool:
    from .framework import full

    return full()


def _agree(bounds, mech, pairs_fn, rng, count: int) -> int:
    """Claims at random ε, δ near the exact profile: the verdict must never contradict Arb's decision."""
    from flint import arb

    done = 0
    for _ in range(count):
        eps = rng.choice([0.0, rng.uniform(0, 2), rng.uniform(0, 0.3)])
        exact = pairs_fn(eps, 200)
        mid = float(arb(exact.mid())) if exact > 0 else 0.0
        delta = min(1.0, max(0.0, mid * (1 + rng.choice([-1e-3, -1e-12, 0.0, 1e-12, 1e-3]))))
        v = bounds.crosscheck(mech, epsilon=eps, delta=delta)
        t = truth(pairs_fn, eps, delta)
        if (v.verdict == "valid" and t is False) or (v.verdict == "invalid" and t is True):
            raise AssertionError(f"{mech!r} at (ε={eps!r}, δ={delta!r}): verdict {v.verdict} but exact says "
                                 f"{'valid' if t else 'invalid'}; {v!r}")
        if t is not None and abs(delta - mid) > 1e-6 * max(mid, 1e-300) and v.verdict == "undecided":
            raise AssertionError(f"{mech!r}: undecided far from the exact value: {v!r}")
        done += 1
    return done


@check("property", "T8", "T9", "T11", name="crosscheck: δ enclosures agree with the public profiles and contain the raw kernels")
def enclosures_match_public_profiles() -> Outcome:
    """The upper side is the library's public (upward-rounded) profile; the lower side is below the unrounded
    kernel and within a few hundred ulps of it (so invalid verdicts are as sharp as the kernels allow)."""
    import bounds
    import numeric.subsampled_profiles as t11
    from bounds import crosschecking as cc
    from numeric.pure import pure_function

    # the unrounded kernel as plain Python (numeric.pure: the compiled kernel's bits, as accuracy.unrounded runs
    # every raw twin), not a compilation of its own (≈ 2.4 s of a cold certificate); compiled where no twin exists
    raw_kernel = pure_function("numeric.subsampled_profiles:delta_raw_kernel") or t11.delta_raw_kernel
    worst = 0.0
    n = 0
    for theta in (0.05, 1.0, 4.0):
        for q in (None, 1e-6, 0.01, 0.5, 1.0):
            for eps in (0.0, 1e-3, 0.3, 2.0, 9.0):
                for gauss in (True, False):
                    base = bounds.Gaussian(theta=theta) if gauss else bounds.Laplace(theta=theta)
                    mech = base if q is None else bounds.poisson_sampled(base, q)
                    lo, hi = cc.enclosure(mech).delta_bounds(eps)
                    if q is None:
                        pub = (bounds.gaussian_profile if gauss else bounds.laplace_profile)(eps, theta=theta)
                    else:
                        pub = (bounds.subsampled_gaussian_profile if gauss else bounds.subsampled_laplace_profile)(
                            eps, theta=theta, rate=q)
                    mech_id = t11.GAUSSIAN if gauss else t11.LAPLACE
                    raws = [raw_kernel(mech_id, d, eps, theta, 1.0 if q is None else q) for d in (t11.REMOVE, t11.ADD)]
                    raw = max(raws)
                    if not (hi == pub and lo <= raw <= hi):
                        return Outcome(False, f"{mech!r} at ε = {eps}: enclosure [{lo!r}, {hi!r}], public {pub!r}, "
                                              f"raw {raw!r}")
                    if raw > 0:
                        worst = max(worst, (raw - lo) / raw)
                    n += 1
    return Outcome(True, f"{n} points: upper = public profile, lower ≤ raw kernel; lower within {worst:.2g} "
                         "relative of the raw value", {"lower_gap": worst})
