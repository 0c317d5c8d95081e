//! OpenCode's `opencode.db` and Kilo's `kilo.db` (Kilo CLI is an OpenCode fork with the same
//! tables, plus its `kilo_board` tables): `message` and `part` rows whose `data` column holds
//! the JSON of the message or part without its ids. A tool part (`"type":"tool"`) carries its
//! whole lifecycle in `state.status`: `pending` → `running` → `completed` | `error`.
//!
//! Each session is rendered as OpenAI chat messages: a message's tool parts are its calls, a
//! `completed` or `error` part also its result. A part still `pending` or `running` is dangling
//! once the session went on (a later message); in the session's last message it may still be
//! running, and a `background` task may run on while the session goes on: both are paused,
//! never repaired.
//!
//! Repair writes what OpenCode itself writes when a run is aborted with tools in flight
//! (`SessionProcessor`, the same in Kilo): the part's `state` becomes `{...state, status:
//! "error", error: "Tool execution aborted", metadata: {...metadata, interrupted: true}, time:
//! {start, end}}`, and the row's `time_updated` is bumped as its upsert does. Every other byte
//! of `data`, every other part and every other row stay as they were.

use rusqlite::{Connection, Transaction, params};
use serde_json::{Value, json};

use super::apps::{
    Chat, Slot, compact, has, layout, now_ms, placeholder, raw, raw_object, raw_text,
};
use super::{Content, Error, Location, Mended, Store, Stored};
use crate::dialect::{Dialect, OpenAiChat};

/// The error text OpenCode writes into a tool part it aborts.
pub const ABORTED: &str = "Tool execution aborted";

/// Which application of the family wrote the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// OpenCode (`opencode.db`).
    OpenCode,
    /// Kilo CLI (`kilo.db`, with its `kilo_board` table).
    Kilo,
}

/// The OpenCode-family store.
pub struct OpenCodeStore(pub Family);

const COLUMNS: &[&str] = &["id", "session_id", "time_created", "time_updated", "data"];

/// One message as stored: its id and role.
struct Msg {
    id: String,
    role: String,
}

/// One part as stored.
struct Part {
    id: String,
    data: String,
    value: Value,
}

impl OpenCodeStore {
    fn sessions(conn: &Connection) -> rusqlite::Result<Vec<String>> {
        let mut stmt = conn.prepare(
            "SELECT session_id FROM message GROUP BY session_id \
             ORDER BY MIN(time_created), session_id",
        )?;
        stmt.query_map([], |r| r.get(0))?.collect()
    }

    /// The session's messages in OpenCode's order (id, role), each with its parts in order.
    fn read(conn: &Connection, session: &str) -> rusqlite::Result<Vec<(Msg, Vec<Part>)>> {
        let mut messages = conn.prepare(
            "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id",
        )?;
        let mut parts = conn.prepare(
            "SELECT id, data FROM part WHERE message_id = ?1 AND session_id = ?2 ORDER BY id",
        )?;
        let ids: Vec<(String, String)> = messages
            .query_map([session], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for (id, data) in ids {
            let role = serde_json::from_str::<Value>(&data)
                .ok()
                .and_then(|m| m["role"].as_str().map(str::to_string))
                .unwrap_or_default();
            let rows: Vec<(String, String)> = parts
                .query_map([&id, session], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let parts = rows
                .into_iter()
                .map(|(id, data)| Part {
                    value: serde_json::from_str(&data).unwrap_or(Value::Null),
                    id,
                    data,
                })
                .collect();
            out.push((Msg { id, role }, parts));
        }
        Ok(out)
    }
}

impl Store for OpenCodeStore {
    fn name(&self) -> &'static str {
        match self.0 {
            Family::OpenCode => "opencode",
            Family::Kilo => "kilo",
        }
    }

    fn recognise(&self, conn: &Connection) -> Option<String> {
        let ok = has(conn, "message", COLUMNS)
            && has(conn, "part", &[COLUMNS, &["message_id"]].concat());
        let kilo = has(conn, "kilo_board", &[]);
        let app = match (ok, kilo, self.0) {
            (true, false, Family::OpenCode) => "OpenCode",
            (true, true, Family::Kilo) => "Kilo (an OpenCode fork: it has a `kilo_board` table)",
            _ => return None,
        };
        Some(format!(
            "{app} session store: tables `message` and `part` with JSON `data` columns"
        ))
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &OpenAiChat
    }

    fn paused_note(&self, n: usize) -> String {
        format!(
            "{n} call(s) not judged: still running (in the last message) or running in the background"
        )
    }

    fn dangling_note(&self) -> Option<&'static str> {
        Some(
            "the app shows the tool as still running, and answers the call itself with the error \
             \"[Tool execution was interrupted]\" each time it sends the session; the stored part \
             stays in flight for every other reader",
        )
    }

