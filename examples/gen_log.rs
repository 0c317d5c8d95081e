//! Write a synthetic OpenAI-chat log (or a Claude Code session) for whole-command timings:
//! `cargo run --release --example gen_log -- TURNS [json|jsonl|claude] > log.jsonl`.

#[path = "../benches/synth.rs"]
mod synth;

fn main() {
    let mut args = std::env::args().skip(1);
    let turns: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let text = match args.next().as_deref() {
        Some("json") => synth::openai_json(turns, 3, 10),
        Some("claude") => synth::claude_jsonl(turns, 3),
        _ => synth::openai_jsonl(turns, 3, 10),
    };
    print!("{text}");
}
