"""Privacy audits: statistical and exact tests that can *refute* a claimed (ε, δ) for a procedure ∘ mechanism.

An audit can only refute a claim, never prove it: a lower bound on ε that exceeds the certified ε (at the
stated confidence) shows the implementation is not the procedure its theorem assumes (or the claim is wrong);
a lower bound below it shows nothing more than that this test did not find a violation.
"""
from __future__ import annotations
