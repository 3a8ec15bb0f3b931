"""The array route (issue 14): cached @njit loops (numeric.loops) in place of numba.vectorize ufuncs, and the
fused domain check of bounds._core.validate.  The scalar/array bit-identity over the accuracy grids is
tests/bounds/test_contract.py::test_scalar_route_is_bit_identical_to_the_ufunc (which now runs the loops)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from bounds import _core
from numeric._generated.metadata import THEOREMS

# every record domain, plus closed infinite ends of integer domains (none in the records yet; ±inf must still
# be refused) and an empty open interval
DOMAINS = sorted({p["domain"] for meta in THEOREMS.values() for p in meta["parameters"].values()}
                 | {(0.0, math.inf, False, False, True), (-math.inf, math.inf, False, False, True),
                    (math.inf, math.inf, True, False, False)}, key=repr)


def _edges(domain: tuple) -> list[float]:
    lo, hi = domain[0], domain[1]
    values = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, 1.5, 2.0, 1e8, 1e8 + 1, 2.0 ** 53, 1e300, -1.0,
              5e-324, 1e-12, math.nextafter(1e-12, 0.0), 1.7976931348623157e308, -1.7976931348623157e308]
    for end in (lo, hi):
        if math.isfinite(end):
            values += [end, math.nextafter(end, math.inf), math.nextafter(end, -math.inf)]
    return values


def _numpy_accepts(array: np.ndarray, domain: tuple) -> bool:
    """The reference: numpy's element tests, as _check_array spells them."""
    lo, hi, lo_open, hi_open, integer = domain
    ok = ~np.isnan(array) & ~(array <= lo if lo_open else array < lo) & ~(array >= hi if hi_open else array > hi)
    if integer:
        ok &= ~np.isinf(array) & (array == np.floor(array))
    return bool(ok.all())


@pytest.mark.parametrize("domain", DOMAINS, ids=repr)
def test_fused_domain_check_agrees_with_numpy_element_by_element(domain):
    """numeric.loops.in_domain with domain_bounds accepts exactly what numpy's comparisons accept, on every
    domain of the records and the values where open/closed ends, infinities and integrality matter."""
    for v in _edges(domain):
        one = np.array([0.0, v, 0.0]) if _numpy_accepts(np.array([0.0]), domain) else np.array([v])
        assert _core._in_domain(one, domain) == _numpy_accepts(one, domain), (domain, v)


def test_validate_messages_unchanged_on_the_fused_path():
    """Large arrays take the fused pass; a rejected one still reports its first NaN (before any earlier
    out-of-domain element), else its first out-of-domain element, with the same text as small arrays."""
    import bounds

    n = _core._FUSED_MIN_SIZE + 5
    eps = np.ones(n)
    eps[7], eps[n - 2] = -1.0, math.nan
    with pytest.raises(ValueError, match=r"poisson_subsampling: epsilon\[" + str(n - 2) + r"\] is NaN"):
        bounds.poisson_subsampling(eps, 1e-6, 0.01)
    eps[n - 2] = 1.0
    with pytest.raises(ValueError, match=r"epsilon\[7\] = -1 is outside its domain \[0, inf\]"):
        bounds.poisson_subsampling(eps, 1e-6, 0.01)
    k = np.full((2, n), 2.0)
    k[1, 3] = 2.5
    with pytest.raises(ValueError, match=r"k\[1, 3\] = 2.5 must be an integer"):
        bounds.group_privacy(0.1, 1e-6, k)


def test_validate_does_not_copy_or_expose_float64_input():
    x = np.linspace(0.1, 1.0, 10)
    arrays = _core.validate("poisson_subsampling", "T1", epsilon=x, delta=1e-6, rate=0.1)
    assert np.shares_memory(arrays["epsilon"], x) and not arrays["epsilon"].flags.writeable
    assert x.flags.writeable


def test_loops_broadcast_like_the_ufunc_bit_for_bit():
    """The loop route against the ufunc semantics of numba.vectorize (the route it replaces: a numpy ufunc), on
    broadcast, strided, 0-d and empty inputs: the shape and result type of a numpy float64 ufunc of the same
    arguments (``np.add``: ufunc broadcasting and scalar/array return rules do not depend on the ufunc), and
    the bits of the compiled scalar kernel at every broadcast element.  (Before: a numba.vectorize ufunc of
    the kernel, compiled afresh each run — ~2 s CPU, vectorize does not cache — for the same comparison; the
    compiled scalar kernel's bits equal the loops' on the accuracy grids in
    test_contract.py::test_scalar_route_is_bit_identical_to_the_ufunc and
    test_fused_loop_is_bit_identical_to_the_scalar_dispatchers below.)"""
    import numeric

    rng = np.random.default_rng(14)
    for spec, first in (("numeric._generated.subsampling:t1_epsilon", 10 ** rng.uniform(-3, 1, (6, 1))),
                        ("numeric._generated.subsampling:t1_delta", 10 ** rng.uniform(-12, -3, (6, 1)))):
        scalar = numeric.scalar_kernel(spec)
        loop = numeric.kernel(spec, 2)
        rate = 10 ** rng.uniform(-6, 0, (1, 5))
        wide = (10 ** rng.uniform(-6, 0, (6, 10)))[:, ::2]  # non-contiguous (before: 10 ** of the slice, a new
        # contiguous array)
        for args in ((first, rate), (first, 0.01), (0.5, rate), (first[:, 0], first[:, 0]), (first.T, wide.T),
                     (first, wide), (np.empty((0, 3)), 0.1), (0.5, 0.01), (np.float64(2.0), np.array(0.3))):
            ours, like = loop(*args), np.add(*args)
            assert np.shape(ours) == np.shape(like) and type(ours) is type(like), (args, ours)
            a, b = np.broadcast_arrays(*map(np.asarray, args))
            theirs = np.array([scalar(float(x), float(y)) for x, y in zip(a.ravel(), b.ravel())],
                              dtype=np.float64).reshape(a.shape)
            assert np.array_equal(np.asarray(ours).view(np.int64), theirs.view(np.int64))


