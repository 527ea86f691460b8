//! A database's state as plain data, for comparing it with the reference
//! evaluator's, and the integrity check: every index and counter equals
//! what its table's rows imply.

use crate::reference::Reference;
use rqc_plan::{compare, Schema, Value};
use rqc_runtime::encoding::row::decode_row;
use rqc_runtime::rows::{record, table_tree};
use rqc_runtime::store::{ReadTxn, Store};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Every table's rows as records, in key order.
pub type Tables = Vec<(String, Vec<Value>)>;

type Entries = BTreeMap<Vec<u8>, Vec<u8>>;

/// Every entry of the tree called `tree`.
fn entries(store: &dyn Store, txn: &dyn ReadTxn, tree: &str) -> Entries {
    txn.range(store.tree(tree), &[], None, false, usize::MAX)
        .unwrap_or_else(|e| panic!("reading {tree}: {e}"))
        .into_iter()
        .collect()
}

/// Every table's rows as the store holds them, in key order (one read
/// transaction: one committed state).
pub fn store_tables(store: &dyn Store, schema: &Schema) -> Tables {
    let txn = store.begin_read().expect("a read transaction");
    schema
        .tables
        .iter()
        .map(|table| {
            let rows = entries(store, txn.as_ref(), &table_tree(&table.name))
                .values()
                .map(|bytes| record(table, decode_row(bytes, table.columns.len()).unwrap()))
                .collect();
            (table.name.clone(), rows)
        })
        .collect()
}

/// The reference evaluator's tables, in key order like [`store_tables`].
pub fn reference_tables(reference: &Reference<'_>, schema: &Schema) -> Tables {
    schema
        .tables
        .iter()
        .map(|table| {
            let mut rows = reference
                .tables
                .get(&table.name)
                .cloned()
                .unwrap_or_default();
            rows.sort_by(|a, b| {
                table
                    .key
                    .iter()
                    .map(|&c| {
                        let name = &table.columns[c].name;
                        compare(a.field(name).unwrap(), b.field(name).unwrap())
                    })
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
            });
            (table.name.clone(), rows)
        })
        .collect()
}

/// Checks that every table's key is the encoding of its row's key columns,
/// every index holds exactly one entry per row (with the row), and every
/// bound, small-table and reference counter equals the count of its rows:
/// the runtime's `verify`. Returns what differs. Reads one committed state.
pub fn check_integrity(store: &dyn Store, schema: &Schema) -> Result<(), String> {
    let found = rqc_runtime::verify::verify(store, schema).map_err(|e| e.to_string())?;
    if found.is_sound() {
        Ok(())
    } else {
        Err(found.problems.join("; "))
    }
}
