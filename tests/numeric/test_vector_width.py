"""The array loops give the same bits at every vector width and on every CPU tuning (issue 20, item 6).

``numeric.loops`` asks LLVM for the widest vectors the CPU has (``"prefer-vector-width"="512"``), so one machine
runs the libm-free kernels 8 lanes wide (AVX-512), another 4 (AVX2) or 2 (SSE2), and a remainder loop runs them
scalar.  Every lane performs the same IEEE-754 operations, so the results must not change: here the loop
results on seeded points (built from integers and exact powers of two, never from a libm or SIMD ``exp``) are
compared bit for bit

- with the plain-Python tier (``numeric.pure``: the kernels' own source without numba), point by point, and
- with the same loops compiled in child processes for other CPUs: ``NUMBA_CPU_NAME=generic`` (x86-64 baseline,
  scalar, no FMA instruction: numba calls a correctly rounded ``fma``; the child
  tests/proofs_checks/test_cpu_independence.py uses as well, ``tests/cpu_targets.py``) and ``haswell`` without
  AVX-512 (AVX2, 4 lanes).  The host's own loops are the third width (8 lanes on an AVX-512 host, where the
  attribute matters; ``skylake-avx512`` in a child would repeat that width on such a host and cannot run on others, so it is not
  compiled again here: benchmarks/bench_vector_width.py shows its assembly).

The kernels are those whose loops vectorise (``numeric.generate.ELEMENTARY_KERNELS``): T1 ε (``amplify``), T2 ε
(``amplify_quotient``), T7 δ (``group_delta``, with ``two_product``'s FMA or Dekker form) and T1 δ (``mul_up``); the children, which compile
their loops again, check all but T2 (its ``amplify_quotient`` shares ``amplify``'s core).
"""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = {  # spec → the generator of its arguments' seeded points
    "numeric._generated.subsampling:t1_epsilon": ("eps", "rate"),
    "numeric._generated.subsampling:t1_delta": ("delta", "rate"),
    "numeric._generated.subsampling:t2_epsilon": ("eps", "m", "n"),
    "numeric._generated.group:t7_delta": ("delta", "k", "eps_small"),
}
POINTS = 403  # not a multiple of 8, 4 or 2: the scalar remainder loop runs too


def _points(kind: str, seed: int) -> np.ndarray:
    """Seeded doubles from integer mantissas and exponents (np.ldexp is exact), edge values mixed in."""
    rng = np.random.default_rng(seed)
    mantissa = rng.integers(2**52, 2**53, POINTS).astype(np.float64)  # exact: < 2⁵³
    if kind == "eps":
        x = np.ldexp(mantissa, rng.integers(-52 - 40, -52 + 12, POINTS))  # 2⁻⁴⁰ … 2¹²
        edges = [0.0, 5e-324, 2.0**-1022, 1e-300, 1.0, 709.0, 709.9, 710.0, 1400.0, 1500.0, 3000.0, np.inf]
    elif kind == "eps_small":
        x = np.ldexp(mantissa, rng.integers(-52 - 30, -52 + 4, POINTS))  # 2⁻³⁰ … 2⁴
        edges = [5e-324, 1e-300, 0.5, 1.0, 7.0, 14.0]
    elif kind in ("rate", "delta"):
        x = np.ldexp(mantissa, rng.integers(-52 - 60, -52, POINTS))  # 2⁻⁶⁰ … 1
        edges = [0.0, 5e-324, 2.0**-1022, 1e-300, 0.5, 1.0]
    elif kind == "k":
        x = rng.integers(2, 200, POINTS).astype(np.float64)
        edges = [2.0, 3.0, 1000.0, 2.0**40]
    elif kind == "m":
        x = rng.integers(0, 1000, POINTS).astype(np.float64)
        edges = [0.0, 1.0, 1.0, 999.0]
    else:  # n ≥ m: drawn so that m ≤ n for the same seed
        x = _points("m", seed) + rng.integers(1, 10**6, POINTS).astype(np.float64)
        edges = [1.0, 2.0, 1.0, 1000.0]
    x[: len(edges)] = edges
    return x


