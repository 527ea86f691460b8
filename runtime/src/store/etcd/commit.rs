//! The commit of a write transaction on etcd: one Txn whose compares cover every key and range read, sent again with its changelog entry moved when the changelog's head alone changed.
//!
//! Every commit that logs reads the changelog's head and writes the entry
//! after it (`live/changelog.rs`), so two commits on disjoint rows would
//! otherwise conflict on the head and run again from scratch (issue 35).
//! The head's writes are made from its value (`WriteTxn::write_from`):
//! when the commit fails, the same request tells, by a nested Txn of every
//! other compare, whether anything else it read changed, and reads the
//! head. When nothing else did, the mutation's reads all still hold, so
//! its writes are those it would make now: the head's writes are made
//! again from the new head and the commit is sent again (at most
//! [`AGAIN`] times, each an attempt more, reported). Anything else that
//! changed is a conflict, as before.

use super::errors::{never_sent, too_large, too_many_ops};
use super::{unexpected, EtcdWrite, Read};
use crate::error::{Result, RuntimeError};
use crate::store::Rebase;
use etcd_client::{Compare, CompareOp, Txn, TxnOp, TxnOpResponse, TxnResponse};
use std::collections::BTreeMap;
use std::time::Duration;

/// Times a commit is sent again after the head alone changed, before it
/// is answered as a conflict (the engine then runs the mutation again).
const AGAIN: u32 = 16;

/// The write made from a key's value ([`crate::store::WriteTxn::write_from`]).
pub(super) struct FromKey {
    /// The key's full key.
    pub full: Vec<u8>,
    pub rebase: Box<Rebase>,
    /// The full keys of its writes, as last made.
    pub written: Vec<Vec<u8>>,
}

