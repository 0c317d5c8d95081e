//! Interned strings for the chain of a Claude Code file: every uuid, parent, timestamp and id
//! is kept once in one buffer and named by a small number, so a link per line costs a few
//! words rather than a handful of heap strings, and lookups by uuid are plain vector indexing.

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// The number of an interned string.
pub(super) type Sym = u32;

/// A set of strings, each stored once, numbered in order of first appearance.
#[derive(Debug, Default)]
pub(super) struct Interner {
    text: String,
    /// End of each string in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    table: HashTable<Sym>,
    hasher: foldhash::fast::FixedState,
}

impl Interner {
    /// The number of `s`, adding it when new.
    pub(super) fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hasher.hash_one(s);
        let Interner {
            text,
            ends,
            table,
            hasher,
        } = self;
        let slice = |sym: Sym| -> &str {
            let i = sym as usize;
            &text[if i == 0 { 0 } else { ends[i - 1] }..ends[i]]
        };
        if let Some(&sym) = table.find(hash, |&sym| slice(sym) == s) {
            return sym;
        }
        let sym = Sym::try_from(ends.len()).expect("fewer than 2^32 distinct strings");
        text.push_str(s);
        ends.push(text.len());
        let (text, ends) = (&*text, &*ends);
        table.insert_unique(hash, sym, |&sym| {
            let i = sym as usize;
            hasher.hash_one(&text[if i == 0 { 0 } else { ends[i - 1] }..ends[i]])
        });
        sym
    }

    /// The string numbered `sym`.
    pub(super) fn get(&self, sym: Sym) -> &str {
        let i = sym as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// How many strings there are (every number is below this).
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }
}

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

#[cfg(test)]
mod tests {
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
            (i.get(a), i.get(b), i.get(c)),
            ("00000000-0000-4000-8000-000000000000", "", "toolu_1")
        );
        for n in 0..5000 {
            i.intern(&format!("id {n}"));
        }
        assert_eq!(i.intern("toolu_1"), c);
        let last = i.intern("id 4999");
        assert_eq!(i.get(last), "id 4999");
        assert_eq!(i.len(), 5003);
    }
}
