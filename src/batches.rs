//! Tool batches taken from stored histories: every model message with two or more client-side
//! calls is one batch, for `simulate` and lint rule TM008.

use crate::finding::Finding;
use crate::lint::Analysed;
use crate::model::{Conversation, Message};
use crate::rules::Rule;
use crate::simulate::{Batch, BatchCall, ToolSets, double_execution_risk};

/// One batch and where it is.
#[derive(Debug, Clone)]
pub struct Found {
    /// The batch (its `source` names file, line, conversation and message).
    pub batch: Batch,
    /// Conversation index.
    pub conversation: usize,
    /// The model message.
    pub message: Message,
}

/// Every batch of an analysed document. Calls of one model message split over several
/// entries (continuations) are gathered into one batch.
pub fn batches(path: &str, analysed: &Analysed) -> Vec<Found> {
    analysed
        .doc
        .conversations
        .iter()
        .flat_map(|conv| of_conversation(path, conv))
        .collect()
}

fn of_conversation(path: &str, conv: &Conversation) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    let mut current: Option<Found> = None;
    for m in &conv.messages {
        let calls = m.calls.iter().filter(|c| !c.server).map(|c| {
            let id = c.id.clone().unwrap_or_else(|| format!("#{}", c.pos.offset));
            BatchCall::new(id, c.name.clone().unwrap_or_else(|| "unknown".into()))
        });
        match &mut current {
            Some(f) if m.continuation => f.batch.calls.extend(calls),
            _ => {
                if let Some(f) = current.take() {
                    out.push(f);
                }
                current = Some(Found {
                    batch: Batch::new(
                        format!(
                            "{path}:{} conversation {} message {}",
                            m.pos.line, conv.index, m.index
                        ),
                        calls.collect(),
                    ),
                    conversation: conv.index,
                    message: m.clone(),
                });
            }
        }
    }
    out.extend(current);
    out.retain(|f| f.batch.calls.len() >= 2);
    out
}

/// TM008 findings: batches where an interrupt would make a sibling run twice unguarded.
pub fn hitl_findings(path: &str, analysed: &Analysed, sets: &ToolSets) -> Vec<Finding> {
    batches(path, analysed)
        .into_iter()
        .filter_map(|found| {
            let risk = double_execution_risk(sets, &found.batch)?;
            let mut f = Finding::new(Rule::HitlDoubleExecutionRisk, path, risk.message.clone());
            f.line = found.message.pos.line;
            f.column = found.message.pos.column;
            f.pointer = found.message.pos.pointer.clone();
            f.conversation = Some(found.conversation);
            f.message_index = Some(found.message.index);
            let pausing = risk.interrupting.first().cloned();
            f.call_id = pausing.as_ref().and_then(|name| {
                found
                    .batch
                    .calls
                    .iter()
                    .find(|c| &c.name == name)
                    .map(|c| c.id.clone())
            });
            f.tool_name = pausing;
            Some(f)
        })
        .collect()
}
