//! Safe writes: a temporary file in the target's directory, fsync, then an atomic rename over
//! the target. An existing target keeps its permissions (and, where allowed, its owner); a new
//! file gets the usual `0666` less the umask. A failed write never leaves a partial file
//! behind: the temporary file is removed and the target is untouched. A target that is neither
//! a regular file nor a directory (`/dev/null`, a named pipe, a terminal) is written into, never
//! renamed over: that would put a regular file in its place.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::Error;

/// Write `bytes` to `target` atomically. A symlink is followed and its target replaced.
pub fn atomic_write(target: &Path, bytes: &[u8]) -> Result<(), Error> {
    let real = fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    if is_special(&real) {
        return write_into(&real, |file| file.write_all(bytes));
    }
    let meta = fs::metadata(&real).ok().filter(fs::Metadata::is_file);
    let tmp = stage(&real, bytes, meta.as_ref())?;
    commit(tmp, &real)
}

/// Replace the file at `path` (following a symlink to its target) with `bytes`, provided it
/// still holds `original`, the bytes that were repaired: if anything changed it meanwhile, the
/// write is abandoned with [`Error::Changed`] and the file left as it is. The check is made
/// after the new content is on disk, right before the rename. A read-only file is refused
/// ([`Error::ReadOnly`]). With `backup`, the original is first kept as `<file><suffix>`, next to
/// the resolved file.
pub fn in_place(
    path: &Path,
    original: &[u8],
    bytes: &[u8],
    backup: Option<&str>,
) -> Result<(), Error> {
    let real = fs::canonicalize(path).map_err(|e| Error::io(path, "cannot resolve", e))?;
    let meta = fs::metadata(&real).map_err(|e| Error::io(&real, "cannot read", e))?;
    if !meta.is_file() {
        return Err(Error::skipped(
            path,
            "not a regular file; cannot rewrite it in place",
        ));
    }
    // Write permission is checked by opening for writing (nothing is changed by that), as the
    // rename itself only needs the directory to be writable.
    let writable = fs::OpenOptions::new().write(true).open(&real).is_ok();
    if meta.permissions().readonly() || !writable {
        return Err(Error::ReadOnly(path.to_path_buf()));
    }
    let tmp = stage(&real, bytes, Some(&meta))?;
    let now = fs::read(&real).map_err(|e| Error::io(&real, "cannot read", e))?;
    if now != original {
        return Err(Error::Changed(path.to_path_buf()));
    }
    if let Some(suffix) = backup {
        let mut name = real.clone().into_os_string();
        name.push(suffix);
        let backup_path = PathBuf::from(name);
        let copy = stage(&backup_path, original, Some(&meta))?;
        commit(copy, &backup_path)?;
    }
    commit(tmp, &real)
}

/// Whether `path` is something other than a regular file or a directory: a device, a named
/// pipe, a socket. Output for it is written into it.
fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Write into the existing special file `target`, opened for writing as it is, with `write`.
fn write_into(
    target: &Path,
    write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> Result<(), Error> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .open(target)
        .map_err(|e| Error::io(target, "cannot open for writing", e))?;
    write(&mut file)
        .and_then(|()| file.flush())
        .map_err(|e| Error::io(target, "cannot write", e))?;
    Ok(())
}

/// The buffer [`copy_file`] copies through when the kernel does not copy.
const COPY_BUFFER: usize = 1 << 18;

/// Copy the rest of `from` into `to`: inside the kernel where `std::io::copy` does so (into a
/// regular file or a device), else in large blocks rather than its 8 KiB (into a pipe, which
/// it never splices into, or a terminal).
pub fn copy_file<W: Write>(from: &mut fs::File, to: &mut W) -> std::io::Result<u64> {
    let mut to = std::io::BufWriter::with_capacity(COPY_BUFFER, to);
    let n = std::io::copy(from, &mut to)?;
    to.flush()?;
    Ok(n)
}

