//! The strictest reading of the OpenAI Chat Completions rules (research/formats.md §a), written
//! on `serde_json` values, independently of the library: every assistant message with
//! `tool_calls` is followed by one contiguous run of `tool` messages answering each of its ids
//! exactly once; no `tool` message outside such a run; no empty `tool_calls`; no empty id or
//! function name; no id twice in one message. (Ids reused in a later turn are allowed: real
//! gpt-4o transcripts do that, and the SPEC accepts it when each use is answered in its run.)

use serde_json::Value;

use super::docs::{array, role, str_of};

/// The violations in one message list, as `messages.N: …` lines.
pub fn violations(msgs: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < msgs.len() {
        let m = &msgs[i];
        if role(m) == "tool" {
            out.push(format!(
                "messages.{i}: `tool` message with no `tool_calls` before it"
            ));
            i += 1;
            continue;
        }
        let Some(calls) = m.get("tool_calls").filter(|c| !c.is_null()) else {
            i += 1;
            continue;
        };
        let calls = calls.as_array().map_or(&[][..], Vec::as_slice);
        if calls.is_empty() {
            out.push(format!("messages.{i}: empty `tool_calls`"));
        }
        let mut open: Vec<&str> = Vec::new();
        for (k, c) in calls.iter().enumerate() {
            let id = str_of(c, "id");
            let name = c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            if id.is_empty() || name.is_empty() {
                out.push(format!(
                    "messages.{i}.tool_calls.{k}: empty id or function name"
                ));
            }
            if open.contains(&id) {
                out.push(format!("messages.{i}.tool_calls.{k}: duplicate id {id}"));
            }
            open.push(id);
        }
        let mut j = i + 1;
        while j < msgs.len() && role(&msgs[j]) == "tool" {
            let id = str_of(&msgs[j], "tool_call_id");
            match open.iter().position(|o| *o == id) {
                Some(p) => {
                    open.remove(p);
                }
                None => out.push(format!(
                    "messages.{j}: `tool_call_id` {id} answers no open call"
                )),
            }
            j += 1;
        }
        for id in open {
            out.push(format!(
                "messages.{i}: tool_call_id {id} has no response message"
            ));
        }
        i = j;
    }
    out
}

/// The violations of every message list of a document (a bare array, `messages`, or `traj`
/// records).
pub fn document(doc: &Value) -> Vec<String> {
    let mut lists: Vec<&[Value]> = Vec::new();
    match doc {
        Value::Array(items) if items.iter().any(|r| r.get("traj").is_some()) => {
            lists.extend(items.iter().map(|r| array(r, "traj")));
        }
        Value::Array(items) => lists.push(items),
        _ => lists.push(array(doc, "messages")),
    }
    lists.into_iter().flat_map(violations).collect()
}
