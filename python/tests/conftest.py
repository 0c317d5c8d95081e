"""Shared helpers of the Python package tests. They run against the installed package (the
wheel in .ci/python.sh's fresh virtual environment), never against the source folder."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from typing import List

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "python"


def toolmend_command() -> str:
    """The ``toolmend`` console script of the environment running the tests."""
    found = shutil.which("toolmend", path=os.path.dirname(sys.executable))
    assert found, f"no toolmend console script next to {sys.executable}"
    return found


def rust_binary() -> str:
    """The Rust ``toolmend`` binary (TOOLMEND_BIN, or the debug build of this checkout)."""
    path = os.environ.get("TOOLMEND_BIN") or str(ROOT / "target" / "debug" / "toolmend")
    if not os.path.exists(path):
        pytest.skip(f"no Rust toolmend binary at {path} (cargo build, or set TOOLMEND_BIN)")
    return path


def run(args: List[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command, capturing its output (as text unless ``text=False``)."""
    kwargs.setdefault("text", True)
    return subprocess.run(args, capture_output=True, timeout=120, **kwargs)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With TOOLMEND_NO_SKIP set (as CI does), a skipped test is a failure: CI must run all."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("TOOLMEND_NO_SKIP"):
        report.outcome = "failed"
        report.longrepr = f"skipped under TOOLMEND_NO_SKIP: {report.longrepr}"


def pytest_collection_modifyitems(config, items):
    if not items:
        raise pytest.UsageError("no tests collected: the Python package tests are missing")
