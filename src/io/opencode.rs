//! OpenCode's file storage as input: a session is spread over many small JSON files
//! (`<root>/message/<session>/<message>.json`, `<root>/part/<message>/<part>.json`, with
//! `<root>/session/<project>/<session>.json` holding its title). Any path inside a storage root
//! (the root itself, a session, message or part file, or one of their folders) names the
//! session(s) it belongs to; each session becomes one input.
//!
//! A session is read as one document: [`Assembled`] joins its message and part files, in the
//! order OpenCode reads them (messages by id, each followed by its parts by id), into one JSON
//! array, and remembers where each file went, so that findings can name the real file and line
//! ([`Assembled::relocate`]) and a repaired array can be split back into the files it came
//! from ([`Assembled::split`]), each file keeping every byte outside the repair's edits.

use std::fs;
use std::path::{Path, PathBuf};

use super::Error;
use crate::finding::Finding;
use crate::json::{Kind, parse};
use crate::rules::Rule;

/// A file a repair changes: its path, its original bytes and its new bytes.
pub type ChangedFile = (PathBuf, Vec<u8>, Vec<u8>);

/// One OpenCode session in a storage root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The storage root (the folder holding `session/`, `message/` and `part/`).
    pub root: PathBuf,
    /// The session id.
    pub id: String,
}

/// Is `dir` an OpenCode storage root (its `session/`, `message/` and `part/` folders)?
fn is_root(dir: &Path) -> bool {
    ["session", "message", "part"]
        .iter()
        .all(|sub| dir.join(sub).is_dir())
}

/// The storage root `path` is in (or is), if any.
pub fn root_of(path: &Path) -> Option<PathBuf> {
    let path = fs::canonicalize(path).ok()?;
    path.ancestors().find(|a| is_root(a)).map(Path::to_path_buf)
}

/// The file stems of the `.json` files directly in `dir`, or its subfolder names, sorted.
fn names(dir: &Path, folders: bool) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            if folders {
                p.is_dir()
                    .then(|| p.file_name()?.to_str().map(str::to_string))?
            } else {
                (p.extension()? == "json").then(|| p.file_stem()?.to_str().map(str::to_string))?
            }
        })
        .collect();
    out.sort();
    out
}

/// The sessions `path` (inside `root`) names: one for a session, message or part file or
/// folder; every session under `root`'s `message/` for the root or a folder above sessions.
pub fn sessions(root: &Path, path: &Path) -> Vec<Session> {
    let session = |id: String| Session {
        root: root.to_path_buf(),
        id,
    };
    let all = || {
        names(&root.join("message"), true)
            .into_iter()
            .map(session)
            .collect()
    };
    let Ok(path) = fs::canonicalize(path) else {
        return Vec::new();
    };
    let rel: Vec<String> = path
        .strip_prefix(root)
        .map(|r| {
            r.iter()
                .map(|c| c.to_string_lossy().trim_end_matches(".json").to_string())
                .collect()
        })
        .unwrap_or_default();
    match rel
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["message", ses, ..] => vec![session(ses.to_string())],
        ["session", _, ses] => vec![session(ses.to_string())],
        ["part", msg, ..] => names(&root.join("message"), true)
            .into_iter()
            .find(|ses| {
                root.join("message")
                    .join(ses)
                    .join(format!("{msg}.json"))
                    .is_file()
            })
            .map(session)
            .into_iter()
            .collect(),
        ["session", project] => names(&root.join("session").join(project), false)
            .into_iter()
            .map(session)
            .collect(),
        _ => all(),
    }
}

impl Session {
    /// The name shown in reports: the session's message folder.
    pub fn name(&self) -> String {
        self.root
            .join("message")
            .join(&self.id)
            .display()
            .to_string()
    }

    /// The session's message and part files, in the order OpenCode reads them.
    pub fn files(&self) -> Vec<PathBuf> {
        let messages = self.root.join("message").join(&self.id);
        let mut files = Vec::new();
        for msg in names(&messages, false) {
            files.push(messages.join(format!("{msg}.json")));
            let parts = self.root.join("part").join(&msg);
            files.extend(
                names(&parts, false)
                    .into_iter()
                    .map(|p| parts.join(format!("{p}.json"))),
            );
        }
        files
    }

    /// Read the session's files and join them into one document.
    pub fn assemble(&self) -> Result<Assembled, Error> {
        let mut files = Vec::new();
        for path in self.files() {
            let bytes = fs::read(&path).map_err(|e| Error::io(&path, "cannot read", e))?;
            files.push((path, bytes));
        }
        Ok(Assembled::new(files))
    }
}

/// Where one file went in an [`Assembled`] document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The file.
    pub path: PathBuf,
    /// Its original bytes.
    pub original: Vec<u8>,
    /// The whitespace (and byte order mark) before its JSON value, kept out of the array.
    lead: Vec<u8>,
    /// The whitespace after its JSON value.
    trail: Vec<u8>,
    /// The 1-based line of the document its value starts on.
    line: usize,
}

/// Several JSON files joined into one JSON array, one element per file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembled {
    /// The document: `[`, then each file's value on lines of its own, separated by `,`.
    pub bytes: Vec<u8>,
    /// The files, in order.
    pub segments: Vec<Segment>,
    /// Findings (TM007) for files that do not parse on their own. When there are any, the
    /// session is not analysed (one broken file would spill into its neighbours) and never
    /// repaired.
    pub broken: Vec<Finding>,
}

