//! The README and `docs/` are true: every `$ toolmend …` line of their `console` blocks is run
//! from the repository root and must print exactly what is shown (standard error first, then
//! standard output, as a terminal would show these commands); the Mermaid diagram shown for
//! `simulate` is what it prints; the README's rule table is the library's; its code is a
//! compiled example; every link resolves inside the repository, and no page cites a document
//! that is not in it.

use std::path::{Path, PathBuf};

pub mod common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn run(args: &[&str]) -> (String, String) {
    let out = common::bin::run(root(), args);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The blocks fenced as ```` ```lang ````, in order.
fn blocks<'a>(page: &'a str, lang: &str) -> Vec<&'a str> {
    let fence = format!("```{lang}\n");
    page.split(fence.as_str())
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .collect()
}

/// Each example: the command line and the lines shown after it.
fn examples(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in blocks(page, "console") {
        let mut current: Option<(String, String)> = None;
        for line in block.lines() {
            if let Some(cmd) = line.strip_prefix("$ ") {
                out.extend(current.take());
                current = Some((cmd.to_string(), String::new()));
            } else if let Some((_, shown)) = &mut current {
                shown.push_str(line);
                shown.push('\n');
            }
        }
        out.extend(current);
    }
    out
}

#[test]
fn console_examples_print_what_the_pages_show() {
    let mut count = 0;
    for page in pages() {
        for (cmd, shown) in examples(&read(&page)) {
            let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
            let (stdout, stderr) = run(&args);
            let got = format!("{stderr}{stdout}");
            assert_eq!(
                got.trim_end(),
                shown.trim_end(),
                "{}: $ {cmd}",
                page.display()
            );
            count += 1;
        }
    }
    assert!(count >= 4, "{count} examples");
}

#[test]
fn the_mermaid_example_is_what_simulate_prints() {
    let page = read(&root().join("docs/simulate.md"));
    let shown = blocks(&page, "mermaid")[0];
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

#[test]
fn the_readme_rule_table_is_the_library_table() {
    let readme = read(&root().join("README.md"));
    let shown: Vec<&str> = readme.lines().filter(|l| l.starts_with("| TM")).collect();
    let want: Vec<String> = toolmend::RULES
        .iter()
        .map(|r| {
            format!(
                "| {} | {} | {} | {} | {} |",
                r.code,
                r.name,
                format!("{:?}", r.severity).to_lowercase(),
                r.fixes.label(),
                r.summary
            )
        })
        .collect();
    assert_eq!(shown, want, "README.md's rule table (see `toolmend rules`)");
}

#[test]
fn the_readme_code_is_the_compiled_example() {
    let readme = read(&root().join("README.md"));
    let example = read(&root().join("examples/lint_and_repair.rs"));
    let trimmed = |s: &str| -> Vec<String> {
        s.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    };
    let shown = trimmed(blocks(&readme, "rust")[0]);
    let body = trimmed(&example);
    assert!(
        body.windows(shown.len()).any(|w| w == shown.as_slice()),
        "the README's rust block is not in examples/lint_and_repair.rs"
    );
}

/// The targets of the Markdown links `[text](target)` of a page.
fn links(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        if let Some(end) = after.find(')') {
            out.push(after[..end].to_string());
        }
        rest = after;
    }
    out
}

#[test]
fn every_link_resolves_inside_the_repository() {
    let mut count = 0;
    for page in pages() {
        let dir = page.parent().unwrap();
        for link in links(&read(&page)) {
            assert!(
                !link.contains("://") && !link.starts_with("mailto:"),
                "{}: links outside the repository: {link}",
                page.display()
            );
            let path = link.split('#').next().unwrap();
            if path.is_empty() {
                continue;
            }
            let target = dir.join(path);
            assert!(target.exists(), "{}: broken link {link}", page.display());
            let inside = target.canonicalize().unwrap();
            assert!(inside.starts_with(root()), "{}: {link}", page.display());
            count += 1;
        }
    }
    assert!(count >= 5, "{count} links");
}

#[test]
fn the_pages_speak_only_of_this_project() {
    for page in pages() {
        let text = read(&page);
        for cited in ["SPEC", "PR #", "the seed", "shared/", "formats.md of"] {
            assert!(
                !text.contains(cited),
                "{} cites `{cited}`, which is not in the repository",
                page.display()
            );
        }
    }
}

#[test]
fn the_finders_find() {
    assert_eq!(
        links("see [a](docs/a.md) and [b](b.md#x)."),
        ["docs/a.md", "b.md#x"]
    );
    let page = "```console\n$ toolmend rules\nx\n$ toolmend detect a\ny\n```\n";
    assert_eq!(examples(page).len(), 2);
}

/// Every Rust source under `dir`, as text.
fn sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&read(&path));
        }
    }
}

#[test]
fn every_test_a_promise_names_exists() {
    let promises = read(&root().join("docs/promises.md"));
    let mut code = String::new();
    sources(&root().join("tests"), &mut code);
    sources(&root().join("src"), &mut code);
    // Test names are the snake_case words in backticks (paths and flags are not).
    let names: Vec<&str> = promises
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            w.contains('_')
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .collect();
    assert!(names.len() > 20, "{names:?}");
    for name in names {
        assert!(
            code.contains(&format!("fn {name}(")),
            "docs/promises.md names a test `{name}` that does not exist"
        );
    }
    for path in promises.split('`').skip(1).step_by(2) {
        if (path.starts_with("tests/") || path.starts_with("src/")) && !path.contains(['*', '…'])
        {
            let file = path.split_whitespace().next().unwrap();
            assert!(root().join(file).exists(), "docs/promises.md names {file}");
        }
    }
}
