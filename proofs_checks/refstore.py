"""Stored high-precision references: compute once, ship with the package, recompute on demand.

Every slow reference function of the checks (mpmath sums, roots, quadratures at ≥ 50 digits) is wrapped by
``memo``.  In the certificate's quick mode a wrapped call looks its value up in a versioned table shipped in
``proofs_checks/reference_data/`` (one gzipped JSON file per function, with its provenance: generator,
mpmath/python-flint versions, digits, date, commit), the way scipy.special and Boost.Math ship reference
tables.  ``ampbounds certify --full`` (``framework.full()``) recomputes every reference from scratch and
never reads the tables; ``python -m proofs_checks.refstore`` regenerates them (a full run that records).

A lookup that misses (a grid point added after the tables were written) is computed on the spot, so the
certificate stays sound, and is counted: ``certify`` reports the count; under ``set_strict(True)`` (the test
suite) a miss raises ``MissingReference`` so stale tables turn the tests red.  ``tests/proofs_checks``
recomputes a seeded random sample of every table on every run, so the data cannot drift from the code.

Keys are the arguments, exactly: floats by ``float.hex``, ints, strings and booleans tagged.  Values keep the
binary mpf exactly up to ``STORED_BITS`` bits (rounded to nearest beyond that: 2⁻²⁵⁶ relative, far below
the ≥ 10⁻⁵⁰ accuracy the references claim), so "rounded value ≥ reference" is decided on the same binary
number the reference computation produced.
"""
from __future__ import annotations

import contextlib
import datetime
import functools
import gzip
import importlib
import inspect
import json
import numbers
import os
import platform
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import mpmath as mp
from mpmath import libmp

from . import framework

FORMAT = 1
STORED_BITS = 256
DATA_DIR = Path(__file__).with_name("reference_data")


# exceptions a reference may raise for a point where it is undefined, stored as such and re-raised
_RAISABLE = {e.__name__: e for e in (ZeroDivisionError, OverflowError, ValueError)}


class MissingReference(LookupError):
    """A quick-mode lookup found no stored value and the store is strict (the test suite)."""


_STATE = {"strict": False, "record": False, "live": 0}
_TABLES: dict[str, dict] = {}          # namespace → entries (loaded lazily)
_RECORDED: dict[str, dict] = {}        # namespace → entries computed in this process while recording
MISSES: dict[str, int] = {}            # namespace → lookups computed because the table lacked them
FUNCTIONS: dict[str, "Memo"] = {}      # namespace → wrapper (for regeneration and the drift test)


def set_strict(value: bool) -> None:
    _STATE["strict"] = bool(value)


@contextlib.contextmanager
def live():
    """Compute references directly inside this block, neither looked up nor counted as misses: for searches
    whose points are new by design (``proofs_checks.adversarial``), which store the cases they keep
    themselves."""
    _STATE["live"] += 1
    try:
        yield
    finally:
        _STATE["live"] -= 1


def set_record(value: bool) -> None:
    _STATE["record"] = bool(value)


# ------------------------------------------------------------------------------------------------------
# encoding (exact, reversible)

def encode_arg(a: Any) -> str:
    if type(a) is float:  # the common case first (≈ 10⁵ keys per certificate): the same string as below
        return float.hex(a)
    if isinstance(a, bool):
        return "b1" if a else "b0"
    if a is None:
        return "n"
    if isinstance(a, numbers.Integral):
        return f"i{int(a)}"
    if isinstance(a, float):  # numpy float64 too
        return float.hex(float(a))
    if isinstance(a, str):
        if "|" in a:
            raise ValueError(f"refstore: string argument {a!r} contains '|'")
        return "s" + a
    if isinstance(a, Fraction):
        return f"q{a.numerator}/{a.denominator}"
    if isinstance(a, mp.mpf):
        return encode_value(a)
    if isinstance(a, (tuple, list)):
        return "j" + json.dumps(encode_value(a), separators=(",", ":"))
    raise TypeError(f"refstore: cannot key an argument of type {type(a).__name__}")


