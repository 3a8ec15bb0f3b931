"""Compilation saved by one compiled route per kernel (issue 20, item 1): CPU time (user + sys, ``os.wait4``) of
fresh processes with an EMPTY numba cache each that use both routes of four generated kernels — an array call
of ``poisson_subsampling`` (T1 ε, δ) and ``group_privacy`` (T7 ε, δ), then 60 scalar calls of each (past
``bounds._core.PURE_CALLS``: the compiled scalar tier).  Before, the scalar tier compiled each kernel's
``@njit`` dispatcher besides the array loop that inlines it; now it runs the loop at one point
(``numeric.scalar_route``).  ``--tree`` runs the same child on other source trees (an export of an older
commit: ``git archive <commit> | tar -x -C /tmp/old``), interleaved round by round.  Nothing is asserted.

    PYTHONPATH=. python benchmarks/bench_one_route.py [--rounds 3] [--tree /tmp/old]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any, Callable

CHILD = r"""
import numpy as np
import bounds
bounds.poisson_subsampling(np.array([0.5, 1.0]), 1e-6, 0.01)
bounds.group_privacy(np.array([0.5, 1.0]), 1e-6, 3)
for _ in range(60):
    g, h = bounds.poisson_subsampling(1.0, 1e-6, 0.01), bounds.group_privacy(1.0, 1e-6, 3)
print(g, h)
"""


def child_cpu(tree: str, source: str, cache: str) -> tuple[float, str]:
    """CPU seconds of ``source`` (Python) run in a child on ``tree`` with ``cache`` as numba's cache, and its
    output (also used by bench_compile_t11.py)."""
    env = dict(os.environ, PYTHONPATH=tree, NUMBA_CACHE_DIR=cache)
    process = subprocess.Popen([sys.executable, "-c", source], cwd=tree, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    out = process.stdout.read()
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(process.stderr.read()[-800:])
    return usage.ru_utime + usage.ru_stime, out.strip()


def cold_cpu(tree: str, child: str = CHILD) -> tuple[float, str]:
    """CPU seconds of one ``child`` (Python source) on ``tree`` with a fresh, empty numba cache, and its output
    (also used by bench_compile_loops.py)."""
    with tempfile.TemporaryDirectory() as cache:
        return child_cpu(tree, child, cache)


def tree_options(description: str, rounds: int = 3) -> argparse.ArgumentParser:
    """The options every fresh-cache benchmark takes: ``--rounds`` and ``--tree`` (repeatable; the current
    directory is always the first tree)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--tree", action="append", default=[])
    return parser


def interleaved(args: argparse.Namespace, run: Callable[[str], Any]) -> dict[str, list]:
    """``run(tree)`` for the current directory and every ``--tree``, round after round (so the trees meet the
    same load); the results per tree, in round order."""
    trees = [os.getcwd()] + args.tree
    results: dict[str, list] = {t: [] for t in trees}
    for _ in range(args.rounds):
        for tree in trees:
            results[tree].append(run(tree))
    return results


def main() -> None:
    args = tree_options(__doc__.splitlines()[0]).parse_args()
    runs = interleaved(args, cold_cpu)
    for tree, results in runs.items():
        values = [seconds for seconds, _ in results]
        print(f"{tree}: median {statistics.median(values):.2f} s CPU ({', '.join(f'{v:.2f}' for v in values)})")
    print("same values on every tree:", len({out for results in runs.values() for _, out in results}) == 1)


if __name__ == "__main__":
    main()
