//! The README's examples are real: every `$ toolmend …` line of its `console` blocks is run
//! from the repository root and must print exactly what the README shows (standard error
//! first, then standard output, as a terminal would show these commands). The Mermaid diagram
//! shown for `simulate` is checked the same way.

use std::path::Path;

pub mod common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (String, String) {
    let out = common::bin::run(root(), args);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Each example: the command line and the lines shown after it.
fn examples(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut current: Option<(String, String)> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = line == "```console";
            out.extend(current.take());
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some((cmd.to_string(), String::new()));
        } else if let Some((_, shown)) = &mut current {
            shown.push_str(line);
            shown.push('\n');
        }
    }
    out
}

#[test]
fn console_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 4, "{} examples", examples.len());
    for (cmd, shown) in examples {
        let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        let (stdout, stderr) = run(&args);
        let got = format!("{stderr}{stdout}");
        assert_eq!(got.trim_end(), shown.trim_end(), "$ {cmd}");
    }
}

#[test]
fn the_mermaid_example_is_what_simulate_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let shown = readme
        .split("```mermaid\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    let (stdout, _) = run(&[
        "simulate",
        "--calls",
        "ask_user_question,send_email",
        "--strategy",
        "unguarded",
        "--format",
        "mermaid",
    ]);
    assert!(stdout.contains(shown), "{stdout}");
}
