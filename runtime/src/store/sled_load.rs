//! A sled load in bounded memory: its writes spill into sled in batches, each journaled with the values it replaces, so that a refused, dropped or interrupted load is rolled back whole.
//!
//! sled's own transaction holds its writes in memory until it commits, and
//! so does the [`Overlay`] a write transaction reads them from: a load of
//! 10^7 rows in one of them needs gigabytes. A load's transaction
//! (`begin`) is an overlay too, over a view of sled that takes its writes
//! once it holds the store's `spill_at` keys: then they go into sled in one multi-tree transaction
//! that also records in the journal tree the value each key held before
//! the load (the first time the load writes that key only). The load holds
//! the store's lock exclusively from its beginning to its end, as every
//! write transaction does, so no reader of the process sees a spilled batch
//! (and sled admits one process per database).
//!
//! - Committed: the last batch goes in, then the journal's marker, which is
//!   the moment the load is committed; the journal is emptied after.
//! - Dropped uncommitted (a refused row): every journaled key gets its old
//!   value back, a batch at a time, each batch removing its journal entries
//!   in the same sled transaction, so a rollback cut short resumes.
//! - Interrupted (the process dies): opening the store finishes what the
//!   journal shows: with its marker, emptying it; without, rolling back.

use super::overlay::{Beneath, Overlaid, Overlay};
use super::sled_backend::{unpoison, SledStore, SledView};
use super::Tree;
use crate::error::{Result, RuntimeError};
use sled::transaction::{ConflictableTransactionError, TransactionError, TransactionalTree};
use sled::{IVec, Transactional};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::RwLockWriteGuard;

/// The journal's tree. Its name cannot be a table's or an index's (theirs
/// are the program's identifiers).
pub(super) const JOURNAL: &str = "__rqc_load_journal";

/// The journal's marker: present, the load committed.
const COMMITTED: &[u8] = &[0];

/// Every journal entry's key starts with this byte (after the marker).
const ENTRY: u8 = 1;

/// Journal entries restored (or dropped) per sled transaction.
const FINISH_BATCH: usize = 4096;

/// Keys a load holds in memory before it spills them, unless the store
/// was told otherwise ([`SledStore::spill_loads_at`]).
pub(super) const SPILL_AT: usize = 1 << 16;

/// What a load's view of sled holds: the store's lock, and whether the
/// load has spilled and committed (see the module's text).
pub(super) struct LoadGuard<'s> {
    store: &'s SledStore,
    _lock: RwLockWriteGuard<'s, ()>,
    spilled: bool,
    committed: bool,
    /// The bytes of the batches written so far.
    spilled_bytes: u64,
}

/// The store beneath a load's pending writes.
type LoadView<'s> = SledView<'s, LoadGuard<'s>>;

/// Begins a load on `store`, whose lock `lock` holds; a journal left by an
/// earlier load is finished first.
pub(super) fn begin<'s>(
    store: &'s SledStore,
    lock: RwLockWriteGuard<'s, ()>,
) -> Result<Overlaid<LoadView<'s>>> {
    finish_journal(store)?;
    let guard = LoadGuard {
        store,
        _lock: lock,
        spilled: false,
        committed: false,
        spilled_bytes: 0,
    };
    Ok(Overlaid::new(SledView { store, guard }))
}

impl Beneath for LoadView<'_> {
    /// Writes the pending batch into sled, journaled, once it is full.
    fn written(&mut self, pending: &mut Overlay) -> Result<()> {
        if pending.len() < self.store.spill_at {
            return Ok(());
        }
        let batch = std::mem::take(pending);
        room_for_batch(self.store, batch.bytes(), self.guard.spilled_bytes)?;
        // Marked before the batch goes in: a failure from here on leaves
        // the journal for the next transaction to roll back.
        self.store.journal_left.store(true, Ordering::Release);
        self.guard.spilled = true;
        self.guard.spilled_bytes += batch.bytes();
        apply(self.store, &batch, true)
    }

    fn apply(mut self, last: Overlay) -> Result<()> {
        if !self.guard.spilled {
            // Like any write transaction: one sled transaction.
            apply(self.store, &last, false)?;
            self.guard.committed = true;
            return self.store.flush_if_asked();
        }
        room_for_batch(self.store, last.bytes(), self.guard.spilled_bytes)?;
        apply(self.store, &last, true)?;
        journal(self.store)?
            .insert(COMMITTED, &[])
            .map_err(RuntimeError::store)?;
        self.guard.committed = true;
        self.store.flush_if_asked()?;
        // Committed: a failure to empty the journal is left to the next
        // transaction (or opening), which empties it.
        let _ = finish_journal(self.store);
        Ok(())
    }
}

impl Drop for LoadGuard<'_> {
    fn drop(&mut self) {
        if self.spilled && !self.committed {
            // Should the rollback fail, `journal_left` stays set and the
            // next transaction of the store rolls back before it begins.
            let _ = finish_journal(self.store);
        }
    }
}

