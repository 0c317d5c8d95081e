//! One LangGraph thread's conversation, whatever the checkpointer: the latest checkpoint's
//! `messages` channel, what it will run next, and its pending writes.

use rmpv::Value;

use crate::store::Messages;

use super::decode;

/// What the latest checkpoint holds: its `messages` channel values (undecoded) and the nodes
/// it will run next (`get_state().next`).
pub struct Decoded {
    /// The `messages` channel's values, undecoded.
    pub messages: Vec<Value>,
    /// The nodes triggered but not run.
    pub next: Vec<String>,
}

/// The `messages` channel's value as a list (a delta channel is not read).
pub fn channel_list(value: Value) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items),
        Value::Ext(decode::EXT_DELTA_SNAPSHOT, _) => {
            Err("the `messages` channel is a delta channel, which toolmend does not read".into())
        }
        other => Err(format!(
            "the `messages` channel is a {}, not a list",
            decode::kind(&other)
        )),
    }
}

/// Whether a serializer name is plain msgpack; otherwise why it is not read.
pub fn plain_msgpack(kind: Option<&str>, what: &str) -> Result<(), String> {
    let kind = kind.unwrap_or("(none)");
    if kind == "msgpack" {
        return Ok(());
    }
    Err(format!(
        "{what} is stored with serializer `{kind}` (toolmend reads only plain `msgpack`: an \
         encrypted or pickled value is not guessed at)"
    ))
}

/// The nodes a checkpoint has triggered but not run, from its channels that hold a value
/// (name, and whether the value is a non-empty list): a trigger channel (`branch:to:NODE`,
/// `__start__`) keeps a value only until its node runs; `__pregel_tasks` holds `Send`s.
pub fn next_nodes<'a>(channels: impl IntoIterator<Item = (&'a str, bool)>) -> Vec<String> {
    channels
        .into_iter()
        .filter_map(|(k, nonempty_list)| match k {
            "__start__" => Some(k.to_string()),
            "__pregel_tasks" => nonempty_list.then(|| "a Send task".to_string()),
            _ => k.strip_prefix("branch:to:").map(str::to_string),
        })
        .collect()
}

/// One pending write of the latest checkpoint.
pub struct WriteRow {
    /// The task that wrote it.
    pub task: String,
    /// Its index within the task's writes.
    pub idx: i64,
    /// The channel written.
    pub channel: String,
    /// The serializer.
    pub kind: Option<String>,
    /// The serialized value.
    pub value: Option<Vec<u8>>,
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

fn pending(rows: &[WriteRow]) -> Result<Pending, String> {
    let mut p = Pending {
        writes: rows.len(),
        ..Pending::default()
    };
    for w in rows {
        match w.channel.as_str() {
            "__interrupt__" => p.interrupted = true,
            "messages" => {
                let what = format!("pending write {} of task {}", w.idx, w.task);
                plain_msgpack(w.kind.as_deref(), &what)?;
                let v = decode::value(w.value.as_deref().unwrap_or_default())
                    .map_err(|e| format!("{what}: {e}"))?;
                let items = match v {
                    Value::Array(items) => items,
                    one => vec![one],
                };
                for item in &items {
                    let m = decode::message(item).map_err(|e| format!("{what}: {e}"))?;
                    p.messages.push((w.task.clone(), m));
                }
            }
            _ => {}
        }
    }
    Ok(p)
}

/// The `messages` of one latest checkpoint and its pending writes: `None` when the graph has
/// no `messages` channel (not a conversation), `Some(Err)` when something cannot be read.
pub fn messages(
    cp: &str,
    decoded: Result<Option<Decoded>, String>,
    writes: &[WriteRow],
) -> Option<Result<Messages, String>> {
    let Decoded {
        messages: channel,
        next,
    } = match decoded {
        Ok(Some(d)) => d,
        Ok(None) => return None,
        Err(why) => return Some(Err(format!("checkpoint {cp}: {why}; not read"))),
    };
    let mut list = Vec::with_capacity(channel.len());
    for (i, v) in channel.iter().enumerate() {
        match decode::message(v) {
            Ok(m) => list.push(m),
            Err(why) => return Some(Err(format!("checkpoint {cp}: message {i}: {why}"))),
        }
    }
    let pending = match pending(writes) {
        Ok(p) => p,
        Err(why) => return Some(Err(format!("checkpoint {cp}: {why}"))),
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
    Some(Ok(Messages {
        json,
        rows,
        paused,
        read_only,
    }))
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
