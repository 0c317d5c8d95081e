//! Many files on many threads: what is printed and written is the same as with one thread.

pub mod common;

use std::path::Path;

use common::bin;

/// Every fixture directory at once, so there are many inputs with findings, errors and
/// clean files mixed.
fn fixtures() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn same_on(args: &[&str]) {
    let one = bin::run(fixtures(), &[args, &["-j", "1"]].concat());
    for threads in ["2", "4", "0"] {
        let many = bin::run(fixtures(), &[args, &["-j", threads]].concat());
        assert_eq!(
            one.status.code(),
            many.status.code(),
            "{args:?} -j {threads}: exit status"
        );
        assert!(
            one.stdout == many.stdout,
            "{args:?} -j {threads}: standard output differs"
        );
        assert!(
            one.stderr == many.stderr,
            "{args:?} -j {threads}: standard error differs"
        );
    }
    assert!(!one.stdout.is_empty(), "{args:?}: nothing printed");
}

#[test]
fn lint_is_the_same_on_every_thread_count() {
    same_on(&["lint", "fixtures"]);
    same_on(&["lint", "--format", "json", "fixtures"]);
    same_on(&["lint", "--statistics", "fixtures"]);
}

#[test]
fn repair_is_the_same_on_every_thread_count() {
    same_on(&["repair", "--diff", "fixtures"]);
}

#[test]
fn in_place_repairs_the_same_files_on_every_thread_count() {
    let tree = |threads: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        for (i, entry) in std::fs::read_dir(fixtures().join("fixtures/openai-chat"))
            .expect("fixtures")
            .enumerate()
        {
            let path = entry.expect("entry").path();
            if path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl")
            {
                std::fs::copy(
                    &path,
                    dir.path().join(format!(
                        "{i:03}-{}",
                        path.file_name().unwrap().to_string_lossy()
                    )),
                )
                .expect("copy");
            }
        }
        let out = bin::run(dir.path(), &["repair", "--in-place", "-j", threads, "."]);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
            .expect("read back")
            .map(|e| {
                let p = e.expect("entry").path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).expect("file"),
                )
            })
            .collect();
        files.sort();
        (out.status.code(), out.stderr, files)
    };
    let one = tree("1");
    assert!(one.2.len() > 5, "too few fixtures copied");
    assert_eq!(one, tree("3"));
}

#[test]
fn no_progress_bar_when_standard_error_is_not_a_terminal() {
    let out = bin::run(fixtures(), &["lint", "fixtures"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("files"));
}
