"""Noise calibration (issue 21, ``bounds.calibration``): the returned σ are re-certified here by compositions of
their own, the exact σ of plain Gaussian compositions (mpmath, 50 digits) lies inside the bracket, the search
meets its stopping rule (checked on the grid it certifies on) with few certified compositions, and bad input is
refused by name."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import bounds
from bounds import calibration
from bounds.samplers import sampler_composition


def _exact_gaussian_sigma(epsilon: float, delta: float, count: int, sensitivity: int = 1) -> mp.mpf:
    """σ* with δ(ε) = δ for ``count`` compositions of a Gaussian of sensitivity ``sensitivity`` and noise σ:
    one Gaussian of μ = sensitivity·√count/σ, δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018),
    solved by bisection in mpmath at 50 digits (δ(ε) falls as σ grows)."""
    with mp.workdps(50):
        def d(sigma):
            mu = sensitivity * mp.sqrt(count) / sigma
            return mp.ncdf(-epsilon / mu + mu / 2) - mp.e ** epsilon * mp.ncdf(-epsilon / mu - mu / 2)

        lo, hi = mp.mpf("0.01"), mp.mpf(10 ** 8)
        assert d(lo) > delta > d(hi)
        for _ in range(250):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
        return hi


def _steps(record: list):
    return lambda step: record.append(step) if step.done else None


# ----- Poisson: dpsgd_noise_multiplier --------------------------------------------------------------------------

def test_poisson_sigma_is_recertified_and_tight():
    """σ⁺'s certified upper δ(ε) ≤ δ and σ⁻'s certified lower > δ, recomputed by fresh compositions (public
    compose at a finer tolerance, and the calibration's own grid); the stopping rule holds on that grid: σ⁺·(1 −
    2e-5) is not certified and σ⁻·(1 + 2e-5) is not proven to violate."""
    eps, delta, q, T = 2.0, 1e-5, 0.05, 100
    record: list = []
    s = bounds.dpsgd_noise_multiplier(eps, delta, q, T, tolerance=1e-2, progress=_steps(record))
    assert 0 < s.lower < s.upper and (s.upper - s.lower) / s.upper < 1e-3

    def comp(sigma):
        return bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(sigma), q), T)],
                              tolerance=1e-3)

    assert comp(s.upper).delta(eps).upper <= delta
    assert comp(s.lower).delta(eps).lower > delta
    h = calibration._grid_for(q, T, 1e-2, theta=1.0 / calibration._gdp_sigma(eps, delta, q, T))

    def on_grid(sigma):
        c = bounds.Composition([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(sigma), q), T)])
        return c._delta_at(h, eps)

    assert on_grid(s.upper)[1] <= delta < on_grid(s.lower)[0]
    assert on_grid(s.upper * (1 - 2e-5))[1] > delta  # σ⁺ within 2e-5 of the least certified σ
    assert not on_grid(s.lower * (1 + 2e-5))[0] > delta  # σ⁻ within 2e-5 of the largest violating σ
    # the σ returned are σ the search certified (recorded with the same sandwich)
    certified = {r.noise_multiplier: (r.lower, r.upper) for r in record if r.stage == "certified"}
    assert certified[s.upper][1] <= delta < certified[s.lower][0]
    assert len(certified) <= 6, f"{len(certified)} certified compositions (the search needed 3–5 when written)"


@pytest.mark.parametrize("eps,delta,T", [(10.0, 1e-3, 1), (2.0, 1e-5, 100), (0.5, 1e-6, 10)])
def test_poisson_rate_one_brackets_the_exact_gaussian_sigma(eps, delta, T):
    """Rate 1: T Gaussian steps are one Gaussian at θ√T; its exact σ (mpmath) lies in [σ⁻, σ⁺]."""
    star = _exact_gaussian_sigma(eps, delta, T)
    s = bounds.dpsgd_noise_multiplier(eps, delta, 1.0, T, tolerance=1e-2)
    assert s.lower <= star <= s.upper, (s, star)
    assert s.upper / s.lower - 1 < 1e-3


def test_poisson_sigma_is_monotone():
    """More budget, less noise; more steps, more noise (σ⁺ and σ⁻ both)."""
    by_eps = [bounds.dpsgd_noise_multiplier(e, 1e-5, 0.05, 100, tolerance=1e-2) for e in (1.0, 2.0, 4.0)]
    assert all(a.lower > b.lower and a.upper > b.upper for a, b in zip(by_eps, by_eps[1:]))
    by_T = [bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, t, tolerance=1e-2) for t in (50, 100, 200)]
    assert all(a.lower < b.lower and a.upper < b.upper for a, b in zip(by_T, by_T[1:]))


def test_poisson_loose_and_impossible_budgets():
    # δ ≤ q = 0.1 < 0.5 for every σ: certified down to where the grid no longer resolves σ, then refused
    with pytest.raises(ValueError, match="so loose.*certified"):
        bounds.dpsgd_noise_multiplier(1.0, 0.5, 0.1, 1)
    star = _exact_gaussian_sigma(1e-6, 1e-7, 1)  # ≈ 4e6: beyond the supported 1e4
    assert star > 1e4
    with pytest.raises(ValueError, match="no noise multiplier"):
        bounds.dpsgd_noise_multiplier(1e-6, 1e-7, 1.0, 1, tolerance=1e-2)


def test_poisson_loose_budget_is_certified_on_the_estimated_grid():
    """ε = 100 (issue 19: refused, the σ = 1 grid could not resolve σ ≈ 0.18): the grid chosen at the μ-GDP
    estimate certifies it; re-certified by public compositions."""
    s = bounds.dpsgd_noise_multiplier(100.0, 1e-5, 0.01, 100, tolerance=1e-2)

    def comp(sigma):
        return bounds.compose([(bounds.poisson_sampled(bounds.Gaussian.from_noise_multiplier(sigma), 0.01), 100)],
                              tolerance=1e-2)

    with pytest.warns(UserWarning, match="certified width"):
        assert comp(s.upper).delta(100.0).upper <= 1e-5 < comp(s.lower).delta(100.0).lower


# ----- samplers: sampler_noise_multiplier ---------------------------------------------------------------------

@pytest.mark.parametrize("words,sensitivity", [
    (dict(sampler="cyclic", epochs=3, steps_per_epoch=10), 1),  # zero-out: E Gaussians
    (dict(sampler="cyclic", epochs=3, steps_per_epoch=10, adjacency="replace_one"), 2),
    (dict(sampler="balls_and_bins", epochs=3, steps_per_epoch=1), 1),  # T = 1: the Gaussian
    (dict(sampler="poisson", epochs=3, steps_per_epoch=1, rate=1.0), 1),
])
def test_sampler_brackets_the_exact_gaussian_sigma(words, sensitivity):
    star = _exact_gaussian_sigma(2.0, 1e-5, 3, sensitivity)
    record: list = []
    s = bounds.sampler_noise_multiplier(2.0, 1e-5, tolerance=1e-2, progress=_steps(record), **words)
    # each side within rtol = 1e-3 (per side: the module's stopping rule) of the exact σ; the gap between the
    # sides is the certified width plus up to 2·rtol (balls-and-bins, T = 1: 1.0015e-3 after the tail split)
    assert s.lower < star <= s.upper and s.upper / star - 1 <= 1e-3 and 1 - s.lower / star <= 1e-3, (s, star)
    assert sum(r.stage == "certified" for r in record) <= 5


def test_sampler_sigma_is_recertified_by_sampler_composition():
    """Balls-and-bins, T = 10, E = 3: ``sampler_composition(σ⁺).epsilon(δ).upper ≤ ε`` and the lower side at σ⁻
    exceeds ε, recomputed at the tolerance asked and at a finer one; σ⁺ within rtol of the least certified σ."""
    words = dict(sampler="balls_and_bins", epochs=3, steps_per_epoch=10)
    record: list = []
    s = bounds.sampler_noise_multiplier(2.0, 1e-5, tolerance=1e-2, progress=_steps(record), **words)
    for tol in (1e-2, 1e-3):
        up, _ = sampler_composition(noise_multiplier=s.upper, tolerance=tol, **words)
        down, _ = sampler_composition(noise_multiplier=s.lower, tolerance=tol, **words)
        assert up.epsilon(1e-5).upper <= 2.0 < down.epsilon(1e-5).lower
    below, _ = sampler_composition(noise_multiplier=s.upper * (1 - 1e-3), tolerance=1e-2, **words)
    assert below.epsilon(1e-5).upper > 2.0
    assert sum(r.stage == "certified" for r in record) <= 5
    # announced before, reported after: every evaluation appears twice
    seen: list = []
    bounds.sampler_noise_multiplier(2.0, 1e-5, tolerance=1e-2, progress=seen.append, **words)
    assert [r.noise_multiplier for r in seen if not r.done] == [r.noise_multiplier for r in seen if r.done]
    assert all(r.upper == math.inf and r.cpu_seconds == 0.0 for r in seen if not r.done)


def test_sampler_sigma_is_monotone_in_epsilon_and_epochs():
    words = dict(sampler="cyclic", steps_per_epoch=10)
    a = bounds.sampler_noise_multiplier(1.0, 1e-5, epochs=3, tolerance=1e-2, **words)
    b = bounds.sampler_noise_multiplier(2.0, 1e-5, epochs=3, tolerance=1e-2, **words)
    c = bounds.sampler_noise_multiplier(2.0, 1e-5, epochs=6, tolerance=1e-2, **words)
    assert a.lower > b.upper and c.lower > b.upper


BAD = [
    (dict(epsilon=math.nan), "epsilon"), (dict(epsilon=math.inf), "epsilon"), (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"), (dict(epsilon=True), "epsilon"), (dict(epsilon="2"), "epsilon"),
    (dict(epsilon=10 ** 400), "epsilon"), (dict(epsilon=1 + 0j), "epsilon"), (dict(epsilon=2 ** 53 + 1), "epsilon"),
    (dict(epsilon=np.array([])), "epsilon"), (dict(epsilon=None), "epsilon"),
    (dict(delta=0.0), "delta"), (dict(delta=1.0), "delta"), (dict(delta=math.nan), "delta"),
    (dict(delta="1e-5"), "delta"), (dict(delta=np.array([1e-5, 1e-6])), "delta"),
    (dict(epochs=0), "epochs"), (dict(epochs=2.5), "epochs"), (dict(epochs=True), "epochs"),
    (dict(epochs=10 ** 400), "epochs"), (dict(epochs=math.nan), "epochs"),
    (dict(sampler="shuffling"), "sampler"), (dict(sampler=None), "sampler"),
    (dict(sampler="shuffle"), "LOWER side"), (dict(adjacency="replace_one"), "adjacency"),
    (dict(tolerance=0.0), "tolerance"), (dict(tolerance=math.nan), "tolerance"), (dict(tolerance="1e-2"), "tolerance"),
    (dict(rtol=0.0), "rtol"), (dict(rtol=0.5), "rtol"), (dict(rtol=math.inf), "rtol"), (dict(rtol=False), "rtol"),
    (dict(steps_per_epoch=0), "steps_per_epoch"), (dict(steps_per_epoch=2 ** 53 + 1), "steps_per_epoch"),
]


@pytest.mark.parametrize("change,name", BAD, ids=[f"{n}={c}"[:40] for c, n in BAD])
def test_sampler_noise_multiplier_bad_input(change, name):
    args = dict(epsilon=2.0, delta=1e-5, sampler="balls_and_bins", epochs=3, steps_per_epoch=10, tolerance=1e-2)
    args.update(change)
    with pytest.raises(ValueError) as info:
        bounds.sampler_noise_multiplier(args.pop("epsilon"), args.pop("delta"), **args)
    assert "sampler_noise_multiplier" in str(info.value) and name in str(info.value), str(info.value)


def test_progress_must_be_callable():
    with pytest.raises(TypeError, match="progress"):
        bounds.sampler_noise_multiplier(2.0, 1e-5, sampler="cyclic", epochs=3, steps_per_epoch=10, progress=3)
    with pytest.raises(TypeError, match="progress"):
        bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, 100, progress="yes")


def test_numpy_scalars_give_the_same_answer():
    words = dict(sampler="cyclic", steps_per_epoch=10, tolerance=1e-2)
    ref = bounds.sampler_noise_multiplier(2.0, 1e-5, epochs=3, **words)
    assert bounds.sampler_noise_multiplier(np.float64(2.0), np.float64(1e-5), epochs=np.int64(3),
                                           **words) == ref


def test_old_import_path_still_works():
    from bounds.composition import dpsgd_max_steps, dpsgd_noise_multiplier

    assert dpsgd_noise_multiplier is bounds.dpsgd_noise_multiplier and dpsgd_max_steps is bounds.dpsgd_max_steps
    with pytest.raises(AttributeError):
        bounds.composition.no_such_name  # noqa: B018


def test_search_decides_on_the_certified_values_not_their_logarithms():
    """ln rounds: ln(nextafter(1e-5)) == ln(1e-5).  A synthetic certified sandwich that sits one ulp above the
    target on a whole interval of σ must not be taken as meeting it there (the search steers with logarithms,
    but decides with the values)."""
    target, s0 = 1e-5, 1.0
    above = float(np.nextafter(target, 1.0))
    assert math.log(above) == math.log(target)

    def certified(sigma):
        if s0 <= sigma <= s0 * 1.01:
            return 0.9 * above, above  # one ulp above the target: NOT certified
        f = target * (s0 / sigma) ** 30
        return 0.9 * f, f

    s = calibration._Search("test", certified, target, rtol=1e-3, estimate=None, start=0.9, progress=None,
                            loose="(test)")
    lo, hi = s.run()
    assert certified(hi)[1] <= target and certified(lo)[0] > target
    assert not s0 <= hi <= s0 * 1.01


@pytest.mark.parametrize("words", [
    dict(sampler="random_allocation", epochs=2, steps_per_epoch=10, selected=2),  # loose lower side
    dict(sampler="fixed_size", epochs=2, batch_size=10, dataset_size=100),  # replace-one, loose upper side
])
def test_sampler_sigma_is_sound_where_a_side_is_loose(words):
    s = bounds.sampler_noise_multiplier(2.0, 1e-5, tolerance=1e-2, **words)
    up, _ = sampler_composition(noise_multiplier=s.upper, tolerance=1e-2, **words)
    assert up.epsilon(1e-5).upper <= 2.0
    if s.lower > 0:
        down, _ = sampler_composition(noise_multiplier=s.lower, tolerance=1e-2, **words)
        assert down.epsilon(1e-5).lower > 2.0
