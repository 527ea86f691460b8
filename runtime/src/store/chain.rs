//! The chain of entries: each entry's seal links to its predecessor's key, so an entry missing from where a read looks is damage (E0591), not an answer.
//!
//! A checksum per entry (`store::checked`) sees an entry whose bytes
//! changed; it cannot see an entry that is intact but absent from where a
//! read looks (a damaged branch page that cuts a leaf out of a tree, a
//! flipped bit that moves a key). So each entry's seal also holds its
//! *link*: a hash of the key just before it in the same tree ([`START`]
//! for the first), covered by the entry's checksum. Every tree but the
//! catalog ends with an end marker stored at [`END`], whose link is the
//! last real key: it is never a row, and every range is cut before it.
//!
//! - A range checks that each entry links to the one read before it, that
//!   its first entry links to its real predecessor (one more read), and,
//!   when it stops at its end, that the entry it stops at links to its last.
//! - A point read that finds nothing checks that the successor of the key
//!   links to its predecessor: if the key was cut out, the successor still
//!   links to it.
//! - An insert stores the new key with its successor's link and rewrites
//!   the successor to link to it; a deletion gives the successor the
//!   deleted entry's link; an overwrite keeps the link.
//!
//! spec/storage.md has the format and what the chain cannot see.

use super::checked::{guarded, Checked};
use super::{Placed, Ranged, ReadTxn, Salvaged, Salvaging, Tree, WriteTxn, SALVAGE_CHUNK};
use crate::error::{Result, RuntimeError};

/// The key of a tree's end marker: no key rqc writes sorts at or after it
/// (every encoded component begins with a type tag below 0xF0 or its
/// complement, never 0xFF); a write of one is refused (E0551).
pub const END: &[u8] = &[0xFF; 8];

/// The link of a tree's first entry.
pub const START: u32 = 0;

/// The link to `key`: CRC-32 of its length and bytes (never [`START`] for
/// the empty key).
pub fn link(key: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&(key.len() as u32).to_le_bytes());
    hasher.update(key);
    hasher.finalize()
}

/// A raw entry of the inner store: key and value as stored (sealed).
type Raw = (Vec<u8>, Vec<u8>);

/// The first stored entry at or after `key`.
fn next<T: ReadTxn + ?Sized>(txn: &T, tree: Tree, key: &[u8]) -> Result<Option<Raw>> {
    let mut found = guarded("reading a neighbour", || {
        txn.range(tree, key, None, false, 1)
    })?;
    Ok(found.pop())
}

/// The last stored entry before `key`.
fn prev<T: ReadTxn + ?Sized>(txn: &T, tree: Tree, key: &[u8]) -> Result<Option<Raw>> {
    if key.is_empty() {
        return Ok(None);
    }
    let mut found = guarded("reading a neighbour", || {
        txn.range(tree, b"", Some(key), true, 1)
    })?;
    Ok(found.pop())
}

/// `end` cut before the end marker.
pub fn clamp(end: Option<&[u8]>) -> &[u8] {
    match end {
        Some(end) if end < END => end,
        _ => END,
    }
}

/// The link of the entry before `key` (checked whole), or [`START`].
fn predecessor_link<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    key: &[u8],
) -> Result<u32> {
    match prev(txn, tree, key)? {
        Some((pk, pv)) => {
            store.open_link(tree, &pk, &pv)?;
            if pk.as_slice() >= key {
                return Err(store.damaged(tree, &pk, "was read before a key it sorts after"));
            }
            Ok(link(&pk))
        }
        None => Ok(START),
    }
}

/// Checks that `key`, found nowhere by a point read, is absent from the
/// chain too: its successor links to its predecessor.
pub fn vouch_absent<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    key: &[u8],
) -> Result<()> {
    if !store.chained(tree) || key >= END {
        return Ok(());
    }
    let Some((sk, sv)) = next(txn, tree, key)? else {
        // No end marker: the tree must be empty.
        return match prev(txn, tree, key)? {
            Some((pk, _)) => Err(store.damaged(
                tree,
                &pk,
                "comes before the end of its tree, whose end marker is missing",
            )),
            None => Ok(()),
        };
    };
    if sk == key {
        return Err(store.damaged(tree, key, "is found by a range but not by a point read"));
    }
    let (_, sl) = store.open_link(tree, &sk, &sv)?;
    if sl == link(key) {
        return Err(store.damaged(
            tree,
            key,
            "is missing: the entry after it still links to it",
        ));
    }
    if sl != predecessor_link(store, txn, tree, key)? {
        return Err(broken(store, tree, &sk));
    }
    Ok(())
}

