"""Checks of SPEC T17 and T18 (Roburin, Pinot, Scornet, arXiv:2602.01928): missing data as amplification.

- T17, exact rationals: (ε, δ)-randomized response on the observed value of the differing record, observed
  with probability p* (MCAR): the exact hockey-stick divergence at ε' = A_{p*}(ε) equals p*·δ (bound attained,
  ε' cannot be lowered); then a MAR mechanism (d = 2 features, n = 2 records; mask probabilities depend on
  the values they leave observed) with *every* neighbouring pair and many bit-valued algorithms.
- T18, 50-digit mpmath on the continuous mechanisms: the Laplace mechanism on a linear FWL query with
  unequal constants, mixed over every mask with at most ⌊ρd⌋ observed features (the exact pure-DP ε of a
  1-D Laplace mixture is attained at a component centre or at ±∞: between centres the likelihood ratio is
  a Möbius function of e^{2t/b}); the classical Gaussian mechanism, with the exact δ at ε₀' by integrating
  the hockey-stick divergence between the roots of p − e^{ε₀'}q.
- Corollary 4.6: min((e − 1)p*, 1)·ρ·ε ≥ ε₀' on a dense grid of its domain (ρε ≤ 1), and a counterexample
  beyond it (the public function refuses those inputs).
- Table 1 helpers: the FWL inequality ‖f(z̃) − f(z̃')‖ ≤ Σ_j L_j |z̃_j − z̃'_j| on random and extreme
  incomplete records, in exact rationals.
- Property sweeps: monotonicity, reductions (ratio = 1 is T17, p* = 1 and ratio = 1 is the identity).
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from fractions import Fraction

import mpmath as mp
import numpy as np

import bounds

from . import points as exact_points
from .brute_force import (
    FS,
    _exact_epsilon_ok,
    array_route,
    float_above,
    hockey_stick,
    log_above,
    mixture,
    randomized_response,
)
from .framework import Outcome, check
from .refstore import memo
from .properties import _monotone_outcome

DELTAS = [Fraction(0), Fraction(1, 100), Fraction(1, 3)]
P_STARS = [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10), Fraction(1)]


def _both_ways(P: dict, Q: dict, G) -> Fraction:
    return max(hockey_stick(P, Q, G), hockey_stick(Q, P, G))


# --------------------------------------------------------------------------------------------------------
# T17: exact brute force
# --------------------------------------------------------------------------------------------------------

def mcar_rr_outputs(F: Fraction, delta: Fraction, p_star: Fraction, value: int, other: int) -> dict:
    """Two one-feature records (the differing one first), each observed with probability p* (MCAR);
    the algorithm is (ln F, δ)-randomized response on 'the first record is observed and equals 1'."""
    weighted = []
    for seen0, seen1 in itertools.product([0, 1], repeat=2):
        w = (p_star if seen0 else 1 - p_star) * (p_star if seen1 else 1 - p_star)
        bit = int(seen0 == 1 and value == 1)  # the other record (``other``) does not move the output
        weighted.append((w, randomized_response(F, delta, bit)))
    return mixture(weighted)


@check("brute-force", "T17", name="T17 randomized response on the observed value, MCAR (exact)")
def t17_mcar_brute_force() -> Outcome:
    cases, worst = 0, Fraction(0)
    for F, delta, p in itertools.product(FS, DELTAS, P_STARS):
        G = 1 + p * (F - 1)
        bound = p * delta
        H = Fraction(0)
        for other in (0, 1):
            P, Q = mcar_rr_outputs(F, delta, p, 1, other), mcar_rr_outputs(F, delta, p, 0, other)
            H = max(H, _both_ways(P, Q, G))
            if H > bound:
                return Outcome(False, f"exact δ {H} > p*δ = {bound} at F={F}, δ={delta}, p*={p}")
            if p > 0 and F > 1 and _both_ways(P, Q, G - Fraction(1, 10**6)) <= bound:
                return Outcome(False, f"ε' not tight at F={F}, δ={delta}, p*={p}")
        if H != bound:
            return Outcome(False, f"not attained: exact δ {H} < p*δ = {bound} at F={F}, δ={delta}, p*={p}")
        g = array_route(bounds.missing_data, log_above(F), float_above(delta), float(p))
        if not _exact_epsilon_ok(g.epsilon, G) or Fraction(g.delta) < bound:
            return Outcome(False, f"library {g} below the exact (ln {G}, {bound}) at p*={p}")
        if bound:
            worst = max(worst, Fraction(g.delta) / bound)
        cases += 1
    return Outcome(True, f"{cases} instances (n = 2, MCAR): exact δ = p*δ attained at ε' = A_p*(ε), ε' tight; "
                         f"library ≥ exact (max δ ratio {float(worst):.17g})")


# MAR mask law for one record z = (z1, z2) ∈ {0, 1}²: P{nothing observed} = 1/4 for every z (so p* = 3/4),
# P{only z1 observed} = a(z1), P{only z2 observed} = b(z2), P{both observed} = the rest.
_MAR_Q = Fraction(1, 4)
_MAR_A = {0: Fraction(1, 8), 1: Fraction(1, 4)}
_MAR_B = {0: Fraction(1, 3), 1: Fraction(1, 6)}
NA = None


def mar_masks(z: tuple[int, int]) -> list[tuple[Fraction, tuple]]:
    """(probability, incomplete record) pairs: MAR, each mask's probability depends only on what it shows."""
    a, b = _MAR_A[z[0]], _MAR_B[z[1]]
    return [(_MAR_Q, (NA, NA)), (a, (z[0], NA)), (b, (NA, z[1])), (1 - _MAR_Q - a - b, z)]


