"""A public function evaluated over a grid one point at a time: the scalar route (issue 20).

The property checks probe the library's public functions on grids (monotone in ε, inverse on the safe side, …).
Called with arrays, such a function runs its kernel's array loop (``numeric.loops``), which a process compiles
the first time it needs it: the kernel's whole call tree again, inlined into the loop (≈ 0.2–0.6 s of CPU per
hand-written kernel, ≈ 9 s over a cold certificate's property checks).  For the properties the route is
immaterial: the loop and the scalar dispatcher run one compiled kernel, bit for bit (``accuracy.compiled``; the
certificate compares the two routes itself over T1 δ's grid, the tests over every kernel:
tests/bounds/test_contract.py, tests/numeric/test_vector_width.py).  So a check whose grid would build a loop
only for itself evaluates it here instead, point by point through the public function's scalar route
(validation and all: ≈ 2–4 µs per profile value, ≈ 20 µs per inverse), and gets arrays of the same shape and bits.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np


def pointwise(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with its array arguments (positional or keyword ``ndarray`` of at least one dimension)
    broadcast and evaluated at each point with Python floats; other arguments (strings, mechanism objects,
    scalars) are passed as given.  Returns a float64 array of the broadcast shape, or a result of the same
    ``NamedTuple`` type whose fields are such arrays (a ``Guarantee``).  Without array arguments it is
    ``function`` itself."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        positions = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim]
        names = [k for k, v in kwargs.items() if isinstance(v, np.ndarray) and v.ndim]
        if not positions and not names:
            return function(*args, **kwargs)
        grids = np.broadcast_arrays(*[args[i] for i in positions], *[kwargs[k] for k in names])
        shape = grids[0].shape
        point_args, point_kwargs = list(args), dict(kwargs)
        results = []
        for index in np.ndindex(shape):
            for j, i in enumerate(positions):
                point_args[i] = float(grids[j][index])
            for j, k in enumerate(names):
                point_kwargs[k] = float(grids[len(positions) + j][index])
            results.append(function(*point_args, **point_kwargs))
        first = results[0] if results else None
        if isinstance(first, tuple) and hasattr(first, "_fields"):  # a Guarantee: one array per field
            return type(first)(*[np.array([r[f] for r in results], dtype=np.float64).reshape(shape)
                                  for f in range(len(first))])
        return np.array(results, dtype=np.float64).reshape(shape)
    return call
