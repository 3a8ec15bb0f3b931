"""``ampbounds list`` (every theorem) and ``ampbounds show ID`` (one theorem's record: ``bounds.theorem``)."""
from __future__ import annotations

import argparse
from typing import Any

from ._common import dumps, write


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("list", help="list the theorems (bounds.theorems)",
                              description="List the theorems: id, name, provenance flag, relation, functions.")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p = subparsers.add_parser("show", help="one theorem's statement, domains and citation (bounds.theorem)",
                              description="Print a theorem's record: statement, relation, provenance, citation, "
                                          "tightness, parameter domains, functions.")
    p.add_argument("theorem", metavar="THEOREM", help="a theorem id, e.g. T1")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def _record(info: Any) -> dict:
    return {"id": info.id, "name": info.name, "provenance": info.provenance, "relation": info.relation,
            "citation": info.citation, "tightness": info.tightness, "statement": info.statement,
            "parameters": {k: {"domain": d, "description": t} for k, (d, t) in info.parameters.items()},
            "constraints": list(info.constraints), "functions": list(info.functions)}


def run(args: argparse.Namespace) -> int:
    from bounds import theorem, theorems

    if args.command == "show":
        info = theorem(args.theorem)  # ValueError (unknown id) → one line, exit 2
        write(dumps(_record(info), indent=2) if args.json else str(info))
        return 0
    infos = [theorem(t) for t in theorems()]
    if args.json:
        write(dumps([{"id": i.id, "name": i.name, "provenance": i.provenance, "relation": i.relation,
                      "citation": i.citation, "functions": list(i.functions)} for i in infos], indent=2))
        return 0
    header = ("id", "name", "provenance", "relation", "functions")
    rows = [(i.id, i.name, i.provenance, i.relation, ", ".join(i.functions)) for i in infos]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    write("\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]
                    for row in [header, *rows]))
    return 0
