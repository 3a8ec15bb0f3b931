"""Tests of the public subsampling bounds: SPEC T1 (poisson_subsampling and its inverse), T2
(without_replacement), T3/T4 (with_replacement) and T5 (rate_change).

Every reference is computed independently of the library: with mpmath straight from the SPEC formula, at a
precision that covers the cancellation in 1 + p(e^ε − 1) (60 + 2·max(0, −log10 of each small quantity) + 20
digits), or exactly with ``fractions.Fraction``, or from the published example (Li, Qardaji, Su: rate 0.1
turns ln 2 into ln 1.1).  Soundness is checked exactly (the returned float against the reference as an exact
binary number, never through ``float(reference)``); tightness as a relative error, or a few ulps where the
exact value is subnormal.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

import bounds
from bounds import Guarantee
from tests.exact_arith import INF, assert_lower, assert_upper, cap, digits, log_uniform, ordered, to_mpf, ulps_between

# Outward rounding moves a value at least n and at most about 2n + 2 floats (numeric.special.up); with the
# evaluation error on top, a guarantee that equals its input exactly (rate 1) comes back within these:
EPS_SLACK = 12  # ε' kernels are rounded up by 4 ulps: ≤ 10 ulps of rounding + ≤ 2 ulps of error
DELTA_SLACK = 8  # δ' kernels: exact directed rounding (T1) or up by 2 ulps (T2, T5): ≤ 6 + 1


# --------------------------------------------------------------------------------------------------------
# Independent high-precision references (straight from the SPEC formulas)
# --------------------------------------------------------------------------------------------------------

def amplify_ref(epsilon: float, eta) -> mpf:
    """A_η(ε) = ln(1 + η(e^ε − 1)) (SPEC Conventions), η a float, Fraction or mpf in [0, 1]."""
    if epsilon == 0 or eta == 0:
        return mpf(0)
    if epsilon == INF:
        return mpf("inf")
    with mp.workdps(digits(epsilon, eta)):
        return +mp.log(1 + to_mpf(eta) * (mp.exp(mpf(epsilon)) - 1))


def inverse_ref(epsilon: float, rate: float) -> mpf:
    """A_p⁻¹(ε) = ln(1 + (e^ε − 1)/p) (SPEC Conventions)."""
    if rate == 0 or epsilon == INF:
        return mpf("inf")
    if epsilon == 0:
        return mpf(0)
    with mp.workdps(digits(epsilon, rate)):
        return +mp.log(1 + (mp.exp(mpf(epsilon)) - 1) / mpf(rate))


def t3_eta_ref(m: int, n: int) -> mpf:
    """η = 1 − (1 − 1/n)^m, directly (not via expm1/log1p)."""
    with mp.workdps(digits(1 / n) + 20):
        return +(1 - (1 - mpf(1) / n) ** m)


def t3_delta_ref(epsilon: float, delta: float, m: int, n: int, kmax: int | None = None) -> tuple[mpf, mpf]:
    """(lower, upper) enclosure of δ' = Σ_k C(m,k) n^{-k}(1 − 1/n)^{m−k} δ_{M,k}(ε) (SPEC T3).

    δ_{M,k}(ε) = min(1, (e^ε − 1)/(e^{ε/k} − 1)·(δ + (1 − δ)(e^ε − e^{ε/k})/(1 + e^ε))), the k = 1 term is δ
    and the ε = 0 limit of the ratio is k.  With ``kmax`` < m the sum stops at kmax and the upper end adds
    P{K > kmax} (each δ_{M,k} ≤ 1); otherwise lower == upper.
    """
    top = m if kmax is None else min(m, kmax)
    with mp.workdps(digits(epsilon, delta, 1 / n) + 20):
        p = mpf(1) / n
        q = 1 - p
        big = mp.exp(mpf(epsilon)) if math.isfinite(epsilon) else None
        d = mpf(delta)
        total = mpf(0)
        mass = mpf(0)
        # the binomial weights by the ratio w_{k+1}/w_k = (m − k)/((k + 1)(n − 1)) from w_0 = q^m (n = 1: all the
        # mass at k = m); the same terms as C(m,k) p^k q^(m−k), without a binomial and two powers per k
        w = q ** m if n > 1 else mpf(m == 0)
        for k in range(0, top + 1):
            if k:
                w = w * (m - k + 1) / (k * (n - 1)) if n > 1 else mpf(k == m)
            mass += w
            if k == 0:
                continue
            if k == 1:
                profile = d
            elif epsilon == 0:
                profile = min(mpf(1), k * d)
            elif big is None:  # ε = inf: the ratio is infinite and the bracket tends to 1
                profile = mpf(1)
            else:
                small = mp.exp(mpf(epsilon) / k)
                profile = min(mpf(1), (big - 1) / (small - 1) * (d + (1 - d) * (big - small) / (1 + big)))
            total += w * profile
        tail = max(mpf(0), 1 - mass) if top < m else mpf(0)
        return +total, +(total + tail)


# --------------------------------------------------------------------------------------------------------
# Strategies: magnitudes from 1e-300 up, plus the values where the kernels switch branches
# --------------------------------------------------------------------------------------------------------

EPS = st.one_of(log_uniform(-300, 4), st.sampled_from(
    [1e-300, 1e-16, 1.0, 700.0, 709.0, math.nextafter(709.0, INF), 710.0, 744.0, 1e4]))
DELTA = st.one_of(log_uniform(-300, 0), st.sampled_from([1e-300, 0.5, 1.0]))
RATE = st.one_of(log_uniform(-300, 0), st.sampled_from([1e-300, 1e-16, 0.5, math.nextafter(1.0, 0), 1.0]))
SUBNORMAL_RATE = st.one_of(log_uniform(-323.3, -300), st.sampled_from(
    [5e-324, 1e-310, 2.2250738585072014e-308, 1e-305, math.exp(-700.0), 1e-303]))


@st.composite
def m_and_n(draw, max_n: int = 2 ** 53) -> tuple[int, int]:
    n = draw(st.one_of(st.integers(1, 1000), st.integers(1, max_n)))
    m = draw(st.one_of(st.integers(0, n), st.sampled_from([0, 1, n])))
    return m, n


# --------------------------------------------------------------------------------------------------------
# T1 Poisson subsampling
# --------------------------------------------------------------------------------------------------------

@given(EPS, DELTA, RATE)
@example(0.0, 0.5, 0.5)
@example(INF, 0.5, 0.5)
@example(1e4, 1e-300, 1e-300)
@example(1e-300, 1e-300, 1e-300)
@example(1e-300, 1.0, 1.0)
@example(1e4, 1.0, 1.0)
@example(745.0, 0.0, 5e-324 * 2 ** 52)
def test_poisson_subsampling_sound_and_tight(epsilon, delta, rate):
    g = bounds.poisson_subsampling(epsilon, delta, rate)
    assert_upper(g.epsilon, amplify_ref(epsilon, rate), what=f"T1 eps' at {epsilon!r}, {rate!r}")
    assert_upper(g.delta, Fraction(delta) * Fraction(rate), what=f"T1 delta' at {delta!r}, {rate!r}")


@given(EPS, DELTA, SUBNORMAL_RATE)
@example(1e-10, 1e-300, 1e-305)
def test_poisson_subsampling_tiny_rates(epsilon, delta, rate):
    """Rates below 1e-300 (normal and subnormal): still sound, and tight up to the subnormal step."""
    g = bounds.poisson_subsampling(epsilon, delta, rate)
    assert_upper(g.epsilon, amplify_ref(epsilon, rate), what=f"T1 eps' at {epsilon!r}, {rate!r}")
    assert_upper(g.delta, Fraction(delta) * Fraction(rate), what=f"T1 delta' at {delta!r}, {rate!r}")


@given(st.one_of(EPS, st.sampled_from([0.0, INF])), DELTA)
def test_poisson_subsampling_rate_zero_is_exactly_zero(epsilon, delta):
    g = bounds.poisson_subsampling(epsilon, delta, 0.0)
    assert (g.epsilon, g.delta) == (0.0, 0.0)
    assert type(g.epsilon) is float and type(g.delta) is float


@given(EPS, DELTA)
@example(1e4, 1.0)
@example(1e-300, 1e-300)
def test_poisson_subsampling_rate_one_returns_the_input(epsilon, delta):
    """p = 1: the input back, rounded up.  ε' carries its outward rounding (a 4-ulp budget, which ``up``
    implements as at least 4 steps, up to 5) on top of ≤ 1-2 ulps of evaluation error; δ' is the exact
    product rounded up by its 1-ulp budget (up to 2 steps)."""
    g = bounds.poisson_subsampling(epsilon, delta, 1.0)
    assert g.epsilon >= epsilon and ulps_between(g.epsilon, epsilon) <= EPS_SLACK, (epsilon, g.epsilon)
    assert g.delta >= delta and ulps_between(g.delta, delta) <= DELTA_SLACK, (delta, g.delta)


def test_poisson_subsampling_rate_one_infinite_epsilon():
    g = bounds.poisson_subsampling(INF, 0.25, 1.0)
    assert g.epsilon == INF
    assert g.delta >= 0.25 and ulps_between(g.delta, 0.25) <= DELTA_SLACK


@given(DELTA, st.one_of(RATE, st.just(0.0)))
def test_poisson_subsampling_epsilon_zero_gives_zero(delta, rate):
    g = bounds.poisson_subsampling(0.0, delta, rate)
    assert g.epsilon == 0.0
    assert_upper(g.delta, Fraction(delta) * Fraction(rate), what="T1 delta' at eps 0")


@given(RATE.filter(lambda r: r > 0), DELTA)
def test_poisson_subsampling_infinite_epsilon(rate, delta):
    g = bounds.poisson_subsampling(INF, delta, rate)
    assert g.epsilon == INF
    assert_upper(g.delta, Fraction(delta) * Fraction(rate), what="T1 delta' at eps inf")


def test_poisson_subsampling_extremes_are_finite_and_correct():
    for epsilon, delta, rate in [(1e4, 1e-6, 1e-300), (1e4, 1e-6, 1.0), (1e-300, 1e-6, 1e-300),
                                 (1e-300, 1e-300, 0.5), (1e4, 0.0, 0.5), (1e-300, 1.0, 1.0)]:
        g = bounds.poisson_subsampling(epsilon, delta, rate)
        assert math.isfinite(g.epsilon) and math.isfinite(g.delta)
        assert_upper(g.epsilon, amplify_ref(epsilon, rate), what=f"T1 eps' at {epsilon}, {rate}")
        assert_upper(g.delta, Fraction(delta) * Fraction(rate), what=f"T1 delta' at {delta}, {rate}")
    # ε = 1e4 at rate 1e-300: about 1e4 + ln(1e-300) = 1e4 − 690.78
    assert abs(bounds.poisson_subsampling(1e4, 0.0, 1e-300).epsilon - (1e4 - 300 * math.log(10))) < 1e-9


def test_poisson_subsampling_published_example():
    """Li, Qardaji, Su: sampling at rate 0.1 turns an ln 2 guarantee into ln 1.1."""
    g = bounds.poisson_subsampling(math.log(2), 0.0, 0.1)
    assert_upper(g.epsilon, amplify_ref(math.log(2), 0.1), what="T1 ln 2 at 0.1")
    with mp.workdps(50):
        assert abs(mpf(g.epsilon) - mp.log(mpf(11) / 10)) < mpf("1e-15")
    assert g.delta == 0.0


@given(ordered(EPS), DELTA, RATE)
def test_poisson_subsampling_monotone_in_epsilon(eps_pair, delta, rate):
    lo, hi = (bounds.poisson_subsampling(e, delta, rate) for e in eps_pair)
    assert lo.epsilon <= hi.epsilon and lo.delta == hi.delta


@given(EPS, ordered(DELTA, 1.0), RATE)
def test_poisson_subsampling_monotone_in_delta(epsilon, delta_pair, rate):
    lo, hi = (bounds.poisson_subsampling(epsilon, d, rate) for d in delta_pair)
    assert lo.delta <= hi.delta and lo.epsilon == hi.epsilon


@given(EPS, DELTA, ordered(st.one_of(RATE, st.just(0.0)), 1.0))
def test_poisson_subsampling_monotone_in_rate(epsilon, delta, rate_pair):
    lo, hi = (bounds.poisson_subsampling(epsilon, delta, r) for r in rate_pair)
    assert lo.epsilon <= hi.epsilon and lo.delta <= hi.delta


# --------------------------------------------------------------------------------------------------------
# T1 inverse: base budget for noise calibration, rounded toward the safe side (down)
# --------------------------------------------------------------------------------------------------------

def delta_base_ref(delta: float, rate: float) -> Fraction:
    return min(Fraction(1), Fraction(delta) / Fraction(rate))


@given(EPS, DELTA, RATE)
@example(0.0, 0.5, 0.5)
@example(INF, 0.5, 0.5)
@example(1e4, 1e-300, 1e-300)
@example(1e-300, 1e-300, 1e-300)
@example(1e-300, 1.0, 1.0)
def test_poisson_subsampling_inverse_safe_and_tight(epsilon, delta, rate):
    b = bounds.poisson_subsampling_inverse(epsilon, delta, rate)
    assert_lower(b.epsilon, inverse_ref(epsilon, rate), what=f"T1 inverse eps at {epsilon!r}, {rate!r}")
    assert_lower(b.delta, delta_base_ref(delta, rate), what=f"T1 inverse delta at {delta!r}, {rate!r}")


@given(EPS, DELTA, SUBNORMAL_RATE)
@example(1e-10, 1e-300, 1e-305)
def test_poisson_subsampling_inverse_tiny_rates(epsilon, delta, rate):
    """Rates below 1e-300, where ε − ln p > 700 even for tiny ε (the kernel's log-space branch)."""
    b = bounds.poisson_subsampling_inverse(epsilon, delta, rate)
    assert_lower(b.epsilon, inverse_ref(epsilon, rate), what=f"T1 inverse eps at {epsilon!r}, {rate!r}")
    assert_lower(b.delta, delta_base_ref(delta, rate), what=f"T1 inverse delta at {delta!r}, {rate!r}")


@given(st.one_of(EPS, st.sampled_from([0.0, INF])), DELTA)
def test_poisson_subsampling_inverse_rate_zero(epsilon, delta):
    assert bounds.poisson_subsampling_inverse(epsilon, delta, 0.0) == (INF, 1.0)


@given(EPS, DELTA, RATE)
@example(3.92440579981331e-145, 1.3368275048438733e-134, 8.030138248049337e-119)
@example(2.3876486859070494e-292, 4.001391869068061e-34, 1.6402728906378807e-23)
def test_poisson_subsampling_roundtrip_never_exceeds_target(epsilon, delta, rate):
    """The documented contract: ``poisson_subsampling(*inverse(ε, δ, p), p)`` never exceeds (ε, δ)."""
    base = bounds.poisson_subsampling_inverse(epsilon, delta, rate)
    back = bounds.poisson_subsampling(base.epsilon, base.delta, rate)
    assert back.epsilon <= epsilon, (f"eps {back.epsilon!r} > target {epsilon!r} "
                                     f"({ulps_between(back.epsilon, epsilon)} ulps)")
    assert back.delta <= delta, f"delta {back.delta!r} > target {delta!r} ({ulps_between(back.delta, delta)} ulps)"
    # ... and close to the target (δ only when the base δ is not capped at 1)
    assert back.epsilon >= epsilon * (1 - 1e-12) - 1e-320, (epsilon, back.epsilon)
    if delta <= rate * 0.5:
        assert back.delta >= delta * (1 - 1e-12) - 1e-320, (delta, back.delta)


# --------------------------------------------------------------------------------------------------------
# T2 sampling without replacement
# --------------------------------------------------------------------------------------------------------

@given(EPS, DELTA, m_and_n())
@example(1e4, 1e-300, (1, 2 ** 53))
@example(INF, 0.5, (3, 7))
@example(0.0, 0.5, (3, 7))
@example(1.0, 1e-6, (0, 7))
def test_without_replacement_sound_and_tight(epsilon, delta, mn):
    m, n = mn
    g = bounds.without_replacement(epsilon, delta, m, n)
    eta = Fraction(m, n)
    assert_upper(g.epsilon, amplify_ref(epsilon, eta), what=f"T2 eps' at {epsilon!r}, m={m}, n={n}")
    assert_upper(g.delta, Fraction(delta) * eta, what=f"T2 delta' at {delta!r}, m={m}, n={n}")


@given(EPS, DELTA, m_and_n())
def test_without_replacement_equals_poisson_at_rate_m_over_n(epsilon, delta, mn):
    m, n = mn
    t2 = bounds.without_replacement(epsilon, delta, m, n)
    rate = m / n
    t1 = bounds.poisson_subsampling(epsilon, delta, rate)
    assert_upper(t1.epsilon, amplify_ref(epsilon, rate), what="T1 at m/n")
    assert_upper(t2.epsilon, amplify_ref(epsilon, Fraction(m, n)), what="T2")
    if math.isfinite(t1.epsilon):
        assert ulps_between(t1.epsilon, t2.epsilon) <= 2, (t1.epsilon, t2.epsilon)
    else:
        assert t2.epsilon == INF
    assert ulps_between(t1.delta, t2.delta) <= DELTA_SLACK, (t1.delta, t2.delta)


@given(EPS, DELTA, st.integers(1, 2 ** 40))
def test_without_replacement_monotone_in_m(epsilon, delta, n):
    ms = np.unique(np.concatenate([np.arange(0, min(n, 50) + 1),
                                   np.linspace(0, n, 201).round(), [n - 1, n]]).clip(0, n))
    g = bounds.without_replacement(epsilon, delta, ms, n)
    assert np.all(np.diff(g.epsilon) >= 0) and np.all(np.diff(g.delta) >= 0)


@given(EPS, DELTA, st.integers(0, 1000), st.integers(0, 2 ** 40))
def test_without_replacement_nonincreasing_in_n(epsilon, delta, m, extra):
    ns = np.unique(np.array([m, m + 1, m + 2, m + extra // 7, m + extra // 2, m + extra, 2 * m + extra],
                            dtype=np.float64).clip(1, None))
    ns = ns[ns >= m]
    g = bounds.without_replacement(epsilon, delta, m, ns)
    assert np.all(np.diff(g.epsilon) <= 0) and np.all(np.diff(g.delta) <= 0)


@given(EPS, DELTA, st.integers(1, 2 ** 53))
def test_without_replacement_limits(epsilon, delta, n):
    assert bounds.without_replacement(epsilon, delta, 0, n) == (0.0, 0.0)
    full = bounds.without_replacement(epsilon, delta, n, n)  # m = n: the input, rounded up
    assert full.epsilon >= epsilon and ulps_between(full.epsilon, epsilon) <= EPS_SLACK
    assert full.delta >= delta and ulps_between(full.delta, delta) <= DELTA_SLACK
    assert bounds.without_replacement(0.0, delta, 1, n).epsilon == 0.0


# --------------------------------------------------------------------------------------------------------
# T3/T4 sampling with replacement
# --------------------------------------------------------------------------------------------------------

T3_EPS = st.one_of(log_uniform(-300, 4), st.sampled_from([1e-300, 1e-3, 1.0, 700.0, 710.0, 1e4]))


@settings(max_examples=cap(150))
@given(T3_EPS, DELTA, st.integers(0, 60), st.integers(1, 1000))
@example(0.1, 0.0, 3, 4)
@example(1.0, 1e-6, 1, 100)
@example(1e-300, 1e-300, 60, 1)
@example(1e4, 1e-300, 60, 2)
@example(0.0, 0.3, 60, 2)
@example(INF, 1e-6, 5, 3)
@example(1e-300, 0.0, 2, 2)
def test_with_replacement_sound_and_tight(epsilon, delta, m, n):
    g = bounds.with_replacement(epsilon, delta, m, n)
    eta = Fraction(1) - (1 - Fraction(1, n)) ** m  # exact
    assert_upper(g.epsilon, amplify_ref(epsilon, eta), what=f"T3 eps' at {epsilon!r}, m={m}, n={n}")
    exact_delta, _ = t3_delta_ref(epsilon, delta, m, n)
    assert_upper(g.delta, exact_delta, rel=1e-12, ulps=32, what=f"T3 delta' at {epsilon!r}, {delta!r}, m={m}, n={n}")


@settings(max_examples=cap(100))
@given(T3_EPS, DELTA, st.integers(0, 30), st.integers(1000, 2 ** 53))
@example(1.0, 1.0, 2, 10 ** 9)
@example(1.0, 1e-6, 30, 10 ** 6)
@example(1.0, 1e-6, 5, 10 ** 15)
@example(1.0, 1e-6, 2, 285435107558195)
def test_with_replacement_large_n_sound_and_tight(epsilon, delta, m, n):
    """n up to 2^53 (the weights n^{-k}(1 − 1/n)^{m−k} are tiny: their log-space evaluation must stay within
    the rounding budget)."""
    g = bounds.with_replacement(epsilon, delta, m, n)
    assert_upper(g.epsilon, amplify_ref(epsilon, t3_eta_ref(m, n)), what=f"T3 eps' at {epsilon!r}, m={m}, n={n}")
    exact_delta, _ = t3_delta_ref(epsilon, delta, m, n)
    assert_upper(g.delta, exact_delta, rel=1e-12, ulps=32, what=f"T3 delta' at {epsilon!r}, {delta!r}, m={m}, n={n}")


@given(st.one_of(T3_EPS, st.just(0.0), st.just(INF)), st.integers(1, 300),
       st.one_of(st.integers(1, 1000), st.integers(1, 2 ** 53)))
@example(1.0, 2, 10 ** 9)
@example(1.0, 1, 285435107558195)
@example(1.0, 30, 10 ** 6)
def test_with_replacement_delta_one_exact(epsilon, m, n):
    """δ = 1 makes every group profile 1, so δ' = P{K ≥ 1} = 1 − (1 − 1/n)^m: an exact rational."""
    g = bounds.with_replacement(epsilon, 1.0, m, n)
    exact_delta = 1 - (1 - Fraction(1, n)) ** m
    assert_upper(g.delta, exact_delta, rel=1e-12, ulps=32, what=f"T3 delta' at delta=1, m={m}, n={n}")


@settings(max_examples=cap(60))
@given(T3_EPS, DELTA, st.integers(0, 60), st.integers(1, 1000))
def test_with_replacement_add_remove_is_the_same_formula(epsilon, delta, m, n):
    """SPEC T4: the T3 formula with n the larger neighbour's size."""
    sub = bounds.with_replacement(epsilon, delta, m, n)
    add = bounds.with_replacement(epsilon, delta, m, n, relation="add_remove")
    assert sub == add


@pytest.mark.parametrize("m, n", [(10 ** 6, 10 ** 6), (10 ** 6, 10 ** 7), (10 ** 6, 10 ** 4),
                                  (10 ** 5, 300), (1000, 1000)])
@pytest.mark.parametrize("epsilon, delta", [(1e-3, 1e-10), (1.0, 1e-6), (10.0, 1e-6), (1.0, 0.0)])
def test_with_replacement_large_m(epsilon, delta, m, n):
    """m up to 10^6: sandwiched by a truncated high-precision sum and the same sum plus P{K > kmax}."""
    g = bounds.with_replacement(epsilon, delta, m, n)
    assert_upper(g.epsilon, amplify_ref(epsilon, t3_eta_ref(m, n)), what=f"T3 eps' m={m} n={n}")
    mean = m / n
    kmax = int(mean + 12 * math.sqrt(mean) + 60)
    lo, hi = t3_delta_ref(epsilon, delta, m, n, kmax=kmax)
    assert mpf(g.delta) >= hi, f"UNSOUND: {g.delta!r} < {mp.nstr(hi, 20)} (truncation tail included)"
    assert mpf(g.delta) <= lo * (1 + mpf("1e-12")), f"loose: {g.delta!r} vs {mp.nstr(lo, 20)}"


@given(T3_EPS, DELTA, st.integers(1, 10 ** 6))
def test_with_replacement_monotone_in_m(epsilon, delta, n):
    ms = np.arange(0.0, 121.0)
    g = bounds.with_replacement(epsilon, delta, ms, n)
    assert np.all(np.diff(g.epsilon) >= 0), g.epsilon
    assert np.all(np.diff(g.delta) >= 0), g.delta


@given(T3_EPS, DELTA, st.integers(0, 200))
def test_with_replacement_nonincreasing_in_n(epsilon, delta, m):
    ns = np.unique(np.concatenate([np.arange(1.0, 40.0), np.geomspace(40, 1e9, 40).round()]))
    g = bounds.with_replacement(epsilon, delta, m, ns)
    assert np.all(np.diff(g.epsilon) <= 0), g.epsilon
    assert np.all(np.diff(g.delta) <= 0), g.delta


@given(EPS, DELTA, st.integers(1, 2 ** 53))
@example(1.0, 1e-6, 100)
@example(1.0, 1.0, 285435107558195)
def test_with_replacement_one_draw_is_poisson_at_one_over_n(epsilon, delta, n):
    """m = 1: ε' is T1 at rate 1/n (a few ulps apart: η = −expm1(log1p(−1/n)) vs 1/n), δ' ≈ δ/n."""
    g = bounds.with_replacement(epsilon, delta, 1, n)
    t1 = bounds.poisson_subsampling(epsilon, delta, 1 / n)
    assert_upper(g.epsilon, amplify_ref(epsilon, Fraction(1, n)), what="T3 m=1 eps'")
    if math.isfinite(t1.epsilon):
        assert ulps_between(g.epsilon, t1.epsilon) <= 12, (g.epsilon, t1.epsilon)
    else:
        assert g.epsilon == INF
    assert_upper(g.delta, Fraction(delta) / n, rel=1e-13, ulps=32, what="T3 m=1 delta'")


@given(EPS, DELTA, st.integers(1, 2 ** 53))
def test_with_replacement_limits(epsilon, delta, n):
    assert bounds.with_replacement(epsilon, delta, 0, n) == (0.0, 0.0)
    assert bounds.with_replacement(0.0, delta, 5, n).epsilon == 0.0
    assert bounds.with_replacement(epsilon, 0.0, 1, n).delta == 0.0


@pytest.mark.parametrize("epsilon", [5e-324, 1.5e-323, 1e-320, 1e-310, 3e-308])
@pytest.mark.parametrize("m, n", [(2, 2), (3, 4), (10, 3)])
def test_with_replacement_subnormal_epsilon(epsilon, m, n):
    """Subnormal ε (ε/k loses precision or underflows): still sound and tight."""
    delta = 1e-6
    g = bounds.with_replacement(epsilon, delta, m, n)
    lo, _ = t3_delta_ref(epsilon, delta, m, n)
    assert_upper(g.delta, lo, rel=1e-12, ulps=32, what=f"T3 delta' at eps={epsilon!r}, m={m}, n={n}")


# --------------------------------------------------------------------------------------------------------
# T5 rate change
# --------------------------------------------------------------------------------------------------------

@st.composite
def rate_pair(draw) -> tuple[float, float]:
    """(rate_from, rate_to) with 0 < rate_from <= 1 and 0 <= rate_to <= rate_from."""
    rate_from = draw(RATE)
    fraction = draw(st.one_of(log_uniform(-300, 0), st.sampled_from([0.0, 0.1, 0.5, 1.0])))
    return rate_from, min(rate_from, fraction * rate_from)


@given(EPS, DELTA, rate_pair())
@example(math.log(2), 0.0, (1.0, 0.1))
@example(1e4, 1e-300, (1.0, 1e-300))
@example(1e-300, 1e-300, (1e-300, 1e-300))
@example(INF, 0.5, (0.5, 0.25))
@example(0.0, 0.5, (0.5, 0.25))
def test_rate_change_sound_and_tight(epsilon, delta, rates):
    rate_from, rate_to = rates
    g = bounds.rate_change(epsilon, delta, rate_from, rate_to)
    eta = Fraction(rate_to) / Fraction(rate_from)
    assert_upper(g.epsilon, amplify_ref(epsilon, eta), what=f"T5 eps' at {epsilon!r}, {rates}")
    assert_upper(g.delta, Fraction(delta) * eta, what=f"T5 delta' at {delta!r}, {rates}")


def test_rate_change_published_example():
    """Li, Qardaji, Su: going from rate 1 to rate 0.1 turns ln 2 into ln 1.1."""
    g = bounds.rate_change(math.log(2), 1e-5, 1.0, 0.1)
    with mp.workdps(50):
        assert mpf(g.epsilon) >= amplify_ref(math.log(2), Fraction(0.1))
        assert abs(mpf(g.epsilon) - mp.log(mpf(11) / 10)) < mpf("1e-15")
    assert_upper(g.delta, Fraction(1e-5) * Fraction(0.1), what="T5 example delta")
    # the same ratio from 0.5 to 0.05 (0.05/0.5 is not exactly 0.1 in floats: tolerance 1e-15)
    h = bounds.rate_change(math.log(2), 0.0, 0.5, 0.05)
    assert abs(h.epsilon - math.log(1.1)) < 1e-15


@given(EPS, DELTA, RATE)
def test_rate_change_from_one_is_poisson(epsilon, delta, rate):
    t5 = bounds.rate_change(epsilon, delta, 1.0, rate)
    t1 = bounds.poisson_subsampling(epsilon, delta, rate)
    assert_upper(t5.epsilon, amplify_ref(epsilon, rate), what="T5 from 1")
    if math.isfinite(t1.epsilon):
        assert ulps_between(t1.epsilon, t5.epsilon) <= 2, (t1.epsilon, t5.epsilon)
    else:
        assert t5.epsilon == INF
    assert ulps_between(t1.delta, t5.delta) <= DELTA_SLACK, (t1.delta, t5.delta)


@given(EPS, DELTA, RATE, ordered(st.one_of(log_uniform(-300, 0), st.just(0.0), st.just(1.0)), 1.0))
def test_rate_change_monotone_in_rate_to(epsilon, delta, rate_from, fractions):
    lo, hi = (bounds.rate_change(epsilon, delta, rate_from, f * rate_from) for f in fractions)
    assert lo.epsilon <= hi.epsilon and lo.delta <= hi.delta


@given(EPS, DELTA, RATE, ordered(RATE, 1.0))
def test_rate_change_nonincreasing_in_rate_from(epsilon, delta, rate_to_factor, rates_from):
    small, large = rates_from
    rate_to = rate_to_factor * small
    at_small, at_large = (bounds.rate_change(epsilon, delta, r, rate_to) for r in rates_from)
    assert at_large.epsilon <= at_small.epsilon and at_large.delta <= at_small.delta


@given(st.one_of(EPS, st.just(INF)), DELTA, RATE)
def test_rate_change_limits(epsilon, delta, rate_from):
    assert bounds.rate_change(epsilon, delta, rate_from, 0.0) == (0.0, 0.0)
    same = bounds.rate_change(epsilon, delta, rate_from, rate_from)  # η = 1: the input, rounded up
    assert same.epsilon >= epsilon and (epsilon == INF or ulps_between(same.epsilon, epsilon) <= EPS_SLACK)
    assert same.delta >= delta and ulps_between(same.delta, delta) <= DELTA_SLACK
    assert bounds.rate_change(0.0, delta, rate_from, rate_from / 3).epsilon == 0.0


# --------------------------------------------------------------------------------------------------------
# Vectorised == scalar; return types
# --------------------------------------------------------------------------------------------------------

def scalar_grid(function, arrays, **kwargs):
    """Scalar calls over the broadcast grid of ``arrays``."""
    grid = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in arrays])
    eps = np.empty(grid[0].shape)
    dlt = np.empty(grid[0].shape)
    for index in np.ndindex(grid[0].shape):
        g = function(*(float(a[index]) for a in grid), **kwargs)
        assert type(g.epsilon) is float and type(g.delta) is float
        eps[index], dlt[index] = g
    return eps, dlt


