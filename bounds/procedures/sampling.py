"""Record samplers of SPEC T1–T5 and the batch samplers of DP-SGD, exactly as their bounds assume.

A subsampling bound holds for one sampler only: T1 for independent Bernoulli draws (a fixed-size batch is not
Poisson: jax_privacy #121), T2 for a uniform size-m subset, T3/T4 for m uniform draws with replacement.  Each
function here draws exactly that, from a ``numpy.random.Generator`` (``rng``: a Generator, an int seed, or
``None`` for fresh entropy), and returns what a training loop consumes: a keep mask, sorted indices, counts,
or one index array per step.  Reproducible by seed: the same generator state gives the same sample.

The bounds these samplers carry (provenance flags from SPEC):

- :func:`poisson_sample` — SPEC T1 (*source*; Balle, Barthe, Gaboardi 2018 Thm 8), add/remove; with
  per-record rates the guarantee is T1 at the **largest** rate (:func:`poisson_guarantee`);
- :func:`sample_without_replacement` — SPEC T2 (*source*; Balle et al. Thm 9), substitution:
  :func:`bounds.without_replacement`, :class:`bounds.WithoutReplacement`;
- :func:`sample_with_replacement` — SPEC T3 (*recovered*; Thm 10, substitution) / T4 (*derived*; Thm 11,
  add/remove with n the larger neighbour): :func:`bounds.with_replacement`, :class:`bounds.WithReplacement`;
- batch samplers (:class:`PoissonBatches`, :class:`FixedSizeBatches`, :class:`ShuffledBatches`,
  :class:`BallsAndBinsBatches`, :class:`RandomAllocationBatches`, :class:`CyclicBatches`) — one index array
  per step of an epoch.  ``sampler.accounting(mechanism, epochs, adjacency=...)`` gives the ``bounds.compose``
  steps of the round that certifies that very sampler (:func:`bounds.samplers.wiring.sampler_steps`, the one
  source of the sampler words and of the step convention): Poisson → :func:`bounds.poisson_sampled` (SPEC
  T11) per step; balls-and-bins → :func:`bounds.balls_and_bins`; random allocation →
  :func:`bounds.random_allocation`; shuffled → :func:`bounds.shuffled` (certified lower side, cyclic upper);
  fixed-size → :func:`bounds.samplers.fixed_size_sampled` per step; cyclic → :func:`bounds.cyclic` (record
  C2, *source*).  ``crosscheck_keywords(epochs)`` returns the same parameters as data — the keywords of
  :func:`bounds.sampler_composition` (add ``noise_multiplier=``), ``.sampler`` being its sampler word.

**Bernoulli draws are exact.**  ``rng.random() < p`` would keep a record with probability ⌈p·2⁵³⌉/2⁵³
(``random()`` returns multiples of 2⁻⁵³), up to 2⁻⁵³ above p for p < 1/2.  The draws here compare a uniform
U's binary expansion with p's, 64 bits at a time (``_bernoulli``), so P[keep] = p exactly for every
float64 p, at the cost of one 64-bit word per record; :func:`effective_rate` (the exact keep probability) is
therefore p itself.

**Batched twins** (private, for ``bounds.audit``, whose Monte Carlo audits call a procedure 10⁴–10⁶ times):
``_poisson_sample_rows`` and ``_sample_without_replacement_rows`` return the outputs of ``size`` consecutive
calls as the rows of one array, checking the inputs once — bit-identical rows and the same generator state
as the calls themselves (``tests/bounds/procedures/test_streams_unchanged.py``, which also compares fixed-seed
outputs with digests of main's), so every distribution test of the public samplers applies to them.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from .._core import ParameterTypeError
from ._bernoulli import bernoulli, bernoulli_rows
from ._checks import count, generator, probability, size_of

__all__ = ["BallsAndBinsBatches", "BatchSampler", "CyclicBatches", "FixedSizeBatches", "PoissonBatches",
           "RandomAllocationBatches", "ShuffledBatches", "effective_rate", "poisson_guarantee", "poisson_sample",
           "sample_with_replacement", "sample_without_replacement"]


# ------------------------------------------------------------------------------------------ record samplers
def effective_rate(rate: Any) -> Any:
    """The exact probability with which :func:`poisson_sample` keeps a record at nominal rate ``rate``: the
    rate itself (validated), since the Bernoulli draws are exact (module docstring).  Kept as the one place
    where the rate a guarantee is computed at is tied to the rate drawn.

    Parameters
    ----------
    rate : float or array_like
        Nominal rates in [0, 1].

    Returns
    -------
    float or ndarray
        The exact keep probabilities (same shape).

    Examples
    --------
    >>> from bounds.procedures import effective_rate
    >>> effective_rate(0.5), effective_rate(0.01)
    (0.5, 0.01)
    """
    p = probability("effective_rate", "rate", rate)
    out = np.asarray(p, dtype=np.float64)
    return float(out) if out.ndim == 0 else out.copy()


def _rates(function: str, n_or_data: Any, rate: Any) -> tuple[int, Any]:
    n = size_of(function, n_or_data)
    p = probability(function, "rate", rate)
    if isinstance(p, np.ndarray):
        if p.ndim == 0:
            return n, float(p)
        if p.ndim != 1 or p.shape[0] != n:
            raise ValueError(f"{function}: rate has shape {p.shape}; per-record rates need shape ({n},), one "
                             f"rate per record (or pass a single rate)")
    return n, p


def poisson_sample(n_or_data: Any, rate: Any, *, rng: Any = None) -> np.ndarray:
    """Poisson sampling: keep each record independently with probability ``rate`` (SPEC T1).

    The sampler of T1 (*source*: Li, Qardaji, Su 2012; Balle, Barthe, Gaboardi 2018 Thm 8; Steinke 2022):
    independent Bernoulli draws, one per record — not a fixed-size batch.  If M is (ε, δ)-DP, M on the sample
    is (ln(1 + p(e^ε − 1)), pδ)-DP under add/remove neighbours with p the **largest** rate
    (:func:`poisson_guarantee`).  Keep probabilities are exactly the rates (module docstring).  O(n) time
    and memory (``benchmarks/bench_procedures.py``: records per second).

    Parameters
    ----------
    n_or_data : int or sequence
        The number of records n ≥ 0, or the data (records along the first axis).
    rate : float or array_like
        One rate in [0, 1] for every record, or per-record rates of shape (n,).
    rng : numpy.random.Generator, int or None
        Source of randomness (a seed gives a fresh ``default_rng(seed)``).

    Returns
    -------
    ndarray of bool, shape (n,)
        The keep mask (``data[mask]`` is the sample).

    Raises
    ------
    ValueError
        If a rate is NaN or outside [0, 1], per-record rates have the wrong shape, n is negative or not an
        integer; ``ParameterTypeError`` (a ValueError) for strings, bools, None.

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.procedures import poisson_sample
    >>> mask = poisson_sample(10, 0.5, rng=np.random.default_rng(1))
    >>> mask.dtype, mask.shape
    (dtype('bool'), (10,))
    >>> poisson_sample(4, [0.0, 1.0, 0.0, 1.0], rng=1).tolist()
    [False, True, False, True]
    """
    n, p = _rates("poisson_sample", n_or_data, rate)
    g = generator("poisson_sample", rng)
    return bernoulli(p, n, g)


def _poisson_sample_rows(n_or_data: Any, rate: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    """The masks of ``size`` consecutive calls ``poisson_sample(n_or_data, rate, rng=rng)`` as the rows of a
    (size, n) array: the same sampler, inputs checked once, the draws made by ``bernoulli_rows`` (bit-identical
    rows, the same generator state afterwards; ``tests/bounds/procedures/test_sampling.py``).  The audits'
    batched route (``bounds.audit.scenarios``); ``rng`` must be a Generator."""
    n, p = _rates("poisson_sample", n_or_data, rate)
    return bernoulli_rows(p, n, size, rng)


def poisson_guarantee(epsilon: Any, delta: Any, rate: Any) -> Any:
    """The guarantee of a mechanism run on :func:`poisson_sample`'s sample (SPEC T1, add/remove).

    T1 at p = the largest rate (per-record rates: a record's membership is Bernoulli(p_x), and the worst
    record is the one with the largest rate; SPEC T1, *source*).

    Parameters
    ----------
    epsilon, delta : float
        The base mechanism's guarantee.
    rate : float or array_like
        The rate(s) passed to :func:`poisson_sample` (non-empty).

    Returns
    -------
    Guarantee
        ``bounds.poisson_subsampling(epsilon, delta, max effective rate)``.

    Examples
    --------
    >>> from bounds.procedures import poisson_guarantee
    >>> poisson_guarantee(1.0, 1e-6, [0.001, 0.5, 0.25]) == poisson_guarantee(1.0, 1e-6, 0.5)
    True
    """
    import bounds

    p = effective_rate(rate)
    if isinstance(p, np.ndarray):
        if p.size == 0:
            raise ValueError("poisson_guarantee: rate is an empty array; pass at least one rate")
        p = float(p.max())
    return bounds.poisson_subsampling(epsilon, delta, p)


def sample_without_replacement(n_or_data: Any, m: Any, *, rng: Any = None) -> np.ndarray:
    """A uniform size-m subset of the n records, as sorted indices (SPEC T2).

    The sampler of T2 (*source*: Balle, Barthe, Gaboardi 2018 Thm 9; substitution neighbours): every one of
    the C(n, m) subsets is equally likely.  Guarantee: :func:`bounds.without_replacement` (ε, δ, m, n) or the
    mechanism :class:`bounds.WithoutReplacement`.  O(n) time and memory.

    Parameters
    ----------
    n_or_data : int or sequence
        The number of records n ≥ 0, or the data.
    m : int
        Sample size, 0 ≤ m ≤ n.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    ndarray of int64, shape (m,)
        Sorted distinct indices.

    Raises
    ------
    ValueError
        If m is not an integer in [0, n].

    Examples
    --------
    >>> from bounds.procedures import sample_without_replacement
    >>> idx = sample_without_replacement(10, 3, rng=7)
    >>> len(idx), len(set(idx.tolist())), bool((idx[:-1] < idx[1:]).all())
    (3, 3, True)
    """
    n = size_of("sample_without_replacement", n_or_data)
    k = count("sample_without_replacement", "m", m, maximum=n)
    g = generator("sample_without_replacement", rng)
    # Generator.choice(replace=False): a uniform k-subset (Floyd's algorithm or a partial shuffle)
    idx = g.choice(n, size=k, replace=False, shuffle=False) if k else np.empty(0, dtype=np.int64)
    return np.sort(idx.astype(np.int64, copy=False))


_FLOYD_POPULATION = 10_000  # numpy's choice(replace=False) runs Floyd's algorithm up to this n (then a shuffle)
_FLOYD_ROWS_MAX_M = 64      # the batched emulation below compares each draw with the earlier ones: O(m²) per run
_BUFFERED_32 = (np.random.PCG64, np.random.PCG64DXSM)  # 32-bit draws: low half of a word, high half kept


def _sample_without_replacement_rows(n_or_data: Any, m: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    """Keep masks (size, n) of ``size`` consecutive calls ``sample_without_replacement(n_or_data, m, rng=rng)``:
    row r marks the indices of call r, and ``rng`` is left in the state those calls leave it in.  The audits'
    batched route (``bounds.audit.scenarios``); ``rng`` must be a Generator.

    The calls draw with ``Generator.choice(n, m, replace=False, shuffle=False)``, which for n ≤ 10,000 is
    Floyd's algorithm: for j = n − m, …, n − 1 it draws v uniform on {0, …, j} (none for j = 0) and takes v,
    or j if v was taken already.  Each v is Lemire's bounded integer on one 32-bit draw x: v = ⌊x(j + 1)/2³²⌋
    unless the low 32 bits of x(j + 1) fall below (2³² − 1 − j) mod (j + 1), which rejects x and draws again.
    For PCG64 and PCG64DXSM a 32-bit draw is the low half of a fresh 64-bit word, whose high half is kept
    for the next 32-bit draw (the state's ``has_uint32``/``uinteger``).  Here all the runs' 32-bit draws come
    from one ``random_raw`` call, split in halves in that order (integer operations, not byte views), and
    Floyd's steps run over all runs at once; a rejection (probability below (j + 1)/2³² per draw) restores the
    saved state and makes the calls one by one, as do other bit generators, n > 10,000 and m > 64.  Checked
    against the calls themselves in ``tests/bounds/procedures/test_streams_unchanged.py``."""
    n = size_of("sample_without_replacement", n_or_data)
    k = count("sample_without_replacement", "m", m, maximum=n)
    out = np.zeros((size, n), dtype=bool)
    if k == 0 or size == 0:
        return out
    bg = rng.bit_generator
    steps = range(n - k, n)
    drawn = [j for j in steps if j > 0]
    state = bg.state if type(bg) in _BUFFERED_32 else None
    if state is not None and n <= _FLOYD_POPULATION and k <= _FLOYD_ROWS_MAX_M and drawn:
        has = int(state["has_uint32"])
        total = size * len(drawn)
        words = bg.random_raw((total - has + 1) // 2) if total > has else np.empty(0, dtype=np.uint64)
        halves = np.empty(has + 2 * words.size, dtype=np.uint64)
        if has:
            halves[0] = state["uinteger"]
        halves[has::2] = words & np.uint64(0xFFFFFFFF)
        halves[has + 1::2] = words >> np.uint64(32)
        x = halves[:total].reshape(size, len(drawn))
        product = x * np.array([j + 1 for j in drawn], dtype=np.uint64)  # < 2⁶⁴: exact
        threshold = np.array([(0xFFFFFFFF - j) % (j + 1) for j in drawn], dtype=np.uint64)
        if not ((product & np.uint64(0xFFFFFFFF)) < threshold).any():
            values = (product >> np.uint64(32)).astype(np.int64)
            chosen = np.empty((size, k), dtype=np.int64)
            column = 0
            for t, j in enumerate(steps):
                if j == 0:
                    v = np.zeros(size, dtype=np.int64)
                else:
                    v = values[:, column]
                    column += 1
                chosen[:, t] = np.where((chosen[:, :t] == v[:, None]).any(axis=1), j, v) if t else v
            out[np.arange(size)[:, None], chosen] = True
            after = bg.state
            after["has_uint32"] = int(halves.size > total)
            after["uinteger"] = int(halves[total]) if halves.size > total else 0
            bg.state = after
            return out
        bg.state = state  # a rejected draw: the calls one by one, from the same state
    for r in range(size):
        out[r, sample_without_replacement(n, k, rng=rng)] = True
    return out


def sample_with_replacement(n_or_data: Any, m: Any, *, rng: Any = None) -> np.ndarray:
    """m independent uniform draws from the n records, as the number of times each record was drawn (T3/T4).

    The sampler of T3 (*recovered*: Balle, Barthe, Gaboardi 2018 Thm 10, substitution) and T4 (*derived*:
    Thm 11, add/remove with n the larger neighbour): the counts are Multinomial(m; 1/n, …, 1/n).  A record
    drawn k times enters the mechanism k times (the bound uses the group profile for that reason).
    Guarantee: :func:`bounds.with_replacement` or :class:`bounds.WithReplacement`.  O(n + m).

    Parameters
    ----------
    n_or_data : int or sequence
        The number of records n ≥ 1, or the data.
    m : int
        Number of draws m ≥ 0.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    ndarray of int64, shape (n,)
        Counts summing to m (``np.repeat(np.arange(n), counts)`` lists the drawn indices).

    Raises
    ------
    ValueError
        If n < 1 or m is not an integer ≥ 0.

    Examples
    --------
    >>> from bounds.procedures import sample_with_replacement
    >>> counts = sample_with_replacement(5, 8, rng=3)
    >>> counts.shape, int(counts.sum())
    ((5,), 8)
    """
    n = size_of("sample_with_replacement", n_or_data)
    if n < 1:
        raise ValueError("sample_with_replacement: there are no records to draw from (n = 0); n must be ≥ 1")
    k = count("sample_with_replacement", "m", m)
    g = generator("sample_with_replacement", rng)
    # uniform draws (Lemire's unbiased integers), then counts: exact, unlike multinomial with float p = 1/n
    return np.bincount(g.integers(0, n, size=k), minlength=n).astype(np.int64, copy=False)


# ------------------------------------------------------------------------------------------ batch samplers
class BatchSampler:
    """Base of the DP-SGD batch samplers: one index array per step of an epoch.

    Iterating over a sampler (``for batch in sampler``) runs one epoch with the sampler's own generator (the
    ``rng=`` given at construction: a Generator or a seed; fresh entropy if none), ``len(sampler)`` is the
    number of steps per epoch; ``epoch(rng)`` runs one epoch with another generator.

    Attributes (the sampler's parameters as data, for the accountant):
    ``sampler`` — the word of :func:`bounds.sampler_composition` (``bounds.samplers.SAMPLERS``);
    ``dataset_size``; ``steps_per_epoch``; ``batch_size`` — the fixed batch size, or the expected one (a float)
    for Poisson, balls-and-bins and random allocation.  :meth:`accounting` gives the certified ``compose``
    steps, :meth:`crosscheck_keywords` the same parameters as ``sampler_composition``'s keywords.
    """

    sampler: str = ""
    dataset_size: int
    steps_per_epoch: int
    batch_size: Any
    _rng: np.random.Generator | None = None
    _fixed_batches = False  # batch_size is a word of the accountant (fixed-size, shuffled, cyclic batches)

    def _own(self, rng: Any) -> None:
        self._rng = None if rng is None else generator(type(self).__name__, rng)

    def _generator(self, where: str, rng: Any) -> np.random.Generator:
        """``rng`` as a Generator, or (``None``) the sampler's own, created on first use if none was given."""
        if rng is not None:
            return generator(where, rng)
        if self._rng is None:
            self._rng = np.random.default_rng()
        return self._rng

    def epoch(self, rng: Any = None) -> Iterator[np.ndarray]:  # pragma: no cover - abstract
        """Yield one sorted int64 index array per step of one epoch."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[np.ndarray]:
        return self.epoch()

    def __len__(self) -> int:
        return self.steps_per_epoch

    def epochs(self, number: int, rng: Any = None) -> Iterator[np.ndarray]:
        """Yield the steps of ``number`` consecutive epochs (fresh randomness each epoch)."""
        k = count(f"{type(self).__name__}.epochs", "number", number)
        g = self._generator(f"{type(self).__name__}.epochs", rng)
        for _ in range(k):
            yield from self.epoch(g)

    def _words(self) -> dict[str, Any]:
        """The parameters the sampler's accounting reads (``sampler_steps``'s keywords, without epochs)."""
        words: dict[str, Any] = {"sampler": self.sampler, "steps_per_epoch": self.steps_per_epoch}
        if self._fixed_batches:
            words["batch_size"] = self.batch_size
        words["dataset_size"] = self.dataset_size
        return words

    def crosscheck_keywords(self, epochs: int = 1) -> dict[str, Any]:
        """The keywords of :func:`bounds.sampler_composition` describing ``epochs`` epochs of this sampler
        (add ``noise_multiplier=``): the same parameters :meth:`accounting` passes to
        :func:`bounds.samplers.wiring.sampler_steps`, so both give the same composition."""
        e = count(f"{type(self).__name__}.crosscheck_keywords", "epochs", epochs, minimum=1)
        return {**self._words(), "epochs": e}

    def accounting(self, mechanism: Any, epochs: int = 1, *, adjacency: str | None = None) -> list:
        """``bounds.compose`` steps certifying ``epochs`` epochs of this very sampler, ``mechanism`` being the
        mechanism of one step (``Gaussian.from_noise_multiplier(σ)`` for DP-SGD).

        The round is the one :func:`bounds.samplers.wiring.sampler_steps` assigns to ``self.sampler`` (record
        C2 / SPEC T11; see the module docstring), with this sampler's own parameters; ``adjacency`` defaults to
        the sampler's (``bounds.samplers.wiring.ADJACENCY``) and is carried as data in the round.

        Raises
        ------
        ValueError
            For epochs < 1 or an adjacency the sampler's round does not cover; TypeError for a mechanism the
            round does not take.
        """
        from ..samplers.wiring import sampler_steps

        where = f"{type(self).__name__}.accounting"
        e = count(where, "epochs", epochs, minimum=1)
        steps, _ = sampler_steps(mechanism=mechanism, epochs=e, adjacency=adjacency, function=where,
                                 **self._words())
        return steps

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._words().items() if k != "sampler")
        return f"{type(self).__name__}({fields})"


def _split(function: str, n: int, batch_size: Any, drop_remainder: bool) -> tuple[int, int]:
    """(b, T) for n records cut into consecutive batches of b: T = ⌈n/b⌉ with the last batch holding the
    n − (T − 1)·b remaining records (PyTorch's ``drop_last=False``, Opacus' default), or T = ⌊n/b⌋ with
    ``drop_remainder=True`` (the last n mod b records of the order sit out the epoch)."""
    b = count(function, "batch_size", batch_size, minimum=1, maximum=max(n, 1))
    if not isinstance(drop_remainder, (bool, np.bool_)):
        raise ParameterTypeError(f"{function}: drop_remainder = {drop_remainder!r} must be True or False")
    return b, (n // b if drop_remainder else -(-n // b))


class PoissonBatches(BatchSampler):
    """Poisson-sampled batches: at every step each record is in the batch independently with probability
    ``rate`` (DP-SGD as analysed by Abadi et al. 2016; per step SPEC T11, *source*).

    Each step is :func:`poisson_sample`, independent across steps; the batch size is random (mean n·rate).
    The per-step mechanism is ``bounds.poisson_sampled(mechanism, effective_rate(rate))``
    (:meth:`step_mechanism`); :meth:`accounting` gives the ``compose`` steps
    ``[(step_mechanism(mechanism), epochs × steps_per_epoch)]`` (add/remove adjacency).

    Parameters
    ----------
    dataset_size : int
        n ≥ 0.
    rate : float
        Sampling probability q ∈ [0, 1].
    steps_per_epoch : int
        Steps yielded by :meth:`epoch` (commonly ⌈1/q⌉).

    Examples
    --------
    >>> import bounds
    >>> from bounds.procedures import PoissonBatches
    >>> s = PoissonBatches(1000, 0.01, 100)
    >>> batches = list(s.epoch(rng=0))
    >>> len(batches), s.sampler
    (100, 'poisson')
    >>> s.accounting(bounds.Gaussian.from_noise_multiplier(1.0), epochs=3)[0][1]
    300
    """

    sampler = "poisson"

    def __init__(self, dataset_size: Any, rate: Any, steps_per_epoch: Any, *, rng: Any = None) -> None:
        self._own(rng)
        self.dataset_size = count("PoissonBatches", "dataset_size", dataset_size)
        r = probability("PoissonBatches", "rate", rate)
        if isinstance(r, np.ndarray):
            raise ValueError("PoissonBatches: rate must be a single number (per-record rates: use poisson_sample "
                             "and poisson_guarantee)")
        self.rate = float(r)
        self.steps_per_epoch = count("PoissonBatches", "steps_per_epoch", steps_per_epoch, minimum=1)
        self.batch_size = self.dataset_size * self.rate

    def epoch(self, rng: Any = None) -> Iterator[np.ndarray]:
        """Yield ``steps_per_epoch`` sorted index arrays, each an independent Poisson sample."""
        g = self._generator("PoissonBatches.epoch", rng)
        for _ in range(self.steps_per_epoch):
            yield np.flatnonzero(bernoulli(self.rate, self.dataset_size, g))

    def step_mechanism(self, mechanism: Any) -> Any:
        """``bounds.poisson_sampled(mechanism, effective_rate(rate))``: one step (SPEC T11)."""
        import bounds

        return bounds.poisson_sampled(mechanism, effective_rate(self.rate))

    def _words(self) -> dict[str, Any]:
        # accounting: [(step_mechanism(mechanism), epochs × steps_per_epoch)], add/remove
        return {**super()._words(), "rate": effective_rate(self.rate)}


class FixedSizeBatches(BatchSampler):
    """A uniform size-b subset drawn independently at every step (``sampler_composition(sampler="fixed_size")``).

    Each step is :func:`sample_without_replacement` (n, b) — the sampler of SPEC T2 per step, for
    substitution neighbours; this is **not** Poisson sampling (a fixed-size batch accounted as Poisson is the
    error of jax_privacy #121).  :meth:`accounting`: ``bounds.samplers.fixed_size_sampled(mechanism, b, n,
    adjacency=...)`` for each of the epochs × steps_per_epoch steps (replace-one by default, or zero-out).

    Examples
    --------
    >>> from bounds.procedures import FixedSizeBatches
    >>> [len(b) for b in FixedSizeBatches(100, 10, 3).epoch(rng=0)]
    [10, 10, 10]
    """

    sampler = "fixed_size"
    _fixed_batches = True

    def __init__(self, dataset_size: Any, batch_size: Any, steps_per_epoch: Any, *, rng: Any = None) -> None:
        self._own(rng)
        self.dataset_size = count("FixedSizeBatches", "dataset_size", dataset_size)
        self.batch_size = count("FixedSizeBatches", "batch_size", batch_size, maximum=self.dataset_size)
        self.steps_per_epoch = count("FixedSizeBatches", "steps_per_epoch", steps_per_epoch, minimum=1)

    def epoch(self, rng: Any = None) -> Iterator[np.ndarray]:
        g = self._generator("FixedSizeBatches.epoch", rng)
        for _ in range(self.steps_per_epoch):
            yield sample_without_replacement(self.dataset_size, self.batch_size, rng=g)


class ShuffledBatches(BatchSampler):
    """Shuffle once per epoch, then cut the permutation into consecutive batches of size b
    (``sampler_composition(sampler="shuffle")``; the shuffled sampler ABLQ_S of Chua et al. 2024, *How Private
    are DP-SGD Implementations?*).

    Every record is in exactly one batch per epoch; a fresh uniform permutation each epoch.  When b does not
    divide n, the epoch has T = ⌈n/b⌉ batches, the last holding the n − (T − 1)·b records left (PyTorch's
    ``drop_last=False``); with ``drop_remainder=True`` it has ⌊n/b⌋ and the permutation's last n mod b records
    sit out that epoch.

    :meth:`accounting`: ``[(bounds.shuffled(mechanism, T, adjacency=...), epochs)]`` — a certified lower side
    and the cyclic (fixed-batch) upper side; zero-out (default) or replace-one.  Both sides hold with a partial
    last batch (``docs/samplers/shuffle.md``, "A partial last batch", *derived*: the max-pair's law does not
    depend on the batch sizes).  It needs every record in a batch: with ``drop_remainder=True`` and records
    sitting out, the certified lower side is not the one of this procedure, and :meth:`accounting_upper`
    (upper side only) is what holds.

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.procedures import ShuffledBatches
    >>> batches = list(ShuffledBatches(12, 4).epoch(rng=0))
    >>> len(batches), np.sort(np.concatenate(batches)).tolist() == list(range(12))
    (3, True)
    >>> [len(b) for b in ShuffledBatches(7, 3).epoch(rng=0)]  # the last batch partial
    [3, 3, 1]
    """

    sampler = "shuffle"
    _fixed_batches = True

    def __init__(self, dataset_size: Any, batch_size: Any, *, drop_remainder: bool = False, rng: Any = None) -> None:
        self._own(rng)
        self.dataset_size = count("ShuffledBatches", "dataset_size", dataset_size, minimum=1)
        self.batch_size, self.steps_per_epoch = _split("ShuffledBatches", self.dataset_size, batch_size,
                                                       drop_remainder)

    def epoch(self, rng: Any = None) -> Iterator[np.ndarray]:
        g = self._generator("ShuffledBatches.epoch", rng)
        order = g.permutation(self.dataset_size)
        b = self.batch_size
        for t in range(self.steps_per_epoch):
            yield np.sort(order[t * b:(t + 1) * b])

    def _words(self) -> dict[str, Any]:
        if self.batch_size * self.steps_per_epoch < self.dataset_size:
            raise ValueError(f"ShuffledBatches: {self.dataset_size % self.batch_size} of dataset_size = "
                             f"{self.dataset_size} records sit out each epoch (drop_remainder, batch_size = "
                             f"{self.batch_size}); the certified lower side of bounds.shuffled assumes every "
                             "record in one batch.  Use accounting_upper (the fixed-batch upper bound holds)")
        return super()._words()

    def accounting_upper(self, mechanism: Any, epochs: int = 1, *, adjacency: str = "zero_out") -> list:
        """``compose`` steps of an **upper bound** for ``epochs`` shuffled epochs: one step of the mechanism per
        epoch, as for fixed batches — ``[(mechanism, epochs)]`` (zero-out) or ``[(mechanism.group(2),
        epochs)]`` (replace-one).

        A different valid statement from :meth:`accounting`, kept because it covers more: its value is the
        upper side of :meth:`accounting` (``bounds.shuffled``'s upper side is this cyclic bound), but it also
        holds with ``drop_remainder=True`` (a record that sits out an epoch costs nothing there) and for any
        step mechanism (Gaussian, Laplace, or a black-box ``EpsDelta`` under zero-out), where no certified
        lower side exists.

        Under zero-out or replace-one adjacency the two datasets have the same size, so one permutation gives
        both the same batch positions: the shuffled sampler is a mixture, over permutations, of fixed-batch
        runs, and by joint convexity of the hockey-stick divergence its privacy profile is at most the
        largest over the mixture's components — each of which is the fixed-batch profile.  Shuffling may
        amplify (Chua et al. 2024 measure how little in DP-SGD regimes); :meth:`accounting` adds the certified
        lower side.  Add/remove is refused.
        """
        return _one_step_per_epoch("ShuffledBatches.accounting_upper", mechanism, epochs, adjacency)


class CyclicBatches(BatchSampler):
    """Fixed consecutive batches, the same every epoch (``sampler_composition(sampler="cyclic")``): batch t holds
    ``order[t·b:(t+1)·b]`` for a public ``order`` (default 0, 1, …, n − 1).  No randomness: no amplification.
    When b does not divide n the last batch holds the n − (T − 1)·b records left (T = ⌈n/b⌉), or with
    ``drop_remainder=True`` the last n mod b records of the order sit out (T = ⌊n/b⌋).

    Examples
    --------
    >>> from bounds.procedures import CyclicBatches
    >>> [b.tolist() for b in CyclicBatches(6, 2).epoch()]
    [[0, 1], [2, 3], [4, 5]]
    >>> [b.tolist() for b in CyclicBatches(7, 3).epoch()]
    [[0, 1, 2], [3, 4, 5], [6]]
    """

    sampler = "cyclic"
    _fixed_batches = True

    def __init__(self, dataset_size: Any, batch_size: Any, *, order: Any = None, drop_remainder: bool = False) -> None:
        self.dataset_size = count("CyclicBatches", "dataset_size", dataset_size, minimum=1)
        self.batch_size, self.steps_per_epoch = _split("CyclicBatches", self.dataset_size, batch_size, drop_remainder)
        if order is None:
            self.order = np.arange(self.dataset_size, dtype=np.int64)
        else:
            o = np.asarray(order)
            if o.dtype.kind not in "iu" or o.shape != (self.dataset_size,) or \
                    not np.array_equal(np.sort(o), np.arange(self.dataset_size)):
                raise ValueError(f"CyclicBatches: order must be a permutation of 0 … {self.dataset_size - 1} "
                                 "(integers, one per record)")
            self.order = o.astype(np.int64)

    def epoch(self, rng: Any = None) -> Iterator[np.ndarray]:
        """Yield the fixed batches (``rng`` is accepted and unused)."""
        b = self.batch_size
        for t in range(self.steps_per_epoch):
            yield np.sort(self.order[t * b:(t + 1) * b])

    def accounting(self, mechanism: Any, epochs: int = 1, *, adjacency: str | None = None) -> list:
        """``compose`` steps for ``epochs`` epochs of fixed batches: one application of the step mechanism per
        epoch — ``[(bounds.cyclic(mechanism, T, adjacency=...), epochs)]`` for a Gaussian or Laplace step
        (the round of ``sampler_composition(sampler="cyclic")``), ``[(mechanism, epochs)]`` for a black-box
        ``EpsDelta`` step under zero-out.

        With fixed batches the differing record sits in exactly one step per epoch; every other step, given
        the same past, has the same output distribution on both datasets, so by adaptive composition each
        epoch costs one step.  ``"zero_out"`` (the record's gradient replaced by zero; Chua et al. 2024):
        the step's sum moves by at most the clipping norm, the mechanism's own sensitivity →
        ``[(mechanism, epochs)]``.  ``"replace_one"`` (substitution): it moves by up to twice that →
        ``[(mechanism.group(2), epochs)]`` (θ → 2θ, Gaussian or Laplace).  Add/remove is refused: adding a
        record shifts every later batch of a fixed order, which this argument does not cover.  With
        ``drop_remainder=True`` the left-out records cost nothing: the same steps hold.
        """
        import bounds

        if isinstance(mechanism, bounds.EpsDelta):
            return _one_step_per_epoch("CyclicBatches.accounting", mechanism, epochs,
                                       "zero_out" if adjacency is None else adjacency)
        return super().accounting(mechanism, epochs, adjacency=adjacency)


def _one_step_per_epoch(function: str, mechanism: Any, epochs: Any, adjacency: Any) -> list:
    """[(mechanism, epochs)] (zero_out) or [(mechanism.group(2), epochs)] (replace_one); see CyclicBatches."""
    e = count(function, "epochs", epochs, minimum=1)
    import bounds

    if not isinstance(mechanism, (bounds.Gaussian, bounds.Laplace, bounds.EpsDelta)):
        raise ParameterTypeError(f"{function}: mechanism = {mechanism!r} must be Gaussian, Laplace or EpsDelta "
                                 "(the per-step mechanism)")
    if adjacency == "zero_out":
        return [(mechanism, e)]
    if adjacency == "replace_one":
        if isinstance(mechanism, bounds.EpsDelta):
            raise ValueError(f"{function}: replace_one doubles the step's sensitivity; give the Gaussian or Laplace "
                             "mechanism (white-box θ → 2θ), or EpsDelta of group privacy (bounds.group_privacy(ε, δ, "
                             "2)) with adjacency='zero_out'")
        return [(mechanism.group(2), e)]
    raise ValueError(f"{function}: adjacency = {adjacency!r} must be 'zero_out' or 'replace_one' (under add/remove a "
                     "fixed order shifts every later batch: not covered)")


_SCALAR_DRAWS = 4  # up to this many draws, one Generator.integers call each costs less than one array call
_SMALL_EPOCH = 64  # random allocation with n·k up to this: Python lists instead of numpy's per-call overhead


def _uniform_below(g: np.random.Generator, bound: int, size: int) -> np.ndarray:
    """``g.integers(0, bound, size=size)`` (int64): the same numbers and the same generator state.  For a few
    draws the scalar calls are made instead (numpy fills an array by drawing each element exactly as a scalar
    call draws it — Lemire's bounded integers, on 32-bit draws below 2³² — but its array call costs ~5 µs more;
    checked in ``tests/bounds/procedures/test_streams_unchanged.py``)."""
    if size <= _SCALAR_DRAWS:
        return np.array([g.integers(0, bound) for _ in range(size)], dtype=np.int64)
    return g.integers(0, bound, size=size)


class RandomAllocationBatches(BatchSampler):
    """Random allocation: every record joins ``selected`` = k of the T steps of an epoch, a uniform k-subset
    chosen independently per record (``sampler_composition(sampler="random_allocation")``; Feldman & Shenfeld
    2025).  :meth:`accounting`: ``[(bounds.random_allocation(mechanism, T, selected=k), epochs)]``
    (add/remove).

    Batch sizes are random (mean n·k/T).  k = 1 is balls-and-bins (:class:`BallsAndBinsBatches`).  Memory
    O(n·k) per epoch.

    Examples
    --------
    >>> from bounds.procedures import RandomAllocationBatches
    >>> batches = list(RandomAllocationBatches(50, 10, selected=3).epoch(rng=0))
    >>> len(batches), sum(len(b) for b in batches)
    (10, 150)
    """

    sampler = "random_allocation"

    def __init__(self, dataset_size: Any, steps: Any, *, selected: Any = 1, rng: Any = None) -> None:
        self._own(rng)
        name = type(self).__name__
        self.dataset_size = count(name, "dataset_size", dataset_size)
        self.steps_per_epoch = count(name, "steps", steps, minimum=1)
        self.selected = count(name, "selected", selected, minimum=1, maximum=self.steps_per_epoch)
        self.batch_size = self.dataset_size * self.selected / self.steps_per_epoch

    def _steps_of_records(self, g: np.random.Generator) -> np.ndarray:
        """(n, k) array: row i is record i's uniform k-subset of range(T) (Floyd's algorithm, vectorised)."""
        n, T, k = self.dataset_size, self.steps_per_epoch, self.selected
        chosen = np.empty((n, k), dtype=np.int64)
        for i, j in enumerate(range(T - k, T)):
            t = _uniform_below(g, j + 1, n)
            taken = (chosen[:, :i] == t[:, None]).any(axis=1) if i else np.zeros(n, dtype=bool)
            chosen[:, i] = np.where(taken, j, t)
        return chosen

    def _step_lists(self, g: np.random.Generator) -> list[list[int]]:
        """:meth:`_steps_of_records` as Python lists, for small epochs: the same draws and the same Floyd
        steps (record by record: step j replaces a repeated draw), without numpy's per-call overhead."""
        n, T, k = self.dataset_size, self.steps_per_epoch, self.selected
        chosen: list[list[int]] = [[] for _ in range(n)]
        for j in range(T - k, T):
            for row, t in zip(chosen, _uniform_below(g, j + 1, n).tolist()):
                row.append(j if t in row else t)
        return chosen

    def epoch(self, rng: Any = None) -> Iterator[np.ndarray]:
        g = self._generator(f"{type(self).__name__}.epoch", rng)
        if self.dataset_size * self.selected <= _SMALL_EPOCH:
            batches: list[list[int]] = [[] for _ in range(self.steps_per_epoch)]
            for i, row in enumerate(self._step_lists(g)):
                for t in row:
                    batches[t].append(i)  # records in increasing order within each step
            for batch in batches:
                yield np.array(batch, dtype=np.int64)
            return
        steps = self._steps_of_records(g).reshape(-1)
        # stable: records stay sorted inside each step; 16-bit keys take numpy's radix sort (O(n), 7× faster)
        keys = steps.astype(np.uint16) if self.steps_per_epoch <= 1 << 16 else steps
        order = np.argsort(keys, kind="stable")
        # record of each position of ``order`` (the positions list record i's steps together, k per record)
        order = order.astype(np.int64, copy=False)
        by_step = order // self.selected if self.selected > 1 else order
        ends = np.cumsum(np.bincount(steps, minlength=self.steps_per_epoch)).tolist()
        start = 0
        for end in ends:
            yield by_step[start:end].copy()  # an array of its own per step, as before
            start = end

    def _words(self) -> dict[str, Any]:
        return {**super()._words(), "selected": self.selected}


class BallsAndBinsBatches(RandomAllocationBatches):
    """Balls-and-bins batches: every record is put in one uniformly random step of the epoch, independently,
    with fresh bins each epoch (``sampler_composition(sampler="balls_and_bins")``; Chua et al. 2025,
    *Balls-and-Bins Sampling for DP-SGD*).  Random allocation with k = 1.  :meth:`accounting`:
    ``[(bounds.balls_and_bins(mechanism, T), epochs)]`` (add/remove).

    Examples
    --------
    >>> from bounds.procedures import BallsAndBinsBatches
    >>> s = BallsAndBinsBatches(100, 10)
    >>> sum(len(b) for b in s.epoch(rng=0)), s.batch_size
    (100, 10.0)
    """

    sampler = "balls_and_bins"

    def __init__(self, dataset_size: Any, steps_per_epoch: Any, *, rng: Any = None) -> None:
        super().__init__(dataset_size, steps_per_epoch, selected=1, rng=rng)

    def _steps_of_records(self, g: np.random.Generator) -> np.ndarray:
        return _uniform_below(g, self.steps_per_epoch, self.dataset_size).reshape(-1, 1)

    def _step_lists(self, g: np.random.Generator) -> list[list[int]]:
        return [[t] for t in _uniform_below(g, self.steps_per_epoch, self.dataset_size).tolist()]

    def _words(self) -> dict[str, Any]:
        words = super()._words()
        del words["selected"]
        return words
