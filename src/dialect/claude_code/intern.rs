//! Strings of the chain of a Claude Code file: every uuid, parent and id is interned (see
//! [`crate::intern`]), so a link per line costs a few words rather than a handful of heap
//! strings and lookups by uuid are plain vector indexing; timestamps, only read back, are
//! kept in one buffer.

pub(super) use crate::intern::{Interner, Sym};

/// Strings kept one after another in one buffer, numbered in order (not deduplicated, not
/// looked up: for values that are only read back).
#[derive(Debug, Default)]
pub(super) struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    /// Keep `s`; its number.
    pub(super) fn push(&mut self, s: &str) -> Sym {
        let sym = Sym::try_from(self.ends.len()).expect("fewer than 2^32 strings");
        self.text.push_str(s);
        self.ends.push(self.text.len());
        sym
    }

    /// The string numbered `sym`.
    pub(super) fn get(&self, sym: Sym) -> &str {
        let i = sym as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

/// An optional [`Sym`] in four bytes (`u32::MAX`: none), to keep per-line records small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OptSym(u32);

impl OptSym {
    /// No string.
    pub(super) const NONE: OptSym = OptSym(u32::MAX);

    pub(super) fn new(sym: Option<Sym>) -> OptSym {
        OptSym(sym.unwrap_or(u32::MAX))
    }

    pub(super) fn get(self) -> Option<Sym> {
        (self.0 != u32::MAX).then_some(self.0)
    }
}
