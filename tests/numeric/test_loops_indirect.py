"""The indirect array loops (``numeric.loops.indirect_loop``, issue 20): a hand-written kernel called by the address of
its compiled native function, so its tree is not linked into (and re-optimised for) every loop.  Here: the loop
gives the scalar dispatcher's bits serially and in parallel, one loop serves every kernel of a signature, an error
raised inside the kernel reaches the caller as from the scalar call, and a loop loaded from numba's cache in a new
process (where every address differs) gives the same bits."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import numeric
from numeric import loops
from numeric.jit import njit

HAND_WRITTEN = [("numeric.profiles:gaussian_delta", 3), ("numeric.profiles:laplace_delta", 3),
                ("numeric.kanon:delta", 3), ("numeric.with_replacement:delta", 4)]


def _columns(nargs: int, size: int = 257) -> list[np.ndarray]:
    """Points inside every kernel's domain (ε, δ, θ or k, β, ε or ε, δ, m, n), exact binary fractions."""
    i = np.arange(size, dtype=np.float64)
    return [0.03125 + i / 64.0, (1.0 + i % 7) / 1024.0, 2.0 + (i % 5) * 0.25, 40.0 + i % 3][:nargs]


@pytest.mark.parametrize("spec,nargs", HAND_WRITTEN)
def test_indirect_loop_is_the_scalar_dispatcher_bit_for_bit(spec, nargs):
    columns = _columns(nargs)
    array_kernel = numeric.kernel(spec, nargs)
    assert array_kernel.indirect
    with np.errstate(all="ignore"):
        serial = array_kernel(*columns)
        parallel = array_kernel(*columns, parallel=True)
    scalar = numeric.scalar_kernel(spec)
    expected = np.array([scalar(*[float(c[i]) for c in columns]) for i in range(columns[0].size)])
    assert np.isfinite(expected).any()
    assert serial.view(np.int64).tolist() == expected.view(np.int64).tolist()
    assert parallel.view(np.int64).tolist() == expected.view(np.int64).tolist()


def test_one_loop_per_signature():
    numeric.kernel("numeric.profiles:gaussian_delta", 3).compiled()
    numeric.kernel("numeric.profiles:laplace_delta", 3).compiled()
    a, b = (numeric.kernel(s, 3).compiled() for s in ("numeric.profiles:gaussian_delta", "numeric.profiles:laplace_delta"))
    assert a.func is b.func and a.args != b.args  # the same compiled loop, two addresses


@njit(cache=False)
def _halve_or_raise(x):  # pragma: no cover -- compiled
    if x < 0.0:
        raise ValueError("negative argument")
    return x / 2.0


def test_an_error_in_the_kernel_reaches_the_caller():
    array_kernel = loops.ArrayKernel(_halve_or_raise, "tests:halve_or_raise", 1, "test-indirect", indirect=True)
    assert array_kernel(np.array([1.0, 3.0])).tolist() == [0.5, 1.5]
    with pytest.raises(ValueError, match="negative argument"):
        _halve_or_raise(-1.0)
    with pytest.raises(ValueError, match="negative argument"):
        array_kernel(np.array([1.0, -1.0, 2.0]))
    with pytest.raises(ValueError, match="negative argument"):
        array_kernel(np.array([1.0, -1.0, 2.0]), parallel=True)


CHILD = r"""
import json, numpy as np, numeric
from numeric import loops
x = np.arange(1, 65) / 16.0
values = {s: numeric.kernel(s, 4)(x, 1e-6 + 0 * x, 0.5 + 0 * x, 0.01 + 0 * x).tolist()
          for s in ("numeric.subsampled_profiles:gaussian_both", "numeric.subsampled_profiles:laplace_add")}
values["t9"] = numeric.kernel("numeric.profiles:gaussian_delta", 3)(x, 0 * x, 1.5 + 0 * x).tolist()
print(json.dumps(values))
"""


def test_a_cached_loop_calls_the_new_process_kernel(tmp_path):
    """Two fresh processes on one numba cache directory: the second loads the loops (and kernels) from the
    cache, at other addresses; a constant address in the cached code would crash or answer wrongly there."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
            for _ in range(2)]
    first, second = (json.loads(r.stdout.splitlines()[-1]) for r in runs)
    assert first == second
    assert any("indirect" in f for _, _, files in os.walk(tmp_path) for f in files)
