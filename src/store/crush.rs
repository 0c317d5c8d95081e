//! Crush's `crush.db`: table `messages` (`id` uuid, `session_id`, `role`, `parts`, `model`,
//! `provider`, `is_summary_message`, `created_at`, `updated_at`, `finished_at`), read back
//! `ORDER BY created_at` (Unix seconds; ties in row order). `parts` is a JSON list of
//! `{"type": …, "data": …}`: an assistant message holds `tool_call` parts (`id`, `name`,
//! `input`, `provider_executed`, `finished`), a `tool` message holds `tool_result` parts
//! (`tool_call_id`, `name`, `content`, `data`, `mime_type`, `metadata`, `is_error`).
//!
//! A `tool_call` (not provider-executed) with no `tool_result` of its id in a later message,
//! in a session that went on after it, is dangling: Crush writes a result for every call it
//! stops, so this is a run that died (a crash or a kill).
//!
//! Repair writes what Crush writes for a call it stops: a new `tool` message holding a
//! `tool_result` with `is_error: true` (and the `finish` part `Create` adds to every message
//! that is not the assistant's), dated like the last message of the call's answer so it sorts
//! right after it. When the next message has that same second, no date puts the result in its
//! place: the call is reported without a fix. Crush's own triggers then count the message in
//! its session. The calling message is not changed.

use std::collections::HashSet;

use rusqlite::{Connection, Transaction, params};
use serde_json::Value;

use super::app_store::{
    AppStore, ChangeKind, RowChange, StoreResult, StoredCall, dangling, has_table, locator,
    placeholder_text, unreadable,
};
use crate::finding::Finding;

const FIX: &str = "add a `tool` message with an error tool_result right after the call";
const WHAT: &str = "every provider rejects a tool call without its result";

/// The Crush store.
pub struct CrushStore;

struct Row {
    id: String,
    role: String,
    parts: Vec<Value>,
    created: i64,
}

struct Unanswered {
    call: StoredCall,
    /// `created_at` for the result, when one sorts into place.
    at: Option<i64>,
}

impl AppStore for CrushStore {
    fn name(&self) -> &'static str {
        "crush"
    }

    fn recognise(&self, conn: &Connection, _path: &str) -> StoreResult<Option<String>> {
        let ok = has_table(
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
        )? && has_table(conn, "sessions", &["id", "message_count"])?;
        Ok(ok.then(|| {
            "Crush session store: table `messages` with a JSON `parts` list, table `sessions` \
             with `message_count`"
                .to_string()
        }))
    }

    fn lint(&self, conn: &Connection, path: &str) -> StoreResult<Vec<Finding>> {
        let (found, mut out) = scan(conn, path)?;
        out.extend(found.iter().map(|u| {
            let fix = u.at.map(|_| FIX);
            dangling(path, &u.call, WHAT, fix)
        }));
        Ok(out)
    }

    fn repair(&self, tx: &Transaction<'_>, path: &str, text: &str) -> StoreResult<Vec<RowChange>> {
        let (found, _) = scan(tx, path)?;
        let mut changes = Vec::new();
        for u in found {
            let (Some(at), Some(id)) = (u.at, u.call.call_id.as_deref()) else {
                continue;
            };
            let name = u.call.tool.as_deref().unwrap_or("");
            let parts = format!(
                "[{{\"type\":\"tool_result\",\"data\":{{\"tool_call_id\":{},\"name\":{},\"content\":{},\
                 \"data\":\"\",\"mime_type\":\"\",\"metadata\":\"\",\"is_error\":true}}}},\
                 {{\"type\":\"finish\",\"data\":{{\"reason\":\"stop\",\"time\":0}}}}]",
                go_string(id),
                go_string(name),
                go_string(&placeholder_text(text, id, u.call.tool.as_deref()))
            );
            let row = uuid::Uuid::new_v4().to_string();
            tx.execute(
                "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) \
                 VALUES (?1, ?2, 'tool', ?3, '', ?4, ?4)",
                params![row, u.call.session, parts, at],
            )?;
            changes.push(RowChange {
                table: "messages".into(),
                key: row,
                kind: ChangeKind::Inserted,
                session: u.call.session.clone(),
            });
        }
        Ok(changes)
    }
}

fn scan(conn: &Connection, path: &str) -> StoreResult<(Vec<Unanswered>, Vec<Finding>)> {
    let mut ids = conn.prepare(
        "SELECT session_id FROM messages GROUP BY session_id ORDER BY MIN(created_at), MIN(rowid)",
    )?;
    let ids: Vec<String> = ids.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare(
        "SELECT id, role, parts, created_at FROM messages WHERE session_id = ?1 \
         ORDER BY created_at, rowid",
    )?;
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    'sessions: for (index, session) in ids.iter().enumerate() {
        let raw: Vec<(String, String, String, i64)> = stmt
            .query_map([session], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<Result<_, _>>()?;
        let mut rows = Vec::with_capacity(raw.len());
        for (id, role, parts, created) in raw {
            match serde_json::from_str::<Vec<Value>>(&parts) {
                Ok(parts) => rows.push(Row {
                    id,
                    role,
                    parts,
                    created,
                }),
                Err(e) => {
                    let pointer = locator(session, &["messages", &id]);
                    problems.push(unreadable(path, session, index, pointer, &e.to_string()));
                    continue 'sessions;
                }
            }
        }
        for (pos, row) in rows.iter().enumerate() {
            if row.role != "assistant" || pos + 1 == rows.len() {
                continue;
            }
            let answered: HashSet<&str> = rows[pos + 1..]
                .iter()
                .flat_map(|r| &r.parts)
                .filter(|p| p["type"] == "tool_result")
                .filter_map(|p| p["data"]["tool_call_id"].as_str())
                .collect();
            for (slot, part) in row.parts.iter().enumerate() {
                let data = &part["data"];
                if part["type"] != "tool_call" || data["provider_executed"] == true {
                    continue;
                }
                let id = data["id"].as_str();
                if id.is_some_and(|id| answered.contains(id)) {
                    continue;
                }
                found.push(Unanswered {
                    call: StoredCall {
                        session: session.clone(),
                        session_index: index,
                        message: row.id.clone(),
                        message_index: pos,
                        call_id: id.map(str::to_string),
                        tool: data["name"].as_str().map(str::to_string),
                        pointer: locator(
                            session,
                            &["messages", &row.id, "parts", &slot.to_string()],
                        ),
                    },
                    at: place(&rows, pos),
                });
            }
        }
    }
    Ok((found, problems))
}

/// The `created_at` that sorts a new row right after the call's message and the `tool`
/// messages that follow it, or `None` when the next message shares that second.
fn place(rows: &[Row], call: usize) -> Option<i64> {
    let mut end = call;
    while rows.get(end + 1).is_some_and(|r| r.role == "tool") {
        end += 1;
    }
    let at = rows[end].created;
    match rows.get(end + 1) {
        Some(next) if next.created <= at => None,
        _ => Some(at),
    }
}

/// A string as Go's `json.Marshal` writes it (`<`, `>`, `&`, U+2028 and U+2029 escaped).
pub fn go_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_written_as_go_writes_them() {
        assert_eq!(
            go_string("a<b>&\"é\n\u{1}\u{2028}"),
            r#""a\u003cb\u003e\u0026\"é\n\u0001\u2028""#
        );
    }
}
