//! Lint and repair of a store's conversations through the ordinary pipeline: each
//! conversation's messages are JSON bytes in the store's dialect, analysed and repaired like a
//! file; findings are moved to store locations and repairs written by the store.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::analysis::Defect;
use crate::dialect::Dialect;
use crate::finding::Finding;
use crate::lint::{self, Analysed, LintOptions};
use crate::read::{Format, ReadOptions};
use crate::repair::{self, RepairOptions};
use crate::rules::Rule;

use super::{Content, Error, Mended, MendedMessage, Messages, Store, Stored, safety};

/// A store's conversations, linted.
#[derive(Debug)]
pub struct Report {
    /// The store kind.
    pub store: &'static str,
    /// Why the database was recognised as that store.
    pub why: String,
    /// One entry per conversation, in the store's order.
    pub conversations: Vec<Linted>,
}

/// One linted conversation.
#[derive(Debug)]
pub struct Linted {
    /// The conversation as read.
    pub stored: Stored,
    /// Its analysis (`None` when unreadable).
    pub analysed: Option<Analysed>,
    /// Its findings, at store locations.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Every finding, conversation by conversation.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.conversations.iter().flat_map(|c| &c.findings)
    }

    /// Tool calls checked over all conversations.
    pub fn calls_checked(&self) -> usize {
        self.conversations
            .iter()
            .filter_map(|c| c.analysed.as_ref())
            .map(|a| a.calls_checked)
            .sum()
    }
}

/// Lint the store open on `conn` (read-only is enough). `name` is the path shown in findings.
/// `None` when no known store is in the database.
pub fn lint(name: &str, conn: &Connection, options: &LintOptions) -> Result<Option<Report>, Error> {
    let Some((store, why)) = super::recognise(conn) else {
        return Ok(None);
    };
    let conversations = read_all(name, conn, store, options)?;
    Ok(Some(Report {
        store: store.name(),
        why,
        conversations,
    }))
}

/// Read and lint every conversation of a store.
fn read_all(
    name: &str,
    conn: &Connection,
    store: &dyn Store,
    options: &LintOptions,
) -> Result<Vec<Linted>, Error> {
    let mut linted = lint_stored(name, store.dialect(), store.conversations(conn)?, options);
    for l in &mut linted {
        for f in &mut l.findings {
            told_by_app(store, f);
        }
    }
    Ok(linted)
}

/// Lint conversations read from any store (SQLite or not) whose messages are in `dialect`.
pub fn lint_stored(
    name: &str,
    dialect: &'static dyn Dialect,
    stored: Vec<Stored>,
    options: &LintOptions,
) -> Vec<Linted> {
    let options = store_options(dialect, options);
    stored
        .into_iter()
        .enumerate()
        .map(|(index, s)| lint_one(name, index, s, &options))
        .collect()
}

/// The lint options for a store's rendered messages: its dialect, one JSON array.
fn store_options(dialect: &'static dyn Dialect, options: &LintOptions) -> LintOptions {
    LintOptions {
        read: ReadOptions {
            dialect: Some(dialect),
            at: None,
            format: Some(Format::Json),
            ..options.read.clone()
        },
        ..options.clone()
    }
}

fn lint_one(name: &str, index: usize, stored: Stored, options: &LintOptions) -> Linted {
    let messages = match &stored.content {
        Content::Unreadable(why) => {
            let mut f = Finding::new(Rule::UnreadableRecord, name, why.clone());
            f.conversation = Some(index);
            f.store = Some(stored.location.clone());
            return Linted {
                stored,
                analysed: None,
                findings: vec![f],
            };
        }
        Content::Messages(m) => m,
    };
    let mut analysed = lint::analyse(name, &messages.json, options);
    // Calls a human is being asked about are paused, not dangling.
    for defects in &mut analysed.defects {
        defects.retain(|d| !is_paused(d, messages));
    }
    let findings = lint::findings(name, &analysed)
        .into_iter()
        .map(|f| at_store(f, index, &stored, messages))
        .collect();
    Linted {
        stored,
        analysed: Some(analysed),
        findings,
    }
}

