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
