"""Checks of SPEC T11 (one-step Poisson-subsampled Gaussian and Laplace profiles) beyond the symbolic ones:

- accuracy: every T11 kernel against SPEC's typeset closed forms in mpmath (``subsampled_profile_references``;
  not the kernels' route) over ε ∈ {−10 … 800}, θ ∈ [1e-3, 1e3], q ∈ {0, 1e-300, 1e-12 … 1}; peak ulps and
  soundness (these replace the generic accuracy checks, which have no θ/q axes);
- an independent route: mpmath quadrature of the hockey-stick integral ∫(p − e^ε p')₊ of the mixture densities;
- SPEC's identity δ_REMOVE(A_q(ε)) = q·δ_base(ε) numerically (mpmath, SPEC form; and the library);
- REMOVE ≥ ADD for ε ≥ 0; q = 1 reduces to T8/T9 (library values);
- Arb (python-flint) certified enclosures of the Gaussian forms: returned δ ≥ the ball's upper endpoint;
- properties: δ non-increasing in ε; inverse ∘ profile on the safe side.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np

import bounds
from numeric._generated.metadata import THEOREMS

from . import points as exact_points
from . import subsampled_profile_references as refs
from . import accuracy
from .accuracy import ulps
from .framework import Outcome, check
from .pointwise import pointwise
from .refstore import memo

SEED = 20261130


def measure(output: str):
    spec = THEOREMS["T11"]["outputs"][output]
    rng = np.random.default_rng(SEED)
    points = refs.grid(output, rng)
    # The rounded kernel as the generic accuracy checks evaluate it (accuracy.compiled: the compiled kernel's bits,
    # no array loop built for it).  The unrounded δ twins run as plain Python (accuracy.unrounded: 0.08–0.18 s for
    # the grid, against 0.6–2.2 s of CPU to compile each); the ε twins are searches that call the δ profile a few
    # hundred times per point (0.4–0.6 s as Python per run, cold or warm), so they stay compiled (≈ 1–1.5 s once,
    # then loaded from numba's cache in milliseconds).
    if output.endswith("_epsilon"):
        raw = accuracy.compiled(spec["kernel"] + "_raw", points)
    else:
        raw = accuracy.unrounded(spec["kernel"], points)
    rounded = accuracy.compiled(spec["kernel"], points)
    ref_fn = refs.reference(output)
    errors, worst, unsound = [], (0.0, None), []
    for i, p in enumerate(points):
        ref = ref_fn(*p, value=float(raw[i]))
        if ref is None:
            continue
        if spec["at_most_one"]:
            ref = min(mp.mpf(1), ref)
        if mp.isinf(ref):
            if not (math.isinf(rounded[i]) and (rounded[i] > 0) == (ref > 0)):
                unsound.append((p, float(rounded[i]), "reference is inf"))
            continue
        err = ulps(float(raw[i]), ref)
        errors.append(err)
        if abs(err) > abs(worst[0]):
            worst = (err, p)
        if not mp.mpf(float(rounded[i])) >= ref:
            unsound.append((p, float(rounded[i]), mp.nstr(ref, 20)))
    arr = np.abs(np.array(errors)) if errors else np.zeros(1)
    return {"kernel": spec["kernel"].split(":")[1], "points": len(errors), "peak_ulps": float(arr.max()),
            "rms_ulps": float(np.sqrt((arr ** 2).mean())), "worst": worst[1], "budget": spec["budget_ulps"],
            "unsound": unsound}


def _accuracy(output: str):
    def run() -> Outcome:
        r = measure(output)
        ok = not r["unsound"] and r["peak_ulps"] <= r["budget"]
        detail = (f"{r['kernel']}: {r['points']} points, peak {r['peak_ulps']:.2f} ulps (rms {r['rms_ulps']:.2f}) "
                  f"at {r['worst']}, budget {r['budget']}")
        if r["unsound"]:
            detail += f"; {len(r['unsound'])} UNSOUND, first {r['unsound'][0]}"
        return Outcome(ok, detail, {k: v for k, v in r.items() if k != "unsound"})
    return run


# the generic checks (proofs_checks.accuracy) have no θ or q axes, and the inverses' references need the float
# result to seed their bracket: T11 registers its grid and reference and checks of its own
accuracy.register(("T11",), grid=refs.grid, reference=refs.reference, own_checks=True)
for _output in refs.OUTPUTS:
    check("accuracy", "T11", name=f"T11 {_output} accuracy")(_accuracy(_output))


# ---- quadrature of the mixture densities --------------------------------------------------------------

QUAD_POINTS = [(0.0, 1.0, 0.1), (0.5, 1.0, 0.3), (1.0, 2.0, 0.01), (2.0, 3.0, 0.5), (0.1, 0.5, 0.9),
               (-0.05, 1.0, 0.2), (3.0, 4.0, 0.05), (0.3, 0.2, 0.7), (1e-3, 1.0, 1e-6)]


@memo("subsampled_profiles_checks._quad", precision=True, digits="30 (the caller's)")
def _quad(mech: str, direction: str, epsilon: float, theta: float, rate: float) -> mp.mpf:
    """∫(p − e^ε p')₊ for the REMOVE pair (p, p') = ((1−q)b₀ + q b₁, b₀) or the ADD pair (b₀, (1−q)b₀ + q b₁),
    b₀, b₁ the base densities at 0 and θ (unit scale); the integrand is clipped and split at its kinks and
    at the likelihood-ratio crossing (found numerically), far tails cut where both densities < 1e-40."""
    e, t, q = mp.mpf(epsilon), mp.mpf(theta), mp.mpf(rate)
    if mech == "gaussian":
        b0 = lambda x: mp.npdf(x, 0, 1)  # noqa: E731
        b1 = lambda x: mp.npdf(x, t, 1)  # noqa: E731
        lo, hi = -15 - t, 15 + t
    else:
        b0 = lambda x: mp.exp(-abs(x)) / 2  # noqa: E731
        b1 = lambda x: mp.exp(-abs(x - t)) / 2  # noqa: E731
        lo, hi = -95 - t, 95 + t
    mix = lambda x: (1 - q) * b0(x) + q * b1(x)  # noqa: E731
    p, pp = (mix, b0) if direction == "remove" else (b0, mix)
    f = lambda x: max(p(x) - mp.exp(e) * pp(x), 0)  # noqa: E731
    # crossing of the integrand (monotone likelihood ratio): bisection on a grid sign change
    xs = [lo + (hi - lo) * i / 400 for i in range(401)]
    g = lambda x: p(x) - mp.exp(e) * pp(x)  # noqa: E731
    cuts = set(xs[::50]) | {mp.mpf(0), t}
    for a, b in zip(xs, xs[1:]):
        if (g(a) > 0) != (g(b) > 0):
            for _ in range(120):
                m = (a + b) / 2
                if (g(m) > 0) == (g(a) > 0):
                    a = m
                else:
                    b = m
            cuts.add((a + b) / 2)
    return mp.quad(f, [-mp.inf] + sorted(cuts) + [mp.inf])


@check("brute-force", "T11", name="T11 equals the hockey-stick integral of the mixture densities (mpmath quadrature)")
def quadrature_route() -> Outcome:
    bad, worst = [], 0.0
    with mp.workdps(30):
        for e, t, q in QUAD_POINTS:
            for mech, lib in (("gaussian", bounds.subsampled_gaussian_profile),
                              ("laplace", bounds.subsampled_laplace_profile)):
                for direction in ("remove", "add"):
                    ref = _quad(mech, direction, e, t, q)
                    got = lib(e, theta=t, rate=q, direction=direction)
                    if ref < mp.mpf(10) ** -25:
                        ok = got < 1e-20
                        rel = 0.0
                    else:
                        rel = float(abs(mp.mpf(got) / ref - 1))
                        ok = rel < 1e-12 and mp.mpf(got) >= ref * (1 - mp.mpf(10) ** -20)
                    worst = max(worst, rel)
                    if not ok:
                        bad.append((mech, direction, e, t, q, got, mp.nstr(ref, 17)))
    n = 4 * len(QUAD_POINTS)
    return Outcome(not bad, f"{n} points, worst relative gap {worst:.1e}" + (f"; MISMATCH {bad[:3]}" if bad else ""),
                   {"worst_rel": worst})


# ---- SPEC identity, REMOVE ≥ ADD, q = 1 ----------------------------------------------------------------

@check("property", "T11", name="T11 identity δ_REMOVE(A_q(ε)) = q·δ_base(ε), numerically (mpmath SPEC form and library)")
def amplification_identity() -> Outcome:
    from .profile_references import gaussian_delta as t9_ref, laplace_delta as t8_ref

    worst_mp, worst_lib, bad = 0.0, 0.0, []
    for e in (1e-6, 0.01, 0.3, 1.0, 3.0, 10.0, 50.0):
        for t in (1e-3, 0.1, 1.0, 5.0, 100.0):
            for q in (1e-12, 1e-4, 0.1, 0.5, 0.99):
                for mech, base_ref, lib, base_lib in (
                        ("gaussian", t9_ref, bounds.subsampled_gaussian_profile, bounds.gaussian_profile),
                        ("laplace", t8_ref, bounds.subsampled_laplace_profile, bounds.laplace_profile)):
                    with mp.workdps(80):
                        a = mp.log(1 + mp.mpf(q) * mp.expm1(mp.mpf(e)))
                        lhs = refs.spec_delta_mp(mech, "remove", a, mp.mpf(t), mp.mpf(q))
                        rhs = mp.mpf(q) * base_ref(e, t)
                        if rhs > mp.mpf(10) ** -280:
                            r = float(abs(lhs / rhs - 1))
                            worst_mp = max(worst_mp, r)
                            if r > 1e-40:
                                bad.append(("mpmath", mech, e, t, q))
                        elif lhs > mp.mpf(10) ** -270:
                            bad.append(("mpmath", mech, e, t, q))
                    # library: at the float nearest A_q(ε) the two sides agree to the conditioning of δ
                    a_float = float(a)
                    got = lib(a_float, theta=t, rate=q, direction="remove")
                    want = q * base_lib(e, theta=t)
                    if want > 1e-250 and got > 0:
                        r = abs(got / want - 1)
                        # d ln δ/d ε ≤ |a|/θ + 1: tolerance from the rounding of A_q(ε) to a float
                        slack = 1e-12 + 4e-16 * abs(a_float) * (abs(a_float) / t + 2) * (1 + 1 / max(q, 1e-300) * 0)
                        worst_lib = max(worst_lib, r)
                        if r > max(slack, 1e-12) * 50:
                            bad.append(("library", mech, e, t, q, got, want))
    return Outcome(not bad, f"SPEC form at A_q(ε) vs q·δ_base(ε): worst relative {worst_mp:.1e} (mpmath, 80 "
                            f"digits); library worst {worst_lib:.1e}" + (f"; FAIL {bad[:3]}" if bad else ""))


@check("property", "T11", name="T11 REMOVE ≥ ADD for ε ≥ 0; q = 1 equals T8/T9 in both directions")
def remove_dominates_and_q1() -> Outcome:
    eps = np.concatenate([[0.0], exact_points.logspace(-8, exact_points.log10(500.0), 60)])
    thetas = exact_points.logspace(-3, 3, 25)
    notes, ok = [], True
    for name, lib, base in (("Gaussian", pointwise(bounds.subsampled_gaussian_profile), pointwise(bounds.gaussian_profile)),
                            ("Laplace", pointwise(bounds.subsampled_laplace_profile), pointwise(bounds.laplace_profile))):
        violations = 0
        for q in (1e-12, 1e-6, 1e-3, 0.1, 0.5, 0.9):
            rem = lib(eps[:, None], theta=thetas[None, :], rate=q, direction="remove")
            add = lib(eps[:, None], theta=thetas[None, :], rate=q, direction="add")
            # rounded values: ADD (rounded up) may exceed REMOVE (rounded up) only by the budgets
            violations += int(np.sum(add > rem * (1 + 1e-13) + 1e-300))
        e_all = np.concatenate([-eps[::-1], eps])
        q1 = [np.max(np.abs(lib(e_all[:, None], theta=thetas[None, :], rate=1.0, direction=d)
                            - base(e_all[:, None], theta=thetas[None, :])) / np.maximum(base(e_all[:, None], theta=thetas[None, :]), 1e-300))
              for d in ("remove", "add")]
        this_ok = violations == 0 and max(q1) < 1e-13
        ok &= this_ok
        notes.append(f"{name}: REMOVE < ADD at {violations} points; q = 1 vs T{'9' if name == 'Gaussian' else '8'} "
                     f"max relative gap {max(q1):.1e}")
    return Outcome(ok, "; ".join(notes))


# ---- Arb ---------------------------------------------------------------------------------------------

ARB_POINTS = [(e, t, q) for e in (-0.5, 0.0, 1e-6, 0.1, 1.0, 5.0, 30.0, 300.0)
              for t in (1e-3, 0.3, 1.0, 4.0, 100.0) for q in (1e-12, 1e-3, 0.2, 0.9)]


def _arb_gauss(direction: str, e: float, t: float, q: float):
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = 1200
    try:
        E, T, Q = arb(e), arb(t), arb(q)
        F = E.exp()
        s2 = arb(2).sqrt()
        phi = lambda x: (-x / s2).erfc() / 2  # noqa: E731
        if direction == "remove":
            if F.upper() <= (1 - Q).lower():
                return 1 - F
            eq = (1 + (F - 1) / Q).log()
            return Q * phi(T / 2 - eq / T) - (F - 1 + Q) * phi(-T / 2 - eq / T)
        c = 1 - (1 - Q) * F
        if c.upper() <= 0:
            return arb(0)
        tt = (Q * F / c).log()
        return c * phi(T / 2 - tt / T) - Q * F * phi(-T / 2 - tt / T)
    finally:
        ctx.prec = old


@check("accuracy", "T11", name="T11 Gaussian Arb-certified enclosures: returned δ ≥ ball upper endpoint")
def arb_enclosures() -> Outcome:
    from flint import arb

    unsound, wide, worst, count = [], 0, 0.0, 0
    for e, t, q in ARB_POINTS:
        for direction in ("remove", "add"):
            ball = _arb_gauss(direction, e, t, q)
            if not ball.is_finite() or ball.rad() > abs(ball.mid()) * arb(2) ** -80 + arb(10) ** -320:
                wide += 1
                continue
            got = bounds.subsampled_gaussian_profile(e, theta=t, rate=q, direction=direction)
            upper = ball.upper() if ball.upper() < 1 else arb(1)
            count += 1
            if not arb(got) >= upper:
                unsound.append((direction, e, t, q, got, ball.str(20)))
            if ball.lower() > arb(2.2250738585072014e-308):
                rel = float(((arb(got) - ball.mid()) / ball.mid()).mid().str(5, radius=False))
                worst = max(worst, rel)
    ok = not unsound and worst < 1e-13
    return Outcome(ok, f"{count} certified points (skipped {wide} too-wide balls): every returned δ ≥ the ball's "
                       f"upper endpoint: {not unsound}; worst relative distance {worst:.1e}"
                   + (f"; UNSOUND {unsound[:2]}" if unsound else ""))


@check("property", "T11", name="T11 δ non-increasing in ε; inverse ∘ profile on the safe side")
def monotone_and_inverse() -> Outcome:
    eps = np.concatenate([-exact_points.logspace(1, -6, 20), [0.0], exact_points.logspace(-8, exact_points.log10(500.0), 80)])
    thetas = exact_points.logspace(-3, 3, 13)
    notes, ok = [], True
    for name, f, inv in (("Gaussian", pointwise(bounds.subsampled_gaussian_profile),
                          pointwise(bounds.subsampled_gaussian_profile_inverse)),
                         ("Laplace", pointwise(bounds.subsampled_laplace_profile),
                          pointwise(bounds.subsampled_laplace_profile_inverse))):
        for direction in ("remove", "add", "both"):
            d = f(eps[:, None], theta=thetas[None, :], rate=0.01, direction=direction)
            mono = bool(np.all(d[1:, :] <= d[:-1, :] * (1 + 1e-13)))
            targets = np.array([1e-300, 1e-12, 1e-5, 1e-3, 0.5])
            e = inv(targets[:, None], theta=thetas[None, :], rate=0.01, direction=direction)
            back = f(e, theta=thetas[None, :], rate=0.01, direction=direction)
            safe = bool(np.all(back <= targets[:, None]))
            ok &= mono and safe
            if not (mono and safe):
                notes.append(f"{name} {direction}: monotone {mono}, safe {safe}")
    return Outcome(ok, "all monotone and safe (2 mechanisms × 3 directions)" if ok else "; ".join(notes))


# ---- profile-level amplification with mechanism objects (bounds.mechanisms) ----------------------------

@check("brute-force", "T3", "T4", name="T3/T4 with a Gaussian mechanism object: ≥ exact δ (0.3315) and ≥ the "
                                      "50-digit group-profile sum (0.3445), strictly below the bare-(ε, δ) bound")
def t3_gaussian_mechanism() -> Outcome:
    from . import brute_force, references

    sigma = 0.7
    theta = 1 / sigma  # the float the library sees
    with mp.workdps(50):
        eta = 1 - (1 - mp.mpf(1) / 4) ** 3
        eps_prime = mp.log(1 + eta * (mp.exp(mp.mpf("0.1")) - 1))
        h_pq, h_qp, *_ = brute_force.gaussian_sum_exact_delta(eps_prime)
        exact = max(h_pq, h_qp)
        bound = references.with_replacement_delta(
            0.1, 0.0, 3, 4, profile=lambda k: brute_force.gaussian_profile(k * mp.mpf(theta), mp.mpf(0.1)))
    results = {}
    for relation in ("substitute", "add_remove"):
        results[relation] = bounds.with_replacement_profile(bounds.Gaussian(theta=theta), 0.1, 3, 4, relation=relation)
    bare = bounds.with_replacement(0.1, bounds.gaussian_profile(0.1, theta=theta), 3, 4)
    g = results["substitute"]
    ok = (all(mp.mpf(r.delta) >= bound and mp.mpf(r.delta) >= exact for r in results.values())
          and g.delta / float(bound) - 1 < 1e-12 and g.delta < bare.delta and mp.mpf(g.epsilon) >= eps_prime)
    return Outcome(ok, f"white-box δ' {g.delta:.10f} ≥ group-profile sum {mp.nstr(bound, 12)} ≥ exact "
                       f"{mp.nstr(exact, 6)}; bare-(ε, δ) δ' {bare.delta:.6f} is larger")