fn is_paused(d: &Defect, messages: &Messages) -> bool {
    matches!(d, Defect::Dangling { call, .. }
        if call.call.id.as_ref().is_some_and(|id| messages.paused.contains(id)))
}

/// A dangling call told as the owning app treats it, when the store says how.
fn told_by_app(store: &dyn Store, f: &mut Finding) {
    if let (Rule::DanglingToolCall, Some(note)) = (f.rule, store.dangling_note()) {
        let quoted = |s: &Option<String>| {
            s.as_deref()
                .map_or("(missing)".into(), |s| format!("`{s}`"))
        };
        let not_repaired = f
            .message
            .find(" (not repaired: ")
            .map(|i| f.message[i..].to_string());
        f.message = format!(
            "tool call {} to {} has no result, and the session went on after it: {note}{}",
            quoted(&f.call_id),
            quoted(&f.tool_name),
            not_repaired.unwrap_or_default()
        );
    }
}

/// A finding of the rendered messages, placed in the store.
fn at_store(mut f: Finding, index: usize, stored: &Stored, messages: &Messages) -> Finding {
    let mut location = stored.location.clone();
    location.row = f
        .message_index
        .and_then(|i| messages.rows.get(i).cloned().flatten());
    f.line = 0;
    f.column = 0;
    f.conversation = Some(index);
    f.store = Some(location);
    if let Some(why) = &messages.read_only
        && f.fix.take().is_some()
    {
        f.message.push_str(&format!(" (not repaired: {why})"));
    }
    f
}

/// The repaired message list of one linted conversation, or `None` when nothing changes.
pub fn mend(linted: &Linted, options: &RepairOptions) -> Result<Option<Mended>, Error> {
    let (Some(analysed), Content::Messages(messages)) = (&linted.analysed, &linted.stored.content)
    else {
        return Ok(None);
    };
    if messages.read_only.is_some() {
        return Ok(None);
    }
    let repaired = repair::document(&messages.json, analysed, options);
    if !repaired.changed {
        return Ok(None);
    }
    let bad = |what: &str| Error::Format(format!("{}: {what}", linted.stored.location));
    let before: Vec<serde_json::Value> = serde_json::from_slice(&messages.json)
        .map_err(|e| bad(&format!("rendered messages: {e}")))?;
    let after: Vec<serde_json::Value> = serde_json::from_slice(&repaired.output)
        .map_err(|e| bad(&format!("repaired messages: {e}")))?;
    let mended = match_messages(&before, after);
    // A paused call is never answered by a repair: no new message names its id (whatever
    // the dialect's key for it).
    for m in &mended.messages {
        if let MendedMessage::New(v) = m {
            let text = v.to_string();
            if messages
                .paused
                .iter()
                .any(|id| text.contains(&serde_json::Value::from(id.as_str()).to_string()))
            {
                return Err(bad("the repair answered a paused call; nothing written"));
            }
        }
    }
    Ok(Some(Mended {
        placeholders: repaired.placeholders,
        ..mended
    }))
}

/// Each message of `after` as an original of `before` (equal value, first unused, in order)
/// or a new one.
fn match_messages(before: &[serde_json::Value], after: Vec<serde_json::Value>) -> Mended {
    let mut used = vec![false; before.len()];
    let messages = after
        .into_iter()
        .map(
            |v| match (0..before.len()).find(|&i| !used[i] && before[i] == v) {
                Some(i) => {
                    used[i] = true;
                    MendedMessage::Kept(i)
                }
                None => MendedMessage::New(v),
            },
        )
        .collect();
    Mended {
        messages,
        placeholders: 0,
    }
}

/// What a repair of a database did.
#[derive(Debug, Default)]
pub struct Written {
    /// Conversations repaired, by location.
    pub repaired: Vec<super::Location>,
    /// Placeholder results inserted.
    pub placeholders: usize,
    /// Rows inserted or changed.
    pub rows: usize,
    /// Findings left after the write, read back and linted again.
    pub left: Vec<Finding>,
    /// Conversations that did not change (healthy, paused, read-only, unreadable).
    pub untouched: usize,
}

/// How a repair may write.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Write even when another connection seems to be writing (`--force`).
    pub force: bool,
    /// Keep a consistent copy made with SQLite's backup API first.
    pub backup: Option<std::path::PathBuf>,
    /// Only say what would change; write nothing (`--check`).
    pub dry_run: bool,
}

