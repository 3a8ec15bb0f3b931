"""The peers' vocabulary: dp_accounting ``DpEvent`` trees (objects, NamedTuples, JSON) and Opacus accountant
histories, translated into this library's mechanisms and compositions (issue 13).

``from_dp_event`` walks an event tree of any depth without recursion; ``from_opacus_history`` reads
[(noise_multiplier, sample_rate, steps), …]; ``dp_event_to_json`` writes the JSON form ``ampbounds crosscheck
--dp-event`` reads.  DP-SGD's ``noise_multiplier`` σ/Δ enters as ``Gaussian.from_noise_multiplier`` (θ = 1/σ
rounded up for upper bounds, down for lower bounds).
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from ._arguments import integer, shown
from ._dask import refuses_dask
from .composition import MAX_STEPS, poisson_sampled
from .mechanisms import Gaussian, Laplace
from .oneshot import WithoutReplacement, WithReplacement, _sequence

__all__ = ["dp_event_to_json", "from_dp_event", "from_opacus_history"]


def _from_noise_multiplier(function: str, value: Any, laplace: bool = False) -> Gaussian | Laplace:
    """``Gaussian.from_noise_multiplier(σ)`` (or ``Laplace.from_scale(b)``), errors naming the caller."""
    try:
        return Laplace.from_scale(value) if laplace else Gaussian.from_noise_multiplier(value)
    except ValueError as exc:
        detail = str(exc).split(": ", 1)[-1]
        raise ValueError(f"{function}: noise_multiplier = {shown(value)}: {detail}") from None


def _compose(steps: list, tolerance: Any) -> Any:
    from . import composition

    compose = getattr(composition, "compose", None)
    if compose is None:
        raise ValueError(f"crosscheck: a composition of {sum(c for _, c in steps)} steps needs bounds.compose "
                         "(issue 12), which this build does not have; one-shot mechanisms work")
    return compose(steps) if tolerance is None else compose(steps, tolerance=tolerance)


def _merge(steps: list) -> list:
    out: list = []
    for mech, count in steps:
        if count == 0:
            continue
        if out and out[-1][0] == mech:
            out[-1] = (mech, out[-1][1] + count)
        else:
            out.append((mech, count))
    return out


def _steps_to_target(steps: list, tolerance: Any = None) -> Any:
    for i, step in enumerate(steps):
        if not (isinstance(step, (list, tuple)) and len(step) == 2):
            raise ValueError(f"crosscheck: steps[{i}] = {step!r} must be a (mechanism, count) pair")
    steps = [(mech, integer("crosscheck", f"steps[{i}] count", count, low=0, what="number of steps"))
             for i, (mech, count) in enumerate(steps)]
    steps = _merge(steps)
    if not steps:
        raise ValueError("crosscheck: no steps (an empty composition releases nothing)")
    if len(steps) == 1 and steps[0][1] == 1:
        return steps[0][0]
    return _compose(_fixed_size_rounds(steps), tolerance)


def _fixed_size_rounds(steps: list) -> list:
    """Repeated fixed-size batches (``WithoutReplacement`` of a Gaussian, dp_accounting's
    ``SampledWithoutReplacementDpEvent``) as :func:`bounds.samplers.fixed_size_sampled` rounds, replace-one
    adjacency (issue 21); refuses what cannot be certified, by name.

    dp_accounting accounts for ``SampledWithoutReplacementDpEvent`` under ``NeighboringRelation.REPLACE_ONE``
    only (its RDP accountant refuses any other relation), with the inner ``GaussianDpEvent``'s noise multiplier
    s = noise std / l2-sensitivity *of that relation* (Wang, Balle, Kasiviswanathan 2019, Thm 27).  One step
    of this library's ``WithoutReplacement(Gaussian(θ = 1/s), m, n)`` (SPEC T2, substitute) is the hockey stick
    of ((1−γ)N(0) + γN(1/s), N(0)); ``fixed_size_sampled`` measures σ against the clip norm C, a replacement
    moving the sum by 2C, i.e. the pair ((1−γ)N(0) + γN(2/σ), N(0)): the same mechanism is
    ``fixed_size_sampled(Gaussian(θ/2), m, n, adjacency="replace_one")``, i.e. noise multiplier 2s (halving
    the enclosing θ⁺ and θ⁻ is exact; checked in the tests: one step gives the one-shot T2 value).  Refused: a fixed-size
    batch of a Laplace release, sampling with replacement, and a composition that mixes replace-one
    fixed-size steps with add/remove (Poisson-subsampled) steps — dp_accounting cannot account for those
    either, and no theorem here covers a relation change mid-composition."""
    fixed = [m for m, _ in steps if isinstance(m, WithoutReplacement)]
    if not fixed and not any(isinstance(m, WithReplacement) for m, _ in steps):
        return steps
    for m, _ in steps:
        if isinstance(m, WithReplacement):
            raise ValueError(f"crosscheck: {m!r} (SampledWithReplacementDpEvent) composed over several steps is not "
                             "certified (only its one-shot upper bound, SPEC T3, is); not supported")
        if isinstance(m, WithoutReplacement) and not isinstance(m.mechanism, Gaussian):
            raise ValueError(f"crosscheck: {m!r} (SampledWithoutReplacementDpEvent of a Laplace release) composed "
                             "over several steps is not certified (fixed-size batches: Gaussian noise only); not "
                             "supported")
        if getattr(m, "rate", None) is not None and not isinstance(m, WithoutReplacement):
            raise ValueError(f"crosscheck: the composition mixes fixed-size batches (SampledWithoutReplacementDpEvent, "
                             f"replace-one) with {m!r} (Poisson sampling, add/remove): no single neighbouring "
                             "relation certifies it; not supported")
    from .samplers.fixed_size import fixed_size_sampled

    out = []
    for m, count in steps:
        if isinstance(m, WithoutReplacement):
            # noise multiplier 2s ⇔ θ/2: halving both enclosing θ's is exact, so θ⁻/2 ≤ 1/(2s) ≤ θ⁺/2 holds
            g = m.mechanism
            half = Gaussian(theta=g.theta / 2.0)._with_lower(g.theta_lower / 2.0)
            m = fixed_size_sampled(half, m.m, m.n, adjacency="replace_one")
        out.append((m, count))
    return out


def _from_keywords(noise_multiplier: Any, rate: Any, steps: Any, mechanism: str, tolerance: Any) -> Any:
    if noise_multiplier is None:
        raise ValueError("crosscheck: give a mechanism or composition, or noise_multiplier= (and rate=, steps=)")
    if not isinstance(mechanism, str) or mechanism not in ("gaussian", "laplace"):
        raise ValueError(f"crosscheck: mechanism = {shown(mechanism)} must be 'gaussian' or 'laplace'")
    base = _from_noise_multiplier("crosscheck", noise_multiplier, laplace=mechanism == "laplace")
    mech = base if rate is None else poisson_sampled(base, rate)
    count = integer("crosscheck", "steps", steps, low=1, high=MAX_STEPS, what="number of steps")
    return _steps_to_target([(mech, count)], tolerance)


@refuses_dask
def from_opacus_history(history: Sequence, *, tolerance: Any = None) -> Any:
    """The mechanism of an Opacus accountant's ``history`` = [(noise_multiplier, sample_rate, steps), …].

    Returns a one-shot mechanism (one step) that ``crosscheck`` accepts, or a ``bounds.compose`` composition
    of Poisson-subsampled Gaussians (add/remove); raises ``ValueError`` on a malformed entry.

    Parameters
    ----------
    history : sequence of (float, float, int)
        Opacus' ``accountant.history``: σ/Δ, Poisson rate, number of steps.
    tolerance : float, optional
        Passed to ``bounds.compose``.

    Returns
    -------
    mechanism or Composition

    Raises
    ------
    ValueError
        If an entry is malformed (NaN σ, rate outside [0, 1], steps not a positive integer) or history is empty.

    Examples
    --------
    >>> import bounds
    >>> m = bounds.from_opacus_history([(1.0, 0.01, 1)])
    >>> bounds.crosscheck(m, epsilon=0.2, delta=1e-5).verdict
    'valid'
    """
    steps = []
    for i, entry in enumerate(_sequence("from_opacus_history", "history", history)):
        try:
            sigma, q, count = entry
        except (TypeError, ValueError):
            raise ValueError(f"from_opacus_history: history[{i}] = {shown(entry)} must be (noise_multiplier, "
                             "sample_rate, steps)") from None
        count = integer("from_opacus_history", f"history[{i}] steps", count, low=0, what="number of steps")
        steps.append((poisson_sampled(_from_noise_multiplier(f"from_opacus_history: history[{i}]", sigma), q),
                      count))
    return _steps_to_target(steps, tolerance)


_SUPPORTED_EVENTS = ("GaussianDpEvent", "LaplaceDpEvent", "PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent",
                     "SampledWithReplacementDpEvent", "SelfComposedDpEvent", "ComposedDpEvent", "NoOpDpEvent")


def _event_node(event: Any) -> tuple[str, dict]:
    """(class name, fields) of a dp_accounting DpEvent, its NamedTuple form, or its JSON/dict form."""
    if isinstance(event, dict):
        name = event.get("class_name") or event.get("type")
        if not isinstance(name, str):
            raise ValueError(f"from_dp_event: not supported: {shown(event)} (a JSON event needs a \"class_name\")")
        return name, {k: v for k, v in event.items() if k not in ("class_name", "module_name", "type")}
    if hasattr(event, "_fields") and hasattr(event, "class_name"):  # dp_accounting's to_named_tuple()
        return str(event.class_name), {k: getattr(event, k) for k in event._fields
                                       if k not in ("class_name", "module_name")}
    name = type(event).__name__
    if name.endswith("DpEvent"):
        try:
            import attr

            fields = attr.asdict(event, recurse=False)
        except Exception:
            fields = {k: getattr(event, k) for k in getattr(event, "__slots__", ()) if hasattr(event, k)}
        return name, fields
    raise ValueError(f"from_dp_event: not supported: {shown(event)} (a DpEvent, its NamedTuple form or a dict "
                     "with \"class_name\" is needed)")


MAX_EVENT_NODES = 10 ** 6  # events visited in one tree (a bound on the work, not on the depth)


def _event_steps(event: Any) -> list:
    """Flatten a DpEvent tree into [(mechanism, count), …].

    Walked with an explicit stack, not by recursion: a tree of any depth (a ledger composed event by event
    nests one ``ComposedDpEvent`` per step) is read without reaching Python's recursion limit; at most
    ``MAX_EVENT_NODES`` events are visited."""
    results: list[list] = []  # the flattened steps of the finished subtrees, in order
    stack: list[tuple] = [("visit", event)]
    visited = 0
    while stack:
        action, item = stack.pop()
        if action == "visit":
            visited += 1
            if visited > MAX_EVENT_NODES:
                raise ValueError(f"from_dp_event: the event tree has more than {MAX_EVENT_NODES} events; "
                                 "merge repeated events with SelfComposedDpEvent(event, count)")
            name, f = _event_node(item)

            def need(key: str, name: str = name, f: dict = f) -> Any:
                if key not in f:
                    raise ValueError(f"from_dp_event: {name} lacks the field {key!r}")
                return f[key]

            if name == "NoOpDpEvent":
                results.append([])
            elif name == "GaussianDpEvent":
                results.append([(_from_noise_multiplier("from_dp_event: GaussianDpEvent",
                                                        need("noise_multiplier")), 1)])
            elif name == "LaplaceDpEvent":
                results.append([(_from_noise_multiplier("from_dp_event: LaplaceDpEvent", need("noise_multiplier"),
                                                        laplace=True), 1)])
            elif name == "SelfComposedDpEvent":
                count = integer("from_dp_event", "SelfComposedDpEvent count", need("count"), low=0,
                                what="number of repetitions")
                stack.append(("self_composed", count))
                stack.append(("visit", need("event")))
            elif name == "ComposedDpEvent":
                events = _sequence("from_dp_event", "ComposedDpEvent events", need("events"))
                stack.append(("composed", len(events)))
                stack.extend(("visit", e) for e in reversed(events))
            elif name in ("PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent",
                          "SampledWithReplacementDpEvent"):
                stack.append(("sampled", (name, f)))
                stack.append(("visit", need("event")))
            else:
                raise ValueError(f"from_dp_event: not supported: {name} ({shown(item)}); supported: "
                                 + ", ".join(_SUPPORTED_EVENTS))
        elif action == "self_composed":
            results.append([(m, c * item) for m, c in results.pop()])
        elif action == "composed":
            parts = results[len(results) - item:] if item else []
            del results[len(results) - item:]
            results.append(_merge([step for part in parts for step in part]))
        else:  # "sampled"
            name, f = item
            inner = results.pop()
            if len(inner) != 1 or inner[0][1] != 1 or not isinstance(inner[0][0], (Gaussian, Laplace)):
                raise ValueError(f"from_dp_event: not supported: {name} of {shown(f['event'])} (only one "
                                 "Gaussian or Laplace release can be sampled)")
            base = inner[0][0]
            if name == "PoissonSampledDpEvent":
                if "sampling_probability" not in f:
                    raise ValueError(f"from_dp_event: {name} lacks the field 'sampling_probability'")
                results.append([(poisson_sampled(base, f["sampling_probability"]), 1)])
            else:
                for key in ("sample_size", "source_dataset_size"):
                    if key not in f:
                        raise ValueError(f"from_dp_event: {name} lacks the field {key!r}")
                cls = WithoutReplacement if name == "SampledWithoutReplacementDpEvent" else WithReplacement
                results.append([(cls(base, f["sample_size"], f["source_dataset_size"]), 1)])
    return results[0]


@refuses_dask
def from_dp_event(event: Any, *, tolerance: Any = None) -> Any:
    """The mechanism described by a dp_accounting ``DpEvent`` tree.

    Returns a one-shot mechanism (a single release) that ``crosscheck`` accepts, or a ``bounds.compose``
    composition; raises ``ValueError("… not supported: <event>")`` for other events.  dp_accounting need not
    be installed: events are recognised by class name and fields; the NamedTuple form
    (``event.to_named_tuple()``) and its JSON form (nested objects with ``"class_name"`` and the fields, as
    written by ``dp_event_to_json``) are accepted too.

    Supported: ``GaussianDpEvent`` (noise multiplier σ/Δ), ``LaplaceDpEvent`` (scale b/Δ),
    ``PoissonSampledDpEvent`` (SPEC T11, add/remove), ``SampledWithoutReplacementDpEvent`` (T2, substitute =
    dp_accounting's ``REPLACE_ONE``; repeated, or composed with plain noise, it becomes
    ``bounds.samplers.fixed_size_sampled`` rounds of noise multiplier 2s, record C2 — see ``_fixed_size_rounds``;
    mixed with Poisson steps it is refused),
    ``SampledWithReplacementDpEvent`` (T3, substitute; upper bound only), ``SelfComposedDpEvent``,
    ``ComposedDpEvent``, ``NoOpDpEvent``.

    Parameters
    ----------
    event : DpEvent, its NamedTuple form, dict, or JSON text
    tolerance : float, optional
        Passed to ``bounds.compose`` for compositions.

    Returns
    -------
    mechanism or Composition

    Raises
    ------
    ValueError
        For unsupported events or malformed fields (NaN noise multiplier, rate outside [0, 1], …).

    Examples
    --------
    >>> import bounds
    >>> ev = {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01,
    ...       "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}
    >>> bounds.crosscheck(bounds.from_dp_event(ev), epsilon=0.1995, delta=1e-5).verdict
    'valid'
    """
    if isinstance(event, (str, bytes)):
        try:
            event = json.loads(event)
        except json.JSONDecodeError as exc:
            raise ValueError(f"from_dp_event: not valid JSON: {exc}") from None
        except RecursionError:  # the json module parses nested objects recursively
            raise ValueError("from_dp_event: the JSON text nests too deeply for Python's JSON parser; pass the "
                             "parsed event (dict or DpEvent), which is walked without recursion") from None
    steps = _event_steps(event)
    if not steps:
        raise ValueError("from_dp_event: the event releases nothing (NoOpDpEvent only)")
    return _steps_to_target(steps, tolerance)


def dp_event_to_json(event: Any) -> str:
    """JSON text of a DpEvent tree (nested objects with "class_name" and the event's fields), the form that
    ``from_dp_event`` and ``ampbounds crosscheck --dp-event`` read.  dp_accounting's own serialisation is
    ``event.to_named_tuple()``; this writes that NamedTuple as nested JSON objects."""
    def conv(x: Any) -> Any:
        if hasattr(x, "to_named_tuple"):
            x = x.to_named_tuple()
        if hasattr(x, "_fields"):
            return {k: conv(getattr(x, k)) for k in x._fields}
        if isinstance(x, (list, tuple)):
            return [conv(v) for v in x]
        return x

    return json.dumps(conv(event))
