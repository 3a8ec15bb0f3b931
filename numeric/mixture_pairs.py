"""Certified one-step grids for pairs of Gaussian mixtures with a common variance (issue 21: fixed-size batches).

Proof notes: ``docs/samplers/fixed_size.md`` (which pairs, which theorems) and ``docs/composition_proof.md``
(Lemmas 1–4: why a dominating/dominated grid measure on the nodes k·h gives a certified composition).

Two kernels:

- ``lower_mixture`` — a *dominated* grid measure of the pair (in units of the noise, σ = 1)
  P = (1 − a)N(0, 1) + a·N(s_P, 1),  Q = (1 − b)N(0, 1) + b·N(s_Q, 1)
  with both weights possibly non-zero (the zero-out pair ((1−γ)N(0) + γN(2θ), (1−γ)N(0) + γN(θ)) has a loss
  that first *falls* below 0 and then rises, so the loss is not monotone in x).  The output line is cut into
  cells; merging a cell C into one outcome is post-processing (H only falls), its merged loss
  L*(C) = ln(P(C)/Q(C)) is certified ≥ a node ε_k by enclosures of P(C) and Q(C)
  (``numeric.composition.pair_masses``: Φ differences with a proven error bound that includes the absolute
  slack of underflowing tails, so Q(C)⁺ > 0 always; ``numeric.composition._certified``: P(C)⁻ ≥ e^{kh}⁺·Q(C)⁺,
  in logarithms above kh = 700 or for Q(C)⁺ < 2⁻⁹⁰⁰ — proof note Lemma 3, "Certification in logarithms"), and
  the cell's P-mass lower bound is put at that node (moving mass to a smaller loss lowers H: Lemma 1).  Soundness
  holds for *any* partition; the loss function below is used only to choose cells well: the line is split at
  the extrema of the loss into monotone pieces, each walked in the direction of increasing loss, and each
  cell is grown (bracket doubling, then bisection) to the smallest certified right end, so L*(C) lands just
  above its node and the rounding costs almost nothing (second order, as Lemma 3 of the proof note).
  Mass beyond |x| ≈ 9 + shifts (Φ̄ < 2e-19) is dropped.
- ``hull_values`` — node values for the connect-the-dots *upper* grid (Lemma 2) of a convex hockey-stick
  curve G(γ), γ = e^ε, from upper bounds d_k ≥ G(γ_k) at the nodes: the lower convex hull of the points
  (0, 1), (γ_k, d_k).  Any values v_k ≥ G(γ_k) give a piecewise-linear interpolant ≥ G (G convex); the hull
  only removes concave kinks, which would otherwise become negative masses clipped to 0 (extra mass that
  compounds under composition).  Each replaced value is a convex combination w·d_i + (1 − w)·d_j of two hull
  vertices, w = (γ_j − γ_k)/(γ_j − γ_i) = expm1(−(j−k)h)/expm1(−(j−i)h) (no e^{kh} formed, no overflow —
  the earlier e^{(k−i)h}·expm1((j−k)h)/expm1((j−i)h) could round its numerator to a finite value and its
  denominator to inf for hull segments spanning ≈ 709.78 in ε, giving w = 0, a value *below* the chord; no
  cancellation: relative error ≤ (2c + 1)U, c = ERFC_ULPS, charged (3c + 6)U) and the result rounded up by
  (1 + 64U); then v_k = min(d_k, that) — both are ≥ G(γ_k).  (The products (k − j)h are exact: h is a
  power of two.)  The hull's vertex choice is float guidance (γ ratios e^{(p − i)h} ≤ 1, no overflow): a
  chord between *any* two points on or above the convex G lies above G.
"""
from __future__ import annotations

import math

import numpy as np
from numeric.jit import njit

from .composition import ERFC_ULPS, U, _certified, pair_masses, profile_up

GAUSSIAN = np.int64(0)  # numeric.subsampled_profiles.GAUSSIAN (pair_masses' kernel selector; int64: one specialisation)
REMOVE = np.int64(0)  # numeric.subsampled_profiles.REMOVE (a literal 0 compiled profile_up once more)
TAIL_Z = 9.0  # Φ̄(9) < 1.2e-19: P-mass beyond the outermost cells is dropped (lower side only)


