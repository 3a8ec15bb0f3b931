"""The ``ampbounds`` command line: the room above the library (``bounds``) and its certificate (``proofs_checks``).

The flow of the project runs one way, symbolic → numeric → bounds → proofs_checks; the command line
dispatches to both of the last two, so it lives above them and neither imports it.  (``python -m bounds``
still works: ``bounds/__main__.py`` imports :func:`main` — the one place where ``bounds`` names this package,
and only when run as a script.)

Each subcommand is a module with ``add_parser(subparsers) -> None`` and ``run(args) -> int``, registered by
one line in :data:`ampbounds_cli.cli.COMMANDS`.
"""
from .cli import main

__all__ = ["main"]
