//! Hostile input, run through the real binary: every case must end without a panic, with the
//! documented exit code, with a message naming the file, the line and the problem, and — for
//! `repair` — with every original byte still in the output (in order).
//!
//! Which cases are findings and which are failures:
//! - a line or document toolmend cannot read (truncated, not JSON, not an object, over
//!   `--max-line-bytes`, an empty `.json` document) is a TM007 *finding*: `lint` exits 1,
//!   `repair` keeps its bytes and exits 0;
//! - a file toolmend cannot open (missing, unreadable, a socket, a broken link) is an I/O
//!   *failure*: reported on standard error, the other inputs are still processed, exit 2;
//! - blank lines, an empty or blank `.jsonl` file, a BOM, CRLF, a missing final newline,
//!   invalid UTF-8, lone surrogates and `NaN`/`Infinity` are not problems at all: such lines
//!   are analysed and repaired like any other.
//!
//! Two cases are heavy (a 200 MB line, a million tool calls); they run only with
//! `TOOLMEND_HEAVY=1`, best with `--release`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod common;

use common::bin::{BIN, run, text};

const USER: &str = r#"{"role":"user","content":"go"}"#;

fn assistant(id: &str) -> String {
    format!(
        r#"{{"role":"assistant","tool_calls":[{{"id":"{id}","type":"function","function":{{"name":"search","arguments":"{{}}"}}}}]}}"#
    )
}

fn tool(id: &str) -> String {
    format!(r#"{{"role":"tool","tool_call_id":"{id}","content":"ok"}}"#)
}

fn lines(parts: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        out.extend_from_slice(p.as_bytes());
        out.push(b'\n');
    }
    out
}

/// Is `small` a subsequence of `big` (every byte of it, in order)?
fn is_subsequence(small: &[u8], big: &[u8]) -> bool {
    let mut it = big.iter();
    small.iter().all(|b| it.any(|c| c == b))
}

/// What `repair` must do with a case.
enum Repair {
    /// Output identical to the input (nothing fixable).
    Same,
    /// Output holds every input byte in order, plus these inserted pieces.
    Inserts(&'static [&'static str]),
}

struct Case {
    name: &'static str,
    /// File name (its extension decides the format).
    file: &'static str,
    content: fn() -> Vec<u8>,
    /// Extra arguments for both commands.
    args: &'static [&'static str],
    lint_exit: i32,
    /// Substrings of lint's output (the file name is checked separately).
    lint_says: &'static [&'static str],
    repair: Repair,
}

