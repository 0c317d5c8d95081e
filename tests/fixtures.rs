//! Pinned fixtures per dialect: for every `tests/fixtures/<dialect>/NAME.<ext>` the findings must
//! equal `NAME.lint` (`line:column CODE call-id`, one per line) and the default repair must equal
//! `NAME.repaired.<ext>` (or leave the file untouched when that file does not exist). The
//! repaired file must lint without TM001/TM003 and repair to itself.
//!
//! `TOOLMEND_BLESS=1 cargo test --test fixtures` rewrites the expected files (review the diff!).

use std::fs;
use std::path::{Path, PathBuf};

use toolmend::lint::{self, LintOptions};
use toolmend::repair::{self, RepairOptions};

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
    let analysed = lint::analyse(name, bytes, &LintOptions::default());
    lint::findings(name, &analysed)
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

fn repaired(name: &str, bytes: &[u8]) -> Vec<u8> {
    let analysed = lint::analyse(name, bytes, &LintOptions::default());
    repair::document(bytes, &analysed, &RepairOptions::default()).output
}

fn check(path: &Path, bless: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let bytes = fs::read(path).unwrap();
    let (stem, ext) = name.rsplit_once('.').unwrap();
    let lint_path = path.with_file_name(format!("{stem}.lint"));
    let repaired_path = path.with_file_name(format!("{stem}.repaired.{ext}"));

    let got = lint_lines(&name, &bytes);
    let out = repaired(&name, &bytes);
    if bless {
        fs::write(&lint_path, &got).unwrap();
        if out != bytes {
            fs::write(&repaired_path, &out).unwrap();
        } else if repaired_path.exists() {
            fs::remove_file(&repaired_path).unwrap();
        }
    }
    let want = fs::read_to_string(&lint_path).unwrap_or_default();
    if got != want {
        problems.push(format!("{name}: findings\n--- want\n{want}--- got\n{got}"));
    }
    let want_out = fs::read(&repaired_path).unwrap_or_else(|_| bytes.clone());
    if out != want_out {
        problems.push(format!(
            "{name}: repair output differs\n--- want\n{}\n--- got\n{}",
            String::from_utf8_lossy(&want_out),
            String::from_utf8_lossy(&out)
        ));
    }
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
    let bless = std::env::var_os("TOOLMEND_BLESS").is_some();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut problems = Vec::new();
    let mut count = 0;
    for dialect in DIALECTS {
        for path in inputs(&root.join(dialect)) {
            count += 1;
            problems.extend(check(&path, bless));
        }
    }
    assert!(count >= 10, "only {count} fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
