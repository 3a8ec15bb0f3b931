"""Tests of ``bounds.group_privacy`` (SPEC T7, Vadhan Lemma 2.2): (kε, δ·Σ_{j=0}^{k−1} e^{jε}), δ capped at 1.

References are independent of the library's closed form: ε' = kε exactly as a ``Fraction``; δ' from the
*sum* Σ_{j<k} e^{jε} in mpmath for k ≤ 400 (the library evaluates the closed form (e^{kε} − 1)/(e^ε − 1)),
and from the closed form at high precision above that; exact rationals at ε = 0.  Soundness is checked
exactly (the returned float against the reference as binary numbers, never via ``float(reference)``).
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
from tests.exact_arith import INF, assert_upper, cap, digits, log_uniform, ordered

ULPS = 16  # tightness allowance in float steps for every T7 check (assert_upper's default is 8)


# ---------------------------------------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------------------------------------

def group_delta_ref(epsilon: float, delta: float, k: int):
    """min(1, δ·Σ_{j=0}^{k−1} e^{jε}): exact at ε = 0, the sum for k ≤ 400, the closed form above."""
    if delta == 0 or k == 1:
        return Fraction(delta)
    if epsilon == 0:
        return min(Fraction(1), k * Fraction(delta))
    with mp.workdps(digits(epsilon, delta)):
        e = mpf(epsilon)
        if k <= 400:
            total = mp.fsum(mp.exp(j * e) for j in range(k))
        else:
            total = (mp.exp(k * e) - 1) / (mp.exp(e) - 1)
        return +min(mpf(1), mpf(delta) * total)


EPS = st.one_of(log_uniform(-300, 4), st.sampled_from([1e-300, 1e-16, 1.0, 350.0, 700.0, 710.0, 1e4]))
DELTA = st.one_of(log_uniform(-300, 0), st.sampled_from([1e-300, 0.5, 1.0]))
K = st.one_of(st.integers(1, 50), st.integers(1, 400), st.integers(401, 10 ** 6), st.sampled_from([1, 2, 10 ** 9]))


# ---------------------------------------------------------------------------------------------------------
# Soundness and tightness
# ---------------------------------------------------------------------------------------------------------

@given(EPS, DELTA, K)
@example(1e-200, 1e-200, 2)       # δ·(e^{kε} − 1) underflows although δ' ≈ 2e-200
@example(1e-300, 1e-30, 2)
@example(1e-160, 1e-160, 3)
@example(0.5, 1e-6, 3)            # the docstring example
@example(1e4, 1e-300, 2)
@example(1e-300, 1e-300, 10 ** 6)
@example(1e-3, 1e-300, 10 ** 6)   # kε = 1000: the log-space branch, δ' ≈ 1e-300·e^{1000}/(e^{1e-3} − 1) → 1
@example(0.1, 1e-300, 7000)       # kε = 700: the branch boundary
@example(0.1, 1e-300, 7001)
def test_group_privacy_sound_and_tight(epsilon, delta, k):
    g = bounds.group_privacy(epsilon, delta, float(k))
    assert_upper(g.epsilon, k * Fraction(epsilon), ulps=ULPS, what=f"T7 eps' at {epsilon!r}, k={k}")
    assert_upper(g.delta, group_delta_ref(epsilon, delta, k), ulps=ULPS,
                 what=f"T7 delta' at {epsilon!r}, {delta!r}, k={k}")
    assert g.delta <= 1.0


@given(st.one_of(log_uniform(-323.3, -308), st.sampled_from([5e-324, 1e-310, 2.2250738585072014e-308])),
       st.one_of(log_uniform(-3, 3), st.sampled_from([709.0, 710.0, 800.0])), st.integers(2, 100))
@example(1e-310, 710.0, 2)
def test_group_privacy_subnormal_delta(delta, epsilon, k):
    """δ below the normal range (e.g. a δ computed by another bound): δ' still sound and tight up to the
    subnormal step; when δ' < 1 it must not be reported as 1 just because e^{(k−1)ε} overflows."""
    g = bounds.group_privacy(epsilon, delta, float(k))
    assert_upper(g.delta, group_delta_ref(epsilon, delta, k), ulps=ULPS,
                 what=f"T7 delta' at {epsilon!r}, {delta!r}, k={k}")


