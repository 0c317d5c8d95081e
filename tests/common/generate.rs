//! Shared by the property tests and the fuzz target: generators of valid conversation logs
//! (OpenAI chat and LangChain, as JSON documents and JSON Lines, in several layouts), ways of
//! breaking them, and the library calls that analyse and repair them.
//!
//! Another dialect joins by adding a [`Dialect`] variant and its arm in [`render_message`].

use proptest::prelude::*;
use toolmend::{
    Analysed, Applicability, Format, Options as LintOptions, ReadOptions, RepairOptions, Repaired,
    SEED_PLACEHOLDER,
};

/// Test cases per property: `PROPTEST_CASES` when set, else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One message of the abstract conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A user turn.
    User(String),
    /// A model turn with (id, tool name) calls.
    Assistant(Vec<(String, String)>),
    /// A tool result for `id`.
    Tool { id: String, name: String },
    /// The placeholder result toolmend inserts for a dangling call to `name`.
    Placeholder { id: String, name: String },
}

/// The log formats generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    OpenAiChat,
    /// LangChain `messages_to_dict` (`{"type", "data"}`).
    LangChainData,
    /// LangChain flat `model_dump`.
    LangChainFlat,
    /// LangChain `lc: 1` constructor form.
    LangChainConstructor,
}

/// How the document is laid out.
#[derive(Debug, Clone)]
pub struct Layout {
    pub dialect: Dialect,
    /// JSON Lines (one message per line) or a JSON document.
    pub lines: bool,
    /// JSON document: wrap the list in `{"model": …, "messages": […]}`.
    pub envelope: bool,
    /// JSON document: indentation unit (`None`: all on one line).
    pub indent: Option<&'static str>,
    /// `":"` or `": "`.
    pub colon: &'static str,
    /// `","` or `", "` (single-line containers).
    pub comma: &'static str,
    /// `"\n"` or `"\r\n"`.
    pub newline: &'static str,
    /// End the file with a newline.
    pub final_newline: bool,
}

