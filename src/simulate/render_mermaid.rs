//! Mermaid `sequenceDiagram`s of the passes: per pass (one `rect` block) who starts, who
//! completes, who interrupts and with which index, then the pause, the resume with its answer
//! and what re-runs. Participants are `Node`, one per call, and `Human`.
//!
//! Participants get positional aliases (`N`, `call1`, …, `H`) and labels stripped of
//! everything Mermaid's lexer treats specially (`;` ends a statement, `#` starts a comment or
//! an entity, `%%` a comment, `:` a message, `<>` HTML, newlines a line), so any id or tool
//! name yields a diagram that parses and renders on GitHub.

use std::fmt::Write as _;

use super::engine::{InterruptKind, InterruptOutcome, InterruptSite, Outcome, Pass, Pause, Step};
use super::render_table::sanitize;
use super::report::{BatchReport, Report};
use super::scenario::Class;
use super::strategy::Strategy;
use crate::terminal::is_bidi_control;

/// Every diagram of the report as Markdown: per batch and strategy, a heading and a fenced
/// ` ```mermaid ` block.
pub fn render_mermaid(report: &Report) -> String {
    let mut out = String::new();
    for batch in &report.batches {
        for outcome in &batch.results {
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "### {}: {}\n\n```mermaid\n{}```",
                outcome.strategy,
                markdown_text(&batch.source),
                sequence_diagram(batch, outcome)
            );
        }
    }
    out
}

/// One `sequenceDiagram` (without fences) of `outcome`, which must belong to `batch`.
pub fn sequence_diagram(batch: &BatchReport, outcome: &Outcome) -> String {
    let mut d = Diagram {
        batch,
        outcome,
        per_call: outcome.strategy == Strategy::SendPerCall,
        out: String::from("sequenceDiagram\n"),
        runs: vec![0; batch.calls.len()],
        completions: vec![0; batch.calls.len()],
    };
    d.participants();
    for pass in &outcome.trace {
        d.pass(pass);
    }
    d.ending();
    d.out
}

/// A diagram being written, with how often each call has started and completed so far.
struct Diagram<'a> {
    batch: &'a BatchReport,
    outcome: &'a Outcome,
    /// `send-per-call`: only pending tasks re-run.
    per_call: bool,
    out: String,
    runs: Vec<usize>,
    completions: Vec<usize>,
}

