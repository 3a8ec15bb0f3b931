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


def unmerged_gaussian(theta: float, steps: int):
    """compose([(Gaussian(θ), T)]) with the T steps composed by FFT, not merged into one Gaussian at θ√T (the
    library's shortcut, exact): keeps the Gaussian at θ√T an exact reference for the FFT route."""
    import bounds

    comp = bounds.compose([(bounds.Gaussian(theta=theta), 1)])
    [key] = comp.steps
    comp.steps = {key: steps}
    comp.total_steps = comp._grid_steps = steps
    comp._cache.clear()
    comp._h = comp._initial_h()
    return comp


def check_gaussian_rate_one(cases=None) -> Outcome:
    from .composition_references import gaussian_composed_delta

    fails: list[str] = []
    widths = []
    cases = cases or gaussian_cases()
    for steps, theta, eps in cases:
        s = unmerged_gaussian(theta, steps).delta(eps)
        ref = gaussian_composed_delta(eps, theta, steps)
        widths.append(_contains(s, ref, f"T={steps}, θ={theta:.4g}, ε={eps}", fails) / ref)
    if fails:
        return Outcome(False, "; ".join(fails))
    return Outcome(True, f"T-fold Gaussian(θ) sandwich (composed by FFT) contains the Gaussian at θ√T for T ∈ "
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


# ----------------------------------------------------------------------------------------------------
# adversarial search over the whole domain (issue 19)
# ----------------------------------------------------------------------------------------------------

ADVERSARIAL_SEED = 19


def _dyadic(rng, lo_exp: int, hi_exp: int) -> float:
    """(8 + j)/8 · 2^e, j ∈ 0..7, e ∈ [lo_exp, hi_exp): exact doubles (no libm: CPU-independent points)."""
    return (8 + int(rng.integers(8))) / 8 * 2.0 ** int(rng.integers(lo_exp, hi_exp))


def adversarial_points(n: int, seed: int = ADVERSARIAL_SEED) -> list[tuple]:
    """n seeded points over the whole domain: θ in [2⁻¹⁰, 2¹⁰] (1e-3 … 1e3), rates 2⁻⁴⁰ … 1, ε 0 … 2¹³
    (and 1e4), T 1 … 10⁶, each with an exact reference route:
    ('sg', θ, q, ε): one subsampled-Gaussian step (mpmath threshold form, both directions);
    ('sl', θ, q, ε): one subsampled-Laplace step (mpmath closed form, both directions);
    ('g', θ, T, ε): T Gaussian steps, rate 1 (the Gaussian at θ√T, mpmath);
    ('gs', (θ₁, …), ε): a schedule of distinct Gaussians (the Gaussian at ‖θ‖, mpmath);
    ('ed', ε₀, δ₀, T, ε): T randomized-response steps (binomial sum, mpmath);
    ('eps', θ, q, δ): ε(δ) of one subsampled-Gaussian step, verified through the exact δ at both ends;
    one point in seven is an 'sg' point in the band θ ∈ [16, 64), ε ≥ half the largest loss (issue 19's)."""
    import math

    import numpy as np

    rng = np.random.default_rng(seed)
    kinds = ["sg", "sl", "g", "gs", "ed", "eps", "sgx"]
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        eps = 0.0 if rng.integers(10) == 0 else _dyadic(rng, -8, 13)
        if kind == "sgx":  # the band of issue 19: losses around e^{kh}'s overflow (θ 16 … 64, ε ≥ half the top)
            theta, q = _dyadic(rng, 4, 6), min(1.0, _dyadic(rng, -40, 1))
            top = theta * (theta / 2 + 9) + (math.frexp(q)[1] - 1) * 0.6931471805599453
            out.append(("sg", theta, q, int(rng.integers(8, 17)) / 16 * 2.0 ** math.frexp(top)[1]))
            continue
        if kind in ("sg", "sl", "eps"):
            theta = _dyadic(rng, -10, 10)
            q = min(1.0, _dyadic(rng, -40, 1))
            if kind == "eps":
                out.append((kind, theta, q, _dyadic(rng, -40, -1)))
                continue
            if rng.integers(4):
                # ε where δ is informative: a multiple j/16 of the power of two above the largest loss
                # (θ(θ/2 + 9) + ln q resp. θ + ln q; ln q ≈ e·ln 2 from frexp: basic operations only)
                top = theta * (theta / 2 + 9) if kind == "sg" else theta
                top += (math.frexp(q)[1] - 1) * 0.6931471805599453
                eps = int(rng.integers(17)) / 16 * 2.0 ** math.frexp(max(top, 2.0 ** -8))[1]
            out.append((kind, theta, q, eps))
        elif kind == "g":
            t = int(rng.integers(1, 1_000_001)) if rng.integers(2) else int(rng.integers(1, 100))
            out.append((kind, _dyadic(rng, -10, 10), t, 1e4 if rng.integers(20) == 0 else eps))
        elif kind == "gs":
            k = int(rng.integers(2, 120))
            out.append((kind, tuple(_dyadic(rng, -10, 3) for _ in range(k)), eps))
        else:
            out.append((kind, _dyadic(rng, -6, 3), 0.0 if rng.integers(3) == 0 else _dyadic(rng, -30, -3),
                        int(rng.integers(1, 120)), eps))
    return out


def _adversarial_one(point: tuple, tolerance: float):
    """(status, detail): 'ok', 'refused' (a ValueError naming the domain) or 'fail'."""
    import math
    import warnings

    import mpmath as mp

    import bounds
    from bounds.composition import UNRESOLVED_WARNING

    from . import composition_references as R

    kind = point[0]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if kind in ("sg", "sl"):
                _, theta, q, eps = point
                mech = bounds.Gaussian(theta=theta) if kind == "sg" else bounds.Laplace(theta=theta)
                comp = bounds.compose([(bounds.poisson_sampled(mech, q), 1)], tolerance=tolerance)
                s = comp.delta(eps)
                f = R.subsampled_gaussian_delta if kind == "sg" else R.subsampled_laplace_delta
                ref = max(f(eps, theta, q, "remove"), f(eps, theta, q, "add") if q < 1 else 0.0)
            elif kind == "g":
                _, theta, t, eps = point
                s = bounds.compose([(bounds.Gaussian(theta=theta), t)], tolerance=tolerance).delta(eps)
                ref = R.gaussian_composed_delta(eps, theta, t)
            elif kind == "gs":
                _, thetas, eps = point
                s = bounds.compose([(bounds.Gaussian(theta=x), 1) for x in thetas], tolerance=tolerance).delta(eps)
                with mp.workdps(R.DPS):
                    norm = mp.sqrt(mp.fsum(mp.mpf(x) ** 2 for x in thetas))
                    ref = float(mp.ncdf(norm / 2 - eps / norm) - mp.exp(eps) * mp.ncdf(-norm / 2 - eps / norm))
            elif kind == "ed":
                _, e0, d0, t, eps = point
                s = bounds.compose([(bounds.EpsDelta(e0, d0), t)], tolerance=tolerance).delta(eps)
                ref = R.eps_delta_composed(eps, e0, d0, t)
            else:
                _, theta, q, delta = point
                comp = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=theta), q), 1)], tolerance=tolerance)
                s = comp.epsilon(delta)

                def exact(e):
                    return max(R.subsampled_gaussian_delta(e, theta, q, "remove"),
                               R.subsampled_gaussian_delta(e, theta, q, "add") if q < 1 else 0.0)
                bad = []
                if not (0.0 <= s.lower <= s.upper) or math.isnan(s.upper):
                    bad.append(f"ordering {s}")
                if math.isfinite(s.upper) and not exact(s.upper) <= delta:
                    bad.append(f"exact δ({s.upper!r}) = {exact(s.upper)!r} > δ")
                if s.lower > 0 and not exact(s.lower) > delta:
                    bad.append(f"exact δ({s.lower!r}) = {exact(s.lower)!r} ≤ δ")
                return ("fail", "; ".join(bad)) if bad else ("ok", f"ε ∈ {tuple(s)}")
    except ValueError as exc:
        return "refused", str(exc)[:120]
    except Exception as exc:  # noqa: BLE001 — a raw exception is itself a failure
        return "fail", f"{type(exc).__name__}: {exc}"
    lo, hi = s
    if not (lo <= ref <= hi) or math.isnan(lo) or math.isnan(hi):
        return "fail", f"exact {ref!r} outside [{lo!r}, {hi!r}]"
    warned = any("compose:" in str(w.message) for w in caught)
    if lo == 0.0 and ref > 1e-6 and not warned:  # silently useless lower side
        return "fail", f"lower side 0 without a warning, exact {ref!r}"
    # delta's contract: the relative width is within the tolerance, or a warning says it is not (the refinement
    # limit, or a point within 10³ of the grid's floor, where the grid is not refined: stop 31)
    noted = warned or any(str(w.message).startswith(UNRESOLVED_WARNING) for w in caught)
    if hi < 1 and hi - lo > tolerance * hi and not noted:
        return "fail", f"[{lo!r}, {hi!r}] is wider than the tolerance {tolerance!r} without a warning"
    return "ok", f"[{lo!r}, {hi!r}] ∋ {ref!r}"


def check_adversarial(points=None, tolerance: float = 1e-2) -> Outcome:
    points = points if points is not None else adversarial_points(240 if full() else 12)
    fails, refused = [], 0
    for point in points:
        status, detail = _adversarial_one(point, tolerance)
        if status == "fail":
            fails.append(f"{point!r}: {detail}")
        refused += status == "refused"
    if fails:
        return Outcome(False, f"{len(fails)}/{len(points)} failures: " + " | ".join(fails[:5]))
    return Outcome(True, f"{len(points)} seeded points over the whole domain (θ 1e-3…1e3, rate 1e-12…1, ε 0…1e4, "
                         f"T 1…1e6): every sandwich contains the exact value, and δ's is within the tolerance or "
                         f"says it is not; {refused} refused with a ValueError")


check("adversarial", "C1", name="C1 adversarial search over the whole domain (exact references)")(check_adversarial)
