"""Certified composition (C1): sandwiches contain independent references; API, calibration, bad input."""
import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bounds
from proofs_checks import composition_checks as checks
from proofs_checks.composition_references import gaussian_composed_delta

# the width warnings are expected here (pytest resets the global filters for every test: a mark, not
# warnings.filterwarnings)
pytestmark = pytest.mark.filterwarnings("ignore:compose. certified width")


def test_one_step_contains_exact():
    assert checks.check_one_step([(1.0, 0.01, 0.0), (1.0, 0.01, 2.0), (0.5, 0.2, 1.0)]).passed


def test_gaussian_rate_one_contains_theta_sqrt_t():
    assert checks.check_gaussian_rate_one([(1, 1.0, 0.5), (1000, 0.05, 1.0)]).passed


def test_eps_delta_binomial():
    assert checks.check_eps_delta([(7, 0.5, 1e-4, 1.0), (20, 0.25, 0.0, 1.5)]).passed


def test_laplace_two_and_three_fold():
    assert checks.check_laplace([(2, 1.0, 0.5), (3, 0.5, 0.2)]).passed


def test_dpsgd_reference_and_width():
    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01)
    s = bounds.compose([(step, 1000)]).epsilon(1e-5)
    # dp_accounting PLD 1.828244, prv_accountant 1.828237 ± 1e-3 (published numbers of the issue)
    assert s.lower <= 1.828244 <= s.upper
    assert s.upper - s.lower <= 1e-3


def test_epsilon_is_consistent_with_delta():
    comp = bounds.compose([(bounds.Gaussian(theta=0.3), 10)])
    e = comp.epsilon(1e-6)
    assert comp.delta(e.upper).upper <= 1e-6 * (1 + 1e-12)
    assert comp.delta(e.lower).lower >= 1e-6
    exact = gaussian_composed_delta(e.upper, 0.3, 10)
    assert exact <= 1e-6


def test_arrays_and_heterogeneous():
    g = bounds.Gaussian.from_noise_multiplier(2.0)
    comp = bounds.compose([(bounds.poisson_sampled(g, 0.1), 30), (bounds.Laplace(theta=0.2), 2), (bounds.EpsDelta(0.1, 1e-7), 3)])
    s = comp.delta([0.5, 1.0])
    assert s.lower.shape == (2,) and (s.lower <= s.upper).all() and s.upper[1] <= s.upper[0]


def test_heterogeneous_gaussians_equal_one_gaussian():
    # Gaussian(a)∘Gaussian(b) = Gaussian(√(a² + b²)): an exact reference for a heterogeneous sequence
    comp = bounds.compose([(bounds.Gaussian(theta=0.3), 3), (bounds.Gaussian(theta=0.4), 2)])
    theta = math.sqrt(3 * 0.09 + 2 * 0.16)
    s = comp.delta(1.0)
    assert s.lower <= gaussian_composed_delta(1.0, theta, 1) <= s.upper


def test_calibration():
    # reference: the exact ε of 100 steps at σ = 1, q = 0.05 is enclosed by compose(); σ must bracket 1
    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.05)
    e = bounds.compose([(step, 100)]).epsilon(1e-5)
    s = bounds.dpsgd_noise_multiplier(e.upper, 1e-5, 0.05, 100, tolerance=1e-2)
    # σ = 1 meets (e.upper, 1e-5) exactly, so the minimal σ* ≤ 1 and the certified lower side must be ≤ 1
    assert s.lower <= 1.0 and s.lower <= s.upper and (s.upper - s.lower) < 1e-2 * s.upper


def test_constructors():
    assert bounds.Gaussian.from_noise_multiplier(4.0).theta == 0.25
    assert bounds.Gaussian.from_noise_multiplier(3.0).theta >= 1 / 3
    assert bounds.Laplace.from_scale(2.0, sensitivity=3.0).theta == 1.5
    with pytest.raises(ValueError):
        bounds.Gaussian.from_noise_multiplier(0.0)
    with pytest.raises(ValueError):
        bounds.Laplace.from_scale(float("nan"))


