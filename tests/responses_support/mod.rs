//! Shared by the Responses and Codex dialect tests: lint and repair through the public API,
//! pinned expected files, and a strict-rules checker for Responses item lists that is written
//! independently of the library (plain serde_json).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolmend::lint::{self, LintOptions};
use toolmend::repair::{self, DuplicatePolicy, OrphanPolicy, RepairOptions};
use toolmend::rules::Rule;

/// The bytes of a fixture under `tests/fixtures/<dir>/`.
pub fn fixture(dir: &str, name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(dir, name)).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"))
}

fn fixture_path(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name)
}

/// The dialect of every conversation of a document.
pub fn dialects(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    a.doc.conversations.iter().map(|c| c.dialect).collect()
}

/// Findings as `CODE@line:id`, in reading order.
pub fn findings(name: &str, bytes: &[u8]) -> Vec<String> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    lint::findings(name, &a)
        .iter()
        .map(|f| {
            format!(
                "{}@{}:{}",
                f.rule.code(),
                f.line,
                f.call_id.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

/// The full finding messages.
pub fn messages(name: &str, bytes: &[u8]) -> Vec<String> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    lint::findings(name, &a)
        .iter()
        .map(|f| f.message.clone())
        .collect()
}

/// Repair with `options`.
pub fn repair_with(name: &str, bytes: &[u8], options: &RepairOptions) -> Vec<u8> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    repair::document(bytes, &a, options).output
}

/// The unsafe policies on too: orphans dropped, duplicates resolved keeping the first.
pub fn everything() -> RepairOptions {
    RepairOptions {
        orphans: OrphanPolicy::Drop,
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..RepairOptions::default()
    }
}

/// Repair `name` with `options`, compare with the pinned `expected` fixture byte for byte
/// (`TOOLMEND_BLESS=1` rewrites it), and check that a second repair changes nothing and that
/// no call is left dangling.
pub fn pinned(dir: &str, name: &str, expected: &str, options: &RepairOptions) -> Vec<u8> {
    let input = fixture(dir, name);
    let out = repair_with(name, &input, options);
    assert_ne!(out, input, "{name}: the repair changed nothing");
    if std::env::var_os("TOOLMEND_BLESS").is_some() {
        std::fs::write(fixture_path(dir, expected), &out).unwrap();
    }
    let want = fixture(dir, expected);
    assert!(
        out == want,
        "{name}: repair differs from {expected}:\n{}",
        String::from_utf8_lossy(&out)
    );
    assert_eq!(
        repair_with(name, &out, options),
        out,
        "{name}: a second repair changed the output"
    );
    let left = findings(name, &out);
    assert!(
        !left
            .iter()
            .any(|f| f.starts_with(Rule::DanglingToolCall.code())),
        "{name}: dangling calls left after repair: {left:?}"
    );
    out
}

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
    text.lines()
        .filter(|l| !l.trim().is_empty())
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

/// The corpus directory of a dialect, when the shared corpus is there.
pub fn corpus(dir: &str) -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(root)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    Some(files)
}
