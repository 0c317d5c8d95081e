//! A vector kept in chunks of a fixed size, for the per-line records of a Claude Code file:
//! a vector grown by doubling holds up to twice what it needs, and while it moves, its old
//! and its new copy at once (three times the records at the peak). Chunks are allocated once
//! at their final size and never move: the records cost their size and one spare chunk.

use std::borrow::Cow;
use std::ops::{Index, IndexMut};

use crate::model::Span;

/// Records per chunk (the first chunk grows to it as a vector does, so a small file pays
/// for what it holds).
const CHUNK: usize = 1 << 12;

/// A vector of `T` in chunks of [`CHUNK`] records.
#[derive(Debug)]
pub(super) struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    /// Add `value` at the end.
    pub(super) fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(value),
            Some(_) => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(value);
                self.chunks.push(chunk);
            }
            None => self.chunks.push(vec![value]),
        }
        self.len += 1;
    }

    /// How many records there are.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The records, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;

    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> IntoIterator for Chunked<T> {
    type Item = T;
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Vec<T>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.into_iter().flatten()
    }
}

/// Bytes in chunks of [`RECORD_CHUNK`] (or one record, when longer) that are allocated once
/// and never move; a record never straddles two chunks.
#[derive(Debug, Default)]
pub(super) struct Records {
    chunks: Vec<Vec<u8>>,
}

/// The size of a [`Records`] chunk.
const RECORD_CHUNK: usize = 1 << 16;

impl Records {
    /// Keep `record`; where it starts (its chunk in the high half, its offset in the low).
    pub(super) fn push(&mut self, record: &[u8]) -> u64 {
        let at = self.reserve(record.len());
        self.chunks
            .last_mut()
            .expect("reserved")
            .extend_from_slice(record);
        at
    }

    /// Room for `len` bytes at the end of the last chunk; where they start.
    fn reserve(&mut self, len: usize) -> u64 {
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.capacity() - c.len() >= len);
        if !fits {
            self.chunks.push(Vec::with_capacity(len.max(RECORD_CHUNK)));
        }
        let k = self.chunks.len() - 1;
        ((k as u64) << 32) | self.chunks[k].len() as u64
    }

    /// How many bytes are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Keep `s` as [`Writer::str`] writes it; where it starts.
    pub(super) fn push_str(&mut self, s: &str) -> u64 {
        // The length as `Writer::uint` writes it.
        let (mut head, mut n, mut len) = ([0u8; 10], s.len() as u64, 0);
        while n >= 0x80 {
            head[len] = n as u8 | 0x80;
            n >>= 7;
            len += 1;
        }
        head[len] = n as u8;
        let at = self.reserve(len + 1 + s.len());
        let chunk = self.chunks.last_mut().expect("reserved");
        chunk.extend_from_slice(&head[..=len]);
        chunk.extend_from_slice(s.as_bytes());
        at
    }

    /// The bytes from `at` to the end of its chunk.
    pub(super) fn from(&self, at: u64) -> &[u8] {
        &self.chunks[(at >> 32) as usize][(at & u64::from(u32::MAX)) as usize..]
    }
}

/// Writes the numbers of a record.
pub(super) struct Writer<'a>(pub(super) &'a mut Vec<u8>);

