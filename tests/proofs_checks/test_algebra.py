"""The identity prover's ladder (proofs_checks.algebra) and the reduction checks (symbolic_checks): cheap exact
steps first, each of which can still refuse a false identity; reductions substituted before sums are evaluated."""
import math

import pytest
import sympy as sp

from proofs_checks import algebra, refstore
from proofs_checks.symbolic_checks import _at, _reduction_check
from symbolic.core import Reduction

x, y = sp.symbols("x y", positive=True)
q, e = sp.symbols("q varepsilon", positive=True)
j, m, n = sp.symbols("j m n", positive=True, integer=True)

# near misses: each differs from a true identity by one sign, factor, exponent or log rule
FALSE = [
    (sp.log(1 + q * (sp.exp(e) - 1)), sp.log(1 + q * sp.exp(e))),
    ((x + 1) ** 2, x ** 2 + 1),
    (sp.log(x) + sp.log(y), sp.log(x + y)),
    (sp.exp(x) * sp.exp(y), sp.exp(x * y)),
    (sp.log(1 - (1 - 1 / n) ** m), sp.log(1 - sp.exp(m * sp.log(1 + 1 / n)))),
    ((sp.exp(4 * e) - 1) / (sp.exp(e) - 1), 1 + sp.exp(e) + sp.exp(2 * e) + 2 * sp.exp(3 * e)),
    (sp.log((1 - sp.exp(-e)) * x + sp.exp(-e)), sp.log(x * (sp.exp(e) - 1) + 1)),
]

TRUE = [
    (sp.log(1 + q * (sp.exp(e) - 1)), sp.log(q * sp.exp(e) + 1 - q)),
    ((sp.exp(4 * e) - 1) / (sp.exp(e) - 1), 1 + sp.exp(e) + sp.exp(2 * e) + sp.exp(3 * e)),
    (sp.log(1 - (1 - 1 / n) ** m), sp.log(1 - sp.exp(m * sp.log(1 - 1 / n)))),
]
NEEDS_SIMPLIFY = [(sp.log((1 - sp.exp(-e)) * x + sp.exp(-e)), sp.log(x * (sp.exp(e) - 1) + 1) - e)]


@pytest.mark.parametrize("a, b", FALSE, ids=range(len(FALSE)))
def test_no_step_of_the_ladder_proves_a_false_identity(a, b):
    difference = algebra.to_elementary(a - b)
    for i, step in enumerate(algebra._LADDER):
        try:
            reduced = step(difference)
        except Exception:  # noqa: BLE001 - a step sympy cannot do is no proof
            continue
        assert reduced != 0, (i, a, b)
    assert not algebra.is_identity(a, b)


@pytest.mark.parametrize("a, b", TRUE, ids=range(len(TRUE)))
def test_true_identities_are_proven_by_the_cheap_steps(a, b):
    """The exact steps before any sp.simplify decide the kinds of identity the records hold."""
    difference = algebra.to_elementary(a - b)
    assert any(step(difference) == 0 for step in algebra._CHEAP)
    assert algebra.is_identity(a, b)


@pytest.mark.parametrize("a, b", NEEDS_SIMPLIFY, ids=range(len(NEEDS_SIMPLIFY)))
def test_simplify_still_decides_what_the_cheap_steps_cannot(a, b):
    difference = algebra.to_elementary(a - b)
    assert not any(step(difference) == 0 for step in algebra._CHEAP)
    assert algebra.is_identity(a, b)


def test_reduction_substitutes_before_evaluating_a_sum():
    term = (1 - 1 / n) ** (m - j) * sp.binomial(m, j) / n ** j
    assert _at(sp.Sum(term, (j, 1, m)), {m: 1}) == 1 / n
    assert sp.expand(_at(sp.Sum(term, (j, 1, m)), {m: 3}) - (1 - (1 - 1 / n) ** 3)) == 0
    # 0/0 after substituting first: the closed form at symbolic m is substituted instead (the former route)
    assert _at(sp.Sum(1, (j, 1, m)) / m, {m: 0}) == 1


def test_reduction_check_can_fail():
    good = Reduction("m = 1 draws one element", 1 - (1 - 1 / n) ** m, sp.Sum((1 - 1 / n) ** (m - j) *
                     sp.binomial(m, j) / n ** j, (j, 1, m)), ((m, 1),))
    assert _reduction_check(None, good)().passed
    wrong = Reduction("m = 1, off by one", 1 - (1 - 1 / n) ** m, sp.Sum((1 - 1 / n) ** (m - j) *
                      sp.binomial(m, j) / n ** j, (j, 0, m)), ((m, 1),))
    outcome = _reduction_check(None, wrong)()
    assert not outcome.passed and "NOT proven" in outcome.detail


def test_t15_quick_search_starts_from_the_stored_scans():
    """T15/T16 start points are the accuracy points: their stored 50-digit scans are found (strict store: a
    missing one would raise), agree with a fresh scan, and a fresh point longer than the quick slice is skipped."""
    from proofs_checks import adversarial
    from proofs_checks.kanon_checks import accuracy_points, reference

    target = next(t for t in adversarial.targets() if t.theorem_id == "T15")
    assert target.stored_starts
    point = (5.0, 0.2, 2.0)  # a start point (k ≤ 10) with a short scan
    assert (*point, 0.0) in accuracy_points()
    refstore.set_strict(True)
    try:
        stored = adversarial._reference_or_none(target, point, stored=True)
    finally:
        refstore.set_strict(False)
    with refstore.live():
        fresh = reference(*point, 0.0)[0]
    assert stored == fresh
    # k = 1000, β = 0.01 near its threshold: the exact scan runs far past n = QUICK_SCAN_N
    import numeric.kanon as K
    from bounds.kanon import smallest_admissible_epsilon

    far = (1000.0, 0.01, smallest_admissible_epsilon(0.01) * 1.01)
    assert K.scan(*far, 0.0)[3] > adversarial.QUICK_SCAN_N and not math.isnan(K.scan(*far, 0.0)[0])
    assert adversarial._reference_or_none(target, far, scan_limit=adversarial.QUICK_SCAN_N) is None