def mar_outputs(F, delta, g, records) -> dict:
    """Law of RR_{F,δ}(g(z̃₁, z̃₂)) with both records masked independently by ``mar_masks``."""
    return _rr_of_bit_law(F, delta, mar_bit_law(g, records))


def mar_bit_law(g, records) -> Fraction:
    """P{g(z̃₁, z̃₂) = 1} over every pair of masks of ``mar_masks`` (exact): the law of RR∘g is the mixture
    of RR(0) and RR(1) with these weights, Σ over the 16 mask pairs of w₁w₂·RR(g(z̃₁, z̃₂)) regrouped by the
    bit — the same exact rationals, with g evaluated once per mask pair instead of once per (ε, δ) too."""
    return sum((w for w, r1, r2 in _mask_pairs(tuple(records), mar_masks) if g(r1, r2)), Fraction(0))


@functools.lru_cache(maxsize=None)
def _mask_pairs(records: tuple, masks) -> tuple:
    """(w₁w₂, z̃₁, z̃₂) for every pair of masks of the two records (``masks`` is part of the key: a test may
    substitute the mask law)."""
    return tuple((w1 * w2, r1, r2) for (w1, r1), (w2, r2) in itertools.product(*(masks(z) for z in records)))


def _rr_of_bit_law(F, delta, one: Fraction) -> dict:
    return mixture([(1 - one, randomized_response(F, delta, 0)), (one, randomized_response(F, delta, 1))])


STATES = [(u, v) for u in (0, 1, NA) for v in (0, 1, NA)]


def _random_bit_functions(count: int, seed: int) -> list:
    rng = random.Random(seed)
    tables = [{(s, t): rng.randint(0, 1) for s in STATES for t in STATES} for _ in range(count)]
    return [lambda r1, r2, tb=tb: tb[(r1, r2)] for tb in tables]


