//! LangGraph SQLite checkpointer databases through the binary: lint, detect, repair, and the
//! write safety rules. `fixtures/langgraph/threads.db` was written by the real library
//! (`tests/langgraph/make_threads.py`, pinned versions in `tests/langgraph/requirements.txt`):
//! two broken threads, one healthy, one paused on `interrupt()`. The last test builds a fresh
//! database with LangGraph and reads the repair back with it (needs the virtual environment
//! made by `.ci/langgraph.sh`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rusqlite::Connection;

const BIN: &str = env!("CARGO_BIN_EXE_toolmend");
const BROKEN: [&str; 2] = ["broken-crash", "broken-stopped"];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/langgraph/threads.db")
}

/// A private copy of the fixture database (named `name`) in a new directory.
fn copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(name);
    std::fs::copy(fixture(), &db).unwrap();
    (dir, db)
}

fn toolmend(args: &[&str], db: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg(db)
        .stdin(Stdio::null())
        .output()
        .expect("run toolmend")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn findings(db: &Path) -> Vec<serde_json::Value> {
    let out = toolmend(&["lint", "--format", "json"], db);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

/// Every checkpoint id per thread, in order: what a repair must keep (and add to).
fn checkpoints(db: &Path) -> Vec<(String, String)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT thread_id, checkpoint_id FROM checkpoints ORDER BY thread_id, checkpoint_id",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Every row of both tables, each column quoted (blobs as hex): a repair may add rows,
/// never change one.
fn all_rows(db: &Path) -> (Vec<String>, Vec<String>) {
    let conn = Connection::open(db).unwrap();
    let dump = |sql: &str| -> Vec<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        stmt.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    (
        dump(
            "SELECT quote(thread_id) || quote(checkpoint_ns) || quote(checkpoint_id) || \
             quote(parent_checkpoint_id) || quote(type) || quote(checkpoint) || quote(metadata) \
             FROM checkpoints ORDER BY 1",
        ),
        dump(
            "SELECT quote(thread_id) || quote(checkpoint_ns) || quote(checkpoint_id) || \
             quote(task_id) || quote(idx) || quote(channel) || quote(type) || quote(value) \
             FROM writes ORDER BY 1",
        ),
    )
}

fn threads_of(findings: &[serde_json::Value]) -> Vec<String> {
    let mut t: Vec<String> = findings
        .iter()
        .map(|f| f["thread_id"].as_str().unwrap().to_string())
        .collect();
    t.dedup();
    t
}

#[test]
fn lints_exactly_the_two_broken_threads_and_names_their_places() {
    let (_dir, db) = copy("threads.db");
    let bytes = std::fs::read(&db).unwrap();
    let f = findings(&db);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "lint wrote to the database"
    );
    assert_eq!(threads_of(&f), BROKEN);
    assert!(f.iter().all(|f| f["code"] == "TM001"));
    let calls: Vec<&str> = f.iter().map(|f| f["call_id"].as_str().unwrap()).collect();
    assert_eq!(
        calls,
        [
            "call_lookup_1",
            "call_explode_1",
            "call_lookup_1",
            "call_again_1"
        ]
    );
    for f in &f {
        assert_eq!(f["store"], "langgraph-sqlite");
        assert_eq!(f["message_index"], 1);
        assert_eq!(f["checkpoint_ns"], "");
        assert!(f["checkpoint_id"].as_str().unwrap().starts_with("1f"));
        // The AI message's own id is its row.
        assert_eq!(f["row"].as_str().unwrap().len(), 36);
    }
    let human = text(&toolmend(&["lint"], &db).stdout);
    assert!(
        human.contains("[thread broken-crash checkpoint 1f"),
        "{human}"
    );
    assert!(
        human.contains("4 conversations, 6 tool calls: 4 findings"),
        "{human}"
    );
}

#[test]
fn detect_names_the_store_why_and_the_paused_thread() {
    let (_dir, db) = copy("checkpoints.bin");
    let out = toolmend(&["detect"], &db);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{s}{}", text(&out.stderr));
    assert!(s.contains("(SQLite database: langgraph-sqlite)"), "{s}");
    assert!(s.contains("why: tables `checkpoints`"), "{s}");
    assert!(
        s.contains("thread paused checkpoint") && s.contains("paused on an interrupt"),
        "{s}"
    );
    assert_eq!(s.matches("conversation ").count(), 4, "{s}");
}

#[test]
fn repair_writes_one_new_checkpoint_per_broken_thread_and_keeps_the_old_ones() {
    let (dir, db) = copy("threads.db");
    let before = checkpoints(&db);
    let (rows, writes) = all_rows(&db);
    let out = toolmend(&["repair", "--in-place", "--backup", ".bak"], &db);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("4 placeholder tool result(s)"), "{err}");
    assert!(err.contains("2 row(s) written in one transaction"), "{err}");
    let after = checkpoints(&db);
    assert_eq!(after.len(), before.len() + 2);
    // Nothing else changed: every old row is there byte for byte; no write was touched.
    let (rows_after, writes_after) = all_rows(&db);
    assert!(rows.iter().all(|r| rows_after.contains(r)));
    assert_eq!(writes_after, writes);
    assert!(before.iter().all(|c| after.contains(c)));
    let new: Vec<&(String, String)> = after.iter().filter(|c| !before.contains(c)).collect();
    assert_eq!(new.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), BROKEN);
    for (thread, id) in new {
        let latest = before.iter().filter(|c| &c.0 == thread).map(|c| &c.1).max();
        assert!(Some(id) > latest, "{id} sorts after {latest:?}");
    }
    assert!(findings(&db).is_empty());
    // The backup is the database as it was.
    let backup = dir.path().join("threads.db.bak");
    assert_eq!(checkpoints(&backup), before);
    assert_eq!(threads_of(&findings(&backup)), BROKEN);
    // A second repair finds nothing to do.
    let again = toolmend(&["repair", "--in-place"], &db);
    assert!(text(&again.stderr).contains("left untouched"));
    assert_eq!(checkpoints(&db), after);
}

