"""``ampbounds audit``: output, JSON, exit codes, progress line, and the scenario list kept equal to the
library's."""
from __future__ import annotations

import json

from ampbounds_cli import main
from ampbounds_cli.audit import SCENARIO_NAMES


def test_scenario_names_match_library() -> None:
    from bounds.audit import SCENARIOS

    assert SCENARIO_NAMES == tuple(SCENARIOS)


def test_text_output_and_progress(capsys) -> None:
    assert main(["audit", "poisson-rr", "--trials", "2000", "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    assert "exact audit" in out and "Monte Carlo audit" in out and "verdict: not refuted" in out
    assert "never prove" in out
    assert "audit poisson-rr: 4000/4000 runs" in err


def test_json_output(capsys) -> None:
    assert main(["audit", "self-exclusion", "--trials", "0", "--json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["verdict"] == "not refuted" and len(data["audits"]) == 1
    assert data["audits"][0]["kind"] == "exact" and "never prove" in data["note"]
    assert data["audits"][0]["epsilon_audit"] <= data["claim"]["epsilon"]
    assert err == ""


def test_list_and_errors(capsys) -> None:
    assert main(["audit", "list"]) == 0
    out, _ = capsys.readouterr()
    assert all(name in out for name in SCENARIO_NAMES)
    assert main(["audit", "nope"]) == 2
    assert main(["audit", "poisson-rr", "--trials", "1"]) == 2
    assert main(["audit", "poisson-rr", "--trials", "10", "--confidence", "1.5"]) == 2
    _, err = capsys.readouterr()
    assert "confidence" in err
