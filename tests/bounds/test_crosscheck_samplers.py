"""``crosscheck(sampler=...)`` (issue 21): the claim is decided for the batch sampler's composition, and the
verdict names the sampler, the adjacency and the step convention."""
from __future__ import annotations

import math

import mpmath as mp
import pytest

import bounds
from bounds.samplers import sampler_composition

README = dict(noise_multiplier=1.0, steps_per_epoch=100, epochs=50, delta=1e-5)


def test_readme_shuffle_claim_from_poisson_is_invalid():
    # Poisson accounting of the same run reports ε ≈ 4.20; shuffled batches under zero-out are provably ≥ 20
    v = bounds.crosscheck(sampler="shuffle", adjacency="zero_out", epsilon=4.20, **README)
    assert v.verdict == "invalid"
    assert v.epsilon.lower >= 20.0
    d = v.as_dict()
    assert d["sampler"]["sampler"] == "shuffle" and d["sampler"]["adjacency"] == "zero_out"
    assert "100 steps per epoch × 50 epochs = 5000 steps" in d["sampler"]["convention"]
    assert "lower side only" in d["sampler"]["certified"]
    text = str(v)
    assert "shuffle" in text and "zero-out adjacency" in text and "5000 steps" in text and "Poisson" in text


def test_shuffle_between_lower_and_cyclic_upper_is_undecided():
    v = bounds.crosscheck(sampler="shuffle", epsilon=30.0, **README)
    assert v.verdict == "undecided"
    assert v.epsilon.lower < 30.0 < v.epsilon.upper
    assert "no tighter upper bound is known" in v.explanation and "smaller tolerance" not in v.explanation


def test_cyclic_upper_side_is_the_gaussian_at_sigma_over_sqrt_epochs():
    # independent route: the exact Gaussian profile δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), μ = √E/σ,
    # evaluated in mpmath; a claim at ε with δ(ε) a little below the claimed δ is valid, a little above invalid
    mp.mp.dps = 50
    mu = mp.sqrt(50)

    def delta(eps):
        return mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)

    eps_star = mp.findroot(lambda e: delta(e) - mp.mpf("1e-5"), 54)
    hi = bounds.crosscheck(sampler="cyclic", epsilon=float(eps_star) + 1e-3, **README)
    lo = bounds.crosscheck(sampler="cyclic", epsilon=float(eps_star) - 1e-3, **README)
    assert (hi.verdict, lo.verdict) == ("valid", "invalid")
    assert hi.sampler["adjacency"] == "zero_out" and hi.sampler["certified"] == "sandwich"
    # the shuffled pipeline's verdict for a claim above the cyclic ε is valid
    assert bounds.crosscheck(sampler="shuffle", epsilon=float(eps_star) + 1e-2, **README).verdict == "valid"


def test_balls_and_bins_readme_numbers():
    comp, _ = sampler_composition(sampler="balls_and_bins", noise_multiplier=1.0, epochs=50, steps_per_epoch=100)
    e = comp.epsilon(1e-5)
    assert 4.0 <= e.lower <= e.upper <= 4.2
    assert bounds.crosscheck(sampler="balls_and_bins", epsilon=4.20, **README).verdict == "valid"
    assert bounds.crosscheck(sampler="balls_and_bins", epsilon=4.0, **README).verdict == "invalid"


def test_t_equals_one_balls_and_bins_is_the_plain_gaussian():
    # T = 1: every record is in the single batch — E epochs are the Gaussian at σ/√E (mpmath reference)
    mp.mp.dps = 50
    mu = mp.sqrt(4) / 2

    def delta(eps):
        return mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)

    eps = 1.0
    d = float(delta(eps))
    v_hi = bounds.crosscheck(sampler="balls_and_bins", noise_multiplier=2.0, steps_per_epoch=1, epochs=4,
                             epsilon=eps, delta=d * 1.01)
    v_lo = bounds.crosscheck(sampler="balls_and_bins", noise_multiplier=2.0, steps_per_epoch=1, epochs=4,
                             epsilon=eps, delta=d * 0.99)
    assert (v_hi.verdict, v_lo.verdict) == ("valid", "invalid")


def test_batch_words_state_the_convention():
    v = bounds.crosscheck(sampler="poisson", noise_multiplier=1.0, batch_size=10, dataset_size=95, epochs=2,
                          epsilon=10.0, delta=1e-5)
    assert v.verdict == "valid"
    assert "⌈95/10⌉" in v.sampler["convention"] and "20 steps" in v.sampler["convention"]
    assert "rate q = 0.105263" in v.mechanism and "add-remove adjacency" in v.explanation


def test_old_forms_unchanged():
    v = bounds.crosscheck(noise_multiplier=1.0, rate=0.1, epsilon=2.1330, delta=1e-5)
    assert v.verdict == "valid" and v.sampler is None and "sampler" not in v.as_dict()


