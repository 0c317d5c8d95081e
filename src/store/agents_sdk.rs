//! The OpenAI Agents SDK's `SQLiteSession`: table `agent_sessions` (`session_id`,
//! `created_at`, `updated_at`) and table `agent_messages` (`id` autoincrement, `session_id`,
//! `message_data`, `created_at`), one Responses input item per row, `json.dumps` of the item,
//! read back `ORDER BY id`. The table names are arguments of `SQLiteSession`: any table with
//! these columns is read, and its sessions table is the one its foreign key names.
//!
//! A `function_call` or `custom_tool_call` item with no output item of the same `call_id` in a
//! session that went on after it is dangling. (A tool waiting for human approval leaves exactly
//! that call at the end of the session, to be answered when the run resumes: a trailing call is
//! not judged.) The SDK itself drops such calls from the next model input
//! (`drop_orphan_function_calls`), so the model never learns the call was not run; anything else
//! that sends the stored items gets the Responses API's 400 (`No tool output found for function
//! call …`).
//!
//! Repair appends the matching output item as a new row, as `SQLiteSession.add_items` writes
//! one (and bumps the session's `updated_at` as it does): the Responses API pairs outputs by
//! `call_id` anywhere after the call, and so does the SDK. Other rows are never touched.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::Value;

use super::app_store::{
    AppStore, ChangeKind, RowChange, StoreResult, StoredCall, columns, dangling, locator,
    placeholder_text, unreadable,
};
use crate::finding::Finding;

/// Call item types and the output item type answering each (the ones repaired here).
const PAIRS: &[(&str, &str)] = &[
    ("function_call", "function_call_output"),
    ("custom_tool_call", "custom_tool_call_output"),
];

const FIX: &str = "append the call's output item (an error text) after it, as `add_items` writes";

const WHAT: &str = "the Agents SDK silently drops it from the next model input, and the \
                    Responses API rejects it when sent: \"No tool output found for function call\"";

/// The Agents SDK store.
pub struct AgentsSdkStore;

/// The tables of one `SQLiteSession` layout.
struct Tables {
    messages: String,
    sessions: Option<String>,
}

struct Unanswered {
    call: StoredCall,
    output_type: &'static str,
}

impl AppStore for AgentsSdkStore {
    fn name(&self) -> &'static str {
        "agents-sdk"
    }

    fn recognise(&self, conn: &Connection, _path: &str) -> StoreResult<Option<String>> {
        Ok(tables(conn)?.first().map(|t| {
            format!(
                "OpenAI Agents SDK SQLiteSession: table `{}` with `session_id` and `message_data` \
                 (one Responses item per row)",
                t.messages
            )
        }))
    }

    fn lint(&self, conn: &Connection, path: &str) -> StoreResult<Vec<Finding>> {
        let mut out = Vec::new();
        for t in tables(conn)? {
            let (found, problems) = scan(conn, path, &t)?;
            out.extend(problems);
            out.extend(
                found
                    .iter()
                    .map(|u| dangling(path, &u.call, WHAT, Some(FIX))),
            );
        }
        Ok(out)
    }

    fn repair(&self, tx: &Transaction<'_>, path: &str, text: &str) -> StoreResult<Vec<RowChange>> {
        let mut changes = Vec::new();
        for t in tables(tx)? {
            let (found, _) = scan(tx, path, &t)?;
            let mut touched = Vec::new();
            for u in found {
                let Some(id) = u.call.call_id.as_deref() else {
                    continue;
                };
                let body = placeholder_text(text, id, u.call.tool.as_deref());
                let item = format!(
                    "{{\"call_id\": {}, \"output\": {}, \"type\": {}}}",
                    py_string(id),
                    py_string(&body),
                    py_string(u.output_type)
                );
                tx.execute(
                    &format!(
                        "INSERT INTO \"{}\" (session_id, message_data) VALUES (?1, ?2)",
                        t.messages
                    ),
                    params![u.call.session, item],
                )?;
                changes.push(RowChange {
                    table: t.messages.clone(),
                    key: tx.last_insert_rowid().to_string(),
                    kind: ChangeKind::Inserted,
                    session: u.call.session.clone(),
                });
                if !touched.contains(&u.call.session) {
                    touched.push(u.call.session.clone());
                }
            }
            if let Some(sessions) = &t.sessions {
                for s in touched {
                    let n = tx.execute(
                        &format!(
                            "UPDATE \"{sessions}\" SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?1"
                        ),
                        [&s],
                    )?;
                    if n > 0 {
                        changes.push(RowChange {
                            table: sessions.clone(),
                            key: s.clone(),
                            kind: ChangeKind::Updated,
                            session: s,
                        });
                    }
                }
            }
        }
        Ok(changes)
    }
}

