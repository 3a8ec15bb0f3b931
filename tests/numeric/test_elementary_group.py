"""numeric.elementary's group_delta (the T7/T12 δ kernel), exp, log, two_product, mul_up, expm1_mul, exp_mul_scaled
and select (issue 14: a libm-free T7/T12 δ): measured error ≤ the derived bound against mpmath, special values, the plain-Python route
bit-identical to the compiled one, mul_up bit-identical to numeric.special.mul_up."""
import math
import struct

import mpmath as mp
import numpy as np

from numeric import special
from tests.numeric.test_elementary import plain_python
from numeric.elementary import (EXP_BOUND_U, GROUP_DELTA_BOUND_U, LOG_BOUND_U, U, exp, exp_mul_scaled, expm1_mul,
                                group_delta, log, mul_up, select, two_product)

mp.mp.dps = 40
RNG = np.random.default_rng(20261201)


def rel_error_u(value: float, exact: mp.mpf) -> float:
    return float(abs(mp.mpf(value) - exact) / (abs(exact) * mp.mpf(U)))


def test_exp_within_derived_bound_where_normal():
    xs = list(RNG.uniform(-708.39, 709.78, 200)) + list(RNG.uniform(-0.4, 0.4, 100))
    xs += [(k + 0.5) * math.log(2) for k in range(-1021, 1024, 97)] + [0.0, 5e-324, -1e-300, 709.78, -708.39]
    worst = max(rel_error_u(exp(x), mp.exp(x)) for x in xs)
    assert worst <= EXP_BOUND_U


def test_exp_proof_constant_rho_d():
    # ρ_d = max |d|/e^r over |r| ≤ ln2/2, d = r³Σ_{j≥3} r^{j−3}/j! = e^r − 1 − r − r²/2 (the docstring's 0.0091)
    h = mp.log(2) / 2
    rho = max(abs(mp.exp(r) - 1 - r - r * r / 2) / mp.exp(r) for r in (-h, h))
    assert rho <= 0.0091


def test_exp_special_values_and_subnormal_results():
    assert exp(math.inf) == math.inf and exp(-math.inf) == 0.0 and math.isnan(exp(math.nan))
    assert exp(709.79) == math.inf and exp(-746.0) == 0.0 and exp(0.0) == 1.0
    for x in RNG.uniform(-745.0, -708.4, 30):  # subnormal: ≤ 1.16u relative plus half a step 2⁻¹⁰⁷⁴
        assert abs(mp.mpf(exp(x)) - mp.exp(x)) <= EXP_BOUND_U * U * mp.exp(x) + mp.mpf(2) ** -1075


def test_log_within_derived_bound():
    ys = list(10 ** RNG.uniform(-323, 308, 300)) + list(1 + RNG.uniform(-0.3, 0.4, 100))
    ys += list(1 + 10 ** RNG.uniform(-15, -1, 60)) + list(1 - 10 ** RNG.uniform(-16, -1, 60))
    ys += [5e-324, 2.0 ** -1022, 1.7976931348623157e308, math.sqrt(2), math.sqrt(0.5), 2.0, 0.5, 3.0]
    worst = 0.0
    for y in ys:
        exact = mp.log(y)
        if exact == 0:
            assert log(y) == 0.0
            continue
        worst = max(worst, rel_error_u(log(y), exact))
    assert worst <= LOG_BOUND_U


def test_log_special_values():
    assert log(1.0) == 0.0 and log(0.0) == -math.inf and log(math.inf) == math.inf
    assert math.isnan(log(-1.0)) and math.isnan(log(math.nan))


def test_mul_up_is_numeric_special_mul_up_bit_for_bit():
    a = np.floor(10 ** RNG.uniform(0, 15.9, 300))
    b = 10 ** RNG.uniform(-323, 300, 300)
    pairs = list(zip(a, b)) + [(0.0, 1.0), (2.0, 0.0), (3.0, 5e-324), (1e300, 1e300), (2.0 ** 53, 1e300), (7.0, 0.1)]
    plain_mul_up = plain_python(mul_up)
    for x, y in pairs:
        assert mul_up(float(x), float(y)) == special.mul_up(float(x), float(y)) == plain_mul_up(float(x), float(y))
        assert mp.mpf(mul_up(float(x), float(y))) >= mp.mpf(float(x)) * mp.mpf(float(y))


def test_two_product_is_exact():
    for x, y in zip(10 ** RNG.uniform(-100, 100, 100), 10 ** RNG.uniform(-100, 100, 100)):
        p, e = two_product(float(x), float(y))
        assert mp.mpf(p) + mp.mpf(e) == mp.mpf(float(x)) * mp.mpf(float(y))
    assert two_product(1e300, 1e300) == (math.inf, 0.0)


