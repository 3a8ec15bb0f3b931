"""Kernels of the certified balls-and-bins epoch (issue 21; proof in ``docs/samplers/balls_and_bins.md``).

One epoch of balls-and-bins with T batches and Gaussian noise θ = 1/σ has the dominating pairs (Chua et al.,
AISTATS 2025) REMOVE (MoG_T(1), N_T) and ADD (N_T, MoG_T(1)).  Both depend on the data only through the
likelihood ratio under Q = N_T,

    R = (1/T)·Σ_t Y_t,   Y_t = exp(θZ_t − θ²/2),  Z_t iid N(0, 1)   (E Y_t = 1),

REMOVE: H(c) = E_Q[(R − c)₊] (PLD: atoms at ln r with P-mass r·ν(r));
ADD:    H(c) = E_Q[(1 − cR)₊] (PLD: atoms at −ln r with P-mass ν(r); r = 0 is the loss +∞),
ν the law of R under Q.  A measure ν⁺ whose call function ∫(r − k)₊dν and put function ∫(k − r)₊dν both lie
above those of ν dominates in both directions; ν⁻ with a smaller call function is dominated for REMOVE, one
with a smaller put function for ADD.  These orders are kept by independent sums (convex order), so the
T-fold sum is built from one summand's measures, split at K (Lemma C of the proof note: ν = a + b,
ν^{*T} = Σ_j C(T, j) a^{*(T−j)} * b^{*j}; the terms j ≥ 2 bounded or dropped): a on the linear grid jΔ (FFT
powers), b on dyadic bands [K2^i, K2^{i+1}] of ≤ 2^12 nodes up to Y's tail (``upper_sums``, ``lower_sums``):

- ``upper_nodes``: the chordal ("connect-the-dots") interpolation of the call function C(k) = δ_θ(ln k) of Y
  at the nodes (Lemma B): masses = second differences / gap, plus the weight C(x_n) at +∞ (a mean-
  preserving spread of the top, in the limit).  Second order.
- ``fine_cells_at`` + ``greedy_merge`` (lower): cells of the Z-line whose conditional mean of Y is certified
  ≥ (REMOVE) or ≤ (ADD) the node the cell is collapsed to (Jensen, then a pointwise move that lowers the
  call resp. put function); cells are closed as soon as their mean reaches a node (splitting a fine cell
  fractionally: a randomised assignment keeps each part's law), so the rounding costs almost nothing.
- The same ``greedy_merge`` maps the final R-measure to the composition's loss nodes (lower side: a cell's
  merged loss ln(P(C)/Q(C)) certified ≥ its node; post-processing), and ``split_upper`` splits each atom of
  the dominating R-measure between its two neighbouring loss nodes preserving P- and Q-mass (exact chord).

Floating-point: every quantity that enters a result is an enclosure (libm erfc/exp/log within
``ERFC_ULPS`` ulps, the assumption of ``numeric.composition``); each rounding is charged in the comments.
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .composition import ERFC_ULPS, GAUSSIAN, REMOVE, U, profile_up, shifted_mass

LOG_REL = (ERFC_ULPS + 2.0) * U  # relative error of fl(log(x)) for x a double (libm) plus slack


@njit(cache=True)
def _log_down(x: float) -> float:
    """A lower bound on ln x (x > 0 a double)."""
    v = math.log(x)
    return v - abs(v) * LOG_REL - 1e-300


@njit(cache=True)
def _log_up(x: float) -> float:
    v = math.log(x)
    return v + abs(v) * LOG_REL + 1e-300


@njit(cache=True)
def upper_nodes(theta: float, x):
    """Dominating measure of Y on the nodes x (x[0] = 0 < x[1] < …, every gap x[j+1] − x[j] a power of two,
    the nodes exact multiples of the smallest gap) and the weight at +∞ (module docstring, Lemma B of the proof
    note).

    d_j ≥ C(x_j) = δ_θ(ln x_j) (SPEC T9 kernel rounded up, at ε = ln(x_j) rounded down: δ decreases in ε; the
    running minimum, C being non-increasing); d_0 = C(0) = E Y = 1 exactly.  Slopes s_j = (d_{j+1} − d_j)/
    (x_{j+1} − x_j), s_{−1} = −1 (C(k) = 1 − k for k ≤ 0), s_n = 0; ν_j = s_j − s_{j−1}; m_∞ = d_n.  The
    piecewise-linear D through the (x_j, d_j) is ≥ C (chords of a convex function, through points above it) and
    has the same mass (1) and mean + m_∞ (= D(0) = 1), so its put function D(k) − 1 + k is ≥ C's as well.
    Rounding: the nodes are multiples of the smallest spacing (a power of two) below 2⁵³ times it, so they and
    their gaps are exact, and every gap is a power of two, so /gap is exact; the two subtractions cost U|·| each: |ν̃_j − ν_j| ≤ 2U(|s̃_j| + |s̃_{j−1}|) (+ second
    order, covered by the factor 4).  Entries are stored as max(ν̃ + bound, 0), rounded up: each is
    ≥ max(ν_j, 0), and more mass only raises both call and put functions.
    """
    n = x.shape[0] - 1
    d = np.empty(n + 1)
    d[0] = 1.0
    for j in range(1, n + 1):
        e = _log_down(x[j])
        v = min(profile_up(GAUSSIAN, REMOVE, e, theta, 1.0), 1.0)
        d[j] = min(v, d[j - 1])
    s = np.empty(n + 2)  # s[j + 1] = s_j
    s[0] = -1.0
    for j in range(n):
        s[j + 1] = (d[j + 1] - d[j]) / (x[j + 1] - x[j])
    s[n + 1] = 0.0
    out = np.empty(n + 1)
    for j in range(n + 1):
        v = s[j + 1] - s[j]
        b = 4.0 * U * (abs(s[j + 1]) + abs(s[j]))
        w = v + b
        out[j] = w * (1.0 + 2.0 * U) + 5e-324 if w > 0.0 else 0.0
    return out, d[n]


@njit(cache=True)
def upper_y(theta: float, delta: float, n: int):
    """``upper_nodes`` on the linear nodes jΔ, j = 0..n (Δ a power of two ≤ 1)."""
    x = np.empty(n + 1)
    for j in range(n + 1):
        x[j] = j * delta
    return upper_nodes(theta, x)


@njit(cache=True)
def fine_cells_at(theta: float, ybound):
    """Enclosures of the cells of the Z-line {Z: Y ∈ [≈ ybound[i−1], ≈ ybound[i])} (ybound increasing, its
    last entry +∞; the boundaries are any floats: only the enclosures matter, and consecutive cells share
    their Z-boundary exactly, so the cells partition the line).  Returns (pos, w_lo, w_hi, m_lo, m_hi) as
    ``fine_cells``."""
    n = ybound.shape[0]
    pos = np.empty(n)
    wl = np.empty(n)
    wh = np.empty(n)
    ml = np.empty(n)
    mh = np.empty(n)
    half = 0.5 * theta * theta
    a = -np.inf
    prev = 0.0
    for i in range(n):
        y = ybound[i]
        b = (math.log(y) + half) / theta if y < np.inf else np.inf
        w, ew = shifted_mass(GAUSSIAN, a, b, 0.0)
        m, em = shifted_mass(GAUSSIAN, a, b, theta)
        wl[i] = max(w - ew, 0.0)
        wh[i] = w + ew
        ml[i] = max(m - em, 0.0)
        mh[i] = m + em
        pos[i] = m / w if w > 0.0 else (0.5 * (prev + y) if y < np.inf else 2.0 * prev)
        a = b
        prev = y
    return pos, wl, wh, ml, mh


@njit(cache=True)
def fine_cells(theta: float, step: float, n: int):
    """Enclosures of n cells of the Z-line: cell i = {Z: Y ∈ [≈ i·step, ≈ (i+1)·step)} (boundaries any
    floats: only the enclosures matter), the last one unbounded above.  Returns (pos, w_lo, w_hi, m_lo, m_hi):
    guidance position (≈ conditional mean of Y), Q-mass and first moment E_Q[Y; cell] enclosed
    (``shifted_mass``: E_Q[Y 1{Z ∈ (a, b]}] = Φ(b − θ) − Φ(a − θ))."""
    pos = np.empty(n)
    wl = np.empty(n)
    wh = np.empty(n)
    ml = np.empty(n)
    mh = np.empty(n)
    half = 0.5 * theta * theta
    a = -np.inf
    for i in range(n):
        b = (math.log((i + 1) * step) + half) / theta if i < n - 1 else np.inf
        w, ew = shifted_mass(GAUSSIAN, a, b, 0.0)
        m, em = shifted_mass(GAUSSIAN, a, b, theta)
        wl[i] = max(w - ew, 0.0)
        wh[i] = w + ew
        ml[i] = max(m - em, 0.0)
        mh[i] = m + em
        pos[i] = m / w if w > 0.0 else (i + 0.5) * step
        a = b
    return pos, wl, wh, ml, mh


@njit(cache=True)
def _node_value(k: int, geometric: bool, spacing: float, up: bool) -> float:
    """Node k: k·spacing (exact: spacing a power of two) or e^{k·spacing} rounded up (``up``) or down."""
    if not geometric:
        return k * spacing
    v = math.exp(k * spacing)
    return v * (1.0 + (ERFC_ULPS + 2.0) * U) if up else v * (1.0 - (ERFC_ULPS + 2.0) * U)


@njit(cache=True)
def _node_of(x: float, geometric: bool, spacing: float, up: bool) -> int:
    """Guidance: the node at or above (``up``) / at or below x (position)."""
    t = math.log(x) / spacing if geometric else x / spacing
    return int(math.ceil(t - 1e-9)) if up else int(math.floor(t + 1e-9))


@njit(cache=True)
def _certify(ml: float, mh: float, wl: float, wh: float, cnt: int, k: int, geometric: bool, spacing: float,
             up: bool) -> bool:
    """Cell sums (Σm_lo, Σm_hi, Σw_lo, Σw_hi of cnt terms, each a float sum: relative error ≤ (cnt + 2)U)
    certify mean ≥ node (``up``: M⁻ ≥ c⁺·W⁺) or mean ≤ node (M⁺ ≤ c⁻·W⁻), products rounded outward."""
    r = (cnt + 4) * U
    if up:
        c = _node_value(k, geometric, spacing, True)
        return ml * (1.0 - r) >= c * wh * (1.0 + r) * (1.0 + 2.0 * U) + 1e-320
    c = _node_value(k, geometric, spacing, False)
    return mh * (1.0 + r) + 1e-320 <= c * wl * (1.0 - r) * (1.0 - 2.0 * U)


@njit(cache=True)
def _place(out, k: int, v: float, k_min: int, k_max: int, up: bool) -> float:
    """Add v at node k, or return it as dropped.  ``up`` (mean ≥ c_k): a node above k_max is replaced by
    k_max (c smaller: still certified), one below k_min dropped; not ``up`` (mean ≤ c_k): above k_max
    dropped, below k_min moved to k_min (c larger: still certified)."""
    if up:
        if k < k_min:
            return v
        out[min(k, k_max) - k_min] += v
        return 0.0
    if k > k_max:
        return v
    out[max(k, k_min) - k_min] += v
    return 0.0


@njit(cache=True)
def greedy_merge(pos, w_lo, w_hi, m_lo, m_hi, geometric: bool, spacing: float, up: bool, emit_moment: bool,
                 k_min: int, k_max: int):
    """Merge atoms (positions ``pos``, sorted ascending; mass and moment enclosures) into cells collapsed to
    nodes (k·spacing, or e^{k·spacing} when ``geometric``), each cell's mean Σm/Σw certified ≥ its node
    (``up``: atoms taken in ascending order, node = the first at or above the cell's first atom) or ≤ it
    (not ``up``: descending order, node at or below).  A cell is closed as soon as it certifies, splitting
    the atom that closes it: fractions f and 1 − f are dyadic (exact), each part's enclosures rounded
    outward (its law is the atom's: a randomised assignment).  Each closed cell adds its mass lower bound
    Σw_lo (or, with ``emit_moment``, Σm_lo) to node k (``_place``: out-of-range nodes are moved only
    in the direction that keeps the certificate, or dropped).  Returns
    (out over k_min..k_max, mass not placed (dropped) as a lower bound on the loss, number of failures).
    """
    n = pos.shape[0]
    whole_next = False
    out = np.zeros(k_max - k_min + 1)
    dropped = 0.0
    fails = 0
    cml = 0.0
    cmh = 0.0
    cwl = 0.0
    cwh = 0.0
    cnt = 0
    k = 0
    empty = True
    carry = 1.0  # fraction of the current atom still to be assigned (dyadic)
    idx = 0
    while idx < n:
        i = idx if up else n - 1 - idx
        al = w_lo[i] * carry * (1.0 - 2.0 * U)
        ah = w_hi[i] * carry * (1.0 + 2.0 * U) + 1e-320 if w_hi[i] > 0.0 else 0.0
        bl = m_lo[i] * carry * (1.0 - 2.0 * U)
        bh = m_hi[i] * carry * (1.0 + 2.0 * U) + 1e-320 if m_hi[i] > 0.0 else 0.0
        x = pos[i]
        if ah <= 0.0 or not (x > 0.0 or not geometric) or x != x:
            idx += 1
            carry = 1.0
            continue
        if empty and (bh if emit_moment else ah) < 1e-290:
            # a negligible atom (its position, a ratio of near-subnormal enclosures, is noise) never starts a
            # cell: dropped (lowers the call/put function and H)
            dropped += bl if emit_moment else al
            idx += 1
            carry = 1.0
            continue
        if empty:
            k = _node_of(x, geometric, spacing, up) if (x > 0.0 or not geometric) else k_min
            empty = False
        c = _node_value(k, geometric, spacing, up)
        # pessimistic balance (guidance; the enclosures' widths included): up: M⁻ − cW⁺ ≥ 0 wanted;
        # down: cW⁻ − M⁺ ≥ 0
        bal = (cml - c * cwh) if up else (c * cwl - cmh)
        gain = (bl - c * ah) if up else (c * al - bh)
        margin = (cnt + 16) * 4.0 * U * (cmh + bh + c * (cwh + ah)) + 1e-300
        f = 1.0
        if gain > 0.0 and bal + gain > margin and cnt > 0 and not whole_next:
            fr = (margin - bal) / gain
            if fr < 1.0:
                f = math.ceil(max(fr, 0.0) * 1.001 * 1099511627776.0 + 1.0) / 1099511627776.0
                if f > 1.0:
                    f = 1.0
        # take fraction f of the (remaining) atom
        cml += bl * f * (1.0 - 2.0 * U)
        cmh += bh * f * (1.0 + 2.0 * U)
        cwl += al * f * (1.0 - 2.0 * U)
        cwh += ah * f * (1.0 + 2.0 * U)
        cnt += 1
        if f < 1.0:
            carry = carry * (1.0 - f)  # both dyadic: exact
        else:
            carry = 1.0
            idx += 1
        whole_next = False
        if _certify(cml, cmh, cwl, cwh, cnt, k, geometric, spacing, up):
            v = cml if emit_moment else cwl
            dropped += _place(out, k, v * (1.0 - (cnt + 4) * U), k_min, k_max, up)
            cml = cmh = cwl = cwh = 0.0
            cnt = 0
            empty = True
        elif f < 1.0:
            fails += 1  # the fraction did not certify: take the rest of the atom whole next
            whole_next = True
    if not empty and cwl > 0.0:
        # leftover cell: the nearest node on the safe side that certifies, else dropped
        placed = False
        for step in range(1, 40):
            kk = k - step if up else k + step
            if _certify(cml, cmh, cwl, cwh, cnt, kk, geometric, spacing, up):
                v = (cml if emit_moment else cwl) * (1.0 - (cnt + 4) * U)
                dropped += _place(out, kk, v, k_min, k_max, up)
                placed = True
                break
        if not placed:
            dropped += cml if emit_moment else cwl
    return out, dropped, fails


@njit(cache=True)
def split_upper(ell_up, p_up, h: float, k_lo: int, k_hi: int):
    """Dominating grid measure of atoms (loss ≤ ell_up[i], P-mass ≤ p_up[i]): each atom, moved up to
    ell_up (H only rises), is split between its neighbouring nodes kh ≤ ℓ ≤ (k+1)h preserving P- and Q-mass
    (the exact chord: H unchanged): m_b = p(1 − e^{kh−ℓ})/(1 − e^{−h}), m_a = p·e^{kh−ℓ}(1 − e^{ℓ−(k+1)h})/
    (1 − e^{−h}), products/quotients of same-signed expm1/exp values (relative ≤ 8·ERFC_ULPS·U, then
    rounded up).  Atoms below k_lo·h move up to k_lo; above k_hi·h to +∞.  Returns (masses, m_∞)."""
    out = np.zeros(k_hi - k_lo + 1)
    m_inf = 0.0
    den = -math.expm1(-h)
    rel = 1.0 + 8.0 * ERFC_ULPS * U
    for i in range(ell_up.shape[0]):
        p = p_up[i]
        if not p > 0.0:
            continue
        ell = ell_up[i]
        if ell >= k_hi * h:
            m_inf += p
            continue
        if ell <= k_lo * h:
            out[0] += p
            continue
        k = int(math.floor(ell / h))
        if k < k_lo:
            k = k_lo
        if k >= k_hi:
            m_inf += p
            continue
        x0 = k * h
        if x0 == ell:
            out[k - k_lo] += p
            continue
        mb = p * (-math.expm1(x0 - ell)) / den
        ma = p * math.exp(x0 - ell) * (-math.expm1(ell - x0 - h)) / den
        out[k - k_lo] += max(ma, 0.0) * rel + 1e-320
        out[k + 1 - k_lo] += max(mb, 0.0) * rel + 1e-320
    for j in range(out.shape[0]):
        out[j] *= 1.0 + (ell_up.shape[0] + 4) * U  # accumulated sums of nonnegative terms
    return out, m_inf * (1.0 + (ell_up.shape[0] + 4) * U)


# ----------------------------------------------------------------------------------------------------
# the T-fold sum (FFT with the proven error bound of numeric.composition) and the epoch's loss grids
# ----------------------------------------------------------------------------------------------------

LOWER_EXTENDED = True  # binary64 lower sums (error subtracted: sound) were measured 19× wider at σ = 0.8, T = 100
TAIL_Z = 6.5  # Y's grid reaches the P-quantile Z = θ + 6.5 (tail ≈ 4e-11; upper: a weight at +∞, lower: dropped)


def _sum_conv(a: np.ndarray, b: np.ndarray, inf_a: float, inf_b: float, upward: bool, top: int, delta: float,
              lam: float = 0.0, spectra=None):
    """a * b on the nodes jΔ (j from 0), cut at ``top``; with ``lam`` > 0 (upper side only) the vectors are
    stored *tilted*, entry j multiplied by e^{λj} (tilting commutes with convolution, and the FFT's absolute
    error, once untilted, is multiplied by e^{−λj}: small where r = jΔ/T is large, which the REMOVE P-mass
    r·ν weights).  Upper: FFT error added, the mass above the cut moved to node ``top`` with its first moment
    added to the weight at +∞ (a mean-preserving spread onto {top, B}, B → ∞), weights at +∞ composed as
    A·|b| + B·|a| (the spread atoms' masses A/B vanish); lower: FFT error subtracted, the mass above the cut
    dropped.  ``spectra``: a ``composition.SpectrumCache`` shared by the convolutions of one power (the same
    computed transforms, fewer of them).  Returns (c, weight at +∞)."""
    from . import composition as C

    n_out = len(a) + len(b) - 1
    if min(len(a), len(b)) <= 64:
        c = np.convolve(a, b)
        rel = (min(len(a), len(b)) + 2) * U
        c = c * (1 + rel) if upward else c * (1 - rel)
    else:
        c, err, rel = C._fft_convolve(a, b, n_out, upward or LOWER_EXTENDED, spectra)
        if rel is not None:
            err = err + rel
        c = c + err if upward else c - err
    c = np.maximum(c, 0.0)
    if not upward:
        return c[: top + 1].copy(), 0.0
    if lam > 0.0:
        ua = a * C.tilt_weights(0, len(a), -lam, True) * (1 + 2 * U)
        ub = b * C.tilt_weights(0, len(b), -lam, True) * (1 + 2 * U)
    else:
        ua, ub = a, b
    extra = 0.0
    if n_out - 1 > top:
        # mass and first moment beyond the cut by direct summation over the untilted factors (nonnegative
        # terms: relative error only, no FFT noise; the factors are entrywise upper bounds)
        mass, moment = _beyond(ua, ub, top)
        g = 1.0 + (len(a) + len(b) + 8) * U
        extra = moment * delta * g * (1 + 2 * U)
        c = c[: top + 1].copy()
        tw = float(C.tilt_weights(top, 1, lam, True)[0]) if lam > 0.0 else 1.0
        c[top] = (c[top] + mass * g * tw * (1 + 2 * U)) * (1 + 2 * U)
    ta = float(ua.sum()) * (1 + (len(a) + 4) * U)
    tb = float(ub.sum()) * (1 + (len(b) + 4) * U)
    return c, (inf_a * tb + inf_b * ta) * (1 + 4 * U) + extra


@njit(cache=True)
def _beyond(a: np.ndarray, b: np.ndarray, top: int):
    """(Σ_{i+j>top} a_i b_j, Σ_{i+j>top} a_i b_j (i + j)) by suffix sums of b and j·b (nonnegative terms,
    unrounded: the caller applies the relative bound (len(a) + len(b) + 8)U)."""
    nb = b.shape[0]
    s0 = np.zeros(nb + 1)
    s1 = np.zeros(nb + 1)
    for j in range(nb - 1, -1, -1):
        s0[j] = s0[j + 1] + b[j]
        s1[j] = s1[j + 1] + b[j] * j
    mass = 0.0
    mom = 0.0
    for i in range(a.shape[0]):
        j = top - i + 1
        if j < 0:
            j = 0
        if j >= nb:
            continue
        mass += a[i] * s0[j]
        mom += a[i] * (s1[j] + i * s0[j])
    return mass, mom


def _power_tilted(y: np.ndarray, inf_y: float, T: int, upward: bool, tops, lam: float, spectra=None):
    """The T-fold convolution (T ≥ 1) of the (already tilted) y by squaring; ``tops(n)`` = (last node kept for
    n summands, Δ).  ``spectra`` (a ``composition.SpectrumCache``): the base is squared first, so that
    result * base can use the base's transform at the squaring's (longer) length where that is cheaper
    (``SpectrumCache.length_for``).  Returns the tilted result and its weight at +∞."""
    result = None
    inf_r = 0.0
    base, inf_b, nb = y, inf_y, 1
    n = T
    nr = 0
    while True:
        if n >> 1:
            top, d = tops(2 * nb)
            square, inf_s = _sum_conv(base, base, inf_b, inf_b, upward, top, d, lam, spectra)
        if n & 1:
            if result is None:
                result, inf_r, nr = base, inf_b, nb
            else:
                nr += nb
                top, d = tops(nr)
                result, inf_r = _sum_conv(result, base, inf_r, inf_b, upward, top, d, lam, spectra)
        n >>= 1
        if not n:
            break
        nb *= 2
        base, inf_b = square, inf_s
    return result, inf_r


def _tilt(y: np.ndarray, lam: float) -> np.ndarray:
    from . import composition as C

    return y * C.tilt_weights(0, len(y), lam, True) * (1 + 2 * U) if lam != 0.0 else y


def power_pair(y: np.ndarray, T: int, upward: bool, tops, lam: float = 0.0):
    """(y^{*(T−1)}, its weight at +∞, y^{*T}, its weight at +∞), untilted; y^{*0} is the unit atom at 0.
    The convolutions share one ``SpectrumCache`` (y's transform serves y^{*T} = y^{*(T−1)} * y as well)."""
    from . import composition as C

    spectra = C.SpectrumCache()
    yt = _tilt(y, lam)
    if T == 1:
        P, inf_p = np.ones(1), 0.0
    else:
        P, inf_p = _power_tilted(yt, 0.0, T - 1, upward, tops, lam, spectra)
    top, d = tops(T)
    F, inf_f = _sum_conv(P, yt, inf_p, 0.0, upward, top, d, lam, spectra)
    return _tilt(P, -lam), inf_p, _tilt(F, -lam), inf_f


def y_sd(theta: float) -> float:
    return math.sqrt(math.expm1(min(theta * theta, 700.0)))


def y_top(theta: float) -> float:
    """Y at the P-quantile Z = θ + TAIL_Z: exp(θ²/2 + TAIL_Z·θ)."""
    return math.exp(min(0.5 * theta * theta + TAIL_Z * theta, 700.0))


# ----------------------------------------------------------------------------------------------------
# the tail split (Lemma C of the proof note): Y's law ν = a + b, a on Y < K (linear grid jΔ, FFT), b on
# Y ≥ K (dyadic bands [K2^i, K2^{i+1}] of ≤ 2^BAND_BITS nodes each); ν^{*T} = Σ_j C(T, j) a^{*(T−j)} * b^{*j},
# the terms j ≥ 2 dropped (lower) or bounded by their mass and first moment (upper)
# ----------------------------------------------------------------------------------------------------

SPLIT_BUDGET = 2.0 ** -37  # upper: R-moment of the terms with ≥ 2 large summands (REMOVE P-mass at +∞, ≈ 7e-12)
LOWER_BUDGET = 2.0 ** -27  # lower: R-moment of the dropped terms (lowers δ by ≈ 7e-9 at most; no mass at +∞)
BAND_BITS = 12  # nodes per band ≤ 2^12: relative spacing ≤ 2^-9 (usually 2^-12) of the large summand's value


def _tail(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def split_nodes(theta: float, T: int, delta: float, budget: float = SPLIT_BUDGET) -> tuple[int, int]:
    """(c, q) with K = Δ·c·2^q, c ∈ {4, …, 7}: K at or above Y's value at the smallest Z-quantile z (steps of
    1/16) whose dropped terms j ≥ 2 have R-moment ≈ (T − 1)·P(Y ≥ K)·E[Y; Y ≥ K] + T²P(Y ≥ K)²/2 ≤ SPLIT_BUDGET
    (a heuristic: sizes only; the bound charged is computed from the measures), K ≤ 2·Y_top."""
    z = 0.0
    while z < TAIL_Z + theta:
        p = _tail(z)
        if (T - 1) * p * _tail(z - theta) + 0.5 * T * T * p * p <= budget:
            break
        z += 0.0625
    y = min(math.exp(min(theta * z - 0.5 * theta * theta, 700.0)), y_top(theta))
    n = max(int(math.ceil(y / delta)), 4)
    q = max(n.bit_length() - 3, 0)
    c = -(-n // (1 << q))  # ceil: c ∈ {4, …, 8}
    if c == 8:
        c, q = 4, q + 1
    return c, q


def small_sd(theta: float, K: float) -> float:
    """sd of Y·1{Y < K} (≤ √E[Y²; Y < K] = √(e^{θ²}Φ(z_K − 2θ)); window sizing only)."""
    z = (math.log(K) + 0.5 * theta * theta) / theta
    return math.sqrt(math.exp(min(theta * theta, 700.0)) * (1.0 - _tail(z - 2.0 * theta)))


def sum_nodes(theta: float, T: int, delta: float, upper: bool = True) -> int:
    """Nodes of the T-fold sum of the small part (the largest FFT grid; sizing only)."""
    c, q = split_nodes(theta, T, delta, SPLIT_BUDGET if upper else LOWER_BUDGET)
    K = delta * c * 2.0 ** q
    return int(math.ceil((T + 14.0 * math.sqrt(T) * small_sd(theta, K) + (2.0 if upper else 1.0) * K) / delta)) + 2


def _bands(theta: float, T: int, delta: float, budget: float = SPLIT_BUDGET):
    """(n_a, [(start S = K2^i, spacing s_i, n_i)]), K = n_a·Δ = c·2^q·Δ: band i has n_i = K2^i/s_i nodes,
    s_i = Δ·2^{l_i}, l_i = max(0, q + i + 3 − BAND_BITS) (so n_i = c·2^{q+i−l_i} < 2^BAND_BITS + … and
    K2^i is a multiple of s_i)."""
    c, q = split_nodes(theta, T, delta, budget)
    na = c << q
    K = delta * na
    nb = max(1, int(math.ceil(math.log2(y_top(theta) / K))))
    out = []
    for i in range(nb):
        l = max(0, q + i + 3 - BAND_BITS)
        out.append((K * 2.0 ** i, delta * 2.0 ** l, c << (q + i - l)))
    return na, out


@njit(cache=True)
def coarsen_upper(p, shift: int):
    """Mean-preserving split of the atoms j (spacing Δ) onto the nodes q·2^shift (spacing Δ2^shift): atom j
    between q = j >> shift and q + 1 with the dyadic fractions 1 − f, f (f = (j mod 2^shift)/2^shift, exact):
    a convex-order-larger measure (Lemma A).  Products rounded (U each), sums of ≤ 2^{shift+1} nonnegative terms
    per node (relative (2^{shift+1} + 4)U), rounded up."""
    n = p.shape[0]
    k = 1 << shift
    out = np.zeros(((n - 1) >> shift) + 2)
    for j in range(n):
        v = p[j]
        if not v > 0.0:
            continue
        q = j >> shift
        f = (j & (k - 1)) / k
        out[q] += v * (1.0 - f)
        out[q + 1] += v * f
    g = 1.0 + (2.0 * k + 6.0) * U
    for q in range(out.shape[0]):
        out[q] = out[q] * g
    return out


def coarsen_lower(p: np.ndarray, delta: float, shift: int, up: bool) -> np.ndarray:
    """A dominated measure of the atoms jΔ on the nodes q·Δ2^shift: ``greedy_merge`` (Jensen: cells collapsed to
    a node ≤ (``up``, REMOVE) or ≥ (ADD) their mean; Lemma A)."""
    if shift == 0:
        return p
    n = p.shape[0]
    x = np.arange(n, dtype=np.float64) * delta  # exact: integers times a power of two
    mom = p * x
    kmax = ((n - 1) >> shift) + 1
    out, _, _ = greedy_merge(x, p, p, mom * (1 - 2 * U), mom * (1 + 2 * U) + 1e-320, False, delta * 2.0 ** shift,
                             up, False, 0, kmax)
    return out


def _pow_up(t: float, k: int) -> float:
    """An upper bound on t^k for t ≥ 0 near 1 (t ≤ 1: 1; else (1 + ε)^k ≤ e^{kε}, libm exp covered by 1e-12)."""
    if k <= 0 or t <= 1.0:
        return 1.0
    return math.exp(k * (t - 1.0) * (1 + 4 * U)) * (1 + 1e-12)


def _band_terms(P, bands, bvecs, T, delta, upward, up, infp):
    """The j = 1 terms T·(P * b_i) per band i (P coarsened to the band's spacing: ``coarsen_upper`` or
    ``coarsen_lower``), as atoms (positions S = K2^i + n·s_i, masses) and the weight at +∞ (S-moment)."""
    pos_l, mass_l = [], []
    inf_total = 0.0
    for (s0, sp, nn), bv in zip(bands, bvecs):
        shift = int(round(math.log2(sp / delta)))
        Pc = coarsen_upper(P, shift) if upward else coarsen_lower(P, delta, shift, up)
        c, inf = _sum_conv(Pc, bv, infp, 0.0, upward, len(Pc) + len(bv) - 2, sp, 0.0)
        c = c * T * (1 + 2 * U) if upward else c * T * (1 - 2 * U)
        inf_total += inf * T * (1 + 2 * U)
        pos_l.append(s0 + np.arange(len(c), dtype=np.float64) * sp)
        mass_l.append(c)
    return pos_l, mass_l, inf_total


def _grid_x(v: np.ndarray, delta: float) -> np.ndarray:
    return np.arange(len(v), dtype=np.float64) * delta  # exact: integers times a power of two


def upper_sums(theta: float, T: int, delta: float, progress=None):
    """The dominating law of S = Σ_t Y_t (Lemma C of the proof note) as atoms: (positions for REMOVE, masses),
    (positions for ADD, masses) — the small sum's REMOVE copy is tilted, the ADD copy untilted when the tilt
    is strong —, and the S-moment at +∞ (window cuts, the chord's weight at +∞, the dropped terms j ≥ 2)."""
    na, bands = _bands(theta, T, delta, SPLIT_BUDGET)
    K = delta * na
    sd_a = small_sd(theta, K)

    def tops(n):
        # n summands below K: mean n·E ≤ n, 14 sd, and room for two summands near K (a pair of large ones
        # beyond the window is an event of the size of the dropped j ≥ 2 terms; its mass and moment are
        # moved to the top node and +∞, as everything beyond a window)
        return min(n * na, int(math.ceil((n + 14.0 * math.sqrt(n) * sd_a + 2.0 * K) / delta)) + 2), delta

    # one summand: the dominating chord on all nodes, split at K (any split of ν⁺ is exact)
    xs = [_grid_x(np.empty(na), delta)]
    for s0, sp, nn in bands:
        xs.append(s0 + np.arange(nn, dtype=np.float64) * sp)
    xs.append(np.array([bands[-1][0] * 2.0]))
    x = np.concatenate(xs)
    nu, m_inf = upper_nodes(theta, x)
    a_up = nu[:na].copy()
    b_up = []
    off = na
    for i, (s0, sp, nn) in enumerate(bands):
        v = np.zeros(nn + 1)
        v[:nn] = nu[off:off + nn]
        off += nn
        if i == len(bands) - 1:
            v[nn] = nu[off]
        b_up.append(v)
    top_t = tops(T)[0]
    lam = min(23.0 / max(na, 1), 3.0 * delta / T, 23.0 / top_t)
    P_up, infP, F_up, infF = power_pair(a_up, T, True, tops, lam)
    reuse = T == 1 or lam * T / delta <= 0.5
    F_upa = F_up if reuse else power_pair(a_up, T, True, tops)[2]
    if progress:
        progress(f"{T}-fold sum, upper")
    bp, bm, inf_b = _band_terms(P_up, bands, b_up, T, delta, True, True, infP)
    # the dropped terms j ≥ 2 (Lemma C): mass ≤ C(T,2)y²t^{T−2} at S = 2K, S-moment ≤ T[M_a C(T−1,2)y²t^{T−3}
    # + M_b (T−1) y t^{T−2}] at +∞ (x, y, M_a, M_b: masses and moments of a⁺, b⁺ rounded up; t ≥ x + y)
    n_ = len(x) + 8
    xm = float(a_up.sum()) * (1 + n_ * U)
    Ma = float((a_up * _grid_x(a_up, delta)).sum()) * (1 + (n_ + 2) * U)
    ym = sum(float(v.sum()) for v in b_up) * (1 + n_ * U)
    Mb = 0.0
    for (s0, sp, nn), v in zip(bands, b_up):
        Mb += float((v * (s0 + np.arange(len(v)) * sp)).sum())
    Mb *= 1 + (n_ + 2) * U
    t = (xm + ym) * (1 + 2 * U)
    M2 = Mo2 = 0.0
    if T >= 2:
        M2 = 0.5 * T * (T - 1) * ym * ym * _pow_up(t, T - 2) * (1 + 8 * U)
        Mo2 = T * (Ma * 0.5 * (T - 1) * (T - 2) * ym * ym * _pow_up(t, T - 3) + Mb * (T - 1) * ym * _pow_up(t, T - 2))
        Mo2 *= 1 + 16 * U
    s_inf = (infF + inf_b + T * m_inf * _pow_up(t, T - 1) + Mo2) * (1 + 8 * U)
    two_k = np.array([2.0 * K])
    upper = (np.concatenate([_grid_x(F_up, delta)] + bp + [two_k]), np.concatenate([F_up] + bm + [np.array([M2])]))
    upper_a = (np.concatenate([_grid_x(F_upa, delta)] + bp + [two_k]),
               np.concatenate([F_upa] + bm + [np.array([M2])]))
    return upper, upper_a, s_inf


def lower_cells(theta: float, T: int, delta: float):
    """The fine cells of the Z-line (``fine_cells_at``) on the half-spacing boundaries of the lower sides'
    nodes: the same for REMOVE and ADD (computed once per epoch, ``epoch_sums``)."""
    na, bands = _bands(theta, T, delta, LOWER_BUDGET)
    yb = [(np.arange(2 * na, dtype=np.float64) + 1.0) * (0.5 * delta)]
    for s0, sp, nn in bands:
        yb.append(s0 + (np.arange(2 * nn, dtype=np.float64) + 1.0) * (0.5 * sp))
    yb.append(np.array([np.inf]))
    return fine_cells_at(theta, np.concatenate(yb))


def lower_sums(theta: float, T: int, delta: float, up: bool, progress=None, cells=None):
    """A dominated law of S (REMOVE: ``up``, call below; ADD: put below) as atoms (positions, masses): the
    cells of the Z-line merged onto the nodes (``greedy_merge``), split at K; the terms j ≥ 2 and everything
    beyond the windows dropped (Lemma C).  ``cells``: ``lower_cells(theta, T, delta)`` when already computed."""
    na, bands = _bands(theta, T, delta, LOWER_BUDGET)
    K = delta * na
    sd_a = small_sd(theta, K)

    def tops(n):
        return min(n * na, int(math.ceil((n + 14.0 * math.sqrt(n) * sd_a + K) / delta)) + 2), delta

    pos, wl, wh, ml, mh = lower_cells(theta, T, delta) if cells is None else cells
    a_lo, _, _ = greedy_merge(pos[:2 * na], wl[:2 * na], wh[:2 * na], ml[:2 * na], mh[:2 * na], False, delta,
                              up, False, 0, na)
    b_lo = []
    off = 2 * na
    for i, (s0, sp, nn) in enumerate(bands):
        cnt = 2 * nn + (1 if i == len(bands) - 1 else 0)
        sl = slice(off, off + cnt)
        k0 = int(round(s0 / sp))
        v, _, _ = greedy_merge(pos[sl], wl[sl], wh[sl], ml[sl], mh[sl], False, sp, up, False, k0, k0 + nn)
        b_lo.append(v)
        off += cnt
    P, _, F, _ = power_pair(a_lo, T, False, tops)
    if progress:
        progress(f"{T}-fold sum, lower ({'REMOVE' if up else 'ADD'})")
    bp, bm, _ = _band_terms(P, bands, b_lo, T, delta, False, up, 0.0)
    return np.concatenate([_grid_x(F, delta)] + bp), np.concatenate([F] + bm)


def epoch_sums(theta_up: float, theta_lo: float, T: int, delta: float, delta_lo: float | None = None,
               progress=None):
    """(upper atoms for REMOVE, upper atoms for ADD, S-moment at +∞, lower REMOVE atoms, lower ADD atoms) of
    one epoch; independent of the loss spacing h.  ``delta_lo`` (default Δ): the lower sides' Y-spacing."""
    dl = delta if delta_lo is None else delta_lo
    upper, upper_a, s_inf = upper_sums(theta_up, T, delta, progress)
    cells = lower_cells(theta_lo, T, dl)  # the same fine cells for both lower sides
    return (upper, upper_a, s_inf, lower_sums(theta_lo, T, dl, True, progress, cells),
            lower_sums(theta_lo, T, dl, False, progress, cells))


@njit(cache=True)
def ratio_atoms_at(x, nu, T: int):
    """For the atoms of S at the exact floats x ≥ 0 with masses ν: (r = x/T guidance, ln r enclosure lo/hi,
    P-mass r·ν enclosure lo/hi); the division costs U relative (2U absolute in ln r), the product U."""
    n = nu.shape[0]
    r = np.empty(n)
    llo = np.empty(n)
    lhi = np.empty(n)
    plo = np.empty(n)
    phi = np.empty(n)
    for j in range(n):
        v = x[j] / T
        r[j] = v
        if not v > 0.0:
            llo[j] = -np.inf
            lhi[j] = -np.inf
            plo[j] = 0.0
            phi[j] = 0.0
            continue
        llo[j] = _log_down(v) - 2.0 * U
        lhi[j] = _log_up(v) + 2.0 * U
        p = nu[j] * v
        plo[j] = p * (1.0 - 4.0 * U)
        phi[j] = p * (1.0 + 4.0 * U) + 1e-320 if p > 0.0 else 0.0
    return r, llo, lhi, plo, phi


def epoch_grids(theta_up: float, theta_lo: float, T: int, h: float, delta: float, progress=None, sums=None):
    """Per direction (REMOVE, ADD): (upper Grid, lower Grid) of one balls-and-bins epoch on the loss nodes
    k·h (module docstring; proof note ``docs/samplers/balls_and_bins.md``).  Δ is the Y-grid spacing (a
    power of two ≤ 1); ``sums`` = ``epoch_sums(...)`` when already computed (they do not depend on h)."""
    from . import composition as C

    if sums is None:
        sums = epoch_sums(theta_up, theta_lo, T, delta, progress)
    (xu, mu_), (xua, mua), s_inf, (xr, mr), (xl, ml_) = sums
    out = []
    # REMOVE: loss ln r, P-mass r·ν
    r, llo, lhi, plo, phi = ratio_atoms_at(xu, mu_, T)
    k_lo, k_hi = _range(lhi, phi, h)
    mu, minf = split_upper(lhi, phi, h, k_lo, k_hi)
    up = C.Grid(mu, k_lo, (minf + s_inf / T * (1 + 2 * U)) * (1 + 2 * U))
    o = np.argsort(xr, kind="stable")
    xr, mr = xr[o], mr[o]
    keep = xr > 0
    r2, llo2, lhi2, plo2, phi2 = ratio_atoms_at(xr[keep], mr[keep], T)
    low, _, _ = greedy_merge(r2, mr[keep], mr[keep], plo2, phi2, True, h, True, True, k_lo, k_hi)
    out.append((C._trim(up), C._trim(C.Grid(low, k_lo, 0.0))))
    # ADD: loss −ln r, P-mass ν (r = 0: loss +∞)
    r, llo, lhi, plo, phi = ratio_atoms_at(xua, mua, T)
    pos = xua > 0
    nu = mua[pos]
    ell = -llo[pos]
    a_lo, a_hi = _range(ell, nu, h)
    mu, minf = split_upper(ell, nu, h, a_lo, a_hi)
    up = C.Grid(mu, a_lo, (minf + float(mua[~pos].sum()) * (1 + (len(mua) + 4) * U)) * (1 + 2 * U))
    o = np.argsort(xl, kind="stable")
    xl, ml_ = xl[o], ml_[o]
    keep = xl > 0
    r3, llo3, lhi3, plo3, phi3 = ratio_atoms_at(xl[keep], ml_[keep], T)
    # down-mode on the R-nodes e^{k'h}: mean ≤ e^{k'h} ⇔ ADD loss ≥ −k'h; k' ∈ [−a_hi, −a_lo]
    low, _, _ = greedy_merge(r3, ml_[keep], ml_[keep], plo3, phi3, True, h, False, False, -a_hi, -a_lo)
    zero = float(ml_[~keep].sum()) * (1 - (len(ml_) + 4) * U)
    out.append((C._trim(up), C._trim(C.Grid(low[::-1].copy(), a_lo, zero))))
    return out


CUT_MASS = 1e-18  # P-mass at the low-loss end merged into the first kept node (upper: moved up; lower: dropped)


def _range(ell: np.ndarray, p: np.ndarray, h: float) -> tuple[int, int]:
    """Loss nodes [k_lo, k_hi] covering the atoms (ell, P-mass p), the low-loss end cut where the P-mass
    below is ≤ CUT_MASS (a heuristic: sizes only)."""
    ok = np.isfinite(ell) & (p > 0)
    e, w = ell[ok], p[ok]
    order = np.argsort(e)
    e, w = e[order], w[order]
    cs = np.cumsum(w)
    i = int(np.searchsorted(cs, CUT_MASS, side="right"))
    i = min(i, len(e) - 1)
    return int(math.floor(e[i] / h)) - 1, int(math.ceil(e[-1] / h)) + 1
