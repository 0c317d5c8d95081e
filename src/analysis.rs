//! The ordered walk (docs/design.md): pure pairing analysis over the neutral model.
//!
//! A call opens; a result closes the most recent open call with the same id. Whatever is left
//! over, out of place, or repeated becomes a [`Defect`]. The walk is incremental ([`Walker`])
//! so a JSON Lines file can be analysed while it streams by.

use std::collections::{HashMap, VecDeque};

mod seen;

/// Hash maps keyed by call id: a fast non-cryptographic hash (ids come from the logs, and
/// nothing here needs protection from collisions chosen by an attacker beyond slowness).
type IdMap<V> = HashMap<String, V, foldhash::fast::RandomState>;

/// A message index or slot kept in 32 bits (what is kept per id seen); larger values, which
/// no conversation reaches, are kept as `u32::MAX`.
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

use crate::model::{Call, Message, Role, ToolResult};

/// Where a dialect wants the results of a model message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// In the contiguous run of tool messages right after the calling message
    /// (OpenAI chat, LangChain, Vercel AI).
    ToolRun,
    /// In the very next message, among its leading results (Anthropic, Gemini, Bedrock).
    NextMessage,
    /// Anywhere after the call, before the next model message (Claude Code).
    BeforeNextAssistant,
    /// Anywhere after the call while only calls, results and other items (reasoning) follow;
    /// a user, system or plain model message closes it (Responses items sent to a strict
    /// server such as DeepSeek's).
    CallRun,
    /// Anywhere after the call (Responses items sent to OpenAI, which pairs by `call_id`).
    AfterCall,
    /// In the next content holding results, after any number of consecutive model contents
    /// with calls, which it may answer together (Gemini).
    NextResponseTurn,
}

/// A call with the index of the model message that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallAt {
    /// Index of the calling message (the first message of its group).
    pub message: usize,
    /// Index of the message that physically holds the call (differs for continuations).
    pub holder: usize,
    /// Position of the call within its holder message.
    pub slot: usize,
    /// The call.
    pub call: Call,
}

/// A result with the index of the message holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultAt {
    /// Index of the message holding the result.
    pub message: usize,
    /// Position of the result within its message.
    pub slot: usize,
    /// The message holding the result carries no calls (so the result could be moved as one
    /// message).
    pub alone: bool,
    /// The result.
    pub result: ToolResult,
}

/// Why a call was left dangling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DanglingCause {
    /// No result came before the end of the conversation.
    NoResult,
    /// A later call reused the id while this one was still open.
    Shadowed {
        /// Index of the message with the later call.
        by: usize,
    },
}

/// One pairing defect found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defect {
    /// TM001: a call that never got a result.
    Dangling {
        /// The call.
        call: CallAt,
        /// Why.
        cause: DanglingCause,
    },
    /// TM002: a result with no open call. When its call shows up later, `later_call` is set.
    Orphan {
        /// The result.
        result: ResultAt,
        /// The call with the same id found after it, if any (boxed, as the second part of every
        /// variant is, so that a defect takes the room of one call or result).
        later_call: Option<Box<CallAt>>,
    },
    /// TM003: a result that closes its call but sits outside the call's answer window.
    Misplaced {
        /// The call.
        call: Box<CallAt>,
        /// The result.
        result: ResultAt,
    },
    /// TM004: a result for a call that already has one.
    DuplicateResult {
        /// The call.
        call: Box<CallAt>,
        /// The result that answered it first.
        first: Box<ResultAt>,
        /// The extra result.
        result: ResultAt,
    },
    /// TM005: a call id used twice in one message.
    DuplicateCallId {
        /// The first call with the id.
        first: Box<CallAt>,
        /// The later call with the same id.
        call: CallAt,
    },
    /// TM006: a call without an id.
    MissingCallId {
        /// The call.
        call: CallAt,
    },
    /// TM006: a call with an empty or missing tool name.
    MissingToolName {
        /// The call.
        call: CallAt,
    },
    /// TM006: a result without the id of the call it answers.
    MissingResultId {
        /// The result.
        result: ResultAt,
    },
    /// TM005: a call id used again by a call of a later message, where the provider wants
    /// every id unique in the request.
    ReusedCallId {
        /// The first call with the id.
        first: Box<CallAt>,
        /// The later call with the same id.
        call: CallAt,
    },
}

