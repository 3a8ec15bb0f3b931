"""The squaring fallback for the spectrum power's error floor (issue 21; ``Composition._refined``, proof note
Lemma 6 "The floor, and the squaring fallback").

From ``DIRECT_FROM`` = 4096 steps on a phase is raised by one spectrum power (Lemma 6), whose entrywise FFT
error bound is an absolute floor in δ (≈ 1e-9 at 10⁴ steps).  Where a halving of the grid spacing no longer
narrows a sandwich, the directions that set it are rebuilt by squaring (Lemma 5) as a second grid set.

References, independent of the code under test:
- q = 1: T unmerged Gaussian steps (``unmerged_gaussian``: the library would otherwise merge them into one
  step) against the exact Gaussian profile at θ√T in mpmath (``gaussian_composed_delta``, 50 digits).
- q = 0.01: no closed form.  dp_accounting 0.6's PLD (an independent float64 implementation, not certified:
  connect-the-dots pessimistic and privacy-buckets optimistic estimates, value discretisation 2e-5,
  10⁴ self-compositions; numbers and caveats below) must overlap our sandwich; the long-double squaring route's own value
  from stop 25 ([4.909e-12, 4.913e-12]; the same Lemma 5 code the fallback calls, so a sanity bound only,
  not an independent reference) must overlap it too.
The tests below also fail with the fallback switched off (``_powered`` → False: the route is never taken),
which the ``*_without_the_fallback`` tests show on the same instances.
"""
import warnings

import numpy as np
import pytest

import bounds
from bounds.composition import SQUARING, Composition, _C

C = _C()
STEPS = 10_000

# dp_accounting 0.6, σ = 1, q = 0.01, 10⁴ steps (pld.privacy_loss_distribution.from_gaussian_mechanism(1.0,
# sampling_prob=0.01, value_discretization_interval=2e-5, pessimistic_estimate=...).self_compose(10_000)):
# (optimistic — privacy buckets, pessimistic — connect-the-dots).  Not enclosures at this δ: at discretisation
# 1e-4 its pessimistic δ(10) is 4.499e-12, below both of our routes' certified lower sides (4.88e-12 by the
# power, 4.91e-12 by squaring); at 1e-5 it is 5.187e-12, at 2e-5 4.950e-12.  Used as an overlap check only.
DP_DELTA_AT_10 = (2.865698177195043e-12, 4.949805005198408e-12)
DP_EPS_AT_1E10 = (9.215454649143952, 9.316246646986995)
# stop 25, the long-double squaring route (power(..., direct=False)): δ(10) ∈ [4.909e-12, 4.913e-12]
SQUARED_DELTA_AT_10 = (4.909e-12, 4.913e-12)


def _poisson(tolerance: float = 1e-2) -> Composition:
    step = bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(1.0), 0.01)
    return bounds.compose([(step, STEPS)], tolerance=tolerance)


def _gaussian(theta: float, steps: int, tolerance: float = 1e-2) -> Composition:
    from proofs_checks.composition_checks import unmerged_gaussian

    comp = unmerged_gaussian(theta, steps)
    comp.tolerance = tolerance
    comp._h = comp._initial_h()
    return comp


@pytest.fixture(scope="module")
def poisson_delta_10():
    """(composition, δ(10) sandwich) of the issue's case, computed once for the tests that read it."""
    comp = _poisson()
    return comp, _quiet(comp.delta, 10.0)


