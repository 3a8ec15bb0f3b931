"""The checks whose machinery was made cheaper (issue 20 item 3) compute the same exact values as a direct route
written here (enumeration, Fractions, mpmath at the old precision, ``Signature.bind``), and still fail on a
deliberate fault."""
import itertools
import math
from fractions import Fraction

import mpmath as mp

import bounds
from proofs_checks import kanon_checks, missing_checks, poisson_substitution_checks as t6
from proofs_checks.brute_force import hockey_stick, mixture


# ---- T15: integer laws ------------------------------------------------------------------------------------

def _worst_delta_by_fractions(k, beta, F, max_others):
    """Every class size n' ≤ max_others, the output laws as Fraction dicts (⊥ for counts below k)."""
    best = Fraction(0)
    for others in range(max_others + 1):
        laws = []
        for with_t in (True, False):
            law = {}
            for x in range(others + 1):
                for b in ((0, 1) if with_t else (0,)):
                    p = Fraction(math.comb(others, x)) * beta ** x * (1 - beta) ** (others - x)
                    p *= (beta if b else 1 - beta) if with_t else 1
                    count = x + b
                    key = count if count >= k else "⊥"
                    law[key] = law.get(key, Fraction(0)) + p
            laws.append(law)
        P, Q = laws
        best = max(best, hockey_stick(P, Q, F), hockey_stick(Q, P, F))
    return best


def test_t15_integer_laws_equal_a_fraction_enumeration():
    for k, beta, F in [(1, Fraction(1, 8), Fraction(2)), (3, Fraction(1, 2), Fraction(3)),
                       (5, Fraction(3, 4), Fraction(50)), (12, Fraction(1, 4), Fraction(4, 3))]:
        assert kanon_checks.exact_worst_delta(k, beta, F, 10)[0] == _worst_delta_by_fractions(k, beta, F, 10)


def test_t15_brute_force_fails_when_d_is_too_small(monkeypatch):
    real = bounds.safe_k_anonymization_delta
    monkeypatch.setattr(bounds, "safe_k_anonymization_delta", lambda k, b, e: real(k, b, e) * (1 - 1e-6))
    outcome = kanon_checks.brute_force_t15()
    assert not outcome.passed and "BELOW" in outcome.detail


# ---- T16: the on-sample sums in Arb ------------------------------------------------------------------------

def _on_sample_by_enumeration(groups, beta, epsilon1, k):
    """(P3, P⊥ with t, Q⊥) summed over every vector of sampled group sizes (no multinomial grouping), mpmath."""
    with mp.workdps(60):
        b = mp.mpf(beta.numerator) / beta.denominator
        px = [(1 - b) ** 2, 2 * b * (1 - b), b ** 2]
        w = [mp.exp(mp.mpf(epsilon1) * u / 2) for u in range(4)]
        P3 = P_bot_t = Q_bot = mp.mpf(0)
        for sizes in itertools.product(range(3), repeat=groups):  # sizes[0]: the group merged with t
            pr = mp.fprod(px[s] for s in sizes)
            Q_bot += pr * w[sizes[0]] / mp.fsum(w[s] for s in sizes)
            share = pr * w[sizes[0] + 1] / mp.fsum(w[s + 1] for s in sizes)
            if sizes[0] + 1 >= k:
                P3 += share
            else:
                P_bot_t += share
        return P3, P_bot_t, Q_bot


def test_t16_arb_sums_equal_a_direct_enumeration():
    for groups, beta, epsilon1 in [(5, Fraction(1, 2), 2.0), (4, Fraction(1, 3), 0.75)]:
        got = kanon_checks._t16_on_sample_sums(groups - 1, beta, epsilon1, 3)
        want = _on_sample_by_enumeration(groups, beta, epsilon1, 3)
        with mp.workdps(60):
            for g, w in zip(got, want):
                assert abs(g - w) <= mp.mpf(10) ** -50 * abs(w)


def test_t16_counterexample_fails_when_the_bound_covers_it(monkeypatch):
    monkeypatch.setattr(bounds, "eps1_safe_k_anonymization_delta", lambda *args: 0.3)  # above 0.2663
    assert not kanon_checks.t16_counter().passed


# ---- T17: MAR laws regrouped by the bit ---------------------------------------------------------------------

def test_t17_mar_law_equals_the_per_mask_mixture():
    from proofs_checks.brute_force import randomized_response

    records = list(itertools.product((0, 1), repeat=2))
    for g in missing_checks._random_bit_functions(6, 7):
        for z, other in itertools.product(records, records):
            direct = mixture([(w1 * w2, randomized_response(Fraction(3), Fraction(1, 10), g(r1, r2)))
                              for (w1, r1), (w2, r2) in itertools.product(missing_checks.mar_masks(z),
                                                                          missing_checks.mar_masks(other))])
            got = missing_checks.mar_outputs(Fraction(3), Fraction(1, 10), g, (z, other))
            assert all(direct.get(o, 0) == got.get(o, 0) for o in set(direct) | set(got))


def test_t17_mar_check_fails_under_a_mask_law_it_does_not_assume(monkeypatch):
    # every record always fully observed: p* = 1, not the 3/4 the check's bound uses
    monkeypatch.setattr(missing_checks, "mar_masks", lambda z: [(Fraction(1), z)])
    outcome = missing_checks.t17_mar_brute_force()
    assert not outcome.passed and "exact δ" in outcome.detail


# ---- T6: profiles with each (row, row) divergence once ---------------------------------------------------------

