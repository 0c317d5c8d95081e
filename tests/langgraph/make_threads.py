"""Build a LangGraph SQLite checkpoint database the way real runs leave one.

Usage: python make_threads.py DB            (an SQLite file: SqliteSaver)
       python make_threads.py postgres://…  (PostgresSaver)

A model stub (no network) answers with AIMessages carrying tool_calls; a ToolNode runs them;
one tool asks a human through interrupt(). Four threads:

- broken-crash: the model asks for two tools at once, one of them raises and kills the run
  (interrupted mid-batch); the user then sends a new message and the graph runs on.
- broken-stopped: the run is stopped right after the model's step (the stream is abandoned,
  like a Ctrl-C), then the user sends a new message.
- healthy: every call is answered.
- paused: the tool called interrupt() and waits for a human answer.
"""

import contextlib
import sqlite3
import sys

from graph import build


@contextlib.contextmanager
def saver_for(target: str):
    """SqliteSaver for a file, PostgresSaver (tables set up) for a postgres:// URL."""
    if target.startswith(("postgres://", "postgresql://")):
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(target) as saver:
            saver.setup()
            yield saver
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver

        conn = sqlite3.connect(target, check_same_thread=False)
        try:
            yield SqliteSaver(conn)
        finally:
            conn.close()


def main(target: str) -> None:
    with saver_for(target) as saver:
        make(build(saver))


def make(graph) -> None:
    """The four threads."""

    def cfg(thread):
        return {"configurable": {"thread_id": thread}}

    # Healthy: the model calls `lookup`, gets its answer, and replies.
    graph.invoke({"messages": [("user", "look up the weather")]}, cfg("healthy"))

    # Crash mid-batch: two calls, `explode` raises; nothing of the batch is saved.
    try:
        graph.invoke({"messages": [("user", "look up and explode")]}, cfg("broken-crash"))
    except RuntimeError:
        pass
    graph.invoke({"messages": [("user", "hello again")]}, cfg("broken-crash"))

    # Stopped right after the model's step: the stream is abandoned.
    for _ in graph.stream(
        {"messages": [("user", "look up twice")]}, cfg("broken-stopped"), stream_mode="updates"
    ):
        break
    graph.invoke({"messages": [("user", "are you there?")]}, cfg("broken-stopped"))

    # Paused on interrupt(): the `ask_human` tool waits for an answer.
    graph.invoke({"messages": [("user", "ask me first")]}, cfg("paused"))


if __name__ == "__main__":
    main(sys.argv[1])
