"""LaTeX of a theorem record, from ``sympy.latex`` of its expressions (never hand-typed formulas)."""
from __future__ import annotations

import sympy as sp

from .registry import get


def theorem_latex(theorem_id: str) -> str:
    theorem = get(theorem_id)
    lines = [f"% {theorem.id} {theorem.name} ({theorem.provenance}; {theorem.citation}); "
             f"relation: {theorem.relation}",
             r"\begin{aligned}"]
    if not theorem.outputs:  # T13: an exact evaluator, not a closed form; its statement says what it computes
        lines.append(r"  &\parbox{0.8\linewidth}{No closed form; computed by "
                     r"\texttt{" + text_to_latex(", ".join(theorem.public)) + "}. "
                     + text_to_latex(theorem.statement) + r"} \\")
    for output in theorem.outputs:
        name = output.latex_name or sp.latex(sp.Symbol(output.name))
        lines.append(rf"  {name} &= {sp.latex(output.expr, ln_notation=True)} \\")
    lines.append(r"\end{aligned}")
    domains = [rf"{p.latex} \in {p.domain.latex()}" for p in theorem.parameters]
    domains += [f"{theorem.parameter(c.lhs).latex} {c.op.replace('<=', chr(92) + 'le')} "
                f"{theorem.parameter(c.rhs).latex}" for c in theorem.constraints]
    lines.append(r"\quad\text{for } " + ",\\ ".join(domains))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------------
# Text of the records (statements, citations) for LaTeX: pdflatex with the default fonts reads ASCII only,
# so every character is translated here; an unknown character is an error (the test renders every record).
# --------------------------------------------------------------------------------------------------------

_ASCII_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                   "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                   "<": r"\ensuremath{<}", ">": r"\ensuremath{>}", "|": r"\ensuremath{|}",
                   "/": r"\slash{}"}  # a line may break after a slash ("add/remove")
_MATH = {"±": r"\pm", "²": "^{2}", "³": "^{3}", "¹": "^{1}", "·": r"\cdot", "½": r"\tfrac{1}{2}", "×": r"\times",
         "Δ": r"\Delta", "Λ": r"\Lambda", "Σ": r"\Sigma", "Φ": r"\Phi", "α": r"\alpha", "β": r"\beta",
         "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "η": r"\eta", "θ": r"\theta", "λ": r"\lambda",
         "μ": r"\mu", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "φ": r"\varphi", "‖": r"\|", "⁻": "^{-}",
         "₀": "_{0}", "₁": "_{1}", "ᵢ": "_{i}", "₂": "_{2}", "₊": "_{+}", "→": r"\to", "⇔": r"\Leftrightarrow", "∈": r"\in",
         "−": "-", "∓": r"\mp", "∘": r"\circ", "√": r"\surd", "∞": r"\infty", "≠": r"\neq", "≤": r"\le",
         "≥": r"\ge", "⊆": r"\subseteq", "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor", "⌋": r"\rfloor",
         "𝒳": r"\mathcal{X}", "𝔻": r"\mathbb{D}", "𝕊": r"\mathbb{S}", "′": r"'", "≈": r"\approx",
         "∑": r"\sum", "∀": r"\forall", "∃": r"\exists", "∅": r"\emptyset", "∩": r"\cap", "∪": r"\cup"}
_TEXT = {"–": "--", "—": "---", "…": r"\ldots{}", "’": "'", "‘": "`", "“": "``", "”": "''", "é": r"\'e",
         "ü": r'\"u', "ö": r'\"o', "ä": r'\"a', "\u00a0": "~"}


