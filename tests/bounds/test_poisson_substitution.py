"""Tests of SPEC T6: poisson_substitution (profile level, *derived*) and poisson_substitution_profile.

The reference is SPEC's typeset formula written out here in mpmath — β = e^{ε'}/e^ε with
e^{ε'} = 1 + γ(e^ε − 1), δ' = γ[(1 − β)δ_r + βδ_s] — at 80+ digits (more for tiny arguments), not the
library's route (β = e^{−ε} + γ·(−expm1(−ε)) in floats).  Soundness is decided on exact binary values.  The
Gaussian-mechanism test integrates the hockey-stick divergence of the subsampled substitute pair directly.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

import bounds


def spec_ref(epsilon: float, delta_r: float, delta_s: float, rate: float) -> mpf:
    extra = sum(int(2 * max(0.0, -math.log10(abs(v)))) for v in (epsilon, delta_r, delta_s, rate)
                if v and math.isfinite(v))
    with mp.workdps(80 + extra):
        e, dr, ds, g = mpf(epsilon), mpf(delta_r), mpf(delta_s), mpf(rate)
        if mp.isinf(e):  # the limit ε → ∞: β → γ
            beta = g
        else:
            # β = e^{ε'}/e^ε with e^{ε'} = 1 + γ(e^ε − 1), kept as a quotient: at γ = 1 it is exactly 1 in mpmath
            # (a log/exp round trip would leave ~10^-80 and flag the library's exact γ = 1 branch)
            E = mp.exp(e)
            beta = (1 + g * (E - 1)) / E
        # γ[(1 − β)δ_r + βδ_s] written as γ[δ_s + (1 − β)(δ_r − δ_s)]: exactly γδ when δ_r = δ_s
        return +(g * (ds + (1 - beta) * (dr - ds)))


def eps_ref(epsilon: float, rate: float) -> mpf:
    extra = sum(int(2 * max(0.0, -math.log10(v))) for v in (epsilon, rate) if v)
    with mp.workdps(80 + extra):
        return mp.log(1 + mpf(rate) * (mp.exp(mpf(epsilon)) - 1))


EPS = [0.0, 1e-300, 1e-12, 1e-3, 0.1, 1.0, 3.0, 10.0, 50.0, 200.0, 709.0, 710.0, 1e4]
RATES = [0.0, 5e-324, 1e-300, 1e-12, 1e-3, 0.1, 0.5, 0.9, 0.999, 1.0]
DELTAS = [0.0, 1e-300, 1e-20, 1e-6, 0.01, 0.3, 1.0]


@pytest.mark.parametrize("epsilon", EPS)
@pytest.mark.parametrize("rate", RATES)
def test_sound_and_accurate_against_spec_formula(epsilon, rate):
    dr = np.array(DELTAS)[:, None]
    ds = np.array(DELTAS)[None, :]
    g = bounds.poisson_substitution(epsilon, dr, ds, rate)
    for i, a in enumerate(DELTAS):
        for j, b in enumerate(DELTAS):
            ref = spec_ref(epsilon, a, b, rate)
            got = mpf(float(g.delta[i, j]))
            assert got >= ref, (epsilon, a, b, rate, float(g.delta[i, j]), mp.nstr(ref, 20))
            assert got <= ref * (1 + mpf(2) ** -48) + mpf(2) ** -1070, (epsilon, a, b, rate)
    if rate > 0 and epsilon > 0:
        eref = eps_ref(epsilon, rate)
        assert mpf(float(g.epsilon.flat[0])) >= eref
        assert mpf(float(g.epsilon.flat[0])) <= eref * (1 + mpf(2) ** -48) + mpf(2) ** -1070


@settings(max_examples=200)
@given(st.floats(0, 800), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_sound_random(epsilon, delta_r, delta_s, rate):
    g = bounds.poisson_substitution(epsilon, delta_r, delta_s, rate)
    ref = spec_ref(epsilon, delta_r, delta_s, rate)
    assert mpf(g.delta) >= ref
    assert mpf(g.delta) <= ref * (1 + mpf(2) ** -48) + mpf(2) ** -1070


def test_epsilon_inf():
    g = bounds.poisson_substitution(math.inf, 0.2, 0.6, 0.25)
    assert g.epsilon == math.inf
    assert mpf(g.delta) >= spec_ref(math.inf, 0.2, 0.6, 0.25)  # γ[(1 − γ)δ_r + γδ_s] = 0.075
    assert g.delta == pytest.approx(0.25 * (0.75 * 0.2 + 0.25 * 0.6), rel=1e-15)
    assert bounds.poisson_substitution(math.inf, 0.2, 0.6, 0.0) == (0.0, 0.0)


# ---- properties ---------------------------------------------------------------------------------------

unit = st.floats(0, 1)
eps_st = st.one_of(st.floats(0, 50), st.floats(0, 1e4), st.just(math.inf))


@given(eps_st, unit, unit, unit, unit)
def test_monotone_in_both_profiles(epsilon, a, b, s, rate):
    lo, hi = sorted((a, b))
    slack = 1 + 2 ** -48  # returned values sit up to the budget (4 ulps) above the exact, monotone values;
    # exact branches (γδ when δ_r = δ_s) sit closer than the general branch, so allow a few ulps' dip
    assert (bounds.poisson_substitution(epsilon, lo, s, rate).delta
            <= bounds.poisson_substitution(epsilon, hi, s, rate).delta * slack + 1e-320)
    assert (bounds.poisson_substitution(epsilon, s, lo, rate).delta
            <= bounds.poisson_substitution(epsilon, s, hi, rate).delta * slack + 1e-320)


@given(eps_st, unit, unit, unit, unit)
def test_monotone_in_rate_when_substitute_dominates(epsilon, x, y, g1, g2):
    dr, ds = sorted((x, y))  # δ_s ≥ δ_r: ∂δ'/∂γ ≥ δ_r ≥ 0 (a proven reduction of the record)
    lo, hi = sorted((g1, g2))
    a = bounds.poisson_substitution(epsilon, dr, ds, lo)
    b = bounds.poisson_substitution(epsilon, dr, ds, hi)
    assert a.delta <= b.delta * (1 + 2 ** -48) + 1e-320 and a.epsilon <= b.epsilon * (1 + 2 ** -48)


def test_not_monotone_in_rate_in_general():
    """δ_s = 0 < δ_r: δ' = γ(1 − γ)(1 − e^{−ε})δ_r falls to 0 at γ = 1 (the mechanism is substitution-proof)."""
    g = bounds.poisson_substitution(2.0, 0.5, 0.0, np.array([0.5, 0.9, 1.0]))
    assert g.delta[0] > g.delta[1] > g.delta[2] == 0.0


