"""What the real Codex CLI sends when it resumes a rollout, before and after `toolmend repair`.

    python3 tests/codex_resume/check.py CODEX TOOLMEND [--update]

For each case below, a rollout is written in Codex's own format under a temporary CODEX_HOME,
and `codex exec resume ID continue` is run against a loopback stub of the Responses API that
records the request body and answers 400. The call and output items of the recorded `input`,
toolmend's verdict on the rollout, and what Codex sends after `toolmend repair` are compared
with `expected.txt` beside this file (`--update` rewrites it). Nothing leaves 127.0.0.1.
"""

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def rollout(session, case):
    """The lines of one case's rollout (Codex's JSON Lines: session_meta, then items)."""
    lines = []

    def add(kind, payload):
        lines.append({"timestamp": f"2026-05-12T10:00:{len(lines):02d}.000Z", "type": kind, "payload": payload})

    def msg(role, text):
        part = "output_text" if role == "assistant" else "input_text"
        add("response_item", {"type": "message", "role": role, "content": [{"type": part, "text": text}]})

    def call(cid, name="shell"):
        add("response_item", {"type": "function_call", "name": name, "arguments": "{}", "call_id": cid})

    def out(cid, text="ok"):
        add("response_item", {"type": "function_call_output", "call_id": cid, "output": text})

    add("session_meta", {"id": session, "timestamp": "2026-05-12T09:59:55.000Z", "cwd": "/tmp",
                         "originator": "codex_exec", "cli_version": "0.171.0", "source": "exec",
                         "model_provider": "stub", "base_instructions": {"text": "You are Codex."}})
    add("turn_context", {"turn_id": "t1", "cwd": "/tmp", "model": "gpt-5.4"})
    msg("user", "hello")
    if case == "healthy":
        call("c1"); out("c1"); msg("assistant", "done")
    elif case == "trailing-call":
        call("c1"); out("c1"); call("c2")
    elif case == "mid-history-call":
        call("c1"); msg("assistant", "moved on"); msg("user", "next")
    elif case == "developer-between":
        call("c1"); msg("developer", "note"); out("c1"); msg("assistant", "done")
    elif case == "orphan-output":
        out("c9"); msg("assistant", "done")
    elif case == "reused-id":
        call("c1"); out("c1"); msg("assistant", "x"); msg("user", "again"); call("c1"); out("c1", "second")
        msg("assistant", "done")
    elif case == "duplicate-output":
        call("c1"); out("c1"); out("c1", "again"); msg("assistant", "done")
    return "".join(json.dumps(line) + "\n" for line in lines)


def older_rollout(session):
    """A rollout of the older form (mid 2025: a bare header, `record_type` lines, unwrapped
    items) whose run ended on a call: what Codex does with it (toolmend offers no fix)."""
    lines = [
        {"id": session, "timestamp": "2025-07-14T09:12:03.512Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]},
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
        {"record_type": "state"},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


# The stub as the model provider, and every start-up fetch off (update check, plugin sync,
# remote model list, analytics): with these, Codex makes no connection but to the stub.
CONFIG = """model = "gpt-5.4"
model_provider = "stub"
check_for_update_on_startup = false
[model_providers.stub]
name = "stub"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "TOOLMEND_STUB_KEY"
wire_api = "responses"
[features]
plugins = false
remote_plugin = false
plugin_discovery_prefetch = false
remote_models = false
[analytics]
enabled = false
"""

CASES = ["healthy", "trailing-call", "mid-history-call", "developer-between", "orphan-output",
         "reused-id", "duplicate-output", "older-form"]


class Recorder(http.server.BaseHTTPRequestHandler):
    """Records each POST body and answers 400, as a provider rejecting the request would."""

    bodies = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        Recorder.bodies.append(body)
        reply = json.dumps({"error": {"message": "recorded by the stub", "type": "invalid_request_error"}}).encode()
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


def sent(codex, port, text, session):
    """The call and output items Codex sends when resuming the rollout `text`."""
    with tempfile.TemporaryDirectory() as home:
        day = os.path.join(home, "sessions", "2026", "05", "12")
        os.makedirs(day)
        with open(os.path.join(day, f"rollout-2026-05-12T10-00-00-{session}.jsonl"), "w") as f:
            f.write(text)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(CONFIG.format(port=port))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX_"))}
        env.update(CODEX_HOME=home, TOOLMEND_STUB_KEY="dummy", HOME=home)
        Recorder.bodies.clear()
        subprocess.run([codex, "exec", "--skip-git-repo-check", "resume", session, "continue"], env=env,
                       cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
        if not Recorder.bodies:
            return "(no request)"
        items = json.loads(Recorder.bodies[0])["input"]
    shown = []
    for it in items:
        kind = it.get("type", "")
        if kind == "function_call":
            shown.append(f"call {it['call_id']}")
        elif kind == "function_call_output":
            out = it.get("output")
            out = out if isinstance(out, str) else json.dumps(out)
            shown.append(f"output {it['call_id']} {out[:24]!r}")
        elif kind == "message" and it.get("role") in ("user", "assistant"):
            text = it["content"][0].get("text", "")
            if not text.startswith("<"):
                shown.append(f"{it['role']} {text[:12]!r}")
    return " | ".join(shown)


def toolmend(binary, args, text):
    return subprocess.run([binary] + args, input=text.encode(), capture_output=True, timeout=60)


def main():
    codex, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    report = []
    for n, case in enumerate(CASES):
        session = f"0199aaaa-bbbb-7ccc-8ddd-{n:012d}"
        text = older_rollout(session) if case == "older-form" else rollout(session, case)
        lint = toolmend(binary, ["lint", "--input-format", "jsonl", "--format", "json", "-"], text)
        codes = sorted(f["code"] for f in json.loads(lint.stdout or b"[]")) or ["clean"]
        repaired = toolmend(binary, ["repair", "--input-format", "jsonl", "-"], text).stdout.decode()
        report.append(f"== {case}")
        report.append(f"toolmend lint: {' '.join(codes)}")
        report.append(f"codex sends: {sent(codex, port, text, session)}")
        if repaired != text:
            report.append(f"after toolmend repair: {sent(codex, port, repaired, session)}")
    server.shutdown()
    got = "\n".join(report) + "\n"
    expected_path = os.path.join(HERE, "expected.txt")
    if "--update" in sys.argv:
        with open(expected_path, "w") as f:
            f.write(got)
        print(got, end="")
        return 0
    expected = open(expected_path).read()
    if got != expected:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                                   "expected.txt", "this run"))
        return 1
    print(f"codex resume: {len(CASES)} cases as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
