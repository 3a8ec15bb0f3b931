"""Sampling + strongly-safe k-anonymization (SPEC T15): the procedure is the theorem's, checked by its distribution.

Independent routes: exact binomial tails in Fractions, exact enumeration of every sample of a tiny table (the
release distribution and its hockey-stick divergence on neighbouring tables, e^ε at 60 digits), Monte Carlo
with Wilson intervals and G-tests (p-values from mpmath) at fixed seeds.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import bounds
from bounds.procedures import Hierarchy, SafeKAnonymizer, interval_hierarchy, safe_k_anonymize
from tests.goodness_of_fit import Z_1E6, g_test_pooled, wilson

mpmath.mp.dps = 60
STAR = {"M": ("*",), "F": ("*",)}


def binomial_tail(n: int, beta: Fraction, k: int) -> Fraction:
    return sum((math.comb(n, j) * beta ** j * (1 - beta) ** (n - j) for j in range(k, n + 1)), Fraction(0))


# ---------------------------------------------------------------------------------------------------------
# the procedure's invariants

@pytest.mark.parametrize("k,beta", [(1, 0.3), (2, 0.5), (5, 0.9), (3, 1.0)])
def test_every_released_class_has_at_least_k_tuples(k, beta):
    rng = np.random.default_rng(7)
    ages = rng.integers(17, 91, size=400)
    genders = rng.choice(["M", "F"], size=400)
    rows = list(zip(ages.tolist(), genders.tolist()))
    hierarchies = [interval_hierarchy(range(0, 126), [5, 10, 20]), STAR]
    for seed in range(5):
        release = safe_k_anonymize(rows, hierarchies, [1, 0], k=k, beta=beta, rng=seed)
        counts = Counter(release.rows)
        assert all(c >= k for c in counts.values())
        assert dict(counts) == dict(release.counts)
        r = release.report
        assert r.released == len(release.rows) == r.sampled - r.suppressed
        assert r.classes == len(counts) and r.discernibility == sum(c * c for c in counts.values())
        assert r.discernibility_penalised == r.discernibility + r.suppressed * r.sampled
        assert r.generalisation_loss == (1 / 4 + 0 / 1) / 2
        if beta == 1.0:
            assert r.sampled == 400


def test_beta_one_is_deterministic_and_equals_direct_k_anonymization():
    rows = [(39, "M"), (50, "M"), (38, "M"), (53, "M"), (28, "F"), (37, "F"), (49, "F"), (52, "M")]
    hierarchies = [interval_hierarchy(range(0, 126), [5, 10, 20]), STAR]
    outs = {safe_k_anonymize(rows, hierarchies, [2, 0], k=2, beta=1.0, rng=seed).rows for seed in range(10)}
    assert len(outs) == 1
    # by hand: decades (30s: M, M, F; 50s: M, M, M; 20s: F; 40s: F) → keep (30s, M)×2 and (50s, M)×3
    assert sorted(outs.pop()) == sorted([("[30, 40)", "M")] * 2 + [("[50, 60)", "M")] * 3)
    with pytest.raises(ValueError, match="no sampling"):
        safe_k_anonymize(rows, hierarchies, [2, 0], k=2, beta=1.0).guarantee(1.0)


def test_release_order_is_canonical():
    """The released multiset, not the input order: permuting the input (β = 1) gives the same rows."""
    rows = [(i % 7, "M" if i % 3 else "F") for i in range(60)]
    hierarchies = [{i: (i // 2, "*") for i in range(7)}, STAR]
    a = safe_k_anonymize(rows, hierarchies, [1, 0], k=3, beta=1.0).rows
    b = safe_k_anonymize(rows[::-1], hierarchies, [1, 0], k=3, beta=1.0).rows
    assert a == b


# ---------------------------------------------------------------------------------------------------------
# the distribution: survival of a class of n tuples is P[Bin(n, β) ≥ k]; released size is Bin(n, β) cut at k

@pytest.mark.parametrize("n,k,beta", [(7, 3, 0.4), (12, 5, 0.25), (4, 4, 0.75)])
def test_class_survival_is_the_binomial_tail(n, k, beta):
    groups = 3000  # independent classes of n identical tuples in one table
    rows = [(g,) for g in range(groups) for _ in range(n)]
    hierarchy = [{g: (f"c{g}", "*") for g in range(groups)}]
    sizes = Counter()
    trials = 0
    for seed in range(4):
        release = safe_k_anonymize(rows, hierarchy, [1], k=k, beta=beta, rng=np.random.default_rng([11, seed]))
        for g in range(groups):
            sizes[release.counts.get((f"c{g}",), 0)] += 1
        trials += groups
    exact = binomial_tail(n, Fraction(beta), k)
    lo, hi = wilson(trials - sizes[0], trials, Z_1E6)
    assert lo <= float(exact) <= hi, (lo, float(exact), hi)
    b = Fraction(beta)
    pmf = {j: math.comb(n, j) * b ** j * (1 - b) ** (n - j) for j in range(k, n + 1)}
    pmf[0] = 1 - sum(pmf.values())
    assert g_test_pooled(dict(sizes), pmf, trials) > 1e-4


# ---------------------------------------------------------------------------------------------------------
# exact enumeration on a tiny table: the release distribution and its δ on neighbouring tables vs d(k, β, ε)

RAW = {1: "low", 2: "low", 3: "high", 4: "high"}  # the test's own generalisation (level 1)


def exact_release_distribution(raw_rows: list, k: int, beta: Fraction) -> dict:
    """Every sample subset, its probability, and the released multiset (an independent implementation)."""
    dist: dict = Counter()
    n = len(raw_rows)
    for bits in itertools.product((0, 1), repeat=n):
        p = Fraction(1)
        for b in bits:
            p *= beta if b else 1 - beta
        counts = Counter(RAW[v] for v, b in zip(raw_rows, bits) if b)
        release = frozenset((cls, c) for cls, c in counts.items() if c >= k)
        dist[release] += p
    return dict(dist)


def hockey_stick(p: dict, q: dict, epsilon: float) -> mpmath.mpf:
    factor = mpmath.exp(mpmath.mpf(epsilon))
    return sum((max(mpmath.mpf(0), mpmath.mpf(pv.numerator) / pv.denominator
                    - factor * (mpmath.mpf(q.get(o, 0).numerator) / q.get(o, Fraction(1)).denominator))
                for o, pv in p.items()), mpmath.mpf(0))


@pytest.mark.parametrize("k,beta", [(2, 0.5), (3, 0.5), (2, 0.25)])
def test_exact_delta_on_neighbouring_tables_is_below_d(k, beta):
    b = Fraction(beta)
    epsilons = [-math.log1p(-beta) * 1.0001, 1.0, 1.5, 2.5]
    worst = {e: mpmath.mpf(0) for e in epsilons}
    for c in range(0, 9):  # the differing tuple's class ("low") holds c tuples of D, plus two "high" tuples
        base = [1 + (i % 2) for i in range(c)] + [3, 4]
        d_small = exact_release_distribution(base, k, b)
        d_large = exact_release_distribution(base + [2], k, b)
        for e in epsilons:
            worst[e] = max(worst[e], hockey_stick(d_small, d_large, e), hockey_stick(d_large, d_small, e))
    for e in epsilons:
        d = bounds.safe_k_anonymization_delta(k, beta, e)
        assert worst[e] <= d, (k, beta, e, worst[e], d)
        assert worst[e] > 0  # the check is not vacuous
    # the guarantee the release reports is that d
    release = safe_k_anonymize([(1,), (2,)], [{v: (g,) for v, g in RAW.items()}], [1], k=k, beta=beta, rng=0)
    assert release.guarantee(1.5) == (1.5, bounds.safe_k_anonymization_delta(k, beta, 1.5))


def test_library_release_distribution_matches_enumeration():
    """The procedure's output on a tiny table has exactly the enumerated distribution (G-test, fixed seed)."""
    raw = [1, 2, 2, 3, 4, 1]
    k, beta = 2, 0.5
    exact = exact_release_distribution(raw, k, Fraction(beta))
    hierarchy = [{v: (g,) for v, g in RAW.items()}]
    scheme = SafeKAnonymizer(hierarchy, [1], k=k, beta=beta)
    rng = np.random.default_rng(2024)
    observed = Counter()
    trials = 20_000
    for _ in range(trials):
        release = scheme.anonymize([(v,) for v in raw], rng=rng)
        observed[frozenset((cls[0], c) for cls, c in release.counts.items())] += 1
    assert g_test_pooled(dict(observed), exact, trials) > 1e-4


