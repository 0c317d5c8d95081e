//! Repair options beyond the safe default: unsafe policies, the placeholder template, the
//! synthetic marker, `--tail`, and the DeerFlow compatibility profile.

pub mod common;

use common::api::codes;
use toolmend::Options as LintOptions;
use toolmend::{DuplicatePolicy, OrphanPolicy, RepairOptions};

fn run(src: &str, name: &str, lint_opts: &LintOptions, opts: &RepairOptions) -> String {
    let a = toolmend::analyse(name, src.as_bytes(), lint_opts);
    String::from_utf8(a.repair(src.as_bytes(), opts).output).unwrap()
}

const MIXED: &str = r#"[
  {"role": "tool", "tool_call_id": "ghost", "content": "no call"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "d1", "type": "function", "function": {"name": "fast", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "d1", "content": "first"},
  {"role": "tool", "tool_call_id": "d1", "content": "second"}
]"#;

#[test]
fn safe_default_keeps_orphans_and_duplicates() {
    let out = run(
        MIXED,
        "m.json",
        &LintOptions::default(),
        &RepairOptions::default(),
    );
    assert_eq!(out, MIXED);
}

#[test]
fn orphans_drop_and_note() {
    let drop = RepairOptions {
        orphans: OrphanPolicy::Drop,
        ..RepairOptions::default()
    };
    let out = run(MIXED, "m.json", &LintOptions::default(), &drop);
    assert!(!out.contains("ghost"), "{out}");
    assert!(out.starts_with("[\n  {\"role\": \"assistant\""), "{out}");
    assert_eq!(codes("m.json", out.as_bytes()), ["TM004"]);

    let note = RepairOptions {
        orphans: OrphanPolicy::Note,
        ..RepairOptions::default()
    };
    let out = run(MIXED, "m.json", &LintOptions::default(), &note);
    assert!(
        out.contains(r#"{"role": "user", "content": "[toolmend: tool result for unknown call ghost] no call"}"#),
        "{out}"
    );
    assert_eq!(codes("m.json", out.as_bytes()), ["TM004"]);
}

/// A note is not a result: an orphan noted where it stands inside an answer window would end
/// the window before the results and placeholders after it, and the repaired log would still
/// be refused (a second repair then moved them). The notes go after them, in their order.
#[test]
fn notes_of_orphans_inside_an_answer_window_go_after_its_results() {
    let call = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}"#;
    let note = RepairOptions {
        orphans: OrphanPolicy::Note,
        ..RepairOptions::default()
    };
    let x = r#"{"role":"tool","tool_call_id":"x","content":"stray"}"#;
    let y = r#"{"role":"tool","tool_call_id":"y","content":"late"}"#;
    let a = r#"{"role":"tool","tool_call_id":"a","content":"ok"}"#;
    let user = r#"{"role":"user","content":"next"}"#;
    // Results after the orphan, the orphan last in its window, and a file ending there.
    for (messages, tail) in [
        (vec![call, x, a, y, user], "next"),
        (vec![call, a, x], "stray"),
        (vec![call, x], "stray"),
    ] {
        for (name, src) in [
            (
                "w.jsonl",
                messages.iter().map(|m| format!("{m}\n")).collect(),
            ),
            (
                "w.json",
                format!("{{\"messages\":[{}]}}", messages.join(",")),
            ),
        ] {
            let out = run(&src, name, &LintOptions::default(), &note);
            assert_eq!(codes(name, out.as_bytes()), Vec::<String>::new(), "{out}");
            let b = out.find("interrupted").expect("b gets a placeholder");
            let notes: Vec<usize> = ["unknown call x", "unknown call y"]
                .iter()
                .filter_map(|n| out.find(n))
                .collect();
            assert!(notes.is_sorted() && notes.iter().all(|&n| n > b), "{out}");
            assert!(out.find(tail) >= notes.last().copied(), "{out}");
            assert_eq!(run(&out, name, &LintOptions::default(), &note), out);
        }
    }
}