impl Assembled {
    /// Join `files` (path and bytes).
    pub fn new(files: Vec<(PathBuf, Vec<u8>)>) -> Assembled {
        let mut bytes = b"[\n".to_vec();
        let mut line = 2;
        let mut segments = Vec::new();
        let mut broken = Vec::new();
        for (i, (path, original)) in files.into_iter().enumerate() {
            if i > 0 {
                bytes.extend_from_slice(b"\n,\n");
                line += 2;
            }
            let body = original.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&original);
            let start = original.len() - body.len()
                + body
                    .iter()
                    .position(|b| !b.is_ascii_whitespace())
                    .unwrap_or(body.len());
            let end = original
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(start, |e| (e + 1).max(start));
            let value = &original[start..end];
            if let Err(e) = parse(value) {
                let (line, column) = crate::json::line_col(&original, start + e.offset);
                let mut f = Finding::new(
                    Rule::InvalidJson,
                    &path.display().to_string(),
                    format!(
                        "invalid JSON: {}; the OpenCode session it belongs to is not analysed",
                        e.message
                    ),
                );
                (f.line, f.column) = (line, column);
                broken.push(f);
            }
            bytes.extend_from_slice(value);
            segments.push(Segment {
                lead: original[..start].to_vec(),
                trail: original[end..].to_vec(),
                path,
                line,
                original: original.clone(),
            });
            line += memchr::memchr_iter(b'\n', value).count();
        }
        bytes.extend_from_slice(b"\n]\n");
        Assembled {
            bytes,
            segments,
            broken,
        }
    }

    /// Make the findings of the document name the file, line and JSON Pointer they are in.
    pub fn relocate(&self, findings: &mut [Finding]) {
        for f in findings {
            let Some(i) = self.segments.iter().rposition(|s| s.line <= f.line) else {
                continue;
            };
            let seg = &self.segments[i];
            let lead_lines = memchr::memchr_iter(b'\n', &seg.lead).count();
            f.path = seg.path.display().to_string();
            f.line = f.line - seg.line + 1 + lead_lines;
            let prefix = format!("/{i}");
            if let Some(rest) = f.pointer.strip_prefix(&prefix)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                f.pointer = rest.to_string();
            }
        }
    }

    /// The files a repaired document changes: each with its original bytes and its new ones.
    /// Every element of the repaired array goes back to its file between the file's own
    /// leading and trailing whitespace; an error when the array no longer has one element per
    /// file.
    pub fn split(&self, repaired: &[u8]) -> Result<Vec<ChangedFile>, String> {
        let tree = parse(repaired)
            .map_err(|e| format!("the repaired session does not parse: {}", e.message))?;
        let root = tree.root();
        if tree.kind(root) != Kind::Array || tree.len(root) != self.segments.len() {
            return Err(
                "the repair changed how the session's files are laid out; nothing written".into(),
            );
        }
        let mut changed = Vec::new();
        for (seg, element) in self.segments.iter().zip(tree.children(root)) {
            let mut bytes = seg.lead.clone();
            bytes.extend_from_slice(tree.raw(element));
            bytes.extend_from_slice(&seg.trail);
            if bytes != seg.original {
                changed.push((seg.path.clone(), seg.original.clone(), bytes));
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assembled_documents_split_back_into_their_files() {
        let files = vec![
            (PathBuf::from("m1.json"), b"{\n  \"a\": 1\n}".to_vec()),
            (
                PathBuf::from("p1.json"),
                b"\xEF\xBB\xBF {\"b\": [2]}\n".to_vec(),
            ),
        ];
        let doc = Assembled::new(files);
        assert_eq!(doc.bytes, b"[\n{\n  \"a\": 1\n}\n,\n{\"b\": [2]}\n]\n");
        assert_eq!(doc.segments[1].line, 6);
        assert!(doc.split(&doc.bytes).unwrap().is_empty());
        let edited = String::from_utf8(doc.bytes.clone())
            .unwrap()
            .replace("[2]", "[3]");
        let changed = doc.split(edited.as_bytes()).unwrap();
        assert_eq!(
            changed,
            [(
                PathBuf::from("p1.json"),
                b"\xEF\xBB\xBF {\"b\": [2]}\n".to_vec(),
                b"\xEF\xBB\xBF {\"b\": [3]}\n".to_vec()
            )]
        );
        assert!(doc.split(b"[1]").is_err());
        assert!(doc.broken.is_empty());
        let cut = Assembled::new(vec![(PathBuf::from("c.json"), b"{\n  \"a\": \"x".to_vec())]);
        assert_eq!(
            (cut.broken[0].path.as_str(), cut.broken[0].line),
            ("c.json", 2)
        );
        let mut f = vec![Finding::new(
            crate::rules::Rule::DanglingToolCall,
            "doc",
            "x".into(),
        )];
        f[0].line = 6;
        f[0].pointer = "/1/b".into();
        doc.relocate(&mut f);
        assert_eq!(
            (f[0].path.as_str(), f[0].line, f[0].pointer.as_str()),
            ("p1.json", 1, "/b")
        );
    }
}
