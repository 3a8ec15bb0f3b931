"""Kernels of certified composition (issue 12; proof in ``docs/composition_proof.md``).

A one-step pair (P, Q) is described by its privacy-loss distribution (PLD) ω, the law of L = ln(dP/dQ)
under P (mass at +∞ where Q = 0).  Its hockey-stick curve is H_ω(c) = ∫(1 − c·e^{−w})₊ dω(w) = δ(ln c).
For nonnegative measures ω⁺, ω⁻ with H_{ω⁻} ≤ H_ω ≤ H_{ω⁺} for every c > 0, the T-fold (or mixed)
convolutions satisfy the same inequalities (Fubini, one coordinate at a time: proof note, Lemma 1).  This
module builds such ω± on the grid ε_k = k·h (h a power of two, so every node is an exact float):

- **upper** (``upper_vector``): the chordal interpolation of δ(γ), γ = e^ε, at the nodes ("connect the
  dots", Doroshenko et al. 2022): δ is convex in γ, so the chord lies above it.  The node values are the
  upward-rounded SPEC T8/T9/T11 profiles; the atoms' masses are second differences, computed in floats
  with a proven error bound that is added (negative masses clipped to 0: both only raise the curve).
- **lower** (``lower_vector``): a partition of the real line of outputs x into cells C, each contracted
  to one outcome (post-processing: the data-processing inequality, H only falls) whose loss
  L*(C) = ln(P(C)/Q(C)) is then rounded *down* to a node ε_k (H only falls).  The cells are chosen
  greedily so that L*(C) lies just above a node — the rounding then costs almost nothing, which makes the
  lower side second order like the upper one.  Each cell's P(C) and Q(C) are enclosed (Φ or Laplace
  differences with a proven error bound); a cell is kept only if P(C)⁻ ≥ γ_k⁺·Q(C)⁺ certifies L* ≥ ε_k.

Mechanisms in x-space (the loss is non-decreasing in x): K is the standard Gaussian or Laplace CDF,
P = (1 − a)K(x) + a·K(x − s_P), Q = (1 − b)K(x) + b·K(x − s_Q).
REMOVE (and rate 1): a = q, s_P = θ, b = 0.  ADD (reflected, y = −x): a = 0, b = q, s_Q = −θ.
"""
from __future__ import annotations

import math
import weakref

import numpy as np
from numeric.jit import njit

from .subsampled_profiles import ADD, GAUSSIAN, LAPLACE, REMOVE, delta_up  # noqa: F401

U = 2.0 ** -53
TINY = 2.0 ** -1074  # the smallest subnormal: absolute error of one rounded product/quotient is ≤ TINY/2
SQRT_HALF = 0.7071067811865476
ERFC_ULPS = 8.0  # assumed accuracy of libm erfc/exp/expm1/log1p in units of U (glibc: ≤ 1–2 ulp)


# ----------------------------------------------------------------------------------------------------
# enclosures of probability masses
# ----------------------------------------------------------------------------------------------------

TAIL_ABS = 2.0 * (ERFC_ULPS + 1.0) * 2.0 ** -1074  # absolute slack of a tail near/below underflow


@njit(cache=True)
def _upper_tail(mech: int, z: float):
    """(K̄(z) = 1 − K(z) for z ≥ 0 or K(z) for z < 0 — the tail on z's side —, relative error bound).

    The absolute part of the bound (a tail that is subnormal or underflows to 0: libm's c ulps and the
    halving are then absolute, ≤ (c + 1)·2⁻¹⁰⁷⁴) is the caller's ``TAIL_ABS``.
    """
    t = abs(z)
    if mech == GAUSSIAN:
        v = 0.5 * math.erfc(t * SQRT_HALF)
        # libm erfc (ERFC_ULPS), the halving (exact unless subnormal: TAIL_ABS), and the argument: z itself
        # is a rounded difference (U relative), the product t·fl(1/√2) adds fl(1/√2)'s error (0.62U) and its
        # own rounding (U), so ≤ 3U relative in t, which moves ln K̄ by ≤ (t + 1)·t·3U (Mills ratio
        # φ(t)/K̄(t) ≤ (t + √(t² + 4))/2 ≤ t + 1); 3.1 covers the second-order terms (issue 19: the
        # earlier 2(t + 2)t charge was short by up to 34U at t = 12)
        rel = (ERFC_ULPS + 2.0 + 3.1 * (t + 1.0) * t) * U
    else:
        # z rounded (U relative): ln K̄ moves by ≤ t·U; exp's c ulps
        v = 0.5 * math.exp(-t)
        rel = (ERFC_ULPS + 2.0 + 1.1 * t) * U
    return v, rel


@njit(cache=True)
def _tail_at(mech: int, x: float, s: float):
    """(z, K̄ on z's side, its relative error bound) at z = x − s (the tail is 0 at z = ±inf, NaN kept in z)."""
    z = x - s
    if z != z or z == np.inf or z == -np.inf:
        return z, 0.0, 0.0
    t, r = _upper_tail(mech, z)
    return z, t, r


@njit(cache=True)
def _mass_from_tails(za: float, ta: float, ra: float, zb: float, tb: float, rb: float):
    """K(b − s) − K(a − s) from the two tails of ``_tail_at``: (value, absolute error bound)."""
    if za != za or zb != zb:
        return 0.0, 1.0
    if za >= zb:
        return 0.0, 0.0
    if za >= 0.0:
        v = ta - tb
        return v, ra * ta + rb * tb + U * abs(v) + 2.0 * TAIL_ABS
    if zb <= 0.0:
        v = tb - ta
        return v, ra * ta + rb * tb + U * abs(v) + 2.0 * TAIL_ABS
    v = (1.0 - ta) - tb
    return v, ra * ta + rb * tb + 3.0 * U + 2.0 * TAIL_ABS


@njit(cache=True)
def shifted_mass(mech: int, a: float, b: float, s: float):
    """Enclosure of K(b − s) − K(a − s) for a < b (±inf allowed): (value, absolute error bound).

    The shifts a − s, b − s are rounded (relative 2⁻⁵³ each; covered by the tail's argument term, which is
    charged for 2U relative), the two tails come from ``_upper_tail`` on the side where they are small,
    so the difference is a difference of two small numbers (no cancellation beyond its own size).
    """
    za, ta, ra = _tail_at(mech, a, s)
    zb, tb, rb = _tail_at(mech, b, s)
    return _mass_from_tails(za, ta, ra, zb, tb, rb)


@njit(cache=True)
def cell_tails(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, x: float):
    """The tails at one cell boundary x for the shifts 0, s_P (if a > 0) and s_Q (if b > 0): computed once per
    boundary and shared by every cell that ends or starts there (issue 21: the greedy search evaluated the
    left boundary's tails again at each Newton step; the values are the same bits either way)."""
    z0, t0, r0 = _tail_at(mech, x, 0.0)
    z1, t1, r1 = (_tail_at(mech, x, s_p) if a_w > 0.0 else (0.0, 0.0, 0.0))
    z2, t2, r2 = (_tail_at(mech, x, s_q) if b_w > 0.0 else (0.0, 0.0, 0.0))
    return (z0, t0, r0, z1, t1, r1, z2, t2, r2)


@njit(cache=True)
def pair_masses_from(a_w: float, b_w: float, ta, tb):
    """``pair_masses`` from the ``cell_tails`` of the cell's two boundaries (the same operations)."""
    m0, e0 = _mass_from_tails(ta[0], ta[1], ta[2], tb[0], tb[1], tb[2])
    if a_w > 0.0:
        m1, e1 = _mass_from_tails(ta[3], ta[4], ta[5], tb[3], tb[4], tb[5])
        one = 1.0 - a_w  # error ≤ U·one
        p = one * m0 + a_w * m1
        ep = one * e0 + a_w * e1 + 4.0 * U * (one * m0 + a_w * m1) + 4.0 * TINY
    else:
        p, ep = m0, e0
    if b_w > 0.0:
        m2, e2 = _mass_from_tails(ta[6], ta[7], ta[8], tb[6], tb[7], tb[8])
        one = 1.0 - b_w
        qv = one * m0 + b_w * m2
        eq = one * e0 + b_w * e2 + 4.0 * U * (one * m0 + b_w * m2) + 4.0 * TINY
    else:
        qv, eq = m0, e0
    return max(p - ep, 0.0), p + ep, max(qv - eq, 0.0), qv + eq


@njit(cache=True)
def pair_masses(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, x0: float, x1: float):
    """Enclosures (P(C) lower, P(C) upper, Q(C) lower, Q(C) upper) of the cell C = (x0, x1]."""
    return pair_masses_from(a_w, b_w, cell_tails(mech, a_w, s_p, b_w, s_q, x0),
                            cell_tails(mech, a_w, s_p, b_w, s_q, x1))


# ----------------------------------------------------------------------------------------------------
# the loss function and its inverse (guidance only: soundness never depends on their accuracy)
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def _g(mech: int, s: float, x: float) -> float:
    """ln(k(x − s)/k(x)) for the standard density k."""
    if mech == GAUSSIAN:
        return s * x - 0.5 * s * s
    return abs(x) - abs(x - s)


@njit(cache=True)
def _g_inv(mech: int, s: float, v: float) -> float:
    if mech == GAUSSIAN:
        return (v + 0.5 * s * s) / s
    # Laplace: g(x) = |x| − |x − s| runs linearly (slope 2 sign(s)) between 0 and s
    if s > 0.0:
        v = min(max(v, -s), s)
        return 0.5 * (v + s)
    v = min(max(v, s), -s)
    return -0.5 * (v - s)


@njit(cache=True)
def loss_at(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, x: float) -> float:
    if a_w > 0.0:
        gv = _g(mech, s_p, x)
        if a_w >= 1.0:  # rate 1: ln(1 − a + a·e^g) = g exactly (log1p(expm1(g)) is −inf for g < −37.4)
            return gv
        if gv > 700.0:
            return gv + math.log(a_w)
        return math.log1p(a_w * math.expm1(gv))
    gv = _g(mech, s_q, x)
    if gv > 700.0:
        return -(gv + math.log(b_w))
    return -math.log1p(b_w * math.expm1(gv))


@njit(cache=True)
def x_at(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, ell: float) -> float:
    """Some x with loss ≈ ell (clamped to the attainable range)."""
    if a_w > 0.0:
        if a_w >= 1.0:
            return _g_inv(mech, s_p, ell)
        # e^ℓ = 1 − a + a e^g
        if ell - math.log(a_w) > 700.0:  # e^ℓ/a overflows: g = ℓ − ln a + ln(1 − (1 − a)e^{−ℓ})
            return _g_inv(mech, s_p, ell - math.log(a_w) + math.log1p((a_w - 1.0) * math.exp(-ell)))
        r = math.expm1(ell) / a_w
        if r <= -1.0:
            return -np.inf
        return _g_inv(mech, s_p, math.log1p(r))
    if -ell - math.log(b_w) > 700.0:
        return _g_inv(mech, s_q, -ell - math.log(b_w) + math.log1p((b_w - 1.0) * math.exp(ell)))
    r = math.expm1(-ell) / b_w
    if r <= -1.0:
        return np.inf
    return _g_inv(mech, s_q, math.log1p(r))


@njit(cache=True)
def _density_ratio_parts(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, x: float):
    """(p(x), q(x)) up to a common positive factor (for Newton steps)."""
    if mech == GAUSSIAN:
        k0 = math.exp(-0.5 * x * x)
        kp = math.exp(-0.5 * (x - s_p) * (x - s_p))
        kq = math.exp(-0.5 * (x - s_q) * (x - s_q))
    else:
        k0 = math.exp(-abs(x))
        kp = math.exp(-abs(x - s_p))
        kq = math.exp(-abs(x - s_q))
    return (1.0 - a_w) * k0 + a_w * kp, (1.0 - b_w) * k0 + b_w * kq


# ----------------------------------------------------------------------------------------------------
# lower: greedy contraction cells
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def _exp_up(x: float) -> float:
    return math.exp(x) * (1.0 + ERFC_ULPS * U)


# log_tail's side as numpy booleans: numba types a literal True/False argument as Literal[bool] and compiled
# log_tail (and what it inlines) once per value; np.bool_ is typed as a plain boolean, as Python callers pass
UPWARD, DOWNWARD = np.bool_(True), np.bool_(False)
MILLS_DEPTH = 40  # continued-fraction depth for the Gaussian Mills ratio (t ≥ LOG_TAIL_FROM: error ≪ U)
LOG_TAIL_FROM = 20.0


@njit(cache=True)
def _mills(t: float, depth: int) -> float:
    """The depth-th convergent of Laplace's continued fraction R(t) = K̄(t)/φ(t) = 1/(t + 1/(t + 2/(t + …))),
    t > 0: an upper bound for odd depth, a lower bound for even depth (the convergents alternate).  Computed
    backwards over positive terms: relative rounding error ≤ 2·depth·U."""
    v = t
    for k in range(depth - 1, 0, -1):
        v = t + k / v
    return 1.0 / v


@njit(cache=True)
def log_tail(mech: int, t: float, upward: bool) -> float:
    """ln K̄(t) for t ≥ 0 rounded up (upward) or down, without underflow (t up to 1e150).

    Gaussian, t ≥ LOG_TAIL_FROM: ln R(t) − t²/2 − ln√(2π) with R from the (MILLS_DEPTH ± 1)-th convergent
    (a certified side), 3·depth·U on R, libm's log c ulps, and 4U on the sum of the magnitudes (three
    rounded terms); below LOG_TAIL_FROM: ln of the ``_upper_tail`` enclosure.  Laplace: −t − ln 2, 4U on the
    magnitudes.  (issue 19: the lower side's Q-masses underflowed above losses ≈ 745.)"""
    if mech == GAUSSIAN:
        if t >= LOG_TAIL_FROM:
            # one call, its depth an int64 either way: numba typed a bare MILLS_DEPTH as Literal[int](40) and
            # compiled _mills once for it and once for the int64 MILLS_DEPTH + 1
            r = _mills(t, MILLS_DEPTH + 1 if upward else MILLS_DEPTH)
            r = r * (1.0 + 3.0 * MILLS_DEPTH * U) if upward else r * (1.0 - 3.0 * MILLS_DEPTH * U)
            lr = math.log(r)
            hs = 0.5 * t * t
            v = lr - hs - 0.9189385332046727
            err = (ERFC_ULPS + 1.0) * U * abs(lr) + 4.0 * U * (abs(lr) + hs + 1.0)
            return v + err if upward else v - err
        v, rel = _upper_tail(mech, t)
        v = v * (1.0 + rel) + 2.0 * TAIL_ABS if upward else v * (1.0 - rel) - 2.0 * TAIL_ABS
        if v <= 0.0:
            return -np.inf
        lv = math.log(v)
        return lv + (ERFC_ULPS + 2.0) * U * abs(lv) if upward else lv - (ERFC_ULPS + 2.0) * U * abs(lv)
    v = -t - 0.6931471805599453
    err = 4.0 * U * (t + 1.0)
    return v + err if upward else v - err