#[test]
fn duplicates_keep_first_or_last() {
    let first = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..RepairOptions::default()
    };
    let out = run(MIXED, "m.json", &LintOptions::default(), &first);
    assert!(
        out.contains("\"first\"") && !out.contains("\"second\""),
        "{out}"
    );
    let last = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepLast),
        ..RepairOptions::default()
    };
    let out = run(MIXED, "m.json", &LintOptions::default(), &last);
    assert!(
        !out.contains("\"first\"") && out.contains("\"second\""),
        "{out}"
    );
    assert_eq!(codes("m.json", out.as_bytes()), ["TM002"]);
}

const DANGLING: &str = r#"[{"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [{"name": "search", "args": {}, "id": "c9", "type": "tool_call"}]}}, {"type": "human", "data": {"content": "hello", "type": "human"}}]"#;

#[test]
fn placeholder_template_and_marker() {
    let opts = RepairOptions {
        placeholder: "Tool {name} ({id}) was cancelled.".into(),
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let out = run(DANGLING, "d.json", &LintOptions::default(), &opts);
    assert!(
        out.contains(r#"{"type": "tool", "data": {"content": "Tool search (c9) was cancelled.", "tool_call_id": "c9", "name": "search", "status": "error", "additional_kwargs": {"toolmend_synthetic": true}}}"#),
        "{out}"
    );
}

#[test]
fn seed_placeholder_has_exactly_the_seed_fields() {
    let out = run(
        DANGLING,
        "d.json",
        &LintOptions::default(),
        &RepairOptions::default(),
    );
    assert!(
        out.contains(r#"{"type": "tool", "data": {"content": "[Tool call was interrupted and did not return a result.]", "tool_call_id": "c9", "name": "search", "status": "error"}}, {"type": "human""#),
        "{out}"
    );
}

#[test]
fn tail_only_looks_at_the_last_messages() {
    let src = r#"[
  {"role": "assistant", "tool_calls": [{"id": "old", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
  {"role": "user", "content": "x"},
  {"role": "assistant", "tool_calls": [{"id": "new", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
  {"role": "user", "content": "y"}
]"#;
    let tail = LintOptions {
        tail: Some(2),
        ..LintOptions::default()
    };
    let out = run(src, "t.json", &tail, &RepairOptions::default());
    assert!(
        out.contains(r#""tool_call_id": "new""#) && !out.contains(r#""tool_call_id": "old""#),
        "{out}"
    );
}

#[test]
fn deerflow_profile_reproduces_the_seed() {
    // Partial parallel results: the seed puts placeholders right after the AI message, before
    // the real result; a late result anywhere counts as an answer (global id set).
    let src = r#"[{"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [{"name": "a", "args": {}, "id": "c1"}, {"name": "b", "args": {}, "id": "c2"}, {"name": "c", "args": {}, "id": "c3"}]}}, {"type": "tool", "data": {"content": "ok", "type": "tool", "tool_call_id": "c2"}}, {"type": "human", "data": {"content": "x", "type": "human"}}, {"type": "tool", "data": {"content": "late", "type": "tool", "tool_call_id": "c3"}}]"#;
    let lint_opts = LintOptions {
        deerflow: true,
        ..LintOptions::default()
    };
    let opts = RepairOptions {
        before_results: true,
        ..RepairOptions::default()
    };
    let out = run(src, "p.json", &lint_opts, &opts);
    let ai_end = out.find("]}}, ").unwrap();
    let placeholder = out
        .find(r#""tool_call_id": "c1", "name": "a", "status": "error""#)
        .unwrap();
    let real = out.find(r#""content": "ok""#).unwrap();
    assert!(ai_end < placeholder && placeholder < real, "{out}");
    assert_eq!(out.matches("\"status\": \"error\"").count(), 1, "{out}");
    // The default (ordered walk) instead places it after the existing result and flags c3.
    let default = run(
        src,
        "p.json",
        &LintOptions::default(),
        &RepairOptions::default(),
    );
    assert!(
        default.find(r#""content": "ok""#).unwrap()
            < default.find(r#""tool_call_id": "c1""#).unwrap()
    );
}
