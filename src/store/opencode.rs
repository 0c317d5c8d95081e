//! OpenCode's `opencode.db` and Kilo's `kilo.db` (Kilo CLI is an OpenCode fork with the same
//! tables): `message` and `part` rows whose `data` column holds the JSON of the message or part
//! without its ids. A tool part (`"type":"tool"`) carries its own lifecycle in `state.status`:
//! `pending` → `running` → `completed` | `error`; there is no separate result row.
//!
//! A tool part still `pending` or `running` in a message that is not the session's last is
//! dangling: the run that owned it is gone. (A part marked `background` in its metadata is a
//! task that may legitimately run on while the session goes on: it is not judged.)
//!
//! Repair writes what OpenCode itself writes when a run is aborted with tools in flight
//! (`SessionProcessor`, same in Kilo): the part's `state` becomes `{...state, status: "error",
//! error: "Tool execution aborted", metadata: {...metadata, interrupted: true}, time: {start,
//! end}}` and the row's `time_updated` is bumped, as its upsert does. Every other byte of
//! `data`, every other part and every other row stay as they were.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::Value;

use super::app_store::{
    AppStore, ChangeKind, RowChange, StoreResult, StoredCall, compact, dangling, has_table,
    locator, now_ms, raw, raw_object, unreadable,
};
use crate::finding::Finding;

/// The error text OpenCode writes into a tool part it aborts.
pub const ABORTED: &str = "Tool execution aborted";

const FIX: &str = "mark the part as aborted, as OpenCode does (state.status \"error\", \
                   error \"Tool execution aborted\", metadata.interrupted true)";

/// Which application of the family wrote the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// OpenCode (`opencode.db`).
    OpenCode,
    /// Kilo CLI (`kilo.db`, with its `kilo_board` tables).
    Kilo,
}

/// The OpenCode-family store.
pub struct OpenCodeStore(pub Family);

/// One tool part left in flight.
struct InFlight {
    call: StoredCall,
    part: String,
    data: String,
}

impl AppStore for OpenCodeStore {
    fn name(&self) -> &'static str {
        match self.0 {
            Family::OpenCode => "opencode",
            Family::Kilo => "kilo",
        }
    }

    fn recognise(&self, conn: &Connection, path: &str) -> StoreResult<Option<String>> {
        let cols = ["id", "session_id", "time_created", "time_updated", "data"];
        if !has_table(conn, "message", &cols)?
            || !has_table(conn, "part", &[&cols[..], &["message_id"]].concat())?
        {
            return Ok(None);
        }
        let kilo = has_table(conn, "kilo_board", &["id"])?
            || std::path::Path::new(path)
                .file_name()
                .is_some_and(|n| n == "kilo.db");
        let family = if kilo { Family::Kilo } else { Family::OpenCode };
        if family != self.0 {
            return Ok(None);
        }
        let app = match family {
            Family::OpenCode => "OpenCode",
            Family::Kilo => "Kilo (an OpenCode fork: `kilo_board` table or file name kilo.db)",
        };
        Ok(Some(format!(
            "{app} session store: tables `message` and `part` with JSON `data` columns"
        )))
    }

    fn lint(&self, conn: &Connection, path: &str) -> StoreResult<Vec<Finding>> {
        let (found, mut findings) = scan(conn, path)?;
        findings.extend(
            found
                .iter()
                .map(|f| dangling(path, &f.call, "OpenCode left the part in flight", Some(FIX))),
        );
        Ok(findings)
    }

    fn repair(&self, tx: &Transaction<'_>, path: &str, _text: &str) -> StoreResult<Vec<RowChange>> {
        let (found, _) = scan(tx, path)?;
        let mut changes = Vec::new();
        for f in found {
            let Some(data) = aborted(&f.data, now_ms()) else {
                continue;
            };
            let n = tx.execute(
                "UPDATE part SET data = ?1, time_updated = ?2 WHERE id = ?3 AND data = ?4",
                params![data, now_ms(), f.part, f.data],
            )?;
            if n == 1 {
                changes.push(RowChange {
                    table: "part".into(),
                    key: f.part,
                    kind: ChangeKind::Updated,
                    session: f.call.session,
                });
            }
        }
        Ok(changes)
    }
}