def test_noise_multiplier_rounded_both_ways():
    """σ = 3: 1/3 is not a double; the upper side uses θ rounded up, the lower side θ rounded down, and the
    sandwich still contains the exact δ of 9 steps (θ√9 = 1 exactly; mpmath reference)."""
    from fractions import Fraction

    g = bounds.Gaussian.from_noise_multiplier(3.0)
    assert Fraction(g.theta_lower) < Fraction(1, 3) < Fraction(g.theta)
    assert math.nextafter(g.theta_lower, 1.0) == g.theta
    lap = bounds.Laplace.from_scale(3.0, sensitivity=2.0)
    assert Fraction(lap.theta_lower) < Fraction(2, 3) < Fraction(lap.theta)
    exact = bounds.Gaussian.from_noise_multiplier(4.0)
    assert exact.theta_lower == exact.theta == 0.25 and bounds.Gaussian(theta=0.3).theta_lower == 0.3
    comp = bounds.compose([(g, 9)])
    # the 9 Gaussian steps are one Gaussian at 3θ (issue 19), θ⁺ rounded up for the upper grid, θ⁻ down
    [(key, count)] = comp.steps.items()
    assert count == 1 and Fraction(key[4]) < 1 < Fraction(key[2]) and key[2] - key[4] < 1e-14
    s = comp.delta(0.5)
    assert s.lower <= gaussian_composed_delta(0.5, 1.0, 1) <= s.upper


@pytest.mark.parametrize("steps", [0, -1, 2.5, float("nan"), float("inf"), 10 ** 9, 1e9, 10 ** 400, "10", None, True])
def test_bad_counts(steps):
    with pytest.raises(ValueError):
        bounds.compose([(bounds.Gaussian(theta=1.0), steps)])


@pytest.mark.parametrize("tolerance", [0.0, -1.0, float("nan"), float("inf"), 1e-12, "0.1", 10 ** 400])
def test_bad_tolerance(tolerance):
    with pytest.raises(ValueError, match="tolerance"):
        bounds.compose([(bounds.Gaussian(theta=1.0), 1)], tolerance=tolerance)


@pytest.mark.parametrize("call", [
    lambda: bounds.dpsgd_noise_multiplier(0.0, 1e-5, 0.01, 100),  # ε = 0: degenerate budget
    lambda: bounds.dpsgd_noise_multiplier(float("nan"), 1e-5, 0.01, 100),
    lambda: bounds.dpsgd_noise_multiplier(10 ** 400, 1e-5, 0.01, 100),
    lambda: bounds.dpsgd_noise_multiplier("1", 1e-5, 0.01, 100),
    lambda: bounds.dpsgd_noise_multiplier(1.0, 0.0, 0.01, 100),
    lambda: bounds.dpsgd_noise_multiplier(1.0, 1e-5, 0.0, 100),
    lambda: bounds.dpsgd_noise_multiplier(1.0, 1e-5, 0.01, 2.5),
    lambda: bounds.dpsgd_noise_multiplier(1.0, 1e-5, 0.01, 100, tolerance=0.0),
    lambda: bounds.dpsgd_max_steps(1.0, 1e-5, 0.01, float("nan")),
    lambda: bounds.dpsgd_max_steps(1.0, 1e-5, 0.01, 10 ** 400),
    lambda: bounds.dpsgd_max_steps(1.0, 1e-5, 0.01, 1.0, max_steps=2.5),
    lambda: bounds.poisson_sampled(bounds.Gaussian(theta=1.0), "0.1"),
    lambda: bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 10 ** 400),
    lambda: bounds.Gaussian.from_noise_multiplier("1"),
    lambda: bounds.Gaussian.from_noise_multiplier(10 ** 400),
    lambda: bounds.Gaussian.from_noise_multiplier(1e-320),  # 1/σ overflows
    lambda: bounds.compose([(bounds.Gaussian(theta=1.0), 10)]).delta("x"),
    lambda: bounds.compose([(bounds.Gaussian(theta=1.0), 10)]).epsilon(10 ** 400),
])
def test_bad_calibration_and_scalars(call):
    with pytest.raises(ValueError):
        call()


