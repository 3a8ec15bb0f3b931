"""Tests of the mechanism vocabulary (Laplace, Gaussian, EpsDelta) and the profile-level T1–T4 functions.

References: SPEC T3's Gaussian sum query (n = 4, m = 3, σ = 0.7, ε = 0.1) computed exactly in mpmath by
``proofs_checks.brute_force`` (normal tails at the likelihood-ratio roots, cross-checked by quadrature) and
the 50-digit group-profile sum of ``proofs_checks.references``; T11's closed forms for the Poisson case.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import bounds
from proofs_checks import brute_force, references
from proofs_checks.subsampled_profile_references import spec_delta

SIGMA = 0.7


def _t3_references():
    with mp.workdps(50):
        eta = 1 - (1 - mp.mpf(1) / 4) ** 3
        eps_prime = mp.log(1 + eta * (mp.exp(mp.mpf("0.1")) - 1))
        h_pq, h_qp, *_ = brute_force.gaussian_sum_exact_delta(eps_prime)
        exact = max(h_pq, h_qp)
        theta = 1 / mp.mpf(SIGMA)  # the float σ = 0.7 as the library sees it: θ = 1/0.7 in floats below
        bound = references.with_replacement_delta(
            0.1, 0.0, 3, 4, profile=lambda k: brute_force.gaussian_profile(k * mp.mpf(1 / SIGMA), mp.mpf(0.1)))
        return exact, bound, eps_prime, theta


def test_spec_t3_gaussian_case():
    exact, bound, eps_prime, _ = _t3_references()
    g = bounds.with_replacement_profile(bounds.Gaussian(theta=1 / SIGMA), 0.1, 3, 4)
    assert mp.mpf(g.delta) >= bound  # ≥ the 0.3445 group-profile value at 50 digits (same float θ and ε)
    assert mp.mpf(g.delta) >= exact  # ≥ the brute-force exact 0.3315
    assert abs(g.delta - 0.3445) < 1e-4 and abs(float(exact) - 0.3315) < 1e-4
    assert g.delta / float(bound) - 1 < 1e-12
    assert mp.mpf(g.epsilon) >= eps_prime


def test_white_box_strictly_tighter_than_bare_epsilon_delta():
    theta = 1 / SIGMA
    for eps, m, n in [(0.1, 3, 4), (1.0, 10, 7), (0.5, 100, 500), (2.0, 20, 1000)]:
        white = bounds.with_replacement_profile(bounds.Gaussian(theta=theta), eps, m, n)
        bare = bounds.with_replacement(eps, bounds.gaussian_profile(eps, theta=theta), m, n)
        assert white.epsilon == bare.epsilon
        assert white.delta < bare.delta, (eps, m, n, white, bare)
    # the EpsDelta mechanism reproduces the bare function
    e = bounds.EpsDelta(0.1, bounds.gaussian_profile(0.1, theta=theta))
    assert bounds.with_replacement_profile(e, 0.1, 3, 4) == bounds.with_replacement(0.1, e.delta, 3, 4)


def test_one_draw_is_the_base_profile_over_n():
    g = bounds.with_replacement_profile(bounds.Laplace(theta=1.0), 0.3, 1, 10)
    assert g.delta >= bounds.laplace_profile(0.3, theta=1.0) / 10 * (1 - 1e-15)
    assert g.delta / (bounds.laplace_profile(0.3, theta=1.0) / 10) - 1 < 1e-13


def test_poisson_profile_is_tight_for_gaussian():
    """p·δ_T9(ε) at A_p(ε) equals the exact subsampled REMOVE profile (SPEC T11 identity): sandwich."""
    for eps, theta, p in [(1.0, 1.0, 0.1), (0.3, 0.5, 0.01), (5.0, 2.0, 0.5)]:
        g = bounds.poisson_subsampling_profile(bounds.Gaussian(theta=theta), eps, p)
        exact = spec_delta("gaussian", "remove", g.epsilon, theta, p)  # SPEC T11 at the (rounded-up) ε'
        assert mp.mpf(g.delta) >= exact
        assert g.delta / exact - 1 < 1e-11


def test_poisson_and_without_replacement_profile_vectorised_and_epsdelta():
    e = bounds.EpsDelta(1.0, 1e-6)
    g = bounds.poisson_subsampling_profile(e, 1.0, [0.01, 0.1])
    t1 = bounds.poisson_subsampling(1.0, 1e-6, np.array([0.01, 0.1]))
    assert np.array_equal(g.epsilon, t1.epsilon) and np.all(g.delta >= t1.delta * (1 - 1e-15))
    w = bounds.without_replacement_profile(bounds.Gaussian(theta=2.0), 0.5, 3, 10)
    assert w.delta >= 0.3 * bounds.gaussian_profile(0.5, theta=2.0)


def test_epsdelta_profile_and_group_profile():
    e = bounds.EpsDelta(1.0, 1e-3)
    assert e.profile(1.0) >= 1e-3 and e.profile(1.0) < 1e-3 * (1 + 1e-13)
    with mp.workdps(50):
        F0 = mp.exp(1)
        ref = mp.mpf(1e-3) + (1 - mp.mpf(1e-3)) * (F0 - mp.exp(mp.mpf(0.5))) / (1 + F0)
        assert mp.mpf(e.profile(0.5)) >= ref
        g_ref = (mp.exp(1) - 1) / (mp.exp(mp.mpf(0.5)) - 1) * ref
        assert mp.mpf(e.group_profile(1.0, 2)) >= g_ref
    # black box never beats white box: Gaussian group profile ≤ T7 form of its own profile
    theta = 0.8
    gauss = bounds.Gaussian(theta=theta)
    for k in (2, 3, 5):
        black = (math.expm1(1.0) / math.expm1(1.0 / k)) * gauss.profile(1.0 / k)
        assert gauss.group_profile(1.0, k) <= black


def test_group_is_k_theta():
    assert bounds.Gaussian(theta=0.3).group(3).theta >= 0.9
    assert bounds.Laplace(theta=0.5).group(1) == bounds.Laplace(theta=0.5)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), "x"])
def test_bad_theta(bad):
    with pytest.raises(ValueError, match="theta"):
        bounds.Gaussian(theta=bad)
    with pytest.raises(ValueError, match="theta"):
        bounds.Laplace(theta=bad)


def test_bad_inputs():
    with pytest.raises(ValueError, match="mechanism"):
        bounds.poisson_subsampling_profile((1.0, 1e-6), 1.0, 0.1)
    with pytest.raises(ValueError, match="rate"):
        bounds.poisson_subsampling_profile(bounds.Gaussian(theta=1.0), 1.0, 1.5)
    with pytest.raises(ValueError, match="delta"):
        bounds.EpsDelta(1.0, 2.0)
    with pytest.raises(ValueError, match="relation"):
        bounds.with_replacement_profile(bounds.Gaussian(theta=1.0), 1.0, 3, 4, relation="x")
    with pytest.raises(ValueError, match="ε₀"):
        bounds.with_replacement_profile(bounds.EpsDelta(1.0, 1e-6), 0.5, 3, 4)
    with pytest.raises(ValueError, match="integer"):
        bounds.Gaussian(theta=1.0).group(1.5)