#[test]
fn check_writes_nothing_and_exits_one() {
    let (_dir, db) = copy("threads.db");
    let before = checkpoints(&db);
    let out = toolmend(&["repair", "--check"], &db);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(": would be repaired"));
    assert_eq!(checkpoints(&db), before);
    let plain = toolmend(&["repair"], &db);
    assert_eq!(plain.status.code(), Some(2));
    assert!(text(&plain.stderr).contains("use --in-place"));
}

/// A copy of the fixture as the app leaves it while it runs: its -wal and -shm beside it.
fn copy_with_log() -> (tempfile::TempDir, PathBuf) {
    let (dir, db) = copy("threads.db");
    for side in ["-wal", "-shm"] {
        let mut from = fixture().into_os_string();
        from.push(side);
        let mut to = db.clone().into_os_string();
        to.push(side);
        std::fs::copy(from, to).unwrap();
    }
    (dir, db)
}

/// Every file in `dir` with its bytes.
fn files_in(dir: &Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn check_touches_no_file_and_takes_no_write_lock() {
    let (dir, db) = copy_with_log();
    let before = files_in(dir.path());
    assert_eq!(before.len(), 3);
    // The app holds the write lock meanwhile: a check reads a snapshot, it does not wait.
    let app = Connection::open(&db).unwrap();
    app.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = toolmend(&["repair", "--check"], &db);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(": would be repaired"));
    app.execute_batch("ROLLBACK").unwrap();
    drop(app);
    // Alone on the database, closing the check's connection must not fold the write-ahead
    // log into it or remove the log's files.
    let (dir, db) = copy_with_log();
    let before = files_in(dir.path());
    let out = toolmend(&["repair", "--check"], &db);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(files_in(dir.path()), before);
}

