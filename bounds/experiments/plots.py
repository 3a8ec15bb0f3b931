"""The paper-style figures of the seed-000 experiments (matplotlib, the ``plot`` extra; imported lazily).

- :func:`sampling_figure`: utility of M and of the calibrated M∘S against the sampling rate p = 1 − m (m = M),
  one colour per ε, 95 % confidence bands (±1.96 standard errors), log y axis (the paper's Figure 1).
- :func:`difference_figure`: u(M) − u(M∘S at (ε'', δ'')) over the (m, M) triangle, one panel per ε, values
  printed at the grid points, red < 0 (suppression hurts) < green, with the curve ε^S(ε, m, M) = ε (the
  paper's Figure 3).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["sampling_figure", "difference_figure", "write_plots"]

_LABEL = {"mean": "mean percent error (%)", "mode": "P(incorrect mode)", "dplloyd": "NICV",
          "kmedian": "average cost"}


def _pyplot():
    from ..plots import _pyplot as p

    return p()


def _sel(records, **kw):
    return [r for r in records if all(r.get(k) == v for k, v in kw.items())]


def sampling_figure(records: Sequence[dict[str, Any]], mechanism: str):
    """Utility against the sampling rate for one mechanism (records of a run with m = M cells)."""
    plt = _pyplot()
    recs = [r for r in records if r["mechanism"] == mechanism and r["m"] == r["M"] and r["utility"] is not None]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = ["#E69F00", "#56B4E9", "#009E73", "#D55E00", "#0072B2", "#CC79A7"]
    eps_list = sorted({r["epsilon"] for r in recs})
    positive = []
    for c, eps in zip(colours * 4, eps_list):
        for variant, style, name in (("M", "-", "M"), ("MoS_calibrated", "--", "M∘S at (ε'', δ'')")):
            rs = sorted(_sel(recs, epsilon=eps, variant=variant), key=lambda r: r["rate"])
            if not rs:
                continue
            p = np.array([r["rate"] for r in rs])
            u = np.array([r["utility"] for r in rs])
            se = np.array([r["stderr"] or 0.0 for r in rs])
            ax.plot(p, u, style, color=c, label=f"ε = {eps:g}: {name}")
            ax.fill_between(p, np.maximum(u - 1.96 * se, 0), u + 1.96 * se, color=c, alpha=0.18, linewidth=0)
            positive.extend(u[u > 0])
    if positive and len(positive) == sum(len(line.get_ydata()) for line in ax.get_lines()):
        ax.set_yscale("log")  # as in the paper
    elif positive:
        # zeros (a mode never missed) stay visible on a linear stretch below the smallest positive value
        ax.set_yscale("symlog", linthresh=float(min(positive)))
    experiment = recs[0]["experiment"] if recs else ""
    where = f"{recs[0]['dataset']}/{recs[0]['column']}" if recs and recs[0].get("column") else ""
    ax.set_xlabel("sampling rate p (keep probability; m = M = 1 − p)")
    ax.set_ylabel(_LABEL.get(experiment, "utility (lower is better)"))
    ax.set_title(f"{experiment} {where} — {mechanism}: M vs calibrated M∘S (95 % bands)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return fig


def difference_figure(records: Sequence[dict[str, Any]], mechanism: str, against: str = "MoS_calibrated"):
    """u(M) − u(``against``) over the (m, M) triangle, one panel per ε, with the curve ε^S(ε, m, M) = ε."""
    plt = _pyplot()
    import matplotlib.colors as mcolors

    from ..suppression import outlier_score_suppression

    recs = [r for r in records if r["mechanism"] == mechanism and r["m"] > 0]
    eps_list = sorted({r["epsilon"] for r in recs})
    cols = min(2, max(1, len(eps_list)))
    rows = math.ceil(len(eps_list) / cols) if eps_list else 1
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.4 * rows), squeeze=False)
    scale = 1.0 if recs and recs[0]["experiment"] != "mode" else 100.0  # mode: percentage points
    grid = np.linspace(0.0, 1.0, 202)[1:-1]
    gm, gM = np.meshgrid(grid, grid)
    inside = gm <= gM
    for ax, eps in zip(axes.ravel(), eps_list):
        pts = []
        for rm in _sel(recs, epsilon=eps, variant="M"):
            other = _sel(recs, epsilon=eps, variant=against, m=rm["m"], M=rm["M"])
            if other and other[0]["utility"] is not None and rm["utility"] is not None:
                pts.append((rm["m"], rm["M"], scale * (rm["utility"] - other[0]["utility"])))
        if len(pts) >= 3:
            x, y, z = (np.array(v) for v in zip(*pts))
            norm = mcolors.TwoSlopeNorm(vmin=min(-1e-10, z.min()), vcenter=0.0, vmax=max(1e-10, z.max()))
            try:
                cs = ax.tricontourf(x, y, z, levels=30, cmap="RdYlGn", norm=norm)
                fig.colorbar(cs, ax=ax, label="p.p." if scale == 100.0 else None)
            except (ValueError, RuntimeError):  # collinear points: no triangulation, the numbers still show
                pass
            for a, b, c in pts:
                ax.text(a, b, f"{c:.3g}", fontsize=6, ha="center", va="center")
        field = np.full(gm.shape, np.nan)
        field[inside] = outlier_score_suppression(eps, 0.0, gm[inside], gM[inside]).epsilon
        ax.contour(gm, gM, field, levels=[eps], colors="dodgerblue")
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.6)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("m")
        ax.set_ylabel("M")
        ax.set_title(f"ε = {eps:g}: u(M) − u({'M∘S at (ε″, δ″)' if against == 'MoS_calibrated' else against})",
                     fontsize=9)
    for ax in axes.ravel()[len(eps_list):]:
        ax.set_visible(False)
    if recs:
        fig.suptitle(f"{recs[0]['experiment']} {recs[0].get('dataset', '')}/{recs[0].get('column', '')} — "
                     f"{mechanism}; blue: ε^S(ε, m, M) = ε; green: suppression helps", fontsize=9)
    fig.tight_layout()
    return fig


def write_plots(records: Sequence[dict[str, Any]], directory: str | Path, prefix: str) -> list[Path]:
    """Save every figure the records support (PNG) under ``directory``; returns the paths."""
    plt = _pyplot()
    directory = Path(directory)
    written = []
    for mech in sorted({r["mechanism"] for r in records}):
        mine = [r for r in records if r["mechanism"] == mech]
        if len({r["rate"] for r in mine if r["rate"] is not None}) >= 2:
            fig = sampling_figure(mine, mech)
            path = directory / f"{prefix}_{mech}_sampling.png"
            fig.savefig(path, dpi=90)
            plt.close(fig)
            written.append(path)
        if len({(r["m"], r["M"]) for r in mine if r["m"] > 0}) >= 3:
            fig = difference_figure(mine, mech)
            path = directory / f"{prefix}_{mech}_difference.png"
            fig.savefig(path, dpi=90)
            plt.close(fig)
            written.append(path)
    return written