fn broken(store: &Checked, tree: Tree, key: &[u8]) -> RuntimeError {
    store.damaged(
        tree,
        key,
        "does not link to the entry read before it (an entry between them is missing, or one was moved)",
    )
}

/// A range's entries opened and checked against each other and their
/// neighbours (see the module's doc). `end` is already cut before the end
/// marker; `ranged` is the inner store's answer for `start..end`.
#[allow(clippy::too_many_arguments)]
pub fn vouch_range<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    start: &[u8],
    end: &[u8],
    reverse: bool,
    limit: usize,
    ranged: Ranged,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let Ranged {
        entries,
        before,
        after,
    } = ranged;
    let mut opened = Vec::with_capacity(entries.len());
    let mut links = Vec::with_capacity(entries.len());
    for (key, stored) in entries {
        let (value, l) = store.open_link(tree, &key, &stored)?;
        let len = value.len();
        links.push(l);
        let mut stored = stored;
        stored.truncate(len);
        opened.push((key, stored));
    }
    if limit == 0 || start >= end {
        return Ok(opened);
    }
    let n = opened.len();
    // Indexes in key order.
    let at = |i: usize| if reverse { n - 1 - i } else { i };
    for i in 1..n {
        if links[at(i)] != link(&opened[at(i - 1)].0) {
            return Err(broken(store, tree, &opened[at(i)].0));
        }
    }
    let low_complete = !reverse || n < limit;
    let high_complete = reverse || n < limit;
    let mut low_link = None;
    if low_complete {
        let pl = match before {
            Some((bk, bv)) if bk.as_slice() < start => {
                store.open_link(tree, &bk, &bv)?;
                link(&bk)
            }
            Some((bk, _)) => {
                return Err(store.damaged(tree, &bk, "was skipped by the range it belongs to"))
            }
            None => predecessor_link(store, txn, tree, start)?,
        };
        if n > 0 && links[at(0)] != pl {
            return Err(broken(store, tree, &opened[at(0)].0));
        }
        low_link = Some(pl);
    }
    if high_complete {
        let successor = match after {
            Some(entry) => Some(entry),
            None => next(txn, tree, end)?,
        };
        let expected = match n {
            0 => low_link.unwrap_or(START),
            _ => link(&opened[at(n - 1)].0),
        };
        match successor {
            Some((sk, sv)) => {
                let (_, sl) = store.open_link(tree, &sk, &sv)?;
                if sk.as_slice() < end {
                    return Err(store.damaged(tree, &sk, "ends a range it belongs to"));
                }
                if sl != expected {
                    return Err(broken(store, tree, &sk));
                }
            }
            None if n == 0 && expected == START => {}
            None => {
                return Err(store.damaged(
                    tree,
                    END,
                    "is missing: the tree's end marker, which vouches for its last entry",
                ))
            }
        }
    }
    Ok(opened)
}