@pytest.mark.parametrize("kwargs,match", [
    (dict(sampler="shuffle", steps_per_epoch=10, epochs=2), "noise_multiplier"),
    (dict(sampler="shuffle", noise_multiplier=1.0, steps_per_epoch=10), "epochs"),
    (dict(sampler="shuffle", noise_multiplier=1.0, epochs=2), "steps_per_epoch"),
    (dict(sampler="shuffle", noise_multiplier=1.0, epochs=2, batch_size=10), "dataset_size"),
    (dict(sampler="shuffling", noise_multiplier=1.0, epochs=2, steps_per_epoch=10), "sampler"),
    (dict(sampler="poisson", noise_multiplier=1.0, epochs=2, steps_per_epoch=10, adjacency="zero_out"),
     "adjacency"),
    (dict(sampler="shuffle", noise_multiplier=1.0, epochs=2, steps_per_epoch=10, steps=5), "steps"),
    (dict(sampler="shuffle", noise_multiplier=1.0, epochs=2, steps_per_epoch=10, mechanism="laplace"), "Gaussian"),
    (dict(noise_multiplier=1.0, epochs=2, steps_per_epoch=10), "sampler="),
    (dict(noise_multiplier=1.0, rate=0.1, adjacency="zero_out"), "sampler="),
    (dict(sampler="cyclic", noise_multiplier=math.nan, epochs=2, steps_per_epoch=10), "noise_multiplier"),
    (dict(sampler="cyclic", noise_multiplier=1.0, epochs=True, steps_per_epoch=10), "epochs"),
    (dict(sampler="cyclic", noise_multiplier=1.0, epochs=2, steps_per_epoch=10 ** 400), "steps_per_epoch"),
])
def test_bad_combinations(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        bounds.crosscheck(epsilon=1.0, delta=1e-5, **kwargs)


def test_sampler_with_mechanism_object_is_refused():
    with pytest.raises(ValueError, match="not both"):
        bounds.crosscheck(bounds.EpsDelta(1.0, 1e-6), sampler="shuffle", noise_multiplier=1.0, epochs=2,
                          steps_per_epoch=10, epsilon=1.0, delta=1e-5)


# from_dp_event: repeated fixed-size batches (SampledWithoutReplacementDpEvent) → fixed_size_sampled rounds


def test_dp_event_fixed_size_repeated_is_fixed_size_rounds():
    dpa = pytest.importorskip("dp_accounting")
    from bounds.crosschecking import WithoutReplacement, enclosure
    from bounds.samplers import fixed_size_sampled

    one = dpa.SampledWithoutReplacementDpEvent(1000, 10, dpa.GaussianDpEvent(1.0))
    # one step: the one-shot T2 enclosure; its upper ε equals the fixed-size round's at noise multiplier 2s
    # (dp_accounting's s is relative to the replace-one sensitivity 2C): the two routes agree
    t2 = enclosure(bounds.from_dp_event(one)).epsilon(1e-5)
    fs = bounds.compose([(fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(2.0), 10, 1000), 1)],
                        tolerance=1e-4).epsilon(1e-5)
    assert fs.lower - 1e-6 <= t2.upper <= fs.upper + 1e-6
    # repeated: a composition of the same rounds
    rep = bounds.from_dp_event(dpa.SelfComposedDpEvent(one, 100))
    ref = bounds.compose([(fixed_size_sampled(bounds.Gaussian.from_noise_multiplier(2.0), 10, 1000), 100)])
    got, want = rep.epsilon(1e-5), ref.epsilon(1e-5)
    assert (got.lower, got.upper) == (want.lower, want.upper)
    # dp_accounting's RDP (an upper bound, REPLACE_ONE) lies above the certified lower side
    acc = dpa.rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
    acc.compose(dpa.SelfComposedDpEvent(one, 100))
    assert acc.get_epsilon(1e-5) >= got.lower
    # a claim below the certified lower side is invalid
    assert bounds.crosscheck(rep, epsilon=got.lower * 0.99, delta=1e-5).verdict == "invalid"
    assert isinstance(bounds.from_dp_event(one), WithoutReplacement)


def test_dp_event_fixed_size_composed_with_plain_gaussian():
    dpa = pytest.importorskip("dp_accounting")
    ev = dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(
        dpa.SampledWithoutReplacementDpEvent(100, 100, dpa.GaussianDpEvent(1.0)), 3), dpa.GaussianDpEvent(1.0)])
    # γ = 1: each fixed-size step is the Gaussian of noise multiplier s = 1 (distance 1/s): 4 Gaussians compose
    # to μ = 2; exact δ(ε) in mpmath
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    mu = mp.mpf(2)
    d = float(mp.ncdf(-1 / mu + mu / 2) - mp.e * mp.ncdf(-1 / mu - mu / 2))
    s = bounds.from_dp_event(ev).delta(1.0)
    assert s.lower <= d <= s.upper


@pytest.mark.parametrize("builder,match", [
    (lambda dpa: dpa.SelfComposedDpEvent(dpa.SampledWithReplacementDpEvent(1000, 10, dpa.GaussianDpEvent(1.0)),
                                         3), "SampledWithReplacementDpEvent"),
    (lambda dpa: dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(1000, 10, dpa.LaplaceDpEvent(1.0)),
                                         3), "Laplace"),
    (lambda dpa: dpa.ComposedDpEvent([dpa.SampledWithoutReplacementDpEvent(1000, 10, dpa.GaussianDpEvent(1.0)),
                                      dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0))]), "mixes"),
    (lambda dpa: dpa.SelfComposedDpEvent(dpa.SingleEpochTreeAggregationDpEvent(1.0, 10), 2),
     "SingleEpochTreeAggregationDpEvent"),
])
def test_dp_event_uncertifiable_refused_by_name(builder, match):
    dpa = pytest.importorskip("dp_accounting")
    with pytest.raises(ValueError, match=match):
        bounds.from_dp_event(builder(dpa))
