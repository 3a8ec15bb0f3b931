"""Privacy audits: statistical and exact tests that can *refute* a claimed (ε, δ) for a procedure ∘ mechanism.

An audit can only refute a claim, never prove it: a lower bound on ε that exceeds the certified ε (at the
stated confidence) shows the implementation is not the procedure its theorem assumes (or the claim is wrong);
a lower bound below it shows nothing more than that this test did not find a violation.

Modules (one concept each): ``binomial_limits`` (exact Clopper–Pearson limits, :func:`epsilon_lower_bound`),
``mechanisms`` (the ε-DP mechanisms an audit runs), ``exact`` (exact output distributions and δ(ε) of a pair),
``monte_carlo`` (sampled audits with held-out event selection), ``scenarios`` (built-in self-tests with known
answers), ``result`` (:class:`AuditResult`).  Specification: ``shared/SYSTEMS.md`` §1.1, §2; issue 22.
"""
from __future__ import annotations

from .binomial_limits import LowerBound, clopper_pearson, epsilon_lower_bound
from .exact import exact_audit, exact_epsilon, privacy_profile, statistic_pmf
from .mechanisms import NoisyCount, RandomizedResponse
from .monte_carlo import monte_carlo_audit, run_outputs
from .result import NEVER_PROVES, AuditResult
from .scenarios import SCENARIOS, Scenario, scenario

__all__ = ["AuditResult", "LowerBound", "NEVER_PROVES", "NoisyCount", "RandomizedResponse", "SCENARIOS", "Scenario",
           "clopper_pearson",
           "epsilon_lower_bound", "exact_audit", "exact_epsilon", "monte_carlo_audit", "privacy_profile",
           "run_outputs", "scenario", "statistic_pmf"]
