"""The pre-commit hooks and the GitHub Action: their YAML, and the action's shell steps run
with bash against the installed command (as the runner would, minus the network)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
import yaml

from conftest import FIXTURES, ROOT, toolmend_command


def load(name: str):
    with open(ROOT / name, encoding="utf-8") as f:
        return yaml.safe_load(f)


def test_pre_commit_hooks():
    hooks = {h["id"]: h for h in load(".pre-commit-hooks.yaml")}
    assert set(hooks) == {"toolmend", "toolmend-repair"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        files = re.compile(hook["files"])
        assert all(files.search(n) for n in ("a.json", "logs/b.jsonl", "c.ndjson"))
        assert not any(files.search(n) for n in ("a.json5", "b.txt", "jsonl.md"))
    assert hooks["toolmend"]["entry"] == "toolmend lint"
    assert hooks["toolmend-repair"]["entry"] == "toolmend repair --in-place"


def action_step(step_id: str) -> dict:
    return next(s for s in load("action.yml")["runs"]["steps"] if s.get("id") == step_id)


def test_action_shape():
    action = load("action.yml")
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert {"paths", "args", "format", "sarif"} <= set(inputs)
    assert inputs["format"]["default"] == "github"
    assert inputs["sarif"]["default"] == "false"
    steps = action["runs"]["steps"]
    assert all("shell" in s for s in steps if "run" in s)
    upload = steps[-1]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "inputs.sarif == 'true'" in upload["if"]


def run_step(step_id: str, tmp_path, **env: str) -> subprocess.CompletedProcess:
    script = tmp_path / f"{step_id}.sh"
    script.write_text(action_step(step_id)["run"])
    output = tmp_path / "github_output"
    output.touch()
    full = {
        **os.environ,
        "TOOLMEND_BIN": os.path.dirname(toolmend_command()),
        "GITHUB_OUTPUT": str(output),
        **env,
    }
    # GitHub runs `shell: bash` steps as `bash --noprofile --norc -eo pipefail {0}`.
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=full, capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )


def test_action_lint_step_annotates_and_fails_on_findings(tmp_path, scenario_file):
    broken = str(FIXTURES / "rows.jsonl")
    done = run_step("lint", tmp_path, TOOLMEND_PATHS=f"{broken} {scenario_file}",
                    TOOLMEND_ARGS="--select TM001", TOOLMEND_FORMAT="github")
    assert done.returncode == 1
    assert done.stdout.startswith(f"::error file={broken},line=2,col=200,title=TM001 dangling-tool-call::")
    healthy = tmp_path / "healthy.json"
    healthy.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    clean = run_step("lint", tmp_path, TOOLMEND_PATHS=str(healthy), TOOLMEND_ARGS="", TOOLMEND_FORMAT="github")
    assert (clean.returncode, clean.stdout) == (0, ""), clean.stderr


@pytest.mark.parametrize("extra", ["", "--ignore TM001"])
def test_action_sarif_step_writes_sarif_and_its_path(tmp_path, extra):
    sarif = tmp_path / "out.sarif"
    done = run_step("sarif", tmp_path, TOOLMEND_PATHS=str(FIXTURES / "rows.jsonl"),
                    TOOLMEND_ARGS=extra, TOOLMEND_SARIF=str(sarif))
    assert done.returncode == 0, done.stderr
    log = json.loads(sarif.read_text())
    assert log["version"] == "2.1.0"
    rules = [r["ruleId"] for r in log["runs"][0]["results"]]
    assert rules == ([] if extra else ["TM001"])
    assert (tmp_path / "github_output").read_text() == f"file={sarif}\n"