@given(DELTA, K)
def test_group_privacy_epsilon_zero(delta, k):
    """ε = 0: ε' = 0 exactly and δ' = min(1, kδ)."""
    g = bounds.group_privacy(0.0, delta, float(k))
    assert g.epsilon == 0.0
    assert_upper(g.delta, min(Fraction(1), k * Fraction(delta)), ulps=ULPS, what=f"T7 eps 0, delta {delta!r}, k={k}")


@given(st.one_of(EPS, st.sampled_from([0.0, INF, 5e-324, 1.7976931348623157e308])),
       st.one_of(DELTA, st.sampled_from([0.0, 5e-324])))
def test_group_privacy_k_one_is_identity(epsilon, delta):
    g = bounds.group_privacy(epsilon, delta, 1)
    assert g == (epsilon, delta)
    assert type(g.epsilon) is float and type(g.delta) is float


@given(DELTA, st.integers(2, 10 ** 6))
def test_group_privacy_infinite_epsilon(delta, k):
    g = bounds.group_privacy(INF, delta, float(k))
    assert g.epsilon == INF
    assert g.delta == 1.0  # Σ e^{jε} is infinite and δ > 0


def test_group_privacy_infinite_epsilon_zero_delta():
    g = bounds.group_privacy(INF, 0.0, 3)
    assert g.epsilon == INF and 0.0 <= g.delta <= 1.0


def test_group_privacy_overflowing_epsilon():
    """kε above the largest double: ε' = inf is the only sound float."""
    g = bounds.group_privacy(1e308, 0.0, 2)
    assert g.epsilon == INF and g.delta == 0.0


def test_group_privacy_delta_capped_at_one():
    g = bounds.group_privacy(1.0, 0.5, 3)  # 0.5·(1 + e + e²) ≈ 5.55
    assert g.delta == 1.0
    assert g.epsilon >= 3.0 and g.epsilon - 3.0 <= 4 * math.ulp(3.0)


def test_group_privacy_exact_rational_case():
    """ε = ln 2 makes Σ_{j<k} 2^j = 2^k − 1: δ' = (2^k − 1)δ (up to the rounding of ln 2 itself)."""
    for k in (2, 3, 10, 20):
        delta = 2.0 ** -40
        g = bounds.group_privacy(math.log(2), delta, k)
        target = (2 ** k - 1) * Fraction(delta)
        assert abs(Fraction(g.delta) / target - 1) < Fraction(1, 10 ** 13), (k, g.delta)
        assert_upper(g.delta, group_delta_ref(math.log(2), delta, k), ulps=ULPS, what=f"ln 2, k={k}")


# ---------------------------------------------------------------------------------------------------------
# Monotonicity
# ---------------------------------------------------------------------------------------------------------

@given(EPS, DELTA, st.tuples(K, st.integers(0, 3)).map(lambda t: (t[0], t[0] + t[1])) | st.lists(K, min_size=2, max_size=2).map(sorted))
def test_group_privacy_monotone_in_k(epsilon, delta, ks):
    small, large = (bounds.group_privacy(epsilon, delta, float(k)) for k in ks)
    assert small.epsilon <= large.epsilon and small.delta <= large.delta


@given(ordered(EPS), DELTA, K)
def test_group_privacy_monotone_in_epsilon(eps_pair, delta, k):
    """ε' strictly; δ' up to 2 ulps: δ·(e^{kε} − 1)/(e^ε − 1) divides two separately rounded quantities that
    both move with ε, so where the exact δ' changes by less than an ulp (e.g. k = 1e9, δ = 1e-13,
    ε = 10^-190.5 vs 1e-25: exact relative change 5e-17) the evaluation error can reverse the order."""
    small, large = (bounds.group_privacy(e, delta, float(k)) for e in eps_pair)
    assert small.epsilon <= large.epsilon
    assert small.delta <= large.delta + 2 * math.ulp(large.delta), (small.delta, large.delta)


