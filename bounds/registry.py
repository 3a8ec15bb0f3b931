"""Theorem metadata and LaTeX: ``theorem(id)``, ``theorems()``, ``latex(id)``."""
from __future__ import annotations

from dataclasses import dataclass

from numeric._generated.metadata import THEOREMS

from ._core import describe_domain
from ._dask import refuses_dask


@dataclass(frozen=True)
class TheoremInfo:
    """Plain-data view of a theorem record (no sympy needed); returned by :func:`theorem`.

    Parameters
    ----------
    id, name, relation, provenance, citation, tightness, statement, notes : str
        The record's fields (provenance: *source*, *recovered* or *derived*; relation: add/remove,
        substitute, any).
    functions : tuple of str
        The public functions of ``bounds`` that evaluate it.
    parameters : dict
        name → (domain, description).
    constraints : tuple of str
        Constraints between parameters, e.g. ``"m <= n"``.
    outputs : dict
        Output name → kernel metadata (rounding direction, error budget).

    Examples
    --------
    >>> import bounds
    >>> bounds.theorem("T1").functions
    ('poisson_subsampling', 'poisson_subsampling_inverse')
    """

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
    records (C1: certified composition); reference: docs/theorems.md.

    Returns
    -------
    list of str
        ``["T1", "T2", …]``.

    Examples
    --------
    >>> import bounds
    >>> bounds.theorems()[:3]
    ['T1', 'T2', 'T3']
    """
    return sorted(THEOREMS, key=lambda t: (t[0] != "T", t[0], int(t[1:])))


@refuses_dask
def theorem(theorem_id: str) -> TheoremInfo:
    """Metadata of one theorem: statement, relation, provenance flag, citation, tightness, domains.

    Plain data from the generated metadata (no sympy).  The full reference, with LaTeX and the checks that
    certify each theorem, is ``docs/theorems.md``; ``print(theorem(id))`` gives a summary.

    Parameters
    ----------
    theorem_id : str
        A theorem id such as ``"T1"`` (any case, surrounding spaces ignored).

    Returns
    -------
    TheoremInfo

    Raises
    ------
    ValueError
        If the id is unknown (the message lists the known ids).

    Examples
    --------
    >>> import bounds
    >>> info = bounds.theorem("t3")
    >>> info.id, info.provenance, info.relation
    ('T3', 'recovered', 'substitute')
    >>> info.parameters["m"][0]
    'integers in [0, inf)'
    """
    meta = THEOREMS[_key(theorem_id)]
    return TheoremInfo(
        id=meta["id"], name=meta["name"], relation=meta["relation"], provenance=meta["provenance"],
        citation=meta["citation"], tightness=meta["tightness"], statement=meta["statement"],
        notes=meta["notes"], functions=tuple(meta["public"]),
        parameters={k: (describe_domain(v["domain"]), v["description"]) for k, v in meta["parameters"].items()},
        constraints=tuple(" ".join(c) for c in meta["constraints"]), outputs=meta["outputs"])


@refuses_dask
def latex(theorem_id: str, standalone: bool = False) -> str:
    r"""LaTeX of a theorem's formulas and domains, generated from its sympy record (imports sympy).

    Parameters
    ----------
    theorem_id : str
        A theorem id such as ``"T1"`` (any case).
    standalone : bool, optional
        False (default): an ``aligned`` block and its conditions, to paste into a display.  True: a complete
        document (``\documentclass`` … ``\end{document}``, ASCII, compiled by ``pdflatex`` in the test
        suite) with the theorem's statement, formulas, conditions, citation, provenance and functions.
        ``ampbounds latex --document [IDS]`` writes the document of several (default all) theorems.

    Returns
    -------
    str
        LaTeX source.  Theorem T13 has no closed form (an exact evaluator of your algorithm): its block
        states what is computed.

    Raises
    ------
    ValueError
        If the theorem id is unknown.

    Examples
    --------
    >>> import bounds
    >>> print(bounds.latex("T1").splitlines()[2])
      \varepsilon' &= \ln{\left(p \left(e^{\varepsilon} - 1\right) + 1 \right)} \\
    >>> doc = bounds.latex("T1", standalone=True)
    >>> doc.startswith("\\documentclass") and doc.rstrip().endswith("\\end{document}")
    True
    """
    key = _key(theorem_id)  # an unknown id fails before sympy is imported
    if standalone:
        return latex_document([key])
    from symbolic.latex import theorem_latex

    return theorem_latex(key)


def latex_document(theorem_ids: list[str] | None = None) -> str:
    """A complete, ``pdflatex``-compilable LaTeX document of the given theorems (default: all), generated
    from their records; used by ``latex(id, standalone=True)`` and ``ampbounds latex --document``."""
    keys = [_key(t) for t in (theorem_ids if theorem_ids is not None else theorems())]
    from symbolic.latex import theorem_document

    return theorem_document(keys)