def decode_arg(s: str) -> Any:
    tag = s[0]
    if s in ("inf", "-inf", "nan"):  # float.hex of the non-finite floats
        return float(s)
    if s == "n":
        return None
    if tag == "b":
        return s == "b1"
    if tag == "i":
        return int(s[1:])
    if tag == "s":
        return s[1:]
    if tag == "q":
        return Fraction(s[1:])
    if tag == "x":
        return decode_value(s)
    if tag == "j":
        return decode_value(json.loads(s[1:]))
    return float.fromhex(s)


def encode_value(v: Any) -> Any:
    """JSON-able, exact encoding of a reference value (mpf, float, int, None, bool, tuple, list)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, mp.mpf):
        sign, man, exp, bc = libmp.normalize(*v._mpf_, STORED_BITS, libmp.round_nearest) \
            if v._mpf_[1] and v._mpf_[3] > STORED_BITS else v._mpf_
        if not man:
            special = {libmp.fzero: "0", libmp.finf: "inf", libmp.fninf: "-inf", libmp.fnan: "nan"}
            return "x" + special[v._mpf_]
        return f"x{'-' if sign else ''}{man:x}p{exp}"
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, float):
        return "f" + float.hex(float(v))
    if isinstance(v, Fraction):
        return f"q{v.numerator}/{v.denominator}"
    if isinstance(v, (tuple, list)):
        return [encode_value(x) for x in v]
    raise TypeError(f"refstore: cannot store a value of type {type(v).__name__}")


def decode_value(e: Any) -> Any:
    if e is None or isinstance(e, (bool, int)):
        return e
    if isinstance(e, list):
        return tuple(decode_value(x) for x in e)
    tag, body = e[0], e[1:]
    if tag == "f":
        return float.fromhex(body)
    if tag == "q":
        return Fraction(body)
    special = {"0": libmp.fzero, "inf": libmp.finf, "-inf": libmp.fninf, "nan": libmp.fnan}
    if body in special:
        return mp.make_mpf(special[body])
    man, exp = body.split("p")
    m = int(man, 16)
    return mp.make_mpf(libmp.from_man_exp(m, int(exp)))  # exact: no rounding (prec 0)


# ------------------------------------------------------------------------------------------------------
# tables

def _path(namespace: str) -> Path:
    return DATA_DIR / f"{namespace}.json.gz"


def table(namespace: str) -> dict:
    if namespace not in _TABLES:
        path = _path(namespace)
        if path.exists():
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                data = json.load(fh)
            if data.get("format") != FORMAT:
                raise RuntimeError(f"{path}: reference table format {data.get('format')} != {FORMAT}")
            _TABLES[namespace] = data["entries"]
        else:
            _TABLES[namespace] = {}
    return _TABLES[namespace]


# The modules whose code decides which points the checks evaluate (hence the keys the tables need); the
# runner, the certificate's layout and the store itself do not.
_NOT_POINT_SOURCES = {"__init__.py", "certify.py", "framework.py", "refstore.py", "catalogue.py", "theorem_docs.py"}


def source_digest() -> str:
    """SHA-256 of the check modules that choose the evaluated points (line endings normalised), recorded in
    every table: a quick-mode miss under the same digest cannot be a stale table (see ``explain_misses``)."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name not in _NOT_POINT_SOURCES:
            h.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()


def explain_misses(namespaces) -> str:
    """Why the stored tables lacked references the checks asked for, and what to do: a table written from
    different check code is stale (regenerate); one written from this very code means a point came out
    different on this machine, which must not happen (every point is drawn platform-independently:
    ``proofs_checks.points``), so it is reported as a bug instead of advising a regeneration."""
    here = source_digest()
    stale, same = [], []
    for ns in sorted(namespaces):
        try:
            written = provenance(ns).get("source_digest")
        except (OSError, ValueError):
            written = None
        (same if written == here else stale).append(ns)
    parts = []
    if stale:
        parts.append(f"the check code changed since these tables were written ({', '.join(stale)}): "
                     "regenerate them with `python -m proofs_checks.refstore`")
    if same:
        parts.append(f"these tables were written from this very check code ({', '.join(same)}), so the points "
                     "differ on this machine: a platform-dependent point is a bug, please report it with "
                     "`ampbounds certify --json` (the values were computed, the certificate is still sound)")
    return "; ".join(parts)


