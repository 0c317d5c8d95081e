//! The OpenAI Agents SDK's `SQLiteSession`: table `agent_sessions` (`session_id`,
//! `created_at`, `updated_at`) and table `agent_messages` (`id` autoincrement, `session_id`,
//! `message_data`, `created_at`), one Responses input item per row (`json.dumps` of the item),
//! read back `ORDER BY id`. The table names are arguments of `SQLiteSession`: the messages
//! table is `agent_messages` or else the one table with these columns, and its sessions table
//! the one its foreign key names.
//!
//! A session is its items, read with the `openai-responses` dialect. Calls after the session's
//! last message item (the run stopped there: a tool waiting for human approval leaves exactly
//! that) are paused. The SDK drops unanswered calls from the next model input
//! (`drop_orphan_function_calls`), so the model never learns the call was not run; anything
//! else that sends the stored items gets the Responses API's 400.
//!
//! Repair writes the output item right after its call's run, as the ordinary repair places it,
//! in `add_items`' own format; rows order by `id`, so the session's later rows are written
//! again after it, each `message_data` and `created_at` as it was (only the `id` is new), and
//! the session's `updated_at` is bumped as `add_items` does. Sessions of an
//! `AdvancedSQLiteSession` (its `message_structure` table points at row ids) are not repaired.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::Value;

use super::apps::{Slot, columns, has, layout, owned, py_dumps};
use super::{Content, Error, Mended, Messages, Store, Stored};
use crate::dialect::{Dialect, OpenAiResponses};

/// The Agents SDK store.
pub struct AgentsSdkStore;

/// The tables of one `SQLiteSession` layout.
struct Tables {
    messages: String,
    sessions: Option<String>,
}

fn tables(conn: &Connection) -> rusqlite::Result<Option<Tables>> {
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut candidates = Vec::new();
    for name in names {
        let cols = columns(conn, &name)?;
        if ["id", "session_id", "message_data"]
            .iter()
            .all(|c| cols.iter().any(|n| n == c))
        {
            candidates.push(name);
        }
    }
    let messages = match candidates.iter().position(|n| n == "agent_messages") {
        Some(i) => candidates.swap_remove(i),
        None if candidates.len() == 1 => candidates.remove(0),
        None => return Ok(None),
    };
    let sessions = conn
        .query_row(
            "SELECT \"table\" FROM pragma_foreign_key_list(?1) WHERE \"from\" = 'session_id'",
            [&messages],
            |r| r.get(0),
        )
        .optional()?;
    Ok(Some(Tables { messages, sessions }))
}

/// Items that are part of a call run: calls, outputs, reasoning.
fn in_call_run(item: &Value) -> bool {
    let t = item["type"].as_str().unwrap_or("");
    item.get("role").is_none() && t != "message"
}

