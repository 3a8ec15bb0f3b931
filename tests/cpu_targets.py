"""One child process compiling for a generic x86-64 CPU with numpy's best SIMD group disabled, shared by
tests/numeric/test_vector_width.py (the array loops at another vector width) and
tests/proofs_checks/test_cpu_independence.py (grids, keys and kernel results under another dispatch).

Both need a process with ``NUMBA_CPU_NAME=generic``; each such process pays numpy, numba and the package's
imports and compiles its kernels again (T1 ε in both), so one child answers both (``generic_child``), once
per test run (``run_once`` in tests/conftest.py).  numpy's reduced dispatch does not touch the array loops
(numba's code), and their seeded points are built from integers and exact powers of two, so the vector-width
comparison means the same under it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import contextlib, io, json, sys
sys.path.insert(0, {root!r})
from tests.numeric.test_vector_width import CHILD_KERNELS, _fma_probe, _loop_results
from tests.proofs_checks.test_cpu_independence import PROBE, SAMPLE

buffer = io.StringIO()
sys.argv = ["probe", json.dumps(SAMPLE)]
with contextlib.redirect_stdout(buffer):
    exec(compile(PROBE, "<probe>", "exec"), {{"__name__": "probe"}})
probe = json.loads(buffer.getvalue().strip().splitlines()[-1])
print(json.dumps({{"probe": probe, "loops": _loop_results(CHILD_KERNELS), "fma": _fma_probe(),
                  "npy_disabled": {group!r}}}))
"""


def run_child(env_extra: dict[str, str], script: str) -> dict:
    """``script`` in a child process with this environment, ``env_extra`` on top and the repository first on
    the path; its last line of output, as JSON."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def generic_child() -> dict:
    """``{"probe": …, "loops": …, "fma": …, "npy_disabled": group}``: test_cpu_independence's probe and
    test_vector_width's loop results and FMA probe from a child with ``NUMBA_CPU_NAME=generic`` and ``NPY_DISABLE_CPU_FEATURES`` = numpy's best
    group (``points.best_simd_group``; none when numpy dispatches nothing beyond its baseline)."""
    from proofs_checks import points

    group = points.best_simd_group()
    extra = {"NUMBA_CPU_NAME": "generic"}
    if group:
        extra["NPY_DISABLE_CPU_FEATURES"] = group
    return run_child(extra, CHILD.format(root=str(ROOT), group=group))
