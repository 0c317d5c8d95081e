//! Pinned fixtures of the agent-log readers (OpenCode storage, Gemini CLI JSON Lines, Claude
//! Code stream-json, Cline / Roo Code task folders, older Codex rollouts), under the top-level
//! `fixtures/<dialect>/`. For every fixture the dialect must be the folder's, the findings must
//! equal `NAME.lint` (`line:column CODE call-id`, an OpenCode one prefixed by the file it names)
//! and the default repair must equal the pinned `NAME.repaired.EXT` (an OpenCode session: the
//! files under `NAME.repaired/`), or leave the input byte-identical when there is none. A
//! repaired fixture lints without TM001/TM003 and repairs to itself.
//!
//! `TRYCMD=overwrite cargo test --test readers2` rewrites the expected files (review the diff!).

use std::fs;
use std::path::{Path, PathBuf};

pub mod common;

use common::api::{analyse, dialects, findings, repaired};
use common::files;
use toolmend::io::opencode::{self, Assembled};

fn root(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(set)
}

/// The inputs under `dir` (recursively), sorted: `.json`/`.jsonl` files that are not pinned
/// outputs.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                todo.push(p);
            } else if (name.ends_with(".json") || name.ends_with(".jsonl"))
                && !name.contains(".repaired.")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn lint_lines(name: &str, bytes: &[u8]) -> String {
    findings(name, bytes)
        .iter()
        .map(|f| {
            let id = f.call_id.as_deref().unwrap_or("-");
            format!("{}:{} {} {id}\n", f.line, f.column, f.code)
        })
        .collect()
}

/// Check one file fixture of dialect `set`, named for the reader by its path below `fixtures/`.
fn check_file(set: &str, path: &Path) -> Vec<String> {
    let name = path
        .strip_prefix(root(set).parent().unwrap())
        .unwrap()
        .to_string_lossy()
        .to_string();
    let bytes = fs::read(path).unwrap();
    let mut problems = Vec::new();
    let read_as = dialects(&name, &bytes);
    if read_as.is_empty() || read_as.iter().any(|d| *d != set) {
        problems.push(format!("{name}: read as {read_as:?}, not {set}"));
    }
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let got = lint_lines(&name, &bytes);
    let out = repaired(&name, &bytes);
    problems.extend(
        [
            files::check_pinned(&path.with_file_name(format!("{stem}.lint")), got.as_bytes()),
            files::check_repair_pinned(path, &bytes, &out),
        ]
        .into_iter()
        .filter_map(Result::err),
    );
    if out != bytes {
        let again = lint_lines(&name, &out);
        if again.contains(" TM001 ") || again.contains(" TM003 ") {
            problems.push(format!("{name}: still dangling after repair:\n{again}"));
        }
        if repaired(&name, &out) != out {
            problems.push(format!("{name}: repair is not idempotent"));
        }
    }
    problems
}

