"""The theorem records: provenance flags as SPEC states them, domains, LaTeX from sympy."""
import math

import pytest

import symbolic
from symbolic.core import Domain, Output, Theorem

SPEC_FLAGS = {"T1": "source", "T2": "source", "T3": "recovered", "T4": "derived", "T5": "source", "T7": "source"}
SPEC_RELATIONS = {"T1": "add/remove", "T2": "substitute", "T3": "substitute", "T5": "add/remove", "T7": "any"}


@pytest.mark.parametrize("tid, flag", SPEC_FLAGS.items())
def test_provenance_flag_as_in_spec(tid, flag):
    assert symbolic.get(tid).provenance == flag


@pytest.mark.parametrize("tid, relation", SPEC_RELATIONS.items())
def test_relation_as_in_spec(tid, relation):
    assert symbolic.get(tid).relation == relation


@pytest.mark.parametrize("tid", list(SPEC_FLAGS))
def test_latex_is_generated(tid):
    from symbolic.latex import theorem_latex

    text = theorem_latex(tid)
    assert r"\begin{aligned}" in text and tid in text and r"\varepsilon" in text


def test_unknown_theorem():
    with pytest.raises(KeyError, match="unknown theorem"):
        symbolic.get("T99")


def test_record_rejects_unknown_flag():
    t = symbolic.get("T1")
    with pytest.raises(ValueError, match="provenance"):
        Theorem(t.id, t.name, t.relation, t.parameters, t.outputs, "folklore", t.citation, t.tightness, t.statement)


def test_output_rounding_direction_is_checked():
    t = symbolic.get("T1")
    bad = Output("epsilon", t.outputs[0].expr, "sideways")
    with pytest.raises(ValueError, match="rounding"):
        Theorem("T99", t.name, t.relation, t.parameters, (bad,), "source", t.citation, t.tightness, t.statement)


def test_domain_description():
    assert Domain(0.0, 1.0).describe() == "[0.0, 1.0]"
    assert Domain(1.0, math.inf, hi_open=True, integer=True).describe() == "integer in [1.0, inf)"
