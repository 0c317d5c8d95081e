//! The strictest reading of Bedrock Converse's tool-pairing rules (shared/research/formats.md
//! §g), checked on a parsed request. Besides the pairing rules it checks the Converse turn
//! rules the placeholders must keep: the conversation starts with a user message and roles
//! alternate. A server tool use (`"type": "server_tool_use"`) is answered inline, in its own
//! assistant message. Ids must be unique across the whole request (lint reports reuse as TM005).

use std::collections::HashSet;

use serde_json::Value;

use super::docs::{array, lists, message_if, role, str_of};

/// `(index, inner object)` of the content blocks of `m` holding `key`.
fn blocks<'a>(m: &'a Value, key: &str) -> Vec<(usize, &'a Value)> {
    array(m, "content")
        .iter()
        .enumerate()
        .filter_map(|(k, b)| b.get(key).map(|inner| (k, inner)))
        .collect()
}

fn id_of(inner: &Value) -> &str {
    str_of(inner, "toolUseId")
}

/// A tool Bedrock runs itself (`"type": "server_tool_use"`, e.g. Nova's code interpreter): its
/// `toolResult` comes inline in the same assistant message.
fn server(inner: &Value) -> bool {
    str_of(inner, "type") == "server_tool_use"
}

/// `(index, inner)` of the `toolUse` blocks of `m` the client must answer.
fn client_uses(m: &Value) -> Vec<(usize, &Value)> {
    blocks(m, "toolUse")
        .into_iter()
        .filter(|(_, u)| !server(u))
        .collect()
}

fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Every rule broken by `doc`, as `messages.N…: what`; empty when Bedrock would accept it.
pub fn violations(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    // The messages of a request (`{messages}`) or a bare array of messages.
    for msgs in lists(doc, &["/messages"]) {
        check(msgs, &mut out);
    }
    out
}

fn check(msgs: &[Value], out: &mut Vec<String>) {
    let mut seen: HashSet<&str> = HashSet::new();
    if msgs.first().is_some_and(|m| role(m) != "user") {
        out.push("messages.0: the conversation must start with a user message".into());
    }
    for (i, m) in msgs.iter().enumerate() {
        if i > 0 && role(m) == role(&msgs[i - 1]) {
            out.push(format!("messages.{i}: roles must alternate"));
        }
        for (k, u) in &blocks(m, "toolUse") {
            let id = id_of(u);
            let at = format!("messages.{i}.content.{k}.toolUse");
            if role(m) != "assistant" {
                out.push(format!("{at}: toolUse outside an assistant message"));
            }
            if !valid_id(id) {
                out.push(format!(
                    "{at}: toolUseId `{id}` is not 1-64 of [a-zA-Z0-9_-]"
                ));
            }
            if !seen.insert(id) {
                out.push(format!(
                    "{at}: toolUseId `{id}` is not unique in the request"
                ));
            }
        }
        check_results(msgs, i, out);
        let uses = client_uses(m);
        if uses.is_empty() {
            continue;
        }
        let answered: Vec<&str> = message_if(msgs, Some(i + 1), "user")
            .map(|n| {
                blocks(n, "toolResult")
                    .iter()
                    .map(|(_, r)| id_of(r))
                    .collect()
            })
            .unwrap_or_default();
        for (_, u) in &uses {
            if !answered.contains(&id_of(u)) {
                out.push(format!(
                    "messages.{}: expected a toolResult for {}",
                    i + 1,
                    id_of(u)
                ));
            }
        }
    }
}

/// Rules for the `toolResult` blocks of message `j`.
fn check_results(msgs: &[Value], j: usize, out: &mut Vec<String>) {
    let m = &msgs[j];
    let inline: Vec<&str> = blocks(m, "toolUse")
        .into_iter()
        .filter(|(_, u)| server(u))
        .map(|(_, u)| id_of(u))
        .collect();
    let results: Vec<(usize, &Value)> = blocks(m, "toolResult")
        .into_iter()
        .filter(|(_, r)| role(m) != "assistant" || !inline.contains(&id_of(r)))
        .collect();
    let called: Vec<&str> = message_if(msgs, j.checked_sub(1), "assistant")
        .map(|p| client_uses(p).iter().map(|(_, u)| id_of(u)).collect())
        .unwrap_or_default();
    if results.len() > called.len() {
        out.push(format!(
            "messages.{j}.content: more toolResult blocks than toolUse blocks in the previous turn"
        ));
    }
    let mut answered: HashSet<&str> = HashSet::new();
    for (k, r) in &results {
        let at = format!("messages.{j}.content.{k}.toolResult");
        let id = id_of(r);
        if role(m) != "user" {
            out.push(format!("{at}: toolResult outside a user message"));
        }
        if !called.contains(&id) {
            out.push(format!("{at}: orphan toolResult {id}"));
        }
        if !answered.insert(id) {
            out.push(format!("{at}: duplicate toolResult for {id}"));
        }
        let status = r.get("status").map(|s| s.as_str().unwrap_or("?"));
        if status.is_some_and(|s| s != "success" && s != "error") {
            out.push(format!("{at}: status must be success or error"));
        }
        let empty = r
            .get("content")
            .and_then(Value::as_array)
            .is_none_or(|c| c.is_empty() || c.iter().all(empty_block));
        if empty && status == Some("error") {
            out.push(format!(
                "{at}: content cannot be empty when status value is error"
            ));
        } else if empty {
            out.push(format!("{at}: content must be a non-empty list"));
        }
    }
}

/// A content block with no text or data in it.
fn empty_block(b: &Value) -> bool {
    match b.get("text") {
        Some(t) => t.as_str().is_some_and(str::is_empty),
        None => b.as_object().is_none_or(|o| o.is_empty()),
    }
}