/// Every in-flight tool part of a session that moved on, and a finding per unreadable row.
fn scan(conn: &Connection, path: &str) -> StoreResult<(Vec<InFlight>, Vec<Finding>)> {
    let mut sessions = conn.prepare(
        "SELECT session_id FROM message GROUP BY session_id ORDER BY MIN(time_created), session_id",
    )?;
    let sessions: Vec<String> = sessions
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for (index, session) in sessions.iter().enumerate() {
        match scan_session(conn, path, session, index)? {
            Ok(parts) => found.extend(parts),
            Err(problem) => problems.push(problem),
        }
    }
    Ok((found, problems))
}

fn scan_session(
    conn: &Connection,
    path: &str,
    session: &str,
    index: usize,
) -> StoreResult<Result<Vec<InFlight>, Finding>> {
    let mut stmt =
        conn.prepare("SELECT id FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let messages: Vec<String> = stmt
        .query_map([session], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut parts = conn.prepare(
        "SELECT id, data FROM part WHERE message_id = ?1 AND session_id = ?2 ORDER BY id",
    )?;
    let mut found = Vec::new();
    for (message_index, message) in messages.iter().enumerate() {
        let moved_on = message_index + 1 < messages.len();
        let rows: Vec<(String, String)> = parts
            .query_map([message, session], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (part, data) in rows {
            let pointer = locator(session, &["messages", message, "parts", &part]);
            let value: Value = match serde_json::from_str(&data) {
                Ok(v) => v,
                Err(e) => {
                    return Ok(Err(unreadable(
                        path,
                        session,
                        index,
                        pointer,
                        &e.to_string(),
                    )));
                }
            };
            if !moved_on || !in_flight(&value) {
                continue;
            }
            let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
            found.push(InFlight {
                call: StoredCall {
                    session: session.to_string(),
                    session_index: index,
                    message: message.clone(),
                    message_index,
                    call_id: text("callID"),
                    tool: text("tool"),
                    pointer,
                },
                part,
                data,
            });
        }
    }
    Ok(Ok(found))
}

/// A tool part still pending or running, not a background task.
fn in_flight(part: &Value) -> bool {
    let state = &part["state"];
    let background = |m: &Value| m.get("background") == Some(&Value::Bool(true));
    part["type"] == "tool"
        && matches!(state["status"].as_str(), Some("pending" | "running"))
        && !background(&state["metadata"])
        && !background(&part["metadata"])
}

/// The part's `data` with its state marked aborted at `now`, every other member's text kept.
pub fn aborted(data: &str, now: i64) -> Option<String> {
    let mut part = raw_object(data).ok()?;
    let mut state = raw_object(part.get("state")?.get()).ok()?;
    let start = state
        .get("time")
        .and_then(|t| serde_json::from_str::<Value>(t.get()).ok())
        .and_then(|t| t.get("start").and_then(Value::as_i64))
        .unwrap_or(now);
    let mut metadata = state
        .get("metadata")
        .and_then(|m| raw_object(m.get()).ok())
        .unwrap_or_default();
    metadata.insert("interrupted".into(), raw(&true));
    state.insert("status".into(), raw(&"error"));
    state.insert("error".into(), raw(&ABORTED));
    state.insert("metadata".into(), raw_text(&compact(&metadata)));
    state.insert(
        "time".into(),
        raw(&serde_json::json!({"start": start, "end": now})),
    );
    part.insert("state".into(), raw_text(&compact(&state)));
    Some(compact(&part))
}

fn raw_text(text: &str) -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::from_string(text.to_string()).unwrap_or_else(|_| raw(&()))
}

/// The state of one part by id (for tests and re-reads).
pub fn part_data(conn: &Connection, part: &str) -> StoreResult<Option<String>> {
    conn.query_row("SELECT data FROM part WHERE id = ?1", [part], |r| r.get(0))
        .optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aborting_a_running_part_keeps_every_other_member() {
        let data = r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"running","input":{"command":"sleep 1.50"},"title":"t","metadata":{"output":"x"},"time":{"start":17}},"metadata":{"k":1}}"#;
        assert_eq!(
            aborted(data, 99).unwrap(),
            r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"error","input":{"command":"sleep 1.50"},"title":"t","metadata":{"output":"x","interrupted":true},"time":{"start":17,"end":99},"error":"Tool execution aborted"},"metadata":{"k":1}}"#
        );
    }

    #[test]
    fn aborting_a_pending_part_starts_its_clock_now() {
        let data = r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"pending","input":{},"raw":""}}"#;
        assert_eq!(
            aborted(data, 5).unwrap(),
            r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"error","input":{},"raw":"","error":"Tool execution aborted","metadata":{"interrupted":true},"time":{"start":5,"end":5}}}"#
        );
    }
}