impl Writer<'_> {
    /// `n` in 7-bit groups, low first; the top bit of a byte says another follows.
    pub(super) fn uint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push(n as u8 | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }

    pub(super) fn usize(&mut self, n: usize) {
        self.uint(n as u64);
    }

    /// A signed `n`, zigzagged (small magnitudes take one byte).
    pub(super) fn int(&mut self, n: i64) {
        self.uint(((n << 1) ^ (n >> 63)) as u64);
    }

    /// `n` relative to `base`.
    pub(super) fn rel(&mut self, n: usize, base: usize) {
        self.int(n as i64 - base as i64);
    }

    /// Its length, then its bytes.
    pub(super) fn str(&mut self, s: &str) {
        self.usize(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    pub(super) fn opt_str(&mut self, s: &Option<String>) {
        if let Some(s) = s {
            self.str(s);
        }
    }

    pub(super) fn span(&mut self, s: Span, base: usize) {
        self.rel(s.start, base);
        self.usize(s.end - s.start);
    }
}

/// Reads the numbers a [`Writer`] wrote.
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn uint(&mut self) -> u64 {
        let mut n = 0u64;
        let mut shift = 0;
        loop {
            let b = self.0[0];
            self.0 = &self.0[1..];
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return n;
            }
            shift += 7;
        }
    }

    pub(super) fn usize(&mut self) -> usize {
        self.uint() as usize
    }

    pub(super) fn int(&mut self) -> i64 {
        let n = self.uint();
        (n >> 1) as i64 ^ -((n & 1) as i64)
    }

    pub(super) fn rel(&mut self, base: usize) -> usize {
        (base as i64 + self.int()) as usize
    }

    pub(super) fn str(&mut self) -> Cow<'a, str> {
        let len = self.usize();
        let (s, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8_lossy(s)
    }

    pub(super) fn opt_str(&mut self, present: bool) -> Option<String> {
        present.then(|| self.str().into_owned())
    }

    pub(super) fn span(&mut self, base: usize) -> Span {
        let start = self.rel(base);
        Span {
            start,
            end: start + self.usize(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_their_index_across_chunks() {
        let mut v = Chunked::default();
        for i in 0..3 * CHUNK + 5 {
            v.push(i);
        }
        assert_eq!(v.len(), 3 * CHUNK + 5);
        assert_eq!(v[0], 0);
        assert_eq!(v[CHUNK - 1], CHUNK - 1);
        assert_eq!(v[CHUNK], CHUNK);
        assert_eq!(v[3 * CHUNK + 4], 3 * CHUNK + 4);
        v[CHUNK] = 7;
        assert_eq!(v[CHUNK], 7);
        assert!(
            v.iter()
                .copied()
                .eq((0..3 * CHUNK + 5).map(|i| if i == CHUNK { 7 } else { i }))
        );
        // Full chunks were allocated at their size and never grown past it.
        assert!(
            v.chunks
                .iter()
                .all(|c| c.capacity() == CHUNK || c.len() < CHUNK)
        );
        assert_eq!(v.into_iter().count(), 3 * CHUNK + 5);
    }

    #[test]
    fn numbers_of_every_size_read_back() {
        let mut bytes = Vec::new();
        let mut w = Writer(&mut bytes);
        let values = [
            0u64,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        for &v in &values {
            w.uint(v);
        }
        let signed = [0i64, -1, 1, -64, 64, i64::MIN, i64::MAX];
        for &v in &signed {
            w.int(v);
        }
        w.str("toolu_é");
        let mut records = Records::default();
        let long = "x".repeat(300);
        let (short_at, long_at) = (records.push_str("toolu_é"), records.push_str(&long));
        assert_eq!(Reader(records.from(short_at)).str(), "toolu_é");
        assert_eq!(Reader(records.from(long_at)).str(), long);
        let mut r = Reader(&bytes);
        assert!(values.iter().all(|&v| r.uint() == v));
        assert!(signed.iter().all(|&v| r.int() == v));
        assert_eq!(r.str(), "toolu_é");
        assert!(r.0.is_empty());
    }

    #[test]
    fn a_record_longer_than_a_chunk_gets_a_chunk_of_its_own() {
        let mut records = Records::default();
        let small = records.push(&[1, 2, 3]);
        let big = records.push(&vec![7; RECORD_CHUNK + 1]);
        let after = records.push(&[4]);
        assert_eq!(&records.from(small)[..3], &[1, 2, 3]);
        assert_eq!(records.from(big).len(), RECORD_CHUNK + 1);
        assert_eq!(records.from(after)[0], 4);
        assert_eq!(after >> 32, 2);
    }
}
