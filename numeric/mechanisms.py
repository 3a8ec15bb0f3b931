"""δ' of SPEC T3/T4 (sampling with replacement) for a base mechanism given by its privacy profile, with the
*white-box* group profile of Laplace/Gaussian noise: at distance k the pair is the base pair with θ → kθ.

δ' = Σ_{k=1}^{m} P{Bin(m, 1/n) = k}·δ_{kθ}(ε), summed by ``numeric.with_replacement.sums_for``, the same sum
as for a bare (ε, δ): log-space binomial weights with their error bounds (``numeric.binomial``), Neumaier summation, a
running absolute error bound, and a proven tail bound (δ ≤ 1 past the stopping point) *added* to the sum.
The group profiles are the upward-rounded T8/T9 kernels at an upper bound of kθ (δ increases with θ), so
each term is an upper bound of its exact value and only the weights and the sum carry rounding error.
"""
from __future__ import annotations

from numeric.jit import njit

from .special import up
from .with_replacement import white_box_binomial_sum


@njit(cache=True)
def delta_sum(mech: int, epsilon: float, theta: float, m: float, n: float):
    """(δ' upper value, absolute error bound) for the white-box group profiles."""
    if m == 0.0:
        return 0.0, 0.0
    return white_box_binomial_sum(mech, epsilon, theta, m, n)


def with_replacement_delta(mech, epsilon, theta, m, n):
    """δ' rounded up (value + running error bound, then 2 ulps), at most 1."""
    if m == 0.0:
        return 0.0
    value, err = delta_sum(int(mech), epsilon, theta, m, n)
    return min(1.0, up(value + err, 2))


def with_replacement_delta_raw(mech, epsilon, theta, m, n):
    return delta_sum(int(mech), epsilon, theta, m, n)[0]


