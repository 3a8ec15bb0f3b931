"""``ampbounds compose``: the certified sandwich of a DP-SGD composition (issue 12).

    ampbounds compose --mechanism subsampled-gaussian --noise-multiplier 1 --rate 0.01 --steps 1000 --delta 1e-5
    ampbounds compose ... --epsilon 1.0 [--json]
    ampbounds compose --sampler balls-and-bins --noise-multiplier 1 --steps-per-epoch 100 --epochs 50 --delta 1e-5

Prints ε(δ) (with ``--delta``) and/or δ(ε) (with ``--epsilon``) as ``lower ≤ exact ≤ upper``.  The noise is
given as a DP-SGD noise multiplier σ (θ = 1/σ, sensitivity 1) or directly as ``--theta`` (θ = Δ/σ, Δ/b).
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import Any

MECHANISMS = ("subsampled-gaussian", "subsampled-laplace", "gaussian", "laplace")
SAMPLER_WORDS = ("poisson", "balls-and-bins", "shuffle", "random-allocation", "fixed-size", "cyclic")


def _sampler_composition(args: argparse.Namespace) -> tuple[Any, str]:
    """(Composition, description) for ``--sampler`` (issue 21)."""
    from bounds.samplers import sampler_composition

    if args.noise_multiplier is None:
        raise ValueError("--sampler needs --noise-multiplier (σ)")
    if args.epochs is None:
        raise ValueError("--sampler needs --epochs")
    return sampler_composition(sampler=args.sampler.replace("-", "_"), noise_multiplier=args.noise_multiplier,
                               epochs=args.epochs, steps_per_epoch=args.steps_per_epoch,
                               batch_size=args.batch_size, dataset_size=args.dataset_size,
                               adjacency=args.adjacency, selected=args.selected, tolerance=args.tolerance)


def add_parser(subparsers: Any) -> None:
    """Register the ``compose`` subcommand on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "compose", help="certified ε/δ sandwich of a T-fold composition (DP-SGD)",
        description="Certified composition: lower ≤ exact ≤ upper for the T-fold composition of a (Poisson-"
                    "subsampled) Gaussian or Laplace mechanism under add/remove (proof: docs/composition_proof.md).")
    p.add_argument("--mechanism", choices=MECHANISMS, default="subsampled-gaussian")
    noise = p.add_mutually_exclusive_group(required=True)
    noise.add_argument("--noise-multiplier", type=float, help="σ (noise std / sensitivity; θ = 1/σ); for Laplace "
                                                              "the scale b / sensitivity")
    noise.add_argument("--theta", type=float, help="θ = Δ/σ (Gaussian) or Δ/b (Laplace)")
    p.add_argument("--rate", type=float, default=None, help="Poisson sampling rate q (subsampled mechanisms)")
    p.add_argument("--steps", type=float, default=None, help="number of steps T (required without --sampler)")
    # samplers of DP-SGD batches (issue 21): bounds.samplers.sampler_composition
    p.add_argument("--sampler", choices=SAMPLER_WORDS, default=None,
                   help="account for this batch sampler (with --noise-multiplier, --epochs and --steps-per-epoch or "
                        "--batch-size/--dataset-size); poisson uses q = b/n or 1/T")
    p.add_argument("--epochs", type=int, default=None, help="epochs E (with --sampler)")
    p.add_argument("--steps-per-epoch", type=int, default=None, help="batches per epoch T (with --sampler)")
    p.add_argument("--batch-size", type=int, default=None, help="batch size b (with --sampler; T = ⌈n/b⌉)")
    p.add_argument("--dataset-size", type=int, default=None, help="dataset size n (with --sampler)")
    p.add_argument("--adjacency", choices=("add_remove", "zero_out", "replace_one"), default=None,
                   help="neighbouring relation (default: the sampler's; printed with the result)")
    p.add_argument("--selected", type=int, default=1, help="k of T for --sampler random-allocation")
    p.add_argument("--delta", type=float, action="append", help="report ε(δ) (repeatable)")
    p.add_argument("--epsilon", type=float, action="append", help="report δ(ε) (repeatable)")
    p.add_argument("--tolerance", type=float, default=1e-3, help="target width of the ε sandwich (default 1e-3)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress line on stderr (it is shown only when stderr is a terminal)")
    p.set_defaults(handler=lambda args, extra=None: run(args))