@njit(cache=True)
def log_q_cell_up(mech: int, b_w: float, x0: float, x1: float) -> float:
    """An upper bound on ln Q(x0, x1] where Q = K (b_w = 0: REMOVE and rate 1) and 0 ≤ x0 < x1; +inf when
    not applicable.  ln K̄(x0) + log1p(−K̄(x1)/K̄(x0)) with K̄(x0) rounded up and K̄(x1) down (the log1p
    term is decreasing in the ratio); exp and log1p c ulps, the differences U, charged outward."""
    if b_w > 0.0 or not (x0 >= 0.0) or not (x1 > x0):
        return np.inf
    l0 = log_tail(mech, x0, UPWARD)
    if x1 == np.inf:
        return l0
    l1 = log_tail(mech, x1, DOWNWARD)
    dlt = l1 - l0
    dlt -= U * abs(dlt)
    r = math.exp(dlt) * (1.0 - (ERFC_ULPS + 2.0) * U)
    if not (r < 1.0):
        return l0
    lg = math.log1p(-r)
    lg *= 1.0 - (ERFC_ULPS + 2.0) * U  # lg ≤ 0: a smaller magnitude is larger
    v = l0 + lg
    return v + 2.0 * U * (abs(l0) + abs(lg))


LOG_SPLIT = 700.0  # below: test P⁻ ≥ e^{kh}·Q⁺ in floats; above (e^{kh} overflows): in logarithms
LOG_Q_BELOW = 2.0 ** -900  # ... and in logarithms too where Q⁺ is this small (subnormal Q-masses lose digits)


@njit(cache=True)
def _certified(pl: float, qh: float, lq: float, k: int, h: float) -> bool:
    """P(C) ≥ pl, Q(C) ≤ qh, ln Q(C) ≤ lq and pl ≥ e^{kh}·qh (rounded up) ⇒ L*(C) ≥ kh.

    For kh > LOG_SPLIT (e^{kh} overflows) in logarithms: ln pl rounded down (libm c ulps of the result,
    plus the 2 U the comparison charges), ln Q⁺ = min(ln qh rounded up, lq), and the difference compared
    with kh plus 4U of the magnitudes (its rounding).  Issue 19: e^{kh} = inf had made every such cell
    uncertifiable (a lower side of 0 where the exact δ was 0.49)."""
    if not (pl > 0.0):
        return False
    if qh == 0.0:
        return True
    e = k * h
    if e <= LOG_SPLIT and qh >= LOG_Q_BELOW:
        g = _exp_up(e)
        return pl >= g * qh * (1.0 + 2.0 * U)
    lp = math.log(pl)
    lp -= (ERFC_ULPS + 2.0) * U * abs(lp)
    lqh = math.log(qh)
    lqh += (ERFC_ULPS + 2.0) * U * abs(lqh)
    if lq < lqh:
        lqh = lq
    return lp - lqh >= e + 4.0 * U * (abs(lp) + abs(lqh) + e)


@njit(cache=True)
def lower_vector(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, h: float, k_lo: int,
                 k_hi: int, x_start: float, x_stop: float, targets: np.ndarray):
    """Masses ω⁻ on the nodes k_lo..k_hi (H_{ω⁻} ≤ H_ω; module docstring) and the dropped P-mass bound.

    Cells tile (x_start, x_stop]; the mass outside is dropped (dropping only lowers H).  Each cell is
    accepted for node k only when ``_certified``; a cell that cannot be certified for its target node
    falls back to the node below, and is dropped if even that fails.  ``targets`` (increasing int64 nodes;
    empty: every node) are the nodes the cells aim at between targets[0] and targets[-1] — the strided
    tails of ``tail_nodes`` (any partition into certified cells is a lower side, Lemma 3: only the width
    depends on the targets).
    """
    n = k_hi - k_lo + 1
    out = np.zeros(n)
    fallbacks = 0
    x = x_start
    lx = loss_at(mech, a_w, s_p, b_w, s_q, x) if x > -np.inf else loss_at(mech, a_w, s_p, b_w, s_q, -1e300)
    k = int(math.floor(lx / h)) + 1
    guard = 0
    tx = cell_tails(mech, a_w, s_p, b_w, s_q, x)  # the tails at the cell's left boundary, once per cell
    nt = targets.shape[0]
    while x < x_stop and guard < 50 * n + 1000:
        guard += 1
        gap = 1  # the spacing of the target nodes around k (in nodes): the Newton cap below
        if nt > 0 and targets[0] <= k <= targets[nt - 1]:
            # the thin tails: aim at the smallest target node ≥ k (``tail_nodes``)
            j = np.searchsorted(targets, k)
            k = targets[j]
            g1 = targets[j] - targets[j - 1] if j > 0 else 1
            g2 = targets[j + 1] - targets[j] if j + 1 < nt else g1
            gap = min(g1, g2)
        if k > k_hi:
            k = k_hi
        target = k * h
        # guess: the loss range symmetric about the target (second order for a smooth density)
        lb = 2.0 * target - lx if lx > -1e300 else target + h
        if lb <= target:
            lb = target + 0.5 * h
        b = x_at(mech, a_w, s_p, b_w, s_q, lb)
        if not (b > x):
            b = x_at(mech, a_w, s_p, b_w, s_q, target + h)
        last = False
        have_tb = False
        tb = tx
        if not (b < x_stop) or not (b > x):
            b = x_stop
            last = True
        else:
            # Newton on the certified margin F(b) = P⁻(x, b] − G·Q⁺(x, b] (G ≥ e^{target}); F increases and
            # is convex beyond the target, so Newton from the right stays right of the root: every iterate
            # with F ≥ 0 is certified, the smallest one is kept
            big = _exp_up(target) * (1.0 + 2.0 * U)
            scale = 0.3989422804014327 if mech == GAUSSIAN else 0.5
            best = -1.0
            best_t = tx
            for _ in range(12):
                tn = cell_tails(mech, a_w, s_p, b_w, s_q, b)
                pl, ph, ql, qh = pair_masses_from(a_w, b_w, tx, tn)
                if target <= LOG_SPLIT and qh >= LOG_Q_BELOW:
                    f = pl - big * qh
                    if f >= 0.0 and pl > 0.0:
                        best = b
                        best_t = tn
                else:
                    # e^{target}·Q(C) from ln Q (guidance; the cell is certified by ``_certified`` below)
                    lqc = min(math.log(qh) if qh > 0.0 else -np.inf, log_q_cell_up(mech, b_w, x, b))
                    f = pl - math.exp(min(target + lqc, 700.0))
                    if f >= 0.0 and _certified(pl, qh, lqc, k, h):
                        best = b
                        best_t = tn
                if best == b and f <= 1e-13 * pl:
                    # certified with L* − target ≈ F/P⁻ ≤ 1e-13: a further step would move L* by less than
                    # that (10⁶ steps shift the composed loss by ≤ 1e-7); guidance only
                    break
                dp, dq = _density_ratio_parts(mech, a_w, s_p, b_w, s_q, b)
                # F' = p(b) − e^{target}q(b) = p(b)(1 − e^{target − ℓ(b)}) (no e^{target} formed)
                if target <= LOG_SPLIT:
                    fp = scale * (dp - math.exp(target) * dq)
                else:
                    fp = scale * dp * -math.expm1(min(target - loss_at(mech, a_w, s_p, b_w, s_q, b), 700.0))
                if not (fp > 0.0) or not math.isfinite(f):
                    break
                nb = b - f / fp
                if f < 0.0:
                    # not yet certified: move right, but at most a quarter node in loss per iteration (where
                    # F' is tiny — next to an atom of the loss — a Newton step would overshoot far)
                    nb = b - 2.0 * f / fp + 1e-15 * (abs(b) + h)
                    cap = x_at(mech, a_w, s_p, b_w, s_q, loss_at(mech, a_w, s_p, b_w, s_q, b)
                               + 0.25 * h * gap)
                    if cap > b and nb > cap:
                        nb = cap
                if not (nb > x) or not math.isfinite(nb) or not (nb < x_stop):
                    break
                if abs(nb - b) <= 1e-12 * (abs(b) + h) and best == b:
                    break
                b = nb
            if best > x:
                b = best
                have_tb = True  # the tails at the kept iterate (the same bits as recomputing them)
                tb = best_t
        if not have_tb:
            tb = cell_tails(mech, a_w, s_p, b_w, s_q, b)
        pl, ph, ql, qh = pair_masses_from(a_w, b_w, tx, tb)
        # ln Q⁺ is read by ``_certified`` only in its logarithmic branch (kh > LOG_SPLIT or qh < LOG_Q_BELOW;
        # the fallback nodes below k have smaller kh): elsewhere +inf gives the same answer without the two
        # log-tails (issue 21)
        lq = log_q_cell_up(mech, b_w, x, b) if (k * h > LOG_SPLIT or qh < LOG_Q_BELOW) else np.inf
        done = False
        for tries in range(6):
            if _certified(pl, qh, lq, k, h):
                done = True
                break
            if last:
                break
            # widen the cell: more mass of higher loss raises L*
            lb2 = loss_at(mech, a_w, s_p, b_w, s_q, b)
            nb = x_at(mech, a_w, s_p, b_w, s_q, lb2 + (2.0 ** tries) * 1e-3 * h)
            if not (nb > b):
                nb = b + (2.0 ** tries) * 1e-9 * (abs(b) + 1.0)
            if not (nb < x_stop):
                nb = x_stop
                last = True
            b = nb
            tb = cell_tails(mech, a_w, s_p, b_w, s_q, b)
            pl, ph, ql, qh = pair_masses_from(a_w, b_w, tx, tb)
            lq = log_q_cell_up(mech, b_w, x, b) if (k * h > LOG_SPLIT or qh < LOG_Q_BELOW) else np.inf
        if not done:
            fallbacks += 1
        kk = k
        if not done:
            # fall back to lower nodes (every loss in the cell is ≥ lx, and L* ≥ lx)
            kk = k - 1
            while kk >= k_lo and not _certified(pl, qh, lq, kk, h):
                kk -= 1
                if kk < k - 3:
                    kk = k_lo - 1
                    break
        if kk >= k_lo:
            out[min(kk, k_hi) - k_lo] += pl
        x = b
        tx = tb  # the next cell starts where this one ends: the same tails
        if last:
            break
        lx = loss_at(mech, a_w, s_p, b_w, s_q, x)
        k = max(k + 1, int(math.floor(lx / h)) + 1)
    return out, fallbacks


# ----------------------------------------------------------------------------------------------------
# upper: connect the dots on the profile
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def profile_up(mech: int, direction: int, eps: float, theta: float, q: float) -> float:
    """δ(ε) rounded up for ε ∈ ℝ (SPEC T11 kernel; rate 1 is the base profile T8/T9)."""
    return delta_up(mech, direction, eps, theta, q)


MASS_ABS = 2.0 ** -1060  # absolute slack per mass for underflowing intermediate values (proof note, Lemma 4)


@njit(cache=True)
def upper_from_values(d: np.ndarray, k_lo: int, h: float):
    """Masses of the chordal interpolant of the node values d (d ≥ δ at the nodes), rounded up.

    Nodes ε_i = (k_lo + i)h, i = 0..n, γ_i = e^{ε_i}.  The chord through (0, 1), (γ_i, d_i) has the atom
    m_i = γ_i(s_i − s_{i−1}) at ε_i (s_i its slope on (γ_i, γ_{i+1}), s_{−1} = (d_0 − 1)/γ_0, s_n = 0) and
    m_∞ = d_n.  With a_i = d_i − d_{i+1} ≥ 0, G = e^h and E = e^h − 1 the γ's cancel (Δγ_i = γ_i·E):

        m_0 = (1 − d_0) − a_0/E,   m_i = (G·a_{i−1} − a_i)/E (0 < i < n),   m_n = G·a_{n−1}/E,

    so no e^{kh} is ever formed (it overflowed above kh ≈ 709.78 and made subnormal slopes from ≈ 680:
    issue 19).  Error bound per mass (proof note, Lemma 4): |m̃_i − m_i| ≤ ρ·(T₁ + T₂) + MASS_ABS·(1 + 1/Ẽ),
    ρ = 1.1·(2c + 8)·U, T₁, T₂ the two computed terms' magnitudes, c = ERFC_ULPS; the absolute term covers the
    underflow of the product and the quotient (≤ 2⁻¹⁰⁷⁵ each, the quotient's numerator error divided by E).
    Every stored entry is ≥ max(m_i, 0) (rounded up; negative masses clipped: both only raise H).
    """
    n = d.shape[0] - 1
    em1 = math.expm1(h)
    big_g = math.exp(h)
    rho = 1.1 * (2.0 * ERFC_ULPS + 8.0) * U
    tau = MASS_ABS + MASS_ABS / em1
    out = np.empty(n + 1)
    for i in range(n + 1):
        if i == 0:
            t1 = 1.0 - d[0]
        else:
            t1 = big_g * (d[i - 1] - d[i]) / em1
        t2 = (d[i] - d[i + 1]) / em1 if i < n else 0.0
        m = t1 - t2
        v = m + (rho * (abs(t1) + abs(t2)) + tau)
        out[i] = v * (1.0 + 4.0 * U) + TINY if v > 0.0 else 0.0
    return out, d[n]


@njit(cache=True)
def upper_from_values_at(d: np.ndarray, ks: np.ndarray, h: float):
    """``upper_from_values`` on increasing nodes ks (integers, not necessarily consecutive): the chord through
    (0, 1) and (γ_i, d_i), γ_i = e^{ks[i]·h}, with the spacing h_i = (ks[i+1] − ks[i])·h per interval
    (exact: an integer times a power of two).  With G_i = e^{h_i}, E_i = e^{h_i} − 1 and a_i = d_i − d_{i+1},
    m_0 = (1 − d_0) − a_0/E_0, m_i = G_{i−1}a_{i−1}/E_{i−1} − a_i/E_i, m_n = G_{n−1}a_{n−1}/E_{n−1}, m_∞ = d_n
    (Lemma 4 with the interval's own G, E: the same relative error count per term, and the absolute part
    2⁻¹⁰⁷⁵(2 + 2/E_i) ≤ τ since E_i ≥ e^h − 1, the smallest spacing being h).  Issue 21: the thin right tail of
    a subsampled step is interpolated on every stride-th node only (``tail_stride``)."""
    n = d.shape[0] - 1
    rho = 1.1 * (2.0 * ERFC_ULPS + 8.0) * U
    tau = MASS_ABS + MASS_ABS / math.expm1(h)
    out = np.empty(n + 1)
    for i in range(n + 1):
        if i == 0:
            t1 = 1.0 - d[0]
        else:
            hp = (ks[i] - ks[i - 1]) * h
            t1 = math.exp(hp) * (d[i - 1] - d[i]) / math.expm1(hp)
        t2 = (d[i] - d[i + 1]) / math.expm1((ks[i + 1] - ks[i]) * h) if i < n else 0.0
        m = t1 - t2
        v = m + (rho * (abs(t1) + abs(t2)) + tau)
        out[i] = v * (1.0 + 4.0 * U) + TINY if v > 0.0 else 0.0
    return out, d[n]


@njit(cache=True)
def profile_values_at(mech: int, direction: int, theta: float, q: float, ks: np.ndarray, h: float):
    """``profile_values`` at the nodes ks (increasing): δ rounded up, then the running minimum."""
    d = np.empty(ks.shape[0])
    for i in range(ks.shape[0]):
        d[i] = min(profile_up(mech, direction, ks[i] * h, theta, q), 1.0)
    for i in range(1, d.shape[0]):
        if d[i] > d[i - 1]:
            d[i] = d[i - 1]
    return d


