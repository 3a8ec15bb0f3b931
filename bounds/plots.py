"""Figures (the ``plot`` extra: matplotlib is imported only when a figure is drawn).

``plot_outlier_score(out_path)`` — the paper's Figure 2 (Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26):
ε^S of outlier-score suppression (SPEC T14) over the triangle 0 < m ≤ M < 1, for ε ∈ {0.25, 0.5, 1, 2},
with the contour ε^S = ε (inside it, suppression amplifies privacy; outside it costs privacy).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


def plot_outlier_score(out_path: str | Path, epsilons=(0.25, 0.5, 1.0, 2.0), resolution: int = 300) -> Path:
    """Draw Figure 2 (ε^S over (m, M) for each ε, with the contour ε^S = ε) and save it to ``out_path``.

    Returns the path written.  Requires matplotlib (``pip install ampbounds[plot]``).
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
        raise ModuleNotFoundError("plotting needs matplotlib: pip install 'ampbounds[plot]'") from exc
    from .suppression import outlier_score_suppression

    grid = np.linspace(0.0, 1.0, resolution + 2)[1:-1]
    m, M = np.meshgrid(grid, grid)  # m along x, M along y
    inside = m <= M
    fig, axes = plt.subplots(1, len(epsilons), figsize=(4.2 * len(epsilons), 4.0), constrained_layout=True)
    for ax, eps in zip(np.atleast_1d(axes), epsilons):
        values = np.full(m.shape, np.nan)
        values[inside] = outlier_score_suppression(eps, 0.0, m[inside], M[inside]).epsilon
        image = ax.pcolormesh(m, M, values, shading="auto", cmap="viridis",
                              norm=LogNorm(vmin=max(np.nanmin(values), 1e-2), vmax=np.nanmax(values)))
        ax.contour(m, M, np.where(inside, values, np.nan), levels=[eps], colors="red", linewidths=1.5)
        ax.plot([0, 1], [0, 1], color="white", linewidth=0.8, linestyle="--")
        ax.set_title(rf"$\varepsilon = {eps:g}$ (red: $\varepsilon^{{S}} = \varepsilon$)")
        ax.set_xlabel("m")
        ax.set_ylabel("M")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        fig.colorbar(image, ax=ax, shrink=0.8, label=r"$\varepsilon^{S}$")
    fig.suptitle("Outlier-score suppression (SPEC T14; Miranda-Pascual et al., Fig. 2)")
    out = Path(out_path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
