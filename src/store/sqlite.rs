//! Opening SQLite files: recognised by their header, read without ever writing.

use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// The 16 bytes every SQLite 3 database file starts with.
pub const HEADER: &[u8; 16] = crate::read::SQLITE_HEADER;

/// Whether the file at `path` starts with the SQLite header (any extension). Only regular
/// files are looked at: sniffing a pipe would eat the bytes the log reader needs. A file that
/// cannot be read is not SQLite here; reading it as a log then reports the error.
pub fn is_sqlite(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == HEADER)
}

/// Open a database for reading only. Safe while the owning app runs: SQLite's own locking
/// applies (a WAL database is read from a consistent snapshot), nothing is written, and the
/// connection refuses writes (`query_only`). A short busy timeout rides over a checkpoint.
pub fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(2))?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

/// Open a database for a repair. No busy timeout: a held write lock is reported at once
/// ([`super::safety`]) rather than waited for, unless `wait` is given (`--force`).
pub fn open_read_write(path: &Path, wait: bool) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let timeout = if wait { 10_000 } else { 0 };
    conn.busy_timeout(std::time::Duration::from_millis(timeout))?;
    Ok(conn)
}

/// Whether `table` exists and has every one of `columns`.
pub fn has_columns(conn: &Connection, table: &str, columns: &[&str]) -> bool {
    let Ok(mut stmt) = conn.prepare("SELECT name FROM pragma_table_info(?1)") else {
        return false;
    };
    let Ok(names) = stmt
        .query_map([table], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
    else {
        return false;
    };
    !names.is_empty() && columns.iter().all(|c| names.iter().any(|n| n == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_decides_not_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sessions.log");
        Connection::open(&db)
            .unwrap()
            .execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
        assert!(is_sqlite(&db));
        let fake = dir.path().join("fake.db");
        std::fs::write(&fake, b"[{\"role\": \"user\"}]").unwrap();
        assert!(!is_sqlite(&fake));
        assert!(!is_sqlite(&dir.path().join("missing.db")));
    }

    #[test]
    fn read_only_connection_refuses_writes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.sqlite");
        Connection::open(&db)
            .unwrap()
            .execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t(x TEXT, y TEXT);")
            .unwrap();
        let ro = open_read_only(&db).unwrap();
        assert!(ro.execute("INSERT INTO t VALUES (1, 2)", []).is_err());
        assert!(has_columns(&ro, "t", &["x", "y"]));
        assert!(!has_columns(&ro, "t", &["x", "z"]));
        assert!(!has_columns(&ro, "nope", &[]));
    }
}
