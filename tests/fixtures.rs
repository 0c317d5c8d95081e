//! Pinned fixtures per dialect: for every `tests/fixtures/<dialect>/NAME.<ext>` the findings must
//! equal `NAME.lint` (`line:column CODE call-id`, one per line) and the default repair must equal
//! `NAME.repaired.<ext>` (or leave the file untouched when that file does not exist). The
//! repaired file must lint without TM001/TM003 and repair to itself.
//!
//! `TOOLMEND_BLESS=1 cargo test --test fixtures` rewrites the expected files (review the diff!).

use std::fs;
use std::path::{Path, PathBuf};

pub mod common;

use common::api::{findings, repaired};
use common::files;

const DIALECTS: &[&str] = &["openai-chat", "langchain", "claude-code"];

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            (name.ends_with(".json") || name.ends_with(".jsonl")) && !name.contains(".repaired.")
        })
        .collect();
    files.sort();
    files
}

fn lint_lines(name: &str, bytes: &[u8]) -> String {
    findings(name, bytes)
        .iter()
        .map(|f| {
            format!(
                "{}:{} {} {}\n",
                f.line,
                f.column,
                f.code,
                f.call_id.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

fn check(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let bytes = fs::read(path).unwrap();
    let (stem, _) = name.rsplit_once('.').unwrap();
    let got = lint_lines(&name, &bytes);
    let out = repaired(&name, &bytes);
    let checks = [
        files::check_pinned(&path.with_file_name(format!("{stem}.lint")), got.as_bytes()),
        files::check_repair_pinned(path, &bytes, &out),
    ];
    let mut problems: Vec<String> = checks.into_iter().filter_map(Result::err).collect();
    let again = lint_lines(&name, &out);
    if again.contains(" TM001 ") || again.contains(" TM003 ") {
        problems.push(format!(
            "{name}: still dangling or misplaced after repair:\n{again}"
        ));
    }
    if repaired(&name, &out) != out {
        problems.push(format!("{name}: repair is not idempotent"));
    }
    problems
}

#[test]
fn pinned_fixtures() {
    let mut problems = Vec::new();
    let mut count = 0;
    for dialect in DIALECTS {
        for path in inputs(&files::dir(dialect)) {
            count += 1;
            problems.extend(check(&path));
        }
    }
    assert!(count >= 10, "only {count} fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
