"""Where the test suite's CPU goes (issue 20, item 4): a pytest plugin and its summary.  Nothing is asserted.

Per test (in each xdist worker): the CPU time of the worker process, of the child processes it waited for
(``RUSAGE_CHILDREN``) and of numba compilation inside the worker (``numba:compile`` events, each counted
without the compilations nested in it, so a kernel inlined into a loop is not counted twice).  Per process:
its CPU time and every compiled function with its signature, so the summary can say how much compilation
two workers repeated.  Wall times under load say little on a shared machine; these are CPU times.

    NUMBA_CACHE_DIR=$(mktemp -d) AMPBOUNDS_TEST_COSTS=/tmp/costs CI=1 \\
        python -m pytest -q -p benchmarks.pytest_costs          # one JSON file per process in /tmp/costs
    python benchmarks/pytest_costs.py /tmp/costs [N]            # the N most expensive tests, per file, repeats,
                                                                # the workers' tails
"""
from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

_COMPILED: dict[str, list] = {}  # "module:qualname|(arg types)" → [count, exclusive CPU s, inclusive CPU s]
_STACK: list[list[float]] = []  # [start CPU, CPU of nested compilations] per compilation in progress
_TESTS: dict[str, tuple[float, float, float]] = {}  # node id → (own CPU, children's CPU, compilation CPU)
_CURRENT: list[str] = [""]  # the test running now: the compilations it triggers are listed under it
_FIRST: dict[str, str] = {}  # compiled function key → the test that compiled it (first time in this process)
_WALL: dict[str, tuple[float, float]] = {}  # node id → (start, end) wall clock (epoch s): how the workers' tails end


_LISTENING: list[bool] = []


def _listen() -> None:
    """Listen to numba's compilations once numba is loaded (importing it earlier would configure its cache
    before ``numeric`` does)."""
    if _LISTENING or "numba" not in sys.modules:
        return
    _LISTENING.append(True)
    from numba.core import event

    class Compilations(event.Listener):
        def on_start(self, ev):  # type: ignore[no-untyped-def]
            _STACK.append([time.process_time(), 0.0])

        def on_end(self, ev):  # type: ignore[no-untyped-def]
            start, nested = _STACK.pop()
            spent = time.process_time() - start
            if _STACK:
                _STACK[-1][1] += spent
            function = ev.data["dispatcher"].py_func
            key = f"{function.__module__}:{function.__qualname__}|{tuple(str(a) for a in ev.data['args'])}"
            _FIRST.setdefault(key, _CURRENT[0])
            entry = _COMPILED.setdefault(key, [0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += spent - nested
            entry[2] += spent

    event.register("numba:compile", Compilations())


def _compiled_seconds() -> float:
    return sum(v[1] for v in _COMPILED.values())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # type: ignore[no-untyped-def]
    if os.environ.get("AMPBOUNDS_TEST_COSTS"):
        _listen()
    own, children, compiled = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN), _compiled_seconds()
    start = time.time()
    _CURRENT[0] = item.nodeid
    yield
    _CURRENT[0] = ""
    _WALL[item.nodeid] = (start, time.time())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _TESTS[item.nodeid] = (time.process_time() - own,
                           after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime,
                           _compiled_seconds() - compiled)


def pytest_unconfigure(config: pytest.Config) -> None:
    directory = os.environ.get("AMPBOUNDS_TEST_COSTS")
    if not directory:
        return
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    Path(directory).mkdir(parents=True, exist_ok=True)
    Path(directory, f"{worker}-{os.getpid()}.json").write_text(json.dumps(
        {"worker": worker, "cpu": time.process_time(), "tests": _TESTS, "compiled": _COMPILED,
         "wall": _WALL, "end": time.time(), "first": _FIRST}))


def summary(directory: str, n: int = 30) -> None:
    runs = [json.loads(p.read_text()) for p in sorted(Path(directory).glob("*.json"))]
    tests = {k: v for r in runs for k, v in r["tests"].items()}
    own, children, compiled = (sum(v[i] for v in tests.values()) for i in range(3))
    print(f"{len(tests)} tests: {own:.1f} s CPU in the workers ({compiled:.1f} s of it compiling), "
          f"{children:.1f} s in child processes; per process: "
          + ", ".join(f"{r['worker']} {r['cpu']:.1f} s" for r in runs))
    workers = [r["compiled"] for r in runs if r["tests"]]
    if len(workers) >= 2:
        repeated = sum(min(w[k][1] for w in workers if k in w) for k in set.intersection(*(set(w) for w in workers)))
        print(f"compilation repeated in every worker: {repeated:.1f} s (the cheapest copy of each)")
    print(f"\nthe {n} most expensive tests (own + children CPU s, compiling):")
    for name, v in sorted(tests.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:n]:
        print(f"  {v[0] + v[1]:6.1f}  {v[2]:6.1f}  {name}")
    walls = [r for r in runs if r.get("wall")]
    if walls:  # how the workers' tails end: one idle while another finishes a long test is lost wall time
        t0 = min(min(s for s, _ in r["wall"].values()) for r in walls)
        print("\nworkers' last test ends (wall s after the first test starts): " + ", ".join(
            f"{r['worker']} {max(e for _, e in r['wall'].values()) - t0:.1f}" for r in walls))
    files: collections.Counter = collections.Counter()
    for name, v in tests.items():
        files[name.split("::")[0]] += v[0] + v[1]
    print(f"\nper file (own + children CPU s):")
    for name, seconds in files.most_common(n):
        print(f"  {seconds:6.1f}  {name}")


if __name__ == "__main__":
    summary(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30)
