//! A vector kept in chunks of a fixed size, for what a long log keeps per id or per line (the
//! walk's per-id records, the interner's starts, a Claude Code session's chain): a vector
//! grown by doubling holds up to twice what it needs, and while it moves, its old and its new
//! copy at once, which sets the peak of a long log. Full chunks are allocated once at their
//! final size and never move, so the values cost their size and one partly filled chunk, and
//! growing never copies them.

use std::ops::{Index, IndexMut};

/// Values per chunk, as a power of two.
const CHUNK_BITS: u32 = 13;
/// Values per chunk.
const CHUNK: usize = 1 << CHUNK_BITS;

/// A vector of `T` in chunks of [`CHUNK`] values. The first chunk is kept inline and grows as
/// a vector does, so a short one costs what a vector would (one allocation).
#[derive(Debug)]
pub(crate) struct Chunked<T> {
    first: Vec<T>,
    /// The chunks after the first.
    more: Vec<Vec<T>>,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            first: Vec::new(),
            more: Vec::new(),
        }
    }
}

impl<T> Chunked<T> {
    /// Add `value` at the end.
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        let last = self.more.last_mut().unwrap_or(&mut self.first);
        if last.len() < last.capacity() {
            last.push(value);
        } else {
            self.grow(value);
        }
    }

    /// Add `value` where the last chunk is full: grow the first chunk as a vector would (but
    /// never past one chunk), or start a chunk.
    #[cold]
    fn grow(&mut self, value: T) {
        if self.more.is_empty() && self.first.len() < CHUNK {
            let room = (2 * self.first.capacity()).clamp(4, CHUNK);
            self.first.reserve_exact(room - self.first.len());
            self.first.push(value);
        } else {
            let mut chunk = Vec::with_capacity(CHUNK);
            chunk.push(value);
            self.more.push(chunk);
        }
    }

    /// Remove every value, keeping the first chunk's room (the later chunks are freed).
    pub(crate) fn clear(&mut self) {
        self.first.clear();
        self.more = Vec::new();
    }

    /// How many values there are.
    pub(crate) fn len(&self) -> usize {
        self.first.len()
            + self
                .more
                .last()
                .map_or(0, |last| (self.more.len() - 1) * CHUNK + last.len())
    }

    /// The bytes of each allocation held (for the memory tests).
    #[cfg(test)]
    pub(crate) fn allocations(&self) -> impl Iterator<Item = usize> + '_ {
        let size = std::mem::size_of::<T>();
        std::iter::once(&self.first)
            .chain(&self.more)
            .map(move |c| c.capacity() * size)
            .chain([self.more.capacity() * std::mem::size_of::<Vec<T>>()])
    }

    /// The values, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        std::iter::once(&self.first).chain(&self.more).flatten()
    }

    /// Value `i`, if there are that many.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i < CHUNK {
            self.first.get(i)
        } else {
            self.more.get((i >> CHUNK_BITS) - 1)?.get(i & (CHUNK - 1))
        }
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        if i < CHUNK {
            &self.first[i]
        } else {
            &self.more[(i >> CHUNK_BITS) - 1][i & (CHUNK - 1)]
        }
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        if i < CHUNK {
            &mut self.first[i]
        } else {
            &mut self.more[(i >> CHUNK_BITS) - 1][i & (CHUNK - 1)]
        }
    }
}

impl<T> IntoIterator for Chunked<T> {
    type Item = T;
    type IntoIter =
        std::iter::Flatten<std::iter::Chain<std::iter::Once<Vec<T>>, std::vec::IntoIter<Vec<T>>>>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::once(self.first).chain(self.more).flatten()
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
        assert!(v.iter().copied().eq(0..n));
        v[CHUNK] = 7;
        assert_eq!(v[CHUNK], 7);
        // Every chunk but the last is full and was never grown past its size; the first grew
        // from a small start.
        assert_eq!(
            (v.first.len(), v.first.capacity(), v.more.len()),
            (CHUNK, CHUNK, 3)
        );
        assert!(
            v.more[..2]
                .iter()
                .all(|c| c.len() == CHUNK && c.capacity() == CHUNK)
        );
        assert_eq!((v.more[2].len(), v.more[2].capacity()), (5, CHUNK));
        let mut small = Chunked::default();
        assert_eq!((small.len(), small.get(0)), (0, None));
        small.push(1u64);
        assert_eq!((small.first.capacity(), small.len()), (4, 1));
        assert_eq!(small.into_iter().collect::<Vec<_>>(), [1]);
        let mut moved = Chunked::default();
        for i in 0..2 * CHUNK + 3 {
            moved.push(i);
        }
        moved[CHUNK] = 7;
        assert!(
            moved
                .into_iter()
                .eq((0..2 * CHUNK + 3).map(|i| if i == CHUNK { 7 } else { i }))
        );
    }
}
