"""toolmend.lint and toolmend.repair over Python values and documents, against the CLI."""

from __future__ import annotations

import copy
import json

import pytest

import toolmend
from conftest import FIXTURES, run, toolmend_command

PLACEHOLDER = "[Tool call was interrupted and did not return a result.]"


def chat(dangling: bool = True) -> list:
    """An OpenAI-chat history; call `c2` is dangling unless `dangling` is false."""
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "weather and time?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "clock", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "user", "content": "thanks"},
    ]
    if not dangling:
        messages.insert(4, {"role": "tool", "tool_call_id": "c2", "content": "noon"})
    return messages


def test_lint_list_reports_the_dangling_call_with_the_cli_keys():
    findings = toolmend.lint(chat())
    assert [(f["code"], f["call_id"], f["tool_name"], f["message_index"]) for f in findings] == [
        ("TM001", "c2", "clock", 2)
    ]
    cli = json.loads(run([toolmend_command(), "lint", "--format", "json", str(FIXTURES / "rows.jsonl")]).stdout)
    assert list(findings[0]) == list(cli[0])
    assert findings[0]["pointer"] == "/2/tool_calls/1"
    assert findings[0]["fix"]["applicability"] == "safe"


def test_lint_of_file_bytes_equals_lint_format_json():
    path = FIXTURES / "rows.jsonl"
    cli = run([toolmend_command(), "lint", "--format", "json", str(path)])
    assert cli.returncode == 1
    assert toolmend.lint(path.read_bytes(), path=str(path)) == json.loads(cli.stdout)
    assert toolmend.lint(path.read_text(), path=str(path)) == json.loads(cli.stdout)


def test_lint_clean_history_and_envelopes():
    assert toolmend.lint(chat(dangling=False)) == []
    wrapped = toolmend.lint({"model": "gpt-x", "messages": chat()})
    assert [(f["code"], f["pointer"]) for f in wrapped] == [("TM001", "/messages/2/tool_calls/1")]


def test_lint_reads_unreadable_json_as_a_finding_like_the_cli():
    findings = toolmend.lint(b'[{"role": "user", "content": "hi"}')
    assert [f["code"] for f in findings] == ["TM007"]


def test_repair_list_returns_a_new_list_with_the_placeholder_right_after_the_results():
    messages = chat()
    before = copy.deepcopy(messages)
    repaired, fixed = toolmend.repair(messages)
    assert messages == before, "the input list must not be modified"
    assert repaired is not messages and isinstance(repaired, list)
    assert repaired[4] == {"role": "tool", "tool_call_id": "c2", "content": PLACEHOLDER}
    # Untouched messages are the very objects given.
    assert [repaired[i] is messages[j] for i, j in [(0, 0), (1, 1), (2, 2), (3, 3), (5, 4)]] == [True] * 5
    assert [(f["code"], f["call_id"]) for f in fixed] == [("TM001", "c2")]
    assert toolmend.lint(repaired) == []


def test_repair_keeps_the_type_given():
    messages = chat()
    as_tuple, _ = toolmend.repair(tuple(messages))
    assert isinstance(as_tuple, tuple) and len(as_tuple) == 6
    envelope = {"model": "gpt-x", "metadata": {"run": 7}, "messages": messages}
    new, _ = toolmend.repair(envelope)
    assert isinstance(new, dict) and new is not envelope
    assert new["metadata"] is envelope["metadata"]
    assert new["messages"][1] is messages[1] and len(new["messages"]) == 6
    text = json.dumps(messages, indent=2)
    as_str, _ = toolmend.repair(text)
    assert isinstance(as_str, str) and json.loads(as_str) == json.loads(json.dumps(new["messages"]))
    as_bytes, _ = toolmend.repair(text.encode())
    assert as_bytes == as_str.encode()
    as_bytearray, _ = toolmend.repair(bytearray(text.encode()))
    assert isinstance(as_bytearray, bytearray)


def test_repair_of_a_document_keeps_every_other_byte_and_matches_the_cli():
    path = FIXTURES / "rows.jsonl"
    data = path.read_bytes()
    repaired, fixed = toolmend.repair(data, path=str(path))
    cli = run([toolmend_command(), "repair", str(path)], text=False)
    assert repaired == cli.stdout
    assert [f["call_id"] for f in fixed] == ["call_b2"]
    assert fixed == [f for f in toolmend.lint(data, path=str(path)) if f["call_id"] == "call_b2"]
    lines = data.splitlines(keepends=True)
    new_lines = repaired.splitlines(keepends=True)
    assert new_lines[0] == lines[0] and new_lines[2] == lines[2]


