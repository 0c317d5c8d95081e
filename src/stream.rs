//! Linting JSON Lines as they stream by: every message is walked as soon as it is read and then
//! dropped, so memory follows the longest line and the open call ids, not the file.

use std::collections::BTreeMap;
use std::io::{self, BufRead};

use crate::analysis::{self, WalkOptions, Walker};
use crate::dialect::Dialect;
use crate::dialect::{ChainReader, ClaudeCode, resumed};
use crate::finding::Finding;
use crate::lint::{
    ConvInfo, LintOptions, ToolStats, describe, dialect_of, foreign_finding, tree_finding,
};
use crate::model::{Conversation, Foreign, Message};
use crate::read::{LineSink, LinesReader, Problem, each_line_from, resumable};
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
    let mut chain = ChainReader::default();
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
            if long.is_none() {
                chain.line(number, start, text);
            }
            lines.line(number, start, text, long, last, &mut sink);
        },
    )?;
    let chosen = lines.finish(&mut sink);
    Ok(sink.finish(chosen, chain))
}

struct ThreadWalk {
    key: Option<String>,
    walker: Walker,
    numbering: crate::read::Numbering,
    last_turn: usize,
    /// The main thread of a Claude Code file, held until its resumed chain is known.
    held: Option<Vec<Message>>,
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

impl ThreadWalk {
    fn push(&mut self, mut m: Message) {
        self.numbering.number(&mut m);
        if !m.continuation {
            self.last_turn = m.index;
        }
        self.walker.push(&m);
    }
}

impl LineSink for Streamer<'_> {
    fn message(&mut self, d: &'static dyn Dialect, thread: Option<String>, m: Message) {
        let at = match self.threads.iter().position(|t| t.key == thread) {
            Some(i) => i,
            None => {
                self.threads.push(ThreadWalk {
                    walker: Walker::new(d.window(), WalkOptions::default()),
                    numbering: Default::default(),
                    last_turn: 0,
                    held: (thread.is_none() && d.name() == ClaudeCode.name()).then(Vec::new),
                    key: thread,
                });
                self.threads.len() - 1
            }
        };
        let t = &mut self.threads[at];
        match &mut t.held {
            Some(held) => held.push(m),
            None => {
                count_calls(&mut self.report.stats, &m);
                t.push(m);
            }
        }
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
    fn finish(
        mut self,
        chosen: Option<(&'static dyn Dialect, String)>,
        chain: ChainReader,
    ) -> StreamReport {
        let threads = std::mem::take(&mut self.threads);
        let mut report = self.report;
        if let Some((d, why)) = chosen {
            let count = threads.len().max(1);
            let chain = resumable(d, chain);
            for (index, mut t) in threads.into_iter().enumerate() {
                let mut which = match &t.key {
                    Some(k) => format!("one message per line, thread {k}"),
                    None => "one message per line".into(),
                };
                if let Some(held) = t.held.take() {
                    let held = match &chain {
                        Some(chain) => {
                            which = format!("{which}; {}", chain.explanation);
                            report.findings.extend(
                                chain
                                    .findings
                                    .iter()
                                    .map(|f| tree_finding(self.path, index, f)),
                            );
                            resumed(held, chain)
                        }
                        None => held,
                    };
                    // Only the resumed history counts, as when the file is read whole.
                    for m in held {
                        count_calls(&mut report.stats, &m);
                        t.push(m);
                    }
                }
                report.calls_checked += t.walker.calls_checked();
                report.detections.push(format!(
                    "``: {} ({} messages) — {which}; {why}",
                    d.name(),
                    t.numbering.count()
                ));
                let info = ConvInfo {
                    index,
                    last_turn: t.last_turn,
                    read_only: self.foreign_threads.contains(&t.key),
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
