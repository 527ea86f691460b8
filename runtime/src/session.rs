//! A session: reads and writes of one run, counted, with a mutation's writes
//! held in an overlay until they commit together.

use crate::error::Result;
use crate::store::{ReadView, Store, ThroughView};
use std::collections::{BTreeMap, HashMap};

type Writes = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

/// Reads through to the store; writes stay here (and are seen by later
/// reads of the same run) until [`Session::commit`] writes them in one
/// atomic transaction.
pub struct Session<'s> {
    store: &'s dyn Store,
    /// Reads go through one view for the whole run (a snapshot where the
    /// backend has them).
    view: Box<dyn ReadView + 's>,
    /// Whether `view` is a consistent snapshot (else each read sees the
    /// store as it is at that moment).
    snapshot: bool,
    writes: HashMap<String, Writes>,
    /// B-tree descents and entries read so far.
    pub seeks: u64,
    pub rows: u64,
}

impl<'s> Session<'s> {
    pub fn new(store: &'s dyn Store) -> Session<'s> {
        let (view, snapshot): (Box<dyn ReadView + 's>, bool) = match store.snapshot() {
            Ok(Some(view)) => (view, true),
            // No snapshots here (or none to be had now): read through,
            // and say so, so the engine keeps commits out meanwhile.
            _ => (Box::new(ThroughView(store)), false),
        };
        Session {
            store,
            view,
            snapshot,
            writes: HashMap::new(),
            seeks: 0,
            rows: 0,
        }
    }

    /// Whether the run reads one consistent snapshot.
    pub fn reads_a_snapshot(&self) -> bool {
        self.snapshot
    }

    /// A point read: one seek, one row when found.
    pub fn get(&mut self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.seeks += 1;
        let value = match self.writes.get(tree).and_then(|w| w.get(key)) {
            Some(pending) => pending.clone(),
            None => self.view.get(tree, key)?,
        };
        if value.is_some() {
            self.rows += 1;
        }
        Ok(value)
    }

    /// A point read that always counts a row (a counter's read-modify-write).
    pub fn get_counter(&mut self, tree: &str, key: &[u8]) -> Result<u64> {
        let value = self.get(tree, key)?;
        if value.is_none() {
            self.rows += 1;
        }
        Ok(value
            .and_then(|bytes| <[u8; 8]>::try_from(bytes.as_slice()).ok())
            .map(u64::from_be_bytes)
            .unwrap_or(0))
    }

    pub fn set_counter(&mut self, tree: &str, key: &[u8], value: u64) {
        if value == 0 {
            self.delete(tree, key);
        } else {
            self.put(tree, key, &value.to_be_bytes());
        }
    }

    /// Entries with keys in `[start, end)` in order, at most `limit`: one
    /// seek, one row per entry.
    pub fn range(
        &mut self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.seeks += 1;
        // An empty range (such as `t1..t2` with t1 > t2) reads nothing.
        if end.is_some_and(|end| end <= start) {
            return Ok(Vec::new());
        }
        let pending: Vec<(&Vec<u8>, &Option<Vec<u8>>)> = match self.writes.get(tree) {
            Some(writes) => writes
                .range(start.to_vec()..)
                .take_while(|(k, _)| end.is_none_or(|e| k.as_slice() < e))
                .collect(),
            None => Vec::new(),
        };
        // Read enough from the store that the overlay's deletions cannot
        // leave the result short.
        let extra = pending.iter().filter(|(_, v)| v.is_none()).count();
        let stored = self
            .view
            .range(tree, start, end, false, limit.saturating_add(extra))?;
        let mut merged: BTreeMap<Vec<u8>, Vec<u8>> = stored.into_iter().collect();
        for (key, value) in pending {
            match value {
                Some(v) => merged.insert(key.clone(), v.clone()),
                None => merged.remove(key),
            };
        }
        let result: Vec<(Vec<u8>, Vec<u8>)> = merged.into_iter().take(limit).collect();
        self.rows += result.len() as u64;
        Ok(result)
    }

    pub fn put(&mut self, tree: &str, key: &[u8], value: &[u8]) {
        self.writes
            .entry(tree.to_string())
            .or_default()
            .insert(key.to_vec(), Some(value.to_vec()));
    }

    pub fn delete(&mut self, tree: &str, key: &[u8]) {
        self.writes
            .entry(tree.to_string())
            .or_default()
            .insert(key.to_vec(), None);
    }

    /// An index entry written or removed: one seek into that index.
    pub fn count_seek(&mut self) {
        self.seeks += 1;
    }

    /// Table rows inserted, updated or deleted (index entries and counters
    /// not counted).
    pub fn rows_written(&self) -> u64 {
        self.writes
            .iter()
            .filter(|(tree, _)| crate::rows::is_table_tree(tree))
            .map(|(_, writes)| writes.len() as u64)
            .sum()
    }

    fn has_writes(&self) -> bool {
        self.writes.values().any(|w| !w.is_empty())
    }

    /// Writes everything in one atomic transaction.
    pub fn commit(self) -> Result<()> {
        if !self.has_writes() {
            return Ok(());
        }
        let trees: Vec<String> = self.writes.keys().cloned().collect();
        let batches: Vec<&Writes> = trees.iter().map(|t| &self.writes[t]).collect();
        self.store.transact(&trees, &|txn| {
            for (tree, writes) in batches.iter().enumerate() {
                for (key, value) in writes.iter() {
                    match value {
                        Some(value) => txn.put(tree, key, value)?,
                        None => txn.delete(tree, key)?,
                    }
                }
            }
            Ok(())
        })
    }
}
