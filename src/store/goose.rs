//! Goose's `sessions.db`: table `messages` (`id` autoincrement, `session_id`, `role`,
//! `content_json`, `created_timestamp`, `timestamp`, `tokens`, `metadata_json`, and in newer
//! schemas `message_id`), read back `ORDER BY timestamp` (ties in row order). `content_json` is
//! the message's content list: `{"type":"toolRequest","id":…,"toolCall":{"status":"success",
//! "value":{"name":…,"arguments":…}}}` in assistant messages, `{"type":"toolResponse","id":…,
//! "toolResult":{"status":"success","value":…}}` (or `{"status":"error","error":…}`) in user
//! messages.
//!
//! A `toolRequest` with no later `toolResponse` of its id, in a session that went on after its
//! message, is dangling. Goose itself removes such requests from what it sends
//! (`fix_conversation`: "Removed orphaned tool request"), so the model never learns the call was
//! not run.
//!
//! Repair does what Goose does when it rewrites a conversation (`replace_conversation`: delete
//! the session's rows and insert them again, in one transaction), but only from the first place
//! that changes: there a user message with a `toolResponse` whose `toolResult` is an error goes
//! right after the calling message and its existing responses, and the rows after it are
//! written again with every column as it was (only their `id` is new, so the order holds).
//! Rows before that place and other sessions are not touched.

use std::collections::HashSet;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, Transaction};
use serde_json::{Value, json};

use super::app_store::{
    AppStore, ChangeKind, RowChange, StoreResult, StoredCall, columns, dangling, has_table,
    locator, placeholder_text, unreadable,
};
use crate::finding::Finding;

const FIX: &str = "rewrite the session's rows with an error toolResponse right after the call";
const WHAT: &str = "Goose drops the unanswered request from what it sends, so the model never \
                    learns the tool did not run";

/// The Goose store.
pub struct GooseStore;

/// One row of the session, every column but `id` kept as SQLite values.
struct Row {
    id: i64,
    role: String,
    content: Value,
    values: Vec<Sql>,
}

struct Session {
    id: String,
    index: usize,
    rows: Vec<Row>,
}

impl AppStore for GooseStore {
    fn name(&self) -> &'static str {
        "goose"
    }

    fn recognise(&self, conn: &Connection, _path: &str) -> StoreResult<Option<String>> {
        let ok = has_table(
            conn,
            "messages",
            &[
                "id",
                "session_id",
                "role",
                "content_json",
                "created_timestamp",
            ],
        )? && has_table(conn, "sessions", &["id", "working_dir"])?;
        Ok(ok.then(|| {
            "Goose session store: table `messages` with `content_json` and `created_timestamp`, \
             table `sessions` with `working_dir`"
                .to_string()
        }))
    }

    fn lint(&self, conn: &Connection, path: &str) -> StoreResult<Vec<Finding>> {
        let (sessions, mut out) = read(conn, path)?;
        for s in &sessions {
            out.extend(
                unanswered(s)
                    .iter()
                    .map(|(_, c)| dangling(path, c, WHAT, Some(FIX))),
            );
        }
        Ok(out)
    }

    fn repair(&self, tx: &Transaction<'_>, path: &str, text: &str) -> StoreResult<Vec<RowChange>> {
        let (sessions, _) = read(tx, path)?;
        let cols: Vec<String> = columns(tx, "messages")?
            .into_iter()
            .filter(|c| c != "id")
            .collect();
        let mut changes = Vec::new();
        for s in &sessions {
            let calls = unanswered(s);
            if calls.is_empty() {
                continue;
            }
            // Placeholders per row position: after the call's message and its responses.
            let mut after: Vec<Vec<&StoredCall>> = vec![Vec::new(); s.rows.len()];
            for (pos, call) in &calls {
                after[answer_end(s, *pos)].push(call);
            }
            let first = after.iter().position(|p| !p.is_empty()).unwrap_or(0) + 1;
            for row in &s.rows[first..] {
                tx.execute("DELETE FROM messages WHERE id = ?1", [row.id])?;
                changes.push(change(row.id, ChangeKind::Deleted, &s.id));
            }
            let insert = format!(
                "INSERT INTO messages ({}) VALUES ({})",
                cols.join(", "),
                vec!["?"; cols.len()].join(", ")
            );
            for (pos, row) in s.rows.iter().enumerate().skip(first - 1) {
                if pos >= first {
                    tx.execute(&insert, rusqlite::params_from_iter(&row.values))?;
                    changes.push(change(tx.last_insert_rowid(), ChangeKind::Inserted, &s.id));
                }
                if after[pos].is_empty() {
                    continue;
                }
                let values = placeholder(&cols, row, &after[pos], text);
                tx.execute(&insert, rusqlite::params_from_iter(&values))?;
                changes.push(change(tx.last_insert_rowid(), ChangeKind::Inserted, &s.id));
            }
        }
        Ok(changes)
    }
}

fn change(id: i64, kind: ChangeKind, session: &str) -> RowChange {
    RowChange {
        table: "messages".into(),
        key: id.to_string(),
        kind,
        session: session.to_string(),
    }
}

