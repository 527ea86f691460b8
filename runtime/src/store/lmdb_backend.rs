//! The LMDB backend (through heed): readers in any process run beside one writer, and never wait.
//!
//! LMDB keeps one memory-mapped file per database directory. A read
//! transaction is a snapshot that no writer blocks or changes; writers run
//! one at a time across every process, which take [`WriterLock`] first so
//! that a writer waits for another at most `wait` (then E0540, busy).
//!
//! Each tree is a named LMDB database (a `dbi`), opened once per process
//! and then found by [`Tree`] handle. LMDB lets a transaction use only the
//! databases opened before it began, and lets one transaction at a time
//! open them, so: a write transaction opens (creating) the trees it meets
//! in a nested transaction and publishes their handles when it commits; a
//! read transaction that meets a tree this process has not opened yet
//! looks the name up in its own snapshot — absent, it reads as empty;
//! present, the tree is opened and read in a new transaction of the same
//! snapshot, or, when a commit came in between, the run starts again (a
//! conflict, E0595, which the engine retries).
//!
//! The map (the file's address space) is reserved at its full size up
//! front: it costs virtual memory, not disk, and the file grows inside it.
//! A database that reaches it fails its write with E0542.

pub use super::lmdb_env::{Access, LmdbOptions, LMDB_FILE, MAP_SIZE};
use super::lmdb_env::{Db, Environment};
use super::lmdb_reads::{get_in, longest_key, range_in, StoredKey};
use super::read_pool::{Kept, ReadPool, Slot};
use super::writer_lock::WriterGuard;
use super::{Durability, Found, Ranged, ReadTxn, Store, Tree, TreeNames, WriteTxn};
use crate::error::{Result, RuntimeError};
use heed::types::Bytes;
use heed::{CommitOrAbort, RoTxn, WithoutTls};
use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, MutexGuard, RwLock};
use std::time::Duration;

pub struct LmdbStore {
    /// Before `env`: its transactions end before the environment closes.
    pool: ReadPool,
    env: Arc<Environment>,
    durability: Durability,
    wait: Duration,
    names: TreeNames,
    /// By tree handle: each tree's database once this process has opened
    /// it. A read transaction takes the list as it was before it began, as
    /// LMDB lets it use only the databases opened by then.
    trees: RwLock<Arc<Vec<Option<Db>>>>,
    /// Bumped each time `trees` changes: a kept read transaction is read
    /// again only while it has not moved (see [`ReadPool`]).
    generation: AtomicU64,
}

impl LmdbStore {
    /// Opens (or creates) the LMDB database in `dir` with the default wait
    /// and map size.
    pub fn open(dir: &Path, durability: Durability) -> Result<LmdbStore> {
        LmdbStore::open_with(
            dir,
            LmdbOptions {
                durability,
                ..LmdbOptions::default()
            },
        )
    }

    pub fn open_with(dir: &Path, options: LmdbOptions) -> Result<LmdbStore> {
        Ok(LmdbStore {
            pool: ReadPool::default(),
            env: Environment::open(dir, &options)?,
            durability: options.durability,
            wait: options.wait,
            names: TreeNames::default(),
            trees: RwLock::default(),
            generation: AtomicU64::new(0),
        })
    }

    /// Whether this process may write the database.
    pub fn access(&self) -> Access {
        self.env.access
    }

    /// The flags LMDB holds for the environment, as it reports them.
    #[cfg(test)]
    pub(super) fn env_flags(&self) -> heed::EnvFlags {
        heed::EnvFlags::from_bits_truncate(self.env.env.get_flags().unwrap())
    }

    fn trees(&self) -> Arc<Vec<Option<Db>>> {
        self.trees_of_generation().0
    }

    /// The trees opened so far, and their generation.
    fn trees_of_generation(&self) -> (Arc<Vec<Option<Db>>>, u64) {
        let trees = self.trees.read().unwrap_or_else(|p| p.into_inner());
        (Arc::clone(&trees), self.generation.load(Ordering::Acquire))
    }

