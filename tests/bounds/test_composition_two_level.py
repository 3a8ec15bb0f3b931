"""Two spacings for long phases (proof note, Lemma 7; issue 21, 10⁶ steps): the re-gridding of a composed block
onto a coarser grid, the spectrum power with one extra factor, and the two-level power itself.

References are independent of the code under test: hockey-stick functionals evaluated from their definition in
mpmath (60 digits), exact integer polynomial powers (python-flint), and the Gaussian's closed-form δ (mpmath).
Each new error term is also switched off once to show that the comparison catches it.
"""
import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

flint = pytest.importorskip("flint")

from bounds.composition import _C  # noqa: E402
from tests.exact_arith import grid_violations  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")

C = _C()


@pytest.fixture(autouse=True)
def _sixty_digits():
    """60 digits for every test here, whatever precision another module's tests left behind (the references
    compare sums that differ by a rounding-up of ≈ 1e-16 relative: at mpmath's default 15 digits they tie)."""
    with mpmath.workdps(60):
        yield


def _fine_grid(n: int, seed: int, k0: int = -9) -> "C.Grid":
    """A bump of total mass ≈ 1 with a thin right tail (masses down to 1e-30) and some exact zeros."""
    rng = np.random.default_rng(seed)
    k = np.arange(n, dtype=np.float64)
    m = np.exp(-0.5 * ((k - n / 3) / (n / 10)) ** 2) * rng.uniform(0.5, 1.5, n)
    m[rng.uniform(0, 1, n) < 0.1] = 0.0
    m /= m.sum()
    m[2 * n // 3:] *= 10.0 ** -np.linspace(2, 30, n - 2 * n // 3)
    return C.Grid(m, k0, 1e-9)


@functools.lru_cache(maxsize=64)
def _hockey_terms(masses: bytes, k0: int, h: float, dps: int) -> tuple[tuple[mpmath.mpf, mpmath.mpf], ...]:
    """(m_k, e^{−kh}) of every positive mass, in mpmath at ``dps`` digits: the same values for every c, so
    computed once per grid (the ~150 c of a comparison each recomputed all n exponentials before)."""
    with mpmath.workdps(dps):
        out = []
        for i, v in enumerate(np.frombuffer(masses, dtype=np.float64)):
            if v > 0:
                w = (k0 + i) * mpmath.mpf(h)
                out.append((mpmath.mpf(float(v)), mpmath.exp(-w)))
        return tuple(out)


def _hockey(g: "C.Grid", h: float, c) -> mpmath.mpf:
    """H_ν(c) = Σ m_k (1 − c e^{−kh})₊ + m_∞ from its definition, in mpmath."""
    total = mpmath.mpf(g.m_inf)
    m = np.ascontiguousarray(g.m, dtype=np.float64)
    for mass, decay in _hockey_terms(m.tobytes(), int(g.k0), float(h), mpmath.mp.dps):
        total += mass * max(mpmath.mpf(0), 1 - c * decay)
    return total


def _coarsen_violations(g, factor: int, h: float, upward: bool, out=None) -> list[str]:
    """c where the coarse grid breaks H_coarse ≥ H_fine (upper) or ≤ (lower): c = e^ε at every fine node, at
    the midpoints and beyond both ends (where the split is exact: equality with exact weights)."""
    if out is None:
        out = C.coarsen(g, factor, h, upward)
    hc = factor * h
    eps = [(g.k0 + i) * h for i in range(-2 * factor, len(g.m) + 2 * factor)]
    eps += [e + h / 2 for e in eps]
    bad = []
    for e in eps:
        c = mpmath.exp(mpmath.mpf(e))
        fine, coarse = _hockey(g, h, c), _hockey(out, hc, c)
        if (upward and coarse < fine) or (not upward and coarse > fine):
            bad.append(f"ε = {e}: coarse {mpmath.nstr(coarse, 20)} vs fine {mpmath.nstr(fine, 20)}")
    return bad


@pytest.mark.parametrize("factor", [2, 4, 16])
@pytest.mark.parametrize("upward", [True, False])
def test_coarsen_brackets_the_fine_hockey_stick(factor, upward):
    h = 2.0 ** -5
    g = _fine_grid(70, seed=factor)
    out = C.coarsen(g, factor, h, upward)
    assert out.m_inf == g.m_inf and out.tilt == 0.0
    assert _coarsen_violations(g, factor, h, upward, out) == []


@pytest.mark.parametrize("factor", [2, 4, 8])
def test_coarsen_is_second_order_on_a_smooth_grid(factor):
    # the coarse sandwich's gap is far below that of rounding every mass up / down to its coarse neighbours
    # (the first-order alternative), on a smooth bump spanning many coarse nodes
    h = 2.0 ** -8
    k = np.arange(600, dtype=np.float64)
    m = np.exp(-0.5 * ((k - 300) / 60) ** 2)
    g = C.Grid(m / m.sum(), -100, 0.0)
    lo, hi = C.coarsen(g, factor, h, False), C.coarsen(g, factor, h, True)
    k = np.arange(len(g.m)) + g.k0
    up_k, dn_k = -((-k) // factor), k // factor
    first = []
    for kc in (up_k, dn_k):
        m = np.zeros(kc.max() - kc.min() + 1)
        np.add.at(m, kc - kc.min(), g.m)
        first.append(C.Grid(m, int(kc.min()), g.m_inf))
    for i in (200, 300, 400, 480):
        c = mpmath.exp(mpmath.mpf(g.k0 + i) * h)
        gap = _hockey(hi, factor * h, c) - _hockey(lo, factor * h, c)
        gap1 = _hockey(first[0], factor * h, c) - _hockey(first[1], factor * h, c)
        assert gap < 0.1 * gap1, (i, gap, gap1)


def test_coarsen_lower_keeps_mass_on_coarse_nodes_and_negative_offsets():
    # a grid starting at a negative node that is not a multiple of the factor, a grid on coarse nodes only
    h = 2.0 ** -4
    for k0 in (-13, -16, 5):
        g = _fine_grid(40, seed=abs(k0), k0=k0)
        for upward in (True, False):
            assert _coarsen_violations(g, 4, h, upward) == []
    g = C.Grid(np.array([0.25, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.25]), -4, 0.0)
    lw = C.coarsen(g, 4, h, False)
    assert lw.k0 == -1 and np.allclose(lw.m, [0.25, 0.5, 0.25], rtol=1e-13)


def test_injected_rounded_down_split_weights_are_caught(monkeypatch):
    # the split weights rounded to nearest and then lowered by 1e-12 (relative): below the first fine node
    # the split is exact, so the coarse upper functional falls below the fine one
    h = 2.0 ** -5
    g = _fine_grid(50, seed=11)
    alpha, beta = C.split_weights(4, h)
    monkeypatch.setattr(C, "split_weights", lambda f, hh: (alpha * (1 - 1e-12), beta * (1 - 1e-12)))
    assert _coarsen_violations(g, 4, h, True)


def test_lower_cells_rounded_to_the_nearest_node_are_caught():
    # a mutated lower side — every fine mass moved to its *nearest* coarse node instead of merged cells
    # certified at or above a node — breaks the comparison: the check can fail
    h = 2.0 ** -5
    g = _fine_grid(60, seed=12)
    k = np.arange(len(g.m)) + g.k0
    kc = np.floor(k / 4 + 0.5).astype(np.int64)
    out = np.zeros(kc.max() - kc.min() + 1)
    np.add.at(out, kc - kc.min(), g.m)
    mutated = C.Grid(out, int(kc.min()), g.m_inf)
    assert _coarsen_violations(g, 4, h, False, mutated)


# ----- the spectrum power with one extra factor (Lemma 6 with a second factor) ------------------------------

def _ints(m: np.ndarray):
    fr = [Fraction(float(x)) for x in m]
    e = max(f.denominator.bit_length() - 1 for f in fr)
    return [int(f * 2 ** e) for f in fr], e


def _exact_product(a: np.ndarray, count: int, b: np.ndarray):
    """(coefficients, exponent) of the exact product a^count · b (integers after scaling by powers of two),
    once per (a, count, b): both sides (upward True/False) compare against the same product."""
    coeffs, shift = _exact_product_cached(a.tobytes(), count, b.tobytes())
    return list(coeffs), shift


@functools.lru_cache(maxsize=16)
def _exact_product_cached(a_bytes: bytes, count: int, b_bytes: bytes):
    a, b = np.frombuffer(a_bytes, dtype=np.float64), np.frombuffer(b_bytes, dtype=np.float64)
    ia, ea = _ints(a)
    ib, eb = _ints(b)
    p = flint.fmpz_poly(ia) ** count * flint.fmpz_poly(ib)
    coeffs = [int(c) for c in p.coeffs()]
    coeffs += [0] * (count * (len(a) - 1) + len(b) - len(coeffs))
    return tuple(coeffs), ea * count + eb


def _product_violations(g, count, extra, upward, width_sd, lam) -> list[str]:
    out = C.untilted(C.power_direct(g, count, upward, width_sd, lam, extra=extra), upward)
    coeffs, shift = _exact_product(g.m, count, extra.m)
    return grid_violations(out, coeffs, shift, count * g.k0 + extra.k0, upward)


def _pld_like(n: int, seed: int, k0: int) -> "C.Grid":
    rng = np.random.default_rng(seed)
    k = np.arange(n, dtype=np.float64)
    bulk = np.exp(-0.5 * ((k - n / 4) / (n / 12)) ** 2) * rng.uniform(0.5, 1.5, n)
    bulk[n // 2:] = 0.0
    bulk /= bulk.sum()
    m = bulk.copy()
    m[n // 2:] = 10.0 ** -np.linspace(20, 200, n - n // 2) * rng.uniform(0.5, 1.5, n - n // 2)
    return C.Grid(m, k0, 0.0)


PRODUCT_CASES = [(5, 12.0, 0.0), (16, 12.0, 0.03), (40, 1.5, 0.0), (33, 2.0, 0.02)]


@pytest.mark.parametrize("count,width_sd,lam", PRODUCT_CASES)
@pytest.mark.parametrize("upward", [True, False])
def test_power_direct_with_an_extra_factor_against_exact_products(count, width_sd, lam, upward):
    g = _pld_like(40, seed=count, k0=-7)
    extra = _pld_like(23, seed=count + 100, k0=3)
    assert _product_violations(g, count, extra, upward, width_sd, lam) == []


def _ball_product_misses(z, rad, mag, spec_b, e_b, kernel) -> int:
    """How many entries of kernel's product ball miss the exact product of the worst-case members: X = z + ρ·u,
    B = B̃ + e_b·v with |u| = |v| = 1 along the centres' directions (exact rationals; |·|² compared)."""
    zz, rr, mm = z.copy(), rad.copy(), mag.copy()
    kernel(zz, rr, mm, spec_b, e_b)
    misses = 0
    for j in range(len(z)):
        def unit(w):
            a = abs(w)
            return (Fraction(w.real) / Fraction(a), Fraction(w.imag) / Fraction(a)) if a > 0 else (Fraction(1), Fraction(0))
        ux, uy = unit(z[j])
        vx, vy = unit(spec_b[j])
        # |u| = 1 only up to the rounding of abs(): scale into the ball by a factor 1 − 1e-12
        s = Fraction(1) - Fraction(1, 10 ** 12)
        xr = Fraction(z[j].real) + Fraction(rad[j]) * ux * s
        xi = Fraction(z[j].imag) + Fraction(rad[j]) * uy * s
        br = Fraction(spec_b[j].real) + Fraction(e_b) * vx * s
        bi = Fraction(spec_b[j].imag) + Fraction(e_b) * vy * s
        pr, pi = xr * br - xi * bi, xr * bi + xi * br
        dr, di = Fraction(zz[j].real) - pr, Fraction(zz[j].imag) - pi
        if dr * dr + di * di > Fraction(rr[j]) ** 2:
            misses += 1
    return misses


def test_spectrum_times_ball_contains_the_exact_products(monkeypatch):
    rng = np.random.default_rng(27)
    n = 200
    z = (rng.normal(size=n) + 1j * rng.normal(size=n)) * 10.0 ** rng.uniform(-300, 0, n)
    z[:5] = 0.0  # dead entries
    rad = np.abs(z) * 10.0 ** rng.uniform(-16, -2, n)
    rad[:5] = C.DEAD
    mag = np.abs(z) * (1 + 1e-15)
    spec_b = (rng.normal(size=n) + 1j * rng.normal(size=n)) * 10.0 ** rng.uniform(-5, 0, n)
    e_b = 1e-6
    assert _ball_product_misses(z, rad, mag, spec_b, e_b, C.spectrum_times) == 0
    # the extra factor's own radius dropped (e_b = 0 inside the kernel): the worst-case members escape
    assert _ball_product_misses(z, rad, mag, spec_b, e_b, lambda a, b, c, d, e: C.spectrum_times(a, b, c, d, 0.0)) > 0


def test_injected_zero_error_bound_is_caught_with_an_extra_factor(monkeypatch):
    # Lemma 6's bound E (now including the extra factor's radius) multiplied by 0
    g = _pld_like(40, seed=21, k0=-7)
    extra = _pld_like(23, seed=22, k0=3)
    monkeypatch.setattr(C, "half_spectrum_sum", lambda v, n: 0.0)
    assert _product_violations(g, 7, extra, True, 12.0, 0.0)
    assert _product_violations(g, 7, extra, False, 12.0, 0.0)


def test_injected_zero_product_chernoff_bounds_are_caught(monkeypatch):
    g = _pld_like(40, seed=23, k0=-7)
    extra = _pld_like(23, seed=24, k0=3)
    monkeypatch.setattr(C, "chernoff_mass_product", lambda *a: 0.0)
    assert _product_violations(g, 40, extra, False, 1.0, 0.0)
    assert _product_violations(g, 40, extra, True, 1.0, 0.0)


def test_product_totals_against_exact_rationals():
    g = _pld_like(30, seed=25, k0=0)
    g = C.Grid(g.m * 0.75, g.k0, 0.25)
    e = _pld_like(20, seed=26, k0=0)
    e = C.Grid(e.m * 0.5, e.k0, 0.125)
    for count in (2, 7):
        f, a, f2, a2 = (Fraction(g.total), Fraction(0.25), Fraction(e.total), Fraction(0.125))
        exact_inf = (f + a) ** count * (f2 + a2) - f ** count * f2
        up = C._total_product(g, count, e, True)
        lw = C._total_product(g, count, e, False)
        assert Fraction(lw[1]) <= exact_inf <= Fraction(up[1])
        assert Fraction(lw[0]) <= f ** count * f2 <= Fraction(up[0])


# ----- the two-level power against the Gaussian's closed form ----------------------------------------------

def _gaussian_delta(eps: float, mu) -> mpmath.mpf:
    mu = mpmath.mpf(mu)
    e = mpmath.mpf(eps)
    return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


def _delta_sandwich(up, lw, h, eps):
    (bu, cu), (bl, cl) = C.hs_tables(up.m, h, True), C.hs_tables(lw.m, h, False)
    e = np.array(eps, dtype=np.float64)
    return (C.hs_eval(bl, cl, lw.k0, h, lw.m_inf, e, False), C.hs_eval(bu, cu, up.k0, h, up.m_inf, e, True))


@pytest.mark.parametrize("count,block,factor", [(2000, 100, 4), (4321, 250, 8), (999, 999, 2)])
def test_two_level_power_contains_the_composed_gaussian(count, block, factor):
    # plain Gaussian steps (θ each) composed on two spacings: the exact composition is the Gaussian at θ√T
    theta = 1.0 / count ** 0.5
    h = 2.0 ** -11
    u, lw = C.one_step(C.GAUSSIAN, C.REMOVE, theta, 1.0, h)
    lam = C.choose_tilt(u, count, h) * factor
    pu = C.untilted(C.power_two_level(u, count, True, h, factor, block, lam), True)
    pl = C.untilted(C.power_two_level(lw, count, False, h, factor, block, lam), False)
    eps = [0.0, 0.25, 1.0, 2.0, 3.5]
    lo, hi = _delta_sandwich(pu, pl, factor * h, eps)
    for e, a, b in zip(eps, lo, hi):
        ref = _gaussian_delta(e, theta * mpmath.sqrt(count))
        assert a <= ref <= b, (e, a, ref, b)
        assert b - a <= 5e-3 * ref, (e, a, b)  # (factor 8: a coarse grid of spacing 2⁻⁸ sets the width)


def test_two_level_composition_agrees_with_one_spacing(monkeypatch):
    # a subsampled phase on two spacings (forced from 20 000 steps) and on one: both sandwiches are certified,
    # so they must intersect, and the two-level one must meet the tolerance
    import bounds

    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(0.9), 0.02)
    one = bounds.compose([(step, 20_000)], tolerance=1e-3).epsilon(1e-6)
    monkeypatch.setattr(C, "TWO_LEVEL_FROM", 10_000)
    monkeypatch.setattr(C, "TWO_LEVEL_BLOCK", 200)
    comp = bounds.compose([(step, 20_000)], tolerance=1e-3)
    assert C.two_level_plan(20_000, 0.02, step.mechanism.theta)[0] > 1
    two = comp.epsilon(1e-6)
    assert max(one.lower, two.lower) <= min(one.upper, two.upper), (one, two)
    assert two.upper - two.lower <= 1e-3


@pytest.mark.parametrize("seed", range(8))
def test_coarsen_on_extreme_grids(seed):
    # lengths 1…60, negative and positive first nodes, exact zeros, masses from subnormal to 1 in random order
    # (no smoothness at all: the greedy cells meet every case — fallback, split nodes, nodes on coarse nodes)
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 61))
    k0 = int(rng.integers(-50, 50))
    factor = int(rng.choice([2, 3, 4, 8]))
    m = 10.0 ** rng.uniform(-320, 0, n)
    m[rng.uniform(0, 1, n) < 0.2] = 0.0
    g = C.Grid(m, k0, float(rng.choice([0.0, 1e-12])))
    h = 2.0 ** -int(rng.integers(3, 9))
    for upward in (True, False):
        assert _coarsen_violations(g, factor, h, upward) == [], (seed, upward)


def test_log_mgf_up_sparse_against_mpmath():
    # the Chernoff searches' MGF over the nonzero entries only (gaps up to and beyond MGF_GAP, both ends)
    rng = np.random.default_rng(28)
    for k0, n, s, density in ((-50, 200, 0.3, 0.7), (1000, 5000, -2.0, 0.01), (-100000, 30000, 1e-3, 0.125),
                              (5, 100, 0.0, 0.5), (0, 640, 40.0, 0.05), (-7, 3000, -0.02, 0.002)):
        m = rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < density)
        m[-1] = m[-1] if rng.uniform() < 0.5 else 0.0
        exact = mpmath.log(mpmath.fsum(mpmath.mpf(float(x)) * mpmath.exp(mpmath.mpf(s) * (k0 + i))
                                       for i, x in enumerate(m) if x > 0))
        idx = np.flatnonzero(m > 0)
        v = C.log_mgf_up_sparse(m[idx], idx, n, k0, s)
        assert v >= exact and v - exact < 1e-9 * (1 + abs(exact)), (k0, n, s, v, exact)
        assert abs(v - C.log_mgf_up(m, k0, s)) < 1e-9 * (1 + abs(exact))
    assert C.log_mgf_up_sparse(np.empty(0), np.empty(0, dtype=np.int64), 10, 0, 1.0) == -np.inf