@check("brute-force", "T17", name="T17 MAR masks (d = 2, n = 2), every neighbour pair, 40 algorithms (exact)")
def t17_mar_brute_force() -> Outcome:
    """Any bit-valued g makes RR∘g (ε, δ)-DP under substitution on incomplete data; T17 must hold for each."""
    p_star = 1 - _MAR_Q
    structured = [
        lambda r1, r2: int(1 in r1),  # "the first record shows a 1": attains p*δ for (1,1) vs (0,0)
        lambda r1, r2: int(r1[0] == 1),
        lambda r1, r2: int(r1 == (NA, NA)),
        lambda r1, r2: int((r1[1] == 1) != (r2[0] == 1)),
    ]
    algorithms = structured + _random_bit_functions(36, 20260211)
    records = list(itertools.product((0, 1), repeat=2))
    attained, pairs = Fraction(0), 0
    # P{g = 1} per (algorithm, record, other record): it does not depend on (ε, δ), so each output law below
    # is RR_{F,δ} mixed by it (exact), and the divergence of two laws depends on their two weights only
    ones = [{(z, other): mar_bit_law(g, (z, other)) for z in records for other in records} for g in algorithms]
    for F, delta in itertools.product(FS[:3], DELTAS[1:]):
        G = 1 + p_star * (F - 1)
        bound = p_star * delta
        laws: dict = {}      # P{g = 1} → the law of RR∘g (many algorithms and records share a weight)
        divergences: dict = {}  # (P{g(z) = 1}, P{g(z') = 1}) → exact δ between the two laws (the same value)
        for one in ones:
            for z, z2, other in itertools.product(records, records, records):
                if z == z2:
                    continue
                pair = (one[z, other], one[z2, other])
                if pair not in divergences:
                    for w in pair:
                        if w not in laws:
                            laws[w] = _rr_of_bit_law(F, delta, w)
                    divergences[pair] = _both_ways(laws[pair[0]], laws[pair[1]], G)
                H = divergences[pair]
                if H > bound:
                    return Outcome(False, f"exact δ {H} > p*δ = {bound} at F={F}, δ={delta}, z={z}, z'={z2}")
                attained = max(attained, H / bound)
                pairs += 1
    ok = attained == 1
    return Outcome(ok, f"{pairs} (neighbour pair, algorithm, ε, δ) cases under a MAR (not MCAR) mechanism: "
                       f"exact δ ≤ p*δ at A_p*(ε) in all; max δ/(p*δ) = {attained} (1 = attained)")


# --------------------------------------------------------------------------------------------------------
# T18: Laplace and Gaussian mechanisms on FWL queries, 50 digits
# --------------------------------------------------------------------------------------------------------

def _masks_at_most(d: int, k: int) -> list[tuple[int, ...]]:
    return [s for size in range(1, k + 1) for s in itertools.combinations(range(d), size)]


@memo("missing_checks.laplace_mixture_epsilon", precision=True, digits="50 (the caller's)")
def laplace_mixture_epsilon(P: list, Q: list, b) -> mp.mpf:
    """Exact sup_t ln(p(t)/q(t)) for 1-D Laplace mixtures P, Q = [(weight, centre)], scale b.

    Between consecutive centres each density is α e^{t/b} + β e^{−t/b}, so p/q is a Möbius function of
    e^{2t/b} and monotone: the supremum is at a centre or at t → ±∞ (where p/q tends to a constant)."""
    dens = lambda mix, t: mp.fsum(w * mp.exp(-abs(t - c) / b) for w, c in mix)  # noqa: E731
    centres = sorted({c for _, c in P} | {c for _, c in Q})
    values = [mp.log(dens(P, t) / dens(Q, t)) for t in centres]
    plus = mp.fsum(w * mp.exp(c / b) for w, c in P) / mp.fsum(w * mp.exp(c / b) for w, c in Q)
    minus = mp.fsum(w * mp.exp(-c / b) for w, c in P) / mp.fsum(w * mp.exp(-c / b) for w, c in Q)
    return max(values + [mp.log(plus), mp.log(minus)])


COEFFS = (3, 2, 1)  # f(z̃) = 3z̃₁ + 2z̃₂ + z̃₃ (missing as 0): linear, FWL under ℓ1 with L = (3, 2, 1)
RHO = Fraction(2, 3)  # at most 2 of the 3 features observed: r = (3 + 2)/6 = 5/6


def _masked_query_mixture(z, p_star, masks, scale=1):
    """[(weight, f(z̃))]: fully masked with probability 1 − p*, else a uniformly random mask from ``masks``."""
    mix = [(1 - p_star, mp.mpf(0))]
    for m in masks:
        mix.append((p_star / len(masks), mp.mpf(sum(COEFFS[j] * z[j] for j in m) * scale)))
    return mix


