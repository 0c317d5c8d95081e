//! Goose's `sessions.db`: table `messages` (`id` autoincrement, `session_id`, `role`,
//! `content_json`, `created_timestamp`, `timestamp`, `tokens`, `metadata_json`, and in newer
//! schemas `message_id`), read back `ORDER BY timestamp` (ties in row order). `content_json` is
//! the content list: `{"type":"toolRequest","id":…,"toolCall":{"status":"success","value":
//! {"name":…,"arguments":…}}}` in assistant messages, `{"type":"toolResponse","id":…,
//! "toolResult":{"status":"success","value":…}}` (or `{"status":"error","error":…}`) in user
//! messages.
//!
//! Rendered as OpenAI chat messages: requests are calls, each response a tool message, the rest
//! of a user message a user message after them. Goose itself removes an unanswered request
//! from what it sends (`fix_conversation`), so the model never learns the tool did not run.
//! Requests in the session's last exchange may still be running or waiting for the user's
//! confirmation: paused.
//!
//! Repair does what Goose does when it rewrites a conversation (`replace_conversation`: delete
//! the session's rows and insert them again, in one transaction), from the first change on
//! only: a user message with error `toolResponse`s goes right after the calling message and its
//! responses, and the rows after it are inserted again with every column as it was (only their
//! `id` is new, so the order holds). Earlier rows and other sessions are not touched.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, Transaction};
use serde_json::{Value, json};

use super::apps::{Chat, Slot, columns, has, layout, owned, placeholder};
use super::{Content, Error, Mended, Store, Stored};
use crate::dialect::{Dialect, OpenAiChat};

/// The Goose store.
pub struct GooseStore;

/// A session's rows in Goose's order, every column but `id` kept as stored.
struct Rows {
    columns: Vec<String>,
    rows: Vec<(i64, Vec<Sql>)>,
}

impl Rows {
    fn read(conn: &Connection, session: &str) -> rusqlite::Result<Rows> {
        let columns: Vec<String> = columns(conn, "messages")?
            .into_iter()
            .filter(|c| c != "id")
            .collect();
        let mut stmt = conn.prepare(&format!(
            "SELECT id, {} FROM messages WHERE session_id = ?1 ORDER BY timestamp, id",
            quoted(&columns)
        ))?;
        let rows = stmt
            .query_map([session], |r| {
                let values = (1..=columns.len())
                    .map(|i| owned(r, i))
                    .collect::<Result<_, _>>()?;
                Ok((r.get(0)?, values))
            })?
            .collect::<Result<_, _>>()?;
        Ok(Rows { columns, rows })
    }

    fn get<'a>(&self, values: &'a [Sql], column: &str) -> Option<&'a Sql> {
        values.get(self.columns.iter().position(|c| c == column)?)
    }

    fn text<'a>(&self, values: &'a [Sql], column: &str) -> Option<&'a str> {
        match self.get(values, column)? {
            Sql::Text(t) => Some(t),
            _ => None,
        }
    }
}

