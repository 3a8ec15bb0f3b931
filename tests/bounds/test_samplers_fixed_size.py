"""Fixed-size batches drawn each step (issue 21, item 4): the one-step grids against brute force over tiny data
sets (every neighbouring pair enumerated, hockey sticks of the exact Gaussian mixtures from Φ differences in
mpmath), γ = 1 against the Gaussian, the hull kernel, monotonicity, bad input."""
import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import bounds
from bounds.composition import _C
from bounds.samplers.fixed_size import FixedSizeRound, _rate_bounds, fixed_size_sampled
from proofs_checks.composition_references import gaussian_delta

# the width warnings are expected here (pytest resets the global filters for every test: a mark, not
# warnings.filterwarnings)
pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")

mp.mp.dps = 30
H = 2.0 ** -10
EPSILONS = (-1.0, -0.2, 0.0, 0.05, 0.3, 1.0, 2.0)


def _mixture(grads, b, theta):
    """Means (noise units) of M(D): the batch sums over all b-subsets, equal weights."""
    return [theta * sum(s) for s in itertools.combinations(grads, b)]


def _mass(means, a, z):
    """P(a < X ≤ z) for the equal-weight mixture of N(μ, 1) (mpmath)."""
    return sum(mp.ncdf(z - m) - mp.ncdf(a - m) for m in means) / len(means)


def _hockey(p_means, q_means, epsilons):
    """[H_{e^ε}(P‖Q) = ∫(p − e^ε q)₊ for ε in ``epsilons``]: sign changes located on a fine float grid and
    bisected, then the positive intervals' masses from Φ differences (independent of the library's kernels).
    The two densities do not depend on ε: evaluated once on the grid, and the brackets of every ε bisected
    together (each with its own e^ε)."""
    pm = np.array(p_means)
    qm = np.array(q_means)

    def densities(x):
        x = np.asarray(x, dtype=float)[..., None]
        return np.exp(-0.5 * (x - pm) ** 2).mean(-1), np.exp(-0.5 * (x - qm) ** 2).mean(-1)

    # beyond 14 noise units from every mean both densities are < 1e-42: a crossing there changes H by less
    lo_x = min(pm.min(), qm.min()) - 14.0
    hi_x = max(pm.max(), qm.max()) + 14.0
    xs = np.linspace(lo_x, hi_x, 20001)
    p_xs, q_xs = densities(xs)
    cs = [math.exp(eps) for eps in epsilons]
    idx = []
    for c in cs:
        fs = p_xs - c * q_xs
        idx.append(np.flatnonzero(np.sign(fs[:-1]) != np.sign(fs[1:])))
    counts = [len(i) for i in idx]
    idx_all = np.concatenate(idx)
    c_all = np.repeat(cs, counts)
    a, b = xs[idx_all], xs[idx_all + 1]
    pa, qa = p_xs[idx_all], q_xs[idx_all]
    sa = np.sign(pa - c_all * qa)
    for _ in range(60):  # all brackets of all ε bisected together
        m = 0.5 * (a + b)
        pd, qd = densities(m)
        same = np.sign(pd - c_all * qd) == sa
        a = np.where(same, m, a)
        b = np.where(same, b, m)
    roots = np.split(0.5 * (a + b), np.cumsum(counts)[:-1])
    out = []
    for eps, c, r in zip(epsilons, cs, roots):
        cuts = [-mp.inf] + [mp.mpf(float(v)) for v in r]
        cuts.append(mp.inf)
        total = mp.mpf(0)
        for a, b in zip(cuts[:-1], cuts[1:]):
            if a == -mp.inf and b == mp.inf:
                mid = 0.0
            elif a == -mp.inf:
                mid = float(b) - 1.0
            elif b == mp.inf:
                mid = float(a) + 1.0
            else:
                mid = float((a + b) / 2)
            pd, qd = densities(mid)
            if pd - c * qd > 0:
                total += _mass(p_means, a, b) - mp.e ** eps * _mass(q_means, a, b)
        out.append(max(float(total), 0.0))
    return out


