//! The human table: per batch, one row per call with its started/completed counts under each
//! strategy side by side, then the verdict and any warnings. Returns a `String`; never prints.

use std::fmt::Write as _;

use colored::Color;

use super::engine::Outcome;
use super::report::{BatchReport, Report};

pub use crate::terminal::escape_control as sanitize;

#[derive(Clone, Copy)]
enum Tone {
    Header,
    Bad,
    Good,
    Warn,
}

/// Wrap `text` in an SGR colour sequence when `color` is true. The codes come from
/// `colored`'s colour table but are emitted regardless of its global terminal detection, so
/// the caller's `color` decision is the only one.
fn paint(text: &str, tone: Tone, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let code = match tone {
        Tone::Header => "1".to_string(),
        Tone::Bad => format!("1;{}", Color::Red.to_fg_str()),
        Tone::Good => Color::Green.to_fg_str().into_owned(),
        Tone::Warn => Color::Yellow.to_fg_str().into_owned(),
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// Left-align `text` in `width` characters (counting chars, not bytes).
fn pad(text: &str, width: usize) -> String {
    let len = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(len)))
}

/// Every batch's table, separated by blank lines. `non_idempotent` orders and marks the
/// verdict (see [`BatchReport::verdict`]); `color` adds ANSI colours.
pub fn render_table(report: &Report, non_idempotent: &[String], color: bool) -> String {
    let tables: Vec<String> = report
        .batches
        .iter()
        .map(|b| render_batch_table(b, non_idempotent, color))
        .collect();
    tables.join("\n")
}

/// One batch's table, ending with a newline.
pub fn render_batch_table(batch: &BatchReport, non_idempotent: &[String], color: bool) -> String {
    let cell = |o: &Outcome, c: usize| {
        let t = &o.calls[c];
        let mut s = format!("{}/{}", t.started, t.completed);
        if t.double_executed {
            s.push_str(" double");
        }
        s
    };

    let mut header = vec!["id".to_string(), "tool".to_string(), "class".to_string()];
    header.extend(batch.results.iter().map(|o| o.strategy.to_string()));
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (c, call) in batch.calls.iter().enumerate() {
        let class = batch
            .results
            .first()
            .map(|o| o.calls[c].class.to_string())
            .unwrap_or_default();
        let mut row = vec![sanitize(&call.id), sanitize(&call.name), class];
        row.extend(batch.results.iter().map(|o| cell(o, c)));
        rows.push(row);
    }
    let mut passes = vec![String::new(), "passes".to_string(), String::new()];
    passes.extend(batch.results.iter().map(|o| o.passes.to_string()));

    let columns = header.len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            std::iter::once(&header)
                .chain(rows.iter())
                .chain(std::iter::once(&passes))
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String], tones: &dyn Fn(usize) -> Option<Tone>| {
        let mut out = String::from("  ");
        for (i, text) in cells.iter().enumerate() {
            let last = i + 1 == cells.len();
            let padded = if last {
                text.clone()
            } else {
                pad(text, widths[i])
            };
            match tones(i) {
                Some(tone) => out.push_str(&paint(&padded, tone, color)),
                None => out.push_str(&padded),
            }
            if !last {
                out.push_str("  ");
            }
        }
        out.trim_end().to_string()
    };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}  (started/completed per strategy)",
        paint("batch:", Tone::Header, color),
        sanitize(&batch.source)
    );
    let _ = writeln!(out, "{}", line(&header, &|_| Some(Tone::Header)));
    for (c, row) in rows.iter().enumerate() {
        let tone = |i: usize| {
            (i >= 3 && batch.results[i - 3].calls[c].double_executed).then_some(Tone::Bad)
        };
        let _ = writeln!(out, "{}", line(row, &tone));
    }
    let _ = writeln!(out, "{}", line(&passes, &|_| None));

    let doubled = batch
        .results
        .iter()
        .any(|o| o.double_executed().next().is_some());
    for verdict in batch.verdict(non_idempotent) {
        let tone = if doubled { Tone::Bad } else { Tone::Good };
        let _ = writeln!(
            out,
            "  {} {}",
            paint("verdict:", tone, color),
            sanitize(&verdict)
        );
    }
    for outcome in &batch.results {
        for warning in &outcome.warnings {
            let _ = writeln!(
                out,
                "  {} {}",
                paint(
                    &format!("warning ({}):", outcome.strategy),
                    Tone::Warn,
                    color
                ),
                sanitize(warning)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::strategy::Strategy;

    fn report(calls: &[(&str, &str)], strategies: &[Strategy]) -> Report {
        Report::one("history.jsonl:3", calls, strategies)
    }

    #[test]
    fn plain_table_layout() {
        let r = report(
            &[("c1", "ask_user_question"), ("c2", "send_email")],
            &Strategy::DEFAULT,
        );
        let expected = "\
batch: history.jsonl:3  (started/completed per strategy)
  id  tool               class   unguarded   guarded
  c1  ask_user_question  direct  2/1         2/1
  c2  send_email         direct  2/2 double  1/1
      passes                     2           2
  verdict: send_email (c2) would run 2× unguarded; guarded runs it once
";
        assert_eq!(render_table(&r, &[], false), expected);
    }

    #[test]
    fn no_escape_codes_without_color_and_some_with_it() {
        let r = report(
            &[("c1", "ask_user_question"), ("c2", "x")],
            &Strategy::DEFAULT,
        );
        assert!(!render_table(&r, &[], false).contains('\x1b'));
        let colored = render_table(&r, &[], true);
        assert!(colored.contains("\x1b[1;31m2/2 double"), "{colored:?}");
    }

    #[test]
    fn hostile_names_are_escaped() {
        let r = report(
            &[
                ("c1\x1b[2J", "ask_user_question"),
                ("c2", "send\u{202e}liame\n\r\t"),
            ],
            &Strategy::DEFAULT,
        );
        let text = render_table(&r, &[], false);
        assert!(!text.contains('\x1b') && !text.contains('\r') && !text.contains('\u{202e}'));
        assert!(text.contains("c1\\u{1b}[2J"), "{text}");
        assert!(text.contains("send\\u{202e}liame\\n\\r\\t"), "{text}");
        // Every line the table emits is one of its own lines: no embedded newline survived.
        assert_eq!(text.lines().count(), 6, "{text}");
    }

    #[test]
    fn warnings_are_listed_per_strategy() {
        let r = report(
            &[("c1", "ask_user_question"), ("c2", "ask_user_question")],
            &[Strategy::UnguardedCached],
        );
        let text = render_table(&r, &[], false);
        assert!(
            text.contains("warning (unguarded-cached): pass 3: the body interrupt of c2"),
            "{text}"
        );
    }
}
