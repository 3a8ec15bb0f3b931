"""Importing bounds loads neither sympy nor numba, and compiles nothing."""
import json
import subprocess
import sys


def test_import_bounds_is_light():
    code = ("import sys, bounds; import json; "
            "print(json.dumps({m: m in sys.modules for m in ('sympy', 'numba', 'mpmath')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"sympy": False, "numba": False, "mpmath": False}


def test_metadata_and_latex():
    import bounds

    assert bounds.theorems()[:2] == ["T1", "T2"]
    info = bounds.theorem("t3")
    assert info.provenance == "recovered" and "with_replacement" in info.functions
    assert r"\ln" in bounds.latex("T1")


def test_first_call_does_not_import_scipy_linalg():
    """numba's BLAS probe is masked while numeric imports numba (numeric._import_numba): the first compiled
    kernel call (an array of two points: scalars, and one point, start on the plain-Python tier,
    tests/bounds/test_pure.py, tests/bounds/test_one_point.py) leaves scipy.linalg unimported, and numba's BLAS flag
    still says what the probe would have found."""
    code = ("import sys, json, importlib.util, bounds; bounds.poisson_subsampling([1.0, 2.0], 1e-6, 0.01); "
            "import numba.np.arraymath as a; "
            "print(json.dumps(['scipy.linalg' in sys.modules, a._HAVE_BLAS, importlib.util.find_spec('scipy') is not None]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    linalg, have_blas, has_scipy = json.loads(out.stdout.strip().splitlines()[-1])
    assert not linalg and have_blas == has_scipy