@njit(cache=True)
def _log_mix(w: float, s: float, x: float) -> float:
    """ln((1 − w) + w·e^{s x − s²/2}) (guidance only)."""
    if w <= 0.0:
        return 0.0
    g = s * x - 0.5 * s * s
    if g > 30.0:
        return g + math.log(w + (1.0 - w) * math.exp(-g))
    return math.log1p(w * math.expm1(g))


@njit(cache=True)
def loss(a: float, s_p: float, b: float, s_q: float, x: float) -> float:
    """ln(p(x)/q(x)) of the pair (module docstring); guidance only, soundness never depends on it."""
    return _log_mix(a, s_p, x) - _log_mix(b, s_q, x)


@njit(cache=True)
def _slope(a: float, s_p: float, b: float, s_q: float, x: float) -> float:
    """dℓ/dx (guidance only)."""
    out = 0.0
    if a > 0.0:
        g = s_p * x - 0.5 * s_p * s_p
        # a e^g / ((1 − a) + a e^g), written without overflow
        r = 1.0 / (1.0 + (1.0 - a) / a * math.exp(-g)) if g > -700.0 else 0.0
        out += s_p * r
    if b > 0.0:
        g = s_q * x - 0.5 * s_q * s_q
        r = 1.0 / (1.0 + (1.0 - b) / b * math.exp(-g)) if g > -700.0 else 0.0
        out -= s_q * r
    return out


@njit(cache=True)
def _point_at(a: float, s_p: float, b: float, s_q: float, x: float, x_to: float, target: float) -> float:
    """A point between x and x_to where the loss (increasing from x towards x_to) reaches ``target``, or
    x_to (bisection on the float loss: guidance only)."""
    if loss(a, s_p, b, s_q, x_to) <= target:
        return x_to
    lo, hi = x, x_to
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if loss(a, s_p, b, s_q, mid) < target:
            lo = mid
        else:
            hi = mid
    return hi


@njit(cache=True)
def _cert(a: float, s_p: float, b: float, s_q: float, x: float, e: float, k: int, h: float):
    x0, x1 = (x, e) if e > x else (e, x)
    pl, ph, ql, qh = pair_masses(GAUSSIAN, a, s_p, b, s_q, x0, x1)
    # no logarithmic enclosure of a mixture's Q-mass (``log_q_cell_up`` covers Q = K only): ln Q(C) ≤ +∞ is
    # the (true) third hypothesis, so the logarithmic route (kh > LOG_SPLIT or Q⁺ < 2⁻⁹⁰⁰) compares
    # ln P⁻ with ln Q⁺ rounded up alone
    return _certified(pl, qh, math.inf, k, h), pl, qh


