"""Cross-checking (issue 13), one import away: the names of ``bounds.verdicts`` (``crosscheck``, ``Verdict``),
``bounds.enclosures`` (certified enclosures of each mechanism kind), ``bounds.oneshot`` (``WithoutReplacement``,
``WithReplacement``, ``RateChange``, ``DiscretePairs``) and ``bounds.peer_formats`` (``from_dp_event``,
``from_opacus_history``, ``dp_event_to_json``), re-exported for code written against this module.

The rooms, by concern: read ``bounds.verdicts`` for what a verdict means, ``bounds.enclosures`` for where each
bound comes from, ``bounds.peer_formats`` for the peers' vocabulary.  The overview below is ``crosscheck``'s.

“Is my accountant right?”: certified verdicts on a claimed (ε, δ).

``crosscheck(mechanism_or_composition, epsilon=ε, delta=δ)`` decides whether a mechanism is (ε, δ)-DP, the
claim another accountant (dp_accounting, Opacus, autodp, prv_accountant, …) reports, from *certified*
enclosures of the mechanism's privacy profile δ_M(ε):

- **invalid** — a certified *lower* bound on δ_M(ε) exceeds the claimed δ (or, equivalently, the claimed ε lies
  below a certified lower bound on ε_M(δ) = min{ε ≥ 0 : δ_M(ε) ≤ δ}): the claim promises more privacy than
  the mechanism has.  Never a false alarm: only a proven lower bound can refute a claim.
- **valid** — a certified *upper* bound on δ_M(ε) is at most the claimed δ (or the claimed ε is at least a
  certified upper bound on ε_M(δ)).
- **undecided** — the claim lies inside the certified sandwich; the verdict says by how much and how to
  tighten it.

The two criteria of each verdict are each sound on their own: δ_M is non-increasing in ε, so
ε ≥ ε⁺ ≥ ε_M(δ) gives δ_M(ε) ≤ δ_M(ε_M(δ)) ≤ δ, and ε < ε⁻ ≤ ε_M(δ) gives δ_M(ε) > δ by the minimality of
ε_M(δ).  Using both makes the verdict consistent between the ε and δ views even where a rounded profile is
not monotone at the level of single ulps.

Mechanisms and where their enclosures come from (one shot):

======================================  ===========  ===============================================
mechanism                               SPEC         enclosure
======================================  ===========  ===============================================
``Gaussian(theta=θ)``, ``Laplace``    T9, T8       exact profile ± kernel budget (both sides)
``poisson_sampled(Gaussian|Laplace)``   T11          exact profile ± running error + budget (both)
``EpsDelta(ε₀, δ₀)``                    Conventions  worst case over (ε₀, δ₀)-DP mechanisms, exact
``poisson_sampled(EpsDelta, p)``        T1           worst case, exact (T1 is tight)
``WithoutReplacement(EpsDelta, m, n)``  T2           worst case, exact (T2 is tight)
``WithoutReplacement(Gaussian, …)``     T2           upper only
``WithReplacement(…)``                  T3, T4       upper only (no proven lower bound)
``RateChange(EpsDelta, β₁, β₂)``        T5           upper only (see ``RateChange``)
``DiscretePairs(pairs)``                definition   exact (hockey-stick sums of finite laws)
======================================  ===========  ===============================================

Anything with callable ``.delta(epsilon)`` and ``.epsilon(delta)`` returning ``Sandwich`` (``bounds.compose``)
is accepted as a composition.  ``from_dp_event`` and ``from_opacus_history`` translate the peers'
vocabulary; DP-SGD's ``noise_multiplier`` σ/Δ is accepted wherever a Gaussian is taken
(``Gaussian.from_noise_multiplier``, which keeps θ = 1/σ rounded up for the upper and down for the lower
bounds).
"""
from __future__ import annotations

from .composition import MAX_STEPS, PoissonSampled, Sandwich, poisson_sampled  # noqa: F401
from .enclosures import (  # noqa: F401
    _DIGITS, _WIDEN, WITH_REPLACEMENT_EVALUATIONS, WITH_REPLACEMENT_MAX_TERMS, _amplified_base_epsilon, _bisect,
    _check_with_replacement_work, _DiscreteEnclosure, _Enclosure, _fraction_floats, _ImpliedEnclosure,
    _lower_from_raw, _mp_floats, _NoiseEnclosure, _search_lower, _search_upper, _theta_bounds, _UpperOnlyEnclosure,
    _with_replacement_terms, _with_replacement_upper, _without_replacement_noise_upper, enclosure)
from .mechanisms import EpsDelta, Gaussian, Laplace  # noqa: F401
from .oneshot import (  # noqa: F401
    MAX_RECORDS, DiscretePairs, RateChange, WithoutReplacement, WithReplacement, _check_sample, _sequence)
from .peer_formats import (  # noqa: F401
    MAX_EVENT_NODES, _SUPPORTED_EVENTS, _compose, _event_node, _event_steps, _from_keywords,
    _from_noise_multiplier, _merge, _steps_to_target, dp_event_to_json, from_dp_event, from_opacus_history)
from .verdicts import (  # noqa: F401
    VERDICTS, Verdict, _claim, _explain, _g, _is_composition, _noise_text, _scalar_sandwich, crosscheck,
    decide, describe_composition, sampler_target)
