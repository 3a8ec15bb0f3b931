"""numba's cache never lands in the package tree (issue 19): with an unwritable cache directory numba used to
fall back to ``numeric/__pycache__``, where an edited inlined helper then served stale compiled results."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numeric

REPO = pathlib.Path(numeric.__file__).resolve().parent.parent

_SCRIPT = r"""
import os, sys
import numeric
import numba.core.config as config
import numpy as np
# compiles and caches a kernel: T1's δ (one rounded product), the cheapest to compile (≈ 1 s of CPU in all
# against ≈ 3.4 s for the Gaussian profile's), since each of these tests starts from an empty cache
numeric.kernel("numeric._generated.subsampling:t1_delta", 2)(np.array([1e-6, 1e-5]), np.array([0.01, 0.5]))
print(config.CACHE_DIR)
print(config.CACHE_LOCATOR_CLASSES)
"""


def _run(env_updates: dict[str, str], tmp_path: pathlib.Path) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "AMPBOUNDS_AUTO"))}
    env.update(env_updates, PYTHONPATH=str(REPO), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir(exist_ok=True)
    before = set(REPO.joinpath("numeric").rglob("*.nbi"))
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert set(REPO.joinpath("numeric").rglob("*.nbi")) == before, "numba cached inside the package tree"
    directory, locators = out.stdout.split()[-2:]
    return directory, locators


def test_unwritable_cache_home_falls_back_outside_the_package(tmp_path):
    # a regular file as XDG_CACHE_HOME: nothing can be created below it (root ignores mode bits, not this)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    directory, locators = _run({"XDG_CACHE_HOME": str(blocker)}, tmp_path)
    assert locators == "UserProvidedCacheLocator"
    assert pathlib.Path(directory).is_relative_to(tmp_path / "tmp"), directory  # the per-user temp cache
    assert not pathlib.Path(directory).is_relative_to(REPO)
    assert any(pathlib.Path(directory).rglob("*.nbi")), "the fallback directory holds the cache"


def test_unwritable_user_choice_is_not_replaced_by_the_package_tree(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    directory, locators = _run({"XDG_CACHE_HOME": str(tmp_path / "xdg"),
                                "NUMBA_CACHE_DIR": str(blocker / "cache")}, tmp_path)
    assert locators == "UserProvidedCacheLocator"
    assert pathlib.Path(directory).is_relative_to(tmp_path / "xdg"), directory


def test_nothing_writable_means_a_private_throwaway_cache(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    # the per-user temp directory exists but is not private (group-writable): refused, like an unwritable one
    shared = tmp_path / "tmp" / f"ampbounds-numba-{os.getuid()}"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    directory, _ = _run({"XDG_CACHE_HOME": str(blocker)}, tmp_path)
    assert pathlib.Path(directory).name.startswith("ampbounds-numba-") and not pathlib.Path(directory).exists()
    assert not pathlib.Path(directory).is_relative_to(REPO)
