"""Keys, grids and kernel results do not depend on the CPU's SIMD dispatch (issue 20).

The stored references are keyed by the exact bits of the points the checks evaluate; a point computed with
numpy's SIMD ``exp`` came out different on AVX-512 and AVX2 machines, and the test suite failed on one of
them.  Here a subprocess recomputes every accuracy grid, the module-level property grids, the k-anonymity
points and a sample of kernel results (the rounded array loops, and the unrounded twins the accuracy checks
measure) with numpy's best SIMD group disabled (``NPY_DISABLE_CPU_FEATURES``, ``points.best_simd_group``:
AVX-512 → the AVX2 code, AVX2 → the baseline) and numba compiling for a generic x86-64 CPU
(``NUMBA_CPU_NAME=generic``: other vector widths), and the digests must equal this process's bit for bit.

What this cannot cover: a different libm (another glibc, macOS, Windows).  The kernels that call libm
(``math.exp``/``log1p``/``expm1``/``erfc`` in numba) may round differently there.  No key depends on them
(points come from ``proofs_checks.points``), and each kernel's error budget is measured against the
references by the accuracy checks on the machine that runs ``ampbounds certify``, so a libm outside the
budget fails there rather than passing unnoticed.  The libm-free kernels (``numeric.elementary``: T1, T2,
T5, T6, T17 ε, T7 δ) use only IEEE + − × ÷, fused multiply–adds and bit operations, the same bits on every machine
(on a CPU without an FMA instruction numba calls libm's ``fma``, which a conforming libm rounds correctly:
tests/numeric/test_vector_width.py checks that route).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proofs_checks import points

ROOT = Path(__file__).resolve().parents[2]

# Kernels whose results are compared: libm-free (T1 ε: numeric.elementary, the loop LLVM vectorises at the
# CPU's width), libm (T1 base ε) and the erfcx kernel (T9 δ).  A small sample: each is compiled again for the
# generic CPU in the subprocess (tests/cpu_targets.py: the one tests/numeric/test_vector_width.py uses too).
SAMPLE = [("T1", "epsilon"), ("T1", "epsilon_base"), ("T9", "delta")]

PROBE = r"""
import hashlib, json, sys
import numpy as np

def digest(rows):
    h = hashlib.sha256()
    for row in rows:
        h.update(repr(tuple(float.hex(float(v)) for v in np.ravel(row))).encode())
    return h.hexdigest()

from proofs_checks import accuracy, catalogue
catalogue.load()
from proofs_checks import kanon_checks, missing_checks, poisson_substitution_checks, properties, suppression_checks
from numeric import kernel
from numeric._generated.metadata import THEOREMS

out = {"grids": {}, "kernels": {}, "features": None}
from numpy._core import _multiarray_umath as umath
out["features"] = sorted(t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t))
import numba.core.config as numba_config
out["numba_cpu"] = numba_config.CPU_NAME or "host"
grids = {}
for key, theorem_ids in accuracy.kernel_groups().items():
    tid, output = theorem_ids[0], key[-1]
    rng = np.random.default_rng(20261130)  # the seed accuracy.measure uses
    args = THEOREMS[tid]["outputs"][output]["args"]
    try:
        pts = accuracy.GRIDS[tid](output, rng) if tid in accuracy.GRIDS else accuracy.grid(tid, args, rng)
    except KeyError:  # T15/T16: no generic grid (their points are kanon_checks.accuracy_points, below)
        continue
    grids[(tid, output)] = pts
    out["grids"][f"{tid} {output}"] = digest(pts)
for module in (properties, missing_checks, poisson_substitution_checks):
    for name in ("EPS", "RATES", "DELTAS", "P", "RATIOS"):
        if hasattr(module, name):
            out["grids"][f"{module.__name__}.{name}"] = digest([getattr(module, name)])
out["grids"]["suppression_checks.EPS_GRID"] = digest([suppression_checks.EPS_GRID])
out["grids"]["kanon_checks.accuracy_points"] = digest(kanon_checks.accuracy_points())
for tid, output in json.loads(sys.argv[1]):
    spec = THEOREMS[tid]["outputs"][output]
    pts = grids[(tid, output)][:400]
    columns = [np.array(c, dtype=np.float64) for c in zip(*pts)]
    with np.errstate(all="ignore"):
        array = kernel(spec["kernel"], len(columns))(*columns)
    out["kernels"][f"{tid} {output}"] = digest([array, accuracy.unrounded(spec["kernel"], pts)])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def here() -> dict:
    """This process's own dispatch (whatever the environment of the test run says), computed in-process."""
    import contextlib
    import io

    buffer = io.StringIO()
    argv = sys.argv
    try:
        sys.argv = ["probe", json.dumps(SAMPLE)]
        with contextlib.redirect_stdout(buffer):
            exec(compile(PROBE, "<probe>", "exec"), {"__name__": "probe"})
    finally:
        sys.argv = argv
    return json.loads(buffer.getvalue().strip().splitlines()[-1])


