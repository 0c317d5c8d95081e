//! The Vercel AI SDK dialect end to end: findings on our ModelMessage fixtures, repairs pinned
//! byte for byte, idempotence, a clean lint after repair, and a checker of the SDK's own
//! missing-result rule plus the providers' "results right after the call" rule.

use std::collections::BTreeSet;

pub mod common;

use common::api::{code_ids, dialects, findings, repair_with, with_orphans};
use common::pinned::{check_fix, check_kept, run_as};
use common::{docs, files};
use serde_json::Value;
use toolmend::{DuplicatePolicy, OrphanPolicy, RepairOptions};

const SET: &str = "vercel-ai";

fn read(name: &str) -> Vec<u8> {
    files::read(SET, name)
}

/// [`check_fix`], and the repaired fixture meets the SDK's and the providers' rules.
fn fixed(name: &str, before: &[&str]) -> Vec<u8> {
    let out = check_fix(SET, name, before);
    assert_strict(name, &out);
    out
}

/// The message lists of a document: a bare array, `{messages}`, or one message per line.
fn messages(name: &str, bytes: &[u8]) -> Vec<Value> {
    let values = docs::values(name, bytes);
    if name.ends_with(".jsonl") {
        return values;
    }
    docs::lists(&values[0], &["/messages"])
        .first()
        .map_or_else(Vec::new, |l| l.to_vec())
}

fn parts<'a>(m: &'a Value, ty: &str) -> Vec<&'a Value> {
    docs::array(m, "content")
        .iter()
        .filter(|p| p["type"] == ty)
        .collect()
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
        "reused-ids.json",
        "v4.json",
        "approval-pending.json",
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
    let bytes = check_kept(SET, "clean.json", &[]);
    assert_eq!(dialects("clean.json", &bytes), ["vercel-ai"]);
    assert_strict("clean.json", &bytes);
}

#[test]
fn trailing_call_gets_a_new_tool_message() {
    let f = findings("dangling.json", &read("dangling.json"));
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message
            .contains("\"Tool result is missing for tool call call_fx.\""),
        "{}",
        f[0].message
    );
    fixed("dangling.json", &["TM001 call_fx"]);
}

#[test]
fn partial_results_are_completed_in_the_last_tool_message() {
    fixed("partial.json", &["TM001 call_c"]);
}

#[test]
fn v4_messages_get_v4_results() {
    let out = fixed("v4.json", &["TM001 c2"]);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(
        r#""result":"[Tool call was interrupted and did not return a result.]","isError":true"#
    ));
}

#[test]
fn pending_approval_without_a_response_is_dangling() {
    fixed("approval-pending.json", &["TM001 call_del"]);
}

#[test]
fn reused_ids_are_legal_until_one_is_left_unanswered() {
    fixed("reused-ids.json", &["TM001 call_1"]);
}

#[test]
fn misplaced_tool_message_is_moved_after_its_call() {
    fixed("misplaced.json", &["TM003 call_read"]);
}

#[test]
fn orphans_and_duplicates_change_only_by_policy() {
    check_kept(SET, "orphan.json", &["TM002 call_gone"]);
    let note = with_orphans(OrphanPolicy::Note);
    let out = run_as(SET, "orphan.json", "orphan.note.repaired.json", &note);
    assert!(code_ids("orphan.json", &out).is_empty());

    let bytes = check_kept(SET, "duplicate.json", &["TM004 call_t"]);
    let keep_first = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..RepairOptions::default()
    };
    let out = repair_with("duplicate.json", &bytes, &keep_first);
    assert!(code_ids("duplicate.json", &out).is_empty());
    assert_strict("duplicate.json", &out);
}

#[test]
fn message_lines_keep_their_crlf() {
    let out = fixed("messages.jsonl", &["TM001 call_ls"]);
    assert_eq!(
        out.windows(2).filter(|w| w == b"\r\n").count(),
        4,
        "every line ends in CRLF"
    );
}

#[test]
fn synthetic_marker_is_a_provider_option() {
    let options = RepairOptions {
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let out = repair_with("dangling.json", &read("dangling.json"), &options);
    let v: Value = serde_json::from_slice(&out).unwrap();
    let part = &v["messages"][2]["content"][0];
    assert_eq!(part["providerOptions"]["toolmend"]["synthetic"], true);
    assert_eq!(part["output"]["type"], "error-text");
    assert!(code_ids("dangling.json", &out).is_empty());
}

#[test]
fn openai_messages_are_not_vercel_and_vercel_messages_are_not_openai() {
    let openai = br#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}"#;
    assert_eq!(dialects("o.json", openai), ["openai-chat"]);
    assert!(code_ids("o.json", openai).is_empty());
    let vercel = br#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"f","output":{"type":"text","value":"x"}}]}]}"#;
    assert_eq!(dialects("v.json", vercel), ["vercel-ai"]);
    assert_eq!(code_ids("v.json", vercel), ["TM002 c1"]);
}
