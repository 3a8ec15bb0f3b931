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
