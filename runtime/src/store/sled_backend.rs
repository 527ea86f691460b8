//! The sled 0.34 backend: trees per table and index, multi-tree transactions.

use super::{Abort, Failure, Store, Txn, TxnBody};
use crate::error::{Result, RuntimeError};
use sled::transaction::{
    ConflictableTransactionError, TransactionError, TransactionalTree, UnabortableTransactionError,
};
use sled::Transactional;
use std::path::Path;

pub struct SledStore {
    db: sled::Db,
    flush_on_commit: bool,
}

impl SledStore {
    /// Opens (or creates) a sled database in `dir`. With `flush_on_commit`,
    /// every commit is flushed before it is acknowledged.
    pub fn open(dir: &Path, flush_on_commit: bool) -> Result<SledStore> {
        // sled releases its file lock from background threads a moment
        // after the last handle is dropped: a reopen right after a close
        // waits for it (up to two seconds) rather than failing.
        let mut attempts = 0;
        let db = loop {
            match sled::Config::new().path(dir).open() {
                Ok(db) => break db,
                Err(sled::Error::Io(error)) if lock_is_busy(&error) && attempts < 40 => {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(error) => return Err(RuntimeError::store(error)),
            }
        };
        Ok(SledStore {
            db,
            flush_on_commit,
        })
    }

    fn tree(&self, name: &str) -> Result<sled::Tree> {
        self.db.open_tree(name).map_err(RuntimeError::store)
    }
}

/// Whether opening failed because the directory's lock is held. sled wraps
/// the `WouldBlock` of `flock` in an error of kind `Other`, so the message
/// is what tells.
fn lock_is_busy(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::WouldBlock
        || error.to_string().contains("could not acquire lock")
}

struct SledTxn<'a> {
    trees: &'a [TransactionalTree],
    /// A failure goes back to sled intact: a conflict must reach sled for
    /// it to retry.
    failure: Failure<UnabortableTransactionError>,
}

impl Txn for SledTxn<'_> {
    fn get(&mut self, tree: usize, key: &[u8]) -> std::result::Result<Option<Vec<u8>>, Abort> {
        let result = self.trees[tree].get(key).map(|v| v.map(|v| v.to_vec()));
        self.failure.check(result)
    }

    fn put(&mut self, tree: usize, key: &[u8], value: &[u8]) -> std::result::Result<(), Abort> {
        let result = self.trees[tree].insert(key, value).map(|_| ());
        self.failure.check(result)
    }

    fn delete(&mut self, tree: usize, key: &[u8]) -> std::result::Result<(), Abort> {
        let result = self.trees[tree].remove(key).map(|_| ());
        self.failure.check(result)
    }
}

impl Store for SledStore {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let value = self.tree(tree)?.get(key).map_err(RuntimeError::store)?;
        Ok(value.map(|v| v.to_vec()))
    }

    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let tree = self.tree(tree)?;
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

    fn transact(&self, names: &[String], body: TxnBody<'_>) -> Result<()> {
        let trees: Vec<sled::Tree> = names
            .iter()
            .map(|name| self.tree(name))
            .collect::<Result<_>>()?;
        let outcome = trees
            .as_slice()
            .transaction(|views: &Vec<TransactionalTree>| {
                let mut txn = SledTxn {
                    trees: views,
                    failure: Failure::new(),
                };
                match body(&mut txn) {
                    Ok(()) => Ok(()),
                    Err(Abort::Refused(error)) => Err(ConflictableTransactionError::Abort(error)),
                    Err(Abort::Backend) => Err(txn.failure.take().into()),
                }
            });
        match outcome {
            Ok(()) => {}
            Err(TransactionError::Abort(error)) => return Err(error),
            Err(TransactionError::Storage(error)) => return Err(RuntimeError::store(error)),
        }
        if self.flush_on_commit {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        self.db.flush().map(|_| ()).map_err(RuntimeError::store)
    }
}