impl Defect {
    /// Message index and position used to order defects in reading order.
    pub fn sort_key(&self) -> (usize, usize, usize, usize) {
        let rank = match self {
            Defect::MissingToolName { .. } => 0,
            Defect::MissingCallId { .. } => 1,
            Defect::DuplicateCallId { .. } => 2,
            Defect::Dangling { .. } => 3,
            Defect::Orphan { .. } => 4,
            Defect::Misplaced { .. } => 5,
            Defect::DuplicateResult { .. } => 6,
            Defect::MissingResultId { .. } => 7,
            Defect::ReusedCallId { .. } => 2,
        };
        match self {
            Defect::Dangling { call, .. }
            | Defect::DuplicateCallId { call, .. }
            | Defect::ReusedCallId { call, .. }
            | Defect::MissingCallId { call }
            | Defect::MissingToolName { call } => (call.holder, 0, call.slot, rank),
            Defect::Orphan { result, .. }
            | Defect::Misplaced { result, .. }
            | Defect::DuplicateResult { result, .. }
            | Defect::MissingResultId { result } => (result.message, 1, result.slot, rank),
        }
    }
}

/// What the walk remembers of an answered call, to report a later duplicate result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Closed {
    message: u32,
    holder: u32,
    slot: u32,
    /// The call's tool name, as an index into [`Walker::names`].
    name: u32,
    first_message: u32,
    first_slot: u32,
    first_alone: bool,
    first_whole: bool,
}

/// What the walk remembers of the first call of an id, to report a later reuse of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FirstCall {
    message: u32,
    holder: u32,
    slot: u32,
}

impl FirstCall {
    fn of(call: &CallAt) -> FirstCall {
        FirstCall {
            message: small(call.message),
            holder: small(call.holder),
            slot: small(call.slot),
        }
    }

    /// The call, as far as a reused-id finding needs it.
    fn call(&self, id: &str) -> CallAt {
        CallAt {
            message: self.message as usize,
            holder: self.holder as usize,
            slot: self.slot as usize,
            call: Call {
                id: Some(id.to_string()),
                ..Call::default()
            },
        }
    }
}

/// Tool names, each kept once (there are few), numbered in the order first seen.
#[derive(Debug, Default)]
struct Names {
    /// The numbers by name, once there are more than [`Names::FEW`] (fewer are compared in
    /// turn, which costs less than hashing the name).
    numbers: HashMap<Option<String>, u32, foldhash::fast::RandomState>,
    names: Vec<Option<String>>,
}

impl Names {
    const FEW: usize = 16;

    fn number(&mut self, name: &Option<String>) -> u32 {
        if self.names.len() <= Self::FEW {
            if let Some(n) = self.names.iter().position(|known| known == name) {
                return small(n);
            }
        } else if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        let n = small(self.names.len());
        self.names.push(name.clone());
        if self.names.len() > Self::FEW {
            if self.numbers.is_empty() {
                let numbered = self.names.iter().enumerate();
                self.numbers = numbered.map(|(k, s)| (s.clone(), small(k))).collect();
            } else {
                self.numbers.insert(name.clone(), n);
            }
        }
        n
    }

    fn clear(&mut self) {
        self.numbers.clear();
        self.names.clear();
    }

    fn name(&self, n: u32) -> Option<String> {
        self.names.get(n as usize).cloned().flatten()
    }
}

impl Closed {
    fn new(names: &mut Names, call: &CallAt, first: &ResultAt) -> Closed {
        Closed::of(
            names,
            call,
            first.message,
            first.slot,
            first.alone,
            &first.result,
        )
    }

    /// The call and the first result, which is `result` at `slot` of message `message`.
    fn of(
        names: &mut Names,
        call: &CallAt,
        message: usize,
        slot: usize,
        alone: bool,
        result: &ToolResult,
    ) -> Closed {
        Closed {
            message: small(call.message),
            holder: small(call.holder),
            slot: small(call.slot),
            name: names.number(&call.call.name),
            first_message: small(message),
            first_slot: small(slot),
            first_alone: alone,
            first_whole: result.whole_message,
        }
    }

    /// The call and first result, as far as a duplicate-result finding needs them.
    fn parts(&self, names: &Names, id: &str) -> (CallAt, ResultAt) {
        let call = CallAt {
            message: self.message as usize,
            holder: self.holder as usize,
            slot: self.slot as usize,
            call: Call {
                id: Some(id.to_string()),
                name: names.name(self.name),
                ..Call::default()
            },
        };
        let first = ResultAt {
            message: self.first_message as usize,
            slot: self.first_slot as usize,
            alone: self.first_alone,
            result: ToolResult {
                id: Some(id.to_string()),
                whole_message: self.first_whole,
                ..ToolResult::default()
            },
        };
        (call, first)
    }
}

/// Options of the walk.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalkOptions {
    /// Analyse only the last N messages: results whose call lies before them are not orphans.
    pub tail: bool,
    /// A call id used again by a later message is a defect (the provider wants unique ids).
    pub unique_ids: bool,
}

