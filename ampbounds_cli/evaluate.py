"""``ampbounds eval TARGET --<parameter> VALUE ... [--json]``: evaluate a public function of ``bounds``.

TARGET is a theorem id (its main function; ``--inverse`` for the inverse query) or the name of any public
function (``ampbounds eval subsampled_laplace_profile --help``).  Options are built from each function's
signature and the theorem record's parameter descriptions and domains, so a new theorem gets its command
line without editing this file.  An option the chosen function does not take is an error.  Functions that
take a Python object the shell cannot express (your suppression algorithm, a matrix) are listed with the
reason; ``eval`` on them says why and exits 2.

Output names every quantity (``epsilon``/``delta`` of a guarantee; ``sigma`` of T10; ``k`` of the smallest
k; …).  ``--json`` is strict JSON: the infinities the library can return are written as the strings
``"inf"``/``"-inf"`` (``float()`` reads them back).
"""
from __future__ import annotations

import argparse
import inspect
from fractions import Fraction
from typing import Any, Callable

from numeric._generated.metadata import THEOREMS

from ._common import UsageError, dumps, option, table, write

_INVERSE_SUFFIX = "_inverse"

# Functions not named in a record's ``public`` list, and the theorem whose domains they use.
_EXTRA_OWNERS = {
    "poisson_subsampling_profile": "T1", "without_replacement_profile": "T2", "with_replacement_profile": "T3",
    "fwl_histogram": "T18", "fwl_mean": "T18", "fwl_clipped_mean": "T18", "fwl_covariance": "T18",
    "fwl_linear": "T18", "fwl_projected_mean": "T18",
}

# Keyword arguments that select a theorem inside a function serving several.
_FIXED_KEYWORDS: dict[str, dict[str, str]] = {"T3": {"relation": "substitute"}, "T4": {"relation": "add_remove"}}

# The quantity a one-number result is (everything returning a Guarantee prints epsilon and delta).
RESULT_NAMES = {
    "laplace_profile": "delta", "gaussian_profile": "delta",
    "laplace_profile_inverse": "epsilon", "gaussian_profile_inverse": "epsilon",
    "subsampled_gaussian_profile": "delta", "subsampled_laplace_profile": "delta",
    "subsampled_gaussian_profile_inverse": "epsilon", "subsampled_laplace_profile_inverse": "epsilon",
    "gaussian_sigma": "sigma",
    "safe_k_anonymization_delta": "delta", "eps1_safe_k_anonymization_delta": "delta",
    "safe_k_anonymization_min_k": "k", "safe_k_anonymization_min_epsilon": "epsilon",
    "safe_k_anonymization_max_beta": "beta",
    "missing_data_corollary": "epsilon", "fwl_ratio": "ratio",
}

# Public functions the shell cannot call, and why (``eval`` on them prints the reason).
NOT_FROM_SHELL = {
    "suppression_bound": "T13 takes your suppression algorithm (a Python callable) and its universe; "
                         "call bounds.suppression_bound from Python",
    "suppression_sensitivity": "it takes your suppression algorithm (a Python callable) and its universe; "
                               "call bounds.suppression_sensitivity from Python (T12 from the shell: "
                               "eval T12 --sensitivity D)",
    "fwl_linear": "it takes a list of matrices; call bounds.fwl_linear from Python",
    "fwl_projected_mean": "it takes a projection matrix; call bounds.fwl_projected_mean from Python",
}
# Reached by other subcommands.
OTHER_COMMANDS = {"theorem": "show", "theorems": "list", "latex": "latex",
                  "crosscheck": "crosscheck", "from_dp_event": "crosscheck --dp-event",
                  "from_opacus_history": "crosscheck --noise-multiplier/--rate/--steps",
                  "poisson_sampled": "compose --mechanism subsampled-gaussian",
                  "compose": "compose", "dpsgd_noise_multiplier": "calibrate",
                  "dpsgd_max_steps": "calibrate --noise-multiplier SIGMA",
                  # samplers of DP-SGD batches (issue 21)
                  "balls_and_bins": "compose --sampler balls-and-bins", "shuffled": "compose --sampler shuffle",
                  "random_allocation": "compose --sampler random-allocation --selected K",
                  "cyclic": "compose --sampler cyclic", "sampler_composition": "compose --sampler",
                  "sampler_noise_multiplier": "calibrate --sampler"}

