"""Generated kernels that compute the same function share one compiled dispatcher and one array loop
(``numeric.canonical``, issue 20): which ones are merged, that nothing else is, and that a merged kernel's values
are its own plain-Python twin's bits."""
from __future__ import annotations

import types

import numpy as np

import numeric
from numeric._generated.metadata import THEOREMS


def _specs():
    return [s for meta in THEOREMS.values() for out in meta["outputs"].values()
            for s in (out["kernel"], out["kernel"] + "_raw")]


def test_the_duplicate_closed_forms_are_merged_and_nothing_else():
    merged = {s: numeric.canonical(s) for s in _specs() if numeric.canonical(s) != s}
    t1, t3, t17 = "numeric._generated.subsampling:t1_", "numeric._generated.subsampling:t3_", \
        "numeric._generated.missing:t17_"
    assert merged == {
        "numeric._generated.poisson_substitution:t6_epsilon": t1 + "epsilon",
        "numeric._generated.poisson_substitution:t6_epsilon_raw": t1 + "epsilon_raw",
        "numeric._generated.missing:t17_epsilon": t1 + "epsilon",
        "numeric._generated.missing:t17_epsilon_raw": t1 + "epsilon_raw",
        "numeric._generated.subsampling:t4_epsilon": t3 + "epsilon",
        "numeric._generated.subsampling:t4_epsilon_raw": t3 + "epsilon_raw",
        "numeric._generated.missing:t18_delta": t17 + "delta",
        "numeric._generated.missing:t18_delta_raw": t17 + "delta_raw",
    }
    assert numeric.canonical("numeric.profiles:gaussian_delta") == "numeric.profiles:gaussian_delta"


def test_a_different_constant_or_global_is_not_the_same_function():
    f = numeric.scalar_function("numeric._generated.subsampling:t1_epsilon")
    assert numeric._same_function(f, f)
    other_globals = types.FunctionType(f.__code__, {**f.__globals__, "up": lambda x, n: x}, "t1_epsilon")
    assert not numeric._same_function(f, other_globals)
    other_const = types.FunctionType(f.__code__.replace(co_consts=tuple(5 if c == 4 else c for c in f.__code__.co_consts)),
                                     f.__globals__, "t1_epsilon")
    assert other_const.__code__.co_consts != f.__code__.co_consts
    assert not numeric._same_function(f, other_const)
    # constants that are == but not the same value in the code (t1_epsilon has 0.0 and 4): −0.0 for 0.0, 4.0 for 4
    for old, new in ((0.0, -0.0), (4, 4.0)):
        consts = tuple(new if type(c) is type(old) and c == old else c for c in f.__code__.co_consts)
        assert consts == f.__code__.co_consts and repr(consts) != repr(f.__code__.co_consts)
        twin = types.FunctionType(f.__code__.replace(co_consts=consts), f.__globals__, "t1_epsilon")
        assert not numeric._same_function(f, twin)
    assert not numeric._same_function(f, numeric.scalar_function("numeric._generated.subsampling:t1_epsilon_raw"))
    assert not numeric._same_function(f, None)


def test_a_merged_kernel_gives_its_own_twins_bits():
    """T17 ε evaluated through T1 ε's loop and scalar dispatcher equals T17 ε's own plain-Python twin."""
    from numeric.pure import pure_function

    rng = np.random.default_rng(3)
    eps = np.concatenate([[0.0, 5e-324, 1e-300, 1.0, 709.0, 710.0, 1e4, np.inf], 2.0 ** rng.integers(-60, 12, 40)])
    p = np.concatenate([[0.0, 5e-324, 0.5, 1.0], 2.0 ** -rng.integers(0, 60, 44)])
    spec = "numeric._generated.missing:t17_epsilon"
    loop = numeric.kernel(spec, 2)(eps, p)
    scalar = [numeric.scalar_kernel(spec)(float(e), float(q)) for e, q in zip(eps, p)]
    plain = [pure_function(spec)(float(e), float(q)) for e, q in zip(eps, p)]
    assert loop.tolist() == scalar == plain