@check("brute-force", "T18", name="T18 Laplace mechanism, linear FWL query L = (3, 2, 1), ρ = 2/3 (50 digits)")
def t18_laplace() -> Outcome:
    with mp.workdps(50):
        ratio = bounds.fwl_ratio(list(COEFFS), RHO)
        if ratio != Fraction(5, 6):
            return Outcome(False, f"fwl_ratio gave {ratio}, expected 5/6")
        masks = _masks_at_most(3, 2)
        extremes = list(itertools.product((-1, 1), repeat=3))
        worst_gap, cases = mp.mpf("inf"), 0
        for eps, p in itertools.product(["0.1", "1", "4"], ["0", "0.2", "0.9", "1"]):
            eps_m, p_m = mp.mpf(eps), mp.mpf(p)
            b = mp.mpf(2 * sum(COEFFS)) / eps_m  # scale C₁/ε, C₁ = 2B Σ L_j with B = 1
            exact = max(laplace_mixture_epsilon(_masked_query_mixture(z, p_m, masks),
                                                _masked_query_mixture(z2, p_m, masks), b)
                        for z in extremes for z2 in extremes if z != z2)
            bound = mp.log(1 + p_m * (mp.exp(mp.mpf(5) / 6 * eps_m) - 1))
            g = bounds.missing_data_laplace(float(eps), float(p), ratio)
            if exact > bound + mp.mpf(10) ** -40 or mp.mpf(g.epsilon) < exact or g.delta != 0:
                return Outcome(False, f"ε={eps}, p*={p}: exact {mp.nstr(exact, 20)}, T18 {mp.nstr(bound, 20)}, "
                                      f"library {g}")
            worst_gap = min(worst_gap, bound - exact)
            cases += 1
        # attained: deterministic mask {1, 2} (trivially MAR), p* = 1: exact ε = (5/6)ε
        eps_m = mp.mpf(1)
        b = mp.mpf(12)
        mix = lambda z: [(mp.mpf(1), mp.mpf(COEFFS[0] * z[0] + COEFFS[1] * z[1]))]  # noqa: E731
        tight = laplace_mixture_epsilon(mix((1, 1, 1)), mix((-1, -1, -1)), b)
        attained = abs(tight - mp.mpf(5) / 6 * eps_m) < mp.mpf(10) ** -40
    return Outcome(attained, f"{cases} (ε, p*) over all 56 extreme neighbour pairs and every mask with ≤ 2 of 3 "
                             f"features: exact ε ≤ T18 ≤ library (smallest slack {mp.nstr(worst_gap, 3)}); "
                             f"mask {{1,2}} at p* = 1 attains rε: {attained}")


@memo("missing_checks.gaussian_mixture_delta", precision=True, digits="30 (the caller's)")
def gaussian_mixture_delta(P: list, Q: list, sigma, G) -> mp.mpf:
    """∫ (p − G q)₊ for 1-D Gaussian mixtures, from the CDFs between the sign changes of p − Gq."""
    pdf = lambda mix, t: mp.fsum(w * mp.npdf(t, c, sigma) for w, c in mix)  # noqa: E731
    cdf = lambda mix, t: mp.fsum(w * mp.ncdf((t - c) / sigma) for w, c in mix)  # noqa: E731
    h = lambda t: pdf(P, t) - G * pdf(Q, t)  # noqa: E731
    lo = min(c for _, c in P + Q) - 40 * sigma
    hi = max(c for _, c in P + Q) + 40 * sigma
    grid = [lo + (hi - lo) * i / 4000 for i in range(4001)]
    roots = []
    for a, c in zip(grid, grid[1:]):
        if h(a) * h(c) < 0:
            roots.append(mp.findroot(h, (a, c), solver="anderson"))
    edges = [mp.ninf] + roots + [mp.inf]
    total = mp.mpf(0)
    for a, c in zip(edges, edges[1:]):
        mid = (max(a, lo) + min(c, hi)) / 2
        if h(mid) > 0:
            total += (cdf(P, c) - cdf(P, a)) - G * (cdf(Q, c) - cdf(Q, a))
    return total


