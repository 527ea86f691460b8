//! The `Store` trait: an ordered key-value store read and written through transactions.
//!
//! Nothing above this module names a backend. The shape fits an embedded
//! B-tree and a remote ordered store (etcd) alike: a run begins one read
//! transaction or one write transaction, every read and write of the run
//! goes through it, and a batch of point reads is one call (one round trip
//! on a remote store). A write transaction's commit may fail with a
//! conflict ([`RuntimeError::conflict`]); the engine then runs the whole
//! mutation again.
//!
//! Trees are named once: [`Store::tree`] gives a name's [`Tree`] handle
//! (at install, when a program is bound), and every read and write after
//! that takes the handle, so no run formats, hashes or compares a name.

mod chain;
#[cfg(test)]
mod chain_damage_tests;
#[cfg(test)]
mod chain_tests;
mod checked;
mod durability;
#[cfg(test)]
mod durability_tests;
#[cfg(feature = "etcd")]
mod etcd;
mod lmdb_backend;
mod lmdb_env;
mod lmdb_layout;
#[cfg(test)]
mod lmdb_layout_tests;
mod lmdb_reads;
mod memory;
mod nested;
mod overlay;
mod read_pool;
mod redb_backend;
mod salvaging;
#[cfg(test)]
mod scan_tests;
mod seal;
mod sled_backend;
mod sled_load;
mod writer_lock;

pub use chain::END as CHAIN_END;
pub(crate) use checked::guarded;
pub use checked::{Checked, CHECKSUM_LEN, IDENTITY_KEY, SEAL_LEN};
pub use durability::Durability;
#[cfg(feature = "etcd")]
pub use etcd::{is_etcd_url, EtcdOptions, EtcdStore, EtcdUrl, PASSWORD_VARIABLE};
pub use lmdb_backend::{Access, Converted, LmdbOptions, LmdbStore, LMDB_FILE, MAP_SIZE};
pub use memory::MemoryStore;
pub(crate) use nested::{Buffered, Direct};
pub use redb_backend::{RedbStore, REDB_FILE};
pub use salvaging::{just_after, salvage_all, Salvaged, Salvaging, SALVAGE_CHUNK};
pub use sled_backend::SledStore;
pub(crate) use sled_load::LOAD_ELSEWHERE;
pub use writer_lock::{busy, waiting, DEFAULT_WAIT, WRITER_LOCK_FILE};

use crate::error::Result;
#[cfg(doc)]
use crate::error::RuntimeError;
use std::collections::HashMap;
use std::sync::RwLock;

/// The layout of trees, keys and entries this runtime writes, held bare in
/// every database's catalog (`store::checked`). Format 1 stored no
/// checksums, format 2 no chain of entries (`store::chain`), format 3 each
/// LMDB tree in a named database of its own (`lmdb_layout`); the other
/// backends' layout is the same in formats 3 and 4.
pub const STORAGE_FORMAT: u32 = 4;

/// A tree of one store, by number. The same name always gives the same
/// handle in one store; a handle from another store means nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tree(u32);

impl Tree {
    /// Its position among the store's trees (backends index by it).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The names of a store's trees by handle, kept by each backend.
#[derive(Default)]
pub(crate) struct TreeNames {
    names: RwLock<(Vec<String>, HashMap<String, Tree>)>,
}

impl TreeNames {
    /// The handle of `name`, made on first use.
    pub(crate) fn tree(&self, name: &str) -> Tree {
        if let Some(tree) = self.read().1.get(name) {
            return *tree;
        }
        let mut guard = self.names.write().unwrap_or_else(|p| p.into_inner());
        let (names, ids) = &mut *guard;
        *ids.entry(name.to_string()).or_insert_with(|| {
            names.push(name.to_string());
            Tree(names.len() as u32 - 1)
        })
    }

    /// The name of a handle this store gave.
    pub(crate) fn name(&self, tree: Tree) -> String {
        self.read().0[tree.index()].clone()
    }