#[test]
fn unreadable_checkpoints_are_reported_per_thread_and_never_repaired() {
    let (_dir, db) = copy("threads.db");
    let conn = Connection::open(&db).unwrap();
    let latest = |t: &str| {
        format!(
            "checkpoint_id = (SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = '{t}') \
             AND thread_id = '{t}'"
        )
    };
    conn.execute(
        &format!(
            "UPDATE checkpoints SET type = 'pickle' WHERE {}",
            latest("broken-crash")
        ),
        [],
    )
    .unwrap();
    conn.execute(
        &format!(
            "UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 40) WHERE {}",
            latest("healthy")
        ),
        [],
    )
    .unwrap();
    drop(conn);
    let f = findings(&db);
    let summary: Vec<(String, String)> = f
        .iter()
        .map(|f| {
            (
                f["thread_id"].as_str().unwrap().into(),
                f["code"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("broken-crash", "TM015"),
        ("broken-stopped", "TM001"),
        ("broken-stopped", "TM001"),
        ("healthy", "TM015"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(summary, want);
    assert!(f[0]["message"].as_str().unwrap().contains("`pickle`"));
    assert!(f[3]["message"].as_str().unwrap().contains("not msgpack"));
    let before = checkpoints(&db);
    assert!(toolmend(&["repair", "--in-place"], &db).status.success());
    let new: Vec<_> = checkpoints(&db)
        .into_iter()
        .filter(|c| !before.contains(c))
        .map(|c| c.0)
        .collect();
    assert_eq!(new, ["broken-stopped"]);
}

#[test]
fn a_run_stopped_before_its_tools_ran_is_reported_but_not_repaired() {
    let (_dir, db) = copy("threads.db");
    // Roll `broken-stopped` back to the checkpoint after the model's step: `tools` is next,
    // and resuming the run would answer the calls.
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "DELETE FROM checkpoints WHERE thread_id = 'broken-stopped' AND \
         json_extract(CAST(metadata AS TEXT), '$.step') > 1",
        [],
    )
    .unwrap();
    drop(conn);
    let f = findings(&db);
    let stopped: Vec<&serde_json::Value> = f
        .iter()
        .filter(|f| f["thread_id"] == "broken-stopped")
        .collect();
    assert_eq!(stopped.len(), 2);
    for f in stopped {
        assert!(f["fix"].is_null(), "{f}");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("tools still to run"),
            "{f}"
        );
    }
    let before = checkpoints(&db);
    assert!(toolmend(&["repair", "--in-place"], &db).status.success());
    let new: Vec<_> = checkpoints(&db)
        .into_iter()
        .filter(|c| !before.contains(c))
        .map(|c| c.0)
        .collect();
    assert_eq!(new, ["broken-crash"]);
}

#[test]
fn a_held_write_lock_is_reported_and_nothing_is_written() {
    let (_dir, db) = copy("threads.db");
    let before = checkpoints(&db);
    let app = Connection::open(&db).unwrap();
    app.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = toolmend(&["repair", "--in-place"], &db);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("TM016 store-busy"), "{err}");
    assert!(err.contains("write lock"), "{err}");
    // Linting still works (read-only) while the app holds the lock.
    assert_eq!(threads_of(&findings(&db)), BROKEN);
    app.execute_batch("ROLLBACK").unwrap();
    assert_eq!(checkpoints(&db), before);
}

/// A msgpack blob as LangGraph writes a LangChain message: extension type 5 holding
/// `(module, class, model_dump(), method)`.
fn message_blob(module: &str, class: &str, fields: serde_json::Value) -> Vec<u8> {
    fn value(v: &serde_json::Value) -> rmpv::Value {
        match v {
            serde_json::Value::Null => rmpv::Value::Nil,
            serde_json::Value::String(s) => rmpv::Value::from(s.as_str()),
            serde_json::Value::Object(m) => rmpv::Value::Map(
                m.iter()
                    .map(|(k, v)| (rmpv::Value::from(k.as_str()), value(v)))
                    .collect(),
            ),
            other => panic!("not needed here: {other}"),
        }
    }
    let mut tuple = Vec::new();
    let parts = rmpv::Value::Array(vec![
        module.into(),
        class.into(),
        value(&fields),
        "model_validate_json".into(),
    ]);
    rmpv::encode::write_value(&mut tuple, &parts).unwrap();
    let mut out = Vec::new();
    rmpv::encode::write_value(
        &mut out,
        &rmpv::Value::Array(vec![rmpv::Value::Ext(5, tuple)]),
    )
    .unwrap();
    out
}

fn add_pending_write(db: &Path, thread: &str, blob: &[u8]) {
    let conn = Connection::open(db).unwrap();
    conn.execute(
        "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, \
         type, value) SELECT thread_id, '', MAX(checkpoint_id), 'task-1', 0, 'messages', \
         'msgpack', ?2 FROM checkpoints WHERE thread_id = ?1",
        rusqlite::params![thread, blob],
    )
    .unwrap();
}

#[test]
fn pending_writes_count_as_answers_and_block_the_repair() {
    let (_dir, db) = copy("threads.db");
    let answer = message_blob(
        "langchain_core.messages.tool",
        "ToolMessage",
        serde_json::json!({"content": "done", "type": "tool", "tool_call_id": "call_lookup_1",
                           "name": "lookup", "id": "m1"}),
    );
    add_pending_write(&db, "broken-stopped", &answer);
    let f = findings(&db);
    let stopped: Vec<_> = f
        .iter()
        .filter(|f| f["thread_id"] == "broken-stopped")
        .collect();
    // The pending answer is after the new user message: the lookup's result is out of its
    // window, the other call still dangles; neither is repaired while the write is pending.
    let codes: Vec<(&str, &str)> = stopped
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["call_id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        codes,
        [("TM001", "call_again_1"), ("TM003", "call_lookup_1")],
        "{stopped:?}"
    );
    assert!(stopped.iter().all(|f| f["fix"].is_null()));
    assert_eq!(stopped[1]["row"], "pending write of task task-1");
}

#[test]
fn an_unknown_extension_type_in_a_pending_write_is_not_guessed() {
    let (_dir, db) = copy("threads.db");
    let odd = message_blob("my_app.state", "Note", serde_json::json!({"text": "hi"}));
    add_pending_write(&db, "healthy", &odd);
    let f = findings(&db);
    let healthy: Vec<_> = f.iter().filter(|f| f["thread_id"] == "healthy").collect();
    assert_eq!(healthy.len(), 1);
    assert_eq!(healthy[0]["code"], "TM015");
    let message = healthy[0]["message"].as_str().unwrap();
    assert!(message.contains("my_app.state.Note"), "{message}");
}

#[test]
fn a_subgraph_namespace_is_linted_but_not_repaired() {
    let (_dir, db) = copy("threads.db");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "UPDATE checkpoints SET checkpoint_ns = 'inner:1' WHERE thread_id = 'broken-crash'; \
         UPDATE writes SET checkpoint_ns = 'inner:1' WHERE thread_id = 'broken-crash';",
    )
    .unwrap();
    drop(conn);
    let f = findings(&db);
    let inner: Vec<_> = f
        .iter()
        .filter(|f| f["checkpoint_ns"] == "inner:1")
        .collect();
    assert_eq!(inner.len(), 2);
    assert!(inner.iter().all(|f| f["fix"].is_null()));
    let before = checkpoints(&db);
    assert!(toolmend(&["repair", "--in-place"], &db).status.success());
    let new: Vec<_> = checkpoints(&db)
        .into_iter()
        .filter(|c| !before.contains(c))
        .map(|c| c.0)
        .collect();
    assert_eq!(new, ["broken-stopped"]);
}

#[test]
fn force_waits_for_the_write_lock() {
    let (_dir, db) = copy("threads.db");
    let app = Connection::open(&db).unwrap();
    app.execute_batch("BEGIN IMMEDIATE").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(700));
        app.execute_batch("COMMIT").unwrap();
    });
    let out = toolmend(&["repair", "--in-place", "--force"], &db);
    release.join().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(findings(&db).is_empty());
}

