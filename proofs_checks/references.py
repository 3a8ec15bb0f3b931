"""High-precision references (mpmath, ≥ 60 significant digits, more where the SPEC form cancels).

Closed forms are evaluated from the SPEC expression of the record (sympy → mpmath), *not* from the stable
rewrite the kernels use; working precision grows with the magnitude of tiny arguments so that
1 + p(e^ε − 1) keeps its digits even for p(e^ε − 1) ≈ 10⁻⁶⁰⁰.  Sums (T3/T4 δ', T7 δ) are written out
term by term here, independently of the float kernels' log-space algorithms.
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp

from .refstore import memo

BASE_DIGITS = 60


def working_digits(*args: float) -> int:
    extra = sum(max(0.0, -math.log10(abs(a))) for a in args if a != 0 and math.isfinite(a))
    return BASE_DIGITS + int(2 * extra) + 10


@lru_cache(maxsize=None)
def _lambdified(theorem_id: str, output: str):
    import sympy as sp  # only when a reference is computed (``--full`` or a table miss)

    import symbolic

    theorem = symbolic.get(theorem_id)
    out = theorem.output(output)
    from numeric.generate import kernel_args

    args = kernel_args(theorem, out)
    symbols = [theorem.parameter(a).symbol for a in args]
    return sp.lambdify(symbols, out.expr, modules="mpmath")


@memo("references.spec_value")
def spec_value(theorem_id: str, output: str, *args: float) -> mp.mpf:
    """The SPEC expression of ``output`` at ``args`` (the kernel's argument order), high precision."""
    with mp.workdps(working_digits(*args)):
        value = _lambdified(theorem_id, output)(*[mp.mpf(a) for a in args])
        return +value


@memo("references.group_sum_delta")
def group_sum_delta(epsilon: float, delta: float, k: float) -> mp.mpf:
    """T7 δ_k = δ Σ_{j<k} e^{jε}, summed term by term (no 0/0 at ε = 0)."""
    with mp.workdps(working_digits(epsilon, delta)):
        e = mp.mpf(epsilon)
        return mp.mpf(delta) * mp.fsum(mp.exp(j * e) for j in range(int(k)))


def implied_group_profile(epsilon, delta, k):
    """Black-box group profile of a bare (ε, δ) at ε, in mpmath (T3/T7); callers set the precision."""
    e, d = mp.mpf(epsilon), mp.mpf(delta)
    if k == 1:
        return d
    ratio = k if e == 0 else mp.expm1(e) / mp.expm1(e / k)
    bracket = d + (1 - d) * (mp.exp(e) - mp.exp(e / k)) / (1 + mp.exp(e))
    return min(mp.mpf(1), ratio * bracket)


@memo("references.with_replacement_delta", when=lambda profile=None, **_: profile is None)
def with_replacement_delta(epsilon: float, delta: float, m: float, n: float, profile=None) -> mp.mpf:
    """T3 δ' = Σ_k C(m,k) n^{−k}(1 − 1/n)^{m−k} δ_{M,k}(ε), every term kept until they are < 10⁻⁸⁰ of
    the sum past the mode.  ``profile(k)`` overrides the implied group profile (e.g. a Gaussian's)."""
    m, n = int(m), int(n)
    with mp.workdps(working_digits(epsilon, delta, 1.0 / n) + 10):
        group = profile or (lambda k: implied_group_profile(epsilon, delta, k))
        q = mp.mpf(1) / n
        weight = (1 - q) ** m
        total = mp.mpf(0)
        mode = (m + 1) // n
        for k in range(1, m + 1):
            weight = weight * (m - k + 1) / k * q / (1 - q) if q < 1 else (mp.mpf(1) if k == m else mp.mpf(0))
            term = weight * group(k)
            total += term
            if k > mode + 10 and weight < mp.mpf(10) ** -80 * total:
                break
        return total
