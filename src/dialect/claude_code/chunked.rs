//! A vector kept in chunks of a fixed size, for the per-line records of a Claude Code file:
//! a vector grown by doubling holds up to twice what it needs, and while it moves, its old
//! and its new copy at once (three times the records at the peak). Chunks are allocated once
//! at their final size and never move: the records cost their size and one spare chunk.

use std::ops::{Index, IndexMut};

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
}