def test_expm1_mul_within_derived_bound():
    # expm1's 1.38u, the correction's and the sum's roundings u, plus O(u²|ab|)
    for a, b in zip(np.floor(10 ** RNG.uniform(0, 6, 200)), 10 ** RNG.uniform(-8, 2.8, 200)):
        if a * b > 709.0:
            continue
        exact = mp.expm1(mp.mpf(float(a)) * mp.mpf(float(b)))
        assert rel_error_u(expm1_mul(float(a), float(b)), exact) <= 2.38 + 1e-12 * a * b


def test_exp_mul_scaled_within_the_t7_log_space_budget():
    # the T7 log-space arguments: scale = δ, a = k − 1, b = ε, tail = τ = −ln(1 − e^{−ε}) (ln(1 − e^{−kε}) = 0)
    for _ in range(150):
        eps = float(10 ** RNG.uniform(-13, 2.5))
        k = float(np.floor(10 ** RNG.uniform(0, 15.9)))
        dlt = float(10 ** RNG.uniform(-320, -1))
        if k < 2 or not k * eps - math.log(eps) > 700:
            continue
        tau = -log(-math.expm1(-eps))
        exact = (mp.mpf(dlt) * mp.exp((mp.mpf(k) - 1) * mp.mpf(eps) + mp.mpf(tau)))
        got = exp_mul_scaled(dlt, k - 1.0, eps, tau)
        if exact > mp.mpf("1.7e308") or exact < mp.mpf(2) ** -1022:
            continue
        assert rel_error_u(got, exact) <= 2 * (1.38 + 0.35 * 1.40) + 31.1 + 3.32 + 1  # the rest's own terms + exps


def test_plain_python_route_is_bit_identical():
    plain_exp, plain_log, plain_expm1_mul, plain_exp_mul_scaled = (plain_python(f) for f in
                                                                   (exp, log, expm1_mul, exp_mul_scaled))
    xs = list(RNG.uniform(-745, 709.7, 40)) + list(10 ** RNG.uniform(-320, 300, 40))
    for x in xs:
        assert plain_exp(x) == exp(x) or (math.isnan(exp(x)) and math.isnan(plain_exp(x)))
        if x > 0:
            assert plain_log(x) == log(x)
    for a, b in zip(np.floor(10 ** RNG.uniform(0, 6, 40)), 10 ** RNG.uniform(-8, 2.8, 40)):
        if a * b > 709.0:  # beyond, inf + inf·lo (NaN for lo < 0), as numeric.special.expm1_mul
            continue
        assert plain_expm1_mul(float(a), float(b)) == expm1_mul(float(a), float(b))
        assert plain_exp_mul_scaled(1e-300, float(a), float(b), 3.0) == exp_mul_scaled(1e-300, float(a), float(b), 3.0)
    plain_select = plain_exp.__globals__["select"]  # numeric.pure's stand-in for the intrinsic
    assert plain_select(True, 1.0, 2.0) == 1.0 and plain_select(False, 1.0, 2.0) == 2.0


def test_select_is_the_conditional_expression():
    """numeric.special.select (an intrinsic: one LLVM select) against the conditional expression, compiled,
    for the operand kinds the kernels use: doubles (NaN, ±0, ±inf kept bit for bit), int64 with a literal."""
    from numba import njit

    @njit(error_model="numpy")
    def pick_float(c, a, b):
        return select(c, a, b)

    @njit(error_model="numpy")
    def pick_int(c, k):
        return select(c, 1023, k) + select(c > 0.5, 1, 2)  # literal and int64; a comparison as the condition

    values = [0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, math.nan, 5e-324]
    for c in (True, False):
        for a in values:
            for b in values:
                got, want = pick_float(c, a, b), (a if c else b)
                assert struct.pack("<d", got) == struct.pack("<d", want), (c, a, b)
        assert pick_int(c, -7) == (1023 if c else -7) + (1 if c > 0.5 else 2)
    assert isinstance(pick_int(True, 3), int)


def group_reference(dlt: float, k: float, eps: float) -> mp.mpf:
    return mp.mpf(dlt) * mp.expm1(mp.mpf(k) * mp.mpf(eps)) / mp.expm1(mp.mpf(eps))


PLAIN_GROUP_DELTA = plain_python(group_delta)  # no compiled code at all (its FMAs: numeric.pure's exact fma)


