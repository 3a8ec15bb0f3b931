"""Fixed-seed outputs of the randomised procedures and audits, as SHA-256 digests (issue 20 item 4).

The per-call speed-ups of ``bounds.procedures`` and ``bounds.audit`` (raw 64-bit words instead of
``Generator.integers``, checks once per batch, batched twins of the library's procedures) must leave every
output bit-identical to main's at commit cb57606 — the same Generator stream consumption — so that the
distribution tests of main (G-tests, enumerations) still apply to the code as it is.  ``STORED`` below was
produced by running THIS file's :func:`digests` against main's tree::

    git archive cb57606 | tar -x -C /tmp/h18_before
    PYTHONPATH=/tmp/h18_before python tests/bounds/procedures/stream_cases.py

(it prints the table; the module reads ``bounds`` from whatever tree is first on the path).  The tests
(``test_streams_unchanged.py`` here and in ``tests/bounds/audit``) recompute the digests with the current
code, per call and through the batched twins, and compare them with the table.
"""
from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any, Callable, Iterator

import numpy as np


def _digest(parts: Iterator[Any]) -> str:
    h = hashlib.sha256()
    for p in parts:
        a = np.asarray(p)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:32]


def _after(rng: np.random.Generator) -> np.ndarray:
    """The generator's next words: equal iff the state after the calls is the same."""
    return rng.integers(0, 2**63, size=4, dtype=np.int64)


# name → (make the per-call runs from a seed) — each yields arrays; the last one is the generator's next words
def _poisson(n_or_data: Any, rate: Any, runs: int) -> Callable[[int], Iterator[Any]]:
    def run(seed: int) -> Iterator[Any]:
        from bounds.procedures import poisson_sample
        g = np.random.default_rng(seed)
        for _ in range(runs):
            yield poisson_sample(n_or_data, rate, rng=g)
        yield _after(g)
    return run


def _suppress(data: Any, lo: float, hi: float, m: float, M: float, runs: int) -> Callable[[int], Iterator[Any]]:
    def run(seed: int) -> Iterator[Any]:
        from bounds.procedures import AbsoluteDifference, suppress_outliers
        g = np.random.default_rng(seed)
        metric = AbsoluteDifference(lo, hi)
        for _ in range(runs):
            yield suppress_outliers(data, metric, m, M, rng=g).keep
        yield _after(g)
    return run


def _bernoulli(p: Any, n: int, runs: int) -> Callable[[int], Iterator[Any]]:
    def run(seed: int) -> Iterator[Any]:
        from bounds.procedures._bernoulli import bernoulli
        g = np.random.default_rng(seed)
        for _ in range(runs):
            yield bernoulli(p, n, g)
        yield _after(g)
    return run


def _simple(make: Callable[[np.random.Generator], Any], runs: int) -> Callable[[int], Iterator[Any]]:
    def run(seed: int) -> Iterator[Any]:
        g = np.random.default_rng(seed)
        for _ in range(runs):
            yield make(g)
        yield _after(g)
    return run


def _mechanism(kind: str, eps: float) -> Callable[[int], Iterator[Any]]:
    def run(seed: int) -> Iterator[Any]:
        from bounds.audit import NoisyCount, RandomizedResponse
        mech = (NoisyCount if kind == "noisy" else RandomizedResponse)(eps, weights=lambda d: (d == 1.0).astype(int))
        data = np.array([0.0, 1.0, 1.0])
        kept = np.random.default_rng(99).random((3_000, 3)) < 0.5
        g = np.random.default_rng(seed)
        for b in (1, 999, 2_000):
            yield mech.sample(kept[:b], data, g)
        yield _after(g)
    return run


