"""The vector width of the array loops, read from their assembly (numba's ``inspect_asm``): for each libm-free
kernel, the loop with the most vector registers, its instruction count and how often it names zmm (512-bit), ymm
(256) and xmm (128) registers.

    PYTHONPATH=. python benchmarks/bench_vector_width.py [--without-attribute]
    NUMBA_CPU_NAME=skylake-avx512 PYTHONPATH=. python benchmarks/bench_vector_width.py

The loops are compiled here without numba's cache (``inspect_asm`` cannot read cached code), from the same
templates as ``numeric.loops``; ``--without-attribute`` leaves out ``"prefer-vector-width"="512"`` (the loops as
they were before issue 20).  Nothing here is asserted in a test.
"""
from __future__ import annotations

import argparse
import re
import types

from numba import njit
from numba import types as nbtypes
from numba.core import config
from numba.extending import intrinsic

from numeric import loops, scalar_kernel

SPECS = [("numeric._generated.subsampling:t1_epsilon", 2), ("numeric._generated.subsampling:t1_delta", 2),
         ("numeric._generated.subsampling:t2_epsilon", 3), ("numeric._generated.subsampling:t5_epsilon", 3),
         ("numeric._generated.group:t7_epsilon", 2), ("numeric._generated.group:t7_delta", 3)]
# fused loops (both outputs of a public (ε, δ) function in one pass, numeric.kernel_pair): theorem -> outputs
FUSED = ["T1", "T2", "T5", "T7"]


@intrinsic
def _nothing(typingctx):  # type: ignore[no-untyped-def]
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return context.get_dummy_value()

    return nbtypes.none(), codegen


def loops_of(asm: str) -> list[tuple[int, dict[str, int], str]]:
    """(instructions, register counts, text) of every loop: a label and a later jump back to it (with the loops it
    encloses)."""
    lines = asm.splitlines()
    where: dict[str, int] = {}
    found = []
    for i, line in enumerate(lines):
        label = re.match(r"^(\.LBB\S+):", line)
        if label:
            where[label.group(1)] = i
        jump = re.match(r"^\s+j\w+\s+(\.LBB\S+)", line)
        if jump and jump.group(1) in where:
            body = lines[where[jump.group(1)]:i + 1]
            text = "\n".join(body)
            count = sum(1 for b in body if b.startswith("\t") and not b.strip().startswith("."))
            found.append((count, {r: len(re.findall("%" + r + r"\d+", text)) for r in ("zmm", "ymm", "xmm")}, text))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--without-attribute", action="store_true")
    parser.add_argument("--dump", default="", help="write each loop's assembly to DUMP<kernel>.s")
    parser.add_argument("kernels", nargs="*", help="kernel names (t1_epsilon …); default: all")
    args = parser.parse_args()
    import llvmlite.binding as llvm

    print(f"numba CPU {config.CPU_NAME or llvm.get_host_cpu_name()} (host {llvm.get_host_cpu_name()}), "
          f"{'without' if args.without_attribute else 'with'} prefer-vector-width=512")
    print(f"{'kernel':<12}{'loop instr':>11}{'zmm':>6}{'ymm':>6}{'xmm':>6}  lanes")
    from numeric import kernel_pair

    mark = _nothing if args.without_attribute else loops._widest_vectors
    jobs = []
    for spec, nargs in SPECS:
        function = types.FunctionType(loops._TEMPLATES[f"_serial_{nargs}"].__code__,
                                      {"kernel": scalar_kernel(spec), "_widest_vectors": mark,
                                       "__builtins__": __builtins__}, "loop", None, (types.CellType(None),))
        jobs.append((spec.split(":")[1], function, nargs + 1))
    for theorem in FUSED:
        fused, union = kernel_pair(theorem)
        jobs.append((f"{theorem}_fused", fused.function(mark), len(union) + 2))
    for name, function, arity in jobs:
        if args.kernels and name not in args.kernels:
            continue
        compiled = njit(error_model="numpy")(function)
        signature = (nbtypes.Array(nbtypes.float64, 1, "C"),) * arity
        compiled.compile(signature)
        asm = compiled.inspect_asm(signature)
        if args.dump:
            with open(f"{args.dump}{name}.s", "w") as file:
                file.write(asm)
        candidates = loops_of(asm)
        if any(c[1]["zmm"] + c[1]["ymm"] for c in candidates):
            # the vector loop: the most wide-register references net of xmm ones (a block enclosing the scalar
            # remainder loop names xmm registers mostly); innermost: a region enclosing a vector loop (a fused
            # loop's body may be entered from a block that the vector loop's label follows) is not the loop
            wide = [c for c in candidates if c[1]["zmm"] + c[1]["ymm"]]
            inner = [c for c in wide if not any(d is not c and d[2] in c[2] for d in wide)]
            count, registers, text = max(inner, key=lambda c: (c[1]["zmm"] + c[1]["ymm"] - c[1]["xmm"], c[0]))
        else:  # SSE only: the longest loop; packed (…pd) or scalar (…sd) arithmetic
            count, registers, text = max(candidates, key=lambda c: c[0])
        packed = len(re.findall(r"\b(?:v?(?:add|sub|mul|div)pd)\b", text))
        lanes = 8 if registers["zmm"] else 4 if registers["ymm"] else 2 if packed else 1
        print(f"{name:<12}{count:>11}{registers['zmm']:>6}{registers['ymm']:>6}{registers['xmm']:>6}"
              f"  {lanes}")


if __name__ == "__main__":
    main()
