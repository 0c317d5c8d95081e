//! LangGraph's SQLite checkpointer (`langgraph-checkpoint-sqlite`): tables `checkpoints` (one
//! msgpack blob per checkpoint) and `writes` (pending writes of each checkpoint).
//!
//! A conversation is one thread and checkpoint namespace: its latest checkpoint's `messages`
//! channel, plus that checkpoint's pending writes. A pending `__interrupt__` means a human is
//! being asked: the trailing calls are paused, not dangling. A repair writes a new checkpoint,
//! child of the latest, as `update_state` does; older checkpoints stay.

mod decode;
mod ids;
pub mod postgres;
mod sqlite;
mod thread;
mod update;

pub use sqlite::LangGraphSqlite;
