"""Shuffled batches (issue 21): the certified lower side against the one-epoch closed form in mpmath and a
Monte Carlo of the composed max-pair; the upper side is the cyclic Gaussian; the README example; bad input."""
import math

import mpmath as mp
import numpy as np
import pytest

import bounds
from bounds.samplers import shuffled
from proofs_checks.composition_references import gaussian_delta

# the width warnings are expected here (pytest resets the global filters for every test: a mark, not
# warnings.filterwarnings)
pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")


def _g(sigma):
    return bounds.Gaussian.from_noise_multiplier(sigma)


def _closed_form(eps, sigma, T, zero_out):
    """sup_C [1 − Φ(C − 2θ)Φ(C)^{T−1}] − e^ε[1 − Φ(C − bθ)Φ(C)^{T−1}] (b = 1 zero-out, 0 replace-one), at the
    stationary point found by mpmath (50 digits): the hockey stick of the max-pair's threshold tests.  The
    root search starts at the argmax of the same g on the grid c = j/20 evaluated in binary64 (only a start:
    the root and g at it are mpmath's; the 16 references are bit-identical to those of a 50-digit start scan,
    which took 0.2 s each)."""
    a64, b64 = 2.0 / sigma, (1.0 / sigma if zero_out else 0.0)

    def phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2.0))

    def g64(c):
        return (1 - phi(c - a64) * phi(c) ** (T - 1)) - math.exp(eps) * (1 - phi(c - b64) * phi(c) ** (T - 1))
    j0 = max(range(-100, 300), key=lambda j: g64(j / 20))
    with mp.workdps(50):
        a = 2 / mp.mpf(sigma)
        b = 1 / mp.mpf(sigma) if zero_out else mp.mpf(0)
        F = lambda x, s: mp.ncdf(x - s) * mp.ncdf(x) ** (T - 1)  # noqa: E731
        f = lambda x, s: mp.npdf(x - s) * mp.ncdf(x) ** (T - 1) + (T - 1) * mp.ncdf(x - s) * mp.npdf(x) * mp.ncdf(x) ** (T - 2)  # noqa: E731
        g = lambda c: (1 - F(c, a)) - mp.e ** eps * (1 - F(c, b))  # noqa: E731
        start = mp.mpf(j0) / 20
        root = mp.findroot(lambda x: -f(x, a) + mp.e ** eps * f(x, b), start)
        return float(g(root))


@pytest.mark.parametrize("adjacency", ["zero_out", "replace_one"])
@pytest.mark.parametrize("sigma,T", [(1.0, 100), (0.7, 10)])
def test_one_epoch_lower_side_is_the_closed_form(adjacency, sigma, T):
    comp = bounds.compose([(shuffled(_g(sigma), T, adjacency=adjacency), 1)], tolerance=1e-3)
    theta = (2.0 if adjacency == "replace_one" else 1.0) / sigma
    for eps in (0.0, 0.5, 1.0, 2.0):
        ref = _closed_form(eps, sigma, T, adjacency == "zero_out")
        s = comp.delta(eps)
        assert s.lower <= ref * (1 + 1e-9)           # the max-pair's δ (a lower bound on shuffling's)
        assert s.lower >= ref * (1 - 2e-3)           # and tight against it
        assert s.upper >= float(gaussian_delta(eps, theta))  # upper: the cyclic Gaussian


def _phi(x):
    return 0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2.0))


def _log_ratio(m, a, b, T):
    # ln f_P/f_Q of the max under P (one coordinate at a) and Q (one at b), densities in closed form
    def dens(s):
        pdf = np.exp(-0.5 * (m - s) ** 2) / math.sqrt(2 * math.pi)
        pdf0 = np.exp(-0.5 * m ** 2) / math.sqrt(2 * math.pi)
        return pdf * _phi(m) ** (T - 1) + (T - 1) * _phi(m - s) * pdf0 * _phi(m) ** (T - 2)
    return np.log(dens(a)) - np.log(dens(b))


def test_composed_lower_side_below_monte_carlo():
    # E reshuffled epochs: the lower side must not exceed the product max-pair's δ (MC, 99.99 % interval)
    sigma, T, E, eps, n = 1.0, 10, 3, 2.0, 100_000
    rng = np.random.default_rng(20261201)
    a, b = 2 / sigma, 1 / sigma
    total = np.zeros(n)
    for _ in range(E):
        x = rng.standard_normal((n, T))
        x[:, 0] += a
        total += _log_ratio(x.max(axis=1), a, b, T)
    v = np.maximum(1 - np.exp(eps - total), 0)
    hi = v.mean() + 3.9 * v.std(ddof=1) / math.sqrt(n)
    lo = v.mean() - 3.9 * v.std(ddof=1) / math.sqrt(n)
    s = bounds.compose([(shuffled(_g(sigma), T), E)], tolerance=1e-3).delta(eps)
    assert s.lower <= hi
    assert s.lower >= lo * 0.98  # and close to it


