//! What the application session stores (OpenCode/Kilo, Crush, Goose, the OpenAI Agents SDK)
//! share: one interface, the finding they report for a dangling call, the rule that a call is
//! only dangling once its session moved on, and JSON edits that keep every other byte.

use rusqlite::{Connection, Transaction};
use serde_json::value::RawValue;

use crate::finding::{Finding, Fix};
use crate::model::pointer_token;
use crate::rules::{Applicability, Rule};

/// Errors of the application stores: SQLite, or a row the store cannot read.
pub type StoreResult<T> = Result<T, rusqlite::Error>;

/// A session store written by one application, opened as an SQLite database.
pub trait AppStore: Sync {
    /// The store's stable name, e.g. `opencode`.
    fn name(&self) -> &'static str;

    /// Why the database is unmistakably this store (its tables and columns), or `None`.
    fn recognise(&self, conn: &Connection, path: &str) -> StoreResult<Option<String>>;

    /// The findings of every session, read-only.
    fn lint(&self, conn: &Connection, path: &str) -> StoreResult<Vec<Finding>>;

    /// Write the store's own repair for every fixable finding inside `tx` (the caller opened it
    /// with `BEGIN IMMEDIATE` and commits or rolls back); returns the rows written.
    fn repair(&self, tx: &Transaction<'_>, path: &str, text: &str) -> StoreResult<Vec<RowChange>>;
}

/// One row a repair wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowChange {
    /// The table.
    pub table: String,
    /// The row's key (primary key or rowid), as text.
    pub key: String,
    /// What happened to it.
    pub kind: ChangeKind,
    /// The session it belongs to.
    pub session: String,
}

/// How a repair changed a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// A new row.
    Inserted,
    /// An existing row's columns were rewritten.
    Updated,
    /// A row removed to be written again (a session rewrite keeps its content).
    Deleted,
}

/// Where a call sits in a store: the session, the message (with its index in the session),
/// and the place inside that message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCall {
    /// Session id.
    pub session: String,
    /// Index of the session in the store (in the order the store lists them).
    pub session_index: usize,
    /// Id (or rowid) of the message or row holding the call.
    pub message: String,
    /// Index of that message in its session.
    pub message_index: usize,
    /// The call id.
    pub call_id: Option<String>,
    /// The tool name.
    pub tool: Option<String>,
    /// JSON-Pointer-like path to the call: `/sessions/<id>/messages/<id>/...`.
    pub pointer: String,
}

/// `/sessions/<session>/<rest...>`, each token escaped as in a JSON Pointer.
pub fn locator(session: &str, rest: &[&str]) -> String {
    let mut out = format!("/sessions/{}", pointer_token(session));
    for t in rest {
        out.push('/');
        out.push_str(&pointer_token(t));
    }
    out
}

/// TM001 for a call left unanswered in a session that moved on. `what` says what the owning
/// app does with it; `fix` is the repair this store writes, or `None` when it cannot.
pub fn dangling(path: &str, call: &StoredCall, what: &str, fix: Option<&str>) -> Finding {
    let quoted = |s: &Option<String>| match s {
        Some(s) => format!("`{s}`"),
        None => "(missing)".into(),
    };
    let mut f = Finding::new(
        Rule::DanglingToolCall,
        path,
        format!(
            "tool call {} to {} in session `{}` has no result, and the session went on after it: {what}",
            quoted(&call.call_id),
            quoted(&call.tool),
            call.session
        ),
    );
    f.pointer = call.pointer.clone();
    f.conversation = Some(call.session_index);
    f.message_index = Some(call.message_index);
    f.tool_name = call.tool.clone();
    f.call_id = call.call_id.clone();
    f.fix = fix.map(|d| Fix {
        applicability: Applicability::Safe,
        description: d.to_string(),
    });
    f
}