    /// A new read transaction of the latest commit, with the trees opened
    /// before it began.
    fn new_read(&self) -> Result<Kept> {
        let (trees, generation) = self.trees_of_generation();
        let txn = self
            .env
            .env
            .clone()
            .static_read_txn()
            .map_err(|e| self.env.error(e))?;
        Ok(Kept::new(txn, trees, generation))
    }

    /// Records trees opened by a committed transaction.
    fn publish(&self, opened: &[(Tree, Db)]) {
        if opened.is_empty() {
            return;
        }
        let mut trees = self.trees.write().unwrap_or_else(|p| p.into_inner());
        let mut all = trees.as_ref().clone();
        for (tree, db) in opened {
            if all.len() <= tree.index() {
                all.resize(tree.index() + 1, None);
            }
            all[tree.index()] = Some(*db);
        }
        *trees = Arc::new(all);
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Opens an existing tree for the transactions that begin after this
    /// (in a read transaction of its own, as heed has it), holding
    /// `env.opening`.
    fn open_existing(&self, tree: Tree, _opening: MutexGuard<'_, ()>) -> Result<()> {
        let env = &self.env;
        let name = self.names.name(tree);
        let rtxn = env.env.read_txn().map_err(|e| env.error(e))?;
        let db = env
            .env
            .open_databases_and_commit(rtxn, |opener, rtxn| {
                opener
                    .open_database::<Bytes, Bytes>(rtxn, Some(&name))
                    .map(CommitOrAbort::<_, ()>::Commit)
            })
            .map_err(|e| env.error(e))?
            .unwrap_commit();
        if let Some(db) = db {
            self.publish(&[(tree, db)]);
        }
        Ok(())
    }
}

/// A read transaction, with the trees opened before it began.
struct LmdbRead<'s> {
    store: &'s LmdbStore,
    held: Held<'s>,
}

/// Where a read's transaction is.
enum Held<'s> {
    /// In this thread's slot of the store's pool, kept when the read ends.
    Slot(Slot<'s>),
    /// Its own, ended with the read.
    Own(Kept),
}

impl Drop for LmdbRead<'_> {
    fn drop(&mut self) {
        if let Held::Slot(slot) = &mut self.held {
            self.store.pool.release(slot);
        }
    }
}

impl LmdbRead<'_> {
    fn kept(&self) -> &Kept {
        match &self.held {
            Held::Slot(slot) => slot
                .as_ref()
                .expect("a slot being read holds its transaction"),
            Held::Own(kept) => kept,
        }
    }

    fn txn(&self) -> &RoTxn<'static, WithoutTls> {
        &self.kept().txn
    }

    /// Reads `tree` with `read` in this snapshot, or gives `absent` when
    /// the tree does not exist in it.
    fn with_tree<T>(
        &self,
        tree: Tree,
        absent: T,
        read: impl FnOnce(Db, &RoTxn<'_>) -> Result<T>,
    ) -> Result<T> {
        let env = &self.store.env;
        let value = match self.kept().trees.get(tree.index()).copied().flatten() {
            Some(db) => read(db, self.txn())?,
            None => {
                let name = self.store.names.name(tree);
                let exists = env
                    .names
                    .get(self.txn(), name.as_bytes())
                    .map_err(|e| env.error(e))?
                    .is_some();
                if !exists {
                    absent
                } else {
                    // Opened now, the tree is read in a transaction begun
                    // after: one of the same snapshot, or else none.
                    let opening = env.opening.lock().unwrap_or_else(|p| p.into_inner());
                    self.store.open_existing(tree, opening)?;
                    let late = env.env.read_txn().map_err(|e| env.error(e))?;
                    match self.store.trees().get(tree.index()).copied().flatten() {
                        Some(db) if late.id() == self.txn().id() => read(db, &late)?,
                        _ => {
                            return Err(RuntimeError::conflict(format!(
                                "tree `{name}` was opened for the first time in this process, after a commit this read does not see"
                            )))
                        }
                    }
                }
            }
        };
        if env.snapshot_reusable(self.txn()) {
            return Err(RuntimeError::conflict(
                "a writer may have reused the pages of this read's snapshot (the database is read without its lock file)",
            ));
        }
        Ok(value)
    }
}

