"""Checks of SPEC T6 (Poisson subsampling under substitution, profile level, *derived*) beyond the symbolic ones.

- accuracy: the generic checks of ``proofs_checks.accuracy`` run on a grid registered here (ε ∈ {0 … 1e4, inf},
  γ ∈ {0, 5e-324 … 1}, δ_r, δ_s ∈ {0, 1e-300 … 1}) against the SPEC expression in mpmath (the limit
  γ[(1 − γ)δ_r + γδ_s] at ε = inf, where the SPEC form is inf − inf);
- brute force: finite mechanisms in exact rationals.  The base mechanism releases K(b(S), ·), K a 3-row kernel
  with rational entries, b(S) = [z ∈ S] − [z' ∈ S] ∈ {−1, 0, 1}.  Its add/remove and substitute profiles at
  F = e^ε are computed by enumerating every neighbouring pair of datasets of a small universe ({z, z'} or
  {z, z', r}); the substitute pair x = D + z, x' = D + z' is Poisson-subsampled at rate γ (every kept subset
  enumerated) and the exact hockey-stick divergence at e^{ε'} = 1 + γ(F − 1), both directions, is compared with
  T6's δ'.  Also checked exactly: the advanced-joint-convexity identity T6's derivation rests on, and that T6 is
  never worse than γ·max(δ_r, δ_s).  Reported (not required): attainment, and the comparison with two other
  routes — γ·δ_s(ε') (joint convexity without amplification) and T1 + group privacy of the two add/remove
  steps of a substitution.
- properties: monotone in δ_r, δ_s; in γ when δ_s ≥ δ_r; reductions γ = 0, 1 and δ_r = δ_s (T1) on the library.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np

import bounds

from . import points as exact_points
from . import accuracy, references
from .brute_force import array_route, float_above, hockey_stick, log_above, mixture
from .framework import Outcome, check

# ---- accuracy grid and reference ----------------------------------------------------------------------

_PROFILE_VALUES = [0.0, 1e-300, 1e-50, 1e-6, 0.1, 0.5, 1.0]
_RANDOM = 300


def grid(output: str, rng: np.random.Generator) -> list[tuple]:
    epsilons = accuracy.EPSILONS + [math.inf]
    if output == "epsilon":
        points = [(e, g) for e in epsilons for g in accuracy.RATES]
        e = accuracy._log_uniform(rng, 1e-300, 1e4, _RANDOM)
        g = accuracy._log_uniform(rng, 1e-300, 1.0, _RANDOM)
        return points + list(zip(e.tolist(), g.tolist()))
    points = [(e, g, dr, ds) for e in epsilons for g in accuracy.RATES
              for dr in _PROFILE_VALUES for ds in _PROFILE_VALUES]
    columns = [accuracy._log_uniform(rng, 1e-300, 1e4, _RANDOM)] + \
              [accuracy._log_uniform(rng, 1e-300, 1.0, _RANDOM) for _ in range(3)]
    return points + list(zip(*(c.tolist() for c in columns)))


def reference(output: str):
    def epsilon_ref(epsilon, rate):
        if math.isinf(epsilon):
            return mp.inf if rate > 0 else mp.mpf(0)
        return references.spec_value("T6", "epsilon", epsilon, rate)

    def delta_ref(epsilon, rate, delta_remove, delta_substitute):
        if math.isinf(epsilon):  # the limit ε → ∞ (a proven reduction of the record)
            with mp.workdps(references.working_digits(rate, delta_remove, delta_substitute)):
                g = mp.mpf(rate)
                return g * ((1 - g) * mp.mpf(delta_remove) + g * mp.mpf(delta_substitute))
        # Where a sympy-proven reduction of the record makes the SPEC form an exact double (γ = 1 → δ_s;
        # δ_r = δ_s = δ → γδ, exact at 60 digits), use it: the mpmath SPEC form carries a relative error of
        # ~10^-60 (log(e^ε) − ε ≠ 0 in finite precision), which would flag the kernel's exact branches.
        if rate == 1.0:
            return mp.mpf(delta_substitute)
        if delta_remove == delta_substitute:
            with mp.workdps(80):
                return mp.mpf(rate) * mp.mpf(delta_substitute)
        return references.spec_value("T6", "delta", epsilon, rate, delta_remove, delta_substitute)

    return epsilon_ref if output == "epsilon" else delta_ref


accuracy.register(("T6",), grid=grid, reference=reference)


# ---- brute force -------------------------------------------------------------------------------------

FS = [Fraction(2), Fraction(3), Fraction(7, 2), Fraction(11)]
GAMMAS = [Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), Fraction(1)]
B_VALUES = (-1, 0, 1)


def _normalise(rows: dict) -> dict:
    out = {}
    for b, row in rows.items():
        total = sum(row.values())
        out[b] = {y: Fraction(v) / total for y, v in row.items() if v}
    return out


def kernels() -> list[tuple[str, dict]]:
    """Kernels K(b, ·) for b ∈ {−1, 0, 1}, rational entries (noise levels c = 2, 3)."""
    ks = []
    for c in (2, 3):
        ks.append((f"staircase c={c}", _normalise({b: {y: Fraction(1, c ** abs(y - b)) for y in B_VALUES}
                                                   for b in B_VALUES})))
        ks.append((f"3-ary RR c={c}", _normalise({b: {y: (c if y == b else 1) for y in B_VALUES} for b in B_VALUES})))
        # depends on [z ∈ S] only (ignores z'): substitute pairs behave as add/remove pairs
        ks.append((f"RR on [z in S] c={c}", _normalise({b: {y: (c if y == int(b == 1) else 1) for y in (0, 1)}
                                                        for b in B_VALUES})))
        # depends on |b| only: the two substituted records are indistinguishable (δ_s small, δ_r not)
        ks.append((f"RR on |b| c={c}", _normalise({b: {y: (c if y == abs(b) else 1) for y in (0, 1)}
                                                   for b in B_VALUES})))
    # with a revealing output (a δ-like atom) for b = ±1
    def reveal(b):
        row = {y: Fraction(1, 2 ** abs(y - b)) for y in B_VALUES}
        if b:
            row[("reveal", b)] = Fraction(1, 5)
        return row
    ks.append(("staircase + reveal", _normalise({b: reveal(b) for b in B_VALUES})))
    # z and z' nearly indistinguishable (at F = 2 their divergence is 0 both ways) but far from "neither": the
    # δ_r term of T6 is needed here — γ·δ_s(ε) alone is exceeded (exact δ > 0 = γ·δ_s at F = 2)
    ks.append(("near twins", {1: {0: Fraction(7, 10), 1: Fraction(3, 10)}, -1: {0: Fraction(2, 5), 1: Fraction(3, 5)},
                              0: {1: Fraction(1)}}))
    rng = np.random.default_rng(6)
    for i in range(4):  # seeded random kernels, 3 or 4 outputs, entries 1..9
        width = 3 + i % 2
        ks.append((f"random #{i}", _normalise({b: {y: int(v) for y, v in enumerate(rng.integers(1, 10, width))}
                                               for b in B_VALUES})))
    return ks


def b_of(S) -> int:
    return int("z" in S) - int("z'" in S)


def law(K: dict, S) -> dict:
    return K[b_of(S)]


def _mp(x: Fraction) -> mp.mpf:
    return mp.mpf(x.numerator) / x.denominator


def profiles(K: dict, universe: tuple, G) -> tuple:
    """(δ_r, δ_s) at e^ε = G: the largest H_G over ordered add/remove and substitute pairs of datasets ⊆ universe.

    Every pair of datasets is enumerated; a law is K(b(S), ·) with b(S) ∈ {−1, 0, 1}, so each divergence is
    one of at most 9 (row, row) values, computed once (rows converted to mpf once at an irrational G, at the
    caller's precision: the numbers a term-by-term sum would form) — the maxima are the same."""
    subsets = [frozenset(c) for r in range(len(universe) + 1) for c in itertools.combinations(universe, r)]
    exact = isinstance(G, Fraction)
    if exact:
        rows = K
        zero = Fraction(0)
    else:
        rows = {b: {o: _mp(v) for o, v in row.items()} for b, row in K.items()}
        zero = mp.mpf(0)
    cache: dict = {}

    def h(S1, S2):
        key = (b_of(S1), b_of(S2))
        if key not in cache:
            P, Q = rows[key[0]], rows[key[1]]
            cache[key] = hockey_stick(P, Q, G) if exact else \
                mp.fsum(max(P.get(o, zero) - G * Q.get(o, zero), 0) for o in set(P) | set(Q))
        return cache[key]

    dr = ds = zero
    for S in subsets:
        rest = [w for w in universe if w not in S]
        for w in rest:
            dr = max(dr, h(S, S | {w}), h(S | {w}, S))
        for w, w2 in itertools.permutations(rest, 2):
            ds = max(ds, h(S | {w}, S | {w2}))
    return dr, ds


def subsampled(K: dict, records: tuple, gamma: Fraction) -> dict:
    """Output law of K(b(S)) with S a Poisson sample (rate γ) of ``records``, every kept subset enumerated."""
    weighted = []
    for kept in itertools.product((0, 1), repeat=len(records)):
        w = math.prod((gamma if k else 1 - gamma) for k in kept)
        if w:
            weighted.append((w, law(K, {r for r, k in zip(records, kept) if k})))
    return mixture(weighted)


def t6_exact(F: Fraction, gamma: Fraction, dr, ds) -> Fraction:
    """SPEC T6 in rationals: γ[(1 − β)δ_r + βδ_s], β = e^{ε'}/e^ε."""
    beta = (1 + gamma * (F - 1)) / F
    return gamma * ((1 - beta) * dr + beta * ds)


UNIVERSES = (("z", "z'"), ("z", "z'", "r"))


def brute_force_cases(bound=t6_exact):
    """Yield one record per (universe, D, kernel, F, γ): the exact divergence and every bound/route."""
    for universe, (name, K), F in itertools.product(UNIVERSES, kernels(), FS):
        dr, ds = profiles(K, universe, F)
        others = [w for w in universe if w not in ("z", "z'")]
        for D, gamma in itertools.product([()] + [(w,) for w in others], GAMMAS):
            G = 1 + gamma * (F - 1)
            P, Q = subsampled(K, D + ("z",), gamma), subsampled(K, D + ("z'",), gamma)
            exact = max(hockey_stick(P, Q, G), hockey_stick(Q, P, G))
            beta = G / F
            ajc = gamma * max(hockey_stick(K[1], mixture([(1 - beta, K[0]), (beta, K[-1])]), F),
                              hockey_stick(K[-1], mixture([(1 - beta, K[0]), (beta, K[1])]), F))
            yield dict(universe=universe, D=D, kernel=name, K=K, F=F, gamma=gamma, G=G, dr=dr, ds=ds,
                       exact=exact, bound=bound(F, gamma, dr, ds), ajc=ajc)


def _route_group(K, universe, F, gamma) -> mp.mpf:
    """T1 + group privacy (two add/remove steps): (1 + e^{ε'/2})·γ·δ_r(e₁) with A_γ(e₁) = ε'/2, 50 digits."""
    with mp.workdps(50):
        g = _mp(gamma)
        half = mp.sqrt(1 + g * (_mp(F) - 1))
        e1 = 1 + (half - 1) / g
        dr_e1, _ = profiles(K, universe, e1)
        return (1 + half) * g * dr_e1


@check("brute-force", "T6", name="T6 exact Poisson-subsampled substitute pairs (rationals): δ ≤ T6, attainment, "
                                 "other routes")
def t6_brute_force() -> Outcome:
    return evaluate_brute_force()


def evaluate_brute_force(bound=t6_exact, library: bool = True) -> Outcome:
    """The body of the T6 brute force; ``bound`` can be replaced to show that the check catches a wrong bound."""
    n = attained = worse_than_a = worse_than_b = two_profiles = attained_two = 0
    max_ratio = Fraction(0)
    worst_a = worst_b = None
    routes: dict = {}
    for c in brute_force_cases(bound):
        n += 1
        label = (f"universe {c['universe']}, D={c['D']}, kernel {c['kernel']}, F={c['F']}, γ={c['gamma']}: "
                 f"δ_r={c['dr']}, δ_s={c['ds']}")
        if c["exact"] > c["bound"]:
            return Outcome(False, f"T6 VIOLATED: exact δ {c['exact']} ({float(c['exact']):.6g}) > bound "
                                  f"{c['bound']} ({float(c['bound']):.6g}) at {label}",
                           {"instance": label, "exact": float(c["exact"]), "bound": float(c["bound"])})
        if c["ajc"] != c["exact"]:
            return Outcome(False, f"advanced joint convexity identity fails: γ·H_F(μ₁‖(1−β)μ₀+βμ₁') = {c['ajc']} "
                                  f"≠ exact {c['exact']} at {label}")
        if bound is t6_exact and c["bound"] > c["gamma"] * max(c["dr"], c["ds"]):
            return Outcome(False, f"T6 above γ·max(δ_r, δ_s) at {label}")
        attained += c["exact"] == c["bound"]
        if c["dr"] != c["ds"] and c["gamma"] < 1:  # where T6 is not a T1-like γδ
            two_profiles += 1
            attained_two += c["exact"] == c["bound"]
        if c["bound"]:
            max_ratio = max(max_ratio, c["exact"] / c["bound"])
        # route A: joint convexity at ε' without amplification, γ·δ_s(ε'); routes A and B depend on the
        # instance through (kernel, universe, F, γ) only, not D: each computed once
        routes_key = (c["kernel"], c["universe"], c["F"], c["gamma"])
        if routes_key not in routes:
            routes[routes_key] = (c["gamma"] * profiles(c["K"], c["universe"], c["G"])[1],
                                  _route_group(c["K"], c["universe"], c["F"], c["gamma"]))
        route_a, route_b = routes[routes_key]
        if c["bound"] > route_a:
            worse_than_a += 1
            gap = float(c["bound"] - route_a)
            if worst_a is None or gap > worst_a[0]:
                worst_a = (gap, label, float(c["bound"]), float(route_a), float(c["exact"]))
        if _mp(c["bound"]) > route_b * (1 + mp.mpf(10) ** -40):
            worse_than_b += 1
            worst_b = worst_b or (label, float(c["bound"]), float(route_b))
        if library:
            g = array_route(bounds.poisson_substitution, log_above(c["F"]), float_above(c["dr"]),
                            float_above(c["ds"]), float_above(c["gamma"]))
            with mp.workdps(60):
                eps_ok = mp.mpf(g.epsilon) >= mp.log(mp.mpf(c["G"].numerator) / c["G"].denominator)
            if not eps_ok or Fraction(g.delta) < c["bound"]:
                return Outcome(False, f"library {g} below the exact (ln {c['G']}, {c['bound']}) at {label}")
    detail = (f"{n} instances (2 universes, {len(kernels())} kernels, F ∈ {[str(f) for f in FS]}, "
              f"γ ∈ {[str(g) for g in GAMMAS]}): exact δ ≤ T6 in every one, the advanced-joint-convexity identity "
              f"holds exactly, T6 ≤ γ·max(δ_r, δ_s); T6 attained in {attained}/{n}, of which "
              f"{attained_two}/{two_profiles} with δ_r ≠ δ_s and γ < 1 (max exact/T6 = {float(max_ratio):.6g}); "
              f"T6 worse than γ·δ_s(ε') in {worse_than_a}/{n}"
              + (f" (largest gap {worst_a[0]:.4g} at {worst_a[1]}: T6 {worst_a[2]:.6g}, γδ_s(ε') {worst_a[3]:.6g}, "
                 f"exact {worst_a[4]:.6g})" if worst_a else "")
              + f"; T6 worse than T1 + group-of-2 in {worse_than_b}/{n}"
              + (f" (first: {worst_b[0]}: T6 {worst_b[1]:.6g} vs {worst_b[2]:.6g})" if worst_b else "")
              + ("; library (ε', δ') ≥ exact T6 in each" if library else ""))
    return Outcome(True, detail, {"instances": n, "attained": attained, "two_profile_instances": two_profiles,
                                  "attained_two_profiles": attained_two, "max_ratio": float(max_ratio),
                                  "worse_than_joint_convexity": worse_than_a, "worse_than_group": worse_than_b})


# ---- properties ------------------------------------------------------------------------------------------

EPS = np.concatenate([[0.0], exact_points.logspace(-300, 4, 60), [np.inf]])
RATES = np.concatenate([[0.0], exact_points.logspace(-300, 0, 60)])
DELTAS = np.concatenate([[0.0], exact_points.logspace(-300, 0, 40)])
SLACK = 16 * 2.0 ** -52


def _nondecreasing(values: np.ndarray, axis: int) -> bool:
    steps = np.diff(values, axis=axis)
    return bool(np.all(steps >= -SLACK * np.abs(np.delete(values, 0, axis=axis))))


@check("property", "T6", name="T6 monotone in δ_r, δ_s (and in γ when δ_s ≥ δ_r); γ = 0, 1 and δ_r = δ_s = T1; "
                              "between γ·min and γ·max of the profiles")
def t6_properties() -> Outcome:
    notes = []
    g_r = bounds.poisson_substitution(EPS[:, None, None], DELTAS[None, :, None], 0.3, RATES[None, None, :])
    g_s = bounds.poisson_substitution(EPS[:, None, None], 0.3, DELTAS[None, :, None], RATES[None, None, :])
    ok = _nondecreasing(g_r.delta, 1) and _nondecreasing(g_s.delta, 1)
    notes.append(f"monotone in δ_r and δ_s: {ok}")
    dr = DELTAS[None, :, None]
    g_up = bounds.poisson_substitution(EPS[:, None, None], dr, np.minimum(1.0, 2 * dr), RATES[None, None, :])
    mono_rate = _nondecreasing(g_up.delta, 2)
    notes.append(f"monotone in γ for δ_s = 2δ_r ≥ δ_r: {mono_rate}")
    edge = bounds.poisson_substitution(EPS[:, None], 0.2, 0.7, np.array([0.0, 1.0])[None, :])
    limits = bool(np.all(edge.delta[:, 0] == 0) and np.all(edge.epsilon[:, 0] == 0) and np.all(edge.delta[:, 1] == 0.7))
    notes.append(f"γ = 0 → (0, 0), γ = 1 → δ_s exactly: {limits}")
    t6 = bounds.poisson_substitution(EPS[:, None], 1e-5, 1e-5, RATES[None, :])
    t1 = bounds.poisson_subsampling(EPS[:, None], 1e-5, RATES[None, :])
    same = bool(np.array_equal(t6.delta, t1.delta) and np.array_equal(t6.epsilon, t1.epsilon))
    notes.append(f"δ_r = δ_s equals T1 bit for bit: {same}")
    lo_hi = bounds.poisson_substitution(EPS[:, None, None], 0.01, DELTAS[None, :, None], RATES[None, None, :])
    lo = RATES[None, None, :] * np.minimum(0.01, DELTAS[None, :, None])
    hi = RATES[None, None, :] * np.maximum(0.01, DELTAS[None, :, None])
    between = bool(np.all(lo_hi.delta >= lo * (1 - SLACK)) and np.all(lo_hi.delta <= hi * (1 + SLACK) + 1e-320))
    notes.append(f"γ·min(δ_r, δ_s) ≤ δ' ≤ γ·max(δ_r, δ_s) (within rounding): {between}")
    passed = ok and mono_rate and limits and same and between
    return Outcome(passed, "; ".join(notes))
