//! Fixture files under `fixtures/<set>/`, the shared corpus, and pinned expected outputs.
//! Expected outputs are pinned one way: a file next to the input (`NAME.lint`,
//! `NAME.repaired.<ext>`; for the command-line cases `tests/cmd/NAME.stdout`/`.stderr`), and
//! `TRYCMD=overwrite` (the trycmd switch, honoured here too) rewrites them all instead of
//! comparing: review their diff before committing.

use std::path::{Path, PathBuf};

/// The directory of a fixture set, e.g. `fixtures/anthropic`.
pub fn dir(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(set)
}

/// The bytes of fixture `name` of `set`.
pub fn read(set: &str, name: &str) -> Vec<u8> {
    std::fs::read(dir(set).join(name)).unwrap_or_else(|e| panic!("{set}/{name}: {e}"))
}

/// The files of `../shared/corpus/<dir>`, sorted; none when the corpus is not there.
pub fn corpus(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files
}

/// Every `.jsonl` file under `fixtures/` and the shared corpus (when it is there), sorted.
pub fn all_jsonl() -> Vec<PathBuf> {
    all_with_extensions(&["jsonl"])
}

/// Every file with one of `extensions` under `fixtures/` and the shared corpus (when it is
/// there), sorted.
pub fn all_with_extensions(extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, extensions, out);
            } else if p
                .extension()
                .is_some_and(|x| extensions.iter().any(|e| x == *e))
            {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("fixtures"), extensions, &mut files);
    walk(&root.join("../shared/corpus"), extensions, &mut files);
    files.sort();
    files
}

/// `<stem>.repaired.<ext>` next to `input`: the pinned output of its default repair.
pub fn repaired_path(input: &Path) -> PathBuf {
    let stem = input.file_stem().unwrap().to_string_lossy();
    let ext = input.extension().unwrap().to_string_lossy();
    input.with_file_name(format!("{stem}.repaired.{ext}"))
}

fn blessing() -> bool {
    std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite")
}

fn differs(what: &str, want: &[u8], got: &[u8]) -> String {
    format!(
        "{what} differs:\n--- want\n{}\n--- got\n{}",
        String::from_utf8_lossy(want),
        String::from_utf8_lossy(got)
    )
}

/// Compare `actual` with the pinned file `expected` (written first when blessing).
pub fn check_pinned(expected: &Path, actual: &[u8]) -> Result<(), String> {
    if blessing() {
        std::fs::write(expected, actual).unwrap();
    }
    let want = std::fs::read(expected).map_err(|e| format!("{}: {e}", expected.display()))?;
    match want == actual {
        true => Ok(()),
        false => Err(differs(&expected.display().to_string(), &want, actual)),
    }
}

/// [`check_pinned`], panicking on a difference.
pub fn pin(expected: &Path, actual: &[u8]) {
    check_pinned(expected, actual).unwrap_or_else(|e| panic!("{e}"));
}

/// Compare the default repair `output` of the fixture at `path` (whose bytes are `input`) with
/// its pinned `<stem>.repaired.<ext>`, or with `input` itself when that file does not exist:
/// the repair must then leave the file untouched. Blessing writes the file when the output
/// differs from the input, and removes it otherwise.
pub fn check_repair_pinned(path: &Path, input: &[u8], output: &[u8]) -> Result<(), String> {
    let expected = repaired_path(path);
    if blessing() {
        if output != input {
            std::fs::write(&expected, output).unwrap();
        } else if expected.exists() {
            std::fs::remove_file(&expected).unwrap();
        }
    }
    if expected.exists() {
        return check_pinned(&expected, output);
    }
    match output == input {
        true => Ok(()),
        false => Err(differs(
            &format!("{} (no {})", path.display(), expected.display()),
            input,
            output,
        )),
    }
}
