//! Pinned fixture runs: lint and repair a fixture through the library API, compare the output
//! byte for byte with its pinned expected file (see [`files`]), check the findings before and
//! after, and check that a second repair changes nothing.

use toolmend::RepairOptions;

use std::path::Path;

use super::api::{code_ids, codes, dialects, repair, repair_with};
use super::files;

/// Run one fixture of `set` through the default repair: its findings before and after must be
/// `before` and `after`, the output must equal `<stem>.repaired.<ext>` (or the input when that
/// file does not exist), with one placeholder per dangling call and none left dangling, and a
/// second repair must change nothing. Returns (input, output).
pub fn run(set: &str, file: &str, before: &[&str], after: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let path = files::dir(set).join(file);
    let input = files::read(set, file);
    assert_eq!(
        codes(file, &input),
        before,
        "{file}: findings before repair"
    );
    let fixed = repair(file, &input, &RepairOptions::default());
    let output = fixed.output;
    files::check_repair_pinned(&path, &input, &output).unwrap_or_else(|e| panic!("{e}"));
    let dangling = before.iter().filter(|c| **c == "TM001").count();
    assert_eq!(
        fixed.placeholders, dangling,
        "{file}: one placeholder per dangling call"
    );
    assert_eq!(codes(file, &output), after, "{file}: findings after repair");
    assert!(!codes(file, &output).contains(&"TM001"), "{file}");
    let again = repair(file, &output, &RepairOptions::default());
    assert!(
        again.output == output && again.placeholders == 0,
        "{file}: a second repair changed something"
    );
    (input, output)
}

/// A fixture of a table: (file, findings before repair, findings after, strict violations left
/// after repair, each given by its start).
pub type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

/// [`run`] every case of `set`: each fixture must be read as `dialect` only, and `strict` (a
/// checker of the provider's own rules, given the name and bytes) must find exactly the
/// violations the case leaves after repair, and some before it when there are findings.
pub fn run_cases(
    set: &str,
    dialect: &str,
    cases: &[Case],
    strict: impl Fn(&str, &[u8]) -> Vec<String>,
) {
    for &(file, before, after, left) in cases {
        let (input, output) = run(set, file, before, after);
        assert!(
            dialects(file, &input).iter().all(|d| *d == dialect),
            "{file}: not read as {dialect}"
        );
        let got = strict(file, &output);
        assert_eq!(got.len(), left.len(), "{file}: {got:#?}");
        for (g, want) in got.iter().zip(left) {
            assert!(g.starts_with(want), "{file}: `{g}` is not `{want}…`");
        }
        if !before.is_empty() {
            assert!(
                !strict(file, &input).is_empty(),
                "{file}: strict check missed it"
            );
        }
    }
}

/// Every input fixture of `set` (a `.json` or `.jsonl` log, not a pinned `*.repaired.*` file)
/// has a case.
pub fn assert_every_fixture_listed(set: &str, cases: &[Case]) {
    for entry in std::fs::read_dir(files::dir(set)).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let log = name.ends_with(".json") || name.ends_with(".jsonl");
        if log && !name.contains(".repaired.") {
            assert!(cases.iter().any(|c| c.0 == name), "{name} has no case");
        }
    }
}

/// Repair fixture `name` of `set` with `options`: the repair must change something, its output
/// must equal the pinned fixture `expected`, a second repair must change nothing, and no call
/// may be left dangling. Returns the output.
pub fn run_as(set: &str, name: &str, expected: &str, options: &RepairOptions) -> Vec<u8> {
    let input = files::read(set, name);
    let out = repair_with(name, &input, options);
    assert_ne!(out, input, "{name}: the repair changed nothing");
    files::pin(&files::dir(set).join(expected), &out);
    assert_eq!(
        repair_with(name, &out, options),
        out,
        "{name}: a second repair changed the output"
    );
    let left = codes(name, &out);
    assert!(
        !left.contains(&"TM001"),
        "{name}: dangling calls left after repair: {left:?}"
    );
    out
}

/// Repair fixture `name` of `set` by default: the output must equal the fixture `expected`,
/// or the input when none is given, and a second repair must change nothing. Returns the
/// output.
pub fn check_repair(set: &str, name: &str, expected: Option<&str>) -> Vec<u8> {
    let input = files::read(set, name);
    let out = repair_with(name, &input, &RepairOptions::default());
    match expected {
        Some(e) => files::pin(&files::dir(set).join(e), &out),
        None => assert_eq!(out, input, "{name}: repair changed a file it must keep"),
    }
    assert_eq!(
        repair_with(name, &out, &RepairOptions::default()),
        out,
        "{name}: repair is not idempotent"
    );
    out
}

/// Fixture `name` of `set` has the findings `before` (`CODE call-id`), and its default repair
/// equals `<stem>.repaired.<ext>` (see [`check_repair`]) and has no findings left. Returns
/// the output.
pub fn check_fix(set: &str, name: &str, before: &[&str]) -> Vec<u8> {
    assert_eq!(code_ids(name, &files::read(set, name)), before, "{name}");
    let expected = files::repaired_path(Path::new(name));
    let out = check_repair(set, name, Some(&expected.to_string_lossy()));
    let left = code_ids(name, &out);
    assert!(left.is_empty(), "{name}: {left:?} after repair");
    out
}

/// Fixture `name` of `set` has the findings `before` (`CODE call-id`) and the default repair
/// leaves it untouched (see [`check_repair`]). Returns its bytes.
pub fn check_kept(set: &str, name: &str, before: &[&str]) -> Vec<u8> {
    let input = files::read(set, name);
    assert_eq!(code_ids(name, &input), before, "{name}");
    check_repair(set, name, None);
    input
}
