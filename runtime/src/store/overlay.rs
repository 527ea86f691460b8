//! Writes buffered until commit, and reads that see them over the stored state.
//!
//! For a backend whose transactions cannot read what it needs (sled's cannot
//! read a range), and for a mutation of a group commit that must be able to
//! fail alone: the write transaction keeps its writes here ([`Overlaid`]),
//! reads merge them over what lies beneath, and the commit applies them in
//! one go.

use super::{ReadTxn, Tree, WriteTxn};
use crate::error::Result;
use std::collections::BTreeMap;
use std::ops::Bound;

/// One tree's pending writes: a value, or `None` for a deletion.
pub(crate) type Writes = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

#[derive(Default)]
pub(crate) struct Overlay {
    trees: BTreeMap<Tree, Writes>,
    /// Keys written, in all trees (a key written twice counts once).
    len: usize,
    /// The bytes of every write's key and value (a key written twice
    /// counts twice).
    bytes: u64,
}

impl Overlay {
    pub(crate) fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) {
        self.write(tree, key, Some(value.to_vec()));
    }

    pub(crate) fn delete(&mut self, tree: Tree, key: &[u8]) {
        self.write(tree, key, None);
    }

    fn write(&mut self, tree: Tree, key: &[u8], value: Option<Vec<u8>>) {
        self.bytes += (key.len() + value.as_ref().map_or(0, Vec::len)) as u64;
        let writes = self.trees.entry(tree).or_default();
        if writes.insert(key.to_vec(), value).is_none() {
            self.len += 1;
        }
    }

    /// How many keys the overlay holds writes of.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// About how many bytes its writes hold.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The pending write of `key`: `Some(None)` for a deletion, `None` when
    /// the transaction has not written it (the store's value stands).
    pub(crate) fn get(&self, tree: Tree, key: &[u8]) -> Option<Option<Vec<u8>>> {
        self.trees.get(&tree)?.get(key).cloned()
    }

    /// How many entries of the store a merged forward range read of at
    /// most `limit` entries asks `stored` for (see [`Overlay::range`]).
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))]
    pub(crate) fn asked(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> usize {
        let deletions = self
            .pending(tree, start, end, reverse, limit)
            .iter()
            .filter(|(_, v)| v.is_none())
            .count();
        limit.saturating_add(deletions)
    }

    /// The pending writes a range read of at most `limit` entries can meet,
    /// in its direction: up to and including the `limit`-th pending put.
    /// Past that put no entry can be among the first `limit` merged ones
    /// (the puts before it already fill them), so a short read of a large
    /// transaction (a chain's neighbour, during a load) costs its length,
    /// not the transaction's.
    fn pending(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Vec<(&Vec<u8>, &Option<Vec<u8>>)> {
        let Some(writes) = self.trees.get(&tree) else {
            return Vec::new();
        };
        if end.is_some_and(|end| start >= end) || limit == 0 {
            return Vec::new();
        }
        let upper = end.map_or(Bound::Unbounded, Bound::Excluded);
        let within = writes.range::<[u8], _>((Bound::Included(start), upper));
        let mut puts = 0;
        let mut until_limit = |(_, value): &(&Vec<u8>, &Option<Vec<u8>>)| {
            let more = puts < limit;
            puts += usize::from(value.is_some());
            more
        };
        if reverse {
            within.rev().take_while(&mut until_limit).collect()
        } else {
            within.take_while(&mut until_limit).collect()
        }
    }

    /// A range read with the pending writes merged over `stored`, which
    /// reads the store's entries of the same range in the same direction,
    /// at most as many as it is told.
    pub(crate) fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
        stored: impl FnOnce(usize) -> Result<Vec<(Vec<u8>, Vec<u8>)>>,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let pending = self.pending(tree, start, end, reverse, limit);
        if pending.is_empty() {
            return stored(limit);
        }
        // Read enough that the pending deletions cannot leave the result
        // short: of the first `limit + deletions` stored entries, at least
        // `limit` survive, and any entry further on comes after them.
        let deletions = pending.iter().filter(|(_, v)| v.is_none()).count();
        let mut merged: BTreeMap<Vec<u8>, Vec<u8>> = stored(limit.saturating_add(deletions))?
            .into_iter()
            .collect();
        for (key, value) in pending {
            match value {
                Some(v) => merged.insert(key.clone(), v.clone()),
                None => merged.remove(key),
            };
        }
        Ok(if reverse {
            merged.into_iter().rev().take(limit).collect()
        } else {
            merged.into_iter().take(limit).collect()
        })
    }

    /// Every tree's pending writes, for the commit.
    pub(crate) fn trees(&self) -> impl Iterator<Item = (Tree, &Writes)> {
        self.trees
            .iter()
            .filter(|(_, writes)| !writes.is_empty())
            .map(|(tree, writes)| (*tree, writes))
    }
}

