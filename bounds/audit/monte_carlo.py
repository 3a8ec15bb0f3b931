"""Monte Carlo audits: run procedure ∘ mechanism many times on two neighbouring inputs, count an event, and
turn the counts into an ε lower bound with exact Clopper–Pearson limits (:func:`epsilon_lower_bound`).

The event is either given (fixed in advance) or the best of the threshold events {output ≥ t} (their
complements are covered by :func:`epsilon_lower_bound`), chosen on the first half of the runs; the bound is
computed on the second half only, so the choice cannot inflate it.  The procedure is the implementation under
test, called once per run with a ``numpy.random.Generator`` (or once per chunk of runs when it can draw a batch);
the mechanism and the event counting are vectorised over the runs.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..procedures._checks import count, generator
from ._checks import real
from .binomial_limits import epsilon_lower_bound
from .mechanisms import check_mechanism
from .result import AuditResult, claim_of

__all__ = ["monte_carlo_audit", "run_outputs"]

_CANDIDATES = 8   # thresholds whose Clopper–Pearson bound is computed on the selection half


def _kept(result: Any, n: int, output: str, function: str) -> np.ndarray:
    r = np.asarray(result)
    if output == "mask":
        if r.dtype != np.bool_ or r.shape != (n,):
            raise ValueError(f"{function}: the procedure must return a boolean keep mask of shape ({n},) "
                             f"(output='mask'), got dtype {r.dtype}, shape {r.shape}")
        return r
    if output == "indices":
        return np.bincount(r.astype(np.int64), minlength=n)
    if r.shape != (n,):
        raise ValueError(f"{function}: output='counts' needs one multiplicity per record, got shape {r.shape}")
    return r.astype(np.int64)


def run_outputs(procedure: Callable, mechanism: Any, data: Any, runs: int, rng: np.random.Generator, *,
                output: str = "mask", batched: bool = False, chunk: int = 10_000,
                progress: Callable[[int], None] | None = None,
                mechanism_rng: np.random.Generator | None = None) -> np.ndarray:
    """The mechanism's outputs on ``runs`` independent runs of ``procedure`` on ``data`` (int64 array); the
    procedure draws from ``rng``, the mechanism from ``mechanism_rng`` (default ``rng``)."""
    mech_rng = rng if mechanism_rng is None else mechanism_rng
    n = len(data)
    out = np.empty(runs, dtype=np.int64)
    done = 0
    while done < runs:
        b = min(chunk, runs - done)
        if batched:
            kept = np.asarray(procedure(data, rng, b))
            if kept.shape != (b, n):
                raise ValueError(f"monte_carlo_audit: a batched procedure must return shape ({b}, {n}), got "
                                 f"{kept.shape}")
            if output == "indices":
                raise ValueError("monte_carlo_audit: batched procedures return masks or counts")
        else:
            kept = np.empty((b, n), dtype=np.bool_ if output == "mask" else np.int64)
            for i in range(b):
                kept[i] = _kept(procedure(data, rng), n, output, "monte_carlo_audit")
        out[done:done + b] = mechanism.sample(kept, data, mech_rng)
        done += b
        if progress is not None:
            progress(b)
    return out


def _threshold_counts(o0: np.ndarray, o1: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every candidate t (the distinct outputs): #(o0 ≥ t), #(o1 ≥ t)."""
    t = np.unique(np.concatenate([o0, o1]))
    s0, s1 = np.sort(o0), np.sort(o1)
    k0 = o0.size - np.searchsorted(s0, t, side="left")
    k1 = o1.size - np.searchsorted(s1, t, side="left")
    return t, k0, k1


def _choose_threshold(o0: np.ndarray, o1: np.ndarray, delta: float, confidence: float) -> int | None:
    """The threshold whose event gives the largest ε lower bound on the selection runs (ranked first by the
    smoothed plug-in log-ratio — a ranking aid only — then by the Clopper–Pearson bound itself)."""
    t, k0, k1 = _threshold_counts(o0, o1)
    n0, n1 = o0.size, o1.size
    # ratios, not logs: correctly rounded divisions rank the same on every CPU and libm
    a1, a0 = (k1 + 0.5) / n1, (k0 + 0.5) / n0
    c1, c0 = (n1 - k1 + 0.5) / n1, (n0 - k0 + 0.5) / n0
    r = np.maximum.reduce([a1 / a0, a0 / a1, c1 / c0, c0 / c1])
    order = np.argsort(-r, kind="stable")[:_CANDIDATES]
    best, choice = -1.0, None
    for i in order:
        v = epsilon_lower_bound(int(k1[i]), n1, int(k0[i]), n0, delta=delta, confidence=confidence)
        if v > best:
            best, choice = v, int(t[i])
    return choice


