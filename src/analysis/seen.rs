//! What the walk keeps for every call id it has seen, for the whole conversation: the call and
//! first result that closed it (to report a later duplicate result) and, when ids must be
//! unique, its first call (to report a reuse). Each id is interned once and both records are
//! packed in 8 bytes each, in fixed-size chunks indexed by its number, so a long log costs its
//! ids' bytes and about 20 bytes per id, not a hash-map entry and a heap string per id and per
//! record, and growing never copies what is kept.

use std::collections::HashMap;

use crate::chunked::Chunked;
use crate::intern::{Interner, Sym};

use super::{Closed, FirstCall};

/// Records too large to pack, by the id's number.
type Spilled<T> = HashMap<Sym, T, foldhash::fast::RandomState>;

/// The records kept per call id seen.
#[derive(Debug, Default)]
pub(super) struct Seen {
    ids: Interner,
    /// Indexed by the id's number (see [`pack_closed`]).
    closed: Chunked<u64>,
    spilled: Spilled<Closed>,
    /// Indexed by the id's number, as far as any first call was recorded (see
    /// [`pack_first`]).
    first_calls: Chunked<u64>,
    first_spilled: Spilled<FirstCall>,
}

/// The state of a packed record, in its top two bits: nothing recorded, packed, or spilled
/// (kept whole in a map because a field does not fit).
const NONE: u64 = 0;
const PACKED: u64 = 1;
const SPILLED: u64 = 2;
const STATE_SHIFT: u32 = 62;

fn state(word: u64) -> u64 {
    word >> STATE_SHIFT
}

/// Field `bits` wide at `shift` of `word`.
fn field(word: u64, shift: u32, bits: u32) -> u32 {
    ((word >> shift) & ((1 << bits) - 1)) as u32
}

/// `v` at `shift`, if it fits in `bits`.
fn put(v: u32, shift: u32, bits: u32) -> Option<u64> {
    (v < 1 << bits).then_some(u64::from(v) << shift)
}

/// Bits of the [`Closed`] fields packed beside its message number (bits 28 to 59) and its two
/// flags (bits 60 and 61), from bit 0 up: its tool name, the first result's slot, the call's
/// slot, the first result's message less the call's (plus a bias: it may come before), and the
/// holder's message less the call's.
const NAME: (u32, u32) = (0, 6);
const FIRST_SLOT: (u32, u32) = (6, 5);
const SLOT: (u32, u32) = (11, 5);
const FIRST_DELTA: (u32, u32) = (16, 9);
const HOLDER_DELTA: (u32, u32) = (25, 3);
const MESSAGE_SHIFT: u32 = 28;
const FIRST_BIAS: i64 = 1 << (FIRST_DELTA.1 - 1);

/// `c` in one word, when its fields fit: the message numbers of the call, its holder and its
/// first result are nearly always close, and its slots and tool name small.
fn pack_closed(c: &Closed) -> Option<u64> {
    let first_delta = i64::from(c.first_message) - i64::from(c.message) + FIRST_BIAS;
    let first_delta = u32::try_from(first_delta).ok()?;
    let holder_delta = c.holder.checked_sub(c.message)?;
    Some(
        PACKED << STATE_SHIFT
            | u64::from(c.first_alone) << 61
            | u64::from(c.first_whole) << 60
            | u64::from(c.message) << MESSAGE_SHIFT
            | put(holder_delta, HOLDER_DELTA.0, HOLDER_DELTA.1)?
            | put(first_delta, FIRST_DELTA.0, FIRST_DELTA.1)?
            | put(c.slot, SLOT.0, SLOT.1)?
            | put(c.first_slot, FIRST_SLOT.0, FIRST_SLOT.1)?
            | put(c.name, NAME.0, NAME.1)?,
    )
}