/// The incremental ordered walk over one conversation.
#[derive(Debug)]
pub struct Walker {
    window: Window,
    options: WalkOptions,
    /// Open calls per id; calls of one message are answered first-in first-out.
    open: IdMap<VecDeque<CallAt>>,
    /// The call and result that last closed each id, and the first call of each id (kept
    /// only when ids must be unique): small records per id seen.
    seen: seen::Seen,
    /// The tool names the entries of `closed` refer to.
    names: Names,
    /// Calls closed by a result that came before them, oldest first, with the index of that
    /// "result before call" defect: the pairing is tentative, because a result in the call's
    /// own window is the better answer (see [`Walker::push`]).
    tentative: IdMap<VecDeque<(CallAt, usize)>>,
    /// Results seen with no open call, waiting for a later call of their id.
    pending: IdMap<VecDeque<ResultAt>>,
    /// The model messages whose answer windows are open.
    owners: Vec<usize>,
    defects: Vec<Defect>,
    calls_checked: usize,
}

impl Walker {
    /// A walk for a dialect with the given answer window.
    pub fn new(window: Window, options: WalkOptions) -> Walker {
        Walker {
            window,
            options,
            open: IdMap::default(),
            seen: seen::Seen::default(),
            names: Names::default(),
            tentative: IdMap::default(),
            pending: IdMap::default(),
            owners: Vec::new(),
            defects: Vec::new(),
            calls_checked: 0,
        }
    }

    fn in_window(&self, owner: usize, at: usize, result: &ToolResult) -> bool {
        match self.window {
            Window::NextMessage => owner + 1 == at && result.leading,
            Window::AfterCall => owner < at,
            Window::NextResponseTurn => result.leading && self.owners.contains(&owner),
            _ => self.owners.contains(&owner),
        }
    }

    /// Does `msg` (which has calls when `calling`) close the open answer windows?
    fn closes_windows(&self, msg: &Message, calling: bool) -> bool {
        if msg.continuation {
            return false;
        }
        match self.window {
            Window::ToolRun | Window::NextMessage => msg.role != Role::Tool,
            // Consecutive model turns with calls keep the group open.
            Window::NextResponseTurn => {
                msg.role != Role::Tool && (msg.role != Role::Assistant || !calling)
            }
            Window::AfterCall => false,
            Window::BeforeNextAssistant => msg.role == Role::Assistant,
            Window::CallRun => match msg.role {
                Role::User | Role::System => true,
                Role::Assistant => !calling,
                Role::Tool | Role::Other => false,
            },
        }
    }

    /// Feed the next message.
    pub fn push(&mut self, msg: &Message) {
        let calls = &msg.calls;
        self.push_calls(msg, calls.len(), |slot| calls[slot].clone(), Some(calls));
    }

    /// [`Walker::push`] of a message the caller drops next: its calls are moved into the walk
    /// (which keeps each call until it is answered, and the calls of defects), not copied;
    /// `msg` is left without them.
    pub fn push_taking(&mut self, msg: &mut Message) {
        if repeats_an_id(&msg.calls) {
            // A repeated id is reported with a copy of its first call.
            return self.push(msg);
        }
        let mut calls = std::mem::take(&mut msg.calls);
        self.push_calls(
            msg,
            calls.len(),
            |slot| std::mem::take(&mut calls[slot]),
            None,
        );
    }

