//! Interned strings: each distinct string is kept once, after its length, one after another
//! in blocks of text, and named by a small number. A string then costs its bytes and a few bytes more, rather
//! than a heap allocation and a hash-map entry of its own, and whatever is kept per string can
//! live in plain vectors indexed by its number.
//!
//! Nothing here grows by doubling a large buffer: a doubled buffer holds up to twice what it
//! needs and, while it moves, its old and its new copy at once, which set the peak memory of a
//! long log. The text is kept in blocks of 64 KiB that never move, the start of each string in
//! 4 bytes in fixed-size chunks ([`Chunked`]), and once there are many strings the hash table
//! is cut into 64 shards that each grow on their own.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::chunked::Chunked;

/// The number of an interned string.
pub(crate) type Sym = u32;

/// How strings are placed in blocks, and how their starts are written down.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// A block holds `2^offset_bits` bytes (a longer string has a block of its own).
    offset_bits: u32,
    /// Bits of a kept start: the block's number within its epoch, then the offset in it. An
    /// epoch is the run of `2^(start_bits - offset_bits)` blocks such a start can name (4 GiB
    /// of text); past it, [`Texts::epochs`] tells which epoch a string's block is in.
    start_bits: u32,
}

/// The layout of every interner but those of some tests.
const LAYOUT: Layout = Layout {
    offset_bits: 16,
    start_bits: 32,
};

/// The number of strings past which the hash table is cut into shards.
const SPLIT_AT: usize = 1 << 13;
/// There are `2^SHARD_BITS` shards, chosen by bits of the hash that the table itself uses for
/// nothing (it takes the low bits for the bucket and the top seven for its control bytes).
const SHARD_BITS: u32 = 6;
const SHARD_SHIFT: u32 = 48;

/// The text of the strings, in order.
#[derive(Debug)]
struct Texts {
    /// Each string lies whole in one block, after its length (see [`write_len`]), right after
    /// the string before it in that block.
    blocks: Blocks,
    /// Per number: where the string starts (see [`Layout::start_bits`]).
    starts: Chunked<u32>,
    /// The number of the first string of each epoch after the first.
    epochs: Vec<Sym>,
    layout: Layout,
}

impl Texts {
    fn new(layout: Layout) -> Texts {
        Texts {
            blocks: Blocks::default(),
            starts: Chunked::default(),
            epochs: Vec::new(),
            layout,
        }
    }

    fn len(&self) -> usize {
        self.starts.len()
    }

    /// Remove every string, keeping the first block's room.
    fn clear(&mut self) {
        self.blocks.first.clear();
        self.blocks.more = Vec::new();
        self.starts.clear();
        self.epochs.clear();
    }

    fn block_size(&self) -> usize {
        1 << self.layout.offset_bits
    }

    fn blocks_per_epoch(&self) -> usize {
        1 << (self.layout.start_bits - self.layout.offset_bits)
    }

    /// The block of string `i`, which starts at `start`, and the offset of that start.
    #[inline]
    fn place(&self, i: usize, start: u32) -> (usize, usize) {
        let bits = self.layout.offset_bits;
        let mut block = (start >> bits) as usize;
        if !self.epochs.is_empty() {
            let epoch = self.epochs.partition_point(|&first| first as usize <= i);
            block += epoch << (self.layout.start_bits - bits);
        }
        (block, (start & ((1 << bits) - 1)) as usize)
    }

    /// String `sym`.
    #[inline(always)]
    fn get(&self, sym: Sym) -> &str {
        let (text, from, to) = self.span(sym);
        &text[from..to]
    }

    /// Whether string `sym` is `s`: its bytes, compared without the checks that slicing a
    /// string makes (the lookups' hot path).
    #[inline(always)]
    fn is(&self, sym: Sym, s: &str) -> bool {
        let (text, from, to) = self.span(sym);
        to - from == s.len() && text.as_bytes()[from..to] == *s.as_bytes()
    }

    /// The block of string `sym` and where in it the string starts and ends.
    #[inline(always)]
    fn span(&self, sym: Sym) -> (&String, usize, usize) {
        let i = sym as usize;
        let (block, at) = self.place(i, self.starts[i]);
        let text = &self.blocks[block];
        let (len, from) = read_len(&text.as_bytes()[at..], at);
        (text, from, from + len)
    }

