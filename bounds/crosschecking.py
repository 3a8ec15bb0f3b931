"""Cross-checking (issue 13), one import away: the names of ``bounds.verdicts`` (``crosscheck``, ``Verdict``),
``bounds.enclosures`` (certified enclosures of each mechanism kind), ``bounds.oneshot`` (``WithoutReplacement``,
``WithReplacement``, ``RateChange``, ``DiscretePairs``) and ``bounds.peer_formats`` (``from_dp_event``,
``from_opacus_history``, ``dp_event_to_json``), re-exported for code written against this module.

The rooms, by concern: read ``bounds.verdicts`` for what a verdict means, ``bounds.enclosures`` for where each
bound comes from, ``bounds.peer_formats`` for the peers' vocabulary.  The overview of verdicts is in ``bounds.verdicts``.
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
