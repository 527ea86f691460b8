//! The LMDB backend (through heed): readers in any process run beside one writer, and never wait.
//!
//! LMDB keeps one memory-mapped file per database directory. A read
//! transaction is a snapshot that no writer blocks or changes; writers run
//! one at a time across every process, which take [`WriterLock`] first so
//! that a writer waits for another at most `wait` (then E0540, busy).
//!
//! Every tree lives in LMDB's one main database under a short prefix
//! (storage format 4, `lmdb_layout`): a commit copies one path per page it
//! touches, not one per tree. A tree's prefix is found in the directory
//! the first time this process reads or writes it, and kept: a committed
//! directory entry never changes. A tree no commit has written reads as
//! empty; the first write gives it its prefix. A database of format 3
//! (each tree an LMDB database of its own) is refused at open (E0518)
//! until `rqc upgrade` moves it ([`LmdbStore::upgrade_layout`]).
//!
//! The map (the file's address space) is reserved at its full size up
//! front: it costs virtual memory, not disk, and the file grows inside it.
//! A database that reaches it fails its write with E0542.

use super::lmdb_env::Environment;
pub use super::lmdb_env::{Access, LmdbOptions, LMDB_FILE, MAP_SIZE};
pub use super::lmdb_layout::Converted;
use super::lmdb_layout::{self, Directory, Prefix};
use super::lmdb_reads::{get_in, longest_key, range_in, scan_in, StoredKey};
use super::read_pool::{Kept, ReadPool};
use super::writer_lock::WriterGuard;
use super::{
    Durability, Placed, Placing, Ranged, ReadTxn, Relinking, Store, Tree, TreeNames, WriteTxn,
};
use crate::error::{Result, RuntimeError};
use heed::types::Bytes;
use heed::{PutFlags, RoTxn};
use std::ops::Bound;
use std::path::Path;
use std::sync::{Arc, RwLock};

pub struct LmdbStore {
    /// Before `env`: its transactions end before the environment closes.
    pool: ReadPool,
    env: Arc<Environment>,
    durability: Durability,
    wait: std::time::Duration,
    names: TreeNames,
    /// By tree handle: each tree's prefix once this process has found it
    /// (a committed directory entry never changes).
    prefixes: RwLock<Vec<Option<Prefix>>>,
    /// The committed directory as this process last read it.
    directory: RwLock<Directory>,
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

    /// Opens (or creates) the LMDB database in `dir`; one of storage
    /// format 3 or older is refused (E0518, its help says what to run).
    pub fn open_with(dir: &Path, options: LmdbOptions) -> Result<LmdbStore> {
        let env = Environment::open(dir, &options)?;
        let rtxn = env.env.read_txn().map_err(|e| env.error(e))?;
        let old = lmdb_layout::is_format_3(&env, &rtxn)?;
        drop(rtxn);
        if old {
            let version = lmdb_layout::old_format(&env)?.unwrap_or(3);
            return Err(RuntimeError::older_format(version, super::STORAGE_FORMAT));
        }
        Ok(LmdbStore {
            pool: ReadPool::default(),
            env,
            durability: options.durability,
            wait: options.wait,
            names: TreeNames::default(),
            prefixes: RwLock::default(),
            directory: RwLock::default(),
        })
    }

