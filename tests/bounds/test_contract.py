"""The public contract over the whole API (issue 11), generated so that a new function is covered.

Every callable in ``bounds.__all__`` that a theorem record lists as public is called with its signature's
numeric parameters taken from the record's declared domains (``numeric/_generated/metadata.py``): one ordinary
point, then each parameter in turn replaced by an extreme value (0, −0.0, 5e-324, 1e308, ±inf, NaN, 2⁵³ + 1,
10⁴⁰⁰) or a hostile one (strings, bytes, None, a bool, complex, empty and 2-d arrays, an array with one NaN).
Each call must either raise ``ValueError``/``TypeError`` naming the function (and, for non-numbers and NaN,
the parameter), or return a result without NaN, with ε ≥ 0 and 0 ≤ δ ≤ 1, in the broadcast shape.  Hypothesis
draws further points with a fixed, derandomized CI profile.  Calls that could hang run in a subprocess with a
time limit.  The scalar fast path of ``bounds._core`` is proven bit-identical to the ufunc route on the
accuracy grids.

Callables that take objects rather than numbers are not generated; ``EXCLUDED`` lists them with the test that
covers them (new names from other work land there explicitly, or get a record).
"""
from __future__ import annotations

import inspect
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bounds
from numeric._generated.metadata import THEOREMS

