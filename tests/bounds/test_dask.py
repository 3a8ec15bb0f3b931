"""Dask arrays in, dask arrays out (bounds/_dask.py), generated from ``bounds.__all__`` like the contract test.

Every public callable the contract test generates from the records (``test_contract.GENERATED``) must accept
dask arrays: the call stays lazy (a poisoned input that raises when computed does not raise at call time), the
result is a dask array (a ``Guarantee`` of two) and computes bit-identically to the numpy route, on ragged chunks
and with numpy arrays and scalars broadcast against the dask argument.  A bad value raises, at compute time,
the numpy route's ``ValueError`` with the element's global index.  Every callable the contract test excludes
is classified in ``DASK`` (elementwise → tested here, refused → must raise without reading the array, or not a
function of numbers), so a new public name cannot miss dask support silently.

Skipped cleanly when dask is not installed (``pip install ".[dask]"``).  Runs on dask's synchronous scheduler
(one test on the threaded one).
"""
from __future__ import annotations

import ast
import functools
import inspect
import math
import os
import pathlib

import numpy as np
import pytest

if os.environ.get("CI") == "1":  # CI installs ".[test]", which includes dask: there a missing dask fails
    import dask.array as da
else:
    da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import bounds  # noqa: E402
from bounds._core import ParameterTypeError  # noqa: E402
from tests.bounds.test_contract import (  # noqa: E402
    CONVENTIONAL, EXCLUDED, GENERATED, _ordinary, _ordinary_kwargs, _record_of)

SHAPE = (5, 3)  # small: the k-anonymization searches cost milliseconds per point
CHUNKS = ((2, 2, 1), (2, 1))  # ragged in both axes
FACTORS = np.array([1.0, 0.75, 1.25, 0.5, 1.1])  # a spread of valid values around the ordinary point

# Callables the contract test does not generate: how each one treats a dask array.
DASK = {
    # elementwise in their numbers, with a mechanism object: run per block (test_mechanism_profiles)
    "poisson_subsampling_profile": "elementwise", "without_replacement_profile": "elementwise",
    "with_replacement_profile": "elementwise", "poisson_substitution_profile": "elementwise",
    "missing_data_corollary": "elementwise",
    # not elementwise, or objects: refuse a dask argument without reading it (test_refused)
    "EpsDelta": "refused", "Gaussian": "refused", "Laplace": "refused", "PoissonSampled": "refused",
    "compose": "refused", "dpsgd_noise_multiplier": "refused", "dpsgd_max_steps": "refused",
    "poisson_sampled": "refused", "crosscheck": "refused", "from_dp_event": "refused",
    "from_opacus_history": "refused", "DiscretePairs": "refused", "RateChange": "refused",
    "WithReplacement": "refused", "WithoutReplacement": "refused", "suppression_bound": "refused",
    "suppression_sensitivity": "refused", "fwl_clipped_mean": "refused", "fwl_covariance": "refused",
    "fwl_histogram": "refused", "fwl_linear": "refused", "fwl_mean": "refused", "fwl_projected_mean": "refused",
    "fwl_ratio": "refused", "theorem": "refused", "latex": "refused",
    "balls_and_bins": "refused", "cyclic": "refused", "random_allocation": "refused", "shuffled": "refused",
    "sampler_composition": "refused", "sampler_noise_multiplier": "refused",
    # data types and a function without arguments
    "Guarantee": "a NamedTuple", "SuppressionBound": "a result type", "TheoremInfo": "a result type",
    "FWLQuery": "a result type (built by the fwl_* functions)", "Composition": "a result type",
    "Sandwich": "a NamedTuple", "Verdict": "a result type", "theorems": "no arguments",
    "CalibrationStep": "a result type (told to a calibration's progress callback)",
}


# ordinary points of the keyword-only k-anonymization inverses, where their answers vary with the parameters
KEYWORD_ONLY_POINTS = {
    "safe_k_anonymization_min_k": dict(delta=1e-4, beta=0.2, epsilon=2.0),
    "safe_k_anonymization_min_epsilon": dict(k=5.0, beta=0.2, delta=1e-2),
    "safe_k_anonymization_max_beta": dict(k=5.0, epsilon=2.0, delta=1e-2),
}


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _poisoned(shape=SHAPE, chunks=CHUNKS):
    def boom():
        raise RuntimeError("the dask input was computed at call time")
    blocks = [[da.from_delayed(dask.delayed(boom)(), (r, c), dtype=np.float64) for c in chunks[1]]
              for r in chunks[0]]
    return da.block(blocks)