@given(eps_st, unit, unit, unit)
def test_between_rate_times_min_and_max(epsilon, dr, ds, rate):
    d = bounds.poisson_substitution(epsilon, dr, ds, rate).delta
    assert Fraction(d) >= Fraction(rate) * Fraction(min(dr, ds)) * Fraction(1 - 2 ** -50)
    assert d <= rate * max(dr, ds) * (1 + 2 ** -48) + 1e-320


@given(eps_st, unit, unit)
def test_equal_profiles_is_t1_bit_for_bit(epsilon, delta, rate):
    t6 = bounds.poisson_substitution(epsilon, delta, delta, rate)
    t1 = bounds.poisson_subsampling(epsilon, delta, rate)
    if rate < 1.0:
        assert t6 == t1
    else:  # γ = 1: T6's exact branch returns δ itself; T1's mul_up(δ, 1) may step up near the subnormals
        assert t6.epsilon == t1.epsilon and t6.delta == delta <= t1.delta


@given(eps_st, unit, unit)
def test_rate_one_and_zero(epsilon, dr, ds):
    one = bounds.poisson_substitution(epsilon, dr, ds, 1.0)
    assert one.delta == ds and one.epsilon >= epsilon
    assert bounds.poisson_substitution(epsilon, dr, ds, 0.0) == (0.0, 0.0)


@given(unit, unit, unit)
def test_epsilon_zero_gives_rate_times_delta_s(dr, ds, rate):
    assert Fraction(bounds.poisson_substitution(0.0, dr, ds, rate).delta) >= Fraction(rate) * Fraction(ds)
    assert bounds.poisson_substitution(0.0, dr, ds, rate).epsilon == 0.0


