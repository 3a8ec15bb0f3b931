"""The seed-000 experiments: the four variants' budgets are the library's T14 bounds, the errata switch exactly
where SYSTEMS §1.4 says, seeds reproduce (independently of the grid and the scheduler), the CLI's JSON shape."""
from __future__ import annotations

import importlib.util
import math
import re
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

import bounds
from ampbounds_cli import main
from bounds import procedures
from bounds.experiments import (FAITHFUL, FIXED, VARIANTS, Errata, reproduce_mean, reproduce_mode,
                                sampling_pairs, triangle_pairs, variant_budget)
from bounds.experiments.datasets import COLUMNS, load_column, public_range
from bounds.experiments.scores import scores_absolute, scores_discrete

PAIRS = [(0.1, 0.1), (0.1, 0.2), (0.3, 0.7), (0.5, 0.5), (0.7, 0.8), (0.6, 0.7), (0.9, 0.9)]


@pytest.mark.parametrize("m,M", PAIRS)
@pytest.mark.parametrize("eps", [0.25, 0.5, 1.0, 2.0])
def test_variant_budgets_are_the_library_bounds(eps, m, M):
    delta = 1e-9
    assert variant_budget("M", eps, delta, m, M) == (eps, delta, False, True)
    assert variant_budget("MoS", eps, delta, m, M) == (eps, delta, True, True)
    g = bounds.outlier_score_suppression(eps, delta, m, M)
    assert variant_budget("M_suppressed_budget", eps, delta, m, M) == (g.epsilon, g.delta, False, True)
    try:
        inv = bounds.outlier_score_suppression_inverse(eps, delta, m, M)
    except ValueError:
        b = variant_budget("MoS_calibrated", eps, delta, m, M)
        assert not b.feasible and b.suppress
        return
    b = variant_budget("MoS_calibrated", eps, delta, m, M)
    assert b.feasible == (inv.epsilon > 0)
    if b.feasible:
        assert (b.epsilon, b.delta, b.suppress) == (inv.epsilon, inv.delta, True)
        # the calibrated release is within the target
        back = bounds.outlier_score_suppression(b.epsilon, b.delta, m, M)
        assert back.epsilon <= eps and back.delta <= delta * (1 + 1e-15)


def test_no_suppression_is_the_identity():
    for v in VARIANTS:
        b = variant_budget(v, 0.5, 1e-9, 0.0, 0.0)
        assert (b.epsilon, b.delta, b.feasible) == (0.5, 1e-9, True)
    with pytest.raises(ValueError, match="m = 0 < M"):
        variant_budget("M", 0.5, 0.0, 0.0, 0.3)
    with pytest.raises(ValueError, match="variant"):
        variant_budget("X", 0.5, 0.0, 0.1, 0.3)


def test_erratum3_stuck_search_only_in_its_two_cells():
    for eps, m, M in [(0.5, 0.7, 0.8), (1.0, 0.6, 0.7)]:
        fixed = variant_budget("MoS_calibrated", eps, 1e-9, m, M, FIXED)
        faithful = variant_budget("MoS_calibrated", eps, 1e-9, m, M, FAITHFUL)
        assert faithful.epsilon == eps and fixed.epsilon > eps  # the search never left its start point
        assert faithful.delta == fixed.delta
    for eps in [0.25, 0.5, 1.0, 2.0]:
        for m, M in triangle_pairs():
            if (eps, m, M) in [(0.5, 0.7, 0.8), (1.0, 0.6, 0.7)]:
                continue
            assert variant_budget("MoS_calibrated", eps, 1e-9, m, M, FIXED) == \
                variant_budget("MoS_calibrated", eps, 1e-9, m, M, FAITHFUL)


@pytest.mark.parametrize("dataset,column", sorted(COLUMNS))
def test_scores_are_bit_identical_to_outlier_scores(dataset, column):
    x = load_column(dataset, column)
    lo, hi = public_range(dataset, column)
    for m, M in [(0.1, 0.1), (0.1, 0.9), (0.35, 0.6)]:
        assert np.array_equal(scores_absolute(x, lo, hi, m, M, f"{dataset}/{column}"),
                              procedures.outlier_scores(x, procedures.AbsoluteDifference(lo, hi), m, M))
        assert np.array_equal(scores_discrete(x, m, M, f"{dataset}/{column}"),
                              procedures.outlier_scores(x, procedures.Discrete(), m, M))


