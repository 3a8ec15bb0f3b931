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

_I = np.arange(257, dtype=np.float64)
_EPS, _DELTA = 0.03125 + _I / 64.0, (1.0 + _I % 7) / 1024.0
# hand-written kernels called by address, at points inside their domains (exact binary fractions)
HAND_WRITTEN = {
    "numeric.profiles:gaussian_sigma": [_EPS, _DELTA, 2.0 + (_I % 5) * 0.25],  # T10 (ε, δ, Δ)
    "numeric.kanon:delta": [1.0 + _I % 9, (1.0 + _I % 7) / 16.0, _EPS],  # T15 (k, β, ε)
    "numeric.with_replacement:delta": [_EPS, _DELTA, _I % 5, 40.0 + _I % 3],  # T3 (ε, δ, m, n)
    "numeric.outlier_score:epsilon": [_EPS, _DELTA, (1.0 + _I % 3) / 8.0, (5.0 + _I % 3) / 8.0],  # T14 (ε, δ, m, M)
}


@pytest.mark.parametrize("spec", HAND_WRITTEN)
def test_indirect_loop_is_the_scalar_dispatcher_bit_for_bit(spec):
    columns = HAND_WRITTEN[spec]
    array_kernel = numeric.kernel(spec, len(columns))
    assert array_kernel.indirect
    with np.errstate(all="ignore"):
        serial = array_kernel(*columns)
        parallel = array_kernel(*columns, parallel=True)
    scalar = numeric.scalar_kernel(spec)
    expected = np.array([scalar(*[float(c[i]) for c in columns]) for i in range(columns[0].size)])
    assert np.isfinite(expected).sum() > 200 and len(set(expected.tolist())) > 20  # not vacuous
    assert serial.view(np.int64).tolist() == expected.view(np.int64).tolist()
    assert parallel.view(np.int64).tolist() == expected.view(np.int64).tolist()


def test_one_loop_per_signature_and_cheap_kernels_stay_linked():
    a, b = (numeric.kernel(s, 3).compiled() for s in ("numeric.profiles:gaussian_sigma", "numeric.kanon:delta"))
    assert a.func is b.func and a.args != b.args  # the same compiled loop, two addresses
    for spec in numeric.LINKED_LOOPS:  # < 100 ns a point: the kernel linked into (and inlined by) its own loop
        assert not numeric.kernel(spec, 3 if spec.startswith("numeric.profiles") else 4).indirect


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


VALUES = r"""
import numpy as np, numeric
x = np.arange(1, 65) / 16.0
values = {s: numeric.kernel(s, 4)(x, 1e-6 + 0 * x, 0.5 + 0 * x, 0.01 + 0 * x).tolist()
          for s in ("numeric.subsampled_profiles:gaussian_both", "numeric.subsampled_profiles:laplace_add")}
values["t15"] = numeric.kernel("numeric.kanon:delta", 3)(2.0 + 0 * x, 0.5 + 0 * x, x).tolist()
"""
CHILD = VALUES + "import json\nprint(json.dumps(values))\n"


def test_a_cached_loop_calls_the_new_process_kernel():
    """This process builds (or loads) the indirect loops and their kernels in its numba cache directory (numeric
    exports it as ``NUMBA_CACHE_DIR`` on import); two fresh processes on that directory load them from the cache,
    with the kernels at other addresses: a constant address in the cached code would crash or answer wrongly
    there.  The three answer alike.  (The suite's own cache, not a new one: a fresh directory made the first child
    compile the whole T11 tree again, ≈ 12 s.)"""
    namespace: dict = {}
    exec(VALUES, namespace)  # noqa: S102 - the children's code, run here first
    cache = os.environ["NUMBA_CACHE_DIR"]
    runs = [subprocess.run([sys.executable, "-c", CHILD], env=dict(os.environ), capture_output=True, text=True,
                           check=True) for _ in range(2)]
    # compared as JSON text: repr of every double (exact round trip), NaN as NaN
    assert [r.stdout.splitlines()[-1] for r in runs] == [json.dumps(namespace["values"])] * 2
    assert any("indirect" in f for _, _, files in os.walk(cache) for f in files)
