"""Accuracy and soundness of every kernel against high-precision references.

For each kernel output: evaluate the unrounded kernel (``*_raw``) and the rounded kernel on a grid that
spans every magnitude of its domain (1e-300 … 1e4 for ε, 1e-300 … 1 for rates, …) plus seeded random
log-uniform points; compare with ``proofs_checks.references`` in mpmath (never through float(mpf)).
Error is measured in ulps of the reference (one ulp = spacing of doubles at the reference; 2⁻¹⁰⁷⁴ for
subnormals).  A kernel passes when every rounded value is on the safe side of its reference (≥ for
guarantees, ≤ for base budgets) and the peak unrounded error is within the kernel's budget.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

import mpmath as mp
import numpy as np
from mpmath import libmp

from numeric import scalar_kernel
from numeric._generated.metadata import THEOREMS

from . import points as exact_points
from . import references
from .framework import CHECKS, Outcome, add_check

EPSILONS = [0.0, 1e-300, 1e-100, 1e-30, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0,
            50.0, 100.0, 300.0, 700.0, 708.9, 709.5, 710.0, 720.0, 745.0, 800.0, 1000.0, 1e4]
DELTAS = [0.0, 1e-300, 1e-100, 1e-20, 1e-10, 1e-6, 1e-3, 0.1, 0.5, 1.0]
RATES = [0.0, 5e-324, 1e-310, 1e-300, 1e-200, 1e-100, 1e-50, 1e-20, 1e-10, 1e-6, 1e-3, 0.01, 0.1, 0.3, 0.5,
         0.9, 0.999999, 1.0]
SIZES = [(0, 1), (1, 1), (1, 2), (1, 10), (3, 4), (3, 7), (10, 1000), (1, 10**6), (999, 1000),
         (10**6, 10**9), (10**6, 10**6), (50, 2), (7, 3)]
GROUPS = [1.0, 2.0, 3.0, 5.0, 10.0, 100.0, 1000.0]
RANDOM_POINTS = 300
THETAS = [1e-300, 1e-10, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0, 1e3]  # θ = Δ/σ or Δ/b (T8–T11)

# Families whose kernels need grids or references of their own register them from their check module
# (``register``); ``measure`` looks them up when it runs.
GRIDS: dict[str, Callable[[str, np.random.Generator], list[tuple]]] = {}  # id → grid(output, rng)
REFERENCES: dict[str, Callable[[str], Callable]] = {}  # id → reference(output) → f(*kernel arguments)


def register(theorems: tuple[str, ...], *, grid: Callable | None = None, reference: Callable | None = None,
             own_checks: bool = False) -> None:
    """Give ``theorems`` their own accuracy grid and/or reference (each called with the output name, the grid
    also with the seeded generator); ``own_checks=True`` drops the generic accuracy checks of these theorems
    because their module registers checks of its own."""
    for tid in theorems:
        if grid is not None:
            GRIDS[tid] = grid
        if reference is not None:
            REFERENCES[tid] = reference
    if own_checks:
        CHECKS[:] = [c for c in CHECKS if not (c.kind == "accuracy" and set(c.theorems) & set(theorems)
                                               and c.func.__qualname__.startswith("_accuracy_check"))]
# FWL sensitivity ratios (T18): r·ε straddles the kernel's branch points 709 and ε + ln p* ≈ 700
FWL_RATIOS = [0.0, 1e-300, 1e-20, 1e-3, 0.1, 1 / 3, 0.5, 0.7, 0.93, 0.999, 1.0]


def _log_uniform(rng, lo, hi, size):
    return exact_points.log_uniform(rng, lo, hi, size)  # the same bits on every CPU (keys stored references)


def grid(theorem_id: str, args: list[str], rng: np.random.Generator) -> list[tuple]:
    """Magnitude-spanning points for a kernel's arguments (fixed grid + seeded random points)."""
    axes = {"epsilon": EPSILONS, "delta": DELTAS, "rate": RATES, "k": GROUPS, "rate_to": RATES,
            "rate_from": [1e-300, 1e-20, 1e-3, 0.1, 0.5, 1.0],
            "p_star": RATES, "ratio": FWL_RATIOS, "theta": THETAS,
            "sensitivity": [0.0] + GROUPS}
    free = [a for a in args if a not in ("m", "n")]
    sizes = SIZES if "m" in args else [None]
    points = []
    for combo in itertools.product(*[axes[a] for a in free], sizes):
        values = dict(zip(free, combo[:-1]))
        if combo[-1] is not None:
            values["m"], values["n"] = map(float, combo[-1])
        points.append(values)
    # Seeded draws in a fixed order (one uniform per point and axis, so every kernel's points stay put when an
    # axis is added); only the axes this kernel uses are exponentiated (correctly rounded exp is not free).
    needed = set(args) | ({"n"} if "m" in args else set())

    def log_uniform(name: str, lo: float, hi: float):
        u = rng.random(RANDOM_POINTS)
        if name not in needed:
            return None
        a, b = exact_points.log(lo), exact_points.log(hi)
        return np.array([exact_points.exp(a + (b - a) * float(v)) for v in u])

    randoms = {name: log_uniform(name, 1e-300, hi) for name, hi in
               (("epsilon", 1e4), ("delta", 1.0), ("rate", 1.0), ("rate_to", 1.0), ("rate_from", 1.0))}
    k = log_uniform("k", 1.0, 1e4)
    n = log_uniform("n", 1.0, 1e9)
    randoms["k"] = None if k is None else np.floor(k)
    randoms["n"] = None if n is None else np.floor(n)
    u = rng.random(RANDOM_POINTS)
    randoms["m"] = None if n is None else np.floor(u * (randoms["n"] + 1))  # exact u, one rounded ×
    # drawn after the others so that the existing kernels' random points are unchanged
    randoms["p_star"] = log_uniform("p_star", 1e-300, 1.0)
    randoms["ratio"] = log_uniform("ratio", 1e-300, 1.0)
    sensitivity = log_uniform("sensitivity", 1.0, 1e4)  # T12 Δ
    randoms["sensitivity"] = None if sensitivity is None else np.floor(sensitivity)
    for i in range(RANDOM_POINTS):
        points.append({a: float(randoms[a][i]) for a in args})
    valid = []
    for p in points:
        if not all(a in p for a in args):
            continue
        if "rate_to" in p and p["rate_to"] > p["rate_from"]:
            p["rate_to"], p["rate_from"] = p["rate_from"], p["rate_to"]
            if p["rate_from"] == 0:
                continue
        if "m" in p and p["m"] > p["n"] and theorem_id == "T2":
            continue
        valid.append(tuple(p[a] for a in args))
    return valid


