"""The samplers figure (issue 21): certified bands side by side, ordered as the theory says."""
import numpy as np
import pytest

pytest.importorskip("matplotlib")

from bounds import plots  # noqa: E402


def test_curves_and_figure(tmp_path):
    curves = plots.samplers_curves(noise_multiplier=1.0, steps_per_epoch=10, epochs=(1, 3), delta=1e-4)
    for word, (e, lo, up) in curves.items():
        assert (lo <= up).all() and (np.diff(up) > 0).all(), word
    # cyclic is the shuffle's upper side; the shuffle's lower side lies below it; Poisson/balls-and-bins below cyclic
    assert (curves["shuffle"][1] <= curves["cyclic"][2]).all()
    assert (curves["balls_and_bins"][2] < curves["cyclic"][1]).all()
    out = plots.plot_samplers(tmp_path / "s.png", steps_per_epoch=10, epochs=(1, 3), delta=1e-4)
    assert out.exists() and out.stat().st_size > 1000
