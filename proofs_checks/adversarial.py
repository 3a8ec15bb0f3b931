"""Adversarial search for unsound or inaccurate kernel results (issue 10): grids missed two failures.

For every kernel of the accuracy table (every output of every theorem record, T15/T16 included):

1. **Stored regression cases** (``proofs_checks/data/adversarial_cases.json``, versioned with the package):
   arguments as ``float.hex``, the reference as a ≥ 40-digit decimal string computed by an independent route
   (the route is stored with it), the date.  Every certificate re-evaluates the rounded kernel at each case
   and compares it with the stored reference as exact binary numbers (no reference arithmetic: cheap).
2. **Fresh search**: seeded random start points drawn from the kernel's accuracy grid (magnitude-spanning,
   log-uniform random points included), then a local search (multiplicative steps in each coordinate,
   shrinking from a factor e^{±1} to a few ulps, accepted when they raise the score) that maximises the
   unsafe-direction error of the unrounded kernel in ulps of the reference (ties: |ulps|).  References:
   ``accuracy.reference_function`` (mpmath ≥ 50 digits of the SPEC form or the family's own independent
   route: sums, quadrature-free closed forms, exact integers for T15's tail scans).  Quick mode (the
   default certificate) spends a small CPU slice per kernel (≈ 4 s CPU for all of them once the kernels are
   compiled, which the accuracy checks share); ``framework.full()`` searches 15 s per kernel.

Metrics per kernel: ``kernel``, ``peak_ulps`` (largest |error| of the unrounded kernel, ulps of the
reference), ``worst_signed_rel`` (the smallest (returned − reference)/reference over every point, taken
with the sign of the safe direction: for a guarantee (rounded up) returned − reference, for a base
budget (rounded down) reference − returned; negative means unsafe), ``points``, ``worst`` (its point).
The check fails if any rounded value is on the unsafe side of its reference.

``python -m proofs_checks.adversarial [--full] [--write]`` runs the search and, with ``--write``, adds
each kernel's worst point to the data file (the reference is recomputed at 60 digits first).
"""
from __future__ import annotations

import datetime
import json
import math
import time
from pathlib import Path
from typing import Callable

import mpmath as mp
import numpy as np

from numeric._generated.metadata import THEOREMS

from . import points as exact_points
from . import accuracy
from .framework import Outcome, add_check, full

DATA = Path(__file__).with_name("data") / "adversarial_cases.json"
DIGITS = 60
QUICK_SECONDS = 0.03  # fresh-search CPU slice per kernel in quick mode (41 kernels)
# T15/T16 fresh points in the quick slice (``search`` given ≤ QUICK_SECONDS): only those whose exact scan ends
# by n = 1000 (≲ 0.2 s of 50-digit tails; a longer one cost 4 s, 130 times the slice).  Their start points are
# the accuracy check's points, read from the stored scans (any n); longer searches scan up to n = 20000.
QUICK_SCAN_N = 1000
FULL_SECONDS = 15.0  # per kernel in certify --full (≈ 10 min CPU for the 41 kernels)
SEED = 20261130
ROUTE = {"T15": "50-digit mpmath long scan of exact binomial tails (proofs_checks.kanon_checks.reference)",
         "T16": "50-digit mpmath long scan of exact binomial tails (proofs_checks.kanon_checks.reference)"}


# --------------------------------------------------------------------------------------------------
# kernels and references

