"""``ampbounds calibrate``: the certified DP-SGD noise multiplier for a budget (issue 21), or with
``--noise-multiplier`` the number of steps a budget allows.

    ampbounds calibrate --epsilon 8 --delta 1e-5 --batch-size 256 --dataset-size 50000 --epochs 60
    ampbounds calibrate --epsilon 8 --delta 1e-5 --rate 0.00512 --steps 11760 [--json]
    ampbounds calibrate --epsilon 8 --delta 1e-5 --batch-size 256 --dataset-size 50000 --noise-multiplier 1.1

Samplers are plugged in through ``SAMPLERS`` (name → :class:`Sampler`): each states how batch size, dataset
size and epochs become its parameters (the convention is printed with the result) and which certified
calibration it calls.  ``poisson`` (Poisson subsampling, add/remove): rate q = batch size / dataset size,
steps T = epochs · ⌈dataset size / batch size⌉ (the expected batch is the batch size; one epoch is as many
steps as a loader with that batch size yields), calibrated by ``bounds.dpsgd_noise_multiplier`` /
``bounds.dpsgd_max_steps``.  ``balls-and-bins``, ``random-allocation``, ``fixed-size`` and ``cyclic``: T =
⌈dataset size / batch size⌉ steps per epoch (fixed-size: E·T steps of b of n), the composition of
``bounds.samplers.sampler_composition``, σ found by ``bounds.sampler_noise_multiplier`` (the library's search:
σ⁺ whose certified *upper* ε is ≤ the target (safe) and σ⁻ whose certified *lower* ε exceeds it).  ``shuffle`` is
refused: only a lower side is certified for shuffled batches (no σ can be certified safe except through the
cyclic bound — use ``--sampler cyclic`` for that).

A progress line (the σ being tried, certified or only steering the search, and the elapsed time) is drawn on
stderr when it is a terminal.  ``--json`` is strict JSON.  Exit status 0, or 2 for bad input (an unknown sampler included).
"""
from __future__ import annotations

import argparse
import contextlib
import math
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ._common import UsageError, dumps


@dataclass(frozen=True)
class Sampler:
    """How a batch sampler is calibrated from the shell.

    ``convention(batch_size, dataset_size, epochs)`` → (rate, steps, text stating the convention);
    ``noise_multiplier(epsilon, delta, rate, steps, tolerance, progress)`` and ``max_steps(epsilon, delta, rate,
    noise_multiplier, tolerance)`` → ``bounds.Sandwich`` (certified)."""

    name: str
    description: str
    convention: Callable[[int, int, int], tuple[float, int, str]]
    noise_multiplier: Callable[..., Any] | None
    max_steps: Callable[..., Any] | None = None
    word: str | None = None  # bounds.samplers word: σ by bounds.sampler_noise_multiplier (needs b, n, E)
    refusal: str | None = None  # why σ cannot be calibrated for this sampler


