//! Bulk loading: many rows into one table as one transaction, all or nothing — or, on a store with a commit limit (etcd), checked whole and written in batches.

use crate::constraints::insert_row;
use crate::engine::Engine;
use crate::error::{Result, RuntimeError};
use rqc_plan::{Schema, TableSchema, Value};

/// A row to load, with the line (or position) it came from; a row that
/// could not be read is an error for that row only.
pub type LoadRow = (usize, std::result::Result<Vec<Value>, RuntimeError>);

/// Rows to load, all in memory.
pub type LoadRows = Vec<LoadRow>;

/// Where a load's rows come from: read from the start each time the load
/// runs (a load whose commit conflicts runs again), one row at a time, so a
/// file of any size loads in bounded memory.
pub trait RowSource {
    /// The rows, in order. An `Err` item means the source itself could not
    /// be read (not a bad row): the load stops with it and writes nothing.
    fn rows(&mut self) -> Result<Box<dyn Iterator<Item = Result<LoadRow>> + '_>>;
}

impl RowSource for LoadRows {
    fn rows(&mut self) -> Result<Box<dyn Iterator<Item = Result<LoadRow>> + '_>> {
        Ok(Box::new(self.iter().cloned().map(Ok)))
    }
}

/// At most this many refused rows are kept with their reasons; the rest
/// are counted, so a file of bad rows cannot fill the memory.
pub const KEPT_REFUSALS: usize = 1000;

/// What a load did: rows written, or the refused rows with their lines.
#[derive(Debug)]
pub struct LoadReport {
    /// Rows written.
    pub written: u64,
    /// Rows left out because the table holds them already, identical
    /// (a load run again on a store that writes in batches).
    pub skipped: u64,
    /// `(line, why)` of the first [`KEPT_REFUSALS`] refused rows; when not
    /// empty, nothing was written.
    pub rejected: Vec<(usize, RuntimeError)>,
    /// How many rows were refused in all.
    pub refused: u64,
    /// How many rows the source gave.
    pub read: u64,
}

impl Engine {
    /// Inserts `rows` (each with the line it came from) into `table`, every
    /// constraint checked against the database and the rows before it. The
    /// rows commit together, or — if any is refused — none do, and every
    /// refused row is counted (the first [`KEPT_REFUSALS`] reported).
    /// `progress` is called as rows are checked.
    pub fn load(
        &self,
        table: &str,
        source: &mut dyn RowSource,
        progress: &mut dyn FnMut(usize),
    ) -> Result<LoadReport> {
        let program = self.installed()?;
        let schema = table_to_load(&program.schema, table)?;
        let bound = self.bound()?;
        let target = bound
            .table(&schema.name)
            .expect("every table of the schema is bound");
        if let Some(limit) = self.store().max_txn_ops() {
            return self.load_in_batches(bound, target, source, progress, limit);
        }
        // One write transaction, run again whole if its commit conflicts.
        let (report, _) = crate::backoff::retrying(|| {
            let mut session = self.load_session()?.without_row_keys().deferring_sums();
            let mut rejected = Vec::new();
            let (mut written, mut refused, mut read) = (0, 0, 0);
            for (done, row) in source.rows()?.enumerate() {
                let (line, row) = row?;
                read += 1;
                let inserted = row.and_then(|row| {
                    let generated = crate::constraints::key_left_out(target, &row);
                    insert_row(&mut session, bound, target, row, generated)
                });
                match inserted {
                    Ok(_) => written += 1,
                    // The store failing is no fault of the row: stop.
                    Err(error) if error.is_store_failure() => return Err(error),
                    Err(error) => {
                        refused += 1;
                        if rejected.len() < KEPT_REFUSALS {
                            rejected.push((line, error));
                        }
                    }
                }
                progress(done + 1);
            }
            if refused == 0 {
                session.commit()?;
            } else {
                written = 0;
            }
            Ok(LoadReport {
                written,
                skipped: 0,
                rejected,
                refused,
                read,
            })
        })?;
        Ok(report)
    }
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
