"""T11's double-double building blocks and the issue-10 accuracy cases, against mpmath at ≥ 100 digits.

References are SPEC T11's closed forms as typeset (Φ form, c = 1 − (1 − q)e^ε, t = ln(q e^ε/c)) in mpmath,
not the kernels' route (log1p of E/w in double-double through the erfcx kernel).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import bounds
from numeric import expm1_table, log_table
from numeric import subsampled_profiles as sp

DPS = 120


def _phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def spec_gaussian(direction: str, epsilon: float, theta: float, rate: float):
    with mp.workdps(DPS):
        e, t, q = mp.mpf(epsilon), mp.mpf(theta), mp.mpf(rate)
        F = mp.exp(e)
        if direction == "remove":
            if F <= 1 - q:
                return 1 - F
            s = mp.log(1 + (F - 1) / q)
            return q * _phi(t / 2 - s / t) - (F - 1 + q) * _phi(-t / 2 - s / t)
        c = 1 - (1 - q) * F
        if c <= 0:
            return mp.mpf(0)
        s = mp.log(q * F / c)
        return c * _phi(t / 2 - s / t) - q * F * _phi(-t / 2 - s / t)


def test_expm1_table_matches_mpmath():
    assert np.array_equal(expm1_table.TABLE, np.array(expm1_table.compute()))


def _dd(h, l):
    return mp.mpf(h) + mp.mpf(l)


@pytest.mark.parametrize("seed", [1])
def test_double_double_expm1_log_relative_error(seed):
    rng = np.random.default_rng(seed)
    xs = np.concatenate([rng.uniform(-0.36, 0.36, 80), 10.0 ** rng.uniform(-300, -1, 30),
                         -(10.0 ** rng.uniform(-300, -1, 30)), rng.uniform(-40, 700, 60)])
    worst = 0.0
    with mp.workdps(DPS):
        for x in xs:
            x = float(x)
            exact = mp.expm1(mp.mpf(x))
            got = _dd(*sp.dd_expm1(x))
            worst = max(worst, abs(got / exact - 1))
            if abs(x) < 0.35:
                eh, el, rh, rl, err_r = sp.expm1_parts(x)
                assert abs(_dd(eh, el) / exact - 1) < 2.0 ** -100
                with mp.workdps(DPS + 2 * int(-math.log10(abs(x)) if x else 0)):
                    rest = mp.expm1(mp.mpf(x)) - mp.mpf(x)
                if rest != 0:
                    assert abs(_dd(rh, rl) - rest) <= err_r  # the stated bound holds
                    if rest > 1e-290:  # (below, x²/2 underflows: covered by err_r's absolute term)
                        assert abs(_dd(rh, rl) / rest - 1) < 2.0 ** -98
            if x < 700:
                got = _dd(*sp.dd_exp(x))
                assert abs(got / mp.exp(mp.mpf(x)) - 1) < 2.0 ** -100
        assert worst < 2.0 ** -100, worst
        for z in np.concatenate([10.0 ** rng.uniform(-320, 300, 100), rng.uniform(0.5, 2.0, 50)]):
            z = float(z)
            got = _dd(*sp.dd_log(z, 0.0))
            assert abs(got - mp.log(mp.mpf(z))) <= 2.0 ** -100 * (1 + abs(mp.log(mp.mpf(z))))
        for f in rng.uniform(-0.29, 0.41, 50):
            got = _dd(*sp._log1p_newton(float(f), 0.0))
            assert abs(got / mp.log1p(mp.mpf(float(f))) - 1) < 2.0 ** -100



def test_log_table_matches_mpmath():
    assert np.array_equal(log_table.TABLE, np.array(log_table.compute()))


def test_table_log_error_bounds():
    """``_log1p_table_rest`` within its derived 2⁻⁹⁷·⁴|u| and the table-driven ``dd_log`` within 2⁻¹⁰²(1 + |ln z|)
    for double-double arguments, at the table's interval edges, around 1 and 2, and for subnormals; the plain
    Python form (the scalar route) bit-identical to the compiled one."""
    rng = np.random.default_rng(7)
    bound = 2.0 ** -97.4
    with mp.workdps(DPS):
        for u in [*rng.uniform(-2.0 ** -9, 2.0 ** -9, 60), 2.0 ** -9, -(2.0 ** -9), 1e-300, -3e-17]:
            u = float(u)
            got = _dd(*sp._log1p_table_rest(u))
            assert abs(got - mp.log1p(mp.mpf(u))) <= bound * abs(u)
        edges = [1 + (j + 0.5) / 256 for j in range(0, 256, 5)] + [1 + j / 256 for j in range(0, 257, 7)]
        zs = [*edges, *(10.0 ** rng.uniform(-300, 300, 40)), 1.0, math.nextafter(1.0, 0.0), math.nextafter(1.0, 2.0),
              math.nextafter(2.0, 0.0), 5e-324, 3e-310, 1.7976931348623157e308]
        for z in zs:
            z = float(z)
            for zl in (0.0, float(rng.uniform(-0.5, 0.5)) * math.ulp(z)):
                if zl != 0.0 and z < 1e-290:
                    continue
                got = sp.dd_log(z, zl)
                assert got == sp.dd_log.py_func(z, zl)
                exact = mp.log(mp.mpf(z) + mp.mpf(zl))
                assert abs(_dd(*got) - exact) <= 2.0 ** -102 * (1 + abs(exact)), (z, zl)


@pytest.mark.parametrize("ratio", [0.2799, 0.2801, -0.2799, -0.2801, 0.29, 3.0])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_argument_routes_near_the_switch(ratio, direction):
    """s = log1p(E/w) switches from the log1p route to ln(N/w) at |E/w| = 0.28 (float quotient): both sides, both
    directions, against the SPEC form at 120 digits (REMOVE: w = q, a float; ADD: w = c, a double-double)."""
    q = 0.3
    if direction == "remove":
        epsilon = math.log1p(ratio * q)
    else:  # E/c = ratio with c = q − (1 − q)E: E = ratio·q/(1 + ratio(1 − q))
        epsilon = math.log1p(ratio * q / (1 + ratio * (1 - q)))
    for theta in (0.05, 1.0, 6.0):
        got = bounds.subsampled_gaussian_profile(epsilon, theta=theta, rate=q, direction=direction)
        ref = spec_gaussian(direction, epsilon, theta, q)
        assert mp.mpf(got) >= ref
        assert float(mp.mpf(got) / ref - 1) <= 1e-12

# issue 10: ε ≈ 0 with tiny θ (absolute error floor ~2e-28 before), and ADD one float from e^ε(1 − q) = 1
ISSUE10 = [(0.0, 1e-100, 0.5), (0.0, 1e-20, 0.5), (1e-30, 1e-20, 0.5), (1e-18, 1e-10, 1e-3), (-1e-25, 1e-15, 0.3),
           (3.3371817627379907e-06, 1.387870429283127, 3.337176194353126e-06)]


@pytest.mark.parametrize("epsilon,theta,rate", ISSUE10)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_issue10_relative_error(epsilon, theta, rate, direction):
    got = bounds.subsampled_gaussian_profile(epsilon, theta=theta, rate=rate, direction=direction)
    ref = spec_gaussian(direction, epsilon, theta, rate)
    if ref == 0:
        assert got == 0.0
        return
    assert mp.mpf(got) >= ref  # never below the exact value
    assert float(mp.mpf(got) / ref - 1) <= 1e-12


def test_add_near_threshold_neighbours():
    """ε one and a few floats either side of the ADD threshold (c → 0): safe side and ≤ 1e-12 relative."""
    e0, theta, q = 3.3371817627379907e-06, 1.387870429283127, 3.337176194353126e-06
    e = e0
    for _ in range(3):
        e = math.nextafter(e, -1.0)
    for _ in range(7):
        got = bounds.subsampled_gaussian_profile(e, theta=theta, rate=q, direction="add")
        ref = spec_gaussian("add", e, theta, q)
        if ref == 0:
            assert got <= 1e-300  # c ≤ 0: exact 0 (or the band's bound, which is c⁺-sized)
        else:
            assert mp.mpf(got) >= ref and float(mp.mpf(got) / ref - 1) <= 1e-12, (e, got, ref)
        e = math.nextafter(e, 1.0)


def test_inverse_at_tiny_theta_is_tight():
    """The inverse inherits the forward accuracy: at θ = 1e-20, ε(δ) for δ just below δ(0) is ≥ 0 and small."""
    theta, q = 1e-20, 0.5
    d0 = float(spec_gaussian("remove", 0.0, theta, q))
    eps = bounds.subsampled_gaussian_profile_inverse(d0 * (1 - 1e-9), theta=theta, rate=q, direction="remove")
    assert eps > 0.0
    # δ(ε) near 0 falls with slope ≈ 1/2 per unit ε: the exact root is ≈ 2e-9·δ(0); allow a factor 2
    assert eps < 2 * 2e-9 * d0 * 2
    assert mp.mpf(bounds.subsampled_gaussian_profile(eps, theta=theta, rate=q, direction="remove")) <= mp.mpf(d0 * (1 - 1e-9))


def test_both_kernel_equals_maximum_of_directions():
    """direction="both" runs one kernel on a shared e^ε − 1: bit-identical to max(REMOVE, ADD)."""
    rng = np.random.default_rng(7)
    n = 1000
    e = np.concatenate([rng.uniform(-3, 10, n), 10 ** rng.uniform(-20, 0, n), -(10 ** rng.uniform(-20, 0, n)),
                        [0.0, np.inf, -np.inf, 800.0, -800.0]])
    t = 10 ** rng.uniform(-3, 3, e.size)
    q = np.concatenate([10 ** rng.uniform(-12, 0, e.size - 5), [0.0, 1.0, 0.5, 0.5, 1e-300]])
    for f in (bounds.subsampled_gaussian_profile, bounds.subsampled_laplace_profile):
        both = f(e, theta=t, rate=q)
        assert np.array_equal(both, np.maximum(f(e, theta=t, rate=q, direction="remove"),
                                               f(e, theta=t, rate=q, direction="add")))


def test_base_up_is_t11_at_rate_one():
    """The with-replacement white-box kernels use base_up: the same value as T11 REMOVE at q = 1."""
    rng = np.random.default_rng(11)
    es = np.concatenate([rng.uniform(-5, 30, 300), [0.0, np.inf, -np.inf, 1e-300, -1e-300, 800.0]])
    for mech in (sp.GAUSSIAN, sp.LAPLACE):
        for e, t in zip(es, 10 ** rng.uniform(-3, 3, es.size)):
            assert sp.base_up(mech, e, t) == sp.delta_up(mech, sp.REMOVE, e, t, 1.0)


def test_very_negative_epsilon_is_finite_and_safe():
    """ε far below 0 (q e^ε underflows): finite unrounded values and error bounds, rounded δ ≥ 1 − e^ε."""
    for e in (-800.0, -746.0, -745.0, -740.0, -720.0, -40.0, -0.5):
        for q in (1e-300, 1e-5, 0.5, 0.999999):
            for mech in (sp.GAUSSIAN, sp.LAPLACE):
                for f in (sp.remove_with_error, sp.add_with_error):
                    v, err = f(mech, e, 1.0, q)
                    assert math.isfinite(v) and math.isfinite(err), (f.__name__, mech, e, q, v, err)
                for d in (sp.REMOVE, sp.ADD):
                    assert mp.mpf(sp.delta_up(mech, d, e, 1.0, q)) >= -mp.expm1(mp.mpf(e))
