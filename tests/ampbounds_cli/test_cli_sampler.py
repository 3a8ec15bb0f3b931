"""``ampbounds compose --sampler`` (issue 21): the sampler and adjacency are printed with the sandwich."""
from __future__ import annotations

import json

import pytest

from ampbounds_cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_shuffle_prints_sampler_adjacency_and_lower_side(capsys):
    code, out, _ = run(capsys, "compose", "--sampler", "shuffle", "--noise-multiplier", "1", "--steps-per-epoch",
                       "100", "--epochs", "50", "--delta", "1e-5")
    assert code == 0
    assert "zero-out adjacency" in out and "cyclic" in out and "Poisson" in out
    lower = float(out.split("epsilon(delta=1e-05): ")[1].split(" <=")[0])
    assert lower >= 20.0


def test_balls_and_bins_json_from_batch_words(capsys):
    code, out, _ = run(capsys, "compose", "--sampler", "balls-and-bins", "--noise-multiplier", "1", "--batch-size",
                       "100", "--dataset-size", "1000", "--epochs", "3", "--tolerance", "1e-2", "--json")
    assert code == 0
    data = json.loads(out)
    assert "balls-and-bins" in data["sampler"] and "⌈1000/100⌉" in data["sampler"]
    r = data["results"][0]
    assert r["lower"] <= r["upper"] and r["upper"] - r["lower"] < 1e-2


@pytest.mark.parametrize("argv,match", [
    (("--sampler", "poisson", "--noise-multiplier", "1", "--epochs", "2", "--steps-per-epoch", "10",
      "--adjacency", "zero_out"), "adjacency"),
    (("--sampler", "cyclic", "--noise-multiplier", "1", "--steps-per-epoch", "10"), "--epochs"),
    (("--sampler", "cyclic", "--epochs", "2", "--steps-per-epoch", "10", "--theta", "1"), "--noise-multiplier"),
    (("--noise-multiplier", "1", "--rate", "0.01"), "--steps"),
])
def test_bad_input_exit_2(capsys, argv, match):
    code, _, err = run(capsys, "compose", *argv)
    assert code == 2 and match in err


# ``ampbounds crosscheck --sampler`` (issue 21): header names sampler, adjacency and convention; exit codes 1/0/3


def test_crosscheck_shuffle_readme_claim_invalid_exit_1(capsys):
    code, out, _ = run(capsys, "crosscheck", "--sampler", "shuffle", "--adjacency", "zero_out", "--noise-multiplier",
                       "1", "--steps-per-epoch", "100", "--epochs", "50", "--delta", "1e-5", "--claim-epsilon",
                       "Poisson accountant=4.20")
    assert code == 1
    head = out.splitlines()[0]
    assert "sampler: shuffle" in head and "adjacency: zero-out" in head and "5000 steps" in head
    assert "lower side only" in head and "peers not run" in out
    assert "INVALID" in out


@pytest.mark.parametrize("claim,code", [("60", 0), ("30", 3)])
def test_crosscheck_shuffle_exit_codes(capsys, claim, code):
    got, out, _ = run(capsys, "crosscheck", "--sampler", "shuffle", "--noise-multiplier", "1", "--steps-per-epoch",
                      "100", "--epochs", "50", "--delta", "1e-5", "--claim-epsilon", claim)
    assert got == code
    if code == 3:
        assert "no tighter upper bound is known" in out


