"""Certified composition (C1): sandwiches contain independent references; API, calibration, bad input."""
import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bounds
from proofs_checks import composition_checks as checks
from proofs_checks.composition_references import gaussian_composed_delta

warnings.filterwarnings("ignore", message="compose: certified")


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
    key = next(iter(comp.steps))
    assert key[2] == g.theta and key[4] == g.theta_lower  # upper grid from θ⁺, lower grid from θ⁻
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
    # ε = 100: the σ it allows lies below what the grid resolves; the message says which σ is certified
    with pytest.raises(ValueError, match="so loose.*certified"):
        bounds.dpsgd_noise_multiplier(100.0, 1e-5, 0.01, 100, tolerance=1e-2)


def test_bad_queries_and_extremes():
    comp = bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 0.01), 100)])
    for d in (0.0, 1.0, float("nan"), 1e-300):
        with pytest.raises(ValueError):
            comp.epsilon(d)
    with pytest.raises(ValueError):
        comp.delta(float("nan"))
    assert comp.delta(500.0).lower == 0.0
    with pytest.raises(ValueError):
        bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 1e-300), 10)])
    with pytest.raises(ValueError):  # σ = 1e-3: the loss range needs far too many nodes
        bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1e-3), 0.01), 1000)]).epsilon(1e-5)


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