@njit(cache=True)
def _walk(a: float, s_p: float, b: float, s_q: float, h: float, k_lo: int, k_hi: int,
          x_from: float, x_to: float, out: np.ndarray) -> int:
    """Cells tiling the piece between x_from and x_to (either order), walked from x_from, where the loss is
    (meant to be) smallest.  Adds each cell's certified P-mass lower bound to ``out`` at its node; returns the
    number of cells that fell back below their target node.

    Each cell starts at x with target node k (the first node above ℓ(x)); its end is first guessed where the
    loss reaches 2ε_k − ℓ(x) (a cell symmetric in loss about ε_k has L* ≈ ε_k + O(h²)), then moved outward
    (×1.5 steps) until certified, then bisected ten times towards the smallest certified end."""
    x = x_from
    fallbacks = 0
    guard = 0
    n = k_hi - k_lo + 1
    while x != x_to and guard < 8 * n + 4000:
        guard += 1
        lx = loss(a, s_p, b, s_q, x)
        k = int(math.floor(lx / h)) + 1
        if k < k_lo:
            k = k_lo
        if k > k_hi:
            # beyond the top node: the rest of the piece is one cell, certified at k_hi (or below)
            k = k_hi
            e0 = x_to
        else:
            target = max(2.0 * k * h - lx, k * h + 0.125 * h)
            e0 = _point_at(a, s_p, b, s_q, x, x_to, target)
        ok, pl, qh = _cert(a, s_p, b, s_q, x, e0, k, h)
        bad = x
        good = e0
        if not ok:
            bad = e0
            found = False
            span = e0 - x
            for i in range(1, 80):
                span *= 1.5
                e = x + span
                if (x_to - e) * (x_to - x) <= 0.0:
                    break
                ok, pl, qh = _cert(a, s_p, b, s_q, x, e, k, h)
                if ok:
                    good = e
                    found = True
                    break
                bad = e
            if not found:
                good = x_to
                ok, pl, qh = _cert(a, s_p, b, s_q, x, x_to, k, h)
        if ok:
            for _ in range(10):
                mid = 0.5 * (bad + good)
                if mid == bad or mid == good:
                    break
                ok2, pl2, qh2 = _cert(a, s_p, b, s_q, x, mid, k, h)
                if ok2:
                    good = mid
                else:
                    bad = mid
            ok, pl, qh = _cert(a, s_p, b, s_q, x, good, k, h)
        kk = k
        if not ok:
            # the rest of the piece cannot reach node k: fall back to the highest certified node below
            fallbacks += 1
            kk = k - 1
            while kk >= k_lo and not _certified(pl, qh, math.inf, kk, h):
                kk -= 1
        if kk >= k_lo and pl > 0.0:
            out[kk - k_lo] += pl
        if good == x:
            break
        x = good
    return fallbacks


# the sampling points of _extrema as a numpy int64: a literal 4096 was typed Literal[int](4096) and compiled it once
# more than the int64 of bounds.samplers.fixed_size's call from Python
EXTREMA_POINTS = np.int64(4096)


@njit(cache=True)
def _extrema(a: float, s_p: float, b: float, s_q: float, x_lo: float, x_hi: float, n: int):
    """Points where dℓ/dx changes sign on [x_lo, x_hi] (scan of n cells, then bisection): guidance only."""
    pts = np.empty(16)
    m = 0
    prev_x = x_lo
    prev_s = _slope(a, s_p, b, s_q, x_lo)
    for i in range(1, n + 1):
        xx = x_lo + (x_hi - x_lo) * i / n
        s = _slope(a, s_p, b, s_q, xx)
        if (s > 0.0) != (prev_s > 0.0) and m < 16:
            lo, hi, slo = prev_x, xx, prev_s
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                sm = _slope(a, s_p, b, s_q, mid)
                if (sm > 0.0) == (slo > 0.0):
                    lo = mid
                else:
                    hi = mid
            pts[m] = 0.5 * (lo + hi)
            m += 1
        prev_x, prev_s = xx, s
    return pts[:m]


@njit(cache=True)
def lower_mixture(a: float, s_p: float, b: float, s_q: float, h: float, k_lo: int, k_hi: int):
    """Dominated grid measure on the nodes k_lo..k_hi of the pair (module docstring), and the fallback count.

    The line [x_lo, x_hi] (x_lo = min(0, s_P, s_Q) − 9, x_hi = max(0, s_P, s_Q) + 9) is split at the loss's
    extrema; each monotone piece is walked from its low-loss end.  Each cell contributes its certified
    P-mass lower bound at a node its merged loss is certified to exceed (post-processing, then moving mass
    down: H only falls).
    """
    x_lo = min(0.0, min(s_p, s_q)) - TAIL_Z
    x_hi = max(0.0, max(s_p, s_q)) + TAIL_Z
    ext = _extrema(a, s_p, b, s_q, x_lo, x_hi, EXTREMA_POINTS)
    cuts = np.empty(ext.shape[0] + 2)
    cuts[0] = x_lo
    for i in range(ext.shape[0]):
        cuts[i + 1] = ext[i]
    cuts[ext.shape[0] + 1] = x_hi
    out = np.zeros(k_hi - k_lo + 1)
    fallbacks = 0
    for i in range(cuts.shape[0] - 1):
        l0 = cuts[i]
        l1 = cuts[i + 1]
        if not (l1 > l0):
            continue
        if loss(a, s_p, b, s_q, l0) <= loss(a, s_p, b, s_q, l1):
            fallbacks += _walk(a, s_p, b, s_q, h, k_lo, k_hi, l0, l1, out)
        else:
            fallbacks += _walk(a, s_p, b, s_q, h, k_lo, k_hi, l1, l0, out)
    return out, fallbacks


