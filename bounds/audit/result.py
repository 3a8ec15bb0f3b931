"""The outcome of an audit: the claim, what the audit measured, and a verdict that can only be "refuted" or
"not refuted" — an audit never proves a claim."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .._core import Guarantee
from ._checks import real

__all__ = ["AuditResult", "claim_of", "NEVER_PROVES"]

NEVER_PROVES = ("An audit can refute a claim, never prove it: 'not refuted' means only that this test, on this "
                "pair of inputs, this event and this mechanism, found no violation.")


def claim_of(function: str, claim: Any) -> Guarantee:
    """A claim as a :class:`~bounds.Guarantee` (a Guarantee, or a pair (ε, δ) with ε ≥ 0, 0 ≤ δ ≤ 1)."""
    try:
        epsilon, delta = claim
    except (TypeError, ValueError):
        raise TypeError(f"{function}: claim = {claim!r} is not a Guarantee or an (epsilon, delta) pair") from None
    return Guarantee(real(function, "claim epsilon", epsilon, 0.0, math.inf),
                     real(function, "claim delta", delta, 0.0, 1.0))


@dataclass(frozen=True)
class AuditResult:
    """What an audit found.

    Attributes
    ----------
    kind : str
        ``"exact"`` (the exact privacy loss of procedure ∘ mechanism on the pair) or ``"monte carlo"``
        (a Clopper–Pearson lower bound on ε at ``confidence``).
    epsilon : float
        Exact audits: the exact ε of procedure ∘ mechanism on this pair at the claim's δ, rounded down.
        Monte Carlo audits: an ε lower bound holding with probability ≥ ``confidence``.
    claim : Guarantee
        The certified (ε, δ) under test.
    refuted : bool
        ``epsilon`` exceeds the claimed ε (exact audits: the exact δ at the claimed ε exceeds the claimed δ).
    confidence : float
        1 for exact audits.
    details : dict
        Audit-specific numbers (event, counts, limits, exact δ at the claimed ε, …).
    """

    kind: str
    scenario: str
    epsilon: float
    claim: Guarantee
    refuted: bool
    confidence: float
    details: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``"refuted"`` or ``"not refuted"`` (never "proved")."""
        return "refuted" if self.refuted else "not refuted"

    def as_dict(self) -> dict:
        """JSON-ready dictionary."""
        return {"scenario": self.scenario, "kind": self.kind, "verdict": self.verdict,
                "epsilon_audit": self.epsilon, "claim_epsilon": self.claim.epsilon,
                "claim_delta": self.claim.delta, "confidence": self.confidence, "details": self.details,
                "note": NEVER_PROVES}

    def __str__(self) -> str:
        what = ("exact ε of procedure ∘ mechanism on this pair" if self.kind == "exact"
                else f"ε lower bound at {100 * self.confidence:g} % confidence")
        return (f"{self.scenario}: {self.verdict} — {what} = {self.epsilon:.6g} vs certified "
                f"ε = {self.claim.epsilon:.6g} (δ = {self.claim.delta:.3g}).\n{NEVER_PROVES}")
