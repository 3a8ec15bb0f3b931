"""numeric.jit: every kernel module compiles through it (no C-callable wrapper), and its plain-Python twin is the
identity decorator (issue 20)."""
from __future__ import annotations

import ast
import importlib
import pathlib

import pytest
from numba.core.registry import CPUDispatcher

import numeric
from numeric import pure

NUMERIC = pathlib.Path(numeric.__file__).parent
MODULES = sorted(p for p in NUMERIC.rglob("*.py") if p.name != "jit.py")


def _imports_njit_from_numba(path: pathlib.Path) -> list[int]:
    """Lines where ``njit``/``jit`` is taken from numba directly (``from numba import njit``, ``numba.njit``)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and \
                any(a.name in ("njit", "jit") for a in node.names):
            lines.append(node.lineno)
        if isinstance(node, ast.Attribute) and node.attr in ("njit", "jit") and \
                isinstance(node.value, ast.Name) and node.value.id in ("numba", "nb"):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(NUMERIC)))
def test_no_module_takes_njit_from_numba(path):
    assert _imports_njit_from_numba(path) == [], f"{path}: use numeric.jit.njit"


def test_the_scan_sees_a_direct_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from numba import njit\nimport numba\nf = numba.njit(lambda x: x)\n")
    assert _imports_njit_from_numba(bad) == [1, 3]


def test_every_dispatcher_of_the_kernel_modules_has_no_cfunc_wrapper():
    seen = 0
    for name in ("special", "elementary", "erfcx", "binomial", "profiles", "subsampled_profiles", "composition",
                 "balls_and_bins", "shuffle", "mixture_pairs", "with_replacement", "kanon", "outlier_score",
                 "mechanisms", "_generated.suppression_cubics"):
        module = importlib.import_module(f"numeric.{name}")
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                assert value.targetoptions.get("no_cfunc_wrapper") is True, f"{module.__name__}.{value.__name__}"
                seen += 1
    assert seen > 100


def test_compiled_kernels_run_and_the_scalar_route_uses_it():
    compiled = numeric.scalar_kernel("numeric._generated.subsampling:t1_epsilon")
    assert compiled.targetoptions.get("no_cfunc_wrapper") is True
    assert compiled(1.0, 0.5) == pure.pure_function("numeric._generated.subsampling:t1_epsilon")(1.0, 0.5)


def test_options_and_signatures_pass_through():
    from numeric.jit import njit

    def f(x):
        return x + 1.0

    assert njit(f)(1.0) == 2.0
    assert njit(cache=False, error_model="numpy")(f)(1.0) == 2.0
    eager = njit("float64(float64)")(f)
    assert [str(s) for s in eager.signatures] == ["(float64,)"] and eager(2.0) == 3.0
    assert all(d.targetoptions["no_cfunc_wrapper"] for d in (njit(f), njit(cache=False)(f), eager))


def test_plain_python_twin_returns_the_function_itself():
    twin = pure.twin("numeric.jit")

    def f(x):
        return x

    assert twin.njit(f) is f
    assert twin.njit(cache=True, error_model="numpy")(f) is f
