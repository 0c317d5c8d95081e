//! What the application stores (OpenCode/Kilo, Crush, Goose, the OpenAI Agents SDK) share:
//! rendering sessions as OpenAI chat messages for the ordinary lint, reading a repair back as
//! a sequence of stored rows and new messages, and writing JSON the way each app writes it.

use rusqlite::Connection;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{Mended, MendedMessage, Messages};

/// A session rendered as an OpenAI chat message list, each message naming its stored row.
#[derive(Debug, Default)]
pub struct Chat {
    messages: Vec<Value>,
    rows: Vec<Option<String>>,
    paused: Vec<String>,
}

impl Chat {
    /// A user message (or any message without tool calls) from row `row`.
    pub fn user(&mut self, row: &str, text: String) {
        self.push(row, json!({"role": "user", "content": text}));
    }

    /// An assistant message from row `row` with its calls `(id, name)`.
    pub fn assistant(&mut self, row: &str, text: String, calls: &[(Option<&str>, Option<&str>)]) {
        let mut m = json!({"role": "assistant", "content": text});
        if !calls.is_empty() {
            let calls: Vec<Value> = calls
                .iter()
                .map(|(id, name)| {
                    json!({"id": id, "type": "function",
                           "function": {"name": name, "arguments": "{}"}})
                })
                .collect();
            m["tool_calls"] = Value::Array(calls);
        }
        self.push(row, m);
    }

    /// A tool result for call `id` from row `row`.
    pub fn result(&mut self, row: &str, id: Option<&str>, text: String) {
        self.push(
            row,
            json!({"role": "tool", "tool_call_id": id, "content": text}),
        );
    }

    /// Calls waiting (still running, or waiting for a human): never dangling, never repaired.
    pub fn pause(&mut self, id: &str) {
        self.paused.push(id.to_string());
    }

    /// Why the session cannot be repaired by inserting rows, if a result is not in the run of
    /// results right after its call's message.
    fn result_away_from_its_call(&self) -> Option<String> {
        let mut run: Vec<&str> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for m in &self.messages {
            match m["role"].as_str() {
                Some("tool") => {
                    let id = m["tool_call_id"].as_str().unwrap_or_default();
                    if !run.contains(&id) && seen.contains(&id) {
                        return Some(format!(
                            "the result of `{id}` is stored away from its call; toolmend only \
                             inserts rows into this store"
                        ));
                    }
                }
                _ => {
                    run = m["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|c| c["id"].as_str())
                        .collect();
                    seen.extend(&run);
                }
            }
        }
        None
    }

    fn push(&mut self, row: &str, m: Value) {
        self.messages.push(m);
        self.rows.push(Some(row.to_string()));
    }

    /// The rendered messages for the ordinary lint. A session where a result sits away from
    /// its call is linted but not repaired: its repair would move stored rows, and the stores
    /// only insert them.
    pub fn finish(self, read_only: Option<String>) -> Messages {
        let read_only = read_only.or_else(|| self.result_away_from_its_call());
        Messages {
            json: Value::Array(self.messages).to_string().into_bytes(),
            rows: self.rows,
            paused: self.paused,
            read_only,
        }
    }
}

/// A repaired session, in stored terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    /// An existing row (consecutive messages of one row appear once).
    Row(String),
    /// New messages written by the repair (consecutive ones together).
    New(Vec<Value>),
}

/// The repaired session as stored rows and new messages, in order. Existing messages must keep
/// their order: a repair that moves them is refused (the stores only insert rows).
pub fn layout(messages: &Messages, mended: &Mended) -> Result<Vec<Slot>, String> {
    let mut out: Vec<Slot> = Vec::new();
    let mut last = None;
    let mut kept = 0;
    for m in &mended.messages {
        match m {
            MendedMessage::Kept(i) => {
                if last.is_some_and(|l| *i <= l) {
                    return Err(
                        "the repair moves stored messages; toolmend only inserts rows \
                                into this store"
                            .into(),
                    );
                }
                last = Some(*i);
                kept += 1;
                let row = messages.rows.get(*i).cloned().flatten().unwrap_or_default();
                if out.last() != Some(&Slot::Row(row.clone())) {
                    out.push(Slot::Row(row));
                }
            }
            MendedMessage::New(v) => match out.last_mut() {
                Some(Slot::New(group)) => group.push(v.clone()),
                _ => out.push(Slot::New(vec![v.clone()])),
            },
        }
    }
    if kept != messages.rows.len() {
        return Err("the repair drops stored messages; toolmend only inserts rows".into());
    }
    Ok(out)
}

/// The call id and text of a placeholder tool message (`role: "tool"`).
pub fn placeholder(m: &Value) -> Option<(&str, &str)> {
    Some((m["tool_call_id"].as_str()?, m["content"].as_str()?))
}

