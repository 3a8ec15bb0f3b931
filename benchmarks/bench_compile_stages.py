"""Where a cold certificate's CPU goes inside numba (issue 20, item 3): ``ampbounds certify -j 1 -q`` in a child
process with an EMPTY numba cache, numba's and LLVM's stages timed by wrappers around their methods (exclusive CPU
time, ``time.process_time``: no profiler overhead), the number of functions compiled (numba's ``numba:compile``
events) and the costliest of them (exclusive: what compiling the function itself cost, its callees' own
compilations excluded).  ``--tree`` runs the same child on other source trees (an export of an older commit:
``git archive <commit> | tar -x -C /tmp/old``), interleaved round by round, so the trees meet the same load.
Nothing is asserted.

    PYTHONPATH=. python benchmarks/bench_compile_stages.py [--rounds 1] [--tree /tmp/old] [--top 15] [--group TEXT]
"""
from __future__ import annotations

import json
import statistics

from bench_one_route import cold_cpu, interleaved, tree_options  # the same fresh-cache child process

CHILD = r"""
import collections, functools, json, sys, time
from numba.core import caching, codegen, event, lowering, typeinfer, untyped_passes

stage = collections.Counter()
nested = []


def timed(owner, name, label):
    method = getattr(owner, name)

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        start = time.process_time()
        nested.append(0.0)
        try:
            return method(*args, **kwargs)
        finally:
            spent = time.process_time() - start
            inner = nested.pop()
            stage[label] += spent - inner
            if nested:
                nested[-1] += spent
    setattr(owner, name, wrapper)


timed(typeinfer.TypeInferer, "propagate", "numba: type inference")
timed(untyped_passes.InlineInlinables, "run_pass", "numba: IR inlining")
timed(lowering.Lower, "lower", "numba: lowering")
timed(lowering.Lower, "create_cpython_wrapper", "numba: CPython wrapper")
timed(lowering.Lower, "create_cfunc_wrapper", "numba: cfunc wrapper")
timed(codegen.CPUCodeLibrary, "add_ir_module", "llvm: parse IR, function passes")
timed(codegen.CPUCodeLibrary, "_optimize_final_module", "llvm: module optimisation")
timed(codegen.JITCodeLibrary, "_finalize_specific", "llvm: machine code")
timed(caching.Cache, "save_overload", "numba: cache save")

functions = collections.Counter()
calls = []


class Compiles(event.Listener):
    def on_start(self, ev):
        function = getattr(ev.data.get("dispatcher"), "py_func", None)
        name = f"{function.__module__}.{function.__qualname__}" if function else str(ev.data)
        calls.append([name, time.process_time(), 0.0])

    def on_end(self, ev):
        name, start, inner = calls.pop()
        spent = time.process_time() - start
        functions[name] += spent - inner
        if calls:
            calls[-1][2] += spent


event.register("numba:compile", Compiles())
import ampbounds_cli

start = time.process_time()
try:
    ampbounds_cli.main(["certify", "-j", "1", "-q"])
except SystemExit:
    pass
print(json.dumps({"total": time.process_time() - start, "stages": stage, "functions": functions}))
"""


def main() -> None:
    parser = tree_options(__doc__.splitlines()[0], rounds=1)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--group", action="append", default=[],
                        help="also print the compile CPU summed over the functions whose name contains this text "
                             "(repeatable; e.g. --group subsampled_profiles --group numeric.loops.serial)")
    args = parser.parse_args()
    runs = interleaved(args, lambda tree: json.loads(cold_cpu(tree, CHILD)[1].splitlines()[-1]))
    for tree, results in runs.items():
        def median(get):  # noqa: ANN001, ANN202
            return statistics.median(get(r) for r in results)

        print(f"== {tree} ({len(results)} run{'s' * (len(results) > 1)}; medians, CPU seconds)")
        print(f"   certify in-process {median(lambda r: r['total']):.1f}, of which compiling "
              f"{median(lambda r: sum(r['functions'].values())):.1f} over "
              f"{median(lambda r: len(r['functions'])):.0f} functions")
        for label in sorted(results[0]["stages"], key=lambda k: -results[0]["stages"][k]):
            print(f"   {median(lambda r: r['stages'].get(label, 0.0)):7.2f}  {label}")
        for text in args.group:
            print(f"   {median(lambda r: sum(v for k, v in r['functions'].items() if text in k)):7.2f}  "
                  f"functions matching {text!r} ({median(lambda r: sum(text in k for k in r['functions'])):.0f})")
        last = results[-1]["functions"]
        print(f"   costliest functions (last run, exclusive):")
        for name in sorted(last, key=lambda k: -last[k])[:args.top]:
            print(f"   {last[name]:7.2f}  {name}")


if __name__ == "__main__":
    main()