    /// Feed `msg`, whose `count` calls `take` gives one by one (`msg.calls` is not read for
    /// them). `written` is the message's own calls when they are to be checked for an id
    /// repeated within the message; `None` when the caller knows none is.
    fn push_calls(
        &mut self,
        msg: &Message,
        count: usize,
        mut take: impl FnMut(usize) -> Call,
        written: Option<&[Call]>,
    ) {
        let group_owner = if msg.continuation {
            self.owners.last().copied()
        } else {
            None
        };
        if self.closes_windows(msg, count > 0) {
            self.owners.clear();
        }
        // A response turn answers the model turns before it, and no later message answers
        // them (Gemini).
        let answered_turn = self.window == Window::NextResponseTurn
            && !msg.continuation
            && !msg.results.is_empty()
            && count == 0;
        for (slot, result) in msg.results.iter().enumerate() {
            self.result(msg.index, slot, count == 0, result);
        }
        if answered_turn {
            self.owners.clear();
        }
        let calling = group_owner.unwrap_or(msg.index);
        let mut seen_here = SeenIds::default();
        for slot in 0..count {
            let call = take(slot);
            // Server-side calls carry their result inline: counted, never paired.
            self.calls_checked += 1;
            if call.server {
                // A Gemini CLI record's inline result is the response the client sends, so a
                // response turn holding it again is a second one.
                if self.window == Window::NextResponseTurn
                    && let Some(id) = call.id.as_deref().filter(|id| !id.is_empty())
                {
                    let at = CallAt {
                        message: calling,
                        holder: msg.index,
                        slot,
                        call: Call {
                            name: call.name.clone(),
                            ..Call::default()
                        },
                    };
                    let closed = Closed::of(
                        &mut self.names,
                        &at,
                        msg.index,
                        slot,
                        false,
                        &ToolResult::default(),
                    );
                    self.seen.close(id, closed);
                }
                continue;
            }
            let at = CallAt {
                message: calling,
                holder: msg.index,
                slot,
                call,
            };
            if at.call.name.as_deref().is_none_or(str::is_empty) {
                self.defects
                    .push(Defect::MissingToolName { call: at.clone() });
            }
            let Some(id) = at.call.id.as_deref().filter(|id| !id.is_empty()) else {
                self.defects.push(Defect::MissingCallId { call: at });
                continue;
            };
            // The key of the id's tables (`at` moves into one of them).
            let id = id.to_string();
            if let Some(written) = written {
                if let Some(first) = seen_here.get(&id) {
                    self.defects.push(Defect::DuplicateCallId {
                        first: Box::new(CallAt {
                            message: calling,
                            holder: msg.index,
                            slot: first,
                            call: written[first].clone(),
                        }),
                        call: at.clone(),
                    });
                    // The provider keys results by id: one result answers both, so the later
                    // call is not opened on its own (its fix is a re-id).
                    continue;
                }
                if let Some(own) = written[slot].id.as_deref() {
                    seen_here.insert(own, slot);
                }
            }
            if self.options.unique_ids {
                match self.seen.first_call(&id) {
                    Some(first) if first.message as usize != calling => {
                        self.defects.push(Defect::ReusedCallId {
                            first: Box::new(first.call(&id)),
                            call: at.clone(),
                        });
                    }
                    Some(_) => {}
                    None => {
                        self.seen.set_first_call(&id, FirstCall::of(&at));
                    }
                }
            }
            // A call of an earlier model message with this id is still open: it is shadowed.
            if let Some(queue) = self.open.get_mut(id.as_str()) {
                let (earlier, same): (VecDeque<_>, VecDeque<_>) =
                    queue.drain(..).partition(|c| c.message != calling);
                *queue = same;
                for call in earlier {
                    self.defects.push(Defect::Dangling {
                        call,
                        cause: DanglingCause::Shadowed { by: msg.index },
                    });
                }
            }
            if let Some(result) = take_front(&mut self.pending, &id) {
                let closed = Closed::new(&mut self.names, &at, &result);
                self.defects.push(Defect::Orphan {
                    result: result.clone(),
                    later_call: Some(Box::new(at.clone())),
                });
                self.tentative
                    .entry(id.clone())
                    .or_default()
                    .push_back((at, self.defects.len() - 1));
                self.seen.close(&id, closed);
                continue;
            }
            // Room for one call: an id is nearly always called once, and a call left open
            // (dangling) stays here until the end of the conversation.
            self.open
                .entry(id)
                .or_insert_with(|| VecDeque::with_capacity(1))
                .push_back(at);
        }
        let model_message = msg.role == Role::Assistant || count > 0;
        if model_message && !msg.continuation {
            self.owners.push(msg.index);
        }
    }

    fn result(&mut self, at: usize, slot: usize, alone: bool, result: &ToolResult) {
        let here = || ResultAt {
            message: at,
            slot,
            alone,
            result: result.clone(),
        };
        let Some(id) = result.id.as_deref().filter(|id| !id.is_empty()) else {
            self.defects
                .push(Defect::MissingResultId { result: here() });
            return;
        };
        if let Some(call) = take_front(&mut self.open, id) {
            let closed = Closed::of(&mut self.names, &call, at, slot, alone, result);
            self.seen.close(id, closed);
            if !self.in_window(call.message, at, result) {
                self.defects.push(Defect::Misplaced {
                    call: Box::new(call),
                    result: here(),
                });
            }
            return;
        }
        let here = here();
        // A result in the window of a call that took an earlier (pending) result answers it
        // properly: the earlier one is then a plain orphan, not a result to move after the
        // call (moving it would only make a duplicate).
        let answered = self.tentative.get(id).and_then(|queue| {
            queue
                .iter()
                .position(|(call, _)| self.in_window(call.message, at, result))
        });
        if let Some((call, defect)) = answered.and_then(|k| {
            let queue = self.tentative.get_mut(id)?;
            let taken = queue.remove(k);
            if queue.is_empty() {
                self.tentative.remove(id);
            }
            taken
        }) {
            if let Defect::Orphan { later_call, .. } = &mut self.defects[defect] {
                *later_call = None;
            }
            let closed = Closed::new(&mut self.names, &call, &here);
            self.seen.close(id, closed);
            return;
        }
        if let Some(closed) = self.seen.closed(id) {
            let (call, first) = closed.parts(&self.names, id);
            self.defects.push(Defect::DuplicateResult {
                call: Box::new(call),
                first: Box::new(first),
                result: here,
            });
            return;
        }
        self.pending
            .entry(id.to_string())
            .or_default()
            .push_back(here);
    }

