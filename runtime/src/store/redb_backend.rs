//! The redb backend: a copy-on-write B-tree with snapshot reads and durable multi-table transactions.
//!
//! Isolation is redb's own: a read transaction is a snapshot, and write
//! transactions run one at a time (`begin_write` waits for the one in
//! progress), each seeing its own writes.

use super::{ReadTxn, Store, WriteTxn};
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

/// One entry of a range read, as redb yields it.
type RangeEntry<'a> = std::result::Result<
    (
        redb::AccessGuard<'a, &'static [u8]>,
        redb::AccessGuard<'a, &'static [u8]>,
    ),
    redb::StorageError,
>;

/// A point read of any table, read-only or in a write transaction.
fn get_in(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    key: &[u8],
) -> Result<Option<Vec<u8>>> {
    Ok(table
        .get(key)
        .map_err(RuntimeError::store)?
        .map(|v| v.value().to_vec()))
}

/// A range read of any table, read-only or in a write transaction.
fn range_in(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    start: &[u8],
    end: Option<&[u8]>,
    reverse: bool,
    limit: usize,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    // redb panics on a range whose end precedes its start.
    if end.is_some_and(|end| end <= start) {
        return Ok(Vec::new());
    }
    let iter = match end {
        Some(end) => table.range::<&[u8]>(start..end),
        None => table.range::<&[u8]>(start..),
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
}

/// A tree opened for reading, or `None` when it does not exist yet.
type OpenTree = Option<redb::ReadOnlyTable<&'static [u8], &'static [u8]>>;

/// A read transaction: one snapshot. Tables are opened on first use and
/// kept for the transaction's life.
struct RedbRead {
    txn: redb::ReadTransaction,
    tables: RefCell<HashMap<String, OpenTree>>,
}

impl RedbRead {
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

impl ReadTxn for RedbRead {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.with_table(tree, None, |t| get_in(t, key))
    }

    fn get_many(&self, tree: &str, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let absent = vec![None; keys.len()];
        self.with_table(tree, absent, |t| {
            keys.iter().map(|k| get_in(t, k)).collect()
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
            range_in(t, start, end, reverse, limit)
        })
    }
}

/// The tables a write transaction has opened, each kept open until the
/// transaction ends (opening one is a lookup in redb's table directory, and
/// closing it stages its new root: per operation, it cost the TPC-C mix a
/// fifth of its throughput).
type OpenTables<'t> = RefCell<HashMap<String, redb::Table<'t, &'static [u8], &'static [u8]>>>;

self_cell::self_cell!(
    /// A write transaction with its open tables, which borrow it.
    struct RedbWrite {
        owner: redb::WriteTransaction,
        #[not_covariant]
        dependent: OpenTables,
    }
);

impl RedbWrite {
    fn with_table<T>(
        &self,
        tree: &str,
        work: impl FnOnce(&mut redb::Table<'_, &'static [u8], &'static [u8]>) -> Result<T>,
    ) -> Result<T> {
        self.with_dependent(|txn, tables| {
            let mut tables = tables.borrow_mut();
            if !tables.contains_key(tree) {
                let opened = txn.open_table(table(tree)).map_err(RuntimeError::store)?;
                tables.insert(tree.to_string(), opened);
            }
            work(tables.get_mut(tree).expect("opened above"))
        })
    }
}

impl ReadTxn for RedbWrite {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.with_table(tree, |t| get_in(t, key))
    }

    fn get_many(&self, tree: &str, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.with_table(tree, |t| keys.iter().map(|k| get_in(t, k)).collect())
    }

    fn range(
        &self,
        tree: &str,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.with_table(tree, |t| range_in(t, start, end, reverse, limit))
    }
}

impl WriteTxn for RedbWrite {
    fn put(&mut self, tree: &str, key: &[u8], value: &[u8]) -> Result<()> {
        self.with_table(tree, |t| {
            t.insert(key, value).map_err(RuntimeError::store)?;
            Ok(())
        })
    }

    fn delete(&mut self, tree: &str, key: &[u8]) -> Result<()> {
        self.with_table(tree, |t| {
            t.remove(key).map_err(RuntimeError::store)?;
            Ok(())
        })
    }

    fn commit(self: Box<Self>) -> Result<()> {
        // The tables close first, staging their roots for the commit.
        self.into_owner().commit().map_err(RuntimeError::store)
    }
}

impl Store for RedbStore {
    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        let txn = self.db.begin_read().map_err(RuntimeError::store)?;
        Ok(Box::new(RedbRead {
            txn,
            tables: RefCell::new(HashMap::new()),
        }))
    }

    /// Waits for the write transaction in progress, if any: redb runs
    /// writers one at a time. Dropped uncommitted, redb aborts it.
    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        let mut txn = self.db.begin_write().map_err(RuntimeError::store)?;
        let durability = if self.flush_on_commit {
            Durability::Immediate
        } else {
            Durability::None
        };
        txn.set_durability(durability)
            .map_err(RuntimeError::store)?;
        Ok(Box::new(RedbWrite::new(txn, |_| RefCell::default())))
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
