"""Issue 15's CLI items: one-line errors, no abbreviations, options a function does not take, named outputs,
strict JSON, every public function reachable (or the reason), subcommand registration."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import types

import pytest

import bounds
from ampbounds_cli import main
from ampbounds_cli import cli as main_module, evaluate


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def strict(text):
    def refuse(token):
        raise AssertionError(f"not JSON: {token}")
    return json.loads(text, parse_constant=refuse)


def one_line_error(err):
    return err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["eval", "T1", "--rat", "0.01", "--epsilon", "1", "--delta", "0"],                 # abbreviation
    ["eval", "T1", "--rate", "0.01", "--rat", "0.2", "--epsilon", "1", "--delta", "0"],
    ["eval", "T8", "--epsilon", "1", "--theta", "1", "--delta", "0.3"],                # T8 takes no δ
    ["eval", "T9", "--inverse", "--epsilon", "1", "--delta", "1e-5", "--theta", "1"],  # the inverse takes no ε
    ["eval", "gaussian_profile", "--epsilon", "1", "--theta", "1", "--rate", "0.1"],
    ["eval", "T13"], ["eval", "suppression_bound"],
    ["eval", "T1", "--epsilon", "1", "--delta", "0", "--rate", "0.5", "--rate-from", "0.1"],
    ["lis"], ["list", "--bogus"], ["show", "T99"], ["show", "T1", "--bogus"], ["latex"], ["latex", "T99"],
    ["latex", "--bogus"], ["plot", "kanon"], ["plot", "kanon", "--out", "/nonexistent/dir/x.png"],
    ["plot", "kanon", "--out", "x.txt"], ["plot", "bogus", "--out", "x.png"], ["eval", "--bogus"],
    ["eval", "T9", "--epsilon", "1"],                                                  # neither θ nor noise multiplier
    ["eval", "T9", "--epsilon", "1", "--theta", "1", "--noise-multiplier", "1"],       # both
    ["eval", "poisson_subsampling_profile", "--mechanism", "gauss:1", "--epsilon", "1", "--rate", "0.1"],
])
def test_user_errors_are_one_line_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and one_line_error(err), (code, out, err)


def test_reasons_are_given(capsys):
    _, _, err = run(capsys, "eval", "T13")
    assert "Python callable" in err
    _, _, err = run(capsys, "eval", "T8", "--epsilon", "1", "--theta", "1", "--delta", "0.3")
    assert "laplace_profile does not take --delta" in err


@pytest.mark.parametrize("command", ["list", "show", "eval", "latex", "plot", "certify"])
def test_every_subcommand_has_help(capsys, command):
    code, out, err = run(capsys, command, "--help")
    assert code == 0 and "usage:" in out and err == ""


def test_every_eval_target_has_help(capsys):
    parser, _ = main_module.build_parser()
    targets = next(a for a in parser._subparsers._group_actions[0].choices["eval"]._actions
                   if isinstance(a, argparse._SubParsersAction)).choices
    for target, sub in targets.items():
        assert "usage:" in sub.format_help(), target
    code, out, err = run(capsys, "eval", "T13", "--help")
    assert code == 0 and "Python callable" in " ".join(out.split())


def test_every_public_function_is_reachable_or_explained():
    parser, _ = main_module.build_parser()
    targets = next(a for a in parser._subparsers._group_actions[0].choices["eval"]._actions
                   if isinstance(a, argparse._SubParsersAction)).choices
    for name in bounds.__all__:
        obj = getattr(bounds, name)
        if isinstance(obj, type):
            continue  # classes: Gaussian/Laplace/EpsDelta through --mechanism; result types are printed
        assert (name in targets or name in evaluate.OTHER_COMMANDS), name
        if name in evaluate.NOT_FROM_SHELL:
            assert len(evaluate.NOT_FROM_SHELL[name]) > 20
        elif name not in evaluate.OTHER_COMMANDS:
            returns = str(__import__("inspect").signature(obj).return_annotation)
            assert "Guarantee" in returns or "FWLQuery" in returns or name in evaluate.RESULT_NAMES, name


def test_inverse_help_calls_epsilon_the_target(capsys):
    _, out, _ = run(capsys, "eval", "T1", "--help")
    assert "with --inverse: the TARGET ε′" in " ".join(out.split())
    _, out, _ = run(capsys, "eval", "poisson_subsampling_inverse", "--help")
    assert "the TARGET ε′" in " ".join(out.split())


def test_single_numbers_are_named(capsys):
    code, out, _ = run(capsys, "eval", "T10", "--epsilon", "1", "--delta", "1e-6", "--json")
    data = strict(out)
    assert code == 0 and data["sigma"] == bounds.gaussian_sigma(1.0, 1e-6) and "value" not in data
    code, out, _ = run(capsys, "eval", "T10", "--epsilon", "1", "--delta", "1e-6")
    assert out.splitlines()[-1].split() == ["sigma", repr(bounds.gaussian_sigma(1.0, 1e-6))]
    code, out, _ = run(capsys, "eval", "safe_k_anonymization_min_k", "--delta", "1e-6", "--beta", "0.2",
                       "--epsilon", "1", "--json")
    assert strict(out)["k"] == bounds.safe_k_anonymization_min_k(delta=1e-6, beta=0.2, epsilon=1.0)
    assert isinstance(strict(out)["k"], int)


def test_json_is_strict_with_infinities(capsys):
    code, out, _ = run(capsys, "eval", "T1", "--epsilon", "inf", "--delta", "0", "--rate", "0.5", "--json")
    data = strict(out)
    assert code == 0 and data["epsilon"] == "inf" and data["inputs"]["epsilon"] == "inf"
    assert float(data["epsilon"]) == bounds.poisson_subsampling(float("inf"), 0.0, 0.5).epsilon


def test_other_functions_of_a_theorem_and_mechanisms(capsys):
    code, out, _ = run(capsys, "eval", "subsampled_laplace_profile", "--epsilon", "1", "--theta", "1",
                       "--rate", "0.1", "--direction", "add", "--json")
    assert code == 0
    assert strict(out)["delta"] == bounds.subsampled_laplace_profile(1.0, theta=1.0, rate=0.1, direction="add")
    code, out, _ = run(capsys, "eval", "poisson_substitution_profile", "--mechanism", "gaussian:0.5",
                       "--epsilon", "1", "--rate", "0.01", "--json")
    assert code == 0
    expected = bounds.poisson_substitution_profile(bounds.Gaussian(theta=0.5), 1.0, 0.01)
    assert (strict(out)["epsilon"], strict(out)["delta"]) == tuple(expected)
    code, out, _ = run(capsys, "eval", "T9", "--epsilon", "1", "--noise-multiplier", "2", "--json")
    assert strict(out)["delta"] == bounds.gaussian_profile(1.0, noise_multiplier=2.0)


def test_plot_without_matplotlib_is_one_line(capsys, monkeypatch, tmp_path):
    from ampbounds_cli import plot

    real = plot.importlib.util.find_spec
    monkeypatch.setattr(plot.importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    code, out, err = run(capsys, "plot", "kanon", "--out", str(tmp_path / "k.png"))
    assert code == 2 and one_line_error(err) and "pip install 'ampbounds[plot]'" in err


def test_internal_error_is_one_line(capsys, monkeypatch):
    def broken(epsilon, delta, k):
        raise RuntimeError("boom")

    monkeypatch.setattr(bounds, "group_privacy", broken)
    code, _, err = run(capsys, "eval", "T7", "--epsilon", "1", "--delta", "0", "-k", "2")
    assert code == 70 and one_line_error(err) and "boom" in err


def test_closed_pipe_is_silent():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen([sys.executable, "-m", "bounds", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # the reader is gone before anything is written (`| head` that already exited)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


def test_a_subcommand_module_registers_with_one_line(capsys, monkeypatch):
    module = types.ModuleType("ampbounds_cli_test_hello")

    def add_parser(subparsers):
        subparsers.add_parser("hello").add_argument("--name", required=True)

    module.add_parser = add_parser
    module.run = lambda args: print(f"hello {args.name}") or 0
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(main_module, "COMMANDS", (*main_module.COMMANDS, module.__name__))
    assert run(capsys, "hello", "--name", "x")[:2] == (0, "hello x\n")
    assert run(capsys, "hello", "--nam", "x")[0] == 2


def test_the_flow_runs_one_way():
    """bounds imports neither the CLI nor the checks (bounds/__main__.py, run only as a script, is the one
    documented exception); the check registry imports no check module."""
    import pathlib
    import re

    root = pathlib.Path(bounds.__file__).resolve().parent
    for path in root.glob("*.py"):
        if path.name == "__main__.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+(ampbounds_cli|proofs_checks)\b", text, re.M), path.name
    framework = (root.parent / "proofs_checks" / "framework.py").read_text(encoding="utf-8")
    from proofs_checks.catalogue import MODULES

    imported = set(re.findall(r"^\s*from \.(\w*) import (\w+)", framework, re.M))
    names = {f"proofs_checks.{module or name}" for module, name in imported}
    assert not names & set(MODULES), names & set(MODULES)
    assert not re.search(r"import proofs_checks\.", framework)
    probe = ("import sys, bounds; print(any(m.startswith(('ampbounds_cli', 'proofs_checks', 'sympy', 'numba')) "
             "for m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root.parent), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60,
                            check=False)
    assert result.stdout.strip() == "False", result.stderr
