//! Fuzzing under `cargo test`: arbitrary bytes, and valid logs mutated byte by byte, through
//! every reading mode, the analysis, all renderers and the repair (safe and unsafe policies).
//! Nothing may panic; the safe repair of an input with no safely fixable finding gives the
//! input back unchanged, and otherwise only inserts (when nothing has to move) and reaches a
//! fixed point.
//!
//! A few hundred cases run by default; `TOOLMEND_FUZZ_CASES=200000` (with `--release`) is the
//! longer bounded run for CI.

pub mod common;

use common::generate::*;
use proptest::prelude::*;
use toolmend::Applicability;
use toolmend::Options as LintOptions;
use toolmend::render::{self, Totals};
use toolmend::{DuplicatePolicy, OrphanPolicy, RepairOptions};
use toolmend::{Format, ReadOptions};

fn fuzz_cases(default: u32) -> u32 {
    std::env::var("TOOLMEND_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Pieces worth splicing into JSON: structure, escapes, Python's extensions, line ends, a BOM,
/// invalid UTF-8, and the keys toolmend looks at.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud83d",
    b"NaN",
    b"-Infinity",
    b"\n",
    b"\r\n",
    b"\xEF\xBB\xBF",
    b"\xff\xfe",
    b"\x1b[31m",
    b"\"tool_call_id\":\"call_0\"",
    b"{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"x\"}",
    b"\"tool_calls\":[{\"id\":\"call_0\"}]",
    b"{\"type\":\"ai\",\"data\":{\"content\":\"\",\"tool_calls\":[{\"id\":\"call_2\",\"name\":\"f\"}]}}",
    b"\"messages\":",
    b"null",
];

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, usize),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Flip(a, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 1usize..80).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ];
    prop::collection::vec(one, 1..6)
}

fn mutate(mut b: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let at = |x: usize, len: usize| if len == 0 { 0 } else { x % (len + 1) };
        match *m {
            Mutation::Flip(x, v) if !b.is_empty() => {
                let i = x % b.len();
                b[i] = v;
            }
            Mutation::Insert(x, t) => {
                let i = at(x, b.len());
                b.splice(i..i, TOKENS[t].iter().copied());
            }
            Mutation::Delete(x, n) => {
                let i = at(x, b.len());
                let end = (i + n).min(b.len());
                b.drain(i..end);
            }
            Mutation::Duplicate(x, n) => {
                let i = at(x, b.len());
                let end = (i + n).min(b.len());
                let piece = b[i..end].to_vec();
                b.splice(end..end, piece);
            }
            Mutation::Truncate(x) => {
                let i = at(x, b.len());
                b.truncate(i);
            }
            _ => {}
        }
    }
    b
}

/// The ways of reading a document the command line offers.
fn read_modes() -> Vec<(&'static str, LintOptions)> {
    let with = |format: Option<Format>, dialect: Option<&str>, at: Option<&str>| {
        let mut read = ReadOptions {
            format,
            dialect: None,
            at: at.map(str::to_string),
            max_line_bytes: 64 * 1024 * 1024,
        };
        if let Some(name) = dialect {
            assert!(toolmend::force_dialect(&mut read, name), "{name}");
        }
        LintOptions {
            read,
            ..LintOptions::default()
        }
    };
    let mut modes = vec![
        ("log.json", with(None, None, None)),
        ("log.jsonl", with(None, None, None)),
        ("-", with(None, None, None)),
        ("log", with(Some(Format::Lines), Some("langchain"), None)),
        ("log", with(Some(Format::Json), Some("openai-chat"), None)),
        ("log.json", with(None, None, Some("/*"))),
        ("log.json", with(None, None, Some("/messages"))),
    ];
    let mut tail = with(None, None, None);
    tail.tail = Some(2);
    modes.push(("log.jsonl", tail));
    let mut deerflow = with(None, None, None);
    deerflow.deerflow = true;
    modes.push(("log.json", deerflow));
    modes
}

fn unsafe_policies() -> Vec<RepairOptions> {
    vec![
        RepairOptions {
            orphans: OrphanPolicy::Drop,
            duplicates: Some(DuplicatePolicy::KeepFirst),
            reid: true,
            ..RepairOptions::default()
        },
        RepairOptions {
            orphans: OrphanPolicy::Note,
            duplicates: Some(DuplicatePolicy::KeepLast),
            mark_synthetic: true,
            placeholder: "{id} {name} {x}".into(),
            ..RepairOptions::default()
        },
        RepairOptions {
            before_results: true,
            ..RepairOptions::default()
        },
    ]
}

/// Everything the tool does with one input; panics (caught by proptest) are the failures.
fn exercise(bytes: &[u8]) -> Result<(), TestCaseError> {
    for (name, options) in read_modes() {
        let a = toolmend::analyse(name, bytes, &options);
        let findings = a.findings(name);
        let _ = a.tool_stats();
        for format in [
            render::Format::Human,
            render::Format::Json,
            render::Format::Jsonl,
            render::Format::Github,
            render::Format::Sarif,
        ] {
            let mut out = Vec::new();
            render::findings(format, &findings, &Totals::default(), true, false, &mut out).unwrap();
            if format == render::Format::Json || format == render::Format::Sarif {
                prop_assert!(serde_json::from_slice::<serde_json::Value>(&out).is_ok());
            }
            if format == render::Format::Human || format == render::Format::Github {
                // Only our own colour codes: none at all when colour is off.
                let mut plain = Vec::new();
                render::findings(
                    format,
                    &findings,
                    &Totals::default(),
                    false,
                    false,
                    &mut plain,
                )
                .unwrap();
                prop_assert!(!plain.contains(&0x1b), "ESC reached the terminal");
            }
        }

        let r = repair(bytes, &a);
        let fixable = findings.iter().any(|f| {
            f.fix
                .as_ref()
                .is_some_and(|x| x.applicability == Applicability::Safe)
        });
        if !fixable && !options.deerflow {
            prop_assert!(!r.changed, "changed an input with nothing safely fixable");
        }
        if !needs_moves(&a) {
            prop_assert!(is_subsequence(bytes, &r.output), "safe repair lost bytes");
        }
        if options.read.at.is_none() {
            let again = toolmend::analyse(name, &r.output, &options);
            prop_assert!(
                !again.repair(&r.output, &RepairOptions::default()).changed,
                "safe repair is not a fixed point ({name}, {:?})\ninput:\n{}\nrepaired:\n{}",
                options.read,
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&r.output)
            );
        }
        for policy in unsafe_policies() {
            let _ = a.repair(bytes, &policy);
        }
    }
    Ok(())
}

fn valid_log() -> impl Strategy<Value = Vec<u8>> {
    (valid_conversation(), breaks(), layout()).prop_map(|(m, b, l)| render_doc(&apply(m, &b), &l))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: fuzz_cases(64),
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        exercise(&bytes)?;
    }

    #[test]
    fn mutated_logs(log in valid_log(), ms in mutations()) {
        exercise(&mutate(log, &ms))?;
    }
}
