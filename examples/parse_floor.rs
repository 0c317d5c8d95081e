//! The parse floor for benchmarks: read files and parse them with `serde_json` into
//! `IgnoredAny`, line by line for JSON Lines (`.jsonl`, `.ndjson`), whole otherwise, on one
//! thread. Nothing is kept: the time is what any JSON-reading tool must spend.
//! `cargo run --release --example parse_floor -- PATH...` (directories are walked).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::IgnoredAny;

fn main() {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: parse_floor PATH...");
        std::process::exit(2);
    }
    let mut files = Vec::new();
    for p in &paths {
        walk(p, &mut files);
    }
    let mut values = 0usize;
    for f in &files {
        values += parse(f).unwrap_or_else(|e| {
            eprintln!("parse_floor: {}: {e}", f.display());
            std::process::exit(2);
        });
    }
    println!("{values} values in {} files", files.len());
}

fn walk(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            walk(&e, files);
        }
    } else {
        files.push(path.to_path_buf());
    }
}

/// Values parsed in one file.
fn parse(path: &Path) -> std::io::Result<usize> {
    let mut reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let lines = path
        .extension()
        .is_some_and(|e| e == "jsonl" || e == "ndjson");
    if !lines {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        return Ok(usize::from(
            serde_json::from_slice::<IgnoredAny>(&bytes).is_ok(),
        ));
    }
    let mut values = 0;
    let mut line = Vec::new();
    while {
        line.clear();
        reader.read_until(b'\n', &mut line)? > 0
    } {
        if !line.iter().all(u8::is_ascii_whitespace)
            && serde_json::from_slice::<IgnoredAny>(&line).is_ok()
        {
            values += 1;
        }
    }
    Ok(values)
}
