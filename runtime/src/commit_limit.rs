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
//! The same limit caps a batch of point reads: a request of more gets than
//! the limit is refused by the cluster, so a larger batch would go as
//! several requests, more round trips than the proof counts (it counts one
//! per batch). A batch never holds more keys than its run's seeks (each
//! key is charged a seek), so an entry point whose round-trip bound counts
//! on batches (fewer round trips than seeks) must have at most `limit`
//! seeks; otherwise it is refused at install (E0571).

use crate::error::{Result, RuntimeError};

/// What every commit adds for live queries (`live::changelog`): the head
/// read (a compare), the head and the new entry written, the oldest kept
/// entry deleted.
const CHANGELOG_OPS: u64 = 4;
use rqc_plan::{CompiledProgram, EntryKind};

/// Refuses `program` when one of its mutations is not proved to fit in
/// `limit` operations, or one of its entry points is not proved to read
/// each batch in one request.
pub(crate) fn check(program: &CompiledProgram, limit: usize) -> Result<()> {
    check_commits(program, limit)?;
    check_batches(program, limit)
}

fn check_batches(program: &CompiledProgram, limit: usize) -> Result<()> {
    let over: Vec<String> = program
        .entries
        .iter()
        .filter(|e| e.bound.round_trips < e.bound.seeks && e.bound.seeks > limit as u64)
        .map(|e| format!("`{}` (up to {} keys)", e.name, e.bound.seeks))
        .collect();
    if over.is_empty() {
        return Ok(());
    }
    Err(RuntimeError::new(
        "E0571",
        format!(
            "the cluster's requests hold at most {limit} reads (its --max-txn-ops when the database was made), and these entry points' round-trip bounds count on batches of point reads that may be larger: {}; nothing was installed",
            over.join(", ")
        ),
        "start every etcd member with a larger --max-txn-ops (at least the largest figure above) and make a new database, or lower the bounds of the lists those entry points map over",
    ))
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
