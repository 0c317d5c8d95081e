//! Strings of the chain of a Claude Code file: every uuid, parent and id is interned (see
//! [`crate::intern`]), so a link per line costs a few words rather than a handful of heap
//! strings and lookups by uuid are plain vector indexing; timestamps, only read back, are
//! kept in one buffer.

use std::borrow::Cow;

use super::chunked::Chunked;
pub(super) use crate::intern::{Interner, Sym};

/// Timestamps, numbered in order (not deduplicated, not looked up: only read back and
/// compared as text). One written as Claude Code writes it (`2025-11-03T10:00:00.000Z`) is
/// kept as its 17 digits in 8 bytes, which order as the text does; any other is kept as text.
#[derive(Debug, Default)]
pub(super) struct Stamps {
    /// Per timestamp: its digits, or (top bit set) the number of its text in `other`.
    packed: Chunked<u64>,
    other: String,
    ends: Vec<usize>,
}

/// The top bit of a [`Stamps`] entry: the timestamp is text.
const TEXT: u64 = 1 << 63;

/// Where the fixed punctuation of `YYYY-MM-DDTHH:MM:SS.mmmZ` stands.
const PUNCTUATION: [(usize, u8); 7] = [
    (4, b'-'),
    (7, b'-'),
    (10, b'T'),
    (13, b':'),
    (16, b':'),
    (19, b'.'),
    (23, b'Z'),
];

/// The digits of `s` as one number, when `s` is `YYYY-MM-DDTHH:MM:SS.mmmZ` exactly.
fn pack(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 24 || PUNCTUATION.iter().any(|&(i, c)| b[i] != c) {
        return None;
    }
    let mut n = 0u64;
    for (i, &c) in b.iter().enumerate() {
        if PUNCTUATION.iter().any(|&(k, _)| k == i) {
            continue;
        }
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(c - b'0');
    }
    Some(n)
}

/// The text [`pack`] made `n` from.
fn unpack(mut n: u64) -> String {
    let mut b = [0u8; 24];
    for i in (0..24).rev() {
        match PUNCTUATION.iter().find(|&&(k, _)| k == i) {
            Some(&(_, c)) => b[i] = c,
            None => {
                b[i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

impl Stamps {
    /// Keep `s`; its number.
    pub(super) fn push(&mut self, s: &str) -> Sym {
        let sym = Sym::try_from(self.packed.len()).expect("fewer than 2^32 timestamps");
        let entry = pack(s).unwrap_or_else(|| {
            self.other.push_str(s);
            self.ends.push(self.other.len());
            TEXT | (self.ends.len() - 1) as u64
        });
        self.packed.push(entry);
        sym
    }

    /// The timestamp numbered `sym`, as it was written.
    pub(super) fn get(&self, sym: Sym) -> Cow<'_, str> {
        let entry = self.packed[sym as usize];
        if entry & TEXT == 0 {
            return Cow::Owned(unpack(entry));
        }
        let i = (entry & !TEXT) as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Cow::Borrowed(&self.other[start..self.ends[i]])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_back_as_written_and_order_as_text() {
        let written = [
            "2025-11-03T10:00:00.000Z",
            "2025-11-03T09:59:59.999Z",
            "0000-00-00T00:00:00.000Z",
            "9999-99-99T99:99:99.999Z",
            "2025-11-03T10:00:00Z",
            "2025-11-03T10:00:00.000+01:00",
            "2025-11-03T1a:00:00.000Z",
            "",
            "t1",
        ];
        let mut stamps = Stamps::default();
        let syms: Vec<Sym> = written.iter().map(|s| stamps.push(s)).collect();
        for (s, &sym) in written.iter().zip(&syms) {
            assert_eq!(stamps.get(sym), *s);
        }
        // Packed: 8 bytes each, no text kept.
        assert_eq!(
            stamps.other.len(),
            "2025-11-03T10:00:00Z2025-11-03T10:00:00.000+01:002025-11-03T1a:00:00.000Zt1".len()
        );
        for &a in &syms[..4] {
            for &b in &syms[..4] {
                let (pa, pb) = (stamps.packed[a as usize], stamps.packed[b as usize]);
                assert_eq!(pa.cmp(&pb), written[a as usize].cmp(written[b as usize]));
            }
        }
    }
}