def assert_same_floats(array_result, scalar_result):
    eps, dlt = scalar_result
    assert isinstance(array_result.epsilon, np.ndarray) and isinstance(array_result.delta, np.ndarray)
    assert array_result.epsilon.shape == eps.shape and array_result.delta.shape == dlt.shape
    np.testing.assert_array_equal(array_result.epsilon, eps)
    np.testing.assert_array_equal(array_result.delta, dlt)


def column(values):
    return np.array(values, dtype=np.float64).reshape(-1, 1)


@settings(max_examples=cap(40))
@given(st.lists(st.one_of(EPS, st.sampled_from([0.0, INF])), min_size=3, max_size=3),
       st.lists(DELTA, min_size=4, max_size=4), st.lists(st.one_of(RATE, st.just(0.0)), min_size=4, max_size=4))
def test_poisson_vectorised_equals_scalar(eps, delta, rate):
    for function in (bounds.poisson_subsampling, bounds.poisson_subsampling_inverse):
        args = (column(eps), np.array(delta), np.array(rate))  # (3, 1) with (4,) -> (3, 4)
        result = function(*args)
        assert result.epsilon.shape == (3, 4)
        assert_same_floats(result, scalar_grid(function, args))


@settings(max_examples=cap(40))
@given(st.lists(EPS, min_size=3, max_size=3), DELTA, st.lists(m_and_n(max_n=10 ** 6), min_size=4, max_size=4))
def test_sampling_vectorised_equals_scalar(eps, delta, mns):
    m = np.array([mn[0] for mn in mns], dtype=np.float64)
    n = np.array([mn[1] for mn in mns], dtype=np.float64)
    for function, kwargs in [(bounds.without_replacement, {}), (bounds.with_replacement, {}),
                             (bounds.with_replacement, {"relation": "add_remove"})]:
        args = (column(eps), delta, m, n)
        result = function(*args, **kwargs)
        assert result.epsilon.shape == (3, 4)
        assert_same_floats(result, scalar_grid(function, args, **kwargs))


