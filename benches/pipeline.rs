//! Throughput of the pipeline stages on synthetic logs (divan).

mod synth;

use divan::{Bencher, black_box};
use toolmend::{Options as LintOptions, RepairOptions};

fn main() {
    divan::main();
}

const TURNS: usize = 2_000;

/// Reading alone: parse every line and detect its dialect, no analysis.
#[divan::bench]
fn read_jsonl(b: Bencher) {
    let text = synth::openai_jsonl(TURNS, 3, 10);
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            toolmend::detect(
                "bench.jsonl",
                black_box(text.as_bytes()),
                &LintOptions::default(),
            )
        });
}

#[divan::bench(args = ["jsonl", "json"])]
fn analyse(b: Bencher, form: &str) {
    let (name, text) = match form {
        "jsonl" => ("bench.jsonl", synth::openai_jsonl(TURNS, 3, 10)),
        _ => ("bench.json", synth::openai_json(TURNS, 3, 10)),
    };
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| toolmend::analyse(name, black_box(text.as_bytes()), &LintOptions::default()));
}

#[divan::bench(args = ["jsonl", "json"])]
fn analyse_and_repair(b: Bencher, form: &str) {
    let (name, text) = match form {
        "jsonl" => ("bench.jsonl", synth::openai_jsonl(TURNS, 3, 10)),
        _ => ("bench.json", synth::openai_json(TURNS, 3, 10)),
    };
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            let a = toolmend::analyse(name, black_box(text.as_bytes()), &LintOptions::default());
            a.repair(text.as_bytes(), &RepairOptions::default())
        });
}

/// `lint` of a JSON Lines stream as the CLI runs it (`toolmend::lint_lines`), per shape: chat
/// messages one per line, and a Claude Code session (whose main thread is held until its
/// resumed chain is known).
#[divan::bench(args = ["chat", "claude-code"])]
fn lint_stream(b: Bencher, shape: &str) {
    let text = match shape {
        "chat" => synth::openai_jsonl(TURNS, 3, 10),
        _ => synth::claude_jsonl(TURNS, 3),
    };
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            toolmend::lint_lines(
                "bench.jsonl",
                black_box(text.as_bytes()),
                &LintOptions::default(),
            )
        });
}

/// JSON Lines repaired as a stream: both readings and the output (what `repair` does with a
/// `.jsonl` file).
#[divan::bench]
fn repair_stream(b: Bencher) {
    let text = synth::openai_jsonl(TURNS, 3, 10);
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            let open = || -> std::io::Result<Box<dyn std::io::BufRead + '_>> {
                Ok(Box::new(black_box(text.as_bytes())))
            };
            let mut out = Vec::with_capacity(text.len() + (text.len() >> 4));
            toolmend::stream_lines(
                "bench.jsonl",
                &open,
                &LintOptions::default(),
                &RepairOptions::default(),
                &mut out,
            )
            .map(|_| out.len())
        });
}

/// Parsing alone: one pretty-printed document, or every line of JSON Lines into one reused
/// node buffer (as the line reader does).
#[divan::bench(args = ["jsonl", "json"])]
fn parse(b: Bencher, form: &str) {
    use toolmend::json::{NodeBuf, parse_into};
    let text = match form {
        "jsonl" => synth::openai_jsonl(TURNS, 3, 10),
        _ => synth::openai_json(TURNS, 3, 10),
    };
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            let mut buf = NodeBuf::default();
            let mut nodes = 0;
            for line in black_box(text.as_bytes()).split(|&b| form == "jsonl" && b == b'\n') {
                if line.is_empty() {
                    continue;
                }
                let tree = parse_into(line, &mut buf).expect("synthetic text parses");
                nodes += tree.len(tree.root());
                buf = tree.into_buf();
            }
            nodes
        });
}

/// Member lookup: the keys a reader asks every message for, most of them absent.
#[divan::bench]
fn lookup(b: Bencher) {
    let text = synth::openai_json(TURNS, 3, 10);
    let tree = toolmend::json::parse(text.as_bytes()).expect("synthetic text parses");
    let list = tree.get(tree.root(), "messages").expect("a message list");
    let messages: Vec<_> = tree.children(list).collect();
    let keys = [
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "function_call",
        "parts",
        "message",
        "type",
    ];
    b.counter(divan::counter::ItemsCount::new(messages.len() * keys.len()))
        .bench(|| {
            let mut found = 0;
            for &m in &messages {
                for key in keys {
                    found += usize::from(tree.get(m, black_box(key)).is_some());
                }
            }
            found
        });
}
