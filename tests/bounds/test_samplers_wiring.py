"""sampler_composition (issue 21): DP-SGD words → the sampler's composition and a description naming the
sampler, the adjacency and the step convention; the Poisson claim refuted for a shuffled pipeline."""
import math

import pytest

import bounds
from bounds.samplers import SAMPLERS, balls_and_bins, sampler_composition


def test_words_match_the_rounds():
    comp, text = sampler_composition(sampler="balls_and_bins", noise_multiplier=1.0, epochs=2, batch_size=10,
                                     dataset_size=95, tolerance=1e-2)
    direct = bounds.compose([(balls_and_bins(bounds.Gaussian.from_noise_multiplier(1.0), 10), 2)], tolerance=1e-2)
    assert comp.delta(1.0) == direct.delta(1.0)
    assert "balls-and-bins" in text and "add-remove adjacency" in text and "⌈95/10⌉" in text


def test_shuffle_description_warns_about_poisson_claims():
    comp, text = sampler_composition(sampler="shuffle", noise_multiplier=1.0, epochs=50, steps_per_epoch=100)
    assert "zero-out adjacency" in text and "Poisson" in text and "cyclic" in text
    poisson, ptext = sampler_composition(sampler="poisson", noise_multiplier=1.0, epochs=50, steps_per_epoch=100,
                                         tolerance=1e-2)
    assert "rate q = 0.01" in ptext
    claim = poisson.epsilon(1e-5).upper          # ≈ 4.20: what Poisson accounting reports
    assert comp.epsilon(1e-5).lower > 4 * claim  # provably ≥ 20 for the shuffled pipeline


@pytest.mark.parametrize("kwargs,match", [
    (dict(sampler="reshuffle"), "sampler"),
    (dict(sampler="poisson", adjacency="zero_out"), "adjacency"),
    (dict(sampler="balls_and_bins", adjacency="replace_one"), "adjacency"),
    (dict(sampler="shuffle", adjacency="add_remove"), "adjacency"),
    (dict(sampler="cyclic", epochs=0), "epochs"),
    (dict(sampler="cyclic", steps_per_epoch=None), "steps_per_epoch"),
    (dict(sampler="cyclic", steps_per_epoch=None, batch_size=200, dataset_size=100), "batch_size"),
    (dict(sampler="cyclic", steps_per_epoch=math.nan), "steps_per_epoch"),
    (dict(sampler="random_allocation", selected=20), "selected"),
])
def test_bad_input(kwargs, match):
    args = dict(noise_multiplier=1.0, epochs=2, steps_per_epoch=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sampler_composition(**args)


def test_every_sampler_named():
    assert set(SAMPLERS) == {"poisson", "balls_and_bins", "shuffle", "random_allocation", "fixed_size", "cyclic"}


def test_fixed_size_routed_with_batch_words():
    pytest.importorskip("bounds.samplers.fixed_size")
    comp, text = sampler_composition(sampler="fixed_size", noise_multiplier=1.0, epochs=2, batch_size=100,
                                     dataset_size=1000, tolerance=1e-2)
    assert "replace-one adjacency" in text and "b = 100 of n = 1000" in text and comp.total_steps == 20
    with pytest.raises(ValueError, match="batch_size"):
        sampler_composition(sampler="fixed_size", noise_multiplier=1.0, epochs=2, steps_per_epoch=10)


def test_steps_convention_and_rate():
    # T = ⌈n/b⌉ = 10 for n = 95, b = 10; Poisson's q is rate=, else b/n (also with steps_per_epoch), else 1/T
    from bounds.samplers.wiring import sampler_steps

    g = bounds.Gaussian.from_noise_multiplier(1.0)
    [(step, count)] = sampler_steps(sampler="poisson", mechanism=g, epochs=3, batch_size=10, dataset_size=95)[0]
    assert step == bounds.poisson_sampled(g, 10 / 95) and count == 30
    [(step, count)] = sampler_steps(sampler="poisson", mechanism=g, epochs=3, steps_per_epoch=7, rate=0.125)[0]
    assert step == bounds.poisson_sampled(g, 0.125) and count == 21
    [(step, count)] = sampler_steps(sampler="poisson", mechanism=g, epochs=3, steps_per_epoch=8)[0]
    assert step == bounds.poisson_sampled(g, 0.125) and count == 24
    [(step, count)] = sampler_steps(sampler="fixed_size", mechanism=g, epochs=2, batch_size=10, dataset_size=95)[0]
    assert count == 20 and (step.batch_size, step.dataset_size) == (10, 95)
    with pytest.raises(ValueError, match="dataset_size"):
        sampler_steps(sampler="cyclic", mechanism=g, epochs=1, batch_size=10)
    with pytest.raises(ValueError, match="rate"):
        sampler_steps(sampler="poisson", mechanism=g, epochs=1, steps_per_epoch=10, rate=1.5)
    with pytest.raises(TypeError, match="mechanism"):
        sampler_steps(sampler="shuffle", mechanism="gaussian", epochs=1, steps_per_epoch=10)
