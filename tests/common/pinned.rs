//! Pinned fixture runs for the block dialects: lint and repair through the library API, the
//! output compared byte for byte with `<stem>.repaired.<ext>` (or with the input itself when
//! no such file exists: the repair must leave it untouched). `TOOLMEND_BLESS=1` rewrites the
//! expected files instead; review their diff before committing.

use std::path::{Path, PathBuf};

use toolmend::lint::{self, LintOptions};
use toolmend::repair::{self, RepairOptions};

/// The directory of a fixture set, e.g. `tests/fixtures/anthropic`.
pub fn dir(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(set)
}

/// Rule codes of the findings in `bytes`, in reading order.
pub fn codes(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    lint::findings(name, &a).iter().map(|f| f.code).collect()
}

/// The dialect of every conversation found in `bytes`.
pub fn dialects(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    lint::analyse(name, bytes, &LintOptions::default())
        .doc
        .conversations
        .iter()
        .map(|c| c.dialect)
        .collect()
}

/// Repair `bytes` with `options`; returns the output and the number of placeholders.
pub fn repair_with(name: &str, bytes: &[u8], options: &RepairOptions) -> (Vec<u8>, usize) {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    let r = repair::document(bytes, &a, options);
    (r.output, r.placeholders)
}

fn expected_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().unwrap().to_string_lossy();
    let ext = path.extension().unwrap().to_string_lossy();
    path.with_file_name(format!("{stem}.repaired.{ext}"))
}

/// Run one fixture: check its findings before and after the default repair, pin the output,
/// and check that a second repair changes nothing. Returns (input, output).
pub fn run(set: &str, file: &str, before: &[&str], after: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let path = dir(set).join(file);
    let input = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        codes(file, &input),
        before,
        "{file}: findings before repair"
    );
    let (output, placeholders) = repair_with(file, &input, &RepairOptions::default());
    let expected = expected_path(&path);
    if std::env::var_os("TOOLMEND_BLESS").is_some() && output != input {
        std::fs::write(&expected, &output).unwrap();
    }
    let want = if output == input && !expected.exists() {
        input.clone()
    } else {
        std::fs::read(&expected).unwrap_or_else(|e| panic!("{}: {e}", expected.display()))
    };
    assert!(
        output == want,
        "{file}: repair output differs from {}:\n{}",
        expected.display(),
        String::from_utf8_lossy(&output)
    );
    let dangling = before.iter().filter(|c| **c == "TM001").count();
    assert_eq!(
        placeholders, dangling,
        "{file}: one placeholder per dangling call"
    );
    assert_eq!(codes(file, &output), after, "{file}: findings after repair");
    assert!(!codes(file, &output).contains(&"TM001"), "{file}");
    let (again, n) = repair_with(file, &output, &RepairOptions::default());
    assert!(
        again == output && n == 0,
        "{file}: a second repair changed something"
    );
    (input, output)
}
