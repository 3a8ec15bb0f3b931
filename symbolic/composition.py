"""Certified composition (issue 12): record ``C1`` (not a SPEC theorem: no closed form).

The composed privacy profile of T-fold (or heterogeneous) compositions has no closed form; the library encloses it
numerically (``bounds.compose``, kernels ``numeric.composition``, proof ``docs/composition_proof.md``).  Like T13,
the record has no outputs: it gives the certificate, the registry, the theorem reference and the LaTeX document
its statement, provenance and relation.
"""
from __future__ import annotations

import sympy as sp

from .core import Domain, Parameter, Theorem, register
from .functions import delta, epsilon

rate = sp.Symbol("q", nonnegative=True)
steps = sp.Symbol("T", positive=True, integer=True)

C1 = register(Theorem(
    id="C1",
    name="Certified composition (DP-SGD)",
    relation="add/remove",
    parameters=(
        Parameter("epsilon", epsilon, Domain(-float("inf"), float("inf"), lo_open=True),
                  "privacy loss ε of the composition"),
        Parameter("delta", delta, Domain(0.0, 1.0, lo_open=True, hi_open=True), "failure probability δ"),
        Parameter("rate", rate, Domain(1e-12, 1.0), "Poisson sampling rate q"),
        Parameter("steps", steps, Domain(1.0, 1e8, integer=True), "number of composed steps T"),
    ),
    outputs=(),  # not a closed form: a certified numerical enclosure (bounds.compose)
    provenance="source",
    citation="Koskela, Jälkö, Prediger, Honkela 2021; Gopi, Lee, Wutschitz 2021; Doroshenko, Ghazi, Kamath, "
             "Kumar, Manurangsi 2022 (connect the dots); Ghazi et al. 2022; Dong, Roth, Su 2022 (dominance, "
             "tensor products)",
    tightness="a sandwich lower ≤ exact ≤ upper whose width shrinks like h² with the grid spacing h",
    statement="For a composition of (Poisson-subsampled) Gaussian or Laplace mechanisms and (ε, δ) guarantees, "
              "δ(ε) = E[(1 − e^{ε − ΣLᵢ})₊] lies between the hockey-stick values of the composed dominated and "
              "dominating grid measures, every rounding and FFT error included; ε(δ) likewise.",
    notes="Proof: docs/composition_proof.md. Under add/remove the REMOVE and ADD directions are composed separately "
          "and the worse is reported.",
    public=("compose", "dpsgd_noise_multiplier", "dpsgd_max_steps"),
))
