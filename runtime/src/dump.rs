//! `dump`: every row that is still readable, table by table, past damage, handed on a chunk at a time; what could not be read is listed.

use crate::encoding::row::decode_row;
use crate::error::Result;
use crate::rows::{record, table_tree};
use crate::store::{Salvaging, Store, SALVAGE_CHUNK};
use rqc_plan::{Schema, Value};

/// What `dump` read, whole (see [`dump_each`] for a dump whose memory does
/// not grow with the tables).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dump {
    /// By table, in the schema's order: its readable rows as records, in
    /// key order.
    pub tables: Vec<(String, Vec<Value>)>,
    /// Each `key auto` table's counter (the largest key it generated or
    /// was given), which `restore` carries: a key is never reused.
    pub key_counters: Vec<(String, u64)>,
    /// Every entry or tree that could not be read, one line each.
    pub problems: Vec<String>,
}

/// One thing a dump reads, in order: each table, then its rows, then its
/// counter when it has one; problems where they are met.
#[derive(Clone, Debug, PartialEq)]
pub enum Dumped<'a> {
    /// The rows that follow are this table's.
    Table(&'a str),
    /// A readable row of the last table, as a record, in key order.
    Row(Value),
    /// A `key auto` table's counter.
    KeyCounter(&'a str, u64),
    /// An entry or tree that could not be read.
    Problem(String),
}

/// Reads every table of `schema` in one read transaction (one committed
/// state), handing `each` every row that passes its checksum and decodes,
/// a chunk of [`SALVAGE_CHUNK`] entries read at a time: what a dump holds
/// does not grow with the tables. An error of `each` stops it.
pub fn dump_each(
    store: &dyn Store,
    schema: &Schema,
    each: &mut dyn FnMut(Dumped<'_>) -> Result<()>,
) -> Result<()> {
    let txn = store.begin_read()?;
    for table in &schema.tables {
        each(Dumped::Table(&table.name))?;
        let tree = store.tree(&table_tree(&table.name));
        let mut from = Salvaging::default();
        while !from.done() {
            let chunk = match txn.salvage(tree, &mut from, SALVAGE_CHUNK) {
                Ok(chunk) => chunk,
                Err(error) => {
                    each(Dumped::Problem(format!(
                        "`{}`: no more rows could be read: {}",
                        table.name, error.message
                    )))?;
                    break;
                }
            };
            for (_, value) in chunk {
                match value.and_then(|bytes| decode_row(&bytes, table.columns.len())) {
                    Ok(row) => each(Dumped::Row(record(table, row)))?,
                    Err(error) => each(Dumped::Problem(format!(
                        "`{}`: {}",
                        table.name, error.message
                    )))?,
                }
            }
        }
        if table.auto {
            let tree = store.tree(&crate::rows::auto_tree(&table.name));
            match txn.get(tree, b"") {
                Ok(value) => {
                    let counter = value
                        .and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
                        .map_or(0, u64::from_be_bytes);
                    each(Dumped::KeyCounter(&table.name, counter))?;
                }
                Err(error) => each(Dumped::Problem(format!(
                    "`{}`: its generated key counter could not be read: {}",
                    table.name, error.message
                )))?,
            }
        }
    }
    Ok(())
}

/// Reads every table of `schema` whole ([`dump_each`], kept).
pub fn dump(store: &dyn Store, schema: &Schema) -> Result<Dump> {
    let mut dump = Dump::default();
    dump_each(store, schema, &mut |dumped| {
        match dumped {
            Dumped::Table(name) => dump.tables.push((name.to_string(), Vec::new())),
            Dumped::Row(row) => {
                if let Some((_, rows)) = dump.tables.last_mut() {
                    rows.push(row);
                }
            }
            Dumped::KeyCounter(name, counter) => {
                dump.key_counters.push((name.to_string(), counter))
            }
            Dumped::Problem(problem) => dump.problems.push(problem),
        }
        Ok(())
    })?;
    Ok(dump)
}
