//! The Vercel AI SDK dialect end to end: findings on our ModelMessage fixtures, repairs pinned
//! byte for byte, idempotence, a clean lint after repair, and a checker of the SDK's own
//! missing-result rule plus the providers' "results right after the call" rule.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolmend::lint::{self, LintOptions};
use toolmend::repair::{self, DuplicatePolicy, OrphanPolicy, RepairOptions};

fn read(name: &str) -> Vec<u8> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/vercel-ai")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn findings(name: &str, bytes: &[u8]) -> Vec<String> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    lint::findings(name, &a)
        .iter()
        .map(|f| format!("{} {}", f.code, f.call_id.as_deref().unwrap_or("-")))
        .collect()
}

fn dialects(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    a.doc.conversations.iter().map(|c| c.dialect).collect()
}

fn repaired_with(name: &str, bytes: &[u8], options: &RepairOptions) -> Vec<u8> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    repair::document(bytes, &a, options).output
}

fn repaired(name: &str, bytes: &[u8]) -> Vec<u8> {
    repaired_with(name, bytes, &RepairOptions::default())
}

fn check_repair(name: &str, expected: Option<&str>) -> Vec<u8> {
    let input = read(name);
    let out = repaired(name, &input);
    match expected {
        Some(e) => assert!(
            out == read(e),
            "{name}: repair differs from {e}:\n{}",
            String::from_utf8_lossy(&out)
        ),
        None => assert_eq!(out, input, "{name}: repair changed a file it must keep"),
    }
    assert_eq!(
        repaired(name, &out),
        out,
        "{name}: repair is not idempotent"
    );
    out
}

/// The message lists of a document: a bare array, `{messages}`, or one message per line.
fn messages(name: &str, bytes: &[u8]) -> Vec<Value> {
    if name.ends_with(".jsonl") {
        return String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    }
    match serde_json::from_slice(bytes).unwrap() {
        Value::Array(items) => items,
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn parts<'a>(m: &'a Value, ty: &str) -> Vec<&'a Value> {
    m["content"]
        .as_array()
        .map(|c| c.iter().filter(|p| p["type"] == ty).collect())
        .unwrap_or_default()
}

/// The AI SDK's check (every client-side tool-call answered by a tool-result, or an approval
/// response, before the next user or system message and by the end), and the providers' rule:
/// the results sit in the tool messages right after the calling message.
fn strict_vercel(msgs: &[Value]) -> Result<(), String> {
    let approved: BTreeSet<String> = {
        let requests: Vec<&Value> = msgs
            .iter()
            .flat_map(|m| parts(m, "tool-approval-request"))
            .collect();
        msgs.iter()
            .flat_map(|m| parts(m, "tool-approval-response"))
            .filter_map(|r| {
                requests
                    .iter()
                    .find(|q| q["approvalId"] == r["approvalId"])
                    .and_then(|q| q["toolCallId"].as_str().map(String::from))
            })
            .collect()
    };
    let mut open: BTreeSet<String> = BTreeSet::new();
    for (i, m) in msgs.iter().enumerate() {
        match m["role"].as_str() {
            Some("assistant") => {
                let calls: Vec<String> = parts(m, "tool-call")
                    .into_iter()
                    .filter(|c| c["providerExecuted"] != true)
                    .filter_map(|c| c["toolCallId"].as_str().map(String::from))
                    .filter(|id| !approved.contains(id))
                    .collect();
                let answered: BTreeSet<String> = msgs[i + 1..]
                    .iter()
                    .take_while(|n| n["role"] == "tool")
                    .flat_map(|n| parts(n, "tool-result"))
                    .filter_map(|r| r["toolCallId"].as_str().map(String::from))
                    .collect();
                if let Some(id) = calls.iter().find(|id| !answered.contains(*id)) {
                    return Err(format!("message {i}: {id} not answered right after"));
                }
                open.extend(calls);
            }
            Some("tool") => {
                for r in parts(m, "tool-result") {
                    open.remove(r["toolCallId"].as_str().unwrap_or(""));
                }
            }
            _ if !open.is_empty() => return Err(format!("message {i}: missing {open:?}")),
            _ => {}
        }
    }
    match open.is_empty() {
        true => Ok(()),
        false => Err(format!("missing at the end: {open:?}")),
    }
}

fn assert_strict(name: &str, bytes: &[u8]) {
    if let Err(e) = strict_vercel(&messages(name, bytes)) {
        panic!("{name}: {e}\n{}", String::from_utf8_lossy(bytes));
    }
}

#[test]
fn checker_rejects_the_broken_fixtures() {
    for bad in [
        "dangling.json",
        "partial.json",
        "misplaced.json",
        "reused_ids.json",
        "v4.json",
        "approval_pending.json",
        "messages.jsonl",
    ] {
        assert!(
            strict_vercel(&messages(bad, &read(bad))).is_err(),
            "{bad} passed"
        );
    }
}

