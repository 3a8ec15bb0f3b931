"""Check registry: every check is a function registered for one or more SPEC ids and one kind.

A check returns an ``Outcome`` (or raises, which counts as a failure with the exception as detail).  The
certificate (``proofs_checks.certify``) runs them and tabulates the results per theorem.
"""
from __future__ import annotations

import os
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
    cpu_seconds: float = 0.0  # CPU time of the process running it (wall time is shared with other work)
    started: float = 0.0      # time.perf_counter() when it started (CLOCK_MONOTONIC: comparable across workers)
    worker: int = 0           # id of the process that ran it (os.getpid())


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


# Optional components a check may import, and what to install for each (a check that cannot run says so in
# one line instead of a traceback).
INSTALL_HINTS = {
    "flint": "python-flint",
    "dp_accounting": "dp-accounting",
    "autodp": "autodp",
    "prv_accountant": "prv-accountant",
    "opacus": "opacus",
    "matplotlib": "matplotlib",
    "scipy": "scipy",
}


def missing_component(exc: ImportError) -> str:
    """One line naming what to install for a failed import."""
    module = (getattr(exc, "name", None) or str(exc)).split(".")[0]
    package = INSTALL_HINTS.get(module, module)
    return f"cannot run: optional component '{module}' is not installed (pip install {package})"


def run_one(c: Check) -> Result:
    start, cpu = time.perf_counter(), time.process_time()
    try:
        outcome = c.func()
    except ImportError as exc:  # an optional component is missing: say what to install, no traceback
        outcome = Outcome(False, missing_component(exc), {"missing": getattr(exc, "name", None)})
    except Exception as exc:  # a crash is a failed check, reported with its traceback tail
        tail = traceback.format_exc().strip().splitlines()[-3:]
        outcome = Outcome(False, f"raised {type(exc).__name__}: {exc} | " + " / ".join(tail))
    return Result(c, outcome, time.perf_counter() - start, time.process_time() - cpu, start, os.getpid())


def all_checks() -> list[Check]:
    """Every registered check.  The registry imports no check module: ``proofs_checks.catalogue.load()``
    (called by the certificate's entry point) imports them, and each registers itself here."""
    return list(CHECKS)


def theorem_sort_key(tid: str) -> tuple:
    """Order ids by (prefix, number): T2 < T10 < C1's prefix order; ids without a number sort by name."""
    head = tid.rstrip("0123456789")
    tail = tid[len(head):]
    return (head, int(tail) if tail else -1, tid)


def select(theorems: list[str] | None = None, kinds: list[str] | None = None) -> list[Check]:
    wanted = {t.upper() for t in theorems} if theorems else None
    return [c for c in all_checks()
            if (wanted is None or wanted & set(c.theorems)) and (kinds is None or c.kind in kinds)]


def run(theorems: list[str] | None = None, kinds: list[str] | None = None, jobs: int = 1,
        progress: Callable | None = None) -> list[Result]:
    """Run the selected checks (``jobs`` > 1: in worker processes) and return their results in order."""
    return execute(select(theorems, kinds), jobs=jobs, progress=progress).results


@dataclass
class Execution:
    results: list[Result]
    recorded: dict          # namespace → reference entries recorded (``refstore`` record mode)
    misses: dict            # namespace → references computed because the stored table lacked them


# Theorems whose kernels share compiled numba code (hand-written helpers called, not inlined): their checks run
# in one process so that two processes do not compile the same functions at once.  Generated kernels inline
# their helpers into each loop, so they share nothing worth a process.  C1 and C2 share the composition's
# numba code (``numeric.composition.lower_vector`` alone ≈ 4 s to compile: measured compiled twice, once in each
# worker, when the two groups ran side by side).
KERNEL_FAMILIES = ({"T3", "T4"}, {"T8", "T9", "T10", "T11"}, {"T13", "T14"}, {"T15", "T16"}, {"C1", "C2"})

# Measured CPU seconds of each family's checks in a cold quick certificate (issue 20, AMD EPYC znver4, empty
# numba cache, load average 2–5 from other work; re-measured after the accuracy checks stopped building array
# loops of their own; C1 + C2 estimated as their sum less the ≈ 5 s of composition code they share; T3 and T15
# re-measured after the symbolic ladder's cheap steps and T15's stored adversarial starts, 15.9 → 10.4 and
# 14.0 → 9.6, which leaves the order unchanged): only the order in which the groups are handed out depends on it
# (largest first, so the last group to finish is a small one); a theorem not listed counts 2 s.  The order
# decides which process compiles what (helpers compiled once per process are paid by whichever group comes
# first): one cold run in another order (T8 | C1 first) compiled for 94 s against 80 s in this one — one run
# each at load 5–6, not separated from noise — so change it only by repeated measurement.  Checked again after
# the brute forces became cheaper (H17, per-check ``started``/``worker`` in ``certify --json``): cold, the two
# workers ended 0.7 s apart (198.4 / 199.1 s at load 3–4; CPU 64.0 / 64.3 s), warm 0.5 s apart (CPU 10.7 / 11.1 s),
# so the idle tail is below one small group and the order stays.  Measured family costs in that cold run: T8
# 33.7, C1 24.1, T13 15.5, T3 9.6, T18 6.9, T6 6.0, T7 5.9, T17 5.9, T5 5.6, T2 5.3, T15 5.2, T12 2.8, T1 1.5.
COLD_CPU_SECONDS = {"T8": 43.8, "T13": 20.5, "C1": 17.0, "T3": 10.4, "T15": 9.6, "T5": 5.4, "T7": 5.4, "T6": 5.0,
                    "T2": 4.1, "T12": 2.9, "T18": 2.4, "T17": 2.3, "T1": 1.4}


