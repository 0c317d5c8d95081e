//! Writing only to a quiet database: no other connection holding the write lock, no WAL
//! growing under our feet. Both are reported as [`Error::Busy`] (TM016).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::Error;

/// How long the WAL is watched for growth before a repair.
pub const WATCH: Duration = Duration::from_millis(300);

/// The write-ahead log beside a database (`<db>-wal`).
pub fn wal_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push("-wal");
    PathBuf::from(p)
}

fn wal_state(db: &Path) -> Option<(u64, Option<SystemTime>)> {
    std::fs::metadata(wal_path(db))
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// `Ok` when the database's WAL (if any) did not change during [`WATCH`]: an app appending to
/// it is running a write right now.
pub fn wal_is_quiet(db: &Path) -> Result<(), Error> {
    let before = wal_state(db);
    if before.is_none() {
        return Ok(());
    }
    std::thread::sleep(WATCH);
    let after = wal_state(db);
    if before != after {
        return Err(Error::Busy(format!(
            "its write-ahead log {} is growing (another app is writing to it)",
            wal_path(db).display()
        )));
    }
    Ok(())
}

/// A failure to take the write lock as [`Error::Busy`] when SQLite says the database is busy
/// or locked (and we were not told to wait); other errors as they are.
pub fn busy_or(e: rusqlite::Error, forced: bool) -> Error {
    let busy = matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    );
    if busy {
        let waited = if forced { " even after waiting" } else { "" };
        Error::Busy(format!("another connection holds its write lock{waited}"))
    } else {
        Error::Sqlite(e)
    }
}