def _mechanism(args: argparse.Namespace) -> Any:
    import bounds

    gaussian = args.mechanism in ("subsampled-gaussian", "gaussian")
    if args.theta is not None:
        base = bounds.Gaussian(args.theta) if gaussian else bounds.Laplace(args.theta)
    elif gaussian:
        base = bounds.Gaussian.from_noise_multiplier(args.noise_multiplier)
    else:
        base = bounds.Laplace.from_scale(args.noise_multiplier)
    if args.mechanism.startswith("subsampled"):
        if args.rate is None:
            raise ValueError(f"--rate is required for {args.mechanism}")
        return bounds.poisson_sampled(base, args.rate)
    return base


class Progress:
    """A one-line progress indication on a terminal: the current stage and the elapsed (wall-clock) time,
    redrawn in place (``\r``) on every stage change and every ``interval`` seconds by a daemon thread.
    Silent when the stream is not a terminal (piped or redirected output stays clean)."""

    def __init__(self, stream: Any, label: str, enabled: bool = True, interval: float = 0.5) -> None:
        isatty = getattr(stream, "isatty", None)
        self.active = bool(enabled and isatty is not None and isatty())
        self.stream, self.label, self.interval = stream, label, interval
        self.stage = "starting"
        self.start = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def _draw(self) -> None:
        with self._lock:
            line = f"{self.label}: {self.stage} [{time.monotonic() - self.start:.1f} s]"
            self.stream.write("\r\x1b[K" + line)
            self.stream.flush()

    def update(self, stage: str) -> None:
        self.stage = stage
        if self.active:
            self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._draw()

    def __enter__(self) -> "Progress":
        if self.active:
            self._draw()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.active:
            self._stop.set()
            if self._thread is not None:
                self._thread.join()
            with self._lock:
                self.stream.write("\r\x1b[K")
                self.stream.flush()


def run(args: argparse.Namespace) -> int:
    """Execute ``ampbounds compose``; returns the exit code (2 with ``error: ...`` on bad input)."""
    import warnings

    import bounds

    if not args.delta and not args.epsilon:
        args.delta = [1e-5]
    start = time.process_time()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            described = None
            if getattr(args, "sampler", None):
                comp, described = _sampler_composition(args)
            else:
                if args.steps is None:
                    raise ValueError("--steps is required (or --sampler with --epochs)")
                comp = bounds.compose([(_mechanism(args), args.steps)], tolerance=args.tolerance)
            rows = []
            with Progress(sys.stderr, f"composing {comp.total_steps} steps",
                          enabled=not getattr(args, "no_progress", False)) as progress:
                comp.progress = progress.update
                for d in args.delta or []:
                    progress.update(f"ε at δ = {d:g}")
                    s = comp.epsilon(d)
                    rows.append({"query": "epsilon", "delta": d, "lower": s.lower, "upper": s.upper})
                for e in args.epsilon or []:
                    progress.update(f"δ at ε = {e:g}")
                    s = comp.delta(e)
                    rows.append({"query": "delta", "epsilon": e, "lower": s.lower, "upper": s.upper})
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    notes = [str(w.message) for w in caught]
    seconds = time.process_time() - start
    if args.json:
        print(json.dumps({"mechanism": args.mechanism, "sampler": described, "noise_multiplier": args.noise_multiplier,
                          "theta": args.theta, "rate": args.rate, "steps": comp.total_steps,
                          "tolerance": args.tolerance, "results": rows, "warnings": notes,
                          "cpu_seconds": round(seconds, 3)}, indent=2))
        return 0
    if described:
        print(f"sampler: {described}")
    for r in rows:
        if r["query"] == "epsilon":
            print(f"epsilon(delta={r['delta']:g}): {r['lower']:.9g} <= epsilon <= {r['upper']:.9g}  "
                  f"(certified; width {r['upper'] - r['lower']:.3g})")
        else:
            print(f"delta(epsilon={r['epsilon']:g}): {r['lower']:.9g} <= delta <= {r['upper']:.9g}  (certified)")
    for n in notes:
        print(f"note: {n}")
    return 0