_CHOICES = {
    "relation": ("substitute", "add_remove", "add/remove"),
    "direction": ("both", "remove", "add"),
    "scheme_chosen_on": ("unsampled", "sample"),
    "norm": ("l1", "l2"),
}
_MECHANISM_PARAMETERS = ("mechanism", "substitute")
_HELP = {
    "mechanism": "the base mechanism: gaussian:THETA, laplace:THETA (θ = Δ/σ or Δ/b = 1/noise multiplier) "
                 "or eps-delta:EPSILON,DELTA",
    "substitute": "the same mechanism under substitution (same forms as --mechanism); default: the group "
                  "profile at distance 2",
    "noise_multiplier": "noise multiplier σ/Δ (Opacus, dp_accounting); instead of --theta (θ = 1/noise multiplier)",
    "lipschitz": "the feature-wise Lipschitz constants L_1,…,L_d, comma separated",
    "rho": "ρ ∈ (0, 1], the fraction of a record's features that is observed",
    "d": "number of features d", "n": "number of records n", "cells": "number of histogram cells",
    "bound": "B with max‖z_i‖_∞ ≤ B", "clip": "clipping bound",
}


def _public() -> list[str]:
    import bounds

    return [n for n in bounds.__all__ if inspect.isfunction(getattr(bounds, n))]


def _function(name: str) -> Callable[..., Any]:
    import bounds

    return getattr(bounds, name)


def owner(name: str) -> str | None:
    for tid, meta in THEOREMS.items():
        if name in meta["public"]:
            return tid
    return _EXTRA_OWNERS.get(name)


def _main_functions(theorem_id: str) -> tuple[str | None, str | None]:
    """(forward, inverse) main function of a theorem; either may be None."""
    public = [f for f in THEOREMS[theorem_id]["public"] if f not in NOT_FROM_SHELL]
    inverse = [f for f in public if f.endswith(_INVERSE_SUFFIX)]
    forward = [f for f in public if not f.endswith(_INVERSE_SUFFIX)]
    return (forward[0] if forward else None), (inverse[0] if inverse else None)


