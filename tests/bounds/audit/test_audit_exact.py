"""Exact audits against independent routes: subset enumeration in exact rationals, output probabilities summed
directly over a wide window, tail ratios from moment generating functions; the built-in scenarios' known
answers (T1, T2 tight) and the suppression self-tests (exact ε ≤ ε^S, Monte Carlo bound ≤ exact ε)."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import bounds
from bounds.audit import (SCENARIOS, NoisyCount, RandomizedResponse, exact_audit, exact_epsilon, privacy_profile,
                          scenario, statistic_pmf)
from bounds.audit.exact import _grid

from tests.goodness_of_fit import g_test


def _enumerate_pmf(p: list, w: list) -> dict:
    """P(S = s) by enumerating all 2^n keep patterns, in exact rationals."""
    out: dict = {}
    for keep in itertools.product((0, 1), repeat=len(p)):
        pr = Fraction(1)
        for k, pi in zip(keep, p):
            pr *= Fraction(pi) if k else 1 - Fraction(pi)
        s = sum(wi * k for wi, k in zip(w, keep))
        out[s] = out.get(s, 0) + pr
    return out


def test_statistic_pmf_matches_enumeration() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 4, 8):
        p = [float(Fraction(int(v), 64)) for v in rng.integers(0, 65, size=n)]
        p[0] = 0.25
        w = [int(v) for v in rng.integers(-1, 2, size=n)]
        ref = _enumerate_pmf(p, w)
        with mpmath.workdps(50):
            got = statistic_pmf(p, w)
            assert set(got) <= set(ref)
            for key, value in ref.items():
                exact = mpmath.mpf(value.numerator) / value.denominator
                assert abs(got.get(key, 0) - exact) <= mpmath.mpf(10) ** -45 * max(exact, 1e-300)


def _direct_outputs(mech: NoisyCount, pmf: dict, lo: int, hi: int) -> list:
    """P(o) for lo ≤ o ≤ hi summed directly: Σ_s P(S = s)·(1 − α)/(1 + α)·α^|o − s|."""
    a = mech.alpha
    return [mpmath.fsum(p * (1 - a) / (1 + a) * a ** abs(o - s) for s, p in pmf.items()) for o in range(lo, hi + 1)]


@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_noisy_count_distribution_and_epsilon_against_direct_sums(eps: float) -> None:
    p0, w0 = [0.5, 0.25, 0.75], [1, -1, 1]
    p1, w1 = [0.5, 0.25, 0.75, 0.125], [1, -1, 1, 1]
    mech = NoisyCount(eps)
    with mpmath.workdps(50):
        pm0, pm1 = statistic_pmf(p0, w0), statistic_pmf(p1, w1)
        P0, P1, tails = _grid(mech, pm0, pm1)
        total0 = mpmath.fsum(P0) + tails[0][0] * tails[0][1] + tails[1][0] * tails[1][2 - 1]
        assert abs(total0 - 1) < mpmath.mpf(10) ** -40
        window = 400 if eps < 1 else 60      # beyond it the remaining mass is below 1e-45
        D0, D1 = _direct_outputs(mech, pm0, -window, window), _direct_outputs(mech, pm1, -window, window)
        ref = max(abs(mpmath.log(b / a)) for a, b in zip(D0, D1))
        # the tails' ratios from the moment generating functions Π(1 − p + p α^{∓w}) (an independent formula):
        # the window reaches beyond the support, where the ratio is constant, so they are among its values
        a = mech.alpha
        mgf = lambda p, w, sign: mpmath.fprod(1 - pi + pi * a ** (sign * wi) for pi, wi in zip(p, w))  # noqa
        for sign in (-1, 1):
            tail = abs(mpmath.log(mgf(p1, w1, sign) / mgf(p0, w0, sign)))
            assert tail <= ref + mpmath.mpf(10) ** -40
    got = exact_epsilon(mech, pm0, pm1)
    assert float(ref) - 1e-14 <= got <= float(ref)
    # δ(ε) from the direct window: Σ (P1 − e^ε P0)₊ both directions, plus the tails beyond (ratio constant there)
    e_probe = got / 2
    with mpmath.workdps(50):
        F = mpmath.exp(e_probe)
        d10 = mpmath.fsum(max(b - F * c, 0) for c, b in zip(D0, D1))
        d01 = mpmath.fsum(max(c - F * b, 0) for c, b in zip(D0, D1))
    delta_direct = float(max(d10, d01))
    assert privacy_profile(mech, pm0, pm1, e_probe) == pytest.approx(delta_direct, rel=1e-12)
    # ε at δ: the smallest ε with δ(ε) ≤ δ; at the directly summed δ(e_probe) it is e_probe (δ decreasing)
    assert exact_epsilon(mech, pm0, pm1, delta_direct) == pytest.approx(e_probe, rel=1e-10)
    assert exact_epsilon(mech, pm0, pm1, 1.0) == 0.0


@pytest.mark.parametrize("eps,rate", [(0.1, 0.5), (1.0, 0.1), (1.0, 0.01), (5.0, 0.3)])
def test_poisson_rr_is_tight(eps: float, rate: float) -> None:
    """T1 is attained: the exact ε of the pair equals ln(1 + p(e^ε − 1)) and the certificate is that value."""
    s = scenario("poisson-rr", epsilon=eps, rate=rate, n=20)
    r = s.exact()
    assert r.verdict == "not refuted"
    assert r.epsilon == pytest.approx(s.expected, rel=1e-13)
    assert s.claim.epsilon >= s.expected and s.claim.epsilon == pytest.approx(s.expected, rel=1e-13)


@pytest.mark.parametrize("eps,m,n", [(1.0, 10, 100), (2.0, 1, 3), (0.5, 50, 51)])
def test_swor_rr_is_tight(eps: float, m: int, n: int) -> None:
    s = scenario("swor-rr", epsilon=eps, m=m, n=n)
    r = s.exact()
    assert r.verdict == "not refuted"
    assert r.epsilon == pytest.approx(s.expected, rel=1e-13)
    assert s.claim.epsilon == pytest.approx(s.expected, rel=1e-12)


def test_swor_sampler_membership_marginal() -> None:
    """The exact swor-rr audit uses P(record in sample) = m/n; the library's sampler gives it (G-test on
    20,000 draws of the last record's membership, seed 11, against Bin(·, 0.1); limit = χ²₁ at 10⁻⁶)."""
    from bounds.procedures import sample_without_replacement

    rng = np.random.default_rng(11)
    hits = sum(99 in sample_without_replacement(100, 10, rng=rng) for _ in range(20_000))
    expected = {True: Fraction(1, 10), False: Fraction(9, 10)}
    assert g_test({True: hits, False: 20_000 - hits}, expected, 20_000) > 1e-6


