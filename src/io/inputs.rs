//! Turning PATHS into documents: files, directories (recursive), and `-` for standard input.

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::Error;
use super::opencode::{self, Session};

/// One document to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The name shown in reports (`-` for standard input).
    pub name: String,
    /// The file, or `None` for standard input (and for an OpenCode session).
    pub path: Option<PathBuf>,
    /// Found by walking a directory (not named on the command line): such a file with nothing
    /// log-shaped in it is skipped rather than reported.
    pub walked: bool,
    /// An OpenCode session, read from its many files as one document (see
    /// [`super::opencode`]).
    pub session: Option<Session>,
}

impl Input {
    fn file(path: PathBuf, walked: bool) -> Input {
        Input {
            name: path.display().to_string(),
            path: Some(path),
            walked,
            session: None,
        }
    }

    fn session(session: Session, walked: bool) -> Input {
        Input {
            name: session.name(),
            path: None,
            walked,
            session: Some(session),
        }
    }
}

/// Add the OpenCode sessions `path` names that have messages, once each; `false` when `path`
/// is not inside an OpenCode storage root. A path named on the command line whose sessions
/// have no message files is an error (nothing would be checked); a walk skips empty sessions.
fn add_sessions(
    path: &Path,
    named: bool,
    inputs: &mut Vec<Input>,
    errors: &mut Vec<Error>,
) -> bool {
    let Some(root) = opencode::root_of(path) else {
        return false;
    };
    let mut any = false;
    for s in opencode::sessions(&root, path) {
        if s.files().is_empty() {
            continue;
        }
        any = true;
        if !inputs.iter().any(|i| i.session.as_ref() == Some(&s)) {
            inputs.push(Input::session(s, !named));
        }
    }
    if named && !any {
        errors.push(Error::skipped(
            path,
            "inside an OpenCode storage folder, but no session with messages found for it",
        ));
    }
    true
}

/// File name extensions looked for in directories.
pub const EXTENSIONS: &[&str] = &["json", "jsonl", "ndjson", "traj"];

/// Database file name extensions looked for in directories; such a file is taken only when
/// its header says SQLite.
pub const DATABASE_EXTENSIONS: &[&str] = &["db", "sqlite", "sqlite3"];

/// Expand PATHS (none means standard input; a `postgres://` URL is taken as it is). A path
/// inside an OpenCode storage root stands for the session(s) it belongs to, each one input
/// (see [`super::opencode`]); so does a storage root met in a directory walk. Problems (missing files, unreadable
/// directories, broken links, sockets) are returned beside the inputs so that the others can
/// still be processed. A path named explicitly may be a pipe (`<(zcat log.gz)`); inside
/// directories only regular files with a known extension are taken (databases only when
/// their header says SQLite). Directory symlinks are
/// followed, each directory once (a link loop is not walked again).
pub fn expand(paths: &[PathBuf]) -> (Vec<Input>, Vec<Error>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    let defaulted = [PathBuf::from("-")];
    let paths = if paths.is_empty() {
        &defaulted[..]
    } else {
        paths
    };
    for p in paths {
        if p.as_os_str() == "-" {
            inputs.push(Input {
                name: "-".into(),
                path: None,
                walked: false,
                session: None,
            });
            continue;
        }
        if let Some(url) = p.to_str().filter(|s| crate::store::postgres::is_url(s)) {
            inputs.push(Input {
                name: crate::store::postgres::redact(url),
                path: Some(p.clone()),
                walked: false,
                session: None,
            });
            continue;
        }
        if add_sessions(p, true, &mut inputs, &mut errors) {
            continue;
        }
        match fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, &mut inputs, &mut errors),
            Ok(m) if m.is_file() || m.file_type().is_fifo() || m.file_type().is_char_device() => {
                inputs.push(Input::file(p.clone(), false))
            }
            Ok(_) => errors.push(Error::skipped(p, "not a regular file (a socket or device)")),
            Err(e) if fs::symlink_metadata(p).is_ok() => {
                errors.push(Error::io(p, "broken symbolic link", e))
            }
            Err(e) => errors.push(Error::io(p, "cannot read", e)),
        }
    }
    (inputs, errors)
}

fn wanted(p: &Path) -> bool {
    has_extension(p, EXTENSIONS)
}

fn has_extension(p: &Path, extensions: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e.to_ascii_lowercase().as_str()))
}

/// A regular file named like a database whose header says SQLite.
fn wanted_database(p: &Path) -> bool {
    named_like_database(p) && crate::store::sqlite::is_sqlite(p)
}

/// Whether `p` has a database extension ([`DATABASE_EXTENSIONS`]). A file a directory walk
/// took with one has an SQLite header.
pub fn named_like_database(p: &Path) -> bool {
    has_extension(p, DATABASE_EXTENSIONS)
}

