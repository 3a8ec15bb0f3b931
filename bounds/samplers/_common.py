"""Validation shared by the samplers of DP-SGD batches (issue 21): noise mechanisms, counts, adjacency."""
from __future__ import annotations

import math
from typing import Any

from ..mechanisms import Gaussian, Laplace
from ..procedures._checks import count

ADJACENCIES = ("zero_out", "replace_one")


def check_gaussian(function: str, mechanism: Any) -> Gaussian:
    """The sampler's base mechanism: a ``Gaussian`` (TypeError otherwise)."""
    if not isinstance(mechanism, Gaussian):
        raise TypeError(f"{function}: mechanism must be a Gaussian (e.g. Gaussian.from_noise_multiplier(sigma)), "
                        f"not {type(mechanism).__name__}")
    return mechanism


def check_noise(function: str, mechanism: Any) -> Gaussian | Laplace:
    if not isinstance(mechanism, (Gaussian, Laplace)):
        raise TypeError(f"{function}: mechanism must be a Gaussian or Laplace, not {type(mechanism).__name__}")
    return mechanism


def check_int(function: str, name: str, value: Any, low: int = 1, high: int = 10 ** 7) -> int:
    """An integer in [low, high]: the project's one count rule, :func:`bounds.procedures._checks.count`
    (ints, numpy integers, integral floats/Fractions; bools, strings, complex, None → ``ParameterTypeError``;
    NaN, inf, fractions and values outside the range → ``ValueError`` naming the parameter and the domain)."""
    return count(function, name, value, minimum=low, maximum=high)


def check_adjacency(function: str, adjacency: Any) -> str:
    if not isinstance(adjacency, str) or adjacency not in ADJACENCIES:
        raise ValueError(f"{function}: adjacency = {adjacency!r} must be one of {ADJACENCIES}")
    return adjacency


def epoch_thetas(mechanism: Gaussian, epochs: int) -> tuple[float, float]:
    """(upper, lower) θ of ``epochs`` epochs over the same batches — one epoch at θ√E: θ√E rounded up from the
    mechanism's upper θ and down from its lower θ (a correctly rounded sqrt and product are each within ½ ulp,
    so one nextafter and a further 2⁻⁵² factor keep both sides outward)."""
    if epochs == 1:
        return mechanism.theta, mechanism.theta_lower
    r = math.sqrt(epochs)
    return (math.nextafter(mechanism.theta * r, math.inf) * (1 + 2 ** -52),
            math.nextafter(mechanism.theta_lower * r, 0.0) * (1 - 2 ** -52))


def check_reuse(function: str, name: str, value: Any, fresh: str, fixed: str, thing: str, epochs: Any) -> int:
    """How many epochs one round spans: ``value`` is ``fresh`` (new ``thing`` every epoch: the round is one epoch,
    ``epochs`` omitted or 1) or ``fixed`` (the same ``thing`` every epoch: ``epochs`` required, one round at
    θ√E)."""
    if not isinstance(value, str) or value not in (fresh, fixed):
        raise ValueError(f"{function}: {name} = {value!r} must be '{fresh}' (new {thing} every epoch) or '{fixed}' "
                         f"(the same {thing} every epoch: one epoch at θ√E)")
    if value == fresh:
        if epochs is not None and check_int(function, "epochs", epochs) != 1:
            raise ValueError(f"{function}: epochs = {epochs!r} with {name}='{fresh}': the round is one epoch; "
                             f"compose it E times (compose([(round, E)])); epochs= is for {name}='{fixed}'")
        return 1
    if epochs is None:
        raise ValueError(f"{function}: {name}='{fixed}' needs epochs= (how many epochs reuse the same {thing})")
    return check_int(function, "epochs", epochs)
