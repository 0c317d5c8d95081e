//! Safe writes: `--in-place` and `-o` through the binary, and `toolmend::io::write` directly
//! for what the binary cannot be made to do on cue (a file changing under it).

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

use toolmend::io::{Error, inputs, write};

pub mod common;

use common::bin::{BIN, run};

const DANGLING: &str = "{\"role\":\"user\",\"content\":\"go\"}\n{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\"}}]}\n";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn set_mode(p: &Path, m: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
}

/// No temporary file left behind in `dir`.
fn no_leftovers(dir: &Path) {
    let left: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".toolmend-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

fn running_as_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[test]
fn in_place_keeps_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.jsonl");
    fs::write(&p, DANGLING).unwrap();
    set_mode(&p, 0o640);
    let o = run(dir.path(), &["repair", "--in-place", "log.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(mode(&p), 0o640);
    let now = fs::read_to_string(&p).unwrap();
    assert!(now.starts_with(DANGLING) && now.contains("\"tool_call_id\":\"c1\""));
    no_leftovers(dir.path());
}

#[test]
fn in_place_leaves_a_clean_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("clean.jsonl");
    fs::write(&p, "{\"role\":\"user\",\"content\":\"hi\"}\n").unwrap();
    let before = fs::metadata(&p).unwrap();
    let o = run(dir.path(), &["repair", "--in-place", "clean.jsonl"]);
    assert_eq!(o.status.code(), Some(0));
    let after = fs::metadata(&p).unwrap();
    assert_eq!(
        (before.ino(), before.mtime_nsec()),
        (after.ino(), after.mtime_nsec())
    );
}

#[test]
fn a_file_changed_after_reading_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("live.jsonl");
    fs::write(&p, DANGLING).unwrap();
    let input = inputs::Input {
        name: "live.jsonl".into(),
        path: Some(p.clone()),
        walked: false,
        session: None,
    };
    let original = inputs::load(&input).unwrap();
    // The agent appends a line (same length edits are caught too: the bytes are compared).
    let appended =
        format!("{DANGLING}{{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"late\"}}\n");
    fs::write(&p, &appended).unwrap();
    let err = write::in_place(&p, &original, b"repaired", None).unwrap_err();
    assert!(matches!(err, Error::Changed(_)), "{err}");
    assert!(
        err.to_string()
            .contains("changed while toolmend was working on it")
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), appended);
    no_leftovers(dir.path());

    // Same length, same size: still noticed.
    let same_size = DANGLING.replace("go", "GO");
    fs::write(&p, &same_size).unwrap();
    let err = write::in_place(&p, DANGLING.as_bytes(), b"repaired", None).unwrap_err();
    assert!(matches!(err, Error::Changed(_)), "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), same_size);
}