def test_loose_budget_is_a_clear_error():
    # the σ it allows lies below what the grid resolves; the message says which σ is certified (ε = 100, the
    # case of issue 19, is certified since issue 21: tests/bounds/test_calibration.py)
    with pytest.raises(ValueError, match="so loose.*certified"):
        bounds.dpsgd_noise_multiplier(1.0, 0.5, 0.1, 1)


def test_bad_queries_and_extremes():
    comp = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 0.01), 100)])
    for d in (0.0, 1.0, float("nan"), 1e-300):
        with pytest.raises(ValueError):
            comp.epsilon(d)
    with pytest.raises(ValueError):
        comp.delta(float("nan"))
    with pytest.warns(UserWarning, match="within 10³ of"):  # [0, floor]: certified, not resolved
        assert comp.delta(500.0).lower == 0.0
    with pytest.raises(ValueError):
        bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 1e-300), 10)])
    with pytest.raises(ValueError):  # σ = 1e-3: the loss range needs far too many nodes
        bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1e-3), 0.01), 1000)]).epsilon(1e-5)


def test_a_sandwich_at_the_grids_floor_is_wider_than_the_tolerance_and_says_so():
    # δ(40) of 10 Gaussian(θ = 1) steps is ≈ 1e-64 (mpmath), far below the smallest δ the grid certifies: the
    # refinement leaves such points out (issue 19), and the certified [0, floor] came back without a word
    comp = bounds.compose([(bounds.Gaussian(theta=1.0), 10)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resolved = comp.delta(10.0)  # the same grid, a resolved point: no warning
    assert resolved.upper - resolved.lower <= 1e-3 * resolved.upper
    exact = gaussian_composed_delta(40.0, 1.0, 10)
    with pytest.warns(UserWarning, match=r"epsilon = 40\.0 the certified sandwich \[0, .*wider than the tolerance "
                                         r"0\.001.*within 10³ of .*smallest δ this grid certifies"):
        s = comp.delta(40.0)
    assert s.lower <= exact <= s.upper and s.upper - s.lower > 1e-3 * s.upper
    with pytest.warns(UserWarning, match=r"epsilon = 40\.0 \(and 1 more point\(s\)\)"):
        many = comp.delta([10.0, 40.0, 80.0])
    assert many.upper[1] == s.upper


@settings(max_examples=3, deadline=None)
@given(st.sampled_from([0.7, 1.5]), st.sampled_from([0.01, 0.1]))
def test_width_shrinks_with_tolerance(sigma, q):
    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(sigma), q)
    coarse = bounds.compose([(step, 50)], tolerance=1e-2).epsilon(1e-4)
    fine = bounds.compose([(step, 50)], tolerance=1e-3).epsilon(1e-4)
    assert fine.upper - fine.lower <= coarse.upper - coarse.lower
    assert coarse.lower <= fine.upper and fine.lower <= coarse.upper


def test_monotone():
    assert checks.check_monotone().passed


def test_cli_compose(capsys):
    from ampbounds_cli import main

    assert main(["compose", "--noise-multiplier", "1", "--rate", "0.01", "--steps", "1000", "--delta", "1e-5",
                 "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    r = out["results"][0]
    assert r["lower"] <= 1.828244 <= r["upper"]
    assert main(["compose", "--noise-multiplier", "1", "--rate", "0.01", "--steps", "0"]) == 2
    assert "error:" in capsys.readouterr().err
    # piped (not a terminal): no progress line on stderr
    assert main(["compose", "--noise-multiplier", "2", "--rate", "0.1", "--steps", "10", "--delta", "1e-5"]) == 0
    assert capsys.readouterr().err == ""


def test_cli_progress_on_a_terminal(monkeypatch, capsys):
    import io
    import sys

    from ampbounds_cli import main

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["compose", "--noise-multiplier", "2", "--rate", "0.1", "--steps", "10", "--delta", "1e-5"]) == 0
    text = term.getvalue()
    assert "composing 10 steps" in text and "steps by FFT" in text and text.endswith("\r\x1b[K")
    assert "epsilon(delta=1e-05)" in capsys.readouterr().out
    term2 = Terminal()
    monkeypatch.setattr(sys, "stderr", term2)
    assert main(["compose", "--noise-multiplier", "2", "--rate", "0.1", "--steps", "10", "--no-progress"]) == 0
    assert term2.getvalue() == ""


def test_fft_convolution_bound_against_exact_rationals():
    # the FFT error bound (proof note, Lemma 5) against exact rational convolution of PLD-like vectors
    from fractions import Fraction

    import numpy as np

    from bounds.composition import _C

    C = _C()
    rng = np.random.default_rng(1)
    for n in (100, 160):
        a = np.exp(-0.5 * ((np.arange(n) - n / 3) / (n / 10)) ** 2) * rng.uniform(0.5, 1.5, n)
        a = a / a.sum()
        b = np.concatenate([a[::3], rng.uniform(0, 1e-12, n // 2)])
        exact = [Fraction(0)] * (len(a) + len(b) - 1)
        fa = [Fraction(x) for x in a]
        fb = [Fraction(x) for x in b]
        for i, x in enumerate(fa):
            for j, y in enumerate(fb):
                exact[i + j] += x * y
        ga, gb = C.Grid(a, 0, 0.0), C.Grid(b, 0, 0.0)
        nf = C._fft_size(len(exact))
        raw = np.fft.irfft(np.fft.rfft(a, nf) * np.fft.rfft(b, nf), nf)[:len(exact)]
        bound = C.fft_error_bound(a, b, nf)
        worst = max(abs(Fraction(float(r)) - e) for r, e in zip(raw, exact))
        assert worst <= bound and bound < 1e-12
        for extended in (False, True):  # binary64 and long double (numpy ≥ 2 pocketfft)
            up = C.convolve(ga, gb, 0, len(exact) - 1, True, extended)
            lo = C.convolve(ga, gb, 0, len(exact) - 1, False, extended)
            assert all(Fraction(float(u)) >= e for u, e in zip(up.m, exact))
            assert all(Fraction(float(v)) <= e for v, e in zip(lo.m, exact))
        c, err, rel = C._fft_convolve(a, b, len(exact), True)
        assert max(abs(Fraction(float(r)) - e) - Fraction(float(x)) for r, e, x in zip(c, exact, rel)) <= err


def test_max_steps_with_much_noise_terminates():
    # σ = 1e4: the certified lower δ stays 0 up to the cap; the search for `upper` must double its gap
    # (it used to walk T one step at a time: ~1e5 compositions here)
    s = bounds.dpsgd_max_steps(1.0, 1e-5, 0.01, 1e4, tolerance=1e-2, max_steps=10 ** 5)
    assert 0 < s.lower <= s.upper <= 10 ** 5


# ----------------------------------------------------------------------------------------------------
# issue 19: numerical soundness at the edges (references: mpmath closed forms, independent of the code)
# ----------------------------------------------------------------------------------------------------

def _sg_exact(eps, theta, q):
    from proofs_checks.composition_references import subsampled_gaussian_delta as ref

    return max(ref(eps, theta, q, "remove"), ref(eps, theta, q, "add") if q < 1 else 0.0)


def _gauss_mp(eps, theta):
    """δ of the Gaussian pair at θ (an mpmath number or exact float), 60 digits."""
    import mpmath as mp

    with mp.workdps(60):
        t, e = mp.mpf(theta), mp.mpf(eps)
        return mp.ncdf(t / 2 - e / t) - mp.exp(e) * mp.ncdf(-t / 2 - e / t)


@pytest.mark.parametrize("theta, q, eps, lower_rel", [
    (30.0, 0.01, 700.0, 0.9),     # was (0.0, 8.632e-22): the masses through e^{kh} overflowed (exact 8.2455e-20)
    (30.0, 0.01, 650.0, 0.999),   # was upper 3.687636e-14 < exact 3.687644e-14 (subnormal slopes)
    (30.5, 0.5, 590.0, 0.999),    # was upper 8.395027603790e-06 < exact 8.395027603869e-06
    (31.0, 0.01, 1.0, 0.999),     # was ZeroDivisionError (e^{kh} underflowed to 0 at the first node)
    (48.0, 2.0 ** -26, 800.0, 0.99),  # tiny rate: the lower side was 0 from losses ≈ 690 (found by the search)
])
def test_issue19_subsampled_gaussian_at_large_losses(theta, q, eps, lower_rel):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=theta), q), 1)],
                           tolerance=1e-2).delta(eps)
    exact = _sg_exact(eps, theta, q)
    assert s.lower <= exact <= s.upper
    # a sandwich wider than the tolerance says so (ε = 700: 1.5 %, within 10³ of the grid's floor), and only then
    wide = s.upper - s.lower > 1e-2 * s.upper
    assert wide == any("wider than the tolerance" in str(w.message) for w in caught), (s, caught)
    assert s.lower >= lower_rel * exact and s.upper <= exact * (1 + 1e-6)