/// Writes `overlay` into sled in one multi-tree transaction; `journaled`,
/// with the value each key held before, in the journal, where the load has
/// not recorded that key yet.
pub(super) fn apply(store: &SledStore, overlay: &Overlay, journaled: bool) -> Result<()> {
    let (handles, batches): (Vec<Tree>, Vec<_>) = overlay.trees().unzip();
    if handles.is_empty() {
        return Ok(());
    }
    let mut trees: Vec<sled::Tree> = handles
        .iter()
        .map(|tree| store.sled_tree(*tree))
        .collect::<Result<_>>()?;
    let names: Vec<String> = if journaled {
        trees.push(journal(store)?);
        handles.iter().map(|tree| store.tree_name(*tree)).collect()
    } else {
        Vec::new()
    };
    // sled may run the closure more than once: it only applies the batch.
    let outcome = trees
        .as_slice()
        .transaction(|views: &Vec<TransactionalTree>| {
            for (at, writes) in batches.iter().enumerate() {
                let view = &views[at];
                for (key, value) in writes.iter() {
                    let before = match value {
                        Some(value) => view.insert(key.as_slice(), value.as_slice())?,
                        None => view.remove(key.as_slice())?,
                    };
                    if journaled {
                        let journal = &views[batches.len()];
                        let entry = entry_key(&names[at], key);
                        if journal.get(&entry)?.is_none() {
                            journal.insert(entry, encode_before(before))?;
                        }
                    }
                }
            }
            Ok::<(), ConflictableTransactionError<()>>(())
        });
    settled(outcome)
}

/// A sled transaction's outcome (they never abort here).
fn settled(outcome: std::result::Result<(), TransactionError<()>>) -> Result<()> {
    match outcome {
        Ok(()) => Ok(()),
        Err(TransactionError::Abort(())) => unreachable!("the batch never aborts"),
        Err(TransactionError::Storage(error)) => Err(RuntimeError::store(error)),
    }
}

fn journal(store: &SledStore) -> Result<sled::Tree> {
    store.db.open_tree(JOURNAL).map_err(RuntimeError::store)
}

/// `ENTRY`, the tree's name's length (4 bytes), the name, the key.
fn entry_key(tree: &str, key: &[u8]) -> Vec<u8> {
    let mut entry = Vec::with_capacity(5 + tree.len() + key.len());
    entry.push(ENTRY);
    entry.extend_from_slice(&(tree.len() as u32).to_be_bytes());
    entry.extend_from_slice(tree.as_bytes());
    entry.extend_from_slice(key);
    entry
}

/// The tree's name and the key of a journal entry.
fn split_entry(entry: &[u8]) -> Result<(&str, &[u8])> {
    let damaged = || RuntimeError::corrupt("an entry of the sled load journal");
    let length = entry
        .get(1..5)
        .ok_or_else(damaged)?
        .try_into()
        .map(u32::from_be_bytes)
        .map_err(|_| damaged())? as usize;
    let name = entry.get(5..5 + length).ok_or_else(damaged)?;
    let name = std::str::from_utf8(name).map_err(|_| damaged())?;
    Ok((name, &entry[5 + length..]))
}

/// `0` for a key that was absent, `1` and the value for one that held it.
fn encode_before(before: Option<IVec>) -> Vec<u8> {
    match before {
        None => vec![0],
        Some(value) => [&[1u8][..], &value].concat(),
    }
}

/// Ends what a journal shows, if there is one: with its marker, the load
/// committed and the journal is emptied; without, every journaled key gets
/// its old value back. Called with the store's lock held exclusively (or
/// at opening, before anyone else holds the store).
pub(super) fn finish_journal(store: &SledStore) -> Result<()> {
    let journal = journal(store)?;
    if journal.is_empty() {
        store.journal_left.store(false, Ordering::Release);
        return Ok(());
    }
    store.journal_left.store(true, Ordering::Release);
    if let Ok(free) = fs2::available_space(&store.dir) {
        room_to_finish(&store.dir, free)?;
    }
    let committed = journal
        .contains_key(COMMITTED)
        .map_err(RuntimeError::store)?;
    loop {
        let batch: Vec<(IVec, IVec)> = journal
            .range(&[ENTRY][..]..)
            .take(FINISH_BATCH)
            .collect::<sled::Result<_>>()
            .map_err(RuntimeError::store)?;
        if batch.is_empty() {
            break;
        }
        if committed {
            let mut forget = sled::Batch::default();
            for (entry, _) in &batch {
                forget.remove(entry.clone());
            }
            journal.apply_batch(forget).map_err(RuntimeError::store)?;
        } else {
            roll_back(store, &journal, &batch)?;
        }
    }
    journal.remove(COMMITTED).map_err(RuntimeError::store)?;
    store.db.flush().map_err(RuntimeError::store)?;
    store.journal_left.store(false, Ordering::Release);
    Ok(())
}

/// The free space a load keeps on its disk whatever else it needs: sled
/// cannot promise that a write failing on a full disk leaves its database
/// readable, so a load stops before the disk fills, with room left to roll
/// back.
const RESERVE: u64 = 64 << 20;

/// The help of a load refused for want of room on sled's disk.
pub(crate) const LOAD_ELSEWHERE: &str = "free some space and load again, or keep the data in an LMDB database (the default), which fails such a write cleanly";

