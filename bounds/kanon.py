"""Public API for safe k-anonymization after Poisson sampling: SPEC T15 (strongly safe), T16 (ε₁-safe), and
the inverse queries users ask of d(k, β, ε): the smallest k, the smallest ε, the largest β with d ≤ δ."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._core import _fmt, as_output, evaluate, evaluate_scalar, is_scalar, real, scalar_call, validate
from ._dask import supports_dask

MAX_N = 2.0 ** 40  # n_m ≈ k/γ must stay far below 2⁵³ (the kernel's integers are exact doubles)
_PRECONDITION_SLACK = 1e-12
GRID_POINTS = 600  # β grid of safe_k_anonymization_max_beta


def _where(shape: tuple, flat_index: int) -> str:
    if not shape:
        return ""
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat_index, shape)) + "]"


def _admissible_exact():
    """``numeric.kanon.admissible_exact`` (plain Python, exact rationals) without importing numba: run from the
    module's plain-Python twin (``numeric.pure``), the same source."""
    from numeric.pure import python_function

    return python_function("numeric.kanon:admissible_exact")


def smallest_admissible_epsilon(beta: float) -> float:
    """The smallest double ε with ε ≥ −ln(1 − β), decided exactly (T15's precondition)."""
    admissible_exact = _admissible_exact()

    e = -math.log1p(-beta)
    while admissible_exact(beta, math.nextafter(e, 0.0), 0.0):
        e = math.nextafter(e, 0.0)
    while not admissible_exact(beta, e, 0.0):
        e = math.nextafter(e, math.inf)
    return e


def _check_precondition(function: str, theorem_id: str, k: np.ndarray, beta: np.ndarray, eps: np.ndarray,
                        eps1: np.ndarray | None) -> None:
    """ε − ε₁ ≥ −ln(1 − β) exactly (floats where clear, exact arithmetic within 10⁻¹² of the threshold), and
    k/γ small enough for exact integer arithmetic."""
    admissible_exact = _admissible_exact()

    where = f"(SPEC {theorem_id}, Li, Qardaji, Su Thm {5 if theorem_id == 'T15' else 6})"
    b, e = beta.ravel(), eps.ravel()
    e1 = np.zeros_like(e) if eps1 is None else eps1.ravel()
    with np.errstate(all="ignore"):
        diff = e - e1
        threshold = -np.log1p(-b)
        clear_bad = diff < threshold * (1 - _PRECONDITION_SLACK)
        near = ~clear_bad & (diff <= threshold * (1 + _PRECONDITION_SLACK))
    bad = clear_bad.copy()
    for i in np.flatnonzero(near):
        bad[i] = not admissible_exact(float(b[i]), float(e[i]), float(e1[i]))
    if eps1 is not None:
        bad |= np.isinf(e1) & np.isinf(e)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        idx = _where(eps.shape, i)
        lowest = smallest_admissible_epsilon(float(b[i]))
        if eps1 is None:
            raise ValueError(
                f"{function}: epsilon{idx} = {_fmt(float(e[i]))} is below −ln(1 − beta) = {_fmt(-math.log1p(-b[i]))} for "
                f"beta = {_fmt(b[i])}; the theorem needs ε ≥ −ln(1 − β) (decided exactly; the smallest admissible "
                f"double is {_fmt(lowest)}) {where}")
        raise ValueError(
            f"{function}: epsilon{idx} − epsilon1 = {_fmt(e[i])} − {_fmt(e1[i])} is below −ln(1 − beta) = "
            f"{_fmt(-math.log1p(-b[i]))} for beta = {_fmt(b[i])}; the theorem needs ε ≥ −ln(1 − β) + ε₁ {where}")
    with np.errstate(all="ignore"):
        gamma = -np.expm1(np.log1p(-b) - (e - e1))
        big = k.ravel() / gamma > MAX_N
    if big.any():
        i = int(np.flatnonzero(big)[0])
        raise ValueError(f"{function}: k/γ = {k.ravel()[i] / gamma[i]:.3g} exceeds 2^40 (k = {_fmt(k.ravel()[i])}, "
                         f"beta = {_fmt(b[i])}): the scan over n would leave the exactly representable integers {where}")


