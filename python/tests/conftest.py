"""Shared helpers of the Python package tests. They run against the installed package (the
wheel in .ci/python.sh's fresh virtual environment), never against the source folder.

`fixtures/python/rows.jsonl` was written for these tests in the shape of OpenAI-chat
fine-tuning rows (one conversation per line); the second row leaves call `call_b2` (tool
`lookup`) dangling before a user turn. Its `.lint` and `.repaired.jsonl` are pinned by the
Rust fixture tests like every other fixture set.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import List

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "python"


# A batch of three calls with `ask_user_question` in the middle, in legacy mode.
SCENARIO = {
    "mode": "legacy",
    "calls": [
        {"id": "t1", "name": "send_email"},
        {"id": "t2", "name": "ask_user_question"},
        {"id": "t3", "name": "search"},
    ],
}


@pytest.fixture
def scenario_file(tmp_path) -> pathlib.Path:
    """SCENARIO written to a file, as `simulate --spec FILE` reads it."""
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(SCENARIO, indent=2))
    return path


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