settings.register_profile("contract-ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))

# Public names that take objects (mechanisms, callables, query presets) or are data types: covered by their own
# small cases below or by the named test modules.
EXCLUDED = {  # name → where it is covered
    "EpsDelta": "test_object_api_hostile_values", "Gaussian": "test_object_api_hostile_values",
    "Laplace": "test_object_api_hostile_values",
    "Guarantee": "a NamedTuple", "SuppressionBound": "a result type", "TheoremInfo": "a result type",
    "FWLQuery": "test_missing.py", "fwl_clipped_mean": "test_object_arguments",
    "fwl_covariance": "test_object_arguments", "fwl_histogram": "test_object_arguments",
    "fwl_linear": "test_missing.py", "fwl_mean": "test_object_arguments",
    "fwl_projected_mean": "test_missing.py", "fwl_ratio": "test_missing.py",
    "latex": "test_cli.py (latex imports sympy)", "theorem": "test_object_arguments", "theorems": "no arguments",
    "poisson_subsampling_profile": "test_object_arguments", "with_replacement_profile": "test_object_arguments",
    "without_replacement_profile": "test_object_arguments", "poisson_substitution_profile": "test_object_arguments",
    "suppression_bound": "test_hangs_refused", "suppression_sensitivity": "test_hangs_refused",
    "missing_data_corollary": "rho has no record domain: test_object_arguments",
    # certified composition (issue 12) and cross-checking (issue 13): the object-API sweep below
    "Composition": "test_object_api_hostile_values (delta/epsilon)", "PoissonSampled": "test_object_api_hostile_values",
    "Sandwich": "a NamedTuple", "compose": "test_object_api_hostile_values",
    "dpsgd_noise_multiplier": "test_object_api_hostile_values", "dpsgd_max_steps": "test_object_api_hostile_values",
    "poisson_sampled": "test_object_api_hostile_values", "Verdict": "a result type",
    "DiscretePairs": "test_object_api_hostile_values", "RateChange": "test_object_api_hostile_values",
    "WithReplacement": "test_object_api_hostile_values", "WithoutReplacement": "test_object_api_hostile_values",
    "crosscheck": "test_object_api_hostile_values", "from_dp_event": "test_object_api_hostile_values",
    "from_opacus_history": "test_object_api_hostile_values",
    # samplers of DP-SGD batches (issue 21): objects in, rounds out; bad input in their own modules
    "balls_and_bins": "test_samplers_balls_and_bins.py", "cyclic": "test_samplers_cyclic.py",
    "random_allocation": "test_samplers_random_allocation.py", "shuffled": "test_samplers_shuffle.py",
    "sampler_composition": "test_samplers_wiring.py",
    # noise calibration by the samplers' words (issue 21): keyword words, a callback; bad input in its own module
    "sampler_noise_multiplier": "test_calibration.py (test_sampler_noise_multiplier_bad_input)",
    "CalibrationStep": "a result type (told to a calibration's progress callback)",
}
# functions whose loops depend on integer sizes: their extreme cases run in a subprocess
HANG_PRONE = {"with_replacement"}

INF, NAN = math.inf, math.nan
EXTREME = [0.0, -0.0, 5e-324, 1e308, INF, -INF, NAN, 2 ** 53 + 1, 10 ** 400]
HOSTILE = ["1.0", b"1", "1e400", None, True, 1 + 1j, np.array([1 + 0j]), np.array([]), [1.0, "a"]]


# targets of inverse queries, which their record does not list as parameters
CONVENTIONAL = {"delta": (0.0, 1.0, False, False, False), "epsilon": (0.0, INF, False, False, False)}


def _record_of(name: str) -> dict | None:
    for meta in THEOREMS.values():
        if name in meta["public"]:
            return meta
    return None


def _ordinary(domain: tuple) -> float:
    lo, hi, lo_open, hi_open, integer = domain
    if integer:
        return float(max(lo, 0) + 2)
    if hi == INF:
        return 1.0 if lo <= 1.0 else lo + 1.0
    return 0.5 * (lo + hi) if hi - lo <= 2 else lo + 1.0


def _generated() -> dict[str, tuple]:
    """name → (callable, {numeric parameter: domain}) for every public callable with a record."""
    out = {}
    for name in bounds.__all__:
        if name in EXCLUDED:
            continue
        meta = _record_of(name)
        assert meta is not None, (f"{name} is public but has no record and no entry in EXCLUDED: give it a record "
                                  "or list it with the test that covers it")
        function = getattr(bounds, name)
        params = {}
        for p in inspect.signature(function).parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name in meta["parameters"]:
                params[p.name] = meta["parameters"][p.name]["domain"]  # keyword-only too: θ, rate (issue 21)
            elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name in CONVENTIONAL:
                params[p.name] = CONVENTIONAL[p.name]
            elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty:
                raise AssertionError(f"{name}: parameter {p.name} has no declared domain")
        out[name] = (function, params)
    return out


GENERATED = _generated()


def _ordinary_kwargs(name: str) -> dict:
    _, params = GENERATED[name]
    kwargs = {p: _ordinary(d) for p, d in params.items()}
    if name.startswith("safe_k_anonymization") or name.startswith("eps1_safe"):
        kwargs.update({k: v for k, v in dict(beta=0.2, epsilon=2.0, epsilon1=0.5, delta=0.5).items() if k in kwargs})
    if name == "missing_data_gaussian":
        kwargs["epsilon"] = 0.5
    if name == "outlier_score_suppression_inverse":
        kwargs.update(epsilon=5.0, delta=0.5)
    return kwargs


def _check_result(name: str, result, shape: tuple) -> None:
    values = list(result) if isinstance(result, tuple) else [result]
    for v in values:
        a = np.asarray(v, dtype=np.float64)
        assert a.shape == shape, f"{name}: shape {a.shape}, expected {shape}"
        assert not np.isnan(a).any(), f"{name}: NaN in {result!r}"
    if isinstance(result, bounds.Guarantee):
        eps, dlt = (np.asarray(x, dtype=np.float64) for x in result)
        assert (eps >= 0).all(), f"{name}: ε < 0 in {result!r}"
        assert ((dlt >= 0) & (dlt <= 1)).all(), f"{name}: δ outside [0, 1] in {result!r}"
    elif name.endswith("_profile") or name.endswith("_delta"):
        a = np.asarray(result, dtype=np.float64)
        assert ((a >= 0) & (a <= 1)).all(), f"{name}: δ outside [0, 1]: {result!r}"


def _call(name: str, kwargs: dict, param: str | None = None, value=None) -> None:
    function, _ = GENERATED[name]
    try:
        result = function(**kwargs)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert name.split("_inverse")[0].split("safe_k")[0] in message or name in message, \
            f"{name}: message does not name the function: {message!r}"
        hostile = value is None or isinstance(value, (str, bytes, complex, bool)) or (
            isinstance(value, float) and math.isnan(value))
        if param is not None and hostile:
            assert param in message, f"{name}: message does not name {param}: {message!r}"
        assert "np.float64" not in message and "np.int64" not in message, f"{name}: numpy repr: {message!r}"
        return
    except ArithmeticError as exc:  # OverflowError, decimal.Overflow, ZeroDivisionError: never acceptable
        raise AssertionError(f"{name}({kwargs!r}) raised {type(exc).__name__}: {exc}") from exc
    shapes = [np.shape(v) for v in kwargs.values() if not isinstance(v, (str, bytes))]
    _check_result(name, result, np.broadcast_shapes(*shapes))


CASES = [(name, param, value) for name in GENERATED if name not in HANG_PRONE
         for param in GENERATED[name][1] for value in EXTREME + HOSTILE]


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_ordinary_point(name):
    kwargs = _ordinary_kwargs(name)
    _call(name, kwargs)
    arrays = {k: np.full((2, 3), v) for k, v in kwargs.items()}  # 2-d arrays broadcast
    _call(name, arrays)


def test_extreme_and_hostile_values():
    for name, param, value in CASES:
        kwargs = _ordinary_kwargs(name)
        kwargs[param] = value
        _call(name, kwargs, param, value)
        if isinstance(value, float):  # the same value inside an array, next to an ordinary one
            kwargs[param] = np.array([kwargs[param] if False else _ordinary_kwargs(name)[param], value])
            _call(name, kwargs, param, value)


_HANG_SCRIPT = r"""
import math, bounds
cases = [(10**12, 1711, 1.0), (2**60, 3, 1e-9), (10**8, 2, 1e-9), (2**53 + 1, 7, 1.0), (10**400, 3, 1.0),
         (5, 10**400, 1.0)]
for m, n, eps in cases:
    for f in (lambda: bounds.with_replacement(eps, 1e-6, m, n),) + (
            (lambda: bounds.with_replacement_profile(bounds.Gaussian(theta=1.0), 1.0, m, n),) if n == 1711 else ()):
        try:
            g = f()
        except ValueError as exc:
            assert "with_replacement" in str(exc), exc
            continue
        assert g.epsilon >= 0 and 0 <= g.delta <= 1, g
print("done")
"""


def test_hangs_refused():
    """Inputs that used to run for minutes answer or refuse (subprocess with a hang guard, not a timing)."""
    out = subprocess.run([sys.executable, "-c", _HANG_SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "done" in out.stdout, out.stderr[-2000:]

    def identity(D):
        return {D: 1}
    for eps in (1e9, 1e12, 1e300, 10 ** 400):
        with pytest.raises(ValueError, match="suppression_bound"):
            bounds.suppression_bound(identity, range(3), 3, eps)
    with pytest.raises(ValueError, match="max_cases"):
        bounds.suppression_bound(identity, range(12), 12, 1.0)
    with pytest.raises(ValueError, match="max_cases"):
        bounds.suppression_sensitivity(lambda D: D, range(20), 20)
    assert bounds.suppression_bound(identity, (x for x in range(3)), np.int64(3), 1.0).cases == 12
    with pytest.raises(ValueError, match="orderable"):
        bounds.suppression_bound(identity, [1, "a"], 2, 1.0)


def test_object_arguments():
    """Callables taking objects: their numeric parameters still follow the contract."""
    bad = [10 ** 400, 2 ** 53 + 1, "1", None, NAN, np.array([0.5, 0.6]), INF]
    for value in bad:
        for make in (lambda v: bounds.Laplace(theta=v), lambda v: bounds.Gaussian(theta=v),
                     lambda v: bounds.EpsDelta(v, 1e-6)):
            if value is INF and make.__code__.co_names[-1] == "EpsDelta":
                continue  # ε = inf is a valid (trivial) guarantee
            with pytest.raises((ValueError, TypeError)):
                make(value)
    for k in (INF, NAN, 0, 2.5, "2", 2 ** 53 + 1):
        with pytest.raises(ValueError, match="k"):
            bounds.Gaussian(theta=1.0).group_profile(1.0, k)
    for value in (10 ** 400, "0.5", None, NAN, 1.5):
        with pytest.raises((ValueError, TypeError), match="rho"):
            bounds.missing_data_corollary(1.0, 0.5, value)
    for fwl in (bounds.fwl_histogram, lambda d: bounds.fwl_mean(d, 10, 1), lambda d: bounds.fwl_clipped_mean(d, 10, 1),
                lambda d: bounds.fwl_covariance(d, 10, 1)):
        for d in (1e300, "3", None, 0, 2.5):
            with pytest.raises(ValueError):
                fwl(d)
    q = bounds.fwl_histogram(10 ** 12)  # O(1) memory: equal constants stored once
    assert len(q.lipschitz) == 10 ** 12 and q.sensitivity == 2 * 10 ** 12 and q.ratio(0.5) >= 0.5
    assert bounds.fwl_histogram(2 ** 64).ratio(0.5) >= 0.5
    with pytest.raises(ValueError, match="norm"):
        bounds.fwl_covariance(2, 10, 1.0, norm=np.array(["l1", "l2"]))
    with pytest.raises(ValueError, match="direction"):
        bounds.subsampled_gaussian_profile(1.0, theta=1.0, rate=0.1, direction=np.array(["add"]))
    with pytest.raises(ValueError, match="relation"):
        bounds.with_replacement(1.0, 1e-6, 3, 4, relation=np.array(["substitute"]))
    for mech in (bounds.Gaussian(theta=1.0), bounds.Laplace(theta=1.0)):
        for function, args in ((bounds.poisson_subsampling_profile, (1.0, 0.1)),
                               (bounds.without_replacement_profile, (1.0, 3, 10)),
                               (bounds.poisson_substitution_profile, (1.0, 0.1))):
            _check_result(function.__name__, function(mech, *args), ())
            with pytest.raises(ValueError) as info:
                function(mech, *args[:-1], NAN)
            assert function.__name__ in str(info.value) and "delta" not in str(info.value)
    for text in ("T1", "T13"):  # (latex() imports sympy: covered by test_cli / the registry tests)
        assert bounds.theorem(text).id == text
    with pytest.raises(ValueError):
        bounds.theorem("T99")


def test_integers_beyond_2_53_are_exact_or_refused():
    for call in (lambda: bounds.group_privacy(1.0, 0.0, 2 ** 53 + 1),
                 lambda: bounds.deterministic_suppression(1.0, 0.0, 2 ** 53 + 1),
                 lambda: bounds.without_replacement(1, 1e-6, 2 ** 53 + 1, 2 ** 53),
                 lambda: bounds.group_privacy(1.0, 0.0, np.array([3, 2 ** 53 + 1], dtype=np.int64))):
        with pytest.raises(ValueError, match="2\\^53"):
            call()
    assert bounds.group_privacy(1.0, 0.0, 2 ** 60).epsilon >= 2.0 ** 60  # exactly representable: accepted
    assert bounds.outlier_score_suppression(1.0, 1.0, 1e-17, 1e-17).delta <= 1.0


@settings(settings.get_profile("contract-ci"))
@given(st.data())
def test_hypothesis_points(data):
    name = data.draw(st.sampled_from(sorted(n for n in GENERATED if n not in HANG_PRONE)))
    kwargs = _ordinary_kwargs(name)
    for param, domain in GENERATED[name][1].items():
        lo, hi, _, _, integer = domain
        if integer:
            kwargs[param] = float(data.draw(st.integers(int(max(lo, 0)), 10 ** 6)))
        else:
            kwargs[param] = data.draw(st.floats(allow_nan=True, allow_infinity=True, width=64))
    if "m" in kwargs and "n" in kwargs and kwargs["m"] > kwargs["n"]:
        kwargs["m"], kwargs["n"] = kwargs["n"], kwargs["m"]
    _call(name, kwargs)


def _grid_kernels():
    """(theorem id, output, kernel, args, points) for every kernel of a record, and T11's "both" kernels
    (called by ``direction="both"``), with a spread subset (≈ 60) of its accuracy grid."""
    import importlib
    import itertools

    from proofs_checks import accuracy

    rng = np.random.default_rng(20261130)
    both = {"gaussian_remove": "gaussian_both", "laplace_remove": "laplace_both"}
    for tid, meta in THEOREMS.items():
        for output, spec in meta["outputs"].items():
            if not spec["kernel"].startswith("numeric"):
                continue
            args = spec["args"]
            if tid in ("T6", "T14") and not all(a in ("epsilon", "rate") for a in args):
                # their own grids (probabilities m ≤ M; the δ pair of T6), registered by their check modules
                importlib.import_module(f"proofs_checks.{'poisson_substitution' if tid == 'T6' else 'suppression'}"
                                        "_checks")
                whole = "epsilon" if tid == "T14" else output  # T14 epsilon_base's own grid costs seconds
                full = THEOREMS[tid]["outputs"][whole]["args"]
                points = [tuple(p[full.index(a)] for a in args) for p in accuracy.GRIDS[tid](whole, rng)]
                yield tid, output, spec["kernel"], args, points[:: max(1, len(points) // 60)]
                continue
            if tid in ("T15", "T16"):  # k-anonymization: its accuracy points (β, ε above the threshold)
                kanon = importlib.import_module("proofs_checks.kanon_checks")
                points = [p[: len(args)] for p in kanon.accuracy_points() if (p[3] != 0) == (tid == "T16")]
                yield tid, output, spec["kernel"], args, points[:: max(1, len(points) // 60)]
                continue
            if not all(a in ("epsilon", "delta", "rate", "k", "rate_to", "rate_from", "p_star", "ratio", "theta",
                             "sensitivity", "m", "n") for a in args):
                raise AssertionError(f"{tid} {output}: no grid for its arguments {args}")
            try:
                points = accuracy.grid(tid, args, rng)
            except KeyError:  # axes without random points (θ): the fixed axes only
                axes = {"epsilon": accuracy.EPSILONS, "delta": accuracy.DELTAS, "theta": accuracy.THETAS,
                        "rate": accuracy.RATES, "k": accuracy.GROUPS, "sensitivity": accuracy.GROUPS}
                free = [a for a in args if a not in ("m", "n")]
                sizes = accuracy.SIZES if "m" in args else [()]
                factors = [axes[a] for a in free] + [sizes]
                # the same spread subset as slicing the whole product (up to ~10⁵ points for T11), built only
                # at the points kept
                step = max(1, math.prod(map(len, factors)) // 60)
                points = []
                for combo in itertools.islice(itertools.product(*factors), 0, None, step):
                    values = dict(zip(free, combo[:-1]))
                    values.update(zip(("m", "n"), map(float, combo[-1])))
                    points.append(tuple(values[a] for a in args))
                step = 1
            else:
                step = max(1, len(points) // 60)
            points = points[::step]
            if tid in ("T3", "T4"):
                points = [p for p in points if p[args.index("m")] <= 10 ** 4]
            yield tid, output, spec["kernel"], args, points
            if tid == "T11" and output in both:
                yield tid, both[output], f"numeric.subsampled_profiles:{both[output]}", args, points


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def test_scalar_route_is_bit_identical_to_the_ufunc():
    """Four routes, one result: the compiled scalar kernel (plain @njit: the certificate's route where no loop
    is built, ``proofs_checks.accuracy.compiled``), the public API's compiled scalar tier
    (``numeric.scalar_route``: the array loop at one point for a generated closed form whose loop is built,
    as here, the @njit kernel otherwise), the array route and the plain-Python tier of the first scalar calls (``numeric.pure``, where
    it answers; where it raises the compiled kernel answers) agree bit for bit on the accuracy grids (a spread
    subset of each, for test time; plain Python on every other point).  Every kernel has a plain-Python form
    unless its module is in ``numeric.pure.EXCLUDED``, and the plain form must answer (not fall back) at most
    of its points, so this is not passed vacuously."""
    from numeric import kernel, scalar_kernel, scalar_route
    from numeric.pure import EXCLUDED, pure_function

    for tid, output, name, args, points in _grid_kernels():
        columns = [np.array(c, dtype=np.float64) for c in zip(*points)]
        with np.errstate(all="ignore"):
            vector = kernel(name, len(args))(*columns)
        single = scalar_kernel(name)
        public = scalar_route(name)  # the loop is built (above): for a generated kernel, the loop at one point
        pure = pure_function(name)
        assert (pure is None) == (name.partition(":")[0] in EXCLUDED), f"{name}: plain-Python form {pure!r}"
        served = 0
        for i, point in enumerate(points):
            s = single(*point)
            assert _same(s, vector[i]), f"{tid} {output} at {point}: scalar {s!r} ≠ ufunc {vector[i]!r}"
            r = public(*point)
            assert type(r) is float and _same(r, s), f"{tid} {output} at {point}: public {r!r} ≠ scalar {s!r}"
            if pure is None or i % 2:  # plain Python on every other point (the search kernels take ms each)
                continue
            try:
                with np.errstate(all="ignore"):  # as bounds._core's tier: numpy-scalar table entries
                    p = pure(*point)
            except Exception:  # the tier's caller evaluates this point with the compiled kernel
                continue
            if isinstance(p, (float, int)) and not isinstance(p, bool):
                served += 1
                assert _same(float(p), s), f"{tid} {output} at {point}: plain Python {p!r} ≠ compiled {s!r}"
        assert pure is None or served >= 0.25 * len(points), f"{name}: plain Python answered {served} points"


def _gaussian_delta_mp(eps, theta):
    """δ_θ(ε) = Φ(−ε/θ + θ/2) − e^ε Φ(−ε/θ − θ/2) in mpmath (SPEC T9), at the caller's working precision."""
    import mpmath as mp

    a, b = eps / theta - theta / 2, eps / theta + theta / 2
    return mp.ncdf(-a) - mp.e ** eps * mp.ncdf(-b)


def test_gaussian_sigma_subnormal_delta():
    """σ for subnormal δ (was inf): delivered δ ≤ target, and 1e-9 less σ would exceed it (mpmath, 60 digits)."""
    import mpmath as mp

    with mp.workdps(60):
        for delta in (5e-324, 1e-320, 2e-310):
            for eps in (0.1, 1.0, 10.0):
                sigma = bounds.gaussian_sigma(eps, delta)
                assert math.isfinite(sigma)
                assert _gaussian_delta_mp(mp.mpf(eps), 1 / mp.mpf(sigma)) <= mp.mpf(delta)
                assert _gaussian_delta_mp(mp.mpf(eps), 1 / mp.mpf(sigma * (1 - 1e-9))) > mp.mpf(delta)


def _exact_and_block_sums(epsilon, delta, m, n):
    """(the exact scan, the block sum + tails) of numeric.with_replacement's black-box sums (the module's
    functions bound to the globals below by the test, then compiled)."""
    lo, hi, tails = _WR_CUTOFFS(m, 1.0 / n)
    exact = _WR_EXACT(_WR_BARE, epsilon, delta, m, n)[0]
    blocks = _WR_BLOCKS(_WR_BARE, epsilon, delta, m, 1.0 / n, lo, hi)[0] + tails
    return exact, blocks


def test_with_replacement_block_sum_is_an_upper_bound():
    """The block summation used for huge windows (numeric.with_replacement.bare_block_sum) bounds the exact scan
    from above and stays within 1e-3 of it, on windows small enough to scan (compiled through a wrapper with
    numpy's error model, as the kernels are)."""
    from numba import njit

    # the black-box (BARE) sums the kernels call: binomial_sum/block_sum dispatch to these for BARE, and would
    # compile the white-box (Gaussian, Laplace) sums too
    import numeric.with_replacement as wr

    global _WR_BARE, _WR_EXACT, _WR_BLOCKS, _WR_CUTOFFS
    _WR_BARE, _WR_EXACT, _WR_BLOCKS, _WR_CUTOFFS = wr.BARE, wr.bare_binomial_sum, wr.bare_block_sum, wr.cutoffs
    # module level and cached (≈ 1.5 s of compilation on every run before); numba's cache directory is named
    # after a hash of numeric's sources (numeric.cache_directories), so an edit of the inlined sums recompiles
    both = njit(error_model="numpy", cache=True)(_exact_and_block_sums)

    for epsilon, delta, m, n in [(1e-6, 1e-12, 1e6, 10.0), (1e-4, 0.0, 1e5, 3.0), (0.01, 1e-9, 3e5, 1000.0)]:
        exact, blocks = both(epsilon, delta, m, n)
        assert exact <= blocks <= exact * (1 + 1e-3), (epsilon, delta, m, n, exact, blocks)
    # block mode, δ' well below 1; through the array route (the compiled kernel: a scalar's first calls run as
    # plain Python, ≈ 10⁶ block steps ≈ 7 s of CPU; the routes are bit-identical, test_scalar_route_…)
    g = bounds.with_replacement(np.array([1e-12]), 0.0, 10 ** 12, 1711)
    assert 0 < g.delta[0] < 1


def test_gaussian_profile_inverse_subnormal_delta():
    """ε_θ(δ) for subnormal δ (was inf): δ_θ(ε) ≤ target, and 1e-9 less ε would exceed it (mpmath)."""
    import mpmath as mp

    with mp.workdps(60):
        for delta in (5e-324, 1e-320, 2e-310):
            for theta in (0.1, 1.0, 5.0):
                eps = bounds.gaussian_profile_inverse(delta, theta=theta)
                assert math.isfinite(eps)
                assert _gaussian_delta_mp(mp.mpf(eps), mp.mpf(theta)) <= mp.mpf(delta)
                assert _gaussian_delta_mp(mp.mpf(eps) * (1 - 1e-9), mp.mpf(theta)) > mp.mpf(delta)


# ----------------------------------------------------------------------------------------------------
# The object API (issue 19, reliability sweep): classes, their constructors and methods, and the functions that
# take mechanisms.  Each numeric parameter in turn gets NaN, ±inf, 10⁴⁰⁰, 2⁵³ + 1, a bool, strings, complex
# numbers (also with a zero imaginary part), None, an empty array, and numpy integer/float scalars of its
# ordinary value.  Non-numbers and NaN must be refused with a ValueError/TypeError naming the parameter (never a
# raw OverflowError, RecursionError, mpmath or numpy text); numpy scalars must give exactly the result of the
# Python number; ±inf and the big integers are refused or give a result without NaN.
# ----------------------------------------------------------------------------------------------------

def _gauss():
    return bounds.Gaussian(theta=1.0)


_COMPOSITION = None


def _composition():
    global _COMPOSITION
    if _COMPOSITION is None:
        _COMPOSITION = bounds.compose([(bounds.poisson_sampled(_gauss(), 0.01), 10)], tolerance=1e-2)
    return _COMPOSITION


_G_EVENT = {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}
_EPS_DELTA = lambda: bounds.EpsDelta(1.0, 1e-6)  # noqa: E731

# (public name, parameter, ordinary value, kind, call(value)); kind "real", "int" (integers: numpy integers and
# integral floats accepted) or "array" (Composition methods: arrays, ±inf and empty arrays are answers);
# none_ok: None is the documented default of the parameter
OBJECT_CASES = [
    ("Gaussian", "theta", 1.0, "real", lambda v: bounds.Gaussian(theta=v)),
    ("Laplace", "theta", 1.0, "real", lambda v: bounds.Laplace(theta=v)),
    ("Gaussian", "sigma", 2.0, "real", lambda v: bounds.Gaussian.from_noise_multiplier(v)),
    ("Laplace", "b", 2.0, "real", lambda v: bounds.Laplace.from_scale(v)),
    ("Laplace", "sensitivity", 2.0, "real", lambda v: bounds.Laplace.from_scale(1.0, v)),
    ("EpsDelta", "epsilon", 1.0, "real", lambda v: bounds.EpsDelta(v, 1e-6)),
    ("EpsDelta", "delta", 0.5, "real", lambda v: bounds.EpsDelta(1.0, v)),
    ("poisson_sampled", "rate", 0.5, "real", lambda v: bounds.poisson_sampled(_gauss(), v)),
    ("PoissonSampled", "rate", 0.5, "real", lambda v: bounds.compose([(bounds.PoissonSampled(_gauss(), v), 1)])),
    ("compose", "count", 3, "int", lambda v: bounds.compose([(_gauss(), v)])),
    ("compose", "tolerance", 0.5, "real", lambda v: bounds.compose([(_gauss(), 1)], tolerance=v)),
    ("Composition", "epsilon", 1.0, "array", lambda v: _composition().delta(v)),
    ("Composition", "delta", 0.5, "array", lambda v: _composition().epsilon(v)),
    ("WithReplacement", "m", 3, "int", lambda v: bounds.WithReplacement(_gauss(), v, 100)),
    ("WithReplacement", "n", 3, "int", lambda v: bounds.WithReplacement(_gauss(), 2, v)),
    ("WithoutReplacement", "m", 3, "int", lambda v: bounds.WithoutReplacement(_gauss(), v, 100)),
    ("WithoutReplacement", "n", 3, "int", lambda v: bounds.WithoutReplacement(_gauss(), 2, v)),
    ("RateChange", "rate_from", 0.5, "real", lambda v: bounds.RateChange(_EPS_DELTA(), v, 0.05)),
    ("RateChange", "rate_to", 0.5, "real", lambda v: bounds.RateChange(_EPS_DELTA(), 1.0, v)),
    ("DiscretePairs", "pairs[0][0][0]", 0.5, "real", lambda v: bounds.DiscretePairs([((v, 0.5), (0.5, 0.5))])),
    ("DiscretePairs", "pairs", None, "object", lambda v: bounds.DiscretePairs(v)),
    ("crosscheck", "epsilon", 1.0, "real", lambda v: bounds.crosscheck(_gauss(), epsilon=v, delta=1e-5)),
    ("crosscheck", "delta", 0.5, "real", lambda v: bounds.crosscheck(_gauss(), epsilon=1.0, delta=v)),
    ("crosscheck", "noise_multiplier", 2.0, "real",
     lambda v: bounds.crosscheck(noise_multiplier=v, epsilon=1.0, delta=1e-5)),
    ("crosscheck", "rate", 0.5, "real",
     lambda v: bounds.crosscheck(noise_multiplier=1.0, rate=v, epsilon=1.0, delta=1e-5)),
    ("crosscheck", "steps", 3, "int", lambda v: bounds.crosscheck(noise_multiplier=1.0, rate=0.01, steps=v,
                                                                  epsilon=1.0, delta=1e-5, tolerance=1e-2)),
    ("crosscheck", "tolerance", 0.5, "real", lambda v: bounds.crosscheck(noise_multiplier=1.0, rate=0.01, steps=2,
                                                                         epsilon=1.0, delta=1e-5, tolerance=v)),
    ("crosscheck", "mechanism", None, "object",
     lambda v: bounds.crosscheck(noise_multiplier=1.0, mechanism=v, epsilon=1.0, delta=1e-5)),
    ("from_opacus_history", "noise_multiplier", 2.0, "real", lambda v: bounds.from_opacus_history([(v, 0.01, 1)])),
    ("from_opacus_history", "rate", 0.5, "real", lambda v: bounds.from_opacus_history([(1.0, v, 1)])),
    ("from_opacus_history", "steps", 3, "int", lambda v: bounds.from_opacus_history([(1.0, 0.01, v)])),
    ("from_opacus_history", "history", None, "object", lambda v: bounds.from_opacus_history(v)),
    ("from_dp_event", "noise_multiplier", 2.0, "real",
     lambda v: bounds.from_dp_event({"class_name": "GaussianDpEvent", "noise_multiplier": v})),
    ("from_dp_event", "count", 3, "int", lambda v: bounds.from_dp_event(
        {"class_name": "SelfComposedDpEvent", "count": v, "event": _G_EVENT})),
    ("from_dp_event", "events", None, "object",
     lambda v: bounds.from_dp_event({"class_name": "ComposedDpEvent", "events": v})),
    ("from_dp_event", "rate", 0.5, "real", lambda v: bounds.from_dp_event(
        {"class_name": "PoissonSampledDpEvent", "sampling_probability": v, "event": _G_EVENT})),
    ("from_dp_event", "m", 3, "int", lambda v: bounds.from_dp_event(
        {"class_name": "SampledWithoutReplacementDpEvent", "sample_size": v, "source_dataset_size": 100,
         "event": _G_EVENT})),
    ("from_dp_event", "event", None, "object", lambda v: bounds.from_dp_event(v)),
    ("dpsgd_noise_multiplier", "epsilon", 2.0, "real",
     lambda v: bounds.dpsgd_noise_multiplier(v, 1e-5, 0.05, 10, tolerance=1e-2)),
    ("dpsgd_noise_multiplier", "delta", 1e-5, "real",
     lambda v: bounds.dpsgd_noise_multiplier(2.0, v, 0.05, 10, tolerance=1e-2)),
    ("dpsgd_noise_multiplier", "rate", 0.05, "real",
     lambda v: bounds.dpsgd_noise_multiplier(2.0, 1e-5, v, 10, tolerance=1e-2)),
    ("dpsgd_noise_multiplier", "steps", 10, "int",
     lambda v: bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, v, tolerance=1e-2)),
    ("dpsgd_noise_multiplier", "tolerance", 0.5, "real",
     lambda v: bounds.dpsgd_noise_multiplier(2.0, 1e-5, 0.05, 10, tolerance=v)),
    ("dpsgd_max_steps", "epsilon", 1.0, "real",
     lambda v: bounds.dpsgd_max_steps(v, 1e-5, 0.05, 1.5, tolerance=1e-2, max_steps=64)),
    ("dpsgd_max_steps", "delta", 1e-5, "real",
     lambda v: bounds.dpsgd_max_steps(1.0, v, 0.05, 1.5, tolerance=1e-2, max_steps=64)),
    ("dpsgd_max_steps", "rate", 0.05, "real",
     lambda v: bounds.dpsgd_max_steps(1.0, 1e-5, v, 1.5, tolerance=1e-2, max_steps=64)),
    ("dpsgd_max_steps", "noise_multiplier", 1.5, "real",
     lambda v: bounds.dpsgd_max_steps(1.0, 1e-5, 0.05, v, tolerance=1e-2, max_steps=64)),
    ("dpsgd_max_steps", "max_steps", 64, "int",
     lambda v: bounds.dpsgd_max_steps(1.0, 1e-5, 0.05, 1.5, tolerance=1e-2, max_steps=v)),
]
NONE_IS_DEFAULT = {("crosscheck", "rate"), ("crosscheck", "tolerance")}
OBJECT_VALUES = [NAN, INF, -INF, 10 ** 400, 2 ** 53 + 1, True, np.bool_(False), "1.0", b"1", 1 + 0j, 1 + 1j,
                 np.complex128(1.0), None, np.array([]), np.array([0.5, 0.5]), [0.5, "a"], {"a": 1}]


def _sandwich_ok(label: str, result) -> None:
    """No NaN anywhere in a result (a Sandwich, a Verdict, a mechanism or a composition object)."""
    if isinstance(result, bounds.Sandwich):
        for side in result:
            assert not np.isnan(np.asarray(side, dtype=np.float64)).any(), f"{label}: NaN in {result!r}"
        assert np.all(np.asarray(result.lower) <= np.asarray(result.upper)), f"{label}: lower > upper: {result!r}"
    if isinstance(result, bounds.Verdict):
        for s in (result.delta, result.epsilon):
            _sandwich_ok(label, s)


def _same_object(a, b) -> bool:
    return repr(a) == repr(b) if not isinstance(a, bounds.Composition) else \
        (a.steps, a.tolerance) == (b.steps, b.tolerance)


@pytest.mark.parametrize("case", OBJECT_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_object_api_hostile_values(case):
    name, param, ordinary, kind, call = case
    short = param.split("[")[0]
    values = list(OBJECT_VALUES)
    if kind in ("real", "int"):
        reference = call(ordinary)
        _sandwich_ok(name, reference)
        numpy_forms = [np.float64(ordinary), np.float32(ordinary) if float(np.float32(ordinary)) == ordinary else None]
        if kind == "int":
            numpy_forms += [np.int64(ordinary), np.int32(ordinary), np.uint16(ordinary), float(ordinary)]
        for v in numpy_forms:
            if v is not None:
                assert _same_object(call(v), reference), f"{name}({param}={v!r}) differs from {param}={ordinary!r}"
    for value in values:
        if value is None and (name, param) in NONE_IS_DEFAULT:
            continue
        try:
            result = call(value)
        except (ValueError, TypeError) as exc:
            message = str(exc)
            hostile = value is None or isinstance(value, (str, bytes, complex, bool, np.bool_, np.complexfloating,
                                                          dict)) or (isinstance(value, float) and math.isnan(value))
            if hostile and kind != "object":
                assert short in message or "not a real number" in message, \
                    f"{name}({param}={value!r}): message does not name {param}: {message!r}"
            for raw in ("mpf(", "mpmath", "object is not iterable", "np.float64(", "np.int64(", "truth value",
                        "integer ratio", "Python scalars", "argument must be"):
                assert raw not in message, f"{name}({param}={value!r}): raw message {message!r}"
            continue
        except (ArithmeticError, RecursionError, KeyError, AttributeError, IndexError) as exc:
            raise AssertionError(f"{name}({param}={value!r}) raised {type(exc).__name__}: {exc}") from exc
        # accepted: only where the value is meaningful
        refused_always = value is None or isinstance(value, (str, bytes, bool, np.bool_, complex, np.complexfloating,
                                                             dict)) or (isinstance(value, float) and math.isnan(value))
        assert not refused_always, f"{name}({param}={value!r}) accepted: {result!r}"
        if isinstance(value, int) and value > 2 ** 53:
            raise AssertionError(f"{name}({param}={value}) accepted an integer float64 cannot hold: {result!r}")
        if isinstance(value, (np.ndarray, list)):
            assert kind == "array", f"{name}({param}={value!r}) accepted an array: {result!r}"
        _sandwich_ok(name, result)


def test_object_api_is_covered():
    """Every public class and object-taking function of composition and cross-checking is in the sweep."""
    covered = {c[0] for c in OBJECT_CASES}
    for name in ("Gaussian", "Laplace", "EpsDelta", "PoissonSampled", "poisson_sampled", "compose", "Composition",
                 "WithReplacement", "WithoutReplacement", "RateChange", "DiscretePairs", "crosscheck",
                 "from_dp_event", "from_opacus_history", "dpsgd_noise_multiplier", "dpsgd_max_steps"):
        assert name in covered and name in bounds.__all__, name


def test_object_api_special_values():
    """The edge answers: δ(−inf) = 1 exactly, empty arrays give empty sandwiches, deep and malformed DpEvents."""
    comp = _composition()
    assert tuple(comp.delta(-INF)) == (1.0, 1.0)
    lo, hi = comp.delta(np.array([-INF, 1.0]))
    assert lo[0] == hi[0] == 1.0 and 0.0 <= lo[1] <= hi[1] < 1.0
    for method in (comp.delta, comp.epsilon):
        s = method(np.array([]))
        assert s.lower.shape == s.upper.shape == (0,)
    # a ledger composed event by event nests one ComposedDpEvent per step: far beyond the recursion limit
    event = dict(_G_EVENT)
    for _ in range(4 * sys.getrecursionlimit()):
        event = {"class_name": "ComposedDpEvent", "events": [event]}
    assert bounds.from_dp_event(event) == bounds.Gaussian.from_noise_multiplier(1.0)
    with pytest.raises(ValueError, match="nests too deeply"):
        bounds.from_dp_event("[" * 100_000 + "]" * 100_000)
    for events in (None, 3.0, "abc", {"a": 1}):
        with pytest.raises(ValueError, match="events"):
            bounds.from_dp_event({"class_name": "ComposedDpEvent", "events": events})
    for pairs in ([((0.5, 0.5),)], [((0.5, 0.5), (1.0,))], [((0.5, 0.6), (0.5, 0.5))], [(None, (0.5, 0.5))],
                  [((0.5, "0.5"), (0.5, 0.5))], [((0.5, 1 + 0j), (0.5, 0.5))], [((10 ** 400, 0.5), (0.5, 0.5))]):
        with pytest.raises(ValueError, match="DiscretePairs"):
            bounds.DiscretePairs(pairs)


THETA_TAKERS = ("gaussian_profile", "gaussian_profile_inverse", "laplace_profile", "laplace_profile_inverse",
                "subsampled_gaussian_profile", "subsampled_gaussian_profile_inverse", "subsampled_laplace_profile",
                "subsampled_laplace_profile_inverse", "Gaussian", "Laplace")


@pytest.mark.parametrize("name", THETA_TAKERS)
def test_theta_cannot_be_passed_by_position(name):
    """Issue 21: `subsampled_gaussian_profile(1.0, 0.8, q)` took 0.8 as θ where a σ-thinking user meant the
    noise multiplier (1.6e-15 instead of 3.1e-8, silently).  θ (and, after it, the rate) is keyword-only."""
    function = getattr(bounds, name)
    parameters = inspect.signature(function).parameters
    assert parameters["theta"].kind is inspect.Parameter.KEYWORD_ONLY
    if "rate" in parameters:
        assert parameters["rate"].kind is inspect.Parameter.KEYWORD_ONLY
    positional = [0.5] if name in ("Gaussian", "Laplace") else [1.0, 0.8] + ([0.01] if "subsampled" in name else [])
    with pytest.raises(TypeError):
        function(*positional)