@pytest.mark.parametrize("name,kw", [("suppression-copies", dict(copies=3)), ("suppression-star", dict(leaves=3)),
                                     ("suppression-copies", dict(copies=40, epsilon=2.0, m=0.3, M=0.5)),
                                     ("suppression-star", dict(leaves=40, epsilon=2.0, m=0.1, M=0.9))])
def test_suppression_scenarios_exact_epsilon(name: str, kw: dict) -> None:
    """The exact ε of the extremal families stays below ε^S (Theorem 5.4 holds for the library's scores), and
    for 3 records it equals a brute-force computation over all kept subsets with the scores recomputed
    from the definition in exact rationals."""
    s = scenario(name, **kw)
    r = s.exact()
    assert r.verdict == "not refuted" and r.epsilon <= s.claim.epsilon
    n0 = len(s.dataset_0)
    if n0 > 3:
        return
    m, M = Fraction(s.parameters["m"]), Fraction(s.parameters["M"])

    def d(x: float, y: float) -> Fraction:
        if name == "suppression-copies":
            return Fraction(abs(x - y))
        return Fraction(0) if x == y else (Fraction(1, 2) if 0.0 in (x, y) else Fraction(1))

    def keep(D: np.ndarray) -> list:
        return [1 - sum(m + (M - m) * d(x, y) for y in D) / len(D) for x in D]

    w = lambda D: [int(v) for v in s.mechanism.statistic(np.eye(len(D), dtype=bool), D)]  # noqa: E731
    pm = [_enumerate_pmf(keep(D), w(D)) for D in (s.dataset_0, s.dataset_1)]
    with mpmath.workdps(50):
        pmf = [{k: mpmath.mpf(v.numerator) / v.denominator for k, v in p.items()} for p in pm]
    ref = exact_epsilon(s.mechanism, pmf[0], pmf[1])
    assert r.epsilon == pytest.approx(ref, rel=1e-12)   # the library's scores are within 2⁻⁴⁹ of exact


