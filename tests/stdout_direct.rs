//! `repair` writes a streamed repair straight into standard output when standard output can
//! take it back (a regular file at its end, or `/dev/null`), and through a temporary file
//! otherwise (a pipe). Either way the bytes are those of the whole-file repair, also when the
//! stream gives up half way and the file is repaired whole, and a failed write leaves nothing.

pub mod common;

use std::fs;
use std::io::{self, BufRead};
use std::process::{Command, Output};

use common::bin::BIN;
use toolmend::{DuplicatePolicy, NotStreamed, Options as LintOptions, RepairOptions};

/// The end of a log whose duplicate results, kept last, collide in one answer window.
const COLLIDING_TAIL: &str = concat!(
    "{\"type\":\"human\",\"data\":{\"content\":\"start\"}}\n",
    "{\"type\":\"ai\",\"data\":{\"content\":\"\",\"tool_calls\":[{\"name\":\"look\",\"args\":{},\"id\":\"k1\",\"type\":\"tool_call\"}]}}\n",
    "{\"type\":\"human\",\"data\":{\"content\":\"and then\"}}\n",
    "{\"type\":\"ai\",\"data\":{\"content\":\"\",\"tool_calls\":[{\"name\":\"look\",\"args\":{},\"id\":\"k1\",\"type\":\"tool_call\"}]}}\n",
    "{\"type\":\"tool\",\"data\":{\"content\":\"seen\",\"tool_call_id\":\"k1\",\"name\":\"look\",\"status\":\"success\"}}\n",
    "{\"type\":\"tool\",\"data\":{\"content\":\"seen\",\"tool_call_id\":\"k1\",\"name\":\"look\",\"status\":\"success\"}}\n",
    "{\"type\":\"human\",\"data\":{\"content\":\"later\"}}\n",
    "{\"type\":\"tool\",\"data\":{\"content\":\"seen\",\"tool_call_id\":\"k1\",\"name\":\"look\",\"status\":\"success\"}}\n",
);

/// A log whose duplicate results, kept last, collide in one answer window: the stream writes
/// its first lines (more than the 64 KiB it writes at once), then gives up and the file is
/// repaired whole.
fn colliding() -> String {
    let before: String = (0..1200)
        .map(|i| format!("{{\"type\":\"human\",\"data\":{{\"content\":\"line {i:04} before the fixes, written first\"}}}}\n"))
        .collect();
    before + COLLIDING_TAIL
}

const FLAGS: &str = "--duplicates keep-last --mark-synthetic";

fn keep_last() -> RepairOptions {
    RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepLast),
        mark_synthetic: true,
        ..RepairOptions::default()
    }
}

fn sh(dir: &std::path::Path, script: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("BIN", BIN)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn the_log_really_gives_up_after_writing() {
    // The premise of the tests below: the stream has written part of the output when it
    // refuses, so direct output must be taken back.
    let text = colliding();
    let bytes = text.as_bytes();
    let open = || -> io::Result<Box<dyn BufRead + '_>> { Ok(Box::new(bytes)) };
    let mut out = Vec::new();
    let r = toolmend::stream_lines(
        "l.jsonl",
        &open,
        &LintOptions::default(),
        &keep_last(),
        &mut out,
    );
    assert!(matches!(r, Err(NotStreamed::Whole(_))), "{r:?}");
    assert!(!out.is_empty());
}

#[test]
fn a_file_a_pipe_and_dev_null_get_the_whole_file_repair() {
    let dir = tempfile::tempdir().unwrap();
    let collide = colliding();
    let whole = toolmend::repair(
        "l.jsonl",
        collide.as_bytes(),
        &LintOptions::default(),
        &keep_last(),
    );
    assert!(whole.changed);
    for (name, text) in [
        ("collide.jsonl", collide.as_str()),
        (
            "dangling.jsonl",
            "{\"role\":\"user\",\"content\":\"go\"}\n{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\"}}]}\n",
        ),
    ] {
        fs::write(dir.path().join(name), text).unwrap();
        let to_file = sh(
            dir.path(),
            &format!("\"$BIN\" repair {FLAGS} {name} > out.jsonl"),
        );
        let piped = sh(dir.path(), &format!("\"$BIN\" repair {FLAGS} {name} | cat"));
        let null = sh(
            dir.path(),
            &format!("\"$BIN\" repair {FLAGS} {name} > /dev/null"),
        );
        let prefixed = sh(
            dir.path(),
            &format!("{{ printf 'kept\\n'; \"$BIN\" repair {FLAGS} {name}; }} > pre.jsonl"),
        );
        for o in [&to_file, &piped, &null, &prefixed] {
            assert_eq!(
                o.status.code(),
                Some(0),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let file = fs::read(dir.path().join("out.jsonl")).unwrap();
        assert_eq!(file, piped.stdout, "{name}");
        assert_eq!(
            fs::read(dir.path().join("pre.jsonl")).unwrap(),
            [b"kept\n".as_slice(), &file].concat(),
            "{name}"
        );
        if name == "collide.jsonl" {
            assert_eq!(file, whole.output);
        }
    }
}

#[test]
fn a_failed_write_to_a_file_leaves_what_was_there_before() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..400)
        .map(|i| format!("{{\"role\":\"user\",\"content\":\"turn {i}\"}}\n{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"c{i}\",\"function\":{{\"name\":\"f\"}}}}]}}\n"))
        .collect();
    fs::write(dir.path().join("in.jsonl"), big).unwrap();
    // A file-size limit of 8 KiB makes the write fail part way (EFBIG; the signal that would
    // otherwise kill the process is ignored).
    let o = sh(
        dir.path(),
        "trap '' XFSZ; ulimit -f 8; { printf 'kept\\n'; exec \"$BIN\" repair in.jsonl; } > out.jsonl",
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("out.jsonl")).unwrap(),
        "kept\n"
    );
}
