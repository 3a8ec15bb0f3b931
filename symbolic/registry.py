"""Theorem registry: SPEC id → ``Theorem`` record."""
from __future__ import annotations

from . import group, kanon, missing, profiles, subsampling, suppression  # noqa: F401  (importing registers)
from . import subsampled_profiles  # noqa: F401  (SPEC T11)
from . import poisson_substitution  # noqa: F401  (SPEC T6)
from . import composition  # noqa: F401  (C1: certified composition, the library's own record)
from .core import _REGISTRY, Theorem

FAMILIES = {"subsampling": subsampling, "group": group, "missing": missing, "profiles": profiles, "kanon": kanon,
            "suppression": suppression, "subsampled_profiles": subsampled_profiles,
            "poisson_substitution": poisson_substitution, "composition": composition}


def get(theorem_id: str) -> Theorem:
    try:
        return _REGISTRY[theorem_id.upper()]
    except KeyError:
        raise KeyError(f"unknown theorem {theorem_id!r}; known: {', '.join(ids())}") from None


def ids() -> list[str]:
    return sorted(_REGISTRY, key=lambda t: (t[0] != "T", t[0], int(t[1:])))  # SPEC's T… first, then C1


def theorems() -> list[Theorem]:
    return [_REGISTRY[t] for t in ids()]


def family_of(theorem_id: str) -> str:
    for name, module in FAMILIES.items():
        if any(getattr(module, attr, None) is get(theorem_id) for attr in dir(module)):
            return name
    raise KeyError(theorem_id)
