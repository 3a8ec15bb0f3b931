"""Self-composition by one spectrum power (proof note, Lemma 6; issue 21) against exact integer convolutions.

References are independent of the code under test: the grids' doubles are dyadic rationals, so the count-fold
convolution is an integer polynomial power (python-flint ``fmpz_poly``), compared entry by entry in exact
rational arithmetic.  Each soundness ingredient is also switched off once (error bound, wrap bound) to show
that the comparison catches it.
"""
import functools
from fractions import Fraction

import numpy as np
import pytest

import bounds

flint = pytest.importorskip("flint")

from bounds.composition import _C  # noqa: E402
from tests.exact_arith import grid_violations  # noqa: E402

# the refinement's width warnings at δ ≈ 1e-13 (the floor) are expected here
pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")

C = _C()


def _exact_power(m: np.ndarray, count: int):
    """(integer coefficients of (Σ n_i x^i)^count, E) with m_i = n_i·2^−e, so c_k = coeffs[k]·2^−(e·count).
    Once per (m, count) in this worker: both sides of a case, and the four Chernoff cases, share a power."""
    coeffs, shift = _exact_power_cached(np.ascontiguousarray(m, dtype=np.float64).tobytes(), count)
    return list(coeffs), shift


@functools.lru_cache(maxsize=32)
def _exact_power_cached(m_bytes: bytes, count: int):
    m = np.frombuffer(m_bytes, dtype=np.float64)
    fr = [Fraction(float(x)) for x in m]
    e = max(f.denominator.bit_length() - 1 for f in fr)
    ints = [int(f * 2 ** e) for f in fr]
    coeffs = [int(c) for c in (flint.fmpz_poly(ints) ** count).coeffs()]
    coeffs += [0] * (count * (len(m) - 1) + 1 - len(coeffs))
    return tuple(coeffs), e * count


def _violations(g, count: int, upward: bool, width_sd: float, lam: float) -> list[str]:
    """Where the grid of ``power_direct`` breaks its invariant against the exact convolution: upper — every
    kept node ≥ the exact mass (the first also ≥ all the mass below it), the atom at +∞ ≥ the mass above
    the last node; lower — every kept node ≤ the exact mass."""
    out = C.untilted(C.power_direct(g, count, upward, width_sd, lam), upward)
    coeffs, shift = _exact_power(g.m, count)
    return grid_violations(out, coeffs, shift, count * g.k0, upward)


