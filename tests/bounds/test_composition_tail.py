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


# -- graded tails (``tail_nodes``; issue 21, 10⁶ steps at q = 1e-4) ----------------------------------------

def _graded(direction, q, h):
    a_w, s_p, b_w, s_q = C.pair_parameters(C.GAUSSIAN, direction, 1.0, q)
    u, lw = C.one_step(C.GAUSSIAN, direction, 1.0, q, h, tail=True)
    x0, x1 = C.p_support(C.GAUSSIAN, a_w, s_p)
    k_lo = int(np.floor(C.loss_at(C.GAUSSIAN, a_w, s_p, b_w, s_q, x0) / h)) - 1
    k_hi = int(np.ceil(C.loss_at(C.GAUSSIAN, a_w, s_p, b_w, s_q, x1) / h)) + 1
    k_head, k_tail, stride = C.tail_stride(C.GAUSSIAN, a_w, s_p, b_w, s_q, h, k_lo, k_hi)
    ks = C.tail_nodes(C.GAUSSIAN, a_w, s_p, b_w, s_q, h, k_lo, k_hi, k_head, k_tail, stride)
    return u, lw, ks, k_lo, k_hi, k_head, k_tail, stride


def _bands(ks, start, sign):
    """(first node, stride) of every band of a graded tail, walking away from ``start`` (sign +1: right)."""
    walk = ks[ks >= start] if sign > 0 else ks[ks <= start][::-1]
    gaps = np.abs(np.diff(walk))
    out = [(int(walk[0]), int(gaps[0]))]
    for i in range(1, len(gaps) - 1):  # (the last gap ends on k_hi / k_lo, off the lattice)
        if gaps[i] != gaps[i - 1]:
            out.append((int(walk[i]), int(gaps[i])))
    return out


def _remove_tail_mass(q, loss):
    # P(X > x) for the REMOVE pair at the x of loss ℓ = ln(1 − q + q e^{x − 1/2}) (θ = 1), mpmath
    with mp.workdps(40):
        x = mp.log((mp.expm1(mp.mpf(loss)) + q) / q) + mp.mpf(1) / 2
        return (1 - q) * mp.erfc(x / mp.sqrt(2)) / 2 + q * mp.erfc((x - 1) / mp.sqrt(2)) / 2


@pytest.mark.parametrize("direction,q,e", [(C.REMOVE, 1e-4, 13), (C.REMOVE, 0.001, 11), (C.ADD, 0.001, 11)])
def test_graded_tail_nodes(direction, q, e):
    h = 2.0 ** -e
    u, lw, ks, k_lo, k_hi, k_head, k_tail, stride = _graded(direction, q, h)
    assert stride == C.TAIL_STRIDE
    assert ks[0] == k_lo and ks[-1] == k_hi and np.all(np.diff(ks) > 0)
    if direction == C.REMOVE:
        assert np.array_equal(ks[ks <= k_tail], np.arange(k_lo, k_tail + 1))  # every node up to k_tail
        inner = ks[(ks >= k_tail) & (ks < k_hi)]
        bands = _bands(ks, k_tail, +1)
    else:
        assert np.array_equal(ks[ks >= k_head], np.arange(k_head, k_hi + 1))
        inner = ks[(ks <= k_head) & (ks > k_lo)]
        bands = _bands(ks, k_head, -1)
    assert np.all((inner - (k_tail if direction == C.REMOVE else k_head)) % stride == 0)  # on the stride lattice
    # the stride doubles from band to band, and the grading is active here (≥ 3 bands)
    assert [s for _, s in bands] == [stride * 2 ** j for j in range(len(bands))] and len(bands) >= 3
    # the grids live on these nodes (upper: exactly; lower: its cells aim at them)
    k = np.arange(u.k0, u.k1 + 1)
    assert set(k[u.m > 0]) <= set(ks.tolist())
    kl = np.arange(lw.k0, lw.k1 + 1)[lw.m > 0]
    near = np.searchsorted(ks, kl)  # the fallback puts a cell at most 3 nodes below its target
    assert np.all(ks[np.minimum(near, len(ks) - 1)] - kl <= 3)
    if direction == C.REMOVE:
        # band j starts where the P-mass beyond has fallen to TAIL_MASS/TAIL_GRADE^j (mpmath), not much later
        for j, (kb, s) in enumerate(bands[1:], start=1):
            level = C.TAIL_MASS / C.TAIL_GRADE ** j
            assert _remove_tail_mass(q, kb * h) <= level * 1.001
            assert _remove_tail_mass(q, (kb - s) * h) > level  # the band's previous lattice node: not yet


@pytest.mark.parametrize("direction,q,e", [(C.REMOVE, 1e-4, 13), (C.ADD, 0.001, 11)])
def test_graded_one_step_grids_sandwich_the_exact_delta(direction, q, e):
    h = 2.0 ** -e
    u, lw, ks, k_lo, k_hi, k_head, k_tail, stride = _graded(direction, q, h)
    exact = (lambda x: _exact_delta(1.0, q, x)) if direction == C.REMOVE else (lambda x: _exact_delta_add(1.0, q, x))
    start, sign = (k_tail, +1) if direction == C.REMOVE else (k_head, -1)
    eps = list(np.linspace(u.k0 * h, u.k1 * h, 9))
    for kb, s in _bands(ks, start, sign):  # in every band: at a node, off the nodes, and mid-interval
        eps += [kb * h, (kb + sign * (s // 2)) * h + h / 3, (kb + sign * s) * h - h / 7]
    for x in eps:
        ex = exact(x)
        assert _grid_h(u, h, x) >= ex, x
        assert _grid_h(lw, h, x) <= ex, x


def test_graded_lower_side_moved_up_is_caught():
    # fault injection: the lower masses in the graded tail moved *up* to the next target node (as if a cell's
    # atom were rounded up, not down): the lower side then exceeds the exact δ somewhere in the tail
    q, h = 1e-4, 2.0 ** -13
    u, lw, ks, k_lo, k_hi, k_head, k_tail, stride = _graded(C.REMOVE, q, h)
    m = np.zeros(k_hi - lw.k0 + 1)
    for i, x in enumerate(lw.m):
        k = lw.k0 + i
        if x > 0:
            j = int(np.searchsorted(ks, k, side="right")) if k > k_tail else -1
            kk = int(ks[j]) if 0 <= j < len(ks) else k
            m[kk - lw.k0] += x
    bad = C.Grid(m, lw.k0, 0.0)
    eps = [kb * h + f * s * h for kb, s in _bands(ks, k_tail, +1) for f in (0.1, 0.5, 0.9)]
    assert all(_grid_h(lw, h, x) <= _exact_delta(1.0, q, x) for x in eps)  # the real one holds there
    assert any(_grid_h(bad, h, x) > _exact_delta(1.0, q, x) for x in eps)


def test_cut_left_keeps_a_moved_mass_below_half_an_ulp():
    # the upper side moves the left tail onto the first kept node: 1e-20 + 1e-20 onto 1.0 must not be lost in
    # the rounding of the addition (exact rational check)
    from fractions import Fraction
    g = C.Grid(np.array([1e-20, 1e-20, 1.0, 0.5]), -3, 0.0)
    up = C.cut_left(g, 1e-13, True)
    assert up.k0 == -1 and len(up.m) == 2 and up.m[1] == 0.5
    assert Fraction(float(up.m[0])) >= Fraction(1.0) + 2 * Fraction(1e-20)
    low = C.cut_left(g, 1e-13, False)  # the lower side drops it
    assert low.k0 == -1 and low.m[0] == 1.0
