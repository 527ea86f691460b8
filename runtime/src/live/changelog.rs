//! The changelog: each commit's written keys, stored by sequence number in the same write transaction, so that a watcher in any process learns what changed.
//!
//! Tree `__live`: key `s` + sequence (8 bytes big-endian) holds that
//! commit's entry. A commit's position is its sequence number: what an
//! etcd watch calls a revision. The log stays bounded: a watcher that fell
//! further behind than [`KEEP`] commits re-reads every subscription
//! (overflow). Two layouts, by store ([`compact`]):
//! - on a store whose commits have an operation limit (etcd), key `h`
//!   holds the head (the last sequence number), which the store's watch
//!   rings on; a commit reads and writes it, appends its entry and deletes
//!   the one [`KEEP`] before: a fixed 4 operations, which the commit
//!   limit counts (`commit_limit`);
//! - on an embedded store, the head is the last entry's sequence (one
//!   seek to the end of the tree, where the commit then appends), and the
//!   oldest entries are deleted [`TRIM`] at a time, every [`TRIM`]
//!   commits: most commits write one entry, on the tree's last page,
//!   instead of touching its first page as well (a B-tree copies every page
//!   it changes). A database written with a head key reads the same: its
//!   head key and its last entry agree.

use super::ranges::{WriteSet, Written};
use crate::error::{Result, RuntimeError};
use crate::store::{ReadTxn, Tree, WriteTxn};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a write session tells once its commit is made: the live hub's
/// wake-up, supplied from above (the changelog does not know the hub).
pub trait AfterCommit: Sync {
    /// The commit is made: whoever waits for commits may look.
    fn committed(&self);
}

/// Where a write session records its writes: the changelog's tree, the
/// names of the trees a run writes, and the watcher to wake after the commit.
pub(crate) struct Logging<'s> {
    pub tree: Tree,
    /// The changelog's layout (see [`compact`]).
    pub compact: bool,
    pub names: &'s HashMap<Tree, String>,
    pub wake: &'s dyn AfterCommit,
}

/// The changelog's tree.
pub const LOG_TREE: &str = "__live";

/// Entries kept: a watcher further behind than this overflows.
pub const KEEP: u64 = 4096;

/// The head's key (an etcd watch on it hears of every commit).
pub(crate) const HEAD: &[u8] = b"h";

/// On an embedded store, entries are trimmed this many at a time.
pub const TRIM: u64 = 64;

/// Whether the changelog of `store` keeps no head key and trims in steps
/// (see the module's text): a store without an operation limit per commit.
pub fn compact(store: &dyn crate::store::Store) -> bool {
    store.max_txn_ops().is_none()
}

/// The first key past every entry's.
const PAST_ENTRIES: &[u8] = b"t";

fn entry_key(seq: u64) -> [u8; 9] {
    let mut key = [b's'; 9];
    key[1..].copy_from_slice(&seq.to_be_bytes());
    key
}

/// One tree's writes in one commit, by the tree's name (handles differ
/// between processes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub tree: String,
    pub written: Vec<Written>,
}

/// The last commit's position (0 before any), in the layout `compact` says.
pub fn head(txn: &dyn ReadTxn, log: Tree, compact: bool) -> Result<u64> {
    if compact {
        let last = txn.range(log, b"s", Some(PAST_ENTRIES), true, 1)?;
        return match last.first() {
            None => Ok(0),
            Some((key, _)) => key
                .get(1..)
                .and_then(|seq| <[u8; 8]>::try_from(seq).ok())
                .map(u64::from_be_bytes)
                .ok_or_else(|| malformed("its last entry's key")),
        };
    }
    head_value(txn.get(log, HEAD)?.as_deref())
}

/// The position the head key holds (0 when absent).
fn head_value(stored: Option<&[u8]>) -> Result<u64> {
    match stored {
        None => Ok(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes)
            .map(u64::from_be_bytes)
            .map_err(|_| malformed("its head")),
    }
}

