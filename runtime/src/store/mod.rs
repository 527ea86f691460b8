//! The `Store` trait: an ordered key-value store with atomic multi-tree transactions.
//!
//! Nothing above this module names a backend. The trait is small enough for
//! a remote ordered store to implement: point reads, ordered range reads and
//! one transaction call that runs a mutation's checks and writes atomically.

mod memory;
mod redb_backend;
mod sled_backend;

pub use memory::MemoryStore;
pub use redb_backend::{RedbStore, REDB_FILE};
pub use sled_backend::SledStore;

use crate::error::{Result, RuntimeError};

/// Why a transaction body stopped.
#[derive(Debug)]
pub enum Abort {
    /// A constraint refused the write; nothing is committed.
    Refused(RuntimeError),
    /// The backend failed inside the transaction; the backend reports why.
    Backend,
}

impl From<RuntimeError> for Abort {
    fn from(error: RuntimeError) -> Abort {
        Abort::Refused(error)
    }
}

/// A backend's error, kept while the transaction body stops with
/// [`Abort::Backend`] (the body never sees backend error types), then
/// handed back by the backend's `transact`.
pub(crate) struct Failure<E>(Option<E>);

impl<E> Failure<E> {
    pub(crate) fn new() -> Failure<E> {
        Failure(None)
    }

    /// Passes a value through; keeps an error and aborts the body.
    pub(crate) fn check<T>(
        &mut self,
        result: std::result::Result<T, E>,
    ) -> std::result::Result<T, Abort> {
        result.map_err(|error| {
            self.0 = Some(error);
            Abort::Backend
        })
    }

    /// The error kept by the abort that stopped the body.
    pub(crate) fn take(&mut self) -> E {
        self.0.take().expect("a backend abort records its failure")
    }
}

/// Reads and writes inside one transaction, trees named by their position in
/// the list given to [`Store::transact`].
pub trait Txn {
    fn get(&mut self, tree: usize, key: &[u8]) -> std::result::Result<Option<Vec<u8>>, Abort>;
    fn put(&mut self, tree: usize, key: &[u8], value: &[u8]) -> std::result::Result<(), Abort>;
    fn delete(&mut self, tree: usize, key: &[u8]) -> std::result::Result<(), Abort>;
}

/// A transaction body. It may run more than once (a backend retries on
/// conflict), so it must not have effects outside the transaction.
pub type TxnBody<'a> = &'a dyn Fn(&mut dyn Txn) -> std::result::Result<(), Abort>;

/// Reads of one run: a consistent snapshot where the backend offers one
/// (redb), else reads through to the store.
pub trait ReadView {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>>;
    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>>;
}

/// The view of a store without snapshots: each read goes to the store.
pub struct ThroughView<'s>(pub &'s dyn Store);

impl ReadView for ThroughView<'_> {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.0.get(tree, key)
    }

    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.0.range(tree, start, end, reverse, limit)
    }
}

pub trait Store: Send + Sync {
    /// A consistent view for one run's reads, where the backend has
    /// snapshots (`None`: reads go to the store one by one).
    fn snapshot(&self) -> Result<Option<Box<dyn ReadView + '_>>> {
        Ok(None)
    }

    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// Entries with `start <= key < end` (`end` = `None`: no upper limit), in
    /// key order or reversed, at most `limit` of them.
    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>>;

    /// Runs `body` atomically over `trees`: all of its writes commit, or none.
    fn transact(&self, trees: &[String], body: TxnBody<'_>) -> Result<()>;

    /// Makes committed writes durable as far as the backend promises.
    fn flush(&self) -> Result<()>;
}

/// The smallest key greater than every key that starts with `prefix`, if any.
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}
