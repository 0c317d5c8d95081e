//! OpenCode and Kilo session databases, written by the real apps (`opencode import`, `kilo
//! import`) and read back by them (`export`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use toolmend::store::opencode::ABORTED;

use super::support::{app, changed, detect, dump, fixture, lint, repair};

fn env(cmd: &mut Command, home: &Path) {
    for (k, v) in [
        ("HOME", String::new()),
        ("XDG_DATA_HOME", "/data".into()),
        ("XDG_CONFIG_HOME", "/config".into()),
        ("XDG_CACHE_HOME", "/cache".into()),
        ("XDG_STATE_HOME", "/state".into()),
    ] {
        cmd.env(k, format!("{}{v}", home.display()));
    }
    // No start-up fetch (model catalogue, updates, plugins, sharing): nothing leaves the machine.
    for app in ["OPENCODE", "KILO"] {
        for flag in [
            "AUTOUPDATE",
            "MODELS_FETCH",
            "SHARE",
            "LSP_DOWNLOAD",
            "DEFAULT_PLUGINS",
            "EXTERNAL_SKILLS",
            "PRESENCE",
            "SESSION_INGEST",
        ] {
            cmd.env(format!("{app}_DISABLE_{flag}"), "1");
        }
    }
    cmd.env("KILO_TELEMETRY_LEVEL", "off");
}

/// Generate the sessions with the app; the database path.
fn generate(binary: &Path, home: &Path, project: &Path, db: &str) -> PathBuf {
    let status = Command::new("python3")
        .arg(fixture("opencode.py"))
        .args([binary, home, project])
        .status()
        .unwrap();
    assert!(status.success());
    home.join("data").join(db)
}

fn export(binary: &Path, home: &Path, project: &Path, session: &str) -> Value {
    let mut cmd = Command::new(binary);
    cmd.args(["export", session]).current_dir(project);
    env(&mut cmd, home);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find('{').expect("export prints JSON");
    serde_json::from_str(&text[start..]).unwrap()
}

fn check(binary: &str, db: &str, name: &str) {
    let Some(binary) = app(binary) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    let db = generate(&binary, &home, &project, db);
    assert_eq!(detect(&db), name);
    // The running part of the dead run and the pending one; not the healthy, live (last
    // message) or background ones.
    assert_eq!(lint(&db), ["TM001 call_rd fix", "TM001 call_wr fix"]);

    let before = dump(&db);
    let written = repair(&db);
    let after = dump(&db);
    let rowid = |id: &str| {
        before["part"]
            .iter()
            .find(|(_, v)| v[0] == format!("Text({id:?})"))
            .map(|(k, _)| ("part".to_string(), k.clone()))
            .unwrap()
    };
    assert_eq!(
        changed(&before, &after),
        [rowid("prt_b02b"), rowid("prt_p02a")]
    );
    assert_eq!((written.placeholders, written.rows), (2, 2));
    // Only `data` (the state) and `time_updated` of those rows.
    for (_, k) in changed(&before, &after) {
        let (b, a) = (&before["part"][&k], &after["part"][&k]);
        assert_eq!((&b[..4], b[4] != a[4]), (&a[..4], true), "{b:?} {a:?}");
    }
    assert!(lint(&db).is_empty());
    assert!(repair(&db).rows == 0, "a second repair changes nothing");

    // The app reads the repaired part back as an aborted tool.
    let exported = export(&binary, &home, &project, "ses_broken");
    let part = exported["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .find(|p| p["callID"] == "call_rd")
        .unwrap()
        .clone();
    assert_eq!(part["state"]["status"], "error");
    assert_eq!(part["state"]["error"], ABORTED);
    assert_eq!(part["state"]["metadata"]["interrupted"], true);
    assert_eq!(part["state"]["metadata"]["preview"], "[server]");
    assert_eq!(
        part["state"]["input"]["filePath"],
        "/work/project/config.toml"
    );
}

#[test]
fn opencode_parts_left_in_flight_are_marked_aborted() {
    check(
        "npm-apps/node_modules/opencode-linux-x64/bin/opencode",
        "opencode/opencode.db",
        "opencode",
    );
}

#[test]
fn kilo_parts_left_in_flight_are_marked_aborted() {
    check(
        "npm-apps/node_modules/@kilocode/cli-linux-x64/bin/kilo",
        "kilo/kilo.db",
        "kilo",
    );
}
