"""Whole-command benchmark: toolmend beside a parse floor, jq and the dangling-call middleware algorithm in Python.

    python3 bench/compare.py [--mb 100] [--runs 5] [--shapes conv,msg,claude,doc,dir] [--keep DIR]
                             [--flat 10] [--from DIR]

Generates synthetic corpora of the chosen size (deterministic), builds toolmend and the parse
floor (`examples/parse_floor.rs`: serde_json into IgnoredAny, one thread) in release mode,
runs every command `--runs` times (in rounds: each command once per round, so that the
machine's drift touches all alike) and prints, per corpus, the median wall time, the median of
its ratio to the parse floor of the same round, and the peak resident memory of the command
itself (GNU time's `%M`; "n/a" without /usr/bin/time). Needs Python 3 and cargo; jq for its
row. Prints Markdown tables.
With `--flat K`, it also writes the JSON Lines shapes at K times the size and prints the peak
memory of `repair` at both sizes, once each: whether memory stays flat as the file grows.
With `--from DIR`, it also scales real logs found under DIR to the chosen size (see
`real_shapes`): OpenAI chat conversations, the largest Claude Code session and the largest
Codex rollout, copied with their ids renamed so that the copies stay distinct. Synthetic lines
are short and all alike; real ones are longer and uneven, which changes every ratio.
"""

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "


def text(rng, words):
    return " ".join(rng.choice(FILLER.split()) for _ in range(words))


def chat_conversation(rng, conv, dangling):
    """One OpenAI-chat conversation of a few turns with parallel tool calls."""
    msgs = [{"role": "system", "content": "You are a helpful agent."}, {"role": "user", "content": text(rng, 30)}]
    for turn in range(3):
        calls = [
            {"id": f"call_{conv}_{turn}_{i}", "type": "function",
             "function": {"name": rng.choice(["search", "read_file", "run"]),
                          "arguments": json.dumps({"query": text(rng, 12), "limit": rng.randint(1, 50)})}}
            for i in range(rng.randint(1, 3))
        ]
        msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
        answered = calls[:-1] if dangling and turn == 1 else calls
        for c in answered:
            msgs.append({"role": "tool", "tool_call_id": c["id"], "content": text(rng, 80)})
        msgs.append({"role": "assistant", "content": text(rng, 40)})
        msgs.append({"role": "user", "content": text(rng, 20)})
    return msgs


def write_conv(path, size, rng):
    with open(path, "w") as f:
        n = 0
        while f.tell() < size:
            f.write(json.dumps({"messages": chat_conversation(rng, n, n % 10 == 3)}) + "\n")
            n += 1


def write_msg(path, size, rng):
    with open(path, "w") as f:
        n = 0
        while f.tell() < size:
            for m in chat_conversation(rng, n, n % 10 == 3):
                f.write(json.dumps(m) + "\n")
            n += 1


def write_doc(path, size, rng):
    msgs, total, n = [], 0, 0
    while total < size:
        conv = chat_conversation(rng, n, n % 10 == 3)
        total += len(json.dumps(conv, indent=2))
        msgs.extend(conv)
        n += 1
    with open(path, "w") as f:
        json.dump({"model": "gpt-4o", "messages": msgs}, f, indent=2)


def write_claude(path, size, rng):
    """Claude Code-style session lines: uuid chain, one content block per line."""
    with open(path, "w") as f:
        parent, n = None, 0

        def line(kind, content, msg_id=None):
            nonlocal parent, n
            uuid = f"00000000-0000-4000-8000-{n:012d}"
            message = {"role": kind, "content": content}
            if msg_id:
                message = {"id": msg_id, "type": "message", "role": kind, "model": "claude-sonnet-4-5", "content": content}
            rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/work/project",
                   "sessionId": "11111111-2222-4333-8444-555555555555", "version": "2.1.0", "gitBranch": "main",
                   "type": kind, "message": message, "uuid": uuid, "timestamp": f"2026-01-01T00:00:{n % 60:02d}.000Z"}
            f.write(json.dumps(rec) + "\n")
            parent, n = uuid, n + 1

        turn = 0
        while f.tell() < size:
            line("user", text(rng, 25))
            calls = [f"toolu_{turn}_{i}" for i in range(rng.randint(1, 3))]
            for c in calls:
                line("assistant", [{"type": "tool_use", "id": c, "name": rng.choice(["Bash", "Read", "Grep"]),
                                    "input": {"command": text(rng, 10)}}], msg_id=f"msg_{turn}")
            answered = calls[:-1] if turn % 10 == 3 else calls
            for c in answered:
                line("user", [{"type": "tool_result", "tool_use_id": c, "content": text(rng, 90)}])
            line("assistant", [{"type": "text", "text": text(rng, 40)}], msg_id=f"msg_{turn}_t")
            turn += 1