    /// How many trees have handles.
    pub(crate) fn len(&self) -> usize {
        self.read().0.len()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, (Vec<String>, HashMap<String, Tree>)> {
        self.names.read().unwrap_or_else(|p| p.into_inner())
    }
}

/// A backend's limit on the bytes of one request (`Store::request_limit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestLimit {
    pub max_bytes: u64,
    /// Bytes the backend puts before a tree's own key in a request.
    pub key_overhead: u64,
}

pub trait Store: Send + Sync {
    /// The handle of the tree called `name` (made on first use; the tree
    /// itself exists once something is written into it).
    fn tree(&self, name: &str) -> Tree;

    /// A transaction for reads only: every read sees the same committed
    /// state, and never half of a commit.
    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>>;

    /// A transaction whose reads see the committed state plus its own
    /// writes, and whose writes all commit together or not at all.
    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>>;

    /// A write transaction for a bulk load: all or nothing like
    /// [`Store::begin_write`]'s, in bounded memory where the backend's own
    /// write transaction holds its writes in memory until it commits (sled,
    /// whose load spills them into the store, journaled to be rolled back).
    fn begin_load(&self) -> Result<Box<dyn WriteTxn + '_>> {
        self.begin_write()
    }

    /// Makes committed writes durable as far as the backend promises.
    fn flush(&self) -> Result<()>;

    /// The most writes (and, apart, the most reads checked) one commit may
    /// hold, when the backend has such a limit (etcd's --max-txn-ops, as
    /// the database recorded it): a bulk load splits its writes to fit.
    fn max_txn_ops(&self) -> Option<usize> {
        None
    }

    /// Whether mutations of this process that wait for the writer at once
    /// are run in one write transaction, one after the other, and share its
    /// commit (`crate::group`): where writers take turns anyway and a
    /// commit costs pages and a sync, not a round trip that could conflict.
    fn groups_commits(&self) -> bool {
        false
    }

    /// The largest request a commit may be, when the backend has such a
    /// limit (etcd's --max-request-bytes, as the database recorded it), and
    /// what the backend adds to each of a tree's keys.
    fn request_limit(&self) -> Option<RequestLimit> {
        None
    }

    /// Rings `bell` whenever any client may have written `key` of `tree`,
    /// where the backend can push that (etcd's watch), and once each time
    /// the watch is (re)established; true when it does. The watch ends once
    /// [`Bell::wanted`] is false. A ring says only "look again": what
    /// changed is read from the store, so a ring too many costs a look and
    /// never an event. An embedded backend has no such push (the live
    /// watcher polls, and hears of other processes through the files'
    /// notifications, see `live::wakeup`), so the default is false.
    fn ring_on_write(&self, _tree: Tree, _key: &[u8], _bell: std::sync::Arc<dyn Bell>) -> bool {
        false
    }
}

/// What [`Store::ring_on_write`] rings.
pub trait Bell: Send + Sync {
    /// Someone may have written the key: look again.
    fn ring(&self);

    /// False once no one listens (the database closed): the watch ends.
    fn wanted(&self) -> bool;
}

/// Reads inside one transaction. A tree that does not exist reads as empty.
pub trait ReadTxn {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// The requests this transaction has sent to a remote store so far,
    /// each one round trip (spec/cost.md §11), counted where each is sent;
    /// `None` for a store in this process, whose calls the session counts
    /// one by one instead (`runtime/src/session.rs`).
    fn requests(&self) -> Option<u64> {
        None
    }

    /// Asks a remote store to read only if `key` of `tree` holds `value`
    /// at the transaction's revision, compared within its first request
    /// (no round trip more); a read otherwise fails with E0550. A local
    /// store's caller reads the key itself, so the default does nothing.
    fn expect_on_first_read(&self, _tree: Tree, _key: &[u8], _value: &[u8]) {}

    /// The snapshot a read transaction reads, where the store numbers
    /// them so that two reads of one number see the same data (LMDB's
    /// transaction id); `None` for a write, or a store that does not.
    fn snapshot(&self) -> Option<u64> {
        None
    }