def _others() -> dict[str, Callable[[int], Iterator[Any]]]:
    from bounds.procedures import (BallsAndBinsBatches, PoissonBatches, RandomAllocationBatches, mcar,
                                   sample_with_replacement, sample_without_replacement)
    return {
        "swor 10 of 40": _simple(lambda g: sample_without_replacement(40, 10, rng=g), 30),
        "swr 8 of 5": _simple(lambda g: sample_with_replacement(5, 8, rng=g), 30),
        "poisson batches": _simple(lambda g: np.concatenate(list(PoissonBatches(30, 0.2, 4).epoch(g))), 10),
        "balls and bins": _simple(lambda g: np.concatenate(list(BallsAndBinsBatches(20, 4).epoch(g))), 10),
        "random allocation": _simple(
            lambda g: np.concatenate(list(RandomAllocationBatches(9, 5, selected=2).epoch(g))), 10),
        "mcar mask": _simple(lambda g: mcar(0.3, 4).sample(25, g), 10),
        "random allocation n=2": _simple(
            lambda g: np.concatenate(list(RandomAllocationBatches(2, 5, selected=3).epoch(g))), 40),
        "random allocation n=0": _simple(
            lambda g: np.concatenate(list(RandomAllocationBatches(0, 5, selected=3).epoch(g))), 3),
        "balls and bins n=3": _simple(lambda g: np.concatenate(list(BallsAndBinsBatches(3, 5).epoch(g))), 40),
        "random allocation n=100": _simple(
            lambda g: np.concatenate(list(RandomAllocationBatches(100, 7, selected=3).epoch(g))), 5),
        "balls and bins n=65": _simple(lambda g: np.concatenate(list(BallsAndBinsBatches(65, 6).epoch(g))), 5),
        "balls and bins steps": _simple(lambda g: np.array([len(b) for b in BallsAndBinsBatches(4, 3).epoch(g)]), 40),
    }


def cases() -> dict[str, Callable[[int], Iterator[Any]]]:
    """Every case: name → run(seed) yielding the outputs of consecutive calls with one generator."""
    data = np.r_[np.zeros(20), 1.0, 0.25, 0.5]
    out = {
        "poisson n=10 p=0.5": _poisson(10, 0.5, 60),
        "poisson data p=0.1": _poisson(np.zeros(37), 0.1, 60),
        "poisson n=5 p=1/3": _poisson(5, 1 / 3, 60),
        "poisson n=1000 p=0.01": _poisson(1000, 0.01, 20),
        "poisson per-record rates": _poisson(6, [0.0, 1.0, 0.5, 0.1, 2.0**-70, 1 / 3], 60),
        "poisson p=0 and p=1": _poisson(7, 1.0, 3),
        "suppress copies": _suppress(data, 0.0, 1.0, 0.1, 0.5, 60),
        "suppress m=M": _suppress(data, 0.0, 2.0, 0.3, 0.3, 40),
        "bernoulli 1/3 Fraction": _bernoulli(Fraction(1, 3), 50, 20),
        "bernoulli per-draw 70000": _bernoulli(np.linspace(0.0, 1.0, 70_000), 70_000, 2),
        "noisy count eps=0.7": _mechanism("noisy", 0.7),
        "randomized response eps=1": _mechanism("rr", 1.0),
        "randomized response eps=9": _mechanism("rr", 9.0),
    }
    out.update(_others())
    return out


SEEDS = (0, 1, 20261202)


def digests() -> dict[str, str]:
    return {name: _digest(part for seed in SEEDS for part in run(seed)) for name, run in cases().items()}


AUDIT_SCENARIOS = [("poisson-rr", {}), ("poisson-rr", dict(rate=1 / 3, n=7)), ("swor-rr", {}),
                   ("suppression-copies", {}), ("suppression-star", {}), ("normalisation", {}),
                   ("self-exclusion", {}), ("recompute", {}), ("fixed-size", {})]


