"""Every registered check passes, and — just as important — the checks can fail."""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import bounds
from proofs_checks import accuracy, brute_force, refstore
from proofs_checks.algebra import is_identity
from proofs_checks.catalogue import load
from proofs_checks.framework import run_one
from proofs_checks.symbolic_checks import _branch_matches
from symbolic.core import Output
from symbolic.functions import amplify, epsilon, rate

CHECKS = load()
FOUNDATION = {"T1", "T2", "T3", "T4", "T5", "T7"}


@pytest.fixture
def strict_references():
    """Stored references only: a reference the quick certificate needs but the tables lack fails the test."""
    refstore.set_strict(True)
    yield
    refstore.set_strict(False)


@pytest.mark.parametrize("check", [c for c in CHECKS if set(c.theorems) & FOUNDATION], ids=lambda c: c.name)
def test_check_passes(check, strict_references):
    result = run_one(check)
    assert result.outcome.passed, result.outcome.detail


def test_every_foundation_theorem_has_every_kind_of_check():
    for tid in FOUNDATION:
        kinds = {c.kind for c in CHECKS if tid in c.theorems}
        assert kinds == {"symbolic", "accuracy", "brute-force", "property", "adversarial"}, (tid, kinds)


# ---- the checks can fail --------------------------------------------------------------------------------

def test_identity_prover_rejects_a_false_identity():
    assert is_identity(amplify(rate), sp.log(1 + rate * (sp.exp(epsilon) - 1)))
    assert not is_identity(amplify(rate), sp.log(1 + rate * sp.exp(epsilon)))


def test_branch_check_catches_a_wrong_branch():
    wrong = Output("epsilon", amplify(rate), "up", ((sp.Eq(rate, 0), sp.Integer(0)), (sp.true, rate * epsilon)))
    ok, _ = _branch_matches(wrong, sp.true, rate * epsilon)
    assert not ok
    ok, _ = _branch_matches(wrong, sp.Eq(epsilon, 0), sp.Integer(1))  # at ε = 0 the SPEC gives 0, not 1
    assert not ok


def test_accuracy_check_flags_an_unsound_kernel(monkeypatch):
    real = accuracy.compiled  # the compiled kernel's values, whichever route (scalar dispatcher or array loop)

    def shrunk(spec, points):  # a "kernel" whose rounded output is 1e-12 too small
        return np.asarray(real(spec, points)) * (1 - 1e-12)
    monkeypatch.setattr(accuracy, "compiled", shrunk)
    report = accuracy.measure("T1", "epsilon")
    assert report.unsound and not report.passed


def test_brute_force_catches_a_bound_that_is_too_small():
    def too_small(eps, d, prm):  # claims δ' slightly below η·δ
        g = bounds.poisson_subsampling(eps, d, float(prm["eta"]))
        return bounds.Guarantee(g.epsilon, g.delta * (1 - 1e-9))

    outcome = brute_force._amplification_cases(
        "mutant", [{"eta": Fraction(1, 2)}],
        lambda F, delta, prm, z: brute_force.poisson_outputs(3, prm["eta"], F, delta, z), too_small)
    assert not outcome.passed


def test_hockey_stick_of_randomized_response_is_its_profile():
    F, delta = Fraction(3), Fraction(1, 10)
    P, Q = (brute_force.randomized_response(F, delta, b) for b in (1, 0))
    for G in (Fraction(1), Fraction(2), F):
        assert brute_force.hockey_stick(P, Q, G) == delta + (1 - delta) * max(F - G, 0) / (1 + F)
