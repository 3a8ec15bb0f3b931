"""The plain-Python tier of the first scalar calls (``numeric.pure``, ``bounds._core.scalar_call``).

Bit-identity with the compiled kernels over the accuracy grids is proven in
tests/bounds/test_contract.py::test_scalar_route_is_bit_identical_to_the_ufunc; here: the exact ``fma``
stand-in against LLVM's ``llvm.fma.f64``, the tiers' switching and fallback in a fresh process, and that the
twins never touch numba.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np


def _edge_doubles(rng: np.random.Generator, n: int) -> np.ndarray:
    """Signed doubles of every magnitude, with zeros, subnormals, extremes, infinities and NaN mixed in."""
    mags = np.exp(rng.uniform(math.log(5e-324), math.log(1.7e308), n))
    mags[: n // 8] = rng.choice([0.0, 5e-324, 2.2250738585072014e-308, 1.0, 1.7976931348623157e308, math.inf,
                                 math.nan, 2.0 ** -537, 2.0 ** 511], n // 8)
    rng.shuffle(mags)
    return mags * rng.choice([-1.0, 1.0], n)


_FMA = None  # numeric.special.fma, set by the test (importing it imports numba)


def _fma_loop(a, b, c):
    out = np.empty(a.size)
    for i in range(a.size):
        out[i] = _FMA(a[i], b[i], c[i])
    return out


def test_fma_is_llvm_fma():
    """``numeric.pure``'s fma (exact integers, one rounding) equals the compiled ``llvm.fma.f64`` bit for bit,
    signed zeros included, on products that cancel against c, overflow, or land in the subnormals."""
    from numba import njit

    import numeric.special
    from numeric.pure import INTRINSICS

    global _FMA
    _FMA = numeric.special.fma
    compiled = njit(error_model="numpy", cache=True)(_fma_loop)  # module level: numba can cache it

    rng = np.random.default_rng(14)
    n = 2000
    a, b = _edge_doubles(rng, n), _edge_doubles(rng, n)
    c = _edge_doubles(rng, n)
    with np.errstate(all="ignore"):
        c[: n // 2] = -(a[: n // 2] * b[: n // 2])  # c = −fl(ab): the result is the product's rounding error
    scale = np.exp2(rng.integers(-1100, 1000, n // 4).astype(np.float64))
    a[-n // 4:] = rng.uniform(1, 2, n // 4) * scale  # magnitudes where ab under/overflows
    expected = compiled(a, b, c)
    pure = INTRINSICS["fma"]
    for x, y, z, e in zip(a.tolist(), b.tolist(), c.tolist(), expected.tolist()):
        r = pure(x, y, z)
        assert (r == e and math.copysign(1, r) == math.copysign(1, e)) or (math.isnan(r) and math.isnan(e)), \
            (x, y, z, r, e)
        if math.isfinite(r) and all(map(math.isfinite, (x, y, z))):  # an independent exact reference
            assert abs(Fraction(r) - (Fraction(x) * Fraction(y) + Fraction(z))) <= Fraction(math.ulp(r)) / 2
    for x, y, z in [(0.0, -1.0, 0.0), (-0.0, 1.0, -0.0), (0.0, 1.0, -0.0), (1.0, 1.0, -1.0), (-1.0, 1.0, 1.0)]:
        assert math.copysign(1, pure(x, y, z)) == math.copysign(1, compiled(*(np.array([v]) for v in (x, y, z)))[0])


_TIERS = r"""
import json, sys
import bounds
from bounds import _core
out = {"import": "numba" in sys.modules}
out["heavy"] = [m for m in ("bounds.composition", "bounds.crosschecking", "bounds.suppression", "bounds.missing")
                if m in sys.modules]
g = bounds.poisson_subsampling(1.0, 1e-6, 0.01)
out["first"] = "numba" in sys.modules
out["first_value"] = list(g)
h = bounds.subsampled_gaussian_profile(1.0, theta=1.0, rate=0.01)
out["t11"] = "numba" in sys.modules
out["t11_value"] = h
for _ in range(_core.PURE_CALLS - 1):
    bounds.poisson_subsampling(1.0, 1e-6, 0.01)
