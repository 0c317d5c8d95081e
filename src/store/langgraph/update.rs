//! The checkpoint LangGraph's `update_state` would write with the repaired messages.

use rmpv::Value;

use crate::store::{Mended, MendedMessage};

use super::sqlite::Latest;
use super::{decode, ids};

/// A new checkpoint's id and blob.
pub(super) struct NewCheckpoint {
    pub(super) id: String,
    pub(super) blob: Vec<u8>,
}

/// The checkpoint `update_state` would write after `latest` with `mended` as the messages:
/// new time-ordered id, new `ts`, the `messages` version bumped past every channel's version,
/// and metadata `{"source": "update", "step": step + 1, "parents": …}`.
pub(super) fn update_checkpoint(
    latest: &Latest,
    mended: &Mended,
) -> Result<(NewCheckpoint, Vec<u8>), String> {
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