def _profiles_by_enumeration(K, universe, G):
    subsets = [frozenset(c) for r in range(len(universe) + 1) for c in itertools.combinations(universe, r)]

    def h(P, Q):
        if isinstance(G, Fraction):
            return hockey_stick(P, Q, G)
        to = lambda x: mp.mpf(x.numerator) / x.denominator  # noqa: E731
        return mp.fsum(max(to(P.get(o, Fraction(0))) - G * to(Q.get(o, Fraction(0))), 0) for o in set(P) | set(Q))

    dr, ds = [], []
    for S in subsets:
        rest = [w for w in universe if w not in S]
        for w in rest:
            a, b = t6.law(K, S), t6.law(K, S | {w})
            dr += [h(a, b), h(b, a)]
        for w, w2 in itertools.permutations(rest, 2):
            ds.append(h(t6.law(K, S | {w}), t6.law(K, S | {w2})))
    return max(dr), max(ds)


def test_t6_profiles_equal_a_direct_enumeration():
    with mp.workdps(50):
        for (_, K), universe, G in itertools.product(t6.kernels()[::3], t6.UNIVERSES,
                                                     (Fraction(2), Fraction(7, 2), mp.sqrt(3))):
            got, want = t6.profiles(K, universe, G), _profiles_by_enumeration(K, universe, G)
            assert got == want, (universe, G, got, want)


def test_t6_brute_force_fails_on_a_bound_slightly_too_small():
    outcome = t6.evaluate_brute_force(bound=lambda F, g, dr, ds: t6.t6_exact(F, g, dr, ds) * (1 - Fraction(1, 10**9)),
                                      library=False)
    assert not outcome.passed and "VIOLATED" in outcome.detail


# ---- T14: the cubic numerators decided in a polynomial ring -------------------------------------------------

def test_t14_cubic_check_fails_on_a_wrong_coefficient(monkeypatch):
    import sympy as sp

    import symbolic.suppression as S
    from proofs_checks import suppression_checks

    real = S.cubic_numerators()

    def wrong():
        out = dict(real)
        coeffs, num, den = out["lambda2"]
        bad = (coeffs[0], coeffs[1], coeffs[2] + S.m / 7, coeffs[3])  # the p¹ coefficient off by m/7
        out["lambda2"] = (bad, num + S.m / 7 * S.p, den)  # consistent with N, wrong against dΛ/dp
        return out

    monkeypatch.setattr(S, "cubic_numerators", wrong)
    outcome = suppression_checks.cubic_derivation()
    assert not outcome.passed and "lambda2" in outcome.detail and "≠ 0" in outcome.detail
    x, y = sp.symbols("x y")
    numerator = suppression_checks._rational_function_numerator
    assert numerator(sp.together((x ** 2 - y ** 2) / (x - y) - (x + y))) == 0
    assert numerator(sp.together(1 / x - 1 / y)) != 0
    assert numerator(sp.together(sp.sqrt(x) * x - x ** sp.Rational(3, 2))) == 0  # not a polynomial: sp.cancel


# ---- accuracy.ulps and the stored-reference keys --------------------------------------------------------------

def test_ulps_equals_the_mpmath_formula_bit_for_bit():
    import random

    from proofs_checks import accuracy

    def by_mpmath(value, ref):  # the formula as written before the libmp route
        with mp.workdps(max(mp.mp.dps, 80)):
            if ref == 0:
                return value / 5e-324
            unit = math.ulp(float(ref)) if abs(ref) >= mp.mpf(2.2250738585072014e-308) else 5e-324
            return float((mp.mpf(value) - ref) / unit)

    rng = random.Random(20261202)
    for _ in range(3000):
        with mp.workdps(80):
            ref = mp.mpf(rng.uniform(-1, 1)) * mp.mpf(2) ** rng.choice([0, 7, -300, 1000, -1022, -1060, -1074]) \
                * (1 + mp.mpf(rng.random()) * mp.mpf(10) ** -rng.choice([5, 16, 30, 70]))
        value = rng.choice([float(ref), math.nextafter(float(ref), math.inf), 0.0, -0.0, math.inf, 5e-324])
        ref = rng.choice([ref] * 8 + [mp.mpf(0), mp.inf])
        for dps in (15, 100):
            with mp.workdps(dps):
                a, b = accuracy.ulps(value, ref), by_mpmath(value, ref)
                assert (a == b and math.copysign(1, a) == math.copysign(1, b)) or (a != a and b != b), (value, ref)


def test_safe_side_equals_the_mpf_comparison():
    from proofs_checks import accuracy

    refs = [mp.mpf(0), mp.mpf(-0.0), mp.mpf(1) / 3, -mp.mpf(1) / 3, mp.inf, -mp.inf, mp.nan, mp.mpf(2) ** -1074,
            mp.mpf(2) ** -1080, mp.mpf(0.1), 0.1, 2]
    values = [0.0, -0.0, 1 / 3, math.nextafter(1 / 3, 1), -1 / 3, math.inf, -math.inf, math.nan, 5e-324, 0.1, 2.0]
    with mp.workdps(60):
        for ref in refs:
            for value in values:
                for up in (True, False):
                    want = mp.mpf(value) >= ref if up else mp.mpf(value) <= ref
                    assert accuracy._on_safe_side(value, ref, up) == want, (value, ref, up)


def test_variadic_reference_keys_equal_the_bound_signature_keys():
    import numpy as np

    from proofs_checks import refstore

    refstore.load_all_functions()
    m = refstore.FUNCTIONS["references.spec_value"]
    assert m._variadic == 2
    for args in [("T1", "epsilon", 0.5, 1e-3), ("T6", "delta", 1.0, 0.5, np.float64(0.1), -0.0), ("T7", "delta", 3)]:
        bound = m.signature.bind(*args)
        bound.apply_defaults()
        assert m.key(bound)[0] == "|".join(refstore.encode_arg(a) for a in args)