def audit_digests(twin: bool = False) -> dict[str, str]:
    """The mechanism's outputs over the runs of a Monte Carlo audit (``run_outputs`` on both inputs, streams
    spawned as ``monte_carlo_audit`` spawns them, 2,000 runs per input in chunks of 700) for every built-in
    scenario — with its procedure called once per run, or (``twin``, this tree only) its batched twin — and
    for a procedure passed in.  Outputs, not ε: the ε lower bound is a function of them (the same code in both
    trees), while its Clopper–Pearson search uses libm, which may differ between platforms."""
    from bounds.audit import NoisyCount, run_outputs, scenario
    from bounds.procedures import poisson_sample

    def outputs(procedure, mechanism, d0, d1, output, batched, seed, runs, chunk):
        proc_rng, mech_rng = np.random.default_rng(seed).spawn(2)
        kw = dict(output=output, batched=batched, chunk=chunk, mechanism_rng=mech_rng)
        return [run_outputs(procedure, mechanism, d, runs, proc_rng, **kw) for d in (d0, d1)]

    out = {}
    for name, kw in AUDIT_SCENARIOS:
        s = scenario(name, **kw)
        how = (s._batched[1], "mask", True) if twin else (s.procedure, s.output, False)
        out[f"{name} {sorted(kw.items())}"] = _digest(outputs(how[0], s.mechanism, s.dataset_0, s.dataset_1, how[1],
                                                              how[2], 0, 2_000, 700))
    out["custom poisson noisy count"] = _digest(outputs(
        lambda d, rng: poisson_sample(d, 0.25, rng=rng), NoisyCount(1.0), np.zeros(5), np.r_[np.zeros(5), 1.0],
        "mask", False, 7, 4_000, 10_000))
    return out


# generated by main's code (commit cb57606, /tmp/h18_before) with the command in the module docstring
STORED = {
    'poisson n=10 p=0.5': '38df3d4294906134ab1c179d6bdfe091',
    'poisson data p=0.1': 'b6fc199aca1e4a1213b714476cca293b',
    'poisson n=5 p=1/3': '5bc7d7a64e72d97df4d85a26e32fa6f1',
    'poisson n=1000 p=0.01': '2493a74ac8eaa6328b5df3a1983f53b9',
    'poisson per-record rates': '424529612054ded5f1d3bce7e59ff099',
    'poisson p=0 and p=1': 'a03fd7d06687df670e4c169fb3e2aecd',
    'suppress copies': '4d75bd1020e11e10cbe7e5f87656cda6',
    'suppress m=M': '50f833034698496366344f823ab9adb7',
    'bernoulli 1/3 Fraction': 'a35d704d08a9353246639761c2243377',
    'bernoulli per-draw 70000': '4a4378ddd9bef07e4b5492addf92e3d6',
    'noisy count eps=0.7': '785e6f17be5c5d35d0748219b507112b',
    'randomized response eps=1': '9c82a1e5f0c6f1fb3d7224a68bb59750',
    'randomized response eps=9': 'a9a3d80ef496e9eb486c76108cc39410',
    'swor 10 of 40': '510d714601c654e97940ec5e73b913d6',
    'swr 8 of 5': '944428d5236800bca72cb6319e03b307',
    'poisson batches': '328301f237b988247d4d84a45c4510c7',
    'balls and bins': 'c1cc95dbe1fa74d74e505a69ba0987a8',
    'random allocation': 'd4cf1fa309866130891f15d2770ec272',
    'mcar mask': '9a583c95b5e84a1b5afaf242213a2ea3',
    'random allocation n=2': '31dd84bc5126e49b12335db2b6217ca1',
    'random allocation n=0': '531514fafac0a4e0b26aef8ef9604c6c',
    'balls and bins n=3': '0754e0cdb9b834dae25115fd7ea16b30',
    'random allocation n=100': '504eeec8b65bcebb2952747733bc8c29',
    'balls and bins n=65': '67dc4e2b77c733ad18b4b46f3cc4b922',
    'balls and bins steps': 'e8c91ab314c2cb051679719d88c3b1d9',
}
STORED_AUDITS = {
    'poisson-rr []': '8ecf403c9edc4277e90cd9dc92df928a',
    "poisson-rr [('n', 7), ('rate', 0.3333333333333333)]": 'e75bef973e6ecdeaae3f16c00f2b88b6',
    'swor-rr []': '37074994d3541dbe030cb5a31d19d88d',
    'suppression-copies []': 'b5d3d7c5d6261d22df6f857d3fb7f444',
    'suppression-star []': '8b75e6fcacd6d9a8f736dcbb99b8c81c',
    'normalisation []': 'aa5ffb414578773f8d756da9e8f7cf87',
    'self-exclusion []': 'dc74e014b771676aa45595fe03b56a63',
    'recompute []': '18f47593152576b2c96abe21fcf10df9',
    'fixed-size []': 'd7d6df4085751e084bee28c63140a0ce',
    'custom poisson noisy count': 'cb7bc8a88dfade1345ab2654b42f1e68',
}
STORED_EXACT = {
    'exact poisson-rr []': 'f488a5d82d262bb1838c4ef4a90cb4f3',
    'exact swor-rr []': 'c87a7c46ee63b2e148bd89a4a8a9748f',
    'exact suppression-copies []': '99d89d41adf354cf24c26b9012c81b58',
    'exact suppression-star []': '652afc1e384598ed88ce9fe067042ed8',
    'profile suppression-star []': 'a4e3516453bdce9739ce991556d86a05',
    'exact normalisation []': 'ed1b2f5cd9ee03cf675492c0e0698c36',
    'exact self-exclusion []': 'fffe7a8fd1b30dc6158d54e0cc1d713e',
    'exact fixed-size []': '50a8e56d7b53dccfa1a73396bdd7a1af',
    "exact suppression-copies [('M', 0.5), ('copies', 150), ('epsilon', 2.0), ('m', 0.3)]": 'a2bc6de6c6896cac0e226e43dd903883',
    "exact suppression-star [('M', 0.8), ('epsilon', 4.0), ('leaves', 150), ('m', 0.2)]": '7a0d2a7e091883972dc508f326b9125c',
    "profile suppression-star [('M', 0.8), ('epsilon', 4.0), ('leaves', 150), ('m', 0.2)]": '7fc0fc827b6cbbecfb42213f75c1e8b2',
}


