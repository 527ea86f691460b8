//! What a run takes for granted about the database it runs on: the schema generation its commit expects, and whether keys past a table's longest are answered without the store.

use crate::error::Result;
use crate::store::{Tree, WriteTxn};

/// A session's expectations of its database, set when it is made.
pub(crate) struct Expectations<'s> {
    /// The schema generation the commit expects in the catalog (a run of
    /// an installed program: `catalog::GENERATION_KEY`).
    generation: Option<(Tree, &'s [u8])>,
    /// Whether reads keyed past a table's longest key are answered without
    /// the store (`entry_bytes`): in a write transaction on a store whose
    /// requests are limited, where the commit's size is proved.
    clamps_keys: bool,
}

impl<'s> Expectations<'s> {
    pub fn new(clamps_keys: bool) -> Expectations<'s> {
        Expectations {
            generation: None,
            clamps_keys,
        }
    }

    /// The commit expects the catalog's schema generation to be `generation`.
    pub fn generation(&mut self, catalog: Tree, generation: &'s [u8]) {
        self.generation = Some((catalog, generation));
    }

    /// Whether a key longer than any a table's trees hold finds nothing
    /// without asking the store.
    pub fn clamps_keys(&self) -> bool {
        self.clamps_keys
    }

    /// Holds the commit in `txn` to the expected generation: a compare of
    /// the commit's own request on etcd, a check now on a store whose
    /// writers take turns.
    pub fn hold(&self, txn: &mut dyn WriteTxn) -> Result<()> {
        match self.generation {
            Some((catalog, generation)) => {
                txn.expect(catalog, crate::rows::GENERATION_KEY, generation)
            }
            None => Ok(()),
        }
    }
}
