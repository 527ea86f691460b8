//! Reading an LMDB tree: keys in the form LMDB stores them (after the tree's prefix), point reads and range reads in any transaction.

use super::lmdb_env::Environment;
use super::lmdb_layout::Prefix;
use super::Ranged;
use crate::error::Result;
use heed::RoTxn;
use std::ops::Bound;

/// The longest stored key: LMDB's keys are at most 511 bytes long in its
/// default build (`Environment::max_key`).
const KEY_BUFFER: usize = 511;

/// Stored keys this long or shorter are built on the stack (a point read's
/// key: no allocation, and no page-sized buffer to clear and copy).
const INLINE_KEY: usize = 64;

/// A key as LMDB stores it: after its tree's prefix (`lmdb_layout`).
pub(super) enum StoredKey {
    Inline([u8; INLINE_KEY], usize),
    Long(Vec<u8>),
}

impl StoredKey {
    /// `key` of the tree of `prefix` stored, or `None` when it is longer
    /// than LMDB stores.
    pub(super) fn new(env: &Environment, prefix: Prefix, key: &[u8]) -> Option<StoredKey> {
        (key.len() <= longest_key(env, prefix)).then(|| StoredKey::prefix(prefix, key, key.len()))
    }

    /// The stored form of `key`'s first `len` bytes.
    pub(super) fn prefix(prefix: Prefix, key: &[u8], len: usize) -> StoredKey {
        let at = prefix.len();
        if at + len <= INLINE_KEY {
            let mut bytes = [0; INLINE_KEY];
            bytes[..at].copy_from_slice(prefix.as_slice());
            bytes[at..at + len].copy_from_slice(&key[..len]);
            return StoredKey::Inline(bytes, at + len);
        }
        let mut bytes = Vec::with_capacity(at + len);
        bytes.extend_from_slice(prefix.as_slice());
        bytes.extend_from_slice(&key[..len]);
        StoredKey::Long(bytes)
    }

    pub(super) fn as_slice(&self) -> &[u8] {
        match self {
            StoredKey::Inline(bytes, len) => &bytes[..*len],
            StoredKey::Long(bytes) => bytes,
        }
    }
}

/// The longest key rqc writes to the tree of `prefix` (509 bytes in
/// LMDB's default build, for the first 8,192 trees).
pub(super) fn longest_key(env: &Environment, prefix: Prefix) -> usize {
    env.max_key.min(KEY_BUFFER) - prefix.reserved()
}

/// A point read of the tree of `prefix` in a read or write transaction.
pub(super) fn get_in(
    env: &Environment,
    prefix: Prefix,
    txn: &RoTxn<'_>,
    key: &[u8],
) -> Result<Option<Vec<u8>>> {
    // A key too long to store is in no tree.
    let Some(key) = StoredKey::new(env, prefix, key) else {
        return Ok(None);
    };
    env.main
        .get(txn, key.as_slice())
        .map(|found| found.map(<[u8]>::to_vec))
        .map_err(|e| env.error(e))
}

/// The bounds in LMDB's keys of `start..end` (`end` = `None`: to the
/// tree's end) of the tree of `prefix`, each key held by `held`.
///
/// LMDB refuses bounds longer than a key it stores. Every key written is
/// at most `longest` bytes long, so a longer bound compares with keys as
/// its first `longest` bytes do: a key is at or after `start` when it is
/// after that prefix, and before `end` when it is at or before it.
struct Bounds {
    low: StoredKey,
    low_included: bool,
    high: StoredKey,
    high_included: bool,
}

impl Bounds {
    fn new(env: &Environment, prefix: Prefix, start: &[u8], end: Option<&[u8]>) -> Bounds {
        let longest = longest_key(env, prefix);
        let (high, high_included) = match end {
            Some(end) => (
                StoredKey::prefix(prefix, end, end.len().min(longest)),
                end.len() > longest,
            ),
            // The tree ends where the next tree's prefix begins.
            None => (StoredKey::prefix(prefix.end(), &[], 0), false),
        };
        Bounds {
            low: StoredKey::prefix(prefix, start, start.len().min(longest)),
            low_included: start.len() <= longest,
            high,
            high_included,
        }
    }

