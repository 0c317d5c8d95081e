"""Read a toolmend-repaired LangGraph database back with LangGraph itself.

Usage:
  python check_repaired.py before DB STATE.json   # record each thread's checkpoints
  python check_repaired.py after DB STATE.json    # check the repair (exit 1 on a failure)

After the repair: each broken thread's state has a placeholder ToolMessage right after its AI
message for every call, LangGraph's own chat-history check passes, the graph runs on with a
new message, the repair is a new checkpoint with `source: "update"` and every older
checkpoint is still there; the healthy and paused threads are untouched and the paused one
resumes with its human answer.
"""

import json
import sqlite3
import sys

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.prebuilt.chat_agent_executor import _validate_chat_history
from langgraph.types import Command

from graph import build

BROKEN = ["broken-crash", "broken-stopped"]
UNTOUCHED = ["healthy", "paused"]
THREADS = BROKEN + UNTOUCHED


def cfg(thread):
    return {"configurable": {"thread_id": thread}}


def history_ids(graph, thread):
    return [s.config["configurable"]["checkpoint_id"] for s in graph.get_state_history(cfg(thread))]


def before(graph, state_path):
    state = {t: history_ids(graph, t) for t in THREADS}
    for t in BROKEN:
        try:
            _validate_chat_history(graph.get_state(cfg(t)).values["messages"])
        except ValueError:
            continue
        raise SystemExit(f"{t}: expected LangGraph to reject the broken history")
    with open(state_path, "w") as f:
        json.dump(state, f)


def check(ok, what, failures):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def after(graph, state_path):
    with open(state_path) as f:
        old = json.load(f)
    failures = []
    for t in BROKEN:
        ids = history_ids(graph, t)
        check(ids[1:] == old[t], f"{t}: one new checkpoint, every older one kept", failures)
        snap = graph.get_state(cfg(t))
        check(snap.metadata.get("source") == "update", f"{t}: metadata source is update", failures)
        check(
            snap.parent_config["configurable"]["checkpoint_id"] == old[t][0],
            f"{t}: the new checkpoint is a child of the latest",
            failures,
        )
        check(snap.next == (), f"{t}: nothing left to run (no tool re-runs)", failures)
        msgs = snap.values["messages"]
        for i, m in enumerate(msgs):
            if isinstance(m, AIMessage) and m.tool_calls:
                following = msgs[i + 1 : i + 1 + len(m.tool_calls)]
                answered = [x.tool_call_id for x in following if isinstance(x, ToolMessage)]
                check(
                    answered == [c["id"] for c in m.tool_calls],
                    f"{t}: placeholders right after message {i}, in call order",
                    failures,
                )
                check(
                    all(x.status == "error" and x.id for x in following),
                    f"{t}: placeholders are error ToolMessages with ids",
                    failures,
                )
        try:
            _validate_chat_history(msgs)
            check(True, f"{t}: LangGraph's chat-history check passes", failures)
        except ValueError as e:
            check(False, f"{t}: LangGraph's chat-history check passes ({e})", failures)
        out = graph.invoke({"messages": [("user", "and now?")]}, cfg(t))
        check(
            out["messages"][-1].content == "you said: and now?",
            f"{t}: the graph runs on",
            failures,
        )
    for t in UNTOUCHED:
        check(history_ids(graph, t) == old[t], f"{t}: untouched", failures)
    paused = graph.get_state(cfg("paused"))
    check(bool(paused.interrupts), "paused: still waiting on its interrupt", failures)
    out = graph.invoke(Command(resume="yes, go on"), cfg("paused"))
    answers = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    check(
        [m.content for m in answers] == ["yes, go on"],
        "paused: resumes with its human answer",
        failures,
    )
    if failures:
        raise SystemExit(f"{len(failures)} check(s) failed")


def main(mode, db, state_path):
    conn = sqlite3.connect(db, check_same_thread=False)
    graph = build(SqliteSaver(conn))
    {"before": before, "after": after}[mode](graph, state_path)
    conn.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
