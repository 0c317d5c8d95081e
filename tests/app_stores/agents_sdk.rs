//! OpenAI Agents SDK `SQLiteSession`, written and read back by the real `openai-agents`.

use std::process::Command;

use toolmend::store::agents_sdk::AgentsSdkStore;

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
fn an_unanswered_call_gets_its_output_appended_and_the_sdk_sends_both() {
    let Some(python) = app("venvs/agents/bin/python") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("agents.db");
    sdk(&python, "make", &db);
    assert_eq!(detect(&db), "agents-sdk");
    // Only the call left behind by the approval interruption in a session that went on; the
    // paused session (waiting for approval) and the healthy one are not judged.
    assert_eq!(lint(&AgentsSdkStore, &db), ["TM001 call_m1 fix"]);

    let before = dump(&db);
    let changes = repair(&AgentsSdkStore, &db);
    let after = dump(&db);
    let new_row = format!("Integer({})", before["agent_messages"].len() + 1);
    let mut expected = vec![
        ("agent_messages".to_string(), new_row.clone()),
        ("sqlite_sequence".to_string(), "Integer(1)".to_string()),
    ];
    let session_row = changed(&before, &after)
        .into_iter()
        .find(|(t, _)| t == "agent_sessions");
    expected.extend(session_row);
    expected.sort();
    assert_eq!(changed(&before, &after), expected);
    assert_eq!(changes.len(), 2, "{changes:?}");
    let row = &after["agent_messages"][&new_row];
    assert_eq!(
        row[..3],
        [
            new_row.clone(),
            "Text(\"broken\")".to_string(),
            format!(
                "Text({:?})",
                r#"{"call_id": "call_m1", "output": "[Tool call was interrupted and did not return a result.]", "type": "function_call_output"}"#
            ),
        ]
    );
    assert!(lint(&AgentsSdkStore, &db).is_empty());
    assert!(
        repair(&AgentsSdkStore, &db).is_empty(),
        "a second repair changes nothing"
    );

    // The SDK resumes the session and sends the call with its output after it.
    let report = sdk(&python, "check", &db);
    assert!(report.contains("call_m1"), "{report}");
}
