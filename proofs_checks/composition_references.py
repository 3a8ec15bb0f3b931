"""Independent references for certified composition (C1): mpmath (≥ 50 digits) closed forms and sums.

- ``subsampled_gaussian_delta``: the exact one-step REMOVE/ADD profile of the Poisson-subsampled Gaussian
  (threshold x* of the monotone likelihood ratio, Φ in mpmath) — not the library's T11 kernel.
- ``gaussian_delta``: the analytic Gaussian profile (Balle–Wang 2018), which is the exact T-fold composition
  of Gaussian(θ) at θ√T (the loss is N(θ²/2, θ²) and adds up).
- ``subsampled_laplace_delta``: the exact one-step REMOVE/ADD profile of the Poisson-subsampled Laplace
  mechanism (threshold of the monotone likelihood ratio, Laplace tails in closed form; mpmath).
- ``eps_delta_composed``: the T-fold composition of the randomized-response pair of (ε₀, δ₀) by the
  binomial sum over its atoms.
- ``laplace_composed``: the k-fold composition of the Laplace pair by its privacy-loss distribution: atoms
  at ±θ and the density ¼e^{(l − θ)/2} on (−θ, θ), whose n-fold convolution is e^{s/2} times a uniform-sum
  (Irwin–Hall) density, integrated by mpmath quadrature.
"""
from __future__ import annotations

from math import comb

import mpmath as mp

DPS = 60


def _phi(x):
    return mp.ncdf(x)


def subsampled_gaussian_delta(eps: float, theta: float, q: float, direction: str) -> float:
    """Exact δ(ε) of one Poisson-subsampled Gaussian step (direction 'remove' or 'add')."""
    with mp.workdps(DPS):
        e, t, q = mp.mpf(eps), mp.mpf(theta), mp.mpf(q)
        ge = mp.exp(e)
        if direction == "remove":  # P = (1−q)N(0,1) + qN(θ,1), Q = N(0,1)
            if ge <= 1 - q:
                return float(1 - ge)
            x = (mp.log((ge - 1 + q) / q) + t * t / 2) / t
            # upper tails as Φ(−x): 1 − Φ(x) cancels to 0 at 60 digits once x ≳ 16 (issue 19's search found
            # the reference, not the library, wrong at ε ≈ 1475)
            return float((1 - q) * _phi(-x) + q * _phi(t - x) - ge * _phi(-x))
        # add: P = N(0,1), Q = (1−q)N(0,1) + qN(θ,1)
        gm = mp.exp(-e)
        if gm <= 1 - q:
            return 0.0
        x = (mp.log((gm - 1 + q) / q) + t * t / 2) / t
        return float(_phi(x) - ge * ((1 - q) * _phi(x) + q * _phi(x - t)))


def subsampled_laplace_delta(eps: float, theta: float, q: float, direction: str) -> float:
    """Exact δ(ε) of one Poisson-subsampled Laplace step (θ = Δ/b > 0; direction 'remove' or 'add').

    The ratio r(x) = 1 − q + q·e^{g(x)}, g(x) = |x| − |x − θ|, is non-decreasing and strictly increasing on
    (0, θ), where g = 2x − θ: the optimal set is a half-line through x* = (g* + θ)/2.  Tails: L₀(X > x) =
    ½e^{−x} (x ≥ 0), L_θ(X > x) = 1 − ½e^{x − θ} (x ≤ θ)."""
    with mp.workdps(DPS):
        e, t, q = mp.mpf(eps), mp.mpf(theta), mp.mpf(q)
        c = mp.exp(e)
        lo, hi = 1 - q + q * mp.exp(-t), 1 - q + q * mp.exp(t)
        if direction == "remove":  # P = (1−q)L₀ + qL_θ, Q = L₀; δ = E_Q[(r − c)₊]
            if c <= lo:
                return float(1 - c)
            if c >= hi:
                return 0.0
            x = (mp.log((c - 1 + q) / q) + t) / 2
            p_tail = (1 - q) * mp.exp(-x) / 2 + q * (1 - mp.exp(x - t) / 2)
            return float(p_tail - c * mp.exp(-x) / 2)
        # add: P = L₀, Q = (1−q)L₀ + qL_θ: p/q = 1/r, the set {1/r > c} = {r < 1/c} is a left half-line
        ic = 1 / c
        if ic <= lo:
            return 0.0
        if ic > hi:
            return float(1 - c)
        x = (mp.log((ic - 1 + q) / q) + t) / 2
        p_head = 1 - mp.exp(-x) / 2
        q_head = (1 - q) * (1 - mp.exp(-x) / 2) + q * mp.exp(x - t) / 2
        return float(p_head - c * q_head)


