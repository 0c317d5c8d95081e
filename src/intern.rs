//! Interned strings: each distinct string is kept once, one after another in one buffer, and
//! named by a small number. A string then costs its bytes and a few words, rather than a heap
//! allocation and a hash-map entry of its own, and whatever is kept per string can live in
//! plain vectors indexed by its number.

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// The number of an interned string.
pub(crate) type Sym = u32;

/// A set of strings, each stored once, numbered in order of first appearance.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    text: String,
    /// End of each string in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    table: HashTable<Sym>,
    hasher: foldhash::fast::FixedState,
}

/// String `sym` of `text`, given the ends of all strings.
fn slice<'t>(text: &'t str, ends: &[usize], sym: Sym) -> &'t str {
    let i = sym as usize;
    &text[if i == 0 { 0 } else { ends[i - 1] }..ends[i]]
}

impl Interner {
    /// The number of `s`, adding it when new.
    pub(crate) fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hasher.hash_one(s);
        if let Some(&sym) = self
            .table
            .find(hash, |&sym| slice(&self.text, &self.ends, sym) == s)
        {
            return sym;
        }
        let sym = Sym::try_from(self.ends.len()).expect("fewer than 2^32 distinct strings");
        self.text.push_str(s);
        self.ends.push(self.text.len());
        let Interner {
            text,
            ends,
            table,
            hasher,
        } = self;
        table.insert_unique(hash, sym, |&sym| hasher.hash_one(slice(text, ends, sym)));
        sym
    }

    /// The number of `s`, if it was interned.
    pub(crate) fn find(&self, s: &str) -> Option<Sym> {
        let hash = self.hasher.hash_one(s);
        self.table
            .find(hash, |&sym| slice(&self.text, &self.ends, sym) == s)
            .copied()
    }

    /// The string numbered `sym`.
    pub(crate) fn get(&self, sym: Sym) -> &str {
        slice(&self.text, &self.ends, sym)
    }

    /// How many strings there are (every number is below this).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
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
}
