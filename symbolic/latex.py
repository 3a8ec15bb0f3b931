"""LaTeX of a theorem record, from ``sympy.latex`` of its expressions (never hand-typed formulas)."""
from __future__ import annotations

import sympy as sp

from .registry import get


def theorem_latex(theorem_id: str) -> str:
    theorem = get(theorem_id)
    lines = [f"% {theorem.id} {theorem.name} ({theorem.provenance}; {theorem.citation}); "
             f"relation: {theorem.relation}",
             r"\begin{aligned}"]
    for output in theorem.outputs:
        name = output.latex_name or sp.latex(sp.Symbol(output.name))
        lines.append(rf"  {name} &= {sp.latex(output.expr, ln_notation=True)} \\")
    lines.append(r"\end{aligned}")
    domains = [rf"{p.latex} \in {p.domain.latex()}" for p in theorem.parameters]
    domains += [f"{theorem.parameter(c.lhs).latex} {c.op.replace('<=', chr(92) + 'le')} "
                f"{theorem.parameter(c.rhs).latex}" for c in theorem.constraints]
    lines.append(r"\quad\text{for } " + ",\\ ".join(domains))
    return "\n".join(lines)
