//! The changelog: each commit's written keys, stored by sequence number in the same write transaction, so that a watcher in any process learns what changed.
//!
//! Tree `__live`: key `h` holds the head (the last sequence number, 8 bytes
//! big-endian); key `s` + sequence holds that commit's entry. A commit
//! appends one entry and deletes the one [`KEEP`] before it, so the log
//! stays bounded; a watcher that fell further behind than that re-reads
//! every subscription (overflow). A commit's position is its sequence
//! number: what an etcd watch calls a revision.

use super::ranges::{WriteSet, Written};
use crate::error::{Result, RuntimeError};
use crate::store::{ReadTxn, Tree, WriteTxn};
use std::collections::HashMap;

/// The changelog's tree.
pub const LOG_TREE: &str = "__live";

/// Entries kept: a watcher further behind than this overflows.
pub const KEEP: u64 = 4096;

/// The head's key (an etcd watch on it hears of every commit).
pub(crate) const HEAD: &[u8] = b"h";

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

/// The last commit's position (0 before any).
pub fn head(txn: &dyn ReadTxn, log: Tree) -> Result<u64> {
    match txn.get(log, HEAD)? {
        None => Ok(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes.as_slice())
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

/// Appends `writes` as the next entry, inside the commit's transaction;
/// returns its position. `names` names every tree a run can write.
pub fn append(
    txn: &mut dyn WriteTxn,
    log: Tree,
    names: &HashMap<crate::store::Tree, String>,
    writes: &WriteSet,
) -> Result<u64> {
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
    let seq = head(txn, log)? + 1;
    txn.put(log, &entry_key(seq), &encode(&changes))?;
    txn.put(log, HEAD, &seq.to_be_bytes())?;
    if seq > KEEP {
        txn.delete(log, &entry_key(seq - KEEP))?;
    }
    Ok(seq)
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
}