def _grid_delta(grid, eps, upward):
    """δ of an (untilted) grid at ε, rounded outward: the library's reader (directed-rounding suffix tables)."""
    C = _C()
    assert grid.tilt == 0.0
    b, c = C.hs_tables(grid.m, H, upward)
    return float(C.hs_eval(b, c, grid.k0, H, grid.m_inf, np.array([float(eps)]), upward)[0])


VALUES = (-1.0, -0.5, 0.0, 1.0)


def _neighbours(n, adjacency):
    """All (D, D') of n records with gradients in VALUES; replace-one: the last record changed;
    zero-out: the last record against the null record (gradient 0), both orders."""
    for others in itertools.combinations_with_replacement(VALUES, n - 1):
        for g in VALUES:
            if adjacency == "replace_one":
                for g2 in VALUES:
                    if g2 != g:
                        yield list(others) + [g], list(others) + [g2]
            else:
                yield list(others) + [g], list(others) + [0.0]
                yield list(others) + [0.0], list(others) + [g]


def _realised_pair(n, adjacency):
    """The pair the lower grids are checked against: others at −1; the record +1 against −1 (replace-one) or
    against the null record (zero-out)."""
    last = -1.0 if adjacency == "replace_one" else 0.0
    return [-1.0] * (n - 1) + [1.0], [-1.0] * (n - 1) + [last]


def _brute_force(n, b, theta):
    """Per adjacency: the largest hockey stick over every neighbouring pair at each ε of EPSILONS, and the
    realised pair's hockey sticks in both orders.  Both adjacencies in one pass with one memo of the
    distributions (a pair of mean multisets): zero-out's pairs are replace-one's with g' = 0, so ≈ 35 % of
    the (mpmath) hockey sticks of the two were repeats.  Computed once per test run (``run_once``)."""
    memo = {}

    def hockey(p, q):
        """[hockey stick at each ε of EPSILONS] of the pair (memo: every ε of a pair at once)."""
        key = (tuple(sorted(p)), tuple(sorted(q)))
        if key not in memo:
            memo[key] = _hockey(p, q, EPSILONS)
        return memo[key]

    out = {}
    for adjacency in ("replace_one", "zero_out"):
        worst = [0.0] * len(EPSILONS)
        for d, d2 in _neighbours(n, adjacency):
            p, q = _mixture(d, b, theta), _mixture(d2, b, theta)
            worst = [max(w, h) for w, h in zip(worst, hockey(p, q))]
        d, d2 = _realised_pair(n, adjacency)
        p, q = _mixture(d, b, theta), _mixture(d2, b, theta)
        out[adjacency] = {"worst": worst, "realised": [list(fb) for fb in zip(hockey(p, q), hockey(q, p))]}
    return out


@pytest.mark.parametrize("n,b,theta", [(3, 2, 1.0), (2, 1, 1.0), (3, 1, 0.5)])
@pytest.mark.parametrize("adjacency", ["replace_one", "zero_out"])
def test_upper_grid_dominates_every_neighbouring_pair(n, b, theta, adjacency, run_once):
    r = fixed_size_sampled(bounds.Gaussian(theta=theta), b, n, adjacency=adjacency)
    C = _C()
    up_r, low_r = r._composition_grids(C.REMOVE, H)
    up_a, low_a = r._composition_grids(C.ADD, H)
    brute = run_once(f"fixed-size-brute-force-{n}-{b}-{theta}", lambda: _brute_force(n, b, theta))[adjacency]
    for e, worst in zip(EPSILONS, brute["worst"]):
        u = min(_grid_delta(up_r, e, True), _grid_delta(up_a, e, True))
        assert worst <= u + 1e-12, (e, worst, u)
        if adjacency == "replace_one" and e >= 0.3:
            # Balle et al. Thm 9 is attained (others at −1, the record +1 against −1): the upper side is tight
            assert u <= worst * (1 + 2e-3) + 1e-9, (e, worst, u)
    # the lower grids are below the realised pair (others −1; +1 against −1 resp. the null record), both orders
    for e, (forward, backward) in zip(EPSILONS, brute["realised"]):
        assert _grid_delta(low_r, e, False) <= forward + 1e-12
        assert _grid_delta(low_a, e, False) <= backward + 1e-12
        # and close to it (second order in h)
        assert forward - _grid_delta(low_r, e, False) <= 2e-3 * forward + 1e-6