def test_issue19_epsilon_above_709():
    comp = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=30.5), 0.5), 1)])
    s = comp.epsilon(1e-17)  # was (700.63, 707.92): δ at the returned ε was 28× the target; exact 720.142
    assert _sg_exact(s.upper, 30.5, 0.5) <= 1e-17 < _sg_exact(s.lower, 30.5, 0.5)
    assert s.upper - s.lower < 0.05
    # group privacy / long runs: 1200 Gaussian steps at σ = 1, exact ε(1e-3) = 706.0911251943… (θ√T, mpmath)
    e = bounds.compose([(bounds.Gaussian.from_noise_multiplier(1.0), 1200)], tolerance=1e-2).epsilon(1e-3)
    assert e.lower <= 706.0911251943494 <= e.upper and e.upper - e.lower < 1e-2  # was (574.0, 1024.7)


def test_issue19_subsampled_laplace_and_crosscheck():
    from proofs_checks.composition_references import subsampled_laplace_delta

    c = bounds.compose([(bounds.poisson_sampled(bounds.Laplace(theta=720.0), 0.5), 1)])
    s = c.delta(712.0)  # was (0.0, 1e-320); exact 0.487048887540012
    exact = subsampled_laplace_delta(712.0, 720.0, 0.5, "remove")
    assert s.lower <= exact <= s.upper and s.lower > 0.48
    assert bounds.crosscheck(c, epsilon=712.0, delta=0.01).verdict == "invalid"  # was a false 'valid'


