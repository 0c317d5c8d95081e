//! pydantic-ai dumps written by the real library (pydantic-ai-slim, pinned in
//! `tests/python/pydantic-ai-requirements.txt`, installed by `.ci/pydantic-ai.sh` into
//! `target/venvs/pydantic-ai`): toolmend's verdict on each dump is what pydantic-ai does when it
//! sends it. The script checks what pydantic-ai sent (cut-off calls closed, an orphan dropped,
//! a duplicate result sent as it is); here toolmend must find nothing in the dumps pydantic-ai
//! heals, report the duplicate, and leave every dump byte-identical.
//!
//! Without the virtual environment the test is skipped, except under CI (`CI` set), where it
//! fails: CI must not pass on a test it never ran.

use std::path::Path;
use std::process::Command;

pub mod common;

use common::api::{code_ids, dialects, repaired};

#[test]
fn verdicts_match_what_pydantic_ai_sends() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/venvs/pydantic-ai/bin/python");
    if !python.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is missing: run .ci/pydantic-ai.sh",
            python.display()
        );
        return;
    }
    let out = std::env::temp_dir().join(format!("toolmend-pydantic-ai-{}", std::process::id()));
    let run = Command::new(&python)
        .arg(root.join("tests/python/pydantic_ai_dumps.py"))
        .arg(&out)
        .output()
        .expect("run the pydantic-ai script");
    assert!(
        run.status.success(),
        "pydantic-ai script failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected: [(&str, &[&str]); 4] = [
        ("complete", &[]),
        ("cut-off", &[]),
        ("orphan", &[]),
        ("duplicate", &["TM004 call_a"]),
    ];
    for (case, want) in expected {
        let name = format!("{case}.json");
        let bytes = std::fs::read(out.join(&name)).unwrap();
        assert_eq!(dialects(&name, &bytes), ["pydantic-ai"], "{case}");
        assert_eq!(code_ids(&name, &bytes), want, "{case}");
        assert!(
            repaired(&name, &bytes) == bytes,
            "{case}: repair changed it"
        );
    }
    std::fs::remove_dir_all(&out).ok();
}