@pytest.mark.parametrize("adjacency,theta_exact", [("replace_one", 2.0), ("zero_out", 1.0)])
def test_full_batch_is_the_gaussian(adjacency, theta_exact):
    # γ = 1: replace-one is the Gaussian at 2θ, zero-out at θ (both sides exact)
    r = fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 7, 7, adjacency=adjacency)
    for steps, eps in ((1, 1.0), (3, 2.0)):
        exact = float(gaussian_delta(eps, theta_exact * math.sqrt(steps)))
        s = bounds.compose([(r, steps)], tolerance=1e-3).delta(eps)
        assert s.lower <= exact <= s.upper
        assert s.upper - s.lower <= 2e-3 * exact


def test_replace_one_sides_against_poisson_pairs():
    # lower side = the pair ((1−γ)N(0) + γN(2θ), N(0)) composed in one order: the Poisson REMOVE composition at 2θ
    g = bounds.Gaussian.from_noise_multiplier(2.0)
    fs = bounds.compose([(fixed_size_sampled(g, 10, 1000), 200)], tolerance=1e-2).epsilon(1e-5)
    po = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 0.01), 200)], tolerance=1e-3).epsilon(1e-5)
    assert fs.lower <= po.upper + 1e-9
    assert fs.lower >= po.lower - 2e-2
    assert fs.lower <= fs.upper


def test_monotone_in_sigma_steps_and_rate():
    def eps(sigma, b, steps, adjacency):
        r = fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(sigma), b, 1000, adjacency=adjacency)
        return bounds.compose([(r, steps)], tolerance=1e-2).epsilon(1e-5)

    for adjacency in ("replace_one", "zero_out"):
        base = eps(1.5, 20, 50, adjacency)
        assert base.lower <= base.upper
        for other in (eps(2.0, 20, 50, adjacency), eps(1.5, 10, 50, adjacency), eps(1.5, 20, 25, adjacency)):
            # less privacy loss: its certified lower side cannot exceed base's upper side, and its upper side
            # stays below base's upper side (both routes are monotone in σ, γ and steps)
            assert other.lower <= base.upper
            assert other.upper <= base.upper + 1e-9
    ro = eps(1.5, 20, 50, "replace_one")
    zo = eps(1.5, 20, 50, "zero_out")
    assert zo.upper <= ro.upper + 1e-9  # zero-out neighbours are replace-one neighbours


def test_monotone_in_epsilon():
    r = fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 5, 100, adjacency="zero_out")
    c = bounds.compose([(r, 20)], tolerance=1e-2)
    prev = None
    for e in (0.0, 0.5, 1.0, 2.0, 4.0):
        s = c.delta(e)
        assert 0.0 <= s.lower <= s.upper <= 1.0
        if prev is not None:
            assert s.upper <= prev.upper and s.lower <= prev.upper
        prev = s


def test_heterogeneous_with_poisson_and_cyclic():
    from bounds.samplers import cyclic

    g = bounds.Gaussian.from_noise_multiplier(2.0)
    c = bounds.compose([(cyclic(g, 10, adjacency="replace_one"), 2), (fixed_size_sampled(g, 10, 100), 30)],
                       tolerance=1e-2)
    s = c.epsilon(1e-5)
    alone = bounds.compose([(fixed_size_sampled(g, 10, 100), 30)], tolerance=1e-2).epsilon(1e-5)
    assert alone.lower <= s.upper and s.lower <= s.upper


