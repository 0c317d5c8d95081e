//! The strictest reading of Anthropic's tool-pairing rules (shared/research/formats.md §c),
//! checked on a parsed request body. Ids must be unique across the whole request even when
//! each use is answered (as `toolmend lint` says too: TM005), and, stricter than lint on
//! purpose, nothing may follow a `tool_use` in its assistant message.

use std::collections::HashSet;

use serde_json::Value;

use super::docs::{array, lists, message_if, role, str_of};

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn blocks(m: &Value) -> &[Value] {
    array(m, "content")
}

fn ty(b: &Value) -> &str {
    str_of(b, "type")
}

fn is_server_result(t: &str) -> bool {
    t != "tool_result" && t.ends_with("_tool_result")
}

/// Every rule broken by `doc`, as `messages.N…: what`; empty when Anthropic would accept it.
pub fn violations(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    // The message lists of a request body (`messages`, batch `params.messages`) or of a bare
    // array of messages.
    for msgs in lists(doc, &["/messages", "/params/messages", "/body/messages"]) {
        check(msgs, &mut out);
    }
    out
}

fn check(msgs: &[Value], out: &mut Vec<String>) {
    let mut seen_ids: HashSet<&str> = HashSet::new();
    for (i, m) in msgs.iter().enumerate() {
        let mut calls: Vec<&str> = Vec::new();
        let mut servers: Vec<&str> = Vec::new();
        for (k, b) in blocks(m).iter().enumerate() {
            let at = format!("messages.{i}.content.{k}");
            let t = ty(b);
            match t {
                "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                    let id = str_of(b, "id");
                    if role(m) != "assistant" {
                        out.push(format!("{at}: `{t}` outside an assistant message"));
                    }
                    if !valid_id(id) {
                        out.push(format!("{at}: id `{id}` does not match ^[a-zA-Z0-9_-]+$"));
                    }
                    if !seen_ids.insert(id) {
                        out.push(format!("{at}: id `{id}` is not unique in the request"));
                    }
                    if str_of(b, "name").is_empty() {
                        out.push(format!("{at}: empty tool name"));
                    }
                    if t == "tool_use" {
                        calls.push(id);
                    } else if calls.is_empty() {
                        servers.push(id);
                    } else {
                        out.push(format!("{at}: `{t}` after a `tool_use` block"));
                    }
                }
                "tool_result" => {}
                _ if is_server_result(t) && !servers.contains(&str_of(b, "tool_use_id")) => {
                    out.push(format!(
                        "{at}: `{t}` without its server tool call earlier in the message"
                    ));
                }
                _ if !calls.is_empty() => {
                    out.push(format!("{at}: `{t}` block after a `tool_use` block"));
                }
                _ => {}
            }
        }
        check_results(msgs, i, out);
        if calls.is_empty() {
            continue;
        }
        let leading: Vec<&str> = message_if(msgs, Some(i + 1), "user")
            .map(|n| {
                blocks(n)
                    .iter()
                    .take_while(|b| ty(b) == "tool_result")
                    .map(|b| str_of(b, "tool_use_id"))
                    .collect()
            })
            .unwrap_or_default();
        for id in &calls {
            if !leading.contains(id) {
                out.push(format!(
                    "messages.{i}: `tool_use` {id} is not answered by a leading `tool_result` of the next user message"
                ));
            }
        }
    }
}

/// Rules for the `tool_result` blocks of message `j`.
fn check_results(msgs: &[Value], j: usize, out: &mut Vec<String>) {
    let m = &msgs[j];
    let called: Vec<&str> = message_if(msgs, j.checked_sub(1), "assistant")
        .map(|p| {
            blocks(p)
                .iter()
                .filter(|b| ty(b) == "tool_use")
                .map(|b| str_of(b, "id"))
                .collect()
        })
        .unwrap_or_default();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut leading = true;
    for (k, b) in blocks(m).iter().enumerate() {
        let at = format!("messages.{j}.content.{k}");
        if ty(b) != "tool_result" {
            leading = false;
            continue;
        }
        let id = str_of(b, "tool_use_id");
        if role(m) != "user" {
            out.push(format!("{at}: `tool_result` outside a user message"));
        }
        if !called.contains(&id) {
            out.push(format!(
                "{at}: orphan `tool_result` {id}: no `tool_use` in the previous message"
            ));
        }
        if !leading {
            out.push(format!(
                "{at}: `tool_result` {id} does not open the message (other content comes first)"
            ));
        }
        if !answered.insert(id) {
            out.push(format!("{at}: duplicate `tool_result` for {id}"));
        }
        if b.get("is_error").is_some_and(|e| !e.is_boolean()) {
            out.push(format!("{at}: `is_error` is not a boolean"));
        }
    }
}