# ---------------------------------------------------------------------------------------------------------
# certificate, from_target

def test_guarantee_domain():
    release = safe_k_anonymize([(1,)], [{1: ("*",)}], [1], k=2, beta=0.5, rng=0)
    assert release.guarantee(1.0).delta == bounds.safe_k_anonymization_delta(2, 0.5, 1.0)
    with pytest.raises(ValueError, match=r"−ln\(1 − β\)"):
        release.guarantee(0.5)  # < ln 2
    with pytest.raises(ValueError):
        release.guarantee(math.nan)


@pytest.mark.parametrize("epsilon,delta", [(1.0, 1e-6), (0.5, 1e-3), (2.0, 1e-9)])
def test_from_target_smallest_k_at_the_largest_beta(epsilon, delta):
    scheme = SafeKAnonymizer.from_target(epsilon, delta, [STAR], [1])
    b = Fraction(scheme.beta)
    # β admissible: ε ≥ −ln(1 − β) ⇔ 1 − β ≥ e^{−ε} (60 digits), and the next double is not
    assert mpmath.mpf(1) - mpmath.mpf(b.numerator) / b.denominator >= mpmath.exp(-mpmath.mpf(epsilon))
    nxt = Fraction(math.nextafter(scheme.beta, 1.0))
    assert mpmath.mpf(1) - mpmath.mpf(nxt.numerator) / nxt.denominator < mpmath.exp(-mpmath.mpf(epsilon))
    assert scheme.guarantee(epsilon).delta <= delta
    assert bounds.safe_k_anonymization_delta(scheme.k - 1, scheme.beta, epsilon) > delta or scheme.k == 1


