"""``ampbounds plot FIGURE --out FILE``: the figures of ``bounds.plots`` (needs the ``plot`` extra)."""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

from ._common import UsageError, write

FIGURES = {
    "outlier-score": ("plot_outlier_score",
                      "SPEC T14: ε^S over the (m, M) triangle for ε ∈ {0.25, 0.5, 1, 2} with the contour ε^S = ε "
                      "(Fig. 2 of Miranda-Pascual et al.)"),
    "kanon": ("plot_kanon",
              "SPEC T15: δ against k for several β at ε = 1, and the smallest ε with δ ≤ 1e-6 against k "
              "(the view of Li, Qardaji, Su's Figure 6)"),
}
FORMATS = ("png", "pdf", "svg")


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("plot", help="draw a figure (needs the 'plot' extra: matplotlib)",
                              description="Draw a figure to a PNG, PDF or SVG file (format from the suffix).")
    figures = p.add_subparsers(dest="figure", required=True, metavar="FIGURE")
    for figure, (_, text) in FIGURES.items():
        f = figures.add_parser(figure, help=text, description=text)
        f.add_argument("--out", required=True, metavar="FILE", help="output file: .png, .pdf or .svg")


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise UsageError(f"--out {args.out}: the file name must end in " + ", ".join(f".{f}" for f in FORMATS))
    if not out.parent.is_dir():
        raise UsageError(f"--out {args.out}: directory {str(out.parent)!r} does not exist")
    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError("plotting needs matplotlib: pip install 'ampbounds[plot]'")
    from bounds import plots

    try:
        written = getattr(plots, FIGURES[args.figure][0])(out)
    except OSError as exc:  # unwritable file, full disk
        raise UsageError(f"--out {args.out}: cannot write: {exc.strerror or exc}") from None
    write(str(written))
    return 0
