//! The redb backend: a copy-on-write B-tree with snapshot reads and durable multi-table transactions.
//!
//! Isolation is redb's own: a read transaction is a snapshot, and write
//! transactions run one at a time (`begin_write` waits for the one in
//! progress), each seeing its own writes.
//!
//! Beginning a read transaction and opening its tables cost a third of a
//! point read, so runs share one snapshot, its tables opened once, until
//! the next commit through this store makes it stale (redb admits one
//! process per database, so no commit comes from elsewhere).
//!
//! Durable commits share their syncs (group commit): each transaction
//! commits without a sync, then waits until a sync that covers it is done;
//! one waiting writer makes that sync for every commit made before it
//! began (an empty commit with immediate durability persists every earlier
//! non-durable one). A commit is acknowledged only once it is durable.

use super::{ReadTxn, Store, Tree, TreeNames, WriteTxn};
use crate::error::{Result, RuntimeError};
use redb::{Durability, ReadableDatabase, ReadableTable, TableDefinition, TableError};
use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// The file inside the database directory.
pub const REDB_FILE: &str = "rqc.redb";

pub struct RedbStore {
    db: redb::Database,
    durability: super::Durability,
    names: TreeNames,
    /// Commits made through this store: a shared snapshot older than the
    /// last one is stale.
    commits: AtomicU64,
    /// The snapshot runs read while no commit has happened since.
    shared: Mutex<Option<Arc<Snapshot>>>,
    syncs: GroupSync,
}

/// Commits made and commits made durable, by number, and whether a writer
/// is syncing for the others.
#[derive(Default)]
struct GroupSync {
    state: Mutex<SyncState>,
    synced: Condvar,
}

#[derive(Default)]
struct SyncState {
    committed: u64,
    durable: u64,
    syncing: bool,
}

fn table(name: &str) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
    TableDefinition::new(name)
}

impl RedbStore {
    /// Opens (or creates) `dir/rqc.redb`. At `Full` and `Normal` each
    /// commit is durable (fsync, redb's `Durability::Immediate`) before it
    /// returns: redb has no level between that and `Durability::None`
    /// (its `Eventual` is gone), and `None` would break `Normal`'s promise
    /// that a process crash loses nothing. At `None` commits are made
    /// durable by the next [`Store::flush`] (or a close).
    pub fn open(dir: &Path, durability: super::Durability) -> Result<RedbStore> {
        RedbStore::open_waiting(dir, durability, super::DEFAULT_WAIT)
    }

    /// Opens it, waiting at most `wait` while another process has it open
    /// (redb admits one at a time), then E0540.
    pub fn open_waiting(
        dir: &Path,
        durability: super::Durability,
        wait: Duration,
    ) -> Result<RedbStore> {
        std::fs::create_dir_all(dir).map_err(|e| RuntimeError::io_at(dir, e))?;
        let file = dir.join(REDB_FILE);
        let db = crate::store::waiting(dir, wait, || match redb::Database::create(&file) {
            Ok(db) => Ok(Some(db)),
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => Ok(None),
            Err(redb::DatabaseError::Storage(redb::StorageError::Io(error))) => {
                Err(RuntimeError::io_at(&file, error))
            }
            Err(error) => Err(RuntimeError::store(error)),
        })?;
        Ok(RedbStore {
            db,
            durability,
            names: TreeNames::default(),
            commits: AtomicU64::new(0),
            shared: Mutex::new(None),
            syncs: GroupSync::default(),
        })
    }

