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
