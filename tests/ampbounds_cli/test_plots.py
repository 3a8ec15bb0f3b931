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