#[test]
fn file_fixtures() {
    let mut problems = Vec::new();
    let mut count = 0;
    for set in [
        "codex-rollout-legacy",
        "claude-code-stream",
        "gemini-cli-jsonl",
        "cline",
    ] {
        for path in inputs(&root(set)) {
            if path.file_name().unwrap() == "ui_messages.json" {
                continue;
            }
            count += 1;
            problems.extend(check_file(set, &path));
        }
    }
    assert!(count >= 14, "only {count} fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The one session of the OpenCode storage fixture `case`, assembled.
fn session(case: &str) -> (PathBuf, Assembled) {
    let storage = root("opencode").join(case).join("storage");
    let real = opencode::root_of(&storage).expect("a storage root");
    let sessions = opencode::sessions(&real, &storage);
    assert_eq!(sessions.len(), 1, "{case}");
    (real, sessions[0].assemble().unwrap())
}

/// Lint an assembled session as `toolmend lint` does: findings name the files.
fn session_lint(real: &Path, doc: &Assembled) -> String {
    assert!(
        dialects("session", &doc.bytes)
            .iter()
            .all(|d| *d == "opencode")
    );
    let mut found = findings("session", &doc.bytes);
    doc.relocate(&mut found);
    found
        .iter()
        .map(|f| {
            let file = Path::new(&f.path).strip_prefix(real).unwrap().display();
            let id = f.call_id.as_deref().unwrap_or("-");
            format!("{file}:{}:{} {} {id}\n", f.line, f.column, f.code)
        })
        .collect()
}

/// The files the default repair of an assembled session changes, with their new bytes.
fn session_repair(doc: &Assembled) -> Vec<(PathBuf, Vec<u8>)> {
    doc.split(&repaired("session", &doc.bytes))
        .unwrap()
        .into_iter()
        .map(|(path, _, bytes)| (path, bytes))
        .collect()
}

#[test]
fn opencode_sessions() {
    let mut problems = Vec::new();
    for case in ["healthy", "stale-running"] {
        let (real, doc) = session(case);
        let got = session_lint(&real, &doc);
        let pinned = root("opencode").join(format!("{case}.lint"));
        problems.extend(files::check_pinned(&pinned, got.as_bytes()).err());
        let changed = session_repair(&doc);
        let expected_dir = root("opencode").join(format!("{case}.repaired"));
        if changed.is_empty() {
            if expected_dir.exists() {
                problems.push(format!("{case}: repair changed nothing"));
            }
            continue;
        }
        // The repaired session, in full: a storage root of its own under `CASE.repaired/`.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("storage");
        copy_tree(&real, &copy);
        for (path, bytes) in &changed {
            fs::write(copy.join(path.strip_prefix(&real).unwrap()), bytes).unwrap();
        }
        for file in tree_files(&copy) {
            let rel = file.strip_prefix(&copy).unwrap();
            let want = expected_dir.join("storage").join(rel);
            if std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite") {
                fs::create_dir_all(want.parent().unwrap()).unwrap();
            }
            problems.extend(files::check_pinned(&want, &fs::read(&file).unwrap()).err());
        }
        let pinned_count = tree_files(&expected_dir.join("storage")).len();
        if pinned_count != tree_files(&copy).len() {
            problems.push(format!(
                "{case}: {pinned_count} pinned files, not the session's"
            ));
        }
        // No unfinished tool left, and a second repair changes nothing.
        let (copy_real, again) = {
            let r = opencode::root_of(&copy).unwrap();
            let s = opencode::sessions(&r, &copy).remove(0);
            (r, s.assemble().unwrap())
        };
        let after = session_lint(&copy_real, &again);
        if after.contains(" TM001 ") {
            problems.push(format!("{case}: still unfinished after repair:\n{after}"));
        }
        if !session_repair(&again).is_empty() {
            problems.push(format!("{case}: repair is not idempotent"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Every file under `dir`, sorted.
fn tree_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            fs::copy(&p, &dest).unwrap();
        }
    }
}

#[test]
fn any_path_inside_a_storage_root_names_its_session() {
    let storage = root("opencode").join("stale-running").join("storage");
    let real = opencode::root_of(&storage).unwrap();
    let id = "ses_6b2e1a4f3ffeHjKlZxCvBnMq";
    for inside in [
        "message",
        "message/ses_6b2e1a4f3ffeHjKlZxCvBnMq",
        "session/global/ses_6b2e1a4f3ffeHjKlZxCvBnMq.json",
        "part/msg_9e5c1d3c4001EfEfEfEfEfEf/prt_9e5c1d3d6001IjIjIjIjIjIj.json",
        "part/msg_9e5c1d3c4001EfEfEfEfEfEf",
    ] {
        let s = opencode::sessions(&real, &storage.join(inside));
        let ids: Vec<&str> = s.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, [id], "{inside}");
    }
    // A directory walk from above the storage roots finds each fixture session once (the
    // pinned repaired session is a storage root too).
    let (found, errors) = toolmend::io::inputs::expand(&[root("opencode")]);
    assert!(errors.is_empty());
    let sessions: Vec<_> = found.iter().filter_map(|i| i.session.as_ref()).collect();
    assert_eq!(sessions.len(), 3, "{found:?}");
    assert_eq!(found.len(), 3, "nothing else is walked: {found:?}");
}

#[test]
fn ui_messages_are_recognised_and_skipped() {
    let path = root("cline").join("cline-healthy/ui_messages.json");
    let bytes = fs::read(&path).unwrap();
    let doc = analyse("cline-healthy/ui_messages.json", &bytes).doc;
    assert!(doc.conversations.is_empty() && doc.problems.is_empty());
    assert!(
        doc.skipped
            .is_some_and(|why| why.contains("never sent to the model"))
    );
    assert!(findings("cline-healthy/ui_messages.json", &bytes).is_empty());
    // Named anything else, the same bytes are no Cline file.
    assert!(analyse("events.json", &bytes).doc.skipped.is_none());
}

/// A Gemini CLI recording is judged on the newest version of each record: an older line of a
/// record that later got its result is history, and the repair fills the newest line only.
#[test]
fn gemini_recordings_judge_the_newest_version_of_a_record() {
    let bytes = fs::read(root("gemini-cli-jsonl").join("clean.jsonl")).unwrap();
    // Cut before the record's newer version, the executing record is dangling.
    let text = String::from_utf8(bytes).unwrap();
    let first_four: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        lint_lines("cut.jsonl", first_four.as_bytes()),
        "4:250 TM001 run_shell_command-1772446509881-4c1d\n"
    );
    assert_eq!(lint_lines("clean.jsonl", text.as_bytes()), "");
}

/// The command line on an OpenCode storage folder: `lint` names the part files, `repair
/// --check` agrees with it, and `repair --in-place` rewrites exactly the pinned files.
#[test]
fn cli_repairs_an_opencode_session_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let storage = dir.path().join("storage");
    copy_tree(&root("opencode").join("stale-running/storage"), &storage);
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolmend"))
            .args(args)
            .arg(&storage)
            .output()
            .unwrap()
    };
    let lint = run(&["lint", "--format", "jsonl"]);
    assert_eq!(lint.status.code(), Some(1));
    let text = String::from_utf8(lint.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("prt_9e5c1d3d6001IjIjIjIjIjIj.json"), "{text}");
    assert_eq!(run(&["repair", "--check"]).status.code(), Some(1));
    assert_eq!(
        run(&["repair"]).status.code(),
        Some(2),
        "stdout cannot take a session"
    );
    assert_eq!(run(&["repair", "--in-place"]).status.code(), Some(0));
    let expected = root("opencode").join("stale-running.repaired/storage");
    for rel in [
        "part/msg_9e5c1d3c4001EfEfEfEfEfEf/prt_9e5c1d3d6001IjIjIjIjIjIj.json",
        "part/msg_9e5c1d3c4001EfEfEfEfEfEf/prt_9e5c1d3e1001KlKlKlKlKlKl.json",
    ] {
        assert_eq!(
            fs::read(storage.join(rel)).unwrap(),
            fs::read(expected.join(rel)).unwrap(),
            "{rel}"
        );
    }
    assert_eq!(run(&["repair", "--check"]).status.code(), Some(0));
    assert_eq!(run(&["lint"]).status.code(), Some(0));
}