def _parameters(name: str) -> tuple:
    """The callable, its numeric parameters with their domains (keyword-only ones too: the k-anonymization
    inverses take only keywords) and an ordinary point."""
    function, params = GENERATED[name]
    kwargs = _ordinary_kwargs(name)
    params = dict(params)  # GENERATED is shared with the contract test
    if not params:
        meta = _record_of(name)
        for p in inspect.signature(function).parameters.values():
            if p.kind is p.KEYWORD_ONLY and p.default is p.empty:
                params[p.name] = meta["parameters"].get(p.name, {}).get("domain") or CONVENTIONAL[p.name]
        kwargs = {p: _ordinary(d) for p, d in params.items()}
        kwargs.update(KEYWORD_ONLY_POINTS[name])
    return function, params, kwargs


@functools.lru_cache(maxsize=None)
def _valid_grid(name: str) -> tuple[str, np.ndarray, dict]:
    """The first numeric parameter varied over a (5, 3) grid of values the numpy route accepts: five values
    down the rows, and relative steps of 2⁻⁴⁰ (or +1 for integers) along the columns, so that every element
    differs and a misplaced block would show."""
    function, params, kwargs = _parameters(name)
    first = next(iter(params))
    integer = params[first][4]
    base = kwargs[first]
    column = []
    for v in (base * FACTORS if not integer else base + np.arange(5.0)):
        column.append(v if _accepts(function, {**kwargs, first: float(v)}) else base)
    column = np.array(column)[:, None]
    for steps in ((np.arange(3.0), np.zeros(3)) if integer else (np.arange(3.0) * 2.0 ** -40, np.zeros(3))):
        grid = column + steps if integer else column * (1 + steps)
        if _accepts(function, {**kwargs, first: grid}):
            break
    grid.setflags(write=False)
    return first, grid, kwargs


def _accepts(function, kwargs) -> bool:
    try:
        function(**kwargs)
        return True
    except ValueError:
        return False


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def _computed(result):
    if isinstance(result, bounds.Guarantee):
        assert all(dask.is_dask_collection(x) for x in result), result
        return bounds.Guarantee(*dask.compute(*result))
    assert dask.is_dask_collection(result), result
    return result.compute()


def _equal(result, expected) -> bool:
    if isinstance(expected, bounds.Guarantee):
        return isinstance(result, bounds.Guarantee) and all(_same(r, e) for r, e in zip(result, expected))
    return _same(result, expected)


def test_every_public_name_is_classified():
    missing = sorted(set(EXCLUDED) - set(DASK))
    assert not missing, f"public names without a dask classification (add them to DASK): {missing}"
    for name in GENERATED:
        assert getattr(getattr(bounds, name), "__dask__", "hook") in ("elementwise", "hook")


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_bit_identical_and_lazy(name):
    function, params, _ = _parameters(name)
    first, grid, kwargs = _valid_grid(name)
    # lazy: a poisoned dask input is not read by the call
    function(**{**kwargs, first: _poisoned()})
    expected = function(**{**kwargs, first: grid})
    for chunks in (CHUNKS, (1, 3)):  # ragged blocks; one row per block
        result = _computed(function(**{**kwargs, first: da.from_array(grid, chunks=chunks)}))
        assert _equal(result, expected), (name, chunks, result, expected)
    # a second parameter as a numpy array (and, for the first one, a dask column) broadcast against it
    others = [p for p in params if p != first]
    if others:
        second = others[0]
        row = np.full(SHAPE[1], kwargs[second])
        column = da.from_array(grid[:, :1], chunks=((3, 2), 1))
        expected = function(**{**kwargs, first: grid[:, :1], second: row})
        result = _computed(function(**{**kwargs, first: column, second: row}))
        assert _equal(result, expected), (name, "broadcast", result, expected)
        # numpy scalar against dask
        expected = function(**{**kwargs, first: grid, second: np.float64(kwargs[second])})
        result = _computed(function(**{**kwargs, first: da.from_array(grid, chunks=CHUNKS),
                                        second: np.float64(kwargs[second])}))
        assert _equal(result, expected), (name, "numpy scalar", result, expected)


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_bad_value_raises_at_compute(name):
    """NaN in a late, ragged block: the call is lazy; compute raises the numpy route's message (global index)."""
    function, params, _ = _parameters(name)
    first, grid, kwargs = _valid_grid(name)
    bad = np.array(grid)
    bad[3, 2] = math.nan
    with pytest.raises(ValueError) as numpy_error:
        function(**{**kwargs, first: bad})
    result = function(**{**kwargs, first: da.from_array(bad, chunks=CHUNKS)})
    with pytest.raises(ValueError) as dask_error:
        _computed(result)
    assert str(dask_error.value) == str(numpy_error.value)
    assert type(dask_error.value) is type(numpy_error.value)


