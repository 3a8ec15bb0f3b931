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
