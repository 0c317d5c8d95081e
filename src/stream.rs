//! Linting JSON Lines as they stream by: every message is walked as soon as it is read and then
//! dropped, so memory follows the longest line and the open call ids, not the file.

use std::collections::BTreeMap;
use std::io::{self, BufRead};

use crate::analysis::{self, WalkOptions, Walker};
use crate::dialect::Dialect;
use crate::finding::Finding;
use crate::lint::{ConvInfo, LintOptions, ToolStats, describe, dialect_of, foreign_finding};
use crate::model::{Conversation, Foreign, Message};
use crate::read::{LineSink, LinesReader, Problem, each_line_from};
use crate::rules::Rule;

/// What linting a stream found.
#[derive(Debug, Default)]
pub struct StreamReport {
    /// Findings, in reading order.
    pub findings: Vec<Finding>,
    /// Conversations found.
    pub conversations: usize,
    /// Tool calls checked (server-side ones, whose results are inline, included).
    pub calls_checked: usize,
    /// Calls and dangling calls per tool name.
    pub stats: BTreeMap<String, ToolStats>,
    /// For each conversation: its dialect and why.
    pub detections: Vec<String>,
}

/// Lint a JSON Lines stream. `--tail` and `--profile deerflow` need the whole file and are not
/// supported here (the caller reads the file whole for them).
pub fn lint_lines<R: BufRead>(
    path: &str,
    reader: R,
    options: &LintOptions,
) -> io::Result<StreamReport> {
    let mut lines = LinesReader::new(&options.read);
    let mut sink = Streamer {
        path,
        threads: Vec::new(),
        line_findings: Vec::new(),
        line_conversations: Vec::new(),
        foreign_threads: Vec::new(),
        report: StreamReport::default(),
    };
    each_line_from(
        reader,
        options.read.max_line_bytes,
        |number, start, text, long, last| {
            lines.line(number, start, text, long, last, &mut sink);
        },
    )?;
    let chosen = lines.finish(&mut sink);
    Ok(sink.finish(chosen))
}

struct ThreadWalk {
    key: Option<String>,
    walker: Walker,
    numbering: crate::read::Numbering,
    last_turn: usize,
}

struct Streamer<'p> {
    path: &'p str,
    threads: Vec<ThreadWalk>,
    /// Findings of one-conversation-per-line lines, with their conversation numbered from 0.
    line_findings: Vec<Finding>,
    line_conversations: Vec<String>,
    /// Threads holding messages of another dialect: reported, not offered fixes.
    foreign_threads: Vec<Option<String>>,
    report: StreamReport,
}

fn count_calls(stats: &mut BTreeMap<String, ToolStats>, m: &Message) {
    for c in &m.calls {
        let name = c
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "(no name)".into());
        stats.entry(name).or_default().calls += 1;
    }
}

fn count_dangling(stats: &mut BTreeMap<String, ToolStats>, d: &analysis::Defect) {
    if let analysis::Defect::Dangling { call, .. } = d {
        let name = call
            .call
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "(no name)".into());
        stats.entry(name).or_default().dangling += 1;
    }
}

impl LineSink for Streamer<'_> {
    fn message(&mut self, d: &'static dyn Dialect, thread: Option<String>, mut m: Message) {
        let at = match self.threads.iter().position(|t| t.key == thread) {
            Some(i) => i,
            None => {
                self.threads.push(ThreadWalk {
                    key: thread,
                    walker: Walker::new(d.window(), WalkOptions::default()),
                    numbering: Default::default(),
                    last_turn: 0,
                });
                self.threads.len() - 1
            }
        };
        let t = &mut self.threads[at];
        t.numbering.number(&mut m);
        if !m.continuation {
            t.last_turn = m.index;
        }
        count_calls(&mut self.report.stats, &m);
        t.walker.push(&m);
    }

    fn foreign(&mut self, d: &'static dyn Dialect, thread: Option<String>, f: Foreign) {
        let index = match self.threads.iter().position(|t| t.key == thread) {
            Some(i) => i,
            None => self.threads.len(),
        };
        self.report
            .findings
            .push(foreign_finding(self.path, index, &f, d.name()));
        if !self.foreign_threads.contains(&thread) {
            self.foreign_threads.push(thread);
        }
    }

    fn conversation(&mut self, conv: Conversation) {
        let d = dialect_of(&conv);
        let (defects, n) = analysis::walk(&conv.messages, d.window(), WalkOptions::default());
        self.report.calls_checked += n;
        for m in &conv.messages {
            count_calls(&mut self.report.stats, m);
        }
        let info = ConvInfo::of(&conv);
        for f in &conv.foreign {
            self.line_findings
                .push(foreign_finding(self.path, conv.index, f, conv.dialect));
        }
        for defect in &defects {
            count_dangling(&mut self.report.stats, defect);
            self.line_findings
                .push(describe(self.path, &info, d, defect));
        }
        self.line_conversations.push(format!(
            "`{}`: {} ({} messages) — {}",
            conv.pointer,
            conv.dialect,
            conv.messages.len(),
            conv.detection
        ));
    }

    fn problem(&mut self, p: Problem) {
        let mut f = Finding::new(Rule::InvalidJson, self.path, p.message);
        f.line = p.line;
        f.column = p.column;
        self.report.findings.push(f);
    }
}

impl Streamer<'_> {
    fn finish(mut self, chosen: Option<(&'static dyn Dialect, String)>) -> StreamReport {
        let threads = std::mem::take(&mut self.threads);
        let mut report = self.report;
        if let Some((d, why)) = chosen {
            let count = threads.len().max(1);
            for (index, t) in threads.into_iter().enumerate() {
                report.calls_checked += t.walker.calls_checked();
                let which = match &t.key {
                    Some(k) => format!("one message per line, thread {k}"),
                    None => "one message per line".into(),
                };
                report.detections.push(format!(
                    "``: {} ({} messages) — {which}; {why}",
                    d.name(),
                    t.numbering.count()
                ));
                let info = ConvInfo {
                    index,
                    last_turn: t.last_turn,
                    read_only: self.foreign_threads.contains(&t.key) || !d.repairs(),
                };
                for defect in t.walker.finish() {
                    count_dangling(&mut report.stats, &defect);
                    report.findings.push(describe(self.path, &info, d, &defect));
                }
            }
            report.conversations += count;
            for f in &mut self.line_findings {
                f.conversation = f.conversation.map(|c| c + count);
            }
        }
        report.conversations += self.line_conversations.len();
        report.detections.extend(self.line_conversations);
        report.findings.extend(self.line_findings);
        report.findings.sort_by_key(|f| (f.line, f.column, f.rule));
        report
    }
}