/// The next entries of the whole tree from where `from` is, at most
/// `limit`, read past damage, in key order: each one whose checksum fails
/// is an error in its place, and each break of the chain is an error of
/// its own before the entry that does not link (its value, intact, still
/// comes); the chain is followed from one chunk to the next, and the end
/// marker checked after the last: for `verify` and `dump`.
pub fn salvage<T: ReadTxn + ?Sized>(
    store: &Checked,
    txn: &T,
    tree: Tree,
    from: &mut Salvaging,
    limit: usize,
) -> Result<Vec<Salvaged>> {
    let chained = store.chained(tree);
    if !from.begun {
        from.expected = chained.then_some(START);
    }
    let cut = chained.then_some(END);
    // Each entry opened where the inner store lends it (`ReadTxn::scan`):
    // only its value is copied, once.
    let mut salvaged: Vec<Salvaged> = Vec::with_capacity(limit.min(SALVAGE_CHUNK));
    let mut read = 0;
    let start = from.start.clone();
    if limit > 0 {
        guarded("reading a range", || {
            txn.scan(tree, &start, cut, &mut |key, stored| {
                read += 1;
                match store.open_link(tree, key, stored) {
                    Ok((value, l)) => {
                        if chained && from.expected.is_some_and(|e| e != l) {
                            salvaged.push((key.to_vec(), Err(broken(store, tree, key))));
                        }
                        from.expected = Some(link(key));
                        salvaged.push((key.to_vec(), Ok(value.to_vec())));
                    }
                    Err(error) => {
                        from.expected = None;
                        salvaged.push((key.to_vec(), Err(error)));
                    }
                }
                Ok(read < limit)
            })
        })?;
    }
    let last = read < limit;
    let begun = from.begun || !salvaged.is_empty();
    from.read(salvaged.last().map(|(key, _)| key.as_slice()), last);
    if chained && last {
        match next(txn, tree, END)? {
            Some((sk, sv)) => match store.open_link(tree, &sk, &sv) {
                Ok((_, l)) if from.expected.is_some_and(|e| e != l) => {
                    salvaged.push((sk.clone(), Err(broken(store, tree, &sk))))
                }
                Ok(_) => {}
                Err(error) => salvaged.push((sk, Err(error))),
            },
            None if !begun => {}
            None => salvaged.push((
                END.to_vec(),
                Err(store.damaged(
                    tree,
                    END,
                    "is missing: the tree's end marker, which vouches for its last entry",
                )),
            )),
        }
    }
    Ok(salvaged)
}

/// Refuses a key the end marker could not follow.
fn storable(key: &[u8]) -> Result<()> {
    if key >= END {
        return Err(RuntimeError::new(
            "E0551",
            format!(
                "a key starting with eight 0xFF bytes cannot be stored (it would sort past its tree's end marker): {}",
                super::checked::hex(key)
            ),
            "this is a bug in rqc: no key it encodes starts so; please report it with the program",
        ));
    }
    Ok(())
}

/// Writes `value` at `key` keeping the chain: an overwrite keeps its
/// link; an insert takes its successor's link and relinks the successor,
/// in the search that found it where the backend can
/// ([`WriteTxn::put_beside`]).
pub fn put(
    store: &Checked,
    txn: &mut (dyn WriteTxn + '_),
    tree: Tree,
    key: &[u8],
    value: &[u8],
) -> Result<()> {
    storable(key)?;
    let placed = guarded("writing", || {
        txn.put_beside(tree, key, &mut |found| {
            let Some((sk, sv)) = found else {
                return Ok(None);
            };
            let (sval, l) = store.open_link(tree, sk, sv)?;
            let own = store.seal(tree, key, value, l);
            let next = (sk != key).then(|| store.seal(tree, sk, sval, link(key)));
            Ok(Some(Placed { own, next }))
        })
    })?;
    if placed {
        return Ok(());
    }
    // No end marker: only an empty tree has none.
    if let Some((pk, _)) = prev(txn, tree, key)? {
        return Err(store.damaged(
            tree,
            &pk,
            "comes before the end of its tree, whose end marker is missing",
        ));
    }
    raw_put(txn, tree, key, &store.seal(tree, key, value, START))?;
    raw_put(txn, tree, END, &store.seal(tree, END, &[], link(key)))
}

/// Deletes `key` keeping the chain: its successor takes its link, in the
/// search that found both where the backend can
/// ([`WriteTxn::delete_beside`]).
pub fn delete(
    store: &Checked,
    txn: &mut (dyn WriteTxn + '_),
    tree: Tree,
    key: &[u8],
) -> Result<()> {
    if key >= END {
        return Ok(());
    }
    guarded("deleting", || {
        txn.delete_beside(tree, key, &mut |stored, successor| {
            let (_, l) = store.open_link(tree, key, stored)?;
            let Some((sk, sv)) = successor else {
                return Err(store.damaged(
                    tree,
                    END,
                    "is missing: the tree's end marker, which vouches for its last entry",
                ));
            };
            let (sval, sl) = store.open_link(tree, sk, sv)?;
            if sl != link(key) {
                return Err(broken(store, tree, sk));
            }
            Ok(Some(store.seal(tree, sk, sval, l)))
        })
    })
}

fn raw_put(txn: &mut (dyn WriteTxn + '_), tree: Tree, key: &[u8], sealed: &[u8]) -> Result<()> {
    guarded("writing", || txn.put(tree, key, sealed))
}
