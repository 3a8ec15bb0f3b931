"""Theorem metadata and LaTeX: ``theorem(id)``, ``theorems()``, ``latex(id)``."""
from __future__ import annotations

from dataclasses import dataclass

from numeric._generated.metadata import THEOREMS

from ._core import describe_domain


@dataclass(frozen=True)
class TheoremInfo:
    """Plain-data view of a SPEC theorem record (no sympy needed)."""

    id: str
    name: str
    relation: str
    provenance: str
    citation: str
    tightness: str
    statement: str
    notes: str
    functions: tuple[str, ...]
    parameters: dict[str, tuple[str, str]]  # name → (domain, description)
    constraints: tuple[str, ...]
    outputs: dict[str, dict]

    def __str__(self) -> str:
        lines = [f"{self.id} {self.name} [{self.provenance}] — relation: {self.relation}",
                 f"  {self.statement}", f"  citation: {self.citation}", f"  tightness: {self.tightness}"]
        lines += [f"  {p} ∈ {d}: {desc}" for p, (d, desc) in self.parameters.items()]
        lines += [f"  requires {c}" for c in self.constraints]
        lines += [f"  functions: {', '.join(self.functions)}"]
        return "\n".join(lines)


def _key(theorem_id: str) -> str:
    key = str(theorem_id).strip().upper()
    if key not in THEOREMS:
        raise ValueError(f"unknown theorem {theorem_id!r}; known: {', '.join(theorems())}")
    return key


def theorems() -> list[str]:
    """The ids of every theorem the library implements, in order: SPEC's T1… first, then the library's own
    records (C1: certified composition)."""
    return sorted(THEOREMS, key=lambda t: (t[0] != "T", t[0], int(t[1:])))


def theorem(theorem_id: str) -> TheoremInfo:
    """Metadata of one theorem: statement, relation, provenance flag, citation, tightness, domains."""
    meta = THEOREMS[_key(theorem_id)]
    return TheoremInfo(
        id=meta["id"], name=meta["name"], relation=meta["relation"], provenance=meta["provenance"],
        citation=meta["citation"], tightness=meta["tightness"], statement=meta["statement"],
        notes=meta["notes"], functions=tuple(meta["public"]),
        parameters={k: (describe_domain(v["domain"]), v["description"]) for k, v in meta["parameters"].items()},
        constraints=tuple(" ".join(c) for c in meta["constraints"]), outputs=meta["outputs"])


def latex(theorem_id: str) -> str:
    """LaTeX of the theorem's formulas and domains, generated from its sympy record (imports sympy)."""
    from symbolic.latex import theorem_latex

    return theorem_latex(_key(theorem_id))
