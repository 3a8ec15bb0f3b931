"""Cyclic batches (issue 21): E epochs are a Gaussian at θ√E — exact references in mpmath; the plug-in
round composes with the built-in mechanisms; bad input."""
import math

import pytest

import bounds
from bounds.samplers import cyclic
from proofs_checks.composition_references import gaussian_delta

# the width warnings are expected here (pytest resets the global filters for every test: a mark, not
# warnings.filterwarnings)
pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")


@pytest.mark.parametrize("sigma,epochs,eps", [(2.0, 4, 1.0), (1.0, 10, 3.0), (0.8, 1, 0.5)])
def test_epochs_are_gaussian_theta_sqrt_e(sigma, epochs, eps):
    exact = float(gaussian_delta(eps, math.sqrt(epochs) / sigma))
    s = bounds.compose([(cyclic(bounds.Gaussian.from_noise_multiplier(sigma), 50), epochs)], tolerance=1e-3).delta(eps)
    assert s.lower <= exact <= s.upper
    assert s.upper - s.lower <= 1e-3 * exact + 1e-12


def test_replace_one_doubles_theta():
    exact = float(gaussian_delta(1.0, 2.0 * math.sqrt(3) / 4.0))
    r = cyclic(bounds.Gaussian.from_noise_multiplier(4.0), 10, adjacency="replace_one")
    s = bounds.compose([(r, 3)]).delta(1.0)
    assert s.lower <= exact <= s.upper


def test_heterogeneous_with_builtin_gaussian():
    # 3 cyclic epochs at σ = 2 then 5 plain Gaussian(0.25) steps: θ² = 3/4 + 5/16
    exact = float(gaussian_delta(0.7, math.sqrt(0.75 + 5 / 16)))
    g = bounds.Gaussian.from_noise_multiplier(2.0)
    s = bounds.compose([(cyclic(g, 7), 3), (bounds.Gaussian(theta=0.25), 5)]).delta(0.7)
    assert s.lower <= exact <= s.upper


def test_bad_input():
    g = bounds.Gaussian.from_noise_multiplier(1.0)
    with pytest.raises(TypeError, match="mechanism"):
        cyclic(bounds.EpsDelta(1.0, 0.0), 10)
    for bad in (0, -1, 1.5, math.nan, math.inf, "10", True, 10 ** 400, 2 ** 53 + 1, 1 + 1j):
        with pytest.raises(ValueError, match="steps_per_epoch"):
            cyclic(g, bad)
    for bad in ("add", None, 1, "ZERO_OUT"):
        with pytest.raises(ValueError, match="adjacency"):
            cyclic(g, 10, adjacency=bad)
    import numpy as np
    assert cyclic(g, np.int64(10)).steps_per_epoch == 10
