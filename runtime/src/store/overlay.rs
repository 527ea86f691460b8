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

/// One tree's pending writes: a value, or `None` for a deletion.
pub(crate) type Writes = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

#[derive(Default)]
pub(crate) struct Overlay {
    trees: BTreeMap<Tree, Writes>,
}

impl Overlay {
    pub(crate) fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) {
        self.trees
            .entry(tree)
            .or_default()
            .insert(key.to_vec(), Some(value.to_vec()));
    }

    pub(crate) fn delete(&mut self, tree: Tree, key: &[u8]) {
        self.trees
            .entry(tree)
            .or_default()
            .insert(key.to_vec(), None);
    }

    /// The pending write of `key`: `Some(None)` for a deletion, `None` when
    /// the transaction has not written it (the store's value stands).
    pub(crate) fn get(&self, tree: Tree, key: &[u8]) -> Option<Option<Vec<u8>>> {
        self.trees.get(&tree)?.get(key).cloned()
    }

    /// How many entries of the store a merged range read of at most
    /// `limit` entries asks `stored` for (see [`Overlay::range`]).
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))]
    pub(crate) fn asked(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        limit: usize,
    ) -> usize {
        let deletions = self
            .pending(tree, start, end)
            .iter()
            .filter(|(_, v)| v.is_none())
            .count();
        limit.saturating_add(deletions)
    }

    fn pending(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
    ) -> Vec<(&Vec<u8>, &Option<Vec<u8>>)> {
        match self.trees.get(&tree) {
            Some(writes) if end.is_none_or(|end| start < end) => writes
                .range(start.to_vec()..)
                .take_while(|(k, _)| end.is_none_or(|e| k.as_slice() < e))
                .collect(),
            _ => Vec::new(),
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
        let pending = self.pending(tree, start, end);
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
        Ok(())
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.overlay.delete(tree, key);
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let Overlaid { beneath, overlay } = *self;
        beneath.apply(overlay)
    }
}
