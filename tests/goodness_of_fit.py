"""Shared test helpers: G-tests (likelihood-ratio goodness-of-fit tests) of observed cell counts against
exact cell probabilities, for the tests that check a procedure draws exactly the distribution its theorem
assumes, and the Wilson score interval of a binomial proportion.

P-values come from mpmath's regularised upper incomplete gamma function (the chi-square tail), no normal
approximation and no scipy.  A test fails when the p-value is below its threshold (1e-4 in the procedures'
tests); at a fixed seed each test is deterministic.

Import as ``from tests.goodness_of_fit import ...`` (see ``tests/exact_arith.py`` on why ``tests`` has no
``__init__.py``).
"""
from __future__ import annotations

import math

import mpmath
from mpmath import mp, mpf


def g_test(observed: dict, expected: dict, trials: int) -> float:
    """p-value of the G-test: observed counts per cell against exact cell probabilities (Fractions summing
    to 1), every cell kept (no pooling), G computed at 30 digits; cells never observed contribute 0 to G;
    unexpected cells (probability 0 or not listed) fail outright."""
    assert sum(expected.values()) == 1
    unexpected = set(observed) - {c for c, p in expected.items() if p > 0}
    assert not unexpected, f"cells of probability 0 observed: {sorted(unexpected)[:5]}"
    with mp.workdps(30):
        g = mpf(0)
        for cell, count in observed.items():
            if count:
                p = expected[cell]
                g += 2 * count * mp.log(mpf(count) / (trials * mpf(p.numerator) / p.denominator))
        dof = sum(1 for p in expected.values() if p > 0) - 1
        return float(mp.gammainc(mpf(dof) / 2, g / 2, mp.inf, regularized=True))


def g_test_pooled(observed: dict, probabilities: dict, trials: int) -> float:
    """p-value of the G-test with the cells of expectation below 5 pooled into one (for distributions with
    many improbable cells); observed cells must have positive probability; a point mass (one cell left) has
    nothing to test beyond that and returns 1."""
    assert set(observed) <= {k for k, p in probabilities.items() if p > 0}, set(observed) - set(probabilities)
    cells, pooled_o, pooled_e = [], 0, 0.0
    for key, p in probabilities.items():
        e = float(p) * trials
        if e == 0:
            continue
        if e < 5:
            pooled_o += observed.get(key, 0)
            pooled_e += e
        else:
            cells.append((observed.get(key, 0), e))
    if pooled_e > 0:
        cells.append((pooled_o, pooled_e))
    if len(cells) == 1:  # a point mass: the support check above is the whole test
        return 1.0
    g = 2 * sum(o * math.log(o / e) for o, e in cells if o > 0)
    return float(mpmath.gammainc((len(cells) - 1) / 2, g / 2, mpmath.inf, regularized=True))


Z_999 = 3.29  # two-sided 99.9 % normal quantile (3.2905…, rounded)
Z_1E6 = 4.891638  # two-sided 1 − 10⁻⁶ normal quantile


def wilson(successes: int, trials: int, z: float) -> tuple[float, float]:
    """The Wilson score interval (centre ± half-width) for a binomial proportion: ``successes`` of ``trials``,
    ``z`` the two-sided normal quantile of the level (``Z_999``, ``Z_1E6``)."""
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return centre - half, centre + half
