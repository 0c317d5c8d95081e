//! `toolmend sessions` over a home folder laid out as the agents lay it out (HOME pointed at a
//! temporary tree): discovery, status, filters, JSON, and `--repair` with its backups, its
//! refusal of files still being written, and a second run that finds everything ok.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Put the fixture `from` at `home/to`, last modified `age_min` minutes ago.
fn place(home: &Path, to: &str, from: &str, age_min: u64) -> PathBuf {
    let path = home.join(to);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::copy(repo(from), &path).unwrap();
    written(&path, Duration::from_secs(60 * age_min));
    path
}

/// Set the file at `path` last modified `ago` before now.
fn written(path: &Path, ago: Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

const CLAUDE_BROKEN: &str =
    ".claude/projects/-home-dev-shop/d714c633-af66-564a-aefa-3f306e28ebbf.jsonl";
const CODEX_BROKEN: &str = ".codex/sessions/2026/03/01/rollout-2026-03-01T09-00-00-0190aaaa-bbbb-7ccc-8ddd-000000000001.jsonl";

/// A home with one broken and one healthy session of Claude Code and Codex, and one session
/// each of Gemini CLI, Cline (Linux VS Code), Roo (macOS VS Code) and OpenCode.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    place(
        h,
        CLAUDE_BROKEN,
        "fixtures/claude-code-tree/mid-dangling.jsonl",
        5,
    );
    place(
        h,
        ".claude/projects/-home-dev-shop/0b1c2d3e-0000-4000-8000-000000000001.jsonl",
        "fixtures/claude-code-tree/clean.jsonl",
        50,
    );
    place(h, CODEX_BROKEN, "fixtures/codex/interrupted.jsonl", 10);
    place(
        h,
        ".codex/sessions/2026/02/27/rollout-2026-02-27T08-00-00-0190aaaa-bbbb-7ccc-8ddd-000000000002.jsonl",
        "fixtures/codex/clean.jsonl",
        60,
    );
    place(
        h,
        ".gemini/tmp/5b1d0f/chats/session-2026-03-01T08-00-5b959dae.json",
        "fixtures/gemini/cli-session.repaired.json",
        70,
    );
    place(
        h,
        ".gemini/tmp/shop/chats/session-2026-03-02T08-00-0c1d2e3f.jsonl",
        "fixtures/gemini/cli-session-lines.repaired.jsonl",
        75,
    );
    place(
        h,
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1732000000000/api_conversation_history.json",
        "fixtures/anthropic/clean.json",
        80,
    );
    place(
        h,
        "Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/1732000000001/api_conversation_history.json",
        "fixtures/anthropic/clean.json",
        90,
    );
    place(
        h,
        ".local/share/opencode/storage/session/global/ses_01.json",
        "fixtures/anthropic/clean.json",
        100,
    );
    dir
}