@pytest.mark.parametrize("mech, eps", [
    (bounds.Gaussian.from_noise_multiplier(0.29), 1.0),  # θ = 1/0.29: was OverflowError (ln of 0 loss)
    (bounds.Gaussian.from_noise_multiplier(0.3), 1.0),   # was (0.0, 0.847) silently
    (bounds.Laplace(theta=38.0), 1.0),                         # was OverflowError
])
def test_issue19_plain_steps_with_little_noise(mech, eps):
    import mpmath as mp

    s = bounds.compose([(mech, 1)]).delta(eps)
    if isinstance(mech, bounds.Gaussian):
        with mp.workdps(60):
            exact = float(_gauss_mp(eps, 1 / mp.mpf(mech.sigma) if hasattr(mech, "sigma") else mech.theta))
    else:
        from proofs_checks.composition_references import laplace_composed

        exact = laplace_composed(eps, 38.0, 1)
    assert s.lower <= exact <= s.upper and s.upper - s.lower < 1e-6
    e = bounds.compose([(mech, 1)]).epsilon(1e-5)
    assert 0 < e.lower <= e.upper < math.inf


def test_issue19_calibrations_at_the_edges():
    # exact σ for (10, 1e-3), one step at rate 1: 0.40605955802413852 (Gaussian profile, mpmath); was OverflowError
    s = bounds.dpsgd_noise_multiplier(10.0, 1e-3, 1.0, 1)
    assert s.lower <= 0.40605955802413852 <= s.upper
    with pytest.raises(ValueError, match="loose"):  # δ ≤ q = 0.1 < 0.5 for every σ; was ZeroDivisionError
        bounds.dpsgd_noise_multiplier(1.0, 0.5, 0.1, 1)
    # 10⁵ Gaussian steps: exact σ = 1179.7293077095892 (θ√T); was "needs σ below 1.0"
    s = bounds.dpsgd_noise_multiplier(1.0, 1e-5, 1.0, 100000, tolerance=1e-2)
    assert s.lower <= 1179.7293077095892 <= s.upper and s.upper - s.lower < 1e-3 * s.upper


