"""The procedures the theorems assume, as code: data in, exactly the randomisation the bound covers.

A bound is a statement about one exact procedure; a procedure that differs in a detail (a data-derived
normalisation, a fixed-size "Poisson" batch, scores recomputed after each deletion) is not covered.  Each
function here is the procedure of its theorem (SPEC ids in the docstrings) and returns, next to its output, the
guarantee of that procedure.  ``numpy.random.Generator`` in (``rng=None`` → a fresh default generator),
reproducible by seed.  Specification: ``shared/SYSTEMS.md`` §1.1, §2, §3, §4.

Modules (one concept each):
- ``sampling``: record samplers of T1–T5 and the DP-SGD batch samplers;
- ``suppression``: metrics with public normalisation, outlier scores and outlier-score suppression (T14),
  deterministic suppressors (T12);
- ``kanonymity``: sampling + strongly-safe k-anonymization (T15);
- ``missing``: missing-data mask generators with p* and ρ, NA-aware FWL queries (T17–T18).
"""
from __future__ import annotations

# Each submodule's public names are re-exported here (one block per module).

# kanonymity (helper K): sampling + strongly-safe k-anonymization, SPEC T15
from .kanonymity import (Hierarchy, SafeKAnonymizer, SafeKRelease, SafeKReport, interval_hierarchy,  # noqa: E402
                         safe_k_anonymize)

# sampling (P): record samplers of T1–T5 and DP-SGD batch samplers
from .sampling import (BallsAndBinsBatches, BatchSampler, CyclicBatches, FixedSizeBatches, PoissonBatches,
                       RandomAllocationBatches, ShuffledBatches, effective_rate, poisson_guarantee, poisson_sample,
                       sample_with_replacement, sample_without_replacement)
# suppression (P): metrics with public normalisation, outlier-score suppression (T14), deterministic rules (T12)
from .suppression import (AbsoluteDifference, DeterministicSuppression, Discrete, Euclidean, Metric, Suppression,
                          outlier_scores, suppress_outliers, suppress_predicate, suppress_threshold,
                          suppress_top_percent)

# missing (helper K): missing-data mechanisms with exact p* and ρ, NA-aware FWL releases, SPEC T17–T18
from .missing import (MARThreshold, MaskGenerator, MCAR, MissingDataRelease, ObserveExactly,  # noqa: E402
                      mar_threshold, mcar, missing_clipped_mean, missing_histogram, missing_mean, missing_sum,
                      na_fill, observe_exactly)