@pytest.mark.parametrize("eps,m,M", [(1.0, 0.1, 0.5), (2.0, 0.3, 0.5), (4.0, 0.2, 0.8)])
def test_suppression_families_approach_their_closed_form_limits(eps: float, m: float, M: float) -> None:
    """Known answers of the suppression self-tests.  The noisy count's upper tail has the ratio of moment
    generating functions; as N → ∞ it tends to
    copies: L = ln(M + (1 − M)F) + (M − m)(F − 1)/(mF + 1 − m)   (→ Λ1(1) = ln(F − (F − 1)M) + M/m − 1 as F → ∞),
    star:   L = ln(B + (1 − B)F) + (M − m)(F − 1)/(2(M + (1 − M)F)), B = (m + M)/2   (→ Λ2(0) as F → ∞).
    The exact ε of the pair rises to L with a gap O(1/N), and L ≤ Λ ≤ ε^S."""
    F = math.exp(eps)
    B = (m + M) / 2
    cases = {"suppression-copies": ("copies", math.log(M + (1 - M) * F) + (M - m) * (F - 1) / (m * F + 1 - m),
                                    math.log(F - (F - 1) * M) + M / m - 1),
             "suppression-star": ("leaves", math.log(B + (1 - B) * F) + (M - m) * (F - 1) / (2 * (M + (1 - M) * F)),
                                  math.log(F - (F - 1) * B) + (M - m) / (2 * (1 - M)))}
    certified = bounds.outlier_score_suppression(eps, 0.0, m, M).epsilon
    for name, (key, limit, lam) in cases.items():
        gaps = [limit - scenario(name, epsilon=eps, m=m, M=M, **{key: N}).exact().epsilon for N in (100, 400, 1600)]
        assert 0 < gaps[2] < gaps[1] < gaps[0]
        assert gaps[1] < gaps[0] / 3 and gaps[2] < gaps[1] / 3          # O(1/N): a factor 4 per step
        assert limit <= lam <= certified * (1 + 1e-15)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_monte_carlo_stays_below_exact(name: str) -> None:
    """Self-test of every built-in scenario with the library's procedures: the Monte Carlo lower bound (seed 0,
    5,000 runs per input) is below the exact ε of the pair, which is below the certified ε."""
    s = scenario(name)
    exact = s.exact()
    mc = s.monte_carlo(trials=5_000, seed=0)
    assert exact.verdict == mc.verdict == "not refuted"
    assert mc.epsilon <= exact.epsilon <= s.claim.epsilon * (1 + 1e-15)


def test_validation() -> None:
    s = scenario("poisson-rr")
    with pytest.raises(TypeError, match="mechanism"):
        exact_audit(s.keep_probabilities, object(), s.dataset_0, s.dataset_1, claim=s.claim)
    with pytest.raises(TypeError, match="claim"):
        exact_audit(s.keep_probabilities, s.mechanism, s.dataset_0, s.dataset_1, claim=1.0)
    with pytest.raises(ValueError, match="claim epsilon"):
        exact_audit(s.keep_probabilities, s.mechanism, s.dataset_0, s.dataset_1, claim=(float("nan"), 0.0))
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        exact_audit(lambda d: np.full(len(d), 1.5), s.mechanism, s.dataset_0, s.dataset_1, claim=s.claim)
    with pytest.raises(ValueError, match="shape"):
        exact_audit(lambda d: np.ones(3), s.mechanism, s.dataset_0, s.dataset_1, claim=s.claim)
    with pytest.raises(ValueError, match="weights"):
        exact_audit(s.keep_probabilities, NoisyCount(1.0, weights=lambda d: np.full(len(d), 2)), s.dataset_0,
                    s.dataset_1, claim=s.claim)
    for bad in (0.0, -1.0, float("nan"), float("inf"), 10**400):
        with pytest.raises(ValueError, match="epsilon"):
            NoisyCount(bad)
        with pytest.raises(ValueError, match="epsilon"):
            RandomizedResponse(bad)
    for bad in ("1", True, 1j, None):
        with pytest.raises(TypeError, match="epsilon"):
            NoisyCount(bad)
    with pytest.raises(ValueError, match="not a built-in scenario"):
        scenario("nope")
