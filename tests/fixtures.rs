//! Pinned fixtures per dialect: for every `fixtures/<dialect>/NAME.<ext>` the findings must
//! equal `NAME.lint` (`line:column CODE call-id`, one per line) and the default repair must equal
//! `NAME.repaired.<ext>` (or leave the file untouched when that file does not exist). The
//! repaired file must offer no safe fix any more (no `[*]`) and repair to itself.
//!
//! `TRYCMD=overwrite cargo test --test fixtures` rewrites the expected files (review the diff!).

use std::fs;
use std::path::{Path, PathBuf};

pub mod common;

use common::api::{findings, repaired};
use common::files;
use toolmend::Applicability;

/// Every fixture set but `cli` (the inputs of the command-line cases in `tests/cmd/`).
fn sets() -> Vec<String> {
    let mut sets: Vec<String> = fs::read_dir(files::dir(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "cli")
        .collect();
    sets.sort();
    sets
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            [".json", ".jsonl", ".traj"]
                .iter()
                .any(|e| name.ends_with(e))
                && !name.contains(".repaired.")
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
    let left: Vec<String> = findings(&name, &out)
        .iter()
        .filter(|f| f.fix.as_ref().map(|x| x.applicability) == Some(Applicability::Safe))
        .map(|f| format!("{}:{} {}", f.line, f.column, f.code))
        .collect();
    if !left.is_empty() {
        problems.push(format!(
            "{name}: a safe fix is still offered after repair: {left:?}"
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
    for set in sets() {
        for path in inputs(&files::dir(&set)) {
            count += 1;
            problems.extend(check(&path));
        }
    }
    assert!(count >= 10, "only {count} fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// One naming style for the logs of a set (`.json`, `.jsonl`, `.traj`) and their pinned files
/// (`.lint`, `.repaired.*`): lower-case kebab-case names, one input per name (so each has its
/// own `NAME.lint`), and every pinned file belongs to an input. A folder is an input too (an
/// OpenCode storage, a Cline task). Other files (`SOURCES.md`, other formats) are not checked.
#[test]
fn fixture_names_are_kebab_case_and_unique() {
    let kebab = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    for set in sets().into_iter().chain(["cli".to_string()]) {
        let names: Vec<String> = fs::read_dir(files::dir(&set))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                p.is_dir()
                    || [".json", ".jsonl", ".traj", ".lint"]
                        .iter()
                        .any(|e| name.ends_with(e))
            })
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let stems: Vec<&str> = names
            .iter()
            .filter(|n| !n.contains(".repaired") && !n.ends_with(".lint"))
            .map(|n| n.split('.').next().unwrap())
            .collect();
        for name in &names {
            let stem = name.split('.').next().unwrap();
            assert!(kebab(stem), "{set}/{name}: not kebab-case");
            assert!(stems.contains(&stem), "{set}/{name}: pins no input");
        }
        let mut unique = stems.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), stems.len(), "{set}: two inputs share a name");
    }
}
