"""``ampbounds audit``: run a built-in privacy audit (issue 22, part 2) and say whether it refutes the certified
guarantee of a procedure ∘ mechanism.  An audit can refute a claim, never prove it.

    ampbounds audit poisson-rr --trials 100000 --seed 1
    ampbounds audit suppression-star --json
    ampbounds audit list

Exit codes: 0 not refuted; 1 refuted (the implementation is not the procedure its bound assumes, or the bound
is wrong); 2 bad input.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ._common import dumps

# The built-in scenarios (bounds.audit.SCENARIOS; a test keeps the two equal).  Listed here so that building
# the parser does not import numpy and mpmath.
SCENARIO_NAMES = ("poisson-rr", "swor-rr", "suppression-copies", "suppression-star", "normalisation",
                  "self-exclusion", "recompute", "fixed-size")


def add_parser(subparsers: Any) -> None:
    """Register the ``audit`` subcommand."""
    p = subparsers.add_parser(
        "audit", help="audit a procedure ∘ mechanism against its certified (ε, δ) (can refute, never prove)",
        description="Run a built-in audit scenario: an exact audit (the exact ε of procedure ∘ mechanism on the "
                    "scenario's neighbouring pair, when its records are kept independently) and a Monte Carlo "
                    "audit of the procedure's code (an exact Clopper–Pearson ε lower bound).  Either exceeding "
                    "the certified ε refutes it.  An audit can refute a claim, never prove it.  Scenarios: "
                    + ", ".join(SCENARIO_NAMES) + "; `list` describes them.")
    p.add_argument("scenario", metavar="SCENARIO", choices=[*SCENARIO_NAMES, "list"],
                   help="a built-in scenario, or `list`")
    p.add_argument("--trials", type=int, default=100_000, help="Monte Carlo runs per input (default 100000; "
                                                               "0: exact audit only)")
    p.add_argument("--seed", type=int, default=0, help="seed of numpy.random.default_rng (default 0)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence of the lower bound (default 0.95)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.set_defaults(handler=lambda args, extra=None: run(args))


def _progress_writer(label: str, total: int, enabled: bool) -> Any:
    """A callback printing ``label: done/total runs`` on stderr, redrawn in place on a terminal and at most
    every 10 % otherwise (one line per update)."""
    state = {"done": 0, "shown": -1}
    tty = sys.stderr.isatty()

    def update(runs: int) -> None:
        state["done"] += runs
        if not enabled:
            return
        tenth = 10 * state["done"] // max(total, 1)
        if tty:
            sys.stderr.write(f"\r\x1b[K{label}: {state['done']}/{total} runs")
            sys.stderr.flush()
        elif tenth != state["shown"]:
            state["shown"] = tenth
            sys.stderr.write(f"{label}: {state['done']}/{total} runs\n")
            sys.stderr.flush()

    return update


def run(args: argparse.Namespace) -> int:
    """Execute ``ampbounds audit``; returns the exit code (0 not refuted, 1 refuted, 2 bad input)."""
    from bounds.audit import NEVER_PROVES, SCENARIOS, scenario

    if args.scenario == "list":
        for name, builder in SCENARIOS.items():
            doc = (builder.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
            print(f"{name}\n    {' '.join(doc.split())}")
        return 0
    if args.trials < 0 or args.trials == 1:
        print("error: audit: --trials must be 0 (exact audit only) or ≥ 2", file=sys.stderr)
        return 2
    start = time.process_time()
    try:
        s = scenario(args.scenario)
        results = []
        if s.keep_probabilities is not None:
            results.append(s.exact())
        if args.trials:
            progress = _progress_writer(f"audit {s.name}", 2 * args.trials, not args.no_progress)
            results.append(s.monte_carlo(trials=args.trials, seed=args.seed, confidence=args.confidence,
                                         progress=progress))
            if sys.stderr.isatty() and not args.no_progress:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    refuted = any(r.refuted for r in results)
    seconds = time.process_time() - start
    if args.json:
        print(dumps({"scenario": s.name, "description": s.description, "relation": s.relation,
                          "parameters": s.parameters, "claim": {"epsilon": s.claim.epsilon, "delta": s.claim.delta},
                          "expected_exact_epsilon": s.expected, "verdict": "refuted" if refuted else "not refuted",
                          "audits": [r.as_dict() for r in results], "seed": args.seed, "cpu_seconds": seconds,
                          "note": NEVER_PROVES}, indent=1))
        return 1 if refuted else 0
    print(f"{s.name}: {s.description} ({s.relation} neighbours; {s.parameters})")
    print(f"    certified claim      (ε, δ) = ({s.claim.epsilon:.6g}, {s.claim.delta:.3g})")
    if s.expected is not None:
        print(f"    known exact ε of the pair   = {s.expected:.6g}")
    for r in results:
        if r.kind == "exact":
            print(f"    exact audit          ε = {r.epsilon:.6g} on this pair  → {r.verdict}")
        else:
            d = r.details
            print(f"    Monte Carlo audit    ε ≥ {r.epsilon:.6g} at {100 * r.confidence:g} % confidence  → "
                  f"{r.verdict}")
            print(f"        event {d['event']}: {d['events_1']}/{d['trials_1']} on D₁, "
                  f"{d['events_0']}/{d['trials_0']} on D₀; {d['statement']}")
    print(f"verdict: {'REFUTED' if refuted else 'not refuted'}  ({seconds:.1f} s CPU, seed {args.seed})")
    print(NEVER_PROVES)
    return 1 if refuted else 0