def write_dir(path, size, rng):
    os.makedirs(path)
    n, total = 0, 0
    while total < size:
        sub = os.path.join(path, f"{n // 500:03d}")
        os.makedirs(sub, exist_ok=True)
        file = os.path.join(sub, f"run-{n:05d}.json")
        with open(file, "w") as f:
            json.dump({"messages": chat_conversation(rng, n, n % 10 == 3)}, f, indent=2)
        total += os.path.getsize(file)
        n += 1


SHAPES = {
    "conv": ("conversation per line", "conv.jsonl", write_conv),
    "msg": ("message per line", "msg.jsonl", write_msg),
    "claude": ("Claude Code session", "claude.jsonl", write_claude),
    "doc": ("pretty JSON document", "doc.json", write_doc),
    "dir": ("directory of small logs", "logs", write_dir),
}


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Claude Code's tool, message and request ids.
PREFIXED_ID = re.compile(r"\b((?:toolu|msg|req)_[A-Za-z0-9_-]+)")


def json_lines(path):
    """The lines of a JSON Lines file with their JSON objects (None if a line is not one, or the
    file is not UTF-8)."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    value = json.loads(line)
                    if not isinstance(value, dict):
                        return None
                    out.append((line.rstrip("\r\n"), value))
    except ValueError:
        return None
    return out


def chat_messages(value):
    """The OpenAI chat messages of a record (`messages`, or tau-bench's `traj`), if any."""
    for key in ("messages", "traj"):
        msgs = value.get(key) if isinstance(value, dict) else None
        if isinstance(msgs, list) and msgs and all(isinstance(m, dict) and "role" in m for m in msgs):
            if any("tool_calls" in m or m.get("role") == "tool" for m in msgs):
                return msgs
    return None


def real_shapes(root):
    """Real logs under `root`, by kind: OpenAI chat conversations (from JSON documents and JSON
    Lines), the largest Claude Code session and the largest Codex rollout."""
    convs, claude, codex = [], None, None
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if name.endswith(".jsonl"):
                lines = json_lines(path)
                if not lines:
                    continue
                size = os.path.getsize(path)
                if any("parentUuid" in v and "sessionId" in v for _, v in lines):
                    if claude is None or size > claude[0]:
                        claude = (size, path, lines)
                elif lines[0][1].get("type") == "session_meta":
                    if codex is None or size > codex[0]:
                        codex = (size, path, lines)
                else:
                    convs += [m for _, v in lines if (m := chat_messages(v))]
            elif name.endswith(".json"):
                try:
                    with open(path, encoding="utf-8") as f:
                        value = json.load(f)
                except ValueError:
                    continue
                records = value if isinstance(value, list) else [value]
                convs += [m for v in records if (m := chat_messages(v))]
    return convs, claude, codex


def scale_conv(path, size, convs):
    """The conversations, one per line, over and over: each line is its own request, so ids
    may repeat from line to line."""
    lines = [json.dumps({"messages": m}) for m in convs]
    with open(path, "w") as f:
        n = 0
        while f.tell() < size:
            f.write(lines[n % len(lines)] + "\n")
            n += 1


def scale_claude(path, size, lines):
    """Copies of a Claude Code session chained into one: each copy's uuids and message, tool
    and request ids renamed, its main-chain root hung from the previous copy's last message."""
    with open(path, "w") as f:
        copy, last = 0, None
        while f.tell() < size:
            names = {}

            def rename_uuid(m):
                return names.setdefault(m.group(0), f"{copy:08x}" + m.group(0)[8:])

            newest = None
            for text, _ in lines:
                text = PREFIXED_ID.sub(lambda m: f"{m.group(1)}x{copy}", UUID.sub(rename_uuid, text))
                value = json.loads(text)
                if (last is not None and value.get("parentUuid", "") is None
                        and value.get("type") in ("user", "assistant") and not value.get("isSidechain")):
                    value["parentUuid"] = last
                    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                if value.get("type") in ("user", "assistant") and not value.get("isSidechain"):
                    newest = value.get("uuid", newest)
                f.write(text + "\n")
            copy, last = copy + 1, newest


def scale_codex(path, size, lines):
    """A Codex rollout's session header, then its items over and over, each copy's call ids
    renamed."""
    ids = sorted({v["payload"]["call_id"] for _, v in lines
                  if isinstance(v.get("payload"), dict) and isinstance(v["payload"].get("call_id"), str)},
                 key=len, reverse=True)
    quoted = re.compile("|".join(re.escape(json.dumps(i)) for i in ids)) if ids else None
    with open(path, "w") as f:
        f.write(lines[0][0] + "\n")
        copy = 0
        while f.tell() < size:
            for text, _ in lines[1:]:
                if quoted:
                    text = quoted.sub(lambda m: m.group(0)[:-1] + f'x{copy}"', text)
                f.write(text + "\n")
            copy += 1


def add_real_shapes(root):
    """Add to SHAPES the real logs found under `root`; say what was found."""
    convs, claude, codex = real_shapes(root)
    if convs:
        SHAPES["real-conv"] = (f"real chat conversations, one per line ({len(convs)} from {root})",
                               "real-conv.jsonl", lambda p, s, _: scale_conv(p, s, convs))
    if claude:
        SHAPES["real-claude"] = (f"real Claude Code session ({os.path.basename(claude[1])}, chained copies)",
                                 "real-claude.jsonl", lambda p, s, _: scale_claude(p, s, claude[2]))
    if codex:
        SHAPES["real-codex"] = (f"real Codex rollout ({os.path.basename(codex[1])}, repeated)",
                                "real-codex.jsonl", lambda p, s, _: scale_codex(p, s, codex[2]))
    found = [k for k in ("real-conv", "real-claude", "real-codex") if k in SHAPES]
    if not found:
        sys.exit(f"compare.py: no OpenAI chat conversations, Claude Code session or Codex rollout under {root}")
    return found


def findings(toolmend, path):
    """The summary line toolmend's lint prints for `path`."""
    out = subprocess.run([toolmend, "lint", path], capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1] if out.strip() else ""


def run(cmd, stdout):
    """Wall time and peak RSS (bytes, or None) of one run of `cmd`. The peak comes from GNU
    time, which forks the command itself: the kernel's high-water mark of a process started
    straight from Python would include Python's own memory."""
    timer = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.NamedTemporaryFile(mode="r") as peak:
        full = [timer, "-f", "%M", "-o", peak.name] + cmd if timer else cmd
        start = time.perf_counter()
        code = subprocess.run(full, stdout=stdout, stderr=subprocess.DEVNULL).returncode
        wall = time.perf_counter() - start
        if code not in (0, 1):
            sys.exit(f"compare.py: {' '.join(cmd)} exited {code}")
        kb = peak.read().strip().splitlines()
    return wall, int(kb[-1]) * 1024 if timer and kb and kb[-1].isdigit() else None


def build():
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "toolmend", "--example", "parse_floor"],
                   cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "toolmend"), os.path.join(target, "release", "examples", "parse_floor")


