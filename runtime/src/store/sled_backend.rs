//! The sled 0.34 backend: trees per table and index, isolation by a process-wide lock.
//!
//! sled's transactions cannot read a range, and sled has no snapshots, so
//! this backend isolates transactions itself: a write transaction holds
//! the store's lock exclusively, keeps its writes in an [`Overlay`] that its
//! own reads see, and commits them in one sled multi-tree transaction; a
//! read transaction holds the lock shared, so it never sees half of a
//! commit. Isolation therefore holds between the transactions of one
//! process only (sled itself admits one process per database). A load
//! spills its writes into sled as it goes (`sled_load`), so that its
//! memory stays bounded.

use super::overlay::{Beneath, Overlaid, Overlay};
use super::sled_load::{apply, finish_journal, SPILL_AT};
use super::{Durability, ReadTxn, Store, Tree, TreeNames, WriteTxn};
use crate::error::{Result, RuntimeError};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockWriteGuard};
use std::time::Duration;

pub struct SledStore {
    pub(super) db: sled::Db,
    durability: Durability,
    /// Held exclusively by the write transaction, shared by read ones.
    pub(super) lock: RwLock<()>,
    names: TreeNames,
    /// sled's handle of each tree, by our handle, opened on first use.
    opened: RwLock<Vec<Option<sled::Tree>>>,
    /// Keys a load holds in memory before it writes them into sled.
    pub(super) spill_at: usize,
    /// Whether a load's journal may be left to finish (a load that spilled
    /// is under way, or its rollback failed): the next transaction
    /// finishes it before it begins.
    pub(super) journal_left: AtomicBool,
    /// The database's directory (a load checks the room left on its disk).
    pub(super) dir: std::path::PathBuf,
}

impl SledStore {
    /// Opens (or creates) a sled database in `dir`. At `Full` and `Normal`
    /// every commit is flushed (`Db::flush`) before it is acknowledged:
    /// sled has no mode between that and its background flush, which may
    /// lose the last commits to a process crash, as `Normal` may not. At
    /// `None` sled flushes in the background (every 500 ms).
    pub fn open(dir: &Path, durability: Durability) -> Result<SledStore> {
        SledStore::open_waiting(dir, durability, super::DEFAULT_WAIT)
    }

    /// Opens it, waiting at most `wait` while another process has it open
    /// (sled admits one at a time), then E0540. sled also lets go of its
    /// file lock from background threads a moment after the last handle
    /// is dropped, so a reopen right after a close waits for it too.
    pub fn open_waiting(dir: &Path, durability: Durability, wait: Duration) -> Result<SledStore> {
        let db = crate::store::waiting(dir, wait, || match sled::Config::new().path(dir).open() {
            Ok(db) => Ok(Some(db)),
            Err(sled::Error::Io(error)) if lock_is_busy(&error) => Ok(None),
            Err(sled::Error::Io(error)) => Err(RuntimeError::io_at(dir, error)),
            Err(error) => Err(RuntimeError::store(error)),
        })?;
        let store = SledStore {
            db,
            durability,
            lock: RwLock::new(()),
            names: TreeNames::default(),
            opened: RwLock::new(Vec::new()),
            spill_at: SPILL_AT,
            journal_left: AtomicBool::new(false),
            dir: dir.to_path_buf(),
        };
        // A load the last process did not end is ended now.
        finish_journal(&store)?;
        Ok(store)
    }

    /// The name of a tree this store gave a handle.
    pub(super) fn tree_name(&self, tree: Tree) -> String {
        self.names.name(tree)
    }

    /// Flushes, unless the level leaves flushing to sled (called while the
    /// lock is held: the next transaction starts after this one is
    /// acknowledged).
    pub(super) fn flush_if_asked(&self) -> Result<()> {
        if self.durability != Durability::None {
            self.flush()?;
        }
        Ok(())
    }

    /// Ends a load's journal left behind, before a transaction begins.
    fn finish_left_journal(&self) -> Result<()> {
        if self.journal_left.load(Ordering::Acquire) {
            let _guard = unpoison(self.lock.write());
            finish_journal(self)?;
        }
        Ok(())
    }

    /// sled's handle of `tree`, kept once opened.
    pub(super) fn sled_tree(&self, tree: Tree) -> Result<sled::Tree> {
        if let Some(Some(opened)) = unpoison(self.opened.read()).get(tree.index()) {
            return Ok(opened.clone());
        }
        let opened = self
            .db
            .open_tree(self.names.name(tree))
            .map_err(RuntimeError::store)?;
        let mut all = unpoison(self.opened.write());
        if all.len() <= tree.index() {
            all.resize(tree.index() + 1, None);
        }
        all[tree.index()] = Some(opened.clone());
        Ok(opened)
    }

    pub(super) fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let value = self
            .sled_tree(tree)?
            .get(key)
            .map_err(RuntimeError::store)?;
        Ok(value.map(|v| v.to_vec()))
    }

    pub(super) fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        // sled panics on a range whose end precedes its start.
        if end.is_some_and(|end| end <= start) {
            return Ok(Vec::new());
        }
        let tree = self.sled_tree(tree)?;
        let iter = match end {
            Some(end) => tree.range(start.to_vec()..end.to_vec()),
            None => tree.range(start.to_vec()..),
        };
        let pick = |entry: sled::Result<(sled::IVec, sled::IVec)>| {
            entry
                .map(|(k, v)| (k.to_vec(), v.to_vec()))
                .map_err(RuntimeError::store)
        };
        if reverse {
            iter.rev().take(limit).map(pick).collect()
        } else {
            iter.take(limit).map(pick).collect()
        }
    }
}

/// Whether opening failed because the directory's lock is held. sled wraps
/// the `WouldBlock` of `flock` in an error of kind `Other`, so the message
/// is what tells.
fn lock_is_busy(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::WouldBlock
        || error.to_string().contains("could not acquire lock")
}

/// A poisoned lock guards no data (a panicking run held it): go on.
pub(super) fn unpoison<G>(result: std::result::Result<G, std::sync::PoisonError<G>>) -> G {
    result.unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The store seen under the lock: shared by a read transaction, held
/// exclusively beneath a write transaction's [`Overlay`].
pub(super) struct SledView<'s, G> {
    pub(super) store: &'s SledStore,
    /// The store's lock (and, for a load, its state: `sled_load`).
    pub(super) guard: G,
}

impl<G> ReadTxn for SledView<'_, G> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.store.get(tree, key)
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.store.range(tree, start, end, reverse, limit)
    }
}

impl Beneath for SledView<'_, RwLockWriteGuard<'_, ()>> {
    /// The writes in one sled multi-tree transaction.
    fn apply(self, overlay: Overlay) -> Result<()> {
        apply(self.store, &overlay, false)?;
        self.store.flush_if_asked()
    }
}

impl Store for SledStore {
    fn tree(&self, name: &str) -> Tree {
        self.names.tree(name)
    }

    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        self.finish_left_journal()?;
        Ok(Box::new(SledView {
            store: self,
            guard: unpoison(self.lock.read()),
        }))
    }

    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        self.finish_left_journal()?;
        Ok(Box::new(Overlaid::new(SledView {
            store: self,
            guard: unpoison(self.lock.write()),
        })))
    }

    fn begin_load(&self) -> Result<Box<dyn WriteTxn + '_>> {
        Ok(Box::new(self.load()?))
    }

    fn flush(&self) -> Result<()> {
        self.db.flush().map(|_| ()).map_err(RuntimeError::store)
    }
}