impl ReadTxn for LmdbRead<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let env = &self.store.env;
        self.with_tree(tree, None, |db, txn| get_in(env, db, txn, key))
    }

    /// The value read in place, from the snapshot's page: no copy.
    fn get_with(&self, tree: Tree, key: &[u8], found: &mut Found<'_>) -> Result<()> {
        let env = &self.store.env;
        // `found`'s outcome is given after the snapshot is known good: a
        // value read from reused pages is never the answer.
        let mut outcome = None;
        self.with_tree(tree, (), |db, txn| {
            // A key too long to store is in no tree.
            let value = match StoredKey::new(env, key) {
                Some(key) => db.get(txn, key.as_slice()).map_err(|e| env.error(e))?,
                None => None,
            };
            outcome = Some(found(value));
            Ok(())
        })?;
        match outcome {
            Some(outcome) => outcome,
            // The tree does not exist in this snapshot.
            None => found(None),
        }
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let env = &self.store.env;
        self.with_tree(tree, vec![None; keys.len()], |db, txn| {
            keys.iter().map(|k| get_in(env, db, txn, k)).collect()
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
        Ok(self
            .range_to_boundary(tree, start, end, reverse, limit)?
            .entries)
    }

    fn range_to_boundary(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Ranged> {
        let env = &self.store.env;
        self.with_tree(tree, Ranged::default(), |db, txn| {
            range_in(env, db, txn, start, end, reverse, limit)
        })
    }
}

/// A write transaction. Its fields drop in order: the transaction aborts
/// (when not committed) before the locks are let go.
struct LmdbWrite<'s> {
    store: &'s LmdbStore,
    txn: RefCell<heed::RwTxn<'s>>,
    /// The trees this process had opened before the transaction began: LMDB
    /// lets it use only those (a tree another transaction of this process
    /// opens later is opened again here, in a nested transaction).
    trees: Arc<Vec<Option<Db>>>,
    /// Trees this transaction opened, published when it commits (an abort
    /// closes them).
    opened: RefCell<Vec<(Tree, Db)>>,
    opening: RefCell<Option<MutexGuard<'s, ()>>>,
    _writer: WriterGuard<'s>,
}

impl LmdbWrite<'_> {
    /// The database of `tree`, opened (and created) on first use.
    fn db(&self, tree: Tree) -> Result<Db> {
        if let Some(db) = self.trees.get(tree.index()).copied().flatten() {
            return Ok(db);
        }
        if let Some((_, db)) = self.opened.borrow().iter().find(|(t, _)| *t == tree) {
            return Ok(*db);
        }
        let env = &self.store.env;
        let mut opening = self.opening.borrow_mut();
        if opening.is_none() {
            *opening = Some(env.opening.lock().unwrap_or_else(|p| p.into_inner()));
        }
        let name = self.store.names.name(tree);
        let mut parent = self.txn.borrow_mut();
        // heed opens databases only in a transaction that it then commits:
        // a nested one, which commits into this one.
        let nested = env
            .env
            .nested_write_txn(&mut parent)
            .map_err(|e| env.error(e))?;
        let db = env
            .env
            .create_databases_and_commit(nested, |opener, nested| {
                opener
                    .create_database::<Bytes, Bytes>(nested, Some(&name))
                    .map(CommitOrAbort::<_, ()>::Commit)
            })
            .map_err(|e| env.error(e))?
            .unwrap_commit();
        self.opened.borrow_mut().push((tree, db));
        Ok(db)
    }
}

impl ReadTxn for LmdbWrite<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let db = self.db(tree)?;
        get_in(&self.store.env, db, &self.txn.borrow(), key)
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let db = self.db(tree)?;
        let txn = self.txn.borrow();
        keys.iter()
            .map(|k| get_in(&self.store.env, db, &txn, k))
            .collect()
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        Ok(self
            .range_to_boundary(tree, start, end, reverse, limit)?
            .entries)
    }

    fn range_to_boundary(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Ranged> {
        let db = self.db(tree)?;
        let txn = self.txn.borrow();
        range_in(&self.store.env, db, &txn, start, end, reverse, limit)
    }
}

