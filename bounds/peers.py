"""Adapters that run other privacy accountants ("peers") on a mechanism and check their ε (issue 13).

Each installed peer runs in its own subprocess with a time limit, so a peer that crashes, hangs, prints
warnings or returns NaN/negative ε is *reported* as such and never propagated.  The peers (the optional extra
``crosscheck``):

- ``dp_accounting RDP`` / ``dp_accounting PLD`` — Google's dp_accounting (``RdpAccountant``;
  ``PLDAccountant``, pessimistic estimate, default discretisation);
- ``autodp`` — autodp's mechanism zoo (``GaussianMechanism``/``LaplaceMechanism``,
  ``AmplificationBySampling(PoissonSampling=True)``, ``Composition``); Gaussian and Laplace;
- ``prv_accountant`` — Microsoft's PRV accountant (``PoissonSubsampledGaussianMechanism``; its ``eps_upper``
  with eps_error 0.01, delta_error 1e-10); Gaussian only;
- ``opacus RDP`` / ``opacus GDP`` / ``opacus PRV`` — Opacus' accountants on the history, only when opacus
  (and therefore torch) is importable; torch is never required.

The mechanism is given as a *spec*: ``{"steps": [[noise, σ, rate, count], …], "delta": δ}`` with noise
"gaussian" or "laplace", σ the noise multiplier (Laplace: scale b/Δ), rate ``None`` for no subsampling; or a
dp_accounting event in JSON form (``"dp_event"``), which only dp_accounting reads.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PEERS = ("dp_accounting RDP", "dp_accounting PLD", "autodp", "prv_accountant", "opacus RDP", "opacus GDP",
         "opacus PRV")
_MODULE = {"dp_accounting RDP": "dp_accounting", "dp_accounting PLD": "dp_accounting", "autodp": "autodp",
           "prv_accountant": "prv_accountant", "opacus RDP": "opacus", "opacus GDP": "opacus",
           "opacus PRV": "opacus"}


def installed(peer: str) -> bool:
    """Whether the peer's package is importable (for Opacus: opacus and torch), without importing it."""
    module = _MODULE[peer]
    if importlib.util.find_spec(module) is None:
        return False
    return module != "opacus" or importlib.util.find_spec("torch") is not None


@dataclass(frozen=True)
class PeerResult:
    """One peer's answer and its check.

    ``status``: "ok", "crashed", "timeout", "nan", "negative", "infinite", "not applicable", "not installed".
    ``epsilon`` is the peer's ε (None unless it returned a number); ``verdict`` the ``Verdict`` of its claim
    (None unless status is "ok"); ``seconds`` the peer's own wall time (None if it never answered).
    """

    peer: str
    status: str
    epsilon: float | None
    seconds: float | None
    message: str
    verdict: Any = None


# ----------------------------------------------------------------------------------------------------
# the child side (runs inside the peer's subprocess)
# ----------------------------------------------------------------------------------------------------

def _dp_event(spec: dict) -> Any:
    from dp_accounting import dp_event as E

    if "dp_event" in spec:
        def build(x: Any) -> Any:
            if isinstance(x, dict) and "class_name" in x:
                cls = getattr(E, x["class_name"])
                return cls(**{k: build(v) for k, v in x.items() if k not in ("class_name", "module_name")})
            if isinstance(x, list):
                return [build(v) for v in x]
            return x

        return build(spec["dp_event"])
    events = []
    for noise, sigma, rate, count in spec["steps"]:
        ev = E.GaussianDpEvent(sigma) if noise == "gaussian" else E.LaplaceDpEvent(sigma)
        if rate is not None:
            ev = E.PoissonSampledDpEvent(rate, ev)
        events.append(E.SelfComposedDpEvent(ev, count))
    return events[0] if len(events) == 1 else E.ComposedDpEvent(events)


def _peer_epsilon(peer: str, spec: dict) -> Any:
    delta = spec["delta"]
    steps = spec.get("steps")
    if peer == "dp_accounting RDP":
        from dp_accounting.rdp import RdpAccountant

        return RdpAccountant().compose(_dp_event(spec)).get_epsilon(delta)
    if peer == "dp_accounting PLD":
        from dp_accounting.pld import PLDAccountant

        return PLDAccountant().compose(_dp_event(spec)).get_epsilon(delta)
    if steps is None:
        return "not applicable: only dp_accounting reads a DpEvent"
    if peer == "autodp":
        from autodp.mechanism_zoo import GaussianMechanism, LaplaceMechanism
        from autodp.transformer_zoo import AmplificationBySampling, Composition

        mechs, counts = [], []
        for noise, sigma, rate, count in steps:
            m = GaussianMechanism(sigma=sigma) if noise == "gaussian" else LaplaceMechanism(b=sigma)
            if rate is not None:
                m = AmplificationBySampling(PoissonSampling=True)(m, rate, improved_bound_flag=True)
            mechs.append(m)
            counts.append(count)
        if len(mechs) == 1 and counts[0] == 1:
            return mechs[0].get_approxDP(delta)
        return Composition()(mechs, counts).get_approxDP(delta)
    if any(noise != "gaussian" for noise, *_ in steps):
        return "not applicable: Gaussian noise only"
    if peer == "prv_accountant":
        from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

        prvs = [PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=1.0 if r is None else r)
                for _, s, r, _ in steps]
        counts = [c for *_, c in steps]
        acc = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=0.01, delta_error=1e-10)
        return acc.compute_epsilon(delta=delta, num_self_compositions=counts)[2]  # eps_upper
    if peer.startswith("opacus"):
        from opacus import accountants

        if peer == "opacus GDP" and len(steps) != 1:
            return "not applicable: Opacus' GDP accountant takes one (σ, q) only"
        cls = {"opacus RDP": "RDPAccountant", "opacus GDP": "GaussianAccountant", "opacus PRV": "PRVAccountant"}[peer]
        acc = getattr(accountants, cls)()
        acc.history = [(s, 1.0 if r is None else r, c) for _, s, r, c in steps]
        return acc.get_epsilon(delta=delta)
    return f"not applicable: unknown peer {peer}"


