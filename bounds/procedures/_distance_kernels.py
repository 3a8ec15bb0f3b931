"""Compiled row sums of Euclidean distances for outlier scores (private; imported on first use, numba cached).

No ``fastmath``: every operation is an IEEE-754 operation in the order written (subtraction, multiplication,
addition, a correctly rounded ``sqrt``), so the result does not depend on the CPU's SIMD width — the
elementwise loops may be vectorised (each element's value is the same), the sums are written with eight
explicit lanes in a fixed order.
"""
from __future__ import annotations

import numpy as np

from numeric.jit import njit  # numba's njit without the unused C-callable wrapper

_BLOCK = 1024  # columns per block: a block's lane sums are naive (≤ 128 terms each), blocks add compensated


@njit(cache=True, nogil=True)
def euclidean_row_sums(xt: np.ndarray, track_largest: bool) -> tuple:  # pragma: no cover - compiled
    """For points given as the columns of ``xt`` (k, n): (Σ_j ‖x_i − x_j‖₂ for every i, the largest computed
    ‖x_i − x_j‖₂ if ``track_largest`` else 0).

    Error of each sum: each computed distance is within (k + 2)u (relative) of the exact one (k roundings in
    the squares and additions, counted on the squared norm, halved by the square root, plus the square root
    itself); within a block the eight lanes add ≤ 128 terms each and the lanes are added pairwise (≤ 130u
    relative); blocks are added with Neumaier's compensated summation (≤ 2u + O(nu²)).  In all the sum of
    distances is within (k + 135)u of the exact one, relative."""
    k, n = xt.shape
    sums = np.empty(n)
    largest = 0.0
    sq = np.empty(_BLOCK)
    for i in range(n):
        total = 0.0
        comp = 0.0
        for start in range(0, n, _BLOCK):
            stop = min(start + _BLOCK, n)
            width = stop - start
            xi = xt[0, i]
            row = xt[0, start:stop]
            for j in range(width):
                diff = row[j] - xi
                sq[j] = diff * diff
            for d in range(1, k):
                xi = xt[d, i]
                row = xt[d, start:stop]
                for j in range(width):
                    diff = row[j] - xi
                    sq[j] += diff * diff
            for j in range(width):
                sq[j] = np.sqrt(sq[j])
            if track_largest:
                for j in range(width):
                    if sq[j] > largest:
                        largest = sq[j]
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            a3 = 0.0
            a4 = 0.0
            a5 = 0.0
            a6 = 0.0
            a7 = 0.0
            j = 0
            while j + 8 <= width:
                a0 += sq[j]
                a1 += sq[j + 1]
                a2 += sq[j + 2]
                a3 += sq[j + 3]
                a4 += sq[j + 4]
                a5 += sq[j + 5]
                a6 += sq[j + 6]
                a7 += sq[j + 7]
                j += 8
            while j < width:
                a0 += sq[j]
                j += 1
            block = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
            t = total + block  # Neumaier's compensated step
            if abs(total) >= abs(block):
                comp += (total - t) + block
            else:
                comp += (block - t) + total
            total = t
        sums[i] = total + comp
    return sums, largest
