//! Synthetic agent logs for benchmarks: OpenAI-chat turns with parallel tool calls, some of
//! them left dangling, as JSON Lines (one message per line) or one pretty JSON document.

use std::fmt::Write;

/// `turns` agent turns (user, assistant with `calls` parallel calls, their results); every
/// `dangling_every`-th turn loses its last result (0: none do).
pub fn openai_jsonl(turns: usize, calls: usize, dangling_every: usize) -> String {
    let mut out = String::with_capacity(turns * (200 + calls * 260));
    for t in 0..turns {
        let _ = writeln!(
            out,
            r#"{{"role": "user", "content": "Turn {t}: please look this up and summarise the answer in two lines."}}"#
        );
        out.push_str(r#"{"role": "assistant", "content": null, "tool_calls": ["#);
        for c in 0..calls {
            if c > 0 {
                out.push_str(", ");
            }
            let _ = write!(
                out,
                r#"{{"id": "call_{t}_{c}", "type": "function", "function": {{"name": "tool_{c}", "arguments": "{{\"query\": \"item {t}-{c}\", \"limit\": 10}}"}}}}"#
            );
        }
        out.push_str("]}\n");
        let answered = if dangling_every > 0 && t % dangling_every == 0 {
            calls.saturating_sub(1)
        } else {
            calls
        };
        for c in 0..answered {
            let _ = writeln!(
                out,
                r#"{{"role": "tool", "tool_call_id": "call_{t}_{c}", "content": "result {t}-{c}: lorem ipsum dolor sit amet, consectetur adipiscing elit"}}"#
            );
        }
    }
    out
}

/// The same conversation as one pretty-printed JSON document `{"messages": [...]}`.
pub fn openai_json(turns: usize, calls: usize, dangling_every: usize) -> String {
    let lines = openai_jsonl(turns, calls, dangling_every);
    let body: Vec<String> = lines.lines().map(|l| format!("    {l}")).collect();
    format!("{{\n  \"messages\": [\n{}\n  ]\n}}\n", body.join(",\n"))
}

/// A Claude Code session file of `turns` turns: a user prompt, then per call one assistant
/// line (one `tool_use` block, the lines of one API message sharing `message.id`) and one user
/// line with its `tool_result`, every line chained to the one before by `parentUuid`.
pub fn claude_jsonl(turns: usize, calls: usize) -> String {
    let mut out = String::with_capacity(turns * (700 + calls * 1200));
    let mut n = 0usize;
    let mut line = |out: &mut String, body: &str| {
        let parent = match n {
            0 => "null".to_string(),
            p => format!("\"00000000-0000-4000-8000-{:012}\"", p - 1),
        };
        let _ = writeln!(
            out,
            r#"{{"parentUuid": {parent}, "isSidechain": false, "userType": "external", "cwd": "/work", "sessionId": "11111111-2222-4333-8444-555555555555", "version": "2.1.0", "gitBranch": "main", {body}, "uuid": "00000000-0000-4000-8000-{n:012}", "timestamp": "2026-01-01T00:{:02}:{:02}.000Z"}}"#,
            (n / 60) % 60,
            n % 60
        );
        n += 1;
    };
    for t in 0..turns {
        line(
            &mut out,
            &format!(
                r#""type": "user", "message": {{"role": "user", "content": "Turn {t}: please look this up and summarise the answer in two lines."}}"#
            ),
        );
        for c in 0..calls {
            line(
                &mut out,
                &format!(
                    r#""type": "assistant", "message": {{"id": "msg_{t}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{{"type": "tool_use", "id": "toolu_{t}_{c}", "name": "Grep", "input": {{"pattern": "item {t}-{c}"}}}}]}}"#
                ),
            );
            line(
                &mut out,
                &format!(
                    r#""type": "user", "message": {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_{t}_{c}", "content": "result {t}-{c}: lorem ipsum dolor sit amet, consectetur adipiscing elit"}}]}}"#
                ),
            );
        }
    }
    out
}
