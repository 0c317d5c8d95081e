"""toolmend.langchain.repair_messages on real langchain-core messages."""

from __future__ import annotations

import pytest

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

import toolmend
from toolmend.langchain import repair_messages


def history():
    return [
        SystemMessage("You are a travel agent."),
        HumanMessage("Book a flight and a hotel"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "book_flight", "args": {"to": "LIS"}, "id": "call_f"},
                {"name": "book_hotel", "args": {"nights": 2}, "id": "call_h"},
            ],
        ),
        ToolMessage("flight booked", tool_call_id="call_f", name="book_flight"),
        HumanMessage("actually, stop"),
        AIMessage("", tool_calls=[{"name": "cancel", "args": {}, "id": "call_c"}]),
    ]


def test_placeholders_are_error_tool_messages_right_after_the_calls():
    messages = history()
    repaired = repair_messages(messages)
    assert len(repaired) == 8
    hotel, cancel = repaired[4], repaired[7]
    for msg, call_id, name in ((hotel, "call_h", "book_hotel"), (cancel, "call_c", "cancel")):
        assert isinstance(msg, ToolMessage)
        assert (msg.tool_call_id, msg.name, msg.status) == (call_id, name, "error")
        assert msg.content == toolmend.SEED_PLACEHOLDER
    # Every other message is the object given, in order; the input list is unchanged.
    kept = [m for m in repaired if m is not hotel and m is not cancel]
    assert len(kept) == len(messages) and all(a is b for a, b in zip(kept, messages))
    assert len(messages) == 6


def test_a_healthy_history_comes_back_as_the_same_messages():
    messages = history()[:4] + [ToolMessage("hotel booked", tool_call_id="call_h")]
    repaired = repair_messages(messages)
    assert repaired is not messages and all(a is b for a, b in zip(repaired, messages))
    assert len(repaired) == len(messages)


def test_the_repaired_history_lints_clean_and_options_pass_through():
    repaired = repair_messages(history(), placeholder="{name} was cancelled")
    assert repaired[4].content == "book_hotel was cancelled"
    from langchain_core.messages import messages_to_dict

    assert toolmend.lint(messages_to_dict(repaired), dialect="langchain") == []


def test_not_langchain_messages():
    with pytest.raises(TypeError, match=r"messages\[0\] is a dict, not a LangChain BaseMessage"):
        repair_messages([{"role": "user", "content": "hi"}])
