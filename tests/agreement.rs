//! `lint` and `repair` agree, for every target: on every fixture (top-level `fixtures/`,
//! `tests/fixtures/`, and the shared corpus when it is there), judged by each provider's rules,
//! the findings `lint` offers a safe fix for are exactly the ones the default `repair` fixes,
//! so `repair --check` fails exactly when `lint` reports something `repair` would fix. A
//! document without such a finding comes back byte for byte, and after a repair no finding
//! with a safe fix is left.

pub mod common;

use std::path::{Path, PathBuf};

use toolmend::{Applicability, Options, Provider, RepairOptions};

/// Every target, and no target (each dialect's own provider).
const TARGETS: [Option<Provider>; 6] = [
    None,
    Some(Provider::OpenAi),
    Some(Provider::DeepSeek),
    Some(Provider::Anthropic),
    Some(Provider::Gemini),
    Some(Provider::Bedrock),
];

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            collect(&p, out);
        } else if !name.contains(".repaired.")
            && [".json", ".jsonl", ".ndjson", ".traj"]
                .iter()
                .any(|x| name.ends_with(x))
        {
            out.push(p);
        }
    }
}

fn safe_fixes(name: &str, bytes: &[u8], options: &Options) -> usize {
    toolmend::lint(name, bytes, options)
        .iter()
        .filter(|f| f.fix.as_ref().map(|x| x.applicability) == Some(Applicability::Safe))
        .count()
}

#[test]
fn lint_and_repair_agree_on_every_fixture_for_every_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["fixtures", "tests/fixtures", "../shared/corpus"] {
        collect(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 100, "only {} fixtures", files.len());
    let mut failures = Vec::new();
    let mut with_fixes = 0;
    for path in &files {
        let name = path.to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        for target in TARGETS {
            let options = Options {
                target,
                ..Options::default()
            };
            let analysed = toolmend::analyse(&name, &bytes, &options);
            let safe = safe_fixes(&name, &bytes, &options);
            let repaired = analysed.repair(&bytes, &RepairOptions::default());
            let fixed = repaired.fixed.iter().map(Vec::len).sum::<usize>() + repaired.fixed_later;
            let left = safe_fixes(&name, &repaired.output, &options);
            with_fixes += usize::from(safe > 0);
            let why = if repaired.changed != (safe > 0) {
                Some(format!(
                    "changed {} with {safe} safe fixes",
                    repaired.changed
                ))
            } else if safe == 0 && repaired.output != bytes {
                Some("a document without safe fixes changed".into())
            } else if fixed != safe {
                Some(format!(
                    "lint offers {safe} safe fixes, repair made {fixed}"
                ))
            } else if left > 0 {
                Some(format!("{left} safe fixes left after repair"))
            } else {
                None
            };
            if let Some(why) = why {
                failures.push(format!("{name} (target {target:?}): {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(with_fixes > 100, "only {with_fixes} cases with a safe fix");
}
