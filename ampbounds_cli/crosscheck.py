"""``ampbounds crosscheck``: is my accountant right?  Runs the installed peers on one mechanism and tabulates
each peer's ε with the certified enclosure and verdict (issue 13).

    ampbounds crosscheck --mechanism subsampled-gaussian --noise-multiplier 1 --rate 0.01 --delta 1e-5
    ampbounds crosscheck --dp-event event.json --delta 1e-5 --claim-epsilon "my paper=2.1"
    ampbounds crosscheck --sampler shuffle --noise-multiplier 1 --steps-per-epoch 100 --epochs 50 \
        --delta 1e-5 --claim-epsilon "Poisson accountant=4.20"

With ``--sampler`` the claims are decided for that batch sampler's composition
(``bounds.samplers.sampler_composition``; the header prints the sampler, the adjacency and the step convention);
the peers model Poisson sampling only, so they run for ``--sampler poisson`` alone.

Exit status (gate a CI job on it): 1 when any checked claim (a peer's ε or a ``--claim-epsilon``) is invalid;
3 when none is invalid but some is undecided or could not be checked (a peer reporting NaN, a negative or an
infinite ε); 0 when every checked claim is valid (or nothing was checked); 2 for bad input.  Peers not
installed, timed out or crashed report no claim and do not change the status.
"""
from __future__ import annotations

import argparse
import json
import math
from typing import Any

MECHANISMS = ("subsampled-gaussian", "gaussian", "subsampled-laplace", "laplace")
SAMPLER_WORDS = ("poisson", "balls-and-bins", "shuffle", "random-allocation", "fixed-size", "cyclic")
_SAMPLER_ONLY = ("adjacency", "epochs", "steps_per_epoch", "batch_size", "dataset_size")
EXIT_VALID, EXIT_INVALID, EXIT_UNDECIDED = 0, 1, 3
# peer statuses that are a claim (the peer answered with an ε) which could not be checked
_UNCHECKED_CLAIMS = ("nan", "negative", "infinite", "not checked", "bad claim")


def add_parser(subparsers: Any) -> None:
    """Register the ``crosscheck`` subcommand."""
    p = subparsers.add_parser(
        "crosscheck", help="check the ε other accountants report against certified bounds",
        description="Run each installed accountant (dp_accounting RDP/PLD, autodp, prv_accountant, Opacus when "
                    "torch is present) on one mechanism and tell, for each reported ε (and each --claim-epsilon), "
                    "whether the mechanism is (ε, δ)-DP: valid, invalid (certified: never a false alarm) or "
                    "undecided, with the certified enclosures.",
        epilog="exit status: 0 every checked claim valid (or none checked); 1 some claim INVALID; 3 none invalid "
               "but some undecided or not checkable (a peer reporting NaN/negative/infinite ε); 2 bad input. "
               "Use it to gate CI: `ampbounds crosscheck ... --claim-epsilon 2.1 || exit 1`.")
    p.add_argument("--mechanism", choices=MECHANISMS, default=None,
                   help="the mechanism of each step (default: subsampled-gaussian, DP-SGD)")
    p.add_argument("--noise-multiplier", type=float, metavar="SIGMA",
                   help="noise multiplier σ/Δ (Laplace: scale b/Δ)")
    p.add_argument("--rate", type=float, metavar="Q", help="Poisson sampling rate (subsampled mechanisms)")
    p.add_argument("--steps", type=int, default=1, help="number of steps (> 1 uses bounds.compose)")
    p.add_argument("--dp-event", metavar="FILE",
                   help="a dp_accounting DpEvent as JSON (nested objects with \"class_name\"; "
                        "bounds.peer_formats.dp_event_to_json writes it) instead of --mechanism")
    # batch samplers of DP-SGD (issue 21): bounds.crosscheck(sampler=...)
    p.add_argument("--sampler", choices=SAMPLER_WORDS, default=None,
                   help="decide the claims for this batch sampler (with --noise-multiplier, --epochs and "
                        "--steps-per-epoch or --batch-size/--dataset-size); poisson uses --rate, else b/n, else 1/T")
    p.add_argument("--adjacency", choices=("add_remove", "zero_out", "replace_one"), default=None,
                   help="neighbouring relation for --sampler (default: the sampler's; printed)")
    p.add_argument("--epochs", type=int, help="epochs E (with --sampler)")
    p.add_argument("--steps-per-epoch", type=int, help="batches per epoch T (with --sampler)")
    p.add_argument("--batch-size", type=int, help="batch size b (with --sampler; T = ⌈n/b⌉)")
    p.add_argument("--dataset-size", type=int, help="dataset size n (with --sampler)")
    p.add_argument("--selected", type=int, default=1, help="k of T steps per epoch for --sampler random-allocation")
    p.add_argument("--delta", type=float, required=True, help="the δ at which ε is reported")
    p.add_argument("--claim-epsilon", action="append", default=[], metavar="[LABEL=]EPS",
                   help="an ε to check besides the peers' (repeatable), optionally labelled")
    p.add_argument("--peers", default="all",
                   help="'all' (installed ones), 'none', or a comma-separated list of peer names")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per peer (default 120)")
    p.add_argument("--tolerance", type=float, help="bounds.compose tolerance for composed mechanisms")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=lambda args, extra=(): run(args))