@check("brute-force", "T18", name="T18 classical Gaussian, FWL sum of 2 features, ρ = 1/2 (50 digits)")
def t18_gaussian() -> Outcome:
    """f(z̃) = z̃₁ + z̃₂ on [−1, 1]², L = (1, 1), C₂ = 4; at most one feature observed (r = 1/2)."""
    with mp.workdps(30):
        details = []
        for eps, delta, p in [("1", "1e-5", "0.5"), ("0.5", "1e-3", "1"), ("0.2", "0.1", "0.05")]:
            eps_m, delta_m, p_m = mp.mpf(eps), mp.mpf(delta), mp.mpf(p)
            c = mp.sqrt(2 * mp.log(mp.mpf("1.25") / delta_m)) * (1 + mp.mpf(10) ** -12)
            sigma = 4 * c / eps_m
            mix = lambda s: [(1 - p_m, mp.mpf(0)), (p_m, mp.mpf(s))]  # noqa: E731  (either single feature)
            eps0 = eps_m / 2
            G = 1 + p_m * (mp.exp(eps0) - 1)
            exact = max(gaussian_mixture_delta(mix(1), mix(-1), sigma, G),
                        gaussian_mixture_delta(mix(-1), mix(1), sigma, G))
            fixed = gaussian_mixture_delta([(1, mp.mpf(1))], [(1, mp.mpf(-1))], sigma, mp.exp(eps0))
            g = bounds.missing_data_gaussian(float(eps), float(delta), float(p), Fraction(1, 2))
            ok = (exact <= p_m * delta_m and fixed <= delta_m and mp.mpf(g.delta) >= p_m * delta_m
                  and mp.mpf(g.epsilon) >= mp.log(G))
            details.append(f"ε={eps}, δ={delta}, p*={p}: exact δ {mp.nstr(exact, 4)} ≤ p*δ "
                           f"(fixed-mask δ at rε {mp.nstr(fixed, 4)} ≤ δ)")
            if not ok:
                return Outcome(False, "; ".join(details) + " — FAILED")
    return Outcome(True, "; ".join(details))


# --------------------------------------------------------------------------------------------------------
# Corollary 4.6
# --------------------------------------------------------------------------------------------------------

@check("property", "T18", name="T18 Corollary 4.6 bounds ε₀' on its domain (ρε ≤ 1), fails beyond it")
def t18_corollary() -> Outcome:
    with mp.workdps(50):
        c = 1 / (mp.e - 1)
        if not (mp.mpf(bounds.missing.INV_E_MINUS_1_UP) >= c
                and mp.mpf(math.nextafter(bounds.missing.INV_E_MINUS_1_UP, 0)) < c
                and mp.mpf(bounds.missing.E_MINUS_1_UP) >= mp.e - 1
                and mp.mpf(math.nextafter(bounds.missing.E_MINUS_1_UP, 0)) < mp.e - 1):
            return Outcome(False, "the constants e − 1 and 1/(e − 1) are not the doubles just above")
        ps = [0.0, 1e-300, 1e-10, 0.01, 0.3, 0.5, 0.58, float(c), bounds.missing.INV_E_MINUS_1_UP, 0.7, 1.0]
        rhos = [1e-6, 0.1, 0.3, 0.5, 1.0]
        xs = [0.0, 1e-300, 1e-8, 0.01, 0.2, 0.5, 0.9, 0.999, 1.0]
        checked, slack = 0, mp.mpf("inf")
        for p, rho, x in itertools.product(ps, rhos, xs):
            eps = x / rho
            if Fraction(rho) * Fraction(eps) > 1 and p < bounds.missing.INV_E_MINUS_1_UP:
                continue
            exact_t18 = mp.log1p(mp.mpf(p) * mp.expm1(mp.mpf(rho) * mp.mpf(eps)))
            exact_cor = min((mp.e - 1) * mp.mpf(p), 1) * mp.mpf(rho) * mp.mpf(eps)
            got = bounds.missing_data_corollary(eps, p, rho)
            # equality at p* = 1 (both are ρε): allow the 50-digit evaluation error of ln(e^x) only
            if exact_t18 - exact_cor > mp.mpf(10) ** -45 * exact_cor or mp.mpf(got) < exact_cor:
                return Outcome(False, f"p*={p}, ρ={rho}, ε={eps}: T18 {mp.nstr(exact_t18, 20)}, corollary "
                                      f"{mp.nstr(exact_cor, 20)}, library {got!r}")
            if exact_cor > 0:
                slack = min(slack, (exact_cor - exact_t18) / exact_cor)
            checked += 1
        # saturated (e − 1)p* ≥ 1: the bound is ρε, valid for every ε
        for eps in [2.0, 10.0, 1e4]:
            if mp.log(1 + mp.mpf(0.6) * (mp.exp(mp.mpf(0.5) * eps) - 1)) > 0.5 * eps:
                return Outcome(False, f"saturated case fails at ε={eps}")
        # beyond the domain the corollary is false, and the library refuses
        p, rho, eps = mp.mpf("0.01"), 1, 3
        beyond = mp.log(1 + p * (mp.exp(eps) - 1)) > (mp.e - 1) * p * rho * eps
        try:
            bounds.missing_data_corollary(3.0, 0.01, 1.0)
            refused = False
        except ValueError:
            refused = True
    ok = beyond and refused
    return Outcome(ok, f"{checked} points with ρε ≤ 1 (or (e − 1)p* ≥ 1): exact T18 ≤ corollary ≤ library "
                       f"(smallest relative slack {mp.nstr(slack, 3)}); ρε = 3, p* = 0.01 violates it: {beyond}; "
                       f"library refuses it: {refused}")