@njit(cache=True)
def profile_values(mech: int, direction: int, theta: float, q: float, k_lo: int, k_hi: int, h: float):
    d = np.empty(k_hi - k_lo + 1)
    for i in range(k_hi - k_lo + 1):
        d[i] = min(profile_up(mech, direction, (k_lo + i) * h, theta, q), 1.0)
    # δ is non-increasing: the running minimum of upper bounds is still an upper bound
    for i in range(1, d.shape[0]):
        if d[i] > d[i - 1]:
            d[i] = d[i - 1]
    return d


# ----------------------------------------------------------------------------------------------------
# hockey stick of a grid measure
# ----------------------------------------------------------------------------------------------------

@njit(cache=True)
def _up(x: float) -> float:
    return np.nextafter(x, np.inf)


@njit(cache=True)
def _dn(x: float) -> float:
    return max(np.nextafter(x, -np.inf), 0.0)


@njit(cache=True)
def _up0(x: float) -> float:
    """≥ x + one ulp for x ≥ 0 (so ≥ the exact value x was rounded to nearest from, in every regime), without
    a libm call: for normal x, x·2⁻⁵² ≥ ulp(x), so fl(x(1 + 2⁻⁵²)) ≥ x + ulp(x) (x + ulp(x) is a double and
    rounding to nearest cannot fall below it); the added 2⁻¹⁰⁷⁴ covers subnormal x (an exact addition).
    inf stays inf.  Issue 21: ``nextafter`` was a third of ``hs_tables``."""
    return x * (1.0 + 2.0 ** -52) + TINY


@njit(cache=True)
def _dn0(x: float) -> float:
    """≤ x − one ulp for x ≥ 0, clipped at 0 (the mirror of ``_up0``: fl(x(1 − 2⁻⁵²)) ≤ x − ulp(x))."""
    return max(x * (1.0 - 2.0 ** -52) - TINY, 0.0)


@njit(cache=True)
def hs_tables(m: np.ndarray, h: float, upward: bool):
    """Suffix tables for the hockey stick of a grid measure, with directed rounding (proof note, §6).

    With B_i = Σ_{j ≥ i} m_j e^{−(j − i)h} and C_i = Σ_{j > i} m_j(1 − e^{−(j − i)h}) (both over
    nonnegative terms, so never a cancellation, and ≤ the total mass: no overflow at any ε),

        B_i = m_i + e^{−h}·B_{i+1},   C_i = C_{i+1} + (1 − e^{−h})·B_{i+1},   B_n = C_n = 0,

    and for ε in [ε_{i−1}, ε_i) (ε_i = (k0 + i)h the first node above ε, z = ε − ε_i < 0)
    δ(ε) = Σ_{j ≥ i} m_j(1 − e^{z − (j − i)h}) = C_i + (−expm1(z))·B_i.  Every operation is rounded to
    nearest and then moved one ulp outward (``_up0``/``_dn0``: ≥ the rounding error, also for subnormal
    results), the constants e^{−h}, 1 − e^{−h} carry (c + 1)U outward; so the upward tables are ≥ the exact
    sums of the stored masses, the downward ones ≤.  Returns (B, C), each of length n + 1.
    """
    n = m.shape[0]
    b = np.zeros(n + 1)
    c = np.zeros(n + 1)
    r = (ERFC_ULPS + 1.0) * U
    eh = math.exp(-h)
    f = -math.expm1(-h)
    if upward:
        eh = _up0(eh * (1.0 + r))
        f = _up0(f * (1.0 + r))
        for i in range(n - 1, -1, -1):
            b[i] = _up0(m[i] + _up0(eh * b[i + 1]))
            c[i] = _up0(c[i + 1] + _up0(f * b[i + 1]))
    else:
        eh = _dn0(eh * (1.0 - r))
        f = _dn0(f * (1.0 - r))
        for i in range(n - 1, -1, -1):
            b[i] = _dn0(m[i] + _dn0(eh * b[i + 1]))
            c[i] = _dn0(c[i + 1] + _dn0(f * b[i + 1]))
    return b, c


def merged_below(m: np.ndarray, k0: int, k_cut: int, upward: bool) -> tuple[np.ndarray, int]:
    """(m', k0') with the nodes below k_cut merged into node k_cut (upward: their mass moved up, H only rises)
    or dropped (H only falls), for hockey-stick tables that are read at ε ≥ k_cut·h only.

    A node k ≤ k_cut contributes m_k(1 − e^{ε − kh})₊ = 0 at every ε ≥ k_cut·h, so there the tables of (m', k0')
    equal those of (m, k0) bit for bit (the suffix recursions of ``hs_tables`` are the same from the top down
    to node k_cut + 1, and node k_cut's entry is never read for such ε); at smaller ε they still bound δ from
    the right side (Lemma 1(a)).  Issue 21: ε(δ) only reads ε ≥ 0, and 40 % of a long composition's grid lies
    below 0.  The merged mass is the recursive sum (within γ_n of the exact one, Higham eq. 4.4: enlarged by
    1 + 2nU) moved one ulp up twice (the product, then the addition to node k_cut)."""
    i = k_cut - k0
    if i <= 0:
        return m, k0
    if i >= len(m):
        i = len(m) - 1
    out = m[i:].copy()
    if upward:
        head = float(np.sum(m[: i]))
        head = head * (1.0 + 2.0 * (i + 2) * U) * (1.0 + 2.0 ** -52) + TINY
        out[0] = (out[0] + head) * (1.0 + 2.0 ** -52) + TINY
    return out, k0 + i


@njit(cache=True)
def _hs_point(b: np.ndarray, c: np.ndarray, off: int, n: int, k0: int, h: float, m_inf: float, e: float,
              upward: bool) -> float:
    """``hs_eval`` at one ε (the same operations) on the tables b[off : off + n + 1], c[off : off + n + 1]
    (indices, not slices: one compiled specialisation for ``hs_eval`` and ``epsilon_bisect``)."""
    r = (ERFC_ULPS + 2.0) * U
    if e != e:
        return np.nan
    if e == np.inf:
        return m_inf
    if e == -np.inf:
        i = 0
        t = 1.0
    else:
        fi = math.floor(e / h) + 1.0 - k0  # e/h exact (h a power of two) unless subnormal: checked below
        if fi <= 0.0:
            i = 0
        elif fi >= n:
            i = n
        else:
            i = int(fi)
        while i > 0 and (k0 + i - 1) * h > e:
            i -= 1
        while i < n and (k0 + i) * h <= e:
            i += 1
        if i >= n:
            return m_inf
        z = e - (k0 + i) * h
        t = -math.expm1(z)
    if upward:
        t = min(_up(t * (1.0 + r)), 1.0)
        v = _up(_up(c[off + i] + _up(t * b[off + i])) + m_inf)
        return min(v, 1.0)
    t = _dn(t * (1.0 - r))
    return _dn(_dn(c[off + i] + _dn(t * b[off + i])) + m_inf)


@njit(cache=True)
def hs_eval(b: np.ndarray, c: np.ndarray, k0: int, h: float, m_inf: float, eps: np.ndarray,
            upward: bool) -> np.ndarray:
    """Σ_k m_k(1 − e^{ε − kh})₊ + m_∞ at every ε of ``eps`` from ``hs_tables``, rounded up (upward) or down.

    O(1) per point.  t = −expm1(z) for z = fl(ε − ε_i) < 0: libm c ulps, and z's rounding (U relative) moves
    t by ≤ U relative (|z|e^z/(1 − e^z) ≤ 1), so t is enlarged/shrunk by (c + 2)U.  ε = −inf: the total
    P-mass C_0 + B_0 + m_∞ (t = 1); ε = +inf: m_∞.  NaN gives NaN (the caller refuses it).
    """
    out = np.empty(eps.shape[0])
    for j in range(eps.shape[0]):
        # (np.int64(0), not a bare 0: a literal argument would compile a specialisation of its own)
        out[j] = _hs_point(b, c, np.int64(0), b.shape[0] - 1, k0, h, m_inf, eps[j], upward)
    return out


@njit(cache=True)
def _hs_max(b: np.ndarray, c: np.ndarray, offs: np.ndarray, k0s: np.ndarray, hs: np.ndarray,
            m_infs: np.ndarray, e: float, upward: bool) -> float:
    """The maximum over directions of ``_hs_point``: direction d's tables are b, c[offs[d]:offs[d + 1]]."""
    v = 0.0
    for d in range(k0s.shape[0]):
        x = _hs_point(b, c, offs[d], offs[d + 1] - offs[d] - 1, k0s[d], hs[d], m_infs[d], e, upward)
        v = x if d == 0 else max(v, x)
    return v


@njit(cache=True)
def epsilon_bisect(delta: np.ndarray, top: float, bu: np.ndarray, cu: np.ndarray, ou: np.ndarray,
                   k0u: np.ndarray, hu: np.ndarray, iu: np.ndarray, bl: np.ndarray, cl: np.ndarray,
                   ol: np.ndarray, k0l: np.ndarray, hl: np.ndarray, il: np.ndarray):
    """(lower, upper) of ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ} at every δ, by bisection on the rounded sandwich — the
    maximum over directions of the upper (``bu``, ``cu``, …) and lower (``bl``, …) tables — in [0, top]
    (``bounds.composition.Composition._epsilon_many``'s loop, point by point: the same operations, so the
    same bits; issue 21: the Python loop was ≈ 3.5 ms per grid set).  Invariants: upper = an ε with
    δ_upper(ε) ≤ δ verified, or inf where even the top is not; lower = 0 or an ε with δ_lower(ε) > δ verified."""
    # the sides as run-time booleans (np.bool_, not bare True/False: numba compiles a literal argument's callee
    # once per value)
    upside, downside = np.bool_(True), np.bool_(False)
    n = delta.shape[0]
    lower = np.empty(n)
    upper = np.empty(n)
    for p in range(n):
        d = delta[p]
        hi0 = _hs_max(bu, cu, ou, k0u, hu, iu, 0.0, upside)
        hit = _hs_max(bu, cu, ou, k0u, hu, iu, top, upside)
        lo0 = _hs_max(bl, cl, ol, k0l, hl, il, 0.0, downside)
        lot = _hs_max(bl, cl, ol, k0l, hl, il, top, downside)
        up = 0.0 if hi0 <= d else (np.nan if hit <= d else np.inf)
        lw = 0.0 if not (lo0 > d) else (top if lot > d else np.nan)
        ua, ub, la, lb = 0.0, top, 0.0, top
        for _ in range(80):
            if not (up != up or lw != lw):
                break
            if up != up:
                mu = 0.5 * (ua + ub)
                if ua < mu < ub:
                    if _hs_max(bu, cu, ou, k0u, hu, iu, mu, upside) <= d:
                        ub = mu
                    else:
                        ua = mu
                else:
                    up = ub
            if lw != lw:
                ml = 0.5 * (la + lb)
                if la < ml < lb:
                    if _hs_max(bl, cl, ol, k0l, hl, il, ml, downside) > d:
                        la = ml
                    else:
                        lb = ml
                else:
                    lw = la
        upper[p] = ub if up != up else up
        lower[p] = la if lw != lw else lw
    return lower, upper


# ----------------------------------------------------------------------------------------------------
# composition: FFT convolution with a proven error bound, windows, exponentiation by squaring
# ----------------------------------------------------------------------------------------------------

FFT_SAFETY = 4.0  # factor on Higham's radix-2 bound for pocketfft's mixed-radix real transforms (note §5)
TWIDDLE_ULPS = 2.0  # accuracy of pocketfft's twiddle factors in units of U


class Grid:
    """A nonnegative measure on the nodes k·h, k = k0..k0 + len(m) − 1, plus an atom m_inf at +∞.

    ``tilt`` = λ ≥ 0: the stored vector is the *tilted* measure m_k·e^{λk} (exponential tilting commutes
    with convolution: (a*b)_k e^{λk} = Σ a_i e^{λi} b_j e^{λj}).  Convolving tilted vectors makes the FFT's
    absolute error, once untilted, decay like e^{−λk} towards the large losses where δ(ε) lives (note §5).
    ``total`` bounds the untilted finite mass (from above for upper grids, from below for lower grids).
    """

    __slots__ = ("m", "k0", "m_inf", "tilt", "total")

    def __init__(self, m: np.ndarray, k0: int, m_inf: float, tilt: float = 0.0, total: float = -1.0):
        self.m = m
        self.k0 = int(k0)
        self.m_inf = float(m_inf)
        self.tilt = float(tilt)
        self.total = float(m.sum()) if total < 0 else float(total)

    @property
    def k1(self) -> int:
        return self.k0 + len(self.m) - 1


def tilt_weights(k0: int, n: int, lam: float, upward: bool) -> np.ndarray:
    """e^{λk} for k = k0..k0 + n − 1, rounded outward (up for upward, down otherwise): relative error of
    exp ≤ ERFC_ULPS·U and of the product λk ≤ U|λk| (charged as (1 + |λk|)·2U)."""
    z = lam * np.arange(k0, k0 + n, dtype=np.float64)
    w = np.exp(z)
    rel = (ERFC_ULPS + 2.0 + 2.0 * np.abs(z)) * U
    return w * (1 + rel) if upward else w * (1 - rel)


def tilted(g: Grid, lam: float, upward: bool) -> Grid:
    m = g.m * tilt_weights(g.k0, len(g.m), lam, upward)
    m = m * (1 + 2 * U) if upward else m * (1 - 2 * U)
    return Grid(m, g.k0, g.m_inf, lam, g.total)


def untilted(g: Grid, upward: bool) -> Grid:
    if g.tilt == 0.0:
        return g
    m = g.m * tilt_weights(g.k0, len(g.m), -g.tilt, upward)
    m = m * (1 + 2 * U) if upward else m * (1 - 2 * U)
    return Grid(m, g.k0, g.m_inf, 0.0, g.total)


U_EXTENDED = 2.0 ** -64  # unit roundoff of x86 long double; the FFT uses _extended_unit(), this only documents it
EXTENDED_FROM = 4096  # counts from which the FFTs run in long double (early-level noise is multiplied by ~count)


def fft_error_bound(a: np.ndarray, b: np.ndarray, n_fft: int, unit: float = U) -> float:
    """A bound on max_k |c̃_k − c_k| for c̃ = irfft(rfft(a)·rfft(b)) of length n_fft (proof note, Lemma 5).

    Higham (2002, Thm 24.2): ‖fl(FFT x) − FFT x‖₂ ≤ φ‖FFT x‖₂, φ = L·η/(1 − L·η), L = log₂ n (``fft_stages``:
    a + 2b + 3c for a mixed-radix n = 2^a·3^b·5^c, the assumption of proof note Lemma 6(i)), η = μ + γ₄(√2 + μ),
    μ the twiddle accuracy.  With A = FFT a, ‖A‖₂ = √n‖a‖₂, ‖A‖_∞ ≤ ‖a‖₁, the pointwise product's error
    E_P and the inverse transform give
    ‖c̃ − c‖_∞ ≤ φ‖a‖₁‖b‖₂ + (1 + φ)[φ‖a‖₂‖b‖₁ + φ²√n‖a‖₂‖b‖₂ + φ‖a‖₁‖b‖₂ + √2γ₂(1 + φ)(‖a‖₁ + φ√n‖a‖₂)‖b‖₂].
    """
    lg = fft_stages(n_fft)  # log₂ N for powers of two; a + 2b + 3c for N = 2^a·3^b·5^c (Lemma 6(i))
    mu = TWIDDLE_ULPS * unit
    g2 = 2 * unit / (1 - 2 * unit)
    g4 = 4 * unit / (1 - 4 * unit)
    eta = mu + g4 * (math.sqrt(2.0) + mu)
    phi = FFT_SAFETY * lg * eta / (1 - FFT_SAFETY * lg * eta)
    a1, a2 = _norms(a)
    b1, b2 = _norms(b)

    def one(a1, a2, b1, b2):
        sn = math.sqrt(n_fft)
        ep = phi * a2 * b1 + phi * phi * sn * a2 * b2 + phi * a1 * b2 + \
            math.sqrt(2.0) * g2 * (1 + phi) * (a1 + phi * sn * a2) * b2
        return phi * a1 * b2 + (1 + phi) * ep
    return min(one(a1, a2, b1, b2), one(b1, b2, a1, a2)) * (1 + 1e-6)