def _key(r):
    return (r["mechanism"], r["variant"], r["epsilon"], r["m"], r["M"])


def test_seeds_reproduce_and_do_not_depend_on_the_grid():
    kw = dict(mechanisms=["laplace"], epsilons=[1.0], repetitions=30)
    a = reproduce_mean("census", "FICA", pairs=[(0.3, 0.5)], seed=7, **kw)
    b = reproduce_mean("census", "FICA", pairs=[(0.3, 0.5)], seed=7, **kw)
    assert a == b
    c = reproduce_mean("census", "FICA", pairs=[(0.1, 0.1), (0.3, 0.5), (0.6, 0.9)], seed=7, **kw)
    by = {_key(r): r for r in c}
    assert all(by[_key(r)] == r for r in a)  # the same cell in a bigger grid: the same numbers
    d = reproduce_mean("census", "FICA", pairs=[(0.3, 0.5)], seed=8, **kw)
    assert [r["utility"] for r in d] != [r["utility"] for r in a]
    # asking for fewer mechanisms does not change the others (one stream per mechanism)
    both = reproduce_mean("census", "FICA", pairs=[(0.3, 0.5)], seed=7, mechanisms=["laplace", "gaussian"],
                          epsilons=[1.0], repetitions=30)
    assert [r for r in both if r["mechanism"] == "laplace"] == a


def test_mean_sum_sensitivity_erratum_changes_only_columns_not_starting_at_zero():
    kw = dict(mechanisms=["laplace"], epsilons=[0.5], pairs=[(0.2, 0.4)], repetitions=20, seed=3)
    e5 = Errata(sum_sensitivity=True)
    assert reproduce_mean("census", "FICA", errata=e5, **kw) == \
        [{**r, "errata": "sum_sensitivity"} for r in reproduce_mean("census", "FICA", **kw)]
    fixed = reproduce_mean("irish", "HighestEducationCompleted", **kw)
    faithful = reproduce_mean("irish", "HighestEducationCompleted", errata=e5, **kw)
    assert [r["utility"] for r in fixed] != [r["utility"] for r in faithful]


def test_mode_expmech_offset_erratum():
    # Irish HighestEducationCompleted: range [1, 10], mode 3.  At a huge ε the fixed exponential mechanism
    # always finds the mode; the authors' offset reports 4 instead: success 0 (SYSTEMS §1.4 erratum 4).
    kw = dict(mechanisms=["expmech"], epsilons=[50.0], variants=["M"], repetitions=200, seed=1)
    fixed = reproduce_mode("irish", "HighestEducationCompleted", **kw)
    faithful = reproduce_mode("irish", "HighestEducationCompleted", errata=Errata(expmech_offset=True), **kw)
    assert fixed[0]["utility"] == 0.0 and faithful[0]["utility"] == 1.0
    # Adult age starts at 0: the offset is 0, the erratum changes nothing
    a = reproduce_mode("adult", "age", **kw)
    b = reproduce_mode("adult", "age", errata=Errata(expmech_offset=True), **kw)
    assert a[0]["utility"] == b[0]["utility"] == 0.0


def test_mode_hours_per_week_is_never_missed():
    # 46.7 % of the records are 40: every mechanism finds it at ε = 1, with or without sampling at p = 0.5
    recs = reproduce_mode("adult", "hours-per-week", epsilons=[1.0], pairs=sampling_pairs([1.0, 0.5]),
                          repetitions=20, seed=2)
    assert all(r["utility"] == 0.0 for r in recs if r["mechanism"] != "gaussian")