def test_readme_example_poisson_claim_is_invalid_for_shuffling():
    g = _g(1.0)
    shuffle = bounds.compose([(shuffled(g, 100), 50)]).epsilon(1e-5)
    poisson = bounds.compose([(bounds.poisson_sampled(g, 0.01), 5000)], tolerance=1e-2).epsilon(1e-5)
    assert 4.19 < poisson.lower <= poisson.upper < 4.21
    assert shuffle.lower >= 20.0


def test_fixed_order_and_monotone_in_epochs():
    g = _g(2.0)
    fixed = bounds.compose([(shuffled(g, 20, order="fixed", epochs=4), 1)]).delta(1.0)
    one = bounds.compose([(shuffled(_g(1.0), 20), 1)]).delta(1.0)
    assert fixed.lower == pytest.approx(one.lower, rel=1e-6)
    e2 = bounds.compose([(shuffled(g, 20), 2)]).delta(1.0)
    e4 = bounds.compose([(shuffled(g, 20), 4)]).delta(1.0)
    assert e2.lower < e4.lower <= e4.upper and e2.upper < e4.upper


def test_bad_input():
    g = _g(1.0)
    with pytest.raises(TypeError, match="Gaussian"):
        shuffled(bounds.Laplace(theta=1.0), 10)
    for bad in (0, 2.5, math.nan, math.inf, "10", True, 10 ** 400, None):
        with pytest.raises(ValueError, match="steps_per_epoch"):
            shuffled(g, bad)
    for bad in ("add_remove", "zero-out", None, 0):
        with pytest.raises(ValueError, match="adjacency"):
            shuffled(g, 10, adjacency=bad)
    with pytest.raises(ValueError, match="order"):
        shuffled(g, 10, order="random")
    with pytest.raises(ValueError, match="epochs"):
        shuffled(g, 10, order="fixed")
    with pytest.raises(ValueError, match="epochs"):
        shuffled(g, 10, epochs=5)


@pytest.mark.parametrize("adjacency", ["zero_out", "replace_one"])
def test_partial_last_batch_keeps_the_max_pair(adjacency):
    """n not a multiple of b (T = ⌈n/b⌉, the last batch partial): the lower side rests on the law of
    M = max_t (batch sum_t + |B_t| − noise-free baseline) being F_P(x) = Φ(x − 2θ)Φ(x)^{T−1} whatever batch holds
    the differing record (proof note, "A partial last batch").  Simulate the shuffled pipeline itself — a uniform
    permutation of n = 7 records cut into batches of b = 3 (sizes 3, 3, 1), gradients −1 and the differing
    record +1 (D) or 0 / −1 (D'), Gaussian noise σ on each batch sum — and compare the empirical CDF of M with
    F_P and F_Q at T = 3 by the DKW inequality (false-alarm probability 2e-6 per curve).  A pair built from
    ⌊n/b⌋ = 2 batches would be caught (its law is more than twice the DKW radius away)."""
    rng = np.random.default_rng(20261201)
    n, b, sigma, runs = 7, 3, 1.0, 100000
    T = -(-n // b)
    sizes = np.array([min(b, n - t * b) for t in range(T)])
    other = -1.0 if adjacency == "replace_one" else 0.0
    perms = np.argsort(rng.random((runs, n)), axis=1)  # uniform permutations; record 0 is the differing one
    batch_of_record0 = np.argmax(perms == 0, axis=1) // b
    grid = np.linspace(-3.0, 6.0, 181)
    dkw = math.sqrt(math.log(2 / 2e-6) / (2 * runs))

    def cdf(shift):
        return np.array([float(mp.ncdf(x - shift) * mp.ncdf(x) ** (T - 1)) for x in grid])

    for value in (1.0, other):
        shift = value + 1.0
        sums = -sizes[None, :].astype(float) + np.where(np.arange(T)[None, :] == batch_of_record0[:, None],
                                                        value + 1.0, 0.0)
        y = sums + sigma * rng.standard_normal((runs, T))
        m = np.max(y + sizes[None, :], axis=1)  # the adversary knows the batch sizes
        empirical = np.searchsorted(np.sort(m), grid, side="right") / runs
        assert np.max(np.abs(empirical - cdf(shift / sigma))) < dkw
        # the test can tell T from T − 1: the two laws are more than 2·dkw apart somewhere on the grid
        wrong = np.array([float(mp.ncdf(x - shift / sigma) * mp.ncdf(x) ** (T - 2)) for x in grid])
        assert np.max(np.abs(cdf(shift / sigma) - wrong)) > 2 * dkw