def _d(function: str, theorem_id: str, **params: Any) -> Any:
    scalar = is_scalar(*params.values())
    arrays = validate(function, theorem_id, **params)
    _check_precondition(function, theorem_id, arrays["k"], arrays["beta"], arrays["epsilon"],
                        arrays.get("epsilon1"))
    if scalar:  # bounds._core's scalar route (plain Python for the first calls, then the @njit kernel)
        return evaluate_scalar(theorem_id, "delta", {name: float(a) for name, a in arrays.items()})
    return as_output(evaluate(theorem_id, "delta", arrays), scalar)


@supports_dask(pair=False)
def safe_k_anonymization_delta(k: ArrayLike, beta: ArrayLike, epsilon: ArrayLike) -> Any:
    r"""δ = d(k, β, ε) of strongly-safe k-anonymization after Poisson sampling (SPEC T15).

    Returns an upper bound on d(k, β, ε), rounded up (never below the exact value for the given doubles),
    or raises.

    .. math::

        d(k, \beta, \varepsilon) = \max_{n \ge n_m} \sum_{j > \gamma n}^{n} \binom{n}{j}\beta^j(1-\beta)^{n-j},
        \qquad \gamma = \frac{e^{\varepsilon} - 1 + \beta}{e^{\varepsilon}}, \qquad
        n_m = \Bigl\lceil \frac{k}{\gamma} - 1 \Bigr\rceil

    Sampling each tuple with probability β, then any strongly-safe k-anonymization (a generalisation fixed
    independently of the data, then every generalised value occurring fewer than k times suppressed) is
    (ε, d(k, β, ε))-DP.  Relation: add/remove.  Provenance: *source* — Li, Qardaji, Su 2012, Thm 5.
    Not tight (the exact worst case is 1.4%–100% of d).

    The strict inequality j > γn and n_m are decided exactly for the given doubles (exact arithmetic when
    γn is within 10⁻¹³ of an integer, e.g. at ε = −ln(1 − β)); the scan over n is stopped by a proof
    (Chernoff: every later tail is ≤ exp(−n·KL(γ‖β)) ≤ the running maximum), never by a fixed window.
    See ``numeric.kanon`` for the algorithm and the error bound.

    Parameters
    ----------
    k : array_like
        Integer k ≥ 1 (k/γ ≤ 2⁴⁰).
    beta : array_like
        Sampling rate, 0 < β < 1.
    epsilon : array_like
        ε ≥ −ln(1 − β) (checked exactly), inf allowed (δ = 0).

    Returns
    -------
    float or ndarray
        δ, broadcast over the inputs.

    Raises
    ------
    ValueError
        NaN, β ∉ (0, 1), k < 1 or not an integer, ε < −ln(1 − β) — the message says which precondition failed.

    Examples
    --------
    >>> import bounds
    >>> d = bounds.safe_k_anonymization_delta(20, 0.2, 2.0)
    >>> 1.58e-12 < d < 1.6e-12
    True
    """
    return _d("safe_k_anonymization_delta", "T15", k=k, beta=beta, epsilon=epsilon)