    /// A point read whose value `found` reads where it lies, borrowed from
    /// the store when the backend can lend it (LMDB's pages): no copy. An
    /// error of `found` is the read's; `found` is called exactly once when
    /// the read succeeds.
    fn get_with(&self, tree: Tree, key: &[u8], found: &mut Found<'_>) -> Result<()> {
        let value = self.get(tree, key)?;
        found(value.as_deref())
    }

    /// A batch of point reads: one call (one round trip on a remote store).
    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        keys.iter().map(|key| self.get(tree, key)).collect()
    }

    /// Point reads and ranges (either way) of any trees as one call (one round
    /// trip on a remote store, or one per [`Store::max_txn_ops`] of them):
    /// what a level of a plan reads at once (`runtime/src/batch.rs`). A
    /// range's answer is [`ReadTxn::range_to_boundary`]'s, so that
    /// `store::checked` checks it as it checks a single range.
    fn read_batch(&self, reads: &[BatchRead]) -> Result<Vec<BatchAnswer>> {
        reads
            .iter()
            .map(|read| match read {
                BatchRead::Get { tree, key } => self.get(*tree, key).map(BatchAnswer::Got),
                BatchRead::Range {
                    tree,
                    start,
                    end,
                    reverse,
                    limit,
                } => self
                    .range_to_boundary(*tree, start, end.as_deref(), *reverse, *limit)
                    .map(BatchAnswer::Ranged),
            })
            .collect()
    }

    /// Entries with `start <= key < end` (`end` = `None`: no upper limit), in
    /// key order or reversed, at most `limit` of them.
    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>>;

    /// Like [`ReadTxn::range`], with the entries just outside the range on
    /// either side, when the backend reads them: `store::checked` checks
    /// them, so that damage which misplaces a key or misdirects a seek
    /// cannot cut a range short unnoticed. A backend whose pages carry
    /// checksums of their own gives none.
    fn range_to_boundary(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Ranged> {
        Ok(Ranged {
            entries: self.range(tree, start, end, reverse, limit)?,
            ..Ranged::default()
        })
    }

    /// Hands `visit` the entries with `start <= key < end` (`end` =
    /// `None`: to the tree's end) in key order, each borrowed from where
    /// it lies, until it answers `false`: a cursor over the tree. A
    /// backend whose pages it can lend (LMDB) copies nothing and holds one
    /// entry at a time, however long the range; the default reads it
    /// [`SALVAGE_CHUNK`] entries at a time through [`ReadTxn::range`]
    /// (one request each on a remote store), so what it holds is one chunk
    /// at most. For readers of whole trees (`verify`, `dump`, through
    /// [`ReadTxn::salvage`]); a plan's ranges, proved bounded, are read
    /// whole and batched per level (one round trip on etcd).
    fn scan(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        visit: &mut Visit<'_>,
    ) -> Result<()> {
        let mut from = start.to_vec();
        loop {
            let chunk = self.range(tree, &from, end, false, SALVAGE_CHUNK)?;
            for (key, value) in &chunk {
                if !visit(key, value)? {
                    return Ok(());
                }
            }
            match chunk.last() {
                Some((last, _)) if chunk.len() == SALVAGE_CHUNK => just_after(last, &mut from),
                _ => return Ok(()),
            }
        }
    }

    /// The next entries of the whole tree `tree` from where `from` is, at
    /// most `limit` of them, each damaged one (it fails its checksum, or
    /// breaks the chain) as its own error rather than failing the read:
    /// for `verify` and `dump`, which go on past damage and read a tree a
    /// chunk at a time, so that what they hold does not grow with it.
    /// `from.done()` once the tree is read to its end.
    fn salvage(&self, tree: Tree, from: &mut Salvaging, limit: usize) -> Result<Vec<Salvaged>> {
        let mut entries: Vec<Salvaged> = Vec::with_capacity(limit.min(SALVAGE_CHUNK));
        if limit > 0 {
            self.scan(tree, &from.start, None, &mut |key, value| {
                entries.push((key.to_vec(), Ok(value.to_vec())));
                Ok(entries.len() < limit)
            })?;
        }
        from.read(
            entries.last().map(|(key, _)| key.as_slice()),
            entries.len() < limit,
        );
        Ok(entries)
    }
}

