"""``ampbounds certify``: run every check and print a per-theorem certificate.

A theorem is certified when every one of its checks passed: symbolic (reductions, stable branches,
rewrites proven by sympy), accuracy (peak error in ulps within budget and every rounded value on the safe
side of a ≥ 50-digit reference), brute force (exact enumeration of tiny mechanisms), properties and
adversarial searches.  Exit status 0 only if every check passed.

By default the high-precision references are read from the tables shipped in
``proofs_checks/reference_data`` (``proofs_checks.refstore``); ``--full`` recomputes every one of them.
Checks run in ``--jobs`` worker processes (default: every core).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import sys
import time
from fractions import Fraction
from typing import Any

from numeric._generated.metadata import THEOREMS

from . import framework, refstore
from .catalogue import load
from .framework import KINDS, Result, theorem_sort_key

KIND_TITLES = {"symbolic": "symbolic", "accuracy": "accuracy", "brute-force": "brute force",
               "property": "properties", "adversarial": "adversarial"}


# ------------------------------------------------------------------------------------------------------
# strict JSON

def _plain(x: Any) -> Any:
    """A JSON value with no NaN/Infinity: non-finite floats become the strings "inf", "-inf", "nan"."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, int) and not isinstance(x, bool):
        return int(x)
    try:
        import numpy as np

        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, np.ndarray):
            return _plain(x.tolist())
        if isinstance(x, np.bool_):
            return bool(x)
    except ImportError:  # pragma: no cover
        pass
    if isinstance(x, float) or type(x).__name__ in ("float64", "float32"):
        f = float(x)
        return f if math.isfinite(f) else ("nan" if math.isnan(f) else ("inf" if f > 0 else "-inf"))
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    return str(x)  # mpf and anything else: its string form