# --------------------------------------------------------------------------------------------------------
# Table 1 helpers: the FWL inequality on incomplete records, exact
# --------------------------------------------------------------------------------------------------------

def _masked(z, mask):
    return [v if m else Fraction(0) for v, m in zip(z, mask)]


def _l1(v):
    return sum((abs(x) for x in v), Fraction(0))


def _l2_squared(v):
    return sum((x * x for x in v), Fraction(0))


def _fwl_holds(diff, rhs, norm) -> bool:
    rhs = Fraction(rhs)
    return _l1(diff) <= rhs if norm == "l1" else _l2_squared(diff) <= rhs * rhs


def _random_value(rng, bound):
    choice = rng.random()
    if choice < 0.3:
        return Fraction(rng.choice([-1, 1])) * bound
    return Fraction(rng.randint(-1000, 1000), 1000) * bound


@check("property", "T18", name="T18 Table 1 helpers: FWL inequality on random and extreme incomplete records")
def t18_table1() -> Outcome:
    rng = random.Random(2602_01928)
    d, n, B = 4, 3, Fraction(3, 2)
    P = [[Fraction(1), Fraction(-2), Fraction(0), Fraction(1, 2)], [Fraction(3), Fraction(1), Fraction(-1), Fraction(2)]]

    def mean(data):
        return [sum((r[j] for r in data), Fraction(0)) / n for j in range(d)]

    def counts(data):
        return [sum((r[j] for r in data), Fraction(0)) for j in range(d)]

    def second_moment(data):
        return [sum((r[a] * r[b] for r in data), Fraction(0)) / n for a in range(d) for b in range(d)]

    def clip(v, c):
        return max(-c, min(c, v))

    def projected(data):
        m = mean(data)
        return [sum((row[j] * m[j] for j in range(d)), Fraction(0)) for row in P]

    families = [
        ("histogram", bounds.fwl_histogram(d), counts, lambda: [Fraction(rng.randint(0, 1)) for _ in range(d)]),
        ("mean", bounds.fwl_mean(d, n, B), mean, lambda: [_random_value(rng, B) for _ in range(d)]),
        ("clipped mean", bounds.fwl_clipped_mean(d, n, B),
         lambda data: mean([[clip(v, B) for v in r] for r in data]),
         lambda: [_random_value(rng, 3 * B) for _ in range(d)]),
        ("covariance l1", bounds.fwl_covariance(d, n, B), second_moment, lambda: [_random_value(rng, B) for _ in range(d)]),
        ("covariance l2", bounds.fwl_covariance(d, n, B, norm="l2"), second_moment,
         lambda: [_random_value(rng, B) for _ in range(d)]),
        ("projected mean l2", bounds.fwl_projected_mean(P, n, B), projected,
         lambda: [_random_value(rng, B) for _ in range(d)]),
        ("projected mean l1", bounds.fwl_projected_mean(P, n, B, norm="l1"), projected,
         lambda: [_random_value(rng, B) for _ in range(d)]),
        ("linear", dataclasses.replace(bounds.fwl_linear(P), bound=B), lambda data: [sum((row[j] * r[j] for r in data for j in range(d)), Fraction(0))
                                                      for row in P],
         lambda: [_random_value(rng, B) for _ in range(d)]),
    ]
    trials = 0
    tight = {}
    for name, query, f, draw in families:
        L = query.lipschitz
        best = Fraction(0)
        for _ in range(250):
            others = [draw() for _ in range(n - 1)]
            z, z2 = draw(), draw()
            mask_z = [rng.random() < 0.7 for _ in range(d)]
            mask_o = [[rng.random() < 0.7 for _ in range(d)] for _ in others]
            rest = [_masked(o, m) for o, m in zip(others, mask_o)]
            zt, zt2 = _masked(z, mask_z), _masked(z2, mask_z)
            if name == "clipped mean":  # the FWL inequality in the clipped coordinates (B = clip)
                zt, zt2 = [clip(v, B) for v in zt], [clip(v, B) for v in zt2]
                rest = [[clip(v, B) for v in r] for r in rest]
                fq = mean
            else:
                fq = f
            diff = [a - b for a, b in zip(fq([zt] + rest), fq([zt2] + rest))]
            rhs = sum((Fraction(L[j]) * abs(zt[j] - zt2[j]) for j in range(d)), Fraction(0))
            if not _fwl_holds(diff, rhs, query.norm):
                return Outcome(False, f"{name}: FWL inequality fails: z̃={zt}, z̃'={zt2}, others {rest}, L={L}")
            # Lemma 4.4: the masked sensitivity is at most 2B Σ_obs L_j
            masked_sens = 2 * Fraction(query.bound) * sum((Fraction(L[j]) for j in range(d) if mask_z[j]), Fraction(0))
            if not _fwl_holds(diff, masked_sens, query.norm):
                return Outcome(False, f"{name}: masked sensitivity above 2BΣ_obs L_j")
            if rhs:
                best = max(best, (_l1(diff) / rhs) if query.norm == "l1" else _l2_squared(diff) / rhs ** 2)
            trials += 1
        tight[name] = best
    # counts and the plain mean meet their constants with equality (the constants cannot be lowered)
    ok = tight["histogram"] == 1 and tight["mean"] == 1 and tight["linear"] <= 1
    return Outcome(ok, f"{trials} random incomplete neighbour pairs over 8 query families: FWL inequality and "
                       f"Lemma 4.4 hold in exact rationals; equality reached for histogram and mean: {ok}")