/// The entry of commit `seq`, or `None` once trimmed.
pub fn entry(txn: &dyn ReadTxn, log: Tree, seq: u64) -> Result<Option<Vec<Change>>> {
    txn.get(log, &entry_key(seq))?
        .map(|bytes| decode(&bytes))
        .transpose()
}

/// The entries of commits `from + 1 ..= head`, in order, read as one
/// range (one round trip on a remote store); `None` when some are trimmed.
pub fn entries(
    txn: &dyn ReadTxn,
    log: Tree,
    from: u64,
    head: u64,
) -> Result<Option<Vec<Vec<Change>>>> {
    let wanted = head.saturating_sub(from);
    if wanted == 0 {
        return Ok(Some(Vec::new()));
    }
    let (start, end) = (entry_key(from + 1), entry_key(head.saturating_add(1)));
    let found = txn.range(log, &start, Some(&end), false, wanted as usize)?;
    if found.len() as u64 != wanted {
        return Ok(None);
    }
    found
        .iter()
        .map(|(_, bytes)| decode(bytes))
        .collect::<Result<_>>()
        .map(Some)
}

/// What does not hold of the changelog's `stored` entries (as `verify`
/// read them, checksums checked): an entry key that is no `s` + sequence
/// or the head, an entry that does not decode, a head key that is not 8
/// bytes or disagrees with the last entry. Every commit reads the head
/// and appends after it, so damage here stops every write (E0591).
pub fn problems(stored: &std::collections::BTreeMap<Vec<u8>, Vec<u8>>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut last = None;
    for (key, value) in stored {
        if key.as_slice() == HEAD {
            continue;
        }
        let seq = key
            .strip_prefix(b"s")
            .and_then(|seq| <[u8; 8]>::try_from(seq).ok())
            .map(u64::from_be_bytes);
        match seq {
            None => problems.push(format!(
                "the changelog: an entry under an unknown key {key:02x?}"
            )),
            Some(seq) => {
                last = Some(seq);
                if let Err(error) = decode(value) {
                    problems.push(format!("the changelog: entry {seq}: {}", error.message));
                }
            }
        }
    }
    if let Some(head) = stored.get(HEAD) {
        match <[u8; 8]>::try_from(head.as_slice()).map(u64::from_be_bytes) {
            Err(_) => problems.push("the changelog: its head is not 8 bytes".into()),
            Ok(head) if last.is_some_and(|last| last != head) => problems.push(format!(
                "the changelog: its head says {head}, its last entry is {}",
                last.unwrap_or(0)
            )),
            Ok(_) => {}
        }
    }
    problems
}

/// Appends `writes` as the next entry, inside the commit's transaction,
/// in the layout `compact` says; returns its position (see [`Position`]).
/// `names` names every tree a run can write.
pub fn append(
    txn: &mut dyn WriteTxn,
    log: Tree,
    compact: bool,
    names: &HashMap<crate::store::Tree, String>,
    writes: &WriteSet,
) -> Result<Position> {
    let mut changes = Vec::new();
    for (tree, written) in writes.changes() {
        let name = names.get(&tree).ok_or_else(|| {
            RuntimeError::new(
                "E0582",
                format!(
                    "a commit wrote tree #{}, which the live changelog cannot name",
                    tree.index()
                ),
                "this is a bug in rqc; please report it with the program",
            )
        })?;
        changes.push(Change {
            tree: name.clone(),
            written,
        });
    }
    append_entry(txn, log, compact, encode(&changes), None)
}

/// Where an entry was appended: known at once after a head read now, or
/// as last made from the head's value, which is the committed one once the
/// commit is made (a commit etcd sends again makes its writes again, after
/// the new head). Only the latter is shared, so an embedded commit
/// allocates nothing for it.
pub enum Position {
    Known(u64),
    Made(Arc<AtomicU64>),
}