/// TM007 for a row whose JSON cannot be read: its session is neither analysed nor repaired.
pub fn unreadable(path: &str, session: &str, index: usize, pointer: String, why: &str) -> Finding {
    let mut f = Finding::new(
        Rule::InvalidJson,
        path,
        format!(
            "a row of session `{session}` cannot be read ({why}): the session is not analysed or repaired"
        ),
    );
    f.pointer = pointer;
    f.conversation = Some(index);
    f
}

/// The placeholder text with `{id}` and `{name}` filled in.
pub fn placeholder_text(template: &str, id: &str, name: Option<&str>) -> String {
    template
        .replace("{id}", id)
        .replace("{name}", name.unwrap_or("unknown"))
}

/// Whether a table exists with (at least) these columns.
pub fn has_table(conn: &Connection, table: &str, columns: &[&str]) -> StoreResult<bool> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names: Vec<String> = stmt
        .query_map([table], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(!names.is_empty() && columns.iter().all(|c| names.iter().any(|n| n == c)))
}

/// The column names of a table, in table order.
pub fn columns(conn: &Connection, table: &str) -> StoreResult<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    stmt.query_map([table], |r| r.get(0))?.collect()
}

/// A JSON object read member by member, each value kept as its original text, so that an edit
/// rewrites only the members it changes (key order and every other byte stay).
pub type RawObject = indexmap::IndexMap<String, Box<RawValue>>;

/// Parse a JSON object keeping each member's original text.
pub fn raw_object(text: &str) -> Result<RawObject, serde_json::Error> {
    serde_json::from_str(text)
}

/// Serialise `obj` compactly (as `JSON.stringify`, Go's `json.Marshal` and serde write).
pub fn compact(obj: &RawObject) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in obj.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
        out.push(':');
        out.push_str(v.get());
    }
    out.push('}');
    out
}

/// A raw JSON value from serialisable data.
pub fn raw(value: &impl serde::Serialize) -> Box<RawValue> {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    RawValue::from_string(text).unwrap_or_else(|_| RawValue::from_string("null".into()).unwrap())
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Every application store, in detection order.
pub fn all() -> [&'static dyn AppStore; 5] {
    use super::opencode::Family;
    [
        &super::opencode::OpenCodeStore(Family::OpenCode),
        &super::opencode::OpenCodeStore(Family::Kilo),
        &super::crush::CrushStore,
        &super::goose::GooseStore,
        &super::agents_sdk::AgentsSdkStore,
    ]
}

/// The first store that recognises the database, with why.
pub fn detect(
    conn: &Connection,
    path: &str,
) -> StoreResult<Option<(&'static dyn AppStore, String)>> {
    for store in all() {
        if let Some(why) = store.recognise(conn, path)? {
            return Ok(Some((store, why)));
        }
    }
    Ok(None)
}

/// Repair the database at `path` with `store` in one `BEGIN IMMEDIATE` transaction: all of it
/// is written, or (on any error) none of it.
pub fn repair_file(
    store: &dyn AppStore,
    path: &std::path::Path,
    text: &str,
) -> StoreResult<Vec<RowChange>> {
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let changes = store.repair(&tx, &path.to_string_lossy(), text)?;
    tx.commit()?;
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_objects_keep_member_text_and_order() {
        let text = r#"{"b":1.50,"a":{"x" : [1, 2]},"c":"\u00e9"}"#;
        let mut obj = raw_object(text).unwrap();
        assert_eq!(
            compact(&obj),
            r#"{"b":1.50,"a":{"x" : [1, 2]},"c":"\u00e9"}"#
        );
        obj.insert("a".into(), raw(&"new"));
        obj.insert("d".into(), raw(&true));
        assert_eq!(
            compact(&obj),
            r#"{"b":1.50,"a":"new","c":"\u00e9","d":true}"#
        );
    }

    #[test]
    fn locators_escape_tokens() {
        assert_eq!(
            locator("s/1", &["messages", "m~2"]),
            "/sessions/s~11/messages/m~02"
        );
    }
}