def test_dtype_and_shape_refused_at_call_time():
    for bad in (da.ones(3, dtype=bool), da.ones(3, dtype=complex), da.from_array(np.array(["1.0", "2"]))):
        with pytest.raises(ParameterTypeError, match="poisson_subsampling: epsilon"):
            bounds.poisson_subsampling(bad, 1e-6, 0.1)
        with pytest.raises(ParameterTypeError, match="subsampled_gaussian_profile: epsilon"):
            bounds.subsampled_gaussian_profile(bad, theta=1.0, rate=0.1)
    for function in (bounds.poisson_subsampling, bounds.poisson_subsampling_inverse):  # a numpy argument too
        with pytest.raises(ParameterTypeError, match=f"{function.__name__}: delta .*booleans"):
            function(da.ones(3), np.array([True, False, True]), 0.1)
    with pytest.raises(ValueError, match="poisson_subsampling: parameter shapes do not broadcast"):
        bounds.poisson_subsampling(da.ones(3), np.zeros(4), 0.1)
    with pytest.raises(ValueError, match="poisson_subsampling: epsilon"):  # refused by the scalar route
        bounds.poisson_subsampling(dask.delayed(float)(1.0), 1e-6, 0.1)
    with pytest.raises(ValueError, match="subsampled_gaussian_profile: epsilon .*only dask arrays"):
        bounds.subsampled_gaussian_profile(dask.delayed(float)(1.0), theta=1.0, rate=0.1)


def test_zero_dimensional_and_keywords():
    """0-d dask arrays give 0-d dask results; noise_multiplier= and direction= reach every block."""
    g = bounds.poisson_subsampling(da.from_array(np.array(1.0)), 1e-6, 0.01)
    assert g.epsilon.ndim == 0 and _equal(bounds.Guarantee(*dask.compute(*g)),
                                          bounds.Guarantee(*map(np.asarray, bounds.poisson_subsampling(
                                              np.array(1.0), 1e-6, 0.01))))
    eps = np.linspace(0.0, 3.0, 11)
    sigma = np.linspace(0.6, 4.0, 11)
    for direction in ("remove", "both"):
        expected = bounds.subsampled_gaussian_profile(eps, rate=0.01, noise_multiplier=sigma, direction=direction)
        result = bounds.subsampled_gaussian_profile(da.from_array(eps, chunks=4), rate=0.01,
                                                    noise_multiplier=da.from_array(sigma, chunks=3),
                                                    direction=direction)
        assert _same(result.compute(), expected)
    with pytest.raises(ValueError, match="direction"):
        bounds.subsampled_gaussian_profile(da.ones(3), theta=1.0, rate=0.1, direction="sideways").compute()
    k = bounds.safe_k_anonymization_min_k(delta=da.from_array(np.array([1e-3, 1e-6, 0.1]), chunks=2), beta=0.1,
                                          epsilon=1.0)
    assert k.dtype == np.int64 and _same(k.compute(), bounds.safe_k_anonymization_min_k(
        delta=np.array([1e-3, 1e-6, 0.1]), beta=0.1, epsilon=1.0))


def test_threaded_scheduler_and_one_graph_for_both_outputs():
    eps = np.geomspace(1e-3, 20, 2000).reshape(40, 50)
    rate = np.geomspace(1e-5, 1.0, 50)
    expected = bounds.poisson_subsampling(eps, 1e-7, rate)
    g = bounds.poisson_subsampling(da.from_array(eps, chunks=(7, 13)), 1e-7, rate)
    with dask.config.set(scheduler="threads"):
        result = bounds.Guarantee(*dask.compute(*g))
    assert _equal(result, expected)
    # ε and δ share one blockwise task per block: computing both evaluates each block once
    graph = {**dict(g.epsilon.__dask_graph__()), **dict(g.delta.__dask_graph__())}
    blocks = [key for key in graph if isinstance(key, tuple) and key[0].startswith("poisson_subsampling-pair")]
    assert len(blocks) == 6 * 4, blocks  # 40 rows in chunks of 7 → 6, 50 columns in chunks of 13 → 4


def test_mechanism_profiles():
    eps = np.linspace(0.0, 4.0, 9)
    for function, args, mech in ((bounds.poisson_subsampling_profile, (0.05,), bounds.Laplace(theta=1.5)),
                                 (bounds.without_replacement_profile, (3, 10), bounds.Gaussian(theta=0.8)),
                                 (bounds.with_replacement_profile, (3, 10), bounds.Gaussian(theta=0.8)),
                                 (bounds.poisson_substitution_profile, (0.05,), bounds.Gaussian(theta=0.8))):
        expected = function(mech, eps, *args)
        result = _computed(function(mech, da.from_array(eps, chunks=(4, 5)), *args))
        assert _equal(result, expected), (function.__name__, mech)
    for mech in (bounds.Gaussian(theta=0.8), bounds.Laplace(theta=1.5)):
        assert _same(mech.profile(da.from_array(eps, chunks=2)).compute(), mech.profile(eps))
    rho = np.array([0.1, 0.5, 1.0])
    assert _same(bounds.missing_data_corollary(0.5, 0.2, da.from_array(rho, chunks=2)).compute(),
                 bounds.missing_data_corollary(0.5, 0.2, rho))


