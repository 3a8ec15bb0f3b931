"""The ``Theorem`` record: one per SPEC entry, the single source of truth.

Everything downstream (generated kernels, parameter validation, LaTeX, checks) is read from these
records.  A record holds the SPEC statement as sympy expressions, the stable branches the float
kernels evaluate instead (each proven equal to the SPEC form in ``proofs_checks``), parameter domains,
provenance and the theorem's reductions as data.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import sympy as sp

PROVENANCE_FLAGS = ("source", "recovered", "derived")
RELATIONS = ("add/remove", "substitute", "any", "add/remove (base: substitute)")


@dataclass(frozen=True)
class Domain:
    """A real or integer interval with open/closed ends; ``hi = inf`` with ``hi_open=False`` admits inf."""

    lo: float
    hi: float
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False

    def describe(self) -> str:
        left = "(" if self.lo_open else "["
        right = ")" if self.hi_open else "]"
        hi = "inf" if self.hi == math.inf else repr(self.hi)
        text = f"{left}{self.lo!r}, {hi}{right}"
        return f"integer in {text}" if self.integer else text

    def latex(self) -> str:
        left = "(" if self.lo_open else "["
        right = ")" if self.hi_open else "]"
        hi = r"\infty" if self.hi == math.inf else sp.latex(sp.nsimplify(self.hi))
        lo = sp.latex(sp.nsimplify(self.lo))
        interval = rf"{left}{lo}, {hi}{right}"
        return rf"\mathbb{{Z}} \cap {interval}" if self.integer else interval

    def as_data(self) -> tuple:
        return (self.lo, self.hi, self.lo_open, self.hi_open, self.integer)


@dataclass(frozen=True)
class Parameter:
    """A theorem parameter: Python name, sympy symbol, LaTeX symbol, domain, meaning."""

    name: str
    symbol: sp.Symbol
    domain: Domain
    description: str

    @property
    def latex(self) -> str:
        return sp.latex(self.symbol)


@dataclass(frozen=True)
class Output:
    """One output of a theorem.

    ``expr`` is the SPEC form.  ``branches`` are ``(condition, expression)`` pairs, evaluated in order,
    that the float kernel uses instead (``None`` means the output is not a closed form and is computed by
    the hand-written kernel named in ``kernel``).  ``rounding`` is the safe direction: ``"up"`` for a
    guarantee (ε, δ), ``"down"`` for a base budget used to calibrate noise.
    """

    name: str
    expr: sp.Expr
    rounding: str = "up"
    branches: tuple[tuple[sp.Basic, sp.Expr], ...] | None = None
    kernel: str | None = None
    latex_name: str | None = None
    at_most_one: bool = False  # a δ above 1 is reported as 1 (every mechanism is (ε, 1)-DP)
    let: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()  # intermediates the branches use, computed first

    def branches_expanded(self) -> tuple[tuple[sp.Basic, sp.Expr], ...]:
        """The branches with the ``let`` intermediates substituted (for proofs)."""
        subs = dict(self.let)

        def expand(x):  # substituting re-evaluates, so leave alone what has no intermediate in it
            x = sp.sympify(x)
            return x.subs(subs) if x.free_symbols & set(subs) else x
        return tuple((expand(c), expand(e)) for c, e in self.branches)


@dataclass(frozen=True)
class Reduction:
    """``lhs == rhs`` under ``substitutions`` (applied to both sides); proven in ``proofs_checks``."""

    description: str
    lhs: sp.Expr
    rhs: sp.Expr
    substitutions: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()


@dataclass(frozen=True)
class Constraint:
    """A relation between two parameters, e.g. ``m <= n``."""

    lhs: str
    op: str
    rhs: str

    def describe(self) -> str:
        return f"{self.lhs} {self.op} {self.rhs}"


@dataclass(frozen=True)
class Theorem:
    """One SPEC entry."""

    id: str
    name: str
    relation: str
    parameters: tuple[Parameter, ...]
    outputs: tuple[Output, ...]
    provenance: str
    citation: str
    tightness: str
    statement: str
    reductions: tuple[Reduction, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    notes: str = ""
    public: tuple[str, ...] = ()
    extra_symbols: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.provenance not in PROVENANCE_FLAGS:
            raise ValueError(f"{self.id}: provenance {self.provenance!r} not in {PROVENANCE_FLAGS}")
        if self.relation not in RELATIONS:
            raise ValueError(f"{self.id}: relation {self.relation!r} not in {RELATIONS}")
        for out in self.outputs:
            if out.rounding not in ("up", "down"):
                raise ValueError(f"{self.id}.{out.name}: rounding must be 'up' or 'down'")

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"{self.id} has no parameter {name!r}")

    def output(self, name: str) -> Output:
        for o in self.outputs:
            if o.name == name:
                return o
        raise KeyError(f"{self.id} has no output {name!r}")

    def symbols(self) -> dict[str, sp.Symbol]:
        return {p.name: p.symbol for p in self.parameters}


_REGISTRY: dict[str, Theorem] = {}


def register(theorem: Theorem) -> Theorem:
    if theorem.id in _REGISTRY:
        raise ValueError(f"theorem {theorem.id} registered twice")
    _REGISTRY[theorem.id] = theorem
    return theorem