@given(EPS, ordered(DELTA, 1.0), K)
def test_group_privacy_monotone_in_delta(epsilon, delta_pair, k):
    small, large = (bounds.group_privacy(epsilon, d, float(k)) for d in delta_pair)
    assert small.delta <= large.delta and small.epsilon == large.epsilon


@given(EPS, DELTA)
def test_group_privacy_monotone_over_a_range_of_k(epsilon, delta):
    g = bounds.group_privacy(epsilon, delta, np.arange(1.0, 301.0))
    assert np.all(np.diff(g.epsilon) >= 0) and np.all(np.diff(g.delta) >= 0)


# ---------------------------------------------------------------------------------------------------------
# Vectorised == scalar; types
# ---------------------------------------------------------------------------------------------------------

@settings(max_examples=cap(40))
@given(st.lists(st.one_of(EPS, st.sampled_from([0.0, INF])), min_size=3, max_size=3),
       st.lists(DELTA, min_size=4, max_size=4), st.lists(K, min_size=4, max_size=4))
def test_group_privacy_vectorised_equals_scalar(eps, delta, ks):
    e = np.array(eps).reshape(3, 1)
    d = np.array(delta)
    k = np.array(ks, dtype=np.float64)
    g = bounds.group_privacy(e, d, k)
    assert isinstance(g.epsilon, np.ndarray) and isinstance(g.delta, np.ndarray)
    assert g.epsilon.shape == (3, 4) and g.delta.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            s = bounds.group_privacy(float(e[i, 0]), float(d[j]), float(k[j]))
            assert type(s.epsilon) is float and type(s.delta) is float
            assert g.epsilon[i, j] == s.epsilon and g.delta[i, j] == s.delta, (i, j)


def test_group_privacy_types():
    g = bounds.group_privacy(0.5, 1e-6, 3)
    assert type(g) is Guarantee and g._fields == ("epsilon", "delta")
    assert type(g.epsilon) is float and type(g.delta) is float
    for args in ((np.float64(0.5), np.float64(1e-6), np.int64(3)), (np.array(0.5), np.array(1e-6), np.array(3))):
        h = bounds.group_privacy(*args)
        assert type(h.epsilon) is float and type(h.delta) is float and h == g
    arr = bounds.group_privacy([0.5], 1e-6, 3)
    assert isinstance(arr.epsilon, np.ndarray) and isinstance(arr.delta, np.ndarray)
    assert arr.epsilon.shape == (1,) and arr.epsilon[0] == g.epsilon and arr.delta[0] == g.delta
    assert bounds.group_privacy(0.5, 1e-6, 3.0) == g  # an integral float is accepted for k


@pytest.mark.parametrize("k", [2, 3, 7])
def test_group_privacy_composes_with_subsampling(k):
    """A subsampled guarantee fed to group privacy: both sound against the composed exact value."""
    epsilon, delta, rate = 0.3, 1e-7, 0.01
    sub = bounds.poisson_subsampling(epsilon, delta, rate)
    grp = bounds.group_privacy(sub.epsilon, sub.delta, k)
    with mp.workdps(60):
        eps1 = mp.log(1 + mpf(rate) * (mp.exp(mpf(epsilon)) - 1))
        exact_eps = k * eps1
        exact_delta = mpf(delta) * mpf(rate) * mp.fsum(mp.exp(j * eps1) for j in range(k))
    assert mpf(grp.epsilon) >= exact_eps and mpf(grp.delta) >= exact_delta
    assert mpf(grp.epsilon) <= exact_eps * (1 + mpf("1e-13"))
    assert mpf(grp.delta) <= exact_delta * (1 + mpf("1e-13"))