def _fft_size(n: int) -> int:
    return 1 << max(int(n - 1).bit_length(), 1)


def fft_length(n: int) -> int:
    """The FFT length of a convolution with n output entries: the smallest even N = 2^a·3^b·5^c ≥ n whose
    stage count L = a + 2b + 3c (``fft_stages``, the L of ``fft_error_bound``) is at most that of the power of
    two ``_fft_size(n)``, so the certified bound is never larger than at the power of two (φ grows with L; the
    φ²√N term shrinks with N) while pocketfft's work, about proportional to N, drops by up to 44 % (a window of
    2 099 616 nodes: 2 359 296 = 9·2¹⁸ points instead of 2²²).  Proof note Lemma 5 ("FFT lengths")."""
    pow2 = _fft_size(n)
    limit = pow2.bit_length() - 1  # L of the power of two
    best = pow2
    p5, c5 = 1, 0
    while p5 < best and 3 * c5 <= limit:
        p35, c35 = p5, 3 * c5
        while p35 < best and c35 <= limit:
            m, stages = p35 * 2, c35 + 1
            while m < n:
                m *= 2
                stages += 1
            if m < best and stages <= limit:
                best = m
            p35 *= 3
            c35 += 2
        p5 *= 5
        c5 += 1
    return best


class SpectrumCache:
    """The rfft spectra of arrays that take part in more than one convolution (repeated squaring: the base
    is multiplied into the result and then squared at the same length; the one-summand vector of a power is
    used again at the end), kept per (array, length, precision) for as long as the array lives (weak
    reference: the entry is dropped with its array).  A cached array must not be modified afterwards.  The
    spectrum is the same computed rfft whether cached or not, so the certified bound is unchanged."""

    def __init__(self) -> None:
        self._spectra: dict = {}

    def _get(self, x: np.ndarray, nf: int, extended: bool) -> np.ndarray | None:
        """The cached spectrum of ``x`` at this length and precision, or None (an entry whose array died and
        whose id was reused does not count)."""
        hit = self._spectra.get((id(x), nf, extended))
        return hit[1] if hit is not None and hit[0]() is x else None

    def rfft(self, x: np.ndarray, nf: int, extended: bool) -> np.ndarray:
        X = self._get(x, nf, extended)
        if X is not None:
            return X
        key = (id(x), nf, extended)
        X = _rfft(x, nf, extended)
        spectra = self._spectra

        def drop(_ref, key=key):
            spectra.pop(key, None)
        self._spectra[key] = (weakref.ref(x, drop), X)
        return X

    def has(self, x: np.ndarray, nf: int, extended: bool) -> bool:
        return self._get(x, nf, extended) is not None

    def lengths(self, x: np.ndarray, extended: bool) -> list[int]:
        return [k[1] for k, v in list(self._spectra.items()) if k[0] == id(x) and k[2] == extended and v[0]() is x]

    def length_for(self, a: np.ndarray, b: np.ndarray, n_out: int, extended: bool) -> int:
        """The FFT length for a * b: ``fft_length(n_out)``, or a longer length at which a factor's spectrum is
        cached when that costs fewer points transformed (≈ N per transform: (1 + uncached factors)·N), among
        lengths ≥ n_out no longer than the power of two and with no more stages (the bound stays ≤ the power
        of two's, as for ``fft_length``)."""
        best = fft_length(n_out)
        pow2 = _fft_size(n_out)
        limit = pow2.bit_length() - 1
        factors = (a,) if b is a else (a, b)

        def cost(nf):
            return nf * (1 + sum(not self.has(x, nf, extended) for x in factors))
        for x in factors:
            for nf in self.lengths(x, extended):
                if n_out <= nf <= pow2 and fft_stages(nf) <= limit and cost(nf) < cost(best):
                    best = nf
        return best


def _rfft(x: np.ndarray, nf: int, extended: bool) -> np.ndarray:
    return np.fft.rfft(x.astype(np.longdouble) if extended else x, nf)


def _extended_unit() -> float:
    """Unit roundoff of numpy's long-double FFT, or 0 where there is none.  numpy ≥ 2 runs pocketfft in the
    input's precision, long double included; where long double is binary64 (MSVC, Apple arm64) or numpy
    computes long-double FFTs in binary64 (numpy 1.x), the extended route is not used."""
    info = np.finfo(np.longdouble)
    if info.eps >= 2.0 ** -60:
        return 0.0
    if np.fft.rfft(np.ones(4, dtype=np.longdouble)).dtype != np.clongdouble:
        return 0.0
    return float(info.eps) / 2


def _fft_convolve(a: np.ndarray, b: np.ndarray, n_out: int, extended: bool, spectra: SpectrumCache | None = None):
    """(c̃, bound on |c̃ − c| entrywise) by FFT in binary64 or, with ``extended``, in the platform's long
    double (x86: 64-bit significand, unit roundoff 2⁻⁶⁴) through numpy's pocketfft, at length
    ``fft_length(n_out)``.  A square (``a is b``) transforms once; ``spectra`` reuses the transforms of
    arrays seen before (the same computed values: the bound is that of one convolution either way), also at
    a longer length where that saves work (``SpectrumCache.length_for``)."""
    unit = _extended_unit() if extended else 0.0
    ext = bool(unit)
    nf = fft_length(n_out) if spectra is None else spectra.length_for(a, b, n_out, ext)

    def spectrum(x):
        return spectra.rfft(x, nf, ext) if spectra is not None else _rfft(x, nf, ext)
    fa = spectrum(a)
    fb = fa if b is a else spectrum(b)
    c = np.fft.irfft(fa * fb, nf)[:n_out]
    if unit:
        # the conversion to binary64 adds ≤ U relative to |c̃| (charged as U·(|c̃| + bound))
        err = fft_error_bound(a, b, nf, unit)
        c64 = c.astype(np.float64)
        return c64, err * (1 + U), np.abs(c64) * (2 * U)
    return c, fft_error_bound(a, b, nf), None


def outward(x: np.ndarray, upward: bool) -> np.ndarray:
    """Entrywise one ulp outward for x ≥ 0 (``_up0``/``_dn0`` on arrays: x(1 ± 2⁻⁵²) ± 2⁻¹⁰⁷⁴, clipped at 0):
    ≥ (≤) the exact value of which x is the rounded-to-nearest result (proof note §6)."""
    if upward:
        return x * (1.0 + 2.0 ** -52) + TINY
    return np.maximum(x * (1.0 - 2.0 ** -52) - TINY, 0.0)


def convolve(a: Grid, b: Grid, lo: int, hi: int, upward: bool, extended: bool = False,
             spectra: SpectrumCache | None = None) -> Grid:
    """a * b (same tilt λ) restricted to the window [lo, hi]: upper (mass below lo moved up to lo, above hi
    to +∞, FFT error added) or lower (below lo dropped, above hi moved down to hi, FFT error subtracted).
    ``spectra``: transforms of the factors' mass vectors reused across convolutions (``_fft_convolve``)."""
    lam = a.tilt
    n_out = len(a.m) + len(b.m) - 1
    k0 = a.k0 + b.k0
    if min(len(a.m), len(b.m)) <= 64:
        c = np.convolve(a.m, b.m)
        # direct summation of nonnegative terms: relative error ≤ (min length + 1)·U per entry
        err_rel = (min(len(a.m), len(b.m)) + 2) * U
        c = c * (1 + err_rel) if upward else c * (1 - err_rel)
        c = np.maximum(c, 0.0)
    else:
        c, err, rel = _fft_convolve(a.m, b.m, n_out, extended, spectra)
        if rel is not None:  # binary64 rounding of the extended result: entrywise U·|c̃|
            err = err + rel
        # |c̃_k − c_k| ≤ err: c̃ + err ≥ c_k ≥ 0 (upper), max(c̃ − err, 0) ≤ c_k (lower); the sum's own rounding
        # (half an ulp, not covered by err where c̃ ≫ err) moved outward (issue 21)
        c = outward(np.maximum(c + err, 0.0), True) if upward else outward(np.maximum(c - err, 0.0), False)
    if upward:
        total = a.total * b.total * (1 + 4 * U)
        m_inf = (a.m_inf * (b.total + b.m_inf) + b.m_inf * a.total) * (1 + 4 * U)
    else:
        total = a.total * b.total * (1 - 4 * U)
        m_inf = max((a.m_inf * (b.total + b.m_inf) + b.m_inf * a.total) * (1 - 4 * U), 0.0)
    k1 = k0 + n_out - 1
    lo = max(lo, k0)
    hi = min(hi, k1)
    if lo > hi:
        lo = hi = k0
    out = c[lo - k0: hi - k0 + 1].copy()
    grow = 1 + (2 * n_out + 8) * U + 4 * ERFC_ULPS * U
    if lam == 0.0:
        # the masses beyond the window by direct summation of nonnegative terms (relative error only, no
        # FFT noise): Σ_i a_i·(tail of b beyond hi − i), Σ_i a_i·(head of b below lo − i)
        above = _mass_beyond(a.m, b.m, hi - k0, True) if hi < k1 else 0.0
        below = _mass_beyond(a.m, b.m, lo - k0, False) if lo > k0 else 0.0
        if upward:
            out[0] += below * grow
            m_inf = min(m_inf + above * grow, 1.0)
        else:
            out[-1] += above / grow
        return Grid(out, lo, m_inf, lam, total)
    below = c[: lo - k0]
    # untilted mass above the window by direct summation over the untilted factors (no FFT noise; the
    # untilted upper factors are entrywise upper bounds, the lower ones lower bounds)
    above = 0.0
    if hi < k1:
        ua = a.m * tilt_weights(a.k0, len(a.m), -lam, upward)
        ub = b.m * tilt_weights(b.k0, len(b.m), -lam, upward)
        above = _mass_beyond(ua, ub, hi - k0, True)
    if upward:
        if len(below):
            # tilted mass at k < lo moved to lo: multiply by e^{λ(lo − k)} ≥ 1 (rounded up)
            w = tilt_weights(1, len(below), lam, True)[::-1]
            out[0] += float((below * w).sum()) * grow
        m_inf = min(m_inf + above * grow, 1.0)
    else:
        # untilted mass above hi moved down to hi, tilted there by e^{λ·hi} (rounded down)
        out[-1] += above * float(tilt_weights(hi, 1, lam, False)[0]) / grow
    return Grid(out, lo, m_inf, lam, total)


@njit(cache=True)
def _norms(a: np.ndarray):
    """(‖a‖₁, ‖a‖₂) of a nonnegative vector, rounded up (sums of n nonnegative terms: relative ≤ nU)."""
    s1 = 0.0
    s2 = 0.0
    for v in a:
        s1 += v
        s2 += v * v
    f = 1.0 + (a.shape[0] + 4) * U
    return s1 * f, math.sqrt(s2 * f) * (1.0 + 2.0 * U)


@njit(cache=True)
def _mass_beyond(a: np.ndarray, b: np.ndarray, edge: int, above: bool) -> float:
    """Σ_{i+j > edge} a_i b_j (above) or Σ_{i+j < edge} a_i b_j, indices from 0 (nonnegative terms,
    unrounded: the caller applies the relative bound (len(a) + len(b) + 8)U)."""
    nb = b.shape[0]
    cum = np.zeros(nb + 1)
    if above:  # cum[j] = Σ_{j' ≥ j} b
        for j in range(nb - 1, -1, -1):
            cum[j] = cum[j + 1] + b[j]
    else:  # cum[j] = Σ_{j' < j} b
        for j in range(nb):
            cum[j + 1] = cum[j] + b[j]
    total = 0.0
    for i in range(a.shape[0]):
        j = edge - i + 1 if above else edge - i
        if j < 0:
            j = 0
        if j > nb:
            j = nb
        total += a[i] * cum[j]
    return total


def moments(g: Grid) -> tuple[float, float]:
    """Mean and standard deviation (node units) of the finite part, normalised (untilted grids)."""
    w = g.m
    tot = w.sum()
    if tot <= 0:
        return float(g.k0), 0.0
    idx = np.arange(len(w), dtype=np.float64)
    mean = float((w * idx).sum() / tot)
    var = float((w * (idx - mean) ** 2).sum() / tot)
    return g.k0 + mean, math.sqrt(max(var, 0.0))


def window(count: int, mean: float, std: float, k0: int, k1: int, width_sd: float,
           pad_left: bool = False) -> tuple[int, int]:
    """Nodes kept for a count-fold composition: mean ± width_sd standard deviations, the top widened by one
    step's whole range (the loss distributions are skewed to the right: a single rare large loss must not
    fall off the window; the bottom is not widened: mass moved up there is carried with the tilt's
    factor e^{λ(lo − k)}).  A heuristic: soundness never depends on it, only the width does."""
    lo = math.floor(count * mean - width_sd * math.sqrt(count) * std) - 8
    if pad_left:  # untilted grids: the left end is widened like the top
        lo -= math.ceil(mean - k0)
    hi = math.ceil(count * mean + width_sd * math.sqrt(count) * std + (k1 - mean))
    return max(lo, count * k0), min(hi, count * k1)


LEFT_TAIL = 1e-13  # per-composition budget of mass moved up (upper) / dropped (lower) at the left end


def cut_left(g: Grid, tau: float, upward: bool) -> Grid:
    """The nodes below the first node where the cumulated mass exceeds tau are merged into it (upper: mass
    moved up, H only rises) or dropped (lower: H only falls).  Keeps the tilted FFT noise at far-negative
    losses (amplified by e^{λ(lo − k)} when it is moved up) from entering the windows."""
    cs = np.cumsum(g.m)
    i = int(np.searchsorted(cs, tau, side="right"))
    if i <= 0 or i >= len(g.m):
        return g
    m = g.m[i:].copy()
    if upward:
        # cs[i − 1], a recursive sum of i nonnegative terms, is within γ_i of the exact one: enlarged by
        # (n + 2)U; the addition to m[0] rounded to nearest and then one ulp up (``_up0``), so m[0] ≥ its old
        # value plus the exact moved mass (issue 21: a plain m[0] += … lost a moved mass below half an ulp of
        # m[0], e.g. 1e-20 onto 1.0)
        moved = float(cs[i - 1]) * (1 + (len(g.m) + 2) * U)
        m[0] = (float(m[0]) + moved) * (1.0 + 2.0 ** -52) + TINY
    return Grid(m, g.k0 + i, g.m_inf, g.tilt, g.total)


