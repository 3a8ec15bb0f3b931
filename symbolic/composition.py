"""Certified composition (issue 12): a plain-data record, id ``C1`` (not a SPEC theorem: no closed form).

The composed privacy profile of T-fold (or heterogeneous) compositions has no closed form; the library
encloses it numerically (``bounds.compose``, kernels ``numeric.composition``, proof ``docs/composition_proof.md``).
This record gives the certificate and the registry its name, provenance and relation; ``numeric.generate``
merges it into ``numeric/_generated/metadata.py`` (no kernels are generated for it).
"""
from __future__ import annotations

from math import inf

RECORDS = {
    "C1": {
        "id": "C1",
        "name": "Certified composition (DP-SGD)",
        "family": "composition",
        "relation": "add/remove",
        "provenance": "source",
        "citation": "Koskela, Jälkö, Prediger, Honkela 2021; Gopi, Lee, Wutschitz 2021; Doroshenko, Ghazi, "
                    "Kamath, Kumar, Manurangsi 2022 (connect the dots); Ghazi et al. 2022; Dong, Roth, Su 2022 "
                    "(dominance, tensor products)",
        "tightness": "a sandwich lower ≤ exact ≤ upper whose width shrinks like h² with the grid spacing h",
        "statement": "For a composition of (Poisson-subsampled) Gaussian or Laplace mechanisms and (ε, δ) "
                     "guarantees, δ(ε) = E[(1 − e^{ε − ΣLᵢ})₊] lies between the hockey-stick values of the composed "
                     "dominated and dominating grid measures, every rounding and FFT error included; ε(δ) likewise.",
        "notes": "Proof: docs/composition_proof.md. Under add/remove the REMOVE and ADD directions are composed "
                 "separately and the worse is reported.",
        "public": ["compose", "dpsgd_noise_multiplier", "dpsgd_max_steps"],
        "parameters": {
            "epsilon": {"domain": (-inf, inf, True, False, False), "description": "privacy loss ε of the composition"},
            "delta": {"domain": (0.0, 1.0, True, True, False), "description": "failure probability δ"},
            "rate": {"domain": (1e-12, 1.0, False, False, False), "description": "Poisson sampling rate q"},
            "steps": {"domain": (1.0, 1e8, False, False, True), "description": "number of composed steps T"},
        },
        "constraints": [],
        "outputs": {},
    },
}