    /// Add `s` after the last string.
    fn push(&mut self, s: &str) {
        let need = len_bytes(s.len()) + s.len();
        let size = self.block_size();
        let last = self.blocks.last_mut();
        if last.len() < size && last.len() + need <= size {
            if last.capacity() < last.len() + need {
                // The first block grows as a string would, but never past its size.
                let room = (2 * last.capacity()).clamp(last.len() + need, size);
                last.reserve_exact(room - last.len());
            }
        } else {
            let block = self.blocks.count();
            let per_epoch = self.blocks_per_epoch();
            if block == (self.epochs.len() + 1) * per_epoch {
                self.epochs
                    .push(Sym::try_from(self.len()).expect("a string's number"));
            }
            self.blocks.more.push(String::with_capacity(size.max(need)));
        }
        let block = self.blocks.count() - 1;
        let in_epoch = block % self.blocks_per_epoch();
        let last = self.blocks.last_mut();
        let start = (in_epoch << self.layout.offset_bits) | last.len();
        write_len(s.len(), last);
        last.push_str(s);
        self.starts
            .push(u32::try_from(start).expect("a start fits its bits"));
    }
}

/// The blocks of text. The first is kept inline and grows as a string does (from nothing), so a
/// short interner costs one allocation for its text, as a string would.
#[derive(Debug, Default)]
struct Blocks {
    first: String,
    more: Vec<String>,
}

impl Blocks {
    fn count(&self) -> usize {
        1 + self.more.len()
    }

    fn last_mut(&mut self) -> &mut String {
        self.more.last_mut().unwrap_or(&mut self.first)
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.first).chain(&self.more)
    }
}

impl std::ops::Index<usize> for Blocks {
    type Output = String;

    #[inline]
    fn index(&self, b: usize) -> &String {
        if b == 0 {
            &self.first
        } else {
            &self.more[b - 1]
        }
    }
}

/// Write `len` before its string: six bits a byte, lowest first, bit 6 set on every byte but
/// the last. Every byte is ASCII, so a block stays text, and a string under 64 bytes (nearly
/// every id) costs one byte more.
fn write_len(mut len: usize, out: &mut String) {
    loop {
        let digit = (len & 63) as u8;
        len >>= 6;
        if len == 0 {
            out.push(char::from(digit));
            return;
        }
        out.push(char::from(digit | 64));
    }
}

/// How many bytes [`write_len`] writes for `len`.
fn len_bytes(len: usize) -> usize {
    let mut n = 1;
    let mut rest = len >> 6;
    while rest > 0 {
        n += 1;
        rest >>= 6;
    }
    n
}

/// The length [`write_len`] wrote at the start of `bytes`, which start at `at` of their block,
/// and where the string starts.
#[inline]
fn read_len(bytes: &[u8], at: usize) -> (usize, usize) {
    match bytes[0] {
        b if b < 64 => (b as usize, at + 1),
        _ => {
            let mut len = 0;
            let mut shift = 0;
            for (k, &b) in bytes.iter().enumerate() {
                len |= ((b & 63) as usize) << shift;
                if b & 64 == 0 {
                    return (len, at + k + 1);
                }
                shift += 6;
            }
            unreachable!("a length ends with a byte under 64")
        }
    }
}

/// A set of strings, each stored once, numbered in order of first appearance.
#[derive(Debug)]
pub(crate) struct Interner {
    texts: Texts,
    /// The numbers of the strings, by hash: one table, or once there are many strings,
    /// `2^SHARD_BITS` of them.
    table: HashTable<Sym>,
    /// Once there are many strings, `2^SHARD_BITS` tables that replace `table`.
    shards: Vec<HashTable<Sym>>,
    hasher: foldhash::fast::FixedState,
}

impl Default for Interner {
    fn default() -> Self {
        Interner::with_layout(LAYOUT)
    }
}

