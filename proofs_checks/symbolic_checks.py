"""Symbolic proofs, generated from the records: every reduction, every stable branch of every kernel,
and every C99 rewrite the generator applies, each decided by sympy (``proofs_checks.algebra``)."""
from __future__ import annotations

import sympy as sp

import symbolic
from numeric.generate import stable_rewrite

from .algebra import is_identity, to_elementary, value_at
from .framework import Outcome, add_check


def _at(expr: sp.Basic, subs: dict) -> sp.Basic:
    """``expr`` at ``subs``, elementary.  Substituted first: a finite sum at m = 1 is one term, whereas
    evaluating it at symbolic m first (Gosper's algorithm, ≈ 1.5 s for T3/T4's δ sum) and substituting after
    decides the same statement at much higher cost.  Where substituting first is not defined (0/0, ∞ − ∞)
    the closed form at symbolic values is taken and substituted, as before."""
    early = to_elementary(sp.sympify(expr).subs(subs))
    if early.has(sp.nan, sp.zoo):
        return to_elementary(expr).subs(subs)
    return early


def _reduction_check(theorem, reduction):
    def run() -> Outcome:
        subs = dict(reduction.substitutions)
        if sp.sympify(reduction.lhs).subs(subs) == sp.sympify(reduction.rhs).subs(subs):
            return Outcome(True, f"{reduction.description}: proven")  # the same expression: nothing to decide
        lhs, rhs = _at(reduction.lhs, subs), _at(reduction.rhs, subs)
        ok = is_identity(lhs, rhs)
        return Outcome(ok, f"{reduction.description}: " + ("proven" if ok else f"NOT proven: {lhs} vs {rhs}"))
    return run


def _equalities(cond: sp.Basic) -> list[sp.Eq] | None:
    """The equalities of a condition that is Eq or Or of Eqs, else None (an inequality branch)."""
    if isinstance(cond, sp.Eq):
        return [cond]
    if isinstance(cond, sp.Or) and all(isinstance(a, sp.Eq) for a in cond.args):
        return list(cond.args)
    return None


def _branch_matches(output, cond, branch, excluded=()) -> tuple[bool, str]:
    """Does ``branch`` equal the SPEC form where ``cond`` holds?  ``excluded`` are the Eq conditions of
    earlier branches (an integer k with k = 1 handled earlier is k ≥ 2 here)."""
    spec = output.expr
    eqs = _equalities(cond)
    if eqs is None:  # an inequality or "otherwise": the branch must be the SPEC form identically
        return is_identity(spec, branch), "identity"
    for eq in eqs:
        if eq.rhs in (sp.oo, -sp.oo) and eq.lhs.is_Symbol:  # a limit at infinity
            symbol, value = eq.lhs, eq.rhs
            later = {e.lhs: sp.Dummy(nonnegative=True, integer=True) + e.rhs + 1 for e in excluded
                     if e.lhs.is_Symbol and e.lhs.is_integer and e.rhs.is_Integer}
            spec_value = sp.limit(to_elementary(spec).xreplace(later), symbol, value)
            if output.at_most_one:
                spec_value = sp.Min(1, spec_value)
            spec_value = sp.simplify(spec_value.subs(sp.sign(sp.Symbol("delta", nonnegative=True)), 1))
            if spec_value != branch:
                return False, f"at {symbol} = {value}: SPEC gives {spec_value}, branch gives {branch}"
            continue
        lhs = eq.lhs - eq.rhs
        solved = [(s, sp.solve(lhs, s)) for s in sorted(lhs.free_symbols, key=str)]
        solved = [(s, sol[0]) for s, sol in solved if len(sol) == 1]
        if not solved:
            return False, f"cannot solve {eq}"
        symbol, value = solved[0]
        spec_value = value_at(spec, symbol, value)
        branch_value = value_at(branch, symbol, value)
        if output.at_most_one and spec_value.is_number:
            spec_value = sp.Min(1, spec_value)
        if not (spec_value == branch_value or is_identity(spec_value, branch_value)):
            return False, f"at {symbol} = {value}: SPEC gives {spec_value}, branch gives {branch_value}"
    return True, "at " + ", ".join(str(e) for e in eqs)


def _branches_check(theorem, output):
    def run() -> Outcome:
        notes, excluded = [], []
        for cond, branch in output.branches_expanded():
            ok, how = _branch_matches(output, cond, branch, tuple(excluded))
            if not ok:
                return Outcome(False, f"branch [{cond}] ≠ SPEC form: {how}")
            excluded += _equalities(cond) or []
            notes.append(how)
        return Outcome(True, f"{len(notes)} branches equal the SPEC form ({'; '.join(notes)})")
    return run


def _rewrite_check(theorem, output):
    def run() -> Outcome:
        pieces = list(output.let) + [(None, branch) for _, branch in output.branches]
        for _, expr in pieces:
            rewritten = stable_rewrite(expr)
            if not is_identity(rewritten, expr):
                return Outcome(False, f"C99 rewrite changed the value: {expr} → {rewritten}")
        return Outcome(True, f"{len(pieces)} rewritten expressions (log1p/expm1) proven equal")
    return run


def _register() -> None:
    for theorem in symbolic.theorems():
        for i, reduction in enumerate(theorem.reductions):
            add_check("symbolic", (theorem.id,), f"{theorem.id} reduction {i + 1}",
                      _reduction_check(theorem, reduction))
        for output in theorem.outputs:
            if output.branches is None:
                continue
            add_check("symbolic", (theorem.id,), f"{theorem.id} {output.name} stable branches",
                      _branches_check(theorem, output))
            add_check("symbolic", (theorem.id,), f"{theorem.id} {output.name} C99 rewrite",
                      _rewrite_check(theorem, output))


_register()