# --------------------------------------------------------------------------------------------------------
# Property sweeps
# --------------------------------------------------------------------------------------------------------

EPS = np.concatenate([[0.0], exact_points.logspace(-300, 4, 90)])
P = np.concatenate([[0.0], exact_points.logspace(-300, 0, 90)])
RATIOS = np.concatenate([[0.0], exact_points.logspace(-300, 0, 40)])


@check("property", "T17", name="T17 equals T1 at η = p* bit for bit; monotone in ε, δ, p*; p* = 0, 1")
def t17_properties() -> Outcome:
    g = bounds.missing_data(EPS[:, None], 1e-6, P[None, :])
    same = bounds.poisson_subsampling(EPS[:, None], 1e-6, P[None, :])
    equal = np.array_equal(g.epsilon, same.epsilon) and np.array_equal(g.delta, same.delta)
    gd = bounds.missing_data(1.0, exact_points.logspace(-300, 0, 50)[:, None], P[None, :])
    mono = _monotone_outcome("T17", [("ε'(ε)", g.epsilon, 0), ("ε'(p*)", g.epsilon, 1),
                                     ("δ'(δ)", gd.delta, 0), ("δ'(p*)", gd.delta, 1)])
    zero = bounds.missing_data(np.append(EPS, np.inf), 0.5, 0.0)
    one = bounds.missing_data(EPS, 0.5, 1.0)
    limits = bool(np.all(zero.epsilon == 0) and np.all(zero.delta == 0) and np.all(one.epsilon >= EPS)
                  and np.all(one.epsilon <= EPS * (1 + 16 * 2.0 ** -52)) and np.all(one.delta >= 0.5))
    ok = equal and mono.passed and limits
    return Outcome(ok, f"T17 = T1(p = p*) bit for bit: {equal}; {mono.detail}; p* = 0 → (0, 0), p* = 1 → "
                       f"input within rounding: {limits}")