def commands(shape, path, toolmend, floor):
    jsonl = path.endswith(".jsonl")
    rows = [
        ("parse floor (serde_json, 1 thread)", [floor, path]),
        ("toolmend lint -j 1", [toolmend, "lint", "-j", "1", "--quiet", "--exit-zero", path]),
        (f"toolmend lint (all {os.cpu_count()} cores)", [toolmend, "lint", "--quiet", "--exit-zero", path]),
    ]
    if shape != "dir":
        rows.append(("toolmend repair -j 1", [toolmend, "repair", "-j", "1", "--quiet", path]))
    else:
        rows.append(("toolmend repair --check -j 1", [toolmend, "repair", "--check", "-j", "1", "--quiet", path]))
        rows.append((f"toolmend repair --check (all {os.cpu_count()} cores)", [toolmend, "repair", "--check", "--quiet", path]))
    if shutil.which("jq") and shape != "dir":
        rows.append(("jq -c . (parse and print)", ["jq", "-c", "."] + ([path] if not jsonl else [path])))
    if shape != "dir":
        rows.append(("middleware algorithm in Python", [sys.executable, os.path.join(ROOT, "bench", "middleware_repair.py"), path]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100, help="corpus size in MB (default 100)")
    ap.add_argument("--runs", type=int, default=5, help="runs per command; the median is shown")
    ap.add_argument("--shapes", default="conv,msg,claude,doc,dir")
    ap.add_argument("--keep", help="write the corpora here and keep them")
    ap.add_argument("--flat", type=float, help="also measure repair memory at this many times the size")
    ap.add_argument("--from", dest="real", metavar="DIR",
                    help="also scale the real logs found under DIR to the chosen size (shapes real-conv, "
                         "real-claude, real-codex)")
    args = ap.parse_args()
    shapes = args.shapes.split(",")
    if args.real:
        found = add_real_shapes(args.real)
        shapes = [s for s in shapes if not s.startswith("real-")] + found
    toolmend, floor = build()
    work = args.keep or tempfile.mkdtemp(prefix="toolmend-bench-")
    os.makedirs(work, exist_ok=True)
    size = int(args.mb * 1_000_000)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
          f"{args.runs} runs, median wall time; peak RSS from GNU time (%M)\n")
    try:
        for shape in shapes:
            title, name, write = SHAPES[shape]
            path = os.path.join(work, name)
            if not os.path.exists(path):
                write(path, size, random.Random(7))
            print(f"### {title} ({args.mb:g} MB)\n")
            if shape.startswith("real-"):
                print(f"toolmend lint: {findings(toolmend, path)}\n")
            print("| command | median s | × floor | peak RSS MB |")
            print("|---|---:|---:|---:|")
            rows = commands(shape, path, toolmend, floor)
            times = [[] for _ in rows]
            peaks = [[] for _ in rows]
            # Every command once per round, starting each round one command later: the
            # machine's speed drifts within minutes, and a drift then touches every command
            # alike instead of the ones that happened to run during it.
            for r in range(args.runs):
                for k in range(len(rows)):
                    i = (k + r) % len(rows)
                    with open(os.devnull, "wb") as null:
                        wall, rss = run(rows[i][1], null)
                    times[i].append(wall)
                    peaks[i].append(rss)
            for (label, _), t, p in zip(rows, times, peaks):
                # The ratio is the median of each round's ratio to that round's floor.
                ratio = statistics.median(x / f for x, f in zip(t, times[0]))
                peak = "n/a" if None in p else f"{max(p) / 1e6:.0f}"
                print(f"| {label} | {statistics.median(t):.2f} | {ratio:.2f} | {peak} |", flush=True)
            print()
        if args.flat:
            flat(args, work, size, toolmend, shapes)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def flat(args, work, size, toolmend, shapes):
    """Peak memory of `repair` on each JSON Lines shape at the chosen size and `--flat` times it."""
    big_mb = args.mb * args.flat
    print(f"### repair peak RSS as the file grows ({args.mb:g} MB and {big_mb:g} MB, one run each)\n")
    print(f"| corpus | {args.mb:g} MB: s | peak RSS MB | {big_mb:g} MB: s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|")
    for shape in [s for s in shapes if s in ("conv", "msg", "claude") or s.startswith("real-")]:
        title, name, write = SHAPES[shape]
        cells = []
        for mb, factor in ((args.mb, 1), (big_mb, args.flat)):
            path = os.path.join(work, f"{factor:g}x-{name}")
            if not os.path.exists(path):
                write(path, int(size * factor), random.Random(7))
            with open(os.devnull, "wb") as null:
                wall, rss = run([toolmend, "repair", "-j", "1", "--quiet", path], null)
            cells += [f"{wall:.2f}", "n/a" if rss is None else f"{rss / 1e6:.0f}"]
            if factor != 1 and not args.keep:
                os.remove(path)
        print(f"| {title} | " + " | ".join(cells) + " |", flush=True)
    print()


if __name__ == "__main__":
    main()