    fn conversations(&self, conn: &Connection) -> Result<Vec<Stored>, Error> {
        let mut out = Vec::new();
        for session in Self::sessions(conn)? {
            let messages = Self::read(conn, &session)?;
            let location = Location {
                store: self.name(),
                thread_id: session.clone(),
                ..Location::default()
            };
            let content = match render(&messages) {
                Ok(m) => Content::Messages(m),
                Err(why) => Content::Unreadable(why),
            };
            out.push(Stored { location, content });
        }
        Ok(out)
    }

    fn write(&self, tx: &Transaction<'_>, conv: &Stored, mended: &Mended) -> Result<usize, Error> {
        let Content::Messages(rendered) = &conv.content else {
            return Ok(0);
        };
        let fail =
            |what: String| Error::Format(format!("{}: {what}; nothing written", conv.location));
        let slots = layout(rendered, mended).map_err(fail)?;
        let calls: Vec<&str> = slots
            .iter()
            .filter_map(|s| match s {
                Slot::New(group) => Some(group),
                Slot::Row(_) => None,
            })
            .flatten()
            .filter_map(|m| placeholder(m).map(|(id, _)| id))
            .collect();
        let messages = Self::read(tx, &conv.location.thread_id)?;
        let mut rows = 0;
        for id in calls {
            let part = messages
                .iter()
                .flat_map(|(_, parts)| parts)
                .find(|p| p.value["callID"] == id && in_flight(&p.value))
                .ok_or_else(|| fail(format!("no tool part in flight has call id `{id}`")))?;
            let now = now_ms();
            let data = aborted(&part.data, now)
                .ok_or_else(|| fail(format!("the part `{}` is not a JSON object", part.id)))?;
            rows += tx.execute(
                "UPDATE part SET data = ?1, time_updated = ?2 WHERE id = ?3",
                params![data, now, part.id],
            )?;
        }
        Ok(rows)
    }
}

/// A session as chat messages: text parts are the content, tool parts the calls, finished tool
/// parts also their results.
fn render(messages: &[(Msg, Vec<Part>)]) -> Result<super::Messages, String> {
    let mut chat = Chat::default();
    for (n, (msg, parts)) in messages.iter().enumerate() {
        let id = &msg.id;
        if let Some(bad) = parts.iter().find(|p| !p.value.is_object()) {
            return Err(format!("part `{}` of message `{id}` is not JSON", bad.id));
        }
        let text: String = parts
            .iter()
            .filter(|p| p.value["type"] == "text")
            .filter_map(|p| p.value["text"].as_str())
            .collect();
        let tools: Vec<&Part> = parts.iter().filter(|p| p.value["type"] == "tool").collect();
        if msg.role != "assistant" {
            chat.user(id, text);
            continue;
        }
        let calls: Vec<(Option<&str>, Option<&str>)> = tools
            .iter()
            .map(|p| (p.value["callID"].as_str(), p.value["tool"].as_str()))
            .collect();
        chat.assistant(id, text, &calls);
        let last = n + 1 == messages.len();
        for p in tools {
            let state = &p.value["state"];
            let id = p.value["callID"].as_str();
            match state["status"].as_str() {
                Some("completed") => chat.result(&p.id, id, string(&state["output"])),
                Some("error") => chat.result(&p.id, id, string(&state["error"])),
                _ if last || background(&p.value) => {
                    if let Some(id) = id {
                        chat.pause(id);
                    }
                }
                _ => {}
            }
        }
    }
    Ok(chat.finish(None))
}

fn string(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A task started to run in the background (it may legitimately outlive its message).
fn background(part: &Value) -> bool {
    part["state"]["metadata"]["background"] == true || part["metadata"]["background"] == true
}

/// A tool part still pending or running.
fn in_flight(part: &Value) -> bool {
    part["type"] == "tool"
        && matches!(
            part["state"]["status"].as_str(),
            Some("pending" | "running")
        )
}

/// The part's `data` with its state marked aborted at `now`, every other member's text kept
/// (members as `{...state, status, error, metadata, time}` orders them in JavaScript).
pub fn aborted(data: &str, now: i64) -> Option<String> {
    let mut part = raw_object(data).ok()?;
    let mut state = raw_object(part.get("state")?.get()).ok()?;
    let start = state
        .get("time")
        .and_then(|t| serde_json::from_str::<Value>(t.get()).ok())
        .and_then(|t| t["start"].as_i64())
        .unwrap_or(now);
    let mut metadata = state
        .get("metadata")
        .and_then(|m| raw_object(m.get()).ok())
        .unwrap_or_default();
    metadata.insert("interrupted".into(), raw(&json!(true)));
    state.insert("status".into(), raw(&json!("error")));
    state.insert("error".into(), raw(&json!(ABORTED)));
    state.insert("metadata".into(), raw_text(compact(&metadata)));
    state.insert("time".into(), raw(&json!({"start": start, "end": now})));
    part.insert("state".into(), raw_text(compact(&state)));
    Some(compact(&part))
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
            r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"pending","input":{},"raw":"","error":"Tool execution aborted","metadata":{"interrupted":true},"time":{"start":5,"end":5}}}"#
                .replace("\"pending\"", "\"error\"")
        );
    }
}