/// The table of `table` or `shards` that holds strings of hash `hash`.
#[inline]
fn table_of<'t>(
    table: &'t HashTable<Sym>,
    shards: &'t [HashTable<Sym>],
    hash: u64,
) -> &'t HashTable<Sym> {
    if shards.is_empty() {
        table
    } else {
        &shards[shard(hash)]
    }
}

/// The shard of strings of hash `hash`.
fn shard(hash: u64) -> usize {
    (hash >> SHARD_SHIFT) as usize & ((1 << SHARD_BITS) - 1)
}

impl Interner {
    fn with_layout(layout: Layout) -> Interner {
        Interner {
            texts: Texts::new(layout),
            table: HashTable::new(),
            shards: Vec::new(),
            hasher: foldhash::fast::FixedState::default(),
        }
    }

    #[inline]
    fn find_hashed(&self, hash: u64, s: &str) -> Option<Sym> {
        table_of(&self.table, &self.shards, hash)
            .find(hash, |&sym| self.texts.is(sym, s))
            .copied()
    }

    /// The number of `s`, adding it when new.
    pub(crate) fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hasher.hash_one(s);
        if let Some(sym) = self.find_hashed(hash, s) {
            return sym;
        }
        if self.shards.is_empty() && self.len() >= SPLIT_AT {
            self.split();
        }
        let sym = Sym::try_from(self.len()).expect("fewer than 2^32 distinct strings");
        self.texts.push(s);
        let Interner {
            texts,
            table,
            shards,
            hasher,
        } = self;
        let table = if shards.is_empty() {
            table
        } else {
            &mut shards[shard(hash)]
        };
        table.insert_unique(hash, sym, |&sym| hasher.hash_one(texts.get(sym)));
        sym
    }

    /// Cut the one table into shards.
    #[cold]
    fn split(&mut self) {
        let room = (2 * self.len()) >> SHARD_BITS;
        self.shards = (0..1 << SHARD_BITS)
            .map(|_| HashTable::with_capacity(room))
            .collect();
        let Interner {
            texts,
            table,
            shards,
            hasher,
        } = self;
        for sym in std::mem::take(table) {
            let hash = hasher.hash_one(texts.get(sym));
            shards[shard(hash)].insert_unique(hash, sym, |&sym| hasher.hash_one(texts.get(sym)));
        }
    }

    /// Remove every string (numbers start again from 0), keeping the room of a short interner.
    pub(crate) fn clear(&mut self) {
        self.texts.clear();
        self.table.clear();
        self.shards = Vec::new();
    }

    /// How many strings the table has room for before it grows (the room [`Interner::clear`]
    /// keeps).
    pub(crate) fn room(&self) -> usize {
        self.table.capacity()
    }

    /// The number of `s`, if it was interned.
    pub(crate) fn find(&self, s: &str) -> Option<Sym> {
        self.find_hashed(self.hasher.hash_one(s), s)
    }

    /// The string numbered `sym`.
    pub(crate) fn get(&self, sym: Sym) -> &str {
        self.texts.get(sym)
    }

    /// How many strings there are (every number is below this).
    pub(crate) fn len(&self) -> usize {
        self.texts.len()
    }

    /// The bytes of each allocation held, largest first (for the memory tests).
    #[cfg(test)]
    pub(crate) fn allocations(&self) -> Vec<usize> {
        let texts = &self.texts;
        let mut sizes: Vec<usize> = texts.blocks.iter().map(String::capacity).collect();
        sizes.push(texts.blocks.more.capacity() * std::mem::size_of::<String>());
        sizes.extend(texts.starts.allocations());
        sizes.push(texts.epochs.capacity() * 4);
        sizes.push(self.table.allocation_size());
        sizes.extend(self.shards.iter().map(HashTable::allocation_size));
        sizes.push(self.shards.capacity() * std::mem::size_of::<HashTable<Sym>>());
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn equal_strings_share_a_number() {
        let mut i = Interner::default();
        let a = i.intern("00000000-0000-4000-8000-000000000000");
        let b = i.intern("");
        let c = i.intern("toolu_1");
        assert_eq!(i.intern("00000000-0000-4000-8000-000000000000"), a);
        assert_eq!(i.intern(""), b);
        assert_ne!(a, c);
        assert_eq!(
            (
                i.find("00000000-0000-4000-8000-000000000000"),
                i.find(""),
                i.find("toolu_1")
            ),
            (Some(a), Some(b), Some(c))
        );
        assert_eq!(i.find("toolu_2"), None);
        for n in 0..5000 {
            i.intern(&format!("id {n}"));
        }
        assert_eq!(i.intern("toolu_1"), c);
        assert_eq!(i.find("toolu_1"), Some(c));
        let last = i.intern("id 4999");
        assert_eq!(
            (last, i.get(last), i.get(a)),
            (5002, "id 4999", "00000000-0000-4000-8000-000000000000")
        );
        assert_eq!(i.find("id 5000"), None);
        assert_eq!(i.len(), 5003);
    }

    /// Strings of every length from empty to longer than a block, in an order that fills
    /// blocks exactly, leaves room at their ends and starts blocks with long strings.
    fn strings(n: usize, longest: usize) -> Vec<String> {
        (0..n)
            .map(|k| {
                let len = (k * 7 + k / 3) % (longest + 1);
                format!("{k}:").repeat(longest).chars().take(len).collect()
            })
            .collect()
    }

    /// Intern `all` and check every string against a plain map: same numbers, same text.
    fn check(mut interner: Interner, all: &[String]) -> Interner {
        let mut want: HashMap<&str, Sym> = HashMap::new();
        for s in all {
            let next = Sym::try_from(want.len()).unwrap();
            let sym = *want.entry(s).or_insert(next);
            assert_eq!(interner.intern(s), sym, "{s:?}");
        }
        assert_eq!(interner.len(), want.len());
        for (s, &sym) in &want {
            assert_eq!((interner.get(sym), interner.find(s)), (*s, Some(sym)));
        }
        assert_eq!(interner.find("not interned"), None);
        interner
    }

    #[test]
    fn strings_round_trip_across_blocks_and_past_the_starts_range() {
        // Blocks of 16 bytes, starts of 8 bits: an epoch is 16 blocks, 256 bytes of text.
        let small = Layout {
            offset_bits: 4,
            start_bits: 8,
        };
        let all = strings(3 * SPLIT_AT, 40);
        let interner = check(Interner::with_layout(small), &all);
        let texts = &interner.texts;
        assert!(texts.epochs.len() > 100, "{} epochs", texts.epochs.len());
        assert!(texts.blocks.iter().any(|b| b.len() > 16));
        assert!(texts.blocks.iter().any(|b| b.len() == 16));
        assert!(texts.blocks.iter().any(|b| b.len() < 16));
        assert_eq!(interner.shards.len(), 1 << SHARD_BITS);
        assert!(interner.shards.iter().all(|t| !t.is_empty()));
        assert!(interner.table.is_empty());
    }

    #[test]
    fn long_strings_round_trip_with_their_lengths() {
        let lengths = [
            0,
            1,
            63,
            64,
            65,
            4095,
            4096,
            4097,
            1 << 18,
            (1 << 18) + 1,
            70_000,
        ];
        let all: Vec<String> = lengths
            .iter()
            .flat_map(|&n| ["a".repeat(n), "b".repeat(n), "a".repeat(n)])
            .collect();
        for len in lengths {
            let mut written = String::new();
            write_len(len, &mut written);
            assert_eq!(written.len(), len_bytes(len));
            assert_eq!(read_len(written.as_bytes(), 5), (len, 5 + written.len()));
        }
        let small = Layout {
            offset_bits: 4,
            start_bits: 8,
        };
        check(Interner::with_layout(small), &all);
        check(Interner::default(), &all);
    }

    #[test]
    fn the_real_layout_round_trips_many_strings() {
        let all = strings(3 * SPLIT_AT, 300);
        let interner = check(Interner::default(), &all);
        let texts = &interner.texts;
        assert!(texts.blocks.count() > 3);
        let more = &texts.blocks.more;
        assert!(
            more[..more.len() - 1]
                .iter()
                .all(|b| b.len() > (1 << 16) - 300 && b.capacity() == 1 << 16)
        );
        assert!(texts.blocks.first.len() > (1 << 16) - 300);
        assert_eq!(interner.shards.len(), 1 << SHARD_BITS);
    }
}