def _poisson_convention(batch_size: int, dataset_size: int, epochs: int) -> tuple[float, int, str]:
    per_epoch = -(-dataset_size // batch_size)  # ⌈N/B⌉
    rate = batch_size / dataset_size
    return rate, epochs * per_epoch, (f"rate q = batch size / dataset size = {batch_size}/{dataset_size} = {rate!r}; "
                                      f"steps T = epochs · ⌈dataset size / batch size⌉ = {epochs} · {per_epoch} = "
                                      f"{epochs * per_epoch}")


def _poisson_noise_multiplier(epsilon: float, delta: float, rate: float, steps: int, tolerance: float,
                              progress: Any = None) -> Any:
    import bounds

    return bounds.dpsgd_noise_multiplier(epsilon, delta, rate, steps, tolerance=tolerance, progress=progress)


def _poisson_max_steps(epsilon: float, delta: float, rate: float, sigma: float, tolerance: float) -> Any:
    import bounds

    return bounds.dpsgd_max_steps(epsilon, delta, rate, sigma, tolerance=tolerance)


def _epoch_convention(batch_size: int, dataset_size: int, epochs: int) -> tuple[float, int, str]:
    per_epoch = -(-dataset_size // batch_size)
    return (batch_size / dataset_size, epochs * per_epoch,
            f"T = ⌈dataset size / batch size⌉ = ⌈{dataset_size}/{batch_size}⌉ = {per_epoch} steps per epoch × "
            f"{epochs} epochs = {epochs * per_epoch} steps")


class _Told:
    """A ``progress`` callback for the library's calibrations: draws each evaluation on the progress line and
    counts the certified ones."""

    def __init__(self, progress: Any) -> None:
        self.progress, self.certified, self.located = progress, 0, 0

    def __call__(self, step: Any) -> None:
        if step.done:
            return
        if step.stage == "certified":
            self.certified += 1
            text = f"evaluation {self.certified}: σ = {step.noise_multiplier:.7g}, certified composition"
        else:
            self.located += 1
            text = f"locating: σ = {step.noise_multiplier:.7g}, estimate {self.located}"
        self.progress.update(text)


_SHUFFLE_REFUSAL = ("--sampler shuffle: only a LOWER side is certified for shuffled batches (no tight upper bound is "
                    "known), so no σ can be certified to meet the budget except through the cyclic bound, which "
                    "dominates shuffling: use --sampler cyclic for a safe σ (loose), or balls-and-bins if the "
                    "pipeline can draw its batches that way")

# Sampler name → how it is calibrated.  Samplers of issue 21 (balls-and-bins, shuffling, random allocation,
# fixed-size batches) plug in here with their own convention and certified calibration.
SAMPLERS: dict[str, Sampler] = {
    "poisson": Sampler("poisson", "Poisson subsampling (each record in each step independently with probability "
                                  "q), add/remove adjacency",
                       _poisson_convention, _poisson_noise_multiplier, _poisson_max_steps),
    "balls-and-bins": Sampler("balls-and-bins", "each record in one uniformly random batch of each epoch (fresh bins "
                                                "every epoch), add/remove adjacency, certified sandwich",
                              _epoch_convention, None, word="balls_and_bins"),
    "random-allocation": Sampler("random-allocation", "each record in --selected of the T steps of each epoch, "
                                                      "add/remove adjacency, upper side by decomposition",
                                 _epoch_convention, None, word="random_allocation"),
    "fixed-size": Sampler("fixed-size", "a fresh batch of exactly b of n records each step (sampling without "
                                        "replacement), replace-one adjacency by default",
                          _epoch_convention, None, word="fixed_size"),
    "cyclic": Sampler("cyclic", "the same deterministic batches every epoch, zero-out adjacency by default, exact",
                      _epoch_convention, None, word="cyclic"),
    "shuffle": Sampler("shuffle", "shuffled fixed-size batches: lower side only (refused)", _epoch_convention, None,
                       refusal=_SHUFFLE_REFUSAL),
}


def add_parser(subparsers: Any) -> None:
    """Register the ``calibrate`` subcommand."""
    p = subparsers.add_parser(
        "calibrate", help="certified DP-SGD noise multiplier for a budget (or the steps a σ allows)",
        description="Certified calibration of DP-SGD: the noise multiplier σ whose certified upper bound meets "
                    "(ε, δ) (and a σ below which the budget is provably violated), for the batch sampler given. "
                    "Give --batch-size, --dataset-size and --epochs (the sampler's convention turns them into "
                    "rate and steps, and is printed), or --rate and --steps directly. With --noise-multiplier, "
                    "the number of steps the budget allows instead.",
        epilog="samplers: " + "; ".join(f"{k}: {v.description}" for k, v in SAMPLERS.items())
               + ". Exit status 0, or 2 for bad input.")
    p.add_argument("--epsilon", type=float, required=True, help="target ε")
    p.add_argument("--delta", type=float, required=True, help="target δ")
    p.add_argument("--sampler", default="poisson", metavar="NAME",
                   help="batch sampler: " + ", ".join(SAMPLERS) + " (default poisson)")
    p.add_argument("--batch-size", type=int, help="(expected) batch size B")
    p.add_argument("--dataset-size", type=int, help="number of records N")
    p.add_argument("--epochs", type=int, help="number of epochs E")
    p.add_argument("--rate", type=float, help="sampling rate q (instead of batch and dataset size)")
    p.add_argument("--steps", type=int, help="number of steps T (instead of epochs)")
    p.add_argument("--noise-multiplier", type=float, metavar="SIGMA",
                   help="calibrate the number of steps for this σ instead of σ for the steps")
    p.add_argument("--adjacency", choices=("add_remove", "zero_out", "replace_one"), default=None,
                   help="neighbouring relation for the samplers other than poisson (default: the sampler's)")
    p.add_argument("--selected", type=int, default=1, help="k of T steps per epoch (random-allocation)")
    p.add_argument("--tolerance", type=float, default=1e-3, help="composition grid tolerance (default 1e-3)")
    p.add_argument("--json", action="store_true", help="print strict JSON")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress line on stderr (it is shown only when stderr is a terminal)")
    p.set_defaults(handler=lambda args, extra=None: run(args))


def _sampler(name: str) -> Sampler:
    if name not in SAMPLERS:
        raise UsageError(f"--sampler {name!r} is not known; available: {', '.join(SAMPLERS)}")
    return SAMPLERS[name]


def _rate_and_steps(args: argparse.Namespace, sampler: Sampler, need_steps: bool) -> tuple[float, int | None, str,
                                                                                            int | None]:
    """(rate, steps, convention text, steps per epoch or None) from either option form."""
    batch_form = args.batch_size is not None or args.dataset_size is not None
    if batch_form:
        if args.rate is not None:
            raise UsageError("give --rate or --batch-size/--dataset-size, not both")
        if args.batch_size is None or args.dataset_size is None:
            raise UsageError("--batch-size and --dataset-size go together")
        if args.batch_size < 1 or args.dataset_size < 1 or args.batch_size > args.dataset_size:
            raise UsageError(f"--batch-size {args.batch_size} and --dataset-size {args.dataset_size} must satisfy "
                             "1 ≤ batch size ≤ dataset size")
        if args.epochs is not None and args.steps is not None:
            raise UsageError("give --epochs or --steps, not both")
        epochs = args.epochs if args.epochs is not None else 1
        if epochs < 1:
            raise UsageError(f"--epochs {epochs} must be ≥ 1")
        rate, steps, text = sampler.convention(args.batch_size, args.dataset_size, epochs)
        per_epoch = steps // epochs
        if args.steps is not None:
            steps, text = args.steps, text.split(";")[0] + f"; steps T = {args.steps} (given)"
        elif args.epochs is None:
            if need_steps:
                raise UsageError("give --epochs or --steps")
            steps, text = None, text.split(";")[0] + f"; one epoch = ⌈dataset size / batch size⌉ = {per_epoch} steps"
        return rate, steps, text, per_epoch
    if args.rate is None:
        raise UsageError("give --batch-size and --dataset-size (with --epochs), or --rate (with --steps)")
    if args.epochs is not None:
        raise UsageError("--epochs needs --batch-size and --dataset-size (an epoch's length); with --rate give "
                         "--steps")
    if need_steps and args.steps is None:
        raise UsageError("--rate needs --steps")
    return args.rate, args.steps, f"rate q = {args.rate!r} and steps T = {args.steps} (given)", None


@contextlib.contextmanager
def _reporting(progress: Any) -> Iterator[None]:
    """Tell ``progress`` each T the step calibration evaluates (wraps ``bounds.calibration._dpsgd_delta``
    for the duration; without that hook the line shows the elapsed time only)."""
    from bounds import calibration as composition

    original = getattr(composition, "_dpsgd_delta", None)
    if original is None or not getattr(progress, "active", False):
        yield
        return
    count = 0

    def reported(*a: Any, **k: Any) -> Any:
        nonlocal count
        count += 1
        sigma = a[0] if a else k.get("sigma")
        steps = a[2] if len(a) > 2 else k.get("steps")
        side = a[5] if len(a) > 5 else k.get("side", "")
        progress.update(f"evaluation {count}: σ = {sigma:.6g}, T = {steps}, {side} bound")
        return original(*a, **k)

    composition._dpsgd_delta = reported
    try:
        yield
    finally:
        composition._dpsgd_delta = original


def run(args: argparse.Namespace) -> int:
    """Run ``ampbounds calibrate``; returns the exit code."""
    import warnings

    from .compose import Progress

    sampler = _sampler(args.sampler)
    if sampler.refusal:
        raise UsageError(sampler.refusal)
    if sampler.word is None and (args.adjacency is not None or args.selected != 1):
        raise UsageError(f"--sampler {sampler.name} takes no --adjacency/--selected (add/remove, one per step)")
    if sampler.word is not None:
        return _run_bisection(args, sampler)
    steps_mode = args.noise_multiplier is not None
    if steps_mode and sampler.max_steps is None:
        raise UsageError(f"--sampler {sampler.name} has no step calibration (--noise-multiplier)")
    rate, steps, convention, per_epoch = _rate_and_steps(args, sampler, need_steps=not steps_mode)
    start = time.process_time()
    label = f"calibrating {'steps' if steps_mode else 'σ'} ({sampler.name})"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Progress(sys.stderr, label, enabled=not args.no_progress) as progress, _reporting(progress):
            if steps_mode:
                result = sampler.max_steps(args.epsilon, args.delta, rate, args.noise_multiplier, args.tolerance)
            else:
                result = sampler.noise_multiplier(args.epsilon, args.delta, rate, steps, args.tolerance,
                                                  _Told(progress))
    seconds = time.process_time() - start
    notes = [str(w.message) for w in caught]
    data: dict[str, Any] = {"sampler": sampler.name, "sampler_description": sampler.description,
                            "convention": convention, "epsilon": args.epsilon, "delta": args.delta, "rate": rate,
                            "tolerance": args.tolerance, "cpu_seconds": round(seconds, 3), "warnings": notes}
    if steps_mode:
        data.update(noise_multiplier=args.noise_multiplier, max_steps=[int(result.lower), int(result.upper)])
        if per_epoch:
            data["max_epochs"] = [result.lower / per_epoch, result.upper / per_epoch]
    else:
        data.update(steps=steps, noise_multiplier_bounds=[float(result.lower), float(result.upper)])
    if args.json:
        print(dumps(data, indent=2))
        return 0
    print(f"sampler: {sampler.name} — {sampler.description}")
    print(f"convention: {convention}")
    print(f"budget: (ε, δ) = ({args.epsilon:g}, {args.delta:g})")
    if steps_mode:
        lo, hi = int(result.lower), int(result.upper)
        print(f"steps: {lo} <= T_max <= {hi}  (certified)")
        print(f"with noise multiplier {args.noise_multiplier!r}, {lo} steps are certified (ε, δ)-DP"
              + (f"; {hi + 1} steps provably violate the budget" if hi >= lo else ""))
        if per_epoch:
            print(f"epochs: {math.floor(lo / per_epoch)} full epochs of {per_epoch} steps are certified")
    else:
        print(f"noise multiplier: {result.lower!r} <= σ_min <= {result.upper!r}  (certified)")
        print(f"use σ ≥ {result.upper!r}: training with it is certified (ε, δ)-DP; every σ ≤ {result.lower!r} "
              "provably violates the budget")
    for n in notes:
        print(f"note: {n}")
    print(f"cpu: {seconds:.2f} s")
    return 0


def _run_bisection(args: argparse.Namespace, sampler: Sampler) -> int:
    """σ for the samplers calibrated by ``bounds.sampler_noise_multiplier`` (batch words only)."""
    import warnings

    from .compose import Progress

    if args.noise_multiplier is not None:
        raise UsageError(f"--sampler {sampler.name} has no step calibration (--noise-multiplier)")
    if args.rate is not None or args.steps is not None:
        raise UsageError(f"--sampler {sampler.name} needs --batch-size, --dataset-size and --epochs (not --rate/--steps)")
    if args.batch_size is None or args.dataset_size is None or args.epochs is None:
        raise UsageError(f"--sampler {sampler.name} needs --batch-size, --dataset-size and --epochs")
    if args.batch_size < 1 or args.dataset_size < 1 or args.batch_size > args.dataset_size:
        raise UsageError(f"--batch-size {args.batch_size} and --dataset-size {args.dataset_size} must satisfy "
                         "1 ≤ batch size ≤ dataset size")
    if args.epochs < 1:
        raise UsageError(f"--epochs {args.epochs} must be ≥ 1")
    _, steps, convention = sampler.convention(args.batch_size, args.dataset_size, args.epochs)
    start = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Progress(sys.stderr, f"calibrating σ ({sampler.name})", enabled=not args.no_progress) as progress:
            told = _Told(progress)
            try:
                import bounds

                lo, hi = bounds.sampler_noise_multiplier(
                    float(args.epsilon), float(args.delta), sampler=sampler.word, epochs=args.epochs,
                    batch_size=args.batch_size, dataset_size=args.dataset_size, adjacency=args.adjacency,
                    selected=args.selected, tolerance=args.tolerance, progress=told)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            count = told.certified
    seconds = time.process_time() - start
    from bounds.samplers.wiring import ADJACENCY

    adjacency = args.adjacency or ADJACENCY[sampler.word][0]
    notes = sorted({str(w.message) for w in caught})
    data: dict[str, Any] = {"sampler": sampler.name, "sampler_description": sampler.description,
                            "adjacency": adjacency, "convention": convention, "epsilon": args.epsilon,
                            "delta": args.delta, "steps": steps, "tolerance": args.tolerance,
                            "noise_multiplier_bounds": [lo, hi], "evaluations": count,
                            "cpu_seconds": round(seconds, 3), "warnings": notes}
    if args.json:
        print(dumps(data, indent=2))
        return 0
    print(f"sampler: {sampler.name} — {sampler.description}")
    print(f"adjacency: {adjacency.replace('_', '-')}")
    print(f"convention: {convention}")
    print(f"budget: (ε, δ) = ({args.epsilon:g}, {args.delta:g})")
    print(f"noise multiplier: {lo!r} < σ_min <= {hi!r}  (certified, {count} compositions)")
    print(f"use σ ≥ {hi!r}: its certified upper ε is ≤ {args.epsilon:g}; "
          + (f"σ = {lo!r} (and every smaller σ) provably violates the budget" if lo > 0 else
             "no σ tried was certified to violate the budget (the sampler's lower side is loose there)"))
    for n in notes:
        print(f"note: {n}")
    print(f"cpu: {seconds:.2f} s")
    return 0
