//! Write transactions inside another one: a mutation of a group commit writes into the group's transaction, directly or through a buffer it can drop.
//!
//! [`Buffered`] keeps its writes apart (reads merge them over the outer
//! transaction, as sled's transactions do, through [`Overlaid`]); its commit applies them to
//! the outer transaction, in key order, and dropping it instead leaves the
//! outer transaction as it was. So a mutation of a group that fails stores
//! nothing, and the others still commit. [`Direct`] writes straight into
//! the outer transaction and commits nothing by itself: for the first
//! mutation of a group, whose failure aborts the outer transaction anyway
//! (nothing else is in it yet), so that a writer alone pays no buffer.

use super::overlay::{Beneath, Overlaid, Overlay};
use super::{Ranged, ReadTxn, Tree, WriteTxn};
use crate::error::Result;
use std::cell::Cell;

/// Writes kept apart from `outer` until committed into it.
pub(crate) type Buffered<'p> = Overlaid<Direct<'p>>;

impl<'p> Buffered<'p> {
    pub(crate) fn buffering(outer: &'p mut dyn WriteTxn, touched: &'p Cell<bool>) -> Buffered<'p> {
        Overlaid::new(Direct {
            outer,
            touched: Some(touched),
        })
    }
}

/// The outer transaction itself, whose commit is the group's; beneath a
/// [`Buffered`] mutation, what it reads under its writes and where its
/// commit applies them.
pub(crate) struct Direct<'p> {
    outer: &'p mut dyn WriteTxn,
    /// Beneath a buffer: set once its commit starts writing into `outer`
    /// (a mutation that fails after that may have left part of its writes
    /// there).
    touched: Option<&'p Cell<bool>>,
}

impl<'p> Direct<'p> {
    pub(crate) fn new(outer: &'p mut dyn WriteTxn) -> Direct<'p> {
        Direct {
            outer,
            touched: None,
        }
    }
}

impl Beneath for Direct<'_> {
    /// Applies a buffer's writes to the group's transaction, in key order
    /// (which commits them with the rest of its group, or not at all).
    fn apply(self, overlay: Overlay) -> Result<()> {
        if let Some(touched) = self.touched {
            touched.set(true);
        }
        for (tree, writes) in overlay.trees() {
            for (key, value) in writes {
                match value {
                    Some(value) => self.outer.put(tree, key, value)?,
                    None => self.outer.delete(tree, key)?,
                }
            }
        }
        Ok(())
    }
}

impl ReadTxn for Direct<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.outer.get(tree, key)
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.outer.get_many(tree, keys)
    }

    fn read_batch(&self, reads: &[super::BatchRead]) -> Result<Vec<super::BatchAnswer>> {
        self.outer.read_batch(reads)
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.outer.range(tree, start, end, reverse, limit)
    }

    fn range_to_boundary(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Ranged> {
        self.outer
            .range_to_boundary(tree, start, end, reverse, limit)
    }

    fn salvage(
        &self,
        tree: Tree,
        from: &mut super::Salvaging,
        limit: usize,
    ) -> Result<Vec<super::Salvaged>> {
        self.outer.salvage(tree, from, limit)
    }
}

impl WriteTxn for Direct<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        self.outer.put(tree, key, value)
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.outer.delete(tree, key)
    }

    /// Nothing to do: the writes are in the outer transaction already.
    fn commit(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, Store};

    fn entries(txn: &dyn ReadTxn, tree: Tree) -> Vec<(Vec<u8>, Vec<u8>)> {
        txn.range(tree, b"", None, false, usize::MAX).unwrap()
    }

    #[test]
    fn a_buffer_reads_its_writes_and_commits_or_drops_them() {
        let store = MemoryStore::new();
        let tree = store.tree("t");
        let mut outer = store.begin_write().unwrap();
        outer.put(tree, b"a", b"1").unwrap();
        outer.put(tree, b"c", b"3").unwrap();
        let touched = Cell::new(false);
        {
            let mut buffered = Box::new(Buffered::buffering(outer.as_mut(), &touched));
            buffered.put(tree, b"b", b"2").unwrap();
            buffered.delete(tree, b"a").unwrap();
            assert_eq!(buffered.get(tree, b"a").unwrap(), None);
            assert_eq!(buffered.get(tree, b"c").unwrap(), Some(b"3".to_vec()));
            assert_eq!(
                entries(buffered.as_ref(), tree),
                vec![
                    (b"b".to_vec(), b"2".to_vec()),
                    (b"c".to_vec(), b"3".to_vec())
                ]
            );
            let back = buffered.range(tree, b"", None, true, 1).unwrap();
            assert_eq!(back, vec![(b"c".to_vec(), b"3".to_vec())]);
            // Dropped: the outer transaction is untouched.
        }
        assert_eq!(
            entries(outer.as_ref(), tree),
            vec![
                (b"a".to_vec(), b"1".to_vec()),
                (b"c".to_vec(), b"3".to_vec())
            ]
        );
        assert!(!touched.get());
        let mut buffered = Box::new(Buffered::buffering(outer.as_mut(), &touched));
        buffered.put(tree, b"b", b"2").unwrap();
        buffered.delete(tree, b"a").unwrap();
        buffered.commit().unwrap();
        assert!(touched.get());
        assert_eq!(
            entries(outer.as_ref(), tree),
            vec![
                (b"b".to_vec(), b"2".to_vec()),
                (b"c".to_vec(), b"3".to_vec())
            ]
        );
        let mut direct = Box::new(Direct::new(outer.as_mut()));
        direct.put(tree, b"d", b"4").unwrap();
        direct.commit().unwrap();
        outer.commit().unwrap();
        let read = store.begin_read().unwrap();
        assert_eq!(entries(read.as_ref(), tree).len(), 3);
    }
}