impl Store for AgentsSdkStore {
    fn name(&self) -> &'static str {
        "agents-sdk"
    }

    fn recognise(&self, conn: &Connection) -> Option<String> {
        let t = tables(conn).ok()??;
        Some(format!(
            "OpenAI Agents SDK SQLiteSession: table `{}` with `session_id` and `message_data` \
             (one Responses item per row)",
            t.messages
        ))
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &OpenAiResponses
    }

    fn paused_note(&self, n: usize) -> String {
        format!("{n} call(s) not judged: after the last message, perhaps waiting for approval")
    }

    fn dangling_note(&self) -> Option<&'static str> {
        Some(
            "the Agents SDK drops the call from the next model input, so the model never learns \
             it was not run; sent as stored, the Responses API rejects it (\"No tool output found \
             for function call …\")",
        )
    }

    fn conversations(&self, conn: &Connection) -> Result<Vec<Stored>, Error> {
        let Some(t) = tables(conn)? else {
            return Ok(Vec::new());
        };
        let advanced = has(conn, "message_structure", &["message_id"]).then(|| {
            "an AdvancedSQLiteSession's `message_structure` table points at these rows".to_string()
        });
        let mut stmt = conn.prepare(&format!(
            "SELECT session_id FROM \"{}\" GROUP BY session_id ORDER BY MIN(id)",
            t.messages
        ))?;
        let sessions: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut rows_stmt = conn.prepare(&format!(
            "SELECT id, message_data FROM \"{}\" WHERE session_id = ?1 ORDER BY id",
            t.messages
        ))?;
        let mut out = Vec::new();
        for session in sessions {
            let rows: Vec<(i64, String)> = rows_stmt
                .query_map([&session], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let content = match render(&rows, advanced.clone()) {
                Ok(m) => Content::Messages(m),
                Err(why) => Content::Unreadable(why),
            };
            out.push(Stored::session("agents-sdk", session, content));
        }
        Ok(out)
    }

    fn write(&self, tx: &Transaction<'_>, conv: &Stored, mended: &Mended) -> Result<usize, Error> {
        let Content::Messages(rendered) = &conv.content else {
            return Ok(0);
        };
        let fail =
            |what: String| Error::Format(format!("{}: {what}; nothing written", conv.location));
        let t = tables(tx)?.ok_or_else(|| fail("the session tables are gone".into()))?;
        let slots = layout(rendered, mended).map_err(fail)?;
        let Some(first) = slots.iter().position(|s| matches!(s, Slot::New(_))) else {
            return Ok(0);
        };
        let session = &conv.location.thread_id;
        let mut written = 0;
        for slot in &slots[first..] {
            match slot {
                Slot::Row(key) => {
                    let (data, created): (String, rusqlite::types::Value) = tx
                        .query_row(
                            &format!(
                                "SELECT message_data, created_at FROM \"{}\" WHERE id = ?1",
                                t.messages
                            ),
                            [key],
                            |r| Ok((r.get(0)?, owned(r, 1)?)),
                        )
                        .optional()?
                        .ok_or_else(|| fail(format!("row {key} is gone")))?;
                    tx.execute(
                        &format!("DELETE FROM \"{}\" WHERE id = ?1", t.messages),
                        [key],
                    )?;
                    tx.execute(
                        &format!(
                            "INSERT INTO \"{}\" (session_id, message_data, created_at) \
                             VALUES (?1, ?2, ?3)",
                            t.messages
                        ),
                        params![session, data, created],
                    )?;
                }
                Slot::New(items) => {
                    for item in items {
                        written += tx.execute(
                            &format!(
                                "INSERT INTO \"{}\" (session_id, message_data) VALUES (?1, ?2)",
                                t.messages
                            ),
                            params![session, py_dumps(item)],
                        )?;
                    }
                }
            }
        }
        if let Some(sessions) = &t.sessions {
            written += tx.execute(
                &format!(
                    "UPDATE \"{sessions}\" SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?1"
                ),
                [session],
            )?;
        }
        Ok(written)
    }
}

/// Why the session cannot be repaired by inserting rows, if an output sits behind a message
/// that closed its call's run (its repair would move stored rows).
fn output_away_from_its_call(items: &[Value]) -> Option<String> {
    let mut run: Vec<&str> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !in_call_run(item) {
            run.clear();
            continue;
        }
        let Some(id) = item["call_id"].as_str() else {
            continue;
        };
        if item["type"]
            .as_str()
            .is_some_and(|t| t.ends_with("_output"))
        {
            if !run.contains(&id) && seen.contains(&id) {
                return Some(format!(
                    "the output of `{id}` is stored behind a later message; toolmend only \
                     inserts rows into this store"
                ));
            }
        } else {
            run.push(id);
            seen.push(id);
        }
    }
    None
}

/// A session's items as one JSON array; calls after its last message item are paused.
fn render(rows: &[(i64, String)], read_only: Option<String>) -> Result<Messages, String> {
    let items = rows
        .iter()
        .map(|(id, data)| serde_json::from_str::<Value>(data).map_err(|e| format!("row {id}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let read_only = read_only.or_else(|| output_away_from_its_call(&items));
    let tail = items
        .iter()
        .rposition(|i| !in_call_run(i))
        .map_or(0, |p| p + 1);
    let paused = items[tail..]
        .iter()
        .filter(|i| !i["type"].as_str().unwrap_or("").ends_with("_output"))
        .filter_map(|i| i["call_id"].as_str().map(str::to_string))
        .collect();
    Ok(Messages {
        json: Value::Array(items).to_string().into_bytes(),
        rows: rows.iter().map(|(id, _)| Some(id.to_string())).collect(),
        paused,
        read_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_output_behind_a_later_message_makes_the_session_read_only() {
        let call =
            json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"});
        let output = json!({"type": "function_call_output", "call_id": "c1", "output": "x"});
        let user = json!({"role": "user", "content": "next"});
        let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": []});
        let ok = [call.clone(), reasoning, output.clone(), user.clone()];
        assert!(output_away_from_its_call(&ok).is_none());
        let late = [call, user, output];
        assert!(output_away_from_its_call(&late).unwrap().contains("`c1`"));
    }
}
