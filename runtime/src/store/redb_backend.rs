//! The redb backend: a copy-on-write B-tree with durable multi-table transactions.

use super::{Abort, Failure, ReadView, Store, Txn, TxnBody};
use crate::error::{Result, RuntimeError};
use redb::{Durability, ReadableDatabase, ReadableTable, TableDefinition, TableError};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

/// The file inside the database directory.
pub const REDB_FILE: &str = "rqc.redb";

pub struct RedbStore {
    db: redb::Database,
    flush_on_commit: bool,
}

fn table(name: &str) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
    TableDefinition::new(name)
}

impl RedbStore {
    /// Opens (or creates) `dir/rqc.redb`. With `flush_on_commit`, each
    /// commit is durable (fsync) before it returns; otherwise commits are
    /// made durable by the next [`Store::flush`].
    pub fn open(dir: &Path, flush_on_commit: bool) -> Result<RedbStore> {
        std::fs::create_dir_all(dir).map_err(RuntimeError::store)?;
        let db = redb::Database::create(dir.join(REDB_FILE)).map_err(RuntimeError::store)?;
        Ok(RedbStore {
            db,
            flush_on_commit,
        })
    }
}

struct RedbTxn<'t> {
    tables: Vec<redb::Table<'t, &'static [u8], &'static [u8]>>,
    failure: Failure<redb::StorageError>,
}

impl Txn for RedbTxn<'_> {
    fn get(&mut self, tree: usize, key: &[u8]) -> std::result::Result<Option<Vec<u8>>, Abort> {
        let result = self.tables[tree]
            .get(key)
            .map(|v| v.map(|v| v.value().to_vec()));
        self.failure.check(result)
    }

    fn put(&mut self, tree: usize, key: &[u8], value: &[u8]) -> std::result::Result<(), Abort> {
        let result = self.tables[tree].insert(key, value).map(|_| ());
        self.failure.check(result)
    }

    fn delete(&mut self, tree: usize, key: &[u8]) -> std::result::Result<(), Abort> {
        let result = self.tables[tree].remove(key).map(|_| ());
        self.failure.check(result)
    }
}

/// One entry of a range read, as redb yields it.
type RangeEntry<'a> = std::result::Result<
    (
        redb::AccessGuard<'a, &'static [u8]>,
        redb::AccessGuard<'a, &'static [u8]>,
    ),
    redb::StorageError,
>;

/// A tree opened for reading, or `None` when it does not exist yet.
type OpenTree = Option<redb::ReadOnlyTable<&'static [u8], &'static [u8]>>;

/// One read transaction for a whole run: a consistent snapshot, and no
/// transaction begun per read. Opened tables are kept for the run.
struct RedbView {
    txn: redb::ReadTransaction,
    tables: RefCell<HashMap<String, OpenTree>>,
}

impl RedbView {
    fn with_table<T>(
        &self,
        tree: &str,
        absent: T,
        read: impl FnOnce(&redb::ReadOnlyTable<&'static [u8], &'static [u8]>) -> Result<T>,
    ) -> Result<T> {
        let mut tables = self.tables.borrow_mut();
        if !tables.contains_key(tree) {
            let opened = match self.txn.open_table(table(tree)) {
                Ok(t) => Some(t),
                Err(TableError::TableDoesNotExist(_)) => None,
                Err(error) => return Err(RuntimeError::store(error)),
            };
            tables.insert(tree.to_string(), opened);
        }
        match tables.get(tree).and_then(Option::as_ref) {
            Some(t) => read(t),
            None => Ok(absent),
        }
    }
}

impl ReadView for RedbView {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.with_table(tree, None, |t| {
            Ok(t.get(key)
                .map_err(RuntimeError::store)?
                .map(|v| v.value().to_vec()))
        })
    }

    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.with_table(tree, Vec::new(), |t| {
            let iter = match end {
                Some(end) => t.range::<&[u8]>(start..end),
                None => t.range::<&[u8]>(start..),
            }
            .map_err(RuntimeError::store)?;
            let pick = |entry: RangeEntry<'_>| {
                entry
                    .map(|(k, v)| (k.value().to_vec(), v.value().to_vec()))
                    .map_err(RuntimeError::store)
            };
            if reverse {
                iter.rev().take(limit).map(pick).collect()
            } else {
                iter.take(limit).map(pick).collect()
            }
        })
    }
}

impl RedbStore {
    /// A consistent view: one read transaction.
    fn view(&self) -> Result<RedbView> {
        let txn = self.db.begin_read().map_err(RuntimeError::store)?;
        Ok(RedbView {
            txn,
            tables: RefCell::new(HashMap::new()),
        })
    }
}

impl Store for RedbStore {
    fn snapshot(&self) -> Result<Option<Box<dyn ReadView + '_>>> {
        Ok(Some(Box::new(self.view()?)))
    }

    /// A single read is a view of its own.
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.view()?.get(tree, key)
    }

    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.view()?.range(tree, start, end, reverse, limit)
    }

    fn transact(&self, names: &[String], body: TxnBody<'_>) -> Result<()> {
        let mut txn = self.db.begin_write().map_err(RuntimeError::store)?;
        let durability = if self.flush_on_commit {
            Durability::Immediate
        } else {
            Durability::None
        };
        txn.set_durability(durability)
            .map_err(RuntimeError::store)?;
        let outcome = {
            let mut tables = Vec::with_capacity(names.len());
            for name in names {
                tables.push(txn.open_table(table(name)).map_err(RuntimeError::store)?);
            }
            let mut view = RedbTxn {
                tables,
                failure: Failure::new(),
            };
            match body(&mut view) {
                Ok(()) => Ok(()),
                Err(Abort::Refused(error)) => Err(error),
                Err(Abort::Backend) => Err(RuntimeError::store(view.failure.take())),
            }
        };
        match outcome {
            Ok(()) => txn.commit().map_err(RuntimeError::store),
            Err(error) => {
                txn.abort().map_err(RuntimeError::store)?;
                Err(error)
            }
        }
    }

    fn flush(&self) -> Result<()> {
        // An empty commit with immediate durability makes every earlier
        // non-durable commit durable.
        let mut txn = self.db.begin_write().map_err(RuntimeError::store)?;
        txn.set_durability(Durability::Immediate)
            .map_err(RuntimeError::store)?;
        txn.commit().map_err(RuntimeError::store)
    }
}