def check_group(dlt: float, k: float, eps: float) -> None:
    got = group_delta(dlt, k, eps)
    assert got == PLAIN_GROUP_DELTA(dlt, k, eps)
    if k * eps > 1490.0:
        assert got == math.inf
        return
    exact = group_reference(dlt, k, eps)
    if exact > mp.mpf("1.7976931348623157e308"):
        assert got == math.inf or mp.mpf(got) >= exact
    elif exact >= mp.mpf(2) ** -1022:
        assert rel_error_u(got, exact) <= GROUP_DELTA_BOUND_U
    else:  # subnormal: the relative bound plus half a step
        assert abs(mp.mpf(got) - exact) <= GROUP_DELTA_BOUND_U * U * exact + mp.mpf(2) ** -1075


def test_group_delta_within_derived_bound_on_both_former_branches_and_the_switch():
    points = []
    for _ in range(120):  # kε − ln ε ≤ 700 (the former direct branch) and above (the former log-space branch)
        points.append((float(10 ** RNG.uniform(-323, 0)), float(np.floor(10 ** RNG.uniform(0.31, 15.9))),
                       float(10 ** RNG.uniform(-18, 3))))
    for k in (2.0, 3.0, 1e3, 1e9, 2.0 ** 53):  # around the former switch kε − ln ε = 700
        for target in (699.0, 700.0, 701.0, 745.0, 1000.0, 1489.0):
            eps = float(mp.findroot(lambda e: k * e - mp.log(e) - target, target / k))
            points.append((1e-300, k, eps))
            points.append((5e-324, k, eps))
    # the issue-10 point, subnormal ε and δ, ε beyond expm1's overflow, the cap
    points += [(1.541625e-317, 192037303795183.0, 3.648459489611467e-12), (5e-324, 3.0, 5e-324),
               (1e-320, 100.0, 1e-10), (1e-310, 2.0, 710.0), (0.5, 2.0, 1e-300), (1e-10, 2.0 ** 53, 7.44e-14),
               (1e-300, 2.0, 744.9), (1e-300, 2.0, 745.1), (1e-300, 1e6, 1e-3)]
    for dlt, k, eps in points:
        check_group(dlt, k, eps)


def test_group_delta_cap_is_safe():
    # kε > 1490 returns inf: there δ_k ≥ 2⁻¹⁰⁷⁴·e^{kε/2} > 1 (k ≥ 2), checked at the worst case k = 2
    assert group_reference(5e-324, 2.0, 745.0) > 1
    assert group_delta(5e-324, 2.0, 745.5) == math.inf


def test_estrin_proof_constant():
    # numeric.elementary._exp_reduce_estrin: term j of Q = Σ_{j=3}^{14} r^{j−3}/j! passes through n_j roundings in
    # the scheme as written (one per FMA); Σ n_j|r|^{j−3}/j! (increasing in |r|) over min |Q(r)| = Q(−0.34658) ≤
    # 4.765u, + 2 for d = (r²·r)·q: ≤ 6.765u.  (Without FMAs n_j = 4, 5, 6, 7, 9 … 12, 13 … 16: 4.866u, 7.87u; the
    # cruder count, 16 roundings on every term, gave 16·1.1894 ≤ 19.04u, 22.1u on d.)
    def q(r):
        return sum(mp.mpf(r) ** (j - 3) / mp.factorial(j) for j in range(3, 15))
    n_j = [4, 4, 5, 5, 8, 8, 9, 9, 11, 11, 12, 12]
    weighted = sum(n * mp.mpf(0.34658) ** (j - 3) / mp.factorial(j) for n, j in zip(n_j, range(3, 15)))
    assert weighted <= mp.mpf("0.72975") and q(-0.34658) >= mp.mpf("0.1531717")
    assert weighted / q(-0.34658) <= mp.mpf("4.765") and mp.mpf("4.765") + 2 <= mp.mpf("6.765")
    assert q(0.34658) / q(-0.34658) <= 1.1894 and 16 * 1.1894 <= 19.04
    # |xc·INV_LN2 − k| ≤ ½ and INV_LN2's error keep |r| ≤ 0.34658 up to xc = 1500
    assert abs(1 / mp.log(2) - mp.mpf(1.4426950408889634)) <= mp.mpf("1.2e-16")
    assert mp.log(2) / 2 + 1500 * mp.mpf("1.2e-16") * mp.log(2) <= mp.mpf("0.34658")
    # group_delta: σ's 0.417u, N and D 1.417u each, then N/D and ×m
    assert 2 * (mp.mpf("0.417") + 1) + 2 <= mp.mpf("4.834") <= GROUP_DELTA_BOUND_U