/// Folders that merely happen to be called `message` and `part` are walked as usual.
#[test]
fn only_a_real_storage_root_is_read_as_sessions() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["message/a", "part/b"] {
        fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    fs::write(dir.path().join("message/a/one.json"), "[]").unwrap();
    let (found, _) = toolmend::io::inputs::expand(&[dir.path().to_path_buf()]);
    assert!(found.iter().all(|i| i.session.is_none()), "{found:?}");
    assert_eq!(found.len(), 1);
    fs::create_dir_all(dir.path().join("session/global")).unwrap();
    let (found, _) = toolmend::io::inputs::expand(&[dir.path().to_path_buf()]);
    assert_eq!(found.len(), 1);
    assert!(found[0].session.as_ref().is_some_and(|s| s.id == "a"));
    // A session named on the command line that has no messages is an error, not a pass.
    let empty = dir.path().join("session/global/ses_empty.json");
    fs::write(&empty, "{}").unwrap();
    let (found, errors) = toolmend::io::inputs::expand(&[empty]);
    assert!(
        found.is_empty() && errors.len() == 1,
        "{found:?} {errors:?}"
    );
}

/// A session file that does not parse is reported where it is (TM007), the session is not
/// analysed, and `repair` leaves every file as it was.
#[test]
fn a_broken_session_file_is_named_and_nothing_is_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let storage = dir.path().join("storage");
    copy_tree(&root("opencode").join("stale-running/storage"), &storage);
    let step = storage.join("part/msg_9e5c1f0b9001QrQrQrQrQrQr/prt_9e5c1f0c0001StStStStStSt.json");
    fs::write(
        &step,
        "{\n  \"id\": \"prt_9e5c1f0c0001StStStStStSt\",\n  \"type\": \"step-st",
    )
    .unwrap();
    let before: Vec<Vec<u8>> = inputs(&storage)
        .iter()
        .map(|p| fs::read(p).unwrap())
        .collect();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolmend"))
            .args(args)
            .arg(&storage)
            .output()
            .unwrap()
    };
    let lint = run(&["lint", "--format", "jsonl"]);
    assert_eq!(lint.status.code(), Some(1));
    let text = String::from_utf8(lint.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("TM007") && text.contains("prt_9e5c1f0c0001StStStStStSt.json"));
    assert!(text.contains("\"line\":3"), "{text}");
    assert_eq!(run(&["repair", "--in-place"]).status.code(), Some(2));
    let after: Vec<Vec<u8>> = inputs(&storage)
        .iter()
        .map(|p| fs::read(p).unwrap())
        .collect();
    assert_eq!(before, after);
}
