"""Tests of the missing-data bounds: SPEC T17 (``missing_data``) and T18 (``fwl_ratio``, ``missing_data_laplace``,
``missing_data_gaussian``, ``missing_data_corollary``, the Table 1 helpers).

References are independent of the library: mpmath straight from the SPEC formulas at a precision covering the
cancellation in 1 + p*(e^{rε} − 1), computed from the *exact* binary inputs (r·ε is formed in mpmath, never in
floats), and exact ``fractions.Fraction`` arithmetic for the ratio.  Soundness is decided exactly (the returned
float against the reference as binary numbers).
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mpmath import mp, mpf

import bounds
from tests.exact_arith import INF, log_uniform


EPS = st.one_of(log_uniform(-300, 4), st.sampled_from([1e-300, 1.0, 700.0, 709.0, 710.0, 745.0, 800.0, 1e4]))
UNIT = st.one_of(log_uniform(-300, 0), st.sampled_from([5e-324, 1e-310, 1e-300, 0.5, 1.0]))
RATIO = st.one_of(UNIT, st.sampled_from([0.0, 1 / 3, 0.7, 0.93, 1.0]))


def digits(*xs: float) -> int:
    """Working digits from the *sum* of the small inputs' magnitudes (tests.exact_arith.digits takes the max)."""
    return 60 + int(2 * sum(max(0.0, -math.log10(x)) for x in xs if 0 < x < 1)) + 20


def amplify_ref(x, p: float) -> mpf:
    """ln(1 + p(e^x − 1)) with x an mpf (exact product of binary inputs) or float."""
    if x == 0 or p == 0:
        return mpf(0)
    if x == INF:
        return mpf("inf")
    return +mp.log(1 + mpf(p) * (mp.exp(x) - 1))


def t18_ref(epsilon: float, p_star: float, ratio: float) -> mpf:
    if epsilon == 0 or p_star == 0 or ratio == 0:
        return mpf(0)
    if epsilon == INF:
        return mpf("inf")
    with mp.workdps(digits(epsilon, p_star, ratio) + 30):
        return amplify_ref(mpf(ratio) * mpf(epsilon), p_star)


def assert_upper(got: float, ref, *, rel: float = 1e-13, what: str = "") -> None:
    """``got`` >= the mpf ``ref`` and within rel or 8 subnormal steps (not tests.exact_arith.assert_upper's ulps)."""
    assert isinstance(got, float), what
    if ref == INF:
        assert got == INF, what
        return
    assert mpf(got) >= ref, f"{what}: UNSOUND {got!r} < {mp.nstr(ref, 25)}"
    excess = mpf(got) - ref
    assert excess <= max(rel * ref, mpf(8 * 5e-324)), f"{what}: too loose {got!r} vs {mp.nstr(ref, 25)}"


# --------------------------------------------------------------------------------------------------------
# T17
# --------------------------------------------------------------------------------------------------------

@given(EPS, log_uniform(-300, 0), UNIT)
@example(1e4, 1e-300, 1e-300)
@example(745.0, 0.5, 5e-324)
def test_missing_data_sound_and_tight(epsilon, delta, p_star):
    g = bounds.missing_data(epsilon, delta, p_star)
    with mp.workdps(digits(epsilon, p_star) + 20):
        assert_upper(g.epsilon, amplify_ref(mpf(epsilon), p_star), what=f"T17 ε' at {epsilon!r}, {p_star!r}")
    assert Fraction(g.delta) >= Fraction(delta) * Fraction(p_star)
    assert Fraction(g.delta) <= Fraction(delta) * Fraction(p_star) * (1 + Fraction(1, 10**14)) + Fraction(1, 2**1070)


def test_missing_data_limits_and_published_shape():
    assert bounds.missing_data(INF, 0.5, 0.0) == (0.0, 0.0)
    g = bounds.missing_data(1.0, 1e-6, 1.0)  # p* = 1: no amplification (Prop B.3)
    assert 1.0 <= g.epsilon <= 1.0 + 1e-15 and 1e-6 <= g.delta <= 1e-6 * (1 + 1e-15)
    assert bounds.missing_data(INF, 0.5, 0.5).epsilon == INF
    assert bounds.missing_data(2.0, 1e-6, 0.3) == bounds.poisson_subsampling(2.0, 1e-6, 0.3)


# --------------------------------------------------------------------------------------------------------
# T18: Laplace, Gaussian
# --------------------------------------------------------------------------------------------------------

