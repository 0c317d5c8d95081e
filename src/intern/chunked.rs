//! A vector kept in chunks of a fixed size, for what is kept per interned string: a vector
//! grown by doubling holds up to twice what it needs, and while it moves, its old and its new
//! copy at once. Full chunks are allocated once at their final size and never move, so the
//! values cost their size and one partly filled chunk, and growing never copies them.

use std::ops::{Index, IndexMut};

/// Values per chunk, as a power of two.
const CHUNK_BITS: u32 = 13;
/// Values per chunk.
const CHUNK: usize = 1 << CHUNK_BITS;

/// A vector of `T` in chunks of [`CHUNK`] values. The first chunk grows as a vector does, so
/// a short one pays for what it holds.
#[derive(Debug)]
pub(crate) struct Chunked<T> {
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
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < last.capacity() => last.push(value),
            _ => self.grow(value),
        }
        self.len += 1;
    }

    /// Add `value` where the last chunk is full: grow the first chunk as a vector would (but
    /// never past one chunk), or start a chunk.
    #[cold]
    fn grow(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => {
                let room = (2 * last.capacity()).clamp(4, CHUNK);
                last.reserve_exact(room - last.len());
                last.push(value);
            }
            _ => {
                let mut chunk = Vec::with_capacity(if self.chunks.is_empty() { 4 } else { CHUNK });
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
    }

    /// How many values there are.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Value `i`, if there are that many.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i >> CHUNK_BITS)?.get(i & (CHUNK - 1))
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_index_across_chunks() {
        let mut v = Chunked::default();
        let n = 3 * CHUNK + 5;
        for i in 0..n {
            v.push(i);
        }
        assert_eq!(v.len(), n);
        for i in [0, 1, 4, 5, CHUNK - 1, CHUNK, 2 * CHUNK + 1, n - 1] {
            assert_eq!((v[i], v.get(i)), (i, Some(&i)));
        }
        assert_eq!(v.get(n), None);
        v[CHUNK] = 7;
        assert_eq!(v[CHUNK], 7);
        // Every chunk but the last is full and was never grown past its size; the first grew
        // from a small start.
        assert_eq!(v.chunks.len(), 4);
        assert!(
            v.chunks[..3]
                .iter()
                .all(|c| c.len() == CHUNK && c.capacity() == CHUNK)
        );
        assert_eq!(v.chunks[3].capacity(), CHUNK);
        let mut small = Chunked::default();
        small.push(1u64);
        assert_eq!(small.chunks[0].capacity(), 4);
    }
}