def exact_digests() -> dict[str, str]:
    """Exact audits (50-digit output distributions) of every built-in scenario and of larger suppression pairs."""
    from bounds.audit import exact_epsilon, privacy_profile, scenario, statistic_pmf

    out = {}
    runs = [(name, {}) for name in ("poisson-rr", "swor-rr", "suppression-copies", "suppression-star",
                                    "normalisation", "self-exclusion", "fixed-size")]
    runs += [("suppression-copies", dict(epsilon=2.0, m=0.3, M=0.5, copies=150)),
             ("suppression-star", dict(epsilon=4.0, m=0.2, M=0.8, leaves=150))]
    for name, kw in runs:
        s = scenario(name, **kw)
        r = s.exact()
        out[f"exact {name} {sorted(kw.items())}"] = _digest(
            [np.float64(r.epsilon), np.frombuffer(repr(sorted(r.details.items())).encode(), np.uint8)])
        if name == "suppression-star":
            import mpmath
            with mpmath.workdps(50):
                pmfs = [statistic_pmf([1 - Fraction(float(x)) for x in s.keep_probabilities(d)],
                                      s.mechanism.statistic(np.eye(len(d), dtype=bool), d))
                        for d in (s.dataset_0, s.dataset_1)]
            out[f"profile {name} {sorted(kw.items())}"] = _digest(
                [np.float64(privacy_profile(s.mechanism, *pmfs, e)) for e in (0.0, 0.5, 1.0)]
                + [np.float64(exact_epsilon(s.mechanism, *pmfs, d)) for d in (0.0, 1e-3, 0.1)])
    return out


if __name__ == "__main__":  # print the table (run against main's tree, see the module docstring)
    import bounds
    print(f"# bounds from {bounds.__file__}")
    print("STORED = {")
    for k, v in digests().items():
        print(f"    {k!r}: {v!r},")
    print("}")
    print("STORED_AUDITS = {")
    for k, v in audit_digests().items():
        print(f"    {k!r}: {v!r},")
    print("}")
    print("STORED_EXACT = {")
    for k, v in exact_digests().items():
        print(f"    {k!r}: {v!r},")
    print("}")
