//! OpenAI Agents SDK `SQLiteSession`, written and read back by the real `openai-agents`.

use std::process::Command;

use super::support::{app, changed, detect, dump, fixture, lint, repair};

fn sdk(python: &std::path::Path, action: &str, db: &std::path::Path) -> String {
    let out = Command::new(python)
        .arg(fixture("agents_sdk.py"))
        .args([action, &db.to_string_lossy()])
        .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn an_unanswered_call_gets_its_output_after_its_call_run_and_the_sdk_sends_both() {
    let Some(python) = app("venvs/agents/bin/python") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("agents.db");
    sdk(&python, "make", &db);
    assert_eq!(detect(&db), "agents-sdk");
    // Only the call left behind by the approval interruption in a session that went on; the
    // paused session (waiting for approval) and the healthy one are not judged.
    assert_eq!(lint(&db), ["TM001 call_m1 fix"]);

    let before = dump(&db);
    let written = repair(&db);
    let after = dump(&db);
    assert_eq!((written.placeholders, written.rows), (1, 2));
    // The output goes right after its call's run (row 4, the other call's output); the two
    // rows after it are written again behind it; other sessions are not touched.
    let key = |n: usize| format!("Integer({n})");
    let session_row = changed(&before, &after)
        .into_iter()
        .filter(|(t, _)| t == "agent_sessions");
    let mut expected: Vec<(String, String)> = [5, 6, 13, 14, 15]
        .map(|n| ("agent_messages".to_string(), key(n)))
        .into_iter()
        .chain([("sqlite_sequence".to_string(), key(1))])
        .chain(session_row)
        .collect();
    expected.sort();
    assert_eq!(changed(&before, &after), expected);
    let data = |d: &super::support::Dump, n: usize| d["agent_messages"][&key(n)][2].clone();
    assert_eq!(
        data(&after, 13),
        format!(
            "Text({:?})",
            r#"{"call_id": "call_m1", "output": "[Tool call was interrupted and did not return a result.]", "type": "function_call_output"}"#
        )
    );
    let kept = |d: &super::support::Dump, n: usize| d["agent_messages"][&key(n)][1..].to_vec();
    assert_eq!(
        (kept(&after, 14), kept(&after, 15)),
        (kept(&before, 5), kept(&before, 6))
    );
    assert!(lint(&db).is_empty());
    assert!(repair(&db).rows == 0, "a second repair changes nothing");

    // The SDK resumes the session and sends the call with its output after it.
    let report = sdk(&python, "check", &db);
    assert!(report.contains("call_m1"), "{report}");
}

#[test]
fn an_advanced_session_is_linted_but_never_rewritten() {
    let Some(python) = app("venvs/agents/bin/python") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("advanced.db");
    sdk(&python, "advanced", &db);
    // Its `message_structure` rows point at row ids: the finding has no fix, nothing is written.
    assert_eq!(lint(&db), ["TM001 call_m1"]);
    let before = dump(&db);
    assert_eq!(repair(&db).rows, 0);
    assert_eq!(dump(&db), before);
}