    fn lower(&self) -> Bound<&[u8]> {
        match self.low_included {
            true => Bound::Included(self.low.as_slice()),
            false => Bound::Excluded(self.low.as_slice()),
        }
    }

    fn upper(&self) -> Bound<&[u8]> {
        match self.high_included {
            true => Bound::Included(self.high.as_slice()),
            false => Bound::Excluded(self.high.as_slice()),
        }
    }
}

/// Hands `visit` the entries of `start..end` of the tree of `prefix` in
/// key order, each borrowed from its page (its key without the prefix),
/// until it answers `false` (`ReadTxn::scan`): nothing is copied.
pub(super) fn scan_in(
    env: &Environment,
    prefix: Prefix,
    txn: &RoTxn<'_>,
    start: &[u8],
    end: Option<&[u8]>,
    visit: &mut super::Visit<'_>,
) -> Result<()> {
    if end.is_some_and(|end| end <= start) {
        return Ok(());
    }
    let bounds = Bounds::new(env, prefix, start, end);
    let range = (bounds.lower(), bounds.upper());
    for entry in env.main.range(txn, &range).map_err(|e| env.error(e))? {
        let (key, value) = entry.map_err(|e| env.error(e))?;
        if !visit(key.get(prefix.len()..).unwrap_or_default(), value)? {
            break;
        }
    }
    Ok(())
}

/// A range read of the tree of `prefix` in a read or write transaction.
pub(super) fn range_in(
    env: &Environment,
    prefix: Prefix,
    txn: &RoTxn<'_>,
    start: &[u8],
    end: Option<&[u8]>,
    reverse: bool,
    limit: usize,
) -> Result<Ranged> {
    if end.is_some_and(|end| end <= start) || limit == 0 {
        return Ok(Ranged::default());
    }
    let bounds = Bounds::new(env, prefix, start, end);
    let (lower, upper) = (bounds.lower(), bounds.upper());
    // The range is read open at its far end and cut here, so that the entry
    // it stops at is seen too: the caller checks it (a key whose stored
    // length was damaged can sort past the end and cut a range short).
    let inside = |key: &[u8]| {
        if reverse {
            match lower {
                Bound::Included(l) => key >= l,
                Bound::Excluded(l) => key > l,
                Bound::Unbounded => true,
            }
        } else {
            match upper {
                Bound::Included(u) => key <= u,
                Bound::Excluded(u) => key < u,
                Bound::Unbounded => true,
            }
        }
    };
    let in_tree = |key: &[u8]| key.starts_with(prefix.as_slice());
    let open = if reverse {
        (Bound::Unbounded, upper)
    } else {
        (lower, Bound::Unbounded)
    };
    type Cursor<'t> = Box<dyn Iterator<Item = heed::Result<(&'t [u8], &'t [u8])>> + 't>;
    let copy = |key: &[u8], value: &[u8]| {
        (
            key.get(prefix.len()..).unwrap_or_default().to_vec(),
            value.to_vec(),
        )
    };
    let mut ranged = Ranged {
        // Room for a bounded read's rows; a long one grows as it reads.
        entries: Vec::with_capacity(limit.min(64)),
        ..Ranged::default()
    };
    let mut stopped = None;
    let iter: Cursor<'_> = if reverse {
        Box::new(env.main.rev_range(txn, &open).map_err(|e| env.error(e))?)
    } else {
        Box::new(env.main.range(txn, &open).map_err(|e| env.error(e))?)
    };
    for entry in iter {
        let (key, value) = entry.map_err(|e| env.error(e))?;
        if !inside(key) {
            // Past the tree's own keys, the next entry is another tree's:
            // the tree ends there.
            stopped = in_tree(key).then(|| copy(key, value));
            break;
        }
        ranged.entries.push(copy(key, value));
        if ranged.entries.len() == limit {
            break;
        }
    }
    // Only the far side is seen here: the chain of entries
    // (`store::chain`) reads the near side's neighbour itself, to check the
    // first entry's link.
    if reverse {
        ranged.before = stopped;
    } else {
        ranged.after = stopped;
    }
    Ok(ranged)
}