def _pld_like(n: int, seed: int) -> "C.Grid":
    """A nonnegative vector with a bulk (a bump of total mass ≈ 1) and a tail of masses from 1e-20 down to
    1e-200, where the FFT noise (≈ 1e-16 absolute) exceeds the exact composed masses by far."""
    rng = np.random.default_rng(seed)
    k = np.arange(n, dtype=np.float64)
    bulk = np.exp(-0.5 * ((k - n / 4) / (n / 12)) ** 2) * rng.uniform(0.5, 1.5, n)
    bulk[n // 2:] = 0.0
    bulk /= bulk.sum()
    tail = 10.0 ** -np.linspace(20, 200, n - n // 2)
    m = bulk.copy()
    m[n // 2:] = tail * rng.uniform(0.5, 1.5, n - n // 2)
    return C.Grid(m, -7, 0.0)


CASES = [(2, 12.0, 0.0), (3, 12.0, 0.05), (7, 12.0, 0.0), (64, 12.0, 0.02), (64, 2.0, 0.0), (40, 1.5, 0.03),
         (12, 12.0, 0.01), (25, 12.0, 0.0)]


@pytest.mark.parametrize("count,width_sd,lam", CASES)
@pytest.mark.parametrize("upward", [True, False])
def test_power_direct_against_exact_integer_powers(count, width_sd, lam, upward):
    g = _pld_like(48, seed=count)
    assert _violations(g, count, upward, width_sd, lam) == []


def test_power_direct_window_cuts_the_support():
    # the narrow windows above are narrower than the support: the wrap (lower) and the tail bounds (upper)
    # are exercised, not just the interior
    g = _pld_like(48, seed=1)
    mean, std = C.moments(g)
    lo, hi = C.window(64, mean, std, g.k0, g.k1, 2.0, True)
    assert hi - lo + 1 < 64 * (len(g.m) - 1) + 1
    out = C.power_direct(g, 64, True, 2.0, 0.0)
    assert out.m_inf > 0.0 and out.k0 > 64 * g.k0


def test_injected_zero_error_bound_is_caught(monkeypatch):
    # Lemma 6's FFT/powering bound multiplied by 0: the tail masses (≪ the FFT noise) break both sides
    g = _pld_like(48, seed=3)
    monkeypatch.setattr(C, "half_spectrum_sum", lambda v, n: 0.0)
    assert _violations(g, 7, True, 12.0, 0.0)
    assert _violations(g, 7, False, 12.0, 0.0)


def test_injected_zero_wrap_and_tail_bounds_are_caught(monkeypatch):
    # the Chernoff bounds multiplied by 0: with a narrow window the wrapped mass lands on the lower side and
    # the mass beyond the circle is missing from the upper side's atom at +∞
    g = _pld_like(48, seed=4)
    monkeypatch.setattr(C, "chernoff_mass", lambda *a: 0.0)
    assert _violations(g, 64, False, 1.0, 0.0)
    assert _violations(g, 64, True, 1.0, 0.0)


def test_power_direct_with_an_atom_at_infinity():
    # (F + A)^T − F^T at +∞ (the EpsDelta pair's δ₀): exact rational reference
    g = _pld_like(32, seed=5)
    g = C.Grid(g.m * 0.75, g.k0, 0.25)
    for count in (2, 5, 33):
        up = C.power_direct(g, count, True, 12.0, 0.0)
        lw = C.power_direct(g, count, False, 12.0, 0.0)
        f = Fraction(g.total)
        exact = (f + Fraction(0.25)) ** count - f ** count
        assert Fraction(lw.m_inf) <= exact <= Fraction(up.m_inf)
        assert Fraction(lw.total) <= f ** count <= Fraction(up.total)


@pytest.mark.parametrize("above", [True, False])
@pytest.mark.parametrize("lam", [0.0, 0.1])
def test_chernoff_mass_bounds_exact_tails(above, lam):
    g = _pld_like(40, seed=6)
    count = 9
    coeffs, shift = _exact_power(g.m, count)
    base = count * g.k0
    import mpmath

    mpmath.mp.dps = 60
    # the terms c_j·e^{λ(base + j)} once (each edge sums a range of them; the same values, in the same order)
    terms = [mpmath.mpf(c) * mpmath.exp(lam * (base + j)) for j, c in enumerate(coeffs)]
    for edge in range(base, base + len(coeffs), 17):
        js = range(edge - base, len(coeffs)) if above else range(0, edge - base + 1)
        exact = mpmath.fsum(terms[j] for j in js) / mpmath.mpf(2) ** shift
        guess = max(abs(edge - count * C.moments(g)[0]), 1.0) / (count * C.moments(g)[1] ** 2)
        bound = C.chernoff_mass(g.m, g.k0, count, lam, edge, above, guess)
        assert bound >= exact, (edge, bound, exact)
    # far from the bulk the bound is small, not merely valid
    assert C.chernoff_mass(g.m, g.k0, count, 0.0, base + len(coeffs) - 30, True, 1.0) < 1e-30


def test_log_mgf_up_against_mpmath():
    import mpmath

    mpmath.mp.dps = 60
    rng = np.random.default_rng(7)
    for k0, n, s in ((-50, 200, 0.3), (1000, 500, -2.0), (-100000, 3000, 1e-3), (5, 100, 0.0), (0, 64, 40.0)):
        m = rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < 0.7)
        exact = mpmath.log(mpmath.fsum(mpmath.mpf(float(x)) * mpmath.exp(mpmath.mpf(s) * (k0 + i))
                                       for i, x in enumerate(m) if x > 0))
        v = C.log_mgf_up(m, k0, s)
        assert v >= exact and v - exact < 1e-9 * (1 + abs(exact))


@pytest.mark.parametrize("count", [2, 3, 10, 1000, 10 ** 6, 10 ** 8])
def test_dead_threshold_is_certified(count):
    tau = C.dead_threshold(count)
    assert 0.0 < tau < 1.0
    if count <= 1000:
        assert Fraction(tau) ** count <= Fraction(C.DEAD)
    else:  # τ^count ≤ DEAD ⟺ count·ln τ ≤ ln DEAD, in mpmath
        import mpmath

        mpmath.mp.dps = 50
        assert count * mpmath.log(mpmath.mpf(tau)) <= mpmath.log(mpmath.mpf(C.DEAD))


def test_power_keeps_the_squaring_route():
    # the old call forms: power(..., extended=...) and the squaring route itself stay available and agree
    g = _pld_like(40, seed=8)
    for direct in (True, False):
        up = C.untilted(C.power(g, 5, True, lam=0.0, extended=False, direct=direct), True)
        lw = C.untilted(C.power(g, 5, False, lam=0.0, extended=False, direct=direct), False)
        assert (lw.m <= up.m[lw.k0 - up.k0: lw.k0 - up.k0 + len(lw.m)] + 1e-15).all()


@pytest.mark.parametrize("steps", [100_000, 1_000_000])
def test_long_gaussian_composition_by_spectrum_power_contains_theta_sqrt_t(steps, monkeypatch):
    # T plain Gaussian steps composed by the spectrum power (not merged): the exact answer is the Gaussian at
    # θ√T (mpmath), at ε from the bulk to δ ≈ 1e-12, where the FFT/powering bound matters most.  The power
    # route alone: the squaring fallback (which would answer ε = 16 by squaring too, +4.6 s CPU at 10⁵
    # steps) is switched off here and tested in test_composition_floor.py
    from bounds.composition import Composition
    from proofs_checks.composition_checks import unmerged_gaussian
    from proofs_checks.composition_references import gaussian_composed_delta

    monkeypatch.setattr(Composition, "_powered", lambda self: False)
    theta = 2.0 / steps ** 0.5
    comp = unmerged_gaussian(theta, steps)
    for eps in (0.5, 2.0, 6.0, 12.0, 16.0):
        s = comp.delta(eps)
        ref = gaussian_composed_delta(eps, theta, steps)
        assert s.lower <= ref <= s.upper, (eps, s, ref)
        if eps <= 12.0:  # δ ≥ 1e-7; at δ ≈ 3e-13 (ε = 16) the FFT bound dominates the width
            assert s.upper - s.lower <= 1e-2 * ref


def test_injected_zero_error_bound_is_caught_in_a_composition(monkeypatch):
    # the same composition with Lemma 6's bound E multiplied by 0: at δ ≈ 3e-13 the sandwich misses the exact
    # value (measured: lower 2.7734e-13 > exact 2.7694e-13 > upper 2.7727e-13)
    from proofs_checks.composition_checks import unmerged_gaussian
    from proofs_checks.composition_references import gaussian_composed_delta

    monkeypatch.setattr(C, "half_spectrum_sum", lambda v, n: 0.0)
    theta, steps = 2.0 / 100_000 ** 0.5, 100_000
    s = unmerged_gaussian(theta, steps).delta(16.0)
    assert not (s.lower <= gaussian_composed_delta(16.0, theta, steps) <= s.upper)


# ---- mixed-radix FFT lengths (issue 21, second pass: N = 2^a·3^b·5^c) ----------------------------------

def test_smooth_size_is_the_smallest_even_5_smooth_length():
    def smooth(m):
        for r in (2, 3, 5):
            while m % r == 0:
                m //= r
        return m == 1
    for n in list(range(1, 700)) + [854_689, 204_738, 1_048_577]:
        expect = next(m for m in range(max(n, 2), 4 * n + 4) if m % 2 == 0 and smooth(m))
        assert C.smooth_size(n) == expect, n
    assert C.smooth_size(854_689) == 864_000  # 2⁸·3³·5³, not 2²⁰


def test_fft_stages_cover_log2_and_refuse_other_lengths():
    import math
    for n in (2, 6, 96, 144, 864, 1000, 864_000, 2 ** 20):
        assert C.fft_stages(n) >= math.log2(n)
    assert C.fft_stages(2 ** 20) == 20 and C.fft_stages(864_000) == 8 + 6 + 9
    for bad in (7, 14, 1001):
        with pytest.raises(ValueError, match="2\\^a"):
            C.fft_stages(bad)


def test_exact_power_cases_include_mixed_radix_lengths():
    # the exact comparisons above run at lengths with radix-3 and radix-5 stages, not only powers of two
    sizes = set()
    for count, width_sd, lam in CASES:
        g = _pld_like(48, seed=count)
        mean, std = C.moments(g)
        lo, hi = C.window(count, mean, std, g.k0, g.k1, width_sd, lam == 0.0)
        sizes.add(C.smooth_size(max(hi - lo + 1, len(g.m))))
    assert any(n % 3 == 0 for n in sizes) and any(n % 5 == 0 for n in sizes) and any(n & (n - 1) for n in sizes)


@pytest.mark.parametrize("n_fft", [96, 150, 360, 500])
def test_rfft_entry_error_within_the_mixed_radix_bound(n_fft):
    # |fl(rfft a)_j − (DFT a)_j| ≤ φ‖a‖₁ (Lemma 6(i)) at lengths with radix-3/5 stages, against a 40-digit DFT;
    # the observed error must also sit below φ/FFT_SAFETY (the assumption holds without the safety factor)
    import mpmath

    mpmath.mp.dps = 40
    rng = np.random.default_rng(n_fft)
    a = rng.uniform(0.0, 1.0, n_fft // 2) * 10.0 ** -rng.uniform(0, 12, n_fft // 2)
    spec = np.fft.rfft(a, n_fft)
    phi = C.fft_entry_error(n_fft)
    a1 = float(mpmath.fsum(mpmath.mpf(float(x)) for x in a))
    # the N roots of unity once (40 digits), indexed by jk mod N: the same DFT, not one expj per (j, k)
    roots = [mpmath.expj(-2 * mpmath.pi * m / n_fft) for m in range(n_fft)]
    am = [mpmath.mpf(float(x)) for x in a]
    worst = 0.0
    for j in range(n_fft // 2 + 1):
        exact = mpmath.fsum(x * roots[j * k % n_fft] for k, x in enumerate(am))
        worst = max(worst, float(abs(mpmath.mpc(complex(spec[j])) - exact)))
    assert worst <= phi / C.FFT_SAFETY * a1
    assert worst > 0.0  # the comparison sees rounding at all


@pytest.mark.parametrize("count,width_sd", [(5, 12.0), (12, 12.0)])
def test_injected_zero_error_bound_is_caught_at_mixed_radix_lengths(monkeypatch, count, width_sd):
    # N = 200 = 2³·5² and N = 360 = 2³·3²·5: with Lemma 6's error bound switched off both sides fail there too
    g = _pld_like(48, seed=3)
    mean, std = C.moments(g)
    lo, hi = C.window(count, mean, std, g.k0, g.k1, width_sd, True)
    assert C.smooth_size(max(hi - lo + 1, len(g.m))) % 5 == 0
    monkeypatch.setattr(C, "half_spectrum_sum", lambda v, n: 0.0)
    assert _violations(g, count, True, width_sd, 0.0)
    assert _violations(g, count, False, width_sd, 0.0)


def test_short_phases_keep_the_squaring_route_tight_at_tiny_delta():
    """Below DIRECT_FROM steps the squaring route (Lemma 5, binary64) is used: at 20 steps (q = 10/95, σ = 1)
    δ(10) ≈ 2.23e-15 is enclosed within 1e-3 relative; the direct spectrum power's error floor left the lower side
    at 4.8e-17 there (a 98 % wide sandwich) when it was used from 2 steps on."""
    import warnings

    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 10 / 95)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "width exceeds the tolerance" warning either
        s = bounds.compose([(step, 20)]).delta(10.0)
    assert 2.2e-15 < s.lower <= s.upper < 2.3e-15
    assert (s.upper - s.lower) / s.upper < 1e-3


# ---- FFT lengths and reused spectra of the squaring route (Lemma 5; issue 20) -------------------------

def test_fft_length_is_the_smallest_smooth_length_no_costlier_in_stages():
    # independent enumeration: the smallest even 2^a·3^b·5^c ≥ n whose a + 2b + 3c is at most log₂ of the
    # power of two ≥ n (so the certified bound is never larger than at the power of two)
    def stages(m):
        s = 0
        for r, cost in ((2, 1), (3, 2), (5, 3)):
            while m % r == 0:
                m //= r
                s += cost
        return s if m == 1 else None
    for n in list(range(1, 1100)) + [319, 800_212, 1_574_611, 2_099_616, 1_048_577]:
        pow2 = 2
        while pow2 < n:
            pow2 *= 2
        limit = pow2.bit_length() - 1
        expect = next(m for m in range(max(n, 2), pow2 + 1, 1)
                      if m % 2 == 0 and stages(m) is not None and stages(m) <= limit)
        assert C.fft_length(n) == expect, n
    assert C.fft_length(2_099_616) == 9 * 2 ** 18  # not 2²²
    assert C.fft_length(319) == 320


def test_fft_error_bound_at_fft_length_not_above_the_power_of_two():
    rng = np.random.default_rng(5)
    for n in (319, 1000, 5000, 100_000):
        a = rng.uniform(0, 1, n // 2 + 1)
        b = rng.uniform(0, 1, n - n // 2)
        nf = C.fft_length(n)
        for unit in (C.U, 2.0 ** -64):
            assert C.fft_error_bound(a, b, nf, unit) <= C.fft_error_bound(a, b, C._fft_size(n), unit)


def _exact_square(a):
    fr = [Fraction(float(x)) for x in a]
    e = max(f.denominator.bit_length() - 1 for f in fr)
    coeffs = (flint.fmpz_poly([int(f * 2 ** e) for f in fr]) ** 2).coeffs()
    return [Fraction(int(c), 2 ** (2 * e)) for c in coeffs]


@pytest.mark.parametrize("extended", [False, True])
def test_fft_convolve_square_and_cached_spectra_within_the_bound(extended):
    # a square (a is b: one transform) and a product whose factor's spectrum comes from a SpectrumCache, at
    # the mixed-radix length 320 = 2⁶·5 (319 outputs), against exact rational convolutions
    rng = np.random.default_rng(7)
    n = 160
    a = np.exp(-0.5 * ((np.arange(n) - n / 3) / (n / 10)) ** 2) * rng.uniform(0.5, 1.5, n)
    a = a / a.sum()
    b = a[::-1].copy()
    assert C.fft_length(2 * n - 1) == 320
    spectra = C.SpectrumCache()
    exact_sq = _exact_square(a)
    fb = [Fraction(float(x)) for x in b]
    exact_ab = [sum((Fraction(float(a[i])) * fb[k - i] for i in range(max(0, k - n + 1), min(k, n - 1) + 1)),
                    Fraction(0)) for k in range(2 * n - 1)]
    for x, y, exact in ((a, a, exact_sq), (b, a, exact_ab), (a, a, exact_sq)):  # the third: both cached
        c, err, rel = C._fft_convolve(x, y, 2 * n - 1, extended, spectra)
        rel = np.zeros_like(c) if rel is None else rel
        assert max(abs(Fraction(float(r)) - e) - Fraction(float(q)) for r, e, q in zip(c, exact, rel)) <= err
        assert max(abs(Fraction(float(r)) - e) for r, e in zip(c, exact)) > 0  # rounding is seen at all


def test_spectrum_cache_keys_on_the_array_and_forgets_dead_arrays():
    import gc

    rng = np.random.default_rng(3)
    spectra = C.SpectrumCache()
    a, b = rng.uniform(0, 1, 100), rng.uniform(0, 1, 100)
    sa = spectra.rfft(a, 256, False)
    assert spectra.rfft(a, 256, False) is sa  # reused
    sb = spectra.rfft(b, 256, False)  # another array of the same length: its own spectrum
    assert np.array_equal(sb, np.fft.rfft(b, 256)) and not np.array_equal(sa, sb)
    assert spectra.rfft(a, 320, False) is not sa  # another length: computed anew
    assert spectra.rfft(a, 256, True).dtype == np.clongdouble or C._extended_unit() == 0.0
    assert len(spectra._spectra) == 4
    del a
    gc.collect()
    assert len(spectra._spectra) == 1  # the three entries of the dead array are gone (b's remains)


def test_length_for_takes_a_cached_longer_length_only_when_cheaper_and_not_costlier_in_stages():
    rng = np.random.default_rng(11)
    spectra = C.SpectrumCache()
    base, result = rng.uniform(0, 1, 1000), rng.uniform(0, 1, 501)
    spectra.rfft(base, 2048, False)  # as if base had just been squared (1999 outputs: 2048)
    # result * base: 1500 outputs; fft_length 1536 = 2⁹·3 (11 stages, 3 transforms) against 2048 with base's
    # spectrum cached (2 transforms): 3·1536 > 2·2048, and 2048 is the power of two itself
    assert C.fft_length(1500) == 1536 and C.SpectrumCache().length_for(result, base, 1500, False) == 1536
    assert spectra.length_for(result, base, 1500, False) == 2048
    # 1100 outputs: 1152 = 2⁷·3² (11 stages); 3·1152 < 2·2048: the cached length is not taken
    assert spectra.length_for(result[:101], base, 1100, False) == C.fft_length(1100) == 1152
    # a cached length with more stages than the power of two is never taken, even where cheaper: beyond the
    # power of two (2000 outputs: 2048; cached 2304 = 2⁸·3², 2·2304 < 3·2048; stages ≥ log₂ N always) or
    # below it (1500 outputs; cached 1600 = 2⁶·5², 12 stages, 2·1600 < 3·1536)
    other = rng.uniform(0, 1, 1000)
    spectra.rfft(other, 2304, False)
    spectra.rfft(other, 1600, False)
    assert spectra.length_for(result, other, 2000, False) == C.fft_length(2000) == 2048
    assert spectra.length_for(result, other, 1500, False) == 1536
    # a cached length in the other precision does not count
    assert spectra.length_for(result, base, 1500, True) == 1536