TILT_MASS_LOG = 3.0  # the composed tilted mass stays ≤ e³ (the FFT noise propagates in proportion to it)


def _saddle_tilt(g: Grid, count: int, h: float, alpha_max: float, reach: float, mass_steps: int) -> float:
    """The tilt per node maximising α·ℓ_ref − count·ln M(α) over α ∈ {alpha_max, alpha_max/2, …} (ℓ_ref =
    count·mean + 6√count·sd; M(α) the grid's moment generating function), subject to α·(loss range) ≤ ``reach``
    and M(α)^mass_steps ≤ e^TILT_MASS_LOG; 0 for grids with a long left tail.  A heuristic shared by
    ``choose_tilt`` and ``block_tilt``: soundness never depends on it."""
    mean, std = moments(g)
    if mean - g.k0 > 20.0 * std:
        return 0.0
    w = g.m[g.m > 0]
    ks = (np.flatnonzero(g.m > 0) + g.k0) * h
    ref = (count * mean + 6.0 * math.sqrt(count) * std) * h
    best, best_alpha = 0.0, 0.0
    alpha = alpha_max
    while alpha > 1e-5:
        z = alpha * ks
        top = z.max()
        log_m = top + math.log(float((w * np.exp(z - top)).sum()) + 1e-300)
        gain = alpha * ref - count * max(log_m, 0.0)
        if gain > best and alpha * (ks.max() - ks.min()) <= reach and mass_steps * log_m <= TILT_MASS_LOG:
            best, best_alpha = gain, alpha
        alpha *= 0.5
    return best_alpha * h


def choose_tilt(g: Grid, count: int, h: float) -> float:
    """λ per node for the composed tilt (a heuristic: soundness never depends on it).

    The FFT error is absolute in the tilted domain, of the order of the tilted mass M(α)^count
    (M(α) = Σ_k m_k e^{αkh}, the per-step moment generating function computed on the grid: the right tails
    of subsampled mechanisms are heavy, moments would not do); untilted at loss ℓ it is multiplied by e^{−αℓ}.
    So α maximises α·ℓ_ref − count·ln M(α) (a saddle point) at ℓ_ref = count·mean + 6√count·sd, where
    δ ≈ 1e-5…1e-10 lives, over α ∈ {2, 1, ½, …}; no tilt for grids with a long left tail (measured: the
    ADD direction's tilted noise, moved up from far-negative losses, costs more than it saves)."""
    # α·range < 600 written as ≤ its predecessor: the same test on doubles
    return _saddle_tilt(g, count, h, 2.0, math.nextafter(600.0, 0.0), count)


def power(g: Grid, count: int, upward: bool, width_sd: float = 12.0, progress=None, lam: float = -1.0,
          extended: bool | None = None, direct: bool | None = None) -> Grid:
    """The count-fold self-convolution (tilted by ``lam``), clipped to its window.  Returns a tilted grid
    (``untilted`` to read it).

    From ``DIRECT_FROM`` steps on (or with ``direct=True``) by one spectrum power (``power_direct``, proof
    note Lemma 6: two binary64 FFTs in all; issue 21); otherwise, or where the powered spectrum leaves the
    floating-point range, by squaring with a window per level (Lemma 5; ``extended``: the FFTs in long double)."""
    if lam < 0:
        lam = 0.0
    if direct is None:
        direct = count >= DIRECT_FROM
    if direct:
        try:
            return power_direct(g, count, upward, width_sd, lam, progress)
        except FloatingPointError:
            pass
    return power_by_squaring(g, count, upward, width_sd, progress, lam, extended)


def power_by_squaring(g: Grid, count: int, upward: bool, width_sd: float = 12.0, progress=None,
                      lam: float = 0.0, extended: bool | None = None) -> Grid:
    """The count-fold self-convolution by squaring (tilted), every intermediate clipped to its window
    (proof note, Lemma 5).  Returns a tilted grid.  The base is squared first, so that result * base can use
    the base's transform at the squaring's length where that is cheaper (``SpectrumCache.length_for``)."""
    mean, std = moments(g)
    spectra = SpectrumCache()
    if extended is None:
        extended = count >= EXTENDED_FROM
    g = tilted(g, lam, upward)
    result = None
    base, base_count = g, 1
    res_count = 0
    n = count
    while True:
        if n >> 1:
            lo, hi = window(2 * base_count, mean, std, g.k0, g.k1, width_sd, lam == 0.0)
            square = convolve(base, base, lo, hi, upward, extended, spectra)
            if progress is not None:
                progress()
        if n & 1:
            if result is None:
                result, res_count = base, base_count
            else:
                res_count += base_count
                lo, hi = window(res_count, mean, std, g.k0, g.k1, width_sd, lam == 0.0)
                result = convolve(result, base, lo, hi, upward, extended, spectra)
            if progress is not None:
                progress()
        n >>= 1
        if not n:
            break
        base_count *= 2
        base = square
    return result


# ----------------------------------------------------------------------------------------------------
# one step
# ----------------------------------------------------------------------------------------------------

TAIL_Z = {GAUSSIAN: 9.0, LAPLACE: 42.0}  # K̄(z) < 2e-19: P-mass beyond is dropped (lower) / at +∞ (upper)


def pair_parameters(mech: int, direction: int, theta: float, q: float):
    """(a, s_P, b, s_Q) of the x-space description (module docstring)."""
    if direction == REMOVE or q >= 1.0:
        return q, theta, 0.0, 0.0
    return 0.0, 0.0, q, -theta


def p_support(mech: int, a_w: float, s_p: float) -> tuple[float, float]:
    """The x-range (x_start, x_stop) kept for a step: where P = (1 − a)K + aK(· − s_P) has its mass, to
    TAIL_Z standard units (H integrates the loss under P only).  A heuristic for the lower side (mass
    outside is dropped); the upper side's chord is above δ whatever its node range.  Rate 1: only around
    s_P (issue 19: the range [−z, θ + z] made a merged Gaussian's grid θ/18 times too wide)."""
    z = TAIL_Z[mech]
    if a_w >= 1.0:
        return s_p - z, s_p + z
    return min(0.0, s_p) - z, max(0.0, s_p) + z


TAIL_MASS = 1e-4  # P-mass beyond the node from which the one-step grids use every TAIL_STRIDE-th node
TAIL_STRIDE = 8
TAIL_FROM = 1000  # counts from which a phase's one-step grids stride their tail (bounds.composition)
# graded tails (``tail_nodes``): the stride doubles each time the P-mass beyond falls by this factor
TAIL_GRADE = 1e4


def _outer_mass(mech: int, a_w: float, s_p: float, remove: bool, x: float) -> float:
    """P(X > x) (REMOVE) or P(X < x) (ADD, P = K) in floats (guidance only)."""
    def kbar(z):
        return 0.5 * math.erfc(z * SQRT_HALF) if mech == GAUSSIAN else (
            0.5 * math.exp(-z) if z >= 0 else 1.0 - 0.5 * math.exp(z))
    return (1.0 - a_w) * kbar(x) + a_w * kbar(x - s_p) if remove else kbar(-x)


def _tail_x(mech: int, a_w: float, s_p: float, remove: bool, level: float, lo: float, hi: float,
            iterations: int = 60) -> float:
    """By bisection on [lo, hi] (floats, guidance only): REMOVE the smallest x with P(X > x) ≤ level (the
    right end of the final bracket), ADD the largest x with P(X < x) ≤ level (its left end)."""
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        if (_outer_mass(mech, a_w, s_p, remove, mid) > level) == remove:
            lo = mid
        else:
            hi = mid
    return hi if remove else lo


def tail_stride(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, h: float, k_lo: int, k_hi: int,
                ) -> tuple[int, int, int]:
    """(k_head, k_tail, stride): below node k_head and beyond node k_tail, where the step's P-mass is ≤
    TAIL_MASS, the upper chord and the lower cells use every stride-th node only (issue 21: at q = 0.001 more
    than 99 % of the REMOVE one-step nodes lie in a right tail of P-mass ≈ 2·10⁻⁵, and most ADD nodes in a
    left tail; building them was half of a 10⁵-step ε), and coarser still further out (``tail_nodes``).  A
    coarser chord is still above δ (convexity, Lemma 2, ``upper_from_values_at``) and any partition into
    certified cells is a lower side (Lemma 3): soundness never depends on this choice, only the width does — a
    tail's share of the one-step error grows by about stride² times its mass.  REMOVE (0 < a < 1): the right
    tail; ADD (a = 0 < b < 1): the left tail (P = K there).  (−2⁶², 2⁶², 1): no striding."""
    off = (-2 ** 62, 2 ** 62, 1)
    if k_hi - k_lo < 64 * TAIL_STRIDE:
        return off
    remove = 0.0 < a_w < 1.0
    if not remove and not (a_w <= 0.0 and 0.0 < b_w < 1.0):
        return off
    x0, x1 = p_support(mech, a_w, s_p)
    if remove and _outer_mass(mech, a_w, s_p, remove, x0) <= TAIL_MASS or \
            not remove and _outer_mass(mech, a_w, s_p, remove, x1) <= TAIL_MASS:
        return off
    x = _tail_x(mech, a_w, s_p, remove, TAIL_MASS, x0, x1)
    if remove:
        k_tail = math.ceil(loss_at(mech, a_w, s_p, b_w, s_q, x) / h)
        if k_tail >= k_hi - 16 * TAIL_STRIDE or k_tail <= k_lo:
            return off
        return -2 ** 62, int(k_tail), TAIL_STRIDE
    k_head = math.floor(loss_at(mech, a_w, s_p, b_w, s_q, x) / h)
    if k_head <= k_lo + 16 * TAIL_STRIDE or k_head >= k_hi:
        return off
    return int(k_head), 2 ** 62, TAIL_STRIDE


