//! LangGraph's SQLite checkpointer (`langgraph-checkpoint-sqlite`): tables `checkpoints` (one
//! msgpack blob per checkpoint) and `writes` (pending writes of each checkpoint).
//!
//! A conversation is one thread and checkpoint namespace: its latest checkpoint's `messages`
//! channel, plus that checkpoint's pending writes. A pending `__interrupt__` means a human is
//! being asked: the trailing calls are paused, not dangling. A repair writes a new checkpoint,
//! child of the latest, as `update_state` does; older checkpoints stay.

mod decode;
mod ids;

use rmpv::Value;
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::dialect::{Dialect, LangChain};

use super::{Content, Error, Location, Mended, MendedMessage, Messages, Store, Stored};

/// The `langgraph-checkpoint-sqlite` store.
pub struct LangGraphSqlite;

const NAME: &str = "langgraph-sqlite";

const CHECKPOINT_COLUMNS: &[&str] = &[
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "parent_checkpoint_id",
    "type",
    "checkpoint",
    "metadata",
];
const WRITE_COLUMNS: &[&str] = &[
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "task_id",
    "idx",
    "channel",
    "type",
    "value",
];

/// The latest checkpoint of one thread and namespace, as stored.
struct Latest {
    thread_id: String,
    checkpoint_ns: String,
    checkpoint_id: String,
    kind: Option<String>,
    blob: Option<Vec<u8>>,
    metadata: Option<Vec<u8>>,
}

const LATEST: &str = "SELECT thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, \
     CAST(metadata AS BLOB) FROM checkpoints c WHERE checkpoint_id = (SELECT MAX(checkpoint_id) \
     FROM checkpoints d WHERE d.thread_id = c.thread_id AND d.checkpoint_ns = c.checkpoint_ns)";

fn latest_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Latest> {
    Ok(Latest {
        thread_id: r.get(0)?,
        checkpoint_ns: r.get(1)?,
        checkpoint_id: r.get(2)?,
        kind: r.get(3)?,
        blob: r.get(4)?,
        metadata: r.get(5)?,
    })
}

impl Store for LangGraphSqlite {
    fn name(&self) -> &'static str {
        NAME
    }

    fn recognise(&self, conn: &Connection) -> Option<String> {
        let ok = super::sqlite::has_columns(conn, "checkpoints", CHECKPOINT_COLUMNS)
            && super::sqlite::has_columns(conn, "writes", WRITE_COLUMNS);
        ok.then(|| {
            "tables `checkpoints` (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, \
             metadata) and `writes` (task_id, idx, channel, value) of langgraph-checkpoint-sqlite"
                .to_string()
        })
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &LangChain
    }

    fn conversations(&self, conn: &Connection) -> Result<Vec<Stored>, Error> {
        let mut stmt = conn.prepare(&format!("{LATEST} ORDER BY thread_id, checkpoint_ns"))?;
        let latest = stmt
            .query_map([], latest_row)?
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::new();
        for l in latest {
            let location = Location {
                store: NAME,
                thread_id: l.thread_id.clone(),
                checkpoint_ns: Some(l.checkpoint_ns.clone()),
                checkpoint_id: Some(l.checkpoint_id.clone()),
                row: None,
            };
            let content = match read_thread(conn, &l)? {
                Some(Ok(m)) => Content::Messages(m),
                Some(Err(why)) => Content::Unreadable(why),
                None => continue,
            };
            out.push(Stored { location, content });
        }
        Ok(out)
    }

    fn write(&self, tx: &Transaction<'_>, conv: &Stored, mended: &Mended) -> Result<usize, Error> {
        let loc = &conv.location;
        let ns = loc.checkpoint_ns.clone().unwrap_or_default();
        let latest = tx
            .query_row(
                &format!("{LATEST} AND thread_id = ?1 AND checkpoint_ns = ?2"),
                params![loc.thread_id, ns],
                latest_row,
            )
            .optional()?;
        let fail = |what: String| Error::Format(format!("{loc}: {what}; nothing written"));
        let latest = latest.ok_or_else(|| fail("the thread is gone".into()))?;
        if Some(&latest.checkpoint_id) != loc.checkpoint_id.as_ref() {
            return Err(fail(format!(
                "a newer checkpoint {} appeared",
                latest.checkpoint_id
            )));
        }
        let (checkpoint, metadata) = update_checkpoint(&latest, mended).map_err(fail)?;
        tx.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, \
             parent_checkpoint_id, type, checkpoint, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                latest.thread_id,
                latest.checkpoint_ns,
                checkpoint.id,
                latest.checkpoint_id,
                "msgpack",
                checkpoint.blob,
                metadata
            ],
        )?;
        Ok(1)
    }
}

