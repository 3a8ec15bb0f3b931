"""``ampbounds certify``: run every check and print a per-theorem certificate.

A theorem is certified when every one of its checks passed: symbolic (reductions, stable branches,
rewrites proven by sympy), accuracy (peak error in ulps within budget and every rounded value on the safe
side of a ≥ 60-digit reference), brute force (exact enumeration of tiny mechanisms) and properties.
Exit status 0 only if every check passed.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from numeric._generated.metadata import THEOREMS

from .catalogue import load
from .framework import KINDS, Result, run


def _cell(results: list[Result]) -> str:
    if not results:
        return "—"
    passed = sum(r.outcome.passed for r in results)
    return f"{passed}/{len(results)}" + ("" if passed == len(results) else " FAIL")


def _accuracy_cell(results: list[Result]) -> str:
    if not results:
        return "—"
    peak = max(r.outcome.metrics.get("peak_ulps", float("nan")) for r in results)
    return _cell(results) + f" (peak {peak:.2f} ulp)"


def certificate(results: list[Result]) -> list[dict]:
    rows = []
    for tid in sorted({t for r in results for t in r.check.theorems}, key=lambda t: int(t[1:])):
        mine = [r for r in results if tid in r.check.theorems]
        rows.append({
            "theorem": tid,
            "name": THEOREMS[tid]["name"],
            "provenance": THEOREMS[tid]["provenance"],
            "relation": THEOREMS[tid]["relation"],
            "checks": {kind: [{"name": r.check.name, "passed": r.outcome.passed, "detail": r.outcome.detail,
                               "seconds": round(r.seconds, 3), "metrics": r.outcome.metrics}
                              for r in mine if r.check.kind == kind] for kind in KINDS},
            "certified": all(r.outcome.passed for r in mine),
        })
    return rows


def render(results: list[Result], verbose: bool) -> str:
    lines = [f"{'theorem':<8}{'name':<38}{'flag':<10}{'symbolic':<10}{'accuracy':<22}{'brute force':<13}"
             f"{'properties':<12}status"]
    for row in certificate(results):
        mine = [r for r in results if row["theorem"] in r.check.theorems]
        by = {k: [r for r in mine if r.check.kind == k] for k in KINDS}
        lines.append(f"{row['theorem']:<8}{row['name'][:37]:<38}{row['provenance']:<10}{_cell(by['symbolic']):<10}"
                     f"{_accuracy_cell(by['accuracy']):<22}{_cell(by['brute-force']):<13}{_cell(by['property']):<12}"
                     + ("CERTIFIED" if row["certified"] else "FAILED"))
    lines.append("")
    shown = results if verbose else [r for r in results if not r.outcome.passed]
    if shown:
        lines.append("details:" if verbose else "failed checks:")
        for r in shown:
            lines.append(f"  [{'pass' if r.outcome.passed else 'FAIL'}] {r.check.name}: {r.outcome.detail}")
    accuracy = [r for r in results if r.check.kind == "accuracy"]
    if accuracy:
        lines.append("accuracy per kernel (unrounded peak error vs ≥ 60-digit mpmath; returned values rounded outward):")
        for r in accuracy:
            m = r.outcome.metrics
            if m:
                lines.append(f"  {m['kernel']:<22} peak {m['peak_ulps']:6.2f} ulp  rms {m['rms_ulps']:5.2f}  "
                             f"budget {m['budget']:>2}  points {m['points']:>5}  worst at {m['worst']}")
    adversarial = [r for r in results if r.check.kind == "adversarial" and r.outcome.metrics]
    if adversarial:  # issue 10: worst signed error per kernel (negative = on the unsafe side)
        lines.append("adversarial search per kernel (stored cases + seeded search; worst signed relative error, "
                     "negative = unsafe):")
        for r in adversarial:
            m = r.outcome.metrics
            lines.append(f"  {m['kernel']:<30} peak {m['peak_ulps']:9.3g} ulp  worst signed {m['worst_signed_rel']:+.3g}"
                         f"  points {m['points']:>5}  at {m['worst']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ampbounds certify", description=__doc__.split("\n")[0])
    parser.add_argument("--theorem", action="append", metavar="ID", help="only this theorem (repeatable)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="only checks of this kind (repeatable)")
    parser.add_argument("--json", action="store_true", help="machine-readable certificate")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every check's detail")
    args = parser.parse_args(argv)
    if args.theorem:
        unknown = [t for t in args.theorem if t.upper() not in THEOREMS]
        if unknown:
            print(f"error: unknown theorem(s) {', '.join(unknown)}; known: {', '.join(THEOREMS)}", file=sys.stderr)
            return 2
    load()  # import the check modules: each registers its checks
    start = time.perf_counter()
    results = run(args.theorem, args.kind)
    elapsed = time.perf_counter() - start
    ok = all(r.outcome.passed for r in results) and bool(results)
    if args.json:
        print(json.dumps({"certified": ok, "seconds": round(elapsed, 2), "theorems": certificate(results)},
                         indent=2, default=str))
    else:
        print(render(results, args.verbose))
        print(f"\n{len(results)} checks, {sum(not r.outcome.passed for r in results)} failed, {elapsed:.1f} s: "
              + ("every check passed" if ok else "NOT CERTIFIED"))
    return 0 if ok else 1