def _parameters(name: str) -> dict[str, inspect.Parameter]:
    return {p.name: p for p in inspect.signature(_function(name)).parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def _help(function: str, parameter: str, theorem_id: str | None, inverse_target: bool = False) -> str:
    meta = THEOREMS.get(theorem_id or "", {"parameters": {}})
    record = meta["parameters"].get(parameter)
    text = _HELP.get(parameter) or (record["description"] if record else parameter)
    if parameter == "theta":
        text = "θ = Δ/σ (Gaussian) or Δ/b (Laplace) = 1/noise multiplier; a noise multiplier passed as θ " \
               "is optimistic when it is < 1 — use --noise-multiplier"
    if inverse_target and parameter in ("epsilon", "delta"):
        symbol = "ε" if parameter == "epsilon" else "δ"
        text = f"the TARGET {symbol}′ the result must satisfy (the base budget is returned)"
    if record is not None:
        from bounds._core import describe_domain

        text += f"; domain {describe_domain(record['domain'])}"
    return text.replace("%", "%%")


def _is_target(function: str, parameter: str) -> bool:
    """In an inverse query that returns a base budget (T1⁻¹, T14⁻¹), ε and δ are the target."""
    forward = function[: -len(_INVERSE_SUFFIX)] if function.endswith(_INVERSE_SUFFIX) else None
    return bool(forward) and parameter in _parameters(forward) and parameter in ("epsilon", "delta") \
        and "epsilon" in _parameters(function) and "delta" in _parameters(function)


def _mechanism(text: str) -> Any:
    import bounds

    kind, _, values = text.partition(":")
    try:
        numbers = [float(v) for v in values.split(",")] if values else []
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the values must be numbers") from None
    forms = {"gaussian": (bounds.Gaussian, 1), "laplace": (bounds.Laplace, 1), "eps-delta": (bounds.EpsDelta, 2)}
    if kind not in forms or len(numbers) != forms[kind][1]:
        raise argparse.ArgumentTypeError(f"{text!r}: expected gaussian:THETA, laplace:THETA or eps-delta:EPSILON,DELTA")
    try:
        if kind == "eps-delta":
            return forms[kind][0](*numbers)
        return forms[kind][0](theta=numbers[0])  # θ is keyword-only in the library (never a noise multiplier)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _numbers(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated numbers") from None


def _add_option(parser: argparse.ArgumentParser, function: str, p: inspect.Parameter, theorem_id: str | None,
                *, required: bool, help_text: str | None = None) -> None:
    name = p.name
    kwargs: dict[str, Any] = {"dest": name, "default": None,
                              "help": help_text or _help(function, name, theorem_id, _is_target(function, name))}
    if name in _MECHANISM_PARAMETERS:
        kwargs.update(type=_mechanism, metavar="KIND:VALUES")
    elif name in _CHOICES:
        kwargs.update(choices=_CHOICES[name], help=kwargs["help"] + f" (default {p.default})")
    elif name == "lipschitz":
        kwargs.update(type=_numbers, metavar="L1,L2,...")
    elif p.annotation in ("int", int, "int | None"):
        kwargs.update(type=int, metavar=name.upper())
    else:
        kwargs.update(type=float, metavar=name.upper())
    parser.add_argument(*option(name), required=required, **kwargs)


def _add_function_parser(targets: Any, function: str) -> None:
    tid = owner(function)
    doc = (inspect.getdoc(_function(function)) or "").split("\n\n")[0].replace("%", "%%")
    sub = targets.add_parser(function, help=f"{function} ({tid})" if tid else function,
                             description=doc + "\n\nTheorem reference: docs/theorems.md.")
    params = _parameters(function)
    for p in params.values():
        required = p.default is inspect.Parameter.empty and not (p.name == "theta" and "noise_multiplier" in params)
        _add_option(sub, function, p, tid, required=required)
    sub.add_argument("--json", action="store_true", help="print strict JSON instead of a table")
    sub.set_defaults(function=function, theorem_id=tid, fixed={}, unreachable=None, options=tuple(params))


def _add_theorem_parser(targets: Any, theorem_id: str) -> None:
    meta = THEOREMS[theorem_id]
    forward, inverse = _main_functions(theorem_id)
    keywords = _FIXED_KEYWORDS.get(theorem_id, {})
    call = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
    main_names = [f"{f}({call})" if call else f for f in (forward, inverse) if f]
    others = [f for f in meta["public"] if f not in (forward, inverse)]
    description = (f"SPEC {theorem_id}, {meta['name']} [{meta['provenance']}], relation: {meta['relation']}. "
                   f"{meta['statement']} Evaluates {' / '.join(main_names)}"
                   + ("; the theorem's other functions: " + ", ".join(f"`ampbounds eval {f}`" for f in others)
                      if others else "") + ". Reference: docs/theorems.md.")
    sub = targets.add_parser(theorem_id, help=f"{meta['name']}: {' / '.join(main_names)}",
                             description=description.replace("%", "%%"))
    names = [f for f in (forward, inverse) if f]
    params: dict[str, inspect.Parameter] = {}
    for f in names:
        params.update({k: v for k, v in _parameters(f).items() if k not in keywords})
    for name, p in params.items():
        takers = [f for f in names if name in _parameters(f)]
        if forward and inverse:
            if takers == [forward]:
                text = _help(forward, name, theorem_id) + " (not with --inverse)"
            elif takers == [inverse]:
                text = "with --inverse: " + _help(inverse, name, theorem_id, _is_target(inverse, name))
            elif _is_target(inverse, name):
                text = _help(forward, name, theorem_id) + "; with --inverse: " + \
                    _help(inverse, name, None, True)
            else:
                text = _help(forward, name, theorem_id)
        else:
            text = None
        _add_option(sub, takers[0], p, theorem_id, required=False, help_text=text)
    for lhs, op, rhs in meta["constraints"]:
        sub.epilog = (sub.epilog + "; " if sub.epilog else "requires ") + f"{lhs} {op} {rhs}"
    if inverse is not None and forward is not None:
        sub.add_argument("--inverse", action="store_true",
                         help=f"evaluate {inverse} instead of {forward}")
    sub.set_defaults(inverse=forward is None)
    sub.add_argument("--json", action="store_true", help="print strict JSON instead of a table")
    sub.set_defaults(function=None, theorem_id=theorem_id, fixed=keywords, unreachable=None, options=tuple(params))


def _add_unreachable_parser(targets: Any, target: str, reason: str, where: str = "the shell") -> None:
    sub = targets.add_parser(target, help=f"(not from {where}: {reason})",
                             description=f"{target}: not available from {where}: {reason}.")
    sub.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    sub.set_defaults(function=None, theorem_id=None, fixed={}, options=(),
                     unreachable=f"{target}: not available from {where}: {reason}")


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "eval", help="evaluate a theorem's bound or any public function",
        description="Evaluate a public function of the library: THEOREM is a theorem id (its main function; "
                    "--inverse for the inverse query) or a function name. `ampbounds eval TARGET --help` lists "
                    "its options. Every ε, δ, σ printed is on the safe side of the exact value.",
        epilog="not from the shell: " + "; ".join(f"{k} ({v})" for k, v in NOT_FROM_SHELL.items())
               + ". Elsewhere: " + "; ".join(f"{k} → `ampbounds {v}`" for k, v in OTHER_COMMANDS.items()))
    targets = p.add_subparsers(dest="target", required=True, metavar="TARGET")
    from bounds import theorems

    for tid in theorems():
        forward, inverse = _main_functions(tid)
        routes = [OTHER_COMMANDS[f] for f in THEOREMS[tid]["public"] if f in OTHER_COMMANDS]
        if (forward or inverse) and all(f in OTHER_COMMANDS for f in (forward, inverse) if f):
            # e.g. C1: its functions take mechanism objects; their own subcommands build them from options
            _add_unreachable_parser(targets, tid, "its functions take mechanism objects; use "
                                    + ", ".join(f"`ampbounds {r}`" for r in dict.fromkeys(routes)),
                                    where="`ampbounds eval`")
        elif forward or inverse:
            _add_theorem_parser(targets, tid)
        else:
            reasons = [NOT_FROM_SHELL[f] for f in THEOREMS[tid]["public"] if f in NOT_FROM_SHELL]
            _add_unreachable_parser(targets, tid, reasons[0] if reasons else "no function")
    for function in _public():
        if function in NOT_FROM_SHELL:
            _add_unreachable_parser(targets, function, NOT_FROM_SHELL[function])
        elif function not in OTHER_COMMANDS:
            _add_function_parser(targets, function)


