//! Storage format 4 on LMDB: every tree in LMDB's one main database, under a short prefix its directory entry gives it.
//!
//! Format 3 kept each tree in a named LMDB database, so a commit copied
//! the path of every tree it touched and the main database's record of
//! each (issue 35: about 11 pages per one-row insert with two indexes,
//! against 8 in one tree). Format 4 keeps one B-tree:
//!
//! - `0x00 ++ name` → the tree's id (4 bytes, big-endian), its directory
//!   entry, written by the first transaction that writes the tree and
//!   never changed or removed after, so a process may keep what it read;
//! - `0x00` alone → the next id to give;
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
use std::ops::Bound;

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

fn directory_key(name: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(name.len() + 1);
    key.push(DIRECTORY);
    key.extend_from_slice(name.as_bytes());
    key
}

fn read_id(bytes: &[u8], what: &str) -> Result<u32> {
    <[u8; 4]>::try_from(bytes)
        .map(u32::from_be_bytes)
        .map_err(|_| RuntimeError::corrupt(what))
}

/// The prefix of the tree `name` in `txn`'s snapshot, if it was ever
/// written.
pub(super) fn find(env: &Environment, txn: &RoTxn<'_>, name: &str) -> Result<Option<Prefix>> {
    match env.main.get(txn, &directory_key(name)) {
        Ok(Some(bytes)) => Ok(Some(Prefix::of(read_id(bytes, "LMDB tree directory")?))),
        Ok(None) => Ok(None),
        Err(e) => Err(env.error(e)),
    }
}

/// The prefix of the tree `name`, given it now when it has none: its
/// directory entry is written in `txn`.
pub(super) fn find_or_give(env: &Environment, txn: &mut RwTxn<'_>, name: &str) -> Result<Prefix> {
    if let Some(prefix) = find(env, txn, name)? {
        return Ok(prefix);
    }
    let id = match env.main.get(txn, NEXT_ID_KEY).map_err(|e| env.error(e))? {
        Some(bytes) => read_id(bytes, "LMDB tree directory's next id")?,
        None => 1,
    };
    let next = id
        .checked_add(1)
        .ok_or_else(|| RuntimeError::corrupt("LMDB tree directory's next id"))?;
    env.main
        .put(txn, NEXT_ID_KEY, &next.to_be_bytes())
        .map_err(|e| env.error(e))?;
    env.main
        .put(txn, &directory_key(name), &id.to_be_bytes())
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
        Some(bytes) => Ok(Some(read_id(bytes, "catalog format version")?)),
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
        let prefix = find_or_give(env, txn, name)?;
        let entries: Vec<(Vec<u8>, Vec<u8>)> = db
            .iter(txn)
            .map_err(|e| env.error(e))?
            .map(|entry| entry.map(|(k, v)| (k.to_vec(), v.to_vec())))
            .collect::<heed::Result<_>>()
            .map_err(|e| env.error(e))?;
        let mut key = Vec::new();
        for (stored, value) in &entries {
            // Format 3 stored every key after a 0 byte.
            let bare = stored.get(1..).unwrap_or_default();
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
        // SAFETY: `db` was opened by this transaction, is used by no
        // other (no store of this process reads a format-3 database), and
        // is not used again after its removal.
        unsafe { db.remove(txn) }.map_err(|e| env.error(e))?;
        converted.trees.push((name.clone(), entries.len() as u64));
    }
    Ok(converted)
}

impl heed::OnCommit for Converted {
    type Committed = Converted;
    fn on_commit(self, _token: &heed::CommitToken) -> Converted {
        self
    }
}
