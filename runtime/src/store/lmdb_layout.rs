//! Storage format 4 on LMDB: every tree in LMDB's one main database, under a short prefix its directory entry gives it.
//!
//! Format 3 kept each tree in a named LMDB database, so a commit copied
//! the path of every tree it touched and the main database's record of
//! each (issue 35: about 11 pages per one-row insert with two indexes,
//! against 8 in one tree). Format 4 keeps one B-tree:
//!
//! - `0x00 ++ id` (4 bytes, big-endian) → the tree's name, its directory
//!   entry, written by the first transaction that writes the tree and
//!   never changed or removed after, so a process may keep what it read;
//! - `0x00` alone → the next id to give;
//!
//! each directory value sealed with the CRC-32 of its id and bytes. Ids
//! are given in order and never taken back, so a process reads the whole
//! directory (checking that every id below the next one has its entry,
//! and none past it) whenever a snapshot holds ids it has not read: a
//! damaged entry is damage (E0591), never a tree that reads as empty;
//! - `prefix(id) ++ key` → the tree's entries, where a prefix's first
//!   byte (0x80 or above) says its length, so no prefix begins another and
//!   a tree's entries are exactly the keys that begin with its prefix.
//!
//! A format-3 database is told apart by its named databases, whose names
//! (ASCII tree names) are keys between 0x01 and 0x7F in the main
//! database, where format 4 writes none. [`convert`] moves one into the
//! format-4 layout in one write transaction (`rqc upgrade`).

use super::checked::{CATALOG, FORMAT_KEY};
use super::lmdb_env::Environment;
use crate::error::{Result, RuntimeError};
use heed::types::Bytes;
use heed::{CommitOrAbort, Database, DatabaseOpener, RoTxn, RwTxn, WithoutTls};
use std::collections::HashMap;
use std::ops::Bound;
use std::sync::RwLock;

/// The first byte of every directory key.
const DIRECTORY: u8 = 0x00;

/// The directory key that holds the next id.
const NEXT_ID_KEY: &[u8] = &[DIRECTORY];

/// The longest prefix.
pub(super) const LONGEST_PREFIX: usize = 5;

/// A tree's key prefix: 1 byte for the first 64 trees, 2 up to 8,192, 5
/// past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Prefix {
    bytes: [u8; LONGEST_PREFIX],
    len: u8,
}

impl Prefix {
    pub(super) fn of(id: u32) -> Prefix {
        let mut bytes = [0; LONGEST_PREFIX];
        let len = if id < 0x40 {
            bytes[0] = 0x80 | id as u8;
            1
        } else if id < 0x2000 {
            bytes[0] = 0xC0 | (id >> 8) as u8;
            bytes[1] = id as u8;
            2
        } else {
            bytes[0] = 0xE0;
            bytes[1..5].copy_from_slice(&id.to_be_bytes());
            5
        };
        Prefix { bytes, len }
    }

    pub(super) fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// The bytes a key of this tree may not use: 2 for the first 8,192
    /// trees whatever their prefix's length, so the longest key does not
    /// depend on the order trees were first written in (a dump restores
    /// into a database whose trees were made in another order); 5 past.
    pub(super) fn reserved(&self) -> usize {
        if self.len <= 2 {
            2
        } else {
            LONGEST_PREFIX
        }
    }

    /// The first key past every key of the tree (as bytes: not itself a
    /// tree's prefix).
    pub(super) fn end(&self) -> Prefix {
        let mut end = *self;
        // A prefix's first byte is at most 0xE0, so some byte is below 0xFF.
        while end.bytes[end.len as usize - 1] == 0xFF {
            end.len -= 1;
        }
        end.bytes[end.len as usize - 1] += 1;
        end
    }
}

/// The directory key of the tree of `id`.
fn directory_key(id: u32) -> [u8; 5] {
    let mut key = [DIRECTORY; 5];
    key[1..].copy_from_slice(&id.to_be_bytes());
    key
}