/// One read of a [`ReadTxn::read_batch`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BatchRead {
    Get {
        tree: Tree,
        key: Vec<u8>,
    },
    /// Entries with `start <= key < end`, in key order (from the high end
    /// down when `reverse`), at most `limit`.
    Range {
        tree: Tree,
        start: Vec<u8>,
        end: Option<Vec<u8>>,
        reverse: bool,
        limit: usize,
    },
}

/// The answer to one [`BatchRead`], in the same position.
#[derive(Debug)]
pub enum BatchAnswer {
    Got(Option<Vec<u8>>),
    Ranged(Ranged),
}

/// Entries, as a range reads them.
pub type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// What [`ReadTxn::get_with`] hands a point read's value to.
pub type Found<'f> = dyn FnMut(Option<&[u8]>) -> Result<()> + 'f;

/// What [`ReadTxn::scan`] hands each entry to, borrowed: its key and its
/// value as stored; it answers whether to go on.
pub type Visit<'f> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'f;

/// What [`crate::session::Session::range_with`] hands a range's entries to.
pub type Lent<'f> = dyn FnMut(&[(Vec<u8>, Vec<u8>)]) -> Result<()> + 'f;

/// A range's entries, and the entries just outside it that the backend saw:
/// `before` sorts before `start`, `after` at or past `end`.
#[derive(Debug, Default)]
pub struct Ranged {
    pub entries: Entries,
    pub before: Option<(Vec<u8>, Vec<u8>)>,
    pub after: Option<(Vec<u8>, Vec<u8>)>,
}

/// A read-write transaction: its reads see its own writes.
pub trait WriteTxn: ReadTxn {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()>;

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()>;

    /// Writes at `key` what `place` makes of the entry now at or after it
    /// (its key and value as stored; `None` past the tree's last entry):
    /// [`Placed::own`] at `key`, and, when that entry is another one,
    /// [`Placed::next`] as its new value. `place` returning `None` writes
    /// nothing (the answer is then false). For the chain of entries
    /// (`store::chain`), where an insert relinks its successor: LMDB does it
    /// in one search, its cursor left on the successor; by default it is a
    /// range of one and two puts.
    fn put_beside(&mut self, tree: Tree, key: &[u8], place: &mut Placing<'_>) -> Result<bool> {
        let found = self.range(tree, key, None, false, 1)?.pop();
        let Some(placed) = place(found.as_ref().map(|(k, v)| (k.as_slice(), v.as_slice())))? else {
            return Ok(false);
        };
        self.put(tree, key, &placed.own)?;
        if let (Some((next_key, _)), Some(next)) = (found, placed.next) {
            if next_key != key {
                self.put(tree, &next_key, &next)?;
            }
        }
        Ok(true)
    }

    /// Deletes `key` when it is stored, after `relink` has seen its value
    /// (as stored) and the entry after it (`None` past the tree's last),
    /// and writes what `relink` returns as that entry's new value. An
    /// error of `relink` writes nothing. By default a range of two, a put
    /// and a delete; LMDB reads both entries in one search and rewrites
    /// the successor where its cursor is.
    fn delete_beside(&mut self, tree: Tree, key: &[u8], relink: &mut Relinking<'_>) -> Result<()> {
        let mut found = self.range(tree, key, None, false, 2)?.into_iter();
        let Some((stored_key, stored)) = found.next() else {
            return Ok(());
        };
        if stored_key != key {
            return Ok(());
        }
        let next = found.next();
        let relinked = relink(
            &stored,
            next.as_ref().map(|(k, v)| (k.as_slice(), v.as_slice())),
        )?;
        if let (Some((next_key, _)), Some(relinked)) = (next, relinked) {
            self.put(tree, &next_key, &relinked)?;
        }
        self.delete(tree, key)
    }

    /// Makes the commit depend on `key` of `tree` holding `value` (as
    /// stored) when it commits: E0550 when it does not. A store whose write
    /// transactions are serialized checks it now; etcd compares it in the
    /// commit's own transaction (its failure is then a conflict, which
    /// [`crate::session::Session::commit`] tells apart).
    fn expect(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        if self.get(tree, key)?.as_deref() == Some(value) {
            Ok(())
        } else {
            Err(crate::error::RuntimeError::stale_schema())
        }
    }

