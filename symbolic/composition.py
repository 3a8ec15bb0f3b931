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

epochs = sp.Symbol("E", positive=True, integer=True)
steps_per_epoch = sp.Symbol("T", positive=True, integer=True)

C2 = register(Theorem(
    id="C2",
    name="Certified accounting of DP-SGD batch samplers",
    relation="any",  # add/remove (balls-and-bins, random allocation); zero-out or replace-one (shuffling, cyclic)
    parameters=(
        Parameter("epsilon", epsilon, Domain(-float("inf"), float("inf"), lo_open=True),
                  "privacy loss ε of the composition"),
        Parameter("delta", delta, Domain(0.0, 1.0, lo_open=True, hi_open=True), "failure probability δ"),
        Parameter("steps_per_epoch", steps_per_epoch, Domain(1.0, 1e7, integer=True), "batches per epoch T"),
        Parameter("epochs", epochs, Domain(1.0, 1e8, integer=True), "number of epochs E"),
    ),
    outputs=(),  # not a closed form: certified numerical enclosures (bounds.samplers rounds in bounds.compose)
    provenance="source",
    citation="Chua et al., Balls-and-Bins Sampling for DP-SGD (AISTATS 2025); Chua et al., How Private are "
             "DP-SGD Implementations? (ICML 2024); Feldman & Shenfeld, Privacy amplification by random allocation "
             "(arXiv 2502.08202) and Efficient privacy loss accounting for subsampling and random allocation "
             "(arXiv 2602.17284)",
    tightness="balls-and-bins and cyclic: a sandwich lower ≤ exact ≤ upper of second order in the grids; "
              "shuffling: a certified lower side only (upper = cyclic); random allocation k > 1: upper by "
              "decomposition, loose lower side",
    statement="Balls-and-bins epochs (pairs (MoG_T(1), N_T) and (N_T, MoG_T(1))), shuffled epochs (lower side from "
              "the max-of-batches pair (MoG_T(2), MoG_T(1)) or (MoG_T(2), N_T)), random allocation and cyclic "
              "batches are certified rounds of the composition C1: their one-round grids dominate resp. are "
              "dominated by the exact privacy-loss distributions, every rounding and FFT error included.",
    notes="Proof notes: docs/samplers/. Relation: add/remove for balls-and-bins and random allocation, zero-out "
          "or replace-one for shuffling and cyclic batches. Each round carries its adjacency; compose([(round, E)]) composes epochs, "
          "REMOVE with REMOVE and ADD with ADD.",
    public=("balls_and_bins", "shuffled", "random_allocation", "cyclic", "sampler_composition"),
))
