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
