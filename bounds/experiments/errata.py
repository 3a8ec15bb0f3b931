"""The authors' errata (``shared/SYSTEMS.md`` §1.4), each switchable, so a run can reproduce the published numbers.

The default, :data:`FIXED`, is the corrected experiment; :data:`FAITHFUL` switches every erratum on (what the
authors' code at commit ``b03f650`` of ``kit-ps/Sampling-and-Suppression-in-DP-USENIX-26`` does).  Any subset can
be chosen by name (``Errata.parse("gaussian_delta,sum_sensitivity")``, CLI ``--faithful-errata``).

Each switch, its erratum number in SYSTEMS §1.4, the fixed behaviour and the faithful one:

- ``gaussian_delta`` (1): fixed, the analytic Gaussian σ with its δ constraint (T10, ``bounds.gaussian_sigma``);
  faithful, the authors' σ from an unconstrained minimisation that ignores δ (4–38 % too small; needs scipy).
- ``kmedian_metric`` (2): fixed, the average cost cost(F)/|D|; faithful, exp(−ε′·cost)/|D| (≈ 1/|sample|).
- ``inverse_search`` (3): fixed, ε'' from ``bounds.outlier_score_suppression_inverse``; faithful, ε'' = ε (the
  search's start point) at (ε; m, M) = (0.5; 0.7, 0.8) and (1; 0.6, 0.7).
- ``expmech_offset`` (4): fixed, the exponential mechanism outputs the candidate drawn; faithful, lo + that
  candidate (shifted by one when the range starts at 1).
- ``sum_sensitivity`` (5): fixed, the add/remove sum sensitivity max(|lo|, |hi|); faithful, hi − lo (the
  substitution value).
- ``dplloyd_data_ranges`` (6): fixed, DPLloyd scales with the PUBLIC ranges (the metric is fixed in advance and
  T14 applies); faithful, with the data's own min and max (outside T14).
- ``dplloyd_noise_scale`` (a choice, not an error): fixed, Lap((d + 1)T/ε) per count and coordinate sum (one
  record's L1 contribution per iteration is d + 1); faithful, the authors' Lap(2(dk + 1)T/ε).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

__all__ = ["Errata", "FIXED", "FAITHFUL", "ERRATA_NAMES"]


@dataclass(frozen=True)
class Errata:
    """Which of the authors' errata to reproduce (``True`` = as published, ``False`` = fixed)."""

    gaussian_delta: bool = False
    kmedian_metric: bool = False
    inverse_search: bool = False
    expmech_offset: bool = False
    sum_sensitivity: bool = False
    dplloyd_data_ranges: bool = False
    dplloyd_noise_scale: bool = False

    @classmethod
    def parse(cls, names: str) -> "Errata":
        """Errata from a comma-separated list of names (``"all"`` = every one, ``""`` = none)."""
        chosen = [n.strip() for n in names.split(",") if n.strip()]
        if chosen == ["all"]:
            return FAITHFUL
        unknown = [n for n in chosen if n not in ERRATA_NAMES]
        if unknown:
            raise ValueError(f"errata = {unknown[0]!r} is not an erratum name; known: all, " + ", ".join(ERRATA_NAMES))
        return replace(cls(), **{n: True for n in chosen})

    @property
    def names(self) -> tuple[str, ...]:
        """The names switched on."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name))

    @property
    def faithful(self) -> bool:
        """True when at least one erratum is reproduced."""
        return bool(self.names)


ERRATA_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Errata))
FIXED = Errata()
FAITHFUL = Errata(**{n: True for n in ERRATA_NAMES})