def test_issue19_best_of_grids_and_minus_infinity():
    import numpy as np

    c = bounds.compose([(bounds.Gaussian.from_noise_multiplier(0.35), 3)])
    c.delta(np.linspace(0.0, 5.0, 5))
    s = c.epsilon(1e-10)  # exact 43.083690926174415 (θ√3, mpmath); was lower 0 after an array query
    assert 43.0 < s.lower <= 43.083690926174415 <= s.upper < 43.1
    assert tuple(c.delta(-math.inf)) == (1.0, 1.0)  # δ(−∞) = P(everything) = 1; was (nan, nan)
    arr = c.delta([-math.inf, 0.0, math.inf])
    assert arr.lower[0] == arr.upper[0] == 1.0 and arr.lower[2] == 0.0 and not np.isnan(arr.upper).any()


def test_issue19_many_distinct_steps_and_arrays():
    import numpy as np

    # a schedule of 100 distinct subsampled steps: was a NaN lower side (and > 250 s for 100 × 10 steps)
    steps = [(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(0.8 + i / 200), 0.01 + i / 10000), 1)
             for i in range(100)]
    c = bounds.compose(steps, tolerance=1e-2)
    s = c.delta(1.0)
    assert 0.0 < s.lower <= s.upper < 1.0 and (s.upper - s.lower) < 0.01 * s.upper
    # array queries are O(1) per point after the grids: the same numbers as scalar queries
    e = np.linspace(0.0, 3.0, 100_001)
    arr = c.delta(e)
    assert not np.isnan(arr.lower).any() and (arr.lower <= arr.upper).all()
    for i in (0, 33_333, 100_000):
        one = c.delta(float(e[i]))
        assert arr.lower[i] <= one.upper and one.lower <= arr.upper[i]
    # a schedule of distinct Gaussians is the Gaussian at the norm (exact reference)
    thetas = [(8 + i % 8) / 64 for i in range(90)]
    g = bounds.compose([(bounds.Gaussian(theta=t), 1) for t in thetas]).delta(2.0)
    import mpmath as mp

    with mp.workdps(60):
        exact = float(_gauss_mp(2.0, mp.sqrt(mp.fsum(mp.mpf(t) ** 2 for t in thetas))))
    assert g.lower <= exact <= g.upper


def test_issue19_max_steps_has_a_work_bound():
    with pytest.raises(ValueError, match="max_steps"):
        bounds.dpsgd_max_steps(1, 1 - 1e-16, 0.05, 1.5)


