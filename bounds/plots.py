"""Figures (the ``plot`` extra: matplotlib is imported only when a figure is drawn).

``plot_outlier_score(out_path)`` — the paper's Figure 2 (Miranda-Pascual, Parra-Arnau, Strufe, USENIX Sec '26):
ε^S of outlier-score suppression (SPEC T14) over the triangle 0 < m ≤ M < 1, for ε ∈ {0.25, 0.5, 1, 2},
with the contour ε^S = ε (inside it, suppression amplifies privacy; outside it costs privacy).

``plot_kanon(out_path)`` — safe k-anonymization after Poisson sampling (SPEC T15).

Both are drawn for a paper: a 2×2 grid (Figure 2) or two panels of one column's width each, one shared colour
scale, 150 dpi PNG or vector PDF/SVG (format from the file suffix).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError:  # pragma: no cover - depends on the environment
        raise ModuleNotFoundError("plotting needs matplotlib: pip install 'ampbounds[plot]'") from None
    return plt


def _save(fig, out_path: str | Path) -> Path:
    """Write ``fig`` to ``out_path`` (format from the suffix, 150 dpi) and close it."""
    out = Path(out_path)
    fig.savefig(out, dpi=150)
    _pyplot().close(fig)
    return out


def tex_number(x: float) -> str:
    """A number for mathtext: ``10^{-6}`` for powers of ten, ``2.5 \\times 10^{-7}`` otherwise (never the
    ``1e-06`` that mathtext renders as "1e − 06")."""
    if x == 0 or 1e-3 <= abs(x) < 1e4:
        return f"{x:g}"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = x / 10 ** exponent
    if abs(mantissa - round(mantissa)) < 1e-12 and round(mantissa) == 1:
        return f"10^{{{exponent}}}"
    return f"{mantissa:g} \\times 10^{{{exponent}}}"


def outlier_score_figure(epsilons=(0.25, 0.5, 1.0, 2.0), resolution: int = 300):
    """The matplotlib figure of :func:`plot_outlier_score` (for tests and custom saving)."""
    plt = _pyplot()
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D

    from .suppression import outlier_score_suppression

    grid = np.linspace(0.0, 1.0, resolution + 2)[1:-1]
    m, M = np.meshgrid(grid, grid)  # m along x, M along y
    inside = m <= M
    fields = []
    for eps in epsilons:
        values = np.full(m.shape, np.nan)
        values[inside] = outlier_score_suppression(eps, 0.0, m[inside], M[inside]).epsilon
        fields.append(values)
    finite = np.concatenate([f[np.isfinite(f)] for f in fields])
    norm = LogNorm(vmin=max(float(finite.min()), 1e-2), vmax=float(finite.max()))  # one scale for every panel
    columns = 2 if len(epsilons) > 1 else 1
    rows = math.ceil(len(epsilons) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns + 1.2, 3.3 * rows + 0.6),
                             constrained_layout=True, squeeze=False)
    for ax, eps, values in zip(axes.ravel(), epsilons, fields):
        image = ax.pcolormesh(m, M, values, shading="auto", cmap="viridis", norm=norm, rasterized=True)
        ax.fill_between([0, 1], [0, 1], 0, facecolor="none", edgecolor="0.6", hatch="///", linewidth=0)
        ax.plot([0, 1], [0, 1], color="black", linewidth=1.2)
        ax.contour(m, M, np.where(inside, values, np.nan), levels=[eps], colors="red", linewidths=2.0)
        ax.set_title(rf"$\varepsilon = {eps:g}$")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel(r"$m$ (smallest deletion probability)")
        ax.set_ylabel(r"$M$ (largest)")
    for ax in axes.ravel()[len(epsilons):]:
        ax.set_visible(False)
    fig.colorbar(image, ax=axes, shrink=0.85, label=r"$\varepsilon^{S}$ (log scale)")
    fig.legend(handles=[Line2D([], [], color="red", linewidth=2, label=r"$\varepsilon^{S} = \varepsilon$ "
                               r"(between it and $m = M$: $\varepsilon^{S} < \varepsilon$, privacy amplified)"),
                        Line2D([], [], color="black", linewidth=1.2, label=r"$m = M$; hatched: $m > M$ (no such T)")],
               loc="outside lower center", ncol=1, frameon=False)
    fig.suptitle(r"Outlier-score suppression: $\varepsilon^{S}$ over $(m, M)$ (T14; Miranda-Pascual et al., Fig. 2)")
    return fig


def plot_outlier_score(out_path: str | Path, epsilons=(0.25, 0.5, 1.0, 2.0), resolution: int = 300) -> Path:
    """Draw Figure 2 (ε^S over (m, M) for each ε, with the contour ε^S = ε) and save it to ``out_path``.

    Parameters
    ----------
    out_path : str or Path
        Output file; the format follows the suffix (``.png`` at 150 dpi, ``.pdf``, ``.svg``).
    epsilons : sequence of float, optional
        One panel per ε (a 2-column grid).
    resolution : int, optional
        Grid points per axis.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed (``pip install 'ampbounds[plot]'``).
    OSError
        If the file cannot be written.

    Examples
    --------
    >>> import bounds.plots
    >>> bounds.plots.plot_outlier_score("fig2.pdf")        # doctest: +SKIP
    PosixPath('fig2.pdf')
    """
    return _save(outlier_score_figure(epsilons, resolution), out_path)


def kanon_figure(epsilon: float = 1.0, betas_delta=(0.05, 0.1, 0.2, 0.3, 0.5), betas_epsilon=(0.05, 0.1, 0.2),
                 target: float = 1e-6, k_max: int = 100, floor: float = 1e-30):
    """The matplotlib figure of :func:`plot_kanon` (for tests and custom saving)."""
    plt = _pyplot()
    from .kanon import safe_k_anonymization_delta, safe_k_anonymization_min_epsilon

    k = np.arange(1, k_max + 1, dtype=float)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    colours = {beta: f"C{i}" for i, beta in enumerate(sorted(set(betas_delta) | set(betas_epsilon)))}
    for beta in betas_delta:
        if epsilon >= -np.log1p(-beta):
            left.semilogy(k, safe_k_anonymization_delta(k, beta, epsilon), linewidth=1.8, color=colours[beta],
                          label=rf"$\beta = {beta:g}$")
    left.axhline(target, color="0.3", linestyle="--", linewidth=1.0)
    left.annotate(rf"$\delta = {tex_number(target)}$", (k_max, target), xytext=(-4, 4),
                  textcoords="offset points", ha="right", va="bottom", color="0.3")
    left.set_ylim(floor, 1.0)  # δ ≤ 1; below the floor every curve is negligible
    decades = int(round(-math.log10(floor)))
    step = 5 if decades > 15 else (2 if decades > 6 else 1)
    left.set_yticks([10.0 ** -e for e in range(0, decades + 1, step)])
    left.set_yticks([], minor=True)
    left.set_xlabel(r"$k$ (anonymity parameter)")
    left.set_ylabel(r"$\delta = d(k, \beta, \varepsilon)$")
    left.set_title(rf"$\delta$ of strongly-safe $k$-anonymization at $\varepsilon = {epsilon:g}$")
    left.grid(True, alpha=0.3)
    handles, labels = left.get_legend_handles_labels()
    for beta in betas_epsilon:
        valid = beta ** k <= target  # below this k no ε reaches the target (d → β^k as ε → ∞)
        right.plot(k[valid], safe_k_anonymization_min_epsilon(k=k[valid], beta=beta, delta=target),
                   drawstyle="steps-post", linewidth=1.8, color=colours[beta])
    right.set_ylim(bottom=0)
    right.set_xlabel(r"$k$ (anonymity parameter)")
    right.set_ylabel(rf"smallest $\varepsilon$ with $\delta \leq {tex_number(target)}$")
    right.set_title(rf"$\varepsilon$ needed for $\delta \leq {tex_number(target)}$")
    right.grid(True, alpha=0.3)
    # one legend for both panels (the same β has the same colour in each)
    fig.legend(handles, labels, title=r"sampling rate $\beta$", loc="outside right center", frameon=False)
    fig.suptitle(r"Safe $k$-anonymization after Poisson sampling (T15; Li, Qardaji, Su 2012)")
    return fig


def plot_kanon(out_path: str | Path, epsilon: float = 1.0, betas_delta=(0.05, 0.1, 0.2, 0.3, 0.5),
               betas_epsilon=(0.05, 0.1, 0.2), target: float = 1e-6, k_max: int = 100) -> Path:
    """Safe k-anonymization after Poisson sampling (SPEC T15; Li, Qardaji, Su, the view of their Figure 6).

    Left: δ = d(k, β, ε) against k for several β at fixed ε (log scale, with the target δ marked).  Right:
    the smallest ε with d ≤ ``target`` against k.  Both use the certified kernels (values rounded up, ε
    rounded to the safe side).

    Parameters
    ----------
    out_path : str or Path
        Output file; the format follows the suffix (``.png`` at 150 dpi, ``.pdf``, ``.svg``).
    epsilon : float, optional
        ε of the left panel.
    betas_delta, betas_epsilon : sequence of float, optional
        Sampling rates β of the left and right panels.
    target : float, optional
        The δ of the right panel.
    k_max : int, optional
        Largest k shown.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed (``pip install 'ampbounds[plot]'``).
    OSError
        If the file cannot be written.

    Examples
    --------
    >>> import bounds.plots
    >>> bounds.plots.plot_kanon("kanon.png", target=1e-9)   # doctest: +SKIP
    PosixPath('kanon.png')
    >>> bounds.plots.tex_number(1e-9)                       # how the target is written on the axis
    '10^{-9}'
    """
    return _save(kanon_figure(epsilon, betas_delta, betas_epsilon, target, k_max), out_path)


# ----------------------------------------------------------------------------------------------------
# samplers of DP-SGD batches (issue 21): ε against epochs, certified bands side by side
# ----------------------------------------------------------------------------------------------------

SAMPLER_CURVES = (  # (label, sampler word of bounds.samplers.sampler_composition, colour)
    ("Poisson (q = 1/T)", "poisson", "C0"),
    ("balls-and-bins", "balls_and_bins", "C1"),
    ("shuffle, lower side (zero-out)", "shuffle", "C3"),
    ("cyclic (exact; shuffle's upper side)", "cyclic", "C2"),
)


def samplers_curves(noise_multiplier: float = 1.0, steps_per_epoch: int = 100, epochs=(1, 2, 5, 10, 20, 50),
                    delta: float = 1e-5, tolerance: float = 1e-2) -> dict:
    """{sampler word: (epochs, lower ε, upper ε)} — the certified ε(δ) sandwiches the figure draws (for shuffle
    the upper side is the cyclic bound; the figure draws its certified lower side only)."""
    import warnings

    from .samplers import sampler_composition

    out = {}
    for _, word, _ in SAMPLER_CURVES:
        lows, ups = [], []
        for e in epochs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                comp, _ = sampler_composition(sampler=word, noise_multiplier=noise_multiplier, epochs=int(e),
                                              steps_per_epoch=steps_per_epoch, tolerance=tolerance)
                s = comp.epsilon(delta)
            lows.append(s.lower)
            ups.append(s.upper)
        out[word] = (np.asarray(epochs, dtype=float), np.asarray(lows), np.asarray(ups))
    return out


def samplers_figure(noise_multiplier: float = 1.0, steps_per_epoch: int = 100, epochs=(1, 2, 5, 10, 20, 50),
                    delta: float = 1e-5, tolerance: float = 1e-2):
    """The matplotlib figure of :func:`plot_samplers` (for tests and custom saving)."""
    plt = _pyplot()
    curves = samplers_curves(noise_multiplier, steps_per_epoch, epochs, delta, tolerance)
    fig, ax = plt.subplots(figsize=(5.0, 3.6), constrained_layout=True)
    for label, word, colour in SAMPLER_CURVES:
        e, lo, up = curves[word]
        if word == "shuffle":
            ax.plot(e, lo, color=colour, ls="--", marker="v", ms=3, label=label)
            continue
        ax.fill_between(e, lo, up, color=colour, alpha=0.35, lw=0)
        ax.plot(e, up, color=colour, lw=1.2, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epochs $E$")
    ax.set_ylabel(f"certified $\\varepsilon$ at $\\delta = {tex_number(delta)}$")
    ax.set_title(f"$\\sigma = {noise_multiplier:g}$, $T = {steps_per_epoch}$ batches per epoch", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    return fig


def plot_samplers(out_path: str | Path, noise_multiplier: float = 1.0, steps_per_epoch: int = 100,
                  epochs=(1, 2, 5, 10, 20, 50), delta: float = 1e-5, tolerance: float = 1e-2) -> Path:
    """ε against epochs for the DP-SGD samplers side by side (issue 21; record C2): Poisson, balls-and-bins and
    cyclic as certified bands (lower to upper), shuffling's certified lower side as a dashed line (its upper
    side is the cyclic band).

    Parameters
    ----------
    out_path : str or Path
        Output file; the format follows the suffix (``.png`` at 150 dpi, ``.pdf``, ``.svg``).
    noise_multiplier : float, optional
        σ.
    steps_per_epoch : int, optional
        T (Poisson at q = 1/T).
    epochs : sequence of int, optional
        The E shown.
    delta : float, optional
        δ of ε(δ).
    tolerance : float, optional
        Grid tolerance of the compositions.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed (``pip install 'ampbounds[plot]'``).
    OSError
        If the file cannot be written.

    Examples
    --------
    >>> import bounds.plots
    >>> bounds.plots.plot_samplers("samplers.png")                 # doctest: +SKIP
    PosixPath('samplers.png')
    """
    return _save(samplers_figure(noise_multiplier, steps_per_epoch, epochs, delta, tolerance), out_path)
