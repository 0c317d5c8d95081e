//! Edits over byte spans of the original document, and applying them.

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
#[derive(Debug, Default, Clone)]
pub struct EditSet {
    edits: Vec<Edit>,
}

impl EditSet {
    /// Add a group of edits unless one of them conflicts with an edit already accepted.
    /// Returns whether the group was accepted.
    pub fn try_add(&mut self, group: Vec<Edit>) -> bool {
        let conflict = group
            .iter()
            .any(|g| self.edits.iter().any(|e| e.overlaps(g)));
        if conflict {
            return false;
        }
        self.edits.extend(group);
        true
    }

    /// True when nothing is to be changed.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Apply to `src`. Insertions at one offset keep the order they were added in.
    pub fn apply(&self, src: &[u8]) -> Vec<u8> {
        let mut order: Vec<usize> = (0..self.edits.len()).collect();
        order.sort_by_key(|&i| {
            (
                self.edits[i].start,
                self.edits[i].end != self.edits[i].start,
                i,
            )
        });
        let extra: usize = self.edits.iter().map(|e| e.text.len()).sum();
        let mut out = Vec::with_capacity(src.len() + extra);
        let mut at = 0;
        for i in order {
            let e = &self.edits[i];
            if e.start < at {
                continue;
            }
            out.extend_from_slice(&src[at..e.start]);
            out.extend_from_slice(&e.text);
            at = e.end;
        }
        out.extend_from_slice(&src[at..]);
        out
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
}
