"""Input validation of every public function of the "foundation" issue (DESIGN: bad input is an error,
not a NaN).  Each bad input raises ``ValueError`` whose message names the function, the parameter (with the
index of the first offending element for arrays) and the offending value; boundary values and ε = inf are
accepted where the domain allows them."""
from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

import bounds

INF = math.inf
NAN = math.nan
ABOVE_ONE = math.nextafter(1.0, 2.0)

# name used in messages, callable, valid keyword arguments
FUNCTIONS = {
    "poisson_subsampling": (bounds.poisson_subsampling, dict(epsilon=1.0, delta=1e-6, rate=0.1)),
    "poisson_subsampling_inverse": (bounds.poisson_subsampling_inverse, dict(epsilon=1.0, delta=1e-6, rate=0.1)),
    "without_replacement": (bounds.without_replacement, dict(epsilon=1.0, delta=1e-6, m=10, n=100)),
    "with_replacement": (bounds.with_replacement, dict(epsilon=1.0, delta=1e-6, m=10, n=100)),
    "with_replacement[add_remove]": (functools.partial(bounds.with_replacement, relation="add_remove"),
                                     dict(epsilon=1.0, delta=1e-6, m=10, n=100)),
    "rate_change": (bounds.rate_change, dict(epsilon=1.0, delta=1e-6, rate_from=0.5, rate_to=0.1)),
    "group_privacy": (bounds.group_privacy, dict(epsilon=1.0, delta=1e-6, k=3)),
}

# out-of-domain values per parameter (applying to every function that has the parameter)
BAD = {
    "epsilon": [-1.0, -1e-300, -INF],
    "delta": [-0.5, -5e-324, 1.5, ABOVE_ONE, INF, -INF],
    "rate": [-0.1, -5e-324, 1.1, ABOVE_ONE, INF],
    "m": [3.5, -1.0, INF, 0.5],
    "n": [0.0, -3.0, 2.5, INF],
    "rate_from": [0.0, -0.1, 1.5, INF],
    "rate_to": [-0.1, 1.5, -INF],
    "k": [0.0, 2.5, -1.0, INF, 0.5],
}


def function_name(key: str) -> str:
    return key.split("[")[0]


def cases(values) -> list:
    return [pytest.param(key, param, value, id=f"{key}-{param}={value!r}")
            for key, (_, kwargs) in FUNCTIONS.items() for param in kwargs for value in values(param)]


def numbers_in(message: str) -> list[float]:
    tokens = re.findall(r"(?<![\w.])[-+]?(?:inf|nan|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)", message)
    return [float(t) for t in tokens]


def check_message(message: str, key: str, param: str, index: str = "") -> None:
    assert function_name(key) in message, f"function name missing: {message!r}"
    assert re.search(rf"(?<![\w]){re.escape(param + index)}(?![\w\[])", message), \
        f"parameter {param + index!r} missing: {message!r}"


@pytest.mark.parametrize("key, param, value", cases(lambda p: [NAN]))
def test_nan_is_rejected(key, param, value):
    function, kwargs = FUNCTIONS[key]
    with pytest.raises(ValueError) as info:
        function(**{**kwargs, param: value})
    message = str(info.value)
    check_message(message, key, param)
    assert "nan" in message.lower()


@pytest.mark.parametrize("key, param, value", cases(lambda p: BAD[p]))
def test_out_of_domain_is_rejected(key, param, value):
    function, kwargs = FUNCTIONS[key]
    with pytest.raises(ValueError) as info:
        function(**{**kwargs, param: value})
    message = str(info.value)
    check_message(message, key, param)
    assert value in numbers_in(message), f"offending value {value!r} not in {message!r}"


@pytest.mark.parametrize("key, param, value", cases(lambda p: ["abc", None, 1j]))
def test_non_numbers_are_rejected(key, param, value):
    function, kwargs = FUNCTIONS[key]
    with pytest.raises(ValueError) as info:
        function(**{**kwargs, param: value})
    check_message(str(info.value), key, param)


@pytest.mark.parametrize("m, n", [(11, 10), (2, 1), (101.0, 100.0), (2 ** 53, 2 ** 53 - 1)])
def test_without_replacement_needs_m_at_most_n(m, n):
    with pytest.raises(ValueError) as info:
        bounds.without_replacement(1.0, 1e-6, m, n)
    message = str(info.value)
    assert "without_replacement" in message
    assert re.search(r"(?<!\w)m(?!\w)", message) and re.search(r"(?<!\w)n(?!\w)", message), message


def test_rate_change_needs_rate_to_at_most_rate_from():
    with pytest.raises(ValueError) as info:
        bounds.rate_change(1.0, 1e-6, 0.2, 0.5)
    message = str(info.value)
    assert "rate_change" in message and "rate_to" in message and "rate_from" in message
    assert 0.5 in numbers_in(message)
    with pytest.raises(ValueError, match="rate_to"):
        bounds.rate_change(1.0, 1e-6, 0.2, math.nextafter(0.2, 1.0))


@pytest.mark.parametrize("key, param, values, index", [
    ("without_replacement", "m", [1, 2, 3.5, 4], "[2]"),
    ("with_replacement", "m", [1, 2, 3.5, 4], "[2]"),
    ("with_replacement[add_remove]", "n", [10, 10, 10, 0], "[3]"),
    ("poisson_subsampling", "delta", [0.1, 0.2, NAN], "[2]"),
    ("poisson_subsampling_inverse", "rate", [[0.1, 0.2], [0.3, 1.5]], "[1, 1]"),
    ("group_privacy", "k", [1, 2, 0], "[2]"),
    ("group_privacy", "epsilon", [0.0, -1.0, 1.0], "[1]"),
    ("rate_change", "rate_from", [0.5, 0.0, 0.5], "[1]"),
])
def test_arrays_name_the_first_bad_element(key, param, values, index):
    function, kwargs = FUNCTIONS[key]
    with pytest.raises(ValueError) as info:
        function(**{**kwargs, param: np.array(values, dtype=np.float64)})
    check_message(str(info.value), key, param, index)