_SMALLEST_NORMAL = mp.mpf(2.2250738585072014e-308)


def ulps(value: float, ref: mp.mpf) -> float:
    """Signed error of ``value`` in units of the spacing of doubles at ``ref``.

    (value − ref)/unit rounded to nearest at max(current, 80) digits, then to the nearest double.  For a float
    ``value`` and an mpf ``ref`` (the measurements' case, ≈ 10⁵ calls per certificate) the same two roundings
    are made by mpmath's ``libmp`` directly (``from_float`` is exact, the division by a power of two is exact),
    without entering a ``workdps`` context per call: the same bits, ≈ 45 % less CPU."""
    if type(value) is float and isinstance(ref, mp.mpf):
        if ref == 0:
            return value / 5e-324
        unit = math.ulp(float(ref)) if abs(ref) >= _SMALLEST_NORMAL else 5e-324
        prec = libmp.dps_to_prec(max(mp.mp.dps, 80))
        diff = libmp.mpf_sub(libmp.from_float(value), ref._mpf_, prec, libmp.round_nearest)
        return libmp.to_float(libmp.mpf_div(diff, libmp.from_float(unit), prec, libmp.round_nearest),
                              rnd=libmp.round_nearest)
    with mp.workdps(max(mp.mp.dps, 80)):
        if ref == 0:
            return value / 5e-324
        unit = math.ulp(float(ref)) if abs(ref) >= _SMALLEST_NORMAL else 5e-324
        return float((mp.mpf(value) - ref) / unit)


