//! The library in a few lines (the README shows the body of `main`): lint a log, print its
//! findings, then print the repaired log. `cargo run --example lint_and_repair`.

fn main() -> std::io::Result<()> {
    use std::io::Write;

    let log = std::fs::read("examples/interrupted-run.json")?;
    let options = toolmend::Options::default();
    for finding in toolmend::lint("interrupted-run.json", &log, &options) {
        eprintln!(
            "{}:{} {} {}",
            finding.line, finding.column, finding.code, finding.message
        );
    }
    let repaired = toolmend::repair("interrupted-run.json", &log, &options, &Default::default());
    std::io::stdout().write_all(&repaired.output)?;
    Ok(())
}