/// Column `i` of `row` as an owned value; TEXT that is not UTF-8 is an error here (rusqlite's
/// own conversion to an owned value panics on it).
pub fn owned(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<rusqlite::types::Value> {
    use rusqlite::types::{FromSqlError, Value as Sql, ValueRef};
    Ok(match row.get_ref(i)? {
        ValueRef::Text(t) => Sql::Text(
            std::str::from_utf8(t)
                .map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        i,
                        rusqlite::types::Type::Text,
                        Box::new(FromSqlError::Other(Box::new(e))),
                    )
                })?
                .to_string(),
        ),
        other => Sql::from(other),
    })
}

/// Whether `table` has every one of `columns` (see [`super::sqlite::has_columns`]).
pub fn has(conn: &Connection, table: &str, columns: &[&str]) -> bool {
    super::sqlite::has_columns(conn, table, columns)
}

/// The column names of a table, in table order.
pub fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
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

/// Serialise `obj` compactly (as `JSON.stringify` writes it).
pub fn compact(obj: &RawObject) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in obj.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::from(k.as_str()).to_string());
        out.push(':');
        out.push_str(v.get());
    }
    out.push('}');
    out
}

/// A raw JSON value holding `text`, which must be valid JSON.
pub fn raw_text(text: String) -> Box<RawValue> {
    RawValue::from_string(text).unwrap_or_else(|_| raw(&Value::Null))
}

/// A raw JSON value from a JSON value.
pub fn raw(value: &Value) -> Box<RawValue> {
    RawValue::from_string(value.to_string()).expect("serde_json writes valid JSON")
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `value` as Python's `json.dumps` writes it: `", "` and `": "` separators, ASCII only.
pub fn py_dumps(value: &Value) -> String {
    let mut out = String::new();
    write_py(value, &mut out);
    out
}

fn write_py(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => out.push_str(&py_string(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_py(v, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&py_string(k));
                out.push_str(": ");
                write_py(v, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A string as Python's `json.dumps` writes it (other than printable ASCII as `\uXXXX`).
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
            ' '..='~' => out.push(c),
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
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' | '\0'..='\u{1f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
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
    fn raw_objects_keep_member_text_and_order() {
        let mut obj = raw_object(r#"{"b":1.50,"a":{"x" : [1, 2]},"c":"\u00e9"}"#).unwrap();
        assert_eq!(
            compact(&obj),
            r#"{"b":1.50,"a":{"x" : [1, 2]},"c":"\u00e9"}"#
        );
        obj.insert("a".into(), raw(&json!("new")));
        obj.insert("d".into(), raw(&json!(true)));
        assert_eq!(
            compact(&obj),
            r#"{"b":1.50,"a":"new","c":"\u00e9","d":true}"#
        );
    }

    #[test]
    fn json_as_python_and_go_write_it() {
        assert_eq!(
            py_dumps(&json!({"a": ["é😀", 1], "b": "x\"\u{7f}"})),
            r#"{"a": ["\u00e9\ud83d\ude00", 1], "b": "x\"\u007f"}"#
        );
        assert_eq!(
            go_string("a<b>&\"é\n\u{1}"),
            r#""a\u003cb\u003e\u0026\"é\n\u0001""#
        );
    }

    fn messages(rows: &[&str]) -> Messages {
        Messages {
            rows: rows.iter().map(|r| Some(r.to_string())).collect(),
            ..Messages::default()
        }
    }

    #[test]
    fn a_result_away_from_its_call_makes_the_session_read_only() {
        let mut chat = Chat::default();
        chat.assistant(
            "m1",
            String::new(),
            &[(Some("c1"), Some("f")), (Some("c2"), Some("f"))],
        );
        chat.result("m2", Some("c2"), "ok".into());
        assert!(chat.result_away_from_its_call().is_none());
        chat.user("m3", "next".into());
        chat.result("m4", Some("c1"), "late".into());
        let m = chat.finish(None);
        assert!(m.read_only.unwrap().contains("`c1`"));
    }

    #[test]
    fn text_that_is_not_utf8_is_an_error_not_a_panic() {
        let conn = Connection::open_in_memory().unwrap();
        let got = conn.query_row("SELECT CAST(x'ff00' AS TEXT), 7", [], |r| {
            Ok((owned(r, 0).is_err(), owned(r, 1)?))
        });
        assert_eq!(got.unwrap(), (true, rusqlite::types::Value::Integer(7)));
    }

    #[test]
    fn layouts_merge_rows_and_group_new_messages() {
        use MendedMessage::{Kept, New};
        let m = messages(&["r1", "r2", "r2", "r3"]);
        let mended = Mended {
            messages: vec![
                Kept(0),
                Kept(1),
                Kept(2),
                New(json!(1)),
                New(json!(2)),
                Kept(3),
            ],
            placeholders: 2,
        };
        assert_eq!(
            layout(&m, &mended).unwrap(),
            [
                Slot::Row("r1".into()),
                Slot::Row("r2".into()),
                Slot::New(vec![json!(1), json!(2)]),
                Slot::Row("r3".into()),
            ]
        );
        let moved = Mended {
            messages: vec![Kept(1), Kept(0), Kept(2), Kept(3)],
            placeholders: 0,
        };
        assert!(layout(&m, &moved).is_err());
    }
}
