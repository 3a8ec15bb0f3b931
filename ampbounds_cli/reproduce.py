"""``ampbounds reproduce EXPERIMENT``: the seed-000 experiments (``bounds.experiments``).

Examples::

    ampbounds reproduce mean --dataset census --column FICA --mechanism laplace --epsilon 0.25 \\
        --rates 1 0.5 0.1 --repetitions 200 --seed 1 --json
    ampbounds reproduce mode --csv mode.csv --plots figs/          # the default 0.1 grids, 50 repetitions
    ampbounds reproduce mean --full --dask                          # the paper's grids on a local dask cluster
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from ._common import UsageError, dumps, write


def add_parser(subparsers: Any) -> None:
    from bounds.experiments import ERRATA_NAMES, EXPERIMENTS, VARIANTS

    p = subparsers.add_parser(
        "reproduce", help="rerun the seed-000 experiments (sampling/suppression then a DP mechanism)",
        description="Rerun an experiment of Miranda-Pascual, Parra-Arnau & Strufe (USENIX Sec '26) in the "
                    "paper's four variants (M; M∘S; M at ε^S; M∘S at the calibrated (ε'', δ'')) with the "
                    "authors' errata fixed (--faithful reproduces them). Default grid (mean, mode): sampling "
                    "rates 1, 0.9, …, 0.1 and the (m, M) triangle on {0.1, …, 0.9}; ε ∈ {0.25, 0.5, 1, 2}; "
                    "50 repetitions (dplloyd, kmedian: coarser grids, ε ∈ {0.25, 1}, 10 and 5 repetitions); "
                    "each default run takes at most a few CPU minutes. Progress on stderr.")
    p.add_argument("experiment", choices=list(EXPERIMENTS), metavar="EXPERIMENT",
                   help="one of " + ", ".join(EXPERIMENTS))
    p.add_argument("--dataset", help="mean: adult, census, irish; mode: adult, irish")
    p.add_argument("--column", help="e.g. FICA, FEDTAX, age, hours-per-week, Age, HighestEducationCompleted")
    p.add_argument("--mechanism", nargs="+", metavar="NAME",
                   help="mean: laplace gaussian; mode: laplace gaussian exponential expmech; dplloyd: laplace; "
                        "kmedian: expmech (default: all)")
    p.add_argument("--epsilon", nargs="+", type=float, metavar="EPS",
                   help="target ε values (default 0.25 0.5 1 2; dplloyd, kmedian: 0.25 1)")
    p.add_argument("--delta", type=float, help="target δ of the Gaussian variants (default 1/n²)")
    p.add_argument("--rates", nargs="+", type=float, metavar="P",
                   help="sampling (keep) rates p ∈ (0, 1]; m = M = 1 − p")
    p.add_argument("--pairs", nargs="+", metavar="m,M", help="suppression pairs 0 < m ≤ M < 1, e.g. 0.1,0.3")
    p.add_argument("--grid", choices=("sampling", "suppression", "both"),
                   help="without --rates/--pairs: which default grid (default both)")
    p.add_argument("--variants", nargs="+", choices=VARIANTS, metavar="V", help="subset of " + ", ".join(VARIANTS))
    p.add_argument("--repetitions", type=int,
                   help="repetitions per cell (default 50; dplloyd 10, kmedian 5; --full: the paper's)")
    p.add_argument("--seed", type=int, default=0, help="seed of the per-cell SeedSequences (default 0)")
    p.add_argument("--full", action="store_true",
                   help="the paper's grids (rates 1, 0.99, …, 0.01 and the triangle) and repetitions; "
                        "prints a measured CPU-time estimate first")
    p.add_argument("--faithful", action="store_true", help="reproduce every erratum of the authors' code")
    p.add_argument("--faithful-errata", metavar="NAMES",
                   help="reproduce only these errata (comma-separated): " + ", ".join(ERRATA_NAMES))
    p.add_argument("--dask", action="store_true",
                   help="run the cells on a dask.distributed LocalCluster (same seeds, same results)")
    p.add_argument("--csv", metavar="FILE", help="write the records as CSV")
    p.add_argument("--plots", metavar="DIR", help="write the paper-style PNG figures into DIR (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true", help="print the records as JSON")


def _pairs(args: argparse.Namespace) -> list[tuple[float, float]]:
    from bounds.experiments import default_pairs, sampling_pairs

    pairs: list[tuple[float, float]] = []
    if args.rates:
        try:
            pairs += sampling_pairs(args.rates)
        except ValueError as exc:
            raise UsageError(f"--rates: {exc}") from None
    for text in args.pairs or []:
        try:
            m, M = (float(v) for v in text.split(","))
        except ValueError:
            raise UsageError(f"--pairs {text}: expected m,M (two numbers separated by a comma)") from None
        if not 0.0 < m <= M < 1.0:
            raise UsageError(f"--pairs {text}: need 0 < m ≤ M < 1")
        if (m, M) not in pairs:
            pairs.append((m, M))
    if not pairs:
        grid = args.grid or "both"
        pairs = default_pairs(args.full, grid in ("sampling", "both"), grid in ("suppression", "both"),
                              args.experiment)
    return pairs


def run(args: argparse.Namespace) -> int:
    from bounds import experiments as ex

    info = ex.EXPERIMENTS[args.experiment]
    if args.faithful and args.faithful_errata:
        raise UsageError("--faithful and --faithful-errata: give one of them")
    errata = ex.FAITHFUL if args.faithful else ex.Errata.parse(args.faithful_errata or "")
    if args.repetitions is not None and args.repetitions < 1:
        raise UsageError(f"--repetitions {args.repetitions}: must be ≥ 1")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed}: must be ≥ 0")
    repetitions = args.repetitions or (info["paper_repetitions"] if args.full else info["repetitions"])
    if args.plots is not None:
        if not Path(args.plots).is_dir():
            raise UsageError(f"--plots {args.plots}: not a directory")
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--plots needs matplotlib: pip install 'ampbounds[plot]'")
    if args.csv is not None and not Path(args.csv).parent.is_dir():
        raise UsageError(f"--csv {args.csv}: directory does not exist")
    epsilons = args.epsilon or list(ex.runner.EPSILONS if args.full else info["epsilons"])
    kwargs: dict[str, Any] = {"epsilons": epsilons, "pairs": _pairs(args),
                              "repetitions": repetitions, "seed": args.seed, "errata": errata}
    if info["column"] is not None:
        kwargs["dataset"] = args.dataset or info["dataset"]
        kwargs["column"] = args.column or info["column"]
    elif args.dataset or args.column:
        raise UsageError(f"{args.experiment} runs on its fixed dataset; --dataset/--column do not apply")
    if args.mechanism:
        kwargs["mechanisms"] = args.mechanism
    if args.delta is not None:
        kwargs["delta"] = args.delta
    if args.variants:
        kwargs["variants"] = args.variants
    if args.full:
        est = ex.estimate_cpu_seconds(args.experiment, len(kwargs["pairs"]), len(kwargs["epsilons"]),
                                      repetitions, **{k: v for k, v in kwargs.items()
                                                      if k not in ("pairs", "epsilons", "repetitions")})
        sys.stderr.write(f"full grid: {len(kwargs['pairs'])} (m, M) pairs × {len(kwargs['epsilons'])} ε × "
                         f"{repetitions} repetitions; measured estimate {est:.0f} s CPU "
                         f"({est / 3600:.2f} h; divide by the number of dask workers)\n")
        sys.stderr.flush()
    records = ex.reproduce(args.experiment, progress=not args.quiet, scheduler="dask" if args.dask else None,
                           **kwargs)
    if args.csv:
        ex.write_csv(records, args.csv)
    if args.plots:
        from bounds.experiments.plots import write_plots

        for path in write_plots(records, args.plots, args.experiment):
            sys.stderr.write(f"wrote {path}\n")
    if args.json:
        write(dumps(records))
    else:
        from bounds.experiments.output import summary_lines

        where = f"{kwargs['dataset']}/{kwargs['column']}, " if "column" in kwargs else ""
        head = (f"{args.experiment}: {where}"
                f"{repetitions} repetitions, seed {args.seed}, errata "
                f"{','.join(errata.names) or 'fixed'}; utility (lower is better) per variant")
        write("\n".join([head, *summary_lines(records)]))
    return 0