def _on_safe_side(value: float, ref, up: bool) -> bool:
    """value ≥ ref (``up``) or value ≤ ref, exactly: what ``mp.mpf(value) >= ref`` decides (mpmath converts the
    float exactly and compares with ``libmp.mpf_ge``/``mpf_le``, false at nan), without building an mpf."""
    if isinstance(ref, mp.mpf):
        return (libmp.mpf_ge if up else libmp.mpf_le)(libmp.from_float(value), ref._mpf_)
    return mp.mpf(value) >= ref if up else mp.mpf(value) <= ref


@dataclass
class Report:
    kernel: str
    points: int
    peak_ulps: float
    rms_ulps: float
    worst: tuple
    budget: int
    unsound: list

    @property
    def passed(self) -> bool:
        return not self.unsound and self.peak_ulps <= self.budget


def reference_function(theorem_id: str, output: str, limit_m: int = 3000):
    own = REFERENCES[theorem_id](output) if theorem_id in REFERENCES else None
    if own is not None:  # a family's hook may leave some outputs to the generic SPEC-form reference
        return own
    if output == "delta" and theorem_id in ("T3", "T4"):
        def ref(epsilon, delta, m, n):
            if m > limit_m and n < m / 50:  # the mpmath sum would need ~m terms; skip these points
                return None
            return references.with_replacement_delta(epsilon, delta, m, n)
        return ref
    if output == "delta" and theorem_id == "T7":
        return lambda epsilon, delta, k: references.group_sum_delta(epsilon, delta, k) if k <= 1000 else None
    def spec(*args):
        try:
            return references.spec_value(theorem_id, output, *args)
        except ZeroDivisionError:  # SPEC form undefined (e.g. the inverse at p = 0): a proven convention
            return None
    return spec


def compiled(kernel_spec: str, points: list[tuple]) -> np.ndarray:
    """The compiled kernel ``kernel_spec`` (what the library runs) at ``points``, every argument a float64.

    Route: the kernel's serial array loop (``numeric.loops``) if this process has already built it — the
    certificate's property checks build many through the public array API, and the accuracy and adversarial
    checks run after the other checks of their group (``framework.groups_of``) — else the compiled scalar
    dispatcher (``numeric.scalar_kernel``), called once per point (≈ 1 µs a call).  Both routes run one
    compiled kernel: the same IEEE-754 operations in the same order under the same error model (numpy's),
    without fastmath (no contraction, no reassociation); the loop only handles more points per instruction.
    So their bits agree (tests/numeric/test_vector_width.py and tests/bounds/test_contract.py compare the
    routes; the certificate itself compares them over T1 δ's grid, ``check_loop_matches_scalar``).  Building
    an array loop only to measure a kernel would compile it once more, inlined and vectorised (≈ 2–4 s of CPU
    per closed form; issue 20: the loops were ≈ 35 % of a cold certificate's CPU)."""
    from numeric import loop_built

    if not points:
        return np.empty(0)
    return _loop_values(kernel_spec, points) if loop_built(kernel_spec) else _scalar_values(kernel_spec, points)


def _loop_values(kernel_spec: str, points: list[tuple]) -> np.ndarray:
    """``kernel_spec`` at ``points`` through a compiled array loop: one this process holds (its own, or the fused
    loop of a public (ε, δ) function computing it: ``numeric.built_kernel``), else its own, built now."""
    from numeric import built_kernel

    columns = [np.array(c, dtype=np.float64) for c in zip(*points)]
    with np.errstate(all="ignore"):
        return built_kernel(kernel_spec, len(columns))(*columns)


def _scalar_values(kernel_spec: str, points: list[tuple]) -> np.ndarray:
    """``kernel_spec`` at ``points`` through its compiled scalar dispatcher, one call per point."""
    function = scalar_kernel(kernel_spec)
    # float64 arguments only: one specialisation, as the loop has
    return np.array([function(*[float(x) for x in p]) for p in points], dtype=np.float64)


