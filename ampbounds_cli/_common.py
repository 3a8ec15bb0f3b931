"""Helpers shared by the subcommands: usage errors, strict JSON, labelled tables, option names."""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any


class UsageError(Exception):
    """A user error: ``main`` prints ``error: <message>`` on one line and exits 2."""


class Parser(argparse.ArgumentParser):
    """argparse without abbreviations (``--rat`` is not ``--rate``) whose errors raise ``UsageError``
    instead of exiting, so that ``main`` returns the exit code (and tests can call it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see `{self.prog} --help`)")


def option(name: str) -> list[str]:
    """The flags of a parameter: ``--rate-from`` and ``--rate_from``; one-letter names also ``-m``."""
    flags = [f"--{name.replace('_', '-')}"]
    if "_" in name:
        flags.append(f"--{name}")
    if len(name) == 1:
        flags.insert(0, f"-{name}")
    return flags


def finite_or_text(value: Any) -> Any:
    """A number for strict JSON: ±inf become the strings "inf"/"-inf" (``float()`` reads them back); NaN is
    never produced by the library, and ``json.dumps(allow_nan=False)`` refuses it if it ever were."""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {k: finite_or_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_text(v) for v in value]
    return value


def dumps(data: Any, **kwargs: Any) -> str:
    """Strict JSON (RFC 8259): no NaN or Infinity tokens."""
    return json.dumps(finite_or_text(data), allow_nan=False, ensure_ascii=False, **kwargs)


def table(rows: list[tuple[str, str]], indent: str = "    ") -> list[str]:
    width = max((len(k) for k, _ in rows), default=0)
    return [f"{indent}{k.ljust(width)}  {v}" for k, v in rows]


def write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