def test_hull_values_stay_above_a_convex_curve():
    from numeric import mixture_pairs as MP

    C = _C()
    rng = np.random.default_rng(7)
    k_lo, k_hi = -300, 300
    ks = np.arange(k_lo, k_hi + 1)
    # G: the hockey-stick curve of the Gaussian at θ = 1.3 (convex in e^ε), upper values with noise and a
    # concave kink at ε = 0 (as the two orders of a non-symmetric pair produce)
    g = np.array([float(gaussian_delta(k * H * 8, 1.3)) for k in ks])
    d = g * (1 + rng.uniform(0, 1e-3, len(g))) + np.where(ks == 0, 0.05, 0.0)
    d = np.minimum.accumulate(np.minimum(d, 1.0))
    v = MP.hull_values(d, k_lo, H * 8)
    assert np.all(v >= g) and np.all(v <= d)
    mu, m_inf = C.upper_from_values(v, k_lo, H * 8)
    assert abs(mu.sum() + m_inf - 1.0) < 1e-9  # no concave kink left (no clipped negative masses)


def test_rate_rounding_is_outward():
    for b, n in ((1, 3), (2, 3), (256, 50000), (10 ** 15 - 1, 10 ** 15), (7, 7)):
        up, lo = _rate_bounds(b, n)
        assert Fraction(lo) <= Fraction(b, n) <= Fraction(up)


def test_round_object():
    g = bounds.Gaussian.from_noise_multiplier(1.0)
    a = fixed_size_sampled(g, 10, 100)
    b = fixed_size_sampled(g, 10, 100, adjacency="zero_out")
    assert isinstance(a, FixedSizeRound) and a.adjacency == "replace_one" and b.adjacency == "zero_out"
    assert repr(a) != repr(b) and hash(a) == hash(fixed_size_sampled(g, 10, 100))
    assert "not tight" in b.description and a.rate == 0.1
    with pytest.raises(Exception):
        a.batch_size = 3


def test_bad_input():
    g = bounds.Gaussian.from_noise_multiplier(1.0)
    with pytest.raises(TypeError, match="mechanism"):
        fixed_size_sampled(bounds.Laplace(theta=1.0), 1, 10)
    with pytest.raises(TypeError, match="mechanism"):
        fixed_size_sampled(1.0, 1, 10)
    for bad in (0, -1, 1.5, math.nan, math.inf, "10", True, 10 ** 400, 1 + 1j, None):
        with pytest.raises(ValueError, match="batch_size"):
            fixed_size_sampled(g, bad, 100)
        with pytest.raises(ValueError, match="dataset_size"):
            fixed_size_sampled(g, 1, bad)
    with pytest.raises(ValueError, match="batch_size"):
        fixed_size_sampled(g, 11, 10)
    for bad in ("add_remove", None, 1, "REPLACE_ONE"):
        with pytest.raises(ValueError, match="adjacency"):
            fixed_size_sampled(g, 1, 10, adjacency=bad)
    assert fixed_size_sampled(g, np.int64(3), np.int32(10)).batch_size == 3
    assert fixed_size_sampled(g, 10 ** 15 - 1, 10 ** 15).dataset_size == 10 ** 15
    with pytest.raises(ValueError, match="dataset_size"):
        fixed_size_sampled(g, 1, 2 ** 53 + 1)