#[test]
fn a_read_only_file_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("ro.jsonl");
    fs::write(&p, DANGLING).unwrap();
    set_mode(&p, 0o444);
    let o = run(dir.path(), &["repair", "--in-place", "ro.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("ro.jsonl: the file is read-only; not rewritten"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), DANGLING);
    assert_eq!(mode(&p), 0o444);
}

#[test]
fn a_read_only_directory_is_refused_clearly() {
    if running_as_root() {
        eprintln!("running as root: a 0555 directory is still writable; sub-case skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("ro");
    fs::create_dir(&sub).unwrap();
    let p = sub.join("log.jsonl");
    fs::write(&p, DANGLING).unwrap();
    set_mode(&sub, 0o555);
    let o = run(dir.path(), &["repair", "--in-place", "ro/log.jsonl"]);
    set_mode(&sub, 0o755);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot create a temporary file in this directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), DANGLING);
}

#[test]
fn a_symlink_is_followed_and_its_target_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("store")).unwrap();
    let real = dir.path().join("store/real.jsonl");
    fs::write(&real, DANGLING).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("store/real.jsonl", &link).unwrap();
    let o = run(
        dir.path(),
        &["repair", "--in-place", "--backup", ".bak", "link.jsonl"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(
        fs::read_to_string(&real)
            .unwrap()
            .contains("\"tool_call_id\":\"c1\"")
    );
    // The backup sits next to the file that was rewritten.
    assert_eq!(
        fs::read_to_string(dir.path().join("store/real.jsonl.bak")).unwrap(),
        DANGLING
    );
}

#[test]
fn backup_keeps_the_original_with_its_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.jsonl");
    fs::write(&p, DANGLING).unwrap();
    set_mode(&p, 0o600);
    let o = run(
        dir.path(),
        &["repair", "--in-place", "--backup", ".orig", "log.jsonl"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let backup = dir.path().join("log.jsonl.orig");
    assert_eq!(fs::read_to_string(&backup).unwrap(), DANGLING);
    assert_eq!(mode(&backup), 0o600);
    assert_ne!(fs::read_to_string(&p).unwrap(), DANGLING);
    // --backup without --in-place is a usage error.
    let o = run(dir.path(), &["repair", "--backup", ".x", "log.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn owner_is_kept_when_root_rewrites_someone_elses_file() {
    if !running_as_root() {
        eprintln!("not root: cannot give a file away; sub-case skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("theirs.jsonl");
    fs::write(&p, DANGLING).unwrap();
    std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
    write::in_place(&p, DANGLING.as_bytes(), b"new", None).unwrap();
    let m = fs::metadata(&p).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65534));
}

#[test]
fn output_file_gets_ordinary_permissions() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.jsonl"), DANGLING).unwrap();
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("umask 022; {BIN} repair in.jsonl -o out.jsonl"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Not the 0600 of a temporary file.
    assert_eq!(mode(&dir.path().join("out.jsonl")), 0o644);
}

#[test]
fn a_failed_write_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = DANGLING.repeat(2000);
    fs::write(dir.path().join("in.jsonl"), &big).unwrap();
    fs::write(dir.path().join("old.jsonl"), "old content\n").unwrap();
    // A file-size limit of 1 KiB makes every longer write fail half way (EFBIG; the signal
    // that would otherwise kill the process is ignored).
    for args in [
        "in.jsonl -o out.jsonl",
        "in.jsonl -o old.jsonl",
        "--in-place in.jsonl",
    ] {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "trap '' XFSZ; ulimit -f 1; exec {BIN} repair {args}"
            ))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write a temporary file"),
            "{args}: {}",
            stderr(&o)
        );
        no_leftovers(dir.path());
    }
    assert!(!dir.path().join("out.jsonl").exists());
    assert_eq!(
        fs::read_to_string(dir.path().join("old.jsonl")).unwrap(),
        "old content\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("in.jsonl")).unwrap(),
        big
    );
}