def test_from_target_with_k_or_beta():
    s = SafeKAnonymizer.from_target(1.0, 1e-6, [STAR], [1], k=20)
    assert s.k == 20 and s.guarantee(1.0).delta <= 1e-6
    assert s.beta == bounds.safe_k_anonymization_max_beta(k=20, epsilon=1.0, delta=1e-6)
    s = SafeKAnonymizer.from_target(1.0, 1e-6, [STAR], [1], beta=0.2)
    assert s.beta == 0.2 and s.k == bounds.safe_k_anonymization_min_k(delta=1e-6, beta=0.2, epsilon=1.0)
    with pytest.raises(ValueError, match="at most one"):
        SafeKAnonymizer.from_target(1.0, 1e-6, [STAR], [1], k=3, beta=0.2)
    for bad in (0.0, -1.0, math.inf, math.nan, "1", True, 10 ** 400, 1 + 0j):
        with pytest.raises(ValueError, match="epsilon"):
            SafeKAnonymizer.from_target(bad, 1e-6, [STAR], [1])


# ---------------------------------------------------------------------------------------------------------
# front ends: hierarchies and tables as plain data

def test_hierarchy_forms_agree(tmp_path):
    mapping = {"39": ("[35, 40)", "*"), "50": ("[50, 55)", "*")}
    arx_rows = [["39", "[35, 40)", "*"], ["50", "[50, 55)", "*"]]
    path = tmp_path / "age.csv"
    path.write_text("39;[35, 40);*\n50;[50, 55);*\n", encoding="utf-8")
    parsed = [Hierarchy.from_data(h, "age") for h in (mapping, arx_rows, path, str(path))]
    assert all(p.rows == parsed[0].rows and p.height == 2 for p in parsed)
    assert parsed[0].generalise(39, 1) == "[35, 40)" and parsed[0].generalise(" 50", 2) == "*"


