"""Missing-data mechanisms (p*, ρ exact from their definitions) and NA-aware FWL releases (SPEC T17, T18).

Independent routes: the mask probabilities are written here from each mechanism's definition (not read from
the generator), p* and ρ are recomputed by enumerating all 2^d masks in exact rationals, the sampled masks are
G-tested against those probabilities at fixed seeds, noise against its CDF (mpmath), and the Appendix B.3
counterexample is enumerated exactly.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import bounds
from bounds.procedures import (MARThreshold, mar_threshold, mcar, missing_clipped_mean, missing_histogram,
                               missing_mean, missing_sum, na_fill, observe_exactly)
from tests.goodness_of_fit import g_test_pooled

mpmath.mp.dps = 60


def masks(d: int):
    return list(itertools.product((False, True), repeat=d))


# definitions, written independently of bounds.procedures.missing
def mcar_pmf(rates, mask):
    out = Fraction(1)
    for r, m in zip(rates, mask):
        out *= Fraction(r) if m else 1 - Fraction(r)
    return out


def observe_pmf(r, d, mask):
    return Fraction(1, math.comb(d, r)) if d - sum(mask) == r else Fraction(0)


def mar_pmf(driver_value, mask, *, driver, threshold, below, above, dropout):
    if all(mask):
        return Fraction(dropout)
    if mask[driver]:
        return Fraction(0)
    rate = Fraction(below) if driver_value < threshold else Fraction(above)
    out = 1 - Fraction(dropout)
    for j, m in enumerate(mask):
        if j != driver:
            out *= rate if m else 1 - rate
    return out


def p_star_rho(pmf, d):
    """p* and ρ by enumeration: 1 − P[all missing], the largest observed fraction with positive probability."""
    table = {m: pmf(m) for m in masks(d)}
    assert sum(table.values()) == 1
    return 1 - table[(True,) * d], max(Fraction(d - sum(m), d) for m, p in table.items() if p > 0)


# ---------------------------------------------------------------------------------------------------------
# p* and ρ, exactly

@pytest.mark.parametrize("rate,d", [(Fraction(1, 2), 3), (Fraction(1, 3), 4), (0, 2), (1, 3), (Fraction(9, 10), 1),
                                    ([Fraction(1, 2), 0, Fraction(3, 4)], 3), ([1, 1, Fraction(1, 5)], 3)])
def test_mcar_p_star_rho(rate, d):
    rates = rate if isinstance(rate, list) else [rate] * d
    g = mcar(rate, d)
    p, rho = p_star_rho(lambda m: mcar_pmf(rates, m), d)
    assert g.p_star == p and g.rho == rho and isinstance(g.p_star, Fraction)
    if not isinstance(rate, list):
        assert g.p_star == 1 - Fraction(rate) ** d


def test_mcar_float_rates_round_p_star_up():
    for rate, d in [(0.3, 7), (0.1, 3), (0.99999, 100_000), (0.5, 5000)]:
        g = mcar(rate, d)
        exact = 1 - mpmath.mpf(rate) ** d
        assert mpmath.mpf(g.p_star) >= exact
        assert mpmath.mpf(math.nextafter(g.p_star, 0)) < exact or g.p_star == 0


@pytest.mark.parametrize("r,d", [(0, 3), (1, 3), (2, 4), (4, 4), (3, 10)])
def test_observe_exactly_p_star_rho(r, d):
    g = observe_exactly(r, d)
    if d <= 6:
        p, rho = p_star_rho(lambda m: observe_pmf(r, d, m), d)
        assert (g.p_star, g.rho) == (p, rho)
    assert g.rho == Fraction(r, d) and g.p_star == (1 if r else 0)


@pytest.mark.parametrize("below,above,dropout", [(Fraction(1, 4), Fraction(3, 4), Fraction(1, 10)),
                                                 (1, 1, Fraction(1, 2)), (0, Fraction(1, 2), 0), (1, 1, 1)])
def test_mar_p_star_rho(below, above, dropout):
    d, driver, threshold = 4, 1, 40.0
    g = mar_threshold(d, driver=driver, threshold=threshold, rate_below=below, rate_above=above, dropout=dropout)
    assert g.mechanism == "MAR"
    results = set()
    for value in (30.0, 50.0):
        results.add(p_star_rho(lambda m: mar_pmf(value, m, driver=driver, threshold=threshold, below=below,
                                                 above=above, dropout=dropout), d))
    # p* is the same for every record (MAR, Lemma 3.1); ρ is the largest over the support of all records
    assert len({p for p, _ in results}) == 1
    assert g.p_star == results.pop()[0] if len(results) == 1 else g.p_star == 1 - Fraction(dropout)
    rhos = [p_star_rho(lambda m: mar_pmf(v, m, driver=driver, threshold=threshold, below=below, above=above,
                                          dropout=dropout), d)[1] for v in (30.0, 50.0)]
    assert g.rho == max(rhos)


# ---------------------------------------------------------------------------------------------------------
# the samplers have those distributions (G-tests at fixed seeds)

@pytest.mark.parametrize("rates", [[Fraction(1, 2)] * 3, [0.3, 0.0, 0.9, 0.5], [Fraction(1, 3), 1, Fraction(1, 7)]])
def test_mcar_sample_distribution(rates):
    d = len(rates)
    n = 60_000
    sample = mcar(rates, d).sample(n, np.random.default_rng(5))
    observed = Counter(map(tuple, sample.tolist()))
    pmf = {m: mcar_pmf(rates, m) for m in masks(d)}
    assert g_test_pooled(observed, pmf, n) > 1e-4
    # all-missing frequency against 1 − p* (Wilson-free: 6 standard errors)
    g = mcar(rates, d)
    freq = observed.get((True,) * d, 0) / n
    q = 1 - float(g.p_star)
    assert abs(freq - q) <= 6 * math.sqrt(q * (1 - q) / n) + 1e-12


@pytest.mark.parametrize("r,d", [(1, 3), (2, 4), (3, 5), (0, 2), (3, 3)])
def test_observe_exactly_sample_distribution(r, d):
    n = 40_000
    sample = observe_exactly(r, d).sample(n, np.random.default_rng(6))
    assert ((~sample).sum(axis=1) == r).all()
    observed = Counter(map(tuple, sample.tolist()))
    assert g_test_pooled(observed, {m: observe_pmf(r, d, m) for m in masks(d)}, n) > 1e-4


def test_mar_sample_distribution():
    d, driver, threshold = 3, 0, 40.0
    params = dict(driver=driver, threshold=threshold, below=Fraction(1, 4), above=Fraction(2, 3),
                  dropout=Fraction(1, 5))
    g = mar_threshold(d, driver=driver, threshold=threshold, rate_below=params["below"],
                      rate_above=params["above"], dropout=params["dropout"])
    n = 80_000
    data = np.zeros((n, d))
    data[: n // 2, driver] = 30.0
    data[n // 2:, driver] = 55.0
    data[:, 1:] = 7.0
    sample = g.sample(n, np.random.default_rng(8), data=data)
    for rows, value in ((slice(0, n // 2), 30.0), (slice(n // 2, n), 55.0)):
        observed = Counter(map(tuple, sample[rows].tolist()))
        pmf = {m: mar_pmf(value, m, **params) for m in masks(d)}
        assert g_test_pooled(observed, pmf, n // 2) > 1e-4
        for m in masks(d):
            assert g.probability(m, record=[value, 0, 0]) == pmf[m]


# ---------------------------------------------------------------------------------------------------------
# NA arithmetic and the releases

def test_na_fill_is_na_plus_zero():
    data = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, 6.0]])
    assert na_fill(data).tolist() == [[1.0, 0.0, 3.0], [0.0, 5.0, 6.0]]
    mask = np.array([[True, False, False], [False, False, True]])
    assert na_fill(np.ones((2, 3)), mask).tolist() == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match="mask"):
        na_fill(np.ones((2, 3)), mask[:1])
    with pytest.raises(ValueError, match="2-D"):
        na_fill([1.0, 2.0])


def laplace_cdf(x, b):
    x = mpmath.mpf(x)
    return mpmath.mpf(1) / 2 * mpmath.exp(x / b) if x < 0 else 1 - mpmath.mpf(1) / 2 * mpmath.exp(-x / b)


def normal_cdf(x, s):
    return mpmath.ncdf(mpmath.mpf(x) / s)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_release_is_query_plus_calibrated_noise(noise):
    """value − (NA-aware sum) is Laplace(C/ε) or N(0, σ²) with the stated scale (G-test on 20 quantile bins)."""
    rng = np.random.default_rng(9)
    n, d = 40, 500
    data = rng.integers(-3, 4, size=(n, d)).astype(float)
    mask = rng.random((n, d)) < 0.3
    exact = np.where(mask, 0.0, data).sum(axis=0)  # NA + 0 = 0, by hand
    gen = mcar(0.3, d)  # the declared mechanism: every pattern has positive probability
    residuals = []
    for seed in range(20):
        kw = dict(delta=1e-5) if noise == "gaussian" else {}
        out = missing_sum(data, gen, bound=3, epsilon=0.5, mask=mask, noise=noise, rng=seed, **kw)
        residuals.append(out.value - exact)
    residuals = np.concatenate(residuals)
    c = Fraction(2 * 3 * d)  # C = 2B·Σ L_j, L_j = 1
    if noise == "laplace":
        assert out.scale == float(c / Fraction(0.5))
        cdf = lambda x: laplace_cdf(x, mpmath.mpf(out.scale))  # noqa: E731
    else:
        # σ = C·c/ε with c² > 2 ln(1.25/δ) strictly, and not more than a few ulps above
        c_used = mpmath.mpf(out.scale) * mpmath.mpf(0.5) / mpmath.mpf(int(c))
        assert c_used ** 2 > 2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(1e-5))
        assert c_used < mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(1e-5))) * (1 + 1e-14)
        cdf = lambda x: normal_cdf(x, mpmath.mpf(out.scale))  # noqa: E731
    edges = np.quantile(residuals, np.linspace(0, 1, 21)[1:-1])
    probs = [cdf(e) for e in edges]
    expected = np.diff([0.0] + [float(p) for p in probs] + [1.0])
    counts = np.bincount(np.searchsorted(edges, residuals), minlength=20)
    # the bins are data-chosen quantiles; the reference probabilities are the CDF's at those edges
    g = 2 * sum(o * math.log(o / (e * residuals.size)) for o, e in zip(counts, expected) if o > 0)
    assert float(mpmath.gammainc(19 / 2, g / 2, mpmath.inf, regularized=True)) > 1e-4


def test_release_guarantees_feed_the_bounds():
    data = np.ones((100, 10))
    out = missing_sum(data, observe_exactly(3, 10), bound=1, epsilon=1.0, rng=0)
    # T18 with p* = 1, r = 3/10: ε' = 0.3 ε (exactly ln(1 + (e^{0.3} − 1)))
    assert out.guarantee == bounds.missing_data_laplace(1.0, 1.0, Fraction(3, 10))
    assert mpmath.mpf(out.guarantee.epsilon) >= mpmath.mpf(3) / 10
    out = missing_mean(np.zeros((50, 4)), mcar(Fraction(1, 2), 4), bound=1, epsilon=0.5, rng=0)
    exact = mpmath.log(1 + mpmath.mpf(15) / 16 * mpmath.expm1(mpmath.mpf(0.5)))
    assert mpmath.mpf(out.guarantee.epsilon) >= exact
    assert mpmath.mpf(out.guarantee.epsilon) <= exact * (1 + 1e-15)
    assert out.scale == float(Fraction(2 * 4, 50) / Fraction(0.5))
    g = missing_histogram([0, 1, 2, 2], observe_exactly(1, 3), cells=3, epsilon=0.8, delta=1e-6, noise="gaussian",
                          rng=0)
    assert g.guarantee == bounds.missing_data_gaussian(0.8, 1e-6, 1.0, Fraction(1, 3))
    assert g.complete_data == (0.8, 1e-6)
    cm = missing_clipped_mean(np.full((10, 5), -9.0), mcar(0, 5), clip=Fraction(1, 3), epsilon=1.0, mask="nan", rng=0)
    assert cm.guarantee.epsilon >= 1.0 and cm.p_star == 1  # nothing missing: no amplification


def test_release_values_without_noise_scale():
    """The query part, isolated with a huge ε (scale ≈ 0): clipped mean, histogram, MAR with data."""
    data = np.array([[5.0, -5.0, 0.5], [np.nan, 2.0, -0.25]])
    out = missing_clipped_mean(data, mcar(Fraction(1, 2), 3), clip=1, epsilon=1e300, mask="nan", rng=0)
    assert np.allclose(out.value, [(1.0 + 0) / 2, (-1.0 + 1.0) / 2, (0.5 - 0.25) / 2], atol=1e-12)
    out = missing_histogram(np.array([0, 2, 2, 1]), mcar(0, 3), cells=3, epsilon=1e300, rng=0)
    assert np.allclose(out.value, [1, 1, 2], atol=1e-12)
    g = mar_threshold(2, driver=0, threshold=0.5, rate_below=1, rate_above=0)
    out = missing_sum(np.array([[0.0, 1.0], [1.0, 1.0]]), g, bound=1, epsilon=1e300, rng=0)
    assert np.allclose(out.value, [1.0, 1.0], atol=1e-12)  # the first record's second feature is always masked


# ---------------------------------------------------------------------------------------------------------
# Appendix B.3: a mechanism that never masks the queried feature of the differing record — no amplification

def test_appendix_b3_no_amplification_is_claimed():
    j0, d = 1, 3
    for gen in (mcar([Fraction(1, 2), 0, Fraction(1, 2)], d), mcar([1, 0, 1], d)):
        assert gen.p_star == 1  # the differing record is always partly observed
        # A0: randomized response (e^ε = 3) on the differing record's feature j0; its output law under D0,
        # enumerated over masks, equals A0's on complete data, for both neighbours (z_{i*}^{j0} = 0 or 1)
        def composed(bit):
            out = Counter()
            for m in masks(d):
                p = mcar_pmf(gen.rates, m)
                assert not (m[j0] and p > 0)  # j0 is never masked
                out[1] += p * (Fraction(3, 4) if bit else Fraction(1, 4))
                out[0] += p * (Fraction(1, 4) if bit else Fraction(3, 4))
            return out

        p, q = composed(1), composed(0)
        assert p == {1: Fraction(3, 4), 0: Fraction(1, 4)} and q == {1: Fraction(1, 4), 0: Fraction(3, 4)}
        for eps in (0.0, 0.5, 1.0, math.log(3) * 0.999):
            exact = sum(max(mpmath.mpf(0), mpmath.mpf(p[o].numerator) / p[o].denominator
                            - mpmath.exp(mpmath.mpf(eps)) * q[o].numerator / q[o].denominator) for o in (0, 1))
            assert exact > 0  # no (ε, 0) below ln 3: the composed mechanism is exactly as private as A0
        # T17 at the generator's p*: exactly A0's guarantee, never less
        g = bounds.missing_data(math.log(3), 0.0, float(gen.p_star))
        assert g.epsilon >= math.log(3) and g.delta == 0.0
        # T18 for the query f = z_{i*}^{j0} (FWL constants e_{j0}): r = 1 at any ρ ≥ 1/d, so no amplification
        query = bounds.fwl_linear([[0, 1, 0]])
        for rho in (gen.rho, Fraction(1, 3)):
            assert query.ratio(rho) == 1
            assert bounds.missing_data_laplace(1.0, float(gen.p_star), query.ratio(rho)).epsilon >= 1.0


def test_substitution_relation_is_documented():
    import bounds.procedures.missing as module

    assert "substitute one record (bounded DP)" in module.__doc__
    for f in (missing_sum, missing_mean, mcar):
        assert "ubstitut" in (f.__doc__ or "") or f is mcar and "substitute" in mcar.__doc__


# ---------------------------------------------------------------------------------------------------------
# refusals

@pytest.mark.parametrize("rate", [math.nan, math.inf, -0.1, 1.5, "0.5", True, 1 + 0j, 10 ** 400, None, [0.5],
                                  [[0.5, 0.5]]])
def test_mcar_bad_rate(rate):
    with pytest.raises(ValueError, match="rate"):
        mcar(rate, 2)


@pytest.mark.parametrize("d", [0, -1, 1.5, True, "3", None, 2.0, 2 ** 53 + 1, 10 ** 400])
def test_bad_features(d):
    for make in (lambda: mcar(0.5, d), lambda: observe_exactly(1, d),
                 lambda: mar_threshold(d, threshold=0, rate_below=0, rate_above=0)):
        with pytest.raises(ValueError, match="features"):
            make()


def test_other_refusals():
    with pytest.raises(ValueError, match="exceeds"):
        observe_exactly(4, 3)
    with pytest.raises(ValueError, match="r = "):
        observe_exactly(-1, 3)
    with pytest.raises(ValueError, match="driver"):
        mar_threshold(3, driver=3, threshold=0, rate_below=0, rate_above=0)
    with pytest.raises(ValueError, match="threshold"):
        mar_threshold(3, threshold=math.nan, rate_below=0, rate_above=0)
    g = mar_threshold(2, threshold=0, rate_below=0, rate_above=1)
    with pytest.raises(ValueError, match="data is required"):
        g.sample(3, 0)
    with pytest.raises(ValueError, match="shape"):
        g.sample(3, 0, data=np.zeros((2, 2)))
    for n in (-1, 2 ** 53 + 1, 1.0, True):
        with pytest.raises(ValueError, match="n = "):
            mcar(0.5, 2).sample(n, 0)
    with pytest.raises(ValueError, match="threshold"):
        mar_threshold(3, threshold=10 ** 400, rate_below=0, rate_above=0)
    with pytest.raises(ValueError, match="overflows"):
        missing_sum(np.ones((2, 2)), mcar(0.5, 2), bound=1e300, epsilon=1e-300)
    with pytest.raises(TypeError, match="rng"):
        mcar(0.5, 2).sample(3, "x")
    assert mcar(0.5, 2).sample(0, 0).shape == (0, 2)
    data, gen = np.ones((4, 2)), mcar(0.5, 2)
    for kw, match in [(dict(bound=1, epsilon=0.0), "epsilon"), (dict(bound=1, epsilon=math.nan), "epsilon"),
                      (dict(bound=1, epsilon=2.0, delta=1e-5, noise="gaussian"), "ε ≤ 1"),
                      (dict(bound=1, epsilon=0.5, noise="gaussian"), "delta"),
                      (dict(bound=1, epsilon=0.5, delta=1e-5), "delta is for"),
                      (dict(bound=1, epsilon=1.0, noise="cauchy"), "noise"),
                      (dict(bound=0.5, epsilon=1.0), "bound"), (dict(bound=-1, epsilon=1.0), "bound"),
                      (dict(bound=1, epsilon=1.0, mask=np.zeros((4, 3), bool)), "mask"),
                      (dict(bound=10 ** 400, epsilon=1.0), "bound"), (dict(bound=1, epsilon=10 ** 400), "epsilon"),
                      (dict(bound=1, epsilon=0.5, delta=10 ** 400, noise="gaussian"), "delta"),
                      (dict(bound=1, epsilon=1 + 0j), "epsilon")]:
        with pytest.raises(ValueError, match=match):
            missing_sum(data, gen, rng=0, **kw)
    with pytest.raises(ValueError, match="features"):
        missing_sum(np.ones((4, 3)), gen, bound=1, epsilon=1.0)
    with pytest.raises(ValueError, match="NaN"):
        missing_sum(np.array([[1.0, np.nan]]), gen, bound=1, epsilon=1.0)
    with pytest.raises(TypeError, match="MaskGenerator"):
        missing_sum(data, "mcar", bound=1, epsilon=1.0)
    with pytest.raises(ValueError, match="codes"):
        missing_histogram([0, 3], observe_exactly(1, 3), cells=3, epsilon=1.0)
    with pytest.raises(ValueError, match="one-hot"):
        missing_histogram(np.ones((2, 3)), observe_exactly(1, 3), cells=3, epsilon=1.0)
    with pytest.raises(ValueError, match="infinite"):
        missing_mean(np.array([[math.inf, 0.0]]), gen, bound=1, epsilon=1.0)
    for bad in ([[10 ** 400, 0]], np.array([[1 + 1j, 0]]), [["a", "b"]], np.zeros((0, 2)), [1.0, 2.0]):
        with pytest.raises(ValueError, match="data"):
            missing_mean(bad, gen, bound=1, epsilon=1.0)
    assert isinstance(mar_threshold(2, threshold=0, rate_below=0.5, rate_above=0.5), MARThreshold)


def test_given_masks_must_be_possible_under_the_declared_mechanism():
    """A mask with probability 0 under the declared generator means its p* and ρ describe other data."""
    data = np.array([[1.0, np.nan, 0.5], [0.0, 0.25, 0.5]])
    with pytest.raises(ValueError, match="record 1 has probability 0"):
        missing_sum(data, observe_exactly(2, 3), bound=1, epsilon=1.0, mask="nan")  # record 1: 3 observed
    with pytest.raises(ValueError, match="record 0 has probability 0"):
        missing_sum(data, mcar([0, 0, Fraction(1, 2)], 3), bound=1, epsilon=1.0, mask="nan")  # π_1 = 0, masked
    missing_sum(data, mcar([0, Fraction(1, 2), 0], 3), bound=1, epsilon=1.0, mask="nan", rng=0)
    g = mar_threshold(3, driver=0, threshold=0.5, rate_below=1, rate_above=Fraction(1, 2))
    # record 0: driver 1.0 ≥ 0.5, rate 1/2 — fine; record 1: driver 0.0 < 0.5, rate 1 — its observed features are not
    with pytest.raises(ValueError, match="record 1"):
        missing_sum(data, g, bound=1, epsilon=1.0, mask="nan")
    full = np.array([[True, True, True], [False, True, True]])
    with pytest.raises(ValueError, match="record 0"):  # all missing, but dropout = 0
        missing_sum(np.zeros((2, 3)), g, bound=1, epsilon=1.0, mask=full)
    g = mar_threshold(3, driver=0, threshold=0.5, rate_below=1, rate_above=Fraction(1, 2), dropout=Fraction(1, 3))
    missing_sum(np.zeros((2, 3)), g, bound=1, epsilon=1.0, mask=full, rng=0)
    for gen, data_ in ((mcar(Fraction(1, 3), 3), None), (observe_exactly(1, 3), None), (g, np.zeros((50, 3)))):
        sample = gen.sample(50, 0, data=data_)
        assert gen.supports(sample, data_).all()