def tail_nodes(mech: int, a_w: float, s_p: float, b_w: float, s_q: float, h: float, k_lo: int, k_hi: int,
               k_head: int, k_tail: int, stride: int) -> np.ndarray:
    """The increasing nodes (int64, k_lo and k_hi included) on which a strided one-step grid lives: every node
    between k_head and k_tail (``tail_stride``), every stride-th node beyond, and a *graded* tail — the
    stride doubles each time the step's P-mass beyond the band's first node falls by ``TAIL_GRADE``
    (issue 21, 10⁶ steps at q = 1e-4: the REMOVE one-step grid at h = 2⁻¹⁷ spans losses 0…0.85, 111 201 nodes,
    of which 14 192 stride-8 nodes in a tail of P-mass 10⁻⁴, mostly beyond P-mass 10⁻¹⁰; the T11 values and
    the greedy cells on them were 37 % of that ε; now 2 529 nodes).  Every node beyond k_tail (below k_head)
    lies on the stride-8 lattice through it.  With stride s_j = 2^j·stride in the band of P-mass ≤
    TAIL_MASS/TAIL_GRADE^j, the tail's share of the one-step error (≈ stride² times the mass,
    ``tail_stride``) grows by at most Σ_j (4/TAIL_GRADE)^j (< 1.001) over a single stride (measured: the ε
    sandwich moved by < 10⁻⁸ at 10⁶ steps, q = 1e-4, and by 6·10⁻⁷ at 10³ steps, q = 0.01; TAIL_GRADE = 64
    had moved the latter by 7·10⁻⁶).  Soundness does not depend on the nodes (Lemma 2: any chord; Lemma 3: any cells):
    the band edges are found in floats (guidance only)."""
    remove = k_tail < 2 ** 62
    x0, x1 = p_support(mech, a_w, s_p)
    level = TAIL_MASS
    k, s = (k_tail, stride) if remove else (k_head, stride)
    edge = k_hi if remove else k_lo
    x_prev = x0 if remove else x1
    parts = []
    while True:
        level /= TAIL_GRADE
        k_next = edge
        if level > 0.0 and _outer_mass(mech, a_w, s_p, remove, x1 if remove else x0) <= level:
            # the band ends where the P-mass beyond falls below level (to 2⁻³⁰ of the support: nodes only)
            x = _tail_x(mech, a_w, s_p, remove, level, x_prev, x1, 40) if remove else \
                _tail_x(mech, a_w, s_p, remove, level, x0, x_prev, 40)
            x_prev = x
            lb = loss_at(mech, a_w, s_p, b_w, s_q, x)
            if remove:
                kb = math.ceil(lb / h)
                k_next = min(k + max(-(-(kb - k) // s), 0) * s, edge)
            else:
                kb = math.floor(lb / h)
                k_next = max(k - max(-(-(k - kb) // s), 0) * s, edge)
        if remove:
            parts.append(np.arange(k, k_next, s, dtype=np.int64))
        else:
            parts.append(np.arange(k, k_next, -s, dtype=np.int64))
        if k_next == edge:
            break
        k, s = k_next, 2 * s
    tail = np.concatenate(parts)
    if remove:
        return np.concatenate((np.arange(k_lo, k_tail, dtype=np.int64), tail, np.array([k_hi], dtype=np.int64)))
    return np.concatenate((np.array([k_lo], dtype=np.int64), tail[::-1], np.arange(k_head + 1, k_hi + 1,
                                                                                    dtype=np.int64)))


def one_step(mech: int, direction: int, theta: float, q: float, h: float, theta_lower: float = -1.0,
             tail: bool = False) -> tuple[Grid, Grid]:
    """(upper, lower) grid measures of one step of the (subsampled) Gaussian/Laplace pair; the lower one at
    ``theta_lower`` when given (θ rounded down; δ is non-decreasing in θ), on the same node range; with
    ``tail`` the thin right tail on every stride-th node (``tail_stride``)."""
    a_w, s_p, b_w, s_q = pair_parameters(mech, direction, theta, q)
    x_start, x_stop = p_support(mech, a_w, s_p)
    lmin = loss_at(mech, a_w, s_p, b_w, s_q, x_start)
    lmax = loss_at(mech, a_w, s_p, b_w, s_q, x_stop)
    k_lo = math.floor(lmin / h) - 1
    k_hi = math.ceil(lmax / h) + 1
    # the strided tail only where asked (``tail``: a long self-composition, whose δ at the usual budgets hardly
    # sees the single-step tail; a single step queried deep in its tail keeps every node)
    k_head, k_tail, stride = tail_stride(mech, a_w, s_p, b_w, s_q, h, k_lo, k_hi) if tail else (-2 ** 62, 2 ** 62, 1)
    targets = np.zeros(0, dtype=np.int64)  # the lower cells' target nodes (empty: every node)
    if stride > 1:
        # k_lo … k_tail − 1, then the graded right tail, then k_hi (REMOVE); k_lo, the graded left tail, then
        # k_head … k_hi (ADD)
        ks = targets = tail_nodes(mech, a_w, s_p, b_w, s_q, h, k_lo, k_hi, k_head, k_tail, stride)
        d = profile_values_at(mech, direction, theta, q, ks, h)
        m_sub, m_inf = upper_from_values_at(d, ks, h)
        mu = np.zeros(k_hi - k_lo + 1)
        mu[ks - k_lo] = m_sub
    else:
        d = profile_values(mech, direction, theta, q, k_lo, k_hi, h)
        mu, m_inf = upper_from_values(d, k_lo, h)
    if theta_lower >= 0.0 and theta_lower != theta:
        a_w, s_p, b_w, s_q = pair_parameters(mech, direction, theta_lower, q)
        x_start, x_stop = p_support(mech, a_w, s_p)
        k_lo_l = min(k_lo, math.floor(loss_at(mech, a_w, s_p, b_w, s_q, x_start) / h) - 1)
        low, _ = lower_vector(mech, a_w, s_p, b_w, s_q, h, k_lo_l, k_hi, x_start, x_stop, targets)
        return _trim(Grid(mu, k_lo, m_inf)), _trim(Grid(low, k_lo_l, 0.0))
    low, _ = lower_vector(mech, a_w, s_p, b_w, s_q, h, k_lo, k_hi, x_start, x_stop, targets)
    return _trim(Grid(mu, k_lo, m_inf)), _trim(Grid(low, k_lo, 0.0))


def _trim(g: Grid) -> Grid:
    nz = np.flatnonzero(g.m)
    if len(nz) == 0:
        return Grid(np.zeros(1), g.k0, g.m_inf)
    return Grid(g.m[nz[0]: nz[-1] + 1].copy(), g.k0 + int(nz[0]), g.m_inf)


def eps_delta_step(eps0: float, delta0: float, h: float) -> tuple[Grid, Grid]:
    """The four-atom randomized-response pair of an (ε₀, δ₀) guarantee (Kairouz–Oh–Viswanath):
    P-mass δ₀ at +∞, (1 − δ₀)e^{ε₀}/(1 + e^{ε₀}) at ε₀, (1 − δ₀)/(1 + e^{ε₀}) at −ε₀.
    Upper: each finite atom split between its neighbouring nodes preserving P- and Q-mass (exact
    connect-the-dots for an atom); lower: each atom moved down to the node below."""
    w_hi = (1.0 - delta0) / (1.0 + math.exp(-eps0))  # P-mass at +ε₀
    # P-mass at −ε₀, as e^{−ε₀}/(1 + e^{−ε₀}) (1/(1 + e^{ε₀}) overflowed for ε₀ > 709.78: issue 19)
    w_lo = (1.0 - delta0) * math.exp(-eps0) / (1.0 + math.exp(-eps0))
    atoms = [(eps0, w_hi), (-eps0, w_lo)]
    k_lo = math.floor(-eps0 / h) - 1
    k_hi = math.ceil(eps0 / h) + 1
    up = np.zeros(k_hi - k_lo + 1)
    lo = np.zeros(k_hi - k_lo + 1)
    rel = 16 * U
    for loc, w in atoms:
        if w <= 0:
            continue
        k = math.floor(loc / h)
        if k * h == loc:
            up[k - k_lo] += w * (1 + rel)
            lo[k - k_lo] += w * (1 - rel)
            continue
        lo[k - k_lo] += w * (1 - rel)
        # masses m_a at kh, m_b at (k+1)h: m_a + m_b = w, m_a e^{−kh} + m_b e^{−(k+1)h} = w e^{−loc}
        # m_b = w(1 − e^{kh − loc})/(1 − e^{−h}), m_a = w − m_b
        mb = w * (-math.expm1(k * h - loc)) / (-math.expm1(-h))
        ma = w * math.expm1(-h + (loc - k * h)) / math.expm1(-h) * math.exp(k * h - loc)
        # ma = w e^{kh−loc}(1 − e^{loc−(k+1)h})/(1 − e^{−h}); both formulas are products/quotients of
        # correctly-signed expm1 values: relative error ≤ 8·ERFC_ULPS·U each
        up[k - k_lo] += max(ma, 0.0) * (1 + 8 * ERFC_ULPS * U)
        up[k + 1 - k_lo] += max(mb, 0.0) * (1 + 8 * ERFC_ULPS * U)
    return _trim(Grid(up, k_lo, delta0)), _trim(Grid(lo, k_lo, delta0))


# ----------------------------------------------------------------------------------------------------
# self-composition by one spectrum power (issue 21; proof note, Lemma 6)
# ----------------------------------------------------------------------------------------------------

SQRT2_GAMMA2 = math.sqrt(2.0) * 2.0 * U / (1.0 - 2.0 * U)  # complex product: |fl(xy) − xy| ≤ √2γ₂|x||y|
POW_ABS = 2.0 ** -1070  # absolute slack per ball product (four underflowing real products, ≤ 2⁻¹⁰⁷⁵ each)
DEAD = 2.0 ** -600  # spectrum entries whose count-th power is certified below this are set to 0
# counts from which ``power`` raises the spectrum directly (Lemma 6).  Below, squaring in binary64 (Lemma 5),
# as before issue 21: its error stays far below the direct power's at tiny δ (20 steps at q = 0.105, δ(10) ≈
# 2.2e-15: lower side 2.2315e-15 by squaring, 4.8e-17 by the direct power) and it was never the slow part —
# the long-double squaring from EXTENDED_FROM on was, and that is what the direct power replaces
DIRECT_FROM = EXTENDED_FROM


def smooth_size(n: int) -> int:
    """The smallest even N = 2^a·3^b·5^c ≥ n (a ≥ 1): an FFT length pocketfft factors into radix-2/3/4/5 stages
    (issue 21: 2²⁰ for a window of 854 689 nodes spent 18 % of the FFT on padding; 864 000 = 2⁸·3³·5³ is
    also faster per point, measured 0.023 s against 0.037 s for one rfft/irfft pair).  Even, so the half
    spectrum has a real Nyquist entry (``half_spectrum_sum``)."""
    n = max(int(n), 2)
    best = _fft_size(n)
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            m = p35 * 2
            while m < n:
                m *= 2
            if m < best:
                best = m
            p35 *= 3
        p5 *= 5
    return best


def fft_stages(n_fft: int) -> int:
    """L for an FFT of length N = 2^a·3^b·5^c: a + 2b + 3c, i.e. a radix-3 stage charged as two radix-2
    stages and a radix-5 stage as three (⌈log₂ r⌉; log₂ N for powers of two; proof note Lemma 6(i))."""
    n = int(n_fft)
    stages = 0
    for r, cost in ((2, 1), (3, 2), (5, 3)):
        while n % r == 0:
            n //= r
            stages += cost
    if n != 1:
        raise ValueError(f"fft_stages: n_fft = {n_fft!r} is not of the form 2^a·3^b·5^c")
    return stages


def fft_entry_error(n_fft: int, unit: float = U) -> float:
    """φ with |fl(DFT x)_j − (DFT x)_j| ≤ φ·‖x‖₁ for every j (componentwise form of Higham's analysis: the
    computed radix-2 transform is (A_L + ΔA_L)…(A_1 + ΔA_1)x with |ΔA_k| ≤ η|A_k| and |A_L|…|A_1| the all-ones
    matrix, so the error is ≤ ((1 + η)^L − 1)·‖x‖₁ ≤ Lη/(1 − Lη)·‖x‖₁; ``FFT_SAFETY`` on φ as in
    ``fft_error_bound``, proof note Lemma 6).  For N = 2^a·3^b·5^c, L = ``fft_stages`` (a + 2b + 3c): each
    radix-r stage (r ≤ 5) is assumed to err by at most ⌈log₂ r⌉ radix-2 stages' η, the mixed-radix
    factorisation keeping the one-path structure (|A_L|…|A_1| all ones)."""
    lg = fft_stages(n_fft)
    mu = TWIDDLE_ULPS * unit
    g4 = 4 * unit / (1 - 4 * unit)
    eta = mu + g4 * (math.sqrt(2.0) + mu)
    return FFT_SAFETY * lg * eta / (1 - FFT_SAFETY * lg * eta) * (1 + 1e-6)


@njit(cache=True)
def _pow_up(x: float, n: int) -> float:
    """x**n for x ≥ 0, rounded up (every product rounded to nearest, then one ulp up: ≥ the exact product in
    every regime, subnormal included)."""
    r = 1.0
    b = x
    while n > 0:
        if n & 1:
            r = _up(r * b)
        n >>= 1
        if n:
            b = _up(b * b)
    return r


@njit(cache=True)
def _pow_dn(x: float, n: int) -> float:
    r = 1.0
    b = x
    while n > 0:
        if n & 1:
            r = _dn(r * b)
        n >>= 1
        if n:
            b = _dn(b * b)
    return r


@njit(cache=True)
def dead_threshold(count: int) -> float:
    """A τ ≤ 1 with τ^count ≤ DEAD, certified by upward powering (bisection on the exponent bits)."""
    lo, hi = 2.0 ** -1074, 1.0
    for _ in range(64):  # geometric bisection (τ = 2^(−600/count) is 2⁻³⁰⁰ for count = 2)
        mid = math.sqrt(lo) * math.sqrt(hi)
        if _pow_up(mid, count) <= DEAD:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True)
def spectrum_power(spec: np.ndarray, e_a: float, count: int, tau: float):
    """(Z̃, r, m): Z̃_j ≈ Ã_j^count with |Z̃_j − A_j^count| ≤ r_j and |Z̃_j| ≤ m_j, where
    Ã = ``spec`` is the computed spectrum and |Ã_j − A_j| ≤ e_a for the exact one A (proof note, Lemma 6).

    Ball arithmetic over binary powering: a product of balls (x₁, ρ₁)(x₂, ρ₂) ∋ X₁X₂ has centre fl(x₁x₂)
    and radius m₁ρ₂ + m₂ρ₁ + ρ₁ρ₂ + √2γ₂m₁m₂ + POW_ABS (Higham, Lemma 3.5, plus underflow), m_i ≥ |x_i|;
    every bound operation (on nonnegative values) is rounded up by ``_up0``.  An entry with
    |Ã_j| + e_a ≤ tau (τ^count ≤ DEAD) is set to 0 with radius DEAD (|A_j|^count ≤ τ^count)."""
    n = spec.shape[0]
    z = np.zeros(n, dtype=np.complex128)
    rad = np.empty(n)
    mag = np.zeros(n)
    for j in range(n):
        a = spec[j].real
        b = spec[j].imag
        m0 = _up0(math.sqrt(_up0(_up0(a * a) + _up0(b * b))))
        if _up0(m0 + e_a) <= tau:
            rad[j] = DEAD
            continue
        # result ball (1, 0, |1| = 1), base ball (a + ib, e_a, m0)
        xr, xi, xrho, xm = 1.0, 0.0, 0.0, 1.0
        br, bi, brho, bm = a, b, e_a, m0
        k = count
        while k > 0:
            if k & 1:
                pr = xr * br - xi * bi
                pi = xr * bi + xi * br
                xrho = _up0(_up0(_up0(_up0(xm * brho) + _up0(bm * xrho)) + _up0(xrho * brho))
                           + _up0(_up0(SQRT2_GAMMA2 * _up0(xm * bm)) + POW_ABS))
                xm = _up0(_up0(_up0(xm * bm) * (1.0 + SQRT2_GAMMA2)) + POW_ABS)
                xr, xi = pr, pi
            k >>= 1
            if k:
                sr = br * br - bi * bi
                si = 2.0 * (br * bi)
                brho = _up0(_up0(_up0(2.0 * _up0(bm * brho)) + _up0(brho * brho))
                           + _up0(_up0(SQRT2_GAMMA2 * _up0(bm * bm)) + POW_ABS))
                bm = _up0(_up0(_up0(bm * bm) * (1.0 + SQRT2_GAMMA2)) + POW_ABS)
                br, bi = sr, si
        z[j] = complex(xr, xi)
        rad[j] = xrho
        mag[j] = xm
    return z, rad, mag


@njit(cache=True)
def half_spectrum_sum(v: np.ndarray, n_fft: int) -> float:
    """(v_0 + 2Σ_{0<j<N/2} v_j + v_{N/2})/N rounded up: the full-spectrum sum of a Hermitian half spectrum,
    divided by N.  Nonnegative terms (doubling exact): the recursive sum is ≤ (1 + γ_n) too small at most
    (Higham, eq. 4.4; additions of doubles never underflow), so it is enlarged by (1 + 2nU); the division
    by the power of two N is exact unless subnormal (one ulp up)."""
    s = 0.0
    last = v.shape[0] - 1
    for j in range(v.shape[0]):
        s += v[j] if (j == 0 or j == last) else 2.0 * v[j]
    s = _up(s * (1.0 + 2.0 * (v.shape[0] + 2) * U))
    return _up(s / n_fft)


@njit(cache=True)
def _log_mgf_charged(tot: float, n: int, z0: float) -> float:
    """The outward charges shared by ``log_mgf_up`` and ``log_mgf_up_sparse`` (see ``log_mgf_up``): ln of the
    weighted sum ``tot`` of n weights, plus the shift z₀, each error charged upward."""
    tot += float(n) * float(n) * TINY
    rel = 2.0 * (n * (ERFC_ULPS + 3.0) + 4.0) * U
    lt = math.log(tot) + 2.0 * rel  # ln(tot·(1 + rel)) ≤ ln tot + rel; the 2 spares the log's own error
    lt = lt + (ERFC_ULPS + 2.0) * U * abs(lt)
    v = lt + z0 + 2.0 * U * abs(z0)
    return v + 4.0 * U * (abs(lt) + abs(z0))


@njit(cache=True)
def log_mgf_up(m: np.ndarray, k0: int, s: float) -> float:
    """An upper bound on ln Σ_i m_i e^{s(k0 + i)} (m ≥ 0, s per node), or −inf for m = 0.

    Shifted by z₀ = fl(s·k_end), k_end the end of the vector where s·k is largest, so every weight e^{s k − z₀}
    is ≤ e^{2U|z₀|} (z₀'s rounding); the weights are formed by the recurrence w ← fl(w·r), r = fl(e^{−|s|}),
    walking away from that end (one exp per call instead of one per entry).  Relative error of the i-th
    weight: r carries c ulps, each product U, so ≤ (i(c + 1) + 1)·U·1.01 ≤ n(c + 2)U; products that
    underflow add ≤ 2⁻¹⁰⁷⁵ each, after which the weights only shrink: ≤ n·2⁻¹⁰⁷⁵ per weight, n²·2⁻¹⁰⁷⁴ in
    all (added).  The n-term sum adds (1 + nU), the logarithm c ulps of its magnitude, z₀'s rounding
    2U|z₀| and the final sum U of the magnitudes: each charged outward, with a factor 2 to spare."""
    n = m.shape[0]
    if n == 0:
        return -np.inf
    r = math.exp(-abs(s))
    tot = 0.0
    w = 1.0
    any_pos = False
    if s >= 0.0:
        z0 = s * (k0 + n - 1)
        for i in range(n - 1, -1, -1):
            if m[i] > 0.0:
                tot += m[i] * w
                any_pos = True
            w *= r
    else:
        z0 = s * k0
        for i in range(n):
            if m[i] > 0.0:
                tot += m[i] * w
                any_pos = True
            w *= r
    if not any_pos:
        return -np.inf
    return _log_mgf_charged(tot, n, z0)


MGF_GAP = 64  # gaps between nonzero entries up to this are one table product in ``log_mgf_up_sparse``


@njit(cache=True)
def log_mgf_up_sparse(vals: np.ndarray, idx: np.ndarray, n: int, k0: int, s: float) -> float:
    """``log_mgf_up`` of the length-n vector whose nonzero entries are ``vals`` at the increasing positions
    ``idx`` (issue 21: the strided one-step tails are 7/8 zeros; the Chernoff searches made ≈ 30 passes over
    them).  The same bound: walking from the same end, the weight of an entry is the product of the powers
    P_g = fl(P_{g−1}·r) (P_1 = r, g ≤ ``MGF_GAP``; longer gaps in chunks) over the gaps before it, which
    carries g factors of r and g roundings for a gap of g — exactly what g steps of the dense recurrence
    w ← fl(w·r) carry — so the i-th weight's relative error is again ≤ (i(c + 1) + 1)U·1.01, its underflow
    ≤ n·2⁻¹⁰⁷⁵, and the charges of ``log_mgf_up`` (with the dense length n) apply unchanged."""
    nn = vals.shape[0]
    if nn == 0:
        return -np.inf
    r = math.exp(-abs(s))
    pw = np.empty(MGF_GAP + 1)
    pw[0] = 1.0
    for g in range(1, MGF_GAP + 1):
        pw[g] = pw[g - 1] * r
    tot = 0.0
    w = 1.0
    if s >= 0.0:  # walk down from the top end, where s·k is largest
        z0, pos, first, stop, step = s * (k0 + n - 1), n - 1, nn - 1, -1, -1
    else:
        z0, pos, first, stop, step = s * k0, 0, 0, nn, 1
    for jj in range(first, stop, step):
        gap = abs(pos - idx[jj])
        while gap > MGF_GAP:
            w *= pw[MGF_GAP]
            gap -= MGF_GAP
        w *= pw[gap]
        pos = idx[jj]
        tot += vals[jj] * w
    return _log_mgf_charged(tot, n, z0)


@njit(cache=True)
def _chernoff_terms(lm: float, count: int, l2: float, second: bool, nu: float, edge: int, above: bool) -> float:
    """count·lm (+ l2 if ``second``) ∓ ν·edge, each sum and product rounded up (one ulp-sized charge per
    operation); −∞ where a log-MGF is −∞ (no mass).  The arithmetic of both Chernoff bounds below."""
    if lm == -np.inf or (second and l2 == -np.inf):
        return -np.inf
    t1 = count * lm
    t1 += U * abs(t1)
    if second:
        t1 = t1 + l2
        t1 += U * abs(t1)
    t2 = -nu * edge if above else nu * edge
    t2 += U * abs(t2)
    v = t1 + t2
    return v + U * abs(v)


@njit(cache=True)
def _chernoff_log_sparse(v1, i1, n1, k0, count, v2, i2, n2, k02, lam, nu, edge, above):
    """``_chernoff_log_product`` on the nonzero entries (``log_mgf_up_sparse``; same rounding charges)."""
    s = lam + nu if above else lam - nu
    l2 = log_mgf_up_sparse(v2, i2, n2, k02, s) if n2 > 0 else 0.0
    return _chernoff_terms(log_mgf_up_sparse(v1, i1, n1, k0, s), count, l2, n2 > 0, nu, edge, above)


@njit(cache=True)
def _chernoff_log_product(m: np.ndarray, k0: int, count: int, m2: np.ndarray, k02: int, lam: float, nu: float,
                          edge: int, above: bool) -> float:
    """count·ln M(λ ± ν) + ln M₂(λ ± ν) ∓ ν·edge rounded up (M, M₂ the MGFs of m and m2 in node units; an
    empty m2 is the point mass at 0, M₂ = 1): a bound on ln Σ_{k ≥ edge} c_k e^{λk} (above) or
    ln Σ_{k ≤ edge} c_k e^{λk}, c = m^{*count} * m2 (Markov; the MGF of a convolution is the product)."""
    s = lam + nu if above else lam - nu
    second = m2.shape[0] > 0
    l2 = log_mgf_up(m2, k02, s) if second else 0.0
    return _chernoff_terms(log_mgf_up(m, k0, s), count, l2, second, nu, edge, above)


@njit(cache=True)
def _chernoff_log(m: np.ndarray, k0: int, count: int, lam: float, nu: float, edge: int, above: bool) -> float:
    """ln of count·ln M(λ ± ν) ∓ ν·edge rounded up (M the MGF of m in node units): a bound on
    ln Σ_{k ≥ edge} c_k e^{λk} (above) or ln Σ_{k ≤ edge} c_k e^{λk}, c = m^{*count} (Markov)."""
    return _chernoff_log_product(m, k0, count, np.empty(0), 0, lam, nu, edge, above)


@njit(cache=True)
def chernoff_mass_product(m: np.ndarray, k0: int, count: int, m2: np.ndarray, k02: int, lam: float, edge: int,
                          above: bool, scale: float) -> float:
    """An upper bound on Σ_{k ≥ edge} c_k e^{λk} (above) or Σ_{k ≤ edge} c_k e^{λk} for c = m^{*count} * m2
    (m2 empty: c = m^{*count}), the minimum of the Chernoff bound over ν > 0 (any ν gives a bound; the search
    — a walk by factors of 4 from the caller's guess ``scale``, then golden sections — only affects the
    value).  Rounded up: exp's c ulps and the argument's rounding (U of its magnitude) are charged.  The
    vectors are compressed to their nonzero entries once (``log_mgf_up_sparse``)."""
    a_idx = np.nonzero(m > 0.0)[0]
    a_val = m[a_idx]
    n1 = m.shape[0]
    b_idx = np.nonzero(m2 > 0.0)[0]
    b_val = m2[b_idx]
    n2 = m2.shape[0]
    best = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, 0.0, edge, above)  # ν = 0: the whole (tilted) mass
    bnu = 0.0
    # the exponent count·ln M(λ ± ν) ∓ ν·edge is convex in ν (ln M is a log-sum-exp): walk from the guess by
    # factors of 4 in the direction that lowers it and stop at the first rise (issue 21: the fixed scan over
    # 4^−24…4^4 and a golden section evaluating both interior points took 53 passes over the one-step
    # vector per bound; this takes about 15).  Heavy right tails put the optimum far below the guess: up to
    # 24 steps down are allowed, as before.
    v0 = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, scale, edge, above)
    if v0 < best:
        best, bnu = v0, scale
    vd = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, 0.25 * scale, edge, above)
    if vd < v0:
        cur, vc = 0.25 * scale, vd
        for _ in range(23):
            nxt = 0.25 * cur
            vn = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, nxt, edge, above)
            if not (vn < vc):
                break
            cur, vc = nxt, vn
    else:
        cur, vc = scale, v0
        for _ in range(4):
            nxt = 4.0 * cur
            vn = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, nxt, edge, above)
            if not (vn < vc):
                break
            cur, vc = nxt, vn
    if vc < best:
        best, bnu = vc, cur
    if best == -np.inf:
        return 0.0
    if bnu > 0.0:
        # golden sections on [bnu/4, 4·bnu], one new interior point per step
        a, b = 0.25 * bnu, 4.0 * bnu
        g = 0.6180339887498949
        c1 = b - g * (b - a)
        c2 = a + g * (b - a)
        v1 = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, c1, edge, above)
        v2 = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, c2, edge, above)
        for _ in range(12):
            if v1 < best:
                best = v1
            if v2 < best:
                best = v2
            if v1 < v2:
                b, c2, v2 = c2, c1, v1
                c1 = b - g * (b - a)
                v1 = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, c1, edge, above)
            else:
                a, c1, v1 = c1, c2, v2
                c2 = a + g * (b - a)
                v2 = _chernoff_log_sparse(a_val, a_idx, n1, k0, count, b_val, b_idx, n2, k02, lam, c2, edge, above)
        if v1 < best:
            best = v1
        if v2 < best:
            best = v2
    if best < -745.0:
        return 2.0 ** -1074
    if best > 709.0:
        return np.inf
    return _up(math.exp(best + U * abs(best)) * (1.0 + (ERFC_ULPS + 1.0) * U))


