//! Shared by the store tests: table dumps, lint and repair through the store interface, and the
//! real applications installed by `.ci/stores.sh`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::Value;
use toolmend::Options as LintOptions;
use toolmend::RepairOptions;
use toolmend::store::{self, pipeline, sqlite};

/// Every row of every table (rowid first), rendered as text, per table.
pub type Dump = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// Dump every table of the database at `path`.
pub fn dump(path: &Path) -> Dump {
    let conn = Connection::open(path).unwrap();
    let mut tables = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    let names: Vec<String> = tables
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out = Dump::new();
    for t in names {
        let mut stmt = conn
            .prepare(&format!("SELECT rowid AS _rowid_, * FROM \"{t}\""))
            .unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let values: Vec<String> = (0..n)
                    .map(|i| format!("{:?}", r.get::<_, Value>(i).unwrap()))
                    .collect();
                Ok((values[0].clone(), values[1..].to_vec()))
            })
            .unwrap()
            .collect::<Result<BTreeMap<_, _>, _>>()
            .unwrap();
        out.insert(t, rows);
    }
    out
}

/// The rows that differ between two dumps: `(table, rowid)`, sorted.
pub fn changed(before: &Dump, after: &Dump) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (t, rows) in before.iter().chain(after) {
        let (b, a) = (before.get(t), after.get(t));
        for k in rows.keys() {
            if b.and_then(|r| r.get(k)) != a.and_then(|r| r.get(k)) {
                out.push((t.clone(), k.clone()));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The store that recognises the database, by name.
pub fn detect(path: &Path) -> &'static str {
    let conn = sqlite::open_read_only(path).unwrap();
    store::recognise(&conn).map_or("none", |(s, _)| s.name())
}

/// `CODE call-id` of every finding (` fix` when repair fixes it), in the store's order.
pub fn lint(path: &Path) -> Vec<String> {
    let conn = sqlite::open_read_only(path).unwrap();
    let report = pipeline::lint("db", &conn, &LintOptions::default())
        .unwrap()
        .expect("a known store");
    report
        .findings()
        .map(|f| {
            let fix = if f.fix.is_some() { " fix" } else { "" };
            format!("{} {}{fix}", f.code, f.call_id.as_deref().unwrap_or("-"))
        })
        .collect()
}

/// Repair in place (one transaction), with the default options.
pub fn repair(path: &Path) -> pipeline::Written {
    pipeline::repair(
        path,
        &LintOptions::default(),
        &RepairOptions::default(),
        &pipeline::WriteOptions::default(),
    )
    .unwrap()
}

/// A program installed by `.ci/stores.sh`, when it is there (tests that need it skip quietly
/// without it, saying so).
pub fn app(relative: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join(relative);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipped: {} is not installed (run .ci/stores.sh)",
            p.display()
        );
        None
    }
}

/// A fixture file of `fixtures/stores`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/stores")
        .join(name)
}