def groups_of(checks: list[Check]) -> list[list[int]]:
    """Indices of ``checks`` grouped by kernel family (``KERNEL_FAMILIES``; every other theorem alone; a check
    of several theorems goes with the first of them that has a family, else with the first), so two processes
    rarely compile the same numba functions at the same time.  Largest measured cost first (``COLD_CPU_SECONDS``): the pool hands the groups
    out as workers free up, so the two workers finish close together."""
    family = {t: min(f, key=theorem_sort_key) for f in KERNEL_FAMILIES for t in f}
    by: dict[str, list[int]] = {}
    for i, c in enumerate(checks):
        ids = c.theorems or ("",)
        key = next((family[t] for t in ids if t in family), ids[0])  # a family's compiled code, if any
        by.setdefault(key, []).append(i)
    # Within a group the measurements (accuracy, adversarial) run last: they evaluate a kernel on whichever
    # compiled route the group's other checks have already built (``accuracy.compiled``), so a kernel is not
    # compiled a second time for another route.
    groups = [sorted(g, key=lambda i: checks[i].kind in MEASUREMENTS) for g in by.values()]
    return sorted(groups, key=lambda g: (-_cost(checks, g, family), -len(g)))


MEASUREMENTS = ("accuracy", "adversarial")


def _cost(checks: list[Check], group: list[int], family: dict) -> float:
    ids = checks[group[0]].theorems or ("",)
    return COLD_CPU_SECONDS.get(next((family[t] for t in ids if t in family), ids[0]), 2.0)


_WORKER: dict = {}


def _init_worker(full_mode: bool, record: bool, strict: bool, queue, loader: Callable | None) -> None:
    import signal

    from . import refstore

    # Ctrl-C reaches the whole process group: the parent alone handles it (it terminates the workers), so a
    # worker neither prints a traceback nor goes on to its next queued check
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if loader is not None:  # a spawned worker starts with an empty registry (a forked one has it already)
        loader()
    set_full(full_mode)
    refstore.set_record(record)
    refstore.set_strict(strict)
    _WORKER["queue"] = queue


def _run_group(names: list[tuple[int, str]]):
    from . import refstore

    by_name = {c.name: c for c in all_checks()}
    out = []
    for index, name in names:
        r = run_one(by_name[name])
        _WORKER["queue"].put((index, r.outcome.passed))
        out.append((index, r.outcome, r.seconds, r.cpu_seconds, r.started, r.worker))
    return out, refstore.drain_recorded(), refstore.drain_misses()


def _merge(into: dict, part: dict, add: bool = False) -> None:
    for ns, value in part.items():
        if add:
            into[ns] = into.get(ns, 0) + value
        else:
            into.setdefault(ns, {}).update(value)


def _stop(pool) -> None:
    """Cancel the queued groups and terminate the running workers at once (``shutdown`` alone would wait for
    every running check to finish: tens of seconds)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python ≥ 3.14
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=1.0)


def execute(checks: list[Check], jobs: int = 1, progress: Callable | None = None,
            grouped: bool = True, loader: Callable | None = None) -> Execution:
    """Run ``checks``; ``progress(done, total, result_or_None, check)`` is called after each one.

    With ``jobs`` > 1 the checks run in ``jobs`` worker processes, grouped by theorem; each worker gets the
    run mode (``full()``, the reference store's record/strict flags) explicitly, so fork and spawn agree."""
    import queue as queue_module

    from . import refstore

    total = len(checks)
    names = [c.name for c in checks]
    if len(set(names)) != len(names):
        raise RuntimeError("check names are not unique: " + ", ".join(sorted({n for n in names if names.count(n) > 1})))
    if jobs <= 1 or total <= 1:
        order = [i for g in groups_of(checks) for i in g] if grouped else list(range(total))
        by_index: dict[int, Result] = {}
        for done, i in enumerate(order, 1):
            r = by_index[i] = run_one(checks[i])
            if progress:
                progress(done, total, r, checks[i])
        return Execution([by_index[i] for i in range(total)], refstore.drain_recorded(), refstore.drain_misses())

    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    q = ctx.Queue()
    outcomes: dict[int, tuple] = {}
    recorded: dict = {}
    misses: dict = {}
    done = 0
    groups = groups_of(checks) if grouped else [[i] for i in range(len(checks))]
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(groups)), mp_context=ctx, initializer=_init_worker,
                               initargs=(full(), refstore._STATE["record"], refstore._STATE["strict"], q, loader))
    try:
        futures = {pool.submit(_run_group, [(i, checks[i].name) for i in g]): g for g in groups}
        pending = set(futures)
        while pending:
            try:
                index, _ = q.get(timeout=0.2)
                done += 1
                if progress:
                    progress(done, total, None, checks[index])
                continue
            except queue_module.Empty:
                pass
            for f in [f for f in pending if f.done()]:
                pending.discard(f)
                try:
                    part, rec, miss = f.result()
                except Exception as exc:  # a worker died: its unfinished checks fail, loudly
                    part = [(i, Outcome(False, f"worker process failed: {type(exc).__name__}: {exc}"), 0.0, 0.0,
                             0.0, 0) for i in futures[f] if i not in outcomes]
                    rec, miss = {}, {}
                for index, *measured in part:
                    outcomes[index] = tuple(measured)
                _merge(recorded, rec)
                _merge(misses, miss, add=True)
    except BaseException:  # Ctrl-C (or any error here): stop now, not after every queued group has run
        _stop(pool)
        raise
    pool.shutdown(wait=True)
    results = [Result(c, *outcomes[i]) for i, c in enumerate(checks)]
    return Execution(results, recorded, misses)