fn unpack_closed(word: u64) -> Closed {
    let message = field(word, MESSAGE_SHIFT, 32);
    let first_delta = i64::from(field(word, FIRST_DELTA.0, FIRST_DELTA.1)) - FIRST_BIAS;
    Closed {
        message,
        holder: message + field(word, HOLDER_DELTA.0, HOLDER_DELTA.1),
        slot: field(word, SLOT.0, SLOT.1),
        name: field(word, NAME.0, NAME.1),
        first_message: u32::try_from(i64::from(message) + first_delta).expect("packed to fit"),
        first_slot: field(word, FIRST_SLOT.0, FIRST_SLOT.1),
        first_alone: field(word, 61, 1) == 1,
        first_whole: field(word, 60, 1) == 1,
    }
}

/// A [`FirstCall`] in one word, when its fields fit: its message number (bits 30 to 61), the
/// holder's less the call's (bits 15 to 29) and its slot (bits 0 to 14).
fn pack_first(f: &FirstCall) -> Option<u64> {
    Some(
        PACKED << STATE_SHIFT
            | u64::from(f.message) << 30
            | put(f.holder.checked_sub(f.message)?, 15, 15)?
            | put(f.slot, 0, 15)?,
    )
}

fn unpack_first(word: u64) -> FirstCall {
    let message = field(word, 30, 32);
    FirstCall {
        message,
        holder: message + field(word, 15, 15),
        slot: field(word, 0, 15),
    }
}

/// Keep `record` at `sym` of `words`, packed if it fits, else in `spilled`.
fn store<T>(
    words: &mut Chunked<u64>,
    spilled: &mut Spilled<T>,
    sym: Sym,
    record: T,
    pack: fn(&T) -> Option<u64>,
) {
    let i = sym as usize;
    while words.len() <= i {
        words.push(NONE);
    }
    if state(words[i]) == SPILLED {
        spilled.remove(&sym);
    }
    words[i] = pack(&record).unwrap_or_else(|| {
        spilled.insert(sym, record);
        SPILLED << STATE_SHIFT
    });
}

/// The record at `sym` of `words`, if any.
fn load<T: Copy>(
    words: &Chunked<u64>,
    spilled: &Spilled<T>,
    sym: Sym,
    unpack: fn(u64) -> T,
) -> Option<T> {
    let word = *words.get(sym as usize)?;
    match state(word) {
        PACKED => Some(unpack(word)),
        SPILLED => spilled.get(&sym).copied(),
        _ => None,
    }
}

impl Seen {
    /// Forget every id, keeping the room of a short conversation's records.
    pub(super) fn clear(&mut self) {
        self.ids.clear();
        self.closed.clear();
        self.spilled.clear();
        self.first_calls.clear();
        self.first_spilled.clear();
    }

    /// How many ids the table of ids has room for (kept by [`Seen::clear`]).
    pub(super) fn room(&self) -> usize {
        self.ids.room()
    }

    /// The call and first result that last closed `id`.
    pub(super) fn closed(&self, id: &str) -> Option<Closed> {
        load(
            &self.closed,
            &self.spilled,
            self.ids.find(id)?,
            unpack_closed,
        )
    }

    /// Record that `closed` closed `id` (replacing what closed it before).
    pub(super) fn close(&mut self, id: &str, closed: Closed) {
        let sym = self.ids.intern(id);
        store(
            &mut self.closed,
            &mut self.spilled,
            sym,
            closed,
            pack_closed,
        );
    }

    /// The first call recorded for `id`.
    pub(super) fn first_call(&self, id: &str) -> Option<FirstCall> {
        let sym = self.ids.find(id)?;
        load(&self.first_calls, &self.first_spilled, sym, unpack_first)
    }

