//! `langgraph-checkpoint-sqlite` (`SqliteSaver`): tables `checkpoints` (one msgpack blob per
//! checkpoint, channel values included) and `writes` (pending writes of each checkpoint).

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::dialect::{Dialect, LangChain};
use crate::store::{Content, Error, Location, Mended, Store, Stored};

use super::thread::{self, Decoded, WriteRow};
use super::{decode, update};

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
pub(super) struct Latest {
    pub(super) thread_id: String,
    pub(super) checkpoint_ns: String,
    pub(super) checkpoint_id: String,
    pub(super) kind: Option<String>,
    pub(super) blob: Option<Vec<u8>>,
    pub(super) metadata: Option<Vec<u8>>,
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
        let ok = crate::store::sqlite::has_columns(conn, "checkpoints", CHECKPOINT_COLUMNS)
            && crate::store::sqlite::has_columns(conn, "writes", WRITE_COLUMNS);
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
            let writes = pending_writes(conn, &l)?;
            let content = match thread::messages(&l.checkpoint_id, checkpoint_messages(&l), &writes)
            {
                Some(Ok(mut m)) => {
                    if !l.checkpoint_ns.is_empty() {
                        m.read_only.get_or_insert_with(|| {
                            "it is a subgraph's state (namespace), which its parent graph \
                             writes; repair the parent thread instead"
                                .into()
                        });
                    }
                    Content::Messages(m)
                }
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
        let (checkpoint, metadata) = update::update_checkpoint(&latest, mended).map_err(fail)?;
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

/// The latest checkpoint decoded; `None` without a `messages` channel.
fn checkpoint_messages(l: &Latest) -> Result<Option<Decoded>, String> {
    thread::plain_msgpack(l.kind.as_deref(), "the checkpoint")?;
    let blob = l.blob.as_deref().ok_or("no checkpoint blob")?;
    let mut checkpoint = decode::value(blob)?;
    let Some(values) = decode::get_mut(&mut checkpoint, "channel_values") else {
        return Err("no `channel_values` in the checkpoint".into());
    };
    let next =
        thread::next_nodes(
            values.as_map().into_iter().flatten().filter_map(|(k, v)| {
                Some((k.as_str()?, v.as_array().is_some_and(|a| !a.is_empty())))
            }),
        );
    let Some(messages) = decode::get_mut(values, "messages") else {
        return Ok(None);
    };
    let messages = thread::channel_list(std::mem::replace(messages, rmpv::Value::Nil))?;
    Ok(Some(Decoded { messages, next }))
}

/// The pending writes of the latest checkpoint.
fn pending_writes(conn: &Connection, l: &Latest) -> Result<Vec<WriteRow>, Error> {
    let mut stmt = conn.prepare(
        "SELECT task_id, idx, channel, type, value FROM writes WHERE thread_id = ?1 AND \
         checkpoint_ns = ?2 AND checkpoint_id = ?3 ORDER BY task_id, idx",
    )?;
    let rows = stmt
        .query_map(
            params![l.thread_id, l.checkpoint_ns, l.checkpoint_id],
            |r| {
                Ok(WriteRow {
                    task: r.get(0)?,
                    idx: r.get(1)?,
                    channel: r.get(2)?,
                    kind: r.get(3)?,
                    value: r.get(4)?,
                })
            },
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