@supports_dask(pair=False)
def eps1_safe_k_anonymization_delta(k: ArrayLike, beta: ArrayLike, epsilon: ArrayLike, epsilon1: ArrayLike,
                                    *, scheme_chosen_on: str = "unsampled") -> Any:
    r"""δ = d(k, β, ε − ε₁) of ε₁-safe k-anonymization after Poisson sampling (SPEC T16).

    **Valid only when the generalisation scheme is chosen by an ε₁-DP algorithm run on the UNSAMPLED data.**
    If the scheme is chosen on the sample, the bound is false (an exponential-mechanism choice on the sample
    reaches exact δ = 0.2663 against the claimed 0.125 at k = 3, β = 0.5, ε = 6, ε₁ = 2 with 200 groups;
    ``proofs_checks.kanon_checks`` computes it), so ``scheme_chosen_on="sample"`` raises instead of
    returning a number.

    Returns an upper bound on d(k, β, ε − ε₁) (ε − ε₁ taken exactly), rounded up, or raises.

    .. math::

        \delta = d(k, \beta, \varepsilon - \varepsilon_1), \qquad \varepsilon \ge -\ln(1 - \beta) + \varepsilon_1

    Relation: add/remove.  Provenance: *source* — Li, Qardaji, Su 2012, Thm 6.

    Parameters
    ----------
    k, beta : array_like
        As in :func:`safe_k_anonymization_delta`.
    epsilon : array_like
        Total ε ≥ −ln(1 − β) + ε₁ (checked exactly).
    epsilon1 : array_like
        ε₁ ≥ 0 of the scheme-selection algorithm (finite).
    scheme_chosen_on : {"unsampled", "sample"}
        Where the ε₁-DP scheme choice is made; only ``"unsampled"`` is covered by the theorem.

    Returns
    -------
    float or ndarray
        δ, broadcast over the inputs.

    Raises
    ------
    ValueError
        A bad parameter, ε − ε₁ < −ln(1 − β), or ``scheme_chosen_on != "unsampled"``.

    Examples
    --------
    >>> import bounds
    >>> d = bounds.eps1_safe_k_anonymization_delta(10, 0.2, 1.0, 0.1)   # d(10, 0.2, 0.9)
    >>> d == bounds.safe_k_anonymization_delta(10, 0.2, 1.0 - 0.1) or d >= bounds.safe_k_anonymization_delta(10, 0.2, 0.9)
    True
    """
    if scheme_chosen_on != "unsampled":
        raise ValueError(
            "eps1_safe_k_anonymization_delta: the bound (SPEC T16, Li, Qardaji, Su Thm 6) holds only when the "
            "generalisation scheme is chosen by an ε₁-DP algorithm on the UNSAMPLED data; with "
            f"scheme_chosen_on={scheme_chosen_on!r} it is false (exact δ = 0.2663 > d = 0.125 at k = 3, β = 0.5, "
            "ε = 6, ε₁ = 2 for an exponential-mechanism choice on the sample), so no number is returned")
    return _d("eps1_safe_k_anonymization_delta", "T16", k=k, beta=beta, epsilon=epsilon, epsilon1=epsilon1)


# ------------------------------------------------------------------------------------------------------
# inverse queries (scalar searches over the exact, rounded-up d; vectorised by looping)

def _d_scalar(k: float, beta: float, epsilon: float) -> float:
    return scalar_call("numeric.kanon:delta", [float(k), float(beta), float(epsilon)])


