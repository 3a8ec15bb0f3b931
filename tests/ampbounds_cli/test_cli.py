"""The ``ampbounds`` command line (ampbounds_cli); ``certify`` is tested with proofs_checks."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import bounds
from ampbounds_cli import main

REPO = pathlib.Path(bounds.__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_theorem(capsys):
    code, out, err = run(capsys, "list")
    assert code == 0 and err == ""
    rows = {line.split()[0] for line in out.splitlines()[1:]}
    assert rows == set(bounds.theorems())
    assert "poisson_subsampling_inverse" in out and "recovered" in out


def test_list_json(capsys):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    data = json.loads(out)
    assert [t["id"] for t in data] == bounds.theorems()
    t1 = data[0]
    assert t1["functions"] == ["poisson_subsampling", "poisson_subsampling_inverse"]
    assert t1["provenance"] == bounds.theorem("T1").provenance
    assert t1["relation"] == bounds.theorem("T1").relation


def test_eval_t1_json_matches_library(capsys):
    code, out, err = run(capsys, "eval", "T1", "--epsilon", "1", "--delta", "1e-6", "--rate", "0.01", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    expected = bounds.poisson_subsampling(1.0, 1e-6, 0.01)
    assert data == {"theorem": "T1", "function": "poisson_subsampling",
                    "inputs": {"epsilon": 1.0, "delta": 1e-6, "rate": 0.01},
                    "epsilon": expected.epsilon, "delta": expected.delta}


def test_eval_t1_inverse(capsys):
    code, out, _ = run(capsys, "eval", "t1", "--epsilon", "0.5", "--delta", "1e-6", "--rate", "0.01",
                       "--inverse", "--json")
    assert code == 0
    data = json.loads(out)
    expected = bounds.poisson_subsampling_inverse(0.5, 1e-6, 0.01)
    assert data["function"] == "poisson_subsampling_inverse"
    assert (data["epsilon"], data["delta"]) == tuple(expected)


def test_eval_table_prints_exact_floats(capsys):
    code, out, _ = run(capsys, "eval", "T1", "--epsilon", "1", "--delta", "1e-6", "--rate", "0.01")
    assert code == 0
    g = bounds.poisson_subsampling(1.0, 1e-6, 0.01)
    values = {line.split()[0]: line.split()[1] for line in out.splitlines()[-2:]}
    assert float(values["epsilon"]) == g.epsilon and float(values["delta"]) == g.delta
    assert repr(g.delta) in out


@pytest.mark.parametrize(("theorem_id", "relation"), [("T3", "substitute"), ("T4", "add_remove")])
def test_eval_with_replacement_relation(capsys, theorem_id, relation):
    code, out, _ = run(capsys, "eval", theorem_id, "--epsilon", "1", "--delta", "1e-6", "-m", "10",
                       "--n", "1000", "--json")
    assert code == 0
    data = json.loads(out)
    expected = bounds.with_replacement(1.0, 1e-6, 10, 1000, relation=relation)
    assert data["function"] == "with_replacement" and data["inputs"]["relation"] == relation
    assert (data["epsilon"], data["delta"]) == tuple(expected)


def test_eval_options_come_from_metadata(capsys):
    code, out, _ = run(capsys, "eval", "T5", "--epsilon", "1", "--delta", "0", "--rate-from", "0.5",
                       "--rate-to", "0.1", "--json")
    assert code == 0
    assert json.loads(out)["epsilon"] == bounds.rate_change(1.0, 0.0, 0.5, 0.1).epsilon


@pytest.mark.parametrize("rate", ["1.5", "nan", "-0.1"])
def test_eval_bad_value_exits_2_naming_the_parameter(capsys, rate):
    code, out, err = run(capsys, "eval", "T1", "--epsilon", "1", "--delta", "1e-6", "--rate", rate)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "rate" in err
    assert "Traceback" not in err


def test_eval_constraint_violation_exits_2(capsys):
    code, _, err = run(capsys, "eval", "T2", "--epsilon", "1", "--delta", "0", "-m", "5", "-n", "3")
    assert code == 2 and "error: " in err and "m = 5" in err and "n = 3" in err


@pytest.mark.parametrize("argv", [
    ["eval", "T1", "--epsilon", "1", "--delta", "1e-6"],                   # missing --rate
    ["eval", "T1", "--epsilon", "1", "--delta", "1e-6", "--rate", "x"],    # not a number
    ["eval", "T1", "--epsilon", "1", "--delta", "1e-6", "--rate", "0.1", "--bogus"],
    ["list", "extra"],
    [],
])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "error: " in err


def test_eval_unknown_theorem_exits_2(capsys):
    code, out, err = run(capsys, "eval", "T99", "--epsilon", "1")
    assert code == 2 and out == ""
    assert "error: " in err and "T99" in err


def test_latex(capsys):
    code, out, _ = run(capsys, "latex", "T1")
    assert code == 0 and "\\varepsilon" in out


def test_latex_unknown_theorem_exits_2(capsys):
    code, _, err = run(capsys, "latex", "T99")
    assert code == 2 and "error: " in err and "T99" in err


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "eval", "T1", "--help")
    assert code == 0 and "--rate" in out and "--inverse" in out


def test_import_loads_neither_sympy_nor_numba():
    probe = "import sys, ampbounds_cli.cli; print('sympy' in sys.modules, 'numba' in sys.modules)"
    result = _python("-c", probe)
    assert result.stdout.split() == ["False", "False"]


def test_python_m_bounds_list():
    result = _python("-m", "bounds", "list")
    assert result.returncode == 0, result.stderr
    assert all(t in result.stdout for t in bounds.theorems())


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120, check=False)


def _strict_json(text: str):
    def refuse(constant):
        raise AssertionError(f"non-strict JSON token {constant}")
    return json.loads(text, parse_constant=refuse)


def test_compose_json_is_strict_and_edge_epsilons_are_answered(capsys):
    """Issue 19: no NaN/Infinity tokens; ε = −inf gives δ = 1 exactly (not `nan <= delta <= nan`); a NaN ε and a
    --rate given to a plain mechanism are errors (exit 2), not silently answered or ignored."""
    base = ["compose", "--noise-multiplier", "1", "--rate", "0.01", "--steps", "10"]
    code, out, _ = run(capsys, *base, "--epsilon=-inf", "--epsilon", "inf", "--delta", "1e-5", "--json")
    assert code == 0
    rows = _strict_json(out)["results"]
    assert rows[0]["query"] == "epsilon" and rows[0]["lower"] <= rows[0]["upper"]
    by_eps = {r["epsilon"]: r for r in rows if r["query"] == "delta"}
    assert by_eps["-inf"]["lower"] == by_eps["-inf"]["upper"] == 1.0
    assert by_eps["inf"]["lower"] == 0.0 <= by_eps["inf"]["upper"] <= 1e-15
    code, out, _ = run(capsys, *base, "--epsilon=-inf")
    assert code == 0 and "nan" not in out and "1 <= delta <= 1" in out
    code, _, err = run(capsys, *base, "--epsilon", "nan")
    assert code == 2 and "NaN" in err
    code, _, err = run(capsys, "compose", "--mechanism", "gaussian", "--noise-multiplier", "1", "--rate", "0.01",
                       "--steps", "3")
    assert code == 2 and "--rate" in err and "subsampled-gaussian" in err


def test_eval_c1_points_to_its_subcommands(capsys):
    code, _, err = run(capsys, "eval", "C1")
    assert code == 2 and "ampbounds compose" in err and "ampbounds calibrate" in err
    code, out, _ = run(capsys, "eval", "--help")
    assert code == 0 and "compose --calibrate" not in out and "compose --max-steps" not in out


def test_calibrate_routes_and_conventions(capsys):
    """`ampbounds calibrate`: batch/dataset/epochs → rate B/N and steps E·⌈N/B⌉ (stated), the direct form, the
    steps form, strict JSON, unknown samplers refused; the σ is the library's certified calibration."""
    code, out, _ = run(capsys, "calibrate", "--epsilon", "2", "--delta", "1e-5", "--batch-size", "500",
                       "--dataset-size", "10000", "--epochs", "5", "--tolerance", "1e-2", "--json")
    assert code == 0
    data = _strict_json(out)
    assert data["rate"] == 0.05 and data["steps"] == 100 and "⌈dataset size / batch size⌉" in data["convention"]
    expected = bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, 100, tolerance=1e-2)
    assert data["noise_multiplier_bounds"] == [expected.lower, expected.upper]
    code, out, _ = run(capsys, "calibrate", "--epsilon", "2", "--delta", "1e-5", "--rate", "0.05", "--steps",
                       "100", "--tolerance", "1e-2")
    assert code == 0 and f"{expected.upper!r}" in out and "(certified)" in out
    code, out, _ = run(capsys, "calibrate", "--epsilon", "1", "--delta", "1e-5", "--batch-size", "500",
                       "--dataset-size", "10000", "--noise-multiplier", "1.5", "--tolerance", "1e-2", "--json")
    steps = bounds.dpsgd_max_steps(1.0, 1e-5, 0.05, 1.5, tolerance=1e-2)
    assert code == 0 and _strict_json(out)["max_steps"] == [steps.lower, steps.upper]
    for argv, text in ((["--sampler", "shuffling", "--rate", "0.1", "--steps", "3"], "not known"),
                       (["--rate", "0.1"], "--steps"), (["--batch-size", "10", "--rate", "0.1", "--steps", "3"],
                                                        "not both"),
                       (["--batch-size", "100", "--dataset-size", "10", "--epochs", "1"], "batch size ≤ dataset"),
                       (["--rate", "0.1", "--steps", "0"], "steps")):
        code, _, err = run(capsys, "calibrate", "--epsilon", "1", "--delta", "1e-5", *argv)
        assert code == 2 and text in err, (argv, err)


def test_calibrate_progress_line_on_a_terminal(monkeypatch, capsys):
    """The σ search reports each evaluation on stderr when it is a terminal, and erases the line at the end."""
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["calibrate", "--epsilon", "2", "--delta", "1e-5", "--rate", "0.05", "--steps", "100",
                 "--tolerance", "1e-2"]) == 0
    text = term.getvalue()
    assert "calibrating σ (poisson)" in text and "evaluation 1: σ = " in text and text.endswith("\r\x1b[K")
    assert "(certified)" in capsys.readouterr().out
    term2 = Terminal()
    monkeypatch.setattr(sys, "stderr", term2)
    assert main(["calibrate", "--epsilon", "2", "--delta", "1e-5", "--rate", "0.05", "--steps", "100",
                 "--tolerance", "1e-2", "--no-progress"]) == 0
    assert term2.getvalue() == ""
    from bounds import calibration
    assert calibration._dpsgd_delta.__name__ == "_dpsgd_delta"  # the step calibration's hook is removed afterwards
