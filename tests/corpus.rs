//! The public logs in `../shared/corpus` (skipped when that folder is absent): nothing panics,
//! and the safe repair keeps every byte of every file. The OpenAI-chat and LangChain files are
//! clean as far as auto-detection reaches (SOURCES.tsv: their only defects sit in a replay
//! fixture whose messages are nested where only `--at` finds them), so they lint clean and are
//! left untouched.

mod common;

use std::path::Path;

use common::*;

fn corpus() -> Option<Vec<std::path::PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let dirs = std::fs::read_dir(&root).ok()?;
    let mut files = Vec::new();
    for d in dirs.flatten().filter(|d| d.path().is_dir()) {
        files.extend(
            std::fs::read_dir(d.path())
                .ok()?
                .flatten()
                .map(|f| f.path()),
        );
    }
    files.sort();
    Some(files)
}

#[test]
fn corpus_files_are_read_without_loss() {
    let Some(files) = corpus() else {
        eprintln!("skipped: ../shared/corpus is not there");
        return;
    };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.to_string_lossy();
        let a = analyse(&name, &bytes);
        let r = repair(&bytes, &a);
        if !needs_moves(&a) {
            assert!(is_subsequence(&bytes, &r.output), "{name}");
        }
        let again = analyse(&name, &r.output);
        assert!(!repair(&r.output, &again).changed, "{name}: not idempotent");
        let dir = path.parent().unwrap().file_name().unwrap();
        if dir == "openai-chat" || dir == "langchain" {
            assert!(
                codes(&name, &a).is_empty(),
                "{name}: {:?}",
                codes(&name, &a)
            );
            assert!(!r.changed, "{name}");
        }
    }
}

#[test]
fn the_replay_fixture_dangles_where_at_points() {
    let Some(files) = corpus() else {
        eprintln!("skipped: ../shared/corpus is not there");
        return;
    };
    let Some(path) = files
        .iter()
        .find(|p| p.to_string_lossy().ends_with("write_read_file.ultra.json"))
    else {
        eprintln!("skipped: the replay fixture is not in the corpus");
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let options = toolmend::lint::LintOptions {
        read: toolmend::read::ReadOptions {
            at: Some("/turns/*/output".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let a = toolmend::lint::analyse("replay.json", &bytes, &options);
    // SOURCES.tsv: dangling=2, by design (only model outputs were recorded).
    assert_eq!(codes("replay.json", &a), ["TM001", "TM001"]);
    // Messages gathered by --at are analysed, never rewritten.
    assert!(!repair(&bytes, &a).changed);
}
