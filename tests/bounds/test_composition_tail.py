"""One-step grids with a strided right tail (``tail_stride``, ``upper_from_values_at``; issue 21).

References: the exact hockey-stick curve of the Poisson-subsampled Gaussian (REMOVE) in mpmath at 50 digits,
δ(ε) = (1 − q)Φ̄(x*) + qΦ̄(x* − θ) − e^ε Φ̄(x*) with ln(1 − q + q e^{θx* − θ²/2}) = ε, and the chord masses as exact
second differences of the stored node values (mpmath, 60 digits) — never the code under test.
"""
import mpmath as mp
import numpy as np
import pytest

from bounds.composition import _C

C = _C()


def _exact_delta(theta, q, eps):
    with mp.workdps(50):
        eps = mp.mpf(eps)
        r = (mp.exp(eps) - (1 - q)) / q
        if r <= 0:
            return 1 - mp.exp(eps)  # ε < ln(1 − q): the loss always exceeds ε... (not used below)
        x = (mp.log(r) + mp.mpf(theta) ** 2 / 2) / theta
        tail = lambda z: mp.erfc(z / mp.sqrt(2)) / 2  # noqa: E731
        return (1 - q) * tail(x) + q * tail(x - theta) - mp.exp(eps) * tail(x)


def _grid_h(g, h, eps):
    with mp.workdps(50):
        eps = mp.mpf(eps)
        s = mp.mpf(g.m_inf)
        for i, x in enumerate(g.m):
            k = g.k0 + i
            if x > 0 and k * h > eps:
                s += mp.mpf(float(x)) * (1 - mp.exp(eps - k * mp.mpf(h)))
        return s