/// Commits `txn`, counting each time it is sent again
/// (`store::resent_commits`).
pub(super) fn commit(txn: EtcdWrite<'_>) -> Result<()> {
    let store = txn.read.store;
    let mut writes: BTreeMap<Vec<u8>, Option<Vec<u8>>> = BTreeMap::new();
    for (tree, pending) in txn.overlay.trees() {
        let prefix = store.tree_prefix(tree);
        for (key, value) in pending {
            writes.insert([prefix.as_slice(), key].concat(), value.clone());
        }
    }
    if writes.is_empty() {
        // Nothing to write: the reads were of one revision already.
        return Ok(());
    }
    let revision = txn.read.revision.get();
    let mut keys = txn.keys.into_inner();
    // The key the head's writes are made from is compared apart.
    let mut from = txn.from_key.map(|from| {
        let read_at = keys.remove(&from.full).unwrap_or(0);
        (from, read_at)
    });
    // When a compare fails, the same request reads the expected keys
    // (the schema generation), so a stale schema is told apart from a
    // conflict with no request of its own (spec/cost.md §11).
    let expected_values: Vec<Vec<u8>> = txn.expected.iter().map(|(_, v)| v.clone()).collect();
    let read_expected: Vec<TxnOp> = txn
        .expected
        .iter()
        .map(|(key, _)| TxnOp::get(key.clone(), None))
        .collect();
    let mut others = Vec::new();
    let mut compared_bytes = 0usize;
    for (key, mod_revision) in keys {
        compared_bytes += key.len() + 8;
        others.push(Compare::mod_revision(key, CompareOp::Equal, mod_revision));
    }
    for (key, value) in txn.expected {
        compared_bytes += key.len() + value.len() + 8;
        others.push(Compare::value(key, CompareOp::Equal, value));
    }
    for (from_key, to) in txn.ranges.into_inner() {
        compared_bytes += from_key.len() + to.len() + 8;
        others.push(Compare::mod_revision(from_key, CompareOp::Less, revision + 1).with_range(to));
    }
    let mut again = 0;
    loop {
        let mut compares = others.clone();
        let mut on_failure = read_expected.clone();
        let mut bytes = compared_bytes;
        let mut ops = Vec::with_capacity(writes.len());
        for (key, value) in &writes {
            bytes += key.len() + value.as_ref().map_or(0, Vec::len) + 8;
            ops.push(match value {
                Some(value) => TxnOp::put(key.clone(), value.clone(), None),
                None => TxnOp::delete(key.clone(), None),
            });
        }
        if let Some((from, read_at)) = &from {
            compares.push(Compare::mod_revision(
                from.full.clone(),
                CompareOp::Equal,
                *read_at,
            ));
            bytes += from.full.len() + 8;
            // The other compares once more in the nested Txn, and the
            // head's read: only where the request still fits the size and
            // the operations the install proved it within (`entry_bytes.rs`
            // and `commit_limit.rs` count the compares once); otherwise a
            // failure is a conflict, as before.
            // etcd holds a nested Txn's operations to the limit less the
            // most of the outer one's (`checkTxnRequest`).
            let told = compared_bytes + from.full.len() + 16;
            let outer = compares.len().max(ops.len()).max(on_failure.len() + 2);
            if bytes + told <= store.max_request_bytes && outer + others.len() <= store.max_txn_ops
            {
                on_failure.push(TxnOp::txn(Txn::new().when(others.clone())));
                on_failure.push(TxnOp::get(from.full.clone(), None));
                bytes += told;
            }
        }
        let needed = ops.len().max(compares.len());
        if needed > store.max_txn_ops {
            return Err(too_many_ops(&store.url, Some((needed, store.max_txn_ops))));
        }
        if bytes > store.max_request_bytes {
            return Err(too_large(
                &store.url,
                Some((bytes, store.max_request_bytes)),
            ));
        }
        let request = Txn::new().when(compares).and_then(ops).or_else(on_failure);
        let response = send(txn.read.store, request)?;
        if response.succeeded() {
            return Ok(());
        }
        let mut answers = response.op_responses().into_iter();
        for value in &expected_values {
            let Some(TxnOpResponse::Get(mut got)) = answers.next() else {
                return Err(unexpected("a failed commit without the reads it asked for"));
            };
            let now = got.take_kvs().into_iter().next().map(Read::from);
            if now.map(|r| r.value).as_ref() != Some(value) {
                return Err(RuntimeError::stale_schema());
            }
        }
        let conflict =
            || RuntimeError::conflict("a key or range it read was changed on the etcd cluster");
        let Some((from, read_at)) = &mut from else {
            return Err(conflict());
        };
        let (Some(TxnOpResponse::Txn(rest)), Some(TxnOpResponse::Get(mut head))) =
            (answers.next(), answers.next())
        else {
            // Not asked (the request would not have fitted): a conflict.
            return Err(conflict());
        };
        if !rest.succeeded() || again + 1 >= AGAIN {
            return Err(conflict());
        }
        // Only the head changed: its writes made again from its new value.
        let now = head.take_kvs().into_iter().next().map(Read::from);
        *read_at = now.as_ref().map_or(0, |r| r.mod_revision);
        for key in &from.written {
            writes.remove(key);
        }
        from.written.clear();
        for (tree, at, written) in (from.rebase)(now.as_ref().map(|r| r.value.as_slice()))? {
            let full = [store.tree_prefix(tree).as_slice(), &at].concat();
            from.written.push(full.clone());
            writes.insert(full, written);
        }
        crate::store::note_resent();
        again += 1;
    }
}

/// Sends the commit's request, again while no member was reached.
fn send(store: &super::EtcdStore, request: Txn) -> Result<TxnResponse> {
    let response = store.runtime.block_on(async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            match super::connect::kv(&store.client).txn(request.clone()).await {
                // Refused before it reached a member: safe to send again.
                Err(e) if never_sent(&e) && tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                done => return done,
            }
        }
    });
    response.map_err(|e| {
        let known = store.error(e);
        // Refusals before the commit was applied keep their codes; a lost
        // connection leaves its outcome unknown.
        if known.code == "E0561" || known.code == "E0572" {
            RuntimeError::new(
                "E0566",
                format!("the connection to the etcd cluster at `{}` was lost during a commit, which may or may not have been applied: {}", store.url, known.message),
                "read the rows it writes to see whether it was applied before running it again",
            )
        } else {
            known
        }
    })
}
