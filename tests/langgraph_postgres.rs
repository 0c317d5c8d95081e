//! LangGraph's `PostgresSaver` tables linted through a `postgres://` URL, against a real
//! PostgreSQL server (started by `.ci/postgres.sh`, which sets `TOOLMEND_PG_URL`) holding
//! threads written by the real library (`tests/langgraph/make_threads.py`). Skipped quietly
//! without a server.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_toolmend");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn toolmend(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run toolmend")
}

/// A fresh database on the test server, dropped at the end.
struct Fresh {
    admin: String,
    name: String,
    url: String,
}

impl Fresh {
    fn new(admin: &str) -> Fresh {
        let name = format!("toolmend_test_{}", std::process::id());
        let mut client = postgres::Client::connect(admin, postgres::NoTls).unwrap();
        // One statement each: CREATE DATABASE cannot share a transaction.
        client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .unwrap();
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let base = admin.rsplit_once('/').unwrap().0;
        Fresh {
            admin: admin.to_string(),
            url: format!("{base}/{name}"),
            name,
        }
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

fn row_counts(url: &str) -> Vec<i64> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]
        .iter()
        .map(|t| {
            c.query_one(&format!("SELECT count(*) FROM {t}"), &[])
                .unwrap()
                .get(0)
        })
        .collect()
}

#[test]
fn postgres_saver_threads_lint_read_only() {
    let Some(admin) = std::env::var("TOOLMEND_PG_URL").ok() else {
        eprintln!("skipped: no TOOLMEND_PG_URL (run .ci/postgres.sh)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let py = root.join("target/venvs/langgraph/bin/python");
    assert!(
        py.exists(),
        "{} is missing (run .ci/langgraph.sh)",
        py.display()
    );
    let db = Fresh::new(&admin);
    let made = Command::new(&py)
        .args(["make_threads.py", &db.url])
        .current_dir(root.join("tests/langgraph"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    let before = row_counts(&db.url);

    // The app holds a lock and has uncommitted rows: the lint reads around both.
    let mut app = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let mut tx = app.transaction().unwrap();
    tx.batch_execute(
        "LOCK TABLE checkpoints IN EXCLUSIVE MODE; \
         INSERT INTO checkpoints (thread_id, checkpoint_id, checkpoint) \
         VALUES ('uncommitted', '1', '{}')",
    )
    .unwrap();
    let out = toolmend(&["lint", "--format", "json", &db.url]);
    tx.rollback().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let threads: Vec<&str> = findings
        .iter()
        .map(|f| f["thread_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        threads,
        [
            "broken-crash",
            "broken-crash",
            "broken-stopped",
            "broken-stopped"
        ]
    );
    for f in &findings {
        assert_eq!(f["code"], "TM001");
        assert_eq!(f["store"], "langgraph-postgres");
        assert_eq!(f["message_index"], 1);
        assert!(f["fix"].is_null(), "lint only: {f}");
    }

    let detect = text(&toolmend(&["detect", &db.url]).stdout);
    assert!(
        detect.contains("(PostgreSQL database: langgraph-postgres)"),
        "{detect}"
    );
    assert!(detect.contains("thread paused") && detect.contains("paused on an interrupt"));

    let repair = toolmend(&["repair", "--in-place", &db.url]);
    assert_eq!(repair.status.code(), Some(2));
    assert!(text(&repair.stderr).contains("linted only"));
    assert_eq!(row_counts(&db.url), before);
}