/// Depth-first, in sorted order, without recursion (so no depth limit but the file system's).
fn walk(root: &Path, inputs: &mut Vec<Input>, errors: &mut Vec<Error>) {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut todo: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        if let Ok(real) = fs::canonicalize(&dir)
            && !seen.insert(real)
        {
            continue;
        }
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push(Error::io(&dir, "cannot read directory", e));
                continue;
            }
        };
        // The entry's type as the directory lists it, when it is a plain file or directory:
        // a symbolic link (or an unknown type) is looked up through.
        let mut paths: Vec<(PathBuf, Option<fs::FileType>)> = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => {
                    let listed = e.file_type().ok().filter(|t| t.is_file() || t.is_dir());
                    paths.push((e.path(), listed))
                }
                Err(e) => errors.push(Error::io(&dir, "cannot read directory", e)),
            }
        }
        // Entries of one directory share its path up to their names, so their bytes sort as
        // their names, as `Path`'s order (component by component) would, at a fraction of the
        // cost.
        paths.sort_unstable_by(|a, b| a.0.as_os_str().as_bytes().cmp(b.0.as_os_str().as_bytes()));
        let mut subdirs = Vec::new();
        for (p, listed) in paths {
            let looked_up = match listed {
                Some(t) => Ok(t),
                None => fs::metadata(&p).map(|m| m.file_type()),
            };
            match looked_up {
                Ok(m) if m.is_dir() && add_sessions(&p, false, inputs, errors) => {}
                Ok(m) if m.is_dir() => subdirs.push(p),
                Ok(m) if m.is_file() && (wanted(&p) || wanted_database(&p)) => {
                    inputs.push(Input::file(p, true))
                }
                Ok(_) if wanted(&p) => errors.push(Error::skipped(
                    &p,
                    "not a regular file (a socket, pipe or device); skipped",
                )),
                Ok(_) => {}
                Err(e) if fs::symlink_metadata(&p).is_ok_and(|m| m.is_symlink()) => {
                    errors.push(Error::io(&p, "broken symbolic link; skipped", e))
                }
                Err(e) => errors.push(Error::io(&p, "cannot read; skipped", e)),
            }
        }
        // Files of a directory come before its subdirectories, which are walked in order.
        todo.extend(subdirs.into_iter().rev());
    }
}

/// Read one input whole (an OpenCode session: its files joined into one document).
pub fn load(input: &Input) -> Result<Vec<u8>, Error> {
    if let Some(session) = &input.session {
        return Ok(session.assemble()?.bytes);
    }
    match &input.path {
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io(Path::new("-"), "cannot read standard input", e))?;
            Ok(bytes)
        }
        Some(p) => fs::read(p).map_err(|e| Error::io(p, "cannot read", e)),
    }
}

/// Read one input whole into `room`, as [`load`] does, and say how long it is: the input is
/// `room[..len]` (what lies past it is left from before). The room is reused from one input to
/// the next: one that fits is read without looking its size up and without allocating, which
/// over thousands of small files saves a system call and an allocation each. Room past
/// [`ROOM_ZEROED`] is not made this way (it would be cleared first): a bigger input is read
/// as [`load`] reads it.
pub fn load_into(input: &Input, room: &mut Vec<u8>) -> Result<usize, Error> {
    let Some(p) = input.path.as_deref().filter(|_| input.session.is_none()) else {
        *room = load(input)?;
        return Ok(room.len());
    };
    read_reusing(p, room).map_err(|e| Error::io(p, "cannot read", e))
}

/// The most room [`load_into`] clears to read into.
pub const ROOM_ZEROED: usize = 1 << 20;

fn read_reusing(path: &Path, room: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut file = fs::File::open(path)?;
    let mut len = 0;
    loop {
        if len == room.len() {
            let size = file.metadata().map_or(0, |m| m.len());
            let want = usize::try_from(size).unwrap_or(usize::MAX).max(len);
            if want >= ROOM_ZEROED {
                room.truncate(len);
                file.read_to_end(room)?;
                return Ok(room.len());
            }
            // Room for the end of the file to be seen in the same read, and to spare.
            room.resize(want + (8 << 10), 0);
        }
        match file.read(&mut room[len..]) {
            Ok(0) => return Ok(len),
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Input, ROOM_ZEROED, load_into};

    #[test]
    fn a_reused_room_reads_each_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let room_len = 5000 + (8 << 10);
        // Empty, a first size, smaller, exactly the room made for the first, larger, larger
        // than the room that is cleared, and small again after it.
        let sizes = [
            0,
            5000,
            10,
            room_len,
            room_len + 1,
            70_000,
            ROOM_ZEROED + 3,
            7,
        ];
        let mut room = Vec::new();
        for (i, size) in sizes.into_iter().enumerate() {
            let path = dir.path().join(format!("{i}.json"));
            let bytes: Vec<u8> = (0..size).map(|b| (b * 7 + i) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            let len = load_into(&Input::file(path, false), &mut room).unwrap();
            assert!(room[..len] == bytes[..], "file of {size} bytes");
        }
        let missing = Input::file(dir.path().join("missing.json"), false);
        assert!(load_into(&missing, &mut room).is_err());
    }
}
