//! What the walk keeps for every call id it has seen, for the whole conversation: the call and
//! first result that closed it (to report a later duplicate result) and, when ids must be
//! unique, its first call (to report a reuse). Each id is interned once and both records live
//! in vectors indexed by its number, so a long log costs its ids' bytes and a few words per
//! id, not a hash-map entry and a heap string per id and per record.

use std::collections::HashMap;

use crate::intern::Interner;

use super::{Closed, FirstCall};

/// The records kept per call id seen.
#[derive(Debug, Default)]
pub(super) struct Seen {
    ids: Interner,
    /// Indexed by the id's number.
    closed: Vec<Packed>,
    /// The records too large to pack, by the id's number.
    spilled: HashMap<usize, Closed, foldhash::fast::RandomState>,
    /// Indexed by the id's number (as far as any first call was recorded).
    first_calls: Vec<Option<FirstCall>>,
}

/// A [`Closed`] in 16 bytes: the message numbers whole, and the slots, the tool name's number
/// and the two flags in one word. Those fit in every real log; a record whose do not is
/// spilled to [`Seen::spilled`].
#[derive(Debug, Clone, Copy, Default)]
struct Packed {
    message: u32,
    holder: u32,
    first_message: u32,
    /// State (2 bits: none, packed, spilled), first result alone, first result whole,
    /// slot, first result's slot, name (from the top).
    bits: u32,
}

const NONE: u32 = 0;
const PACKED: u32 = 1;
const SPILLED: u32 = 2;
/// Bits of the slot, the first result's slot and the name.
const SLOT_BITS: u32 = 9;
const NAME_BITS: u32 = 10;

impl Packed {
    fn state(self) -> u32 {
        self.bits >> 30
    }

    /// The packed form of `c`, when its small fields fit.
    fn of(c: &Closed) -> Option<Packed> {
        let fits = |v: u32, bits: u32| v < 1 << bits;
        if !(fits(c.slot, SLOT_BITS) && fits(c.first_slot, SLOT_BITS) && fits(c.name, NAME_BITS)) {
            return None;
        }
        let bits = PACKED << 30
            | u32::from(c.first_alone) << 29
            | u32::from(c.first_whole) << 28
            | c.slot << (NAME_BITS + SLOT_BITS)
            | c.first_slot << NAME_BITS
            | c.name;
        Some(Packed {
            message: c.message,
            holder: c.holder,
            first_message: c.first_message,
            bits,
        })
    }

    fn unpack(self) -> Closed {
        let field = |shift: u32, bits: u32| (self.bits >> shift) & ((1 << bits) - 1);
        Closed {
            message: self.message,
            holder: self.holder,
            slot: field(NAME_BITS + SLOT_BITS, SLOT_BITS),
            name: field(0, NAME_BITS),
            first_message: self.first_message,
            first_slot: field(NAME_BITS, SLOT_BITS),
            first_alone: field(29, 1) == 1,
            first_whole: field(28, 1) == 1,
        }
    }
}

impl Seen {
    fn sym(&mut self, id: &str) -> usize {
        let sym = self.ids.intern(id) as usize;
        if self.closed.len() <= sym {
            self.closed.resize(sym + 1, Packed::default());
        }
        sym
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.ids.find(id).map(|sym| sym as usize)
    }

    /// The call and first result that last closed `id`.
    pub(super) fn closed(&self, id: &str) -> Option<Closed> {
        let sym = self.find(id)?;
        let packed = self.closed[sym];
        match packed.state() {
            PACKED => Some(packed.unpack()),
            SPILLED => self.spilled.get(&sym).copied(),
            _ => None,
        }
    }

    /// Record that `closed` closed `id` (replacing what closed it before).
    pub(super) fn close(&mut self, id: &str, closed: Closed) {
        let sym = self.sym(id);
        if self.closed[sym].state() == SPILLED {
            self.spilled.remove(&sym);
        }
        self.closed[sym] = Packed::of(&closed).unwrap_or_else(|| {
            self.spilled.insert(sym, closed);
            Packed {
                bits: SPILLED << 30,
                ..Packed::default()
            }
        });
        debug_assert_ne!(self.closed[sym].state(), NONE);
    }

    /// The first call recorded for `id`.
    pub(super) fn first_call(&self, id: &str) -> Option<&FirstCall> {
        self.find(id)
            .and_then(|sym| self.first_calls.get(sym))
            .and_then(Option::as_ref)
    }

    /// Record the first call of `id`.
    pub(super) fn set_first_call(&mut self, id: &str, first: FirstCall) {
        let sym = self.sym(id);
        if self.first_calls.len() <= sym {
            self.first_calls.resize(sym + 1, None);
        }
        self.first_calls[sym] = Some(first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed(slot: u32, first_slot: u32, name: u32) -> Closed {
        Closed {
            message: 7,
            holder: 8,
            slot,
            name,
            first_message: u32::MAX,
            first_slot,
            first_alone: true,
            first_whole: false,
        }
    }

    #[test]
    fn records_come_back_as_kept_packed_or_spilled() {
        let mut seen = Seen::default();
        let small = closed(3, 511, 1023);
        let wide = [closed(512, 0, 0), closed(0, 512, 0), closed(0, 0, 1024)];
        seen.close("a", small);
        for (n, c) in wide.iter().enumerate() {
            seen.close(&format!("wide {n}"), *c);
        }
        assert_eq!(seen.closed("a"), Some(small));
        for (n, c) in wide.iter().enumerate() {
            assert_eq!(seen.closed(&format!("wide {n}")), Some(*c));
        }
        // A later close replaces the record, in either direction.
        seen.close("a", wide[0]);
        seen.close("wide 1", small);
        assert_eq!(seen.closed("a"), Some(wide[0]));
        assert_eq!(seen.closed("wide 1"), Some(small));
        assert_eq!(seen.spilled.len(), 3);
        assert_eq!(seen.closed("b"), None);
    }

    #[test]
    fn a_first_call_alone_does_not_close_the_id() {
        let mut seen = Seen::default();
        let first = FirstCall {
            message: 1,
            holder: 1,
            slot: 0,
        };
        seen.set_first_call("x", first);
        assert_eq!(seen.first_call("x"), Some(&first));
        assert_eq!(seen.closed("x"), None);
        seen.close("y", closed(0, 0, 0));
        assert_eq!(seen.first_call("y"), None);
    }
}
