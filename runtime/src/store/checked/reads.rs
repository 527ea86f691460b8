//! The checked reads: a hit opened by its checksum, a miss vouched for by the chain around it, a range with the entries at its ends checked, and a batch of them.

use super::{guarded, Checked};
use crate::error::Result;
use crate::store::chain;
use crate::store::{BatchAnswer, BatchRead, Ranged, ReadTxn, Tree};

/// Reads through any transaction of the inner store, checked: a hit by
/// its checksum, a miss by the chain around it.
pub(super) fn get<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    key: &[u8],
) -> Result<Option<Vec<u8>>> {
    if store.past_end(tree, key) {
        return Ok(None);
    }
    match guarded("reading", || txn.get(tree, key))? {
        Some(stored) => store.open(tree, key, stored).map(Some),
        None => chain::vouch_absent(store, txn, tree, key).map(|()| None),
    }
}

pub(super) fn get_many<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    keys: &[&[u8]],
) -> Result<Vec<Option<Vec<u8>>>> {
    let found = guarded("reading", || txn.get_many(tree, keys))?;
    found
        .into_iter()
        .zip(keys)
        .map(|(stored, key)| match stored {
            _ if store.past_end(tree, key) => Ok(None),
            Some(s) => store.open(tree, key, s).map(Some),
            None => chain::vouch_absent(store, txn, tree, key).map(|()| None),
        })
        .collect()
}

pub(super) fn range<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    start: &[u8],
    end: Option<&[u8]>,
    reverse: bool,
    limit: usize,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let end = if store.chained(tree) {
        Some(chain::clamp(end))
    } else {
        end
    };
    let ranged = guarded("reading a range", || {
        txn.range_to_boundary(tree, start, end, reverse, limit)
    })?;
    open_range(store, txn, tree, start, end, reverse, limit, ranged)
}

/// A range's entries, checked: on a chained tree by the chain, otherwise
/// with the entries just outside it whole and outside.
#[allow(clippy::too_many_arguments)]
pub(super) fn open_range<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    start: &[u8],
    end: Option<&[u8]>,
    reverse: bool,
    limit: usize,
    ranged: Ranged,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    if store.chained(tree) {
        let end = chain::clamp(end);
        return chain::vouch_range(store, txn, tree, start, end, reverse, limit, ranged);
    }
    if let Some((key, stored)) = ranged.before {
        store.open(tree, &key, stored)?;
        if key.as_slice() >= start {
            return Err(store.damaged(tree, &key, "was skipped by the range it belongs to"));
        }
    }
    if let Some((key, stored)) = ranged.after {
        store.open(tree, &key, stored)?;
        if end.is_none_or(|end| key.as_slice() < end) {
            return Err(store.damaged(tree, &key, "ends a range it belongs to"));
        }
    }
    ranged
        .entries
        .into_iter()
        .map(|(key, stored)| {
            let value = store.open(tree, &key, stored)?;
            Ok((key, value))
        })
        .collect()
}

/// A batch's answers, each checked as its single read would be.
pub(super) fn read_batch<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    reads: &[BatchRead],
) -> Result<Vec<BatchAnswer>> {
    // Ranges of chained trees are cut before the end marker.
    let cut: Vec<BatchRead> = reads
        .iter()
        .map(|read| match read {
            BatchRead::Range {
                tree,
                start,
                end,
                reverse,
                limit,
            } if store.chained(*tree) => BatchRead::Range {
                tree: *tree,
                start: start.clone(),
                end: Some(chain::clamp(end.as_deref()).to_vec()),
                reverse: *reverse,
                limit: *limit,
            },
            other => other.clone(),
        })
        .collect();
    let answers = guarded("reading a batch", || txn.read_batch(&cut))?;
    if answers.len() != reads.len() {
        return Err(crate::error::internal(
            "a batch of reads answered with another number of results",
        ));
    }
    cut.iter()
        .zip(answers)
        .map(|(read, answer)| match (read, answer) {
            (BatchRead::Get { tree, key }, BatchAnswer::Got(stored)) => {
                Ok(BatchAnswer::Got(match stored {
                    _ if store.past_end(*tree, key) => None,
                    Some(s) => Some(store.open(*tree, key, s)?),
                    None => {
                        chain::vouch_absent(store, txn, *tree, key)?;
                        None
                    }
                }))
            }
            (
                BatchRead::Range {
                    tree,
                    start,
                    end,
                    reverse,
                    limit,
                },
                BatchAnswer::Ranged(ranged),
            ) => Ok(BatchAnswer::Ranged(Ranged {
                entries: open_range(
                    store,
                    txn,
                    *tree,
                    start,
                    end.as_deref(),
                    *reverse,
                    *limit,
                    ranged,
                )?,
                ..Ranged::default()
            })),
            _ => Err(crate::error::internal(
                "a batch of reads answered out of order",
            )),
        })
        .collect()
}
