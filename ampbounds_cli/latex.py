"""``ampbounds latex [IDS] [--document] [--out FILE]``: theorem formulas as LaTeX (``bounds.latex``)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._common import UsageError, write


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "latex", help="print the LaTeX of theorems' formulas, or a complete document",
        description="Print the LaTeX of theorems' formulas, generated from their sympy records (imports sympy). "
                    "With --document: a complete, compilable LaTeX document (statements, formulas, conditions, "
                    "citations) of the theorems given, or of all of them.")
    p.add_argument("theorems", nargs="*", metavar="THEOREM", help="theorem ids (default with --document: all)")
    p.add_argument("--document", action="store_true",
                   help="a complete document (\\documentclass … \\end{document}) for pdflatex")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")


def run(args: argparse.Namespace) -> int:
    from bounds import latex, theorems

    ids = list(args.theorems)
    if args.document:
        from bounds.registry import latex_document

        text = latex_document(ids or theorems())
    else:
        if not ids:
            raise UsageError("latex: give at least one theorem id (e.g. `ampbounds latex T1`), or --document")
        text = "\n\n".join(latex(t) for t in ids)
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--out {args.out}: cannot write: {exc.strerror or exc}") from None
        write(args.out)
    else:
        write(text)
    return 0