def unrounded(kernel_spec: str, points: list[tuple]) -> np.ndarray:
    """The unrounded twin ``<kernel>_raw`` at ``points``: what the accuracy measurement compares with the
    references (the library never calls it).

    The twin runs as plain Python (``numeric.pure``: the same source, the same IEEE operations in the same
    order and the same libm calls as the compiled code, hence the same bits — tests/proofs_checks/
    test_cpu_independence.py compares both routes on the accuracy grids), which saves compiling a second copy
    of every kernel (≈ 1–2 s of CPU for each inlined closed form; the whole accuracy grid of a kernel costs
    0.01–1 s as Python).  Where plain Python raises instead of returning numba's IEEE value (x/0, an
    overflowing ``math.exp``) or the kernel has no plain-Python twin, the compiled twin answers
    (:func:`compiled`)."""
    from numeric.pure import pure_function

    raw_spec = kernel_spec + "_raw"
    pure = pure_function(raw_spec)
    out = np.empty(len(points))
    todo = []
    memo = _UNROUNDED.setdefault(raw_spec, {})
    for i, point in enumerate(points):
        key = tuple(x.hex() if isinstance(x, float) else x for x in point)  # exact bits: −0.0 is not 0.0
        value = memo.get(key)
        if value is None and pure is not None:
            try:
                with np.errstate(all="ignore"):
                    value = pure(*point)
            except Exception:  # plain Python's ZeroDivisionError/OverflowError/ValueError: numba's IEEE value
                value = None
        if isinstance(value, (float, int)) and not isinstance(value, bool):
            out[i] = memo[key] = value
        else:
            todo.append(i)
    if todo:
        out[todo] = compiled(raw_spec, [points[i] for i in todo])
    return out


# Unrounded values already computed in this process, per twin: a searched kernel's reference (T9 ε, T10 σ,
# T11's inverses) is seeded with the twin's value at the point the measurement has just evaluated, and plain
# Python costs 0.4–6 ms a point there.
_UNROUNDED: dict[str, dict[tuple, float | int]] = {}


def measure(theorem_id: str, output: str, seed: int = 20261130) -> Report:
    spec = THEOREMS[theorem_id]["outputs"][output]
    args = spec["args"]
    rng = np.random.default_rng(seed)
    from .catalogue import load

    load()  # imports every check module, so family grids and references are registered
    points = GRIDS[theorem_id](output, rng) if theorem_id in GRIDS else grid(theorem_id, args, rng)
    if theorem_id in ("T3", "T4") and output == "delta":  # the mpmath sums are slow: a spread subset
        points = [p for p in points if p[2] <= 3000 or p[3] >= p[2] / 50][::3]
    raw = unrounded(spec["kernel"], points)
    rounded = compiled(spec["kernel"], points)
    ref_fn = reference_function(theorem_id, output)
    errors, worst, unsound = [], (0.0, None), []
    for i, point in enumerate(points):
        ref = ref_fn(*point)
        if ref is None:
            continue
        if spec["at_most_one"]:
            ref = min(mp.mpf(1), ref)
        if mp.isinf(ref):
            if not math.isinf(rounded[i]):
                unsound.append((point, float(rounded[i]), "reference is inf"))
            continue
        err = ulps(float(raw[i]), ref)
        errors.append(err)
        if abs(err) > abs(worst[0]):
            worst = (err, point)
        safe = _on_safe_side(float(rounded[i]), ref, spec["rounding"] == "up")
        if not safe:
            unsound.append((point, float(rounded[i]), mp.nstr(ref, 20)))
    arr = np.abs(np.array(errors)) if errors else np.zeros(1)
    return Report(f"{theorem_id} {output}", len(errors), float(arr.max()), float(np.sqrt((arr ** 2).mean())),
                  worst, spec["budget_ulps"], unsound)