def test_repair_of_a_clean_input_changes_nothing():
    messages = chat(dangling=False)
    repaired, fixed = toolmend.repair(messages)
    assert fixed == [] and repaired == messages and repaired is not messages
    assert all(a is b for a, b in zip(repaired, messages))
    text = json.dumps(messages)
    assert toolmend.repair(text) == (text, [])


def test_repair_options():
    repaired, _ = toolmend.repair(chat(), placeholder="cancelled {name} ({id})")
    assert repaired[4]["content"] == "cancelled clock (c2)"
    orphan = chat(dangling=False) + [{"role": "tool", "tool_call_id": "zz", "content": "late"}]
    kept, fixed = toolmend.repair(orphan)
    assert kept == orphan and fixed == []
    dropped, fixed = toolmend.repair(orphan, orphans="drop")
    assert dropped == chat(dangling=False)
    assert [f["code"] for f in fixed] == ["TM002"]


def test_repair_is_idempotent():
    once, _ = toolmend.repair(chat())
    twice, fixed = toolmend.repair(once)
    assert twice == once and fixed == []


def test_dialect_forced_and_unknown():
    findings = toolmend.lint(chat(), dialect="openai-chat")
    assert [f["code"] for f in findings] == ["TM001"]
    with pytest.raises(toolmend.ToolmendError) as e:
        toolmend.lint(chat(), dialect="klingon")
    assert "unknown dialect `klingon` (expected one of: " in str(e.value)
    assert "openai-chat" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_bad_policy_values_raise_the_cli_wording():
    with pytest.raises(toolmend.ToolmendError, match=r"invalid value 'burn' for 'orphans' \[possible values: keep, drop, note\]"):
        toolmend.repair(chat(), orphans="burn")
    with pytest.raises(toolmend.ToolmendError, match="possible values: keep-first, keep-last"):
        toolmend.repair(chat(), duplicates="newest")


def reused_id() -> list:
    """OpenAI chat reusing call id `c1` in a later turn: legal for OpenAI, not for Anthropic."""
    turn = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "noon"},
    ]
    return [{"role": "user", "content": "time?"}, *turn, {"role": "user", "content": "again?"}, *copy.deepcopy(turn)]


def test_target_judges_by_that_providers_rules_like_the_cli(tmp_path):
    messages = reused_id()
    assert toolmend.lint(messages) == [] and toolmend.lint(messages, target="openai") == []
    anthropic = toolmend.lint(messages, target="anthropic")
    assert [(f["code"], f["call_id"]) for f in anthropic] == [("TM005", "c1")]
    path = tmp_path / "reused.json"
    path.write_text(json.dumps(messages))
    cli = run([toolmend_command(), "lint", "--format", "json", "--target", "anthropic", str(path)])
    assert toolmend.lint(path.read_bytes(), target="anthropic", path=str(path)) == json.loads(cli.stdout)
    assert toolmend.repair(messages, target="bedrock")[1] == []  # no safe fix for a reused id
    assert toolmend.TARGETS == ["openai", "deepseek", "anthropic", "gemini", "bedrock"]


def test_an_unknown_target_lists_the_accepted_values():
    with pytest.raises(toolmend.ToolmendError) as e:
        toolmend.lint(chat(), target="mistral")
    assert str(e.value) == (
        "invalid value 'mistral' for 'target' [possible values: openai, deepseek, anthropic, gemini, bedrock]"
    )
    with pytest.raises(ValueError):
        toolmend.repair(chat(), target="OpenAI")


def test_data_that_is_not_json_is_a_type_error():
    with pytest.raises(TypeError, match="JSON values"):
        toolmend.lint([{"role": "user", "content": object()}])
    with pytest.raises(TypeError, match="not int"):
        toolmend.lint(42)


def test_module_surface():
    assert toolmend.SEED_PLACEHOLDER == PLACEHOLDER
    assert "openai-chat" in toolmend.DIALECTS and "langchain" in toolmend.DIALECTS
    assert toolmend.__version__.count(".") == 2
    assert toolmend.lint.__doc__ and toolmend.repair.__doc__ and toolmend.simulate.__doc__
