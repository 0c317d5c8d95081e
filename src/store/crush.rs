//! Crush's `crush.db`: table `messages` (`id` uuid, `session_id`, `role`, `parts`, `model`,
//! `provider`, `is_summary_message`, `created_at`, `updated_at`, `finished_at`), read back
//! `ORDER BY created_at` (Unix seconds; ties in row order). `parts` is a JSON list of
//! `{"type": …, "data": …}`: an assistant message holds `tool_call` parts (`id`, `name`,
//! `input`, `provider_executed`, `finished`), a `tool` message holds `tool_result` parts
//! (`tool_call_id`, `name`, `content`, `data`, `mime_type`, `metadata`, `is_error`).
//!
//! Rendered as OpenAI chat messages (Crush sends them that way: one tool message per result).
//! Crush writes a result for every call it stops, so a call without one in a session that went
//! on is a run that died; calls in the session's last exchange may still be running (paused).
//!
//! Repair writes what Crush writes for a call it stops: a new `tool` message holding a
//! `tool_result` with `is_error: true` (and the `finish` part `Create` adds to every message
//! that is not the assistant's), dated like the message before it so that it sorts right after
//! it. When the next message has that same second, no date puts the result in its place: the
//! session is linted but not repaired. Crush's own triggers then count the message in its
//! session. The calling message is not changed.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::Value;

use super::apps::{Chat, Slot, go_string, has, layout, placeholder};
use super::{Content, Error, Mended, Store, Stored};
use crate::dialect::{Dialect, OpenAiChat};

/// The Crush store.
pub struct CrushStore;

struct Row {
    id: String,
    role: String,
    parts: Vec<Value>,
    created: i64,
}

