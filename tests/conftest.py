"""Test-suite configuration: hypothesis profiles, and results computed once per test run.

``ci``  — fixed seed (derandomize), 200 examples per test, no deadline, failures print a reproduction blob.
``dev`` — 50 random examples per test, no deadline.

The profile is chosen by ``HYPOTHESIS_PROFILE``; otherwise ``ci`` when the ``CI`` environment variable is set,
else ``dev``.  Tests that are expensive per example lower ``max_examples`` with their own ``@settings``.

``run_once(name, compute)`` (a session fixture) returns ``compute()``'s JSON-able result, computed once per
test run even when pytest-xdist spreads the tests that need it over several worker processes: the first
worker computes it under a file lock in the run's shared base directory, the others read it.  For the
subprocesses that compile kernels for another CPU target (tests/cpu_targets.py): each costs seconds of
compilation, and the tests using one land on different workers.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=200, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def run_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[], Any]], Any]:
    """``run_once(name, compute)``: ``compute()`` once per test run (see the module docstring).

    Under xdist every worker's base temporary directory lies in one directory per run (its parent), which
    no other run shares; without xdist the base directory itself.  A failing ``compute`` stores nothing, so
    each test that needs it fails with the error itself.  Without ``fcntl`` (Windows) nothing is shared:
    each worker computes its own."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    memo: dict[str, Any] = {}

    def once(name: str, compute: Callable[[], Any]) -> Any:
        if name in memo:
            return memo[name]
        try:
            import fcntl
        except ImportError:  # no POSIX file locks: compute here
            memo[name] = json.loads(json.dumps(compute()))
            return memo[name]
        path = Path(shared) / f"run-once-{name}.json"
        with open(Path(shared) / f"run-once-{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if path.exists():
                memo[name] = json.loads(path.read_text())
            else:
                text = json.dumps(compute())  # every worker gets the JSON form (lists, not tuples)
                path.with_suffix(".tmp").write_text(text)
                path.with_suffix(".tmp").replace(path)
                memo[name] = json.loads(text)
        return memo[name]

    return once
