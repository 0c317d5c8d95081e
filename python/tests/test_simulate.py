"""toolmend.simulate against `toolmend simulate --format json`."""

from __future__ import annotations

import json

import pytest

import toolmend
from conftest import SCENARIO, run, toolmend_command


def cli(*args: str) -> dict:
    done = run([toolmend_command(), "simulate", "--format", "json", *args])
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_scenario_path_equals_the_cli(scenario_file):
    assert toolmend.simulate(scenario_file) == cli("--spec", str(scenario_file))


def test_scenario_dict_and_text():
    scenario = SCENARIO
    report = toolmend.simulate(scenario, strategy="all")
    results = report["batches"][0]["results"]
    assert list(results) == ["unguarded", "guarded", "send-per-call", "unguarded-cached", "guarded-cached"]
    unguarded = {c["id"]: c for c in results["unguarded"]["calls"]}
    assert unguarded["t1"]["double_executed"] is True
    guarded = {c["id"]: c for c in results["guarded"]["calls"]}
    assert guarded["t1"]["double_executed"] is False
    assert toolmend.simulate(json.dumps(scenario), strategy=["all"]) == report


def test_calls_equal_the_cli():
    report = toolmend.simulate(calls=["send_email", "ask_user_question"], mode="legacy")
    assert report == cli("--calls", "send_email,ask_user_question", "--mode", "legacy")
    assert toolmend.simulate(calls=["a", "b"], interrupting="b", direct=["a"]) == cli(
        "--calls", "a,b", "--interrupting", "b", "--direct", "a"
    )


def test_histories():
    messages = [
        {"role": "user", "content": "mail and ask"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "m1", "type": "function", "function": {"name": "send_email", "arguments": "{}"}},
                {"id": "m2", "type": "function", "function": {"name": "ask_user_question", "arguments": "{}"}},
            ],
        },
    ]
    report = toolmend.simulate(histories=messages)
    assert [c["id"] for c in report["batches"][0]["calls"]] == ["m1", "m2"]
    assert toolmend.simulate(histories=[{"role": "user", "content": "hi"}]) == {"batches": []}


def test_errors_have_the_cli_messages():
    with pytest.raises(toolmend.ToolmendError, match="nothing to simulate"):
        toolmend.simulate()
    with pytest.raises(toolmend.ToolmendError, match="give only one of"):
        toolmend.simulate({"calls": []}, calls=["a"])
    with pytest.raises(toolmend.ToolmendError, match=r"invalid scenario: `calls` is empty"):
        toolmend.simulate({"calls": []})
    done = run([toolmend_command(), "simulate", "--strategy", "fastest", "--calls", "a,b"])
    with pytest.raises(toolmend.ToolmendError) as e:
        toolmend.simulate(calls=["a", "b"], strategy="fastest")
    assert str(e.value) in done.stderr
    with pytest.raises(toolmend.ToolmendError, match="unknown mode `async`"):
        toolmend.simulate(calls=["a", "b"], mode="async")
    with pytest.raises(toolmend.ToolmendError, match="put mode in the scenario"):
        toolmend.simulate({"calls": [{"id": "a", "name": "x"}]}, mode="legacy")