/// The `messages` of one latest checkpoint and its pending writes: `None` when the graph has
/// no `messages` channel (not a conversation), `Some(Err)` when something cannot be read.
fn read_thread(conn: &Connection, l: &Latest) -> Result<Option<Result<Messages, String>>, Error> {
    let cp = &l.checkpoint_id;
    let Decoded {
        messages: channel,
        next,
    } = match checkpoint_messages(l) {
        Ok(Some(d)) => d,
        Ok(None) => return Ok(None),
        Err(why) => return Ok(Some(Err(format!("checkpoint {cp}: {why}; not read")))),
    };
    let mut list = Vec::with_capacity(channel.len());
    for (i, v) in channel.iter().enumerate() {
        match decode::message(v) {
            Ok(m) => list.push(m),
            Err(why) => return Ok(Some(Err(format!("checkpoint {cp}: message {i}: {why}")))),
        }
    }
    let pending = match pending_writes(conn, l)? {
        Ok(p) => p,
        Err(why) => return Ok(Some(Err(format!("checkpoint {cp}: {why}")))),
    };
    let mut rows: Vec<Option<String>> = list
        .iter()
        .map(|m| m.get("id").and_then(|v| v.as_str()).map(str::to_string))
        .collect();
    let read_only = if pending.interrupted {
        Some("it is paused on an interrupt: a new checkpoint would drop the pending question (answer it first)".to_string())
    } else if !next.is_empty() {
        Some(format!(
            "its run stopped with {} still to run: resuming it runs them and answers the calls, \
             so placeholders would become duplicates (resume the run, or send a new message, first)",
            next.join(", ")
        ))
    } else if pending.writes > 0 {
        Some(format!(
            "its latest checkpoint has {} pending write(s) LangGraph has not applied yet \
             (resume the run first)",
            pending.writes
        ))
    } else {
        None
    };
    for (task, m) in pending.messages {
        rows.push(Some(format!("pending write of task {task}")));
        list.push(m);
    }
    let paused = if pending.interrupted {
        trailing_calls(&list)
    } else {
        Vec::new()
    };
    let json = serde_json::to_vec_pretty(&list).expect("JSON values always serialise");
    Ok(Some(Ok(Messages {
        json,
        rows,
        paused,
        read_only,
    })))
}

/// What the latest checkpoint holds: its `messages` channel values (undecoded) and the nodes
/// it will run next (`get_state().next`).
struct Decoded {
    messages: Vec<Value>,
    next: Vec<String>,
}

/// The latest checkpoint decoded; `None` without a `messages` channel.
fn checkpoint_messages(l: &Latest) -> Result<Option<Decoded>, String> {
    let kind = l.kind.as_deref().unwrap_or("(none)");
    if kind != "msgpack" {
        return Err(format!(
            "stored with serializer `{kind}` (toolmend reads only plain `msgpack`: an \
             encrypted or pickled checkpoint is not guessed at)"
        ));
    }
    let blob = l.blob.as_deref().ok_or("no checkpoint blob")?;
    let mut checkpoint = decode::value(blob)?;
    let Some(values) = decode::get_mut(&mut checkpoint, "channel_values") else {
        return Err("no `channel_values` in the checkpoint".into());
    };
    let next = next_nodes(values);
    let Some(messages) = decode::get_mut(values, "messages") else {
        return Ok(None);
    };
    match std::mem::replace(messages, Value::Nil) {
        Value::Array(items) => Ok(Some(Decoded {
            messages: items,
            next,
        })),
        Value::Ext(decode::EXT_DELTA_SNAPSHOT, _) => {
            Err("the `messages` channel is a delta channel, which toolmend does not read".into())
        }
        other => Err(format!(
            "the `messages` channel is a {}, not a list",
            decode::kind(&other)
        )),
    }
}

