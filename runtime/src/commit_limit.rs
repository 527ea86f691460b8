//! At install, on a store whose commits hold a limited number of operations (etcd): every mutation's proved bound must fit.
//!
//! A mutation's commit writes only keys its run descended to, each charged
//! a seek (spec/cost.md §7), and checks each key it read (a seek, or a row
//! of a range) and each range it read (a seek): so neither its writes nor
//! its checks outnumber `seeks + rows` of its bound; the changelog of live
//! queries and the schema generation's compare add a fixed five. A mutation whose
//! bound is larger may still fit, but is not proved to; it is refused at
//! install (E0570) rather than at a commit that happens to be large.
//!
//! The same limit caps a batch of reads: a request of more reads than the
//! limit is refused by the cluster, so a batch of `n` reads goes as
//! `⌈n/L⌉` requests (`store::etcd::batch`), each a round trip. Every read
//! of a batch is one the run's bound charges a seek, so an operator proved
//! to `T` round trips and `S` seeks makes at most `T + ⌊S/L⌋` on such a
//! store ([`widened`], spec/cost.md §11): its bounds are held to that.

use crate::entry_bytes::TableBytes;
use crate::error::{Result, RuntimeError};
use crate::store::RequestLimit;
use std::collections::BTreeSet;

/// What every commit adds: for live queries (`live::changelog`) the head
/// read (a compare), the head and the new entry written, the oldest kept
/// entry deleted; and the schema generation compared (`catalog`).
const COMMIT_OVERHEAD_OPS: u64 = 5;
use rqc_plan::{Bound, CompiledProgram, Entry, EntryKind, Op};

/// Refuses `program` when one of its mutations is not proved to fit in
/// `limit` operations.
pub(crate) fn check(program: &CompiledProgram, limit: usize) -> Result<()> {
    check_commits(program, limit)
}

/// Refuses `program` when one of its mutations is not proved to fit in a
/// request of `limit.max_bytes` (E0577): its commit carries at most
/// `seeks + rows` operations and the changelog's, each at most two keys and
/// a value of the tables it touches, and the changelog's entry names each
/// key written. A table whose `String` columns are not all length-bounded
/// bounds nothing, and is named with the columns to bound.
pub(crate) fn check_request_bytes(program: &CompiledProgram, limit: RequestLimit) -> Result<()> {
    let mut over = Vec::new();
    let mut unbounded = BTreeSet::new();
    for entry in program
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Mutation)
    {
        let tables = touched(program, entry);
        match request_bytes(entry.bound, &tables, limit.key_overhead) {
            Some(bytes) if bytes > limit.max_bytes => {
                over.push(format!("`{}` (up to {bytes} bytes)", entry.name))
            }
            Some(_) => {}
            None => unbounded.extend(tables.iter().flat_map(|t| {
                TableBytes::unbounded_columns(t).map(move |c| format!("`{}.{}`", t.name, c.name))
            })),
        }
    }
    if !unbounded.is_empty() {
        let columns: Vec<String> = unbounded.into_iter().collect();
        return Err(RuntimeError::new(
            "E0577",
            format!(
                "on etcd every commit must be proved to fit in one request ({} bytes here), and these columns written or read by mutations have no length bound, so their rows' bytes are unbounded: {}; nothing was installed",
                limit.max_bytes,
                columns.join(", ")
            ),
            "declare the most bytes each may hold, such as `name: String <= 200` (every write is then held to it)",
        ));
    }
    if !over.is_empty() {
        return Err(RuntimeError::new(
            "E0577",
            format!(
                "the cluster takes requests of at most {} bytes (its --max-request-bytes when the database was made), and these mutations' commits may be larger: {}; nothing was installed",
                limit.max_bytes,
                over.join(", ")
            ),
            "start every etcd member with a larger --max-request-bytes and make a new database, or lower the mutations' bounds or the columns' length bounds",
        ));
    }
    Ok(())
}