def gaussian_delta(eps: float, theta: float) -> float:
    """δ_θ(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ) in mpmath."""
    with mp.workdps(DPS):
        e, t = mp.mpf(eps), mp.mpf(theta)
        return float(_phi(t / 2 - e / t) - mp.exp(e) * _phi(-t / 2 - e / t))


def gaussian_composed_delta(eps: float, theta: float, steps: int) -> float:
    """Exact T-fold composition of Gaussian(θ): the Gaussian profile at θ√T (mpmath throughout)."""
    with mp.workdps(DPS):
        e, t = mp.mpf(eps), mp.mpf(theta) * mp.sqrt(steps)
        return float(_phi(t / 2 - e / t) - mp.exp(e) * _phi(-t / 2 - e / t))


def eps_delta_composed(eps: float, eps0: float, delta0: float, steps: int) -> float:
    """T-fold composition of the four-atom pair of (ε₀, δ₀): P(some step hits +∞) + binomial sum."""
    with mp.workdps(DPS):
        e, e0, d0 = mp.mpf(eps), mp.mpf(eps0), mp.mpf(delta0)
        p = mp.exp(e0) / (1 + mp.exp(e0))
        total = 1 - (1 - d0) ** steps
        s = mp.mpf(0)
        for n in range(steps + 1):
            loss = (2 * n - steps) * e0
            if loss > e:
                s += comb(steps, n) * p ** n * (1 - p) ** (steps - n) * (1 - mp.exp(e - loss))
        return float(total + (1 - d0) ** steps * s)


def _uniform_sum_density(s, n, theta):
    """Density of the sum of n independent uniforms on (−θ, θ) at s (Irwin–Hall, shifted and scaled)."""
    width = 2 * theta
    u = (s + n * theta) / width  # sum of n uniforms on (0, 1)
    if u <= 0 or u >= n:
        return mp.mpf(0)
    acc = mp.mpf(0)
    for j in range(int(mp.floor(u)) + 1):
        acc += (-1) ** j * comb(n, j) * (u - j) ** (n - 1)
    return acc / mp.factorial(n - 1) / width


def laplace_composed(eps: float, theta: float, steps: int) -> float:
    """δ(ε) of the k-fold composition of Laplace(θ) (P = Lap(θ, 1), Q = Lap(0, 1)) by its PLD."""
    with mp.workdps(DPS):
        e, t = mp.mpf(eps), mp.mpf(theta)
        a = mp.exp(-t) / 2  # P-mass at loss −θ
        b = mp.mpf(1) / 2  # P-mass at loss +θ
        c_mass = 1 - a - b  # continuous part: density ¼e^{(l − θ)/2} on (−θ, θ), total mass ½(1 − e^{−θ})
        total = mp.mpf(0)
        for na in range(steps + 1):
            for nb in range(steps + 1 - na):
                nc = steps - na - nb
                weight = mp.factorial(steps) / (mp.factorial(na) * mp.factorial(nb) * mp.factorial(nc)) * \
                    a ** na * b ** nb
                shift = (nb - na) * t
                if nc == 0:
                    if shift > e:
                        total += weight * (1 - mp.exp(e - shift))
                    continue
                # n-fold convolution of c·e^{l/2} on (−θ, θ): c^n e^{s/2}(2θ)^n g_n(s), c = ¼e^{−θ/2}
                cn = (mp.exp(-t / 2) / 4) ** nc * (2 * t) ** nc

                def integrand(s, nc=nc, shift=shift, cn=cn):
                    if s + shift <= e:
                        return mp.mpf(0)
                    return cn * mp.exp(s / 2) * _uniform_sum_density(s, nc, t) * (1 - mp.exp(e - s - shift))
                lo = max(-nc * t, e - shift)
                hi = nc * t
                if lo >= hi:
                    continue
                pts = [lo] + [(-nc + 2 * j) * t for j in range(nc + 1) if lo < (-nc + 2 * j) * t < hi] + [hi]
                total += weight * mp.quad(integrand, pts)
        del c_mass
        return float(total)