    /// Number of calls seen so far (server-side ones included).
    pub fn calls_checked(&self) -> usize {
        self.calls_checked
    }

    /// End of the conversation: what is still open is dangling, what is pending is orphaned.
    pub fn finish(mut self) -> Vec<Defect> {
        // What was kept per id seen is no longer needed: free it before the sort, which
        // needs room of its own on a log with many findings.
        self.seen = seen::Seen::default();
        self.take_defects(false)
    }

    /// [`Walker::finish`], keeping the walk's room for [`Walker::reset`]: for the many short
    /// conversations of a log with one per line, whose tables would each be built anew.
    pub fn finish_keeping(&mut self) -> Vec<Defect> {
        self.seen.clear();
        self.take_defects(true)
    }

    /// Walk a new conversation with the room of this finished one (see
    /// [`Walker::finish_keeping`]).
    pub fn reset(&mut self, window: Window, options: WalkOptions) {
        self.window = window;
        self.options = options;
        self.seen.clear();
        self.names.clear();
        self.open.clear();
        self.tentative.clear();
        self.pending.clear();
        self.owners.clear();
        self.defects.clear();
        self.calls_checked = 0;
    }

    /// Does the walk hold room for few ids? (Room kept for the next conversation should be
    /// that of a short one.) Asked of a finished walk, whose tables are empty: their room
    /// is what counts.
    pub fn holds_little(&self) -> bool {
        const FEW: usize = 1 << 10;
        self.seen.room() < FEW
            && self.open.capacity() < FEW
            && self.tentative.capacity() < FEW
            && self.pending.capacity() < FEW
            && self.owners.capacity() < FEW
    }

    /// The defects found, with what is still open or pending, in order; the tables of open
    /// calls and pending results are left empty, with their room when `keep` (else freed
    /// before the sort).
    fn take_defects(&mut self, keep: bool) -> Vec<Defect> {
        let mut defects = std::mem::take(&mut self.defects);
        if self.options.tail {
            self.pending.clear();
        }
        // Room for exactly what is left (a growing list would hold two copies while it moves).
        defects.reserve_exact(
            self.open.values().map(VecDeque::len).sum::<usize>()
                + self.pending.values().map(VecDeque::len).sum::<usize>(),
        );
        for (_, calls) in self.open.drain() {
            defects.extend(calls.into_iter().map(|call| Defect::Dangling {
                call,
                cause: DanglingCause::NoResult,
            }));
        }
        for (_, results) in self.pending.drain() {
            defects.extend(results.into_iter().map(|result| Defect::Orphan {
                result,
                later_call: None,
            }));
        }
        if !keep {
            self.open = IdMap::default();
            self.pending = IdMap::default();
        }
        // Sorting the keys beside their indices needs room for those, not for half the
        // defects as a stable sort of them would.
        defects.sort_by_cached_key(Defect::sort_key);
        defects
    }
}

/// The call ids of one message and the slot of each one's first call: a short list (most
/// messages hold a few calls), a hash map once it grows.
#[derive(Default)]
struct SeenIds<'m> {
    few: Vec<(&'m str, usize)>,
    many: HashMap<&'m str, usize, foldhash::fast::RandomState>,
}

impl<'m> SeenIds<'m> {
    const FEW: usize = 16;

    fn get(&self, id: &str) -> Option<usize> {
        if self.many.is_empty() {
            self.few.iter().find(|(k, _)| *k == id).map(|&(_, v)| v)
        } else {
            self.many.get(id).copied()
        }
    }

    /// Record the first call of `id` (not yet seen) at `slot`.
    fn insert(&mut self, id: &'m str, slot: usize) {
        if self.many.is_empty() && self.few.len() < Self::FEW {
            self.few.push((id, slot));
            return;
        }
        self.many.extend(self.few.drain(..));
        self.many.insert(id, slot);
    }
}

/// Whether two of `calls` have the same non-empty id (a long list is taken to: it is then
/// walked as [`Walker::push`] walks it).
fn repeats_an_id(calls: &[Call]) -> bool {
    if calls.len() > SeenIds::FEW {
        return true;
    }
    let ids = || {
        calls
            .iter()
            .filter_map(|c| c.id.as_deref())
            .filter(|id| !id.is_empty())
    };
    ids()
        .enumerate()
        .any(|(k, id)| ids().skip(k + 1).any(|other| other == id))
}

/// Pop the front of the queue of `id`, dropping the entry once empty (so the maps hold only
/// what is open or pending).
fn take_front<T>(map: &mut IdMap<VecDeque<T>>, id: &str) -> Option<T> {
    let queue = map.get_mut(id)?;
    let front = queue.pop_front();
    if queue.is_empty() {
        map.remove(id);
    }
    front
}