out["before_switch"] = "numba" in sys.modules
out["switched_value"] = list(bounds.poisson_subsampling(1.0, 1e-6, 0.01))
out["after_switch"] = "numba" in sys.modules
kernel = "numeric._generated.subsampling:t1_epsilon"
import numeric
from numeric import scalar_route
out["compiled_in_place"] = _core._SCALAR_KERNELS[kernel] is scalar_route(kernel)
# scalar calls only so far: the @njit dispatcher (cheaper to compile than the vectorised loop), no loop
out["scalar_only"] = [bool(numeric._JITTED[kernel].signatures), numeric.loop_built(kernel)]
# a kernel whose loop an array call built first: its compiled scalar route is that loop at one point, and its
# @njit dispatcher (inlined into the loop) is never compiled for scalar calls
import numpy as np
t7 = "numeric._generated.group:t7_epsilon"
loop_value = float(numeric.kernel(t7, 2)(np.array([0.7]), np.array([3.0]))[0])
values = [_core.scalar_call(t7, [0.7, 3.0]) for _ in range(_core.PURE_CALLS + 2)]
out["after_loop"] = [_core._SCALAR_KERNELS[t7] is scalar_route(t7), bool(numeric._JITTED[t7].signatures),
                     values == [loop_value] * len(values)]
out["pure_modules"] = sorted(m for m in sys.modules if m.startswith("numeric._pure"))
# T7's δ sum overflows a float power in plain Python (OverflowError) where numba's value is inf
out["fallback"] = bounds.group_privacy(3.0, 0.001, 1000).delta
out["still_tiered"] = _core._SCALAR_KERNELS["numeric._generated.group:t7_delta"] is not scalar_route(
    "numeric._generated.group:t7_delta")