def _arguments(spec: str) -> list[np.ndarray]:
    # m and n share a seed (m ≤ n); the others get their own
    return [_points(kind, 20261201 if kind in ("m", "n") else 20261201 + i) for i, kind in enumerate(KERNELS[spec])]


# compiled again in each child (≈ 2 s of CPU per long kernel, cold): amplify_quotient shares amplify's core
CHILD_KERNELS = ("numeric._generated.subsampling:t1_epsilon", "numeric._generated.subsampling:t1_delta",
                 "numeric._generated.group:t7_delta")


def _loop_results(specs: tuple[str, ...] = tuple(KERNELS)) -> dict[str, list[str]]:
    from numeric import kernel

    out = {}
    for spec in specs:
        kinds = KERNELS[spec]
        with np.errstate(all="ignore"):
            values = kernel(spec, len(kinds))(*_arguments(spec))
        out[spec] = [float(v).hex() for v in values]
    return out


CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from tests.numeric.test_vector_width import _loop_results, _fused_packed_registers
from tests.numeric.test_vector_width import CHILD_KERNELS
print(json.dumps({{"loops": _loop_results(CHILD_KERNELS), "fused_t1": _fused_packed_registers("T1")}}))
"""


def _fused_packed_registers(theorem: str) -> list[str]:
    """The vector registers (xmm/ymm/zmm) that packed double FMAs use in ``theorem``'s fused (ε, δ) loop, compiled
    here, uncached (the machine code of a cached loop is not inspectable), for this process's CPU.  Empty: the
    loop runs one point at a time (scalar ``vfmadd…sd`` only) — as T1's did on AVX2 for a day, unnoticed by
    the bit-identity tests (a lazy zero test around ``mul_up`` in T1 δ that LLVM did not if-convert)."""
    import numeric
    from numba import types as nbtypes

    from numeric.jit import njit

    fused = numeric.kernel_pair(theorem)[0]
    dispatcher = njit(error_model="numpy")(fused.function())
    signature = (nbtypes.Array(nbtypes.float64, 1, "C"),) * (fused.nargs + 2)
    dispatcher.compile(signature)
    asm = dispatcher.inspect_asm(signature)
    return sorted(set(re.findall(r"\bv?f[n]?m(?:add|sub)\d{3}pd\b[^\n]*%([xyz]mm)", asm)))


def _host_features_without_avx512() -> str:
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return ",".join(("+" if on and not name.startswith(("avx512", "avx10", "evex512")) else "-") + name
                    for name, on in sorted(features.items()))


# a·b + c where one rounding (IEEE fusedMultiplyAdd) and two (fl(fl(a·b) + c)) differ: cancellation after a rounded
# product, a last-bit difference without cancellation, a subnormal result
FMA_CASES = [(0.1, 10.0, -1.0), (1 + 2.0**-30, 1 - 2.0**-30, -1.0), (1 + 2.0**-52, 1 + 2.0**-52, -(1 + 2.0**-51)),
             (1 + 2.0**-27, 1 + 2.0**-27, 2.0**-53), (2.0**-540, 2.0**-535, 5e-324)]


def _fma_probe() -> dict:
    """``numeric.special.fma`` compiled in this process on ``FMA_CASES`` and a seeded sample: the results (hex) and
    whether the loop's machine code has an FMA instruction or names the C library's ``fma``."""
    import re

    from numba import njit

    from numeric.special import fma

    @njit(error_model="numpy")
    def apply(a, b, c, out):  # type: ignore[no-untyped-def]
        for i in range(out.size):
            out[i] = fma(a[i], b[i], c[i])

    a, b, c = (np.array(column) for column in zip(*(FMA_CASES + _fma_sample())))
    out = np.empty(a.size)
    apply(a, b, c, out)
    asm = apply.inspect_asm(apply.signatures[0])
    return {"values": [float(v).hex() for v in out],
            "fma_instruction": bool(re.search(r"\bvfn?m(?:add|sub)\d{3}[sp]d\b", asm)),
            "calls_libm_fma": bool(re.search(r"[\s$*]fma\b", asm))}


def _fma_sample() -> list[tuple[float, float, float]]:
    """Seeded (a, b, c) with c near −a·b (from integer mantissas and exact powers of two, no libm)."""
    rng = np.random.default_rng(20261202)
    a = np.ldexp(rng.integers(2**52, 2**53, 64).astype(np.float64), -52)
    b = np.ldexp(rng.integers(2**52, 2**53, 64).astype(np.float64), -52)
    c = -(a * b) + np.ldexp(rng.integers(-2**20, 2**20, 64).astype(np.float64), -70)
    return [(float(x), float(y), float(z)) for x, y, z in zip(a, b, c)]


def _child_results(cpu_name: str, features: str | None) -> dict[str, list[str]]:
    env = dict(os.environ, NUMBA_CPU_NAME=cpu_name, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CPU_FEATURES", None)
    if features is not None:
        env["NUMBA_CPU_FEATURES"] = features
    run = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT))], env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_loops_equal_the_plain_python_tier():
    from numeric.pure import pure_function

    host = _loop_results()
    for spec in KERNELS:
        plain = pure_function(spec)
        assert plain is not None, spec
        arguments = _arguments(spec)
        for i in range(POINTS):
            expected = float(plain(*(float(a[i]) for a in arguments)))
            assert host[spec][i] == expected.hex(), (spec, [float(a[i]) for a in arguments], host[spec][i],
                                                     expected.hex())


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86 CPU names")
@pytest.mark.parametrize("cpu_name", ["generic", "haswell"])
def test_loops_are_bit_identical_across_cpus(cpu_name, run_once):
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    if cpu_name == "haswell" and not all(features.get(f) for f in ("avx2", "fma", "bmi2")):
        pytest.skip("this CPU cannot run AVX2 code")
    # generic: numba passes no features (baseline x86-64), in the child test_cpu_independence.py shares (numpy's
    # best SIMD group disabled there too: the points are exact either way; tests/cpu_targets.py), once per run;
    # haswell: AVX2 at most, whatever the host has
    if cpu_name == "generic":
        from tests.cpu_targets import generic_child

        child = run_once("generic-cpu", generic_child)["loops"]
    else:
        answer = _child_results(cpu_name, _host_features_without_avx512())
        child = answer["loops"]
        # the fused T1 loop runs 4 lanes wide on AVX2 (ymm), not one point at a time
        assert "ymm" in answer["fused_t1"], answer["fused_t1"]
    host = _loop_results(CHILD_KERNELS)
    for spec in CHILD_KERNELS:
        differ = [i for i in range(POINTS) if child[spec][i] != host[spec][i]]
        assert not differ, (cpu_name, spec, [(child[spec][i], host[spec][i]) for i in differ[:5]])


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86 CPU names")
def test_generic_cpu_computes_the_fma_by_a_correctly_rounded_call(run_once):
    """Without an FMA instruction (``NUMBA_CPU_NAME=generic``) ``llvm.fma.f64`` must become a call of the C
    library's correctly rounded ``fma``, not the two roundings fl(fl(a·b) + c): the child's results equal the exact
    plain-Python fma (``numeric.pure._fma``, integers) on cases where the two-rounding form gives other bits, and
    its machine code has no FMA instruction (so it is that call which was tested)."""
    from numeric.pure import INTRINSICS
    from tests.cpu_targets import generic_child

    exact_fma = INTRINSICS["fma"]
    cases = FMA_CASES + _fma_sample()
    exact = [exact_fma(a, b, c) for a, b, c in cases]
    two_roundings = [a * b + c for a, b, c in cases]
    differ = [x.hex() != y.hex() for x, y in zip(exact, two_roundings)]
    assert all(differ[: len(FMA_CASES)]) and sum(differ) > len(FMA_CASES) + 10  # the cases tell the two apart
    child = run_once("generic-cpu", generic_child)["fma"]
    assert not child["fma_instruction"] and child["calls_libm_fma"]
    assert child["values"] == [v.hex() for v in exact]
    host = _fma_probe()  # and this host (an FMA instruction where it has one) agrees
    assert host["values"] == [v.hex() for v in exact]
