//! A finding is data: rule, place, what is wrong, and whether a fix exists.

use serde::Serialize;

use crate::rules::{Applicability, Rule, Severity};

/// A fix offered for a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// Safe (applied by default by `repair`) or unsafe (needs a policy flag).
    pub applicability: Applicability,
    /// What the fix does.
    pub description: String,
}

/// One finding, with the keys of the JSON output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Rule code, e.g. `TM001`.
    pub code: &'static str,
    /// Rule name, e.g. `dangling-tool-call`.
    pub name: &'static str,
    /// `error` or `warning`.
    pub severity: Severity,
    /// The file (`-` for standard input).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// JSON Pointer of the message or block (relative to its line in JSON Lines).
    pub pointer: String,
    /// Index of the conversation in the file.
    pub conversation: Option<usize>,
    /// Index of the message in the conversation.
    pub message_index: Option<usize>,
    /// The tool's name, when known.
    pub tool_name: Option<String>,
    /// The call id, when known.
    pub call_id: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The fix, if there is one.
    pub fix: Option<Fix>,
    /// Where in a database the conversation lives (thread id, checkpoint id, row); `None` for
    /// files. Its keys sit beside the others in the JSON output.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreLocation>,
    /// The rule (not serialised: `code` and `name` say it).
    #[serde(skip)]
    pub rule: Rule,
}

impl Finding {
    /// A finding of `rule` with the rule's code, name and severity filled in.
    pub fn new(rule: Rule, path: &str, message: String) -> Finding {
        Finding {
            code: rule.code(),
            name: rule.name(),
            severity: rule.severity(),
            path: path.to_string(),
            line: 0,
            column: 0,
            pointer: String::new(),
            conversation: None,
            message_index: None,
            tool_name: None,
            call_id: None,
            message,
            fix: None,
            store: None,
            rule,
        }
    }

    /// The message, prefixed with the store location for a finding in a database (`thread
    /// t1 checkpoint … message 3: …`), for formats that have only a file and a line.
    pub fn located_message(&self) -> String {
        match self.place_in_store() {
            Some(place) => format!("{place}: {}", self.message),
            None => self.message.clone(),
        }
    }

    /// Where in a database the finding is (`thread t1 checkpoint … message 3`), if it is in one.
    pub fn place_in_store(&self) -> Option<String> {
        let store = self.store.as_ref()?;
        let mut s = store.to_string();
        if let Some(i) = self.message_index {
            s.push_str(&format!(" message {i}"));
        }
        if let Some(row) = &store.row {
            s.push_str(&format!(" ({row})"));
        }
        Some(s)
    }
}

/// Where a conversation (or one of its messages) lives in a store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StoreLocation {
    /// The store kind, e.g. `langgraph-sqlite`.
    pub store: &'static str,
    /// The thread or session id.
    pub thread_id: String,
    /// The checkpoint namespace (LangGraph; empty for the root graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_ns: Option<String>,
    /// The checkpoint the messages were read from (LangGraph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_id: Option<String>,
    /// The row or record of one message (e.g. a message id), when the store has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
}

/// `thread t1 checkpoint 1f…` (the row is shown with its message, see
/// [`Finding::place_in_store`]).
impl std::fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "thread {}", self.thread_id)?;
        if let Some(ns) = self.checkpoint_ns.as_deref().filter(|n| !n.is_empty()) {
            write!(f, " ns {ns}")?;
        }
        if let Some(id) = &self.checkpoint_id {
            write!(f, " checkpoint {id}")?;
        }
        Ok(())
    }
}
