//! A write transaction on etcd: reads at one revision, each noted for the commit's compares; writes buffered in an overlay until the commit (`commit.rs`).

use super::{commit, in_tree, unexpected, EtcdRead, Read};
use crate::error::Result;
use crate::store::overlay::Overlay;
use crate::store::{BatchAnswer, BatchRead, ReadTxn, Rebase, Tree, WriteTxn};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// A write transaction: reads at one revision, noted for the commit's
/// compares; writes buffered until the commit.
pub(super) struct EtcdWrite<'s> {
    pub(super) read: EtcdRead<'s>,
    pub(super) overlay: Overlay,
    /// Each full key read from the store, with its mod_revision (0: absent).
    pub(super) keys: RefCell<BTreeMap<Vec<u8>, i64>>,
    /// Each full-key range read from the store, `[from, to)`.
    pub(super) ranges: RefCell<Vec<(Vec<u8>, Vec<u8>)>>,
    /// Full keys the commit compares with the value they must hold
    /// (`WriteTxn::expect`).
    pub(super) expected: Vec<(Vec<u8>, Vec<u8>)>,
    /// The write made from a key's value (`WriteTxn::write_from`).
    pub(super) from_key: Option<commit::FromKey>,
}

impl EtcdWrite<'_> {
    /// What the commit must find unchanged after a range read of `[from,
    /// to)` asked for `asked` entries: the keys returned, and the part of
    /// the range they cover (all of it when the range ran out before).
    pub(super) fn note_range(
        &self,
        from: Vec<u8>,
        to: Vec<u8>,
        reads: &[Read],
        asked: usize,
        reverse: bool,
    ) {
        let covered = match reads.last() {
            Some(last) if reads.len() >= asked => {
                if reverse {
                    (last.key.clone(), to)
                } else {
                    (from, [last.key.as_slice(), b"\0"].concat())
                }
            }
            _ => (from, to),
        };
        if covered.0 < covered.1 {
            self.ranges.borrow_mut().push(covered);
        }
        let mut keys = self.keys.borrow_mut();
        for read in reads {
            keys.insert(read.key.clone(), read.mod_revision);
        }
    }

    pub(super) fn note(&self, keys: &[Vec<u8>], reads: &[Option<Read>]) {
        let mut noted = self.keys.borrow_mut();
        for (key, read) in keys.iter().zip(reads) {
            noted.insert(key.clone(), read.as_ref().map_or(0, |r| r.mod_revision));
        }
    }
}

impl ReadTxn for EtcdWrite<'_> {
    /// A mutation's reads are guarded as a query's are: a stale handle's
    /// check never reads rows written under another schema (it would
    /// refuse with that schema's numbers, E0504, not E0550).
    fn expect_on_first_read(&self, tree: Tree, key: &[u8], value: &[u8]) {
        self.read.expect_on_first_read(tree, key, value);
    }

    fn requests(&self) -> Option<u64> {
        self.read.requests()
    }

    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(pending) = self.overlay.get(tree, key) {
            return Ok(pending);
        }
        let full = vec![[self.read.store.tree_prefix(tree).as_slice(), key].concat()];
        let mut reads = self.read.get_full(&full)?;
        self.note(&full, &reads);
        Ok(reads.pop().flatten().map(|r| r.value))
    }

    fn read_batch(&self, reads: &[BatchRead]) -> Result<Vec<BatchAnswer>> {
        self.batched(reads)
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let prefix = self.read.store.tree_prefix(tree);
        let stored: Vec<Vec<u8>> = keys
            .iter()
            .filter(|k| self.overlay.get(tree, k).is_none())
            .map(|k| [prefix.as_slice(), k].concat())
            .collect();
        let reads = self.read.get_full(&stored)?;
        self.note(&stored, &reads);
        let mut reads = reads.into_iter();
        keys.iter()
            .map(|k| match self.overlay.get(tree, k) {
                Some(pending) => Ok(pending),
                None => Ok(reads
                    .next()
                    .ok_or_else(|| unexpected("fewer reads than keys"))?
                    .map(|r| r.value)),
            })
            .collect()
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let prefix_len = self.read.store.tree_prefix(tree).len();
        self.overlay
            .range(tree, start, end, reverse, limit, |asked| {
                let (from, to, reads) = self.read.range_full(tree, start, end, reverse, asked)?;
                self.note_range(from, to, &reads, asked, reverse);
                Ok(in_tree(prefix_len, &reads))
            })
    }
}

impl WriteTxn for EtcdWrite<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        self.overlay.put(tree, key, value);
        Ok(())
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.overlay.delete(tree, key);
        Ok(())
    }

    /// Compared in the commit's transaction, with no read of its own.
    fn expect(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        let full = [self.read.store.tree_prefix(tree).as_slice(), key].concat();
        self.expected.push((full, value.to_vec()));
        Ok(())
    }

    /// Kept to be made again at the commit when `key` alone changed
    /// (`commit.rs`); a second one in the transaction is made once, and
    /// the first then too (the second read what the first wrote).
    fn write_from(
        &mut self,
        tree: Tree,
        key: &[u8],
        _also: &[Tree],
        rebase: Box<Rebase>,
    ) -> Result<()> {
        if self.from_key.take().is_some() {
            return crate::store::write_once_from(self, tree, key, &rebase);
        }
        let value = self.get(tree, key)?;
        let writes = rebase(value.as_deref())?;
        let store = self.read.store;
        for (t, at, written) in &writes {
            match written {
                Some(value) => self.overlay.put(*t, at, value),
                None => self.overlay.delete(*t, at),
            }
        }
        self.from_key = Some(commit::FromKey {
            full: [store.tree_prefix(tree).as_slice(), key].concat(),
            written: writes
                .into_iter()
                .map(|(t, at, _)| [store.tree_prefix(t).as_slice(), &at].concat())
                .collect(),
            rebase,
        });
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<()> {
        commit::commit(*self)
    }
}