def _child() -> None:
    """Entry point of a peer subprocess: read {"peer", "spec"} from argv, print one JSON line last."""
    job = json.loads(sys.argv[-1])
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)  # dp_accounting's absl warnings
    try:  # the peer's import is not the peer's time
        importlib.import_module(_MODULE[job["peer"]])
    except BaseException:  # noqa: BLE001 - reported below by the peer call itself
        pass
    t0 = time.perf_counter()
    try:
        value = _peer_epsilon(job["peer"], job["spec"])
        out: dict = {"seconds": time.perf_counter() - t0}
        if isinstance(value, str):
            out["not_applicable"] = value
        else:
            v = float(value)
            out["epsilon"] = v if math.isfinite(v) else repr(v)
    except BaseException as exc:  # noqa: BLE001 - any failure of the peer is its result
        out = {"seconds": time.perf_counter() - t0, "error": f"{type(exc).__name__}: {exc}"[:500]}
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()


# ----------------------------------------------------------------------------------------------------
# the parent side
# ----------------------------------------------------------------------------------------------------

def _spawn(peer: str, spec: dict) -> subprocess.Popen:
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("CUDA_VISIBLE_DEVICES", "")  # CPU only
    return subprocess.Popen([sys.executable, "-c", "from bounds.peers import _child; _child()",
                             json.dumps({"peer": peer, "spec": spec})],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            text=True)


def _collect(peer: str, proc: subprocess.Popen, deadline: float, timeout: float) -> tuple[str, Any, Any, str]:
    try:
        out, err = proc.communicate(timeout=max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "timeout", None, None, f"no answer within {timeout:g} s (killed)"
    lines = [ln for ln in (out or "").splitlines() if ln.strip()]
    try:
        res = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = (err or "").strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        return "crashed", None, None, f"the peer process died: {tail[0][:300]}"
    secs = res.get("seconds")
    if "error" in res:
        return "crashed", None, secs, res["error"]
    if "not_applicable" in res:
        return "not applicable", None, secs, res["not_applicable"]
    eps = res["epsilon"]
    if isinstance(eps, str):
        value = float(eps)
        if math.isnan(value):
            return "nan", None, secs, "the peer returned ε = NaN"
        return "infinite", value, secs, f"the peer returned ε = {eps}"
    if eps < 0:
        return "negative", eps, secs, f"the peer returned a negative ε = {eps!r}"
    return "ok", eps, secs, ""


def run_peers(spec: dict, target: Any, *, peers: Any = None, timeout: float = 120.0,
              jobs: int = 2) -> list[PeerResult]:
    """Run each requested, installed peer on ``spec`` (``jobs`` at a time, each in a subprocess limited to
    ``timeout`` seconds of wall time, imports included) and cross-check its ε at ``spec["delta"]`` against
    ``target`` (the same mechanism in this library's vocabulary, for ``bounds.crosscheck``; ``None``: no check).
    The reported seconds are the peer's own computation, after its import.

    Returns one ``PeerResult`` per requested peer (installed or not), in ``PEERS`` order.
    """
    from .verdicts import crosscheck

    names = list(PEERS if peers is None else peers)
    for p in names:
        if p not in PEERS:
            raise ValueError(f"run_peers: unknown peer {p!r}; known: {', '.join(PEERS)}")
    runnable = [p for p in names if installed(p)]
    answers: dict = {}
    for start in range(0, len(runnable), max(1, int(jobs))):  # at most `jobs` peers at once
        chunk = runnable[start:start + max(1, int(jobs))]
        procs = {p: _spawn(p, spec) for p in chunk}
        deadline = time.monotonic() + timeout
        for p in chunk:
            answers[p] = _collect(p, procs[p], deadline, timeout)
    results = []
    for p in names:
        if p not in answers:
            why = "needs opacus and torch" if _MODULE[p] == "opacus" else f"pip install {_MODULE[p].replace('_', '-')}"
            results.append(PeerResult(p, "not installed", None, None, why))
            continue
        status, eps, secs, msg = answers[p]
        verdict = None
        if status == "ok" and target is not None:
            try:
                verdict = crosscheck(target, epsilon=eps, delta=spec["delta"])
            except ValueError as exc:
                status, msg = "not checked", str(exc)
        results.append(PeerResult(p, status, eps, secs, msg, verdict))
    return results