    /// Writes what `rebase` makes of the value `key` of `tree` holds
    /// (`None`: absent), the key itself among them: the changelog's head
    /// and the entry after it (and, for an install, its position in the
    /// catalog: the trees other than `tree` it writes are named in `also`).
    /// By default the key is read and the writes made. A store whose commits may conflict (etcd) keeps `rebase`: a
    /// commit that fails on `key` alone, every other key and range it read
    /// unchanged, has its writes made again from the key's new value and is
    /// sent again, so that commits sharing only that key never conflict
    /// (spec/distributed.md, "The changelog's head"). A read of one of its
    /// keys in the same transaction sees the first writes.
    fn write_from(
        &mut self,
        tree: Tree,
        key: &[u8],
        _also: &[Tree],
        rebase: Box<Rebase>,
    ) -> Result<()> {
        write_once_from(self, tree, key, &rebase)
    }

    /// Commits every write at once. Dropping the transaction instead
    /// aborts it: nothing of it is stored.
    fn commit(self: Box<Self>) -> Result<()>;
}

thread_local! {
    /// Commits this thread sent again after [`WriteTxn::write_from`]'s key
    /// alone changed (etcd), since it started.
    static RESENT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many commits this thread has sent again after the key of a
/// [`WriteTxn::write_from`] alone changed, since it started (only etcd
/// sends a commit again): a run or transaction reports the difference
/// across its attempts as attempts more, the commit's requests that its
/// round trips do not count (spec/cost.md §11). Counted where the commit
/// is made, on the thread that makes it, including in attempts that then
/// conflict and run again.
pub fn resent_commits() -> u64 {
    RESENT.with(|count| count.get())
}

/// The commits this thread sent again since [`resent_commits`] said
/// `before`: attempts more.
pub fn resent_since(before: u64) -> u32 {
    u32::try_from(resent_commits().saturating_sub(before)).unwrap_or(u32::MAX)
}

/// Counts one commit sent again on this thread ([`resent_commits`]).
#[cfg_attr(not(feature = "etcd"), allow(dead_code))]
pub(crate) fn note_resent() {
    RESENT.with(|count| count.set(count.get() + 1));
}

/// [`WriteTxn::write_from`] made once: `key` read, the writes made.
pub(crate) fn write_once_from<T: WriteTxn + ?Sized>(
    txn: &mut T,
    tree: Tree,
    key: &[u8],
    rebase: &Rebase,
) -> Result<()> {
    let value = txn.get(tree, key)?;
    for (tree, at, written) in rebase(value.as_deref())? {
        match written {
            Some(value) => txn.put(tree, &at, &value)?,
            None => txn.delete(tree, &at)?,
        }
    }
    Ok(())
}

/// One write a [`Rebase`] makes: its tree, its key, and the new value
/// (`None`: deleted).
pub type Rebased = (Tree, Vec<u8>, Option<Vec<u8>>);

/// What [`WriteTxn::write_from`] makes its writes with: the key's value
/// (as stored below the layer that gives it) to the writes.
pub type Rebase = dyn Fn(Option<&[u8]>) -> Result<Vec<Rebased>> + Send + Sync;

/// What [`WriteTxn::put_beside`] writes: `own` at its key, and `next` as
/// the new value of the entry after it (of the same length: only its link
/// changes).
pub struct Placed {
    pub own: Vec<u8>,
    pub next: Option<Vec<u8>>,
}

/// What [`WriteTxn::put_beside`] hands the entry at or after its key to.
pub type Placing<'f> = dyn FnMut(Option<(&[u8], &[u8])>) -> Result<Option<Placed>> + 'f;

/// What [`WriteTxn::delete_beside`] hands the deleted entry's stored value
/// and the entry after it to: the latter's new value, if any.
pub type Relinking<'f> = dyn FnMut(&[u8], Option<(&[u8], &[u8])>) -> Result<Option<Vec<u8>>> + 'f;

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
