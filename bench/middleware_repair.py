"""The dangling-tool-call middleware's algorithm (DeerFlow's), written straightforwardly in Python, as a benchmark peer.

For each conversation: collect every result's call id, then walk the messages and right after
each model message insert one error result per call whose id has no result (each id once).
Reads JSON Lines (one conversation per line when a line holds `messages`, else one message
per line, the whole file being one conversation) or a JSON document with `messages`, and
writes the patched log to standard output. Claude Code session lines (`type` user/assistant
with `tool_use`/`tool_result` blocks) are handled the same way, the placeholder being a user
line.

    python3 bench/middleware_repair.py FILE > repaired
"""

import json
import sys

PLACEHOLDER = "[Tool call was interrupted and did not return a result.]"


def chat_calls(msg):
    if msg.get("role") == "assistant":
        return [(c.get("id"), (c.get("function") or {}).get("name", "unknown")) for c in msg.get("tool_calls") or []]
    return []


def chat_result(msg):
    return msg.get("tool_call_id") if msg.get("role") == "tool" else None


def chat_placeholder(call_id, name, _msg):
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": PLACEHOLDER, "status": "error"}


def claude_blocks(msg, kind):
    content = (msg.get("message") or {}).get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind] if isinstance(content, list) else []


def claude_calls(msg):
    return [(b.get("id"), b.get("name", "unknown")) for b in claude_blocks(msg, "tool_use")]


def claude_results(msg):
    return [b.get("tool_use_id") for b in claude_blocks(msg, "tool_result")]


def claude_placeholder(call_id, _name, msg):
    return {
        "type": "user",
        "parentUuid": msg.get("uuid"),
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": PLACEHOLDER, "is_error": True}]},
    }


def patch(messages, claude):
    """The two passes: ids with results, then inserts after each calling message."""
    calls = claude_calls if claude else chat_calls
    answered = set()
    for m in messages:
        if claude:
            answered.update(claude_results(m))
        else:
            r = chat_result(m)
            if r is not None:
                answered.add(r)
    if not any(cid not in answered for m in messages for cid, _ in calls(m)):
        return None
    make = claude_placeholder if claude else chat_placeholder
    patched, done = [], set()
    for m in messages:
        patched.append(m)
        for cid, name in calls(m):
            if cid not in answered and cid not in done:
                patched.append(make(cid, name, m))
                done.add(cid)
    return patched


def main():
    path = sys.argv[1]
    out = sys.stdout
    if not (path.endswith(".jsonl") or path.endswith(".ndjson")):
        with open(path, "rb") as f:
            doc = json.load(f)
        fixed = patch(doc["messages"], claude=False)
        if fixed is not None:
            doc["messages"] = fixed
        json.dump(doc, out, indent=2)
        return
    with open(path, "rb") as f:
        first = f.readline()
        head = json.loads(first)
        f.seek(0)
        if "messages" in head:
            for line in f:
                conv = json.loads(line)
                fixed = patch(conv["messages"], claude=False)
                if fixed is not None:
                    conv["messages"] = fixed
                out.write(json.dumps(conv) + "\n")
            return
        messages = [json.loads(line) for line in f if line.strip()]
    fixed = patch(messages, claude="type" in head and "message" in head) or messages
    for m in fixed:
        out.write(json.dumps(m) + "\n")


if __name__ == "__main__":
    main()