@check("property", "T18", name="T18 ratio = 1 is T17; p* = ratio = 1 is the identity; monotone; fwl_ratio")
def t18_properties() -> Outcome:
    lap = bounds.missing_data_laplace(EPS[:, None, None], P[None, :, None], RATIOS[None, None, :])
    mono = _monotone_outcome("T18", [("ε₀'(ε)", lap.epsilon, 0), ("ε₀'(p*)", lap.epsilon, 1),
                                     ("ε₀'(r)", lap.epsilon, 2)])
    t17 = bounds.missing_data(EPS[:, None], 0.0, P[None, :]).epsilon
    r1 = bounds.missing_data_laplace(EPS[:, None], P[None, :], 1.0).epsilon
    close = bool(np.all(np.abs(r1 - t17) <= 12 * np.spacing(np.maximum(r1, t17))))
    ident = bounds.missing_data_laplace(EPS, 1.0, 1.0).epsilon
    identity = bool(np.all(ident >= EPS) and np.all(ident <= EPS * (1 + 16 * 2.0 ** -52)))
    masked_only = bounds.missing_data_laplace(1.0, 1.0, RATIOS).epsilon
    p1 = bool(np.all(masked_only >= RATIOS) and np.all(masked_only <= RATIOS * (1 + 16 * 2.0 ** -52)))
    gauss = bounds.missing_data_gaussian(np.linspace(0, 1, 11)[:, None], 1e-6, P[None, :], 0.3)
    same_eps = np.array_equal(gauss.epsilon, bounds.missing_data_laplace(np.linspace(0, 1, 11)[:, None],
                                                                         P[None, :], 0.3).epsilon)
    same_delta = np.array_equal(gauss.delta, bounds.missing_data(0.5, 1e-6, np.broadcast_to(P, gauss.delta.shape)).delta)
    # fwl_ratio: equal constants give ⌊ρd⌋/d; nondecreasing in ρ; invariant under scaling and permutation
    rng = random.Random(7)
    ratio_ok = all(bounds.fwl_ratio([5] * d, Fraction(k, d)) == Fraction(k, d) for d in (1, 3, 10) for k in range(1, d + 1))
    ratio_ok &= bounds.fwl_ratio([2] * 10, Fraction(29, 100)) == Fraction(2, 10)
    for _ in range(50):
        L = [Fraction(rng.randint(0, 20), rng.randint(1, 5)) for _ in range(rng.randint(1, 8))]
        if not any(L):
            continue
        rhos = sorted(Fraction(rng.randint(1, 100), 100) for _ in range(5))
        values = [bounds.fwl_ratio(L, r) for r in rhos]
        shuffled = L[:]
        rng.shuffle(shuffled)
        ratio_ok &= values == sorted(values) and bounds.fwl_ratio(shuffled, rhos[2]) == values[2]
        ratio_ok &= bounds.fwl_ratio([3 * x for x in L], rhos[2]) == values[2]
        as_float = bounds.fwl_ratio([float(x) for x in L], rhos[2])
        exact_of_floats = bounds.fwl_ratio([Fraction(float(x)) for x in L], rhos[2])
        ratio_ok &= Fraction(as_float) >= exact_of_floats and as_float == bounds.missing.float_up(exact_of_floats)
    ok = mono.passed and close and identity and p1 and same_eps and same_delta and ratio_ok
    return Outcome(ok, f"{mono.detail}; ratio = 1 within 12 ulps of T17: {close}; p* = r = 1 identity: {identity}; "
                       f"p* = 1 gives r·ε: {p1}; Gaussian ε = Laplace ε, δ = T17 δ: {same_eps and same_delta}; "
                       f"fwl_ratio exact, monotone in ρ, scale/permutation invariant, floats rounded up: {ratio_ok}")
