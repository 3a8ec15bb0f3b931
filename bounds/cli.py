"""The ``ampbounds`` command line (also ``python -m bounds``).

Subcommands:

- ``list [--json]``: the theorems, with provenance flag, relation and public functions;
- ``eval ID --<parameter> VALUE ... [--inverse] [--json]``: evaluate a theorem's public function.  The
  options of each theorem are built from its generated metadata (parameter names, domains, descriptions),
  so a new theorem record gets its command line without editing this file;
- ``latex ID``: the LaTeX of a theorem's formulas (imports sympy);
- ``certify [...]``: run the machine checks (``proofs_checks.certify``) and print a per-theorem certificate.

Exit codes: 0 on success, 2 for a usage error or a value the library rejects (the message goes to stderr as
``error: <message>``).  Importing this module loads neither sympy nor numba.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Sequence

from numeric._generated.metadata import THEOREMS

from . import _core
from .registry import latex, theorem, theorems

# Keyword arguments that select a theorem inside a function serving several (the only per-theorem data
# here: the metadata names the function but not the switch).
_FIXED_KEYWORDS: dict[str, dict[str, str]] = {
    "T3": {"relation": "substitute"},
    "T4": {"relation": "add_remove"},
}

_INVERSE_SUFFIX = "_inverse"


class _UsageError(Exception):
    """Raised instead of argparse's ``SystemExit(2)`` so that ``main`` returns its exit code."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise _UsageError(message)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _public_function(name: str) -> Callable[..., Any]:
    import bounds

    return getattr(bounds, name)


def _functions(theorem_id: str) -> tuple[str | None, str | None]:
    """(forward, inverse) public function names of a theorem; either may be None."""
    public = THEOREMS[theorem_id]["public"]
    inverse = [f for f in public if f.endswith(_INVERSE_SUFFIX)]
    forward = [f for f in public if not f.endswith(_INVERSE_SUFFIX)]
    return (forward[0] if forward else None), (inverse[0] if inverse else None)


def _evaluable(theorem_id: str) -> bool:
    """A theorem is evaluable from the shell when its functions exist and take only numeric record
    parameters (T13 takes a user's algorithm: it is a Python API only)."""
    import bounds

    meta = THEOREMS[theorem_id]
    if not meta["outputs"] or not all(hasattr(bounds, f) for f in meta["public"]):
        return False
    forward, inverse = _functions(theorem_id)
    return all(set(_required(f)) <= set(meta["parameters"]) for f in (forward, inverse) if f)


def _required(name: str) -> list[str]:
    """The parameters of a public function that have no default."""
    import inspect

    return [p.name for p in inspect.signature(_public_function(name)).parameters.values()
            if p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD]


def _accepted(name: str) -> set[str]:
    import inspect

    return set(inspect.signature(_public_function(name)).parameters)


def _option(name: str) -> list[str]:
    flags = [f"--{name.replace('_', '-')}"]
    if "_" in name:
        flags.append(f"--{name}")
    if len(name) == 1:
        flags.insert(0, f"-{name}")
    return flags


def _add_eval_parser(theorems_parsers: Any, theorem_id: str) -> None:
    meta = THEOREMS[theorem_id]
    forward, inverse = _functions(theorem_id)
    keywords = _FIXED_KEYWORDS.get(theorem_id, {})
    call = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
    names = " / ".join(f"{f}({call})" if call else f for f in (forward, inverse) if f)
    sub = theorems_parsers.add_parser(
        theorem_id, help=f"{meta['name']}: {names}",
        description=f"SPEC {theorem_id}, {meta['name']} [{meta['provenance']}], relation: {meta['relation']}. "
                    f"{meta['statement']}")
    used = set().union(*(_accepted(f) for f in (forward, inverse) if f))
    for name, param in meta["parameters"].items():
        if name in used:
            sub.add_argument(*_option(name), dest=name, type=float, default=None, metavar=name.upper(),
                             help=f"{param['description']}; domain {_core.describe_domain(param['domain'])}")
    sub.set_defaults(inverse=False)
    for lhs, op, rhs in meta["constraints"]:
        sub.epilog = (sub.epilog + "; " if sub.epilog else "requires ") + f"{lhs} {op} {rhs}"
    if inverse is not None:
        if forward is not None:
            sub.add_argument("--inverse", action="store_true",
                             help=f"evaluate {inverse} (the base budget) instead of {forward}")
        else:
            sub.set_defaults(inverse=True)
    sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sub.set_defaults(handler=_cmd_eval)


