//! `langgraph-checkpoint-postgres` (`PostgresSaver`): tables `checkpoints` (the checkpoint as
//! JSONB, primitive channel values inline), `checkpoint_blobs` (other channel values, msgpack,
//! by channel and version) and `checkpoint_writes` (pending writes). Read only.

use ::postgres::Transaction;

use crate::store::{Content, Error, Location, Stored};

use super::thread::{self, Decoded, WriteRow};

/// The store name shown by `detect` and in findings.
pub const NAME: &str = "langgraph-postgres";

const TABLES: &[(&str, &[&str])] = &[
    (
        "checkpoints",
        &["thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint"],
    ),
    (
        "checkpoint_blobs",
        &[
            "thread_id",
            "checkpoint_ns",
            "channel",
            "version",
            "type",
            "blob",
        ],
    ),
    (
        "checkpoint_writes",
        &[
            "thread_id",
            "checkpoint_ns",
            "checkpoint_id",
            "task_id",
            "idx",
            "channel",
            "type",
            "blob",
        ],
    ),
];

/// Why the database is LangGraph's `PostgresSaver`, or `None`.
pub fn recognise(tx: &mut Transaction<'_>) -> Result<Option<String>, Error> {
    let rows = tx.query(
        "SELECT table_name::text, column_name::text FROM information_schema.columns \
         WHERE table_schema = current_schema()",
        &[],
    )?;
    let has = |table: &str, column: &str| {
        rows.iter()
            .any(|r| r.get::<_, String>(0) == table && r.get::<_, String>(1) == column)
    };
    let ok = TABLES
        .iter()
        .all(|(t, columns)| columns.iter().all(|c| has(t, c)));
    Ok(ok.then(|| {
        "tables `checkpoints` (checkpoint JSONB), `checkpoint_blobs` (channel, version, blob) and \
         `checkpoint_writes` of langgraph-checkpoint-postgres"
            .to_string()
    }))
}

/// Every thread's latest checkpoint as a conversation.
pub fn conversations(tx: &mut Transaction<'_>) -> Result<Vec<Stored>, Error> {
    let latest = tx.query(
        "SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoint::text FROM checkpoints c \
         WHERE checkpoint_id = (SELECT MAX(checkpoint_id) FROM checkpoints d \
         WHERE d.thread_id = c.thread_id AND d.checkpoint_ns = c.checkpoint_ns) \
         ORDER BY thread_id, checkpoint_ns",
        &[],
    )?;
    let mut out = Vec::new();
    for row in latest {
        let (thread_id, ns, id): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        let checkpoint: String = row.get(3);
        let decoded = decode_checkpoint(tx, &thread_id, &ns, &checkpoint)?;
        let writes = pending_writes(tx, &thread_id, &ns, &id)?;
        let content = match thread::messages(&id, decoded, &writes) {
            Some(Ok(m)) => Content::Messages(m),
            Some(Err(why)) => Content::Unreadable(why),
            None => continue,
        };
        out.push(Stored {
            location: Location {
                store: NAME,
                thread_id,
                checkpoint_ns: Some(ns),
                checkpoint_id: Some(id),
                row: None,
            },
            content,
        });
    }
    Ok(out)
}

/// One channel value of `checkpoint_blobs`.
struct Blob {
    /// The serializer (`msgpack`, or `empty` for a channel without a value).
    kind: String,
    value: Option<Vec<u8>>,
}

/// The messages channel (from its blob) and the pending nodes of a JSONB checkpoint.
fn decode_checkpoint(
    tx: &mut Transaction<'_>,
    thread_id: &str,
    ns: &str,
    checkpoint: &str,
) -> Result<Result<Option<Decoded>, String>, Error> {
    let Ok(cp) = serde_json::from_str::<serde_json::Value>(checkpoint) else {
        return Ok(Err("the checkpoint is not JSON".into()));
    };
    let versions = cp.get("channel_versions").and_then(|v| v.as_object());
    let version = |channel: &str| {
        versions
            .and_then(|v| v.get(channel))
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
    };
    let blob = |tx: &mut Transaction<'_>, channel: &str| -> Result<Option<Blob>, Error> {
        let Some(version) = version(channel) else {
            return Ok(None);
        };
        let row = tx.query_opt(
            "SELECT type, blob FROM checkpoint_blobs WHERE thread_id = $1 AND checkpoint_ns = $2 \
             AND channel = $3 AND version = $4",
            &[&thread_id, &ns, &channel, &version],
        )?;
        Ok(row.map(|r| Blob {
            kind: r.get(0),
            value: r.get(1),
        }))
    };
    // Triggers: inline values (`branch:to:NODE` holds null) and non-empty blobs.
    let mut channels: Vec<(String, bool)> = cp
        .get("channel_values")
        .and_then(|v| v.as_object())
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_array().is_some_and(|a| !a.is_empty())))
        .collect();
    for name in versions.into_iter().flat_map(|v| v.keys()) {
        let trigger =
            name == "__start__" || name == "__pregel_tasks" || name.starts_with("branch:to:");
        if trigger
            && !channels.iter().any(|(c, _)| c == name)
            && let Some(b) = blob(tx, name)?
            && b.kind != "empty"
        {
            channels.push((name.clone(), true));
        }
    }
    let next = thread::next_nodes(channels.iter().map(|(c, l)| (c.as_str(), *l)));
    let Some(Blob { kind, value }) = blob(tx, "messages")? else {
        return Ok(Ok(None));
    };
    if kind == "empty" {
        return Ok(Ok(None));
    }
    if let Err(why) = thread::plain_msgpack(Some(&kind), "the `messages` blob") {
        return Ok(Err(why));
    }
    let decoded = super::decode::value(value.as_deref().unwrap_or_default())
        .and_then(thread::channel_list)
        .map(|messages| Some(Decoded { messages, next }));
    Ok(decoded)
}

fn pending_writes(
    tx: &mut Transaction<'_>,
    thread_id: &str,
    ns: &str,
    id: &str,
) -> Result<Vec<WriteRow>, Error> {
    let rows = tx.query(
        "SELECT task_id, idx, channel, type, blob FROM checkpoint_writes WHERE thread_id = $1 \
         AND checkpoint_ns = $2 AND checkpoint_id = $3 ORDER BY task_id, idx",
        &[&thread_id, &ns, &id],
    )?;
    Ok(rows
        .iter()
        .map(|r| WriteRow {
            task: r.get(0),
            idx: i64::from(r.get::<_, i32>(1)),
            channel: r.get(2),
            kind: r.get(3),
            value: r.get(4),
        })
        .collect())
}
