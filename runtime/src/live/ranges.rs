//! The two sides a live subscription is matched on: the key ranges one evaluation read, and the keys one commit wrote.

use crate::store::Tree;
use std::collections::{BTreeMap, BTreeSet};

/// Keys `start <= key < end` of one tree (`end` = `None`: to the tree's end).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyRange {
    pub tree: Tree,
    pub start: Vec<u8>,
    pub end: Option<Vec<u8>>,
}

impl KeyRange {
    /// The single key `key`: `[key, key + 0x00)`.
    pub fn point(tree: Tree, key: &[u8]) -> KeyRange {
        KeyRange {
            tree,
            start: key.to_vec(),
            end: Some(after(key)),
        }
    }
}

/// The smallest key greater than `key`.
pub fn after(key: &[u8]) -> Vec<u8> {
    let mut next = Vec::with_capacity(key.len() + 1);
    next.extend_from_slice(key);
    next.push(0);
    next
}

/// What a range read with `limit` actually depended on: the whole range
/// when it came back short, otherwise only up to its last entry (a key
/// written past it could not have changed what was read): up from the
/// start to it, or, read backwards (`reverse`), down from the end to it.
pub fn range_read(
    tree: Tree,
    start: &[u8],
    end: Option<&[u8]>,
    reverse: bool,
    limit: usize,
    last: Option<&[u8]>,
    returned: usize,
) -> KeyRange {
    let full = returned >= limit;
    match last {
        Some(last) if full && reverse => KeyRange {
            tree,
            start: last.to_vec(),
            end: end.map(<[u8]>::to_vec),
        },
        Some(last) if full => KeyRange {
            tree,
            start: start.to_vec(),
            end: Some(after(last)),
        },
        _ => KeyRange {
            tree,
            start: start.to_vec(),
            end: end.map(<[u8]>::to_vec),
        },
    }
}

/// Sorted, with overlapping or touching ranges of one tree joined: fewer
/// entries in the registry, the same keys covered.
pub fn merge(mut ranges: Vec<KeyRange>) -> Vec<KeyRange> {
    ranges.sort();
    let mut merged: Vec<KeyRange> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if let Some(last) = merged.last_mut() {
            let touches =
                last.tree == range.tree && last.end.as_ref().is_none_or(|end| range.start <= *end);
            if touches {
                last.end = match (last.end.take(), range.end) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
                continue;
            }
        }
        merged.push(range);
    }
    merged
}

/// Keys written to one tree by one commit: each key, or once more than
/// [`KEYS_PER_TREE`] were written, the span from the least to the greatest
/// (a load's many rows become one entry that matches every reader of the
/// span: never fewer subscriptions than the keys would, possibly more).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    Key(Vec<u8>),
    /// Every key `lo <= key <= hi`.
    Span(Vec<u8>, Vec<u8>),
}

/// Past this many keys of one tree in one commit, the changelog records their span.
pub const KEYS_PER_TREE: usize = 64;

/// What one write transaction wrote, by tree.
#[derive(Debug, Default)]
pub struct WriteSet {
    trees: BTreeMap<Tree, Keys>,
}

#[derive(Debug)]
enum Keys {
    Each(BTreeSet<Vec<u8>>),
    Span(Vec<u8>, Vec<u8>),
}

impl WriteSet {
    pub fn add(&mut self, tree: Tree, key: &[u8]) {
        let keys = self
            .trees
            .entry(tree)
            .or_insert_with(|| Keys::Each(BTreeSet::new()));
        match keys {
            Keys::Each(set) => {
                set.insert(key.to_vec());
                if set.len() > KEYS_PER_TREE {
                    let lo = set.first().cloned().unwrap_or_default();
                    let hi = set.last().cloned().unwrap_or_default();
                    *keys = Keys::Span(lo, hi);
                }
            }
            Keys::Span(lo, hi) => {
                if key < lo.as_slice() {
                    *lo = key.to_vec();
                }
                if key > hi.as_slice() {
                    *hi = key.to_vec();
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.trees.is_empty()
    }

    /// By tree, what was written.
    pub fn changes(&self) -> impl Iterator<Item = (Tree, Vec<Written>)> + '_ {
        self.trees.iter().map(|(tree, keys)| {
            let items = match keys {
                Keys::Each(set) => set.iter().cloned().map(Written::Key).collect(),
                Keys::Span(lo, hi) => vec![Written::Span(lo.clone(), hi.clone())],
            };
            (*tree, items)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(n: usize) -> Tree {
        crate::store::MemoryStore::new().tree(&format!("t{n}"))
    }

    use crate::store::Store;

    #[test]
    fn merge_joins_overlaps_and_keeps_gaps() {
        let tree = t(0);
        let r = |s: &[u8], e: Option<&[u8]>| KeyRange {
            tree,
            start: s.to_vec(),
            end: e.map(<[u8]>::to_vec),
        };
        let merged = merge(vec![
            r(b"c", Some(b"e")),
            r(b"a", Some(b"b")),
            r(b"d", Some(b"f")),
            r(b"x", None),
            r(b"y", Some(b"z")),
        ]);
        assert_eq!(
            merged,
            vec![r(b"a", Some(b"b")), r(b"c", Some(b"f")), r(b"x", None)]
        );
    }

    #[test]
    fn a_full_range_read_depends_only_up_to_its_last_entry() {
        let tree = t(0);
        let full = range_read(tree, b"a", Some(b"z"), false, 2, Some(b"c"), 2);
        assert_eq!(full.end, Some(b"c\0".to_vec()));
        let short = range_read(tree, b"a", Some(b"z"), false, 5, Some(b"c"), 2);
        assert_eq!(short.end, Some(b"z".to_vec()));
    }

    #[test]
    fn a_full_reverse_read_depends_only_down_to_its_last_entry() {
        let tree = t(0);
        // Read backwards from "z": the last entry is the lowest read.
        let full = range_read(tree, b"a", Some(b"z"), true, 2, Some(b"m"), 2);
        assert_eq!((full.start, full.end), (b"m".to_vec(), Some(b"z".to_vec())));
        let short = range_read(tree, b"a", Some(b"z"), true, 5, Some(b"m"), 2);
        assert_eq!(
            (short.start, short.end),
            (b"a".to_vec(), Some(b"z".to_vec()))
        );
        // A backwards read of a range with no end depends on every key above.
        let open = range_read(tree, b"a", None, true, 1, Some(b"q"), 1);
        assert_eq!((open.start, open.end), (b"q".to_vec(), None));
    }

    #[test]
    fn many_keys_of_one_tree_become_their_span() {
        let tree = t(0);
        let mut set = WriteSet::default();
        for i in 0..=KEYS_PER_TREE as u32 {
            set.add(tree, &(1000 - i).to_be_bytes());
        }
        let changes: Vec<_> = set.changes().collect();
        let lo = (1000 - KEYS_PER_TREE as u32).to_be_bytes().to_vec();
        assert_eq!(
            changes,
            vec![(
                tree,
                vec![Written::Span(lo, 1000u32.to_be_bytes().to_vec())]
            )]
        );
    }
}