@given(EPS, UNIT, RATIO)
@example(800.0, 1e-300, 0.93)
@example(745.0 / 0.93, 5e-324, 0.93)
@example(1e4, 1e-310, 0.0745)
@example(INF, 0.5, 0.3)
def test_laplace_sound_and_tight(epsilon, p_star, ratio):
    g = bounds.missing_data_laplace(epsilon, p_star, ratio)
    assert_upper(g.epsilon, t18_ref(epsilon, p_star, ratio), what=f"T18 at {epsilon!r}, {p_star!r}, {ratio!r}")
    assert g.delta == 0.0 and type(g.delta) is float


def test_laplace_large_product_region_is_accurate():
    """r·ε just above 709 with p* ≈ e^{−rε}: the result is O(1) while r·ε is ~745; a rounded product
    would cost ~500 ulps there.  Within 1e-14 relative."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        r = rng.uniform(0.5, 1.0)
        x = rng.uniform(709.5, 760.0)
        eps = x / r
        p = max(math.exp(max(-x + rng.uniform(-2, 30), -744.0)), 5e-324)
        got = bounds.missing_data_laplace(eps, p, r).epsilon
        ref = t18_ref(eps, p, r)
        assert mpf(got) >= ref and mpf(got) - ref <= 1e-14 * ref, (eps, p, r, got, ref)


@given(st.floats(0, 1), log_uniform(-300, 0), UNIT, RATIO)
def test_gaussian_sound(epsilon, delta, p_star, ratio):
    g = bounds.missing_data_gaussian(epsilon, delta, p_star, ratio)
    assert_upper(g.epsilon, t18_ref(epsilon, p_star, ratio), what="T18 Gaussian ε")
    assert Fraction(g.delta) >= Fraction(delta) * Fraction(p_star)


def test_gaussian_refuses_epsilon_above_one():
    with pytest.raises(ValueError, match=r"epsilon = 1\.5 > 1.*classical Gaussian calibration"):
        bounds.missing_data_gaussian(1.5, 1e-5, 0.5, 0.3)
    with pytest.raises(ValueError, match=r"epsilon\[2\] = 2\.0 > 1"):
        bounds.missing_data_gaussian([0.1, 1.0, 2.0], 1e-5, 0.5, 0.3)
    with pytest.raises(ValueError, match=r"epsilon = inf > 1"):
        bounds.missing_data_gaussian(INF, 1e-5, 0.5, 0.3)
    assert bounds.missing_data_gaussian(1.0, 1e-5, 0.5, 0.3).epsilon > 0


def test_ratio_one_is_t17_and_identity():
    for eps in [1e-300, 1e-5, 0.5, 3.0, 700.0, 800.0, 1e4]:
        for p in [1e-300, 0.01, 0.5, 1.0]:
            a = bounds.missing_data_laplace(eps, p, 1.0).epsilon
            b = bounds.missing_data(eps, 0.0, p).epsilon
            assert abs(a - b) <= 12 * math.ulp(max(a, b)), (eps, p, a, b)
        one = bounds.missing_data_laplace(eps, 1.0, 1.0).epsilon
        assert eps <= one <= eps * (1 + 1e-14)


def test_fraction_ratio_is_converted_upward():
    third = Fraction(1, 3)
    assert float(third) < third  # the nearest double is below 1/3
    g = bounds.missing_data_laplace(3.0, 1.0, third)  # p* = 1: ε' = ε/3 = 1 exactly
    assert g.epsilon >= 1.0
    with mp.workdps(50):
        exact = mp.log(1 + mpf("0.1") * (mp.exp(mpf(3.0) / 3) - 1))
        assert mpf(bounds.missing_data_laplace(3.0, 0.1, third).epsilon) >= exact
    arr = bounds.missing_data_laplace(3.0, 1.0, [third, Fraction(2, 3)])
    assert arr.epsilon.shape == (2,) and arr.epsilon[0] >= 1.0 and arr.epsilon[1] >= 2.0


def test_vectorised_equals_scalar():
    eps = np.array([0.0, 1e-8, 0.3, 1.0, 50.0, 720.0, 1e4])
    ps = np.array([0.0, 1e-300, 0.2, 1.0])
    rs = np.array([0.0, 0.25, 1 / 3, 1.0])
    g = bounds.missing_data_laplace(eps[:, None, None], ps[None, :, None], rs[None, None, :])
    assert g.epsilon.shape == (7, 4, 4) and g.delta.shape == (7, 4, 4)
    for i, j, k in np.ndindex(g.epsilon.shape):
        assert g.epsilon[i, j, k] == bounds.missing_data_laplace(eps[i], ps[j], rs[k]).epsilon
    m = bounds.missing_data(eps[:, None], 1e-6, ps[None, :])
    for i, j in np.ndindex(m.epsilon.shape):
        assert (m.epsilon[i, j], m.delta[i, j]) == bounds.missing_data(eps[i], 1e-6, ps[j])
    ge = eps[eps <= 1]
    gg = bounds.missing_data_gaussian(ge[:, None], 1e-6, ps[None, :], 0.3)
    for i, j in np.ndindex(gg.epsilon.shape):
        assert (gg.epsilon[i, j], gg.delta[i, j]) == bounds.missing_data_gaussian(ge[i], 1e-6, ps[j], 0.3)
    c = bounds.missing_data_corollary(ge[:, None], ps[None, :], 0.5)
    for i, j in np.ndindex(c.shape):
        assert c[i, j] == bounds.missing_data_corollary(ge[i], ps[j], 0.5)
    assert isinstance(bounds.missing_data_corollary(0.5, 0.5, 0.5), float)


# --------------------------------------------------------------------------------------------------------
# Corollary 4.6
# --------------------------------------------------------------------------------------------------------

@given(st.floats(0, 1), UNIT, st.floats(1e-6, 1))
def test_corollary_bounds_t18_and_is_sound(x, p_star, rho):
    eps = x / rho
    if Fraction(rho) * Fraction(eps) > 1:
        eps = math.nextafter(eps, 0)
    got = bounds.missing_data_corollary(eps, p_star, rho)
    with mp.workdps(60):
        exact = min((mp.e - 1) * mpf(p_star), 1) * mpf(rho) * mpf(eps)
        t18 = mp.log1p(mpf(p_star) * mp.expm1(mpf(rho) * mpf(eps)))
        assert t18 <= exact * (1 + mpf(10) ** -50)
        assert mpf(got) >= exact and mpf(got) - exact <= 1e-15 * exact + 8 * 5e-324
    lap = bounds.missing_data_laplace(eps, p_star, rho).epsilon
    assert lap <= got * (1 + 1e-15) + 1e-320


def test_corollary_domain():
    with pytest.raises(ValueError, match=r"Corollary 4.6 needs ρε ≤ 1"):
        bounds.missing_data_corollary(3.0, 0.01, 1.0)
    with mp.workdps(30):  # and it is indeed false there
        assert mp.log(1 + mpf("0.01") * (mp.exp(3) - 1)) > (mp.e - 1) * mpf("0.01") * 3
    # (e − 1)p* ≥ 1: the bound is ρε, valid for every ε
    assert bounds.missing_data_corollary(10.0, 0.6, 0.5) >= 5.0
    assert bounds.missing_data_corollary(INF, 1.0, 0.5) == INF
    # the threshold 1/(e − 1) is decided exactly
    t = bounds.missing.INV_E_MINUS_1_UP
    with mp.workdps(50):
        assert mpf(t) > 1 / (mp.e - 1) > mpf(math.nextafter(t, 0))
        assert mpf(bounds.missing.E_MINUS_1_UP) > mp.e - 1 > mpf(math.nextafter(bounds.missing.E_MINUS_1_UP, 0))
    assert bounds.missing_data_corollary(2.0, t, 1.0) >= 2.0
    with pytest.raises(ValueError):
        bounds.missing_data_corollary(2.0, math.nextafter(t, 0), 1.0)
    # ρε = 1 exactly is in the domain; 0.1 · 10.0 is just above 1 in exact arithmetic
    assert bounds.missing_data_corollary(2.0, 0.1, 0.5) > 0
    with pytest.raises(ValueError):
        bounds.missing_data_corollary(10.0, 0.1, 0.1)
    for bad in [0.0, -0.1, 1.5, math.nan]:
        with pytest.raises(ValueError, match="rho"):
            bounds.missing_data_corollary(0.5, 0.5, bad)


# --------------------------------------------------------------------------------------------------------
# fwl_ratio
# --------------------------------------------------------------------------------------------------------

def test_fwl_ratio_exact():
    assert bounds.fwl_ratio([1] * 10, Fraction(3, 10)) == Fraction(3, 10)
    assert bounds.fwl_ratio([4, 1, 1, 2], Fraction(1, 2)) == Fraction(3, 4)
    assert bounds.fwl_ratio([Fraction(1, 3), Fraction(1, 6), 0], 1) == 1
    assert bounds.fwl_ratio((5, 5, 5), Fraction(1, 2)) == Fraction(1, 3)  # ⌊1.5⌋ = 1
    assert bounds.fwl_ratio([1, 2, 3], Fraction(1, 10)) == 0  # ⌊0.3⌋ = 0 features observed
    assert bounds.fwl_ratio(np.array([3, 1, 2]), Fraction(2, 3)) == Fraction(5, 6)
    from decimal import Decimal
    assert bounds.fwl_ratio([Decimal("0.5"), Decimal("1.5")], Fraction(1, 2)) == Fraction(3, 4)
    assert type(bounds.fwl_ratio([1, 2], 1)) is Fraction


def test_fwl_ratio_float_is_rounded_up():
    for L, rho in [([0.1, 0.2, 0.3], Fraction(1, 3)), ([1.0, 3.0, 3.0], Fraction(2, 3)), ([0.7] * 7 + [0.1], 0.5)]:
        got = bounds.fwl_ratio(L, rho)
        assert isinstance(got, float)
        exact = bounds.fwl_ratio([Fraction(x) for x in L], Fraction(rho))
        assert Fraction(got) >= exact and Fraction(math.nextafter(got, 0)) < exact
    # 0.3 (binary 0.29999…) over 10 features means 3 features, not 2
    assert bounds.fwl_ratio([1.0] * 10, 0.3) >= 0.3
    assert bounds.fwl_ratio([1] * 10, 0.3) >= 0.3
    assert bounds.fwl_ratio([1.0] * 10, 0.29) == pytest.approx(0.2)


def test_fwl_ratio_large_input_is_fast_and_exact():
    L = [1.0 + (i % 7) * 0.1 for i in range(200_000)]
    got = bounds.fwl_ratio(L, 0.25)
    assert Fraction(got) >= _exact_top_share(L, 50_000)


def _exact_top_share(values, top):
    """Σ of the ``top`` largest values / Σ of all, as an exact Fraction, by multiplicity (each distinct double
    converted once: the same sums as sorting 200,000 Fractions, in a fraction of the time)."""
    counts = Counter(values)
    total = sum(Fraction(v) * c for v, c in counts.items())
    kept, left = Fraction(0), top
    for v in sorted(counts, reverse=True):
        take = min(counts[v], left)
        kept += Fraction(v) * take
        left -= take
    assert left == 0
    return kept / total


@pytest.mark.parametrize("L, rho, match", [
    ([], 0.5, "empty"),
    ([1, -1], 0.5, r"lipschitz\[1\] = -1 is negative"),
    ([0, 0, 0], 0.5, "every lipschitz constant is 0"),
    ([1, math.nan], 0.5, r"lipschitz\[1\] is NaN"),
    ([1, math.inf], 0.5, "not finite"),
    ([1, "a"], 0.5, "not a real number"),
    ([[1, 2]], 0.5, "one-dimensional"),
    (3.0, 0.5, "one-dimensional"),
    ([1, 2], 0, r"rho = 0 is outside its domain \(0, 1\]"),
    ([1, 2], 1.5, "outside its domain"),
    ([1, 2], -0.1, "outside its domain"),
    ([1, 2], math.nan, "rho is NaN"),
])
def test_fwl_ratio_bad_inputs(L, rho, match):
    with pytest.raises(ValueError, match=match):
        bounds.fwl_ratio(L, rho)


# --------------------------------------------------------------------------------------------------------
# Table 1 helpers
# --------------------------------------------------------------------------------------------------------

def test_table1_helpers():
    h = bounds.fwl_histogram(10)
    assert h.lipschitz == (Fraction(1),) * 10 and h.sensitivity == 20 and h.norm == "l1"
    assert bounds.fwl_histogram(4, n=8).lipschitz == (Fraction(1, 8),) * 4
    assert bounds.fwl_linear([[1, -2, 0], [3, 0, 0]]).lipschitz == (4, 2, 0)
    assert bounds.fwl_linear([[[1, 0]], [[-5, 1]]]).lipschitz == (5, 1)  # max over records
    m = bounds.fwl_mean(4, 100, 1)
    assert m.lipschitz == (Fraction(1, 100),) * 4 and m.sensitivity == Fraction(8, 100)
    c = bounds.fwl_clipped_mean(d=20, n=1000, clip=1)
    assert c.ratio(Fraction(3, 10)) == Fraction(3, 10)
    assert c.laplace(1.0, 1.0, Fraction(3, 10)).epsilon == pytest.approx(0.3, rel=1e-15)
    assert bounds.fwl_covariance(4, 10, 1).lipschitz == (Fraction(4, 5),) * 4
    assert bounds.fwl_covariance(4, 10, 1, norm="l2").lipschitz == (Fraction(2, 5),) * 4
    l2 = bounds.fwl_covariance(3, 10, 1, norm="l2").lipschitz[0]
    assert isinstance(l2, float) and Fraction(l2) ** 2 >= Fraction(4 * 3, 100)
    with pytest.raises(ValueError, match="Thm 4.5"):
        bounds.fwl_covariance(3, 10, 1, norm="l2").laplace(0.5, 1.0, 0.5)
    assert bounds.fwl_covariance(3, 10, 1, norm="l2").gaussian(0.5, 1e-6, 1.0, Fraction(2, 3)).epsilon > 0
    p = bounds.fwl_projected_mean([[3, 1], [4, 1]], n=5, bound=1)
    assert p.lipschitz[0] == 1 and Fraction(p.lipschitz[1]) ** 2 >= Fraction(2, 25)
    assert bounds.fwl_projected_mean([[3, 1], [4, 1]], 5, 1, norm="l1").lipschitz == (Fraction(7, 5), Fraction(2, 5))
    assert isinstance(bounds.fwl_mean(3, 10, 0.5).sensitivity, float)
    for bad in [lambda: bounds.fwl_histogram(0), lambda: bounds.fwl_mean(3, 0, 1), lambda: bounds.fwl_mean(3, 2, -1),
                lambda: bounds.fwl_clipped_mean(2.5, 3, 1), lambda: bounds.fwl_covariance(3, 3, 1, norm="l3"),
                lambda: bounds.fwl_linear([1, 2]), lambda: bounds.fwl_projected_mean([[1, math.nan]], 3, 1)]:
        with pytest.raises(ValueError):
            bad()


# --------------------------------------------------------------------------------------------------------
# Bad inputs and metadata
# --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, param", [
    (lambda v: bounds.missing_data(v, 0.1, 0.5), "epsilon"),
    (lambda v: bounds.missing_data(1.0, v, 0.5), "delta"),
    (lambda v: bounds.missing_data(1.0, 0.1, v), "p_star"),
    (lambda v: bounds.missing_data_laplace(v, 0.5, 0.5), "epsilon"),
    (lambda v: bounds.missing_data_laplace(1.0, v, 0.5), "p_star"),
    (lambda v: bounds.missing_data_laplace(1.0, 0.5, v), "ratio"),
    (lambda v: bounds.missing_data_gaussian(0.5, v, 0.5, 0.5), "delta"),
    (lambda v: bounds.missing_data_gaussian(0.5, 0.1, 0.5, v), "ratio"),
    (lambda v: bounds.missing_data_corollary(0.5, v, 0.5), "p_star"),
])
@pytest.mark.parametrize("value", [math.nan, -0.5, 1.5])
def test_bad_inputs(call, param, value):
    if param == "epsilon" and value == 1.5:
        return  # in the domain
    with pytest.raises(ValueError) as info:
        call(value)
    assert param in str(info.value)
    if value != value:
        assert "nan" in str(info.value).lower()


def test_metadata_and_latex():
    t17, t18 = bounds.theorem("T17"), bounds.theorem("T18")
    assert t17.relation == t18.relation == "substitute"
    assert t17.provenance == t18.provenance == "source"
    assert "Thm 3.2" in t17.citation and "Thm 4.5" in t18.citation and "Cor 4.6" in t18.citation
    assert "missing_data" in t17.functions and "fwl_ratio" in t18.functions
    text = bounds.latex("T18")
    assert r"p_{*}" in text and r"\varepsilon_0'" in text


def test_largest_is_the_exact_top_k_even_where_doubles_tie():
    """``_largest`` (doubles first, exact comparison only among values sharing the k-th double) selects the same
    multiset as sorting the Fractions, including values that round to one double and huge integers."""
    import random

    from bounds.missing import _largest

    rng = random.Random(11)
    tie = Fraction(1, 3)  # neighbours within 2⁻⁸⁰ share its double
    for trial in range(300):
        n = rng.randint(1, 40)
        pool = [tie + Fraction(rng.randint(-3, 3), 2 ** 80), Fraction(rng.randint(0, 50), rng.randint(1, 9)),
                Fraction(rng.random()), Fraction(2 ** 60 + rng.randint(0, 5))]
        values = [rng.choice(pool) + (Fraction(rng.randint(-2, 2), 2 ** 90) if rng.random() < 0.3 else 0)
                  for _ in range(n)]
        for k in {0, 1, n // 2, n - 1, n, n + 2}:
            assert sorted(_largest(values, k)) == sorted(sorted(values, reverse=True)[:max(k, 0)]), (values, k)
    huge = [Fraction(10 ** 400), Fraction(1), Fraction(10 ** 400 + 1), Fraction(2)]
    assert sorted(_largest(huge, 2)) == [Fraction(10 ** 400), Fraction(10 ** 400 + 1)]