/// The nodes a checkpoint has triggered but not run: a trigger channel (`branch:to:NODE`,
/// `__start__`) keeps a value only until its node runs; `__pregel_tasks` holds `Send`s.
fn next_nodes(values: &Value) -> Vec<String> {
    let Some(entries) = values.as_map() else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(k, v)| {
            let k = k.as_str()?;
            match k {
                "__start__" => Some(k.to_string()),
                "__pregel_tasks" => v
                    .as_array()
                    .is_some_and(|a| !a.is_empty())
                    .then(|| "a Send task".to_string()),
                _ => k.strip_prefix("branch:to:").map(str::to_string),
            }
        })
        .collect()
}

/// What the pending writes of a checkpoint say.
#[derive(Default)]
struct Pending {
    /// A task is waiting on `interrupt()`.
    interrupted: bool,
    /// Messages written to `messages` by finished tasks, with their task id.
    messages: Vec<(String, serde_json::Value)>,
    /// Writes of any channel (a new checkpoint would leave them behind).
    writes: usize,
}

fn pending_writes(conn: &Connection, l: &Latest) -> Result<Result<Pending, String>, Error> {
    let mut stmt = conn.prepare(
        "SELECT task_id, idx, channel, type, value FROM writes WHERE thread_id = ?1 AND \
         checkpoint_ns = ?2 AND checkpoint_id = ?3 ORDER BY task_id, idx",
    )?;
    let rows = stmt
        .query_map(
            params![l.thread_id, l.checkpoint_ns, l.checkpoint_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<Vec<u8>>>(4)?,
                ))
            },
        )?
        .collect::<Result<Vec<_>, _>>()?;
    let mut p = Pending {
        writes: rows.len(),
        ..Pending::default()
    };
    for (task, idx, channel, kind, value) in rows {
        match channel.as_str() {
            "__interrupt__" => p.interrupted = true,
            "messages" => {
                let what = format!("pending write {idx} of task {task}");
                if kind.as_deref() != Some("msgpack") {
                    return Ok(Err(format!(
                        "{what} is stored with serializer `{}`, which toolmend does not read",
                        kind.as_deref().unwrap_or("(none)")
                    )));
                }
                let v = match decode::value(value.as_deref().unwrap_or_default()) {
                    Ok(v) => v,
                    Err(e) => return Ok(Err(format!("{what}: {e}"))),
                };
                let items = match v {
                    Value::Array(items) => items,
                    one => vec![one],
                };
                for item in &items {
                    match decode::message(item) {
                        Ok(m) => p.messages.push((task.clone(), m)),
                        Err(e) => return Ok(Err(format!("{what}: {e}"))),
                    }
                }
            }
            _ => {}
        }
    }
    Ok(Ok(p))
}

/// The call ids of the last AI message when only tool messages follow it (the calls a pending
/// interrupt is about).
fn trailing_calls(list: &[serde_json::Value]) -> Vec<String> {
    let ty = |m: &serde_json::Value| m.get("type").and_then(|t| t.as_str()).map(str::to_string);
    let Some(last) = list.iter().rev().find(|m| ty(m).as_deref() != Some("tool")) else {
        return Vec::new();
    };
    if ty(last).as_deref() != Some("ai") {
        return Vec::new();
    }
    last.get("tool_calls")
        .and_then(|c| c.as_array())
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("id").and_then(|i| i.as_str()).map(str::to_string))
        .collect()
}

/// A new checkpoint's id and blob.
struct NewCheckpoint {
    id: String,
    blob: Vec<u8>,
}