/// The directory a file is in (`.` for a bare name).
fn dir_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A temporary file next to `target` holding `bytes`, flushed to disk, with the permissions
/// and owner of `like` (the file it will replace) when there is one.
fn stage(target: &Path, bytes: &[u8], like: Option<&fs::Metadata>) -> Result<NamedTempFile, Error> {
    use std::os::unix::fs::PermissionsExt;
    let dir = dir_of(target);
    let mut tmp = tempfile::Builder::new()
        .prefix(".toolmend-")
        .suffix(".tmp")
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(|e| Error::io(&dir, "cannot create a temporary file in this directory", e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(&dir, "cannot write a temporary file in this directory", e))?;
    if let Some(meta) = like {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(|e| Error::io(target, "cannot set permissions on the new file", e))?;
        keep_owner(tmp.as_file(), meta);
    }
    Ok(tmp)
}

/// Give the new file the old one's owner and group. Only root may give a file away, so for
/// anyone else this is a no-op when they own the original (the usual case) and silently
/// skipped otherwise.
fn keep_owner(file: &fs::File, meta: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
}

/// Rename the staged file over `target` and flush the directory entry.
fn commit(tmp: NamedTempFile, target: &Path) -> Result<(), Error> {
    tmp.persist(target)
        .map_err(|e| Error::io(target, "cannot replace the file", e.error))?;
    if let Ok(d) = fs::File::open(dir_of(target)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// What identifies one version of a file without holding its bytes: its length, the time it
/// was last modified (a write changes them), and on Unix the inode it lives in (saving by
/// renaming a new file over it changes that) and its status-change time (which a write also
/// moves, and which, unlike the modification time, cannot be set back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64),
    #[cfg(unix)]
    changed: (i64, i64),
}

impl Stamp {
    /// The stamp of the file at `path` now.
    pub fn of(path: &Path) -> Result<Stamp, Error> {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(path).map_err(|e| Error::io(path, "cannot read", e))?;
        Ok(Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: (meta.dev(), meta.ino()),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        })
    }
}

/// A new version of a file, written as a stream into a temporary file next to it, then put in
/// its place atomically (for content too large to hold in memory). For a target that is not a
/// regular file (`/dev/null`, a named pipe), the temporary file is in the system's temporary
/// directory and its content is copied into the target once complete.
#[derive(Debug)]
pub struct Staged {
    tmp: NamedTempFile,
    target: PathBuf,
    special: bool,
}

impl Staged {
    /// Start a new version of `target` (a symlink is followed: its target is replaced).
    pub fn next_to(target: &Path) -> Result<Staged, Error> {
        let real = fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
        let special = is_special(&real);
        let tmp = if special {
            NamedTempFile::new()
                .map_err(|e| Error::io(&real, "cannot create a temporary file for its output", e))?
        } else {
            stage(&real, &[], None)?
        };
        Ok(Staged {
            tmp,
            target: real,
            special,
        })
    }

    /// Where the new content is written.
    pub fn file(&mut self) -> &mut fs::File {
        self.tmp.as_file_mut()
    }

    /// Put the new content in place of the target (created when missing).
    pub fn commit(self) -> Result<(), Error> {
        if self.special {
            let mut written = self
                .tmp
                .reopen()
                .map_err(|e| Error::io(&self.target, "cannot read back its output", e))?;
            return write_into(&self.target, |file| copy_file(&mut written, file).map(drop));
        }
        let meta = fs::metadata(&self.target)
            .ok()
            .filter(fs::Metadata::is_file);
        self.finish(meta.as_ref())?;
        commit(self.tmp, &self.target)
    }

    /// Put the new content in place of the file at `path` read with stamp `was` (and, when
    /// given, holding `original`), as [`in_place`] does: refused when the file is read-only or
    /// changed meanwhile, and with `backup`, the original first kept as `<file><suffix>`
    /// (copied, never held in memory).
    pub fn replace(
        self,
        path: &Path,
        was: &Stamp,
        original: Option<&[u8]>,
        backup: Option<&str>,
    ) -> Result<(), Error> {
        let meta = fs::metadata(&self.target).map_err(|e| Error::io(path, "cannot read", e))?;
        if !meta.is_file() {
            return Err(Error::skipped(
                path,
                "not a regular file; cannot rewrite it in place",
            ));
        }
        let writable = fs::OpenOptions::new()
            .write(true)
            .open(&self.target)
            .is_ok();
        if meta.permissions().readonly() || !writable {
            return Err(Error::ReadOnly(path.to_path_buf()));
        }
        self.finish(Some(&meta))?;
        let same = match original {
            Some(bytes) => holds(&self.target, bytes)?,
            None => true,
        };
        if !same || Stamp::of(&self.target)? != *was {
            return Err(Error::Changed(path.to_path_buf()));
        }
        if let Some(suffix) = backup {
            let mut name = self.target.clone().into_os_string();
            name.push(suffix);
            let backup_path = PathBuf::from(name);
            let mut copy = Staged::next_to(&backup_path)?;
            let mut original = fs::File::open(&self.target)
                .map_err(|e| Error::io(&self.target, "cannot read", e))?;
            std::io::copy(&mut original, copy.file())
                .map_err(|e| Error::io(&backup_path, "cannot write the backup", e))?;
            copy.finish(Some(&meta))?;
            commit(copy.tmp, &backup_path)?;
        }
        commit(self.tmp, &self.target)
    }

    /// Flush to disk, and give the new file the permissions and owner of `like`.
    fn finish(&self, like: Option<&fs::Metadata>) -> Result<(), Error> {
        let file = self.tmp.as_file();
        file.sync_all()
            .map_err(|e| Error::io(&self.target, "cannot write a temporary file", e))?;
        if let Some(meta) = like {
            file.set_permissions(meta.permissions()).map_err(|e| {
                Error::io(&self.target, "cannot set permissions on the new file", e)
            })?;
            keep_owner(file, meta);
        }
        Ok(())
    }
}

/// Does the file at `path` hold exactly `bytes`? (Read in pieces, not into memory.)
fn holds(path: &Path, bytes: &[u8]) -> Result<bool, Error> {
    use std::io::Read;
    let mut file = fs::File::open(path).map_err(|e| Error::io(path, "cannot read", e))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut at = 0;
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| Error::io(path, "cannot read", e))?;
        if n == 0 {
            return Ok(at == bytes.len());
        }
        if bytes.get(at..at + n) != Some(&buf[..n]) {
            return Ok(false);
        }
        at += n;
    }
}