def monte_carlo_audit(procedure: Callable, mechanism: Any, dataset_0: Any, dataset_1: Any, *, claim: Any,
                      trials: int = 100_000, seed: Any = None, confidence: float = 0.95,
                      event: Callable[[np.ndarray], np.ndarray] | None = None, output: str = "mask",
                      batched: bool = False, chunk: int = 10_000, progress: Callable[[int], None] | None = None,
                      scenario: str = "custom") -> AuditResult:
    r"""Monte Carlo audit of procedure ∘ mechanism on two neighbouring inputs.

    Runs ``procedure`` then ``mechanism`` ``trials`` times on each input.  Without ``event``, the first half
    of the runs chooses the threshold event {output ≥ t} with the largest ε lower bound, and the second half
    measures it; with ``event`` (fixed in advance) every run measures it.  The returned ε is
    :func:`epsilon_lower_bound` of those counts at the claim's δ: with probability ≥ ``confidence`` it is
    below the true ε of procedure ∘ mechanism on this pair.  It exceeding the claimed ε refutes the claim at
    that confidence; otherwise nothing is shown (an audit can refute, never prove).

    Parameters
    ----------
    procedure : callable
        The implementation under test: ``procedure(data, rng)`` → a boolean keep mask (``output="mask"``),
        the kept indices (``"indices"``) or a multiplicity per record (``"counts"``); with ``batched=True``,
        ``procedure(data, rng, size)`` → an array of shape (size, n) of masks or counts.
    mechanism : NoisyCount or RandomizedResponse
    dataset_0, dataset_1 : array_like
        Neighbouring inputs (records along the first axis).
    claim : Guarantee or (float, float)
    trials : int
        Runs per input (≥ 2; ≥ 20 recommended, 10⁵–10⁶ for tight bounds).
    seed : int, numpy.random.Generator or None
        A non-negative int seed, a Generator, or None (fresh entropy), as for the procedures.  Two independent
        streams are spawned from it (procedure, mechanism): a seed gives the same result for every ``chunk``.
    confidence : float
        In (0, 1).
    event : callable, optional
        ``event(outputs)`` → boolean array, fixed before the audit.
    chunk : int
        Runs per vectorised block.
    progress : callable, optional
        Called with the number of runs just finished (both inputs; total 2 × trials).

    Returns
    -------
    AuditResult

    Raises
    ------
    ValueError
        If the procedure returns the wrong kind or shape, trials < 2, confidence outside (0, 1), the claim
        is outside ε ≥ 0, 0 ≤ δ ≤ 1, or the seed is negative.
    TypeError
        If the mechanism is not a :class:`NoisyCount` or :class:`RandomizedResponse`, the procedure is not
        callable, or the seed is not an int, a Generator or None.

    Examples
    --------
    >>> import numpy as np, bounds
    >>> from bounds.audit import RandomizedResponse, monte_carlo_audit
    >>> d0, d1 = np.zeros(9), np.r_[np.zeros(9), 1.0]
    >>> rr = RandomizedResponse(1.0, weights=lambda d: (d == 1.0).astype(int))
    >>> poisson = lambda d, rng: rng.random(len(d)) < 0.25
    >>> r = monte_carlo_audit(poisson, rr, d0, d1, claim=bounds.poisson_subsampling(1.0, 0.0, 0.25),
    ...                       trials=20_000, seed=1)
    >>> r.verdict
    'not refuted'
    """
    fn = "monte_carlo_audit"
    check_mechanism(fn, mechanism)
    if not callable(procedure):
        raise TypeError(f"{fn}: procedure must be callable")
    if output not in ("mask", "indices", "counts"):
        raise ValueError(f"{fn}: output = {output!r} is not one of 'mask', 'indices', 'counts'")
    target = claim_of(fn, claim)
    runs = count(fn, "trials", trials, minimum=2)
    chunk = count(fn, "chunk", chunk, minimum=1)
    conf = real(fn, "confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True)
    rng = generator(fn, seed, "seed")
    # independent streams for the procedure and the mechanism: results do not depend on ``chunk``
    proc_rng, mech_rng = rng.spawn(2)
    kw = dict(output=output, batched=batched, chunk=chunk, progress=progress, mechanism_rng=mech_rng)
    o0 = run_outputs(procedure, mechanism, dataset_0, runs, proc_rng, **kw)
    o1 = run_outputs(procedure, mechanism, dataset_1, runs, proc_rng, **kw)
    details: dict = {"trials_per_input": runs, "mechanism": repr(mechanism)}
    if event is None:
        half = runs // 2
        t = _choose_threshold(o0[:half], o1[:half], target.delta, conf)
        e0, e1 = o0[half:] >= t, o1[half:] >= t
        details["event"] = f"output >= {t} (chosen on the first {half} runs of each input)"
    else:
        e0, e1 = np.asarray(event(o0), dtype=bool), np.asarray(event(o1), dtype=bool)
        details["event"] = "given"
    lb = epsilon_lower_bound(int(e1.sum()), e1.size, int(e0.sum()), e0.size, delta=target.delta,
                             confidence=conf, details=True)
    details.update({"events_1": int(e1.sum()), "trials_1": int(e1.size), "events_0": int(e0.sum()),
                    "trials_0": int(e0.size), "statement": lb.statement,
                    **{k: v for k, v in lb.limits.items()}})
    refuted = bool(lb.epsilon > target.epsilon) if math.isfinite(target.epsilon) else False
    return AuditResult("monte carlo", scenario, lb.epsilon, target, refuted, conf, details)