def test_mean_records_shape_and_infeasible_cells():
    recs = reproduce_mean("census", "FICA", mechanisms=["laplace"], epsilons=[0.25], pairs=[(0.1, 0.9)],
                          repetitions=5, seed=0)
    assert [r["variant"] for r in recs] == list(VARIANTS)
    cal = recs[-1]
    assert cal["utility"] is None and cal["epsilon_M"] is None  # ε^S(0, 0.1, 0.9) = 8 > 0.25: no base budget
    assert recs[2]["epsilon_M"] == bounds.outlier_score_suppression(0.25, recs[2]["delta"], 0.1, 0.9).epsilon


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_json_shape():
    code, out, err = _cli("reproduce", "mean", "--dataset", "census", "--column", "FICA", "--mechanism",
                          "laplace", "--epsilon", "0.25", "--rates", "1", "0.5", "0.1", "--repetitions", "20",
                          "--seed", "1", "--json")
    assert code == 0, err
    recs = json.loads(out)
    assert len(recs) == 3 * 4
    for r in recs:
        assert {"variant", "rate", "m", "M", "epsilon", "utility", "stderr"} <= set(r)
        assert r["variant"] in VARIANTS and r["epsilon"] == 0.25 and r["m"] == r["M"] == round(1 - r["rate"], 10)
    assert "cells" in err  # the progress line
    assert recs == reproduce_mean("census", "FICA", mechanisms=["laplace"], epsilons=[0.25],
                                  pairs=sampling_pairs([1, 0.5, 0.1]), repetitions=20, seed=1)


@pytest.mark.parametrize("argv,needle", [
    (["reproduce", "mean", "--rates", "0"], "--rates"),
    (["reproduce", "mean", "--pairs", "0.5,0.2"], "--pairs"),
    (["reproduce", "mean", "--mechanism", "cauchy", "--rates", "1"], "mechanism"),
    (["reproduce", "mode", "--dataset", "census", "--column", "AGI", "--rates", "1"], "not a seed-000 column"),
    (["reproduce", "mean", "--faithful-errata", "nope", "--rates", "1"], "erratum"),
    (["reproduce", "mean", "--repetitions", "0", "--rates", "1"], "--repetitions"),
])
def test_cli_usage_errors(argv, needle):
    code, out, err = _cli(*argv, "--quiet")
    assert code == 2 and needle in err and err.count("\n") == 1


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed is not installed (pip install 'ampbounds[distributed]')")
def test_serial_equals_dask():
    from dask.distributed import Client, LocalCluster

    kw = dict(mechanisms=["laplace", "gaussian"], epsilons=[0.5, 1.0], pairs=[(0.0, 0.0), (0.2, 0.4)],
              repetitions=10, seed=5)
    serial = reproduce_mean("census", "FICA", **kw)
    with Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)) as c:
        distributed = reproduce_mean("census", "FICA", scheduler=c, **kw)
    assert serial == distributed


def test_full_grid_estimate_is_measured_and_positive():
    from bounds.experiments import default_pairs, estimate_cpu_seconds

    full = default_pairs(full=True)
    assert len(full) == 100 + 45 - 9  # rates 1, 0.99, …, 0.01 and the triangle (its diagonal is 9 of the rates)
    est = estimate_cpu_seconds("mean", len(full), 4, 500, dataset="census", column="FICA")
    assert 0 < est < 1e6


def test_plots_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    from bounds.experiments.plots import write_plots

    recs = reproduce_mode("adult", "age", mechanisms=["laplace"], epsilons=[1.0],
                          pairs=sampling_pairs([1.0, 0.5]) + triangle_pairs([0.2, 0.6]), repetitions=5, seed=0)
    paths = write_plots(recs, tmp_path, "mode")
    assert sorted(p.name for p in paths) == ["mode_laplace_difference.png", "mode_laplace_sampling.png"]
    assert all(p.stat().st_size > 1000 for p in paths)


# The authors' published results (kit-ps/Sampling-and-Suppression-in-DP-USENIX-26 @ b03f650,
# NoisyAverage/<db>/CSVfiles/<col>/<col>_eps=<ε>_delta=<δ>_M_Average.csv): variant M does not depend on (m, M),
# so the 136 cells × 500 repetitions pool into one MPE (%) with standard error = cell sd/√136.
PUBLISHED_M = [  # (dataset, column, ε, mechanism, MPE %, its standard error)
    ("census", "FICA", 0.25, "laplace", 3.118, 0.135 / 136 ** 0.5),
    ("census", "FICA", 0.25, "gaussian", 7.868, 0.243 / 136 ** 0.5),
    ("irish", "HighestEducationCompleted", 0.25, "laplace", 0.02962, 0.0013 / 136 ** 0.5),
    ("irish", "HighestEducationCompleted", 0.25, "gaussian", 0.07355, 0.00218 / 136 ** 0.5),
]