def build_parser() -> argparse.ArgumentParser:
    """The ``ampbounds`` argument parser."""
    from . import __version__

    parser = _Parser(prog="ampbounds",
                     description="Formally-checked, soundly rounded bounds for differential-privacy amplification.")
    parser.add_argument("--version", action="version", version=f"ampbounds {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("list", help="list the theorems", description="List the theorems.")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_cmd_list)

    p = commands.add_parser("eval", help="evaluate a theorem's bound",
                            description="Evaluate a theorem's public bound function; "
                                        "`ampbounds eval ID --help` lists the parameters of theorem ID.")
    per_theorem = p.add_subparsers(dest="theorem", required=True, metavar="THEOREM")
    for theorem_id in theorems():
        if _evaluable(theorem_id):
            _add_eval_parser(per_theorem, theorem_id)

    p = commands.add_parser("latex", help="print the LaTeX of a theorem's formulas",
                            description="Print the LaTeX of a theorem's formulas (generated from its sympy record).")
    p.add_argument("theorem", metavar="THEOREM")
    p.set_defaults(handler=_cmd_latex)

    p = commands.add_parser("plot", help="draw a figure (needs the 'plot' extra: matplotlib)",
                            description="Draw a figure to a PNG file.")
    figures = p.add_subparsers(dest="figure", required=True, metavar="FIGURE")
    for figure, text in _FIGURES.items():
        f = figures.add_parser(figure, help=text, description=text)
        f.add_argument("--out", required=True, help="output file (.png)")
    p.set_defaults(handler=_cmd_plot)

    from . import _cli_compose  # issue 12

    _cli_compose.add_parser(commands)

    p = commands.add_parser("certify", add_help=False, help="run the machine checks and print a certificate",
                            description="Run the machine checks; every argument is passed to "
                                        "proofs_checks.certify (try `ampbounds certify --help`).")
    p.set_defaults(handler=_cmd_certify)
    return parser


def _cmd_list(args: argparse.Namespace, extra: list[str]) -> int:
    infos = [theorem(t) for t in theorems()]
    if args.json:
        print(json.dumps([{"id": i.id, "name": i.name, "provenance": i.provenance, "relation": i.relation,
                           "citation": i.citation, "functions": list(i.functions)} for i in infos], indent=2,
                         ensure_ascii=False))
        return 0
    header = ("id", "name", "provenance", "relation", "functions")
    rows = [(i.id, i.name, i.provenance, i.relation, ", ".join(i.functions)) for i in infos]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    return 0


def _cmd_eval(args: argparse.Namespace, extra: list[str]) -> int:
    theorem_id = args.theorem
    meta = THEOREMS[theorem_id]
    forward, inverse = _functions(theorem_id)
    name = inverse if args.inverse else forward
    assert name is not None
    accepted = _accepted(name)
    inputs: dict[str, Any] = {p: getattr(args, p, None) for p in meta["parameters"] if p in accepted}
    missing = [p for p in _required(name) if inputs.get(p) is None]
    if missing:
        return _fail(f"{name} needs " + ", ".join(_option(p)[-1] for p in missing))
    inputs = {p: v for p, v in inputs.items() if v is not None}
    keywords = _FIXED_KEYWORDS.get(theorem_id, {})
    try:
        result = _public_function(name)(**inputs, **keywords)
    except ValueError as exc:  # the library's message names the parameter, value and domain
        return _fail(str(exc))
    inputs = {p: _shown(v, meta["parameters"][p]["domain"]) for p, v in inputs.items()}
    if not hasattr(result, "epsilon"):  # a profile value, a σ, a δ: one number
        value = float(result)
        if args.json:
            print(json.dumps({"theorem": theorem_id, "function": name, "inputs": {**inputs, **keywords},
                              "value": value}))
        else:
            print(f"{theorem_id} {meta['name']}: {name}")
            for k, v in inputs.items():
                print(f"    {k}  {v!r}")
            print(f"  value  {value!r}")
        return 0
    epsilon, delta = float(result.epsilon), float(result.delta)
    if args.json:
        print(json.dumps({"theorem": theorem_id, "function": name, "inputs": {**inputs, **keywords},
                          "epsilon": epsilon, "delta": delta}))
        return 0
    call = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
    print(f"{theorem_id} {meta['name']}: {name}({call})" if call else f"{theorem_id} {meta['name']}: {name}")
    label = "base budget" if name.endswith(_INVERSE_SUFFIX) else "guarantee"
    rows = [(k, repr(v)) for k, v in inputs.items()]
    width = max(len(k) for k, _ in rows + [("epsilon", "")])
    print("  input")
    for k, v in rows:
        print(f"    {k.ljust(width)}  {v}")
    print(f"  {label}")
    print(f"    {'epsilon'.ljust(width)}  {epsilon!r}")
    print(f"    {'delta'.ljust(width)}  {delta!r}")
    return 0


def _shown(value: float, domain: tuple) -> float | int:
    """An input as echoed back: integer parameters (m, n, k) as integers once validated."""
    integer = domain[4]
    return int(value) if integer and value == value and abs(value) != float("inf") else value


_FIGURES = {
    "outlier-score": "SPEC T14: ε^S over the (m, M) triangle for ε ∈ {0.25, 0.5, 1, 2} with the contour ε^S = ε "
                     "(Fig. 2 of Miranda-Pascual et al.)",
    "kanon": "SPEC T15: δ against k for several β at ε = 1, and the smallest ε with δ ≤ 1e-6 against k "
             "(the view of Li, Qardaji, Su's Figure 6)",
}


def _cmd_plot(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        from . import plots
    except ImportError as exc:  # matplotlib is an optional extra
        return _fail(f"plotting needs matplotlib: pip install 'ampbounds[plot]' ({exc})")
    draw = {"outlier-score": plots.plot_outlier_score, "kanon": plots.plot_kanon}[args.figure]
    print(draw(args.out))
    return 0


def _cmd_latex(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        text = latex(args.theorem)
    except ValueError as exc:  # unknown theorem
        return _fail(str(exc))
    print(text)
    return 0


def _cmd_certify(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        from proofs_checks.certify import main as certify_main
    except ModuleNotFoundError as exc:
        if exc.name not in ("proofs_checks", "proofs_checks.certify"):
            raise
        return _fail("the certificate needs the proofs_checks package (proofs_checks.certify), "
                     "which is not available")

    return int(certify_main(list(extra)) or 0)


def _normalise(argv: list[str]) -> list[str]:
    """Accept theorem ids in any case (``eval t1``), as ``bounds.theorem`` does."""
    if len(argv) >= 2 and argv[0] == "eval" and argv[1].strip().upper() in THEOREMS:
        argv = [argv[0], argv[1].strip().upper(), *argv[2:]]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    argv = _normalise(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and args.command != "certify":
            parser.error("unrecognized arguments: " + " ".join(extra))
        return args.handler(args, extra)
    except _UsageError as exc:
        return _fail(str(exc))
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