def test_issue19_log_tail_and_masses_without_overflow():
    """log_tail's two sides enclose ln Φ(−t) (mpmath); the connect-the-dots masses at kh ∈ [700, 720]
    (e^{kh} overflows there) are ≥ the exact second differences of the same node values (exact rationals)."""
    import mpmath as mp
    import numpy as np

    from bounds.composition import _C

    C = _C()
    for t in (0.5, 19.5, 20.0, 38.5, 100.0, 1e3):
        with mp.workdps(60):
            ex = mp.log(mp.ncdf(-mp.mpf(t)))
        assert C.log_tail(C.GAUSSIAN, t, False) <= ex <= C.log_tail(C.GAUSSIAN, t, True)
    h = 2.0 ** -4
    k_lo = 700 * 16
    d = C.profile_values(C.GAUSSIAN, C.REMOVE, 30.0, 0.01, k_lo, k_lo + 320, h)
    masses, m_inf = C.upper_from_values(d, k_lo, h)
    with mp.workdps(60):
        big_g = mp.exp(mp.mpf(h))
        fd = [mp.mpf(float(x)) for x in d]  # exact: a double is an mpf at 60 digits
        for i in range(len(d)):
            t1 = (1 - fd[0]) if i == 0 else big_g * (fd[i - 1] - fd[i]) / (big_g - 1)
            t2 = (fd[i] - fd[i + 1]) / (big_g - 1) if i < len(d) - 1 else 0
            assert masses[i] >= t1 - t2
            assert masses[i] <= max(t1 - t2, 0) + 1e-12 * abs(t1) + 1e-300
    assert np.isfinite(masses).all() and m_inf == d[-1]


def test_issue19_adversarial_slice():
    # a seeded slice of the certify --full search (integers and powers of two only: CPU-independent points)
    out = checks.check_adversarial(checks.adversarial_points(12))
    assert out.passed, out.detail


def test_issue19_hockey_stick_tables_enclose_the_exact_sum():
    """hs_tables/hs_eval (directed rounding, O(1) per point) against the sum Σ m_k(1 − e^{ε − kh})₊ + m_∞ in
    mpmath, at nodes, between nodes, below/above the grid, ±inf, with subnormal and huge-ε entries."""
    import mpmath as mp
    import numpy as np

    from bounds.composition import _C

    C = _C()
    rng = np.random.default_rng(19)
    h, k0 = 2.0 ** -5, 22_000  # nodes at 687.5 … (e^{kh} overflows from 709.78)
    m = rng.integers(0, 2 ** 20, 900) * 2.0 ** -40
    m[::7] = 0.0
    m[5:9] = [5e-324, 2.0 ** -1060, 0.0, 1e-310]
    m_inf = 2.0 ** -30
    eps = np.array([-np.inf, 0.0, 687.5, 700.0, 700.0 + 2.0 ** -7, 709.78125, 712.0 + 2.0 ** -20, 715.625,
                    (k0 + 899) * h, (k0 + 900) * h, 1e4, np.inf])
    bu, cu = C.hs_tables(m, h, True)
    bl, cl = C.hs_tables(m, h, False)
    up = C.hs_eval(bu, cu, k0, h, m_inf, eps, True)
    lo = C.hs_eval(bl, cl, k0, h, m_inf, eps, False)
    with mp.workdps(50):
        for e, u, lw in zip(eps, up, lo):
            if e == -np.inf:
                ref = mp.fsum(mp.mpf(float(x)) for x in m) + m_inf
            elif e == np.inf:
                ref = mp.mpf(m_inf)
            else:
                ref = mp.fsum(mp.mpf(float(x)) * (1 - mp.exp(mp.mpf(float(e)) - (k0 + i) * mp.mpf(h)))
                              for i, x in enumerate(m) if (k0 + i) * h > e) + m_inf
            assert lw <= ref <= u
            assert u - lw <= 1e-12 * ref + 1e-300


def test_issue19_eps_delta_with_large_epsilon():
    # EpsDelta(800, 0): 1/(1 + e^{800}) overflowed (OverflowError); exact δ(700) = P(loss +800) = 1 − 1/(1+e^{800})
    from proofs_checks.composition_references import eps_delta_composed

    s = bounds.compose([(bounds.EpsDelta(800.0, 0.0), 1)]).delta(700.0)
    assert s.lower <= eps_delta_composed(700.0, 800.0, 0.0, 1) <= s.upper and s.lower > 0.999
