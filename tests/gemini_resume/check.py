"""Does toolmend's verdict on a Gemini CLI session match what Gemini CLI sends when it resumes it?

    python3 tests/gemini_resume/check.py GEMINI TOOLMEND [SESSION...]

For each session in fixtures/ (and two sessions as Gemini CLI itself rewrites them on resume),
the session is put under a temporary HOME and `gemini --resume latest -p continue` is run
against a loopback stub of the Gemini API (stub.py) that records the request and answers 400.
The recorded `contents` are checked by Gemini's pairing rule: every model content with
functionCall parts is followed by a user content of functionResponse parts only, one per call.
Then `toolmend repair --duplicates keep-first` is applied (the policy lets it drop the second
copy of a response that Gemini CLI records twice) and the repaired session is resumed and checked
again.

Fails (exit 1) when toolmend's verdict (any finding or none) disagrees with what the client
sends, when a repaired session still sends an unanswered call, when the repaired file still
has findings, or when a second repair changes it. A session whose findings offer no fix must
come out of the repair byte for byte. Nothing leaves 127.0.0.1.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from stub import Recorder, serve  # noqa: E402

# Every start-up fetch off (update check, usage statistics, telemetry); API key auth.
SETTINGS = {"general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "security": {"auth": {"selectedType": "gemini-api-key"}}}
# The repair's policies: a response recorded twice is a finding whose fix drops a copy.
POLICY = ["--duplicates", "keep-first"]
# Sessions resumed a second time after Gemini CLI rewrote them on their first resume.
RESUMED_TWICE = ["clean", "executing-no-result"]


def run_client(gemini, port, name, text):
    """Resume session `text` (file name `name`) once; returns (request body or None, the session
    file as Gemini CLI left it)."""
    with tempfile.TemporaryDirectory() as tmp:
        home, proj = os.path.join(tmp, "home"), os.path.join(tmp, "proj")
        chats = os.path.join(home, ".gemini", "tmp", "proj", "chats")
        os.makedirs(chats)
        os.makedirs(proj)
        # The project registry maps this working directory to the temp dir name `proj`.
        with open(os.path.join(home, ".gemini", "projects.json"), "w") as f:
            json.dump({"projects": {os.path.realpath(proj): "proj"}}, f)
        with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
            json.dump(SETTINGS, f)
        path = os.path.join(chats, name)
        with open(path, "w") as f:
            f.write(text)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": tmp,
               "GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_CLI_NO_RELAUNCH": "true", "NO_COLOR": "1"}
        Recorder.bodies.clear()
        # A fixed model skips the router's extra classification request.
        subprocess.run([gemini, "-m", "gemini-2.5-flash", "--resume", "latest", "-p", "continue"],
                       cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=90)
        # A legacy `.json` session is continued in a `.jsonl` beside it.
        after = path + "l" if name.endswith(".json") else path
        left = open(after).read() if os.path.exists(after) else ""
        body = json.loads(Recorder.bodies[0][1]) if Recorder.bodies else None
        return body, left


def show(contents):
    """One short line for the contents, without the session-context turn Gemini CLI adds first."""
    out = []
    for c in contents:
        parts = c.get("parts") or []
        if parts and str(parts[0].get("text", "")).startswith("<session_context>"):
            continue
        bits = []
        for p in parts:
            if "functionCall" in p:
                bits.append("call " + str(p["functionCall"].get("id")))
            elif "functionResponse" in p:
                r = p["functionResponse"]
                resp = json.dumps(r.get("response"))
                bits.append(f"resp {r.get('id')} {resp[:20]}")
            elif "text" in p:
                bits.append(repr(p["text"][:12]))
            else:
                bits.append("+".join(sorted(p)))
        out.append(("U" if c.get("role") == "user" else "M") + "[" + ", ".join(bits) + "]")
    return " ".join(out)


def broken(contents):
    """Gemini's pairing rule on the sent contents: (reasons it rejects them, notes). A response
    content that also holds text is only a note: Gemini CLI sends that shape itself and its
    maintainers report HTTP 200 for it (gemini-cli#28700)."""
    bad, notes = [], []
    for i, c in enumerate(contents):
        parts = c.get("parts") or []
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        if c.get("role") == "model" and calls:
            nxt = contents[i + 1] if i + 1 < len(contents) else {}
            got = [p["functionResponse"] for p in nxt.get("parts") or [] if "functionResponse" in p]
            if nxt.get("role") != "user" or len(got) != len(calls):
                ids = ",".join(str(x.get("id")) for x in calls)
                bad.append(f"{len(calls)} call(s) [{ids}] answered by {len(got)} response(s)")
            elif len(got) != len(nxt.get("parts") or []):
                notes.append(f"responses to [{','.join(str(x.get('id')) for x in calls)}] share a content with text")
        prev = contents[i - 1] if i else {}
        if any("functionResponse" in p for p in parts) and not (
                prev.get("role") == "model" and any("functionCall" in p for p in prev.get("parts") or [])):
            bad.append("response(s) not right after a call turn")
    return bad, notes


def lint(binary, path):
    """The codes of toolmend's findings, and whether none of them offers a fix."""
    out = subprocess.run([binary, "lint", "--format", "json", path], capture_output=True, timeout=60)
    findings = json.loads(out.stdout or b"[]")
    return sorted({f["code"] for f in findings}), all(f.get("fix") is None for f in findings)


def main():
    gemini, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    server, port = serve()
    cases = [(os.path.splitext(os.path.basename(p))[0], p)
             for p in sorted(glob.glob(os.path.join(HERE, "fixtures", "*.json*")))]
    for name in RESUMED_TWICE:
        cases.append((name + "+resumed-once", os.path.join(HERE, "fixtures", name + ".jsonl")))
    # Real sessions given on the command line (the shared corpus, where it is present).
    cases += [("real-" + os.path.splitext(os.path.basename(p))[0], p) for p in sys.argv[3:]]
    failures = 0
    work = tempfile.mkdtemp()
    try:
        for name, src in cases:
            ext = ".json" if src.endswith(".json") else ".jsonl"
            fname = f"session-2026-05-12T10-00-{name[:8].replace('+', '-')}{ext}"
            text = open(src).read()
            if name.endswith("+resumed-once"):
                # What Gemini CLI wrote back into the session on a first resume.
                _, text = run_client(gemini, port, fname, text)
            path = os.path.join(work, name + ext)
            with open(path, "w") as f:
                f.write(text)
            codes, unfixable = lint(binary, path)
            body, _ = run_client(gemini, port, fname, text)
            if body is None:
                print(f"FAIL {name}: the client sent no request")
                failures += 1
                continue
            bad, notes = broken(body["contents"])
            agree = bool(codes) == bool(bad)
            line = (f"{name}: toolmend {' '.join(codes) or 'clean'}; client sends {show(body['contents'])}"
                    f" -> {'; '.join(bad + notes) or 'paired'}; {'agree' if agree else 'DISAGREE'}")
            problems = [] if agree else ["verdict differs"]
            if codes:
                fixed = path + ".repaired" + ext
                subprocess.run([binary, "repair", *POLICY, path, "-o", fixed], capture_output=True, timeout=60)
                again = fixed + ".again" + ext
                subprocess.run([binary, "repair", *POLICY, fixed, "-o", again], capture_output=True, timeout=60)
                fixed_text = open(fixed).read()
                rbody, _ = run_client(gemini, port, fname, fixed_text)
                rbad, rnotes = broken(rbody["contents"]) if rbody else (["no request"], [])
                rcodes, _ = lint(binary, fixed)
                idem = open(again).read() == fixed_text
                line += (f" | repaired: lint {' '.join(rcodes) or 'clean'}, second repair "
                         f"{'unchanged' if idem else 'CHANGED'}, client sends "
                         f"{show(rbody['contents']) if rbody else '-'} -> {'; '.join(rbad + rnotes) or 'paired'}")
                if unfixable and fixed_text == text:
                    # Reported without a fix and left byte for byte: what toolmend cannot mend
                    # it reports out loud and never touches.
                    line += " (reported, no fix offered, left as it is)"
                else:
                    problems += ["repaired still unanswered"] * bool(rbad) + ["repaired lint"] * bool(rcodes)
                problems += [] if idem else ["repair not idempotent"]
            if Recorder.others:
                problems.append(f"unexpected requests {Recorder.others}")
                Recorder.others.clear()
            print((f"FAIL [{', '.join(problems)}] " if problems else "ok   ") + line)
            failures += bool(problems)
    finally:
        shutil.rmtree(work)
        server.shutdown()
    print(f"gemini resume: {len(cases)} cases, {failures} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
