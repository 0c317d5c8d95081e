//! Edits over byte spans of the original document, and applying them.

use std::collections::{BTreeMap, BTreeSet};

/// Replace bytes `start..end` of the original with `text` (an insertion when the range is
/// empty). Everything outside the range is kept byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The new bytes.
    pub text: Vec<u8>,
}

impl Edit {
    /// Insert `text` at `at`.
    pub fn insert(at: usize, text: impl Into<Vec<u8>>) -> Edit {
        Edit {
            start: at,
            end: at,
            text: text.into(),
        }
    }

    /// Delete `start..end`.
    pub fn delete(start: usize, end: usize) -> Edit {
        Edit {
            start,
            end,
            text: Vec::new(),
        }
    }

    /// Replace `start..end` with `text`.
    pub fn replace(start: usize, end: usize, text: impl Into<Vec<u8>>) -> Edit {
        Edit {
            start,
            end,
            text: text.into(),
        }
    }

    fn overlaps(&self, other: &Edit) -> bool {
        // Two insertions at one point do not conflict; a replaced range conflicts with anything
        // strictly inside it or overlapping it.
        let a_empty = self.start == self.end;
        let b_empty = other.start == other.end;
        if a_empty && b_empty {
            return false;
        }
        if a_empty {
            return other.start < self.start && self.start < other.end;
        }
        if b_empty {
            return self.start < other.start && other.start < self.end;
        }
        self.start < other.end && other.start < self.end
    }
}

/// A set of edits that are applied together or not at all.
///
/// Conflicts are found through two indexes (replaced ranges, which never overlap one another,
/// and insertion points), so adding a group costs a logarithmic lookup per edit: a file with a
/// million dangling calls is planned in linear-logarithmic time.
#[derive(Debug, Default, Clone)]
pub struct EditSet {
    edits: Vec<Edit>,
    /// Non-empty replaced ranges accepted so far: start → end.
    ranges: BTreeMap<usize, usize>,
    /// Insertion points accepted so far.
    points: BTreeSet<usize>,
}

impl EditSet {
    /// Add a group of edits unless one of them conflicts with an edit already accepted (or
    /// with another edit of the group). Returns whether the group was accepted.
    pub fn try_add(&mut self, group: Vec<Edit>) -> bool {
        let conflict = group.iter().enumerate().any(|(i, g)| {
            self.conflicts(g) || group[..i].iter().any(|earlier| earlier.overlaps(g))
        });
        if conflict {
            return false;
        }
        for g in &group {
            if g.start == g.end {
                self.points.insert(g.start);
            } else {
                self.ranges.insert(g.start, g.end);
            }
        }
        self.edits.extend(group);
        true
    }

    /// Does `g` conflict with an accepted edit (see [`Edit::overlaps`])?
    fn conflicts(&self, g: &Edit) -> bool {
        if g.start == g.end {
            // Only a range strictly around the point; ranges are disjoint, so only the last
            // one starting before it can be.
            return self
                .ranges
                .range(..g.start)
                .next_back()
                .is_some_and(|(_, &end)| end > g.start);
        }
        let point_inside = self.points.range(g.start + 1..g.end).next().is_some();
        let range_overlaps = self
            .ranges
            .range(..g.end)
            .next_back()
            .is_some_and(|(_, &end)| end > g.start);
        point_inside || range_overlaps
    }

    /// Does an accepted edit insert at `offset`?
    pub fn inserts_at(&self, offset: usize) -> bool {
        self.points.contains(&offset)
    }

    /// True when nothing is to be changed.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Apply to `src`. Insertions at one offset keep the order they were added in.
    pub fn apply(&self, src: &[u8]) -> Vec<u8> {
        let extra: usize = self.edits.iter().map(|e| e.text.len()).sum();
        let mut out = Vec::with_capacity(src.len() + extra);
        self.write_to(src, &mut out)
            .expect("writing to memory does not fail");
        out
    }

    /// Write `src` with the edits applied to `out`, without building the result in memory.
    pub fn write_to(&self, src: &[u8], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut order: Vec<usize> = (0..self.edits.len()).collect();
        order.sort_by_key(|&i| {
            (
                self.edits[i].start,
                self.edits[i].end != self.edits[i].start,
                i,
            )
        });
        let mut at = 0;
        for i in order {
            let e = &self.edits[i];
            if e.start < at {
                continue;
            }
            out.write_all(&src[at..e.start])?;
            out.write_all(&e.text)?;
            at = e.end;
        }
        out.write_all(&src[at..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_in_order_and_keeps_the_rest() {
        let mut set = EditSet::default();
        assert!(set.try_add(vec![Edit::insert(3, "X"), Edit::insert(3, "Y")]));
        assert!(set.try_add(vec![Edit::replace(5, 7, "--")]));
        assert!(!set.try_add(vec![Edit::delete(6, 8)]));
        assert!(set.try_add(vec![Edit::insert(7, "!")]));
        assert_eq!(set.apply(b"abcdefghij"), b"abcXYde--!hij");
    }

    #[test]
    fn indexed_conflicts_agree_with_pairwise_overlap() {
        // Random groups over a short document: the indexed check must accept exactly the
        // groups the pairwise definition accepts.
        let mut seed: u64 = 7;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % n) as usize
        };
        for _ in 0..200 {
            let mut set = EditSet::default();
            let mut naive: Vec<Edit> = Vec::new();
            for _ in 0..12 {
                let group: Vec<Edit> = (0..1 + next(2))
                    .map(|_| {
                        let start = next(12);
                        Edit::replace(start, start + next(3), "x")
                    })
                    .collect();
                let pairwise_ok = group
                    .iter()
                    .enumerate()
                    .all(|(i, g)| naive.iter().chain(&group[..i]).all(|e| !e.overlaps(g)));
                assert_eq!(
                    set.try_add(group.clone()),
                    pairwise_ok,
                    "{group:?} after {naive:?}"
                );
                if pairwise_ok {
                    naive.extend(group);
                }
            }
        }
    }
}
