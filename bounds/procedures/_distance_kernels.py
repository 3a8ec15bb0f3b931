"""Compiled row sums of Euclidean distances for outlier scores (private; imported on first use, numba cached).

No ``fastmath``: every operation is an IEEE-754 operation in the order written (subtraction, multiplication,
addition, a correctly rounded ``sqrt``), so the result does not depend on the CPU's SIMD width — the
elementwise loop may be vectorised, the sums are written with eight explicit lanes in a fixed order.
"""
from __future__ import annotations

import numba as nb
import numpy as np

_BLOCK = 1024  # columns per block: a block's lane sums are naive (≤ 128 terms each), blocks add compensated


@nb.njit(cache=True, nogil=True)
def euclidean_row_sums(xt: np.ndarray) -> tuple:  # pragma: no cover - compiled
    """For points given as columns of ``xt`` (k, n): (Σ_j ‖x_i − x_j‖₂ for every i, max_ij ‖x_i − x_j‖₂).

    Error of each sum: the block sums have ≤ 128 terms per lane (relative error ≤ 130u), the blocks are added
    with Neumaier's compensated summation (error ≤ 2u·Σ + O(n u²)), each distance is within 1.5·(k+1)u of
    the exact one (k squares and additions and a square root).  In all ≤ (1.5k + 134)u relative."""
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
            for j in range(width):
                sq[j] = 0.0
            for d in range(k):
                xi = xt[d, i]
                for j in range(width):
                    diff = xt[d, start + j] - xi
                    sq[j] += diff * diff
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
                a0 += np.sqrt(sq[j])
                a1 += np.sqrt(sq[j + 1])
                a2 += np.sqrt(sq[j + 2])
                a3 += np.sqrt(sq[j + 3])
                a4 += np.sqrt(sq[j + 4])
                a5 += np.sqrt(sq[j + 5])
                a6 += np.sqrt(sq[j + 6])
                a7 += np.sqrt(sq[j + 7])
                j += 8
            while j < width:
                a0 += np.sqrt(sq[j])
                j += 1
            for j in range(width):
                if sq[j] > largest:
                    largest = sq[j]
            block = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
            t = total + block  # Neumaier
            if abs(total) >= abs(block):
                comp += (total - t) + block
            else:
                comp += (block - t) + total
            total = t
        sums[i] = total + comp
    return sums, np.sqrt(largest)
