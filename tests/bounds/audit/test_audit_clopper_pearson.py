"""Clopper–Pearson limits and the ε lower bound: against independent mpmath routes (binomial tails summed term
by term; exact coverage by enumeration over every outcome), scipy's beta quantiles when scipy is importable,
coverage by simulation on a mechanism of known ε, and input validation."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from bounds.audit import clopper_pearson, epsilon_lower_bound


def _upper_tail_sum(p: float, k: int, n: int) -> mpmath.mpf:
    """P_p(X ≥ k), X ~ Bin(n, p), by summing pmf terms at 60 digits (independent of the continued fraction)."""
    with mpmath.workdps(60):
        p = mpmath.mpf(p)
        return mpmath.fsum(mpmath.binomial(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))


CASES = [(1, 1), (0, 7), (7, 7), (1, 10), (5, 10), (9, 10), (3, 50), (25, 50), (49, 50), (17, 300), (150, 300),
         (299, 300)]


@pytest.mark.parametrize("k,n", CASES)
@pytest.mark.parametrize("confidence", [0.95, 0.999])
def test_limits_have_exactly_the_claimed_coverage(k: int, n: int, confidence: float) -> None:
    """At the returned lower limit P(X ≥ k) equals the level α/2 (to 1e-9 relative) and never exceeds it:
    the limit is the exact quantile, rounded to the safe side.  Likewise P(X ≤ k) at the upper limit."""
    lo, hi = clopper_pearson(k, n, confidence=confidence)
    level = (1 - confidence) / 2
    if k == 0:
        assert lo == 0.0
    else:
        tail = _upper_tail_sum(lo, k, n)
        assert tail <= level
        assert tail >= level * (1 - 1e-9)
    if k == n:
        assert hi == 1.0
    else:
        tail = 1 - _upper_tail_sum(hi, k + 1, n)          # P(X ≤ k)
        assert tail <= level
        assert tail >= level * (1 - 1e-9)


@pytest.mark.parametrize("n", [1, 12, 40])
@pytest.mark.parametrize("p", [0.01, 0.3, 0.5, 0.93])
def test_exact_coverage_by_enumeration(n: int, p: float) -> None:
    """Coverage over every outcome k of Bin(n, p): P(lo(X) > p) ≤ α/2 and P(hi(X) < p) ≤ α/2 exactly."""
    level = 0.025
    with mpmath.workdps(40):
        pm = [mpmath.binomial(n, k) * mpmath.mpf(p) ** k * (1 - mpmath.mpf(p)) ** (n - k) for k in range(n + 1)]
        limits = [clopper_pearson(k, n) for k in range(n + 1)]
        miss_lo = mpmath.fsum(pm[k] for k in range(n + 1) if limits[k][0] > p)
        miss_hi = mpmath.fsum(pm[k] for k in range(n + 1) if limits[k][1] < p)
    assert miss_lo <= level and miss_hi <= level


def test_large_n_against_term_sums() -> None:
    """n = 10⁶: the tail at the returned limits, summed over the ±60σ window of terms, is the level."""
    n, k = 1_000_000, 123_457
    lo, hi = clopper_pearson(k, n)
    with mpmath.workdps(40):
        def pmf_window(p: float) -> tuple[list, int]:
            p = mpmath.mpf(p)
            sd = math.sqrt(n * float(p) * (1 - float(p)))
            a, b = max(0, int(n * float(p) - 60 * sd)), min(n, int(n * float(p) + 60 * sd))
            log_c = mpmath.loggamma(n + 1) - mpmath.loggamma(a + 1) - mpmath.loggamma(n - a + 1)
            t = mpmath.exp(log_c + a * mpmath.log(p) + (n - a) * mpmath.log1p(-p))
            terms = [t]
            for j in range(a, b):
                t = t * (n - j) / (j + 1) * p / (1 - p)
                terms.append(t)
            return terms, a
        terms, a = pmf_window(lo)
        upper = mpmath.fsum(terms[k - a:])
        terms, a = pmf_window(hi)
        lower = mpmath.fsum(terms[:k - a + 1])
    assert 0.025 * (1 - 1e-7) <= upper <= 0.025
    assert 0.025 * (1 - 1e-7) <= lower <= 0.025


def test_against_scipy_beta_quantiles() -> None:
    stats = pytest.importorskip("scipy.stats")
    for k, n in CASES + [(3, 10**6), (500_000, 10**6), (999_990, 10**6)]:
        lo, hi = clopper_pearson(k, n)
        ref_lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
        ref_hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
        assert lo == pytest.approx(ref_lo, rel=1e-7, abs=1e-300)
        assert hi == pytest.approx(ref_hi, rel=1e-7)


def test_epsilon_lower_bound_statement() -> None:
    """The bound is the largest of the four statements built from the α/4 one-sided limits, rounded down."""
    r = epsilon_lower_bound(7_000, 10_000, 3_000, 10_000, details=True)
    lim = r.limits
    lo1, hi1 = clopper_pearson(7_000, 10_000, confidence=1 - 0.05 / 2)   # two-sided at α/2: α/4 per side
    lo0, hi0 = clopper_pearson(3_000, 10_000, confidence=1 - 0.05 / 2)
    assert (lim["p1_lo"], lim["p1_hi"], lim["p0_lo"], lim["p0_hi"]) == (lo1, hi1, lo0, hi0)
    with mpmath.workdps(40):
        ref = max(mpmath.log(mpmath.mpf(lo1) / hi0), mpmath.log((1 - mpmath.mpf(hi0)) / (1 - mpmath.mpf(lo1))))
    assert r.epsilon <= ref and r.epsilon >= ref - 1e-15
    # symmetric in the two inputs; the complement gives the same here by symmetry of the counts
    assert epsilon_lower_bound(3_000, 10_000, 7_000, 10_000) == pytest.approx(r.epsilon, abs=1e-15)


def test_delta_is_subtracted() -> None:
    base = epsilon_lower_bound(900, 1_000, 100, 1_000)
    with_delta = epsilon_lower_bound(900, 1_000, 100, 1_000, delta=0.2)
    lim = epsilon_lower_bound(900, 1_000, 100, 1_000, details=True).limits
    with mpmath.workdps(40):
        ref = mpmath.log((mpmath.mpf(lim["p1_lo"]) - mpmath.mpf(0.2)) / lim["p0_hi"])
    assert with_delta < base
    assert ref - 1e-14 <= with_delta <= ref
    assert epsilon_lower_bound(900, 1_000, 100, 1_000, delta=1.0) == 0.0
    assert epsilon_lower_bound(0, 10, 0, 10) == 0.0 and epsilon_lower_bound(10, 10, 10, 10) == 0.0


def test_coverage_by_simulation_on_known_epsilon() -> None:
    """Randomized response at ε = 1 on the event "report 1": p₁ = e/(1 + e), p₀ = 1/(1 + e), 200 runs each,
    400 audits at seed 7.  The bound may exceed ε = 1 in at most 5 % of audits in expectation; the count
    of exceedances is Bin(400, ≤ 0.05): the limit used is the smallest c with P(Bin(400, 0.05) ≥ c) < 10⁻⁶."""
    rng = np.random.default_rng(7)
    e = math.e
    p1, p0 = e / (1 + e), 1 / (1 + e)
    k1 = rng.binomial(200, p1, size=400)
    k0 = rng.binomial(200, p0, size=400)
    # the bound is a function of the pair of counts: each of the 280 distinct pairs among the 400 audits is
    # computed once (the 400 audits, duplicates included, are still what is counted below)
    pairs = list(zip(k1.tolist(), k0.tolist()))
    bound_of = {pair: epsilon_lower_bound(pair[0], 200, pair[1], 200) for pair in dict.fromkeys(pairs)}
    bounds_ = [bound_of[pair] for pair in pairs]
    assert len(bounds_) == 400
    exceed = sum(b > 1.0 for b in bounds_)
    with mpmath.workdps(30):     # the smallest c with P(Bin(400, 0.05) ≥ c) < 1e-6
        pm = [mpmath.binomial(400, j) * mpmath.mpf("0.05") ** j * mpmath.mpf("0.95") ** (400 - j)
              for j in range(401)]
        c = next(c for c in range(401) if mpmath.fsum(pm[c:]) < 1e-6)
    assert 20 < c < 60
    assert exceed < c
    assert np.median(bounds_) > 0.3           # and the audits are not vacuous: the median bound is informative


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1, 2.5, 10**400, "3", True, 3 + 0j, None, [3]])
def test_rejects_bad_counts(bad: object) -> None:
    with pytest.raises((ValueError, TypeError), match="events_1"):
        epsilon_lower_bound(bad, 10, 3, 10)


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="events_1 = 11 must be ≤ trials_1 = 10"):
        epsilon_lower_bound(11, 10, 3, 10)
    with pytest.raises(ValueError, match="trials_0"):
        epsilon_lower_bound(1, 10, 0, 0)
    for conf in (0.0, 1.0, float("nan"), 1.5):
        with pytest.raises(ValueError, match="confidence"):
            epsilon_lower_bound(1, 10, 0, 10, confidence=conf)
    for d in (-0.1, 1.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="delta"):
            epsilon_lower_bound(1, 10, 0, 10, delta=d)
    with pytest.raises(TypeError, match="delta"):
        epsilon_lower_bound(1, 10, 0, 10, delta="0")
    with pytest.raises(ValueError, match="side"):
        clopper_pearson(1, 10, side="both")
    # numpy integers and integral floats are counts; 2**53 + 1 is an exact Python int
    assert epsilon_lower_bound(np.int64(9), np.int32(10), 1.0, 10) == epsilon_lower_bound(9, 10, 1, 10)
    lo, hi = clopper_pearson(2**53 + 1, 2**53 + 1)
    assert hi == 1.0 and 0.99 < lo < 1.0


@pytest.mark.parametrize("k,n", [(2**53, 2**53 + 1), (1, 2**53), (2**52, 2**53), (10**8, 10**9)])
def test_huge_counts(k: int, n: int) -> None:
    """Counts up to 2⁵³: no recursion loop where (a + 1)/(a + b + 2) rounds, no lgamma cancellation (ln B
    from mpmath); limits ordered around k/n, within a few standard errors."""
    lo, hi = clopper_pearson(k, n)
    p = k / n
    sd = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    assert 0.0 < lo <= p <= hi <= 1.0
    assert p - lo < 6 * sd + 1e-15 and hi - p < 6 * sd + 1e-15