def _fail(message: str) -> int:
    import sys

    print(f"error: {message}", file=sys.stderr)
    return 2


def _j(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x


def _sampler_target(args: argparse.Namespace) -> tuple[Any, dict | None, dict]:
    """(composition, peer spec or None, sampler record) for ``--sampler``."""
    from bounds import crosschecking as cc

    extra = [o for o, bad in (("--dp-event", args.dp_event), ("--mechanism", args.mechanism),
                              ("--steps", args.steps != 1)) if bad]
    if extra:
        raise ValueError(f"--sampler takes no {', '.join(extra)} (the sampler derives the steps from --epochs and "
                         "--steps-per-epoch or --batch-size/--dataset-size, with Gaussian noise)")
    missing = [o for o, v in (("--noise-multiplier", args.noise_multiplier), ("--epochs", args.epochs)) if v is None]
    if args.steps_per_epoch is None and (args.batch_size is None or args.dataset_size is None):
        missing.append("--steps-per-epoch (or --batch-size and --dataset-size)")
    if missing:
        raise ValueError(f"--sampler {args.sampler} needs {', '.join(missing)}")
    if args.rate is not None and args.sampler != "poisson":
        raise ValueError(f"--rate is Poisson's sampling rate; --sampler {args.sampler} takes none")
    target, info = cc.sampler_target(sampler=args.sampler, noise_multiplier=args.noise_multiplier,
                                     epochs=args.epochs, steps_per_epoch=args.steps_per_epoch,
                                     batch_size=args.batch_size, dataset_size=args.dataset_size,
                                     adjacency=args.adjacency, selected=args.selected, rate=args.rate,
                                     tolerance=args.tolerance)
    spec = None
    if args.sampler == "poisson":  # the peers' own model: the same rate and number of steps
        key = next(iter(target.steps))
        spec = {"steps": [["gaussian", args.noise_multiplier, key[3], target.total_steps]], "delta": args.delta}
    return target, spec, info


def _target_and_spec(args: argparse.Namespace) -> tuple[Any, dict]:
    from bounds import crosschecking as cc

    if getattr(args, "sampler", None) is None:
        given = [o for o in _SAMPLER_ONLY if getattr(args, o, None) is not None]
        if given or getattr(args, "selected", 1) != 1:
            raise ValueError(f"--{(given or ['selected'])[0].replace('_', '-')} describes a batch sampler; give "
                             "--sampler with it")
    if args.mechanism is None:
        args.mechanism = "subsampled-gaussian"
    if args.dp_event:
        with open(args.dp_event, encoding="utf-8") as fh:
            event = json.load(fh)
        target = cc.from_dp_event(event, tolerance=args.tolerance)
        steps = []
        for mech, count in cc._event_steps(event):  # the peers that do not read DpEvents get steps
            base, rate = (mech.mechanism, mech.rate) if isinstance(mech, cc.PoissonSampled) else (mech, None)
            if not isinstance(base, (cc.Gaussian, cc.Laplace)):
                steps = None
                break
            sigma = getattr(base, "noise_multiplier", None) or 1.0 / base.theta
            steps.append(["gaussian" if isinstance(base, cc.Gaussian) else "laplace", sigma, rate, count])
        return target, {"dp_event": event, "steps": steps, "delta": args.delta}
    if args.noise_multiplier is None:
        raise ValueError("give --noise-multiplier (and --rate for a subsampled mechanism) or --dp-event")
    subsampled = args.mechanism.startswith("subsampled")
    if subsampled and args.rate is None:
        raise ValueError(f"--mechanism {args.mechanism} needs --rate")
    if not subsampled and args.rate is not None:
        raise ValueError(f"--mechanism {args.mechanism} takes no --rate (use subsampled-…)")
    noise = "gaussian" if args.mechanism.endswith("gaussian") else "laplace"
    target = cc._from_keywords(args.noise_multiplier, args.rate, args.steps, noise, args.tolerance)
    return target, {"steps": [[noise, args.noise_multiplier, args.rate, args.steps]], "delta": args.delta}


def _claims(args: argparse.Namespace) -> list[tuple[str, float]]:
    out = []
    for i, text in enumerate(args.claim_epsilon):
        label, sep, value = text.rpartition("=")
        try:
            out.append((label if sep else f"claim {i + 1}", float(value)))
        except ValueError:
            raise ValueError(f"--claim-epsilon {text!r}: not a number (use [LABEL=]EPS)") from None
    return out


def exit_status(rows: list[dict]) -> int:
    """1 if a claim is invalid; else 3 if one is undecided or could not be checked; else 0."""
    verdicts = [r["verdict"].verdict for r in rows if r["verdict"] is not None]
    if "invalid" in verdicts:
        return EXIT_INVALID
    if "undecided" in verdicts or any(r["verdict"] is None and r["status"] in _UNCHECKED_CLAIMS for r in rows):
        return EXIT_UNDECIDED
    return EXIT_VALID


def sharpened(eps_s: Any, rows: list[dict]) -> tuple[float, float]:
    """The certified ε(δ) interval the verdicts used, sharpened by them: each verdict's own ε enclosure (a
    composition may have refined its grid while deciding), a valid claim ε as an upper bound (ε_M(δ) ≤ ε),
    an invalid claim ε as a lower bound (ε_M(δ) > ε).  Every claim marked valid is then ≥ the upper end and
    every invalid one ≤ the lower end."""
    lo, hi = float(eps_s.lower), float(eps_s.upper)
    for r in rows:
        v = r["verdict"]
        if v is None:
            continue
        lo, hi = max(lo, v.epsilon.lower), min(hi, v.epsilon.upper)
        if v.verdict == "valid":
            hi = min(hi, v.epsilon_claim)
        elif v.verdict == "invalid":
            lo = max(lo, v.epsilon_claim)
    return lo, hi


def run(args: argparse.Namespace) -> int:
    """Run ``ampbounds crosscheck``; returns the exit code (0 all valid, 1 some invalid, 3 undecided, 2 bad
    input)."""
    from bounds import crosschecking as cc

    info = spec = None
    try:
        if getattr(args, "sampler", None):
            target, spec, info = _sampler_target(args)
        else:
            target, spec = _target_and_spec(args)
        claims = _claims(args)
        d = cc._claim("delta", args.delta, 1.0)
        enclosure = target if cc._is_composition(target) else cc.enclosure(target)
        described = cc.describe_composition(target) if cc._is_composition(target) else enclosure.description
        if info is not None:
            described = f"{info['description']} ({described})"
        eps_s = cc._scalar_sandwich(enclosure.epsilon(d), "epsilon(delta)")
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    rows: list[dict] = []
    peers_note = ""
    if spec is None and args.peers != "none":
        peers_note = (f"peers not run: they account for Poisson sampling, not {args.sampler} batches; give the ε they "
                      "report as --claim-epsilon to check it for this sampler")
    elif args.peers != "none":
        from bounds.peers import PEERS, run_peers

        names = None if args.peers == "all" else [p.strip() for p in args.peers.split(",") if p.strip()]
        try:
            results = run_peers(spec, target, peers=names or PEERS, timeout=args.timeout)
        except ValueError as exc:
            return _fail(str(exc))
        for r in results:
            rows.append({"source": r.peer, "epsilon": r.epsilon, "status": r.status, "seconds": r.seconds,
                         "verdict": r.verdict, "message": r.message})
    for label, eps in claims:
        try:
            if info is not None:  # the one composition, decided with the sampler named
                if eps == math.inf:
                    raise ValueError("crosscheck: epsilon = inf claims nothing; it must be a finite ε ≥ 0")
                v = cc.decide(target, cc._claim("epsilon", eps, math.inf), d, info)
            else:
                v = cc.crosscheck(target, epsilon=eps, delta=d)
            rows.append({"source": label, "epsilon": eps, "status": "ok", "seconds": None, "verdict": v,
                         "message": ""})
        except ValueError as exc:
            rows.append({"source": label, "epsilon": eps, "status": "bad claim", "seconds": None, "verdict": None,
                         "message": str(exc)})
    code = exit_status(rows)
    lo, hi = sharpened(eps_s, rows)
    if args.json:
        print(json.dumps({
            "mechanism": described, "delta": d, "certified_epsilon": [_j(lo), _j(hi)],
            **({"sampler": info} if info is not None else {}),
            **({"note": peers_note} if peers_note else {}),
            "exit_status": code,
            "rows": [{"source": r["source"], "epsilon": _j(r["epsilon"]), "status": r["status"],
                      "seconds": r["seconds"], "message": r["message"],
                      **({"check": r["verdict"].as_dict()} if r["verdict"] is not None else {})} for r in rows]},
            indent=2, ensure_ascii=False, allow_nan=False))
        return code
    if info is not None:
        print(f"sampler: {info['sampler'].replace('_', '-')}; adjacency: {info['adjacency'].replace('_', '-')}; "
              f"convention: {info['convention']}; certified: {info['certified']}")
    print(f"mechanism: {described}")
    print(f"at δ = {d:g} the smallest ε is certified in [{lo!r}, {hi!r}] (the enclosure the verdicts used)")
    print()
    header = ("source", "reported ε", "verdict", "certified δ at that ε", "slack in ε", "peer time")
    table = [header]
    for r in rows:
        v = r["verdict"]
        eps = "—" if r["epsilon"] is None else repr(r["epsilon"])
        secs = "" if r["seconds"] is None else f"{r['seconds']:.2f} s"
        if r["status"] == "not installed":
            continue
        if v is None:
            table.append((r["source"], eps, r["status"].upper(), r["message"][:60], "", secs))
            continue
        lo_t, hi_t = f"{v.delta.lower:.6g}", f"{v.delta.upper:.6g}"
        dtext = hi_t if lo_t == hi_t else f"[{lo_t}, {hi_t}]"
        if v.verdict == "valid":
            slack = f"+{max(v.slack.lower, 0.0):.4g}"
        elif v.verdict == "invalid":
            slack = f"−{max(-v.slack.upper, 0.0):.4g}"
        else:
            slack = f"[{v.slack.lower:.3g}, {v.slack.upper:.3g}]"
        table.append((r["source"], eps, v.verdict.upper() if v.verdict == "invalid" else v.verdict, dtext, slack,
                      secs))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    for k, row in enumerate(table):
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))
    if peers_note:
        print(f"\n{peers_note}")
    missing = [r["source"] for r in rows if r["status"] == "not installed"]
    if missing:
        print(f"\nnot installed: {', '.join(missing)} (dp-accounting, autodp, prv-accountant: pip install "
              "'ampbounds[crosscheck]'; Opacus needs torch)")
    undecided = [r for r in rows if r["verdict"] is not None and r["verdict"].verdict == "undecided"]
    for r in undecided:
        print(f"\n{r['source']}: {r['verdict'].explanation}")
    print("\nvalid: certified upper δ ≤ claimed δ; INVALID: certified lower δ > claimed δ (the claim is wrong); "
          "slack: how much larger (+) or smaller (−) than the smallest valid ε the reported ε is.")
    print(f"exit status {code}: " + {EXIT_VALID: "every checked claim is valid", EXIT_INVALID: "a claim is INVALID",
                                     EXIT_UNDECIDED: "no claim invalid, but some undecided or not checkable"}[code])
    return code