def test_monte_carlo_of_the_procedure_overlaps_the_sandwich():
    # the DP-SGD step itself, simulated: draw b of n without replacement (numpy, fixed seed), sum the realised
    # zero-out data set's gradients (others −1, the record +1 vs the null record), add N(0, 1); the composed
    # loss from the exact mixture densities; δ(ε) = E_P[(1 − e^{ε − L})₊] with a 5-sigma normal interval
    n, b, steps, eps, reps = 4, 2, 3, 0.3, 200_000
    rng = np.random.default_rng(20261201)
    d = np.array([-1.0, -1.0, -1.0, 1.0])
    d0 = np.array([-1.0, -1.0, -1.0, 0.0])
    pm = np.array(_mixture(list(d), b, 1.0))
    qm = np.array(_mixture(list(d0), b, 1.0))

    def log_ratio(y):
        p = np.exp(-0.5 * (y[..., None] - pm) ** 2).mean(-1)
        q = np.exp(-0.5 * (y[..., None] - qm) ** 2).mean(-1)
        return np.log(p) - np.log(q)

    estimates = []
    for first, second, sign in ((d, d0, 1.0), (d0, d, -1.0)):
        total = np.zeros(reps)
        for _ in range(steps):
            # uniform b-subsets without replacement: argsort of iid uniforms, first b columns
            batch = np.argsort(rng.random((reps, n)), axis=1)[:, :b]
            y = first[batch].sum(axis=1) + rng.standard_normal(reps)
            total += sign * log_ratio(y)
        w = np.maximum(-np.expm1(eps - total), 0.0)
        estimates.append((w.mean(), w.std() / math.sqrt(reps)))
    s = bounds.compose([(fixed_size_sampled(bounds.Gaussian(theta=1.0), b, n, adjacency="zero_out"), steps)],
                       tolerance=1e-3).delta(eps)
    best = max(estimates)
    assert best[0] + 5 * best[1] >= s.lower
    for mean, se in estimates:
        assert mean - 5 * se <= s.upper


def test_hull_values_without_overflow_across_709():
    # a hull segment spanning ε from 0 to jh just above ln(DBL_MAX) = 709.7827: the chord weight written as
    # e^{(k−i)h}expm1((j−k)h)/expm1((j−i)h) had a finite numerator over an infinite denominator at k = j − 1
    # (w = 0: a value below the chord); G = the convex curve through (0, 1), (1, ½), (γ_j, 0.1), then flat
    from numeric import mixture_pairs as MP

    h = 2.0 ** -10
    j = math.floor(math.log(np.finfo(float).max) / h) + 1
    assert (j - 1) * h < math.log(np.finfo(float).max) < j * h
    d = np.full(j + 1, 0.5)
    d[j] = 0.1
    v = MP.hull_values(d, 0, h)
    g_j = mp.e ** (j * h)
    for k in (1, j // 2, j - 3, j - 2, j - 1):
        exact = mp.mpf(d[j]) + (mp.mpf(0.5) - mp.mpf(d[j])) * (g_j - mp.e ** (k * h)) / (g_j - 1)
        assert exact <= v[k] <= 0.5, (k, v[k], exact)
        assert v[k] <= exact * (1 + 1e-12)  # and the chord, not d_k, is used


@pytest.mark.parametrize("gamma", [0.5, 0.01])
def test_zero_out_values_above_709(gamma):
    # B_z(c') = γ(1−β)δ_2θ(ln c) + γβδ_θ(ln c) (proof note §2) in mpmath at kh up to 760, across BIG_KH = 600
    # and e^{kh}'s overflow at 709.78 (before: inf/inf, every value NaN, an upper grid of NaN)
    from numeric import mixture_pairs as MP

    h = 2.0 ** -4
    k_hi = 12160
    theta = 20.0
    d = MP.zero_out_values(2 * theta, theta, gamma, gamma, k_hi, h)
    assert np.all(np.isfinite(d))
    with mp.workdps(60):
        g = mp.mpf(gamma)
        for k in (9000, 9599, 9600, 9601, 11350, 11360, 12160):
            cp = mp.e ** (k * h)
            e = cp - 1
            c = 1 + e / g
            exact = (g * (1 - g) * e / (g + e) * gaussian_delta(mp.log(c), 2 * theta)
                     + g * g * cp / (g + e) * gaussian_delta(mp.log(c), theta))
            v = d[k + k_hi]
            assert exact <= v <= exact * (1 + 1e-12) + 1e-300, (k, v, exact)
