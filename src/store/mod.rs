//! Databases: session stores that keep conversations in SQLite (LangGraph checkpointers,
//! OpenCode/Kilo, Crush, Goose, the OpenAI Agents SDK) behind one [`Store`] trait, and
//! LangGraph's PostgreSQL tables, read only ([`postgres`]).
//!
//! A store is recognised from an open, read-only connection ([`Store::recognise`]). It lists
//! its conversations ([`Store::conversations`]), each rendered as a JSON message list in a
//! dialect toolmend already reads, so the ordinary lint runs on it ([`pipeline::lint`]);
//! findings are mapped back to store locations ([`Location`]). A repair runs the ordinary
//! repair on those JSON bytes and hands the result ([`Mended`]) to the store's own write
//! ([`Store::write`]), all inside one write transaction ([`pipeline::repair`]) taken only when
//! no other connection is writing ([`safety`]).

pub mod agents_sdk;
pub mod apps;
pub mod crush;
pub mod goose;
mod langgraph;
pub mod opencode;
pub mod pipeline;
pub mod postgres;
pub mod safety;
pub mod sqlite;

use rusqlite::{Connection, Transaction};

use crate::dialect::Dialect;

pub use crate::finding::StoreLocation as Location;
pub use langgraph::LangGraphSqlite;

/// A kind of session store kept in a database.
pub trait Store: Sync {
    /// The stable name shown by `detect` and in findings (`langgraph-sqlite`).
    fn name(&self) -> &'static str;

    /// Why the database open on `conn` is this store (its tables and columns), or `None`.
    fn recognise(&self, conn: &Connection) -> Option<String>;

    /// The dialect [`Content::Messages`] is written in.
    fn dialect(&self) -> &'static dyn Dialect;

    /// Every conversation of the store, read from `conn` (which may be read-only).
    fn conversations(&self, conn: &Connection) -> Result<Vec<Stored>, Error>;

    /// What the owning app itself does with a call left without a result, said in each such
    /// finding in place of the provider's words (the app, not the provider, reads the stored
    /// call first); `None` keeps the provider's words.
    fn dangling_note(&self) -> Option<&'static str> {
        None
    }

    /// What `n` calls of [`Messages::paused`] are, for `detect`.
    fn paused_note(&self, n: usize) -> String {
        format!("paused on an interrupt ({n} call(s) waiting for a human)")
    }

    /// Write the repaired messages of `conv` inside `tx`, the store's own way; returns the
    /// number of rows inserted or changed. `conv` was read inside the same transaction.
    fn write(&self, tx: &Transaction<'_>, conv: &Stored, mended: &Mended) -> Result<usize, Error>;
}

/// Every store, in recognition order.
pub fn all() -> &'static [&'static dyn Store] {
    &[
        &LangGraphSqlite,
        &opencode::OpenCodeStore(opencode::Family::OpenCode),
        &opencode::OpenCodeStore(opencode::Family::Kilo),
        &crush::CrushStore,
        &goose::GooseStore,
        &agents_sdk::AgentsSdkStore,
    ]
}

/// The store the database open on `conn` is, and why.
pub fn recognise(conn: &Connection) -> Option<(&'static dyn Store, String)> {
    all()
        .iter()
        .find_map(|s| s.recognise(conn).map(|why| (*s, why)))
}

/// The store named `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Store> {
    all().iter().copied().find(|s| s.name() == name)
}

/// One conversation of a store, as read.
#[derive(Debug, Clone)]
pub struct Stored {
    /// Where it lives.
    pub location: Location,
    /// Its messages, or why they cannot be read.
    pub content: Content,
}

impl Stored {
    /// The session `thread_id` of the store kind `store`, located by its id alone.
    pub fn session(store: &'static str, thread_id: String, content: Content) -> Stored {
        Stored {
            location: Location {
                store,
                thread_id,
                ..Location::default()
            },
            content,
        }
    }
}

/// A stored conversation's messages.
#[derive(Debug, Clone)]
pub enum Content {
    /// Readable messages.
    Messages(Messages),
    /// Not readable with confidence: reported (TM015), never repaired.
    Unreadable(String),
}

/// A stored conversation rendered for the ordinary lint.
#[derive(Debug, Clone, Default)]
pub struct Messages {
    /// A JSON array of messages in the store's [`Store::dialect`].
    pub json: Vec<u8>,
    /// Per message (same index), the store's own name for it (a message id), if any.
    pub rows: Vec<Option<String>>,
    /// Call ids waiting for a human (a pending interrupt): not dangling, never repaired.
    pub paused: Vec<String>,
    /// Why this conversation may be linted but not repaired, if so.
    pub read_only: Option<String>,
}

/// The repaired message list of one conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mended {
    /// The new list, in order.
    pub messages: Vec<MendedMessage>,
    /// Placeholder results inserted.
    pub placeholders: usize,
}

/// One message of a [`Mended`] list.
#[derive(Debug, Clone, PartialEq)]
pub enum MendedMessage {
    /// The original message at this index of [`Messages::json`], unchanged.
    Kept(usize),
    /// A message the repair wrote (a placeholder result), in the store's dialect.
    New(serde_json::Value),
}

/// Why a database could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite said no.
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL said no.
    #[error("{0}")]
    Postgres(#[from] ::postgres::Error),
    /// Another connection is writing (TM016); nothing was written.
    #[error("TM016 store-busy: {0}; nothing written (try again when the app is idle, or --force)")]
    Busy(String),
    /// The database is not what the store expected.
    #[error("{0}")]
    Format(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
