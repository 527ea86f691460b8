//! Loading on a store whose commits hold a limited number of operations (etcd): every row checked first, then written in batches.
//!
//! It is not one transaction. The first pass checks every row in a
//! transaction that is never committed, so a refused row refuses the load
//! and nothing is written. The second pass reads the rows again from their
//! source and writes them in transactions within the limit, halving a
//! batch whose commit is refused as too large. An interrupted load leaves
//! the batches written so far; run again, it skips the rows the table
//! holds already, identical. Both passes stream: at most one chunk of rows
//! is in memory (the store's own transaction holds what the check wrote).

use crate::bound::{BoundTable, Tables};
use crate::constraints::insert_row;
use crate::encoding::key::encode_key;
use crate::encoding::row::encode_row;
use crate::engine::Engine;
use crate::error::{ErrorKind, Result};
use crate::load::{LoadReport, LoadRow, RowSource, KEPT_REFUSALS};
use crate::rows::{index_entry, primary_key};
use crate::session::Session;
use crate::store::{ReadTxn, Tree};
use rqc_plan::Value;
use std::collections::VecDeque;

/// Rows checked together: their keys and unique entries are read ahead in
/// one batch (one round trip).
const CHUNK: usize = 256;

impl Engine {
    pub(crate) fn load_in_batches(
        &self,
        bound: &Tables,
        target: &BoundTable,
        source: &mut dyn RowSource,
        progress: &mut dyn FnMut(usize),
        limit: usize,
    ) -> Result<LoadReport> {
        if let Some(request) = self.store().request_limit() {
            crate::commit_limit::check_load(&self.installed()?.schema, &target.schema, request)?;
        }
        let stored = self.store().begin_read()?;
        let (mut report, _) = crate::backoff::retrying(|| {
            let mut session = Session::write(self.store())?.deferring_sums();
            let mut report = LoadReport {
                written: 0,
                skipped: 0,
                rejected: Vec::new(),
                refused: 0,
                read: 0,
            };
            let mut rows = source.rows()?;
            loop {
                let chunk: Vec<LoadRow> = rows.by_ref().take(CHUNK).collect::<Result<_>>()?;
                if chunk.is_empty() {
                    break;
                }
                let readable: Vec<&[Value]> = chunk
                    .iter()
                    .filter_map(|(_, r)| r.as_deref().ok())
                    .collect();
                read_ahead(stored.as_ref(), target, &readable)?;
                read_ahead(session.reads(), target, &readable)?;
                read_ahead_checks(session.reads(), bound, target, &readable)?;
                for (line, row) in chunk {
                    report.read += 1;
                    let checked = row.and_then(|row| {
                        if holds(stored.as_ref(), target, &row)? {
                            return Ok(false);
                        }
                        let generated = crate::constraints::key_left_out(target, &row);
                        insert_row(&mut session, bound, target, row, generated).map(|_| true)
                    });
                    match checked {
                        Ok(true) => {}
                        Ok(false) => report.skipped += 1,
                        Err(error) if error.is_store_failure() => return Err(error),
                        Err(error) => {
                            report.refused += 1;
                            if report.rejected.len() < KEPT_REFUSALS {
                                report.rejected.push((line, error));
                            }
                        }
                    }
                    progress(report.read as usize);
                }
            }
            // What the whole file sums to must fit (rows refused or not).
            if report.refused == 0 {
                session.sums_settled()?;
            }
            // Dropped, not committed: the check writes nothing.
            Ok(report)
        })?;
        drop(stored);
        if report.refused > 0 {
            report.skipped = 0;
            return Ok(report);
        }
        report.written = self.write_in_batches(bound, target, source, limit)?;
        Ok(report)
    }

    /// The second pass: the rows again, written in batches that fit.
    fn write_in_batches(
        &self,
        bound: &Tables,
        target: &BoundTable,
        source: &mut dyn RowSource,
        limit: usize,
    ) -> Result<u64> {
        // A row writes itself, its index entries and counters: start at a
        // batch of rows that likely fits, and halve one that does not.
        let mut batch = (limit / 8).max(1);
        let mut written = 0u64;
        let mut rows = source.rows()?;
        let mut pending: VecDeque<Vec<Value>> = VecDeque::new();
        loop {
            while pending.len() < batch {
                let Some(row) = rows.next() else { break };
                // A row the check passed fails now only if the source
                // changed in between: the load stops with its error.
                pending.push_back(row?.1?);
            }
            if pending.is_empty() {
                return Ok(written);
            }
            let take = batch.min(pending.len());
            let outcome = crate::backoff::retrying(|| {
                let mut session = self.write_session()?.deferring_sums();
                let rows: Vec<&[Value]> = pending.iter().take(take).map(Vec::as_slice).collect();
                read_ahead(session.reads(), target, &rows)?;
                read_ahead_checks(session.reads(), bound, target, &rows)?;
                let mut wrote = 0;
                for row in pending.iter().take(take) {
                    if holds(session.reads(), target, row)? {
                        continue;
                    }
                    let generated = crate::constraints::key_left_out(target, row);
                    insert_row(&mut session, bound, target, row.clone(), generated)?;
                    wrote += 1;
                }
                session.commit()?;
                Ok(wrote)
            });
            match outcome {
                Ok((wrote, _)) => {
                    written += wrote;
                    pending.drain(..take);
                }
                Err(error) if error.kind() == ErrorKind::RequestLimit && batch > 1 => {
                    batch /= 2;
                }
                Err(error) => return Err(error),
            }
        }
    }
}