impl Diagram<'_> {
    fn line(&mut self, line: std::fmt::Arguments<'_>) {
        let _ = writeln!(self.out, "    {line}");
    }

    /// The participant alias of call `c`.
    fn alias(c: usize) -> String {
        format!("call{}", c + 1)
    }

    /// The label of call `c`: its tool name and id.
    fn who(&self, c: usize) -> String {
        match self.batch.calls.get(c) {
            Some(call) => format!("{} ({})", label(&call.name), label(&call.id)),
            None => format!("call {}", c + 1),
        }
    }

    /// An interrupt site in words: its kind and the calls it belongs to.
    fn site_text(&self, site: &InterruptSite) -> String {
        let calls: Vec<String> = site.calls.iter().map(|&c| self.who(c)).collect();
        format!("{} of {}", kind_text(site.kind), calls.join(", "))
    }

    fn participants(&mut self) {
        self.line(format_args!("participant N as Node"));
        for c in 0..self.batch.calls.len() {
            let (alias, who) = (Self::alias(c), self.who(c));
            self.line(format_args!("participant {alias} as {who}"));
        }
        self.line(format_args!("participant H as Human"));
        let (strategy, source) = (self.outcome.strategy, label(&self.batch.source));
        self.line(format_args!("Note over N,H: {strategy} - {source}"));
    }

    /// One pass: a coloured block of its steps, then the pause and resume that end it.
    fn pass(&mut self, pass: &Pass) {
        let colour = if pass.number % 2 == 1 {
            "rgb(232, 240, 254)"
        } else {
            "rgb(254, 243, 226)"
        };
        self.line(format_args!("rect {colour}"));
        let how = match (pass.number, self.per_call) {
            (1, _) => "node runs",
            (_, false) => "node re-runs from the top",
            (_, true) => "pending tasks re-run, completed tasks keep their result",
        };
        let stored = match pass.answers {
            1 => "1 answer stored".to_string(),
            n => format!("{n} answers stored"),
        };
        let number = pass.number;
        self.line(format_args!(
            "Note over N,H: pass {number} - {how}, {stored}"
        ));
        for step in &pass.steps {
            self.step(step);
        }
        self.line(format_args!("end"));
        if let Some(pause) = &pass.pause {
            self.pause(pause);
        }
    }

    fn step(&mut self, step: &Step) {
        match step {
            Step::Start { call } => {
                self.runs[*call] += 1;
                let verb = match self.outcome.calls[*call].class {
                    Class::Direct => "start",
                    Class::Event => "dispatch to host",
                };
                let again = match self.runs[*call] {
                    1 => String::new(),
                    n => format!(" again (run {n})"),
                };
                let alias = Self::alias(*call);
                self.line(format_args!("N->>{alias}: {verb}{again}"));
            }
            Step::Complete { call } => {
                self.completions[*call] += 1;
                let note = match self.completions[*call] {
                    1 => String::new(),
                    n => format!(" (time {n}, double execution)"),
                };
                let alias = Self::alias(*call);
                self.line(format_args!("{alias}-->>N: completed{note}"));
            }
            Step::FromCache { call } => {
                let alias = Self::alias(*call);
                self.line(format_args!(
                    "Note over {alias}: served from the cache, not re-run"
                ));
            }
            Step::Skip { call, reason } => {
                let alias = Self::alias(*call);
                self.line(format_args!("Note over {alias}: {}", reason.describe()));
            }
            Step::Interrupt {
                site,
                index,
                outcome,
            } => self.interrupt(site, *index, outcome),
        }
    }

    /// An `interrupt()` call: raised, or answered (by the right site's answer or not).
    fn interrupt(&mut self, site: &InterruptSite, index: usize, result: &InterruptOutcome) {
        let what = match result {
            InterruptOutcome::Raised => format!("index {index} raises"),
            InterruptOutcome::Answered { answer, given_to } if given_to == site => {
                format!("index {index} returns answer {answer}")
            }
            InterruptOutcome::Answered { answer, given_to } => format!(
                "index {index} returns answer {answer}, WRONG - it was given to the {}",
                self.site_text(given_to)
            ),
        };
        let arrow = match result {
            InterruptOutcome::Raised => "--x",
            InterruptOutcome::Answered { .. } => "-->>",
        };
        match (site.kind, site.calls.as_slice()) {
            (InterruptKind::BatchApproval, _) | (_, []) => {
                let site = self.site_text(site);
                self.line(format_args!("Note over N: {site} - {what}"));
            }
            (kind, [call, ..]) => {
                let alias = Self::alias(*call);
                let kind = kind_text(kind);
                self.line(format_args!("{alias}{arrow}N: {kind} interrupt() {what}"));
            }
        }
    }

    /// The pause that ends a pass, and the resume with the human's answer.
    fn pause(&mut self, pause: &Pause) {
        let task = if self.per_call { " of its task" } else { "" };
        let (site, index) = (self.site_text(&pause.site), pause.index);
        self.line(format_args!(
            "N->>H: pause - {site} surfaces, index {index}{task}"
        ));
        self.line(format_args!(
            "H->>N: resume with answer {index} for the {site}"
        ));
    }

    fn ending(&mut self) {
        let passes = self.outcome.passes;
        let end = if self.outcome.finished {
            format!("batch complete after {passes} passes")
        } else {
            format!("stopped at the pass cap after {passes} passes, batch incomplete")
        };
        self.line(format_args!("Note over N,H: {end}"));
    }
}

fn kind_text(kind: InterruptKind) -> &'static str {
    match kind {
        InterruptKind::Approval => "approval gate",
        InterruptKind::Body => "body",
        InterruptKind::BatchApproval => "batched approval",
    }
}

