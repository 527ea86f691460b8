//! A load's aggregate sums that left 64 bits part way: rows come in the file's order, and a sum the whole file leaves within 64 bits may pass them between two rows.

use crate::error::{Result, RuntimeError};
use crate::store::Tree;
use std::collections::BTreeMap;

/// A sum past 64 bits, not written, and the error it is if it stays so.
pub(crate) struct DeferredSum {
    pub sum: i128,
    pub error: RuntimeError,
}

/// The sums a load (or a restore) holds back, by aggregate tree and group
/// key: each is written when a later row brings it back within 64 bits.
#[derive(Default)]
pub(crate) struct DeferredSums(BTreeMap<(Tree, Vec<u8>), DeferredSum>);

impl DeferredSums {
    /// The group's sum, when it is held back.
    pub fn get(&self, tree: Tree, key: &[u8]) -> Option<&DeferredSum> {
        self.0.get(&(tree, key.to_vec()))
    }

    /// Holds the group's sum back: it is past 64 bits.
    pub fn hold(&mut self, tree: Tree, key: Vec<u8>, sum: DeferredSum) {
        self.0.insert((tree, key), sum);
    }

    /// The group's sum is back within 64 bits (and written).
    pub fn release(&mut self, tree: Tree, key: &[u8]) {
        self.0.remove(&(tree, key.to_vec()));
    }

    /// E0526 if a sum is left past 64 bits (the first group's, in key
    /// order): what the whole load leaves must fit.
    pub fn settled(&self) -> Result<()> {
        match self.0.values().next() {
            Some(left) => Err(left.error.clone()),
            None => Ok(()),
        }
    }
}
