"""``ampbounds certify [...]``: the machine checks, run by ``proofs_checks.certify.main(argv)``."""
from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("certify", add_help=False, help="run the machine checks and print a certificate",
                              description="Run the machine checks; every argument is passed to "
                                          "proofs_checks.certify (try `ampbounds certify --help`).")
    p.set_defaults(extra=[])


def run(args: argparse.Namespace) -> int:
    try:
        from proofs_checks.certify import main as certify_main
    except ModuleNotFoundError as exc:
        if exc.name not in ("proofs_checks", "proofs_checks.certify"):
            raise
        from ._common import UsageError

        raise UsageError("the certificate needs the proofs_checks package, which is not installed") from None
    try:
        return int(certify_main(list(args.extra)) or 0)
    except SystemExit as exc:  # certify's own argparse: --help (0) or a usage error (2, already printed)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