def test_table_forms_agree(tmp_path):
    rows = [(39, "M", 7), (50, "F", 8), (39, "M", 9), (50, "F", 1)]
    hierarchies = {"age": {39: ("[35, 40)", "*"), 50: ("[50, 55)", "*")}, "sex": STAR}
    expected = sorted([("[35, 40)", "M")] * 2 + [("[50, 55)", "F")] * 2)
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("age,sex,other\n" + "".join(f"{a},{s},{o}\n" for a, s, o in rows), encoding="utf-8")
    structured = np.array(rows, dtype=[("age", "i8"), ("sex", "U1"), ("other", "i8")])
    dict_rows = [{"age": a, "sex": s, "other": o} for a, s, o in rows]
    for table in (csv_path, str(csv_path), structured, dict_rows):
        release = safe_k_anonymize(table, hierarchies, {"age": 1, "sex": 0}, k=2, beta=1.0)
        assert sorted(release.rows) == expected, table
        assert release.attributes == ("age", "sex")  # "other" has no hierarchy: not released
    by_index = {0: hierarchies["age"], 1: STAR}
    release = safe_k_anonymize(rows, by_index, [1, 0], k=2, beta=1.0)
    assert sorted(release.rows) == expected
    release = safe_k_anonymize(np.array([[39, 1], [39, 1]]), [hierarchies["age"], {1: ("*",)}], [2, 1], k=2, beta=1.0)
    assert release.rows == (("*", "*"), ("*", "*"))


def test_interval_hierarchy_adult_age():
    h = interval_hierarchy(range(17, 91), [5, 10, 20])
    assert h[17] == ("[15, 20)", "[10, 20)", "[0, 20)", "*")
    assert h[90] == ("[90, 95)", "[90, 100)", "[80, 100)", "*")
    with pytest.raises(ValueError, match="multiple"):
        interval_hierarchy(range(3), [5, 7])
    with pytest.raises(ValueError, match="integer"):
        interval_hierarchy([1.5], [5])
    for widths in ([math.inf], [True], "5", [], None):
        with pytest.raises(ValueError, match="widths"):
            interval_hierarchy(range(3), widths)
    with pytest.raises(ValueError, match="origin"):
        interval_hierarchy(range(3), [5], origin=0.5)


# ---------------------------------------------------------------------------------------------------------
# refusals

ROWS = [(1, "M"), (2, "F")]
HIER = [{1: ("a", "*"), 2: ("a", "*")}, STAR]


@pytest.mark.parametrize("levels", ["auto", None, lambda table: [1, 0], [3, 0], [-1, 0], [True, 0], [1.0, 0], [1],
                                    {"x": 1}])
def test_data_dependent_or_bad_levels_refused(levels):
    with pytest.raises(ValueError, match="level"):
        safe_k_anonymize(ROWS, HIER, levels, k=1, beta=0.5)


def test_auto_levels_message_explains():
    with pytest.raises(ValueError, match="BEFORE seeing the data"):
        safe_k_anonymize(ROWS, HIER, "auto", k=1, beta=0.5)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, math.nan, math.inf, "3", None, 1 + 0j, 2.0 ** 60])
def test_bad_k(k):
    with pytest.raises(ValueError, match="k = "):
        safe_k_anonymize(ROWS, HIER, [1, 0], k=k, beta=0.5)


@pytest.mark.parametrize("beta", [0, 0.0, -0.1, 1.5, math.nan, math.inf, "0.5", True, 1 + 0j, Fraction(1, 3), 10 ** 400,
                                  None])
def test_bad_beta(beta):
    with pytest.raises(ValueError, match="beta"):
        safe_k_anonymize(ROWS, HIER, [1, 0], k=1, beta=beta)


