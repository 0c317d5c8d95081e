//! Variable-length records for a Claude Code file's per-line data, in byte chunks that are
//! allocated once and never move (a buffer grown by doubling holds up to twice what it needs,
//! and while it moves, its old and its new copy at once), and the compact numbers and strings
//! they are written in. Fixed-size values go in [`crate::chunked::Chunked`].

use std::borrow::Cow;

use crate::model::Span;

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
        String::from_utf8_lossy(self.bytes())
    }

    /// The bytes of a string [`Writer::str`] wrote.
    pub(super) fn bytes(&mut self) -> &'a [u8] {
        let len = self.usize();
        let (s, rest) = self.0.split_at(len);
        self.0 = rest;
        s
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
