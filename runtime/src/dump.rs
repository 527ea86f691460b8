//! `dump`: every row that is still readable, table by table, past damage; what could not be read is listed.

use crate::encoding::row::decode_row;
use crate::error::Result;
use crate::rows::{record, table_tree};
use crate::store::Store;
use rqc_plan::{Schema, Value};

/// What `dump` read.
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

/// Reads every table of `schema` in one read transaction (one committed
/// state), keeping each row that passes its checksum and decodes.
pub fn dump(store: &dyn Store, schema: &Schema) -> Result<Dump> {
    let txn = store.begin_read()?;
    let mut dump = Dump::default();
    for table in &schema.tables {
        let tree = table_tree(&table.name);
        let mut rows = Vec::new();
        match txn.range_salvaging(store.tree(&tree), &[], None, false, usize::MAX) {
            Ok(entries) => {
                for (_, value) in entries {
                    match value.and_then(|bytes| decode_row(&bytes, table.columns.len())) {
                        Ok(row) => rows.push(record(table, row)),
                        Err(error) => dump
                            .problems
                            .push(format!("`{}`: {}", table.name, error.message)),
                    }
                }
            }
            Err(error) => dump.problems.push(format!(
                "`{}`: no row could be read: {}",
                table.name, error.message
            )),
        }
        dump.tables.push((table.name.clone(), rows));
        if table.auto {
            let tree = store.tree(&crate::rows::auto_tree(&table.name));
            match txn.get(tree, b"") {
                Ok(value) => {
                    let counter = value
                        .and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
                        .map_or(0, u64::from_be_bytes);
                    dump.key_counters.push((table.name.clone(), counter));
                }
                Err(error) => dump.problems.push(format!(
                    "`{}`: its generated key counter could not be read: {}",
                    table.name, error.message
                )),
            }
        }
    }
    Ok(dump)
}
