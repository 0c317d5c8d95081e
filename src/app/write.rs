//! Safe writes: a temporary file in the target's directory, fsync, then an atomic rename over
//! the target, keeping its permissions. A failed write never leaves a partial file behind.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::inputs::Loaded;

/// Write `bytes` to `target` atomically, with `permissions` if given.
pub fn atomic_write(
    target: &Path,
    bytes: &[u8],
    permissions: Option<fs::Permissions>,
) -> Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".toolmend-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write a temporary file in {}", dir.display()))?;
    if let Some(p) = permissions {
        tmp.as_file()
            .set_permissions(p)
            .with_context(|| format!("cannot set permissions on the new {}", target.display()))?;
    }
    tmp.persist(target)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Replace `path` (following a symlink to its target) with `bytes`, unless the file changed
/// since it was read or is read-only. With `backup`, the original is kept as `<file><suffix>`.
pub fn in_place(path: &Path, loaded: &Loaded, bytes: &[u8], backup: Option<&str>) -> Result<()> {
    let real =
        fs::canonicalize(path).with_context(|| format!("{}: cannot resolve", path.display()))?;
    let meta = fs::metadata(&real).with_context(|| format!("{}: cannot read", real.display()))?;
    if meta.permissions().readonly() {
        bail!("{}: the file is read-only; not rewritten", path.display());
    }
    if let Some((len, modified)) = loaded.stamp
        && (meta.len() != len || meta.modified().ok() != modified)
    {
        bail!(
            "{}: the file changed while toolmend was working on it; left alone",
            path.display()
        );
    }
    if let Some(suffix) = backup {
        let mut name = real.clone().into_os_string();
        name.push(suffix);
        let backup_path = PathBuf::from(name);
        atomic_write(&backup_path, &loaded.bytes, Some(meta.permissions()))
            .with_context(|| format!("{}: cannot write the backup", backup_path.display()))?;
    }
    atomic_write(&real, bytes, Some(meta.permissions()))
}