@settings(max_examples=cap(40))
@given(st.lists(EPS, min_size=3, max_size=3), st.lists(DELTA, min_size=4, max_size=4),
       st.lists(rate_pair(), min_size=4, max_size=4))
def test_rate_change_vectorised_equals_scalar(eps, delta, rates):
    args = (column(eps), np.array(delta), np.array([r[0] for r in rates]), np.array([r[1] for r in rates]))
    result = bounds.rate_change(*args)
    assert result.epsilon.shape == (3, 4)
    assert_same_floats(result, scalar_grid(bounds.rate_change, args))


CALLS = [
    (bounds.poisson_subsampling, (1.0, 1e-6, 0.01)),
    (bounds.poisson_subsampling_inverse, (1.0, 1e-6, 0.01)),
    (bounds.without_replacement, (1.0, 1e-6, 100, 10_000)),
    (bounds.with_replacement, (1.0, 1e-6, 100, 10_000)),
    (bounds.rate_change, (1.0, 1e-6, 0.5, 0.01)),
]


@pytest.mark.parametrize("function, args", CALLS, ids=lambda x: getattr(x, "__name__", ""))
def test_return_types(function, args):
    g = function(*args)
    assert type(g) is Guarantee and isinstance(g, tuple) and g._fields == ("epsilon", "delta")
    assert type(g.epsilon) is float and type(g.delta) is float
    assert g == (g.epsilon, g.delta) and g[0] is g.epsilon and g[1] is g.delta
    # numpy scalars and 0-d arrays are scalars too
    for scalarish in (tuple(np.float64(a) for a in args), tuple(np.array(a) for a in args)):
        h = function(*scalarish)
        assert type(h.epsilon) is float and type(h.delta) is float
        assert h == g
    # lists and 1-element arrays give arrays
    arr = function(*([a] for a in args))
    assert type(arr) is Guarantee
    assert isinstance(arr.epsilon, np.ndarray) and isinstance(arr.delta, np.ndarray)
    assert arr.epsilon.shape == (1,) and arr.epsilon.dtype == np.float64
    assert arr.epsilon[0] == g.epsilon and arr.delta[0] == g.delta
    # one array argument is enough to get arrays back
    mixed = function(np.array([args[0], args[0]]), *args[1:])
    assert isinstance(mixed.epsilon, np.ndarray) and mixed.epsilon.shape == (2,)
    assert list(mixed.epsilon) == [g.epsilon, g.epsilon] and list(mixed.delta) == [g.delta, g.delta]


