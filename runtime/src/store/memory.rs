//! An in-memory store for tests and embedding: persistent ordered maps, snapshot reads, one writer at a time.
//!
//! The state is a persistent vector (imbl), by tree handle, of persistent
//! ordered maps, so a copy shares everything with its original: a read
//! transaction takes a copy of the committed state in O(1) and reads it
//! undisturbed; a write transaction holds the writer lock, changes its own
//! copy (its reads see its writes) and its commit puts that copy in place.

use super::{ReadTxn, Store, Tree, TreeNames, WriteTxn};
use crate::error::Result;
use std::ops::Bound::{Excluded, Included, Unbounded};
use std::sync::{Mutex, MutexGuard, RwLock};

type Entries = imbl::OrdMap<Vec<u8>, Vec<u8>>;
type Trees = imbl::Vector<Entries>;

#[derive(Default)]
pub struct MemoryStore {
    names: TreeNames,
    /// The last committed state.
    committed: RwLock<Trees>,
    /// Held by the write transaction in progress: writers run one at a time.
    writer: Mutex<()>,
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn state(&self) -> Trees {
        self.committed
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

/// Reads of one state of the trees.
struct Snapshot(Trees);

impl ReadTxn for Snapshot {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.0.get(tree.index()).and_then(|t| t.get(key)).cloned())
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let Some(tree) = self.0.get(tree.index()) else {
            return Ok(Vec::new());
        };
        // An ordered map refuses a range whose end precedes its start.
        if end.is_some_and(|end| end <= start) {
            return Ok(Vec::new());
        }
        let upper = match end {
            Some(end) => Excluded(end),
            None => Unbounded,
        };
        let range = tree.range::<_, [u8]>((Included(start), upper));
        let pick = |(k, v): (&Vec<u8>, &Vec<u8>)| (k.clone(), v.clone());
        Ok(if reverse {
            range.rev().take(limit).map(pick).collect()
        } else {
            range.take(limit).map(pick).collect()
        })
    }
}

struct MemoryWrite<'s> {
    store: &'s MemoryStore,
    /// The committed state when the transaction began, with its writes.
    trees: Snapshot,
    _writer: MutexGuard<'s, ()>,
}

impl ReadTxn for MemoryWrite<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.trees.get(tree, key)
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.trees.range(tree, start, end, reverse, limit)
    }
}

impl WriteTxn for MemoryWrite<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        let trees = &mut self.trees.0;
        while trees.len() <= tree.index() {
            trees.push_back(Entries::new());
        }
        trees[tree.index()].insert(key.to_vec(), value.to_vec());
        Ok(())
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        if let Some(t) = self.trees.0.get_mut(tree.index()) {
            t.remove(key);
        }
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<()> {
        // Only this transaction writes (it holds the writer lock), so its
        // copy is the committed state plus its own writes.
        *self
            .store
            .committed
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = self.trees.0;
        Ok(())
    }
}

impl Store for MemoryStore {
    fn tree(&self, name: &str) -> Tree {
        self.names.tree(name)
    }

    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        Ok(Box::new(Snapshot(self.state())))
    }

    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        let writer = self
            .writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(Box::new(MemoryWrite {
            store: self,
            trees: Snapshot(self.state()),
            _writer: writer,
        }))
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }
}