#[test]
fn output_to_a_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.jsonl"), DANGLING).unwrap();
    fs::create_dir(dir.path().join("target")).unwrap();
    let o = run(dir.path(), &["repair", "in.jsonl", "-o", "target"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("target: cannot replace the file"),
        "{}",
        stderr(&o)
    );
    no_leftovers(dir.path());
    // And -o with an input that cannot be read creates nothing.
    let o = run(dir.path(), &["repair", "missing.jsonl", "-o", "new.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.path().join("new.jsonl").exists());
}

#[test]
fn in_place_refuses_standard_input_and_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &["repair", "--in-place", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--in-place cannot rewrite standard input"));
    let err = write::in_place(Path::new("/dev/null"), b"", b"x", None).unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
}

#[test]
fn a_staged_file_is_not_put_over_a_file_that_changed() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("live.jsonl");
    fs::write(&p, DANGLING).unwrap();
    let stamp = write::Stamp::of(&p).unwrap();
    // The agent appends a line while the repair streams.
    fs::OpenOptions::new()
        .append(true)
        .open(&p)
        .unwrap()
        .write_all(b"{\"role\":\"user\",\"content\":\"more\"}\n")
        .unwrap();
    let appended = fs::read_to_string(&p).unwrap();
    let mut staged = write::Staged::next_to(&p).unwrap();
    staged.file().write_all(b"repaired\n").unwrap();
    let err = staged.replace(&p, &stamp, None, Some(".bak")).unwrap_err();
    assert!(matches!(err, Error::Changed(_)), "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), appended);
    assert!(!dir.path().join("live.jsonl.bak").exists());
    no_leftovers(dir.path());

    // Unchanged: replaced, with the original kept as the backup and its permissions.
    set_mode(&p, 0o640);
    let stamp = write::Stamp::of(&p).unwrap();
    let mut staged = write::Staged::next_to(&p).unwrap();
    staged.file().write_all(b"repaired\n").unwrap();
    staged.replace(&p, &stamp, None, Some(".bak")).unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "repaired\n");
    assert_eq!(
        fs::read_to_string(dir.path().join("live.jsonl.bak")).unwrap(),
        appended
    );
    assert_eq!(mode(&p), 0o640);
    assert_eq!(mode(&dir.path().join("live.jsonl.bak")), 0o640);
    no_leftovers(dir.path());
}

#[cfg(unix)]
#[test]
fn a_change_that_keeps_length_and_modification_time_is_still_seen() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("live.jsonl");
    fs::write(&p, DANGLING).unwrap();
    let staged_over = |stamp: &write::Stamp| {
        let mut staged = write::Staged::next_to(&p).unwrap();
        staged.file().write_all(b"repaired\n").unwrap();
        staged.replace(&p, stamp, None, None)
    };

    // Rewritten in place with bytes of the same length, its modification time set back.
    let stamp = write::Stamp::of(&p).unwrap();
    let was = fs::metadata(&p).unwrap().modified().unwrap();
    let same_length = DANGLING.replace("user", "USER");
    assert_eq!(same_length.len(), DANGLING.len());
    let file = fs::OpenOptions::new().write(true).open(&p).unwrap();
    (&file).write_all(same_length.as_bytes()).unwrap();
    file.set_modified(was).unwrap();
    drop(file);
    assert_eq!(fs::metadata(&p).unwrap().modified().unwrap(), was);
    let err = staged_over(&stamp).unwrap_err();
    assert!(matches!(err, Error::Changed(_)), "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), same_length);

    // Saved by renaming a new file over it, with the same length and modification time.
    let stamp = write::Stamp::of(&p).unwrap();
    let was = fs::metadata(&p).unwrap().modified().unwrap();
    let saved = dir.path().join("live.jsonl.new");
    fs::write(&saved, DANGLING).unwrap();
    fs::File::options()
        .write(true)
        .open(&saved)
        .unwrap()
        .set_modified(was)
        .unwrap();
    fs::rename(&saved, &p).unwrap();
    let err = staged_over(&stamp).unwrap_err();
    assert!(matches!(err, Error::Changed(_)), "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), DANGLING);
    no_leftovers(dir.path());
}

/// Run `toolmend repair IN -o FIFO` in `dir` while another thread reads the named pipe; what the
/// pipe gave, and the command's output.
fn repair_into_a_pipe(dir: &Path, input: &str) -> (Vec<u8>, Output) {
    let fifo = dir.join("out.pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let o = run(dir, &["repair", input, "-o", "out.pipe"]);
    // Checked before waiting for the reader, which a replaced pipe would leave waiting.
    assert!(
        fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
        "the named pipe was replaced by a file: {}",
        stderr(&o)
    );
    let got = reader.join().unwrap();
    fs::remove_file(&fifo).unwrap();
    (got, o)
}

#[test]
fn output_into_a_device_or_a_pipe_writes_into_it_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.jsonl"), DANGLING).unwrap();
    let doc = format!(
        "{{\"messages\":[{}]}}",
        DANGLING.trim_end().replace('\n', ",")
    );
    fs::write(dir.path().join("in.json"), &doc).unwrap();
    // A JSON Lines file is repaired as a stream; a document whole: both paths write into the
    // pipe what they print on standard output, and leave it a pipe.
    for input in ["in.jsonl", "in.json"] {
        let printed = run(dir.path(), &["repair", input]);
        assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
        let (got, o) = repair_into_a_pipe(dir.path(), input);
        assert_eq!(o.status.code(), Some(0), "{input}: {}", stderr(&o));
        assert_eq!(got, printed.stdout, "{input}");
    }
    // `-o /dev/null` succeeds and leaves it the device it was (renaming a temporary file over
    // it replaced it with a regular file when run as root, and failed for anyone else).
    let o = run(dir.path(), &["repair", "in.jsonl", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    no_leftovers(dir.path());
}