class Target:
    """One kernel: its rounded and unrounded ufuncs, argument names, direction and reference."""

    def __init__(self, theorem_id: str, output: str, theorems: tuple[str, ...]):
        spec = THEOREMS[theorem_id]["outputs"][output]
        self.theorem_id, self.output, self.theorems = theorem_id, output, theorems
        self.name = f"{'/'.join(theorems)} {output}"
        self.args = list(spec["args"])
        self.up = spec["rounding"] == "up"
        self.at_most_one = spec["at_most_one"]
        self.kernel_path = spec["kernel"]
        self.params = THEOREMS[theorem_id]["parameters"]

    def evaluate(self, point: tuple) -> tuple[float, float]:
        """(rounded, unrounded) kernel values at ``point``: the rounded one from the compiled kernel's scalar
        dispatcher (``accuracy.compiled``: the array loop's bits, without compiling the loop)."""
        return (float(accuracy.compiled(self.kernel_path, [tuple(point)])[0]),
                float(accuracy.unrounded(self.kernel_path, [tuple(point)])[0]))

    def reference(self, point: tuple, scan_limit: int = 20000):
        """The high-precision reference (mpf) or None where no reference is defined or affordable (T15/T16: an
        exact scan ending past n = ``scan_limit``)."""
        if self.theorem_id in ("T15", "T16"):
            from .kanon_checks import reference as kanon_reference

            k, beta, eps = point[0], point[1], point[2]
            eps1 = point[3] if len(point) > 3 else 0.0
            import numeric.kanon as K

            scanned = K.scan(k, beta, eps, eps1)
            if math.isnan(scanned[0]) or scanned[3] > scan_limit:
                return None  # inadmissible, or minutes of mpmath scan (quick slice: more than the slice)
            return kanon_reference(k, beta, eps, eps1)[0]
        if self.theorem_id == "T11" and self.output.endswith("_epsilon"):
            # the T11 inverse reference refines the kernel's own float result as a starting hint (it solves
            # the 50-digit SPEC equation; the hint only brackets the root)
            ref = accuracy.REFERENCES["T11"](self.output)(*point, value=self.evaluate(point)[1])
        elif self.theorem_id == "T7" and self.output == "delta" and point[2] > 1000:
            ref = group_closed_form(*point)  # the sum reference stops at k = 1000
        else:
            ref = accuracy.reference_function(self.theorem_id, self.output)(*point)
        if ref is None:
            return None
        if self.at_most_one:
            ref = min(mp.mpf(1), ref)
        return ref

    @property
    def stored_starts(self) -> bool:
        """T15/T16's start points are the accuracy check's own (k, β, ε, ε₁) points, whose 50-digit scans are
        in ``kanon_checks.reference``'s stored table: looked up there, not rescanned (≈ 4 s CPU a scan)."""
        return self.theorem_id in ("T15", "T16")

    def route(self) -> str:
        if self.theorem_id in ROUTE:
            return ROUTE[self.theorem_id]
        own = self.theorem_id in accuracy.REFERENCES
        return (f"{self.theorem_id}'s own reference (proofs_checks, registered with accuracy.register)" if own
                else f"mpmath SPEC form of {self.theorem_id} {self.output} (proofs_checks.references)")

    def starts(self, rng: np.random.Generator) -> list[tuple]:
        if self.theorem_id in ("T15", "T16"):
            from .kanon_checks import accuracy_points

            pts = [p for p in accuracy_points() if (p[3] != 0) == (self.theorem_id == "T16")]
            if not full():  # quick mode: the reference is a 50-digit scan over n ≥ k/γ; keep k small
                pts = [p for p in pts if p[0] <= 10] or pts
            return [p[:3] if self.theorem_id == "T15" else p for p in pts]
        if self.theorem_id in accuracy.GRIDS:
            return list(accuracy.GRIDS[self.theorem_id](self.output, rng))
        return accuracy.grid(self.theorem_id, self.args, rng)

    def perturb(self, point: tuple, scale: float, rng: np.random.Generator) -> tuple:
        """Move one coordinate by a random factor e^{±scale} (integers: by ±1 at least), inside its domain."""
        i = int(rng.integers(len(point)))
        name = self.args[i]
        lo, hi, _, _, integer = self.params[name]["domain"] if name in self.params else (0.0, math.inf, 0, 0, 0)
        x = point[i]
        factor = exact_points.exp(scale * exact_points.standard_normal(rng))  # CPU-independent (no libm, no ziggurat tail)
        if integer:
            y = float(max(1.0, round(x * factor)))
            if y == x:
                y = x + float(rng.choice([-1.0, 1.0]))
        elif x == 0.0:
            y = float(rng.choice([5e-324, 1e-300, 1e-10])) if scale > 1e-3 else 5e-324
        else:
            y = x * factor
            if scale < 1e-12:  # ulp steps
                y = x + float(rng.integers(-4, 5)) * math.ulp(x)
        y = min(max(y, lo), hi)
        if not math.isfinite(y):
            return point
        return point[:i] + (y,) + point[i + 1:]


def group_closed_form(epsilon: float, delta: float, k: float):
    """T7 δ·(e^{kε} − 1)/(e^ε − 1) in mpmath: kε exact (106 bits at 60 digits), expm1 without cancellation."""
    with mp.workdps(DIGITS):
        e, d, kk = mp.mpf(epsilon), mp.mpf(delta), mp.mpf(k)
        if d == 0 or kk == 1:
            return d
        if e == 0:
            return d * kk
        return d * mp.expm1(kk * e) / mp.expm1(e)


def targets() -> list[Target]:
    """Every kernel once (theorems sharing a hand-written kernel share a target, as in ``accuracy``)."""
    from .catalogue import load

    load()  # family grids and references register on import
    return [Target(ids[0], key[-1], tuple(ids)) for key, ids in accuracy.kernel_groups().items()]


# --------------------------------------------------------------------------------------------------
# scoring