/// A JSON value to render.
#[derive(Debug, Clone)]
enum V {
    Obj(Vec<(&'static str, V)>),
    Arr(Vec<V>),
    Str(String),
    Raw(&'static str),
}

fn s(x: &str) -> V {
    V::Str(x.to_string())
}

fn quote(x: &str) -> String {
    serde_json::to_string(x).unwrap()
}

fn render(v: &V, l: &Layout, depth: usize, out: &mut String) {
    let (open, close, items): (char, char, Vec<String>) = match v {
        V::Str(x) => return out.push_str(&quote(x)),
        V::Raw(x) => return out.push_str(x),
        V::Obj(m) => (
            '{',
            '}',
            m.iter()
                .map(|(k, v)| {
                    let mut o = format!("{}{}", quote(k), l.colon);
                    render(v, l, depth + 1, &mut o);
                    o
                })
                .collect(),
        ),
        V::Arr(a) => (
            '[',
            ']',
            a.iter()
                .map(|v| {
                    let mut o = String::new();
                    render(v, l, depth + 1, &mut o);
                    o
                })
                .collect(),
        ),
    };
    out.push(open);
    match l.indent {
        Some(unit) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(l.newline);
                out.push_str(&unit.repeat(depth + 1));
                out.push_str(item);
            }
            out.push_str(l.newline);
            out.push_str(&unit.repeat(depth));
        }
        _ => out.push_str(&items.join(l.comma)),
    }
    out.push(close);
}

fn render_message(m: &Msg, d: Dialect) -> V {
    match d {
        Dialect::OpenAiChat => match m {
            Msg::User(t) => V::Obj(vec![("role", s("user")), ("content", s(t))]),
            Msg::Assistant(calls) => V::Obj(vec![
                ("role", s("assistant")),
                ("content", V::Raw("null")),
                (
                    "tool_calls",
                    V::Arr(
                        calls
                            .iter()
                            .map(|(id, name)| {
                                V::Obj(vec![
                                    ("id", s(id)),
                                    ("type", s("function")),
                                    (
                                        "function",
                                        V::Obj(vec![("name", s(name)), ("arguments", s("{}"))]),
                                    ),
                                ])
                            })
                            .collect(),
                    ),
                ),
            ]),
            Msg::Tool { id, .. } => V::Obj(vec![
                ("role", s("tool")),
                ("tool_call_id", s(id)),
                ("content", s("result")),
            ]),
            Msg::Placeholder { id, .. } => V::Obj(vec![
                ("role", s("tool")),
                ("tool_call_id", s(id)),
                ("content", s(SEED_PLACEHOLDER)),
            ]),
        },
        _ => {
            let (ty, fields) = match m {
                Msg::User(t) => ("human", vec![("content", s(t))]),
                Msg::Assistant(calls) => (
                    "ai",
                    vec![
                        ("content", s("")),
                        (
                            "tool_calls",
                            V::Arr(
                                calls
                                    .iter()
                                    .map(|(id, name)| {
                                        V::Obj(vec![
                                            ("name", s(name)),
                                            ("args", V::Obj(vec![])),
                                            ("id", s(id)),
                                            ("type", s("tool_call")),
                                        ])
                                    })
                                    .collect(),
                            ),
                        ),
                    ],
                ),
                Msg::Tool { id, name } => (
                    "tool",
                    vec![
                        ("content", s("result")),
                        ("tool_call_id", s(id)),
                        ("name", s(name)),
                        ("status", s("success")),
                    ],
                ),
                Msg::Placeholder { id, name } => (
                    "tool",
                    vec![
                        ("content", s(SEED_PLACEHOLDER)),
                        ("tool_call_id", s(id)),
                        ("name", s(name)),
                        ("status", s("error")),
                    ],
                ),
            };
            match d {
                Dialect::LangChainData => V::Obj(vec![("type", s(ty)), ("data", V::Obj(fields))]),
                Dialect::LangChainFlat => {
                    let mut f = fields;
                    f.insert(1, ("type", s(ty)));
                    V::Obj(f)
                }
                _ => {
                    let class = match ty {
                        "human" => "HumanMessage",
                        "ai" => "AIMessage",
                        _ => "ToolMessage",
                    };
                    let mut f = fields;
                    f.insert(1, ("type", s(ty)));
                    V::Obj(vec![
                        ("lc", V::Raw("1")),
                        ("type", s("constructor")),
                        (
                            "id",
                            V::Arr(
                                ["langchain", "schema", "messages", class]
                                    .into_iter()
                                    .map(s)
                                    .collect(),
                            ),
                        ),
                        ("kwargs", V::Obj(f)),
                    ])
                }
            }
        }
    }
}

/// Render a conversation as a document.
pub fn render_doc(msgs: &[Msg], l: &Layout) -> Vec<u8> {
    let mut out = String::new();
    if l.lines {
        let one_line = Layout {
            indent: None,
            ..l.clone()
        };
        for (i, m) in msgs.iter().enumerate() {
            if i > 0 {
                out.push_str(l.newline);
            }
            render(&render_message(m, l.dialect), &one_line, 0, &mut out);
        }
    } else {
        let list = V::Arr(msgs.iter().map(|m| render_message(m, l.dialect)).collect());
        let doc = if l.envelope {
            V::Obj(vec![("model", s("test-model")), ("messages", list)])
        } else {
            list
        };
        render(&doc, l, 0, &mut out);
    }
    if l.final_newline && !msgs.is_empty() {
        out.push_str(l.newline);
    }
    out.into_bytes()
}

/// The file name that makes toolmend read `l`'s format.
pub fn file_name(l: &Layout) -> &'static str {
    if l.lines { "log.jsonl" } else { "log.json" }
}

