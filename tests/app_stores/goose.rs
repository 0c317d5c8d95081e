//! Goose `sessions.db`, made with Goose's own DDL (`fixtures/stores/goose.sql`).

use rusqlite::{Connection, params};

use super::support::{changed, detect, dump, fixture, lint, repair};

const T1: &str = r#"{"type":"toolRequest","id":"toolu_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}"#;
const T2: &str = r#"{"type":"toolRequest","id":"toolu_2","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"view","path":"/w/config.toml"}}}}"#;
const R1: &str = r#"{"type":"toolResponse","id":"toolu_1","toolResult":{"status":"success","value":[{"type":"text","text":"a.txt\nb.txt"}]}}"#;
const META: &str = r#"{"userVisible":true,"agentVisible":true}"#;

fn text(t: &str) -> String {
    format!(r#"[{{"type":"text","text":"{t}"}}]"#)
}

/// Rows in insertion order (ids interleave the sessions): session, role, content, time.
fn rows() -> Vec<(&'static str, &'static str, String, &'static str)> {
    vec![
        ("20261201_1", "user", text("List the files and read the config."), "10:00:00"),
        ("20261201_2", "user", text("What is in a.txt?"), "10:00:00"),
        ("20261201_1", "assistant", format!("[{T1},{T2}]"), "10:00:01"),
        ("20261201_2", "assistant", r#"[{"type":"toolRequest","id":"toolu_h","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"cat a.txt"}}}}]"#.into(), "10:00:01"),
        ("20261201_1", "user", format!("[{R1}]"), "10:00:03"),
        ("20261201_2", "user", r#"[{"type":"toolResponse","id":"toolu_h","toolResult":{"status":"success","value":[{"type":"text","text":"hello"}]}}]"#.into(), "10:00:02"),
        ("20261201_1", "user", text("Never mind the config. Which files?"), "10:05:00"),
        ("20261201_2", "assistant", text("It says hello."), "10:00:03"),
        ("20261201_1", "assistant", text("a.txt and b.txt."), "10:05:01"),
        ("20261201_3", "user", text("Run the tests."), "11:00:00"),
        ("20261201_3", "assistant", r#"[{"type":"toolRequest","id":"toolu_l","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"cargo test"}}}}]"#.into(), "11:00:01"),
    ]
}

fn make(path: &std::path::Path) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(&std::fs::read_to_string(fixture("goose.sql")).unwrap())
        .unwrap();
    for s in ["20261201_1", "20261201_2", "20261201_3"] {
        conn.execute(
            "INSERT INTO sessions (id, name, working_dir) VALUES (?1, 'chat', '/w')",
            [s],
        )
        .unwrap();
    }
    for (i, (s, role, content, time)) in rows().into_iter().enumerate() {
        conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json, message_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![s, role, content, 1_764_583_200 + i as i64, format!("2026-12-01 {time}"), META, format!("msg_{i}")],
        )
        .unwrap();
    }
}

/// The session as Goose reads it (`ORDER BY timestamp`): every column but `id`.
fn session(path: &std::path::Path, id: &str) -> Vec<Vec<String>> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT role, content_json, created_timestamp, timestamp, tokens, metadata_json, message_id FROM messages WHERE session_id = ?1 ORDER BY timestamp")
        .unwrap();
    stmt.query_map([id], |r| {
        (0..7)
            .map(|i| Ok(format!("{:?}", r.get::<_, rusqlite::types::Value>(i)?)))
            .collect()
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn an_unanswered_request_gets_an_error_response_right_after_its_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    make(&db);
    assert_eq!(detect(&db), "goose");
    // The trailing request of session 3 may still be running: not judged.
    assert_eq!(lint(&db), ["TM001 toolu_2 fix"]);

    let (before, old) = (dump(&db), session(&db, "20261201_1"));
    assert_eq!(repair(&db).rows, 3);
    let (after, new) = (dump(&db), session(&db, "20261201_1"));

    // Goose reads the same session with one message more, right after the call's responses.
    assert_eq!(new.len(), old.len() + 1);
    assert_eq!([&new[..3], &new[4..]].concat(), old);
    assert_eq!(new[3][0], "Text(\"user\")");
    assert_eq!(
        new[3][1],
        format!(
            "Text({:?})",
            r#"[{"type":"toolResponse","id":"toolu_2","toolResult":{"status":"error","error":"[Tool call was interrupted and did not return a result.]"}}]"#
        )
    );
    assert_eq!(
        new[3][2..4],
        old[2][2..4],
        "dated like the message before it"
    );
    // Rows before the insertion keep their ids; the two after it are written again; the
    // other sessions are not touched.
    let ids = |d: &super::support::Dump| d["messages"].keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        changed(&before, &after),
        [
            ("messages", "Integer(12)"),
            ("messages", "Integer(13)"),
            ("messages", "Integer(14)"),
            ("messages", "Integer(7)"),
            ("messages", "Integer(9)"),
            ("sqlite_sequence", "Integer(1)"),
        ]
        .map(|(t, k)| (t.to_string(), k.to_string()))
    );
    assert_eq!(ids(&after).len(), ids(&before).len() + 1);
    assert!(lint(&db).is_empty());
    assert!(repair(&db).rows == 0, "a second repair changes nothing");
}

#[test]
fn a_rewrite_that_fails_half_way_leaves_the_database_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    make(&db);
    // The placeholder insert fails after the rows after it were already deleted.
    Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER refuse BEFORE INSERT ON messages WHEN NEW.content_json LIKE '%\"error\"%' \
             BEGIN SELECT RAISE(ABORT, 'refused'); END;",
        )
        .unwrap();
    let before = dump(&db);
    let err = toolmend::store::pipeline::repair(
        &db,
        &Default::default(),
        &Default::default(),
        &Default::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
    assert_eq!(dump(&db), before);
}

#[test]
fn the_command_line_lints_repairs_and_lints_clean() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    make(&db);
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolmend"))
            .args(args)
            .arg(&db)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code(), text)
    };
    let (code, text) = run(&["detect"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("SQLite database: goose"), "{text}");
    let (code, text) = run(&["lint"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("thread 20261201_1") && text.contains("TM001"),
        "{text}"
    );
    assert!(
        text.contains("Goose drops the unanswered request"),
        "{text}"
    );
    assert_eq!(run(&["repair", "--in-place"]).0, Some(0));
    let (code, text) = run(&["lint"]);
    assert_eq!(code, Some(0), "{text}");
}
