//! Throughput of the pipeline stages on synthetic logs (divan).

mod synth;

use divan::{Bencher, black_box};
use toolmend::lint::{self, LintOptions};
use toolmend::repair::{self, RepairOptions};

fn main() {
    divan::main();
}

const TURNS: usize = 2_000;

#[divan::bench]
fn parse_jsonl_lines(b: Bencher) {
    let text = synth::openai_jsonl(TURNS, 3, 10);
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            let mut buf = toolmend::json::NodeBuf::default();
            for line in text.lines() {
                let tree = toolmend::json::parse_into(line.as_bytes(), &mut buf).unwrap();
                buf = black_box(tree).into_buf();
            }
        });
}

#[divan::bench(args = ["jsonl", "json"])]
fn analyse(b: Bencher, form: &str) {
    let (name, text) = match form {
        "jsonl" => ("bench.jsonl", synth::openai_jsonl(TURNS, 3, 10)),
        _ => ("bench.json", synth::openai_json(TURNS, 3, 10)),
    };
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| lint::analyse(name, black_box(text.as_bytes()), &LintOptions::default()));
}

#[divan::bench(args = ["jsonl", "json"])]
fn analyse_and_repair(b: Bencher, form: &str) {
    let (name, text) = match form {
        "jsonl" => ("bench.jsonl", synth::openai_jsonl(TURNS, 3, 10)),
        _ => ("bench.json", synth::openai_json(TURNS, 3, 10)),
    };
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            let a = lint::analyse(name, black_box(text.as_bytes()), &LintOptions::default());
            repair::document(text.as_bytes(), &a, &RepairOptions::default())
        });
}
