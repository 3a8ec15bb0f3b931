"""How fast could ``amplify`` get by trimming its arithmetic?  (issue 20, item 6: T1 against numpy on AVX-512.)

Builds variants of ``numeric.elementary`` from its source text, each with more of the work removed, and times the
same 8-lane loop over each (``out[i] = amplify(ε[i], η[i])``, inlined, ``prefer-vector-width=512`` as in
``numeric.loops``) against numpy's unrounded chain ``log1p(η·expm1(ε))`` into preallocated buffers:

- ``v0``  ``amplify`` as shipped;
- ``v1``  without the division T/S of the logarithm's tail (replaced by a product);
- ``v2``  ``v1`` and without the division s = f/(2 + f) (both ``vdivpd`` gone);
- ``v3``  ``v2`` with the logarithm's polynomial cut from 10 to 4 coefficients (what a 256-entry table
  reduction would leave, without the table look-ups it would add);
- ``v4``  ``v3`` with the exponential's polynomial cut from 12 to 6 coefficients (likewise).

``v1``–``v4`` compute **wrong** values: they only bound what removing that work could buy (a table-driven
algorithm would remove it but add gathers).  Nothing here is asserted in a test.

    PYTHONPATH=. python benchmarks/bench_amplify_floor.py [--rounds 5]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent

# each variant: the previous one with these replacements (old text, new text), each of which must match once
CUTS = {
    "v1": [("t_ / s_) + b1) + b2))", "t_ * 0.5) + b1) + b2))")],
    "v2": [("    s = f / (2.0 + f)\n", "    s = f * 0.4\n")],
    "v3": [("""    w = fma(z4, fma(z4, fma(z, P10, P9), fma(z2, fma(z, P8, P7), fma(z, P6, P5))),
            fma(z2, fma(z, P4, P3), fma(z, P2, P1)))""", "    w = fma(z2, fma(z, P4, P3), fma(z, P2, P1))")],
    "v4": [("""    q_cd = fma(rsq, fma(r, E10, E9), fma(r, E8, E7))
    q_ef = fma(rsq, fma(r, E14, E13), fma(r, E12, E11))
    q = fma(r4, fma(r4, q_ef, q_cd), q_ab)""", "    q = fma(r4, fma(r, E8, E7), q_ab)")],
}

LOOP = """
from numba import njit
from numeric.loops import _widest_vectors
from {module} import amplify


@njit(error_model="numpy")
def loop(eps, eta, out):
    _widest_vectors()
    for i in range(eps.size):
        out[i] = amplify(eps[i], eta[i])
"""


def variants(directory: Path) -> dict:
    """Write elem_v0 … elem_v4 and a loop module for each into ``directory``; return {name: loop}."""
    import importlib

    text = (HERE / "numeric" / "elementary.py").read_text().replace("from .special import",
                                                                    "from numeric.special import")
    sources = {"v0": text}
    for name, cuts in CUTS.items():
        for old, new in cuts:
            if text.count(old) != 1:
                raise SystemExit(f"{name}: the text to cut is no longer in numeric/elementary.py: {old!r}")
            text = text.replace(old, new)
        sources[name] = text
    sys.path.insert(0, str(directory))
    loops = {}
    for name, source in sources.items():
        (directory / f"elem_{name}.py").write_text(source)
        (directory / f"loop_{name}.py").write_text(LOOP.format(module=f"elem_{name}"))
        loops[name] = importlib.import_module(f"loop_{name}").loop
    return loops


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(20261202)
    with tempfile.TemporaryDirectory() as tmp:
        loops = variants(Path(tmp))
        print(f"{platform.machine()}, numpy {np.__version__}, load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; CPU-time medians of {args.rounds} interleaved "
              "rounds, ns per point")
        print(f"{'points':>8}  " + "  ".join(f"{k:>6}" for k in [*loops, "numpy"]))
        for n, reps in ((4096, 3000), (10**6, 15)):
            eps, eta = 10 ** rng.uniform(-3, 1, n), 10 ** rng.uniform(-6, 0, n)
            out, tmp_buf = np.empty(n), np.empty(n)

            def numpy_chain(e, q, o):
                np.expm1(e, out=tmp_buf)
                np.multiply(q, tmp_buf, out=tmp_buf)
                np.log1p(tmp_buf, out=o)

            cases = {**loops, "numpy": numpy_chain}
            for run in cases.values():
                run(eps, eta, out)  # compile, warm
            times: dict = {k: [] for k in cases}
            for _ in range(args.rounds):
                for name, run in cases.items():
                    t = time.process_time()
                    for _ in range(reps):
                        run(eps, eta, out)
                    times[name].append((time.process_time() - t) / reps / n * 1e9)
            print(f"{n:>8}  " + "  ".join(f"{sorted(v)[len(v) // 2]:6.2f}" for v in times.values()))


if __name__ == "__main__":
    main()
