"""Test-suite configuration: hypothesis profiles.

``ci``  — fixed seed (derandomize), 200 examples per test, no deadline, failures print a reproduction blob.
``dev`` — 50 random examples per test, no deadline.

The profile is chosen by ``HYPOTHESIS_PROFILE``; otherwise ``ci`` when the ``CI`` environment variable is set,
else ``dev``.  Tests that are expensive per example lower ``max_examples`` with their own ``@settings``.
"""
from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=200, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
