"""``ampbounds`` entry point: builds the parser from the registered subcommand modules and turns every user
error into one line on stderr with a non-zero exit (never a traceback).

Exit codes: 0 success; 1 the certificate failed (``certify``) or a claim is invalid (``crosscheck``); 3 a
claim is undecided (``crosscheck``); 2 a usage error or a value the library
rejects; 70 an internal error (a bug: one line, and the traceback with ``AMPBOUNDS_TRACEBACK=1``);
130 interrupted; 141 the output pipe was closed (``ampbounds latex --document | head``), silently, as
Unix filters do.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType
from typing import Sequence

from ._common import Parser, UsageError

# One line per subcommand module (``add_parser(subparsers) -> None``, ``run(args) -> int``).  A module may
# add several subcommands; each is dispatched to the ``run`` of the module that added it.
COMMANDS: tuple[str, ...] = (
    "ampbounds_cli.theorems",   # list, show
    "ampbounds_cli.evaluate",   # eval
    "ampbounds_cli.latex",      # latex
    "ampbounds_cli.plot",       # plot
    "ampbounds_cli.certify",    # certify (proofs_checks.certify.main)
    "ampbounds_cli.compose",     # compose (issue 12)
    "ampbounds_cli.crosscheck",  # crosscheck (issue 13)
    "ampbounds_cli.calibrate",   # calibrate (issue 21)
    "ampbounds_cli.reproduce",   # reproduce (issue 23: the seed-000 experiments)
    "ampbounds_cli.audit",       # audit (issue 22: privacy audits)
)


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    """The ``ampbounds`` parser and the module that runs each subcommand."""
    from bounds import __version__

    parser = Parser(prog="ampbounds",
                    description="Formally-checked, soundly rounded bounds for differential-privacy amplification. "
                                "Every theorem's statement, LaTeX and checks: docs/theorems.md.")
    parser.add_argument("--version", action="version", version=f"ampbounds {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    owner: dict[str, ModuleType] = {}
    for name in COMMANDS:
        module = importlib.import_module(name)
        before = set(subparsers.choices)
        module.add_parser(subparsers)
        owner.update({command: module for command in set(subparsers.choices) - before})
    return parser, owner


def _run(argv: list[str]) -> int:
    from bounds import theorems

    if len(argv) >= 2 and argv[0] == "eval" and argv[1].strip().upper() in theorems():
        argv = [argv[0], argv[1].strip().upper(), *argv[2:]]  # theorem ids in any case, as bounds.theorem
    parser, owner = build_parser()
    try:
        # certify's options belong to proofs_checks.certify: pass them through unparsed.
        args, extra = parser.parse_known_args(argv)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if extra and args.command != "certify":
        raise UsageError("unrecognized arguments: " + " ".join(extra))
    args.extra = extra
    code = owner[args.command].run(args)
    sys.stdout.flush()  # a closed pipe surfaces here, inside the handler below
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Run as the program (``argv`` None), ``certify`` — finished or interrupted — and any interrupted command
    leave through ``os._exit`` once stdout and stderr are flushed: tearing down the interpreter after the
    certificate has loaded sympy, numba and every check module takes 1–4 s of CPU that nothing needs (the
    worker processes are gone, files are closed, numba wrote its cache when it compiled)."""
    as_program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    code = _main(argv)
    if as_program and (code == 130 or (argv[:1] == ["certify"] and code in (0, 1))):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said anyway
            pass
        os._exit(code)
    return code


def _main(argv: list[str]) -> int:
    try:
        return _run(argv)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # the library's message names the function, parameter, value and domain
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``| head``).  Point stdout at /dev/null so the interpreter's final flush is
        # silent too.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a real file (tests)
            pass
        return 141
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 — a bug, but still one line (the traceback on request)
        if os.environ.get("AMPBOUNDS_TRACEBACK"):
            raise
        print(f"error: internal error, please report: {type(exc).__name__}: {exc} "
              "(set AMPBOUNDS_TRACEBACK=1 for the traceback)", file=sys.stderr)
        return 70