def _versions() -> dict:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("numpy", "numba", "mpmath", "sympy", "python-flint"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _library_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("ampbounds")
    except metadata.PackageNotFoundError:
        import bounds

        return getattr(bounds, "__version__", "unknown")


def _metric_cell(m: dict) -> str:
    """What a kernel's accuracy check measured against what bounds it, in one unit."""
    if "bound" in m:  # a running / per-evaluation error bound: the check states it in its own terms
        return str(m["bound"])
    budget = m.get("budget")
    if budget is None:
        return ""
    return f"≤ {budget} ulp"


def certificate(results: list[Result]) -> list[dict]:
    """Per-theorem rows; each check is listed by name (the checks themselves are in ``checks_json``); ``budget``
    says whether the theorem's rounding budgets are derived or measured (``numeric.budgets.BUDGET_PROVENANCE``)."""
    from numeric.budgets import BUDGET_PROVENANCE  # imports the kernels (numba): only when certifying

    rows = []
    for tid in sorted({t for r in results for t in r.check.theorems}, key=theorem_sort_key):
        mine = [r for r in results if tid in r.check.theorems]
        meta = THEOREMS.get(tid, {})
        rows.append({
            "theorem": tid,
            "name": meta.get("name", tid),
            "provenance": meta.get("provenance", ""),
            "relation": meta.get("relation", ""),
            "counts": {kind: {"passed": sum(r.outcome.passed for r in mine if r.check.kind == kind),
                              "total": sum(r.check.kind == kind for r in mine)} for kind in KINDS},
            "checks": [r.check.name for r in mine],
            "certified": all(r.outcome.passed for r in mine),
            "budget": BUDGET_PROVENANCE.get(tid, ("", ""))[0],
            "budget_note": BUDGET_PROVENANCE.get(tid, ("", ""))[1],
        })
    return rows


def checks_json(results: list[Result]) -> list[dict]:
    """Each check; ``started`` (seconds after the first check started) and ``worker`` (0, 1, … in order of
    first use) show how the run was scheduled: the idle tail of a worker is the gap before the last end."""
    first = min((r.started for r in results if r.started), default=0.0)
    workers: dict = {}
    for r in sorted(results, key=lambda r: r.started):
        workers.setdefault(r.worker, len(workers))
    return [{"name": r.check.name, "theorems": list(r.check.theorems), "kind": r.check.kind,
             "passed": bool(r.outcome.passed), "detail": r.outcome.detail, "seconds": round(r.seconds, 3),
             "cpu_seconds": round(r.cpu_seconds, 3),
             "started": round(r.started - first, 3) if r.started else None, "worker": workers[r.worker],
             "metrics": r.outcome.metrics} for r in results]


def document(results: list[Result], seconds: float, mode: str, jobs: int, misses: dict,
             started: datetime.datetime) -> dict:
    """The certificate as a strict-JSON-able dict: each check once, with its theorem ids."""
    failed = [r for r in results if not r.outcome.passed]
    return _plain({
        "certified": bool(results) and not failed,
        "library": {"name": "ampbounds", "version": _library_version(), "git_commit": refstore.git_commit()},
        "environment": {**_versions(), "platform": platform.platform(), "machine": platform.machine(),
                        "cpu_count": os.cpu_count()},
        "date": started.isoformat(timespec="seconds"),
        "seconds": round(seconds, 2),
        "mode": mode,
        "jobs": jobs,
        "references": {"source": "recomputed (--full)" if mode == "full" else "stored tables (proofs_checks/reference_data)",
                       "computed_because_missing": misses},
        "summary": {"checks": len(results), "passed": len(results) - len(failed), "failed": len(failed),
                    "theorems": len({t for r in results for t in r.check.theorems})},
        "checks": checks_json(results),
        "theorems": certificate(results),
    })


# ------------------------------------------------------------------------------------------------------
# text

def _cell(results: list[Result]) -> str:
    if not results:
        return "—"
    passed = sum(r.outcome.passed for r in results)
    return f"{passed}/{len(results)}" + ("" if passed == len(results) else " FAIL")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns as wide as their widest cell, two spaces apart: nothing is clipped, nothing runs together."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [fmt(header)] + [fmt(r) for r in rows]


def render(results: list[Result], verbose: bool, theorems: list[str] | None = None) -> str:
    kinds = [k for k in KINDS if any(r.check.kind == k for r in results)] or list(KINDS)
    rows = []
    for row in certificate(results):
        tid = row["theorem"]
        if theorems and tid not in theorems:
            continue
        mine = [r for r in results if tid in r.check.theorems]
        rows.append([tid, row["name"], row["provenance"]]
                    + [_cell([r for r in mine if r.check.kind == k]) for k in kinds]
                    + [row.get("budget", ""), "CERTIFIED" if row["certified"] else "FAILED"])
    lines = _table(["theorem", "name", "flag"] + [KIND_TITLES.get(k, k) for k in kinds] + ["budget", "status"],
                   rows)
    lines.append("")
    lines.append("budget: derived = every rounding of the returned values has a proof beside the code (or a running "
                 "error bound, or exact arithmetic); measured = at least one budget is the peak error against "
                 "≥ 50-digit references over these grids and searches (evidence, not a proof). README: \"What is "
                 "certified, and what is not\".")
    lines.append("")
    shown = results if verbose else [r for r in results if not r.outcome.passed]
    if theorems:
        shown = [r for r in shown if set(r.check.theorems) & set(theorems)]
    if shown:
        lines.append("details:" if verbose else "failed checks:")
        for r in shown:
            took = f" ({r.seconds:.1f} s)" if verbose else ""
            lines.append(f"  [{'pass' if r.outcome.passed else 'FAIL'}] {r.check.name}{took}: {r.outcome.detail}")
        lines.append("")
    measured = [r for r in results if r.check.kind in ("accuracy", "adversarial") and "kernel" in r.outcome.metrics
                and (not theorems or set(r.check.theorems) & set(theorems))]
    if measured:
        lines.append("accuracy per kernel (peak error of the unrounded kernel in ulps of a ≥ 50-digit reference, "
                     "and what bounds it;")
        lines.append("every returned value is also checked to lie on the safe side of its reference):")
        table = []
        for r in measured:
            m = r.outcome.metrics
            peak = m.get("peak_ulps")
            rms = m.get("rms_ulps")
            table.append([str(m["kernel"]), r.check.kind,
                          f"{peak:.3g} ulp" if isinstance(peak, (int, float)) else "",
                          f"{rms:.3g}" if isinstance(rms, (int, float)) else "",
                          _metric_cell(m), str(m.get("points", "")),
                          f"{m['worst_signed_rel']:+.2g}" if isinstance(m.get("worst_signed_rel"), (int, float)) else "",
                          "pass" if r.outcome.passed else "FAIL",
                          str(_plain(m.get("worst")))])
        lines += ["  " + line for line in _table(["kernel", "kind", "peak", "rms", "bound", "points", "status",
                                                  "worst at"], table)]
    return "\n".join(lines).rstrip("\n")


class Progress:
    """A live line on a terminal: theorem, checks done/total, elapsed.  Silent when not a terminal."""

    def __init__(self, stream, enabled: bool):
        self.stream = stream
        self.enabled = enabled
        self.start = time.perf_counter()
        self.width = 0

    def __call__(self, done: int, total: int, result, check) -> None:
        if not self.enabled:
            return
        tid = check.theorems[0] if check.theorems else ""
        line = f"certify: {tid:<4} {done}/{total} checks  {time.perf_counter() - self.start:5.1f} s"
        self.width = max(self.width, len(line))
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # the cores this process may use (containers, taskset)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class _Parser(argparse.ArgumentParser):
    """A usage error is one line on stderr (exit 2), like every other ``ampbounds`` error."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: ampbounds certify: {message} (see `ampbounds certify --help`)\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="ampbounds certify", description=__doc__.split("\n")[0])
    parser.add_argument("--theorem", action="append", metavar="ID", help="only this theorem (repeatable)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="only checks of this kind (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the certificate as strict JSON")
    parser.add_argument("--out", metavar="FILE", help="also write the JSON certificate to FILE")
    parser.add_argument("--full", action="store_true",
                        help="recompute every high-precision reference instead of reading the stored tables")
    parser.add_argument("--jobs", "-j", type=int, default=_cores(), metavar="N",
                        help="worker processes (default: every core, here %(default)s)")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every check's detail")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    load()  # import the check modules: each registers its checks
    theorems = None
    if args.theorem:
        theorems = [t.upper() for t in args.theorem]
        known = {t for c in framework.all_checks() for t in c.theorems} | set(THEOREMS)
        unknown = [t for t in theorems if t not in known]
        if unknown:
            print(f"error: unknown theorem(s) {', '.join(unknown)}; known: "
                  f"{', '.join(sorted(known, key=theorem_sort_key))}", file=sys.stderr)
            return 2
    if args.jobs < 1:
        print(f"error: --jobs must be ≥ 1, got {args.jobs}", file=sys.stderr)
        return 2
    created = None
    if args.out:  # an unwritable --out fails now, not after the whole run with the certificate lost
        existed = os.path.exists(args.out)
        try:
            with open(args.out, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            print(f"error: ampbounds certify: cannot write --out {args.out!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        created = None if existed else args.out
    framework.set_full(args.full)
    started = datetime.datetime.now(datetime.timezone.utc)
    start = time.perf_counter()
    progress = Progress(sys.stderr, enabled=not args.quiet and not args.json and sys.stderr.isatty())
    try:
        run = framework.execute(framework.select(theorems, args.kind), jobs=args.jobs, progress=progress,
                                loader=load)
    except BaseException:  # interrupted: leave no empty certificate file behind
        if created is not None:
            with contextlib.suppress(OSError):
                os.unlink(created)
        raise
    finally:
        progress.close()
    elapsed = time.perf_counter() - start
    results = run.results
    ok = bool(results) and all(r.outcome.passed for r in results)
    doc = document(results, elapsed, "full" if args.full else "quick", args.jobs, run.misses, started)
    text = json.dumps(doc, indent=2, allow_nan=False, ensure_ascii=False)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    if args.json:
        print(text)
    else:
        print(render(results, args.verbose, theorems))
        if run.misses:
            print(f"\nnote: {sum(run.misses.values())} references were not in the stored tables and were computed "
                  f"now: {refstore.explain_misses(run.misses)}")
        mode = "references recomputed (--full)" if args.full else "stored references"
        print(f"\n{len(results)} checks, {sum(not r.outcome.passed for r in results)} failed, {elapsed:.1f} s "
              f"({mode}, {args.jobs} jobs): " + ("every check passed" if ok else "NOT CERTIFIED"))
    return 0 if ok else 1