impl Position {
    pub fn get(&self) -> u64 {
        match self {
            Position::Known(seq) => *seq,
            Position::Made(made) => made.load(Ordering::Relaxed),
        }
    }
}

/// Appends `entry` after the head, and writes its position at `also`
/// (a tree and key) when given. On a compact changelog, after the head
/// read now; otherwise made from the head's value (`WriteTxn::write_from`),
/// so that a store whose commits may conflict places the entry after the
/// head as it is at the commit: commits that share only the head do not
/// conflict.
fn append_entry(
    txn: &mut dyn WriteTxn,
    log: Tree,
    compact: bool,
    entry: Vec<u8>,
    also: Option<(Tree, &'static [u8])>,
) -> Result<Position> {
    if compact {
        let seq = head(txn, log, compact)? + 1;
        txn.put(log, &entry_key(seq), &entry)?;
        if seq > KEEP && seq % TRIM == 0 {
            for old in seq - KEEP - (TRIM - 1)..=seq - KEEP {
                txn.delete(log, &entry_key(old))?;
            }
        }
        if let Some((tree, key)) = also {
            txn.put(tree, key, &seq.to_be_bytes())?;
        }
        return Ok(Position::Known(seq));
    }
    let position = Arc::new(AtomicU64::new(0));
    let made = Arc::clone(&position);
    let also_trees: Vec<Tree> = also.iter().map(|(tree, _)| *tree).collect();
    txn.write_from(
        log,
        HEAD,
        &also_trees,
        Box::new(move |stored: Option<&[u8]>| {
            let seq = head_value(stored)?.saturating_add(1);
            made.store(seq, Ordering::Relaxed);
            let mut writes = vec![
                (log, HEAD.to_vec(), Some(seq.to_be_bytes().to_vec())),
                (log, entry_key(seq).to_vec(), Some(entry.clone())),
            ];
            if seq > KEEP {
                writes.push((log, entry_key(seq - KEEP).to_vec(), None));
            }
            if let Some((tree, key)) = also {
                writes.push((tree, key.to_vec(), Some(seq.to_be_bytes().to_vec())));
            }
            Ok(writes)
        }),
    )?;
    Ok(Position::Made(position))
}

/// Appends an install's entry, inside the install's transaction, and
/// writes its position at `position_key` of the catalog: the entry names
/// the catalog's program key, which no query reads, so it touches no
/// subscription by its keys; the watcher plans every subscription again
/// when it finds one ([`is_install`]).
pub fn append_install(
    txn: &mut dyn WriteTxn,
    store: &dyn crate::store::Store,
    catalog: Tree,
    position_key: &'static [u8],
) -> Result<Position> {
    let change = Change {
        tree: crate::rows::CATALOG.to_string(),
        written: vec![Written::Key(INSTALLED.to_vec())],
    };
    append_entry(
        txn,
        store.tree(LOG_TREE),
        compact(store),
        encode(&[change]),
        Some((catalog, position_key)),
    )
}

/// The key an install's entry names in the catalog's tree.
const INSTALLED: &[u8] = b"program";

/// Whether `change` is an install's ([`append_install`]).
pub fn is_install(change: &Change) -> bool {
    change.tree == crate::rows::CATALOG
}

fn encode(changes: &[Change]) -> Vec<u8> {
    let mut out = Vec::new();
    let bytes = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as u32).to_be_bytes());
        out.extend_from_slice(b);
    };
    out.extend_from_slice(&(changes.len() as u32).to_be_bytes());
    for change in changes {
        bytes(&mut out, change.tree.as_bytes());
        out.extend_from_slice(&(change.written.len() as u32).to_be_bytes());
        for written in &change.written {
            match written {
                Written::Key(key) => {
                    out.push(0);
                    bytes(&mut out, key);
                }
                Written::Span(lo, hi) => {
                    out.push(1);
                    bytes(&mut out, lo);
                    bytes(&mut out, hi);
                }
            }
        }
    }
    out
}

