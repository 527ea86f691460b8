//! What a session wrote: whether anything, how many entries, and which table rows (a row written twice counts once).

use crate::store::Tree;
use std::collections::HashSet;

/// A session's writes, counted: the run's `written` figure, whether the
/// commit has anything to make durable, and whether an update's computed
/// changes wrote.
pub(crate) struct Written {
    /// Table rows inserted, updated or deleted: `(tree, key)`.
    rows: HashSet<(Tree, Vec<u8>)>,
    /// Whether `rows` is kept: a load writes each row once and counts them
    /// itself, so its memory does not grow with the file.
    tracks_rows: bool,
    /// Whether anything was written (a write transaction that wrote
    /// nothing is not committed: there is nothing to make durable).
    any: bool,
    /// Entries put or deleted so far.
    entries: u64,
}

impl Default for Written {
    fn default() -> Written {
        Written {
            rows: HashSet::new(),
            tracks_rows: true,
            any: false,
            entries: 0,
        }
    }
}

impl Written {
    /// Keeps no keys of the rows written ([`Written::rows`] stays 0).
    pub fn without_row_keys(&mut self) {
        self.tracks_rows = false;
    }

    /// An entry put or deleted.
    pub fn entry(&mut self) {
        self.any = true;
        self.entries += 1;
    }

    /// Something written that is no entry of the program's (the
    /// changelog's record of an install).
    pub fn other(&mut self) {
        self.any = true;
    }

    /// A table's row written, counted once however often.
    pub fn row(&mut self, tree: Tree, key: &[u8]) {
        if self.tracks_rows {
            self.rows.insert((tree, key.to_vec()));
        }
    }

    pub fn any(&self) -> bool {
        self.any
    }

    /// Entries put or deleted so far (two readings differ when something
    /// was written in between).
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Table rows written (index entries and counters not counted).
    pub fn rows(&self) -> u64 {
        self.rows.len() as u64
    }
}