def test_constraint_violation_in_an_array_names_the_element():
    with pytest.raises(ValueError) as info:
        bounds.without_replacement(1.0, 1e-6, [1, 20, 30], 10)
    message = str(info.value)
    assert "without_replacement" in message and re.search(r"(?<!\w)m\[1\]", message), message


def test_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match="poisson_subsampling"):
        bounds.poisson_subsampling([1.0, 2.0], [1e-6, 1e-6, 1e-6], 0.1)


@pytest.mark.parametrize("relation", ["bogus", "add-remove", "Substitute", None, ""])  # "add/remove" is accepted
def test_with_replacement_unknown_relation(relation):
    with pytest.raises(ValueError) as info:
        bounds.with_replacement(1.0, 1e-6, 10, 100, relation=relation)
    message = str(info.value)
    assert "with_replacement" in message and "relation" in message


def test_with_replacement_relation_is_keyword_only():
    with pytest.raises(TypeError):
        bounds.with_replacement(1.0, 1e-6, 10, 100, "add_remove")


# ---------------------------------------------------------------------------------------------------------
# Accepted inputs
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("function, name, value", [
    (bounds.without_replacement, "m", 3.0), (bounds.without_replacement, "n", 100.0),
    (bounds.with_replacement, "m", 3.0), (bounds.with_replacement, "n", 100.0),
    (bounds.group_privacy, "k", 3.0),
])
def test_integral_floats_are_integers(function, name, value):
    kwargs = {"epsilon": 1.0, "delta": 1e-6}
    kwargs.update({"m": 3, "n": 100} if name in ("m", "n") else {"k": 3})
    as_int = function(**kwargs)
    as_float = function(**{**kwargs, name: value})
    as_numpy = function(**{**kwargs, name: np.int64(int(value))})
    assert as_int == as_float == as_numpy
    assert type(as_float.epsilon) is float


@pytest.mark.parametrize("key, kwargs", [
    ("poisson_subsampling", dict(epsilon=0.0, delta=0.0, rate=0.0)),
    ("poisson_subsampling", dict(epsilon=1.0, delta=1.0, rate=1.0)),
    ("poisson_subsampling_inverse", dict(epsilon=0.0, delta=0.0, rate=0.0)),
    ("poisson_subsampling_inverse", dict(epsilon=1.0, delta=1.0, rate=1.0)),
    ("without_replacement", dict(epsilon=0.0, delta=0.0, m=0, n=1)),
    ("without_replacement", dict(epsilon=1.0, delta=1.0, m=5, n=5)),
    ("with_replacement", dict(epsilon=0.0, delta=0.0, m=0, n=1)),
    ("with_replacement", dict(epsilon=1.0, delta=1.0, m=50, n=1)),   # m > n is fine with replacement
    ("with_replacement[add_remove]", dict(epsilon=1.0, delta=1.0, m=50, n=1)),
    ("rate_change", dict(epsilon=0.0, delta=0.0, rate_from=1.0, rate_to=0.0)),
    ("rate_change", dict(epsilon=1.0, delta=1.0, rate_from=5e-324, rate_to=5e-324)),
    ("group_privacy", dict(epsilon=0.0, delta=0.0, k=1)),
    ("group_privacy", dict(epsilon=1.0, delta=1.0, k=2 ** 53)),
])
def test_domain_boundaries_are_accepted(key, kwargs):
    function, _ = FUNCTIONS[key]
    g = function(**kwargs)
    assert not math.isnan(g.epsilon) and not math.isnan(g.delta)
    assert g.epsilon >= 0.0 and g.delta >= 0.0


def test_negative_zero_is_zero():
    assert bounds.poisson_subsampling(-0.0, -0.0, 0.5) == (0.0, 0.0)
    assert bounds.group_privacy(-0.0, 0.0, 3).epsilon == 0.0


def test_infinite_epsilon_is_accepted():
    g = bounds.poisson_subsampling(INF, 1e-6, 0.1)
    assert g.epsilon == INF and 1e-7 <= g.delta <= 1e-7 * (1 + 1e-15)
    assert bounds.poisson_subsampling(INF, 1e-6, 0.0) == (0.0, 0.0)
    assert bounds.poisson_subsampling(INF, 0.0, 1e-300).epsilon == INF
    assert bounds.poisson_subsampling_inverse(INF, 1e-6, 0.1).epsilon == INF
    assert bounds.without_replacement(INF, 1e-6, 1, 10).epsilon == INF
    assert bounds.without_replacement(INF, 1e-6, 0, 10) == (0.0, 0.0)
    g = bounds.with_replacement(INF, 1e-6, 3, 10)
    assert g.epsilon == INF and 0.0 < g.delta <= 1.0
    assert bounds.with_replacement(INF, 1e-6, 0, 10) == (0.0, 0.0)
    assert bounds.rate_change(INF, 1e-6, 0.5, 0.1).epsilon == INF
    assert bounds.rate_change(INF, 1e-6, 0.5, 0.0) == (0.0, 0.0)
    assert bounds.group_privacy(INF, 1e-6, 2).epsilon == INF


def test_vectorised_validation_accepts_good_arrays():
    g = bounds.without_replacement(np.array([[0.0], [1.0], [INF]]), 1e-6, np.array([0.0, 1.0, 2.0]), 2.0)
    assert g.epsilon.shape == (3, 3) and not np.isnan(g.epsilon).any() and not np.isnan(g.delta).any()