/// A valid conversation: user turns and model turns whose calls are all answered in the
/// tool run right after them (in a shuffled order). Ids are unique unless `reuse` asks some
/// turns to reuse an earlier turn's ids (legal: each use is answered in its window).
pub fn valid_conversation() -> impl Strategy<Value = Vec<Msg>> {
    (
        prop::collection::vec((0usize..4, any::<bool>(), any::<u64>()), 1..7),
        prop::sample::select(vec!["search", "read_file", "ask_user", "weird name ✓"]),
    )
        .prop_map(|(turns, name)| {
            let mut msgs = vec![Msg::User("start".into())];
            let mut n = 0;
            for (k, (calls, reuse, order)) in turns.into_iter().enumerate() {
                if calls == 0 {
                    msgs.push(Msg::User(format!("turn {k}")));
                    continue;
                }
                let ids: Vec<(String, String)> = (0..calls)
                    .map(|i| {
                        let id = if reuse && n > 0 {
                            format!("call_{i}")
                        } else {
                            format!("call_{}", n + i)
                        };
                        (id, name.to_string())
                    })
                    .collect();
                n += calls;
                msgs.push(Msg::Assistant(ids.clone()));
                let mut results: Vec<Msg> = ids
                    .iter()
                    .map(|(id, name)| Msg::Tool {
                        id: id.clone(),
                        name: name.clone(),
                    })
                    .collect();
                // A deterministic shuffle from `order`.
                let len = results.len();
                for i in (1..len).rev() {
                    results.swap(i, (order >> (i * 3)) as usize % (i + 1));
                }
                msgs.extend(results);
                msgs.push(Msg::User(format!("after {k}")));
            }
            msgs
        })
}

/// A way of breaking a conversation (indices are taken modulo what exists).
#[derive(Debug, Clone)]
pub enum Break {
    /// Remove a tool result (its call dangles).
    DropResult(usize),
    /// Move a tool result elsewhere (misplaced, or before its call).
    MoveResult(usize, usize),
    /// Copy a tool result elsewhere (a duplicate).
    DuplicateResult(usize, usize),
    /// Give a call the id of another call.
    ReuseId(usize, usize),
    /// Keep only the first messages (the run was interrupted).
    Truncate(usize),
}

pub fn breaks() -> impl Strategy<Value = Vec<Break>> {
    let one = prop_oneof![
        (0usize..16).prop_map(Break::DropResult),
        ((0usize..16), (0usize..16)).prop_map(|(a, b)| Break::MoveResult(a, b)),
        ((0usize..16), (0usize..16)).prop_map(|(a, b)| Break::DuplicateResult(a, b)),
        ((0usize..16), (0usize..16)).prop_map(|(a, b)| Break::ReuseId(a, b)),
        (0usize..16).prop_map(Break::Truncate),
    ];
    prop::collection::vec(one, 0..4)
}

/// Breaks that only leave calls dangling (results dropped, the run cut short).
pub fn dangling_breaks() -> impl Strategy<Value = Vec<Break>> {
    let one = prop_oneof![
        (0usize..16).prop_map(Break::DropResult),
        (0usize..16).prop_map(Break::Truncate),
    ];
    prop::collection::vec(one, 0..4)
}

/// What the seed's repair makes of a conversation whose only defects are dangling calls: a
/// placeholder for each unanswered call, in call order, right after the calling message's
/// existing results.
pub fn with_placeholders(msgs: &[Msg]) -> Vec<Msg> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < msgs.len() {
        out.push(msgs[i].clone());
        i += 1;
        let Msg::Assistant(calls) = &msgs[i - 1] else {
            continue;
        };
        let mut answered = Vec::new();
        while let Some(Msg::Tool { id, .. }) = msgs.get(i) {
            answered.push(id.clone());
            out.push(msgs[i].clone());
            i += 1;
        }
        for (id, name) in calls {
            match answered.iter().position(|a| a == id) {
                Some(k) => {
                    answered.remove(k);
                }
                None => out.push(Msg::Placeholder {
                    id: id.clone(),
                    name: name.clone(),
                }),
            }
        }
    }
    out
}

