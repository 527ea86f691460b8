//! At install, on a store whose commits hold a limited number of operations (etcd): every mutation's proved bound must fit.
//!
//! A mutation's commit writes only keys its run descended to, each charged
//! a seek (spec/cost.md §7), and checks each key it read (a seek, or a row
//! of a range) and each range it read (a seek): so neither its writes nor
//! its checks outnumber `seeks + rows` of its bound. A mutation whose
//! bound is larger may still fit, but is not proved to; it is refused at
//! install (E0570) rather than at a commit that happens to be large.

use crate::error::{Result, RuntimeError};
use rqc_plan::{CompiledProgram, EntryKind};

/// Refuses `program` when one of its mutations is not proved to fit in
/// `limit` operations.
pub(crate) fn check(program: &CompiledProgram, limit: usize) -> Result<()> {
    let over: Vec<String> = program
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Mutation)
        .filter_map(|e| {
            let ops = e.bound.seeks.saturating_add(e.bound.rows);
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
