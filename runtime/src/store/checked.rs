//! Checksums on every stored entry: a flipped byte is reported as damage with its place (E0591), never answered.
//!
//! Every on-disk backend is wrapped in [`Checked`]. A value is stored with
//! eight more bytes: its link in the chain of its tree (`store::chain`:
//! a hash of the key before it) and the CRC-32 of its key, value and link;
//! every read checks them: an entry whose key or value changed on disk is
//! an error naming its tree and key, not a row, and so is an entry missing
//! from where a read looks (`store::chain`). One entry is stored bare: the
//! catalog's storage format, which every rqc must be able to read to say
//! which format a database has.
//!
//! A panic inside a backend (redb and sled panic on some damaged pages)
//! is caught here too and becomes the same error: the process goes on to
//! report it and exit with a status of its own.

use super::chain;
use super::seal::{damaged_entry, open_with, seal_with, TreeSeal};
use super::{
    BatchAnswer, BatchRead, Found, ReadTxn, Rebase, Salvaged, Salvaging, Store, Tree, WriteTxn,
};
use crate::error::{Result, RuntimeError};
use reads::{get, get_many, range, read_batch};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::RwLock;

/// The bytes a checksum adds to a stored value.
pub const CHECKSUM_LEN: usize = 4;

/// The bytes a seal adds to a stored value: the link, then the checksum.
pub const SEAL_LEN: usize = 4 + CHECKSUM_LEN;

/// The catalog's tree and the key of the storage format, stored bare.
pub(super) const CATALOG: &str = "__catalog";
pub(super) const FORMAT_KEY: &[u8] = b"format";
/// The database's identity, made at its creation and stored bare: every
/// checksum is seeded with it, so an entry copied in from another
/// database (of the same program, the same tree and key) fails its
/// checksum. A database made before it has none (seeds as before).
pub const IDENTITY_KEY: &[u8] = b"identity";

pub struct Checked {
    inner: Box<dyn Store>,
    catalog: Tree,
    /// Tree names by handle, to say where damage is.
    names: RwLock<HashMap<Tree, String>>,
    /// Each tree's checksum seed by handle (the CRC-32 of its name), so
    /// that an entry read from another tree's pages fails its checksum.
    seeds: RwLock<Vec<u32>>,
    /// Whether links are kept and checked (not on etcd, where every
    /// neighbour read would be a round trip; its links are all `START`).
    chain: bool,
    /// The database's identity ([`IDENTITY_KEY`]), part of every seed.
    identity: Option<u64>,
}

impl Checked {
    /// An embedded store, checked and chained.
    pub fn new(inner: Box<dyn Store>) -> Checked {
        Checked::with_chain(inner, true)
    }

    /// A remote store, checked entry by entry but not chained (etcd keeps
    /// its own checksums of pages and answers by round trips).
    pub fn unchained(inner: Box<dyn Store>) -> Checked {
        Checked::with_chain(inner, false)
    }

    fn with_chain(inner: Box<dyn Store>, chain: bool) -> Checked {
        let catalog = inner.tree(CATALOG);
        let names = HashMap::from([(catalog, CATALOG.to_string())]);
        let mut seeds = Vec::new();
        set_seed(&mut seeds, catalog, CATALOG, None);
        Checked {
            inner,
            catalog,
            names: RwLock::new(names),
            seeds: RwLock::new(seeds),
            chain,
            identity: None,
        }
    }