/// Refuses (E0545) to write a batch of `bytes` after `spilled` bytes of
/// the load, when the disk could not then hold the batch and its journal
/// and a rollback of everything the load wrote.
fn room_for_batch(store: &SledStore, bytes: u64, spilled: u64) -> Result<()> {
    match fs2::available_space(&store.dir) {
        Ok(free) => enough_for_batch(&store.dir, free, bytes, spilled),
        Err(_) => Ok(()),
    }
}

/// The decision of [`room_for_batch`], given the free space.
fn enough_for_batch(dir: &Path, free: u64, bytes: u64, spilled: u64) -> Result<()> {
    let needed = RESERVE
        .saturating_add(bytes.saturating_mul(4))
        .saturating_add(spilled.saturating_mul(2));
    if free >= needed {
        return Ok(());
    }
    Err(RuntimeError::sled_short_of_room(
        dir,
        free,
        format!(
            "and the load's next batch, with room to roll the load back, needs {} MiB",
            needed >> 20
        ),
        "the load stopped and nothing of it was kept",
        LOAD_ELSEWHERE.to_string(),
    ))
}

/// Refuses (E0545, writing nothing) to finish a journal on a disk with
/// less than [`RESERVE`] free.
fn room_to_finish(dir: &Path, free: u64) -> Result<()> {
    if free >= RESERVE {
        return Ok(());
    }
    Err(RuntimeError::sled_short_of_room(
        dir,
        free,
        format!(
            "and rolling back the load its database holds needs {} MiB",
            RESERVE >> 20
        ),
        "nothing was written",
        format!(
            "free at least {} MiB on that disk, then open the database again",
            RESERVE >> 20
        ),
    ))
}

/// A journaled key, the value it had, and its journal entry.
type Restored<'a> = (&'a [u8], &'a [u8], &'a IVec);

/// Puts back the old values of a batch of journal entries and removes the
/// entries, in one sled transaction.
fn roll_back(store: &SledStore, journal: &sled::Tree, batch: &[(IVec, IVec)]) -> Result<()> {
    let mut by_tree: BTreeMap<&str, Vec<Restored<'_>>> = BTreeMap::new();
    for (entry, before) in batch {
        let (name, key) = split_entry(entry)?;
        by_tree.entry(name).or_default().push((key, before, entry));
    }
    let mut trees: Vec<sled::Tree> = by_tree
        .keys()
        .map(|name| store.db.open_tree(name).map_err(RuntimeError::store))
        .collect::<Result<_>>()?;
    trees.push(journal.clone());
    let outcome = trees
        .as_slice()
        .transaction(|views: &Vec<TransactionalTree>| {
            let journal = &views[by_tree.len()];
            for (view, entries) in views.iter().zip(by_tree.values()) {
                for (key, before, entry) in entries {
                    match before.split_first() {
                        Some((1, value)) => view.insert(*key, value)?,
                        _ => view.remove(*key)?,
                    };
                    journal.remove((*entry).clone())?;
                }
            }
            Ok::<(), ConflictableTransactionError<()>>(())
        });
    settled(outcome)
}

impl SledStore {
    /// Makes a load spill its writes into sled once it holds `keys` of them
    /// (65,536 unless told): fewer keys, less memory and more
    /// journal writes.
    pub fn spill_loads_at(mut self, keys: usize) -> SledStore {
        self.spill_at = keys.max(1);
        self
    }

    /// Begins a load: see the module's text.
    pub(super) fn load(&self) -> Result<Overlaid<LoadView<'_>>> {
        begin(self, unpoison(self.lock.write()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_needs_room_for_itself_its_journal_and_a_rollback() {
        let dir = Path::new("/data/db");
        let (bytes, spilled) = (1_000, 10_000);
        let needed = RESERVE + 4 * bytes + 2 * spilled;
        assert!(enough_for_batch(dir, needed, bytes, spilled).is_ok());
        let refused = enough_for_batch(dir, needed - 1, bytes, spilled).unwrap_err();
        assert_eq!(refused.code, "E0545");
        assert!(
            refused.message.contains("`/data/db` has 64 MiB free"),
            "{}",
            refused.message
        );
        assert!(enough_for_batch(dir, u64::MAX, u64::MAX, u64::MAX).is_ok());
    }

    #[test]
    fn a_journal_is_finished_only_with_the_reserve_free() {
        let dir = Path::new("/data/db");
        assert!(room_to_finish(dir, RESERVE).is_ok());
        let refused = room_to_finish(dir, RESERVE - 1).unwrap_err();
        assert_eq!(refused.code, "E0545");
        assert!(
            refused.help.contains("free at least 64 MiB"),
            "{}",
            refused.help
        );
    }

    #[test]
    fn a_journal_entry_names_its_tree_and_key() {
        let entry = entry_key("t:Member", b"\x01key");
        assert_eq!(split_entry(&entry).unwrap(), ("t:Member", &b"\x01key"[..]));
        assert_eq!(split_entry(&entry[..3]).unwrap_err().code, "E0591");
    }
}