#[test]
fn clean_history_with_provider_tools_and_an_approval_is_clean() {
    let bytes = read("clean.json");
    assert_eq!(dialects("clean.json", &bytes), ["vercel-ai"]);
    assert!(findings("clean.json", &bytes).is_empty());
    check_repair("clean.json", None);
    assert_strict("clean.json", &bytes);
}

#[test]
fn trailing_call_gets_a_new_tool_message() {
    let bytes = read("dangling.json");
    let a = lint::analyse("dangling.json", &bytes, &LintOptions::default());
    let f = lint::findings("dangling.json", &a);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message
            .contains("\"Tool result is missing for tool call call_fx.\""),
        "{}",
        f[0].message
    );
    let out = check_repair("dangling.json", Some("dangling.repaired.json"));
    assert!(findings("dangling.json", &out).is_empty());
    assert_strict("dangling.json", &out);
}

#[test]
fn partial_results_are_completed_in_the_last_tool_message() {
    assert_eq!(
        findings("partial.json", &read("partial.json")),
        ["TM001 call_c"]
    );
    let out = check_repair("partial.json", Some("partial.repaired.json"));
    assert!(findings("partial.json", &out).is_empty());
    assert_strict("partial.json", &out);
}

#[test]
fn v4_messages_get_v4_results() {
    assert_eq!(findings("v4.json", &read("v4.json")), ["TM001 c2"]);
    let out = check_repair("v4.json", Some("v4.repaired.json"));
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(
        r#""result":"[Tool call was interrupted and did not return a result.]","isError":true"#
    ));
    assert_strict("v4.json", &out);
}

#[test]
fn pending_approval_without_a_response_is_dangling() {
    assert_eq!(
        findings("approval_pending.json", &read("approval_pending.json")),
        ["TM001 call_del"]
    );
    let out = check_repair(
        "approval_pending.json",
        Some("approval_pending.repaired.json"),
    );
    assert!(findings("approval_pending.json", &out).is_empty());
    assert_strict("approval_pending.json", &out);
}

#[test]
fn reused_ids_are_legal_until_one_is_left_unanswered() {
    assert_eq!(
        findings("reused_ids.json", &read("reused_ids.json")),
        ["TM001 call_1"]
    );
    let out = check_repair("reused_ids.json", Some("reused_ids.repaired.json"));
    assert!(findings("reused_ids.json", &out).is_empty());
    assert_strict("reused_ids.json", &out);
}

#[test]
fn misplaced_tool_message_is_moved_after_its_call() {
    assert_eq!(
        findings("misplaced.json", &read("misplaced.json")),
        ["TM003 call_read"]
    );
    let out = check_repair("misplaced.json", Some("misplaced.repaired.json"));
    assert!(findings("misplaced.json", &out).is_empty());
    assert_strict("misplaced.json", &out);
}

#[test]
fn orphans_and_duplicates_change_only_by_policy() {
    let bytes = read("orphan.json");
    assert_eq!(findings("orphan.json", &bytes), ["TM002 call_gone"]);
    check_repair("orphan.json", None);
    let note = RepairOptions {
        orphans: OrphanPolicy::Note,
        ..RepairOptions::default()
    };
    let out = repaired_with("orphan.json", &bytes, &note);
    assert_eq!(out, read("orphan.note.repaired.json"));
    assert!(findings("orphan.json", &out).is_empty());

    let bytes = read("duplicate.json");
    assert_eq!(findings("duplicate.json", &bytes), ["TM004 call_t"]);
    check_repair("duplicate.json", None);
    let keep_first = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..RepairOptions::default()
    };
    let out = repaired_with("duplicate.json", &bytes, &keep_first);
    assert!(findings("duplicate.json", &out).is_empty());
    assert_strict("duplicate.json", &out);
}

#[test]
fn message_lines_keep_their_crlf() {
    let bytes = read("messages.jsonl");
    assert_eq!(findings("messages.jsonl", &bytes), ["TM001 call_ls"]);
    let out = check_repair("messages.jsonl", Some("messages.repaired.jsonl"));
    assert_eq!(
        out.windows(2).filter(|w| w == b"\r\n").count(),
        4,
        "every line ends in CRLF"
    );
    assert_strict("messages.jsonl", &out);
}

#[test]
fn synthetic_marker_is_a_provider_option() {
    let options = RepairOptions {
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let out = repaired_with("dangling.json", &read("dangling.json"), &options);
    let v: Value = serde_json::from_slice(&out).unwrap();
    let part = &v["messages"][2]["content"][0];
    assert_eq!(part["providerOptions"]["toolmend"]["synthetic"], true);
    assert_eq!(part["output"]["type"], "error-text");
    assert!(findings("dangling.json", &out).is_empty());
}

#[test]
fn openai_messages_are_not_vercel_and_vercel_messages_are_not_openai() {
    let openai = br#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}"#;
    assert_eq!(dialects("o.json", openai), ["openai-chat"]);
    assert!(findings("o.json", openai).is_empty());
    let vercel = br#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"f","output":{"type":"text","value":"x"}}]}]}"#;
    assert_eq!(dialects("v.json", vercel), ["vercel-ai"]);
    assert_eq!(findings("v.json", vercel), ["TM002 c1"]);
}