def text_to_latex(text: str) -> str:
    """Plain Unicode text of a record as ASCII LaTeX (text mode; symbols in ``\\ensuremath``).

    Raises ``ValueError`` on a character without a translation (add it to the tables above)."""
    out = []
    chars = list(text)
    i = 0
    while i < len(chars):
        c = chars[i]
        tilde = i + 1 < len(chars) and chars[i + 1] == "\u0303"  # combining tilde: C̃
        if tilde:
            base = _MATH.get(c, c)
            out.append(rf"\ensuremath{{\tilde{{{base}}}}}")
            i += 2
            continue
        if c in _ASCII_SPECIALS:
            out.append(_ASCII_SPECIALS[c])
        elif c in _MATH:
            out.append(rf"\ensuremath{{{_MATH[c]}}}")
        elif c in _TEXT:
            out.append(_TEXT[c])
        elif ord(c) < 128:
            out.append(c)
        else:
            raise ValueError(f"text_to_latex: no LaTeX for {c!r} (U+{ord(c):04X}) in {text[:60]!r}…")
        i += 1
    return "".join(out)


PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[margin=2.2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
% A display that is wider than the line is scaled down to the line width.
\newcommand{\fitdisplay}[1]{\[\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{$\displaystyle #1$}\]}
"""


def _formulas(theorem) -> list[str]:
    if not theorem.outputs:
        return []
    return [rf"{o.latex_name or sp.latex(sp.Symbol(o.name))} = {sp.latex(o.expr, ln_notation=True)}"
            for o in theorem.outputs]


def _conditions(theorem) -> str:
    domains = [rf"{p.latex} \in {p.domain.latex()}" for p in theorem.parameters]
    domains += [f"{theorem.parameter(c.lhs).latex} {c.op.replace('<=', chr(92) + 'le')} "
                f"{theorem.parameter(c.rhs).latex}" for c in theorem.constraints]
    return ",\\quad ".join(domains)


def theorem_section(theorem_id: str) -> str:
    """One theorem as a LaTeX section: name, provenance, relation, citation, statement, formulas (from the
    sympy record), conditions, tightness, notes and the public functions."""
    t = get(theorem_id)
    lines = [rf"\section*{{{t.id}\quad {text_to_latex(t.name)}}}",
             rf"\textbf{{Provenance}}: \emph{{{t.provenance}}}.\quad \textbf{{Relation}}: {text_to_latex(t.relation)}."
             rf"\quad \textbf{{Citation}}: {text_to_latex(t.citation)}.", "",
             rf"\textbf{{Statement.}} {text_to_latex(t.statement)}", ""]
    formulas = _formulas(t)
    if formulas:
        lines.append(r"\textbf{Formulas} (generated from the sympy record):")
        lines += [rf"\fitdisplay{{{f}}}" for f in formulas]
    else:
        lines.append(r"\textbf{Formulas}: none in closed form; the bound is evaluated exactly over a finite "
                     r"universe as stated above.")
    lines += [r"\textbf{Conditions}:", rf"\fitdisplay{{{_conditions(t)}}}",
              rf"\textbf{{Tightness}}: {text_to_latex(t.tightness)}", ""]
    if t.notes:
        lines += [rf"\textbf{{Notes}}: {text_to_latex(t.notes)}", ""]
    if t.public:
        lines.append(r"{\raggedright\textbf{Functions}: "
                     + ", ".join(rf"\texttt{{{text_to_latex(f)}}}" for f in t.public) + r".\par}")
    return "\n".join(lines)


def theorem_document(theorem_ids) -> str:
    """A complete LaTeX document (``pdflatex``-compilable, ASCII) of the given theorems."""
    ids = list(theorem_ids)
    title = "ampbounds: theorem reference" if len(ids) != 1 else f"ampbounds: {ids[0]}"
    body = "\n\n".join(theorem_section(t) for t in ids)
    return (PREAMBLE + rf"\title{{{title}}}" + "\n" + r"\date{}" + "\n" + r"\begin{document}" + "\n"
            + r"\maketitle" + "\n"
            + r"Generated from the theorem records of ampbounds (\texttt{symbolic/}); every formula is "
              r"\texttt{sympy.latex} of the record's expression." + "\n\n"
            + body + "\n" + r"\end{document}" + "\n")