def test_guarantee_is_a_namedtuple():
    assert issubclass(Guarantee, tuple)
    assert Guarantee._fields == ("epsilon", "delta")
    g = Guarantee(1.0, 2.0)
    eps, dlt = g
    assert (eps, dlt) == (1.0, 2.0) and g.epsilon == 1.0 and g.delta == 2.0
    assert g._replace(delta=3.0) == (1.0, 3.0)


@pytest.mark.parametrize("function, args", [
    (bounds.poisson_subsampling, (1.0, 1.0, 1.0)),
    (bounds.poisson_subsampling, (0.0, 1.0, 1.0)),
    (bounds.without_replacement, (1.0, 1.0, 7, 7)),
    (bounds.with_replacement, (1.0, 1.0, 1, 1)),
    (bounds.with_replacement, (1.0, 1.0, 50, 1)),
    (bounds.rate_change, (1.0, 1.0, 0.5, 0.5)),
    (bounds.rate_change, (1.0, 1.0, 1.0, 1.0)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_delta_is_a_probability(function, args):
    """SPEC Conventions: δ ∈ [0, 1].  The exact δ' here is exactly 1 (η = 1, δ = 1); rounding it up must not
    leave [0, 1] — a δ' above 1 is not a guarantee and is rejected when passed on to any other function."""
    g = function(*args)
    assert 1.0 <= g.delta <= 1.0, f"{function.__name__}{args}: delta' = {g.delta!r}"
    bounds.group_privacy(g.epsilon, g.delta, 2)  # composes: must not raise


@given(EPS, DELTA, RATE)
def test_delta_never_exceeds_one(epsilon, delta, rate):
    for g in (bounds.poisson_subsampling(epsilon, delta, rate),
              bounds.rate_change(epsilon, delta, 1.0, rate)):
        assert 0.0 <= g.delta <= 1.0, (epsilon, delta, rate, g.delta)