fn decode(mut input: &[u8]) -> Result<Vec<Change>> {
    let bad = || malformed("an entry");
    fn take<'a>(input: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (input.get(..n)?, input.get(n..)?);
        *input = rest;
        Some(head)
    }
    fn count(input: &mut &[u8]) -> Option<usize> {
        Some(u32::from_be_bytes(take(input, 4)?.try_into().ok()?) as usize)
    }
    fn bytes(input: &mut &[u8]) -> Option<Vec<u8>> {
        let n = count(input)?;
        Some(take(input, n)?.to_vec())
    }
    let trees = count(&mut input).ok_or_else(bad)?;
    let mut changes = Vec::new();
    for _ in 0..trees {
        let tree = String::from_utf8(bytes(&mut input).ok_or_else(bad)?).map_err(|_| bad())?;
        let n = count(&mut input).ok_or_else(bad)?;
        let mut written = Vec::new();
        for _ in 0..n {
            let item = match take(&mut input, 1).ok_or_else(bad)? {
                [0] => Written::Key(bytes(&mut input).ok_or_else(bad)?),
                [1] => Written::Span(
                    bytes(&mut input).ok_or_else(bad)?,
                    bytes(&mut input).ok_or_else(bad)?,
                ),
                _ => return Err(bad()),
            };
            written.push(item);
        }
        changes.push(Change { tree, written });
    }
    if !input.is_empty() {
        return Err(bad());
    }
    Ok(changes)
}

fn malformed(what: &str) -> RuntimeError {
    RuntimeError::new(
        "E0580",
        format!("the live changelog is damaged: {what} does not decode"),
        "the changelog feeds live queries only: `rqc dump --db DIR --out SAVED` then `rqc restore` into a new database keeps every row and starts it afresh",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_damage_is_an_error() {
        let changes = vec![
            Change {
                tree: "t:User".into(),
                written: vec![Written::Key(vec![1, 2]), Written::Span(vec![3], vec![9, 9])],
            },
            Change {
                tree: "i:User:by_name".into(),
                written: vec![Written::Key(vec![])],
            },
        ];
        let bytes = encode(&changes);
        assert_eq!(decode(&bytes).unwrap(), changes);
        assert_eq!(decode(&bytes[..bytes.len() - 1]).unwrap_err().code, "E0580");
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer).unwrap_err().code, "E0580");
    }

    /// Both layouts give the same positions and keep at least `KEEP`
    /// entries; the compact one writes no head and trims in steps.
    #[test]
    fn both_layouts_count_and_trim() {
        use crate::store::{MemoryStore, Store};
        for compact in [false, true] {
            let store = MemoryStore::new();
            let log = store.tree(LOG_TREE);
            let data = store.tree("t:T");
            let names = HashMap::from([(data, "t:T".to_string())]);
            let mut writes = WriteSet::default();
            writes.add(data, b"k");
            let total = KEEP + 2 * TRIM + 5;
            for n in 1..=total {
                let mut txn = store.begin_write().unwrap();
                assert_eq!(
                    append(txn.as_mut(), log, compact, &names, &writes)
                        .unwrap()
                        .get(),
                    n
                );
                txn.commit().unwrap();
            }
            let read = store.begin_read().unwrap();
            assert_eq!(head(read.as_ref(), log, compact).unwrap(), total);
            assert_eq!(read.get(log, HEAD).unwrap().is_some(), !compact);
            let kept = read.range(log, b"s", None, false, usize::MAX).unwrap();
            let oldest = u64::from_be_bytes(kept[0].0[1..].try_into().unwrap());
            assert_eq!(
                oldest,
                if compact {
                    total - KEEP - 4
                } else {
                    total - KEEP + 1
                }
            );
            assert_eq!(kept.len() as u64, total - oldest + 1);
            let last = entries(read.as_ref(), log, total - KEEP, total)
                .unwrap()
                .unwrap();
            assert_eq!(last.len() as u64, KEEP);
            assert_eq!(last[0][0].tree, "t:T");
        }
    }
}