    /// The store with its database's identity in every seed: the one it
    /// holds, or for a new database (an empty catalog) one made now and
    /// stored, in a write transaction that looks again (the first of two
    /// processes creating at once makes it, the other reads it). A
    /// database made before identities, or opened read-only while empty,
    /// keeps the seeds without one.
    pub fn identified(mut self) -> Result<Checked> {
        let catalog = self.catalog;
        // The identity held (`Some(None)`: a database made before them),
        // or `None` for a new one.
        fn held<T: ReadTxn + ?Sized>(txn: &T, catalog: Tree) -> Result<Option<Option<u64>>> {
            if let Some(bytes) = txn.get(catalog, IDENTITY_KEY)? {
                let bytes = <[u8; 8]>::try_from(bytes.as_slice())
                    .map_err(|_| RuntimeError::corrupt("the database's identity"))?;
                return Ok(Some(Some(u64::from_le_bytes(bytes))));
            }
            let empty = txn.range(catalog, &[], None, false, 1)?.is_empty();
            Ok((!empty).then_some(None))
        }
        let found = {
            let txn = guarded("reading the identity", || self.inner.begin_read())?;
            held(txn.as_ref(), catalog)?
        };
        let identity = match found {
            Some(identity) => identity,
            None => match guarded("making the identity", || self.inner.begin_write()) {
                Ok(mut txn) => match held(txn.as_ref(), catalog)? {
                    Some(identity) => identity,
                    None => {
                        let made = new_identity();
                        txn.put(catalog, IDENTITY_KEY, &made.to_le_bytes())?;
                        txn.commit()?;
                        Some(made)
                    }
                },
                // Read-only and empty: nothing will be written.
                Err(error) if error.kind() == crate::error::ErrorKind::Access => None,
                Err(error) => return Err(error),
            },
        };
        self.identity = identity;
        let names = self.names.read().unwrap_or_else(|p| p.into_inner()).clone();
        let mut seeds = self.seeds.write().unwrap_or_else(|p| p.into_inner());
        for (tree, name) in names {
            set_seed(&mut seeds, tree, &name, identity);
        }
        drop(seeds);
        Ok(self)
    }

    fn bare(&self, tree: Tree, key: &[u8]) -> bool {
        tree == self.catalog && (key == FORMAT_KEY || key == IDENTITY_KEY)
    }

    /// Whether `key` is at or past `tree`'s end marker, where no entry is.
    fn past_end(&self, tree: Tree, key: &[u8]) -> bool {
        self.chained(tree) && key >= chain::END
    }

    /// Whether `tree`'s entries are chained: every tree but the catalog
    /// (whose format entry is bare), on an embedded store.
    pub(super) fn chained(&self, tree: Tree) -> bool {
        self.chain && tree != self.catalog
    }

    /// `tree`'s checksum seed. Every handle comes from [`Store::tree`] of
    /// this store, which sets it first.
    fn seed(&self, tree: Tree) -> u32 {
        let seeds = self.seeds.read().unwrap_or_else(|p| p.into_inner());
        *seeds
            .get(tree.index())
            .expect("a tree handle of this store has its seed")
    }

    fn name(&self, tree: Tree) -> String {
        let names = self.names.read().unwrap_or_else(|p| p.into_inner());
        names
            .get(&tree)
            .cloned()
            .unwrap_or_else(|| format!("#{}", tree.index()))
    }

    /// `value` as stored: followed by `link` and the checksum of `key`,
    /// `value` and `link`.
    pub(super) fn seal(&self, tree: Tree, key: &[u8], value: &[u8], link: u32) -> Vec<u8> {
        if self.bare(tree, key) {
            return value.to_vec();
        }
        seal_with(self.seed(tree), key, value, link)
    }

    /// The value stored under `key`, its checksum checked and its seal
    /// taken off.
    fn open(&self, tree: Tree, key: &[u8], mut stored: Vec<u8>) -> Result<Vec<u8>> {
        let len = self.open_slice(tree, key, &stored)?.len();
        stored.truncate(len);
        Ok(stored)
    }

    /// [`Checked::open`] of a borrowed value: the value inside it.
    fn open_slice<'v>(&self, tree: Tree, key: &[u8], stored: &'v [u8]) -> Result<&'v [u8]> {
        self.open_link(tree, key, stored).map(|(value, _)| value)
    }

    /// The value inside a stored entry, and its link.
    pub(crate) fn open_link<'v>(
        &self,
        tree: Tree,
        key: &[u8],
        stored: &'v [u8],
    ) -> Result<(&'v [u8], u32)> {
        if self.bare(tree, key) {
            return Ok((stored, chain::START));
        }
        open_with(self.seed(tree), key, stored).map_err(|how| self.damaged(tree, key, how))
    }

    pub(super) fn damaged(&self, tree: Tree, key: &[u8], how: &str) -> RuntimeError {
        damaged_entry(&self.name(tree), key, how)
    }

    /// An unchained tree's seal, by value (see [`TreeSeal`]).
    fn tree_seal(&self, tree: Tree) -> TreeSeal {
        TreeSeal {
            seed: self.seed(tree),
            name: self.name(tree),
        }
    }
}