@njit(cache=True)
def hull_values(d: np.ndarray, k_lo: int, h: float) -> np.ndarray:
    """Values on the lower convex hull of (0, 1), (γ_k, d_k), γ_k = e^{(k_lo + k)h}, each ≥ G(γ_k) when
    d_k ≥ G(γ_k) for a convex G with G(0) = 1 (module docstring).  The vertex choice uses floats (guidance);
    the replaced values are rounded up."""
    n = d.shape[0]
    # monotone chain over the points −1 (the anchor (0, 1)), 0..n−1; the orientation test is divided by
    # γ_i (γ's as ratios e^{(p − i)h} ≤ 1: no overflow above kh ≈ 709.78)
    stack = np.empty(n + 1, dtype=np.int64)
    top = 0
    stack[0] = -1
    for i in range(n):
        while top >= 1:
            j = stack[top]
            p = stack[top - 1]
            xp = 0.0 if p < 0 else math.exp((p - i) * h)
            xj = math.exp((j - i) * h)
            yp = 1.0 if p < 0 else d[p]
            # pop j if it lies on or above the segment p → i
            if (d[j] - yp) * (1.0 - xp) >= (d[i] - yp) * (xj - xp):
                top -= 1
            else:
                break
        top += 1
        stack[top] = i
    v = d.copy()
    rel = 1.0 + 64.0 * U
    for t in range(top):
        i = stack[t]
        j = stack[t + 1]
        for k in range(i + 1, j):
            if i < 0:
                # chord from (0, 1): w = (γ_j − γ_k)/γ_j = −expm1((k − j)h)
                w = -math.expm1((k - j) * h)
                di = 1.0
            else:
                # w = (γ_j − γ_k)/(γ_j − γ_i), numerator and denominator divided by γ_j (no overflow)
                w = math.expm1((k - j) * h) / math.expm1((i - j) * h)
                di = d[i]
            w = min(w * (1.0 + (3.0 * ERFC_ULPS + 6.0) * U), 1.0)
            c = (d[j] + w * (di - d[j])) * rel + 1e-300
            if c < v[k]:
                v[k] = c
    return v


BIG_KH = 600.0  # above: zero_out_values' coefficients in a form without e^{kh} (E/γ ≤ e^600·1e15 is finite below)