def signed_rel(returned: float, ref, up: bool) -> float:
    """(returned − ref)/|ref| oriented so that negative is unsafe (below the exact value for a guarantee)."""
    with mp.workdps(DIGITS):
        r = mp.mpf(ref)
        diff = mp.mpf(returned) - r
        if not up:
            diff = -diff
        if r == 0:
            return 0.0 if diff == 0 else (math.inf if diff > 0 else -math.inf)
        return float(diff / abs(r))


def unsafe(returned: float, ref, up: bool, slack=0) -> bool:
    """True when ``returned`` is on the wrong side of ``ref`` (compared as exact binary numbers).

    ``slack`` is the reference's own precision (half a unit in the last stored decimal digit, ~1e-45
    relative, for stored cases; 0 for fresh references): a returned double within it of the exact value is
    either that value or more than 1e-16 relative away, so only doubles that coincide with the exact value
    (exact results) are protected from a false alarm."""
    if math.isnan(returned):
        return True
    with mp.workdps(DIGITS):
        if mp.isinf(ref):
            return not (math.isinf(returned) and (returned > 0) == (ref > 0))
        return (mp.mpf(returned) < ref - slack) if up else (mp.mpf(returned) > ref + slack)


class Search:
    """Accumulates the points of one kernel's search and its metrics."""

    def __init__(self, target: Target):
        self.target = target
        self.points = 0
        self.peak_ulps = 0.0
        self.worst_rel = math.inf
        self.worst = None
        self.unsound: list = []
        self.best_score = -math.inf
        self.best_point = None
        self.best_ref = None

    def add(self, point: tuple, ref, returned: float | None = None, raw: float | None = None,
            slack=0) -> float:
        """Record one point with its reference; returns its search score (−inf if invalid)."""
        t = self.target
        if returned is None:
            try:
                returned, raw = t.evaluate(point)
            except (ZeroDivisionError, ValueError, OverflowError):
                # numba raises on x/0 outside a kernel's domain (a perturbation may break a cross-constraint
                # such as m ≤ n that the public API validates): not a point of the kernel
                return -math.inf
        if ref is None or (math.isnan(raw) and math.isnan(returned)):
            return -math.inf
        self.points += 1
        bad = unsafe(returned, ref, t.up, slack)
        if bad:
            self.unsound.append((point, returned, mp.nstr(ref, 25)))
        if mp.isinf(ref):
            return -math.inf
        rel = signed_rel(returned, ref, t.up)
        if rel < 0 and not bad:  # below a stored reference only within its own precision: the exact value itself
            rel = 0.0
        if rel < self.worst_rel:
            self.worst_rel, self.worst = rel, point
        err = accuracy.ulps(raw, ref) if math.isfinite(raw) else math.inf
        if math.isfinite(err):
            self.peak_ulps = max(self.peak_ulps, abs(err))
        unsafe_ulps = -err if t.up else err  # raw below the reference for a guarantee
        score = max(unsafe_ulps, 0.5 * abs(err)) if math.isfinite(err) else -math.inf
        if score > self.best_score:
            self.best_score, self.best_point, self.best_ref = score, point, ref
        return score

    def metrics(self) -> dict:
        return {"kernel": self.target.name, "peak_ulps": self.peak_ulps,
                "worst_signed_rel": self.worst_rel if math.isfinite(self.worst_rel) else 0.0,
                "points": self.points, "worst": self.worst}


def _reference_or_none(target: Target, point: tuple, stored: bool = False, scan_limit: int = 20000):
    """The reference at ``point``: computed afresh (search points are new by design), or with ``stored`` the
    reference tables' value (the same function's value, recorded by ``refstore``; a missing entry is computed
    and counted as a miss)."""
    from . import refstore

    try:
        if stored:
            return target.reference(point)
        with refstore.live():  # the scan limit concerns T15/T16's tail scans only
            return target.reference(point, scan_limit) if target.stored_starts else target.reference(point)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None


