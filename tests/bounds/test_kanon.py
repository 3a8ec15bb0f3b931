"""SPEC T15/T16: safe k-anonymization after Poisson sampling (bounds.kanon, numeric.kanon)."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bounds
from bounds.kanon import smallest_admissible_epsilon
from proofs_checks.kanon_checks import DIGITS, PINNED, _first_j, exact_worst_delta, reference, scan_start

betas = st.floats(0.02, 0.95)
small_k = st.integers(1, 60)


def admissible(beta: float, extra: float) -> float:
    return smallest_admissible_epsilon(beta) + extra


def test_published_value_and_k_plus_10():
    assert 1.58e-12 < bounds.safe_k_anonymization_delta(20, 0.2, 2.0) < 1.6e-12
    d = bounds.safe_k_anonymization_delta(np.array([20.0, 30.0]), 0.2, 2.0)
    assert 4.8 <= math.log10(d[0] / d[1]) <= 5.9


def _arb_mpf(x) -> mp.mpf:
    """An Arb ball's midpoint or radius (a dyadic number) as an exact mpf."""
    man, exp = x.man_exp()
    return mp.mpf((int(man), int(exp)))


def reference_arb(k: float, beta: float, epsilon: float) -> tuple[mp.mpf, mp.mpf]:
    """Enclosure ``(lower, upper)`` of d(k, β, ε) = max_n P{Bin(n, β) ≥ j₀(n)} over the *same* long scan as
    ``proofs_checks.kanon_checks.reference`` (n from n_m, at least 50 past it, on until exp(−n·KL) < 10⁻³ of
    the maximum; n_m and j₀ = smallest j > γn decided by that module's exact rising-precision helpers), each
    tail the regularised incomplete beta function P{Bin(n, β) ≥ j} = I_β(j, n − j + 1) (1 ≤ j ≤ n) enclosed
    by python-flint's Arb at 220 bits (β is a double, so exact in Arb) instead of 50-digit mpmath term sums
    (the tails were 96 % of that reference's time).  Measured on 10 random points of this test, the PINNED
    ones and 3 more (18 scans): 0.29 s CPU against 4.4 s; every enclosure's relative width ≤ 2e-63; the
    term sums lie within 2.2e-51 relative of it (their own 50-digit rounding)."""
    from flint import arb, ctx

    with mp.workprec(2300):
        e = mp.mpf(epsilon)  # exact
    old_prec = ctx.prec
    ctx.prec = 220
    try:
        z = arb(beta)
        with mp.workdps(DIGITS):
            kl, n_m = scan_start(k, beta, e)
            n = n_m
            lower, upper = mp.mpf(-1), mp.mpf(-1)
            while True:
                j0 = _first_j(n, beta, e)
                assert 1 <= j0, (n, j0)
                if j0 <= n:
                    t = z.beta_lower(j0, n - j0 + 1, regularized=True)
                    mid, rad = _arb_mpf(t.mid()), _arb_mpf(t.rad())
                    with mp.workprec(1000):  # exact sums of the dyadic ends
                        lower, upper = max(lower, mid - rad), max(upper, mid + rad)
                if n >= n_m + 50 and mp.exp(-n * kl) < lower * mp.mpf("1e-3"):
                    return lower, upper
                n += 1
    finally:
        ctx.prec = old_prec


# 10 random points, each a live long scan (Arb incomplete beta functions: ~20 ms each, the 50-digit mpmath
# term sums of proofs_checks.kanon_checks.reference took ~0.3 s); the certificate's T15/T16 accuracy checks
# compare ~400 grid points against the stored references on every run (tests/proofs_checks/test_certify.py
# recomputes a sample of those)
@settings(max_examples=10)
@given(k=small_k, beta=betas, extra=st.floats(0.0, 5.0))
def test_sound_and_accurate_vs_mpmath(k, beta, extra):
    eps = admissible(beta, extra)
    d = bounds.safe_k_anonymization_delta(k, beta, eps)
    lower, upper = reference_arb(float(k), beta, eps)
    assert mp.mpf(d) >= upper  # above the whole enclosure: above the exact value
    if lower > 1e-300:
        assert mp.mpf(d) - lower <= 1e-12 * lower  # then |d − exact| ≤ 1e-12·exact