#[test]
fn a_growing_wal_is_reported_and_nothing_is_written() {
    let (_dir, db) = copy("threads.db");
    let before = checkpoints(&db);
    let writer_db = db.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_writer = stop.clone();
    let writer = std::thread::spawn(move || {
        let app = Connection::open(&writer_db).unwrap();
        app.execute_batch("CREATE TABLE app_log(x)").unwrap();
        while !stop_writer.load(std::sync::atomic::Ordering::Relaxed) {
            app.execute("INSERT INTO app_log VALUES (randomblob(500))", [])
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(100));
    let out = toolmend(&["repair", "--in-place"], &db);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("TM016 store-busy"), "{err}");
    assert_eq!(checkpoints(&db), before);
}

#[test]
fn a_failed_write_rolls_every_thread_back() {
    let (_dir, db) = copy("threads.db");
    let conn = Connection::open(&db).unwrap();
    // The second thread's insert fails after the first one's succeeded.
    conn.execute_batch(
        "CREATE TRIGGER refuse BEFORE INSERT ON checkpoints WHEN NEW.thread_id = 'broken-stopped' \
         BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END;",
    )
    .unwrap();
    drop(conn);
    let before = checkpoints(&db);
    let out = toolmend(&["repair", "--in-place"], &db);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("refused by a trigger"), "{err}");
    assert_eq!(checkpoints(&db), before);
}

