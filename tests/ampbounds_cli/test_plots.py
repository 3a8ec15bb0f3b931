"""Figures: each is drawn to a real PNG from the certified kernels (matplotlib is in the test extra)."""
import pytest

from ampbounds_cli import main

pytest.importorskip("matplotlib")


@pytest.mark.parametrize("figure", ["outlier-score", "kanon"])
def test_plot_writes_a_png(tmp_path, figure, capsys):
    out = tmp_path / f"{figure}.png"
    assert main(["plot", figure, "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a real, non-empty image
    assert str(out) in capsys.readouterr().out


def test_tex_number_never_prints_e_notation():
    from bounds.plots import tex_number

    assert tex_number(1e-6) == "10^{-6}" and tex_number(2.5e-7) == r"2.5 \times 10^{-7}" and tex_number(0.5) == "0.5"


def test_kanon_axes_are_readable():
    import math

    import matplotlib.pyplot as plt

    from bounds.plots import kanon_figure

    fig = kanon_figure(k_max=30)
    left, right = fig.axes[:2]
    ticks = [t for t in left.get_yticks() if left.get_ylim()[0] <= t <= left.get_ylim()[1]]
    assert left.get_ylim()[1] == 1.0 and max(ticks) == 1.0  # δ ≤ 1: no tick at 10²
    gaps = [math.log10(a / b) for a, b in zip(ticks[1:], ticks)]
    assert max(abs(g) for g in gaps) <= 5  # no ticks 12 decades apart
    assert "10^{-6}" in right.get_ylabel() and "e-0" not in right.get_ylabel()
    plt.close(fig)


def test_figure_2_is_a_grid_with_one_colour_scale():
    import matplotlib.pyplot as plt

    from bounds.plots import outlier_score_figure

    fig = outlier_score_figure(resolution=24)
    width, height = fig.get_size_inches()
    assert 0.7 < width / height < 1.5  # a 2×2 grid, not a 1848×440 strip
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 4 and len(fig.axes) == 5  # four panels, one shared colour bar
    norms = {(im.norm.vmin, im.norm.vmax) for ax in panels for im in ax.collections[:1]}
    assert len(norms) == 1
    plt.close(fig)
