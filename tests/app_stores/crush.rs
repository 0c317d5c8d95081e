//! Crush `crush.db`, made with Crush's own migrations (`fixtures/stores/crush.sql`).

use rusqlite::{Connection, params};
use serde_json::Value;

use super::support::{changed, detect, dump, fixture, lint, repair};

fn call(id: &str, name: &str) -> String {
    format!(
        r#"{{"type":"tool_call","data":{{"id":"{id}","name":"{name}","input":"{{\"command\":\"ls\"}}","provider_executed":false,"finished":true}}}}"#
    )
}

fn result(id: &str, name: &str) -> String {
    format!(
        r#"{{"type":"tool_result","data":{{"tool_call_id":"{id}","name":"{name}","content":"a.txt","data":"","mime_type":"","metadata":"","is_error":false}}}}"#
    )
}

fn text(t: &str) -> String {
    format!(r#"{{"type":"text","data":{{"text":"{t}"}}}}"#)
}

const STOP: &str = r#"{"type":"finish","data":{"reason":"stop","time":0}}"#;
const TOOL_USE: &str = r#"{"type":"finish","data":{"reason":"tool_use","time":1764583201}}"#;

fn make(path: &std::path::Path) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(&std::fs::read_to_string(fixture("crush.sql")).unwrap())
        .unwrap();
    for s in ["s-broken", "s-healthy", "s-tie"] {
        conn.execute(
            "INSERT INTO sessions (id, title, updated_at, created_at) VALUES (?1, 'chat', 1, 1)",
            [s],
        )
        .unwrap();
    }
    let rows: Vec<(&str, &str, String, i64)> = vec![
        (
            "s-broken",
            "user",
            format!("[{},{STOP}]", text("list and view")),
            100,
        ),
        (
            "s-broken",
            "assistant",
            format!("[{},{},{TOOL_USE}]", call("c1", "ls"), call("c2", "view")),
            101,
        ),
        ("s-healthy", "user", format!("[{},{STOP}]", text("ls")), 150),
        (
            "s-broken",
            "tool",
            format!("[{},{STOP}]", result("c1", "ls")),
            103,
        ),
        (
            "s-healthy",
            "assistant",
            format!("[{},{TOOL_USE}]", call("h1", "ls")),
            151,
        ),
        (
            "s-healthy",
            "tool",
            format!("[{},{STOP}]", result("h1", "ls")),
            151,
        ),
        (
            "s-broken",
            "user",
            format!("[{},{STOP}]", text("it crashed; just ls")),
            200,
        ),
        ("s-tie", "user", format!("[{},{STOP}]", text("ls")), 300),
        ("s-tie", "assistant", format!("[{}]", call("t1", "ls")), 301),
        ("s-tie", "user", format!("[{},{STOP}]", text("again")), 301),
    ];
    for (i, (s, role, parts, at)) in rows.into_iter().enumerate() {
        conn.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, 'gpt-5', ?5, ?5)",
            params![format!("m{i:02}"), s, role, parts, at],
        )
        .unwrap();
    }
}

/// `role:call-or-result-ids` per message, as Crush reads the session (`ORDER BY created_at`).
fn session(path: &std::path::Path, id: &str) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT role, parts FROM messages WHERE session_id = ?1 ORDER BY created_at")
        .unwrap();
    stmt.query_map([id], |r| {
        let parts: Vec<Value> = serde_json::from_str(&r.get::<_, String>(1)?).unwrap();
        let ids: Vec<String> = parts
            .iter()
            .filter_map(|p| {
                let d = &p["data"];
                d["id"]
                    .as_str()
                    .or(d["tool_call_id"].as_str())
                    .map(str::to_string)
            })
            .collect();
        Ok(format!("{}:{}", r.get::<_, String>(0)?, ids.join(",")))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn an_unanswered_call_gets_an_error_tool_message_where_crush_writes_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crush.db");
    make(&db);
    assert_eq!(detect(&db), "crush");
    // In s-tie the next message shares the call's second: no date sorts a result between
    // them, so it is reported without a fix.
    assert_eq!(lint(&db), ["TM001 c2 fix", "TM001 t1"]);

    let before = dump(&db);
    let written = repair(&db);
    let after = dump(&db);
    assert_eq!((written.placeholders, written.rows), (1, 1));
    assert_eq!(
        session(&db, "s-broken"),
        ["user:", "assistant:c1,c2", "tool:c1", "tool:c2", "user:"]
    );
    let conn = Connection::open(&db).unwrap();
    let (parts, count): (String, i64) = conn
        .query_row(
            "SELECT m.parts, s.message_count FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.rowid = 11",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        parts,
        r#"[{"type":"tool_result","data":{"tool_call_id":"c2","name":"view","content":"[Tool call was interrupted and did not return a result.]","data":"","mime_type":"","metadata":"","is_error":true}},{"type":"finish","data":{"reason":"stop","time":0}}]"#
    );
    assert_eq!(count, 5, "Crush's trigger counted the new message");
    // The new message, and its session's row (Crush's own triggers); nothing else.
    assert_eq!(
        changed(&before, &after),
        [("messages", "Integer(11)"), ("sessions", "Integer(1)")]
            .map(|(t, k)| (t.to_string(), k.to_string()))
    );
    assert_eq!(lint(&db), ["TM001 t1"]);
    assert!(repair(&db).rows == 0, "a second repair changes nothing");
}

#[test]
fn nothing_is_written_while_crush_holds_the_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crush.db");
    make(&db);
    let app = Connection::open(&db).unwrap();
    app.execute_batch("BEGIN IMMEDIATE").unwrap();
    let before = dump(&db);
    let err = toolmend::store::pipeline::repair(
        &db,
        &Default::default(),
        &Default::default(),
        &Default::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("TM016"), "{err}");
    app.execute_batch("ROLLBACK").unwrap();
    assert_eq!(dump(&db), before);
}
