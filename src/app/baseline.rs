//! Baselines: `lint --write-baseline FILE` records today's findings, `lint --baseline FILE`
//! then reports only the ones that are not recorded, so a team can adopt toolmend on a folder
//! of logs without fixing them all first.
//!
//! A finding is recorded by a fingerprint that does not contain line numbers, so edits
//! elsewhere in a log keep its entry valid: the rule, the file (relative to the baseline's
//! directory, `/`-separated), the conversation (its index among the conversations toolmend
//! finds in the file; for a database, the store and thread instead, since new threads may come
//! first), the call id and the tool name. Identical fingerprints are counted: two findings need
//! two recorded, and a third one is new.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use toolmend::Finding;

/// The format version written in every baseline.
const VERSION: u32 = 1;

/// A baseline file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Always `toolmend`: says what the file is.
    tool: String,
    /// [`VERSION`].
    version: u32,
    /// The recorded findings, sorted.
    findings: Vec<Entry>,
}

/// One fingerprint and how many findings have it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(flatten)]
    key: Key,
    count: usize,
}

/// The fingerprint of a finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Key {
    code: String,
    path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    conversation: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thread: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
}

impl Key {
    fn of(f: &Finding, base: &Path) -> Key {
        let (conversation, thread) = match &f.store {
            Some(s) => {
                let mut thread = format!("{} {}", s.store, s.thread_id);
                if let Some(ns) = s.checkpoint_ns.as_deref().filter(|n| !n.is_empty()) {
                    thread.push_str(&format!(" ns {ns}"));
                }
                (None, Some(thread))
            }
            None => (f.conversation, None),
        };
        Key {
            code: f.code.to_string(),
            path: relative(&f.path, base),
            conversation,
            thread,
            call_id: f.call_id.clone(),
            tool: f.tool_name.clone(),
        }
    }
}

/// What comparing with a baseline gave.
pub struct Matched {
    /// Findings found in the baseline (not reported).
    pub hidden: usize,
    /// Baseline entries (counted) that matched no finding.
    pub gone: usize,
}

/// Record `findings` in `file` (rewritten atomically).
pub fn write(file: &Path, findings: &[Finding]) -> Result<()> {
    let base = base_dir(file);
    let mut counts: BTreeMap<Key, usize> = BTreeMap::new();
    for f in findings {
        *counts.entry(Key::of(f, &base)).or_default() += 1;
    }
    let doc = File {
        tool: "toolmend".into(),
        version: VERSION,
        findings: counts
            .into_iter()
            .map(|(key, count)| Entry { key, count })
            .collect(),
    };
    let mut text = serde_json::to_vec_pretty(&doc)?;
    text.push(b'\n');
    toolmend::io::write::atomic_write(file, &text)
        .with_context(|| format!("{}: cannot write the baseline", shown(file)))?;
    Ok(())
}

/// The findings not recorded in the baseline `file`, in their order, and what matched.
pub fn filter(file: &Path, findings: Vec<Finding>) -> Result<(Vec<Finding>, Matched)> {
    let text = std::fs::read(file).with_context(|| format!("{}: cannot read", shown(file)))?;
    let doc: File = serde_json::from_slice(&text)
        .with_context(|| format!("{}: not a toolmend baseline", shown(file)))?;
    if doc.tool != "toolmend" || doc.version != VERSION {
        bail!(
            "{}: a baseline of {} version {}; this toolmend reads toolmend version {VERSION}",
            shown(file),
            toolmend::escape_control(&doc.tool),
            doc.version
        );
    }
    let base = base_dir(file);
    let mut left: BTreeMap<Key, usize> = BTreeMap::new();
    for e in doc.findings {
        *left.entry(e.key).or_default() += e.count;
    }
    let mut hidden = 0;
    let new = findings
        .into_iter()
        .filter(|f| match left.get_mut(&Key::of(f, &base)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                hidden += 1;
                false
            }
            _ => true,
        })
        .collect();
    let gone = left.values().sum();
    Ok((new, Matched { hidden, gone }))
}

/// Is `input` the baseline `file` (found by a directory walk)?
pub fn is(file: &Path, input: &toolmend::io::inputs::Input) -> bool {
    input.walked
        && input
            .path
            .as_deref()
            .is_some_and(|p| file.exists() && real(p) == real(file))
}

fn shown(file: &Path) -> String {
    toolmend::escape_control(&file.display().to_string())
}

/// The directory paths in `file` are relative to (resolved through symlinks when it exists).
fn base_dir(file: &Path) -> PathBuf {
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    real(&dir)
}

/// `path`, absolute, through symlinks when it exists.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The input `name` relative to `base`, `/`-separated (`-` for standard input stays `-`).
fn relative(name: &str, base: &Path) -> String {
    if name == "-" {
        return name.into();
    }
    let path = real(Path::new(name));
    let from: Vec<Component> = base.components().collect();
    let to: Vec<Component> = path.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_baseline() {
        let base = Path::new("/work/logs");
        assert_eq!(relative("/work/logs/a/b.jsonl", base), "a/b.jsonl");
        assert_eq!(relative("/work/other/c.json", base), "../other/c.json");
        assert_eq!(relative("-", base), "-");
    }
}