    /// After a commit: returns once a sync covers it, making that sync
    /// itself when no other writer is.
    fn wait_durable(&self) -> Result<()> {
        let lock = || self.syncs.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut state = lock();
        state.committed += 1;
        let mine = state.committed;
        loop {
            if state.durable >= mine {
                return Ok(());
            }
            if !state.syncing {
                state.syncing = true;
                let target = state.committed;
                drop(state);
                let synced = self.sync();
                state = lock();
                state.syncing = false;
                if synced.is_ok() {
                    state.durable = state.durable.max(target);
                }
                self.syncs.synced.notify_all();
                synced?;
                continue;
            }
            state = self
                .syncs
                .synced
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// An empty commit with immediate durability: every earlier commit is
    /// then on disk.
    fn sync(&self) -> Result<()> {
        let mut txn = self.db.begin_write().map_err(RuntimeError::store)?;
        txn.set_durability(Durability::Immediate)
            .map_err(RuntimeError::store)?;
        txn.commit().map_err(RuntimeError::store)
    }

    /// The current snapshot: the shared one, or a new one when a commit
    /// made it stale.
    fn snapshot(&self) -> Result<Arc<Snapshot>> {
        let commits = self.commits.load(Ordering::Acquire);
        let mut shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(snapshot) = shared.as_ref().filter(|s| s.commits == commits) {
            return Ok(Arc::clone(snapshot));
        }
        let txn = self.db.begin_read().map_err(RuntimeError::store)?;
        let snapshot = Arc::new(Snapshot {
            commits,
            txn,
            tables: (0..self.names.len()).map(|_| OnceLock::new()).collect(),
        });
        *shared = Some(Arc::clone(&snapshot));
        Ok(snapshot)
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

/// One committed state, shared by the runs that read it: its tables are
/// opened on first use and kept for the snapshot's life.
struct Snapshot {
    commits: u64,
    txn: redb::ReadTransaction,
    /// By tree handle, for the trees named when the snapshot began.
    tables: Vec<OnceLock<OpenTree>>,
}

impl Snapshot {
    fn with_table<T>(
        &self,
        names: &TreeNames,
        tree: Tree,
        absent: T,
        read: impl FnOnce(&redb::ReadOnlyTable<&'static [u8], &'static [u8]>) -> Result<T>,
    ) -> Result<T> {
        let open = || match self.txn.open_table(table(&names.name(tree))) {
            Ok(t) => Ok(Some(t)),
            Err(TableError::TableDoesNotExist(_)) => Ok(None),
            Err(error) => Err(RuntimeError::store(error)),
        };
        let opened;
        let table = match self.tables.get(tree.index()) {
            Some(slot) => match slot.get() {
                Some(table) => table,
                None => {
                    let table = open()?;
                    slot.get_or_init(|| table)
                }
            },
            // A tree named after the snapshot began: opened for this read.
            None => {
                opened = open()?;
                &opened
            }
        };
        match table {
            Some(t) => read(t),
            None => Ok(absent),
        }
    }
}

/// A read transaction: a share of the current snapshot.
struct RedbRead<'s> {
    snapshot: Arc<Snapshot>,
    names: &'s TreeNames,
}

impl ReadTxn for RedbRead<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.snapshot
            .with_table(self.names, tree, None, |t| get_in(t, key))
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let absent = vec![None; keys.len()];
        self.snapshot.with_table(self.names, tree, absent, |t| {
            keys.iter().map(|k| get_in(t, k)).collect()
        })
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.snapshot.with_table(self.names, tree, Vec::new(), |t| {
            range_in(t, start, end, reverse, limit)
        })
    }
}

/// The tables a write transaction has opened, each kept open until the
/// transaction ends (opening one is a lookup in redb's table directory, and
/// closing it stages its new root: per operation, it cost the TPC-C mix a
/// fifth of its throughput).
type OpenTables<'t> = RefCell<Vec<Option<redb::Table<'t, &'static [u8], &'static [u8]>>>>;

self_cell::self_cell!(
    /// A write transaction with its open tables, which borrow it.
    struct RedbWrite {
        owner: redb::WriteTransaction,
        #[not_covariant]
        dependent: OpenTables,
    }
);

/// A write transaction, and the store whose commit count its commit moves.
struct RedbWriting<'s> {
    txn: RedbWrite,
    store: &'s RedbStore,
}

impl RedbWriting<'_> {
    fn with_table<T>(
        &self,
        tree: Tree,
        work: impl FnOnce(&mut redb::Table<'_, &'static [u8], &'static [u8]>) -> Result<T>,
    ) -> Result<T> {
        self.txn.with_dependent(|txn, tables| {
            let mut tables = tables.borrow_mut();
            if tables.len() <= tree.index() {
                tables.resize_with(tree.index() + 1, || None);
            }
            let slot = &mut tables[tree.index()];
            if slot.is_none() {
                let name = self.store.names.name(tree);
                *slot = Some(txn.open_table(table(&name)).map_err(RuntimeError::store)?);
            }
            work(slot.as_mut().expect("opened above"))
        })
    }
}

impl ReadTxn for RedbWriting<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.with_table(tree, |t| get_in(t, key))
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.with_table(tree, |t| keys.iter().map(|k| get_in(t, k)).collect())
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.with_table(tree, |t| range_in(t, start, end, reverse, limit))
    }
}

impl WriteTxn for RedbWriting<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        self.with_table(tree, |t| {
            t.insert(key, value).map_err(RuntimeError::store)?;
            Ok(())
        })
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.with_table(tree, |t| {
            t.remove(key).map_err(RuntimeError::store)?;
            Ok(())
        })
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let store = self.store;
        // The tables close first, staging their roots for the commit.
        self.txn
            .into_owner()
            .commit()
            .map_err(RuntimeError::store)?;
        // Later runs read a snapshot with this commit in it.
        store.commits.fetch_add(1, Ordering::Release);
        if store.durability != super::Durability::None {
            store.wait_durable()?;
        }
        Ok(())
    }
}

impl Store for RedbStore {
    fn tree(&self, name: &str) -> Tree {
        self.names.tree(name)
    }

    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        Ok(Box::new(RedbRead {
            snapshot: self.snapshot()?,
            names: &self.names,
        }))
    }

    /// Waits for the write transaction in progress, if any: redb runs
    /// writers one at a time. Dropped uncommitted, redb aborts it.
    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        let mut txn = self.db.begin_write().map_err(RuntimeError::store)?;
        // Made durable after the commit, by a sync it may share.
        txn.set_durability(Durability::None)
            .map_err(RuntimeError::store)?;
        Ok(Box::new(RedbWriting {
            txn: RedbWrite::new(txn, |_| RefCell::default()),
            store: self,
        }))
    }

    fn flush(&self) -> Result<()> {
        self.sync()
    }
}
