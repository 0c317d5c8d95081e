"""The installed package: the console script, `python -m toolmend`, the same code path as the
Rust binary, lazy LangChain import, and the engine running without the GIL."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import toolmend
from toolmend import _toolmend
from conftest import FIXTURES, run, rust_binary, toolmend_command


def test_console_script_and_module_run_the_cli():
    path = str(FIXTURES / "rows.jsonl")
    script = run([toolmend_command(), "lint", path])
    module = run([sys.executable, "-m", "toolmend", "lint", path])
    assert script.returncode == module.returncode == 1
    assert script.stdout == module.stdout
    assert "TM001 [dangling-tool-call]" in script.stdout
    version = run([toolmend_command(), "--version"])
    assert (version.returncode, version.stdout) == (0, f"toolmend {toolmend.__version__}\n")


def test_the_python_command_and_the_rust_binary_agree(scenario_file):
    binary = rust_binary()
    path = str(FIXTURES / "rows.jsonl")
    for args in (
        ["lint", "--format", "json", path],
        ["lint", "--format", "github", path],
        ["repair", "--diff", path],
        ["detect", path],
        ["rules"],
        ["lint", "--no-such-flag"],
        ["simulate", "--spec", str(scenario_file)],
    ):
        py, rs = run([toolmend_command(), *args]), run([binary, *args])
        assert (py.returncode, py.stdout, py.stderr) == (rs.returncode, rs.stdout, rs.stderr), args


def test_standard_input_and_exit_statuses():
    broken = (FIXTURES / "rows.jsonl").read_text()
    done = run([toolmend_command(), "repair", "-"], input=broken)
    assert done.returncode == 0 and "call_b2" in done.stdout.splitlines()[1]
    clean = run([toolmend_command(), "lint", "-"], input=done.stdout)
    assert clean.returncode == 0
    usage = run([toolmend_command(), "frobnicate"])
    assert usage.returncode == 2 and "unrecognized subcommand" in usage.stderr


def test_main_returns_instead_of_exiting_the_interpreter():
    # --help and usage errors print and return a status; the interpreter keeps running.
    code = "from toolmend import _toolmend; print('status', _toolmend.main(['toolmend', '--help']))"
    done = run([sys.executable, "-c", code])
    assert done.returncode == 0 and done.stdout.rstrip().endswith("status 0")


def test_importing_toolmend_langchain_does_not_import_langchain():
    code = "import sys, toolmend, toolmend.langchain; print('langchain_core' in sys.modules)"
    done = run([sys.executable, "-c", code])
    assert done.stdout.strip() == "False", done.stderr


def test_typing_files_are_installed():
    import importlib.resources as resources

    files = resources.files("toolmend")
    assert files.joinpath("py.typed").is_file()
    assert "def repair(" in files.joinpath("_toolmend.pyi").read_text()


def big_document(calls: int) -> bytes:
    line = (
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function",'
        '"function":{"name":"f","arguments":"{}"}}]}\n'
        '{"role":"tool","tool_call_id":"c%d","content":"ok"}\n'
    )
    return "".join(line % (i, i) for i in range(calls)).encode()


def test_the_engine_runs_without_the_gil():
    # Calibrate a document that takes the engine a while, then check that this thread keeps
    # running (short gaps between its iterations) while another thread is in the engine.
    calls, took = 20_000, 0.0
    while True:
        data = big_document(calls)
        start = time.perf_counter()
        _toolmend.lint(data, path="big.jsonl")
        took = time.perf_counter() - start
        if took >= 0.4 or calls >= 2_000_000:
            break
        calls *= 2
    worker = threading.Thread(target=_toolmend.lint, args=(data,), kwargs={"path": "big.jsonl"})
    gaps, last = [], time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    # Holding the GIL, the engine would stop this loop for the whole call (`took`).
    assert max(gaps) < took / 2, (max(gaps), took, len(gaps))
    assert len(gaps) > 100