    /// Moves the format-3 database in `dir` into storage format 4, in one
    /// write transaction (see `lmdb_layout`): what it moved, or nothing
    /// when it is in format 4 already. A database older than format 3 is
    /// refused as [`LmdbStore::open_with`] refuses it, and left as it was.
    pub fn upgrade_layout(dir: &Path, options: LmdbOptions) -> Result<Converted> {
        let env = Environment::open(dir, &options)?;
        if let Some(version) = lmdb_layout::old_format(&env)? {
            if version < 3 {
                return Err(RuntimeError::older_format(version, super::STORAGE_FORMAT));
            }
        }
        let Some(lock) = &env.writer else {
            return Err(RuntimeError::read_only(&env.dir));
        };
        let _writer = lock.acquire(options.wait)?;
        let txn = env.env.write_txn().map_err(|e| env.error(e))?;
        let converted = lmdb_layout::convert(&env, txn, super::STORAGE_FORMAT)?;
        if options.durability.stronger_than(env.durability) {
            env.env.force_sync().map_err(|e| env.error(e))?;
        }
        Ok(converted)
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

    /// A new read transaction of the latest commit.
    fn new_read(&self) -> Result<Kept> {
        let txn = self
            .env
            .env
            .clone()
            .static_read_txn()
            .map_err(|e| self.env.error(e))?;
        Ok(Kept::new(txn))
    }

    fn known(&self, tree: Tree) -> Option<Prefix> {
        let prefixes = self.prefixes.read().unwrap_or_else(|p| p.into_inner());
        prefixes.get(tree.index()).copied().flatten()
    }

    /// Records prefixes of committed directory entries.
    fn learn(&self, found: &[(Tree, Prefix)]) {
        if found.is_empty() {
            return;
        }
        let mut prefixes = self.prefixes.write().unwrap_or_else(|p| p.into_inner());
        for (tree, prefix) in found {
            if prefixes.len() <= tree.index() {
                prefixes.resize(tree.index() + 1, None);
            }
            prefixes[tree.index()] = Some(*prefix);
        }
    }

    /// The prefix of `tree` as `txn` sees the directory: `None` when no
    /// commit it sees wrote the tree. What a read transaction finds is
    /// kept (`committed`); a write transaction's may be its own.
    fn prefix_in(&self, tree: Tree, txn: &RoTxn<'_>, committed: bool) -> Result<Option<Prefix>> {
        if let Some(prefix) = self.known(tree) {
            return Ok(Some(prefix));
        }
        let name = self.names.name(tree);
        let found = lmdb_layout::find(&self.env, txn, &self.directory, &name, committed)?;
        if let (Some(prefix), true) = (found, committed) {
            self.learn(&[(tree, prefix)]);
        }
        Ok(found)
    }
}

mod read;
use read::{Held, LmdbRead};

/// A write transaction. Its fields drop in order: the transaction aborts
/// (when not committed) before the writer's lock is let go.
struct LmdbWrite<'s> {
    store: &'s LmdbStore,
    txn: heed::RwTxn<'s>,
    /// Trees this transaction gave a prefix, learnt once it commits (an
    /// abort takes their directory entries back).
    given: Vec<(Tree, Prefix)>,
    _writer: WriterGuard<'s>,
}

impl LmdbWrite<'_> {
    /// The prefix of `tree`, or `None` when it has none yet.
    fn prefix(&self, tree: Tree) -> Result<Option<Prefix>> {
        if let Some((_, prefix)) = self.given.iter().find(|(t, _)| *t == tree) {
            return Ok(Some(*prefix));
        }
        // Until it gives an id, the transaction sees the committed
        // directory, which the store may keep (so a writer does not read
        // the whole directory again at each tree it meets unwritten).
        self.store.prefix_in(tree, &self.txn, self.given.is_empty())
    }

    /// The prefix of `tree`, given it now when it has none.
    fn prefix_to_write(&mut self, tree: Tree) -> Result<Prefix> {
        if let Some(prefix) = self.prefix(tree)? {
            return Ok(prefix);
        }
        let name = self.store.names.name(tree);
        let prefix = lmdb_layout::give(&self.store.env, &mut self.txn, &name)?;
        self.given.push((tree, prefix));
        Ok(prefix)
    }
}