def _target(function: str, delta: Any, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The target δ as a float array broadcast with the validated parameters (which are broadcast too)."""
    target = np.asarray(real(function, "delta", delta, "(SPEC T15)"), dtype=np.float64)
    try:
        shape = np.broadcast_shapes(target.shape, *(a.shape for a in arrays.values()))
    except ValueError:
        raise ValueError(f"{function}: parameter shapes do not broadcast: delta {target.shape}, "
                         + ", ".join(f"{k} {a.shape}" for k, a in arrays.items()) + " (SPEC T15)") from None
    for name in arrays:
        arrays[name] = np.broadcast_to(arrays[name], shape)
    return np.broadcast_to(target, shape)


def _check_target(function: str, delta: np.ndarray) -> None:
    bad = np.isnan(delta) | (delta <= 0) | (delta > 1)
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(f"{function}: delta{_where(delta.shape, i)} = {_fmt(delta.ravel()[i])} must lie in (0, 1] "
                         "(d > 0 for every finite ε) (SPEC T15)")


def _loop(func, arrays: dict[str, np.ndarray], scalar: bool) -> Any:
    shape = np.broadcast(*arrays.values()).shape
    flat = [np.broadcast_to(a, shape).ravel() for a in arrays.values()]
    out = np.array([func(*(float(c[i]) for c in flat)) for i in range(int(np.prod(shape)))], dtype=np.float64)
    return float(out[0]) if scalar else out.reshape(shape)


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def _float(bits: int) -> float:
    return float(np.int64(bits).view(np.float64))


@supports_dask(pair=False, dtype=np.int64)
def safe_k_anonymization_min_k(*, delta: ArrayLike, beta: ArrayLike, epsilon: ArrayLike) -> Any:
    r"""The smallest integer k with d(k, β, ε) ≤ δ (SPEC T15 inverted in k).

    Returns k such that the rounded-up (hence exact) d(k, β, ε) ≤ δ, and d(k − 1, β, ε) rounded up exceeds
    δ: the answer is on the safe side (at worst one larger than the exact smallest k when d(k − 1) is
    within rounding of δ), or raises.  d is nonincreasing in k (n_m grows with k), so the search is a
    binary search.

    Keyword-only: the inverse queries take their arguments by name (``delta=``, ``beta=``, …) because
    their order would depart from the forward formula d(k, β, ε); a positional call is a TypeError.

    SPEC T15; Li, Qardaji, Su 2012 (arXiv:1101.2604), Thm 5.  Provenance: *source*.

    Parameters
    ----------
    delta : array_like
        Target δ ∈ (0, 1].
    beta, epsilon : array_like
        As in :func:`safe_k_anonymization_delta` (ε ≥ −ln(1 − β), checked exactly).

    Returns
    -------
    int or ndarray of int64
        k.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain, ε < −ln(1 − β), or no k with k/γ ≤ 2⁴⁰ reaches δ.
    TypeError
        If called with positional arguments.

    Examples
    --------
    >>> import bounds
    >>> k = bounds.safe_k_anonymization_min_k(delta=1e-6, beta=0.2, epsilon=1.0)
    >>> k, bounds.safe_k_anonymization_delta(k, 0.2, 1.0) <= 1e-6 < bounds.safe_k_anonymization_delta(k - 1, 0.2, 1.0)
    (14, True)
    """
    function = "safe_k_anonymization_min_k"
    scalar = is_scalar(delta, beta, epsilon)
    arrays = validate(function, "T15", k=1.0, beta=beta, epsilon=epsilon)
    target = _target(function, delta, arrays)
    _check_target(function, target)
    _check_precondition(function, "T15", arrays["k"], arrays["beta"], arrays["epsilon"], None)

    def one(t: float, b: float, e: float) -> float:
        if _d_scalar(1, b, e) <= t:
            return 1.0
        gamma = -math.expm1(math.log1p(-b) - e)
        lo, hi = 1.0, 2.0  # d(lo) > t
        while _d_scalar(hi, b, e) > t:
            lo, hi = hi, 2 * hi
            if hi / gamma > MAX_N:
                raise ValueError(f"{function}: no k with k/γ ≤ 2^40 reaches delta = {_fmt(t)} (beta = {_fmt(b)}, "
                                 f"epsilon = {_fmt(e)}) (SPEC T15)")
        while hi - lo > 1:
            mid = math.floor((lo + hi) / 2)
            if _d_scalar(mid, b, e) <= t:
                hi = mid
            else:
                lo = mid
        return hi

    k = _loop(one, {"delta": target, "beta": arrays["beta"], "epsilon": arrays["epsilon"]}, scalar)
    return int(k) if scalar else k.astype(np.int64)  # k ≤ 2^40: exact as a float and as an int


@supports_dask(pair=False)
def safe_k_anonymization_min_epsilon(*, k: ArrayLike, beta: ArrayLike, delta: ArrayLike) -> Any:
    r"""The smallest ε with d(k, β, ε) ≤ δ (SPEC T15 inverted in ε), rounded up to a double.

    d is a right-continuous, nonincreasing step function of ε: it only changes where γn crosses an
    integer, so the exact minimiser is ε* = −ln(1 − β) or of the form ε* = ln((1 − β)n/(n − m')) (γ = m'/n
    exactly, where the strict inequality j > m' holds).  The result is the smallest double ε at which the
    rounded-up d (computed with exact integer decisions) is ≤ δ, found by bisection over the ordered
    doubles: it is the first double ≥ ε* (safe side), or raises.

    Keyword-only: the inverse queries take their arguments by name (``delta=``, ``beta=``, …) because
    their order would depart from the forward formula d(k, β, ε); a positional call is a TypeError.

    SPEC T15; Li, Qardaji, Su 2012 (arXiv:1101.2604), Thm 5.  Provenance: *source*.

    Parameters
    ----------
    k : array_like
        Integer k ≥ 1.
    beta : array_like
        0 < β < 1.
    delta : array_like
        Target δ ∈ (0, 1]; it must be at least β^k, the limit of d as ε → ∞.

    Returns
    -------
    float or ndarray
        ε (≥ −ln(1 − β)).

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain, or δ < β^k (no ε reaches it).
    TypeError
        If called with positional arguments.

    Examples
    --------
    >>> import bounds
    >>> e = bounds.safe_k_anonymization_min_epsilon(k=20, beta=0.2, delta=1e-6)
    >>> round(e, 6), bounds.safe_k_anonymization_delta(20, 0.2, e) <= 1e-6
    (0.624154, True)
    """
    function = "safe_k_anonymization_min_epsilon"
    scalar = is_scalar(k, beta, delta)
    arrays = validate(function, "T15", k=k, beta=beta, epsilon=0.0)
    target = _target(function, delta, arrays)
    _check_target(function, target)

    def one(kk: float, b: float, t: float) -> float:
        lo = smallest_admissible_epsilon(b)
        if -math.expm1(math.log1p(-b) - lo) and kk / -math.expm1(math.log1p(-b) - lo) > MAX_N:
            raise ValueError(f"{function}: k/γ exceeds 2^40 at the smallest ε (k = {_fmt(kk)}, beta = {_fmt(b)}) (SPEC T15)")
        if _d_scalar(kk, b, lo) <= t:
            return lo
        hi = max(2 * lo, 1e-3)
        while _d_scalar(kk, b, hi) > t:
            if hi > 700:
                raise ValueError(f"{function}: delta = {_fmt(t)} is below lim_(ε→∞) d = β^k = {_fmt(b ** kk)} for k = {_fmt(kk)}, "
                                 f"beta = {_fmt(b)}: no ε reaches it (SPEC T15)")
            lo, hi = hi, 2 * hi
        a, z = _bits(lo), _bits(hi)  # d(a) > t ≥ d(z); positive doubles are ordered like their bits
        while z - a > 1:
            mid = (a + z) // 2
            if _d_scalar(kk, b, _float(mid)) <= t:
                z = mid
            else:
                a = mid
        return _float(z)

    return _loop(one, {"k": arrays["k"], "beta": arrays["beta"], "delta": target}, scalar)


@supports_dask(pair=False)
def safe_k_anonymization_max_beta(*, k: ArrayLike, epsilon: ArrayLike, delta: ArrayLike) -> Any:
    r"""The largest sampling rate β with d(k, β, ε) ≤ δ (SPEC T15 inverted in β), rounded down to a double.

    β ranges over (0, 1 − e^{−ε}] (the precondition ε ≥ −ln(1 − β), decided exactly).  d is increasing in
    β between jumps but **not monotone**: it drops where some γn crosses an integer (e.g. k = 1, ε = 0.5:
    d = 0.3204 at β = 0.175633, 0.1758 at β = 0.175764).  The search therefore evaluates d on a geometric
    grid of β from 10⁻¹²(1 − e^{−ε}) upward, takes the first grid point with d > δ and bisects over the
    ordered doubles between it and its predecessor.  The returned β always satisfies d(k, β, ε) ≤ δ exactly
    (rounded-up d with exact integer decisions: safe side) and the next double does not; it is the first
    crossing up to the grid's resolution (a narrower excursion of d above δ between two grid points could
    be missed; the returned β is still safe).  Raises if no β on the grid reaches δ.

    Keyword-only: the inverse queries take their arguments by name (``delta=``, ``beta=``, …) because
    their order would depart from the forward formula d(k, β, ε); a positional call is a TypeError.

    SPEC T15; Li, Qardaji, Su 2012 (arXiv:1101.2604), Thm 5.  Provenance: *source*.

    Parameters
    ----------
    k : array_like
        Integer k ≥ 1.
    epsilon : array_like
        ε > 0 (finite).
    delta : array_like
        Target δ ∈ (0, 1].

    Returns
    -------
    float or ndarray
        β.

    Raises
    ------
    ValueError
        If a parameter is NaN or outside its domain, ε is 0 or infinite, or no β on the grid reaches δ.
    TypeError
        If called with positional arguments.

    Examples
    --------
    >>> import bounds
    >>> b = bounds.safe_k_anonymization_max_beta(k=20, epsilon=1.0, delta=1e-6)
    >>> round(b, 6), bounds.safe_k_anonymization_delta(20, b, 1.0) <= 1e-6
    (0.281794, True)
    """
    admissible_exact = _admissible_exact()

    function = "safe_k_anonymization_max_beta"
    scalar = is_scalar(k, epsilon, delta)
    arrays = validate(function, "T15", k=k, beta=0.5, epsilon=epsilon)
    target = _target(function, delta, arrays)
    _check_target(function, target)
    eps = arrays["epsilon"]
    if np.any((eps == 0) | np.isinf(eps)):
        i = int(np.flatnonzero(((eps == 0) | np.isinf(eps)).ravel())[0])
        raise ValueError(f"{function}: epsilon{_where(eps.shape, i)} = {_fmt(eps.ravel()[i])} must be finite and > 0 "
                         "(ε = 0 admits no β > 0; ε = inf gives δ = 0 for every β) (SPEC T15)")

    def one(kk: float, e: float, t: float) -> float:
        top = -math.expm1(-e)  # 1 − e^{−ε}: the largest admissible β, up to rounding
        if e >= 40.0:
            # −ln(1 − β) at the largest double below 1 is ln 2⁵³ ≈ 36.7 ≤ ε: every double β < 1 is admissible
            # (and the exact decision would overflow its decimal context for ε ≳ 2·10⁶)
            top = math.nextafter(1.0, 0.0)
        else:
            while top > 0 and not admissible_exact(top, e, 0.0):
                top = math.nextafter(top, 0.0)
            while math.nextafter(top, 1.0) < 1.0 and admissible_exact(math.nextafter(top, 1.0), e, 0.0):
                top = math.nextafter(top, 1.0)
        if kk / -math.expm1(math.log1p(-top * 1e-12) - e) > MAX_N:
            raise ValueError(f"{function}: k/γ exceeds 2^40 (k = {_fmt(kk)}, epsilon = {_fmt(e)}) (SPEC T15)")
        # d is NOT monotone in β (it drops where γn crosses an integer): look for the first crossing on a
        # geometric grid from top·10⁻¹² upward, then bisect between the last grid point with d ≤ δ and it
        grid = top * np.logspace(-12, 0, GRID_POINTS)
        grid[-1] = top
        values = [_d_scalar(kk, float(b), e) for b in grid]
        if values[0] > t:
            raise ValueError(f"{function}: no β ≥ {_fmt(grid[0])} reaches delta = {_fmt(t)} for k = {_fmt(kk)}, "
                             f"epsilon = {_fmt(e)} (SPEC T15)")
        above = [i for i, v in enumerate(values) if v > t]
        if not above:
            return top
        lo, top = float(grid[above[0] - 1]), float(grid[above[0]])
        a, z = _bits(lo), _bits(top)  # d(a) ≤ t < d(z)
        while z - a > 1:
            mid = (a + z) // 2
            if _d_scalar(kk, _float(mid), e) <= t:
                a = mid
            else:
                z = mid
        return _float(a)

    return _loop(one, {"k": arrays["k"], "epsilon": eps, "delta": target}, scalar)