/// Records `tree`'s seed: the CRC-32 of the database's identity (when it
/// has one) and the tree's name.
fn set_seed(seeds: &mut Vec<u32>, tree: Tree, name: &str, identity: Option<u64>) {
    if seeds.len() <= tree.index() {
        seeds.resize(tree.index() + 1, 0);
    }
    let mut hasher = crc32fast::Hasher::new();
    if let Some(identity) = identity {
        hasher.update(&identity.to_le_bytes());
    }
    hasher.update(name.as_bytes());
    seeds[tree.index()] = hasher.finalize();
}

/// A new database's identity: random (the standard library's per-process
/// random keys, mixed with the clock and the process), never 0.
fn new_identity() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.finish().max(1)
}

pub(super) fn hex(key: &[u8]) -> String {
    let shown: String = key.iter().take(32).map(|b| format!("{b:02x}")).collect();
    if key.len() > 32 {
        format!("0x{shown}…")
    } else {
        format!("0x{shown}")
    }
}

/// Runs a backend call, turning a panic inside it into damage.
pub(crate) fn guarded<T>(what: &str, call: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            Err(RuntimeError::damaged(format!(
                "the storage engine failed while {what} ({message})"
            )))
        }
    }
}

impl Store for Checked {
    fn tree(&self, name: &str) -> Tree {
        let tree = self.inner.tree(name);
        let mut seeds = self.seeds.write().unwrap_or_else(|p| p.into_inner());
        set_seed(&mut seeds, tree, name, self.identity);
        drop(seeds);
        let mut names = self.names.write().unwrap_or_else(|p| p.into_inner());
        names.entry(tree).or_insert_with(|| name.to_string());
        tree
    }

    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        let txn = guarded("beginning a read", || self.inner.begin_read())?;
        Ok(Box::new(CheckedTxn { store: self, txn }))
    }

    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        let txn = guarded("beginning a write", || self.inner.begin_write())?;
        Ok(Box::new(CheckedWrite { store: self, txn }))
    }

    fn begin_load(&self) -> Result<Box<dyn WriteTxn + '_>> {
        let txn = guarded("beginning a load", || self.inner.begin_load())?;
        Ok(Box::new(CheckedWrite { store: self, txn }))
    }

    fn flush(&self) -> Result<()> {
        guarded("syncing", || self.inner.flush())
    }

    fn max_txn_ops(&self) -> Option<usize> {
        self.inner.max_txn_ops()
    }

    fn groups_commits(&self) -> bool {
        self.inner.groups_commits()
    }

    fn request_limit(&self) -> Option<super::RequestLimit> {
        self.inner.request_limit()
    }

    /// Keys are stored as given (only values carry checksums).
    fn ring_on_write(&self, tree: Tree, key: &[u8], bell: std::sync::Arc<dyn super::Bell>) -> bool {
        self.inner.ring_on_write(tree, key, bell)
    }
}

mod reads;

struct CheckedTxn<'s, T: ?Sized> {
    store: &'s Checked,
    txn: Box<T>,
}

type CheckedWrite<'s> = CheckedTxn<'s, dyn WriteTxn + 's>;

/// Reads of a read or a write transaction alike.
impl<T: ReadTxn + ?Sized> ReadTxn for CheckedTxn<'_, T> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        get(self.store, self.txn.as_ref(), tree, key)
    }

    fn requests(&self) -> Option<u64> {
        self.txn.requests()
    }

    fn snapshot(&self) -> Option<u64> {
        self.txn.snapshot()
    }

    /// The value as it is stored: sealed, with the link every entry of an
    /// unchained tree holds (etcd's), as `WriteTxn::expect` compares it.
    fn expect_on_first_read(&self, tree: Tree, key: &[u8], value: &[u8]) {
        if !self.store.chained(tree) {
            let sealed = self.store.seal(tree, key, value, chain::START);
            self.txn.expect_on_first_read(tree, key, &sealed);
        }
    }

    fn get_with(&self, tree: Tree, key: &[u8], found: &mut Found<'_>) -> Result<()> {
        let store = self.store;
        if store.past_end(tree, key) {
            return found(None);
        }
        // An error of `found` (or a damaged value) is returned as it is;
        // a panic while the value is lent is the backend's, as in `get`.
        // A miss is vouched for by the chain before `found` hears of it.
        let mut outcome = None;
        let mut missed = false;
        guarded("reading", || {
            self.txn.get_with(tree, key, &mut |stored| {
                match stored {
                    None => missed = true,
                    Some(stored) => {
                        outcome = Some(
                            store
                                .open_slice(tree, key, stored)
                                .and_then(|value| found(Some(value))),
                        )
                    }
                }
                Ok(())
            })
        })?;
        if missed {
            chain::vouch_absent(store, self.txn.as_ref(), tree, key)?;
            return found(None);
        }
        outcome.unwrap_or_else(|| {
            Err(crate::error::internal(
                "a point read that found nothing to say",
            ))
        })
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        get_many(self.store, self.txn.as_ref(), tree, keys)
    }

    fn read_batch(&self, reads: &[BatchRead]) -> Result<Vec<BatchAnswer>> {
        read_batch(self.store, self.txn.as_ref(), reads)
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        range(
            self.store,
            self.txn.as_ref(),
            tree,
            start,
            end,
            reverse,
            limit,
        )
    }

    fn salvage(&self, tree: Tree, from: &mut Salvaging, limit: usize) -> Result<Vec<Salvaged>> {
        chain::salvage(self.store, self.txn.as_ref(), tree, from, limit)
    }
}