@pytest.fixture(scope="module")
def reduced(run_once) -> dict:
    """The probe in a child with numpy's best SIMD group disabled and numba compiling for a generic CPU: the
    child tests/numeric/test_vector_width.py's generic loops come from too (tests/cpu_targets.py), once per
    test run."""
    from tests.cpu_targets import generic_child

    if not points.best_simd_group():
        pytest.skip("numpy dispatches no SIMD code beyond its baseline on this CPU: nothing to disable")
    return run_once("generic-cpu", generic_child)["probe"]


def test_reduced_dispatch_is_really_different(here, reduced):
    if "NPY_DISABLE_CPU_FEATURES" not in os.environ:
        assert reduced["features"] != here["features"], (here["features"], reduced["features"])
    assert reduced["numba_cpu"] == "generic"


def test_grids_are_bit_identical_under_another_simd_dispatch(here, reduced):
    assert here["grids"].keys() == reduced["grids"].keys()
    differ = sorted(k for k in here["grids"] if here["grids"][k] != reduced["grids"][k])
    assert not differ, f"points depend on the CPU's SIMD dispatch: {differ}"


def test_kernel_results_are_bit_identical_under_another_simd_dispatch(here, reduced):
    """Same machine, same libm: every kernel result must agree bit for bit (numba never contracts a·b + c, and
    vector width does not change an IEEE operation)."""
    differ = sorted(k for k in here["kernels"] if here["kernels"][k] != reduced["kernels"][k])
    assert not differ, f"kernel results depend on the CPU target: {differ}"


_DRAWS = """
import json, math
import numpy as np
from proofs_checks import points

def draws():
    # [the old way: np.exp over an array, the seeded points now: points.log_uniform], as hex bytes
    rng = np.random.default_rng(20261130)
    old = np.exp(rng.uniform(math.log(1e-300), math.log(1e4), 4096)).tobytes().hex()
    rng = np.random.default_rng(20261130)
    return [old, points.log_uniform(rng, 1e-300, 1e4, 4096).tobytes().hex()]
"""


def test_the_old_np_exp_points_would_be_caught():
    """The check can fail: the old way of drawing (``np.exp`` over an array) differs between numpy's dispatch
    levels on an AVX-512 machine.  Skipped where numpy's two paths happen to agree on this sample."""
    group = points.best_simd_group()
    if not group or "NPY_DISABLE_CPU_FEATURES" in os.environ:
        pytest.skip("needs this CPU's full numpy dispatch and a group to disable")
    # this process has the full dispatch (no NPY_DISABLE_CPU_FEATURES, above): it draws both samples itself (a
    # child with this environment would be this process); one child with the best group disabled draws both
    here = {}
    exec(compile(_DRAWS, "<draws>", "exec"), here)
    here = here["draws"]()
    child = subprocess.run([sys.executable, "-c", _DRAWS + "print(json.dumps(draws()))"],
                           env={**os.environ, "NPY_DISABLE_CPU_FEATURES": group, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120, check=True)
    there = json.loads(child.stdout.strip().splitlines()[-1])
    if here[0] == there[0]:
        pytest.skip("numpy's exp agrees across dispatch levels on this CPU")
    assert here[1] == there[1]


@pytest.mark.parametrize("theorem_id,output", [("T1", "epsilon"), ("T1", "epsilon_base"), ("T2", "epsilon"),
                                               ("T9", "epsilon"), ("T14", "epsilon")])
def test_plain_python_unrounded_twin_is_the_compiled_one(theorem_id, output):
    """The accuracy checks evaluate a kernel's unrounded twin as plain Python (``accuracy.unrounded``, no second
    compilation); over the whole accuracy grid it must be the compiled twin's bits (NaN = NaN).  A sample:
    the generated closed forms (libm-free and libm) and hand-written searches (T9, T14).  The compiled twin is
    called on its scalar route (``scalar_kernel``): nothing else needs the raw twins' array loops, whose
    compilation cost ≈ 9 s of CPU here, and test_contract checks the scalar route against the loops."""
    import numpy as np

    from numeric import scalar_kernel
    from numeric._generated.metadata import THEOREMS
    from proofs_checks import accuracy, catalogue

    catalogue.load()
    spec = THEOREMS[theorem_id]["outputs"][output]
    rng = np.random.default_rng(20261130)
    pts = (accuracy.GRIDS[theorem_id](output, rng) if theorem_id in accuracy.GRIDS
           else accuracy.grid(theorem_id, spec["args"], rng))
    twin = scalar_kernel(spec["kernel"] + "_raw")
    compiled = np.array([twin(*(float(x) for x in p)) for p in pts], dtype=np.float64)
    plain = accuracy.unrounded(spec["kernel"], pts)
    assert compiled.view(np.int64).tolist() == plain.view(np.int64).tolist() or \
        np.array_equal(compiled, plain, equal_nan=True) and \
        np.array_equal(np.signbit(compiled), np.signbit(plain))
