//! A strict-rules checker for OpenAI Responses item lists (and the items of Codex rollouts),
//! written independently of the library with plain serde_json.

use std::collections::HashSet;

use serde_json::Value;

use std::path::Path;

use toolmend::{Provider, RepairOptions};

use super::{api, docs, files, pinned};

/// Call item types and the output type answering each.
const PAIRS: &[(&str, &str)] = &[
    ("function_call", "function_call_output"),
    ("custom_tool_call", "custom_tool_call_output"),
    ("computer_call", "computer_call_output"),
    ("local_shell_call", "local_shell_call_output"),
    ("shell_call", "shell_call_output"),
    ("apply_patch_call", "apply_patch_call_output"),
    ("tool_search_call", "tool_search_output"),
    ("program", "program_output"),
    ("mcp_approval_request", "mcp_approval_response"),
];

const SERVER: &[&str] = &[
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
];

/// The Responses items of a document: the `input` list of a JSON request body (also inside
/// `body`), a top-level array, one item per line, or the `response_item` payloads of a Codex
/// rollout (its other lines are not items).
pub fn items(bytes: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(doc) = serde_json::from_str::<Value>(&text) {
        let list = doc
            .get("input")
            .or_else(|| doc.pointer("/body/input"))
            .cloned()
            .unwrap_or(doc);
        return list.as_array().cloned().unwrap_or_default();
    }
    docs::lines(bytes)
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            if v.get("payload").is_some() && v.get("timestamp").is_some() {
                (v["type"] == "response_item").then(|| v["payload"].clone())
            } else {
                Some(v)
            }
        })
        .collect()
}

/// Violations of the strict rules: every client-side call has exactly one output after it,
/// with nothing but calls, outputs and reasoning between (the adjacent-run form); no output
/// without an open call (orphan or duplicate); no call id reused while its call is open.
pub fn strict_violations(items: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut closed: HashSet<String> = HashSet::new();
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    for (i, item) in items.iter().enumerate() {
        let ty = s(item, "type").unwrap_or_default();
        let server = SERVER.contains(&ty.as_str())
            || (ty.starts_with("tool_search") && item["execution"] == "server");
        if !server && PAIRS.iter().any(|p| p.0 == ty) {
            let key = if ty == "mcp_approval_request" {
                "id"
            } else {
                "call_id"
            };
            let id = s(item, key).unwrap_or_default();
            if open.contains(&id) {
                out.push(format!("item {i}: call id {id} reused while open"));
            }
            open.push(id);
        } else if !server && PAIRS.iter().any(|p| p.1 == ty) {
            let id = match ty.as_str() {
                "mcp_approval_response" => s(item, "approval_request_id"),
                "local_shell_call_output" => s(item, "call_id").or_else(|| s(item, "id")),
                _ => s(item, "call_id"),
            }
            .unwrap_or_default();
            match open.iter().position(|o| *o == id) {
                Some(k) => {
                    open.remove(k);
                    closed.insert(id);
                }
                None if closed.contains(&id) => {
                    out.push(format!("item {i}: second output for {id}"))
                }
                None => out.push(format!("item {i}: output for {id} has no call before it")),
            }
        } else if !server && ty != "reasoning" && !open.is_empty() {
            out.push(format!(
                "item {i} ({}) comes between calls {open:?} and their outputs",
                if ty.is_empty() { "message" } else { &ty }
            ));
            open.clear();
        }
    }
    for id in open {
        out.push(format!("call {id} has no output"));
    }
    out
}

/// Fixture `name` of `set`, repaired with every policy on, meets the strict rules.
pub fn assert_strict_after_everything(set: &str, name: &str) {
    let out = api::repair_with(name, &files::read(set, name), &api::everything());
    let v = strict_violations(&items(&out));
    assert!(v.is_empty(), "{name}: {v:?}");
}

/// Every file of the corpus directory `dir` (when the corpus is there), repaired with every
/// policy on, repairs to itself and meets the strict rules.
pub fn assert_corpus_strict(dir: &str) {
    for path in files::corpus(dir) {
        let name = path.to_string_lossy().into_owned();
        let input = std::fs::read(&path).unwrap();
        let out = api::repair_with(&name, &input, &api::everything());
        assert_eq!(
            api::repair_with(&name, &out, &api::everything()),
            out,
            "{name}"
        );
        let v = strict_violations(&items(&out));
        assert!(v.is_empty(), "{name}: {v:?}");
    }
}

/// Fixture `name` of `set` judged for `--target target` has the findings `before`
/// (`CODE@line:call-id`); its default repair for that target is pinned as `expected`, repairs
/// to itself, and, repaired with every policy on, meets the strict (adjacent) rules. Returns
/// the default repair's output.
pub fn check_fixed_for(
    set: &str,
    name: &str,
    target: Provider,
    before: &[&str],
    expected: &str,
) -> Vec<u8> {
    let input = files::read(set, name);
    assert_eq!(api::code_line_ids_for(name, &input, Some(target)), before);
    let options = RepairOptions::default();
    let out = api::repair_for(name, &input, Some(target), &options);
    assert_ne!(out, input, "{name}: the repair changed nothing");
    files::pin(&files::dir(set).join(expected), &out);
    assert_eq!(api::repair_for(name, &out, Some(target), &options), out);
    let all = api::repair_for(name, &input, Some(target), &api::everything());
    let v = strict_violations(&items(&all));
    assert!(v.is_empty(), "{name}: {v:?}");
    out
}

/// Fixture `name` of `set` has the findings `before` (`CODE@line:call-id`), its default repair
/// is pinned as `<stem>.repaired.<ext>` (see [`pinned::run_as`]), and repaired with every
/// policy on it meets the strict rules. Returns the default repair's output.
pub fn check_fixed(set: &str, name: &str, before: &[&str]) -> Vec<u8> {
    assert_eq!(api::code_line_ids(name, &files::read(set, name)), before);
    let expected = files::repaired_path(Path::new(name));
    let out = pinned::run_as(
        set,
        name,
        &expected.to_string_lossy(),
        &RepairOptions::default(),
    );
    assert_strict_after_everything(set, name);
    out
}