def test_crosscheck_balls_and_bins_json_from_batch_words(capsys):
    code, out, _ = run(capsys, "crosscheck", "--sampler", "balls-and-bins", "--noise-multiplier", "1",
                       "--batch-size", "100", "--dataset-size", "1000", "--epochs", "3", "--delta", "1e-5",
                       "--claim-epsilon", "a=100", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["sampler"]["sampler"] == "balls_and_bins" and data["sampler"]["adjacency"] == "add_remove"
    assert "⌈1000/100⌉" in data["sampler"]["convention"]
    assert data["rows"][0]["check"]["sampler"]["sampler"] == "balls_and_bins"


@pytest.mark.parametrize("argv,match", [
    (("--sampler", "shuffle", "--steps-per-epoch", "10", "--epochs", "2"), "--noise-multiplier"),
    (("--sampler", "shuffle", "--noise-multiplier", "1", "--steps-per-epoch", "10"), "--epochs"),
    (("--sampler", "shuffle", "--noise-multiplier", "1", "--epochs", "2"), "--steps-per-epoch"),
    (("--sampler", "shuffle", "--noise-multiplier", "1", "--epochs", "2", "--steps-per-epoch", "10", "--rate",
      "0.1"), "--rate"),
    (("--sampler", "shuffle", "--noise-multiplier", "1", "--epochs", "2", "--steps-per-epoch", "10", "--steps",
      "5"), "--steps"),
    (("--sampler", "poisson", "--noise-multiplier", "1", "--epochs", "2", "--steps-per-epoch", "10",
      "--adjacency", "zero_out"), "adjacency"),
    (("--noise-multiplier", "1", "--rate", "0.1", "--epochs", "2"), "--sampler"),
])
def test_crosscheck_sampler_bad_input_exit_2(capsys, argv, match):
    code, _, err = run(capsys, "crosscheck", *argv, "--delta", "1e-5", "--claim-epsilon", "1", "--peers", "none")
    assert code == 2 and match in err


# ``ampbounds calibrate --sampler`` (issue 21): σ by bisection on the certified composition, safe side σ⁺


def _gaussian_sigma(epsilon: float, delta: float, epochs: int) -> float:
    """σ* with δ(ε) = δ for E compositions of a Gaussian of sensitivity 1 and noise σ (μ = √E/σ), in mpmath
    (the exact profile Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2))."""
    import mpmath as mp

    mp.mp.dps = 50

    def d(sigma):
        mu = mp.sqrt(epochs) / sigma
        return mp.ncdf(-epsilon / mu + mu / 2) - mp.e ** epsilon * mp.ncdf(-epsilon / mu - mu / 2)

    lo, hi = mp.mpf("0.5"), mp.mpf(20)  # δ(ε) falls as σ grows: plain bisection
    assert d(lo) > delta > d(hi)
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return float(hi)


@pytest.mark.parametrize("sampler,batch", [("cyclic", "100"), ("balls-and-bins", "1000")])
def test_calibrate_bisection_brackets_the_exact_gaussian_sigma(capsys, sampler, batch):
    # cyclic (zero-out) and balls-and-bins with one batch per epoch (T = 1) are E compositions of the Gaussian
    code, out, _ = run(capsys, "calibrate", "--sampler", sampler, "--epsilon", "2", "--delta", "1e-5",
                       "--batch-size", batch, "--dataset-size", "1000", "--epochs", "3", "--tolerance", "1e-2",
                       "--json")
    assert code == 0
    data = json.loads(out)
    lo, hi = data["noise_multiplier_bounds"]
    star = _gaussian_sigma(2.0, 1e-5, 3)
    # each side within the search's rtol (1e-3 per side, bounds.calibration) of the exact σ: the gap between
    # the sides is the certified width plus up to 2·rtol, not rtol (it was 1.0015e-3 for balls-and-bins here)
    assert lo < star <= hi and hi / star - 1 <= 1e-3 and 1 - lo / star <= 1e-3
    assert data["adjacency"] == ("zero_out" if sampler == "cyclic" else "add_remove")
    assert "steps per epoch × 3 epochs" in data["convention"]


def test_calibrate_balls_and_bins_sigma_is_safe_and_progress_line(monkeypatch, capsys):
    import io
    import sys

    from bounds.samplers import sampler_composition

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    code, out, _ = run(capsys, "calibrate", "--sampler", "balls-and-bins", "--epsilon", "2", "--delta", "1e-5",
                       "--batch-size", "100", "--dataset-size", "1000", "--epochs", "3", "--tolerance", "1e-2",
                       "--json")
    assert code == 0 and "calibrating σ (balls-and-bins)" in term.getvalue() and "evaluation 1: σ = " in term.getvalue()
    lo, hi = json.loads(out)["noise_multiplier_bounds"]
    # re-derived through the library: σ⁺ certified ≤ 2, σ⁻ certified > 2 (at a finer tolerance too)
    for tol in (1e-2, 1e-3):
        up, _ = sampler_composition(sampler="balls_and_bins", noise_multiplier=hi, epochs=3, steps_per_epoch=10,
                                    tolerance=tol)
        down, _ = sampler_composition(sampler="balls_and_bins", noise_multiplier=lo, epochs=3, steps_per_epoch=10,
                                      tolerance=tol)
        assert up.epsilon(1e-5).upper <= 2.0 < down.epsilon(1e-5).lower


@pytest.mark.parametrize("argv,match", [
    (("--sampler", "shuffle", "--batch-size", "10", "--dataset-size", "100", "--epochs", "2"), "LOWER side"),
    (("--sampler", "balls-and-bins", "--rate", "0.1", "--steps", "3"), "--batch-size"),
    (("--sampler", "balls-and-bins", "--batch-size", "10", "--dataset-size", "100"), "--epochs"),
    (("--sampler", "cyclic", "--batch-size", "10", "--dataset-size", "100", "--epochs", "2",
      "--noise-multiplier", "1"), "step calibration"),
    (("--sampler", "poisson", "--batch-size", "10", "--dataset-size", "100", "--epochs", "2", "--adjacency",
      "zero_out"), "--adjacency"),
    (("--sampler", "balls-and-bins", "--batch-size", "10", "--dataset-size", "100", "--epochs", "2",
      "--adjacency", "zero_out"), "adjacency"),
])
def test_calibrate_sampler_bad_input_exit_2(capsys, argv, match):
    code, _, err = run(capsys, "calibrate", "--epsilon", "1", "--delta", "1e-5", *argv)
    assert code == 2 and match in err, err
