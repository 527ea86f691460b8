//! Bulk loading: many rows into one table as one transaction, all or nothing — or, on a store with a commit limit (etcd), checked whole and written in batches.

use crate::bound::{BoundTable, Tables};
use crate::constraints::insert_row;
use crate::encoding::row::encode_row;
use crate::engine::Engine;
use crate::error::{Result, RuntimeError};
use crate::rows::{index_entry, primary_key};
use crate::session::Session;
use crate::store::ReadTxn;
use rqc_plan::{Schema, TableSchema, Value};

/// Rows to load, each with the line (or position) it came from; a row
/// that could not be read is an error for that row only.
pub type LoadRows = Vec<(usize, std::result::Result<Vec<Value>, RuntimeError>)>;

/// What a load did: rows written, or every refused row with its line.
#[derive(Debug)]
pub struct LoadReport {
    pub written: u64,
    /// Rows left out because the table holds them already, identical
    /// (a load run again on a store that writes in batches).
    pub skipped: u64,
    /// `(line, why)`; when not empty, nothing was written.
    pub rejected: Vec<(usize, RuntimeError)>,
}

impl Engine {
    /// Inserts `rows` (each with the line it came from) into `table`, every
    /// constraint checked against the database and the rows before it. The
    /// rows commit together, or — if any is refused — none do, and every
    /// refused row is reported. `progress` is called as rows are checked.
    pub fn load(
        &self,
        table: &str,
        rows: LoadRows,
        progress: &mut dyn FnMut(usize),
    ) -> Result<LoadReport> {
        let program = self.installed()?;
        let schema = table_to_load(&program.schema, table)?;
        let bound = self.bound()?;
        let target = bound
            .table(&schema.name)
            .expect("every table of the schema is bound");
        if let Some(limit) = self.store().max_txn_ops() {
            return self.load_in_batches(bound, target, rows, progress, limit);
        }
        // One write transaction, run again whole if its commit conflicts.
        let (report, _) = crate::engine::retrying(|| {
            let mut session = Session::write(self.store())?;
            let mut rejected = Vec::new();
            let mut written = 0;
            for (done, (line, row)) in rows.iter().enumerate() {
                match row
                    .clone()
                    .and_then(|row| insert_row(&mut session, bound, target, row))
                {
                    Ok(()) => written += 1,
                    // The store failing is no fault of the row: stop.
                    Err(error) if error.is_store_failure() => return Err(error),
                    Err(error) => rejected.push((*line, error)),
                }
                progress(done + 1);
            }
            if rejected.is_empty() {
                session.commit()?;
            } else {
                written = 0;
            }
            Ok(LoadReport {
                written,
                skipped: 0,
                rejected,
            })
        })?;
        Ok(report)
    }
}

impl Engine {
    /// A load on a store whose commits hold at most `limit` operations:
    /// every row is checked first, in one transaction that is not committed
    /// (a refused row refuses the load, and nothing is written); then the
    /// rows are written in transactions within the limit, a batch halved
    /// when its commit is refused as too large. It is not one transaction:
    /// an interrupted load leaves the batches written so far, and run
    /// again, it skips the rows the table holds already, identical.
    fn load_in_batches(
        &self,
        bound: &Tables,
        target: &BoundTable,
        rows: LoadRows,
        progress: &mut dyn FnMut(usize),
        limit: usize,
    ) -> Result<LoadReport> {
        let stored = self.store().begin_read()?;
        let readable: Vec<&[Value]> = rows.iter().filter_map(|(_, r)| r.as_deref().ok()).collect();
        read_ahead(stored.as_ref(), target, &readable)?;
        let mut fresh = Vec::with_capacity(rows.len());
        let mut rejected = Vec::new();
        crate::engine::retrying(|| {
            let mut session = Session::write(self.store())?;
            read_ahead(session.reads(), target, &readable)?;
            fresh.clear();
            rejected.clear();
            for (done, (line, row)) in rows.iter().enumerate() {
                let checked = row.clone().and_then(|row| {
                    if holds(stored.as_ref(), target, &row)? {
                        return Ok(None);
                    }
                    insert_row(&mut session, bound, target, row.clone()).map(|()| Some(row))
                });
                match checked {
                    Ok(Some(row)) => fresh.push(row),
                    Ok(None) => {}
                    Err(error) if error.is_store_failure() => return Err(error),
                    Err(error) => rejected.push((*line, error)),
                }
                progress(done + 1);
            }
            // Dropped, not committed: the check writes nothing.
            Ok(())
        })?;
        drop(stored);
        let skipped = (rows.len() - fresh.len() - rejected.len()) as u64;
        if !rejected.is_empty() {
            return Ok(LoadReport {
                written: 0,
                skipped: 0,
                rejected: std::mem::take(&mut rejected),
            });
        }
        // A row writes itself, its index entries and counters: start at a
        // batch of rows that likely fits, and halve one that does not.
        let mut batch = (limit / 8).max(1);
        let mut written = 0u64;
        let mut at = 0;
        while at < fresh.len() {
            let end = (at + batch).min(fresh.len());
            let outcome = crate::engine::retrying(|| {
                let mut session = Session::write(self.store())?;
                let batch: Vec<&[Value]> = fresh[at..end].iter().map(Vec::as_slice).collect();
                read_ahead(session.reads(), target, &batch)?;
                let mut wrote = 0;
                for row in &fresh[at..end] {
                    if holds(session.reads(), target, row)? {
                        continue;
                    }
                    insert_row(&mut session, bound, target, row.clone())?;
                    wrote += 1;
                }
                session.commit()?;
                Ok(wrote)
            });
            match outcome {
                Ok((wrote, _)) => {
                    written += wrote;
                    at = end;
                }
                Err(error) if (error.code == "E0564" || error.code == "E0565") && batch > 1 => {
                    batch /= 2;
                }
                Err(error) => return Err(error),
            }
        }
        Ok(LoadReport {
            written,
            skipped,
            rejected: Vec::new(),
        })
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

/// Whether the table holds `row` already, identical.
fn holds(reads: &dyn ReadTxn, target: &BoundTable, row: &[Value]) -> Result<bool> {
    let primary = primary_key(&target.schema, row)?;
    Ok(reads.get(target.rows, &primary)?.as_deref() == Some(encode_row(row)?.as_slice()))
}

/// The table rows are loaded into (E0524, naming the tables, when the
/// program has none of that name).
pub fn table_to_load<'s>(schema: &'s Schema, table: &str) -> Result<&'s TableSchema> {
    schema.table(table).ok_or_else(|| {
        let names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
        RuntimeError::new(
            "E0524",
            format!("the program has no table `{table}`"),
            format!("the tables are: {}", names.join(", ")),
        )
    })
}