const PLACEHOLDER: &str = r#"{"role":"tool","tool_call_id":"c1","content":"[Tool call was interrupted and did not return a result.]"}"#;

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "truncated final line (killed mid-write)",
            file: "truncated.jsonl",
            content: || {
                let mut b = lines(&[USER, &assistant("c1")]);
                b.extend_from_slice(br#"{"role":"tool","tool_call_id":"c1","con"#);
                b
            },
            args: &[],
            lint_exit: 1,
            lint_says: &[
                "truncated.jsonl:3:36: TM007 [invalid-json] truncated final line",
                "truncated.jsonl:2:35: TM001",
            ],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "a line that is not JSON",
            file: "notjson.jsonl",
            content: || lines(&[USER, "this is not json", &assistant("c1"), &tool("c1")]),
            args: &[],
            lint_exit: 1,
            lint_says: &[
                "notjson.jsonl:2:1: TM007 [invalid-json] invalid JSON: expected a JSON value",
            ],
            repair: Repair::Same,
        },
        Case {
            name: "lines that are JSON but not objects",
            file: "scalars.jsonl",
            content: || lines(&[USER, "42", r#""text""#, "null", "[1, 2]", &assistant("c1")]),
            args: &[],
            lint_exit: 1,
            lint_says: &[
                "scalars.jsonl:2:1: TM007 [invalid-json] line is a JSON number, not an object",
                "scalars.jsonl:3:1: TM007 [invalid-json] line is a JSON string",
                "scalars.jsonl:4:1: TM007 [invalid-json] line is a JSON null",
                "scalars.jsonl:5:1: TM007 [invalid-json] line is a JSON array holding no messages",
                "scalars.jsonl:6:35: TM001",
            ],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "blank lines are fine",
            file: "blank.jsonl",
            content: || lines(&["", USER, "   ", "\t", &assistant("c1"), "", &tool("c1"), ""]),
            args: &[],
            lint_exit: 0,
            lint_says: &["no findings"],
            repair: Repair::Same,
        },
        Case {
            name: "an empty JSON Lines file has no messages",
            file: "empty.jsonl",
            content: Vec::new,
            args: &[],
            lint_exit: 0,
            lint_says: &["Checked 1 file, 0 conversations"],
            repair: Repair::Same,
        },
        Case {
            name: "an empty JSON file is not a JSON document",
            file: "empty.json",
            content: Vec::new,
            args: &[],
            lint_exit: 1,
            lint_says: &["empty.json:1:1: TM007 [invalid-json] empty document"],
            repair: Repair::Same,
        },
        Case {
            name: "a JSON file of only whitespace",
            file: "blank.json",
            content: || b"  \n\t\r\n  ".to_vec(),
            args: &[],
            lint_exit: 1,
            lint_says: &["blank.json:1:1: TM007 [invalid-json] empty document"],
            repair: Repair::Same,
        },
        Case {
            name: "a JSON Lines file of only whitespace",
            file: "blank2.jsonl",
            content: || b"  \n\t\r\n  ".to_vec(),
            args: &[],
            lint_exit: 0,
            lint_says: &["0 conversations"],
            repair: Repair::Same,
        },
        Case {
            name: "invalid UTF-8 inside a line that is still analysed",
            file: "utf8.jsonl",
            content: || {
                let mut b = lines(&[USER]);
                b.extend_from_slice(
                    b"{\"role\":\"assistant\",\"content\":\"\xff\xfe\xc3(\",\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\"}}]}\n",
                );
                b
            },
            args: &[],
            lint_exit: 1,
            lint_says: &["utf8.jsonl:2:", "TM001", "`c1`"],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "a UTF-8 byte order mark",
            file: "bom.jsonl",
            content: || {
                let mut b = b"\xEF\xBB\xBF".to_vec();
                b.extend(lines(&[&assistant("c1"), USER]));
                b
            },
            args: &[],
            lint_exit: 1,
            // The BOM is not a column.
            lint_says: &["bom.jsonl:1:35: TM001"],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "a BOM in a JSON document",
            file: "bom.json",
            content: || {
                let mut b = b"\xEF\xBB\xBF[".to_vec();
                b.extend(format!("{USER},\n {}]", assistant("c1")).bytes());
                b
            },
            args: &[],
            lint_exit: 1,
            lint_says: &["bom.json:2:36: TM001"],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "CRLF line ends mixed with LF: the placeholder takes its neighbour's",
            file: "crlf.jsonl",
            content: || format!("{USER}\n{}\r\n{USER}\r\n", assistant("c1")).into_bytes(),
            args: &[],
            lint_exit: 1,
            lint_says: &["crlf.jsonl:2:35: TM001"],
            repair: Repair::Inserts(&[
                "\"}}]}\r\n{\"role\":\"tool\",\"tool_call_id\":\"c1\"",
                "interrupted and did not return a result.]\"}\r\n",
            ]),
        },
        Case {
            name: "no final newline",
            file: "nofinal.jsonl",
            content: || format!("{USER}\n{}", assistant("c1")).into_bytes(),
            args: &[],
            lint_exit: 1,
            lint_says: &["nofinal.jsonl:2:35: TM001"],
            repair: Repair::Inserts(&["}]}\n{\"role\":\"tool\""]),
        },
        Case {
            name: "Python JSON: lone surrogates and NaN/Infinity on the calling line",
            file: "python.jsonl",
            content: || {
                lines(&[
                    r#"{"role":"user","content":"cut \ud83d here"}"#,
                    r#"{"role":"assistant","content":"\udc00","score":NaN,"hi":Infinity,"lo":-Infinity,"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]}"#,
                ])
            },
            args: &[],
            lint_exit: 1,
            lint_says: &["python.jsonl:2:", "TM001", "`c1`"],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "a lone surrogate inside the call id",
            file: "surrogate-id.jsonl",
            content: || {
                lines(&[
                    r#"{"role":"assistant","tool_calls":[{"id":"c\ud83d","function":{"name":"f"}}]}"#,
                ])
            },
            args: &[],
            lint_exit: 1,
            lint_says: &["surrogate-id.jsonl:1:35: TM001"],
            // The id is copied exactly as written, escape included.
            repair: Repair::Inserts(&[r#"{"role":"tool","tool_call_id":"c\ud83d","#]),
        },
        Case {
            name: "deep nesting (10,000 levels) inside a message",
            file: "deep.jsonl",
            content: || {
                let d = 10_000;
                let deep = format!("{}{}", "[".repeat(d), "]".repeat(d));
                lines(&[
                    &format!(r#"{{"role":"user","content":{deep}}}"#),
                    &assistant("c1"),
                ])
            },
            args: &[],
            lint_exit: 1,
            lint_says: &["deep.jsonl:2:35: TM001"],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "deep nesting (10,000 levels) as the document",
            file: "deep.json",
            content: || {
                let d = 10_000;
                format!("{}{}", "[".repeat(d), "]".repeat(d)).into_bytes()
            },
            args: &[],
            // A named file with nothing toolmend reads: said out loud, never a silent pass.
            lint_exit: 1,
            lint_says: &["deep.json:1:1: TM009", "0 conversations"],
            repair: Repair::Same,
        },
        Case {
            name: "deep nesting (10,000 levels), unclosed",
            file: "deep-open.json",
            content: || {
                let mut b = b"{\"messages\": ".to_vec();
                b.extend("[{\"a\":".repeat(10_000).bytes());
                b
            },
            args: &[],
            lint_exit: 1,
            lint_says: &[
                "deep-open.json:1:",
                "TM007 [invalid-json] invalid JSON",
                "truncated",
            ],
            repair: Repair::Same,
        },
        Case {
            name: "a line over --max-line-bytes is a finding, not parsed",
            file: "long.jsonl",
            content: || {
                let long = format!(r#"{{"role":"user","content":"{}"}}"#, "x".repeat(5000));
                lines(&[&long, &assistant("c1")])
            },
            args: &["--max-line-bytes", "1000"],
            lint_exit: 1,
            lint_says: &[
                "long.jsonl:1:1: TM007 [invalid-json] line is 5028 bytes, over the --max-line-bytes limit of 1000",
                "long.jsonl:2:35: TM001",
            ],
            repair: Repair::Inserts(&[PLACEHOLDER]),
        },
        Case {
            name: "a JSON document with a line over --max-line-bytes is not parsed",
            file: "long.json",
            content: || format!("[{USER}, {}]", assistant("c1")).into_bytes(),
            args: &["--max-line-bytes", "100"],
            lint_exit: 1,
            lint_says: &[
                "long.json:1:1: TM007 [invalid-json] line is 145 bytes, over the --max-line-bytes limit of 100; the document is not analysed",
            ],
            repair: Repair::Same,
        },
        Case {
            name: "an extremely long id",
            file: "longid.jsonl",
            content: || lines(&[&assistant(&"i".repeat(200_000))]),
            args: &[],
            lint_exit: 1,
            lint_says: &["longid.jsonl:1:35: TM001", "iiiiiiiiii"],
            repair: Repair::Inserts(&[r#"{"role":"tool","tool_call_id":"iiiiiiiiiiiiiiii"#]),
        },
        Case {
            name: "binary garbage read as JSON Lines",
            file: "garbage.jsonl",
            content: || garbage(64 * 1024, 1),
            args: &[],
            lint_exit: 1,
            lint_says: &["garbage.jsonl:1:1: TM007 [invalid-json]"],
            repair: Repair::Same,
        },
        Case {
            name: "binary garbage read as JSON",
            file: "garbage.json",
            content: || garbage(64 * 1024, 2),
            args: &[],
            lint_exit: 1,
            lint_says: &["garbage.json:1:1: TM007 [invalid-json] invalid JSON"],
            repair: Repair::Same,
        },
        Case {
            name: "JSON Lines under a .json name gets a hint",
            file: "misnamed.json",
            content: || lines(&[USER, &assistant("c1")]),
            args: &[],
            lint_exit: 1,
            lint_says: &["misnamed.json:2:1: TM007", "--input-format jsonl"],
            repair: Repair::Same,
        },
    ]
}

/// Deterministic pseudo-random bytes (never starting with something that parses).
fn garbage(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out: Vec<u8> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    out[0] = 0xFF;
    out
}

#[test]
fn hostile_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in cases() {
        let content = (case.content)();
        let path = dir.path().join(case.file);
        fs::write(&path, &content).unwrap();
        let file = path.to_str().unwrap();

        let mut lint_args = vec!["lint", "--color", "never"];
        lint_args.extend(case.args);
        lint_args.push(file);
        let lint = run(dir.path(), &lint_args);
        let said = text(&lint);
        if lint.status.code() != Some(case.lint_exit) {
            failures.push(format!(
                "{}: lint exit {:?}, expected {}\n{said}",
                case.name,
                lint.status.code(),
                case.lint_exit
            ));
        }
        for want in case.lint_says {
            if !said.contains(want) {
                failures.push(format!("{}: lint output lacks {want:?}\n{said}", case.name));
            }
        }
        if said.contains("panicked") {
            failures.push(format!("{}: panic\n{said}", case.name));
        }

        let mut repair_args = vec!["repair"];
        repair_args.extend(case.args);
        repair_args.push(file);
        let repair = run(dir.path(), &repair_args);
        if repair.status.code() != Some(0) {
            failures.push(format!(
                "{}: repair exit {:?}\n{}",
                case.name,
                repair.status.code(),
                text(&repair)
            ));
            continue;
        }
        let out = &repair.stdout;
        match case.repair {
            Repair::Same if *out != content => failures.push(format!(
                "{}: repair changed a file it cannot fix",
                case.name
            )),
            Repair::Same => {}
            Repair::Inserts(pieces) => {
                if !is_subsequence(&content, out) {
                    failures.push(format!("{}: repair lost original bytes", case.name));
                }
                let shown = String::from_utf8_lossy(out);
                for p in pieces {
                    if !shown.contains(p) {
                        failures.push(format!("{}: repair output lacks {p:?}", case.name));
                    }
                }
                // The repaired file has no dangling call left, and a second repair is a no-op.
                let again = dir.path().join(format!("repaired-{}", case.file));
                fs::write(&again, out).unwrap();
                let again = again.to_str().unwrap();
                let mut relint = vec!["lint", "--select", "TM001,TM003"];
                relint.extend(case.args);
                relint.push(again);
                let relint = run(dir.path(), &relint);
                if relint.status.code() != Some(0) {
                    failures.push(format!(
                        "{}: lint after repair\n{}",
                        case.name,
                        text(&relint)
                    ));
                }
                let mut check = vec!["repair", "--check"];
                check.extend(case.args);
                check.push(again);
                if run(dir.path(), &check).status.code() != Some(0) {
                    failures.push(format!("{}: a second repair changes more", case.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn max_line_bytes_default_is_documented() {
    let help = run(Path::new("."), &["lint", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--max-line-bytes"), "{help}");
    assert!(help.contains("64 MiB"), "{help}");
    assert!(help.contains("[default: 67108864]"), "{help}");
}

/// A log whose ids and names carry terminal escapes (colour, clear screen, cursor home, bell,
/// carriage return) — once JSON-escaped, once as raw bytes inside the strings.
fn escapes_log() -> Vec<u8> {
    let mut b = lines(&[
        r#"{"role":"assistant","tool_calls":[{"id":"c\u001b[31mRED\u0007\r\n","function":{"name":"f\u001b[2J\u001b[H"}}]}"#,
    ]);
    b.extend_from_slice(
        b"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"raw\x1b[5m\x07\r\",\"function\":{\"name\":\"g\x1b]0;title\x07\"}}]}\n",
    );
    // A right-to-left override that would show `send_email` reversed after it.
    b.extend_from_slice(
        "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"bidi\u{202e}liame_dnes\",\"function\":{\"name\":\"h\"}}]}\n".as_bytes(),
    );
    b
}

#[test]
fn terminal_escapes_from_a_log_are_neutralised() {
    let dir = tempfile::tempdir().unwrap();
    // The file name itself is hostile too.
    let path = dir.path().join("esc\x1b[31m.jsonl");
    fs::write(&path, escapes_log()).unwrap();
    let file = path.to_str().unwrap();
    for format in ["human", "github"] {
        let o = run(
            dir.path(),
            &["lint", "--color", "never", "--format", format, file],
        );
        assert_eq!(o.status.code(), Some(1), "{format}: {}", text(&o));
        for bad in [0x1b_u8, 0x07, b'\r'] {
            assert!(
                !o.stdout.contains(&bad),
                "{format}: raw control byte {bad:#x} in {}",
                text(&o)
            );
        }
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            !out.contains('\u{202e}'),
            "{format}: raw bidi override in {out}"
        );
        assert!(out.contains(r"bidi\u{202e}liame_dnes"), "{format}: {out}");
        assert!(out.contains(r"\u{1b}[31mRED\u{7}\r\n"), "{format}: {out}");
        assert!(out.contains(r"raw\u{1b}[5m\u{7}\r"), "{format}: {out}");
        if format == "github" {
            // One annotation per finding, nothing split over lines.
            assert_eq!(out.lines().count(), 3, "{out}");
            assert!(out.lines().all(|l| l.starts_with("::error file=")), "{out}");
        }
    }
    let stats = run(dir.path(), &["lint", "--statistics", file]);
    assert!(!stats.stdout.contains(&0x1b), "{}", text(&stats));
    for format in ["json", "jsonl", "sarif"] {
        let o = run(dir.path(), &["lint", "--format", format, file]);
        let out = String::from_utf8(o.stdout).expect("UTF-8");
        let values: Vec<serde_json::Value> = if format == "jsonl" {
            out.lines()
                .map(|l| serde_json::from_str(l).expect("valid JSON line"))
                .collect()
        } else {
            vec![serde_json::from_str(&out).expect("valid JSON")]
        };
        let all = serde_json::to_string(&values).unwrap();
        assert!(all.contains(r"c\u001b[31mRED\u0007\r\n"), "{format}: {all}");
    }
    // Errors on standard error escape the file name too.
    let missing = dir.path().join("gone\x1b[2J.jsonl");
    let o = run(dir.path(), &["lint", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!o.stderr.contains(&0x1b), "{}", text(&o));
    assert!(text(&o).contains(r"gone\u{1b}[2J.jsonl"), "{}", text(&o));
}

#[test]
fn repair_keeps_raw_control_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("esc.jsonl");
    let content = escapes_log();
    fs::write(&path, &content).unwrap();
    let o = run(dir.path(), &["repair", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(is_subsequence(&content, &o.stdout));
    // Both ids answered, each copied exactly.
    let has = |piece: &[u8]| o.stdout.windows(piece.len()).any(|w| w == piece);
    assert!(has(
        br#"{"role":"tool","tool_call_id":"c\u001b[31mRED\u0007\r\n","#
    ));
    assert!(has(
        b"{\"role\":\"tool\",\"tool_call_id\":\"raw\x1b[5m\x07\r\","
    ));
}

fn is_root() -> bool {
    // A root process reads a file whatever its mode.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("probe");
    fs::write(&p, "x").unwrap();
    set_mode(&p, 0o000);
    fs::read(&p).is_ok()
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_directory_with_unreadable_entries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("logs");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::write(root.join("a.jsonl"), lines(&[&assistant("c1")])).unwrap();
    fs::write(root.join("sub/z.jsonl"), lines(&[&assistant("c2")])).unwrap();
    fs::write(root.join("notes.txt"), "not a log").unwrap();
    // A symlink loop is walked once.
    std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
    std::os::unix::fs::symlink("nowhere.jsonl", root.join("broken.jsonl")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(root.join("live.jsonl")).unwrap();
    let locked = root.join("locked.jsonl");
    fs::write(&locked, lines(&[&assistant("c3")])).unwrap();
    set_mode(&locked, 0o000);
    let root_user = is_root();

    let o = run(dir.path(), &["lint", "--color", "never", "logs"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("logs/a.jsonl:1:35: TM001"), "{said}");
    assert!(said.contains("logs/sub/z.jsonl:1:35: TM001"), "{said}");
    assert!(
        said.contains("logs/broken.jsonl: broken symbolic link"),
        "{said}"
    );
    assert!(
        said.contains("logs/live.jsonl: not a regular file (a socket, pipe or device); skipped"),
        "{said}"
    );
    if root_user {
        eprintln!(
            "running as root: chmod 000 does not stop reads; unreadable-file sub-case skipped"
        );
    } else {
        assert!(
            said.contains("logs/locked.jsonl: cannot read: Permission denied"),
            "{said}"
        );
    }
    // The loop `sub/up` -> `..` did not make anything read twice.
    assert_eq!(said.matches("a.jsonl:1:35").count(), 1, "{said}");

    // --in-place goes on past the broken entries too.
    let o = run(dir.path(), &["repair", "--in-place", "logs"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let fixed = fs::read_to_string(root.join("a.jsonl")).unwrap();
    assert!(fixed.contains(r#""tool_call_id":"c1""#), "{fixed}");
    set_mode(&locked, 0o644);
}

#[test]
fn missing_paths_and_sockets_named_explicitly() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("ok.jsonl"), lines(&[USER])).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("s.sock")).unwrap();
    let o = run(dir.path(), &["lint", "missing.jsonl", "s.sock", "ok.jsonl"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.contains("missing.jsonl: cannot read: No such file"),
        "{said}"
    );
    assert!(said.contains("s.sock: not a regular file"), "{said}");
    assert!(said.contains("Checked 1 file"), "{said}");
}

#[test]
fn a_pipe_named_explicitly_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{BIN} lint --color never <(printf '%s\\n' '{}')",
            assistant("c1")
        ))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("TM001"), "{}", text(&o));
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<String> = (0..20_000).map(|i| assistant(&format!("c{i}"))).collect();
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    fs::write(dir.path().join("many.jsonl"), lines(&refs)).unwrap();
    for cmd in [
        "lint many.jsonl",
        "lint --format json many.jsonl",
        "repair many.jsonl",
        "repair --diff many.jsonl",
        "detect many.jsonl",
        "rules",
    ] {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "set -o pipefail; {BIN} {cmd} 2>err | head -c1 >/dev/null; echo ${{PIPESTATUS[0]}}; cat err"
            ))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let mut it = out.lines();
        assert_eq!(it.next(), Some("0"), "{cmd}: {out}");
        let rest: Vec<&str> = it.filter(|l| l.contains("error")).collect();
        assert!(rest.is_empty(), "{cmd}: {rest:?}");
    }
    // Standard error closed too (messages for 300 files, and for missing ones): the exit
    // status is the usual one, never a panic's 101.
    for i in 0..300 {
        fs::write(
            dir.path().join(format!("f{i}.jsonl")),
            lines(&[&assistant("c")]),
        )
        .unwrap();
    }
    for (cmd, want) in [
        ("repair --check f*.jsonl", "1"),
        ("lint --explain-detection f*.jsonl", "0"),
        ("lint missing{1..3000}.jsonl", "2"),
    ] {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "{BIN} {cmd} 2>&1 | head -c1 >/dev/null; echo ${{PIPESTATUS[0]}}"
            ))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), want, "{cmd}");
    }
}

fn heavy() -> bool {
    if std::env::var_os("TOOLMEND_HEAVY").is_some_and(|v| v == "1") {
        return true;
    }
    eprintln!("skipped: set TOOLMEND_HEAVY=1 (and use --release) to run the heavy cases");
    false
}

fn write_file(path: &PathBuf, parts: &[&[u8]]) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    for p in parts {
        f.write_all(p).unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn heavy_a_200_mb_line_under_the_default_limit() {
    if !heavy() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let filler = vec![b'x'; 200 * 1024 * 1024];
    write_file(
        &path,
        &[
            br#"{"role":"user","content":""#,
            &filler,
            b"\"}\n",
            assistant("c1").as_bytes(),
            b"\n",
        ],
    );
    drop(filler);
    let o = run(dir.path(), &["lint", "--color", "never", "big.jsonl"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(
        said.contains("big.jsonl:1:1: TM007 [invalid-json] line is 209715228 bytes, over the --max-line-bytes limit of 67108864"),
        "{said}"
    );
    assert!(said.contains("big.jsonl:2:35: TM001"), "{said}");
    let o = run(dir.path(), &["repair", "big.jsonl", "-o", "out.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let (a, b) = (
        fs::read(&path).unwrap(),
        fs::read(dir.path().join("out.jsonl")).unwrap(),
    );
    assert!(b.starts_with(&a) && b.len() > a.len());
}

#[test]
fn heavy_a_million_tool_calls_in_one_conversation() {
    if !heavy() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("million.jsonl");
    // 500,000 assistant messages of two calls each; only the first call of each is answered.
    let mut body = Vec::with_capacity(130 << 20);
    body.extend_from_slice(USER.as_bytes());
    body.push(b'\n');
    for i in 0..500_000 {
        body.extend_from_slice(
            format!(
                r#"{{"role":"assistant","tool_calls":[{{"id":"a{i}","function":{{"name":"f"}}}},{{"id":"b{i}","function":{{"name":"g"}}}}]}}"#
            )
            .as_bytes(),
        );
        body.push(b'\n');
        body.extend_from_slice(tool(&format!("a{i}")).as_bytes());
        body.push(b'\n');
    }
    fs::write(&path, &body).unwrap();
    let start = std::time::Instant::now();
    let o = run(
        dir.path(),
        &["lint", "-q", "--format", "jsonl", "million.jsonl"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(o.stdout.iter().filter(|&&b| b == b'\n').count(), 500_000);
    let o = run(dir.path(), &["repair", "million.jsonl", "-o", "out.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = fs::read(dir.path().join("out.jsonl")).unwrap();
    assert!(is_subsequence(&body, &out));
    let o = run(dir.path(), &["lint", "-q", "out.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    eprintln!(
        "a million calls: lint, repair, lint in {:?}",
        start.elapsed()
    );
}
