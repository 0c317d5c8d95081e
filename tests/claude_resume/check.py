"""Check that the real Claude Code client resumes toolmend's repair of each session file whole.

Usage: check.py CLAUDE_BINARY TOOLMEND_BINARY SESSION.jsonl... [-- REPAIR_FLAGS...]

For each file: resume the original and toolmend's repair (with REPAIR_FLAGS) with the real
client (resume.py), then check the request sent for the repaired file:
- valid pairing: every `tool_use` is answered in the next message, every `tool_result`
  answers a `tool_use` of the message before, every server tool result has its
  `server_tool_use` in the same message;
- none of the client's own patches: no "[Tool call interrupted" result, no "(no content)"
  message, no "[Orphaned tool result removed" text;
- every message kept: each tool id and text block the client sent for the original (its
  patches aside) is sent for the repair too, and so is each call toolmend reported as
  dangling on the main chain (sidechain calls are never resumed); only results toolmend reported as orphans may go, when REPAIR_FLAGS ask for
  `--orphans note` (their content stays, as text) or `--orphans drop`.
Prints one line per file; exit status 1 when a check fails.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
PATCHES = ("[Tool call interrupted", "(no content)", "[Orphaned tool result removed")


def resume(claude, path):
    run = subprocess.run(
        [sys.executable, str(HERE / "resume.py"), claude, str(path)], capture_output=True
    )
    if run.returncode != 0:
        raise RuntimeError(f"{path}: client sent nothing: {run.stderr.decode()[-400:]}")
    return json.loads(run.stdout)


def blocks(messages):
    for m in messages:
        if m["role"] == "system":
            continue
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for b in content:
            yield m["role"], b


def text_of(b):
    c = b.get("content", b.get("text", ""))
    return json.dumps(c) if not isinstance(c, str) else c


def problems(messages):
    out = []
    for k, m in enumerate(messages):
        content = m["content"] if isinstance(m["content"], list) else []
        calls = [b["id"] for b in content if b.get("type") == "tool_use"]
        server = {b["id"] for b in content if b.get("type") == "server_tool_use"}
        for b in content:
            if b.get("type", "").endswith("_tool_result") and b.get("type") != "tool_result":
                if b.get("tool_use_id") not in server:
                    out.append(f"message {k}: {b['type']} {b.get('tool_use_id')} without its server_tool_use")
        if calls:
            nxt = messages[k + 1]["content"] if k + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in nxt if isinstance(b, dict) and b.get("type") == "tool_result"}
            out += [f"message {k}: tool_use {c} unanswered" for c in calls if c not in answered]
        if m["role"] == "user":
            prev = messages[k - 1]["content"] if k > 0 and isinstance(messages[k - 1]["content"], list) else []
            asked = {b.get("id") for b in prev if b.get("type") == "tool_use"}
            out += [
                f"message {k}: tool_result {b.get('tool_use_id')} answers no call"
                for b in content
                if b.get("type") == "tool_result" and b.get("tool_use_id") not in asked
            ]
    for role, b in blocks(messages):
        t = text_of(b)
        if any(t.startswith(p) for p in PATCHES):
            out.append(f"client patch: {t[:60]!r}")
    return out


def kept(messages):
    out = set()
    for role, b in blocks(messages):
        if b.get("type") in ("tool_use", "server_tool_use"):
            out.add(("call", b["id"]))
        elif b.get("type", "").endswith("tool_result"):
            out.add(("result", b.get("tool_use_id")))
        elif b.get("type") == "text" and not any(b["text"].startswith(p) for p in PATCHES):
            if not b["text"].startswith("<system-reminder>"):
                out.add(("text", b["text"].strip()))
    return out


def server_ids(path, findings):
    """Ids of server tool results toolmend reported (TM014 findings carry no call id)."""
    import re

    return {m for x in findings if x["code"] == "TM014" for m in re.findall(r"for `([^`]+)`", x["message"])}


def main():
    args = sys.argv[1:]
    flags = args[args.index("--") + 1 :] if "--" in args else []
    args = args[: args.index("--")] if "--" in args else args
    claude, toolmend, files = args[0], args[1], args[2:]
    failed = False
    for f in files:
        with tempfile.TemporaryDirectory() as tmp:
            repaired = pathlib.Path(tmp) / pathlib.Path(f).name
            subprocess.run([toolmend, "repair", f, "-o", str(repaired), *flags], capture_output=True)
            if not repaired.exists():
                repaired.write_bytes(pathlib.Path(f).read_bytes())
            lint = subprocess.run([toolmend, "lint", f, "--format", "json"], capture_output=True)
            findings = json.loads(lint.stdout or b"[]")
            # The calls the client dropped must come back; results dropped by policy may go.
            # Sidechain (subagent) calls are not part of the resumed history.
            lines = pathlib.Path(f).read_bytes().split(b"\n")
            main_chain = lambda n: b'"isSidechain":true' not in lines[n - 1].replace(b" ", b"")
            dangling = {
                ("call", x["call_id"])
                for x in findings
                if x["code"] == "TM001" and x.get("call_id") and main_chain(x["line"])
            }
            dropped = {("result", x["call_id"]) for x in findings if x["code"] in ("TM002", "TM013", "TM014")}
            dropped = {("result", m) for m in server_ids(f, findings)} | dropped
            if "drop" not in flags and "note" not in flags:
                dropped = set()
            if any(x["code"] == "TM012" and "do not identify lines" in x["message"] for x in findings):
                print(f"note {f}: its uuids do not identify lines; toolmend reads it in file order")
                dangling = set()
            try:
                before = resume(claude, f)
            except RuntimeError as e:
                print(f"skip {f}: the client does not resume it ({str(e)[-120:].strip()})")
                continue
            after = resume(claude, repaired)
            issues = problems(after)
            lost = ((kept(before) | dangling) - kept(after)) - dropped
            issues += [f"lost {kind} {what[:50]!r}" for kind, what in sorted(lost)]
            n = len(after)
            print(f"{'ok  ' if not issues else 'FAIL'} {f}: {n} messages resumed" + "".join(f"\n     {i}" for i in issues))
            failed |= bool(issues)
    sys.exit(1 if failed else 0)


main()