# ---- vectorised = scalar ------------------------------------------------------------------------------

def test_vectorised_equals_scalar():
    rng = np.random.default_rng(3)
    e = np.concatenate([[0.0, math.inf, 1e-300, 1e4], rng.uniform(0, 20, 60)])
    r = np.concatenate([[0.5, 0.5, 1e-300, 1.0], rng.uniform(0, 1, 60)])
    dr = np.concatenate([[0.1, 0.0, 1e-300, 0.3], rng.uniform(0, 1, 60)])
    ds = np.concatenate([[0.1, 1.0, 0.0, 0.7], rng.uniform(0, 1, 60)])
    g = bounds.poisson_substitution(e, dr, ds, r)
    assert isinstance(g.delta, np.ndarray) and g.delta.shape == e.shape
    for i in range(e.size):
        s = bounds.poisson_substitution(float(e[i]), float(dr[i]), float(ds[i]), float(r[i]))
        assert isinstance(s.delta, float)
        assert (s.epsilon, s.delta) == (g.epsilon[i], g.delta[i])
    b = bounds.poisson_substitution(e[:, None], 0.2, 0.4, np.array([0.1, 0.9])[None, :])
    assert b.delta.shape == (e.size, 2)
    p = bounds.poisson_substitution_profile(bounds.Gaussian(theta=1.0), e[4:10], 0.3)
    for i, x in enumerate(e[4:10]):
        assert bounds.poisson_substitution_profile(bounds.Gaussian(theta=1.0), float(x), 0.3) == (p.epsilon[i], p.delta[i])


# ---- bad inputs ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "value"), [
    ("epsilon", -1e-3), ("epsilon", math.nan), ("epsilon", -math.inf),
    ("rate", 1.5), ("rate", -0.1), ("rate", math.nan),
    ("delta_remove", 1.0001), ("delta_remove", -1e-300), ("delta_remove", math.nan),
    ("delta_substitute", 2.0), ("delta_substitute", math.nan), ("delta_substitute", math.inf)])
def test_bad_inputs_raise(name, value):
    args = {"epsilon": 1.0, "delta_remove": 0.1, "delta_substitute": 0.2, "rate": 0.5, name: value}
    with pytest.raises(ValueError, match=name) as info:
        bounds.poisson_substitution(**args)
    assert "T6" in str(info.value) and "poisson_substitution" in str(info.value)


def test_bad_array_element_and_shapes():
    with pytest.raises(ValueError, match=r"rate\[2\]"):
        bounds.poisson_substitution(1.0, 0.1, 0.1, [0.1, 0.2, 1.2])
    with pytest.raises(ValueError, match="broadcast"):
        bounds.poisson_substitution([1.0, 2.0], [0.1, 0.2, 0.3], 0.1, 0.5)
    with pytest.raises(ValueError, match="not a real number"):
        bounds.poisson_substitution("one", 0.1, 0.1, 0.5)


def test_profile_bad_inputs():
    with pytest.raises(ValueError, match="mechanism"):
        bounds.poisson_substitution_profile("gaussian", 1.0, 0.1)
    with pytest.raises(ValueError, match="substitute"):
        bounds.poisson_substitution_profile(bounds.Gaussian(theta=1.0), 1.0, 0.1, substitute=0.5)
    with pytest.raises(ValueError, match="rate"):
        bounds.poisson_substitution_profile(bounds.Gaussian(theta=1.0), 1.0, 1.1)
    with pytest.raises(ValueError, match="epsilon"):
        bounds.poisson_substitution_profile(bounds.Laplace(theta=1.0), -0.5, 0.1)


# ---- mechanism objects --------------------------------------------------------------------------------

@pytest.mark.parametrize("mechanism", [bounds.Gaussian(theta=0.7), bounds.Laplace(theta=1.3), bounds.EpsDelta(1.0, 1e-6)])
def test_profile_form_uses_remove_profile_and_group_of_two(mechanism):
    for e in (0.0, 0.3, 1.0, 4.0):
        for r in (0.0, 0.01, 0.5, 1.0):
            g = bounds.poisson_substitution_profile(mechanism, e, r)
            expected = bounds.poisson_substitution(e, mechanism.profile(e), mechanism.group_profile(e, 2), r)
            assert g == expected