def provenance(namespace: str) -> dict:
    """The header of a stored table (everything but its entries)."""
    with gzip.open(_path(namespace), "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    data.pop("entries")
    return data


class Memo:
    """A reference function whose values are looked up (quick mode) or computed (full mode, misses)."""

    def __init__(self, func: Callable, namespace: str, ignore: tuple[str, ...], when: Callable | None,
                 digits: str, precision: bool):
        self.precision = precision
        self.func = func
        self.namespace = namespace
        self.ignore = ignore
        self.when = when
        self.digits = digits
        self.signature = inspect.signature(func)
        # Parameter names when every parameter is plain positional-or-keyword without a default and keyed: a
        # call with exactly that many positional arguments is keyed without ``Signature.bind`` (the same key;
        # bind is ≈ 30 % of a stored lookup, and the accuracy checks look up ≈ 10⁵ references per certificate).
        params = list(self.signature.parameters.values())
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty and p.name not in ignore
                    for p in params)
        self._positional = tuple(p.name for p in params) if plain else None
        # The same for plain parameters followed by *args (``references.spec_value(theorem, output, *args)``):
        # the key is every positional argument encoded in order, as ``key`` builds it from the bound arguments.
        fixed = params[:-1]
        self._variadic = (len(fixed) if params and params[-1].kind is params[-1].VAR_POSITIONAL and when is None
                          and all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty and p.name not in ignore
                                  for p in fixed) and params[-1].name not in ignore else None)
        functools.update_wrapper(self, func)

    def key(self, bound: inspect.BoundArguments) -> tuple[str, dict]:
        keyed, extra = ([f"p{mp.mp.prec}"] if self.precision else []), {}
        for name, value in bound.arguments.items():
            kind = self.signature.parameters[name].kind
            if name in self.ignore:
                extra[name] = encode_arg(value)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                keyed.extend(encode_arg(v) for v in value)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                if value:
                    raise TypeError(f"refstore: {self.namespace} called with **kwargs {sorted(value)}")
            else:
                keyed.append(encode_arg(value))
        return "|".join(keyed), extra

    def __call__(self, *args, **kwargs):
        if not kwargs and self._positional is not None and len(args) == len(self._positional):
            if _STATE["live"] or (self.when is not None and not self.when(**dict(zip(self._positional, args)))):
                return self.func(*args)
            key = "|".join(([f"p{mp.mp.prec}"] if self.precision else []) + [encode_arg(a) for a in args])
            extra: dict = {}
        elif not kwargs and self._variadic is not None and len(args) >= self._variadic:
            if _STATE["live"]:
                return self.func(*args)
            key = "|".join(([f"p{mp.mp.prec}"] if self.precision else []) + [encode_arg(a) for a in args])
            extra = {}
        else:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            if _STATE["live"] or (self.when is not None and not self.when(**bound.arguments)):
                return self.func(*args, **kwargs)
            key, extra = self.key(bound)
        if not framework.full():
            entries = table(self.namespace)
            if key in entries:
                stored = entries[key][0]
                if isinstance(stored, dict):  # the reference raised: raise the same (e.g. a SPEC form's 0/0)
                    raise _RAISABLE[stored["raises"]](stored["message"])
                return decode_value(stored)
            if _STATE["strict"]:
                raise MissingReference(f"{self.namespace}({key}) is not in the stored reference table: "
                                       + explain_misses([self.namespace]))
            MISSES[self.namespace] = MISSES.get(self.namespace, 0) + 1
        try:
            value = self.func(*args, **kwargs)
        except tuple(_RAISABLE.values()) as exc:  # callers treat these as "no reference here": store that
            if _STATE["record"] and type(exc) in _RAISABLE.values():
                _RECORDED.setdefault(self.namespace, {})[key] = [{"raises": type(exc).__name__,
                                                                  "message": str(exc)}]
            raise
        if _STATE["record"]:
            _RECORDED.setdefault(self.namespace, {})[key] = [encode_value(value), extra] if extra else \
                [encode_value(value)]
        return value

    def recompute(self, key: str, entry: list) -> Any:
        """Recompute a stored entry from its key (the drift test)."""
        raw = key.split("|") if key else []
        if self.precision:
            with mp.workprec(int(raw[0][1:])):
                return self._call([decode_arg(p) for p in raw[1:]], entry)
        return self._call([decode_arg(p) for p in raw], entry)

    def _call(self, parts: list, entry: list) -> Any:
        extra = {k: decode_arg(v) for k, v in entry[1].items()} if len(entry) > 1 else {}
        args = []
        for name, param in self.signature.parameters.items():
            if name in extra:
                args.append(extra[name])
            elif param.kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(parts)
                parts = []
            elif param.kind is not inspect.Parameter.VAR_KEYWORD:
                args.append(parts.pop(0))
        return self.func(*args)