def test_arb_reference_is_the_mpmath_reference():
    """The Arb route encloses the 50-digit term sums (proofs_checks.kanon_checks.reference, stored for the
    pinned points) and is as narrow as them."""
    for k, beta, eps in [(k, b, e) for k, b, e, _, _ in PINNED]:
        lower, upper = reference_arb(k, beta, eps)
        ref = reference(k, beta, eps)[0]
        with mp.workdps(DIGITS):
            assert lower * (1 - mp.mpf(10) ** -45) <= ref <= upper * (1 + mp.mpf(10) ** -45), (k, beta, eps)
            assert upper - lower <= mp.mpf(10) ** -45 * upper


@pytest.mark.parametrize("k, beta, eps, arg, n_m", PINNED)
def test_maximum_not_at_n_m(k, beta, eps, arg, n_m):
    import numeric.kanon as K

    assert K.argmax(k, beta, eps) == arg and K.start(k, beta, eps) == n_m and arg != n_m
    ref = reference(k, beta, eps)
    assert ref[1] == arg
    assert mp.mpf(bounds.safe_k_anonymization_delta(k, beta, eps)) >= ref[0]


@settings(max_examples=40)
@given(k=small_k, beta=betas, extra=st.floats(0.0, 4.0), dk=st.integers(1, 20))
def test_nonincreasing_in_k(k, beta, extra, dk):
    eps = admissible(beta, extra)
    assert bounds.safe_k_anonymization_delta(k + dk, beta, eps) <= bounds.safe_k_anonymization_delta(k, beta, eps)


@settings(max_examples=40)
@given(k=small_k, beta=betas, extra=st.floats(0.0, 4.0), de=st.floats(1e-9, 3.0))
def test_nonincreasing_in_epsilon(k, beta, extra, de):
    eps = admissible(beta, extra)
    assert bounds.safe_k_anonymization_delta(k, beta, eps + de) <= bounds.safe_k_anonymization_delta(k, beta, eps)


def test_not_monotone_in_beta_pinned():
    # d drops where γn crosses an integer: the SPEC's "increasing in β" holds only between such jumps
    lo, hi = bounds.safe_k_anonymization_delta(1, [0.17563269539236354, 0.1757637643722186], 0.5)
    assert lo > hi


def test_increasing_in_beta_between_jumps():
    b = np.linspace(0.3, 0.3 + 1e-4, 50)  # no jump of γn for k = 5, ε = 2 in this window
    d = bounds.safe_k_anonymization_delta(5, b, 2.0)
    assert np.all(np.diff(d) >= 0)


def test_exact_threshold_and_strict_inequality():
    for beta in (0.1, 0.2, 0.25, 0.5):
        e = smallest_admissible_epsilon(beta)
        d = bounds.safe_k_anonymization_delta(10, beta, e)
        assert mp.mpf(d) >= reference(10.0, beta, e)[0]
        with pytest.raises(ValueError, match="below −ln\\(1 − beta\\)"):
            bounds.safe_k_anonymization_delta(10, beta, math.nextafter(e, 0.0))


def test_infinite_epsilon_gives_zero():
    assert bounds.safe_k_anonymization_delta(3, 0.5, math.inf) == 0.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(k=0, beta=0.2, epsilon=1.0), "k = 0 is outside"),
    (dict(k=2.5, beta=0.2, epsilon=1.0), "must be an integer"),
    (dict(k=3, beta=0.0, epsilon=1.0), "beta = 0 is outside"),
    (dict(k=3, beta=1.0, epsilon=1.0), "beta = 1 is outside"),
    (dict(k=3, beta=float("nan"), epsilon=1.0), "beta is NaN"),
    (dict(k=3, beta=0.2, epsilon=float("nan")), "epsilon is NaN"),
    (dict(k=3, beta=0.2, epsilon=0.1), "below −ln"),
    (dict(k=3, beta=0.2, epsilon=-1.0), "epsilon = -1"),
    (dict(k=[3, 4], beta=0.5, epsilon=[1.0, 0.5]), r"epsilon\[1\]"),
])
def test_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bounds.safe_k_anonymization_delta(**kwargs)


