"""Check registry: every check is a function registered for one or more SPEC ids and one kind.

A check returns an ``Outcome`` (or raises, which counts as a failure with the exception as detail).  The
certificate (``proofs_checks.certify``) runs them and tabulates the results per theorem.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

KINDS = ("symbolic", "accuracy", "brute-force", "property", "adversarial")

# Run mode of the certificate: quick (stored references, short searches) or full (``certify --full``:
# every reference recomputed, long adversarial searches).  Checks read it through ``full()``.
_MODE = {"full": False}


def full() -> bool:
    """True when the certificate runs in ``--full`` mode."""
    return _MODE["full"]


def set_full(value: bool) -> None:
    _MODE["full"] = bool(value)


@dataclass
class Outcome:
    passed: bool
    detail: str
    metrics: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    name: str
    theorems: tuple[str, ...]
    kind: str
    func: Callable[[], Outcome]


@dataclass
class Result:
    check: Check
    outcome: Outcome
    seconds: float


CHECKS: list[Check] = []


def check(kind: str, *theorems: str, name: str | None = None) -> Callable:
    """Register ``func`` as a check of ``kind`` for ``theorems``."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} not in {KINDS}")

    def register(func: Callable[[], Outcome]) -> Callable[[], Outcome]:
        CHECKS.append(Check(name or func.__name__, tuple(theorems), kind, func))
        return func

    return register


def add_check(kind: str, theorems: tuple[str, ...], name: str, func: Callable[[], Outcome]) -> None:
    check(kind, *theorems, name=name)(func)


def run_one(c: Check) -> Result:
    start = time.perf_counter()
    try:
        outcome = c.func()
    except Exception as exc:  # a crash is a failed check, reported with its traceback tail
        tail = traceback.format_exc().strip().splitlines()[-3:]
        outcome = Outcome(False, f"raised {type(exc).__name__}: {exc} | " + " / ".join(tail))
    return Result(c, outcome, time.perf_counter() - start)


def all_checks() -> list[Check]:
    """Every registered check (importing the check modules registers them)."""
    from . import accuracy, brute_force, missing_checks, properties, symbolic_checks  # noqa: F401
    from . import kanon_checks, profiles_checks, suppression_checks  # noqa: F401  (register hooks in accuracy)
    from . import subsampled_profiles_checks  # noqa: F401  (SPEC T11)
    from . import poisson_substitution_checks  # noqa: F401  (SPEC T6)
    from . import adversarial  # noqa: F401  (issue 10: last, it reads the grids the others register)

    return list(CHECKS)


def run(theorems: list[str] | None = None, kinds: list[str] | None = None) -> list[Result]:
    wanted = {t.upper() for t in theorems} if theorems else None
    results = []
    for c in all_checks():
        if wanted is not None and not wanted & set(c.theorems):
            continue
        if kinds is not None and c.kind not in kinds:
            continue
        results.append(run_one(c))
    return results