/// Every session with its rows in Goose's order, and a finding per unreadable session.
fn read(conn: &Connection, path: &str) -> StoreResult<(Vec<Session>, Vec<Finding>)> {
    let cols: Vec<String> = columns(conn, "messages")?
        .into_iter()
        .filter(|c| c != "id")
        .collect();
    let mut ids = conn.prepare(
        "SELECT session_id FROM messages GROUP BY session_id ORDER BY MIN(timestamp), MIN(id)",
    )?;
    let ids: Vec<String> = ids.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare(&format!(
        "SELECT id, {} FROM messages WHERE session_id = ?1 ORDER BY timestamp, id",
        cols.join(", ")
    ))?;
    let role_at = cols.iter().position(|c| c == "role").unwrap_or(0);
    let content_at = cols.iter().position(|c| c == "content_json").unwrap_or(0);
    let (mut sessions, mut problems) = (Vec::new(), Vec::new());
    'sessions: for (index, id) in ids.into_iter().enumerate() {
        let raw: Vec<(i64, Vec<Sql>)> = stmt
            .query_map([&id], |r| {
                let values = (1..=cols.len())
                    .map(|i| r.get::<_, Sql>(i))
                    .collect::<Result<_, _>>()?;
                Ok((r.get(0)?, values))
            })?
            .collect::<Result<_, _>>()?;
        let mut rows = Vec::with_capacity(raw.len());
        for (row_id, values) in raw {
            let text = |v: &Sql| match v {
                Sql::Text(t) => Some(t.clone()),
                _ => None,
            };
            let content = text(&values[content_at])
                .ok_or_else(|| "content_json is not text".to_string())
                .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()));
            match content {
                Ok(content) if content.is_array() => rows.push(Row {
                    id: row_id,
                    role: text(&values[role_at]).unwrap_or_default(),
                    content,
                    values,
                }),
                other => {
                    let why = other
                        .err()
                        .unwrap_or_else(|| "content is not a list".into());
                    let pointer = locator(&id, &["messages", &row_id.to_string()]);
                    problems.push(unreadable(path, &id, index, pointer, &why));
                    continue 'sessions;
                }
            }
        }
        sessions.push(Session { id, index, rows });
    }
    Ok((sessions, problems))
}

/// The unanswered requests of a session that went on after them, with their row positions.
fn unanswered(s: &Session) -> Vec<(usize, StoredCall)> {
    let mut out = Vec::new();
    for (pos, row) in s.rows.iter().enumerate() {
        if row.role != "assistant" || pos + 1 == s.rows.len() {
            continue;
        }
        let answered: HashSet<&str> = s.rows[pos + 1..]
            .iter()
            .flat_map(|r| blocks(r, "toolResponse"))
            .filter_map(|b| b["id"].as_str())
            .collect();
        for (slot, req) in s.rows[pos]
            .content
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if req["type"] != "toolRequest" {
                continue;
            }
            let id = req["id"].as_str();
            if id.is_some_and(|id| answered.contains(id)) {
                continue;
            }
            out.push((
                pos,
                StoredCall {
                    session: s.id.clone(),
                    session_index: s.index,
                    message: row.id.to_string(),
                    message_index: pos,
                    call_id: id.map(str::to_string),
                    tool: req["toolCall"]["value"]["name"]
                        .as_str()
                        .map(str::to_string),
                    pointer: locator(
                        &s.id,
                        &[
                            "messages",
                            &row.id.to_string(),
                            "content",
                            &slot.to_string(),
                        ],
                    ),
                },
            ));
        }
    }
    out
}

fn blocks<'a>(row: &'a Row, kind: &'a str) -> impl Iterator<Item = &'a Value> {
    row.content
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |b| b["type"] == kind)
}

/// The last row of the call's answer: the calling message, then the user messages holding only
/// tool responses that follow it.
fn answer_end(s: &Session, call: usize) -> usize {
    let mut end = call;
    while let Some(next) = s.rows.get(end + 1) {
        let only_responses = next.role == "user"
            && next
                .content
                .as_array()
                .is_some_and(|c| !c.is_empty() && c.iter().all(|b| b["type"] == "toolResponse"));
        if !only_responses {
            break;
        }
        end += 1;
    }
    end
}

/// The column values of a user message answering `calls` with errors, dated like `prev`.
fn placeholder(cols: &[String], prev: &Row, calls: &[&StoredCall], text: &str) -> Vec<Sql> {
    let content: Vec<Value> = calls
        .iter()
        .filter_map(|c| {
            let id = c.call_id.as_deref()?;
            Some(json!({"type": "toolResponse", "id": id, "toolResult": {
                "status": "error",
                "error": placeholder_text(text, id, c.tool.as_deref()),
            }}))
        })
        .collect();
    cols.iter()
        .zip(&prev.values)
        .map(|(col, prev)| match col.as_str() {
            "session_id" | "created_timestamp" | "timestamp" => prev.clone(),
            "role" => Sql::Text("user".into()),
            "content_json" => Sql::Text(Value::Array(content.clone()).to_string()),
            "metadata_json" => Sql::Text(r#"{"userVisible":true,"agentVisible":true}"#.into()),
            "message_id" => Sql::Text(format!("msg_{}", uuid::Uuid::new_v4())),
            _ => Sql::Null,
        })
        .collect()
}