def memo(namespace: str, *, ignore: tuple[str, ...] = (), when: Callable | None = None,
         digits: str = "≥ 60", precision: bool = False) -> Callable[[Callable], Memo]:
    """Decorator: store ``func``'s values under ``namespace``.  ``ignore`` names arguments that do not change
    the value (a float result that only seeds a bracket); ``when(**arguments)`` false bypasses the store
    (e.g. a caller-supplied profile function); ``digits`` is recorded in the table's provenance;
    ``precision=True`` for a function that works at its caller's mpmath precision (part of the key)."""
    def wrap(func: Callable) -> Memo:
        m = Memo(func, namespace, ignore, when, digits, precision)
        FUNCTIONS[namespace] = m
        return m
    return wrap


def drain_recorded() -> dict:
    out = {ns: dict(entries) for ns, entries in _RECORDED.items()}
    _RECORDED.clear()
    return out


def drain_misses() -> dict:
    out = dict(MISSES)
    MISSES.clear()
    return out


# ------------------------------------------------------------------------------------------------------
# provenance and regeneration

def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                             text=True, timeout=5)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _flint_version() -> str | None:
    try:
        import flint
        return flint.__version__
    except ImportError:
        return None


def write_tables(recorded: dict) -> list[Path]:
    DATA_DIR.mkdir(exist_ok=True)
    written = []
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    for namespace in sorted(recorded):
        m = FUNCTIONS.get(namespace)
        data = {"format": FORMAT, "namespace": namespace,
                "function": f"{m.func.__module__}.{m.func.__qualname__}" if m else None,
                "generator": "python -m proofs_checks.refstore (ampbounds certify --full, recording)",
                "digits": m.digits if m else None, "stored_bits": STORED_BITS,
                "mpmath": mp.__version__, "python-flint": _flint_version(),
                "python": platform.python_version(), "date": now, "git_commit": git_commit(),
                "source_digest": source_digest(),
                "entries": dict(sorted(recorded[namespace].items()))}
        path = _path(namespace)
        with gzip.GzipFile(path, "wb", mtime=0) as fh:
            fh.write(json.dumps(data, separators=(",", ":")).encode("utf-8"))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Regenerate every table: run all checks in full mode, recording each reference computed."""
    import argparse

    from . import framework as fw

    parser = argparse.ArgumentParser(prog="python -m proofs_checks.refstore", description=main.__doc__)
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--theorem", action="append", metavar="ID",
                        help="only the checks of this theorem (repeatable); implies --merge")
    parser.add_argument("--check", action="append", metavar="TEXT",
                        help="only the checks whose name contains TEXT (repeatable); implies --merge")
    parser.add_argument("--merge", action="store_true",
                        help="add to the stored tables instead of replacing them")
    parser.add_argument("--stamp", action="store_true",
                        help="no regeneration: run the quick certificate and, if it found every reference it "
                             "needs in the tables, record this check code's source digest in them")
    args = parser.parse_args(argv)
    if args.stamp:
        return _stamp(args.jobs)
    fw.set_full(True)
    set_record(True)
    from .catalogue import load

    load()
    # the adversarial searches run live (their points are new by design, ``refstore.live``) and record nothing:
    # left out, they would be two thirds of a regeneration's CPU (15 s per kernel in full mode)
    selected = [c for c in fw.select(args.theorem) if c.kind != "adversarial"
                and (not args.check or any(t in c.name for t in args.check))]
    # one check per task, slowest first (measured in a full run): the longest check bounds the wall time
    heavy = ("T15 delta", "T16 delta", "T3/T4 delta", "T11 gaussian_add_epsilon", "T11 laplace_add_epsilon",
             "T11 laplace_remove_epsilon", "T14 epsilon", "T15 maximum", "T12 delta", "T7 delta", "T6 delta")
    selected.sort(key=lambda c: next((i for i, h in enumerate(heavy) if c.name.startswith(h)), len(heavy)))
    run = fw.execute(selected, jobs=args.jobs, grouped=False, loader=load)
    results, recorded = run.results, run.recorded
    failed = [r for r in results if not r.outcome.passed]
    if args.merge or args.theorem or args.check:
        for namespace, entries in recorded.items():
            recorded[namespace] = {**table(namespace), **entries}
    else:
        for old in DATA_DIR.glob("*.json.gz"):
            old.unlink()
    for path in write_tables(recorded):
        print(f"wrote {path} ({sum(1 for _ in json.loads(gzip.decompress(path.read_bytes()))['entries'])} "
              f"entries, {path.stat().st_size // 1024} KiB)")
    slow = sorted(results, key=lambda r: -r.seconds)[:30]
    print("slowest checks (full mode):\n" + "\n".join(f"  {r.seconds:7.1f} s  {r.check.name}" for r in slow))
    if failed:
        print(f"warning: {len(failed)} checks failed during regeneration: "
              + "; ".join(r.check.name for r in failed), file=sys.stderr)
    return 0


def _stamp(jobs: int) -> int:
    """``--stamp``: after a check-code edit that moves no point, mark the tables as written for this code."""
    from . import framework as fw
    from .catalogue import load

    load()
    run = fw.execute(fw.select(), jobs=jobs, loader=load)
    if run.misses:
        print(f"not stamped: {sum(run.misses.values())} references missing ({', '.join(sorted(run.misses))}); "
              "regenerate with `python -m proofs_checks.refstore`", file=sys.stderr)
        return 1
    digest = source_digest()
    for path in sorted(DATA_DIR.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
        data["source_digest"] = digest
        with gzip.GzipFile(path, "wb", mtime=0) as fh:
            fh.write(json.dumps(data, separators=(",", ":")).encode("utf-8"))
    failed = sum(not r.outcome.passed for r in run.results)
    print(f"stamped {len(list(DATA_DIR.glob('*.json.gz')))} tables with source digest {digest[:16]}…"
          + (f" ({failed} checks failed)" if failed else ""))
    return 0


def load_all_functions() -> None:
    """Import every module that defines stored references (so ``FUNCTIONS`` is complete)."""
    from .catalogue import load

    load()
    for name in ("references", "profile_references", "subsampled_profile_references", "suppression_references"):
        importlib.import_module(f"{__package__}.{name}")


if __name__ == "__main__":
    # run the package module, not this ``__main__`` copy: the memo wrappers and their state live there
    from proofs_checks.refstore import main as _main

    sys.exit(_main())