fn toolmend(home: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolmend"));
    cmd.arg("sessions")
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GOOSE_PATH_ROOT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn json(out: &Output) -> Vec<serde_json::Value> {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn rows(out: &Output) -> Vec<(String, String)> {
    json(out)
        .iter()
        .map(|r| {
            (
                r["agent"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn lists_every_agent_newest_first_with_status() {
    let home = home();
    let out = toolmend(home.path(), &["--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(1), "broken sessions exit 1");
    let got = rows(&out);
    let want = [
        ("claude-code", "broken"),
        ("codex", "broken"),
        ("claude-code", "ok"),
        ("codex", "ok"),
        ("gemini-cli", "ok"),
        ("gemini-cli", "ok"),
        ("cline", "ok"),
        ("roo", "ok"),
        ("opencode", "unchecked"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, s)| (a.to_string(), s.to_string()))
        .collect();
    assert_eq!(got, want);
    let all = json(&out);
    assert_eq!(all[0]["project"], "-home-dev-shop");
    assert_eq!(all[1]["project"], "/work/app");
    assert!(
        all[0]["first_finding"]
            .as_str()
            .unwrap()
            .starts_with("TM001 line 2: tool call `toolu_01MidRm`")
    );

    let human = toolmend(home.path(), &[], &[]);
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains(&format!(
        "  {}\n",
        home.path().join(CLAUDE_BROKEN).display()
    )));
    assert!(text.contains("  broken: 1 finding(s); first: TM001 line 2"));
    assert!(text.ends_with("9 session(s): 7 ok, 2 broken\n"), "{text}");
}

#[test]
fn filters_by_agent_and_by_breakage() {
    let home = home();
    let codex = rows(&toolmend(
        home.path(),
        &["--agent", "codex", "--format", "json"],
        &[],
    ));
    assert_eq!(codex.len(), 2);
    assert!(codex.iter().all(|(a, _)| a == "codex"));
    let broken = rows(&toolmend(
        home.path(),
        &["--broken", "--format", "json"],
        &[],
    ));
    assert_eq!(broken.len(), 2);
    assert!(broken.iter().all(|(_, s)| s == "broken"));
    let bad = toolmend(home.path(), &["--agent", "cursor"], &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown agent `cursor`"));
}

#[test]
fn honours_the_agents_own_folder_variables() {
    let home = home();
    let elsewhere = tempfile::tempdir().unwrap();
    place(
        elsewhere.path(),
        "claude/projects/-srv/0b1c2d3e-0000-4000-8000-000000000009.jsonl",
        "fixtures/claude-code-tree/trailing-call.jsonl",
        1,
    );
    place(
        elsewhere.path(),
        "codex/sessions/2026/01/01/rollout-x.jsonl",
        "fixtures/codex/clean.jsonl",
        1,
    );
    let claude_dir = elsewhere.path().join("claude");
    let codex_dir = elsewhere.path().join("codex");
    let out = toolmend(
        home.path(),
        &["--format", "json"],
        &[
            ("CLAUDE_CONFIG_DIR", &claude_dir),
            ("CODEX_HOME", &codex_dir),
        ],
    );
    let all = json(&out);
    let paths: Vec<&str> = all
        .iter()
        .filter(|r| r["agent"] == "claude-code" || r["agent"] == "codex")
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with(&*elsewhere.path().to_string_lossy()))
    );
}

#[test]
fn repair_fixes_broken_sessions_in_place_with_backups() {
    let home = home();
    let claude = home.path().join(CLAUDE_BROKEN);
    let original = fs::read(&claude).unwrap();
    let out = toolmend(home.path(), &["--repair"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    let backup = PathBuf::from(format!("{}.toolmend-backup", claude.display()));
    assert!(
        text.contains(&format!(
            "repaired: 1 fix(es), 1 placeholder result(s); original kept as {}",
            backup.display()
        )),
        "{text}"
    );
    assert!(text.contains(&format!(
        "(undo: mv {} {})",
        backup.display(),
        claude.display()
    )));
    assert_eq!(fs::read(&backup).unwrap(), original);
    assert_ne!(fs::read(&claude).unwrap(), original);
    assert!(text.ends_with("9 session(s): 9 ok, 0 broken\n"), "{text}");
    assert_eq!(out.status.code(), Some(0));
    // A second run finds nothing to do, and lists no backup as a session.
    let again = toolmend(home.path(), &["--format", "json"], &[]);
    assert_eq!(again.status.code(), Some(0));
    let statuses = rows(&again);
    assert_eq!(statuses.len(), 9);
    assert!(statuses.iter().all(|(_, s)| s == "ok" || s == "unchecked"));
}

#[test]
fn repair_leaves_a_session_still_being_written_unless_forced() {
    let home = home();
    let codex = home.path().join(CODEX_BROKEN);
    written(&codex, Duration::ZERO);
    let original = fs::read(&codex).unwrap();
    let out = toolmend(home.path(), &["--repair", "--agent", "codex"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("not repaired: modified 0s ago, its agent may still be writing it"),
        "{text}"
    );
    assert_eq!(fs::read(&codex).unwrap(), original);
    assert_eq!(out.status.code(), Some(1));
    let forced = toolmend(
        home.path(),
        &["--repair", "--force", "--agent", "codex"],
        &[],
    );
    assert_eq!(forced.status.code(), Some(0));
    assert_ne!(fs::read(&codex).unwrap(), original);
}

#[test]
fn repair_applies_the_duplicates_policy_it_is_given() {
    // Gemini CLI records each response it sends a second time (google-gemini/gemini-cli#29365):
    // removing the copy deletes bytes, so `--repair` alone leaves it and says which flag would.
    let dir = tempfile::tempdir().unwrap();
    let session = place(
        dir.path(),
        ".gemini/tmp/shop/chats/session-2026-03-03T08-00-1a2b3c4d.jsonl",
        "tests/gemini_resume/fixtures/recorded-response-twice.jsonl",
        30,
    );
    let original = fs::read(&session).unwrap();
    let out = toolmend(dir.path(), &["--repair"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "not repaired: no safe fix; its duplicate results (TM004) need --duplicates keep-first"
        ),
        "{text}"
    );
    assert_eq!(fs::read(&session).unwrap(), original);
    assert_eq!(out.status.code(), Some(1));

    let out = toolmend(dir.path(), &["--repair", "--duplicates", "keep-first"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("repaired: 1 fix(es), 0 placeholder result(s)"),
        "{text}"
    );
    assert!(text.ends_with("1 session(s): 1 ok, 0 broken\n"), "{text}");
    assert_eq!(out.status.code(), Some(0));
    let backup = PathBuf::from(format!("{}.toolmend-backup", session.display()));
    assert_eq!(fs::read(&backup).unwrap(), original);

    // A result whose call is gone likewise needs --orphans.
    let claude = place(
        dir.path(),
        ".claude/projects/-w/0b1c2d3e-0000-4000-8000-000000000009.jsonl",
        "fixtures/claude-code-tree/orphan-result.jsonl",
        30,
    );
    let text = String::from_utf8(toolmend(dir.path(), &["--repair"], &[]).stdout).unwrap();
    assert!(
        text.contains("not repaired: no safe fix; its orphan results (TM002) need --orphans drop"),
        "{text}"
    );
    let text =
        String::from_utf8(toolmend(dir.path(), &["--repair", "--orphans", "drop"], &[]).stdout)
            .unwrap();
    assert!(text.ends_with("2 session(s): 2 ok, 0 broken\n"), "{text}");
    assert!(PathBuf::from(format!("{}.toolmend-backup", claude.display())).exists());

    // A policy is a repair option: without --repair it is refused.
    let out = toolmend(dir.path(), &["--duplicates", "keep-first"], &[]);
    assert_eq!(out.status.code(), Some(2));
}

/// Copy the folder `from` (in the repository) to `to`, every file last modified an hour ago.
fn place_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            place_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            written(&target, Duration::from_secs(3600));
        }
    }
}

#[test]
fn opencode_sessions_are_read_from_their_message_and_part_files() {
    // An OpenCode session is a file per message and per part; the session file holds only
    // its title. It is judged, and repaired, as OpenCode reads it.
    let dir = tempfile::tempdir().unwrap();
    let storage = dir.path().join(".local/share/opencode/storage");
    place_tree(&repo("fixtures/opencode/stale-running/storage"), &storage);
    let out = toolmend(dir.path(), &["--format", "json"], &[]);
    let rows = json(&out);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], "broken", "{rows:?}");
    assert_eq!(rows[0]["findings"], 2);
    let first = rows[0]["first_finding"].as_str().unwrap();
    // The finding names the part file it is in.
    assert!(
        first.starts_with("TM001 prt_9e5c1d3d6001IjIjIjIjIjIj.json:1: tool call"),
        "{first}"
    );

    // A part written a moment ago is a session still being written, whatever the age of the
    // session's own file.
    let part = storage.join("part/msg_9e5c1d3c4001EfEfEfEfEfEf/prt_9e5c1d3d6001IjIjIjIjIjIj.json");
    written(&part, Duration::ZERO);
    let text = String::from_utf8(toolmend(dir.path(), &["--repair"], &[]).stdout).unwrap();
    assert!(text.contains("not repaired: modified 0s ago"), "{text}");
    written(&part, Duration::from_secs(3600));

    let out = toolmend(dir.path(), &["--repair"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "repaired: 2 fix(es), 2 placeholder result(s); 2 files changed, each original kept beside it as <file>.toolmend-backup (undo: mv "
        ),
        "{text}"
    );
    assert!(text.ends_with("1 session(s): 1 ok, 0 broken\n"), "{text}");
    assert_eq!(out.status.code(), Some(0));
    // Each file is now what `toolmend repair --in-place` makes of the session.
    let want = repo("fixtures/opencode/stale-running.repaired/storage");
    let mut backups = 0;
    for part in fs::read_dir(storage.join("part")).unwrap() {
        for file in fs::read_dir(part.unwrap().path()).unwrap() {
            let file = file.unwrap().path();
            let rel = file.strip_prefix(&storage).unwrap();
            if rel.to_string_lossy().ends_with(".toolmend-backup") {
                let original = repo("fixtures/opencode/stale-running/storage")
                    .join(rel.to_string_lossy().trim_end_matches(".toolmend-backup"));
                assert_eq!(fs::read(&file).unwrap(), fs::read(original).unwrap());
                backups += 1;
            } else {
                assert_eq!(
                    fs::read(&file).unwrap(),
                    fs::read(want.join(rel)).unwrap(),
                    "{}",
                    rel.display()
                );
            }
        }
    }
    assert_eq!(backups, 2);

    // A session without messages yet has nothing to break.
    let stray = dir
        .path()
        .join(".local/share/opencode/storage/session/global/ses_x.json");
    fs::write(&stray, "{}").unwrap();
    let rows = json(&toolmend(dir.path(), &["--format", "json"], &[]));
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
}

/// A home whose data folder (`home/data`, for `XDG_DATA_HOME`) holds the sessions database
/// the real app at `app` (installed by .ci/stores.sh) writes with `opencode import`; `None`,
/// saying so, when the app is not installed.
fn app_database(app: &str) -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    let app = repo(app);
    if !app.exists() {
        eprintln!(
            "skipped: {} is not installed (run .ci/stores.sh)",
            app.display()
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    let status = Command::new("python3")
        .arg(repo("fixtures/stores/opencode.py"))
        .args([&app, &home, &project])
        .status()
        .unwrap();
    assert!(status.success());
    let data = home.join("data");
    Some((dir, home, data))
}

#[test]
fn an_opencode_database_is_judged_and_repaired_by_its_store() {
    // Current OpenCode keeps every session in one SQLite database, written here by the real
    // app.
    let Some((_dir, home, data)) =
        app_database("target/npm-apps/node_modules/opencode-linux-x64/bin/opencode")
    else {
        return;
    };
    let db = data.join("opencode/opencode.db");
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    assert!(wal.exists());
    written(&db, Duration::from_secs(3600));
    written(&wal, Duration::from_secs(3600));
    let env = [("XDG_DATA_HOME", data.as_path())];
    let out = toolmend(&home, &["--format", "json"], &env);
    let rows = json(&out);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["agent"], "opencode");
    assert_eq!(rows[0]["project"], "opencode.db");
    assert_eq!(rows[0]["status"], "broken");
    assert_eq!(rows[0]["findings"], 2);
    let first = rows[0]["first_finding"].as_str().unwrap();
    assert!(first.starts_with("TM001 thread ses_"), "{first}");

    // Written a moment ago in its write-ahead log: the app may still be writing it.
    written(&wal, Duration::ZERO);
    let text = String::from_utf8(toolmend(&home, &["--repair"], &env).stdout).unwrap();
    assert!(text.contains("not repaired: modified 0s ago"), "{text}");
    written(&wal, Duration::from_secs(3600));

    let out = toolmend(&home, &["--repair"], &env);
    let text = String::from_utf8(out.stdout).unwrap();
    let backup = format!("{}.toolmend-backup", db.display());
    assert!(
        text.contains(&format!(
            "repaired: 2 conversation(s), 2 placeholder result(s), 2 row(s) in one transaction; a copy of the database before it kept as {backup}"
        )),
        "{text}"
    );
    assert!(text.ends_with("1 session(s): 1 ok, 0 broken\n"), "{text}");
    assert_eq!(out.status.code(), Some(0));
    // The copy is the database as it was: judged broken in the same way.
    let copy = Command::new(env!("CARGO_BIN_EXE_toolmend"))
        .args(["lint", "--format", "json", &backup])
        .output()
        .unwrap();
    assert_eq!(copy.status.code(), Some(1));
    let again = json(&toolmend(&home, &["--format", "json"], &env));
    assert_eq!(again[0]["status"], "ok", "{again:?}");
}

#[test]
fn kilo_and_goose_databases_are_listed_with_their_agent() {
    // Kilo's database as the real Kilo CLI writes it, and a Goose `sessions.db` made with
    // Goose's own DDL.
    let Some((dir, home, data)) =
        app_database("target/npm-apps/node_modules/@kilocode/cli-linux-x64/bin/kilo")
    else {
        return;
    };
    let goose = data.join("goose/sessions/sessions.db");
    fs::create_dir_all(goose.parent().unwrap()).unwrap();
    let conn = rusqlite::Connection::open(&goose).unwrap();
    conn.execute_batch(&fs::read_to_string(repo("fixtures/stores/goose.sql")).unwrap())
        .unwrap();
    conn.execute(
        "INSERT INTO sessions (id, name, working_dir) VALUES ('20261201_1', 'chat', '/w')",
        [],
    )
    .unwrap();
    let call = r#"[{"type":"toolRequest","id":"toolu_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]"#;
    let text = |t: &str| format!(r#"[{{"type":"text","text":"{t}"}}]"#);
    for (i, (role, content)) in [
        ("user", text("List the files.")),
        ("assistant", call.to_string()),
        ("user", text("Never mind.")),
        ("assistant", text("OK.")),
    ]
    .into_iter()
    .enumerate()
    {
        conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json, message_id) \
             VALUES ('20261201_1', ?1, ?2, ?3, ?4, '{\"userVisible\":true,\"agentVisible\":true}', ?5)",
            rusqlite::params![role, content, 1_764_583_200 + i as i64, format!("2026-12-01 10:00:0{i}"), format!("msg_{i}")],
        )
        .unwrap();
    }
    drop(conn);
    let env = [("XDG_DATA_HOME", data.as_path())];
    let rows = json(&toolmend(&home, &["--format", "json"], &env));
    let mut got: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["agent"].as_str().unwrap().to_string(),
                r["project"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("goose".into(), "sessions.db".into(), "broken".into()),
            ("kilo".into(), "kilo.db".into(), "broken".into())
        ]
    );
    let goose_only = json(&toolmend(
        &home,
        &["--agent", "goose", "--format", "json"],
        &env,
    ));
    assert_eq!(goose_only.len(), 1);
    assert_eq!(goose_only[0]["findings"], 1);

    // GOOSE_PATH_ROOT moves Goose's data to `<root>/data`.
    let root = dir.path().join("goose-root");
    let moved = root.join("data/sessions/sessions.db");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(&goose, &moved).unwrap();
    let env = [
        ("XDG_DATA_HOME", data.as_path()),
        ("GOOSE_PATH_ROOT", root.as_path()),
    ];
    let goose_only = json(&toolmend(
        &home,
        &["--agent", "goose", "--format", "json"],
        &env,
    ));
    assert_eq!(goose_only.len(), 1);
    assert_eq!(goose_only[0]["path"], moved.to_string_lossy().as_ref());
}
