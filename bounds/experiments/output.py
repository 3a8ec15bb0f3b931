"""CSV output and a compact text summary of experiment records."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Sequence

__all__ = ["FIELDS", "write_csv", "summary_lines"]

FIELDS: tuple[str, ...] = ("experiment", "dataset", "column", "mechanism", "variant", "epsilon", "delta", "m", "M",
                           "rate", "epsilon_M", "delta_M", "utility", "stderr", "kept", "repetitions", "errata")


def write_csv(records: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """One row per record (empty cells for ``None``)."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in records:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in FIELDS})
    return path


def summary_lines(records: Sequence[dict[str, Any]]) -> list[str]:
    """A table: one line per (mechanism, ε, m, M) with the four variants' utilities (± standard error)."""
    from .budgets import VARIANTS

    groups: dict[tuple, dict[str, dict]] = {}
    for r in records:
        groups.setdefault((r["mechanism"], r["epsilon"], r["m"], r["M"]), {})[r["variant"]] = r
    head = f"{'mechanism':<11} {'eps':>5} {'m':>5} {'M':>5} " + " ".join(f"{v:>22}" for v in VARIANTS)
    lines = [head]
    for (mech, eps, m, M), by in groups.items():
        cells = []
        for v in VARIANTS:
            r = by.get(v)
            if r is None:
                cells.append(f"{'':>22}")
            elif r["utility"] is None:
                cells.append(f"{'(no base budget)':>22}")
            else:
                se = f" ± {r['stderr']:.2g}" if r.get("stderr") is not None else ""
                cells.append(f"{r['utility']:.4g}{se}".rjust(22))
        lines.append(f"{mech:<11} {eps:>5g} {m:>5g} {M:>5g} " + " ".join(cells))
    return lines
