"""Run the real Claude Code client on a session file and print the history it resumes.

Usage: resume.py CLAUDE_BINARY SESSION.jsonl [--raw]

Lays SESSION.jsonl under a temporary HOME at `.claude/projects/<slug of cwd>/<id>.jsonl`
(the id is the first `sessionId` in the file when it is a UUID), starts stub.py on 127.0.0.1, runs
`claude --resume <id> -p continue` against it (dummy key, no telemetry, bounded time), and
prints the `messages` of the main `POST /v1/messages` request as JSON (the request with the
most messages). With --raw, prints the whole request body. Exit status 3 when the client sent
no request (it refused to resume); the client's stderr/stdout are then printed to stderr.
"""

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import uuid

HERE = pathlib.Path(__file__).resolve().parent
TIMEOUT = int(os.environ.get("CLAUDE_RESUME_TIMEOUT", "60"))


def session_id(path):
    """The file's `sessionId` when it is a UUID (the client resumes only those), else a fixed
    UUID naming the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.search(r'"sessionId"\s*:\s*"([^"]+)"', line)
            if m:
                try:
                    return str(uuid.UUID(m.group(1)))
                except ValueError:
                    break
    return str(uuid.uuid5(uuid.NAMESPACE_URL, path.name))


def main():
    claude, session = os.path.abspath(sys.argv[1]), pathlib.Path(sys.argv[2])
    raw = "--raw" in sys.argv[3:]
    with tempfile.TemporaryDirectory(prefix="toolmend-resume-") as tmp:
        tmp = pathlib.Path(tmp)
        home, cwd, rec = tmp / "home", tmp / "work", tmp / "requests"
        cwd.mkdir(parents=True)
        sid = session_id(session)
        slug = re.sub(r"[^a-zA-Z0-9]", "-", str(cwd))
        project = home / ".claude" / "projects" / slug
        project.mkdir(parents=True)
        (project / f"{sid}.jsonl").write_bytes(session.read_bytes())
        port_file = tmp / "port"
        stub = subprocess.Popen([sys.executable, str(HERE / "stub.py"), str(port_file), str(rec)])
        try:
            for _ in range(100):
                if port_file.exists() and port_file.read_text():
                    break
                time.sleep(0.05)
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(home),
                "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port_file.read_text()}",
                "ANTHROPIC_API_KEY": "sk-ant-dummy-toolmend",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0",
            }
            try:
                run = subprocess.run(
                    [claude, "--resume", sid, "-p", "continue"],
                    cwd=cwd, env=env, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                )
                out = run.stdout + run.stderr
            except subprocess.TimeoutExpired as e:
                out = (e.stdout or b"") + (e.stderr or b"") + b"\n[timed out]"
        finally:
            stub.terminate()
            stub.wait()
        bodies = [json.loads(p.read_bytes()) for p in sorted(rec.glob("*.json"))] if rec.exists() else []
        if not bodies:
            sys.stderr.write(out.decode(errors="replace"))
            sys.exit(3)
        main_body = max(bodies, key=lambda b: len(b.get("messages", [])))
        json.dump(main_body if raw else main_body["messages"], sys.stdout, indent=1)
        print()


main()