/// Apply the breaks in order.
pub fn apply(mut msgs: Vec<Msg>, breaks: &[Break]) -> Vec<Msg> {
    let tools = |m: &[Msg]| -> Vec<usize> {
        m.iter()
            .enumerate()
            .filter(|(_, m)| matches!(m, Msg::Tool { .. }))
            .map(|(i, _)| i)
            .collect()
    };
    for b in breaks {
        let t = tools(&msgs);
        match *b {
            Break::DropResult(i) if !t.is_empty() => {
                msgs.remove(t[i % t.len()]);
            }
            Break::MoveResult(i, to) if !t.is_empty() => {
                let m = msgs.remove(t[i % t.len()]);
                msgs.insert(to % (msgs.len() + 1), m);
            }
            Break::DuplicateResult(i, to) if !t.is_empty() => {
                let m = msgs[t[i % t.len()]].clone();
                msgs.insert(to % (msgs.len() + 1), m);
            }
            Break::ReuseId(a, b) => {
                let calls: Vec<(usize, usize)> = msgs
                    .iter()
                    .enumerate()
                    .flat_map(|(i, m)| match m {
                        Msg::Assistant(c) => (0..c.len()).map(|k| (i, k)).collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                if calls.is_empty() {
                    continue;
                }
                let (fi, fk) = calls[b % calls.len()];
                let id = match &msgs[fi] {
                    Msg::Assistant(c) => c[fk].0.clone(),
                    _ => unreachable!(),
                };
                let (ti, tk) = calls[a % calls.len()];
                if let Msg::Assistant(c) = &mut msgs[ti] {
                    c[tk].0 = id;
                }
            }
            Break::Truncate(n) => msgs.truncate(1 + n % msgs.len().max(1)),
            _ => {}
        }
    }
    msgs
}

pub fn layout() -> impl Strategy<Value = Layout> {
    (
        prop::sample::select(vec![
            Dialect::OpenAiChat,
            Dialect::LangChainData,
            Dialect::LangChainFlat,
            Dialect::LangChainConstructor,
        ]),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![None, Some("  "), Some("    "), Some("\t")]),
        prop::sample::select(vec![(":", ","), (": ", ", "), (":", ", ")]),
        prop::sample::select(vec!["\n", "\r\n"]),
        any::<bool>(),
    )
        .prop_map(
            |(dialect, lines, envelope, indent, (colon, comma), newline, final_newline)| Layout {
                dialect,
                lines,
                envelope,
                indent,
                colon,
                comma,
                newline,
                final_newline,
            },
        )
}

/// Analyse with default options (format from the name).
pub fn analyse(name: &str, bytes: &[u8]) -> Analysed {
    toolmend::analyse(name, bytes, &LintOptions::default())
}

/// Analyse with the given read format.
pub fn analyse_as(name: &str, bytes: &[u8], format: Option<Format>) -> Analysed {
    let options = LintOptions {
        read: ReadOptions {
            format,
            ..ReadOptions::default()
        },
        ..LintOptions::default()
    };
    toolmend::analyse(name, bytes, &options)
}

/// The default (safe) repair.
pub fn repair(bytes: &[u8], analysed: &Analysed) -> Repaired {
    analysed.repair(bytes, &RepairOptions::default())
}

/// Is `small` a subsequence of `big`?
pub fn is_subsequence(small: &[u8], big: &[u8]) -> bool {
    let mut it = big.iter();
    small.iter().all(|b| it.any(|c| c == b))
}

/// The raw bytes of every message toolmend read, sorted (a multiset).
pub fn message_bytes(bytes: &[u8], a: &Analysed) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = a
        .doc
        .conversations
        .iter()
        .flat_map(|c| c.messages.iter())
        .map(|m| bytes[m.span.start..m.span.end].to_vec())
        .collect();
    all.sort();
    all
}

/// Does the analysis call for moving a result (TM003, or a result before its call, whose
/// fix is a safe move)?
pub fn needs_moves(a: &Analysed) -> bool {
    a.findings("").iter().any(|f| {
        f.code == "TM003"
            || (f.code == "TM002"
                && f.fix.as_ref().map(|x| x.applicability) == Some(Applicability::Safe))
    })
}

/// Codes of the findings of an analysis.
pub fn codes(name: &str, a: &Analysed) -> Vec<&'static str> {
    a.findings(name).iter().map(|f| f.code).collect()
}
