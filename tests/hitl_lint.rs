//! Lint rule TM008 over stored histories, and the batches `simulate` takes from them.

use toolmend::Options as LintOptions;
use toolmend::simulate::{Mode, SetOptions};

const HISTORY: &str = r#"{"messages": [
  {"role": "user", "content": "mail the notes, ask me the version first"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c_ask", "type": "function", "function": {"name": "ask_user_question", "arguments": "{}"}},
    {"id": "c_mail", "type": "function", "function": {"name": "send_email", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c_ask", "content": "v2"},
  {"role": "tool", "tool_call_id": "c_mail", "content": "sent"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c_one", "type": "function", "function": {"name": "send_email", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c_one", "content": "sent"}
]}"#;

fn sets(direct: &[&str], guard: Option<&[&str]>) -> toolmend::simulate::ToolSets {
    SetOptions {
        mode: Some(Mode::EventDriven),
        direct: Some(direct.iter().map(|s| s.to_string()).collect()),
        interrupting: Some(vec!["ask_user_question".into()]),
        guard: guard.map(|g| g.iter().map(|s| s.to_string()).collect()),
        approval: None,
    }
    .resolve()
}

#[test]
fn only_batches_of_two_or_more_calls() {
    let a = toolmend::analyse("h.json", HISTORY.as_bytes(), &LintOptions::default());
    let found = toolmend::find_batches("h.json", &a);
    assert_eq!(found.len(), 1);
    let names: Vec<&str> = found[0]
        .batch
        .calls
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["ask_user_question", "send_email"]);
    assert!(
        found[0]
            .batch
            .source
            .starts_with("h.json:3 conversation 0 message 1"),
        "{}",
        found[0].batch.source
    );
}

#[test]
fn direct_sibling_is_flagged_and_the_guard_named() {
    let a = toolmend::analyse("h.json", HISTORY.as_bytes(), &LintOptions::default());
    let f = toolmend::hitl_findings(
        "h.json",
        &a,
        &sets(&["ask_user_question", "send_email"], None),
    );
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].code, f[0].line, f[0].message_index),
        ("TM008", 3, Some(1))
    );
    assert_eq!(f[0].tool_name.as_deref(), Some("ask_user_question"));
    assert_eq!(f[0].call_id.as_deref(), Some("c_ask"));
    assert!(
        f[0].message.contains("send_email (c_mail) runs 2×"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].message.contains("The guard runs every call once."),
        "{}",
        f[0].message
    );

    // Without the interrupting tool in the guard set, the message says adding it would help.
    let f = toolmend::hitl_findings(
        "h.json",
        &a,
        &sets(&["ask_user_question", "send_email"], Some(&[])),
    );
    assert!(
        f[0].message.contains("does not include ask_user_question"),
        "{}",
        f[0].message
    );
}

#[test]
fn event_dispatched_sibling_is_safe() {
    let a = toolmend::analyse("h.json", HISTORY.as_bytes(), &LintOptions::default());
    assert!(toolmend::hitl_findings("h.json", &a, &sets(&["ask_user_question"], None)).is_empty());
}
