//! At install, on a store whose commits hold a limited number of operations (etcd): every mutation's proved bound must fit.
//!
//! A mutation's commit writes only keys its run descended to, each charged
//! a seek (spec/cost.md §7), and checks each key it read (a seek, or a row
//! of a range) and each range it read (a seek): so neither its writes nor
//! its checks outnumber `seeks + rows` of its bound; the changelog of live
//! queries adds a fixed four. A mutation whose
//! bound is larger may still fit, but is not proved to; it is refused at
//! install (E0570) rather than at a commit that happens to be large.
//!
//! The same limit caps a batch of reads: a request of more reads than the
//! limit is refused by the cluster, so a batch of `n` reads goes as
//! `⌈n/L⌉` requests (`store::etcd::batch`), each a round trip. Every read
//! of a batch is one the run's bound charges a seek, so an operator proved
//! to `T` round trips and `S` seeks makes at most `T + ⌊S/L⌋` on such a
//! store ([`widened`], spec/cost.md §11): its bounds are held to that.

use crate::error::{Result, RuntimeError};

/// What every commit adds for live queries (`live::changelog`): the head
/// read (a compare), the head and the new entry written, the oldest kept
/// entry deleted.
const CHANGELOG_OPS: u64 = 4;
use rqc_plan::{Bound, CompiledProgram, EntryKind};

/// Refuses `program` when one of its mutations is not proved to fit in
/// `limit` operations.
pub(crate) fn check(program: &CompiledProgram, limit: usize) -> Result<()> {
    check_commits(program, limit)
}

/// A proved bound on a store whose requests hold at most `limit` reads:
/// its batches may go as several requests, at most `⌊seeks/limit⌋` more.
pub fn widened(bound: Bound, limit: Option<u64>) -> Bound {
    match limit {
        Some(limit) if limit > 0 => Bound {
            round_trips: bound.round_trips.saturating_add(bound.seeks / limit),
            ..bound
        },
        _ => bound,
    }
}

fn check_commits(program: &CompiledProgram, limit: usize) -> Result<()> {
    let over: Vec<String> = program
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Mutation)
        .filter_map(|e| {
            let ops = e.bound.seeks.saturating_add(e.bound.rows) + CHANGELOG_OPS;
            (ops > limit as u64).then(|| format!("`{}` (up to {ops})", e.name))
        })
        .collect();
    if over.is_empty() {
        return Ok(());
    }
    Err(RuntimeError::new(
        "E0570",
        format!(
            "the cluster's transactions hold at most {limit} operations (its --max-txn-ops when the database was made), and these mutations' bounds allow more in one commit: {}; nothing was installed",
            over.join(", ")
        ),
        "start every etcd member with a larger --max-txn-ops (at least the largest figure above) and make a new database, or lower the mutations' bounds",
    ))
}