impl WriteTxn for LmdbWrite<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        let env = &self.store.env;
        let Some(stored) = StoredKey::new(env, key) else {
            return Err(RuntimeError::new(
                "E0544",
                format!(
                    "LMDB cannot store a key of {} bytes: its longest is {} bytes",
                    key.len(),
                    longest_key(env)
                ),
                "nothing was written; keep keys and indexed values shorter, or use a database of another backend (`--store redb`)",
            ));
        };
        let db = self.db(tree)?;
        db.put(self.txn.get_mut(), stored.as_slice(), value)
            .map_err(|e| env.error(e))
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        let env = &self.store.env;
        let Some(stored) = StoredKey::new(env, key) else {
            return Ok(());
        };
        let db = self.db(tree)?;
        db.delete(self.txn.get_mut(), stored.as_slice())
            .map(|_| ())
            .map_err(|e| env.error(e))
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let LmdbWrite {
            store,
            txn,
            opened,
            opening,
            _writer,
            ..
        } = *self;
        let env = &store.env;
        txn.into_inner().commit().map_err(|e| env.error(e))?;
        // Published before the locks are let go: a later transaction may
        // use them.
        store.publish(&opened.into_inner());
        drop(opening);
        if store.durability.stronger_than(env.durability) {
            // Another store of this process opened the environment at a
            // weaker level: its flags do not sync what this one promises.
            env.env.force_sync().map_err(|e| env.error(e))?;
        }
        Ok(())
    }
}

impl Store for LmdbStore {
    /// Opens the tree at once when it exists, so that no read meets it
    /// unopened (which would start that run again); not while this
    /// process's writer is opening trees (a migration naming a new one).
    fn tree(&self, name: &str) -> Tree {
        let tree = self.names.tree(name);
        if self.trees().get(tree.index()).copied().flatten().is_none() {
            if let Ok(opening) = self.env.opening.try_lock() {
                // Failing here, the tree is opened when a read meets it.
                let _ = self.open_existing(tree, opening);
            }
        }
        tree
    }

    /// A read transaction of the latest commit: the one kept in this
    /// thread's slot when no commit came and no tree was opened since it
    /// began (see [`ReadPool`]), or a new one.
    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        // Unlocked reading keeps nothing: a writer may reuse what it pins.
        let slot = match self.env.access {
            Access::ReadOnlyUnlocked => None,
            _ => self.pool.slot(),
        };
        let held = match slot {
            Some(mut slot) => {
                let generation = self.generation.load(Ordering::Acquire);
                let latest = self.env.env.info().last_txn_id;
                if !slot.as_ref().is_some_and(|k| k.fresh(latest, generation)) {
                    // The stale one ends first, freeing its reader slot.
                    *slot = None;
                    *slot = Some(self.new_read()?);
                }
                Held::Slot(slot)
            }
            None => Held::Own(self.new_read()?),
        };
        Ok(Box::new(LmdbRead { store: self, held }))
    }

    /// Waits for the writer of this or another process, at most `wait`.
    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        let env = &self.env;
        let Some(lock) = &env.writer else {
            return Err(RuntimeError::read_only(&env.dir));
        };
        let writer = lock.acquire(self.wait)?;
        // The trees first: each was opened before the transaction begins.
        let trees = self.trees();
        let txn = env.env.write_txn().map_err(|e| env.error(e))?;
        Ok(Box::new(LmdbWrite {
            store: self,
            txn: RefCell::new(txn),
            trees,
            opened: RefCell::default(),
            opening: RefCell::default(),
            _writer: writer,
        }))
    }

    /// Writers of all processes take turns, and each commit writes its
    /// changed pages and, at `Full`, syncs twice (once at `Normal`):
    /// shared by a group.
    fn groups_commits(&self) -> bool {
        true
    }

    fn flush(&self) -> Result<()> {
        if self.env.access != Access::ReadWrite {
            return Ok(());
        }
        self.env.env.force_sync().map_err(|e| self.env.error(e))
    }
}