def test_explicit_substitute_profile_is_tighter_for_bounded_sums():
    """A sum of values in [0, 1]: add/remove and substitute sensitivity are both 1 (θ_s = θ); the default
    (group of two, θ_s = 2θ) is valid but looser."""
    m = bounds.Gaussian(theta=1.0)
    for e in (0.1, 1.0, 3.0):
        tight = bounds.poisson_substitution_profile(m, e, 0.1, substitute=m)
        loose = bounds.poisson_substitution_profile(m, e, 0.1)
        assert tight.delta < loose.delta and tight.epsilon == loose.epsilon
        assert tight == bounds.poisson_subsampling_profile(m, e, 0.1) or tight.delta <= loose.delta


def _subsampled_substitute_gaussian(epsilon: float, sigma: float, rate: float) -> mpf:
    """Exact δ at e^{ε'} of the Poisson-subsampled sum query with values in [−1, 1] (add/remove sensitivity 1,
    substitute sensitivity 2) on its worst substitute pair z = 1, z' = −1: μ = (1−γ)N(0,σ²) + γN(1,σ²),
    μ' = (1−γ)N(0,σ²) + γN(−1,σ²).  Symmetric pair, so one direction; the likelihood ratio μ/μ' is increasing,
    so the positive part is one tail beyond the crossing t, integrated in closed form from normal tails."""
    with mp.workdps(40):
        g, s = mpf(rate), mpf(sigma)
        G = 1 + g * (mp.exp(mpf(epsilon)) - 1)

        def diff(x):
            p = (1 - g) * mp.npdf(x, 0, s) + g * mp.npdf(x, 1, s)
            q = (1 - g) * mp.npdf(x, 0, s) + g * mp.npdf(x, -1, s)
            return p - G * q
        lo, hi = mpf(-60), mpf(60)
        for _ in range(200):  # bisection for the sign change of p − Gq (negative on the left, positive on the right)
            mid = (lo + hi) / 2
            if diff(mid) > 0:
                hi = mid
            else:
                lo = mid
        t = hi

        def tail(mu):  # P(N(mu, σ²) > t)
            return mp.ncdf(-(t - mu) / s)
        by_tails = (1 - g) * tail(0) + g * tail(1) - G * ((1 - g) * tail(0) + g * tail(-1))
        by_quad = mp.quad(lambda x: max(diff(x), 0), [t, t + 10 * s, mp.inf])
        assert abs(by_tails - by_quad) < mpf(10) ** -20
        return by_tails


@pytest.mark.parametrize(("epsilon", "sigma", "rate"),
                         [(0.5, 1.0, 0.1), (1.0, 2.0, 0.01), (2.0, 0.7, 0.5), (0.1, 3.0, 0.9), (3.0, 1.0, 1.0)])
def test_gaussian_profile_form_is_sound_on_the_exact_subsampled_pair(epsilon, sigma, rate):
    g = bounds.poisson_substitution_profile(bounds.Gaussian(theta=1 / sigma), epsilon, rate)
    with mp.workdps(40):
        assert mpf(g.epsilon) >= mp.log(1 + mpf(rate) * (mp.exp(mpf(epsilon)) - 1))
    exact = _subsampled_substitute_gaussian(epsilon, sigma, rate)
    assert mpf(g.delta) >= exact
    if rate == 1.0:  # no subsampling: δ' = δ_{2θ}(ε), the exact Gaussian profile at sensitivity 2
        assert float(exact) == pytest.approx(g.delta, rel=1e-12)


# ---- the brute-force check can fail -------------------------------------------------------------------

@pytest.mark.parametrize("broken", [
    lambda F, g, dr, ds: g * ds,  # substitute profile only: unsound (needs the δ_r term)
    lambda F, g, dr, ds: g * ((1 + g * (F - 1)) / F) * ds,  # T6 without its δ_r term
])
def test_brute_force_catches_a_wrong_bound(broken):
    from proofs_checks.poisson_substitution_checks import evaluate_brute_force

    outcome = evaluate_brute_force(bound=broken, library=False)
    assert not outcome.passed and "VIOLATED" in outcome.detail