impl ReadTxn for LmdbWrite<'_> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.prefix(tree)? {
            Some(prefix) => get_in(&self.store.env, prefix, &self.txn, key),
            None => Ok(None),
        }
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let Some(prefix) = self.prefix(tree)? else {
            return Ok(vec![None; keys.len()]);
        };
        keys.iter()
            .map(|k| get_in(&self.store.env, prefix, &self.txn, k))
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
        match self.prefix(tree)? {
            Some(prefix) => range_in(
                &self.store.env,
                prefix,
                &self.txn,
                start,
                end,
                reverse,
                limit,
            ),
            None => Ok(Ranged::default()),
        }
    }

    /// Each entry lent from the transaction's page: no copy.
    fn scan(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        visit: &mut crate::store::Visit<'_>,
    ) -> Result<()> {
        match self.prefix(tree)? {
            Some(prefix) => scan_in(&self.store.env, prefix, &self.txn, start, end, visit),
            None => Ok(()),
        }
    }
}

impl WriteTxn for LmdbWrite<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        let prefix = self.prefix_to_write(tree)?;
        let env = &self.store.env;
        let stored = storable_key(env, prefix, key)?;
        env.main
            .put(&mut self.txn, stored.as_slice(), value)
            .map_err(|e| env.error(e))
    }

    /// One search: the cursor that finds the entry at or after `key` stays
    /// on it, rewrites it in place (its new value has the old one's
    /// length) and inserts `key` beside it, on the leaf it is already on.
    fn put_beside(&mut self, tree: Tree, key: &[u8], place: &mut Placing<'_>) -> Result<bool> {
        let Some(prefix) = self.prefix(tree)? else {
            // A tree never written: nothing at or after the key.
            let Some(placed) = place(None)? else {
                return Ok(false);
            };
            self.put(tree, key, &placed.own)?;
            return Ok(true);
        };
        let env = &self.store.env;
        let stored = storable_key(env, prefix, key)?;
        let bounds = (Bound::Included(stored.as_slice()), Bound::Unbounded);
        let mut cursor = env
            .main
            .range_mut(&mut self.txn, &bounds)
            .map_err(|e| env.error(e))?;
        let found = next_in_tree(&mut cursor, env, prefix)?;
        let found_key = found.map(|(k, _)| k.to_vec());
        let placed = place(found.map(|(k, v)| (&k[prefix.len()..], v)))?;
        let Some(Placed { own, next }) = placed else {
            return Ok(false);
        };
        // Nothing borrowed from the database is used past this point:
        // `found` ends with `place`, which returned owned bytes, and the
        // keys are copies; so each write below leaves no reference into a
        // page it may move.
        let same = found_key.as_deref() == Some(stored.as_slice());
        if let (Some(at), Some(next), false) = (&found_key, &next, same) {
            // SAFETY: no value borrowed from the database is alive (above).
            unsafe { cursor.put_current(at, next) }.map_err(|e| env.error(e))?;
        }
        let written = if same {
            // SAFETY: no value borrowed from the database is alive (above).
            unsafe { cursor.put_current(stored.as_slice(), &own) }.map(|_| ())
        } else {
            // SAFETY: no value borrowed from the database is alive (above);
            // without `MDB_CURRENT` LMDB inserts `key` where it sorts.
            unsafe {
                cursor.put_current_with_options::<Bytes>(PutFlags::empty(), stored.as_slice(), &own)
            }
        };
        written.map_err(|e| env.error(e))?;
        Ok(true)
    }

    /// One search reads the entry and its successor; the successor is
    /// rewritten where the cursor is, then the entry deleted.
    fn delete_beside(&mut self, tree: Tree, key: &[u8], relink: &mut Relinking<'_>) -> Result<()> {
        let Some(prefix) = self.prefix(tree)? else {
            return Ok(());
        };
        let env = &self.store.env;
        let Some(stored) = StoredKey::new(env, prefix, key) else {
            return Ok(());
        };
        let bounds = (Bound::Included(stored.as_slice()), Bound::Unbounded);
        let mut cursor = env
            .main
            .range_mut(&mut self.txn, &bounds)
            .map_err(|e| env.error(e))?;
        let own = match cursor.next().transpose().map_err(|e| env.error(e))? {
            Some((at, own)) if at == stored.as_slice() => own,
            _ => return Ok(()),
        };
        let successor = next_in_tree(&mut cursor, env, prefix)?;
        let successor_key = successor.map(|(k, _)| k.to_vec());
        let relinked = relink(own, successor.map(|(k, v)| (&k[prefix.len()..], v)))?;
        if let (Some(at), Some(relinked)) = (successor_key, relinked) {
            // SAFETY: `own` and `successor` are not used after `relink`,
            // which returned owned bytes; the key is a copy.
            unsafe { cursor.put_current(&at, &relinked) }.map_err(|e| env.error(e))?;
        }
        drop(cursor);
        env.main
            .delete(&mut self.txn, stored.as_slice())
            .map(|_| ())
            .map_err(|e| env.error(e))
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        let env = &self.store.env;
        // A tree never written holds nothing to delete.
        let Some(prefix) = self.prefix(tree)? else {
            return Ok(());
        };
        let Some(stored) = StoredKey::new(env, prefix, key) else {
            return Ok(());
        };
        env.main
            .delete(&mut self.txn, stored.as_slice())
            .map(|_| ())
            .map_err(|e| env.error(e))
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let LmdbWrite {
            store,
            txn,
            given,
            _writer,
        } = *self;
        let env = &store.env;
        txn.commit().map_err(|e| env.error(e))?;
        store.learn(&given);
        let named = given
            .iter()
            .map(|(tree, prefix)| (store.names.name(*tree), *prefix));
        store
            .directory
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .learn(named);
        if store.durability.stronger_than(env.durability) {
            // Another store of this process opened the environment at a
            // weaker level: its flags do not sync what this one promises.
            env.env.force_sync().map_err(|e| env.error(e))?;
        }
        Ok(())
    }
}