@pytest.mark.parametrize("q,e", [(0.01, 9), (0.001, 10), (0.05, 8)])
def test_strided_one_step_grids_sandwich_the_exact_delta(q, e):
    h = 2.0 ** -e
    u, lw = C.one_step(C.GAUSSIAN, C.REMOVE, 1.0, q, h, tail=True)
    _, k_tail, stride = C.tail_stride(C.GAUSSIAN, q, 1.0, 0.0, 0.0, h, u.k0, u.k1)
    assert stride == C.TAIL_STRIDE and u.k0 < k_tail < u.k1  # the tail is strided here
    # the upper grid has mass only on the strided nodes beyond k_tail
    k = np.arange(u.k0, u.k1 + 1)
    assert not np.any(u.m[(k > k_tail) & ((k - k_tail) % stride != 0) & (k < u.k1)] > 0)  # (k_hi is kept)
    top = u.k1 * h
    for eps in list(np.linspace(0.0, top, 23)) + [(k_tail + 3) * h + h / 3, (k_tail + stride // 2) * h]:
        exact = _exact_delta(1.0, q, eps)
        assert _grid_h(u, h, eps) >= exact, eps
        assert _grid_h(lw, h, eps) <= exact, eps


def test_wrong_spacing_in_the_chord_is_caught():
    # the chord masses computed as if every interval were stride·h wide, put on the real nodes: the bulk's
    # masses shrink and the curve falls below the exact δ (the per-interval spacing is what makes it sound)
    q, h = 0.01, 2.0 ** -9
    u, _ = C.one_step(C.GAUSSIAN, C.REMOVE, 1.0, q, h, tail=True)
    _, k_tail, stride = C.tail_stride(C.GAUSSIAN, q, 1.0, 0.0, 0.0, h, u.k0, u.k1)
    ks = np.concatenate((np.arange(u.k0 - 1, k_tail), np.arange(k_tail, u.k1, stride), [u.k1]))
    d = C.profile_values_at(C.GAUSSIAN, C.REMOVE, 1.0, q, ks, h)
    fake = ks[0] + stride * np.arange(len(ks))
    wrong, m_inf = C.upper_from_values_at(d, fake, h)
    m = np.zeros(int(ks[-1] - ks[0]) + 1)
    m[ks - ks[0]] = wrong
    g = C.Grid(m, int(ks[0]), m_inf)
    assert any(_grid_h(g, h, eps) < _exact_delta(1.0, q, eps) for eps in np.linspace(0.0, k_tail * h, 15))


@pytest.mark.parametrize("k0", [0, 700 * 16])
def test_upper_from_values_at_against_exact_second_differences(k0):
    # mixed spacings (1, 8 and the transitions), also at kh > 709.78 where e^{kh} overflows
    h = 2.0 ** -4
    ks = np.concatenate((np.arange(k0, k0 + 40), np.arange(k0 + 40, k0 + 200, 8), [k0 + 203]))
    d = C.profile_values_at(C.GAUSSIAN, C.REMOVE, 30.0 if k0 else 2.0, 0.01, ks, h)
    masses, m_inf = C.upper_from_values_at(d, ks, h)
    with mp.workdps(60):
        fd = [mp.mpf(float(x)) for x in d]
        for i in range(len(d)):
            if i == 0:
                t1 = 1 - fd[0]
            else:
                hp = mp.mpf(int(ks[i] - ks[i - 1])) * h
                t1 = mp.exp(hp) * (fd[i - 1] - fd[i]) / mp.expm1(hp)
            t2 = (fd[i] - fd[i + 1]) / mp.expm1(mp.mpf(int(ks[i + 1] - ks[i])) * h) if i < len(d) - 1 else 0
            assert masses[i] >= t1 - t2
            assert masses[i] <= max(t1 - t2, 0) + 1e-12 * abs(t1) + 1e-300
    assert np.isfinite(masses).all() and m_inf == d[-1]
    # on consecutive nodes it is upper_from_values, bit for bit
    k = np.arange(k0, k0 + 50)
    dd = C.profile_values_at(C.GAUSSIAN, C.REMOVE, 2.0, 0.01, k, h)
    a, ai = C.upper_from_values_at(dd, k, h)
    b, bi = C.upper_from_values(dd, k0, h)
    assert np.array_equal(a, b) and ai == bi


def test_tail_stride_off_where_it_does_not_apply():
    h = 2.0 ** -10
    assert C.tail_stride(C.GAUSSIAN, 1.0, 1.0, 0.0, 0.0, h, -100, 10_000)[2] == 1  # rate 1: no thin tail
    assert C.tail_stride(C.GAUSSIAN, 0.01, 1.0, 0.0, 0.0, h, 0, 100)[2] == 1  # too few nodes
    k_head, k_tail, stride = C.tail_stride(C.GAUSSIAN, 0.0, 0.0, 0.01, -1.0, h, -5000, 20)  # ADD: the left tail
    assert stride == C.TAIL_STRIDE and k_tail == 2 ** 62 and -5000 < k_head < 20
    x = C.x_at(C.GAUSSIAN, 0.0, 0.0, 0.01, -1.0, k_head * h)
    with mp.workdps(30):
        assert 0.5 * C.TAIL_MASS <= mp.ncdf(x) <= 1.01 * C.TAIL_MASS  # P = N(0, 1) below the head
    # where it applies, the P-mass beyond k_tail is about TAIL_MASS (mpmath)
    a_w, s_p, b_w, s_q = C.pair_parameters(C.GAUSSIAN, C.REMOVE, 1.0, 0.01)
    _, k_tail, stride = C.tail_stride(C.GAUSSIAN, a_w, s_p, b_w, s_q, h, -20, 6000)
    x = C.x_at(C.GAUSSIAN, a_w, s_p, b_w, s_q, k_tail * h)
    with mp.workdps(30):
        mass = 0.99 * mp.erfc(x / mp.sqrt(2)) / 2 + 0.01 * mp.erfc((x - 1) / mp.sqrt(2)) / 2
    assert stride == C.TAIL_STRIDE and 0.5 * C.TAIL_MASS <= mass <= C.TAIL_MASS


def test_tail_striding_only_when_asked():
    h = 2.0 ** -9
    u0, l0 = C.one_step(C.GAUSSIAN, C.REMOVE, 1.0, 0.01, h)
    u1, l1 = C.one_step(C.GAUSSIAN, C.REMOVE, 1.0, 0.01, h, tail=True)
    assert np.count_nonzero(u0.m) > 2 * np.count_nonzero(u1.m)
    assert np.count_nonzero(l0.m) > np.count_nonzero(l1.m)


def _exact_delta_add(theta, q, eps):
    # ADD: P = N(0, 1), Q = (1 − q)N(0, 1) + qN(−θ, 1); ℓ(x) = −ln(1 − q + q e^{−θx − θ²/2}) increases in x
    with mp.workdps(50):
        eps = mp.mpf(eps)
        r = (mp.exp(-eps) - 1 + q) / q
        if r <= 0:
            return mp.mpf(0)
        x = -(mp.log(r) + mp.mpf(theta) ** 2 / 2) / theta
        tail = lambda z: mp.erfc(z / mp.sqrt(2)) / 2  # noqa: E731
        return tail(x) - mp.exp(eps) * ((1 - q) * tail(x) + q * tail(x + theta))


@pytest.mark.parametrize("q,e", [(0.01, 9), (0.001, 10)])
def test_strided_add_grids_sandwich_the_exact_delta(q, e):
    h = 2.0 ** -e
    u, lw = C.one_step(C.GAUSSIAN, C.ADD, 1.0, q, h, tail=True)
    a_w, s_p, b_w, s_q = C.pair_parameters(C.GAUSSIAN, C.ADD, 1.0, q)
    k_head, _, stride = C.tail_stride(C.GAUSSIAN, a_w, s_p, b_w, s_q, h, u.k0, u.k1)
    assert stride == C.TAIL_STRIDE and u.k0 < k_head < u.k1
    k = np.arange(u.k0, u.k1 + 1)
    assert not np.any(u.m[(k < k_head) & ((k_head - k) % stride != 0) & (k > u.k0)] > 0)
    for eps in list(np.linspace(u.k0 * h, u.k1 * h, 25)) + [(k_head - 3) * h + h / 3, (k_head - 5) * h]:
        exact = _exact_delta_add(1.0, q, eps)
        assert _grid_h(u, h, eps) >= exact, eps
        assert _grid_h(lw, h, eps) <= exact, eps