impl WriteTxn for CheckedWrite<'_> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        if self.store.chained(tree) {
            return chain::put(self.store, self.txn.as_mut(), tree, key, value);
        }
        let sealed = self.store.seal(tree, key, value, chain::START);
        guarded("writing", || self.txn.put(tree, key, &sealed))
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        if self.store.chained(tree) {
            return chain::delete(self.store, self.txn.as_mut(), tree, key);
        }
        guarded("deleting", || self.txn.delete(tree, key))
    }

    /// The value expected as it is stored now, when its value is `value`
    /// (its seal holds a link the caller does not know). Where no tree is
    /// chained (etcd) every link is `START`, so the sealed value is known
    /// without a read: the expectation is then only a compare of the
    /// commit's own request, no round trip of its own (spec/cost.md §11).
    fn expect(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        if !self.store.chained(tree) {
            let sealed = self.store.seal(tree, key, value, chain::START);
            return guarded("checking the schema", || {
                self.txn.expect(tree, key, &sealed)
            });
        }
        let stored = guarded("checking the schema", || self.txn.get(tree, key))?;
        let sealed = match stored {
            Some(stored) if self.store.open_slice(tree, key, &stored)? == value => stored,
            _ => self.store.seal(tree, key, value, chain::START),
        };
        guarded("checking the schema", || {
            self.txn.expect(tree, key, &sealed)
        })
    }

    /// Where a tree it writes is chained, as by default (the chain's own
    /// writes); where none is (etcd) handed to the store below, whose
    /// rebase opens the key's value and seals the writes as this layer
    /// does, with each tree's seal taken now.
    fn write_from(
        &mut self,
        tree: Tree,
        key: &[u8],
        also: &[Tree],
        rebase: Box<Rebase>,
    ) -> Result<()> {
        let trees = || std::iter::once(tree).chain(also.iter().copied());
        // (No bare entry, the catalog's format and identity, is written so.)
        if trees().any(|t| self.store.chained(t)) {
            return super::write_once_from(self, tree, key, &rebase);
        }
        let seals: Vec<(Tree, TreeSeal)> = trees().map(|t| (t, self.store.tree_seal(t))).collect();
        let key_owned = key.to_vec();
        let sealed: Box<Rebase> = Box::new(move |stored: Option<&[u8]>| {
            let seal_of = |t: Tree| {
                seals
                    .iter()
                    .find(|(s, _)| *s == t)
                    .map(|(_, seal)| seal)
                    .ok_or_else(|| crate::error::internal("a rebased write to a tree not named"))
            };
            let value = stored
                .map(|s| seal_of(tree)?.open(&key_owned, s))
                .transpose()?;
            rebase(value.as_deref())?
                .into_iter()
                .map(|(t, at, written)| {
                    let written = written.map(|v| seal_of(t).map(|seal| seal.seal(&at, &v)));
                    Ok((t, at, written.transpose()?))
                })
                .collect()
        });
        guarded("writing", || self.txn.write_from(tree, key, also, sealed))
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let CheckedTxn { txn, .. } = *self;
        guarded("committing", || txn.commit())
    }
}