def test_vectorised_equals_scalar():
    K, B, E = np.meshgrid([1.0, 4.0, 25.0], [0.05, 0.3, 0.7], [1.5, 2.5, 6.0], indexing="ij")
    vec = bounds.safe_k_anonymization_delta(K, B, E)
    assert vec.shape == K.shape
    for idx in np.ndindex(K.shape):
        assert vec[idx] == bounds.safe_k_anonymization_delta(float(K[idx]), float(B[idx]), float(E[idx]))
    assert isinstance(bounds.safe_k_anonymization_delta(3, 0.5, 2.0), float)


def test_t16():
    assert bounds.eps1_safe_k_anonymization_delta(20, 0.2, 3.0, 1.0) == bounds.safe_k_anonymization_delta(20, 0.2, 2.0)
    assert bounds.eps1_safe_k_anonymization_delta(3, 0.5, 6.0, 2.0) >= 0.125
    with pytest.raises(ValueError, match="UNSAMPLED"):
        bounds.eps1_safe_k_anonymization_delta(3, 0.5, 6.0, 2.0, scheme_chosen_on="sample")
    with pytest.raises(ValueError, match="− epsilon1"):
        bounds.eps1_safe_k_anonymization_delta(3, 0.5, 2.0, 1.5)
    with pytest.raises(ValueError, match="epsilon1"):
        bounds.eps1_safe_k_anonymization_delta(3, 0.5, 2.0, math.inf)


def test_brute_force_tiny():
    from fractions import Fraction

    exact, _ = exact_worst_delta(2, Fraction(1, 2), Fraction(3), 12)
    assert Fraction(bounds.safe_k_anonymization_delta(2, 0.5, math.log(3) + 1e-15)) >= exact


@settings(max_examples=10)
@given(beta=st.floats(0.05, 0.6), extra=st.floats(0.0, 3.0), target=st.sampled_from([1e-3, 1e-6, 1e-10]))
def test_min_k_safe_side(beta, extra, target):
    eps = admissible(beta, extra)
    k = bounds.safe_k_anonymization_min_k(delta=target, beta=beta, epsilon=eps)
    assert reference_arb(float(k), beta, eps)[1] <= target  # the whole enclosure: the exact d
    if k > 1:
        assert bounds.safe_k_anonymization_delta(k - 1, beta, eps) > target


@settings(max_examples=8)
@given(k=st.integers(2, 40), beta=st.floats(0.05, 0.5), target=st.sampled_from([1e-2, 1e-5, 1e-8]))
def test_min_epsilon_safe_side(k, beta, target):
    if target < beta ** k:
        with pytest.raises(ValueError, match="no ε reaches"):
            bounds.safe_k_anonymization_min_epsilon(k=k, beta=beta, delta=target)
        return
    eps = bounds.safe_k_anonymization_min_epsilon(k=k, beta=beta, delta=target)
    assert reference_arb(float(k), beta, eps)[1] <= target  # the whole enclosure: the exact d
    below = math.nextafter(eps, 0.0)
    if below >= smallest_admissible_epsilon(beta):
        assert bounds.safe_k_anonymization_delta(k, beta, below) > target


@settings(max_examples=6)
@given(k=st.integers(2, 30), eps=st.floats(0.5, 4.0), target=st.sampled_from([1e-3, 1e-7]))
def test_max_beta_safe_side(k, eps, target):
    beta = bounds.safe_k_anonymization_max_beta(k=k, epsilon=eps, delta=target)
    assert 0 < beta < 1
    assert reference_arb(float(k), beta, eps)[1] <= target  # the whole enclosure: the exact d