/// Walk a whole conversation.
pub fn walk(messages: &[Message], window: Window, options: WalkOptions) -> (Vec<Defect>, usize) {
    let mut w = Walker::new(window, options);
    for m in messages {
        w.push(m);
    }
    let n = w.calls_checked();
    (w.finish(), n)
}

/// DeerFlow's `DanglingToolCallMiddleware` check (`--profile deerflow`): one global set of answered ids; every
/// call whose non-empty id is not in it is dangling, each id once. Nothing else is reported.
pub fn walk_deerflow(messages: &[Message]) -> (Vec<Defect>, usize) {
    let answered: std::collections::HashSet<&str> = messages
        .iter()
        .flat_map(|m| m.results.iter())
        .filter_map(|r| r.id.as_deref())
        .collect();
    let mut patched = std::collections::HashSet::new();
    let mut defects = Vec::new();
    let mut checked = 0;
    for m in messages.iter().filter(|m| m.role == Role::Assistant) {
        checked += m.calls.len();
        for (slot, call) in m.calls.iter().enumerate().filter(|(_, c)| !c.server) {
            let Some(id) = call.id.as_deref().filter(|id| !id.is_empty()) else {
                continue;
            };
            if !answered.contains(id) && patched.insert(id.to_string()) {
                defects.push(Defect::Dangling {
                    call: CallAt {
                        message: m.index,
                        holder: m.index,
                        slot,
                        call: call.clone(),
                    },
                    cause: DanglingCause::NoResult,
                });
            }
        }
    }
    (defects, checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Pos, Span};

    fn call(id: &str) -> Call {
        Call {
            id: Some(id.into()),
            name: Some(format!("tool_{id}")),
            ..Call::default()
        }
    }

    fn result(id: &str) -> ToolResult {
        ToolResult {
            id: Some(id.into()),
            leading: true,
            whole_message: true,
            ..ToolResult::default()
        }
    }

    /// `A:c1,c2` assistant with calls; `T:c1` tool message; `U` user; `U:c1` user with results.
    fn conv(spec: &str) -> Vec<Message> {
        spec.split_whitespace()
            .enumerate()
            .map(|(i, tok)| {
                let (kind, ids) = tok.split_once(':').unwrap_or((tok, ""));
                let ids: Vec<_> = ids.split(',').filter(|s| !s.is_empty()).collect();
                let role = match kind {
                    "A" => Role::Assistant,
                    "T" => Role::Tool,
                    _ => Role::User,
                };
                let mut m = Message::new(role, Pos::default(), Span::default());
                m.index = i;
                if role == Role::Assistant {
                    m.calls = ids.iter().map(|id| call(id)).collect();
                } else {
                    m.results = ids.iter().map(|id| result(id)).collect();
                }
                m
            })
            .collect()
    }

    #[test]
    fn a_walk_reset_after_another_finds_what_a_new_one_finds() {
        let specs = [
            "U A:c1 T:c1 A",
            "U A:c1,c2,c3 T:c2 U",
            "A:c1 U A:c1 T:c1",
            "T:c1 T:c1 A:c1,c1 T:c1 T:c1",
            "A:c1 U T:c1",
            "A:c1 T:c1 T:c1",
            "T:c1 A:c1 U T:c1",
            "U A:c1 A:c2 T:c1,c2 A",
            "A:c1,c1 U",
        ];
        let windows = [
            Window::ToolRun,
            Window::NextMessage,
            Window::NextResponseTurn,
        ];
        for window in windows {
            for unique_ids in [false, true] {
                let options = WalkOptions {
                    tail: false,
                    unique_ids,
                };
                let mut reused = Walker::new(Window::CallRun, WalkOptions::default());
                for spec in specs.iter().chain(specs.iter().rev()) {
                    reused.reset(window, options);
                    for m in &mut conv(spec) {
                        reused.push_taking(m);
                    }
                    let (fresh, checked) = walk(&conv(spec), window, options);
                    assert_eq!(reused.calls_checked(), checked, "{spec}");
                    assert_eq!(reused.finish_keeping(), fresh, "{spec} {window:?}");
                }
                assert!(reused.holds_little());
            }
        }
        // The room of a long conversation is not kept for the next one: many calls left
        // open at once, or many answered one after another (the ids seen).
        let ids: Vec<String> = (0..1100).map(|i| format!("c{i}")).collect();
        let open = format!("U A:{} U", ids.join(","));
        let answered: Vec<String> = ids.iter().map(|id| format!("A:{id} T:{id}")).collect();
        for (long, defects) in [(open, ids.len()), (answered.join(" "), 0)] {
            let mut walker = Walker::new(Window::ToolRun, WalkOptions::default());
            for m in &mut conv(&long) {
                walker.push_taking(m);
            }
            assert_eq!(walker.finish_keeping().len(), defects);
            assert!(!walker.holds_little());
        }
    }

    #[test]
    fn taking_the_calls_walks_as_copying_them() {
        let specs = [
            "A:c1,c2 T:c1 T:c2 U",
            "A:c1,c2,c3,c4 T:c3 T:c4 T:c2 U A:c4 T:c4 T:c1",
            "A:c1,c1 T:c1 U A:c2,c3,c2 T:c3",
            "T:c1 A:c1 T:c1 A:c1 T:c1 T:c1",
            "A:c1 U A:c1 T:c1 A:c2,,c3 T:c3 U:c2 A: T:c9",
            "A:c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,c12,c13,c14,c15,c16,c17 T:c17 T:c1",
        ];
        let windows = [
            Window::ToolRun,
            Window::NextMessage,
            Window::BeforeNextAssistant,
            Window::CallRun,
            Window::AfterCall,
            Window::NextResponseTurn,
        ];
        for spec in specs {
            let mut messages = conv(spec);
            // A call without a name, one without an id, and a server-side one.
            if let Some(m) = messages.iter_mut().find(|m| m.calls.len() > 2) {
                m.calls[0].name = None;
                m.calls[1].id = None;
                m.calls[2].server = true;
            }
            for window in windows {
                for unique_ids in [false, true] {
                    let options = WalkOptions {
                        tail: false,
                        unique_ids,
                    };
                    let (mut copying, mut taking) =
                        (Walker::new(window, options), Walker::new(window, options));
                    for m in &messages {
                        copying.push(m);
                        taking.push_taking(&mut m.clone());
                    }
                    assert_eq!(copying.calls_checked(), taking.calls_checked());
                    assert_eq!(copying.finish(), taking.finish(), "{spec} {window:?}");
                }
            }
        }
    }

    fn codes(spec: &str, window: Window) -> Vec<String> {
        codes_with(spec, window, WalkOptions::default())
    }

    fn codes_with(spec: &str, window: Window, options: WalkOptions) -> Vec<String> {
        walk(&conv(spec), window, options)
            .0
            .iter()
            .map(|d| match d {
                Defect::Dangling { call, cause } => format!(
                    "dangling {}@{}{}",
                    call.call.id.as_deref().unwrap(),
                    call.message,
                    if matches!(cause, DanglingCause::Shadowed { .. }) {
                        " shadowed"
                    } else {
                        ""
                    }
                ),
                Defect::Orphan { result, later_call } => format!(
                    "orphan {}@{}{}",
                    result.result.id.as_deref().unwrap(),
                    result.message,
                    if later_call.is_some() {
                        " before-call"
                    } else {
                        ""
                    }
                ),
                Defect::Misplaced { result, .. } => {
                    format!(
                        "misplaced {}@{}",
                        result.result.id.as_deref().unwrap(),
                        result.message
                    )
                }
                Defect::DuplicateResult { result, .. } => {
                    format!(
                        "duplicate {}@{}",
                        result.result.id.as_deref().unwrap(),
                        result.message
                    )
                }
                Defect::DuplicateCallId { call, .. } => {
                    format!(
                        "dup-id {}@{}",
                        call.call.id.as_deref().unwrap(),
                        call.message
                    )
                }
                Defect::ReusedCallId { call, first } => format!(
                    "reused {}@{} first@{}",
                    call.call.id.as_deref().unwrap(),
                    call.message,
                    first.message
                ),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn clean_and_reused_ids_across_turns() {
        assert!(codes("U A:c1 T:c1 A", Window::ToolRun).is_empty());
        assert!(codes("U A:c1,c2 T:c2 T:c1 A:c1 T:c1 A", Window::ToolRun).is_empty());
    }

    #[test]
    fn dangling_partial_and_trailing() {
        assert_eq!(
            codes("U A:c1,c2,c3 T:c2 U", Window::ToolRun),
            ["dangling c1@1", "dangling c3@1"]
        );
        assert_eq!(codes("U A:c1", Window::ToolRun), ["dangling c1@1"]);
    }

    #[test]
    fn shadowed_call_is_dangling() {
        assert_eq!(
            codes("A:c1 U A:c1 T:c1", Window::ToolRun),
            ["dangling c1@0 shadowed"]
        );
    }

    #[test]
    fn orphan_misplaced_duplicate() {
        assert_eq!(codes("U T:x A", Window::ToolRun), ["orphan x@1"]);
        assert_eq!(codes("A:c1 U T:c1", Window::ToolRun), ["misplaced c1@2"]);
        assert_eq!(codes("A:c1 T:c1 T:c1", Window::ToolRun), ["duplicate c1@2"]);
        assert_eq!(
            codes("T:c1 A:c1", Window::ToolRun),
            ["orphan c1@0 before-call"]
        );
    }

    #[test]
    fn an_early_result_of_a_call_answered_in_its_window_is_a_plain_orphan() {
        assert_eq!(codes("T:c1 A:c1 T:c1", Window::ToolRun), ["orphan c1@0"]);
        assert_eq!(
            codes("T:c1 T:c1 A:c1 T:c1", Window::ToolRun),
            ["orphan c1@0", "orphan c1@1"]
        );
        // An id repeated in one message is one call: it takes one early copy and one answer;
        // the rest are orphans and duplicates.
        assert_eq!(
            codes("T:c1 T:c1 A:c1,c1 T:c1 T:c1", Window::ToolRun),
            [
                "orphan c1@0",
                "orphan c1@1",
                "dup-id c1@2",
                "duplicate c1@4"
            ]
        );
        // Answered only outside its window: the early result is still the one to move.
        assert_eq!(
            codes("T:c1 A:c1 U T:c1", Window::ToolRun),
            ["orphan c1@0 before-call", "duplicate c1@3"]
        );
    }

    #[test]
    fn duplicate_call_id_in_one_message_needs_one_result() {
        assert_eq!(codes("A:c1,c1 T:c1", Window::ToolRun), ["dup-id c1@0"]);
        assert_eq!(
            codes("A:c1,c1 T:c1 T:c1", Window::ToolRun),
            ["dup-id c1@0", "duplicate c1@2"]
        );
        assert_eq!(
            codes("A:c1,c1 U", Window::ToolRun),
            ["dangling c1@0", "dup-id c1@0"]
        );
    }

    #[test]
    fn next_message_window() {
        assert!(codes("A:c1,c2 U:c1,c2 A", Window::NextMessage).is_empty());
        assert_eq!(
            codes("A:c1 U U:c1", Window::NextMessage),
            ["misplaced c1@2"]
        );
    }

    #[test]
    fn before_next_assistant_window() {
        assert!(codes("A:c1 U:c1 U A", Window::BeforeNextAssistant).is_empty());
        assert!(codes("A:c1 U U:c1 A", Window::BeforeNextAssistant).is_empty());
        assert_eq!(
            codes("A:c1 A U:c1", Window::BeforeNextAssistant),
            ["misplaced c1@2"]
        );
    }

    #[test]
    fn call_run_window() {
        assert!(codes("U A:c1 A:c2 T:c2 T:c1 A", Window::CallRun).is_empty());
        assert_eq!(codes("A:c1 U T:c1", Window::CallRun), ["misplaced c1@2"]);
    }

    #[test]
    fn after_call_window() {
        // OpenAI pairs Responses outputs by call_id anywhere after the call.
        assert!(codes("A:c1 U T:c1 A", Window::AfterCall).is_empty());
        assert!(codes("A:c1 A:c2 U T:c2 U T:c1", Window::AfterCall).is_empty());
        assert_eq!(codes("A:c1 U T:c1 A", Window::CallRun), ["misplaced c1@2"]);
        assert_eq!(
            codes("T:c1 A:c1", Window::AfterCall),
            ["orphan c1@0 before-call"]
        );
    }

    #[test]
    fn next_response_turn_window() {
        // Consecutive model turns with calls, answered together (Gemini).
        assert!(codes("U A:c1 A:c2 T:c1,c2 A", Window::NextResponseTurn).is_empty());
        assert_eq!(
            codes("U A:c1 A:c2 T:c1,c2 A", Window::NextMessage),
            ["misplaced c1@3"]
        );
        // A model turn without calls ends the group; a response turn answers it once.
        assert_eq!(
            codes("A:c1 A T:c1", Window::NextResponseTurn),
            ["misplaced c1@2"]
        );
        assert_eq!(
            codes("A:c1 A:c2 T:c2 T:c1", Window::NextResponseTurn),
            ["misplaced c1@3"]
        );
    }

    #[test]
    fn reused_ids_are_a_defect_only_where_ids_must_be_unique() {
        let spec = "A:c1 T:c1 U A:c1 T:c1";
        assert!(codes(spec, Window::ToolRun).is_empty());
        let unique = WalkOptions {
            unique_ids: true,
            ..WalkOptions::default()
        };
        assert_eq!(
            codes_with(spec, Window::ToolRun, unique),
            ["reused c1@3 first@0"]
        );
        // Twice in one message is TM005's other half, not a reuse.
        assert_eq!(
            codes_with("A:c1,c1 T:c1", Window::ToolRun, unique),
            ["dup-id c1@0"]
        );
    }

    #[test]
    fn deerflow_profile_uses_a_global_set() {
        let (d, n) = walk_deerflow(&conv("A:c1,c2 T:c2 U A:c2 A:c3 T:c3 T:c9"));
        assert_eq!(n, 4);
        let ids: Vec<_> = d
            .iter()
            .map(|d| match d {
                Defect::Dangling { call, .. } => call.call.id.clone().unwrap(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(ids, ["c1"]);
    }
}