@njit(cache=True)
def zero_out_values(theta_far: float, theta_near: float, gamma_up: float, gamma_lo: float, k_hi: int,
                    h: float) -> np.ndarray:
    """Upper node values d_k ≥ G(e^{kh}), k = −k_hi..k_hi, for fixed-size batches under zero-out
    (``docs/samplers/fixed_size.md``, *derived*).  For c' = e^{kh} ≥ 1, with E = c' − 1, c = 1 + E/γ,
    β = c'/c (Balle et al. 2018, Thm 2 — advanced joint convexity — then joint convexity over the coupling):

        G(c') ≤ γ(1 − β)·δ_far(ln c) + γβ·δ_near(ln c),
        γ(1 − β) = γ(1 − γ)E/(γ + E),  γβ = γ²c'/(γ + E),

    δ_far/δ_near the Gaussian profiles (SPEC T9) at θ_far = 2θ (the record against another batch member) and
    θ_near = θ (the record against the null record).  For c' < 1, G(c') = 1 − c' + c'·G_rev(1/c') with the
    reversed order, bounded by the same expression (the reversed order's bound γδ_near is smaller).
    Rounding: each coefficient is bounded above factor by factor (E rounded up where it multiplies, down
    where it divides; γ up or down the same way), ln c rounded down (δ is non-increasing in ε), each δ
    rounded up (T9 kernel), products and sums charged (1 + 8U).  Above kh = BIG_KH the same quantities are
    written without e^{kh} (it overflows at 709.78: before, E/(γ + E) = inf/inf made every value NaN, and
    the running minimum propagated it — an upper grid of NaN)."""
    n = k_hi
    b = np.empty(n + 1)
    cu = ERFC_ULPS * U
    for k in range(n + 1):
        if k == 0:
            # c' = 1: the μ0 components cancel, G(1) ≤ γ·TV(near) = γ·δ_near(0)
            v = gamma_up * min(profile_gauss_up(0.0, theta_near), 1.0) * (1.0 + 4.0 * U)
            b[0] = min(v, 1.0)
            continue
        kh = k * h
        if kh <= BIG_KH:
            e = math.expm1(kh)
            e_dn = e * (1.0 - cu)
            e_up = e * (1.0 + cu)
            cp_up = math.exp(kh) * (1.0 + cu)
            r = e_dn / gamma_up * (1.0 - U)
            eps_dn = math.log1p(r) * (1.0 - (ERFC_ULPS + 2.0) * U)
            den = (gamma_lo + e_dn) * (1.0 - U)
            c1 = e_up * (1.0 - gamma_lo) * gamma_up / den * (1.0 + 6.0 * U)
            c2 = gamma_up * gamma_up * cp_up / den * (1.0 + 6.0 * U)
        else:
            # e^{kh} overflows near 709.78: divide by E, with ρ = 1/E = e^{−kh}/(−expm1(−kh)) (no overflow)
            #   γ(1 − β) = γ(1 − γ)/(1 + γρ)  (decreasing in ρ: ρ rounded down),
            #   γβ = γ²(1 + ρ)/(1 + γρ)      (increasing in ρ, derivative (1 − γ)/(1 + γρ)²: ρ up on top,
            #                                 down below — factor by factor),
            #   ln c = ln(γ + E) − ln γ = kh − ln γ + log1p((γ − 1)e^{−kh}), bounded below with γ_up in
            #   −ln γ and γ_lo, e^{−kh} rounded up in the (negative) log1p argument
            t = math.exp(-kh)
            em = -math.expm1(-kh)
            rho_up = t / em * (1.0 + (2.0 * ERFC_ULPS + 2.0) * U)
            rho_dn = t / em * (1.0 - (2.0 * ERFC_ULPS + 2.0) * U)
            den = (1.0 + gamma_lo * rho_dn) * (1.0 - 2.0 * U)
            c1 = gamma_up * (1.0 - gamma_lo) / den * (1.0 + 6.0 * U)
            c2 = gamma_up * gamma_up * (1.0 + rho_up) / den * (1.0 + 8.0 * U)
            mlg = -math.log(gamma_up) * (1.0 - (ERFC_ULPS + 2.0) * U)  # ≥ 0, shrunk
            lg1 = math.log1p((gamma_lo - 1.0) * t * (1.0 + cu)) * (1.0 + (ERFC_ULPS + 2.0) * U)  # ≤ 0, grown
            eps_dn = kh + mlg + lg1
            eps_dn -= 4.0 * U * (kh + mlg + abs(lg1))
        d_far = min(profile_gauss_up(eps_dn, theta_far), 1.0)
        d_near = min(profile_gauss_up(eps_dn, theta_near), 1.0)
        v = (c1 * d_far + c2 * d_near) * (1.0 + 8.0 * U)
        b[k] = min(v, 1.0)
    out = np.empty(2 * n + 1)
    for k in range(-n, n + 1):
        if k >= 0:
            out[k + n] = b[k]
        else:
            v = (-math.expm1(k * h) * (1.0 + cu) + math.exp(k * h) * (1.0 + cu) * b[-k]) * (1.0 + 4.0 * U)
            out[k + n] = min(v, 1.0)
    return out


@njit(cache=True)
def profile_gauss_up(eps: float, theta: float) -> float:
    """δ_θ(ε) of the Gaussian (SPEC T9) rounded up (the T11 kernel at rate 1)."""
    return profile_up(GAUSSIAN, REMOVE, eps, theta, 1.0)