/// Reads the keys the rows' checks read first — their keys, their
/// unique index entries — in batches (one round trip per batch on a
/// remote store, which keeps what it read for the checks that follow).
fn read_ahead(reads: &dyn ReadTxn, target: &BoundTable, rows: &[&[Value]]) -> Result<()> {
    let table = &target.schema;
    // A row that does not encode is left out: its own check refuses it.
    let keyed: Vec<(&[Value], Vec<u8>)> = rows
        .iter()
        .filter_map(|row| primary_key(table, row).ok().map(|p| (*row, p)))
        .collect();
    let keys: Vec<&[u8]> = keyed.iter().map(|(_, p)| p.as_slice()).collect();
    reads.get_many(target.rows, &keys)?;
    for (index, &tree) in table.indexes.iter().zip(&target.indexes) {
        if !index.unique {
            continue;
        }
        let entries: Vec<Vec<u8>> = keyed
            .iter()
            .filter_map(|(row, primary)| index_entry(index, row, primary).ok())
            .collect();
        let keys: Vec<&[u8]> = entries.iter().map(Vec::as_slice).collect();
        reads.get_many(tree, &keys)?;
    }
    Ok(())
}

/// What inserting each of `rows` reads besides its key and unique entries
/// (references, their counts, bound counters:
/// [`entries_read`]), read ahead in one batch per tree.
fn read_ahead_checks(
    reads: &dyn ReadTxn,
    bound: &Tables,
    target: &BoundTable,
    rows: &[&[Value]],
) -> Result<()> {
    let table = &target.schema;
    let mut by_tree: std::collections::BTreeMap<Tree, Vec<Vec<u8>>> = Default::default();
    for row in rows {
        if let Ok(row) = crate::row_types::conform_row(table, row.to_vec()) {
            for (tree, key) in entries_read(bound, target, &row) {
                by_tree.entry(tree).or_default().push(key);
            }
        }
    }
    for (tree, keys) in &by_tree {
        let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        reads.get_many(*tree, &keys)?;
    }
    Ok(())
}

/// Whether the table holds `row` already, identical: the same values as
/// stored (`1` for a `Float` is `1.0`, `-0.0` is `0.0`). A row that does
/// not fit its table is not held (the insert after refuses it).
fn holds(reads: &dyn ReadTxn, target: &BoundTable, row: &[Value]) -> Result<bool> {
    let Ok(row) = crate::row_types::conform_row(&target.schema, row.to_vec()) else {
        return Ok(false);
    };
    let primary = primary_key(&target.schema, &row)?;
    Ok(reads.get(target.rows, &primary)?.as_deref() == Some(encode_row(&row)?.as_slice()))
}

/// The entries an insert of `row` (conformed) into `t` reads besides its
/// own key and unique index entries: each referenced row and its
/// reference count (`constraints::reference_exists`, `add_references`),
/// each bound's group counter (`constraints::next_count`) and each aggregate's group
/// (`aggregates::on_insert`): what [`read_ahead_checks`] reads for a chunk
/// of rows at once, so that on etcd a row costs no round trip of its own.
/// Kept in step with those checks: a key missed here is read by the check
/// itself, one round trip, never a wrong answer.
fn entries_read(bound: &Tables, t: &BoundTable, row: &[Value]) -> Vec<(Tree, Vec<u8>)> {
    let mut entries = Vec::new();
    for (column, target) in t.references.iter().enumerate() {
        let (Some(target), false) = (target, row[column] == Value::Null) else {
            continue;
        };
        if let Ok(key) = encode_key(std::slice::from_ref(&row[column]), &[]) {
            let target = &bound.tables[*target];
            entries.push((target.rows, key.clone()));
            entries.push((target.refcount, key));
        }
    }
    for (i, schema) in t.schema.bounds.iter().enumerate() {
        if crate::constraints::in_no_group(schema, row) {
            continue;
        }
        if let Ok((key, _)) = crate::constraints::group_key(schema, row) {
            entries.push((t.bounds[i], key));
        }
    }
    for (aggregate, &tree) in t.schema.aggregates.iter().zip(&t.aggregates) {
        if let Ok(key) = crate::aggregates::group_key(aggregate, row) {
            entries.push((tree, key));
        }
    }
    entries
}
