//! An in-memory store for tests: ordered maps behind one lock.

use super::{Abort, Store, Txn, TxnBody};
use crate::error::Result;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound::{Excluded, Included, Unbounded};
use std::sync::Mutex;

type Tree = BTreeMap<Vec<u8>, Vec<u8>>;

#[derive(Default)]
pub struct MemoryStore {
    trees: Mutex<HashMap<String, Tree>>,
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

struct MemoryTxn<'a> {
    trees: &'a HashMap<String, Tree>,
    names: &'a [String],
    /// Staged writes, applied only when the body succeeds.
    staged: Vec<HashMap<Vec<u8>, Option<Vec<u8>>>>,
}

impl Txn for MemoryTxn<'_> {
    fn get(&mut self, tree: usize, key: &[u8]) -> std::result::Result<Option<Vec<u8>>, Abort> {
        if let Some(staged) = self.staged[tree].get(key) {
            return Ok(staged.clone());
        }
        Ok(self
            .trees
            .get(&self.names[tree])
            .and_then(|t| t.get(key))
            .cloned())
    }

    fn put(&mut self, tree: usize, key: &[u8], value: &[u8]) -> std::result::Result<(), Abort> {
        self.staged[tree].insert(key.to_vec(), Some(value.to_vec()));
        Ok(())
    }

    fn delete(&mut self, tree: usize, key: &[u8]) -> std::result::Result<(), Abort> {
        self.staged[tree].insert(key.to_vec(), None);
        Ok(())
    }
}

impl Store for MemoryStore {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let trees = self.trees.lock().expect("memory store lock");
        Ok(trees.get(tree).and_then(|t| t.get(key)).cloned())
    }

    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let trees = self.trees.lock().expect("memory store lock");
        let Some(tree) = trees.get(tree) else {
            return Ok(Vec::new());
        };
        let upper = match end {
            Some(end) => Excluded(end.to_vec()),
            None => Unbounded,
        };
        let range = tree.range((Included(start.to_vec()), upper));
        let pick = |(k, v): (&Vec<u8>, &Vec<u8>)| (k.clone(), v.clone());
        Ok(if reverse {
            range.rev().take(limit).map(pick).collect()
        } else {
            range.take(limit).map(pick).collect()
        })
    }

    fn transact(&self, names: &[String], body: TxnBody<'_>) -> Result<()> {
        let mut trees = self.trees.lock().expect("memory store lock");
        let mut txn = MemoryTxn {
            trees: &trees,
            names,
            staged: vec![HashMap::new(); names.len()],
        };
        match body(&mut txn) {
            Ok(()) => {
                let staged = std::mem::take(&mut txn.staged);
                for (name, writes) in names.iter().zip(staged) {
                    let tree = trees.entry(name.clone()).or_default();
                    for (key, value) in writes {
                        match value {
                            Some(value) => tree.insert(key, value),
                            None => tree.remove(&key),
                        };
                    }
                }
                Ok(())
            }
            Err(Abort::Refused(error)) => Err(error),
            Err(Abort::Backend) => {
                unreachable!("the memory store never fails inside a transaction")
            }
        }
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }
}
