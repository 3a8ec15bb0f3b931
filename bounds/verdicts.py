"""“Is my accountant right?”: certified verdicts on a claimed (ε, δ) (issue 13).

``crosscheck(mechanism_or_composition, epsilon=ε, delta=δ)`` decides whether a mechanism is (ε, δ)-DP, the
claim another accountant (dp_accounting, Opacus, autodp, prv_accountant, …) reports, from *certified*
enclosures of the mechanism's privacy profile δ_M(ε) (``bounds.enclosures``; compositions through
``bounds.compose``):

- **invalid** — a certified *lower* bound on δ_M(ε) exceeds the claimed δ (or, equivalently, the claimed ε lies
  below a certified lower bound on ε_M(δ) = min{ε ≥ 0 : δ_M(ε) ≤ δ}): the claim promises more privacy than
  the mechanism has.  Never a false alarm: only a proven lower bound can refute a claim.
- **valid** — a certified *upper* bound on δ_M(ε) is at most the claimed δ (or the claimed ε is at least a
  certified upper bound on ε_M(δ)).
- **undecided** — the claim lies inside the certified sandwich; the verdict says by how much and how to
  tighten it.

The two criteria of each verdict are each sound on their own: δ_M is non-increasing in ε, so
ε ≥ ε⁺ ≥ ε_M(δ) gives δ_M(ε) ≤ δ_M(ε_M(δ)) ≤ δ, and ε < ε⁻ ≤ ε_M(δ) gives δ_M(ε) > δ by the minimality of
ε_M(δ).  Using both makes the verdict consistent between the ε and δ views even where a rounded profile is
not monotone at the level of single ulps.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._arguments import ParameterTypeError, real_number
from ._dask import refuses_dask
from .composition import UNRESOLVED_WARNING, Sandwich
from .enclosures import _Enclosure, enclosure
from .peer_formats import _from_keywords, _steps_to_target

__all__ = ["VERDICTS", "Verdict", "crosscheck", "describe_composition"]  # decide, sampler_target: the CLI's

VERDICTS = ("valid", "invalid", "undecided")


def _g(x: float) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.12g}"


@dataclass(frozen=True)
class Verdict:
    """A certified verdict on the claim "the mechanism is (epsilon_claim, delta_claim)-DP".

    Returned by :func:`crosscheck` (frozen; ``as_dict()`` gives its JSON form).  "invalid" rests on a
    certified lower bound only, so it is never a false alarm; "valid" on a certified upper bound.

    Parameters
    ----------
    verdict : {"valid", "invalid", "undecided"}
    epsilon_claim, delta_claim : float
        The claim checked.
    delta : Sandwich
        Certified enclosure of the mechanism's δ at the claimed ε.
    epsilon : Sandwich
        Certified enclosure of the smallest ε ≥ 0 at which the mechanism is (ε, delta_claim)-DP.
    slack : Sandwich
        Enclosure of ε_claim − ε_M(δ_claim): positive = the claim is loose by that much, negative = it is
        short by that much.
    mechanism : str
        What was checked.
    explanation : str
        One paragraph for a human (for "undecided": by how much and how to tighten).
    sampler : dict or None
        For a claim decided under a batch sampler (``crosscheck(sampler=...)``): ``{"sampler", "adjacency",
        "convention", "certified", "description"}`` — the sampler, the neighbouring relation, the step/rate
        convention and which sides are certified ("sandwich", or "lower side only" for shuffled batches).

    Examples
    --------
    >>> import bounds
    >>> v = bounds.crosscheck(bounds.EpsDelta(1.0, 1e-6), epsilon=1.0, delta=1e-6)
    >>> v.verdict, v.delta.upper <= 1e-6
    ('valid', True)
    >>> sorted(v.as_dict())[:3]
    ['delta', 'delta_claim', 'epsilon']
    """

    verdict: str
    epsilon_claim: float
    delta_claim: float
    delta: Sandwich
    epsilon: Sandwich
    slack: Sandwich
    mechanism: str
    explanation: str = field(repr=False)
    sampler: dict | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (f"Verdict({self.verdict!r}, claim=(ε={_g(self.epsilon_claim)}, δ={_g(self.delta_claim)}), "
                f"δ(ε) ∈ [{_g(self.delta.lower)}, {_g(self.delta.upper)}], "
                f"ε(δ) ∈ [{_g(self.epsilon.lower)}, {_g(self.epsilon.upper)}], "
                f"slack ∈ [{_g(self.slack.lower)}, {_g(self.slack.upper)}])")

    def __str__(self) -> str:
        return f"{self.verdict}: {self.explanation}"

    def as_dict(self) -> dict:
        """Plain JSON-ready fields (inf as the string "inf")."""
        def j(x: float) -> Any:
            return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {"verdict": self.verdict, "epsilon_claim": j(self.epsilon_claim), "delta_claim": j(self.delta_claim),
                "delta": [j(self.delta.lower), j(self.delta.upper)],
                "epsilon": [j(self.epsilon.lower), j(self.epsilon.upper)],
                "slack": [j(self.slack.lower), j(self.slack.upper)],
                "mechanism": self.mechanism, "explanation": self.explanation,
                **({"sampler": dict(self.sampler)} if self.sampler is not None else {})}


def _claim(name: str, value: Any, hi: float) -> float:
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_)) \
            and value != value:
        raise ValueError(f"crosscheck: {name} is NaN; it must lie in [0, {_g(hi)}]"
                         + " (a peer that reports NaN has failed; its claim cannot be checked)")
    try:
        return real_number("crosscheck", name, value, low=0.0, high=hi)
    except ParameterTypeError:
        raise
    except ValueError as exc:
        negative = isinstance(value, (float, int)) and value < 0 and name == "epsilon"
        raise ValueError(str(exc) + (" (a negative ε is a peer error)" if negative else "")) from None


def _scalar_sandwich(s: Any, what: str) -> Sandwich:
    try:
        lo, hi = float(s[0]), float(s[1])
    except Exception:
        raise ValueError(f"crosscheck: the composition's {what} returned {s!r}, not a Sandwich(lower, upper)") from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"crosscheck: the composition's {what} returned an invalid enclosure {s!r}")
    return Sandwich(lo, hi)


def _noise_text(gaussian: bool, theta: float) -> str:
    """"noise multiplier σ" (σ = 1/θ to 12 digits) when that round-trips, else "θ = …"."""
    sigma = float(f"{1.0 / theta:.12g}")
    name = "Gaussian" if gaussian else "Laplace"
    return f"{name}, noise multiplier {sigma!r}" if 1.0 / sigma == theta or \
        abs(1.0 / sigma - theta) <= 2.0 ** -50 * theta else f"{name}, θ = {theta!r}"


def describe_composition(target: Any) -> str:
    """A composition for humans: its phases with noise multiplier σ (or θ), rate and steps, e.g.
    "composition of 11719 steps: 11719 × Poisson-subsampled Gaussian, noise multiplier 1.1, rate 0.004 (add/remove)"
    (``repr`` for compositions not built by ``bounds.compose``)."""
    steps = getattr(target, "steps", None)
    if not isinstance(steps, dict):
        return repr(target)
    parts = []
    try:
        for key, count in steps.items():
            if key[0] == "noise":
                _, mech, theta, q = key[:4]
                text = _noise_text(mech == 0, theta)
                parts.append(f"{count} × " + (f"Poisson-subsampled {text}, rate {q!r}" if q < 1.0 else text))
            elif key[0] == "epsdelta":
                parts.append(f"{count} × an ({key[1]!r}, {key[2]!r})-DP mechanism")
            else:
                return repr(target)
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return repr(target)
    total = getattr(target, "total_steps", sum(steps.values()))
    tol = getattr(target, "tolerance", None)
    return (f"composition of {total} steps: " + "; ".join(parts)
            + (f" (bounds.compose, tolerance {tol!r})" if tol is not None else ""))


def _is_composition(x: Any) -> bool:
    return callable(getattr(x, "delta", None)) and callable(getattr(x, "epsilon", None)) and \
        not isinstance(x, _Enclosure)


@refuses_dask
def crosscheck(mechanism_or_composition: Any = None, *, epsilon: Any, delta: Any, noise_multiplier: Any = None,
               rate: Any = None, steps: Any = 1, mechanism: str = "gaussian", tolerance: Any = None,
               sampler: str | None = None, adjacency: str | None = None, epochs: Any = None,
               steps_per_epoch: Any = None, batch_size: Any = None, dataset_size: Any = None,
               selected: Any = 1) -> Verdict:
    r"""Is the mechanism (ε, δ)-DP?  A certified verdict on an accountant's claim (issue 13).

    Returns a ``Verdict`` that is ``"invalid"`` only if a certified *lower* bound on δ_M(ε) exceeds δ (never a
    false alarm), ``"valid"`` only if a certified *upper* bound on δ_M(ε) is at most δ, else ``"undecided"``
    with the enclosures and how to tighten them; or raises.

    .. math::

        \text{invalid} \iff \delta_M^-(\varepsilon) > \delta, \qquad
        \text{valid} \iff \delta_M^+(\varepsilon) \le \delta, \qquad
        \delta_M^-(\varepsilon) \le \delta_M(\varepsilon) \le \delta_M^+(\varepsilon)

    (each side also decided through the ε enclosure of ε_M(δ) = min{ε ≥ 0 : δ_M(ε) ≤ δ}).  One-shot
    enclosures: SPEC T8/T9 (plain noise), T11 (one-step Poisson-subsampled Gaussian/Laplace), the implied
    profile (bare ``EpsDelta``), T1/T2 (tight worst cases), T3/T4/T5 (upper bounds only); compositions
    through ``bounds.compose`` (any object with ``.delta(ε)``/``.epsilon(δ)`` → ``Sandwich``).  Relation:
    add/remove for Poisson sampling, substitute for T2/T3.

    Parameters
    ----------
    mechanism_or_composition : mechanism, composition, list of (mechanism, count), or None
        ``None``: build the mechanism from ``noise_multiplier``, ``rate``, ``steps`` (DP-SGD vocabulary).
    epsilon : float
        Claimed ε ≥ 0 (finite).
    delta : float
        Claimed δ ∈ [0, 1].
    noise_multiplier : float, optional
        σ/Δ of a Gaussian (or b/Δ of a Laplace with ``mechanism="laplace"``); never θ.
    rate : float, optional
        Poisson sampling rate q ∈ [0, 1] (default: no subsampling).
    steps : int
        Number of steps (> 1 uses ``bounds.compose``).
    mechanism : {"gaussian", "laplace"}
        Noise for the keyword form.
    tolerance : float, optional
        Passed to ``bounds.compose`` when steps > 1.
    sampler : {"poisson", "balls_and_bins", "shuffle", "random_allocation", "fixed_size", "cyclic"}, optional
        Decide the claim for ``epochs`` epochs of DP-SGD whose batches this sampler draws (issue 21; record C2):
        the composition is :func:`bounds.samplers.sampler_composition`'s, with ``noise_multiplier`` σ and
        ``steps_per_epoch`` T, or ``batch_size`` b and ``dataset_size`` n (T = ⌈n/b⌉); Poisson's rate is
        ``rate``, else b/n, else 1/T.  The verdict names the sampler, the adjacency and the step convention.
        For ``"shuffle"`` only the lower side is certified tight: the upper side is the cyclic
        (deterministic-batch) bound, so a claim between the two is "undecided" and one below the lower side is
        "invalid" (a claim computed for Poisson sampling does not transfer to shuffled batches).
    adjacency : str, optional
        The neighbouring relation for ``sampler`` (default: the sampler's, ``bounds.samplers.wiring.ADJACENCY``).
    epochs, steps_per_epoch, batch_size, dataset_size, selected : int, optional
        The DP-SGD words of ``sampler`` (``selected`` = k for random allocation).

    Returns
    -------
    Verdict

    Raises
    ------
    ValueError
        If the claim is NaN, negative, infinite (ε) or outside [0, 1] (δ), or the mechanism is not supported;
        for ``sampler`` with a mechanism object, without ``noise_multiplier`` or ``epochs``, or with the
        sampler words given without ``sampler`` (the message names what is missing or extra).

    Examples
    --------
    Opacus' GDP accountant reports ε = 0.4575 at δ = 1e-5 for one step of σ = 1, q = 0.1; the RDP accountant
    2.1330:

    >>> import bounds
    >>> bounds.crosscheck(noise_multiplier=1.0, rate=0.1, epsilon=0.4575, delta=1e-5).verdict
    'invalid'
    >>> v = bounds.crosscheck(noise_multiplier=1.0, rate=0.1, epsilon=2.1330, delta=1e-5)
    >>> v.verdict, round(v.epsilon.upper, 6), round(v.slack.lower, 4)
    ('valid', 1.684544, 0.4485)

    A claim computed for Poisson sampling, checked for a shuffled pipeline (σ = 1, 10 batches per epoch, 2
    reshuffled epochs, zero-out adjacency):

    >>> v = bounds.crosscheck(sampler="shuffle", noise_multiplier=1.0, steps_per_epoch=10, epochs=2,
    ...                       epsilon=1.0, delta=1e-5)
    >>> v.verdict, v.sampler["adjacency"], v.sampler["certified"]
    ('invalid', 'zero_out', 'lower side only (upper side = the cyclic bound)')
    """
    eps_c = _claim("epsilon", epsilon, math.inf)
    if eps_c == math.inf:
        raise ValueError("crosscheck: epsilon = inf claims nothing; it must be a finite ε ≥ 0")
    delta_c = _claim("delta", delta, 1.0)
    words = {"adjacency": adjacency, "epochs": epochs, "steps_per_epoch": steps_per_epoch,
             "batch_size": batch_size, "dataset_size": dataset_size}
    if sampler is not None:
        if mechanism_or_composition is not None:
            raise ValueError(f"crosscheck: sampler = {sampler!r} builds the composition from noise_multiplier and "
                             "the DP-SGD words; give either a mechanism/composition or sampler=, not both")
        if mechanism != "gaussian":
            raise ValueError(f"crosscheck: sampler = {sampler!r} accounts for Gaussian noise only "
                             f"(mechanism = {mechanism!r})")
        if steps != 1:
            raise ValueError(f"crosscheck: sampler = {sampler!r} derives the steps from epochs (and steps_per_epoch "
                             "or batch_size/dataset_size); steps = is not used with it")
        missing = [n for n, v in (("noise_multiplier", noise_multiplier), ("epochs", epochs)) if v is None]
        if steps_per_epoch is None and (batch_size is None or dataset_size is None):
            missing.append("steps_per_epoch (or batch_size and dataset_size)")
        if missing:
            raise ValueError(f"crosscheck: sampler = {sampler!r} needs {', '.join(missing)}")
        target, info = sampler_target(sampler=sampler, noise_multiplier=noise_multiplier, epochs=epochs,
                                      steps_per_epoch=steps_per_epoch, batch_size=batch_size,
                                      dataset_size=dataset_size, adjacency=adjacency, selected=selected,
                                      rate=rate, tolerance=tolerance)
        return decide(target, eps_c, delta_c, info)
    given = [n for n, v in words.items() if v is not None]
    if given or selected != 1:
        raise ValueError(f"crosscheck: {', '.join(given or ['selected'])} describe(s) a batch sampler; give "
                         "sampler= (e.g. sampler='poisson' or 'shuffle') with them")
    target = mechanism_or_composition
    if target is None:
        target = _from_keywords(noise_multiplier, rate, steps, mechanism, tolerance)
    elif noise_multiplier is not None or rate is not None:
        raise ValueError("crosscheck: give either a mechanism/composition or noise_multiplier/rate, not both")
    if isinstance(target, (list, tuple)):
        target = _steps_to_target(list(target), tolerance)
    return decide(target, eps_c, delta_c)


_CERTIFIED = {"shuffle": "lower side only (upper side = the cyclic bound)",
              "random_allocation": "upper side by decomposition; lower side loose for k > 1"}


def sampler_target(*, sampler: Any, noise_multiplier: Any, epochs: Any, steps_per_epoch: Any = None,
                   batch_size: Any = None, dataset_size: Any = None, adjacency: Any = None, selected: Any = 1,
                   rate: Any = None, tolerance: Any = None) -> tuple[Any, dict]:
    """(composition, sampler record) for ``crosscheck(sampler=...)``: the composition of
    :func:`bounds.samplers.sampler_composition` and the dict ``Verdict.sampler`` carries (sampler, adjacency,
    step convention, which sides are certified, the full description)."""
    from .samplers.wiring import ADJACENCY, SAMPLERS, sampler_composition

    if not isinstance(sampler, str) or sampler.replace("-", "_") not in SAMPLERS:
        raise ValueError(f"crosscheck: sampler = {sampler!r} must be one of {SAMPLERS}")
    name = sampler.replace("-", "_")
    kw = {} if tolerance is None else {"tolerance": tolerance}
    comp, text = sampler_composition(sampler=name, noise_multiplier=noise_multiplier, epochs=epochs,
                                     steps_per_epoch=steps_per_epoch, batch_size=batch_size,
                                     dataset_size=dataset_size, adjacency=adjacency, selected=selected, rate=rate,
                                     **kw)
    adj = ADJACENCY[name][0] if adjacency is None else adjacency
    parts = [t.strip() for t in text.split(";")]
    info = {"sampler": name, "adjacency": adj, "convention": parts[1] if len(parts) > 1 else "",
            "certified": _CERTIFIED.get(name, "sandwich"), "description": text}
    return comp, info


def decide(target: Any, eps_c: float, delta_c: float, sampler: dict | None = None) -> Verdict:
    """The verdict on the checked claim (ε_c, δ_c) for a mechanism or composition ``target`` (``crosscheck``
    after validation; the CLI calls it once per claim on one composition).  ``sampler``: the record of
    :func:`sampler_target`, named in the verdict's text and fields."""
    unresolved: list = []
    if _is_composition(target):
        encl = None
        with warnings.catch_warnings(record=True) as unresolved:
            # δ at the claimed ε below the grid's floor: [0, floor] decides a claim whose δ lies above the floor,
            # so ``delta``'s floor warning is passed on only where the verdict stays undecided (below)
            warnings.filterwarnings("always", message=UNRESOLVED_WARNING)
            d_s = _scalar_sandwich(target.delta(eps_c), "delta(epsilon)")
        e_s = _scalar_sandwich(target.epsilon(delta_c), "epsilon(delta)")
        description = describe_composition(target)
        exact_sides = True
    else:
        encl = enclosure(target)
        d_s = encl.delta(eps_c)
        e_s = encl.epsilon(delta_c)
        description = encl.description
        exact_sides = encl.exact
    valid = d_s.upper <= delta_c or eps_c >= e_s.upper
    invalid = d_s.lower > delta_c or eps_c < e_s.lower
    if valid and invalid:  # impossible if the enclosures are sound: surface it, never guess
        raise RuntimeError(f"crosscheck: inconsistent enclosures for {description}: δ ∈ {tuple(d_s)}, "
                           f"ε ∈ {tuple(e_s)} at claim (ε={eps_c!r}, δ={delta_c!r}); please report this")
    slack = Sandwich(eps_c - e_s.upper, eps_c - e_s.lower)
    verdict = "valid" if valid else "invalid" if invalid else "undecided"
    for w in unresolved:
        floor_note = str(w.message).startswith(UNRESOLVED_WARNING)
        if verdict == "undecided" or not floor_note:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    text = _explain(verdict, eps_c, delta_c, d_s, e_s, slack, target, encl, exact_sides)
    if sampler is not None:
        description = f"{sampler['description']} ({description})"
        head = (f"decided under {sampler['sampler'].replace('_', '-')} batches, "
                f"{sampler['adjacency'].replace('_', '-')} adjacency, {sampler['convention']}: ")
        if sampler["sampler"] == "shuffle":
            if verdict == "undecided":  # a finer grid cannot help: the gap is the unknown upper side
                text = text.split(" Re-run bounds.compose")[0] + f" A claim at or above ε = {_g(e_s.upper)} is valid."
            tail = (" For shuffled batches only the lower side is certified tight; the upper side is the cyclic "
                    "(deterministic-batch) bound — no tighter upper bound is known, so a claim between the two "
                    "stays undecided however fine the grid; a claim computed for Poisson sampling does not apply "
                    "to shuffled batches.")
        else:
            tail = ""
        text = head + text + tail
    return Verdict(verdict, eps_c, delta_c, d_s, e_s, slack, description, text, sampler)


def _explain(verdict: str, eps_c: float, delta_c: float, d_s: Sandwich, e_s: Sandwich, slack: Sandwich,
             target: Any, encl: _Enclosure | None, exact_sides: bool) -> str:
    claim = f"(ε = {_g(eps_c)}, δ = {_g(delta_c)})"
    if verdict == "valid":
        return (f"the claim {claim} holds: δ at ε = {_g(eps_c)} is at most {_g(d_s.upper)} ≤ {_g(delta_c)}; "
                f"the smallest valid ε at this δ is at most {_g(e_s.upper)}, so the claim is loose by at least "
                f"{_g(max(slack.lower, 0.0))} in ε.")
    if verdict == "invalid":
        return (f"the claim {claim} is WRONG: δ at ε = {_g(eps_c)} is at least {_g(d_s.lower)} > {_g(delta_c)}, so "
                f"the mechanism is not ({_g(eps_c)}, {_g(delta_c)})-DP; the smallest valid ε at this δ is at least "
                f"{_g(e_s.lower)} (short by at least {_g(max(-slack.upper, 0.0))}).")
    width = d_s.upper - d_s.lower
    rel = width / delta_c if delta_c > 0 else math.inf
    parts = [f"the claim {claim} lies inside the certified enclosure: δ at ε = {_g(eps_c)} is in "
             f"[{_g(d_s.lower)}, {_g(d_s.upper)}] (width {_g(rel)} relative to the claimed δ) and the smallest "
             f"valid ε is in [{_g(e_s.lower)}, {_g(e_s.upper)}] (the claim is within {_g(e_s.upper - eps_c)} below "
             f"the certified upper ε)."]
    if encl is not None and not encl.exact:
        parts.append(encl.lower_note + "; a claim at or above the upper ε "
                     f"{_g(e_s.upper)} is certified valid.")
    elif encl is not None:
        parts.append("The enclosure is the exact profile up to the kernels' rounding budget: the claim equals the "
                     "exact value to within float accuracy; "
                     + (f"round it up to ε ≥ {_g(e_s.upper)} to be safe." if math.isfinite(e_s.upper) else
                        "no finite ε is certified at this δ: claim a slightly larger δ."))
    else:
        tol = getattr(target, "tolerance", None)
        hint = f"a smaller tolerance than {tol!r}" if tol is not None else "a smaller tolerance"
        parts.append(f"Re-run bounds.compose with {hint} (e.g. tolerance=1e-5) to narrow the enclosure, or "
                     f"publish ε ≥ {_g(e_s.upper)}.")
    return " ".join(parts)