fn quoted(columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Store for GooseStore {
    fn name(&self) -> &'static str {
        "goose"
    }

    fn recognise(&self, conn: &Connection) -> Option<String> {
        let ok = has(
            conn,
            "messages",
            &[
                "id",
                "session_id",
                "role",
                "content_json",
                "created_timestamp",
                "timestamp",
            ],
        ) && has(conn, "sessions", &["id", "working_dir"]);
        ok.then(|| {
            "Goose session store: table `messages` with `content_json` and `created_timestamp`, \
             table `sessions` with `working_dir`"
                .to_string()
        })
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &OpenAiChat
    }

    fn paused_note(&self, n: usize) -> String {
        format!(
            "{n} call(s) not judged: in the last exchange, perhaps still running or waiting for confirmation"
        )
    }

    fn dangling_note(&self) -> Option<&'static str> {
        Some(
            "Goose drops the unanswered request from what it sends (\"Removed orphaned tool \
             request\"), so the model never learns the tool did not run",
        )
    }

    fn conversations(&self, conn: &Connection) -> Result<Vec<Stored>, Error> {
        let mut stmt = conn.prepare(
            "SELECT session_id FROM messages GROUP BY session_id ORDER BY MIN(timestamp), MIN(id)",
        )?;
        let sessions: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for session in sessions {
            let rows = Rows::read(conn, &session)?;
            let content = match render(&rows) {
                Ok(m) => Content::Messages(m),
                Err(why) => Content::Unreadable(why),
            };
            out.push(Stored::session("goose", session, content));
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
        let Some(first) = slots.iter().position(|s| matches!(s, Slot::New(_))) else {
            return Ok(0);
        };
        let stored = Rows::read(tx, &conv.location.thread_id)?;
        let by_id = |key: &str| {
            stored
                .rows
                .iter()
                .find(|(id, _)| id.to_string() == key)
                .ok_or_else(|| fail(format!("row {key} is gone")))
        };
        let insert = format!(
            "INSERT INTO messages ({}) VALUES ({})",
            quoted(&stored.columns),
            vec!["?"; stored.columns.len()].join(", ")
        );
        let mut written = 0;
        let mut prev = match &slots[..first] {
            [.., Slot::Row(key)] => by_id(key)?,
            _ => return Err(fail("a response before any message".into())),
        };
        for slot in &slots[first..] {
            let values = match slot {
                Slot::Row(key) => {
                    let row = by_id(key)?;
                    tx.execute("DELETE FROM messages WHERE id = ?1", [row.0])?;
                    prev = row;
                    row.1.clone()
                }
                Slot::New(group) => responses(&stored, &prev.1, group).map_err(fail)?,
            };
            written += tx.execute(&insert, rusqlite::params_from_iter(&values))?;
        }
        Ok(written)
    }
}

/// The session as chat messages.
fn render(rows: &Rows) -> Result<super::Messages, String> {
    let mut chat = Chat::default();
    let mut contents = Vec::with_capacity(rows.rows.len());
    for (id, values) in &rows.rows {
        let content = rows
            .text(values, "content_json")
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .filter(Value::is_array)
            .ok_or_else(|| format!("message {id}: content_json is not a JSON list"))?;
        contents.push(content);
    }
    let only_responses = |c: &Value| {
        c.as_array()
            .is_some_and(|c| !c.is_empty() && c.iter().all(|b| b["type"] == "toolResponse"))
    };
    let live = contents
        .iter()
        .rposition(|c| !only_responses(c))
        .unwrap_or(0);
    for (n, ((id, values), content)) in rows.rows.iter().zip(&contents).enumerate() {
        let row = id.to_string();
        let blocks = content.as_array().map(Vec::as_slice).unwrap_or_default();
        let text: String = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        if rows.text(values, "role") == Some("assistant") {
            let calls: Vec<_> = blocks
                .iter()
                .filter(|b| b["type"] == "toolRequest")
                .map(|b| (b["id"].as_str(), b["toolCall"]["value"]["name"].as_str()))
                .collect();
            chat.assistant(&row, text, &calls);
            if n == live {
                calls
                    .iter()
                    .filter_map(|c| c.0)
                    .for_each(|id| chat.pause(id));
            }
            continue;
        }
        for b in blocks.iter().filter(|b| b["type"] == "toolResponse") {
            let result = &b["toolResult"];
            let content = result.get("error").unwrap_or(&result["value"]).to_string();
            chat.result(&row, b["id"].as_str(), content);
        }
        if !only_responses(content) {
            chat.user(&row, text);
        }
    }
    Ok(chat.finish(None))
}

/// The column values of a user message answering the placeholders `group` with errors, dated
/// like `prev` (the message it follows).
fn responses(rows: &Rows, prev: &[Sql], group: &[Value]) -> Result<Vec<Sql>, String> {
    let content: Vec<Value> = group
        .iter()
        .map(|m| {
            let (id, text) = placeholder(m).ok_or("not a tool result")?;
            Ok(json!({"type": "toolResponse", "id": id,
                      "toolResult": {"status": "error", "error": text}}))
        })
        .collect::<Result<_, &str>>()?;
    Ok(rows
        .columns
        .iter()
        .zip(prev)
        .map(|(col, prev)| match col.as_str() {
            "session_id" | "created_timestamp" | "timestamp" => prev.clone(),
            "role" => Sql::Text("user".into()),
            "content_json" => Sql::Text(Value::Array(content.clone()).to_string()),
            "metadata_json" => Sql::Text(r#"{"userVisible":true,"agentVisible":true}"#.into()),
            "message_id" => Sql::Text(format!("msg_{}", uuid::Uuid::new_v4())),
            _ => Sql::Null,
        })
        .collect())
}