/// What seals a directory value: the CRC-32 of the id and the bytes it
/// holds, so a flipped byte of its key or value is damage, not another
/// tree (or none).
fn seal(id: u32, bytes: &[u8]) -> [u8; 4] {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&id.to_be_bytes());
    hasher.update(bytes);
    hasher.finalize().to_le_bytes()
}

fn sealed(id: u32, bytes: &[u8]) -> Vec<u8> {
    [bytes, &seal(id, bytes)[..]].concat()
}

/// The bytes of a sealed value of `id`, checked.
fn opened(id: u32, value: &[u8]) -> Option<&[u8]> {
    let (bytes, check) = value.split_at_checked(value.len().checked_sub(4)?)?;
    (check == seal(id, bytes)).then_some(bytes)
}

fn damaged(what: String) -> RuntimeError {
    // No tree can be trusted to be found: nothing is read past it.
    RuntimeError::damaged(format!(
        "the LMDB tree directory {what}, so no tree of the database can be found safely; restore it from a copy or a dump"
    ))
}

/// The next id to give, as `txn` holds it (1 when none was given). Sealed
/// as id 0's value.
fn next_id(env: &Environment, txn: &RoTxn<'_>) -> Result<u32> {
    match env.main.get(txn, NEXT_ID_KEY).map_err(|e| env.error(e))? {
        None => Ok(1),
        Some(value) => opened(0, value)
            .and_then(|bytes| <[u8; 4]>::try_from(bytes).ok())
            .map(u32::from_be_bytes)
            .filter(|&next| next >= 1)
            .ok_or_else(|| damaged("holds a damaged next id".into())),
    }
}

/// The directory as a process knows it: each tree's prefix by name, read
/// whole up to (not including) the id `next`.
#[derive(Debug, Default)]
pub(super) struct Directory {
    by_name: HashMap<String, Prefix>,
    next: u32,
}

impl Directory {
    pub(super) fn get(&self, name: &str) -> Option<Prefix> {
        self.by_name.get(name).copied()
    }

    /// Takes in ids a commit gave (their entries are committed).
    pub(super) fn learn(&mut self, given: impl IntoIterator<Item = (String, Prefix)>) {
        self.by_name.extend(given);
    }
}

/// The whole directory of `txn`'s snapshot, checked: every id from 1 to the
/// next one has exactly one entry, sealed, naming a tree no other names,
/// and no entry is past it (ids are never taken back, so a gap or an entry
/// past the next id is damage: a tree would read as empty, or two share a
/// prefix).
pub(super) fn read_directory(env: &Environment, txn: &RoTxn<'_>) -> Result<Directory> {
    let next = next_id(env, txn)?;
    let entries = (
        Bound::Included(&directory_key(1)[..]),
        Bound::Excluded(&[DIRECTORY + 1][..]),
    );
    let mut directory = Directory {
        by_name: HashMap::with_capacity(next as usize),
        next,
    };
    let mut expected = 1u32;
    for entry in env.main.range(txn, &entries).map_err(|e| env.error(e))? {
        let (key, value) = entry.map_err(|e| env.error(e))?;
        let id = match <[u8; 4]>::try_from(&key[1..]) {
            Ok(id) => u32::from_be_bytes(id),
            Err(_) => return Err(damaged("holds a key of another length".into())),
        };
        if id != expected || id >= next {
            return Err(damaged(format!(
                "lacks the entry of tree id {expected} (found {id}; the next id is {next})"
            )));
        }
        let name = opened(id, value)
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .ok_or_else(|| damaged(format!("entry of tree id {id} is damaged")))?;
        if directory
            .by_name
            .insert(name.to_string(), Prefix::of(id))
            .is_some()
        {
            return Err(damaged(format!("names `{name}` twice")));
        }
        expected += 1;
    }
    if expected != next {
        return Err(damaged(format!(
            "lacks the entries of tree ids {expected} to {} (the next id is {next})",
            next - 1
        )));
    }
    Ok(directory)
}

