"""Writes the Gemini CLI session fixtures in fixtures/ (run once; the files are kept in git).

Each fixture is a session as Gemini CLI records it under ~/.gemini/tmp/<project>/chats/: the
JSON Lines form (`session-*.jsonl`: header, message records, `$set`, `$rewindTo`) or the older
whole-JSON form (`session-*.json`). Shapes follow Gemini CLI's ChatRecordingService; the
contents are made up.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
SESSION = "5e551011-0000-4000-8000-{:012d}"
clock = [0]


def ts():
    clock[0] += 1
    return f"2026-05-12T10:{clock[0] // 60:02d}:{clock[0] % 60:02d}.000Z"


def header(n):
    return {"sessionId": SESSION.format(n), "projectHash": "0" * 64, "startTime": ts(),
            "lastUpdated": ts(), "kind": "main"}


def user(mid, text):
    return {"id": mid, "timestamp": ts(), "type": "user", "content": [{"text": text}]}


def gemini(mid, text="", calls=None):
    rec = {"id": mid, "timestamp": ts(), "type": "gemini", "content": text}
    if calls is not None:
        rec["toolCalls"] = calls
    rec.update({"thoughts": [], "model": "gemini-2.5-pro"})
    return rec


def call(cid, name="run_shell_command", status="success", result="ok", **extra):
    """A toolCalls record; result "ok"/"error"/"cancelled" builds the part Gemini CLI stores,
    anything else (None, "", [], a missing key via result=...) is stored as given."""
    rec = {"id": cid, "name": name, "args": {"command": "ls"}}
    if result in ("ok", "error", "cancelled"):
        body = {"ok": {"output": "a.txt"}, "error": {"error": "exit code 1"},
                "cancelled": {"error": "[Operation Cancelled] Reason: User cancelled the operation."}}[result]
        rec["result"] = [{"functionResponse": {"id": cid, "name": name, "response": body}}]
    elif result != "absent":
        rec["result"] = result
    rec.update({"status": status, "timestamp": ts(), "displayName": "Shell", **extra})
    return rec


def jsonl(n, *records):
    return "".join(json.dumps(r) + "\n" for r in [header(n), *records])


def fixtures():
    f = {}
    f["clean"] = jsonl(1, user("u1", "list files"), gemini("g1", "", [call("c1")]),
                       gemini("g2", "One file."))
    f["executing-no-result"] = jsonl(2, user("u1", "list files"),
                                     gemini("g1", "", [call("c1", status="executing", result="absent")]))
    f["scheduled-null-mid"] = jsonl(3, user("u1", "list files"),
                                    gemini("g1", "", [call("c1", status="scheduled", result=None)]),
                                    user("u2", "never mind"), gemini("g2", "OK."))
    f["cancelled"] = jsonl(4, user("u1", "list files"),
                           gemini("g1", "", [call("c1", status="cancelled", result="cancelled")]),
                           gemini("g2", "Cancelled."))
    f["cancelled-no-result"] = jsonl(5, user("u1", "list files"),
                                     gemini("g1", "", [call("c1", status="cancelled", result=[])]),
                                     user("u2", "go on"))
    f["errored"] = jsonl(6, user("u1", "list files"),
                         gemini("g1", "", [call("c1", status="error", result="error")]),
                         gemini("g2", "It failed."))
    f["batch-one-unanswered"] = jsonl(7, user("u1", "look around"),
                                      gemini("g1", "Checking.", [call("c1"), call("c2", name="read_file"),
                                                                 call("c3", status="executing", result="absent")]),
                                      user("u2", "status?"))
    f["string-results"] = jsonl(8, user("u1", "list files"),
                                gemini("g1", "", [call("c1", result="done"), call("c2", result="")]))
    # Written twice: first while executing, then with its result (newest line wins, in place).
    first = call("c1", status="executing", result="absent")
    f["rewritten-answered"] = jsonl(9, user("u1", "list files"), gemini("g1", "", [first]),
                                    gemini("g1", "", [call("c1")]), gemini("g2", "Done."))
    f["rewritten-unanswered"] = jsonl(10, user("u1", "list files"), gemini("g1", "", [call("c1")]),
                                      gemini("g1", "", [call("c1", status="executing", result="absent")]))
    # $rewindTo drops u2 and everything after it, here the unanswered call.
    f["rewind-drops-dangling"] = jsonl(11, user("u1", "list files"), gemini("g1", "", [call("c1")]),
                                       user("u2", "again"),
                                       gemini("g2", "", [call("c2", status="executing", result="absent")]),
                                       {"$rewindTo": "u2"})
    # A `$set` checkpoint replaces every record before it: the old dangling record is gone,
    # the checkpoint holds a dangling one of its own.
    ck = [user("u1", "list files"), gemini("g1", "", [call("c2", status="executing", result="absent")])]
    f["checkpoint-dangling"] = jsonl(12, user("u0", "old"),
                                     gemini("g0", "", [call("c0", status="executing", result="absent")]),
                                     {"$set": {"messages": ck, "lastUpdated": ts()}})
    ck = [user("u1", "list files"), gemini("g1", "", [call("c2")]), gemini("g2", "Done.")]
    f["checkpoint-clean"] = jsonl(13, user("u0", "old"),
                                  gemini("g0", "", [call("c0", status="executing", result="absent")]),
                                  {"$set": {"messages": ck}})
    # Two model records in a row, the first one unanswered: Gemini CLI merges them.
    f["consecutive-gemini"] = jsonl(14, user("u1", "list files"),
                                    gemini("g1", "", [call("c1", status="executing", result="absent")]),
                                    gemini("g2", "", [call("c2")]), gemini("g3", "Done."))
    # The older whole-JSON form, one unanswered call.
    h = header(15)
    h["messages"] = [user("u1", "list files"), gemini("g1", "", [call("c1", status="executing", result=None)])]
    f["legacy-json-dangling"] = json.dumps(h, indent=2) + "\n"
    # The shape Gemini CLI itself writes in the `$set` checkpoint on resume: the model's parts,
    # functionCall included, in `content`. Here without a toolCalls record: nothing answers it.
    g = gemini("g1", [{"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}}])
    f["checkpoint-call-in-content"] = jsonl(16, {"$set": {"messages": [user("u1", "list files"), g]}})
    # As Gemini CLI records a tool round since 0.44.0: the model's text in `content`, the call
    # and its result in `toolCalls`, and the response turn it sent as a user record of its own
    # (recordSyntheticMessage), which resume sends again (google-gemini/gemini-cli#29365).
    fc = {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}}
    fr = {"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "a.txt"}}}
    f["recorded-response-twice"] = jsonl(
        17, user("u1", "list files"), gemini("g1", "", [call("c1")]),
        {"id": "r1", "timestamp": ts(), "type": "user", "content": [fr]}, gemini("g2", "One file."))
    # The checkpoint form of a round (the call in `content`) before the call's record got its
    # result: the user record answers it.
    f["recorded-response-only"] = jsonl(
        18, user("u1", "list files"), gemini("g1", [fc], [call("c1", status="executing", result="absent")]),
        {"id": "r1", "timestamp": ts(), "type": "user", "content": [fr]}, gemini("g2", "One file."))
    # Between them, records the client never sends: a model record without any part, a
    # command, an info record. They end no turn.
    f["unsent-records-between"] = jsonl(
        19, user("u1", "list files"), gemini("g1", [fc], [call("c1", status="executing", result="absent")]),
        {"id": "g1b", "timestamp": ts(), "type": "gemini", "content": "", "thoughts": []},
        user("u2", "/stats"), {"id": "i1", "timestamp": ts(), "type": "info", "content": "Tool done"},
        {"id": "r1", "timestamp": ts(), "type": "user", "content": [fr]}, gemini("g2", "One file."))
    # A call in `content` written without an id: the client gives it one
    # (ensureStableToolIds), and its response comes from the record in its place.
    bare = {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}}
    f["content-call-without-id"] = jsonl(
        20, user("u1", "list files"), gemini("g1", [bare], [call("c1")]), gemini("g2", "One file."))
    f["content-call-without-id-unanswered"] = jsonl(
        21, user("u1", "list files"), gemini("g1", [bare], [call("c1", status="executing", result="absent")]))
    # The call in `content`, and beside its record one that no call of `content` takes: the
    # client sends that record's result too, one response more than the turn has calls.
    f["record-without-content-call"] = jsonl(
        22, user("u1", "list files"), gemini("g1", [fc], [call("c1"), call("c9", name="read_file")]),
        gemini("g2", "One file."))
    # A record whose result list holds a second functionResponse part (a copy of the first):
    # the client sends every part of the list, one response more than the turn has calls.
    resp = {"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "a.txt"}}}
    f["record-two-responses"] = jsonl(
        23, user("u1", "list files"), gemini("g1", "", [call("c1", result=[resp, resp])]),
        gemini("g2", "One file."))
    # Beside its one response, an image part and a text part: no response more.
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    f["record-response-and-image"] = jsonl(
        24, user("u1", "show the chart"),
        gemini("g1", "", [call("c1", name="read_file", result=[
            {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": ""}}},
            image, {"text": "chart.png"}])]),
        gemini("g2", "Here it is."))
    return f


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    made = fixtures()
    for name, text in made.items():
        ext = ".json" if name.startswith("legacy-json") else ".jsonl"
        with open(os.path.join(OUT, name + ext), "w") as fh:
            fh.write(text)
    print(f"wrote {len(made)} fixtures to {OUT}")
