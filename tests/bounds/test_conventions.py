"""Issue 15's API items: keyword-only k-anonymization inverses, min_k an int, relation "add/remove", the
noise-multiplier keyword (θ = 1/σ rounded up), and what rate 1 promises."""
import math
from fractions import Fraction

import numpy as np
import pytest

import bounds

THETA_FUNCTIONS = {
    "laplace_profile": (0.5,), "laplace_profile_inverse": (1e-3,),
    "gaussian_profile": (0.5,), "gaussian_profile_inverse": (1e-3,),
    "subsampled_gaussian_profile": (0.5,), "subsampled_gaussian_profile_inverse": (1e-3,),
    "subsampled_laplace_profile": (0.5,), "subsampled_laplace_profile_inverse": (1e-3,),
}


@pytest.mark.parametrize("name", ["safe_k_anonymization_min_k", "safe_k_anonymization_min_epsilon",
                                  "safe_k_anonymization_max_beta"])
def test_k_anonymization_inverses_are_keyword_only(name):
    with pytest.raises(TypeError):
        getattr(bounds, name)(2.0, 0.2, 20.0)


def test_min_k_is_an_int():
    k = bounds.safe_k_anonymization_min_k(delta=1e-6, beta=0.2, epsilon=1.0)
    assert type(k) is int and k == 14
    ks = bounds.safe_k_anonymization_min_k(delta=[1e-2, 1e-1], beta=0.2, epsilon=1.0)
    assert ks.dtype == np.int64 and list(ks) == [bounds.safe_k_anonymization_min_k(delta=d, beta=0.2, epsilon=1.0)
                                                 for d in (1e-2, 1e-1)]


def test_relation_accepts_what_is_printed():
    assert bounds.theorem("T4").relation.startswith("add/remove")
    assert bounds.with_replacement(1.0, 1e-6, 3, 4, relation="add/remove") == \
        bounds.with_replacement(1.0, 1e-6, 3, 4, relation="add_remove")
    g = bounds.Gaussian(theta=1.0)
    assert bounds.with_replacement_profile(g, 0.1, 3, 4, relation="add/remove") == \
        bounds.with_replacement_profile(g, 0.1, 3, 4, relation="add_remove")


@pytest.mark.parametrize("name", sorted(THETA_FUNCTIONS))
def test_noise_multiplier_keyword(name):
    f = getattr(bounds, name)
    first = THETA_FUNCTIONS[name]
    extra = {"rate": 0.1} if name.startswith("subsampled") else {}
    for sigma in (0.5,):  # a power of two: 1/σ is exact, so the results agree exactly
        assert f(*first, noise_multiplier=sigma, **extra) == f(*first, theta=1.0 / sigma, **extra)
    from bounds._noise import reciprocal_up

    for sigma in (1.1,):  # θ = 1/σ rounded up (test_reciprocal_is_rounded_up_exactly)
        assert f(*first, noise_multiplier=sigma, **extra) == f(*first, theta=reciprocal_up(sigma), **extra)
    with pytest.raises(ValueError, match="exactly one of theta"):
        f(*first, theta=1.0, noise_multiplier=1.0, **extra)
    with pytest.raises(ValueError, match="exactly one of theta"):
        f(*first, **extra)
    with pytest.raises(ValueError, match="noise_multiplier"):
        f(*first, noise_multiplier=0.0, **extra)
    doc = f.__doc__
    assert "1/noise_multiplier" in doc and "Not the noise" in doc


def test_reciprocal_is_rounded_up_exactly():
    from bounds._noise import reciprocal_up

    for sigma in (1.1, 3.0, 0.7, 1e-300, 1e300, 2.0 ** -1020, 7.0, 2.0, 0.25):
        theta = reciprocal_up(sigma)
        assert Fraction(theta) * Fraction(sigma) >= 1  # θ ≥ 1/σ exactly
        assert Fraction(theta) * Fraction(sigma) <= 1 + Fraction(1, 2 ** 51)  # and at most 2 ulps above
    assert list(reciprocal_up(np.array([2.0, 4.0]))) == [0.5, 0.25]
    with pytest.raises(ValueError, match="overflows"):
        bounds.gaussian_profile(1.0, noise_multiplier=2.0 ** -1070)


def test_rate_one_is_the_input_within_the_stated_rounding():
    g = bounds.poisson_subsampling(0.5, 1e-6, 1.0)
    assert g.delta == 1e-6 and 0.5 <= g.epsilon <= 0.5 + 6 * 2.0 ** -53  # ≤ 4 + 1.44 ulps (README)
    assert bounds.poisson_subsampling(0.5, 1e-6, 0.0) == (0.0, 0.0)
    below = bounds.poisson_subsampling(0.5, 1e-6, math.nextafter(1.0, 0.0))
    assert below.epsilon <= g.epsilon  # monotone in the rate: why rate 1 is not special-cased