/// The prefix of the tree `name` in `txn`'s snapshot, if a commit it sees
/// wrote the tree: from `known` when it has it, else read again when the
/// snapshot gave ids `known` has not read (what is read is added to it
/// when `learn`: a write transaction's own ids are not committed yet).
pub(super) fn find(
    env: &Environment,
    txn: &RoTxn<'_>,
    known: &RwLock<Directory>,
    name: &str,
    learn: bool,
) -> Result<Option<Prefix>> {
    let read = |known: &RwLock<Directory>| {
        let known = known.read().unwrap_or_else(|p| p.into_inner());
        (known.get(name), known.next)
    };
    let (found, complete_below) = read(known);
    if found.is_some() {
        return Ok(found);
    }
    // No id at or past `complete_below` in this snapshot: `known` holds
    // every tree it has.
    if next_id(env, txn)? <= complete_below {
        return Ok(None);
    }
    let directory = read_directory(env, txn)?;
    let found = directory.get(name);
    if learn {
        let mut known = known.write().unwrap_or_else(|p| p.into_inner());
        if directory.next > known.next {
            known.next = directory.next;
        }
        known.by_name.extend(directory.by_name);
    }
    Ok(found)
}

/// Gives the tree `name` (which has none) the next id, writing its
/// directory entry and the next id in `txn`.
pub(super) fn give(env: &Environment, txn: &mut RwTxn<'_>, name: &str) -> Result<Prefix> {
    let id = next_id(env, txn)?;
    let next = id
        .checked_add(1)
        .ok_or_else(|| damaged("has given every id".into()))?;
    env.main
        .put(txn, NEXT_ID_KEY, &sealed(0, &next.to_be_bytes()))
        .map_err(|e| env.error(e))?;
    env.main
        .put(txn, &directory_key(id), &sealed(id, name.as_bytes()))
        .map_err(|e| env.error(e))?;
    Ok(Prefix::of(id))
}

/// Whether the database holds named databases: storage format 3 or older.
pub(super) fn is_format_3(env: &Environment, txn: &RoTxn<'_>) -> Result<bool> {
    let named = (Bound::Included(&[0x01][..]), Bound::Excluded(&[0x80][..]));
    let mut range = env.main.range(txn, &named).map_err(|e| env.error(e))?;
    Ok(range
        .next()
        .transpose()
        .map_err(|e| env.error(e))?
        .is_some())
}

/// The names of the named databases of a format-3 database.
fn named_databases(env: &Environment, txn: &RoTxn<'_>) -> Result<Vec<String>> {
    let named = (Bound::Included(&[0x01][..]), Bound::Excluded(&[0x80][..]));
    let mut names = Vec::new();
    for entry in env.main.range(txn, &named).map_err(|e| env.error(e))? {
        let (name, _) = entry.map_err(|e| env.error(e))?;
        names.push(
            String::from_utf8(name.to_vec())
                .map_err(|_| RuntimeError::corrupt("an LMDB database name"))?,
        );
    }
    Ok(names)
}

/// The storage format a format-3 (or older) database's catalog holds,
/// read from its bare entry (`store::checked`), or `None` when it has
/// none.
pub(super) fn old_format(env: &Environment) -> Result<Option<u32>> {
    let rtxn = env.env.read_txn().map_err(|e| env.error(e))?;
    let catalog = env
        .env
        .open_databases_and_commit(rtxn, |opener, rtxn| {
            opener
                .open_database::<Bytes, Bytes>(rtxn, Some(CATALOG))
                .map(CommitOrAbort::<_, ()>::Commit)
        })
        .map_err(|e| env.error(e))?
        .unwrap_commit();
    let Some(catalog) = catalog else {
        return Ok(None);
    };
    let rtxn = env.env.read_txn().map_err(|e| env.error(e))?;
    // Format 3 stored every key after a 0 byte.
    let key = [&[0u8][..], FORMAT_KEY].concat();
    match catalog.get(&rtxn, &key).map_err(|e| env.error(e))? {
        Some(bytes) => <[u8; 4]>::try_from(bytes)
            .map(|b| Some(u32::from_be_bytes(b)))
            .map_err(|_| RuntimeError::corrupt("catalog format version")),
        None => Ok(None),
    }
}

/// What [`convert`] moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    /// Each tree moved, with its entries.
    pub trees: Vec<(String, u64)>,
}