def _accuracy_check(theorem_id: str, output: str):
    def run() -> Outcome:
        r = measure(theorem_id, output)
        detail = (f"{r.kernel}: {r.points} points, peak {r.peak_ulps:.2f} ulps (rms {r.rms_ulps:.2f}) at "
                  f"{r.worst[1]}, budget {r.budget}")
        if r.unsound:
            detail += f"; {len(r.unsound)} UNSOUND, first {r.unsound[0]}"
        return Outcome(r.passed, detail, {"peak_ulps": r.peak_ulps, "rms_ulps": r.rms_ulps, "points": r.points,
                                          "budget": r.budget, "worst": r.worst[1], "kernel": r.kernel})
    return run


def kernel_groups() -> dict[tuple, list[str]]:
    """Every kernel once, with the theorems that use it: generated kernels are per (theorem, output);
    theorems sharing a hand-written kernel (T3 and T4 share δ') share one entry.  The key ends with the output."""
    shared: dict[tuple, list[str]] = {}
    for theorem_id, meta in THEOREMS.items():
        for output, spec in meta["outputs"].items():
            generated = spec["kernel"].startswith("numeric._generated")
            key = (theorem_id, output) if generated else (spec["kernel"], tuple(spec["args"]), output)
            shared.setdefault(key, []).append(theorem_id)
    return shared


# Arguments where a kernel's branches and special cases live: the route check adds every combination of them.
SPECIAL_VALUES = (0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 0.5, 1.0, 709.0, 710.0, 1.7976931348623157e308,
                  math.inf, -math.inf, math.nan, -1.0)
# min(1, δ·q rounded up): a libm-free closed form the loops vectorise, with the exact product (an FMA where the
# CPU has one, Dekker's product elsewhere) whose bits must not depend on the route; its loop is built by T1's
# property checks anyway and its scalar dispatcher compiles in ≈ 0.2 s (T1 ε's would cost ≈ 2.5 s).
ROUTE_KERNEL = ("T1", "delta")


def routes_agree(kernel_spec: str, points: list[tuple]) -> tuple[int, list]:
    """Compare the compiled array loop with the compiled scalar dispatcher of ``kernel_spec`` at ``points``,
    bit for bit (every NaN equals every NaN); returns (points compared, the first few mismatches)."""
    loop, scalar = _loop_values(kernel_spec, points), _scalar_values(kernel_spec, points)
    same = (loop.view(np.int64) == scalar.view(np.int64)) | (np.isnan(loop) & np.isnan(scalar))
    bad = [(points[i], float(loop[i]), float(scalar[i])) for i in np.flatnonzero(~same)[:5]]
    return len(points), bad


def check_loop_matches_scalar() -> Outcome:
    """The accuracy and adversarial checks evaluate each compiled kernel on one route (``compiled``); this check
    keeps that sound by comparing the two routes of one representative kernel (``ROUTE_KERNEL``) over its
    whole accuracy grid and the special values, in every combination.  The other kernels' routes are compared
    by the tests (tests/numeric/test_vector_width.py, tests/bounds/test_contract.py)."""
    theorem_id, output = ROUTE_KERNEL
    spec = THEOREMS[theorem_id]["outputs"][output]
    pts = grid(theorem_id, spec["args"], np.random.default_rng(20261130))
    pts += list(itertools.product(SPECIAL_VALUES, repeat=len(spec["args"])))
    n, bad = routes_agree(spec["kernel"], pts)
    return Outcome(not bad, f"{theorem_id} {output}: array loop = scalar dispatcher bit for bit at {n} points"
                   + (f"; {len(bad)}+ DIFFER, first {bad[0]}" if bad else ""), {"points": n})


def _register() -> None:
    """One check per kernel (``kernel_groups``)."""
    for key, theorem_ids in kernel_groups().items():
        output = key[-1]
        add_check("accuracy", tuple(theorem_ids), f"{'/'.join(theorem_ids)} {output} accuracy",
                  _accuracy_check(theorem_ids[0], output))
    add_check("property", (ROUTE_KERNEL[0],), "compiled routes: the array loop gives the scalar dispatcher's bits "
              f"({' '.join(ROUTE_KERNEL)})", check_loop_matches_scalar)


_register()