@pytest.mark.parametrize("dataset,column,eps,mech,published,se", PUBLISHED_M)
def test_faithful_mode_reproduces_the_published_numbers(dataset, column, eps, mech, published, se):
    if mech == "gaussian":
        pytest.importorskip("scipy", reason="the faithful Gaussian calibration is scipy's BFGS stopping point")
    kw = dict(mechanisms=[mech], epsilons=[eps], variants=["M"], repetitions=20_000, seed=0)
    faithful = reproduce_mean(dataset, column, errata=FAITHFUL, **kw)[0]
    fixed = reproduce_mean(dataset, column, **kw)[0]
    tol = 4 * math.hypot(se, faithful["stderr"])
    assert abs(faithful["utility"] - published) < tol
    # the fixed experiment differs exactly where an erratum applies: the Gaussian σ (1) everywhere, the sum
    # sensitivity (5) on the range [1, 10]; Census FICA with Laplace has neither, so the two runs agree
    if mech == "laplace" and dataset == "census":
        assert fixed["utility"] == faithful["utility"]
    else:
        assert abs(fixed["utility"] - published) > 10 * math.hypot(se, fixed["stderr"])


@pytest.mark.parametrize("kw,error,needle", [
    (dict(epsilons=[float("nan")]), ValueError, "epsilon"),
    (dict(epsilons=[float("inf")]), ValueError, "epsilon"),
    (dict(epsilons=["a"]), TypeError, "epsilon"),
    (dict(epsilons=[True]), TypeError, "epsilon"),
    (dict(epsilons=[1j]), TypeError, "epsilon"),
    (dict(epsilons=[]), ValueError, "epsilons"),
    (dict(pairs=[(float("nan"), 0.5)]), ValueError, "m"),
    (dict(pairs=[(0.5, 0.2)]), ValueError, "(m, M)"),
    (dict(pairs=[(0.0, 0.5)]), ValueError, "(m, M)"),
    (dict(pairs=[(0.2, 1.0)]), ValueError, "(m, M)"),
    (dict(pairs=[("a", 0.2)]), TypeError, "m = 'a'"),
    (dict(repetitions=0), ValueError, "repetitions"),
    (dict(repetitions=True), ValueError, "repetitions"),
    (dict(repetitions=2**53 + 1), ValueError, "repetitions"),
    (dict(repetitions=2.0), ValueError, "repetitions"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(mechanisms=[]), ValueError, "mechanisms"),
    (dict(mechanisms="laplace"), ValueError, "mechanisms"),
    (dict(delta=float("nan")), ValueError, "delta"),
    (dict(delta=1.0), ValueError, "delta"),
    (dict(delta="x"), ValueError, "delta"),
    (dict(variants=["Mx"]), ValueError, "variant"),
])
def test_bad_input_is_a_clear_error(kw, error, needle):
    with pytest.raises(error, match=re.escape(needle)):
        reproduce_mean("census", "FICA", **{"repetitions": 2, **kw})
    with pytest.raises(ValueError, match="not a seed-000 column"):
        reproduce_mean("census", "AGI", repetitions=2)


def test_faithful_gaussian_without_scipy_is_a_clear_error(monkeypatch):
    import sys

    from bounds.experiments import mechanisms

    mechanisms._authors_sigma.cache_clear()
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)  # import fails as if scipy were absent
    with pytest.raises(ValueError, match="needs scipy"):
        mechanisms.gaussian_sigma(0.3, 1e-9, 1.0, FAITHFUL)
    mechanisms._authors_sigma.cache_clear()


@pytest.mark.skipif(importlib.util.find_spec("distributed") is not None, reason="dask.distributed is installed")
def test_cli_dask_without_distributed_is_a_usage_error():
    code, out, err = _cli("reproduce", "mean", "--rates", "1", "--epsilon", "1", "--repetitions", "2", "--dask",
                          "--quiet")
    assert code == 2 and "dask.distributed" in err
