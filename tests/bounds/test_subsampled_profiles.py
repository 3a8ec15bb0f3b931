"""Tests of SPEC T11: subsampled_gaussian_profile / subsampled_laplace_profile and their inverses.

References are computed here, independently of the library's route (which is q·δ_b(A_q⁻¹(ε)) through erfcx
in double-double): SPEC's typeset closed forms in mpmath at 80+ digits, and a direct quadrature of the
hockey-stick integral of the mixture densities.  Soundness is decided on exact binary values (mpf of the
returned float).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

import bounds


def _phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def spec_ref(mech: str, direction: str, epsilon: float, theta: float, q: float) -> mpf:
    extra = sum(int(2 * max(0.0, -math.log10(abs(v)))) for v in (epsilon, theta, q) if v)
    with mp.workdps(80 + extra):
        e, t, q = mpf(epsilon), mpf(theta), mpf(q)
        F = mp.exp(e)
        if q == 0:
            return max(mpf(0), 1 - F)
        if mech == "gaussian":
            if direction == "remove":
                if F <= 1 - q:
                    return 1 - F
                eq = mp.log(1 + (F - 1) / q)
                return +(q * _phi(t / 2 - eq / t) - (F - 1 + q) * _phi(-t / 2 - eq / t))
            c = 1 - (1 - q) * F
            if c <= 0:
                return mpf(0)
            tt = mp.log(q * F / c)
            return +(c * _phi(t / 2 - tt / t) - q * F * _phi(-t / 2 - tt / t))
        if direction == "remove":
            if F <= 1 - q + q * mp.exp(-t):
                return 1 - F
            if F >= 1 - q + q * mp.exp(t):
                return mpf(0)
            return +(q - mp.exp(-t / 2) * mp.sqrt(q * (q + F - 1)))
        if F <= 1 / (1 - q + q * mp.exp(t)):
            return 1 - F
        if F >= 1 / (1 - q + q * mp.exp(-t)):
            return mpf(0)
        return +(1 - (1 - q) * F - mp.exp(-t / 2) * mp.sqrt(q * F * (1 - (1 - q) * F)))


LIB = {"gaussian": bounds.subsampled_gaussian_profile, "laplace": bounds.subsampled_laplace_profile}
INV = {"gaussian": bounds.subsampled_gaussian_profile_inverse, "laplace": bounds.subsampled_laplace_profile_inverse}
EPS = [0.0, 1e-10, 1e-3, 0.1, 1.0, 3.0, 10.0, 50.0, 200.0, 500.0, -1e-6, -0.1, -2.0]
THETAS = [1e-3, 0.1, 1.0, 4.0, 100.0, 1e3]
RATES = [0.0, 1e-12, 1e-6, 0.01, 0.3, 0.9, 1.0]


@pytest.mark.parametrize("mech", ["gaussian", "laplace"])
@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("q", RATES)
def test_sound_and_accurate(mech, direction, q):
    eps = np.array(EPS)
    for theta in THETAS:
        got = LIB[mech](eps, theta=theta, rate=q, direction=direction)
        for e, g in zip(eps, got):
            ref = spec_ref(mech, direction, float(e), theta, q)
            assert mpf(float(g)) >= ref, (mech, direction, e, theta, q, g, ref)
            if ref > 1e-290:
                assert mpf(float(g)) / ref - 1 < 1e-13, (mech, direction, e, theta, q, g, ref)
            elif ref == 0 and mech == "laplace":
                assert g < 1e-280


def test_both_is_max_and_remove_dominates_for_nonnegative_epsilon():
    eps = np.logspace(-6, 2.7, 40)
    for mech, f in LIB.items():
        for q in (1e-9, 0.05, 0.5):
            rem = f(eps, theta=1.3, rate=q, direction="remove")
            add = f(eps, theta=1.3, rate=q, direction="add")
            both = f(eps, theta=1.3, rate=q)
            assert np.array_equal(both, np.maximum(rem, add))
            assert np.all(add <= rem * (1 + 1e-13))


def test_identity_remove_at_amplified_epsilon():
    """δ_REMOVE(A_q(ε)) = q·δ_base(ε): the exact amplified ε from mpmath, compared to 60-digit q·T9."""
    for e, t, q in [(0.5, 1.0, 0.01), (2.0, 0.7, 0.3), (0.01, 0.05, 1e-6)]:
        with mp.workdps(60):
            a = mp.log(1 + q * mp.expm1(mpf(e)))
        a_up = float(a) if mpf(float(a)) >= a else math.nextafter(float(a), math.inf)
        got = bounds.subsampled_gaussian_profile(a_up, theta=t, rate=q, direction="remove")
        want = q * spec_ref("gaussian", "remove", e, t, 1.0)
        assert abs(mpf(got) / want - 1) < 1e-12


def test_q1_is_base_profile():
    eps = np.array(EPS)
    for d in ("remove", "add", "both"):
        np.testing.assert_allclose(bounds.subsampled_gaussian_profile(eps, theta=0.8, rate=1.0, direction=d),
                                   bounds.gaussian_profile(eps, theta=0.8), rtol=5e-14, atol=1e-300)
        np.testing.assert_allclose(bounds.subsampled_laplace_profile(eps, theta=0.8, rate=1.0, direction=d),
                                   bounds.laplace_profile(eps, theta=0.8), rtol=5e-14, atol=1e-300)


def _quad(mech, direction, e, t, q):
    """∫(p − e^ε p')₊ of the mixture densities, split at 0, θ and the crossing of p − e^ε p' (mp.findroot)."""
    e, t, q = mpf(e), mpf(t), mpf(q)
    if mech == "gaussian":
        b0, b1 = (lambda x: mp.npdf(x, 0, 1)), (lambda x: mp.npdf(x, t, 1))
    else:
        b0, b1 = (lambda x: mp.exp(-abs(x)) / 2), (lambda x: mp.exp(-abs(x - t)) / 2)
    mix = lambda x: (1 - q) * b0(x) + q * b1(x)  # noqa: E731
    p, pp = (mix, b0) if direction == "remove" else (b0, mix)
    g = lambda x: p(x) - mp.exp(e) * pp(x)  # noqa: E731  (e^ε at quad's raised working precision)
    c = mp.exp(e)

    def g_scan(x):
        """g at this precision with e^ε and the base density computed once (the same operations as g)."""
        v0 = b0(x)
        m = (1 - q) * v0 + q * b1(x)
        return m - c * v0 if direction == "remove" else v0 - c * m
    cuts = [mpf(0), t]
    xs = [mpf(-40) + i * (80 + t) / 800 for i in range(801)]
    signs = [g_scan(x) > 0 for x in xs]  # each scan point once (both of its intervals use it)
    for i, (a, b) in enumerate(zip(xs, xs[1:])):
        if signs[i] != signs[i + 1]:
            cuts.append(_bisect(g_scan, a, b))
    return mp.quad(lambda x: max(g(x), 0), [-mp.inf] + sorted(set(cuts)) + [mp.inf])


def _bisect(g, a, b):
    for _ in range(100):
        m = (a + b) / 2
        if (g(m) > 0) == (g(a) > 0):
            a = m
        else:
            b = m
    return (a + b) / 2


@pytest.mark.parametrize("mech", ["gaussian", "laplace"])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_quadrature(mech, direction):
    with mp.workdps(25):
        for e, t, q in [(0.2, 1.0, 0.3), (1.0, 2.0, 0.05), (-0.02, 0.5, 0.5)]:
            ref = _quad(mech, direction, e, t, q)
            got = LIB[mech](e, theta=t, rate=q, direction=direction)
            if ref == 0:  # ADD past c ≤ 0, Laplace past its upper threshold
                assert got == 0.0
                continue
            assert abs(mpf(got) / ref - 1) < 1e-12, (e, t, q, got, ref)


@pytest.mark.parametrize("mech", ["gaussian", "laplace"])
@pytest.mark.parametrize("direction", ["remove", "add", "both"])
def test_inverse_safe(mech, direction):
    thetas = np.array([1e-2, 0.5, 2.0, 30.0])
    for q in (1e-12, 1e-3, 0.2, 1.0):
        for d in (1e-300, 1e-12, 1e-5, 0.01):
            e = INV[mech](d, theta=thetas, rate=q, direction=direction)
            assert np.all(LIB[mech](e, theta=thetas, rate=q, direction=direction) <= d)


def test_inverse_close_to_root():
    e = bounds.subsampled_gaussian_profile_inverse(1e-5, theta=1.0, rate=0.01, direction="remove")
    with mp.workdps(60):
        assert spec_ref("gaussian", "remove", e, 1.0, 0.01) <= mpf(1e-5)
        below = spec_ref("gaussian", "remove", e * (1 - 1e-13), 1.0, 0.01)
        assert below > mpf(1e-5)


def test_laplace_inverse_at_zero_is_the_threshold():
    e = bounds.subsampled_laplace_profile_inverse(0.0, theta=1.0, rate=0.5, direction="remove")
    thr = math.log(0.5 + 0.5 * math.e)
    assert e >= thr and e - thr < 1e-14
    assert bounds.subsampled_gaussian_profile_inverse(0.0, theta=1.0, rate=0.5) == math.inf


@settings(max_examples=60, deadline=None)
@given(e=st.floats(0, 100), t=st.floats(1e-2, 50), q=st.floats(1e-9, 1))
def test_hypothesis_monotone_in_epsilon_and_rate(e, t, q):
    for f in LIB.values():
        for d in ("remove", "add"):
            assert f(e * 1.1 + 1e-3, theta=t, rate=q, direction=d) <= f(e, theta=t, rate=q, direction=d) * (1 + 1e-13)
        # more sampling, less privacy: REMOVE is non-decreasing in q for ε ≥ 0
        assert f(e, theta=t, rate=q, direction="remove") <= f(e, theta=t, rate=min(1.0, q * 1.5),
                                                              direction="remove") * (1 + 1e-13)


@pytest.mark.parametrize("kwargs, word", [
    (dict(epsilon=float("nan"), theta=1.0, rate=0.1), "epsilon"),
    (dict(epsilon=1.0, theta=0.0, rate=0.1), "theta"),
    (dict(epsilon=1.0, theta=-1.0, rate=0.1), "theta"),
    (dict(epsilon=1.0, theta=1.0, rate=1.5), "rate"),
    (dict(epsilon=1.0, theta=1.0, rate=-0.1), "rate"),
    (dict(epsilon=1.0, theta=float("nan"), rate=0.1), "theta"),
])
def test_bad_input(kwargs, word):
    for f in LIB.values():
        with pytest.raises(ValueError, match=word):
            f(**kwargs)


def test_bad_direction_and_inverse_input():
    with pytest.raises(ValueError, match="direction"):
        bounds.subsampled_gaussian_profile(1.0, theta=1.0, rate=0.1, direction="up")
    with pytest.raises(ValueError, match="delta"):
        bounds.subsampled_laplace_profile_inverse(1.5, theta=1.0, rate=0.1)


def test_vectorised_equals_scalar():
    eps, thetas, qs = np.array([0.1, 1.0, 5.0]), np.array([0.5, 2.0]), np.array([[0.01], [0.5]])
    got = bounds.subsampled_gaussian_profile(eps[None, None, :], theta=thetas[None, :, None], rate=qs[:, :, None])
    for i, q in enumerate(qs[:, 0]):
        for j, t in enumerate(thetas):
            for k, e in enumerate(eps):
                assert got[i, j, k] == bounds.subsampled_gaussian_profile(float(e), theta=float(t), rate=float(q))


# ---- the T11 checks can fail ----------------------------------------------------------------------------

def test_checks_can_fail(monkeypatch):
    from proofs_checks import subsampled_profiles_checks as checks
    from proofs_checks.algebra import is_identity
    from symbolic import subsampled_profiles as rec

    # symbolic: REMOVE is q·δ_b(A_q⁻¹(ε)), not q·δ_b(ε)
    assert not is_identity(rec._GAUSS_REMOVE_MID, rec.q * rec._gauss_base(rec.eps_r))
    orig = bounds.subsampled_gaussian_profile
    # quadrature route: the ADD value returned for REMOVE is caught
    monkeypatch.setattr(bounds, "subsampled_gaussian_profile",
                        lambda e, *, theta, rate, direction="both": orig(e, theta=theta, rate=rate, direction="add"))
    assert not checks.quadrature_route().passed
    # REMOVE ≥ ADD: swapped directions are caught
    swap = {"remove": "add", "add": "remove", "both": "both"}
    monkeypatch.setattr(bounds, "subsampled_gaussian_profile",
                        lambda e, *, theta, rate, direction="both": orig(e, theta=theta, rate=rate, direction=swap[direction]))
    assert not checks.remove_dominates_and_q1().passed
    # Arb soundness: values 1e-13 too small are caught
    monkeypatch.setattr(bounds, "subsampled_gaussian_profile",
                        lambda e, *, theta, rate, direction="both": orig(e, theta=theta, rate=rate, direction=direction) * (1 - 1e-13))
    assert not checks.arb_enclosures().passed


# ---- one compiled entry point for the eighteen kernels (issue 20, compile cost) ----------------------------

def _direct(sp, kind: str, mech, e: float, d: float, t: float, q: float) -> float:
    """What the kernel named ``<mechanism>_<kind>`` computed before ``t11(mode, …)`` existed: the T11 function
    called directly (its own compiled dispatcher), so a wrong mode-to-kernel mapping cannot pass."""
    direction = sp.ADD if kind.startswith("add") else sp.REMOVE
    if kind == "both":
        return sp.delta_up_both(mech, e, t, q)
    if kind in ("remove", "add"):
        return sp.delta_up(mech, direction, e, t, q)
    if kind.endswith("epsilon_raw"):
        return sp.epsilon_search(mech, direction, d, t, q) if d < 1.0 else -math.inf
    if kind.endswith("epsilon"):
        return sp.epsilon_verified(mech, direction, d, t, q)
    return sp.delta_raw_kernel(mech, direction, e, t, q)


def test_every_mode_is_its_kernel_on_every_route_bit_for_bit():
    """Each of the eighteen T11 kernel names, on the scalar route (``t11``'s entry point with the mode bound), the
    serial and the parallel array loop (one indirect loop for all modes) and the plain-Python tier, gives the bits
    of the function it names called directly, at ordinary and edge points (±inf, ε < 0, δ ∈ {0, 1}, q ∈ {0, 1})."""
    import numeric
    from numeric import subsampled_profiles as sp
    from numeric.pure import pure_function

    assert len(sp.KERNEL_MODES) == 18 and sorted(sp.KERNEL_MODES.values()) == list(range(18))
    eps = [-math.inf, -800.0, -2.0, -3.337e-6, 0.0, 3.337e-6, 0.3, 1.0, 40.0, 708.0, 750.0, math.inf]
    deltas = [0.0, 1e-300, 1e-9, 1e-3, 0.5, 1.0]
    grid = [(e, d, t, q) for e in eps[::3] + eps[1::3] for d in deltas[::2] for t in (1e-3, 1.0, 30.0)
            for q in (0.0, 1e-6, 0.3, 1.0)]
    for name, mode in sp.KERNEL_MODES.items():
        mechanism, _, kind = name.partition("_")
        mech = sp.GAUSSIAN if mechanism == "gaussian" else sp.LAPLACE
        assert mode == sp.KINDS * int(mech) + sp._NAMES.index(kind)
        spec = f"numeric.subsampled_profiles:{name}"
        points = grid if "epsilon" not in kind else [p for p in grid if p[0] == 0.0 or p[0] == 1.0]
        columns = [np.array(c) for c in zip(*points)]
        scalar = numeric.scalar_kernel(spec)
        wrapper = getattr(sp, name)  # the module's one-line function: its literal mode must be this one
        pure = pure_function(spec)
        with np.errstate(all="ignore"):
            serial = numeric.kernel(spec, 4)(*columns)
            parallel = numeric.kernel(spec, 4)(*columns, parallel=True)
        assert serial.view(np.int64).tolist() == parallel.view(np.int64).tolist(), name
        for i, (e, d, t, q) in enumerate(points):
            expected = np.float64(_direct(sp, kind, mech, e, d, t, q))
            got = np.array([scalar(e, d, t, q), serial[i], wrapper(e, d, t, q)])
            assert (got.view(np.int64) == expected.view(np.int64)).all(), f"{name} at {(e, d, t, q)}: {got} ≠ {expected}"
            if i % 7 == 0 and "epsilon" not in kind:  # plain Python (slow for the searches): a sample
                with np.errstate(all="ignore"):
                    assert np.float64(pure(e, d, t, q)).view(np.int64) == expected.view(np.int64), name


def test_one_compiled_function_and_one_loop_serve_all_eighteen():
    """The compile-cost point of the shared entry: every T11 name is served by the same compiled ``t11`` entry
    point (scalar route) and the same compiled array loop, whatever mode; nothing is compiled per name."""
    import numeric
    from numeric import loops, subsampled_profiles as sp

    scalars = {numeric.scalar_kernel(f"numeric.subsampled_profiles:{n}").func for n in sp.KERNEL_MODES}
    arrays = {numeric.kernel(f"numeric.subsampled_profiles:{n}", 4).compiled(False) for n in sp.KERNEL_MODES}
    assert len(scalars) == 1 and len({a.func for a in arrays}) == 1 and len({a.args for a in arrays}) == 18
    assert {a.args[1] for a in arrays} == set(range(18))
    assert next(iter(arrays)).func in loops._INDIRECT.values()