/// The checkpoint `update_state` would write after `latest` with `mended` as the messages:
/// new time-ordered id, new `ts`, the `messages` version bumped past every channel's version,
/// and metadata `{"source": "update", "step": step + 1, "parents": …}`.
fn update_checkpoint(latest: &Latest, mended: &Mended) -> Result<(NewCheckpoint, Vec<u8>), String> {
    let mut checkpoint = decode::value(latest.blob.as_deref().unwrap_or_default())?;
    let originals = {
        let values =
            decode::get_mut(&mut checkpoint, "channel_values").ok_or("no channel_values")?;
        match decode::get_mut(values, "messages").map(|v| std::mem::replace(v, Value::Nil)) {
            Some(Value::Array(items)) => items,
            _ => return Err("the `messages` channel is not a list".into()),
        }
    };
    let mut messages = Vec::with_capacity(mended.messages.len());
    for m in &mended.messages {
        messages.push(match m {
            MendedMessage::Kept(i) => originals
                .get(*i)
                .cloned()
                .ok_or("a kept message is not in the checkpoint")?,
            MendedMessage::New(v) => tool_message(v)?,
        });
    }
    let metadata: serde_json::Value = latest
        .metadata
        .as_deref()
        .map(serde_json::from_slice)
        .transpose()
        .map_err(|e| format!("checkpoint metadata is not JSON: {e}"))?
        .unwrap_or_default();
    let step = metadata.get("step").and_then(|s| s.as_i64()).unwrap_or(-1) + 1;
    let parents = metadata
        .get("parents")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    let id = ids::uuid6(&latest.checkpoint_id, step);
    let version = {
        let versions = decode::get(&checkpoint, "channel_versions")
            .and_then(|v| v.as_map())
            .ok_or("no channel_versions")?;
        ids::next_version(versions.iter().map(|(_, v)| v))
    };
    let set = |cp: &mut Value, key: &str, v: Value| match decode::get_mut(cp, key) {
        Some(slot) => *slot = v,
        None => {
            if let Value::Map(entries) = cp {
                entries.push((Value::from(key), v));
            }
        }
    };
    set(&mut checkpoint, "id", Value::from(id.as_str()));
    set(
        &mut checkpoint,
        "ts",
        Value::from(ids::timestamp().as_str()),
    );
    set(&mut checkpoint, "updated_channels", Value::Nil);
    if let Some(values) = decode::get_mut(&mut checkpoint, "channel_values") {
        set(values, "messages", Value::Array(messages));
    }
    if let Some(versions) = decode::get_mut(&mut checkpoint, "channel_versions") {
        set(versions, "messages", version);
    }
    let metadata = format!(
        "{{\"source\": \"update\", \"step\": {step}, \"parents\": {}}}",
        serde_json::to_string(&parents).expect("JSON values always serialise")
    );
    Ok((
        NewCheckpoint {
            id,
            blob: decode::encode(&checkpoint),
        },
        metadata.into_bytes(),
    ))
}

/// A placeholder result from the repair (a flat LangChain ToolMessage dump) as LangChain's
/// `ToolMessage` extension value, with every field of its `model_dump()`.
fn tool_message(v: &serde_json::Value) -> Result<Value, String> {
    if v.get("type").and_then(|t| t.as_str()) != Some("tool") {
        return Err("the repair wrote a message that is not a ToolMessage".into());
    }
    let field = |k: &str| v.get(k).cloned().unwrap_or(serde_json::Value::Null);
    let or_empty = |k: &str| v.get(k).cloned().unwrap_or_else(|| serde_json::json!({}));
    let dump = serde_json::json!({
        "content": field("content"),
        "additional_kwargs": or_empty("additional_kwargs"),
        "response_metadata": or_empty("response_metadata"),
        "type": "tool",
        "name": field("name"),
        "id": ids::uuid4(),
        "tool_call_id": field("tool_call_id"),
        "artifact": field("artifact"),
        "status": v.get("status").cloned().unwrap_or_else(|| "error".into()),
    });
    Ok(decode::message_ext(
        "langchain_core.messages.tool",
        "ToolMessage",
        decode::from_json(&dump),
    ))
}