def test_parallel_loop_is_bit_identical_to_the_serial_loop():
    """The prange loop (opt-in for large arrays) gives the serial loop's bits, shape and broadcasting."""
    import numeric

    rng = np.random.default_rng(7)
    loop = numeric.kernel("numeric._generated.subsampling:t1_delta", 2)
    delta, rate = 10 ** rng.uniform(-12, -3, (300, 7)), 10 ** rng.uniform(-6, 0, 7)
    serial, parallel = loop(delta, rate, parallel=False), loop(delta, rate, parallel=True)
    assert parallel.shape == serial.shape == (300, 7)
    assert np.array_equal(serial.view(np.int64), parallel.view(np.int64))


FUSED_CASES = ("T1", "T2", "T6", "T7")  # one theorem per fused template (T5 shares T2's, T12 T7's, T17 T1's)


@pytest.mark.parametrize("theorem_id", FUSED_CASES)
def test_fused_loop_is_bit_identical_to_the_scalar_dispatchers(theorem_id):
    """The fused loop (both outputs of a public (ε, δ) function in one pass, ``numeric.kernel_pair``) gives each
    kernel's compiled scalar dispatcher's bits on the accuracy grid of the union of their arguments and at every
    combination of the special values where the kernels branch; so does each output alone through the fused loop
    (``FusedKernel.project``, what the certificate's accuracy checks read when the fused loop is built)."""
    import itertools

    import numeric
    from proofs_checks import accuracy

    outputs = THEOREMS[theorem_id]["outputs"]
    eps, delta = outputs["epsilon"], outputs["delta"]
    pair = numeric.kernel_pair(theorem_id)
    assert pair is not None, f"{theorem_id}: not fused"
    fused, union = pair
    if theorem_id == "T6":  # accuracy.grid has no axes for δ_remove, δ_substitute
        points = list(itertools.product(accuracy.EPSILONS, accuracy.RATES, accuracy.DELTAS[::2],
                                        accuracy.DELTAS[1::2]))
    else:
        points = accuracy.grid(theorem_id, union, np.random.default_rng(20261202))
    points += list(itertools.product(accuracy.SPECIAL_VALUES[::2] if len(union) > 3 else accuracy.SPECIAL_VALUES,
                                     repeat=len(union)))
    columns = [np.array(c, dtype=np.float64) for c in zip(*points)]
    with np.errstate(all="ignore"):
        results = fused(*columns)
    assert fused.built
    for which, spec in enumerate((eps, delta)):
        single = numeric.scalar_kernel(spec["kernel"])
        positions = [union.index(a) for a in spec["args"]]
        expected = np.array([single(*[p[i] for i in positions]) for p in points])
        with np.errstate(all="ignore"):
            projected = numeric.built_kernel(spec["kernel"], len(positions))(*[columns[i] for i in positions])
        for got in (results[which], projected):
            same = (got.view(np.int64) == expected.view(np.int64)) | (np.isnan(got) & np.isnan(expected))
            bad = np.flatnonzero(~same)
            assert not bad.size, (f"{theorem_id} {spec['kernel']} at {points[bad[0]]}: fused {got[bad[0]]!r} ≠ "
                                  f"scalar {expected[bad[0]]!r} ({bad.size} points)")
    assert numeric.loop_built(eps["kernel"]) and numeric.loop_built(delta["kernel"])