#[test]
fn directory_walks_take_databases_only_by_their_header() {
    let (dir, db) = copy("threads.sqlite3");
    std::fs::write(dir.path().join("notes.db"), b"not a database").unwrap();
    std::fs::copy(&db, dir.path().join("state.bin")).unwrap();
    // Another app's SQLite file: passed over by a walk, an error when named.
    let other = dir.path().join("other.sqlite");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE prefs(k, v)")
        .unwrap();
    let named = toolmend(&["lint"], &other);
    assert_eq!(named.status.code(), Some(2));
    assert!(text(&named.stderr).contains("no session store toolmend knows"));
    let out = Command::new(BIN)
        .args(["lint", "--format", "json"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let f: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let paths: std::collections::BTreeSet<&str> =
        f.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert!(paths.iter().all(|p| p.ends_with("threads.sqlite3")));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn a_walk_reads_files_named_like_logs_as_logs_without_sniffing_them() {
    let (dir, db) = copy("threads.sqlite3");
    let disguised = dir.path().join("state.json");
    std::fs::rename(&db, &disguised).unwrap();
    // Named on the command line, its header makes it a database whatever its name.
    let named = findings(&disguised);
    assert!(!named.is_empty());
    assert!(named.iter().all(|f| f["code"] != "TM007"), "{named:?}");
    // A walk goes by names: a `.json` file is read as a log, and the error says what it is.
    let out = toolmend(&["lint", "--format", "json"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let walked: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(walked.len(), 1, "{walked:?}");
    assert_eq!(walked[0]["code"], "TM007");
    let message = walked[0]["message"].as_str().unwrap();
    assert!(
        message.contains("an SQLite database named like a log"),
        "{message}"
    );
}

/// The virtual environment's Python, if `.ci/langgraph.sh` made it.
fn langgraph_python() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/venvs/langgraph/bin/python");
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var_os("TOOLMEND_REQUIRE_LANGGRAPH").is_none(),
        "TOOLMEND_REQUIRE_LANGGRAPH is set but {} is missing",
        p.display()
    );
    eprintln!("skipped: no LangGraph virtual environment (run .ci/langgraph.sh)");
    None
}

fn python(py: &Path, args: &[&str]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/langgraph");
    let out = Command::new(py)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python {args:?}:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn langgraph_reads_the_repair_back() {
    let Some(py) = langgraph_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fresh.db");
    let state = dir.path().join("state.json");
    let (db_s, state_s) = (db.to_str().unwrap(), state.to_str().unwrap());
    python(&py, &["make_threads.py", db_s]);
    assert_eq!(threads_of(&findings(&db)), BROKEN);
    python(&py, &["check_repaired.py", "before", db_s, state_s]);
    let out = toolmend(&["repair", "--in-place"], &db);
    assert!(out.status.success(), "{}", text(&out.stderr));
    python(&py, &["check_repaired.py", "after", db_s, state_s]);
}