fn rows(conn: &Connection, session: &str) -> rusqlite::Result<Vec<(String, String, String, i64)>> {
    let mut stmt = conn.prepare(
        "SELECT id, role, parts, created_at FROM messages WHERE session_id = ?1 \
         ORDER BY created_at, rowid",
    )?;
    stmt.query_map([session], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?
    .collect()
}

impl Store for CrushStore {
    fn name(&self) -> &'static str {
        "crush"
    }

    fn recognise(&self, conn: &Connection) -> Option<String> {
        let ok = has(
            conn,
            "messages",
            &[
                "id",
                "session_id",
                "role",
                "parts",
                "created_at",
                "finished_at",
            ],
        ) && has(conn, "sessions", &["id", "message_count"]);
        ok.then(|| {
            "Crush session store: table `messages` with a JSON `parts` list, table `sessions` \
             with `message_count`"
                .to_string()
        })
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &OpenAiChat
    }

    fn paused_note(&self, n: usize) -> String {
        format!("{n} call(s) not judged: in the last exchange, perhaps still running")
    }

    fn dangling_note(&self) -> Option<&'static str> {
        Some(
            "Crush answers the call itself with a synthetic error result each time it sends the \
             session; the stored session stays without a result for every other reader",
        )
    }

    fn conversations(&self, conn: &Connection) -> Result<Vec<Stored>, Error> {
        let mut stmt = conn.prepare(
            "SELECT session_id FROM messages GROUP BY session_id \
             ORDER BY MIN(created_at), MIN(rowid)",
        )?;
        let sessions: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for session in sessions {
            let mut parsed = Vec::new();
            let mut unreadable = None;
            for (id, role, parts, created) in rows(conn, &session)? {
                match serde_json::from_str::<Vec<Value>>(&parts) {
                    Ok(parts) => parsed.push(Row {
                        id,
                        role,
                        parts,
                        created,
                    }),
                    Err(e) => {
                        unreadable =
                            Some(format!("message `{id}`: parts are not a JSON list: {e}"));
                        break;
                    }
                }
            }
            let content = match unreadable {
                Some(why) => Content::Unreadable(why),
                None => Content::Messages(render(&parsed)),
            };
            out.push(Stored::session("crush", session, content));
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
        let created = |id: &str| -> Result<i64, Error> {
            tx.query_row("SELECT created_at FROM messages WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| fail(format!("message `{id}` is gone")))
        };
        let names = call_names(&rendered.json);
        let mut written = 0;
        for (i, slot) in slots.iter().enumerate() {
            let Slot::New(group) = slot else { continue };
            let (Some(Slot::Row(prev)), next) =
                (i.checked_sub(1).map(|p| &slots[p]), slots.get(i + 1))
            else {
                return Err(fail("a result before any message".into()));
            };
            let at = created(prev)?;
            if let Some(Slot::Row(next)) = next
                && created(next)? <= at
            {
                return Err(fail(format!(
                    "message `{next}` has the same second as `{prev}`"
                )));
            }
            for m in group {
                let (id, text) = placeholder(m).ok_or_else(|| fail("not a tool result".into()))?;
                let name = names.iter().find(|(c, _)| c == id).map_or("", |(_, n)| n);
                tx.execute(
                    "INSERT INTO messages (id, session_id, role, parts, model, created_at, \
                     updated_at) VALUES (?1, ?2, 'tool', ?3, '', ?4, ?4)",
                    params![
                        uuid::Uuid::new_v4().to_string(),
                        conv.location.thread_id,
                        error_result(id, name, text),
                        at
                    ],
                )?;
                written += 1;
            }
        }
        Ok(written)
    }
}

/// The session as chat messages; sessions where a result cannot be dated into place are
/// read-only.
fn render(rows: &[Row]) -> super::Messages {
    let mut chat = Chat::default();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut unplaceable = None;
    // The last exchange (the last assistant message and the tool messages after it) may still
    // be running.
    let live = rows.iter().rposition(|r| r.role != "tool").unwrap_or(0);
    for r in rows.iter().rev() {
        answered.extend(
            r.parts
                .iter()
                .filter(|p| p["type"] == "tool_result")
                .filter_map(|p| p["data"]["tool_call_id"].as_str()),
        );
    }
    for (n, r) in rows.iter().enumerate() {
        let text: String = r
            .parts
            .iter()
            .filter(|p| p["type"] == "text")
            .filter_map(|p| p["data"]["text"].as_str())
            .collect();
        match r.role.as_str() {
            "assistant" => {
                let calls: Vec<&Value> = r
                    .parts
                    .iter()
                    .filter(|p| p["type"] == "tool_call" && p["data"]["provider_executed"] != true)
                    .map(|p| &p["data"])
                    .collect();
                let pairs: Vec<_> = calls
                    .iter()
                    .map(|c| (c["id"].as_str(), c["name"].as_str()))
                    .collect();
                chat.assistant(&r.id, text, &pairs);
                for (id, _) in pairs {
                    let Some(id) = id else { continue };
                    if n == live {
                        chat.pause(id);
                    } else if !answered.contains(id) && unplaceable.is_none() {
                        unplaceable = unplaceable_after(rows, n, id);
                    }
                }
            }
            "tool" => {
                for p in r.parts.iter().filter(|p| p["type"] == "tool_result") {
                    let d = &p["data"];
                    let content = d["content"].as_str().unwrap_or_default().to_string();
                    chat.result(&r.id, d["tool_call_id"].as_str(), content);
                }
            }
            _ => chat.user(&r.id, text),
        }
    }
    chat.finish(unplaceable)
}

/// Why no result for call `id` of message `call` can be dated into place, if so.
fn unplaceable_after(rows: &[Row], call: usize, id: &str) -> Option<String> {
    let mut end = call;
    while rows.get(end + 1).is_some_and(|r| r.role == "tool") {
        end += 1;
    }
    let next = rows.get(end + 1)?;
    (next.created <= rows[end].created).then(|| {
        format!(
            "a result for `{id}` would have to sort between two messages of the same second \
             (Crush orders by `created_at` in seconds)"
        )
    })
}

/// The `(call id, tool name)` pairs of the rendered messages.
fn call_names(json: &[u8]) -> Vec<(String, String)> {
    let messages: Vec<Value> = serde_json::from_slice(json).unwrap_or_default();
    messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .filter_map(|c| {
            Some((
                c["id"].as_str()?.to_string(),
                c["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            ))
        })
        .collect()
}

/// The `parts` of a `tool` message answering call `id` with an error, as Crush writes them
/// (Go's `json.Marshal`, field order of its structs).
pub fn error_result(id: &str, name: &str, text: &str) -> String {
    format!(
        "[{{\"type\":\"tool_result\",\"data\":{{\"tool_call_id\":{},\"name\":{},\"content\":{},\
         \"data\":\"\",\"mime_type\":\"\",\"metadata\":\"\",\"is_error\":true}}}},\
         {{\"type\":\"finish\",\"data\":{{\"reason\":\"stop\",\"time\":0}}}}]",
        go_string(id),
        go_string(name),
        go_string(text)
    )
}
