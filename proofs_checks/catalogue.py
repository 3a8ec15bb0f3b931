"""The list of check modules.  Importing one registers its checks in ``proofs_checks.framework``; the
certificate's entry point (``proofs_checks.certify``) calls :func:`load` so the registry itself imports
nothing back (the check modules import the registry, never the other way)."""
from __future__ import annotations

import importlib

from .framework import CHECKS, Check

MODULES = (
    "proofs_checks.accuracy",
    "proofs_checks.brute_force",
    "proofs_checks.missing_checks",
    "proofs_checks.properties",
    "proofs_checks.symbolic_checks",
    "proofs_checks.kanon_checks",          # these three register hooks in accuracy
    "proofs_checks.profiles_checks",
    "proofs_checks.suppression_checks",
    "proofs_checks.subsampled_profiles_checks",   # SPEC T11
    "proofs_checks.poisson_substitution_checks",  # SPEC T6
    "proofs_checks.composition_checks",           # C1: certified composition (issue 12)
    "proofs_checks.sampler_checks",               # C2: samplers of DP-SGD batches (issue 21)
    "proofs_checks.crosscheck_checks",            # issue 13: crosscheck verdicts
    "proofs_checks.adversarial",                  # issue 10: last, it reads the grids the others register
)


def load() -> list[Check]:
    """Import every check module (idempotent) and return every registered check."""
    for name in MODULES:
        importlib.import_module(name)
    return list(CHECKS)