/// A write cursor over the main database, from a key on.
type WriteCursor<'t> = heed::RwRange<'t, Bytes, Bytes>;

/// The cursor's next entry when it is still the tree's of `prefix` (the
/// one B-tree holds every tree: past a tree's last key, the next is
/// another's).
fn next_in_tree<'t>(
    cursor: &mut WriteCursor<'t>,
    env: &Environment,
    prefix: Prefix,
) -> Result<Option<(&'t [u8], &'t [u8])>> {
    Ok(cursor
        .next()
        .transpose()
        .map_err(|e| env.error(e))?
        .filter(|(k, _)| k.starts_with(prefix.as_slice())))
}

/// `key` of the tree of `prefix` as stored, or E0544 when LMDB cannot
/// store a key so long.
fn storable_key(env: &Environment, prefix: Prefix, key: &[u8]) -> Result<StoredKey> {
    StoredKey::new(env, prefix, key).ok_or_else(|| {
        RuntimeError::new(
            "E0544",
            format!(
                "LMDB cannot store a key of {} bytes: its longest is {} bytes",
                key.len(),
                longest_key(env, prefix)
            ),
            "nothing was written; keep keys and indexed values shorter, or use a database of another backend (`--store redb`)",
        )
    })
}

impl Store for LmdbStore {
    fn tree(&self, name: &str) -> Tree {
        self.names.tree(name)
    }

    /// A read transaction of the latest commit: the one kept in this
    /// thread's slot when no commit came since it began (see
    /// [`ReadPool`]), or a new one.
    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        // Unlocked reading keeps nothing: a writer may reuse what it pins.
        let slot = match self.env.access {
            Access::ReadOnlyUnlocked => None,
            _ => self.pool.slot(),
        };
        let held = match slot {
            Some(mut slot) => {
                let latest = self.env.env.info().last_txn_id;
                if !slot.as_ref().is_some_and(|k| k.fresh(latest)) {
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
        let txn = env.env.write_txn().map_err(|e| env.error(e))?;
        Ok(Box::new(LmdbWrite {
            store: self,
            txn,
            given: Vec::new(),
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