/// Text safe inside a Mermaid participant label, message or note: control, bidi and
/// Mermaid-special characters removed, whitespace collapsed, at most 60 characters.
fn label(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else if !matches!(
            c,
            ';' | '#' | '%' | ':' | '<' | '>' | '"' | '`' | '{' | '}' | '[' | ']' | '\\' | '&'
        ) && !is_bidi_control(c)
        {
            out.push(c);
        }
    }
    let trimmed = out.trim();
    if trimmed.is_empty() {
        return "_".to_string();
    }
    if trimmed.chars().count() > 60 {
        let cut: String = trimmed.chars().take(59).collect();
        return format!("{}…", cut.trim_end());
    }
    trimmed.to_string()
}

/// Text safe in a Markdown heading: control characters escaped, Markdown punctuation
/// backslash-escaped.
fn markdown_text(text: &str) -> String {
    let mut out = String::new();
    for c in sanitize(text).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(calls: &[(&str, &str)], strategies: &[Strategy]) -> Report {
        Report::one("scenario.json", calls, strategies)
    }

    #[test]
    fn unguarded_diagram() {
        let r = report(
            &[("c1", "ask_user_question"), ("c2", "send_email")],
            &[Strategy::Unguarded],
        );
        let expected = "\
sequenceDiagram
    participant N as Node
    participant call1 as ask_user_question (c1)
    participant call2 as send_email (c2)
    participant H as Human
    Note over N,H: unguarded - scenario.json
    rect rgb(232, 240, 254)
    Note over N,H: pass 1 - node runs, 0 answers stored
    N->>call1: start
    call1--xN: body interrupt() index 0 raises
    N->>call2: start
    call2-->>N: completed
    end
    N->>H: pause - body of ask_user_question (c1) surfaces, index 0
    H->>N: resume with answer 0 for the body of ask_user_question (c1)
    rect rgb(254, 243, 226)
    Note over N,H: pass 2 - node re-runs from the top, 1 answer stored
    N->>call1: start again (run 2)
    call1-->>N: body interrupt() index 0 returns answer 0
    call1-->>N: completed
    N->>call2: start again (run 2)
    call2-->>N: completed (time 2, double execution)
    end
    Note over N,H: batch complete after 2 passes
";
        let b = &r.batches[0];
        assert_eq!(sequence_diagram(b, &b.results[0]), expected);
    }

    #[test]
    fn hostile_labels_are_stripped() {
        assert_eq!(label("a;b#c%%d:e\nf<g>\"h\u{202e}"), "abcde fgh");
        assert_eq!(label(";;;"), "_");
        assert_eq!(label(&"x".repeat(80)).chars().count(), 60);
        let r = report(
            &[
                ("c1;\nparticipant evil", "ask_user_question"),
                ("c2", "end"),
            ],
            &Strategy::ALL,
        );
        let md = render_mermaid(&r);
        for line in md.lines() {
            assert!(!line.contains(';') && !line.contains('%'), "{line}");
            // `#` only in the Markdown headings.
            assert!(!line.contains('#') || line.starts_with("### "), "{line}");
        }
        assert!(!md.contains("\nparticipant evil"));
        assert_eq!(md.matches("```mermaid").count(), 5);
    }

    #[test]
    fn cache_misattribution_and_skips_are_shown() {
        let r = report(
            &[("c1", "ask_user_question"), ("c2", "ask_user_question")],
            &[Strategy::GuardedCached],
        );
        let b = &r.batches[0];
        let d = sequence_diagram(b, &b.results[0]);
        assert!(
            d.contains("Note over call1: served from the cache, not re-run"),
            "{d}"
        );
        assert!(
            d.contains(
                "call2-->>N: body interrupt() index 0 returns answer 0, WRONG - it was given to the body of ask_user_question (c1)"
            ),
            "{d}"
        );
    }

    #[test]
    fn markdown_heading_is_escaped() {
        assert_eq!(markdown_text("a_b*#\n"), "a\\_b\\*\\#\\\\n");
    }
}
