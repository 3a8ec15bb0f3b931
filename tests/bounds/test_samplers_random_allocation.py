"""Random allocation k of T (issue 21): k = 1 is balls-and-bins, k = T the Gaussian at θ√T (mpmath),
dp_accounting PR #414's published value, Monte Carlo of the k-subset mixture pair, bad input."""
import itertools
import math

import numpy as np
import pytest

import bounds
from bounds.samplers import balls_and_bins, random_allocation
from proofs_checks.composition_references import gaussian_delta

# the width warnings are expected here (pytest resets the global filters for every test: a mark, not
# warnings.filterwarnings)
pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")


def _g(sigma):
    return bounds.Gaussian.from_noise_multiplier(sigma)


def test_one_of_t_is_balls_and_bins():
    a = bounds.compose([(random_allocation(_g(1.0), 10), 2)], tolerance=1e-2).delta(1.0)
    b = bounds.compose([(balls_and_bins(_g(1.0), 10), 2)], tolerance=1e-2).delta(1.0)
    assert a.lower == b.lower and a.upper == pytest.approx(b.upper, rel=1e-12)  # upper: a no-op power adds ulps


def test_all_steps_is_the_gaussian():
    exact = float(gaussian_delta(1.0, math.sqrt(5) / 2.0))
    s = bounds.compose([(random_allocation(_g(2.0), 5, selected=5), 1)]).delta(1.0)
    assert s.lower <= exact <= s.upper


def test_published_pr414_value():
    # dp_accounting PR #414 test: σ = 2, k = 10, T = 100, δ = 1e-6: ε = 2.4265 (float64 upper bound)
    e = bounds.compose([(random_allocation(_g(2.0), 100, selected=10), 1)]).epsilon(1e-6)
    assert e.lower <= e.upper <= 2.4265


def test_monte_carlo_k_subsets():
    # T = 4, k = 2: the REMOVE pair (mixture over the 6 subsets, N_4) and its ADD mirror, sampled directly
    sigma, T, k, eps, n = 1.0, 4, 2, 1.0, 200_000
    rng = np.random.default_rng(20261201)
    subsets = np.array([[1.0 if t in s else 0.0 for t in range(T)] for s in itertools.combinations(range(T), k)])
    res = []
    for direction in ("remove", "add"):
        x = rng.standard_normal((n, T)) * sigma
        if direction == "remove":
            x += subsets[rng.integers(0, len(subsets), n)]
        z = (x @ subsets.T - k / 2.0) / sigma ** 2
        top = z.max(axis=1)
        ell = top + np.log(np.exp(z - top[:, None]).mean(axis=1))
        ell = ell if direction == "remove" else -ell
        v = np.maximum(1 - np.exp(eps - ell), 0)
        m, se = v.mean(), v.std(ddof=1) / math.sqrt(n)
        res.append((m - 3.9 * se, m + 3.9 * se))
    lo, hi = max(res[0][0], res[1][0]), max(res[0][1], res[1][1])
    s = bounds.compose([(random_allocation(_g(sigma), T, selected=k), 1)], tolerance=1e-2).delta(eps)
    assert s.lower <= hi and lo <= s.upper, (s, lo, hi)


def test_bad_input():
    g = _g(1.0)
    with pytest.raises(TypeError, match="Gaussian"):
        random_allocation(bounds.EpsDelta(1.0, 0.0), 10)
    for bad in (0, 11, 2.5, math.nan, "1", True):
        with pytest.raises(ValueError, match="selected"):
            random_allocation(g, 10, selected=bad)
    for bad in (0, math.inf, 10 ** 400, None):
        with pytest.raises(ValueError, match="steps"):
            random_allocation(g, bad)
