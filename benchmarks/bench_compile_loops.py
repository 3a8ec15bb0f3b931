"""Cold compile time of the fused (ε, δ) array loops (issue 20, item 3): in fresh processes with an EMPTY numba
cache each, the CPU time (``time.process_time``) of the first array call of each public function served by a
fused loop — that first call compiles the loop with its two generated kernels and the libm-free functions of
``numeric.elementary`` inlined.  numba is imported (and a trivial function compiled) first, so its one-time
start-up is not counted in the first row.  ``--tree`` runs the same child on other source trees (an export of
an older commit: ``git archive <commit> | tar -x -C /tmp/old``), interleaved round by round, so the trees are
compared under the same load.  Nothing is asserted.

    PYTHONPATH=. python benchmarks/bench_compile_loops.py [--rounds 3] [--tree /tmp/old]
"""
from __future__ import annotations

import json
import statistics

from bench_one_route import cold_cpu, interleaved, tree_options  # the same fresh-cache child process

CHILD = r"""
import json, time
import numpy as np
import numba
numba.njit(lambda x: x + 1.0)(1.0)
import bounds
x = np.linspace(0.1, 1.0, 8)
calls = {
    "T1 poisson_subsampling": lambda: bounds.poisson_subsampling(x, 1e-6, 0.5),
    "T2 without_replacement": lambda: bounds.without_replacement(x, 1e-6, 3.0, 10.0),
    "T5 rate_change": lambda: bounds.rate_change(x, 1e-6, 0.5, 0.25),
    "T6 poisson_substitution": lambda: bounds.poisson_substitution(x, 1e-6, 2e-6, 0.5),
    "T7 group_privacy": lambda: bounds.group_privacy(x, 1e-6, 3),
    "T17 missing_data": lambda: bounds.missing_data(x, 1e-6, 0.5),
}
out = {}
for name, call in calls.items():
    t = time.process_time()
    g = call()
    out[name] = (time.process_time() - t, [float(v) for v in np.concatenate([g.epsilon, g.delta])])
print(json.dumps(out))
"""


def cold(tree: str) -> dict:
    """Per-call CPU seconds and values of one child on ``tree`` with a fresh, empty numba cache."""
    return json.loads(cold_cpu(tree, CHILD)[1].splitlines()[-1])


def main() -> None:
    args = tree_options(__doc__.splitlines()[0]).parse_args()
    runs = interleaved(args, cold)
    trees = list(runs)
    times: dict[str, dict[str, list[float]]] = {t: {} for t in trees}
    values = set()
    for tree, results in runs.items():
        for result in results:
            for name, (seconds, vals) in result.items():
                times[tree].setdefault(name, []).append(seconds)
                values.add((name, tuple(vals)))
    names = list(times[trees[0]])
    print("first array call, CPU seconds (median of rounds): " + " | ".join(trees))
    for name in names:
        print(f"  {name:26s} " + " | ".join(f"{statistics.median(times[t][name]):5.2f}" for t in trees))
    total = [sum(statistics.median(v) for v in times[t].values()) for t in trees]
    print(f"  {'total':26s} " + " | ".join(f"{v:5.2f}" for v in total))
    print("same values on every tree:", len(values) == len(names))


if __name__ == "__main__":
    main()
