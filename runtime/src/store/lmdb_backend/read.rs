//! A read transaction of the LMDB backend: a snapshot kept in this thread's slot of the pool (or its own), each tree read under its prefix.

use super::LmdbStore;
use crate::error::{Result, RuntimeError};
use crate::store::lmdb_layout::Prefix;
use crate::store::lmdb_reads::{get_in, range_in, scan_in, StoredKey};
use crate::store::read_pool::{Kept, Slot};
use crate::store::{Found, Ranged, ReadTxn, Tree, Visit};
use heed::{RoTxn, WithoutTls};

/// A read transaction.
pub(super) struct LmdbRead<'s> {
    pub(super) store: &'s LmdbStore,
    pub(super) held: Held<'s>,
}

/// Where a read's transaction is.
pub(super) enum Held<'s> {
    /// In this thread's slot of the store's pool, kept when the read ends.
    Slot(Slot<'s>),
    /// Its own, ended with the read.
    Own(Kept),
}

impl Drop for LmdbRead<'_> {
    fn drop(&mut self) {
        if let Held::Slot(slot) = &mut self.held {
            self.store.pool.release(slot);
        }
    }
}

impl LmdbRead<'_> {
    fn txn(&self) -> &RoTxn<'static, WithoutTls> {
        match &self.held {
            Held::Slot(slot) => {
                &slot
                    .as_ref()
                    .expect("a slot being read holds its transaction")
                    .txn
            }
            Held::Own(kept) => &kept.txn,
        }
    }

    /// Reads `tree` with `read` in this snapshot, or gives `absent` when
    /// no commit the snapshot holds wrote the tree.
    fn with_tree<T>(
        &self,
        tree: Tree,
        absent: T,
        read: impl FnOnce(Prefix, &RoTxn<'_>) -> Result<T>,
    ) -> Result<T> {
        let env = &self.store.env;
        let value = match self.store.prefix_in(tree, self.txn(), true)? {
            Some(prefix) => read(prefix, self.txn())?,
            None => absent,
        };
        if env.snapshot_reusable(self.txn()) {
            return Err(RuntimeError::conflict(
                "a writer may have reused the pages of this read's snapshot (the database is read without its lock file)",
            ));
        }
        Ok(value)
    }
}

impl ReadTxn for LmdbRead<'_> {
    /// A read transaction's id is the last committed write's: reads of
    /// one id see the same pages, in this process or any other.
    fn snapshot(&self) -> Option<u64> {
        Some(self.txn().id() as u64)
    }

    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let env = &self.store.env;
        self.with_tree(tree, None, |prefix, txn| get_in(env, prefix, txn, key))
    }

    /// The value read in place, from the snapshot's page: no copy.
    fn get_with(&self, tree: Tree, key: &[u8], found: &mut Found<'_>) -> Result<()> {
        let env = &self.store.env;
        // `found`'s outcome is given after the snapshot is known good: a
        // value read from reused pages is never the answer.
        let mut outcome = None;
        self.with_tree(tree, (), |prefix, txn| {
            // A key too long to store is in no tree.
            let value = match StoredKey::new(env, prefix, key) {
                Some(key) => env
                    .main
                    .get(txn, key.as_slice())
                    .map_err(|e| env.error(e))?,
                None => None,
            };
            outcome = Some(found(value));
            Ok(())
        })?;
        match outcome {
            Some(outcome) => outcome,
            // The tree does not exist in this snapshot.
            None => found(None),
        }
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let env = &self.store.env;
        self.with_tree(tree, vec![None; keys.len()], |prefix, txn| {
            keys.iter().map(|k| get_in(env, prefix, txn, k)).collect()
        })
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        Ok(self
            .range_to_boundary(tree, start, end, reverse, limit)?
            .entries)
    }

    fn range_to_boundary(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Ranged> {
        let env = &self.store.env;
        self.with_tree(tree, Ranged::default(), |prefix, txn| {
            range_in(env, prefix, txn, start, end, reverse, limit)
        })
    }

    /// Each entry lent from the snapshot's page: no copy.
    fn scan(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        visit: &mut Visit<'_>,
    ) -> Result<()> {
        let env = &self.store.env;
        self.with_tree(tree, (), |prefix, txn| {
            scan_in(env, prefix, txn, start, end, visit)
        })
    }
}