/// Refuses a load into `table` on a store of limited requests unless the
/// commit of one row is proved to fit (E0577), so that halving a batch
/// refused as too large always ends with batches that commit. One row's
/// insert costs what spec/cost.md §7 says: its key check and row, each
/// unique index's check and entry, each plain index's entry, each `ref`'s
/// row and counter, each counter and each aggregate's entry.
pub(crate) fn check_load(
    schema: &rqc_plan::Schema,
    table: &rqc_plan::TableSchema,
    limit: RequestLimit,
) -> Result<()> {
    let (seeks, rows, _) = table.insert_work();
    let bound = Bound {
        seeks,
        rows,
        round_trips: 0,
    };
    let mut tables = vec![table];
    tables.extend(
        table
            .columns
            .iter()
            .filter_map(|c| c.references.as_deref())
            .filter_map(|name| schema.table(name)),
    );
    match request_bytes(bound, &tables, limit.key_overhead) {
        Some(bytes) if bytes <= limit.max_bytes => Ok(()),
        Some(bytes) => Err(RuntimeError::new(
            "E0577",
            format!(
                "the cluster takes requests of at most {} bytes, and one row of `{}` may need {bytes} in its commit; nothing was loaded",
                limit.max_bytes, table.name
            ),
            "start every etcd member with a larger --max-request-bytes and make a new database, or lower the columns' length bounds",
        )),
        None => {
            let columns: Vec<String> = tables
                .iter()
                .flat_map(|t| TableBytes::unbounded_columns(t).map(move |c| format!("`{}.{}`", t.name, c.name)))
                .collect();
            Err(RuntimeError::new(
                "E0577",
                format!(
                    "on etcd every commit must be proved to fit in one request ({} bytes here), and a row of `{}` has no bound on its bytes: {} have no length bound; nothing was loaded",
                    limit.max_bytes,
                    table.name,
                    columns.join(", ")
                ),
                "declare the most bytes each may hold, such as `name: String <= 200` (every write is then held to it)",
            ))
        }
    }
}

/// The tables whose entries a mutation's commit may carry: those its plan
/// reads or writes, and those the rows it writes refer to.
fn touched<'p>(program: &'p CompiledProgram, entry: &Entry) -> Vec<&'p rqc_plan::TableSchema> {
    let mut names = BTreeSet::new();
    entry.root.walk(&mut |node| match &node.op {
        Op::Get { table, .. }
        | Op::GetUnique { table, .. }
        | Op::Scan { table, .. }
        | Op::Insert { table, .. }
        | Op::Update { table, .. }
        | Op::Upsert { table, .. } => {
            names.insert(table.clone());
        }
        // With the tables its cascades write (spec/cost.md §7.3).
        Op::Delete { table, .. } => {
            names.insert(table.clone());
            for t in program.schema.cascade_reach(table) {
                names.insert(program.schema.tables[t].name.clone());
            }
        }
        Op::Aggregate { aggregate, .. } => {
            if let Some(t) = program
                .schema
                .tables
                .iter()
                .find(|t| t.aggregates.iter().any(|a| &a.name == aggregate))
            {
                names.insert(t.name.clone());
            }
        }
        _ => {}
    });
    let referred: Vec<String> = program
        .schema
        .tables
        .iter()
        .filter(|t| names.contains(&t.name))
        .flat_map(|t| t.columns.iter().filter_map(|c| c.references.clone()))
        .collect();
    names.extend(referred);
    program
        .schema
        .tables
        .iter()
        .filter(|t| names.contains(&t.name))
        .collect()
}

/// The most bytes of a commit of a mutation proved to `bound` over entries
/// of `tables`: `None` when a table's entries are unbounded.
fn request_bytes(
    bound: Bound,
    tables: &[&rqc_plan::TableSchema],
    key_overhead: u64,
) -> Option<u64> {
    let (mut key, mut value, mut name) = (0u64, 0u64, LIVE_TREE_NAME);
    for table in tables {
        let bytes = TableBytes::of(table);
        key = key.max(bytes.key?);
        value = value.max(bytes.value?);
        name = name.max(bytes.tree_name);
    }
    let full_key = key_overhead + name + key;
    // A put (key and value) or a compare (a key, or a range's two ends),
    // each with its framing.
    let op = 2 * full_key + value + OP_FRAMING;
    // The changelog's entry: per key written, the key (a span: two) with
    // its length, and its tree's name.
    let logged = 2 * key + name + OP_FRAMING;
    let writes = bound.seeks.saturating_add(bound.rows);
    let ops = writes.saturating_add(COMMIT_OVERHEAD_OPS);
    Some(
        ops.saturating_mul(op)
            .saturating_add(writes.saturating_mul(logged))
            .saturating_add(REQUEST_FRAMING),
    )
}

/// Room for the longest name of rqc's own trees (the changelog's).
const LIVE_TREE_NAME: u64 = 32;
/// The protobuf framing of one operation of a transaction, generously.
const OP_FRAMING: u64 = 64;
/// The request's own envelope.
const REQUEST_FRAMING: u64 = 4096;

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
            let ops = e.bound.seeks.saturating_add(e.bound.rows) + COMMIT_OVERHEAD_OPS;
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
