"""The public API's compiled scalar route (``numeric.scalar_route``): a generated closed form's array loop at one
point (``numeric.one_point``) once the process has built that loop, so no kernel is compiled twice (issue 20)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import numeric

T1 = "numeric._generated.subsampling:t1_epsilon"
T6 = "numeric._generated.poisson_substitution:t6_delta"  # arity 4: the general form of one_point


def test_threads_never_read_each_others_arguments():
    """Eight threads call the route at once, each at its own points (the loop releases the GIL, so calls
    overlap): every value is the array route's at that thread's point.  A shared buffer would hand one
    thread's arguments or result to another; values differ from point to point, so that could not pass."""
    eps = np.arange(1, 201, dtype=np.float64) / 64  # exact: integers over a power of two
    rates = np.arange(1, 9, dtype=np.float64) / 128
    expected = {r: numeric.kernel(T1, 2)(eps, np.full(eps.size, r)) for r in rates.tolist()}
    route = numeric.scalar_route(T1)  # the loop is built: the loop at one point
    assert route is not numeric.scalar_kernel(T1)
    assert len({v for e in expected.values() for v in e.tolist()}) == eps.size * rates.size
    failures: list = []
    start = threading.Barrier(rates.size)

    def work(rate: float) -> None:
        start.wait()
        for _ in range(20):
            for e, want in zip(eps.tolist(), expected[rate].tolist()):
                got = route(e, rate)
                if got != want:
                    failures.append((rate, e, got, want))

    threads = [threading.Thread(target=work, args=(r,)) for r in rates.tolist()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:5]


def test_route_kinds_and_arity(monkeypatch):
    """A generated closed form whose loop is built runs that loop; without the loop, its @njit dispatcher (a
    process making only scalar calls compiles the cheaper one); a hand-written kernel keeps its dispatcher (the
    loop calls it, not a copy); the general arity refuses a wrong count."""
    point = (1.0, 0.01, 1e-6, 1e-6)
    array_value = float(numeric.kernel(T6, 4)(*[np.array([v]) for v in point])[0])
    with monkeypatch.context() as m:
        m.setattr(numeric, "_SCALAR_ROUTES", {})
        m.setattr(numeric, "loop_built", lambda spec: False)
        assert numeric.scalar_route(T6) is numeric.scalar_kernel(T6)
    route = numeric.scalar_route(T6)
    assert route is not numeric.scalar_kernel(T6)
    assert route(*point) == array_value
    assert type(route(*point)) is float
    with pytest.raises(TypeError, match="takes 4 arguments"):
        route(1.0, 0.01, 1e-6)
    hand = "numeric.with_replacement:delta"
    assert numeric.scalar_route(hand) is numeric.scalar_kernel(hand)
    assert numeric.scalar_route(T1) is numeric.scalar_route(T1)


def test_a_fused_loop_serves_the_scalar_route_with_the_dispatchers_bits(monkeypatch):
    """When a public (ε, δ) array call built only T1's fused loop (no own ε or δ loop), the scalar route of each
    kernel is that fused loop at one point: the dispatcher's bits at every point, special values included, the
    route object says so, and a wrong argument count is refused.  (Before the fused route existed, ``loop_built``
    said yes and the route looked up an own loop that was never built.)"""
    import bounds

    monkeypatch.setattr(numeric, "_SCALAR_ROUTES", {})
    monkeypatch.setattr(numeric, "_UFUNCS", {})  # no own loop in this process
    monkeypatch.setattr(numeric, "_PAIRS", {})
    eps = np.arange(1, 4097, dtype=np.float64) / 512  # ≥ the fused route's size, exact values
    bounds.poisson_subsampling(eps, 1e-6, 0.01)  # builds T1's fused loop only
    specs = {"epsilon": (T1, (1.5, 0.01)), "delta": ("numeric._generated.subsampling:t1_delta", (1e-6, 0.01))}
    for name, (spec, point) in specs.items():
        assert not (numeric.canonical(spec) in numeric._UFUNCS)
        route = numeric.scalar_route(spec)
        assert route.__name__.startswith("fused_one_point"), (name, route)
        dispatcher = numeric.scalar_kernel(spec)
        values = [0.0, 5e-324, 1e-300, 1e-8, 0.25, 1.0, 700.0, 1e300, float("inf"), float("nan")]
        for a in values:
            for b in (0.0, 1e-300, 0.01, 0.5, 1.0):
                got, want = route(a, b), float(dispatcher(a, b))
                assert got == want or (got != got and want != want), (name, a, b, got, want)
        with pytest.raises(TypeError, match="takes 2 arguments"):
            route(1.0)