def test_public_pair_takes_the_fused_loop_and_broadcasts_like_two_loops():
    """``bounds.poisson_subsampling`` on arrays runs T1's fused loop; on broadcast, strided, 0-d and empty inputs
    its two outputs have the shapes and bits of the two own loops (``evaluate`` per output)."""
    import bounds
    import numeric

    rng = np.random.default_rng(12)
    eps, rate = 10 ** rng.uniform(-3, 1, (6, 1)), 10 ** rng.uniform(-6, 0, (1, 5))
    wide = 10 ** rng.uniform(-12, -3, (6, 10))[:, ::2]  # non-contiguous
    for args in ((eps, 1e-6, rate), (eps, wide, 0.01), (0.5, wide, rate), (eps.T, 1e-9, wide.T),
                 (np.empty((0, 3)), 1e-6, 0.1), (np.float64(2.0), np.array(1e-7), np.array(0.3)),
                 (np.array([0.0, math.inf, 5e-324]), np.array([0.0, 1.0, 5e-324]), np.array([1.0, 0.0, 0.5]))):
        g = bounds.poisson_subsampling(*args)
        arrays = _core.validate("poisson_subsampling", "T1", epsilon=args[0], delta=args[1], rate=args[2])
        for got, output in zip(g, ("epsilon", "delta")):
            expected = _core.evaluate("T1", output, arrays)
            assert np.shape(got) == np.shape(expected)
            assert np.array_equal(np.asarray(got).view(np.int64), expected.view(np.int64)), (args, output)
    fused, _ = numeric.kernel_pair("T1")
    assert fused.built


def _valid_arrays(theorem_id: str, n: int, rng: np.random.Generator) -> dict:
    values = {"epsilon": 10 ** rng.uniform(-3, 1, n), "delta": 10 ** rng.uniform(-12, -3, n),
              "rate": 10 ** rng.uniform(-6, 0, n), "rate_from": 10 ** rng.uniform(-3, 0, n),
              "k": np.floor(10 ** rng.uniform(0, 2, n))}
    values["rate_to"] = values["rate_from"] * rng.uniform(0, 1, n)
    values["m"] = np.floor(10 ** rng.uniform(0, 3, n))
    values["n"] = values["m"] + np.floor(10 ** rng.uniform(0, 4, n))
    values["epsilon"] = values["epsilon"] / (100 if theorem_id == "T7" else 1)
    return {name: values[name] for name in THEOREMS[theorem_id]["parameters"]}


@pytest.mark.parametrize("theorem_id", ("T1", "T2", "T5", "T7"))
def test_domain_check_in_the_fused_loop_refuses_and_reports_like_validate(theorem_id):
    """Large arrays of a fused (ε, δ) function are domain-checked in the kernels' own pass
    (``_core._guarantee_arrays``).  Reference: ``_core.validate`` (the per-parameter checks) and one loop per
    output.  At seeded bad values (NaN, ±inf, negative, non-integers, domain ends and their neighbours) put at
    random positions of one or two parameters, or a scalar parameter, the public route raises the same type and
    message as ``validate``, and where ``validate`` accepts, returns the two loops' bits."""
    rng = np.random.default_rng(20261202)
    n = _core._FUSED_MIN_SIZE + 17
    names = list(THEOREMS[theorem_id]["parameters"])
    refused = accepted = 0
    for trial in range(60):
        params = _valid_arrays(theorem_id, n, rng)
        for _ in range(1 + trial % 2):
            name = names[rng.integers(len(names))]
            edges = _edges(THEOREMS[theorem_id]["parameters"][name]["domain"])
            bad = edges[rng.integers(len(edges))]
            if trial % 7 == 3:
                params[name] = bad  # a scalar parameter among the arrays
            else:
                params[name] = params[name].copy()
                params[name][rng.integers(n, size=1 + trial % 3)] = bad
        if trial % 5 == 4:  # a (n, 1) × (1, n) broadcast: the column parameter's elements reach many points
            params[names[0]] = np.reshape(params[names[0]], (-1, 1))[:40]
            params[names[-1]] = np.reshape(params[names[-1]], (1, -1)) if np.ndim(params[names[-1]]) else \
                params[names[-1]]
        try:
            arrays = _core.validate("f", theorem_id, **params)
        except ValueError as error:
            expected = (type(error), str(error))
        else:
            expected = None
        try:
            got = _core.guarantee("f", theorem_id, **params)
        except ValueError as error:
            assert expected == (type(error), str(error)), (trial, params)
            refused += 1
            continue
        assert expected is None, (trial, expected)
        accepted += 1
        for value, output in zip(got, ("epsilon", "delta")):
            reference = _core.evaluate(theorem_id, output, arrays)
            assert np.array_equal(np.asarray(value).view(np.int64), reference.view(np.int64)), (trial, output)
    assert refused >= 10 and accepted >= 3, (refused, accepted)


def test_every_fused_template_is_tested_and_the_public_pairs_are_fused():
    """FUSED_CASES reaches every fused template of numeric.loops, and the public (ε, δ) functions whose kernels
    are closed forms take a fused loop (kernel_pair builds nothing until called)."""
    import numeric
    from numeric import loops

    templates = {name for name in loops._TEMPLATES if name.startswith("_fused_")}
    assert {numeric.kernel_pair(t)[0]._template for t in FUSED_CASES} == templates
    for theorem_id in ("T1", "T2", "T5", "T6", "T7", "T12", "T17"):
        assert numeric.kernel_pair(theorem_id) is not None, theorem_id
    for theorem_id in ("T3", "T8", "T9", "T14"):  # hand-written kernels: one loop each
        assert numeric.kernel_pair(theorem_id) is None, theorem_id
