"""SPEC T11 (Poisson-subsampled Gaussian, remove and add) against Google's dp_accounting, both measured against
a 50-digit mpmath reference of the SPEC form (``proofs_checks.subsampled_profile_references.spec_delta``).

Grid (issue 10): 25 ε (0 and 1e-6 … 5) × 12 θ (0.02 … 10) × 10 q (1e-6 … 1).  For δ ≥ 1e-6 (by the reference)
it reports the largest relative gap between the two libraries and where, each library's largest relative
error against the reference, and how often dp_accounting is below the exact value (ampbounds never is: it
rounds up).  Needs ``pip install dp-accounting``.  Run: ``python benchmarks/bench_t11_agreement.py``.
"""
from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np

import bounds
from proofs_checks.subsampled_profile_references import spec_delta

EPSILONS = [0.0] + list(np.geomspace(1e-6, 5.0, 24))
THETAS = list(np.geomspace(0.02, 10.0, 12))
RATES = list(np.geomspace(1e-6, 1.0, 10))


def main() -> None:
    from dp_accounting.pld import privacy_loss_mechanism as plm

    for direction, adj in (("remove", plm.AdjacencyType.REMOVE), ("add", plm.AdjacencyType.ADD)):
        gap, ours_err, theirs_err, below, ours_below, count = (0.0, None), 0.0, (0.0, None), 0, 0, 0
        for e, t, q in itertools.product(EPSILONS, THETAS, RATES):
            ref = spec_delta("gaussian", direction, float(e), float(t), float(q))
            if ref < mp.mpf("1e-6"):
                continue
            ours = float(bounds.subsampled_gaussian_profile(float(e), theta=float(t), rate=float(q), direction=direction))
            theirs = plm.GaussianPrivacyLoss(1.0 / t, 1.0, sampling_prob=float(q),
                                             adjacency_type=adj).get_delta_for_epsilon(float(e))
            count += 1
            g = abs(ours - theirs) / ours
            if g > gap[0]:
                gap = (g, (float(e), float(t), float(q)))
            ours_err = max(ours_err, float(abs(mp.mpf(ours) - ref) / ref))
            te = float(abs(mp.mpf(theirs) - ref) / ref)
            if te > theirs_err[0]:
                theirs_err = (te, (float(e), float(t), float(q)))
            below += mp.mpf(theirs) < ref
            ours_below += mp.mpf(ours) < ref
        print(f"T11 {direction:<6}: {count} points with δ ≥ 1e-6; largest gap ampbounds vs dp_accounting "
              f"{gap[0]:.3g} at (ε, θ, q) = {gap[1]}; ampbounds vs exact ≤ {ours_err:.3g} (below exact at {ours_below}); "
              f"dp_accounting vs exact ≤ {theirs_err[0]:.3g} at {theirs_err[1]}, below exact at {below} points "
              f"({100 * below / count:.0f}%)", flush=True)


if __name__ == "__main__":
    main()