@njit(cache=True)
def chernoff_mass(m: np.ndarray, k0: int, count: int, lam: float, edge: int, above: bool,
                  scale: float) -> float:
    """An upper bound on Σ_{k ≥ edge} c_k e^{λk} (above) or Σ_{k ≤ edge} c_k e^{λk} for c = m^{*count}
    (``chernoff_mass_product`` without a second factor)."""
    return chernoff_mass_product(m, k0, count, np.empty(0), 0, lam, edge, above, scale)


def _total_power(g: Grid, count: int, upward: bool) -> tuple[float, float]:
    """(finite mass, mass at +∞) of the count-fold self-convolution of g (finite mass F, atom A at +∞):
    F^count and (F + A)^count − F^count, bounded by count·A·(F + A)^{count−1} from above (mean value theorem)
    and by count·A·F^{count−1} from below."""
    # ``total`` may be a plain recursive sum of the n entries (Grid's default): within γ_n of the exact one
    n = len(g.m) + 2
    f, a = (g.total * (1.0 + 2.0 * n * U), g.m_inf) if upward else (g.total * (1.0 - 2.0 * n * U), g.m_inf)
    if upward:
        tot = _pow_up(f, count)
        if a <= 0.0:
            return tot, 0.0
        inf1 = _up(_up(count * a) * _pow_up(_up(f + a), count - 1))
        inf2 = _up(_pow_up(_up(f + a), count) - _pow_dn(f, count))
        return tot, min(inf1, _up(inf2), 1.0)
    tot = _pow_dn(f, count)
    if a <= 0.0:
        return tot, 0.0
    return tot, _dn(_dn(count * a) * _pow_dn(f, count - 1))


def _total_product(g: Grid, count: int, extra: Grid, upward: bool) -> tuple[float, float]:
    """(finite mass, mass at +∞) of g^{*count} * extra: with (F, A) = ``_total_power(g, count)`` and (F₂, A₂) the
    extra factor's, the finite mass is F·F₂ and the atom (F + A)(F₂ + A₂) − F·F₂, which lies between
    A·F₂ + F·A₂ and A(F₂ + A₂) + (F + A)A₂ (expand the product; every term is nonnegative)."""
    f, a = _total_power(g, count, upward)
    n = len(extra.m) + 2
    if upward:
        f2 = extra.total * (1.0 + 2.0 * n * U)
        a2 = extra.m_inf
        inf = _up(_up(a * _up(f2 + a2)) + _up(_up(f + a) * a2))
        return _up(f * f2), min(inf, 1.0)
    f2 = extra.total * (1.0 - 2.0 * n * U)
    a2 = extra.m_inf
    return _dn(f * f2), _dn(_dn(a * f2) + _dn(f * a2))


@njit(cache=True)
def spectrum_times(z: np.ndarray, rad: np.ndarray, mag: np.ndarray, spec_b: np.ndarray, e_b: float):
    """In place: the balls (z_j, rad_j) ∋ Z_j (|z_j| ≤ mag_j) times the balls (B̃_j, e_b) ∋ B_j, with the product
    rule of ``spectrum_power`` (proof note, Lemma 6(ii)): centre fl(z_j B̃_j), radius
    mag_j·e_b + (|B̃_j| + e_b)·rad_j + √2γ₂·mag_j|B̃_j| + POW_ABS, every bound operation rounded up.  A dead
    entry (z_j = 0, mag_j = 0, rad_j = DEAD) stays 0 with radius (|B̃_j| + e_b)·DEAD + POW_ABS."""
    for j in range(z.shape[0]):
        br = spec_b[j].real
        bi = spec_b[j].imag
        mb = _up0(math.sqrt(_up0(_up0(br * br) + _up0(bi * bi))))
        xm = mag[j]
        xrho = rad[j]
        xr = z[j].real
        xi = z[j].imag
        rad[j] = _up0(_up0(_up0(xm * e_b) + _up0(_up0(mb + e_b) * xrho))
                      + _up0(_up0(SQRT2_GAMMA2 * _up0(xm * mb)) + POW_ABS))
        mag[j] = _up0(_up0(_up0(xm * mb) * (1.0 + SQRT2_GAMMA2)) + POW_ABS)
        z[j] = complex(xr * br - xi * bi, xr * bi + xi * br)


def power_direct(g: Grid, count: int, upward: bool, width_sd: float = 12.0, lam: float = 0.0,
                 progress=None, extra: Grid | None = None) -> Grid:
    """The count-fold self-convolution of g (times one more factor ``extra``, untilted, if given) as one
    spectrum power (proof note, Lemma 6): the tilted one-step vector a is transformed once (FFT length N ≥
    the window), its spectrum raised to the count-th power entry by entry in ball arithmetic (and multiplied
    by the extra factor's spectrum, a ball too), and transformed back; the result is the *circular*
    convolution, whose entry k is c_k plus the (nonnegative) tilted mass of the nodes ≡ k mod N.

    Upper: c̃ + E (E the FFT and powering error of every entry; the wrapped mass is nonnegative), the untilted
    mass below the window by a Chernoff bound moved up to its first node, above the circle's last node
    to +∞.  Lower: max(c̃ − E − W, 0), W a Chernoff bound on the tilted mass outside the circle (which wraps
    onto it); the mass outside the window is dropped.  Returns a tilted grid like ``power``."""
    if count == 1 and extra is None:
        return tilted(g, lam, upward)
    if extra is not None and extra.tilt != 0.0:
        raise ValueError("power_direct: the extra factor must be untilted")
    mean, std = moments(g)
    if extra is None:
        lo, hi = window(count, mean, std, g.k0, g.k1, width_sd, lam == 0.0)
        base, k_end = count * g.k0, count * g.k1
        m2, k02 = np.empty(0), 0
        c_mean, c_var = count * mean, count * std * std
    else:
        # the window of the sum: means and variances add, the top widened by both factors' reach above
        # their means (as ``window``); a heuristic like every window
        mean2, std2 = moments(extra)
        c_mean, c_var = count * mean + mean2, count * std * std + std2 * std2
        spread = width_sd * math.sqrt(c_var)
        lo = math.floor(c_mean - spread) - 8
        if lam == 0.0:
            lo -= math.ceil(mean - g.k0) + math.ceil(mean2 - extra.k0)
        hi = math.ceil(c_mean + spread + (g.k1 - mean) + (extra.k1 - mean2))
        base, k_end = count * g.k0 + extra.k0, count * g.k1 + extra.k1
        lo, hi = max(lo, base), min(hi, k_end)
        m2, k02 = extra.m, extra.k0
    n_fft = smooth_size(max(hi - lo + 1, len(g.m), 0 if extra is None else len(extra.m)))
    gt = tilted(g, lam, upward)
    a = gt.m
    spec = np.fft.rfft(a, n_fft)
    if progress is not None:
        progress()
    phi = fft_entry_error(n_fft)
    a1, _ = _norms(a)
    e_a = _up(phi * a1)
    z, rad, mag = spectrum_power(spec, e_a, int(count), dead_threshold(int(count)))
    if extra is not None:
        bt = tilted(extra, lam, upward).m
        b1, _ = _norms(bt)
        spectrum_times(z, rad, mag, np.fft.rfft(bt, n_fft), _up(phi * b1))
    c = np.fft.irfft(z, n_fft)
    if progress is not None:
        progress()
    # |irfft(Z̃) − irfft(A^count)| ≤ Σ_full r_j/N; the inverse's own rounding ≤ φ·Σ_full |Z̃_j|/N
    err = _up(half_spectrum_sum(rad, n_fft) + _up(phi * half_spectrum_sum(mag, n_fft)))
    err = _up(err * (1.0 + 4.0 * U)) + 2.0 ** -1070
    # the circular index of node k is (k − base) mod N
    lo = max(lo, base)
    top = min(lo + n_fft - 1, k_end)
    start = (lo - base) % n_fft  # the circle read from node lo on
    out = np.concatenate((c[start:], c[:start]))[: top - lo + 1]
    tot, m_inf = _total_power(g, count, upward) if extra is None else _total_product(g, count, extra, upward)
    # the saddle point of a Gaussian approximation, ν ≈ distance/variance (guides the search only)
    var = max(c_var, 1.0)

    def guess(edge):
        return max(abs(edge - c_mean), 1.0) / var

    def tail(lam_t, edge, above):
        if extra is None:
            return chernoff_mass(g.m, g.k0, count, lam_t, edge, above, guess(edge))
        return chernoff_mass_product(g.m, g.k0, count, m2, k02, lam_t, edge, above, guess(edge))
    if upward:
        out = outward(np.maximum(out + err, 0.0), True)  # the sum's rounding: one ulp up
        if lo > base:  # untilted mass at k ≤ lo − 1, moved up to lo and tilted there (e^{λ·lo} rounded up)
            below = tail(0.0, lo - 1, False)
            out[0] = _up(out[0] + _up(below * float(tilt_weights(lo, 1, lam, True)[0])))
        if top < k_end:
            m_inf = min(_up(m_inf + tail(0.0, top + 1, True)), 1.0)
    else:
        wrap = 0.0
        if lo > base:
            wrap = tail(lam, lo - 1, False)
        if lo + n_fft - 1 < k_end:
            wrap = _up(wrap + tail(lam, lo + n_fft, True))
        out = outward(np.maximum(out - _up(err + wrap), 0.0), False)
    if not (np.isfinite(out).all() and math.isfinite(m_inf)):
        raise FloatingPointError("power_direct: the spectrum power left the floating-point range")
    return Grid(out, lo, m_inf, lam, tot)