def _quiet(f, *args):
    """f(*args) with no width warning allowed (the fallback must reach the tolerance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        return f(*args)


def test_the_instances_take_the_spectrum_power():
    # the route under test is only used from DIRECT_FROM steps on
    assert STEPS >= C.DIRECT_FROM


def test_gaussian_rate_one_floor_case_encloses_theta_sqrt_t():
    # 10⁴ Gaussian steps at θ√T = 2: δ(16) ≈ 2.77e-13, below the power's floor (see the next test)
    from proofs_checks.composition_references import gaussian_composed_delta

    theta = 2.0 / STEPS ** 0.5
    comp = _gaussian(theta, STEPS)
    s = _quiet(comp.delta, 16.0)
    ref = gaussian_composed_delta(16.0, theta, STEPS)
    assert s.lower <= ref <= s.upper, (s, ref)
    assert s.upper - s.lower <= 1e-2 * ref, (s, ref)  # measured 1.3e-3 relative
    assert comp._squared == {0}  # the one direction was squared
    # both routes' grids are kept and read (the sandwich is their intersection, each certified)
    assert any(isinstance(k, tuple) and k[0] == SQUARING for k in comp._built())
    assert any(isinstance(k, float) for k in comp._built())
    for key in comp._built():
        lo, hi = comp._delta_many(key, np.array([16.0]))
        assert lo[0] <= ref <= hi[0], (key, lo, hi, ref)


def test_gaussian_rate_one_floor_case_is_wide_without_the_fallback(monkeypatch):
    from proofs_checks.composition_references import gaussian_composed_delta

    monkeypatch.setattr(Composition, "_powered", lambda self: False)
    theta = 2.0 / STEPS ** 0.5
    comp = _gaussian(theta, STEPS)
    with pytest.warns(UserWarning, match="no longer narrows"):
        s = comp.delta(16.0)
    ref = gaussian_composed_delta(16.0, theta, STEPS)
    assert s.lower <= ref <= s.upper
    assert s.upper - s.lower > 0.5 * ref  # measured [2.00e-13, 5.39e-13]: 1.22 relative
    assert not comp._squared


def test_poisson_delta_at_tiny_delta_is_tight(poisson_delta_10):
    # the case: q = 0.01, σ = 1, 10⁴ steps, δ(10) ≈ 4.91e-12; the power alone gave [4.89e-12, 1.2e-9]
    comp, s = poisson_delta_10
    assert 0.0 < s.lower <= s.upper
    assert s.upper - s.lower <= 1e-2 * s.upper, s  # measured 9.3e-3 (tolerance 1e-2)
    assert s.lower <= DP_DELTA_AT_10[1] and DP_DELTA_AT_10[0] <= s.upper, s
    assert s.lower <= SQUARED_DELTA_AT_10[1] and SQUARED_DELTA_AT_10[0] <= s.upper, s
    # the ADD direction's power sets the floor (its upper ≈ 1.2e-9) and REMOVE's power upper is ≈ 1 % above
    # the best lower side (its own floor): both can set the width, both are squared
    assert comp._squared == {0, 1}


def test_poisson_delta_at_tiny_delta_is_wide_without_the_fallback(monkeypatch):
    monkeypatch.setattr(Composition, "_powered", lambda self: False)
    comp = _poisson()
    with pytest.warns(UserWarning, match="no longer narrows"):
        s = comp.delta(10.0)
    assert s.upper > 100 * s.lower  # measured [4.887e-12, 1.20e-9]


def test_poisson_epsilon_at_tiny_delta_is_tight():
    # ε(1e-10): the same floor showed as ε ∈ [9.316, 15.0]
    comp = _poisson()
    s = _quiet(comp.epsilon, 1e-10)
    assert s.upper - s.lower <= 1e-2, s  # measured 1.2e-3
    assert s.lower <= DP_EPS_AT_1E10[1] and DP_EPS_AT_1E10[0] <= s.upper, s


def test_poisson_epsilon_at_tiny_delta_is_wide_without_the_fallback(monkeypatch):
    monkeypatch.setattr(Composition, "_powered", lambda self: False)
    comp = _poisson()
    with pytest.warns(UserWarning, match="no longer narrows"):
        s = comp.epsilon(1e-10)
    assert s.upper - s.lower > 1.0  # measured [9.316, 15.0]


def test_route_keyed_caches_and_the_default_grids_are_unchanged(poisson_delta_10, monkeypatch):
    # after the fallback the default grid set at h still holds the power's grids (calibration reads
    # _delta_at(h, ε), which is unchanged), the squared set is separate, and a repeated query builds nothing
    comp, s = poisson_delta_10
    spacings = [k for k in comp._built() if isinstance(k, float)]
    squared = [k for k in comp._built() if isinstance(k, tuple)]
    assert squared and all(k[1] in spacings for k in squared)
    for key in squared:
        assert comp._grids(key) is not comp._grids(key[1])
        assert comp._delta_at(key[1], 10.0)[1] > 100 * s.upper  # the power's floor, as before
    built = []
    original = Composition._direction_grids

    def counting(self, *args):
        built.append(args)
        return original(self, *args)

    monkeypatch.setattr(Composition, "_direction_grids", counting)
    assert comp.delta(10.0) == s
    assert comp.delta(np.array([10.0]))[1][0] == s.upper
    assert not built


def test_fast_path_takes_no_squaring():
    # δ ≥ 1e-8: the floor is far below the width, the refinement never stops narrowing, nothing is squared
    comp = _poisson(tolerance=1e-3)
    s = _quiet(comp.epsilon, 1e-5)
    assert s.upper - s.lower <= 1e-3
    assert not comp._squared
    assert all(isinstance(k, float) for k in comp._built())


def test_mixed_queries_take_the_best_of_both_routes():
    # one array with a bulk ε and a tiny-δ ε: each point gets the tighter of the two routes' sandwiches
    comp = _poisson()
    s = _quiet(comp.delta, np.array([2.0, 10.0]))
    assert (s.upper - s.lower <= 1e-2 * s.upper).all(), s
    assert s.lower[1] <= DP_DELTA_AT_10[1] and DP_DELTA_AT_10[0] <= s.upper[1]
    for key in comp._built():
        lo, hi = comp._delta_many(key, np.array([2.0, 10.0]))
        assert (s.lower >= lo).all() and (s.upper <= hi).all()


def test_work_limit_stops_the_fallback_and_says_so(monkeypatch):
    # squaring beyond SQUARING_WORK is not attempted: the sandwich stays the power's (still certified) and the
    # width warning names the limit
    import bounds.composition as bc
    from proofs_checks.composition_references import gaussian_composed_delta

    monkeypatch.setattr(bc, "SQUARING_WORK", 1.0)
    theta = 2.0 / STEPS ** 0.5
    comp = _gaussian(theta, STEPS)
    with pytest.warns(UserWarning, match="beyond its work limit"):
        s = comp.delta(16.0)
    ref = gaussian_composed_delta(16.0, theta, STEPS)
    assert s.lower <= ref <= s.upper
    assert not comp._squared and all(isinstance(k, float) for k in comp._built())