import types
import bounds.poisson_substitution  # the submodule first: the public name must still be the function
out["names"] = all(not isinstance(getattr(bounds, n), types.ModuleType) for n in bounds.__all__)
out["dir"] = set(bounds.__all__) <= set(dir(bounds))
print(json.dumps(out))
"""


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tiers_switch_and_fall_back():
    """A fresh process (one, for test time; it also checks ``bounds``' lazy public names): plain Python for the first ``PURE_CALLS`` calls of a fast kernel (numba not imported),
    then the compiled kernel in place, with equal values; a call that raises in plain Python is answered by
    the compiled kernel, with the array route's value."""
    import bounds

    out = _run(_TIERS)
    assert not out["import"] and not out["first"] and not out["t11"] and not out["before_switch"]
    assert out["after_switch"] and out["compiled_in_place"]
    assert out["scalar_only"] == [True, False] and out["after_loop"] == [True, False, True]
    # arrays of two points: the loop (one point takes the scalar route, tests/bounds/test_one_point.py)
    array = [float(v[0]) for v in bounds.poisson_subsampling([1.0, 1.0], 1e-6, 0.01)]
    assert out["first_value"] == out["switched_value"] == array
    assert out["t11_value"] == float(bounds.subsampled_gaussian_profile(np.array([1.0, 1.0]), theta=1.0, rate=0.01)[0])
    assert out["pure_modules"] and all(not m.startswith("numeric._pure.") or "numba" not in m
                                       for m in out["pure_modules"])
    # lazy public names: no heavy submodule at import; every name of __all__ resolves, in dir(bounds)
    assert out["heavy"] == [] and out["names"] and out["dir"]
    assert out["still_tiered"]  # the first call of that kernel: answered by the compiled one, tier kept
    assert out["fallback"] == float(bounds.group_privacy(np.array([3.0, 3.0]), 0.001, 1000).delta[0])


def test_twins_do_not_use_numba():
    """The twins' functions are plain Python functions (no numba dispatcher), and the twin of
    ``numeric.special`` chose the same product-error form (FMA or Dekker) as the compiled module."""
    import types

    import numeric.special as compiled_special
    from numeric.pure import twin

    special = twin("numeric.special")
    assert special.HAS_FMA == compiled_special.HAS_FMA
    for name in ("up", "mul_up", "two_product", "product_error"):
        assert isinstance(getattr(special, name), types.FunctionType), name
    assert getattr(special, "product_error") is not compiled_special.product_error


def test_scalar_inverse_matches_the_array_route():
    """``poisson_subsampling_inverse``'s scalar route (same kernels, same shrinking steps on floats) returns
    the array route's bits, at magnitudes from the subnormals to ε = inf and at the ε ≈ 709 branch."""
    import bounds

    rng = np.random.default_rng(1411)
    eps = np.concatenate([10 ** rng.uniform(-300, 4, 80), [0.0, 5e-324, 709.0, 710.0, 1000.0, math.inf]])
    delta = np.concatenate([10 ** rng.uniform(-300, 0, 80), [0.0, 5e-324, 1.0, 0.5, 1e-6, 1e-300]])
    rate = np.concatenate([10 ** rng.uniform(-300, 0, 80), [1.0, 0.0, 1e-300, 0.5, 5e-324, 0.9]])
    array = bounds.poisson_subsampling_inverse(eps, delta, rate)
    for i, point in enumerate(zip(eps.tolist(), delta.tolist(), rate.tolist())):
        assert tuple(bounds.poisson_subsampling_inverse(*point)) == (array.epsilon[i], array.delta[i]), point


def test_object_mode_functions_run_unguarded():
    """``numeric.kanon.admissible_exact`` (exact rationals with unbounded ints, called by numba through objmode)
    run from its twin without numba gives the module's own answers at the threshold ε = −ln(1 − β) ± ulps."""
    import numeric.kanon as kanon
    from numeric.pure import python_function

    twin_exact = python_function("numeric.kanon:admissible_exact")
    rng = np.random.default_rng(15)
    for beta in np.concatenate([rng.uniform(0, 1, 60), [1e-300, 0.5, 1 - 2 ** -53]]).tolist():
        e = -math.log1p(-beta)
        for eps in (e, math.nextafter(e, 0.0), math.nextafter(e, 1.0), e * (1 - 1e-9)):
            for eps_b in (0.0, eps / 3):
                assert twin_exact(beta, eps, eps_b) == kanon.admissible_exact(beta, eps, eps_b), (beta, eps, eps_b)


def test_long_loops_go_to_the_compiled_kernel():
    """A call whose loop is known up front to exceed ``MAX_TRIPS`` iterations is refused by the plain-Python
    twin at once (``TooLong``: a T3 binomial window of 1.9·10⁶ terms at m = 10¹², n = 1711, which plain Python
    summed in ≈ 8 s) and answered by the compiled kernel, with the array route's bits; the kernel is then
    compiled for good.  A window just inside the limit stays plain Python, with the same bits as well."""
    import pytest

    import bounds
    from bounds import _core
    from numeric import scalar_route
    from numeric.pure import MAX_TRIPS, TooLong, _ObjMode, _range, pure_function
    from numeric.with_replacement import cutoffs

    kernel = "numeric.with_replacement:delta"
    wide = (1.0, 1e-6, 1e12, 1711.0)
    lo, hi, _ = cutoffs(1e12, 1 / 1711)
    assert hi - lo + 1 > 400 * MAX_TRIPS  # the case is what it claims to be
    with pytest.raises(TooLong):
        pure_function(kernel)(*wide)
    # m = 4·10⁵, n = 100: a window of 5005 terms (over the limit); m = 10⁵: 2446 terms; m = 1000, n = 10⁴: a
    # few terms and δ' inside (0, 1) (wider windows give δ' = 1: E[k] = m/n ≫ 1 draws of the record)
    for m, n, served_by_python in ((4 * 10 ** 5, 100, False), (10 ** 5, 100, True), (1000, 10 ** 4, True),
                                   (10 ** 12, 1711, False)):
        point = (1.0, 1e-6, float(m), float(n))
        lo, hi, _ = cutoffs(point[2], 1 / point[3])
        assert (hi - lo + 1 <= MAX_TRIPS) == served_by_python, (m, hi - lo + 1)
        saved = _core._SCALAR_KERNELS.pop(kernel, None)
        try:
            tiered = _core._SCALAR_KERNELS[kernel] = _core._tiered(kernel)
            value = _core.scalar_call(kernel, list(point))
            assert (_core._SCALAR_KERNELS[kernel] is tiered) == served_by_python
            if not served_by_python:
                assert _core._SCALAR_KERNELS[kernel] is scalar_route(kernel)
        finally:
            if saved is None:
                _core._SCALAR_KERNELS.pop(kernel, None)
            else:
                _core._SCALAR_KERNELS[kernel] = saved
        array = bounds.with_replacement(np.array([point[0]]), point[1], int(point[2]), int(point[3])).delta[0]
        assert value == float(array), (m, value, array)
        if n == 10 ** 4:
            assert 0.0 < value < 1.0  # a value that tells routes apart
    # the twins' range: MAX_TRIPS iterations run, one more is refused (also astronomically many), objmode unlimited
    assert len(_range(MAX_TRIPS)) == MAX_TRIPS and len(_range(5, MAX_TRIPS + 5)) == MAX_TRIPS
    for args in ((MAX_TRIPS + 1,), (-1, MAX_TRIPS), (10 ** 30,), (0, 10 ** 30, 2)):
        with pytest.raises(TooLong):
            _range(*args)
    with _ObjMode():
        assert len(_range(10 ** 6)) == 10 ** 6
