//! Reading a whole tree a chunk at a time past damage (`verify`, `dump`): where the read is, and the entries it gives, each value or why it is unreadable.

use super::{ReadTxn, Tree};
use crate::error::Result;

/// An entry read past damage: its key, and its value or why it is unreadable.
pub type Salvaged = (Vec<u8>, Result<Vec<u8>>);

/// The entries `verify` and `dump` read at a time ([`ReadTxn::salvage`]),
/// and an install's migrations (`Session::each_chunk`).
pub const SALVAGE_CHUNK: usize = 4096;

/// Makes `start` the first key after `last`: where a read of a tree a
/// chunk at a time resumes, so that no key is read twice or skipped.
pub fn just_after(last: &[u8], start: &mut Vec<u8>) {
    start.clear();
    start.extend_from_slice(last);
    start.push(0);
}

/// Every entry of `tree` read past damage, a chunk at a time, kept whole.
pub fn salvage_all(txn: &dyn ReadTxn, tree: Tree) -> Result<Vec<Salvaged>> {
    let mut from = Salvaging::default();
    let mut all = Vec::new();
    while !from.done() {
        all.extend(txn.salvage(tree, &mut from, SALVAGE_CHUNK)?);
    }
    Ok(all)
}

/// Where a salvaging read of a whole tree is ([`ReadTxn::salvage`]).
#[derive(Clone, Debug, Default)]
pub struct Salvaging {
    /// The first key the next chunk reads.
    pub(super) start: Vec<u8>,
    /// The link the next entry should hold, when the one before it is
    /// known (`store::chain`).
    pub(super) expected: Option<u32>,
    /// Whether any entry was read yet.
    pub(super) begun: bool,
    done: bool,
}

impl Salvaging {
    /// Whether the tree is read to its end.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Moves past a chunk whose last key was `last`; `end` when it was
    /// the tree's last.
    pub(super) fn read(&mut self, last: Option<&[u8]>, end: bool) {
        if let Some(last) = last {
            just_after(last, &mut self.start);
            self.begun = true;
        }
        self.done |= end;
    }
}
