"""Issue 10: the soundness reproducers with independent references, and the adversarial check's failure path."""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath as mp
import numpy as np

import bounds
from proofs_checks import adversarial as A


def _binomial_tail_enclosure(n: int, j0: int, beta: float) -> tuple[Fraction, Fraction]:
    """Exact rational ends of an Arb ball (300 bits) containing P{Bin(n, β) ≥ j₀} = I_β(j₀, n − j₀ + 1), the
    regularised incomplete beta function (β a double: exact in Arb).  Replaces the exact integer sum of the
    n − j₀ + 1 terms (1 s of CPU at n = 6223; the ball took < 1 ms, contains that exact value, relative
    radius 1e-89)."""
    saved = flint.ctx.prec
    flint.ctx.prec = 300
    try:
        ball = flint.arb(beta).beta_lower(j0, n - j0 + 1, regularized=True)
    finally:
        flint.ctx.prec = saved

    def exact(x) -> Fraction:
        man, exp = x.man_exp()
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    mid, rad = exact(ball.mid()), exact(ball.rad())
    return mid - rad, mid + rad


def test_t15_reproducer_is_above_an_exact_lower_bound():
    # d = max_n P{Bin(n, β) > γn} ≥ P{Bin(6223, β) ≥ 2073}: n_m = 6223, j₀ = 2073 (issue 10)
    got = bounds.safe_k_anonymization_delta(2073, 0.1830161114086729, 0.20296773602290802)
    lower, upper = _binomial_tail_enclosure(6223, 2073, 0.1830161114086729)
    assert 0 < lower and Fraction(got) >= upper  # above the whole enclosure: above the exact tail
    assert float(Fraction(got) / lower - 1) < 1e-12


def test_t7_t12_reproducer_against_arb():
    e, d, k = 3.648459489611467e-12, 1.541625e-317, 192037303795183
    flint.ctx.prec = 200
    ball = flint.arb(d) * (flint.arb(k) * flint.arb(e)).expm1() / flint.arb(e).expm1()
    upper_of_exact = ball.mid() + ball.rad()
    for got in (bounds.group_privacy(e, d, k).delta, bounds.deterministic_suppression(e, d, k).delta):
        assert flint.arb(got) > upper_of_exact  # strictly above the whole enclosure
        assert float((flint.arb(got) - ball.mid()) / ball.mid()) < 1e-12


def _sigma_reference(eps: float, delta: float) -> mp.mpf:
    """σ at Δ = 1 by bisection on 1 − δ_θ(ε) = Φ(ε/θ − θ/2) + e^ε Φ(−ε/θ − θ/2), with 1 − δ exact."""
    with mp.workdps(50):
        c, e = 1 - mp.mpf(delta), mp.mpf(eps)
        lo, hi = mp.mpf("1e-3"), mp.mpf(100)
        for _ in range(200):
            mid = (lo + hi) / 2
            if mp.ncdf(-mid / 2 + e / mid) + mp.exp(e) * mp.ncdf(-mid / 2 - e / mid) > c:
                lo = mid
            else:
                hi = mid
        return 1 / lo


def test_t10_sigma_as_delta_tends_to_one():
    for eps in (0.0, 1.0):
        for delta in (1 - 1e-6, 0.9999999999999999):
            got = bounds.gaussian_sigma(eps, delta, 1.0)
            ref = _sigma_reference(eps, delta)
            rel = float((mp.mpf(got) - ref) / ref)
            assert 0 <= rel < 1e-12, (eps, delta, got, rel)


def test_stored_cases_are_well_formed():
    cases = A.load_cases()
    assert {"T15 delta", "T7 delta", "T12 delta", "T10 sigma"} <= {c["kernel"] for c in cases}
    for c in cases:
        if mp.mpf(c["reference"]) == 0:  # an exact zero needs no digits
            continue
        assert len(c["reference"].replace("-", "").split("e")[0].replace(".", "").lstrip("0")) >= 40
        assert all(isinstance(float.fromhex(h), float) for h in c["args"])
        assert c["route"] and c["date"]


class _FakeTarget(A.Target):
    """T1 δ' = pδ with a deliberately unsound rounded kernel (one float below the exact product)."""

    def __init__(self):  # noqa: D107  (no numba kernels)
        self.theorem_id, self.output, self.theorems, self.name = "T1", "delta", ("T1",), "fake T1 delta"
        self.args, self.up, self.at_most_one = ["delta", "rate"], True, True
        self.params = {"delta": {"domain": (0.0, 1.0, 0, 0, 0)}, "rate": {"domain": (0.0, 1.0, 0, 0, 0)}}

    def evaluate(self, point):
        exact = Fraction(point[0]) * Fraction(point[1])
        below = math.nextafter(float(exact), 0.0)
        return (below if Fraction(below) < exact else math.nextafter(below, 0.0)), float(exact)

    def reference(self, point):
        with mp.workdps(60):
            return mp.mpf(point[0]) * mp.mpf(point[1])

    def starts(self, rng):
        return [(float(d), float(p)) for d, p in zip(np.exp(rng.uniform(-50, 0, 8)), np.exp(rng.uniform(-50, 0, 8)))]


def test_an_unsound_kernel_is_caught():
    target = _FakeTarget()
    outcome = A._adversarial_check(target, lambda: [])()
    assert not outcome.passed and "UNSOUND" in outcome.detail
    assert outcome.metrics["worst_signed_rel"] < 0
    # a stored case alone (no search hit needed) also fails the check
    state = A.Search(target)
    case = {"kernel": "fake T1 delta", "args": [(0.5).hex(), (0.1).hex()], "reference": "0.05" + "0" * 40}
    assert A.replay(target, state, [case]) == 1 and state.unsound


def test_a_sound_kernel_passes():
    target = _FakeTarget()
    target.evaluate = lambda point: (math.nextafter(point[0] * point[1], 1.0),) * 2
    outcome = A._adversarial_check(target, lambda: [])()
    assert outcome.passed, outcome.detail