def _shown(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):  # a mechanism object
        return repr(value)
    return value


def run(args: argparse.Namespace) -> int:
    if args.unreachable:
        raise UsageError(args.unreachable)
    if args.function is not None:
        name = args.function
    else:
        forward, inverse = _main_functions(args.theorem_id)
        name = inverse if args.inverse else forward
    assert name is not None
    accepted = _parameters(name)
    given = {k: getattr(args, k) for k in args.options if getattr(args, k) is not None}
    refused = [k for k in given if k not in accepted]
    if refused:
        raise UsageError(f"{name} does not take " + ", ".join(option(k)[0] for k in refused))
    missing = [k for k, p in accepted.items() if p.default is inspect.Parameter.empty and k not in given
               and not (k == "theta" and "noise_multiplier" in given)]
    if missing:
        raise UsageError(f"{name} needs " + ", ".join(option(k)[0] for k in missing))
    inputs = {**given, **args.fixed}
    result = _function(name)(**inputs)
    outputs = _outputs(name, result)
    shown = {k: _shown(_integer(v, k, args.theorem_id)) for k, v in inputs.items()}
    tid = args.theorem_id
    if args.json:
        write(dumps({"theorem": tid, "function": name, "inputs": shown, **outputs}))
        return 0
    title = THEOREMS[tid]["name"] if tid in THEOREMS else ""
    call = ", ".join(f"{k}={v!r}" for k, v in args.fixed.items())
    lines = [f"{tid} {title}: {name}({call})" if call else f"{tid} {title}: {name}"]
    label = "base budget" if name.endswith(_INVERSE_SUFFIX) and "delta" in outputs and "epsilon" in outputs \
        else "result"
    rows = [(k, repr(v) if isinstance(v, (int, float)) else str(v))
            for k, v in [*shown.items(), *outputs.items()]]
    body = table(rows)
    lines += ["  input", *body[:len(shown)], f"  {label}", *body[len(shown):]]
    write("\n".join(lines))
    return 0


def _integer(value: Any, name: str, theorem_id: str | None) -> Any:
    """An input as echoed back: integer parameters (m, n, k) as integers once validated."""
    record = THEOREMS.get(theorem_id or "", {"parameters": {}})["parameters"].get(name)
    if record and record["domain"][4] and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _outputs(name: str, result: Any) -> dict[str, Any]:
    """The named quantities of a result."""
    if hasattr(result, "epsilon") and hasattr(result, "delta"):
        return {"epsilon": float(result.epsilon), "delta": float(result.delta)}
    if hasattr(result, "__dataclass_fields__"):  # FWLQuery
        data = {k: _shown(getattr(result, k)) for k in result.__dataclass_fields__}
        data["lipschitz"] = [_shown(x) for x in result.lipschitz]
        data["sensitivity"] = _shown(result.sensitivity)
        return data
    value = result if isinstance(result, Fraction) else float(result)
    if name == "safe_k_anonymization_min_k":
        value = int(value) if value != float("inf") else value
    return {RESULT_NAMES[name]: _shown(value)}