def test_numpy_scalars_accepted():
    release = safe_k_anonymize(ROWS, HIER, [np.int64(1), np.int8(0)], k=np.int64(1), beta=np.float64(0.5), rng=1)
    assert release.k == 1 and release.beta == 0.5
    assert safe_k_anonymize(ROWS, HIER, [1, 0], k=1, beta=Fraction(1, 2), rng=1).beta == 0.5


def test_bad_hierarchies_and_tables():
    with pytest.raises(ValueError, match="not in its hierarchy"):
        safe_k_anonymize([(3, "M")], HIER, [1, 0], k=1, beta=0.5)
    with pytest.raises(TypeError, match="callable"):
        safe_k_anonymize(ROWS, [lambda v: "*", STAR], [1, 0], k=1, beta=0.5)
    with pytest.raises(ValueError, match="levels"):
        safe_k_anonymize(ROWS, [{1: ("a", "*"), 2: ("*",)}, STAR], [1, 0], k=1, beta=0.5)
    with pytest.raises(ValueError, match="twice"):
        Hierarchy.from_data([[1, "a"], ["1", "b"]])
    with pytest.raises(ValueError, match="empty"):
        Hierarchy.from_data({})
    with pytest.raises(ValueError, match="no hierarchies"):
        safe_k_anonymize(ROWS, [], [], k=1, beta=0.5)
    with pytest.raises(ValueError, match="hierarchies were given"):
        safe_k_anonymize([(1, "M", 5)], HIER, [1, 0], k=1, beta=0.5)
    with pytest.raises(TypeError):
        safe_k_anonymize(42, HIER, [1, 0], k=1, beta=0.5)
    with pytest.raises(ValueError, match="cannot read the table"):
        safe_k_anonymize("no-such-file.csv", HIER, [1, 0], k=1, beta=0.5)
    with pytest.raises(TypeError, match="rng"):
        safe_k_anonymize(ROWS, HIER, [1, 0], k=1, beta=0.5, rng="seed")
    with pytest.raises(ValueError, match="attribute name"):
        safe_k_anonymize(ROWS, {"age": HIER[0]}, {"age": 1}, k=1, beta=0.5)
    empty = safe_k_anonymize([], HIER, [1, 0], k=1, beta=0.5)
    assert empty.rows == () and empty.report.n == 0 and empty.report.average_class_size == 0.0


def test_auditor_against_d_on_a_tiny_table():
    """The Clopper–Pearson auditor (bounds.audit, issue 22) on the release: a class of k − 1 tuples vs k tuples,
    event "the class is released" (probability 0 vs β^k).  At the claimed δ = d(k, β, ε) it must not refute;
    at δ = d/2 it must (the test has power, and d is tight here: the exact δ is β^k = d)."""
    audit = pytest.importorskip("bounds.audit")
    if not hasattr(audit, "epsilon_lower_bound"):
        pytest.skip("bounds.audit.epsilon_lower_bound not available yet")
    k, beta, epsilon = 3, 0.5, 1.0
    groups, calls = 2000, 10
    hierarchy = [{g: (f"c{g}",) for g in range(groups)}]
    events = []
    for size in (k - 1, k):  # D₀: k − 1 tuples per class, D₁: k (one tuple added): independent copies
        rows = [(g,) for g in range(groups) for _ in range(size)]
        hits = 0
        for seed in range(calls):
            release = safe_k_anonymize(rows, hierarchy, [1], k=k, beta=beta, rng=np.random.default_rng([size, seed]))
            hits += len(release.counts)
        events.append(hits)
    trials = groups * calls
    assert events[0] == 0
    d = bounds.safe_k_anonymization_delta(k, beta, epsilon)
    assert audit.epsilon_lower_bound(events[1], trials, events[0], trials, delta=d, confidence=0.999) <= epsilon
    assert audit.epsilon_lower_bound(events[1], trials, events[0], trials, delta=d / 2, confidence=0.999) > epsilon
