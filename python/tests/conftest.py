"""Shared fixtures: the weft tools (WEFT_BIN, else <repo>/build/bin, else
PATH) and the repository root. Tests that need a tool skip, saying why,
when none is found; the lit test (test/python/pytest.test) always passes
WEFT_BIN, so in CI they run."""

import os
import shutil
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))


def _bin_dir():
    env = os.environ.get("WEFT_BIN")
    if env:
        return env
    build = os.path.join(ROOT, "build", "bin")
    if os.path.exists(os.path.join(build, "weftc")):
        return build
    found = shutil.which("weftc")
    return os.path.dirname(found) if found else None


@pytest.fixture(scope="session")
def weft_bin():
    d = _bin_dir()
    if d is None or not os.access(os.path.join(d, "weftc"), os.X_OK):
        pytest.skip("weft tools not found (set WEFT_BIN to the build's bin/)")
    return d


@pytest.fixture(scope="session")
def root():
    return ROOT


# Tests marked slow (each compiles a gradient program, whose global layout
# search takes seconds of CPU: about 50 s of wall time on the loaded
# 2-core development machine) are deselected unless WEFT_SLOW_TESTS=1,
# keeping the default run (and the lit test around it) short. Deselected,
# not skipped: the lit test checks that nothing is skipped.
def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs only with "
                            "WEFT_SLOW_TESTS=1")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("WEFT_SLOW_TESTS") == "1":
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("slow") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