    /// Record the first call of `id`.
    pub(super) fn set_first_call(&mut self, id: &str, first: FirstCall) {
        let sym = self.ids.intern(id);
        store(
            &mut self.first_calls,
            &mut self.first_spilled,
            sym,
            first,
            pack_first,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed(slot: u32, first_slot: u32, name: u32) -> Closed {
        Closed {
            message: 1000,
            holder: 1001,
            slot,
            name,
            first_message: 997,
            first_slot,
            first_alone: true,
            first_whole: false,
        }
    }

    #[test]
    fn records_come_back_as_kept_packed_or_spilled() {
        let mut seen = Seen::default();
        let small = closed(3, 31, 63);
        let far = |first_message, holder| Closed {
            first_message,
            holder,
            ..small
        };
        let edges = [
            far(1000 - 256, 1000 + 7),
            far(1000 + 255, 1000),
            Closed {
                message: u32::MAX,
                holder: u32::MAX,
                first_message: u32::MAX,
                first_whole: true,
                first_alone: false,
                ..small
            },
        ];
        let wide = [
            closed(32, 0, 0),
            closed(0, 32, 0),
            closed(0, 0, 64),
            far(1000 + 256, 1000),
            far(1000 - 257, 1000),
            far(1000, 1000 + 8),
            far(1000, 999),
            far(u32::MAX, 1000),
        ];
        seen.close("a", small);
        for (n, c) in edges.iter().chain(&wide).enumerate() {
            seen.close(&format!("id {n}"), *c);
        }
        assert_eq!(seen.closed("a"), Some(small));
        for (n, c) in edges.iter().chain(&wide).enumerate() {
            assert_eq!(seen.closed(&format!("id {n}")), Some(*c), "{n}");
        }
        assert_eq!(seen.spilled.len(), wide.len());
        // A later close replaces the record, in either direction.
        seen.close("a", wide[0]);
        seen.close("id 4", small);
        assert_eq!(seen.closed("a"), Some(wide[0]));
        assert_eq!(seen.closed("id 4"), Some(small));
        assert_eq!(seen.spilled.len(), wide.len());
        assert_eq!(seen.closed("b"), None);
    }

    #[test]
    fn first_calls_come_back_as_kept_packed_or_spilled() {
        let mut seen = Seen::default();
        let first = |message, holder, slot| FirstCall {
            message,
            holder,
            slot,
        };
        let packed = [
            first(1, 1, 0),
            first(u32::MAX - (1 << 15) + 1, u32::MAX, (1 << 15) - 1),
        ];
        let wide = [first(5, 4, 0), first(0, 1 << 15, 0), first(0, 0, 1 << 15)];
        for (n, f) in packed.iter().chain(&wide).enumerate() {
            seen.set_first_call(&n.to_string(), *f);
        }
        for (n, f) in packed.iter().chain(&wide).enumerate() {
            assert_eq!(seen.first_call(&n.to_string()), Some(*f));
        }
        assert_eq!(seen.first_spilled.len(), wide.len());
    }

    /// What a long one-message-per-line log keeps per id: its bytes, one byte of length, a
    /// 4-byte start, an 8-byte record and its share of the hash table, in allocations of at
    /// most 64 KiB but the table shards (no large buffer that doubles, and holds its old and
    /// new copy at once while it moves). Counted from capacities: deterministic.
    #[test]
    fn a_long_log_costs_about_22_bytes_per_id_beyond_its_text() {
        let mut seen = Seen::default();
        let n = 300_000;
        let mut text = 0;
        for k in 0..n {
            let id = format!("call_{k}_{}_0", k % 7);
            text += id.len();
            seen.close(&id, closed(k % 3, 0, 1));
        }
        assert_eq!(seen.closed("call_4_4_0"), Some(closed(1, 0, 1)));
        let mut sizes = seen.ids.allocations();
        sizes.extend(seen.closed.allocations());
        sizes.push(seen.spilled.capacity() * 64);
        let total: usize = sizes.iter().sum();
        let per_id = (total - text) as f64 / n as f64;
        assert!(per_id < 25.0, "{per_id:.1} bytes per id beyond the text");
        // The largest allocation: a shard of the table (1/64 of it), not the text or records.
        let largest = *sizes.iter().max().unwrap();
        assert!(largest <= 1 << 16, "largest allocation {largest} bytes");
        assert!(seen.spilled.is_empty());
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
        assert_eq!(seen.first_call("x"), Some(first));
        assert_eq!(seen.closed("x"), None);
        seen.close("y", closed(0, 0, 0));
        assert_eq!(seen.first_call("y"), None);
        assert_eq!(seen.first_call("z"), None);
    }
}
