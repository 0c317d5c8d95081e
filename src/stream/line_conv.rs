//! A conversation held by one line, walked on its own: it depends on no other line, so a big
//! file's conversations are walked (and dropped) on the threads that read them, and only what
//! each walk found is taken in order.

use std::collections::BTreeMap;

use crate::analysis::{WalkOptions, Walker};
use crate::finding::Finding;
use crate::lint::{
    ConvInfo, ToolStats, count_calls, count_dangling, count_skimmed, describe, dialect_of,
    foreign_finding, sent, unread_finding,
};
use crate::model::{Conversation, Skimmed};
use crate::target::{self, Provider};

/// What a conversation's walk needs of the lint.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineCx<'p> {
    /// The file's name, as findings show it.
    pub path: &'p str,
    /// The provider whose rules apply (`None`: each dialect's own).
    pub target: Option<Provider>,
    /// Count the pairing findings instead of describing them.
    pub count_only: bool,
    /// Keep the detection text of each conversation.
    pub keep_detections: bool,
}

/// What the walk of one conversation held by one line found.
#[derive(Debug)]
pub(super) struct Walked {
    /// Its findings, in walk order.
    pub findings: Vec<Finding>,
    /// Pairing findings counted, not described.
    pub counted: usize,
    /// Tool calls checked.
    pub calls_checked: usize,
    /// Calls and dangling calls per tool name.
    pub stats: BTreeMap<String, ToolStats>,
    /// A streaming repair must read the conversation again: where it is in the file.
    pub fix: Option<Option<usize>>,
    /// How it was detected, when kept.
    pub detection: Option<String>,
}

/// The walk of the last short conversation, kept for the next one: most conversations of a
/// log with one per line are short, and building each one's tables anew cost about a tenth
/// of its lint.
#[derive(Debug, Default)]
pub(super) struct SpareWalker(Option<Walker>);

impl SpareWalker {
    /// A walk for `window` and `options`, with the kept room if there is any.
    fn take(&mut self, window: crate::analysis::Window, options: WalkOptions) -> Walker {
        match self.0.take() {
            Some(mut w) => {
                w.reset(window, options);
                w
            }
            None => Walker::new(window, options),
        }
    }

    /// Keep the finished `walker` when its room is that of a short conversation.
    fn keep(&mut self, walker: Walker) {
        if walker.holds_little() {
            self.0 = Some(walker);
        }
    }
}

impl Walked {
    /// Walk `conv`, counting its calls into `stats` (which the result holds). The walk takes
    /// the calls of its messages (see [`Walker::push_taking`]): what is read of them is read
    /// first. `spare` lends the walk its room, and takes it back.
    pub fn of(
        cx: &LineCx<'_>,
        mut conv: Conversation,
        mut stats: BTreeMap<String, ToolStats>,
        spare: &mut SpareWalker,
    ) -> Self {
        let d = dialect_of(&conv);
        if let Some(skimmed) = conv.skimmed.take() {
            return Self::skimmed(cx, &conv, skimmed, stats);
        }
        let judge = target::judge(d, cx.target);
        for m in &conv.messages {
            count_calls(&mut stats, m);
        }
        let info = ConvInfo::of(&conv);
        let offset = super::conversation_offset(&conv);
        let mut walker = spare.take(
            judge.window,
            WalkOptions {
                tail: false,
                unique_ids: judge.unique_ids,
            },
        );
        for m in &mut conv.messages {
            walker.push_taking(m);
        }
        let calls_checked = walker.calls_checked();
        let defects = walker.finish_keeping();
        spare.keep(walker);
        let mut defects = sent(d, defects);
        if !conv.unread.is_empty() {
            defects.clear();
        }
        let mut findings: Vec<Finding> = conv
            .foreign
            .iter()
            .map(|f| foreign_finding(cx.path, conv.index, f, conv.dialect))
            .collect();
        findings.extend(unread_finding(
            cx.path,
            conv.index,
            &conv.unread,
            conv.dialect,
        ));
        let count_only = super::counts_only(cx.count_only, d);
        let mut counted = 0;
        for defect in &defects {
            count_dangling(&mut stats, defect);
            if count_only {
                counted += 1;
            } else {
                findings.push(describe(cx.path, &info, d, &judge, defect));
            }
        }
        let fix = (!defects.is_empty() || !d.streams()).then_some(offset);
        let detection = detection(cx, &conv, conv.messages.len());
        Walked {
            findings,
            counted,
            calls_checked,
            stats,
            fix,
            detection,
        }
    }

    /// What the walk of the skimmed `conv` counts ([`Conversation::skimmed`]): its calls, and
    /// no finding.
    fn skimmed(
        cx: &LineCx<'_>,
        conv: &Conversation,
        skimmed: Skimmed,
        mut stats: BTreeMap<String, ToolStats>,
    ) -> Self {
        count_skimmed(&mut stats, &skimmed.names);
        Walked {
            findings: Vec::new(),
            counted: 0,
            calls_checked: skimmed.calls,
            stats,
            fix: (!dialect_of(conv).streams()).then(|| super::conversation_offset(conv)),
            detection: detection(cx, conv, skimmed.messages),
        }
    }

    /// The walk of a conversation numbered `index` among the line conversations (its findings
    /// are renumbered when it was walked before it was numbered).
    pub fn numbered(mut self, index: usize) -> Self {
        for f in &mut self.findings {
            f.conversation = f.conversation.map(|_| index);
        }
        self
    }
}

/// How `conv`, of `messages` messages, was detected, when `cx` keeps it.
fn detection(cx: &LineCx<'_>, conv: &Conversation, messages: usize) -> Option<String> {
    cx.keep_detections.then(|| {
        format!(
            "`{}`: {} ({messages} messages) — {}",
            conv.pointer, conv.dialect, conv.detection
        )
    })
}