/// Each conversation to write, with what to write over it.
type Writes<'l> = Vec<(&'l Stored, Mended)>;

/// What [`repair`] would write: the mended conversations, and the counts with the findings
/// as they are now (`left`, replaced after a write by what is read back).
fn plan<'l>(linted: &'l [Linted], options: &RepairOptions) -> Result<(Written, Writes<'l>), Error> {
    let mut done = Written::default();
    let mut writes = Vec::new();
    for l in linted {
        match mend(l, options)? {
            Some(mended) => {
                done.placeholders += mended.placeholders;
                done.repaired.push(l.stored.location.clone());
                writes.push((&l.stored, mended));
            }
            None => done.untouched += 1,
        }
    }
    done.left = linted.iter().flat_map(|l| l.findings.clone()).collect();
    Ok((done, writes))
}

/// [`repair`] without writing: one read snapshot through a read-only connection.
fn dry_run(
    path: &Path,
    lint_options: &LintOptions,
    options: &RepairOptions,
) -> Result<Written, Error> {
    let mut conn = super::sqlite::open_read_only(path)?;
    let snapshot = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
    let Some((store, _)) = super::recognise(&snapshot) else {
        return Err(Error::Format(
            "no known session store in this database".into(),
        ));
    };
    let linted = read_all(&path.display().to_string(), &snapshot, store, lint_options)?;
    Ok(plan(&linted, options)?.0)
}

/// Repair the store in the database at `path`: inside one write transaction, read and lint
/// every conversation again, write each mended one the store's way, then read back and lint
/// once more. Refuses (TM016, [`Error::Busy`]) when another connection is writing, unless
/// forced. Any error rolls the whole transaction back. A dry run reads one snapshot through a
/// read-only connection: it takes no write lock, so it neither waits for a running app nor
/// blocks it, and closing it cannot checkpoint the write-ahead log or remove its files.
pub fn repair(
    path: &Path,
    lint_options: &LintOptions,
    options: &RepairOptions,
    write: &WriteOptions,
) -> Result<Written, Error> {
    if write.dry_run {
        return dry_run(path, lint_options, options);
    }
    let mut conn = super::sqlite::open_read_write(path, write.force)?;
    if !write.force {
        safety::wal_is_quiet(path)?;
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| safety::busy_or(e, write.force))?;
    let Some((store, _)) = super::recognise(&tx) else {
        return Err(Error::Format(
            "no known session store in this database".into(),
        ));
    };
    let name = path.display().to_string();
    let linted = read_all(&name, &tx, store, lint_options)?;
    let (mut done, writes) = plan(&linted, options)?;
    if writes.is_empty() {
        return Ok(done);
    }
    // The copy is taken while we hold the write lock, before any write, from a second
    // (reading) connection: it is exactly the database the repair starts from.
    if let Some(backup) = &write.backup {
        let source = super::sqlite::open_read_only(path)?;
        if let Err(e) = source.backup(rusqlite::MAIN_DB, backup, None) {
            let _ = std::fs::remove_file(backup);
            return Err(e.into());
        }
    }
    for (stored, mended) in &writes {
        done.rows += store.write(&tx, stored, mended)?;
    }
    tx.commit()?;
    let check = super::sqlite::open_read_only(path)?;
    done.left = read_all(&name, &check, store, lint_options)?
        .into_iter()
        .flat_map(|l| l.findings)
        .collect();
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repaired_messages_map_back_to_the_originals() {
        let a = json!({"type": "ai", "content": ""});
        let h = json!({"type": "human", "content": "hi"});
        let p = json!({"type": "tool", "tool_call_id": "c1"});
        // Equal originals are matched in order, each once; the rest is new.
        let mended = match_messages(
            &[h.clone(), a.clone(), h.clone()],
            vec![h.clone(), a, p.clone(), h],
        );
        assert_eq!(
            mended.messages,
            [
                MendedMessage::Kept(0),
                MendedMessage::Kept(1),
                MendedMessage::New(p),
                MendedMessage::Kept(2)
            ]
        );
    }
}