/// Moves a format-3 database into the format-4 layout in one write
/// transaction (`txn`, committed here): every named database's entries
/// under its tree's prefix, the named databases removed, the catalog's
/// bare storage format set to `format`. A database already in format 4
/// is left as it is (nothing moved). Nothing is committed on an error.
pub(super) fn convert(env: &Environment, txn: RwTxn<'_>, format: u32) -> Result<Converted> {
    if !is_format_3(env, &txn)? {
        return Ok(Converted::default());
    }
    let names = named_databases(env, &txn)?;
    let done = env
        .env
        .create_databases_and_commit(txn, |opener, txn| {
            // heed commits on `Commit` only: an error of ours aborts.
            Ok::<_, heed::Error>(match move_trees(env, opener, txn, &names, format) {
                Ok(converted) => CommitOrAbort::Commit(converted),
                Err(error) => CommitOrAbort::Abort(error),
            })
        })
        .map_err(|e| env.error(e))?;
    match done {
        CommitOrAbort::Commit(converted) => Ok(converted),
        CommitOrAbort::Abort(error) => Err(error),
    }
}

fn move_trees<'e>(
    env: &Environment,
    opener: &DatabaseOpener<'e, WithoutTls>,
    txn: &mut RwTxn<'e>,
    names: &[String],
    format: u32,
) -> Result<Converted> {
    let mut converted = Converted::default();
    for name in names {
        let db: Database<'e, Bytes, Bytes> = opener
            .open_database(txn, Some(name))
            .map_err(|e| env.error(e))?
            .ok_or_else(|| RuntimeError::corrupt("an LMDB database listed but absent"))?;
        let prefix = give(env, txn, name)?;
        let mut key = Vec::new();
        let longest = super::lmdb_reads::longest_key(env, prefix);
        // A chunk at a time (issue 35 §6): what the move holds of a tree
        // is one chunk, never the tree; each chunk from just after the
        // last key moved (the named database is only read here).
        let mut moved = 0u64;
        let mut after: Option<Vec<u8>> = None;
        loop {
            let from = after.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            let entries: Vec<(Vec<u8>, Vec<u8>)> = db
                .range(txn, &(from, Bound::Unbounded))
                .map_err(|e| env.error(e))?
                .take(super::SALVAGE_CHUNK)
                .map(|entry| entry.map(|(k, v)| (k.to_vec(), v.to_vec())))
                .collect::<heed::Result<_>>()
                .map_err(|e| env.error(e))?;
            for (stored, value) in &entries {
                // Format 3 stored every key after a 0 byte.
                let bare = stored.get(1..).unwrap_or_default();
                if bare.len() > longest {
                    return Err(RuntimeError::new(
                        "E0544",
                        format!(
                            "tree `{name}` holds a key of {} bytes, and format {format} stores at most {longest}",
                            bare.len()
                        ),
                        "nothing was moved; with the rqc that wrote the database, delete or shorten that row (its key or indexed values), then upgrade; or `rqc dump` and `rqc restore` into a redb database (`--store redb`)",
                    ));
                }
                let bare_format = name == CATALOG && bare == FORMAT_KEY;
                let value = if bare_format {
                    &format.to_be_bytes()[..]
                } else {
                    value
                };
                key.clear();
                key.extend_from_slice(prefix.as_slice());
                key.extend_from_slice(bare);
                env.main.put(txn, &key, value).map_err(|e| env.error(e))?;
            }
            moved += entries.len() as u64;
            match entries.last() {
                Some((last, _)) if entries.len() == super::SALVAGE_CHUNK => {
                    after = Some(last.clone())
                }
                _ => break,
            }
        }
        // SAFETY: `db` was opened by this transaction, is used by no
        // other (no store of this process reads a format-3 database), and
        // is not used again after its removal.
        unsafe { db.remove(txn) }.map_err(|e| env.error(e))?;
        converted.trees.push((name.clone(), moved));
    }
    Ok(converted)
}

impl heed::OnCommit for Converted {
    type Committed = Converted;
    fn on_commit(self, _token: &heed::CommitToken) -> Converted {
        self
    }
}
