//! Bulk loading: many rows into one table as one transaction, all or nothing.

use crate::constraints::insert_row;
use crate::engine::Engine;
use crate::error::{Result, RuntimeError};
use rqc_plan::{Schema, TableSchema, Value};

/// Rows to load, each with the line (or position) it came from; a row
/// that could not be read is an error for that row only.
pub type LoadRows = Vec<(usize, std::result::Result<Vec<Value>, RuntimeError>)>;

/// What a load did: rows written, or every refused row with its line.
#[derive(Debug)]
pub struct LoadReport {
    pub written: u64,
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
        // One write transaction, run again whole if its commit conflicts.
        let (report, _) = crate::engine::retrying(|| {
            let mut session = self.write_session()?;
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
            Ok(LoadReport { written, rejected })
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
