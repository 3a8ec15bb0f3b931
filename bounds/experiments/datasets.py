"""The seed-000 datasets shipped with the package, with their PUBLIC ranges (``data/PROVENANCE.md``).

The ranges are fixed before looking at the data (logical bounds, or the authors' ⌈1.5·max⌉ choice recorded in
their Table 1): the sensitivities and the outlier metrics of T14 are built from them, never from the data's own
minimum and maximum (erratum 6 of ``shared/SYSTEMS.md`` §1.4).
"""
from __future__ import annotations

import csv
import io
from functools import lru_cache
from importlib import resources

import numpy as np

__all__ = ["COLUMNS", "CLUSTERING_RANGES", "load_column", "load_table", "public_range"]

#: (dataset, column) → (file, public range [lo, hi]).  The range is the authors' Table 1.
COLUMNS: dict[tuple[str, str], tuple[str, tuple[int, int]]] = {
    ("adult", "age"): ("adult_train.csv", (0, 125)),
    ("adult", "hours-per-week"): ("adult_train.csv", (0, 100)),
    ("census", "FICA"): ("census.csv", (0, 11890)),
    ("census", "FEDTAX"): ("census.csv", (0, 31889)),
    ("irish", "Age"): ("irishn_train.csv", (0, 125)),
    ("irish", "HighestEducationCompleted"): ("irishn_train.csv", (1, 10)),
}

#: DPLloyd's six Adult columns and their public ranges (``adult_clustering.csv``).
CLUSTERING_RANGES: dict[str, tuple[int, int]] = {
    "age": (0, 125), "fnlwgt": (0, 2227058), "education-num": (1, 16),
    "capital-gain": (0, 149999), "capital-loss": (0, 6534), "hours-per-week": (0, 100),
}


@lru_cache(maxsize=None)
def load_table(file: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Header and float64 matrix of a shipped CSV file (read once, cached; the array is read-only)."""
    text = resources.files("bounds.experiments").joinpath("data", file).read_text(encoding="utf-8")
    reader = csv.reader(io.StringIO(text))
    header = tuple(next(reader))
    values = np.array([[float(v) for v in row] for row in reader if row], dtype=np.float64)
    values.setflags(write=False)
    return header, values


def public_range(dataset: str, column: str) -> tuple[int, int]:
    """The public range [lo, hi] of a column (``ValueError`` naming the known columns otherwise)."""
    try:
        return COLUMNS[(dataset, column)][1]
    except KeyError:
        known = ", ".join(f"{d}/{c}" for d, c in COLUMNS)
        raise ValueError(f"dataset/column = {dataset}/{column} is not a seed-000 column; known: {known}") from None


def load_column(dataset: str, column: str) -> np.ndarray:
    """The column's records (float64, read-only), checked against its public range."""
    lo, hi = public_range(dataset, column)
    file = COLUMNS[(dataset, column)][0]
    header, values = load_table(file)
    x = values[:, header.index(column)]
    if x.min() < lo or x.max() > hi:  # the shipped files satisfy this; a changed file must not pass silently
        raise ValueError(f"{dataset}/{column}: values outside the public range [{lo}, {hi}]")
    return x
