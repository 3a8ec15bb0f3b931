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


def plot_kanon(out_path: str | Path, epsilon: float = 1.0, betas_delta=(0.05, 0.1, 0.2, 0.3, 0.5),
               betas_epsilon=(0.05, 0.1, 0.2), target: float = 1e-6, k_max: int = 100) -> Path:
    """Safe k-anonymization after Poisson sampling (SPEC T15; Li, Qardaji, Su, the view of their Figure 6).

    Left: δ = d(k, β, ε) against k for several β at fixed ε (log scale).  Right: the smallest ε with
    d ≤ ``target`` against k for β ∈ {0.05, 0.1, 0.2}.  Both use the certified kernels (values rounded up,
    ε rounded to the safe side).  Returns the path written.  Requires matplotlib.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
        raise ModuleNotFoundError("plotting needs matplotlib: pip install 'ampbounds[plot]'") from exc
    from .kanon import safe_k_anonymization_delta, safe_k_anonymization_min_epsilon

    k = np.arange(1, k_max + 1, dtype=float)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    for beta in betas_delta:
        if epsilon >= -np.log1p(-beta):
            left.semilogy(k, safe_k_anonymization_delta(k, beta, epsilon), label=rf"$\beta = {beta:g}$")
    left.set_xlabel("k")
    left.set_ylabel(r"$\delta = d(k, \beta, \varepsilon)$")
    left.set_title(rf"δ of strongly-safe k-anonymization at $\varepsilon = {epsilon:g}$")
    left.grid(True, which="both", alpha=0.3)
    left.legend()
    for beta in betas_epsilon:
        ks = k[k >= 1]
        valid = beta ** ks <= target  # below this k no ε reaches the target (d → β^k as ε → ∞)
        right.plot(ks[valid], safe_k_anonymization_min_epsilon(k=ks[valid], beta=beta, delta=target), drawstyle="steps-post",
                   label=rf"$\beta = {beta:g}$")
    right.set_xlabel("k")
    right.set_ylabel(rf"smallest $\varepsilon$ with $\delta \leq {target:g}$")
    right.set_title(r"$\varepsilon$ needed for $\delta \leq$ " + f"{target:g}")
    right.grid(True, alpha=0.3)
    right.legend()
    fig.suptitle("Safe k-anonymization after Poisson sampling (SPEC T15)")
    out = Path(out_path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
