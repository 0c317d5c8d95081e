"""Write pydantic-ai message dumps with the real library, and record what it sends.

Usage: python pydantic_ai_dumps.py OUT_DIR

For each case, OUT_DIR/<case>.json is the history as `ModelMessagesTypeAdapter.dump_json`
writes it, and OUT_DIR/<case>.sent.json the messages pydantic-ai handed to the model when a
run continued that history (a `FunctionModel` records them). The script checks what pydantic-ai
did with the history and prints one line per case: `<case> <what pydantic-ai sent>`.
"""

import json
import sys
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def weather_model(messages, info: AgentInfo):
    if any(p.part_kind == "user-prompt" for p in messages[-1].parts):
        return ModelResponse(
            parts=[
                ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="call_a"),
                ToolCallPart("get_weather", {"city": "Lisbon"}, tool_call_id="call_b"),
            ]
        )
    return ModelResponse(parts=[TextPart("Paris 14C, Lisbon 20C")])


agent = Agent(FunctionModel(weather_model))


@agent.tool_plain
def get_weather(city: str) -> str:
    return f"{city}: fine"


run = agent.run_sync("What is the weather?")
history = run.all_messages()


def sent_for(case, messages):
    """Continue `messages` with a recording model; write the dump and what was sent."""
    (out / f"{case}.json").write_bytes(ModelMessagesTypeAdapter.dump_json(messages))
    seen = []

    def recorder(sent, info):
        seen.append(ModelMessagesTypeAdapter.dump_python(sent, mode="json"))
        return ModelResponse(parts=[TextPart("ok")])

    follow = Agent(FunctionModel(recorder))

    @follow.tool_plain
    def get_weather(city: str) -> str:
        return "unused"

    follow.run_sync("And now?", message_history=messages)
    (out / f"{case}.sent.json").write_text(json.dumps(seen[0]))
    return seen[0]


def returns(sent):
    return [
        (p["tool_call_id"], p.get("content"))
        for m in sent
        for p in m["parts"]
        if p["part_kind"] in ("tool-return", "retry-prompt") and p.get("tool_call_id")
    ]


def calls(sent):
    return [p["tool_call_id"] for m in sent for p in m["parts"] if p["part_kind"] == "tool-call"]


# A whole run: sent as it is.
sent = sent_for("complete", history)
assert sorted(i for i, _ in returns(sent)) == ["call_a", "call_b"], sent
print("complete every call answered once")

# Cut off after the calls, then a user prompt: pydantic-ai closes the calls itself.
cut = history[:2] + [ModelRequest(parts=[UserPromptPart("Never mind.")])]
sent = sent_for("cut-off", cut)
closed = dict(returns(sent))
assert set(closed) == set(calls(sent)) == {"call_a", "call_b"}, sent
assert all("interrupted" in (c or "") for c in closed.values()), sent
print("cut-off calls closed with synthesized returns")

# An orphan return (its call trimmed away): pydantic-ai drops it.
orphan = [history[0], ModelRequest(parts=[ToolReturnPart("get_weather", "stale", tool_call_id="call_z")])]
sent = sent_for("orphan", orphan)
assert returns(sent) == [], sent
print("orphan return dropped")

# Two returns for one call: pydantic-ai sends both, as its docs say.
dup = history[:3] + [ModelRequest(parts=[ToolReturnPart("get_weather", "again", tool_call_id="call_a")])]
sent = sent_for("duplicate", dup)
ids = [i for i, _ in returns(sent)]
assert ids.count("call_a") == 2, sent
print("duplicate both returns sent")
