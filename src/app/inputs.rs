//! Turning PATHS into documents: files, directories (recursive), and `-` for standard input.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};

/// One document to read.
#[derive(Debug, Clone)]
pub struct Input {
    /// The name shown in reports (`-` for standard input).
    pub name: String,
    /// The file, or `None` for standard input.
    pub path: Option<PathBuf>,
}

/// A document's bytes and what the file looked like when it was read.
#[derive(Debug)]
pub struct Loaded {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Length and modification time at reading, to notice a concurrent change.
    pub stamp: Option<(u64, Option<SystemTime>)>,
}

const EXTENSIONS: &[&str] = &["json", "jsonl", "ndjson"];

/// Expand PATHS; problems (missing files, unreadable directories, broken links) are returned
/// beside the inputs so the others can still be processed.
pub fn expand(paths: &[PathBuf]) -> (Vec<Input>, Vec<anyhow::Error>) {
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
            });
            continue;
        }
        match fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, &mut inputs, &mut errors),
            Ok(m) if m.is_file() => inputs.push(Input {
                name: p.display().to_string(),
                path: Some(p.clone()),
            }),
            Ok(_) => errors.push(anyhow::anyhow!("{}: not a regular file", p.display())),
            Err(e) if fs::symlink_metadata(p).is_ok() => errors.push(anyhow::anyhow!(
                "{}: broken symbolic link ({e})",
                p.display()
            )),
            Err(e) => errors.push(anyhow::anyhow!("{}: {e}", p.display())),
        }
    }
    (inputs, errors)
}

fn walk(dir: &Path, inputs: &mut Vec<Input>, errors: &mut Vec<anyhow::Error>) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(anyhow::anyhow!(
                "{}: cannot read directory: {e}",
                dir.display()
            ));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => paths.push(e.path()),
            Err(e) => errors.push(anyhow::anyhow!("{}: {e}", dir.display())),
        }
    }
    paths.sort();
    for p in paths {
        let wanted = p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        match fs::metadata(&p) {
            Ok(m) if m.is_dir() => walk(&p, inputs, errors),
            Ok(m) if m.is_file() && wanted => inputs.push(Input {
                name: p.display().to_string(),
                path: Some(p),
            }),
            Ok(_) if wanted => errors.push(anyhow::anyhow!(
                "{}: not a regular file; skipped",
                p.display()
            )),
            Ok(_) => {}
            Err(e) if wanted || fs::symlink_metadata(&p).is_ok_and(|m| m.is_symlink()) => errors
                .push(anyhow::anyhow!(
                    "{}: broken symbolic link or unreadable entry ({e})",
                    p.display()
                )),
            Err(e) => errors.push(anyhow::anyhow!("{}: {e}", p.display())),
        }
    }
}

/// Read one input whole.
pub fn load(input: &Input) -> Result<Loaded> {
    match &input.path {
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            Ok(Loaded { bytes, stamp: None })
        }
        Some(p) => {
            let meta = fs::metadata(p).with_context(|| format!("{}: cannot read", p.display()))?;
            if !meta.is_file() {
                bail!("{}: not a regular file", p.display());
            }
            let bytes = fs::read(p).with_context(|| format!("{}: cannot read", p.display()))?;
            Ok(Loaded {
                bytes,
                stamp: Some((meta.len(), meta.modified().ok())),
            })
        }
    }
}