/// What an [`Overlaid`] transaction reads beneath its pending writes, and
/// how its commit applies them.
pub(crate) trait Beneath: ReadTxn {
    /// Called after each write with the pending writes, which it may take
    /// (a sled load writes them into the store once they are many).
    fn written(&mut self, _pending: &mut Overlay) -> Result<()> {
        Ok(())
    }

    fn apply(self, overlay: Overlay) -> Result<()>;
}

/// A write transaction whose writes wait in an [`Overlay`] over `beneath`
/// until its commit hands them to [`Beneath::apply`]; dropped, it leaves
/// `beneath` as it was.
pub(crate) struct Overlaid<B> {
    beneath: B,
    overlay: Overlay,
}

impl<B: Beneath> Overlaid<B> {
    pub(crate) fn new(beneath: B) -> Overlaid<B> {
        Overlaid {
            beneath,
            overlay: Overlay::default(),
        }
    }
}

impl<B: Beneath> ReadTxn for Overlaid<B> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.overlay.get(tree, key) {
            Some(pending) => Ok(pending),
            None => self.beneath.get(tree, key),
        }
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.overlay
            .range(tree, start, end, reverse, limit, |asked| {
                self.beneath.range(tree, start, end, reverse, asked)
            })
    }
}

impl<B: Beneath> WriteTxn for Overlaid<B> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        self.overlay.put(tree, key, value);
        self.beneath.written(&mut self.overlay)
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.overlay.delete(tree, key);
        self.beneath.written(&mut self.overlay)
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let Overlaid { beneath, overlay } = *self;
        beneath.apply(overlay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range, limit and direction over a few stored keys and every
    /// mix of pending puts and deletions agrees with merging everything.
    #[test]
    fn a_merged_range_reads_what_a_whole_merge_would() {
        let tree = Tree(0);
        let keys: Vec<Vec<u8>> = (0u8..6).map(|k| vec![k]).collect();
        let stored: BTreeMap<Vec<u8>, Vec<u8>> = [0u8, 2, 3, 5]
            .iter()
            .map(|&k| (vec![k], b"s".to_vec()))
            .collect();
        // Each key: untouched, put or deleted (3^6 mixes).
        for mix in 0..3usize.pow(keys.len() as u32) {
            let mut overlay = Overlay::default();
            let mut whole = stored.clone();
            let mut m = mix;
            for key in &keys {
                match m % 3 {
                    1 => {
                        overlay.put(tree, key, b"p");
                        whole.insert(key.clone(), b"p".to_vec());
                    }
                    2 => {
                        overlay.delete(tree, key);
                        whole.remove(key);
                    }
                    _ => {}
                }
                m /= 3;
            }
            for start in 0u8..7 {
                for end in [None, Some(1u8), Some(3), Some(6)] {
                    for reverse in [false, true] {
                        for limit in 0..5 {
                            let end_key = end.map(|e| vec![e]);
                            let inside =
                                |k: &Vec<u8>| k[0] >= start && end.is_none_or(|e| k[0] < e);
                            let stored_read = |asked: usize| {
                                let all = stored.iter().filter(|(k, _)| inside(k));
                                let all: Vec<_> = if reverse {
                                    all.rev().take(asked).collect()
                                } else {
                                    all.take(asked).collect()
                                };
                                Ok(all
                                    .into_iter()
                                    .map(|(k, v)| (k.clone(), v.clone()))
                                    .collect())
                            };
                            let got = overlay
                                .range(
                                    tree,
                                    &[start],
                                    end_key.as_deref(),
                                    reverse,
                                    limit,
                                    stored_read,
                                )
                                .unwrap();
                            let expected = whole.iter().filter(|(k, _)| inside(k));
                            let expected: Vec<_> = if reverse {
                                expected
                                    .rev()
                                    .take(limit)
                                    .map(|(k, v)| (k.clone(), v.clone()))
                                    .collect()
                            } else {
                                expected
                                    .take(limit)
                                    .map(|(k, v)| (k.clone(), v.clone()))
                                    .collect()
                            };
                            assert_eq!(
                                got, expected,
                                "mix {mix}, {start}..{end:?}, reverse {reverse}, limit {limit}"
                            );
                        }
                    }
                }
            }
        }
    }
}