def test_refused():
    """Objects and non-elementwise functions refuse a dask argument (never reading it) naming themselves."""
    p = _poisoned()[0, 0]  # a 0-d dask array that raises if it is ever computed
    identity = {(): 1}
    calls = {
        "EpsDelta": lambda: bounds.EpsDelta(p, 1e-6), "Gaussian": lambda: bounds.Gaussian(theta=p),
        "Laplace": lambda: bounds.Laplace(theta=p), "poisson_sampled": lambda: bounds.poisson_sampled(bounds.Gaussian(theta=1.0), p),
        "PoissonSampled": lambda: bounds.PoissonSampled(bounds.Gaussian(theta=1.0), p),
        "compose": lambda: bounds.compose([(bounds.poisson_sampled(bounds.Gaussian(theta=1.0), 0.01), p)]),
        "dpsgd_noise_multiplier": lambda: bounds.dpsgd_noise_multiplier(1.0, p, 0.01, 10),
        "dpsgd_max_steps": lambda: bounds.dpsgd_max_steps(1.0, 1e-5, 0.01, p),
        "crosscheck": lambda: bounds.crosscheck(bounds.Gaussian(theta=1.0), epsilon=p, delta=1e-5),
        "from_dp_event": lambda: bounds.from_dp_event(p), "from_opacus_history": lambda: bounds.from_opacus_history([(p, 0.01, 10)]),
        "DiscretePairs": lambda: bounds.DiscretePairs([((p, 0.5), (0.5, 0.5))]),
        "RateChange": lambda: bounds.RateChange(bounds.EpsDelta(1.0, 1e-6), p, 0.5),
        "WithReplacement": lambda: bounds.WithReplacement(bounds.Gaussian(theta=1.0), p, 10),
        "WithoutReplacement": lambda: bounds.WithoutReplacement(bounds.Gaussian(theta=1.0), 3, p),
        "suppression_bound": lambda: bounds.suppression_bound(lambda D: identity, range(2), 2, p),
        "suppression_sensitivity": lambda: bounds.suppression_sensitivity(lambda D: D, range(2), p),
        "fwl_clipped_mean": lambda: bounds.fwl_clipped_mean(3, 10, p), "fwl_covariance": lambda: bounds.fwl_covariance(3, 10, p),
        "fwl_histogram": lambda: bounds.fwl_histogram(p), "fwl_linear": lambda: bounds.fwl_linear(p),
        "fwl_mean": lambda: bounds.fwl_mean(3, p, 1.0), "fwl_projected_mean": lambda: bounds.fwl_projected_mean(p, 10, 1.0),
        "fwl_ratio": lambda: bounds.fwl_ratio([1.0, p], 0.5), "theorem": lambda: bounds.theorem(p),
        "latex": lambda: bounds.latex(p),
        "balls_and_bins": lambda: bounds.balls_and_bins(bounds.Gaussian(theta=1.0), p),
        "cyclic": lambda: bounds.cyclic(bounds.Gaussian(theta=1.0), p),
        "random_allocation": lambda: bounds.random_allocation(bounds.Gaussian(theta=1.0), 10, selected=p),
        "shuffled": lambda: bounds.shuffled(bounds.Gaussian(theta=1.0), p),
        "sampler_composition": lambda: bounds.sampler_composition(sampler="cyclic", noise_multiplier=p, epochs=1,
                                                                  steps_per_epoch=10),
        "sampler_noise_multiplier": lambda: bounds.sampler_noise_multiplier(2.0, p, sampler="cyclic", epochs=1,
                                                                            steps_per_epoch=10),
    }
    assert set(calls) == {k for k, v in DASK.items() if v == "refused"}
    for name, call in calls.items():
        with pytest.raises(ValueError, match=name) as info:
            call()
        assert "dask" in str(info.value), (name, info.value)


def test_bounds_never_imports_dask():
    """dask is imported only by the caller: no module of bounds/ imports it at module level (the checks read
    ``sys.modules``; tests/bounds/test_import.py's fresh ``import bounds`` covers what import time loads)."""
    for path in pathlib.Path(bounds.__file__).parent.glob("*.py"):
        for node in ast.parse(path.read_text()).body:  # module level only: imports inside functions are lazy
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "dask" or n.startswith("dask.") for n in names), (path.name, names)