# ----------------------------------------------------------------------------------------------------
# two spacings for long phases: a block of steps on a fine grid, re-gridded once, then powered on a coarse grid
# (issue 21, 10⁶ steps; proof note, Lemma 7)
# ----------------------------------------------------------------------------------------------------

def split_weights(factor: int, h: float) -> tuple[np.ndarray, np.ndarray]:
    """(α⁺_r, β⁺_r), r = 0..factor − 1: upper bounds on the fractions of a mass at loss (MK + r)h moved to the
    coarse nodes K and K + 1 (spacing H = factor·h) that keep its Q-mass Σ m e^{−w}: β_r = (1 − e^{−rh})/
    (1 − e^{−H}) = expm1(−rh)/expm1(−H), α_r = 1 − β_r = e^{−rh}·expm1(−(factor − r)h)/expm1(−H).  rh and H
    are exact (h a power of two); libm's exp/expm1 carry ≤ c ulps, the product and quotient one rounding
    each: ≤ (3c + 2)u relative, charged as (3c + 4)u and then one ulp up."""
    big = math.expm1(-factor * h)
    rel = 1.0 + (3.0 * ERFC_ULPS + 4.0) * U
    alpha = np.empty(factor)
    beta = np.empty(factor)
    alpha[0], beta[0] = 1.0, 0.0
    for r in range(1, factor):
        beta[r] = np.nextafter(math.expm1(-r * h) / big * rel, np.inf)
        alpha[r] = np.nextafter(math.exp(-r * h) * math.expm1(-(factor - r) * h) / big * rel, np.inf)
    return alpha, beta


@njit(cache=True)
def _coarsen_up(m: np.ndarray, k0: int, factor: int, alpha: np.ndarray, beta: np.ndarray):
    """(masses, K0) of the split measure on the coarse nodes (proof note, Lemma 7, upper)."""
    kk0 = k0 // factor  # floor division: the coarse node at or below the first fine node
    n = m.shape[0]
    out = np.zeros((k0 + n - 1) // factor - kk0 + 2)
    for i in range(n):
        v = m[i]
        if v == 0.0:
            continue
        k = k0 + i
        kc = k // factor
        r = k - kc * factor
        out[kc - kk0] += alpha[r] * v
        if r:
            out[kc - kk0 + 1] += beta[r] * v
    # ≤ 2·factor − 1 nonnegative terms per entry, each a rounded product (u relative, 2⁻¹⁰⁷⁵ absolute):
    # (2·factor + 1)u relative in all, charged twice, plus the absolute parts, then one ulp up
    f = 1.0 + (4.0 * factor + 4.0) * U
    a = 2.0 * factor * TINY
    for j in range(out.shape[0]):
        if out[j] > 0.0:
            out[j] = _up0(out[j] * f + a)
    return out, kk0


LOWER_CELL_NODES = 16  # a lower cell not certified within this many coarse spacings is placed one node down


@njit(cache=True)
def _coarsen_dn(m: np.ndarray, k0: int, factor: int, h: float):
    """(masses, K0) of the merged cells on the coarse nodes (proof note, Lemma 7, lower): greedy from the left,
    a cell starting at fine node k_s aims at the first coarse node K ≥ k_s/factor and takes whole fine nodes
    until the next one would carry its merged loss above KH; of that node it takes the fraction f that brings
    the certified lower bound of Σ m_i(1 − e^{−(w_i − KH)}) to ≥ 0 (merged loss ≥ KH) and leaves the rest,
    rounded down, to the next cell."""
    n = m.shape[0]
    kk0 = k0 // factor - 1
    out = np.zeros((k0 + n - 1) // factor - kk0 + 3)
    cap = LOWER_CELL_NODES * factor
    # g⁻(j) ≤ 1 − e^{−jh} for the offsets j = k − MK ∈ [−factor, cap]: expm1's c ulps (jh exact) charged outward
    tab = np.empty(factor + cap + 1)
    for jj in range(factor + cap + 1):
        d = (jj - factor) * h
        gv = -math.expm1(-d)
        tab[jj] = gv - (ERFC_ULPS + 2.0) * U * abs(gv)
    i = 0
    rem = m[0] if n > 0 else 0.0
    while i < n:
        if rem <= 0.0:
            i += 1
            if i < n:
                rem = m[i]
            continue
        ks = k0 + i
        kc = -((-ks) // factor)  # ceil(ks / factor)
        if ks == kc * factor:  # on a coarse node: its own cell
            out[kc - kk0] += rem
            i += 1
            if i < n:
                rem = m[i]
            continue
        s_sum = 0.0  # Σ fl(m·g⁻) of the whole nodes taken
        s_abs = 0.0  # Σ |fl(m·g⁻)|
        w_sum = 0.0  # Σ m of the whole nodes taken
        cnt = 0
        j = i
        cur = rem
        placed = False
        while j < n and j - i <= cap:
            off = k0 + j - kc * factor
            if off > cap:
                break
            gm = tab[off + factor]
            t = cur * gm
            if off > 0 and cur > 0.0:
                s_lo = s_sum - 2.0 * (cnt + 2) * U * s_abs - (cnt + 1) * TINY  # ≤ the exact Σ m_i g_i so far
                t_lo = t * (1.0 - 2.0 * U) - TINY  # ≤ cur·g(off) (product rounding, underflow)
                if s_lo + t_lo >= 0.0:  # certified: the whole node or a fraction of it closes the cell
                    f = 1.0
                    if s_lo < 0.0 and t_lo > 0.0:
                        f = ((-s_lo) / t_lo + TINY) * (1.0 + 2.0 * U)
                        if f > 1.0:
                            f = 1.0
                    elif s_lo >= 0.0:
                        f = 0.0
                    taken = f * cur
                    mass = (w_sum + taken) * (1.0 - (cnt + 4) * U) - (cnt + 2) * TINY
                    if mass > 0.0:
                        out[kc - kk0] += mass
                    left = (1.0 - f) * cur * (1.0 - 4.0 * U) - TINY  # ≤ (1 − f)·cur
                    rem = left if left > 0.0 else 0.0
                    i = j
                    placed = True
                    break
            s_sum += t
            s_abs += abs(t)
            w_sum += cur
            cnt += 1
            j += 1
            if j < n:
                cur = m[j]
        if not placed:
            # not certified: every node taken lies above (K − 1)H, so the cell's mass goes to K − 1
            mass = w_sum * (1.0 - (cnt + 4) * U) - (cnt + 2) * TINY
            if mass > 0.0:
                out[kc - 1 - kk0] += mass
            i = j
            if i < n:
                rem = m[i]
    # the sums of masses into one coarse node (several cells can share one only through the fallback):
    # nonnegative, each rounded down below
    return out, kk0


def coarsen(g: Grid, factor: int, h: float, upward: bool) -> Grid:
    """An untilted grid of spacing h as a grid of spacing factor·h (proof note, Lemma 7): upper — every fine
    mass split between the two enclosing coarse nodes so that its Q-mass is kept (a mean-preserving spread
    of e^{−w}: H rises by Jensen); lower — greedy cells merged into atoms certified at or above a coarse
    node (merging lowers H by Jensen, moving down lowers it).  The atom at +∞ is kept."""
    if g.tilt != 0.0:
        raise ValueError("coarsen: the grid must be untilted")
    if factor == 1:
        return g
    if upward:
        alpha, beta = split_weights(factor, h)
        out, kk0 = _coarsen_up(g.m, g.k0, factor, alpha, beta)
        return _trim_keep(Grid(out, kk0, g.m_inf))
    out, kk0 = _coarsen_dn(g.m, g.k0, factor, h)
    # several cells can land on one coarse node (a fallback cell, or a cell after a node's own): the sums of
    # nonnegative lower bounds, each ≤ (count + 1)u too large at most — shrink by a generous factor
    out = np.maximum(out * (1.0 - 64.0 * U) - TINY, 0.0)
    return _trim_keep(Grid(out, kk0, g.m_inf))


def _trim_keep(g: Grid) -> Grid:
    """``_trim`` keeping the atom at +∞ and the total mass bound (Grid default: the stored sum)."""
    nz = np.flatnonzero(g.m)
    if len(nz) == 0:
        return Grid(np.zeros(1), g.k0, g.m_inf)
    return Grid(g.m[nz[0]: nz[-1] + 1].copy(), g.k0 + int(nz[0]), g.m_inf)


BLOCK_TILT_REACH = 20.0  # the block tilt times the one-step loss range (e^{αℓ} across a step) at most this


def block_tilt(g: Grid, count: int, block: int, h: float) -> float:
    """λ per fine node for the block of ``power_two_level`` (a heuristic: soundness never depends on it).

    The block's FFT error, untilted at loss ℓ, is ≈ E·M(α)^block·e^{−αℓ}, and the coarse power weighs the
    block's loss ℓ by about e^{α*ℓ}, α* the saddle point of the whole phase at its reference loss (as in
    ``choose_tilt``); so α approaches α* — maximising α·ℓ_ref − count·ln M(α) — subject to the *block's*
    tilted mass M(α)^block ≤ e³ (not the phase's, which is what limits ``choose_tilt``), over
    α ∈ {8, 4, …, 2⁻¹⁶} per loss unit.  Measured at 10⁶ steps (REMOVE, 2⁻¹⁷ fine): q = 1e-4, α = 8 instead of
    ``choose_tilt``'s 2 took the upper ε from 0.459843 to 0.459366 (the block's error had sat at the losses
    the coarse power composes into the query's range); α = 16 gave 0.459354, α = 32 broke the lower side
    (lower ε 0.459113 → 0.458118: the tilted mass beyond the block's window, which wraps onto the whole circle,
    grows like e^{α·range}), hence the cap 8, and α·(one-step loss range) ≤ ``BLOCK_TILT_REACH`` for steps with
    long ranges (the same wrap); q = 0.01: α = 0.5 instead of 0.03, width 8.9e-4 → 8.8e-4."""
    return _saddle_tilt(g, count, h, 8.0, BLOCK_TILT_REACH, block)


def power_two_level(g: Grid, count: int, upward: bool, h: float, factor: int, block: int, lam: float,
                    width_sd: float = 12.0) -> Grid:
    """The count-fold self-convolution of the fine one-step grid g (spacing h) on the coarse spacing
    factor·h (proof note, Lemma 7): B = g^{*block} by one spectrum power on the fine grid, re-gridded once
    (``coarsen``), then B^{*(count // block)} * coarsen(g^{*(count mod block)}) by one spectrum power on the
    coarse grid.  ``lam`` is the tilt per *coarse* node (λ/factor per fine node).  Returns a tilted grid on
    the coarse nodes (``untilted`` to read it)."""
    t2, r = divmod(int(count), int(block))
    if t2 < 1:
        raise ValueError(f"power_two_level: block = {block!r} exceeds count = {count!r}")
    # the block's own tilt (it is untilted before the re-gridding, so the two tilts are independent)
    lam_fine = max(block_tilt(g, count, block, h), lam / factor)
    b = coarsen(untilted(power(g, block, upward, width_sd, lam=lam_fine, direct=True), upward), factor, h, upward)
    extra = None
    if r:
        pr = g if r == 1 else untilted(power(g, r, upward, width_sd, lam=lam_fine, direct=True), upward)
        extra = coarsen(pr, factor, h, upward)
    if t2 == 1 and extra is None:
        return tilted(b, lam, upward)
    try:
        return power_direct(b, t2, upward, width_sd, lam, extra=extra)
    except FloatingPointError:
        out = power_by_squaring(b, t2, upward, width_sd, None, lam, False)
        if extra is None:
            return out
        ext = tilted(extra, lam, upward)
        return convolve(out, ext, out.k0 + ext.k0, out.k1 + ext.k1, upward)


TWO_LEVEL_FROM = 100_000  # phases of at least this many subsampled steps are composed on two spacings
TWO_LEVEL_FACTOR = 16  # fine spacing = output spacing / factor (the one-step grids and the first block)
TWO_LEVEL_BLOCK = 1000  # steps composed on the fine grid before the one re-gridding
# measured ε width ≈ TWO_LEVEL_WIDTH·T^0.73·h_fine² (10⁶ steps, q = 0.01, σ = 1: 8.9e-4 at h_fine = 2⁻¹⁵,
# of which the coarse part ≈ 1e-4); sizing only, like bounds.composition's WIDTH_GROWTH
TWO_LEVEL_WIDTH = 40.0


def two_level_plan(count: int, rate: float, theta: float) -> tuple[int, int]:
    """(factor, block) for a phase of ``count`` Poisson-subsampled steps (rate, θ): (1, 0) — one spacing — below
    ``TWO_LEVEL_FROM`` steps or for unsampled steps; otherwise the fine grid is factor times finer than the
    output and ``block`` steps are composed on it (``power_two_level``).  Only the width and the time depend
    on it, never soundness.  Also one spacing where θ > 1.5 and a block holds fewer than 2 sampled steps
    (rate·block < 2): there ε sits near the one-step loss range (σ = 0.6, q = 0.001, 2·10⁵ steps: ε(1e-6) ≈ 9.9),
    carried by rare single steps whose masses in the block lie below its FFT error, and the lower side lost
    them (measured width 1.4e-2 on two spacings, 5.1e-3 on one; σ = 0.6 with q = 0.002, σ = 0.7 with q = 0.001
    and q = 1e-4 at σ = 1 are narrower on two).  (Before the block got its own tilt, ``block_tilt``, phases
    whose composed loss had a standard deviation below 1 were kept on one spacing: at 10⁶ steps and q = 1e-4
    the width had risen from 2.9e-4 to 7.8e-4.)"""
    if count < TWO_LEVEL_FROM or rate >= 1.0:
        return 1, 0
    if theta > 1.5 and rate * TWO_LEVEL_BLOCK < 2.0:
        return 1, 0
    return TWO_LEVEL_FACTOR, TWO_LEVEL_BLOCK