/// Every table laid out as `SQLiteSession` writes it, with its sessions table.
fn tables(conn: &Connection) -> StoreResult<Vec<Tables>> {
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    for name in names {
        let cols = columns(conn, &name)?;
        let has = |c: &str| cols.iter().any(|n| n == c);
        if !(has("id") && has("session_id") && has("message_data")) {
            continue;
        }
        let sessions: Option<String> = conn
            .query_row(
                "SELECT \"table\" FROM pragma_foreign_key_list(?1) WHERE \"from\" = 'session_id'",
                [&name],
                |r| r.get(0),
            )
            .optional()?;
        out.push(Tables {
            messages: name,
            sessions,
        });
    }
    Ok(out)
}

fn scan(conn: &Connection, path: &str, t: &Tables) -> StoreResult<(Vec<Unanswered>, Vec<Finding>)> {
    let mut stmt = conn.prepare(&format!(
        "SELECT session_id FROM \"{0}\" GROUP BY session_id ORDER BY MIN(id)",
        t.messages
    ))?;
    let sessions: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut rows_stmt = conn.prepare(&format!(
        "SELECT id, message_data FROM \"{0}\" WHERE session_id = ?1 ORDER BY id",
        t.messages
    ))?;
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    'sessions: for (index, session) in sessions.iter().enumerate() {
        let rows: Vec<(i64, String)> = rows_stmt
            .query_map([session], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut items = Vec::with_capacity(rows.len());
        for (id, data) in &rows {
            match serde_json::from_str::<Value>(data) {
                Ok(v) => items.push(v),
                Err(e) => {
                    let pointer = locator(session, &["items", &id.to_string()]);
                    problems.push(unreadable(path, session, index, pointer, &e.to_string()));
                    continue 'sessions;
                }
            }
        }
        let answered: HashSet<(&str, &str)> = items
            .iter()
            .filter_map(|i| Some((i["type"].as_str()?, i["call_id"].as_str()?)))
            .collect();
        for (pos, item) in items.iter().enumerate() {
            let Some(&(_, output_type)) = PAIRS.iter().find(|(c, _)| item["type"] == *c) else {
                continue;
            };
            let call_id = item["call_id"].as_str();
            if pos + 1 == items.len()
                || call_id.is_some_and(|id| answered.contains(&(output_type, id)))
            {
                continue;
            }
            let row = rows[pos].0.to_string();
            found.push(Unanswered {
                call: StoredCall {
                    session: session.clone(),
                    session_index: index,
                    message: row.clone(),
                    message_index: pos,
                    call_id: call_id.map(str::to_string),
                    tool: item["name"].as_str().map(str::to_string),
                    pointer: locator(session, &["items", &row]),
                },
                output_type,
            });
        }
    }
    Ok((found, problems))
}

/// A string as Python's `json.dumps` writes it (ASCII only: other characters as `\uXXXX`).
pub fn py_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (' '..='~').contains(&c) => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_written_as_json_dumps_writes_them() {
        assert_eq!(
            py_string("a\"b\\c\n\té😀\u{1}"),
            r#""a\"b\\c\n\t\u00e9\ud83d\ude00\u0001""#
        );
    }
}
