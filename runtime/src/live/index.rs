//! The registry's index of live subscriptions by the key ranges they read: which ones a written key touches, in O(log S + m).
//!
//! The key space of each tree is cut at every range's ends into segments;
//! each boundary maps to the set of subscriptions whose ranges cover the
//! segment from it to the next boundary of its tree. A written key is
//! matched by one ordered lookup (the greatest boundary at or before it)
//! and reading that segment's set: O(log S + m) for S subscriptions of
//! which m match. A written span reads the segments it overlaps.
//!
//! Both maps are persistent (imbl): the watcher takes a snapshot in O(1)
//! and matches a commit against it while subscribers come and go.

use super::ranges::{KeyRange, Written};
use crate::store::Tree;
use imbl::{OrdMap, OrdSet};
use std::collections::BTreeSet;
use std::ops::Bound::{Excluded, Included, Unbounded};

pub type SubId = u64;

#[derive(Clone, Default)]
pub struct Index {
    /// `(tree, boundary)` → the subscriptions covering `[boundary, next)`.
    segments: OrdMap<(Tree, Vec<u8>), OrdSet<SubId>>,
}

impl Index {
    /// Boundaries held (for tests and the benchmark's report).
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The set covering `key` of `tree`.
    fn covering(&self, tree: Tree, key: &[u8]) -> Option<&OrdSet<SubId>> {
        let ((at_tree, _), set) = self.segments.get_prev(&(tree, key.to_vec()))?;
        (*at_tree == tree).then_some(set)
    }

    /// Adds to `out` every subscription whose ranges hold a key written.
    pub fn matching(&self, tree: Tree, written: &Written, out: &mut BTreeSet<SubId>) {
        match written {
            Written::Key(key) => out.extend(self.covering(tree, key).into_iter().flatten()),
            Written::Span(lo, hi) => {
                out.extend(self.covering(tree, lo).into_iter().flatten());
                let inside = (Excluded((tree, lo.clone())), Included((tree, hi.clone())));
                for (_, set) in self.segments.range(inside) {
                    out.extend(set.iter());
                }
            }
        }
    }

    pub fn insert(&mut self, range: &KeyRange, sub: SubId) {
        if is_empty(range) {
            return;
        }
        self.split(range.tree, &range.start);
        if let Some(end) = &range.end {
            self.split(range.tree, end);
        }
        for key in self.boundaries(range) {
            if let Some(set) = self.segments.get_mut(&key) {
                set.insert(sub);
            }
        }
    }

    pub fn remove(&mut self, range: &KeyRange, sub: SubId) {
        if is_empty(range) {
            return;
        }
        for key in self.boundaries(range) {
            if let Some(set) = self.segments.get_mut(&key) {
                set.remove(&sub);
            }
        }
        self.tidy(range.tree, &range.start);
        if let Some(end) = &range.end {
            self.tidy(range.tree, end);
        }
    }

    /// A boundary at `at`, holding the set of the segment it cuts.
    fn split(&mut self, tree: Tree, at: &[u8]) {
        let key = (tree, at.to_vec());
        if self.segments.contains_key(&key) {
            return;
        }
        let set = self.covering(tree, at).cloned().unwrap_or_default();
        self.segments.insert(key, set);
    }

    /// Drops the boundary at `at` when it cuts nothing: its set is its
    /// predecessor's (or empty with none before it), so the registry stays
    /// as small as the live ranges.
    fn tidy(&mut self, tree: Tree, at: &[u8]) {
        let key = (tree, at.to_vec());
        let Some(set) = self.segments.get(&key) else {
            return;
        };
        let before = self
            .segments
            .range((Unbounded, Excluded(key.clone())))
            .next_back()
            .filter(|((t, _), _)| *t == tree)
            .map(|(_, set)| set);
        let redundant = match before {
            Some(before) => before == set,
            None => set.is_empty(),
        };
        if redundant {
            self.segments.remove(&key);
        }
    }

    /// The boundaries inside `range`.
    fn boundaries(&self, range: &KeyRange) -> Vec<(Tree, Vec<u8>)> {
        let start = Included((range.tree, range.start.clone()));
        let end = match &range.end {
            Some(end) => Excluded((range.tree, end.clone())),
            None => Unbounded,
        };
        self.segments
            .range((start, end))
            .map(|(key, _)| key.clone())
            .take_while(|(tree, _)| *tree == range.tree)
            .collect()
    }
}

/// A range with no key in it (a read never makes one; an empty range
/// would put its boundaries out of order).
fn is_empty(range: &KeyRange) -> bool {
    range.end.as_ref().is_some_and(|end| *end <= range.start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, Store};
    use proptest::prelude::*;

    fn written(index: &Index, tree: Tree, w: &Written) -> BTreeSet<SubId> {
        let mut out = BTreeSet::new();
        index.matching(tree, w, &mut out);
        out
    }

    fn holds(range: &KeyRange, tree: Tree, w: &Written) -> bool {
        let (lo, hi) = match w {
            Written::Key(k) => (k, k),
            Written::Span(lo, hi) => (lo, hi),
        };
        !is_empty(range)
            && range.tree == tree
            && range.end.as_ref().is_none_or(|end| lo < end)
            && hi >= &range.start
    }

    fn key() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(0u8..4, 0..3)
    }

    proptest! {
        /// After any sequence of inserts and removes, a written key or span
        /// matches exactly the subscriptions whose ranges hold one of its keys.
        #[test]
        fn matches_exactly_the_covering_ranges(
            ops in proptest::collection::vec(
                (0u64..6, 0usize..2, key(), proptest::option::of(key()), any::<bool>()),
                1..40,
            ),
            probes in proptest::collection::vec((0usize..2, key(), proptest::option::of(key())), 1..20),
        ) {
            let store = MemoryStore::new();
            let trees = [store.tree("a"), store.tree("b")];
            let mut index = Index::default();
            let mut live: Vec<(SubId, KeyRange)> = Vec::new();
            for (sub, tree, start, end, add) in ops {
                let range = KeyRange { tree: trees[tree], start, end };
                // A subscription's ranges never overlap (they are merged).
                if add && !live.iter().any(|(s, _)| *s == sub) {
                    index.insert(&range, sub);
                    live.push((sub, range));
                } else if add {
                    continue;
                } else if let Some(at) = live.iter().position(|(s, r)| *s == sub && *r == range) {
                    index.remove(&range, sub);
                    live.remove(at);
                }
            }
            for (tree, lo, hi) in probes {
                let w = match hi {
                    Some(hi) if hi > lo => Written::Span(lo, hi),
                    _ => Written::Key(lo),
                };
                let expected: BTreeSet<SubId> = live
                    .iter()
                    .filter(|(_, r)| holds(r, trees[tree], &w))
                    .map(|(s, _)| *s)
                    .collect();
                prop_assert_eq!(written(&index, trees[tree], &w), expected);
            }
        }
    }

    #[test]
    fn removing_every_range_leaves_no_boundary() {
        let store = MemoryStore::new();
        let tree = store.tree("a");
        let mut index = Index::default();
        let ranges: Vec<KeyRange> = (0u8..50)
            .map(|i| KeyRange::point(tree, &[i]))
            .chain([KeyRange {
                tree,
                start: vec![3],
                end: None,
            }])
            .collect();
        for (i, r) in ranges.iter().enumerate() {
            index.insert(r, i as SubId);
        }
        for (i, r) in ranges.iter().enumerate() {
            index.remove(r, i as SubId);
        }
        assert!(index.is_empty(), "{} boundaries left", index.len());
    }
}
