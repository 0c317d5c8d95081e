//! `repair --format json`: an audit record of what a repair did, one object per file: the
//! SHA-256 of the input and of the output, and every byte edit (what it fixes, where, and the
//! SHA-256 of the bytes it put in).

use serde::Serialize;
use sha2::{Digest, Sha256};

use toolmend::Repaired;

/// One file's record.
#[derive(Serialize)]
pub struct FileRecord {
    path: String,
    input_sha256: String,
    output_sha256: String,
    input_bytes: usize,
    output_bytes: usize,
    changed: bool,
    /// Whether the output was written (`--in-place`, `-o`), or only computed (`--check`).
    written: bool,
    /// Why toolmend refused to repair the file (TM009), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
    edits: Vec<EditRecord>,
}

/// One edit.
#[derive(Serialize)]
struct EditRecord {
    round: usize,
    kind: &'static str,
    code: &'static str,
    conversation: Option<usize>,
    call_ids: Vec<String>,
    pointer: String,
    start: usize,
    end: usize,
    removed_bytes: usize,
    inserted_bytes: usize,
    inserted_sha256: String,
}

/// The lowercase hex SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl FileRecord {
    /// The record of repairing `input` (named `path`) into `repaired`.
    pub fn new(
        path: &str,
        input: &[u8],
        repaired: &Repaired,
        written: bool,
        refused: Option<String>,
    ) -> FileRecord {
        FileRecord {
            path: path.to_string(),
            input_sha256: sha256(input),
            output_sha256: sha256(&repaired.output),
            input_bytes: input.len(),
            output_bytes: repaired.output.len(),
            changed: repaired.changed,
            written: written && repaired.changed,
            refused,
            edits: repaired
                .edits
                .iter()
                .map(|e| EditRecord {
                    round: e.round,
                    kind: e.kind,
                    code: e.rule.code(),
                    conversation: e.conversation,
                    call_ids: e.call_ids.clone(),
                    pointer: e.pointer.clone(),
                    start: e.start,
                    end: e.end,
                    removed_bytes: e.end - e.start,
                    inserted_bytes: e.inserted.len(),
                    inserted_sha256: sha256(&e.inserted),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_of_known_text() {
        assert_eq!(
            super::sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