def search(target: Target, seconds: float, seed: int = SEED, search_state: Search | None = None) -> Search:
    """Random starts then local search, for about ``seconds`` of CPU time (at least one point)."""
    state = search_state or Search(target)
    scan_limit = QUICK_SCAN_N if seconds <= QUICK_SECONDS else 20000
    rng = np.random.default_rng([seed, sum(map(ord, target.name))])
    pool = target.starts(rng)
    order = rng.permutation(len(pool))
    start = time.process_time()
    n_starts = max(1, len(pool) // 4)
    i = 0
    # phase 1: random starts (a quarter of the budget), phase 2: local search from the best point
    while i < min(n_starts, len(pool)) and (i == 0 or time.process_time() - start < 0.25 * seconds):
        point = tuple(float(x) for x in pool[order[i]])
        state.add(point, _reference_or_none(target, point, stored=target.stored_starts))
        i += 1
    scale = 1.0
    while state.best_point is not None and time.process_time() - start < seconds:
        candidate = target.perturb(state.best_point, scale, rng)
        before = state.best_score
        state.add(candidate, _reference_or_none(target, candidate, scan_limit=scan_limit))
        if state.best_score <= before:
            scale = scale * 0.7 if scale > 1e-15 else 1.0  # shrink to ulp steps, then restart wide
    return state


# --------------------------------------------------------------------------------------------------
# stored regression cases

def load_cases() -> list[dict]:
    if not DATA.exists():
        return []
    return json.loads(DATA.read_text())["cases"]


def replay(target: Target, state: Search, cases: list[dict]) -> int:
    """Re-evaluate every stored case of this kernel against its stored reference; returns how many."""
    n = 0
    for case in cases:
        if case["kernel"] != target.name:
            continue
        point = tuple(float.fromhex(h) for h in case["args"])
        with mp.workdps(DIGITS):
            ref = mp.mpf(case["reference"])
            mantissa = case["reference"].lower().split("e")[0].lstrip("-+")
            exponent = int(case["reference"].lower().split("e")[1]) if "e" in case["reference"].lower() else 0
            places = len(mantissa.split(".")[1]) if "." in mantissa else 0
            slack = mp.mpf(10) ** (exponent - places) / 2  # half a unit in the last stored digit
        state.add(point, ref, slack=slack)
        n += 1
    return n


def _adversarial_check(target: Target, cases_fn: Callable[[], list[dict]]):
    def run() -> Outcome:
        state = Search(target)
        stored = replay(target, state, cases_fn())
        state = search(target, FULL_SECONDS if full() else QUICK_SECONDS, search_state=state)
        m = state.metrics()
        detail = (f"{target.name}: {m['points']} points ({stored} stored cases + search), peak "
                  f"{m['peak_ulps']:.2f} ulps, worst signed relative error {m['worst_signed_rel']:.3g} at "
                  f"{m['worst']}")
        if state.unsound:
            detail += f"; {len(state.unsound)} UNSOUND, first {state.unsound[0]}"
        return Outcome(not state.unsound, detail, m)
    return run


def _register() -> None:
    for target in targets():
        add_check("adversarial", target.theorems, f"{target.name} adversarial search",
                  _adversarial_check(target, load_cases))


# --------------------------------------------------------------------------------------------------
# writing new cases

def record(states: list[Search], path: Path = DATA) -> int:
    """Add each kernel's best point (and every unsound one) to the data file, with a 60-digit reference."""
    data = json.loads(path.read_text()) if path.exists() else {"version": 1, "cases": []}
    have = {(c["kernel"], tuple(c["args"])) for c in data["cases"]}
    added = 0
    today = datetime.date.today().isoformat()
    for s in states:
        points = [s.best_point] + [u[0] for u in s.unsound]
        if s.worst is not None:
            points.append(s.worst)
        for point in points:
            if point is None:
                continue
            key = (s.target.name, tuple(float(x).hex() for x in point))
            if key in have:
                continue
            ref = _reference_or_none(s.target, point)
            if ref is None or mp.isinf(ref):
                continue
            data["cases"].append({"kernel": s.target.name, "theorem": s.target.theorem_id,
                                  "output": s.target.output, "args": list(key[1]),
                                  "reference": mp.nstr(ref, 45, min_fixed=1, max_fixed=0, strip_zeros=False),
                                  "route": s.target.route(), "date": today})
            have.add(key)
            added += 1
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return added


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=QUICK_SECONDS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--only", default=None, help="substring of the kernel names to search")
    parser.add_argument("--write", action="store_true", help="store each kernel's worst point")
    args = parser.parse_args(argv)
    states, bad = [], 0
    for target in targets():
        if args.only and args.only not in target.name:
            continue
        s = Search(target)
        replay(target, s, load_cases())
        s = search(target, args.seconds, seed=args.seed, search_state=s)
        states.append(s)
        m = s.metrics()
        bad += bool(s.unsound)
        print(f"{m['kernel']:<40} points {m['points']:>5}  peak {m['peak_ulps']:8.2f} ulps  worst signed "
              f"{m['worst_signed_rel']:+.3e} at {m['worst']}  best score {s.best_score:.2f} at {s.best_point}"
              + (f"  UNSOUND {s.unsound[:2]}" if s.unsound else ""), flush=True)
    if args.write:
        print(f"stored {record(states)} new cases in {DATA}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
else:
    _register()
