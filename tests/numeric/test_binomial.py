"""Loader's binomial log-probabilities and their error bounds against mpmath."""
import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numeric.binomial import STIRLERR_TABLE, log_pmf, log_pmf_with_error, stirlerr


def ref_stirlerr(n):
    with mp.workdps(50):
        return mp.loggamma(n + 1) - (n + mp.mpf(0.5)) * mp.log(n) + n - mp.log(2 * mp.pi) / 2


@pytest.mark.parametrize("n", range(1, 51))
def test_stirlerr_table(n):
    assert abs(STIRLERR_TABLE[n] - ref_stirlerr(n)) <= 1e-17


@pytest.mark.parametrize("n", [51, 52, 80, 81, 500, 501, 10**4, 10**9])
def test_stirlerr_series(n):
    assert abs(stirlerr(float(n)) / ref_stirlerr(n) - 1) < 4e-16


def ref_log_pmf(x, n, p):
    with mp.workdps(60):
        p = mp.mpf(p)
        return mp.log(mp.binomial(n, x)) + x * mp.log(p) + (n - x) * mp.log1p(-p)


@given(st.integers(1, 10**6), st.floats(1e-9, 0.999), st.floats(0, 1))
def test_log_pmf_and_its_error_bound(n, p, frac):
    x = int(frac * n)
    value, err = log_pmf_with_error(float(x), float(n), p)
    ref = ref_log_pmf(x, n, p)
    assert value == log_pmf(float(x), float(n), p)
    assert abs(mp.mpf(value) - ref) <= err  # the running bound really bounds the error
