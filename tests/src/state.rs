//! A database's state as plain data, for comparing it with the reference
//! evaluator's, and the integrity check: every index and counter equals
//! what its table's rows imply.

use crate::reference::Reference;
use rqc_plan::{compare, Schema, TableSchema, Value};
use rqc_runtime::encoding::key::encode_key;
use rqc_runtime::encoding::row::{decode_row, encode_row};
use rqc_runtime::rows::{
    bound_tree, index_entry, primary_key, record, refcount_tree, small_tree, table_tree,
};
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
/// bound, small-table and reference counter equals the count of its rows.
/// Returns what differs first. Reads one committed state.
pub fn check_integrity(store: &dyn Store, schema: &Schema) -> Result<(), String> {
    let txn = store.begin_read().map_err(|e| e.to_string())?;
    let txn = txn.as_ref();
    let mut counters: BTreeMap<String, BTreeMap<Vec<u8>, u64>> = BTreeMap::new();
    for table in &schema.tables {
        let rows = entries(store, txn, &table_tree(&table.name));
        let mut indexes: Vec<Entries> = vec![Entries::new(); table.indexes.len()];
        for (key, bytes) in &rows {
            let row = decode_row(bytes, table.columns.len()).map_err(|e| e.to_string())?;
            let primary = primary_key(table, &row).map_err(|e| e.to_string())?;
            if &primary != key || encode_row(&row).map_err(|e| e.to_string())? != *bytes {
                return Err(format!(
                    "`{}`: a row is stored under another key",
                    table.name
                ));
            }
            for (index, expected) in table.indexes.iter().zip(&mut indexes) {
                let entry = index_entry(index, &row, &primary).map_err(|e| e.to_string())?;
                expected.insert(entry, bytes.clone());
            }
            count_row(table, &row, &mut counters)?;
        }
        for (index, expected) in table.indexes.iter().zip(indexes) {
            let tree = rqc_runtime::rows::index_tree(&table.name, &index.name);
            let actual = entries(store, txn, &tree);
            if actual != expected {
                return Err(format!(
                    "index `{}.{}` has {} entries where its table implies {} (or other ones)",
                    table.name,
                    index.name,
                    actual.len(),
                    expected.len()
                ));
            }
        }
    }
    // Every counter tree the schema has, including the ones no row counts.
    for table in &schema.tables {
        for i in 0..table.bounds.len() {
            counters.entry(bound_tree(&table.name, i)).or_default();
        }
        if table.small_max.is_some() {
            counters.entry(small_tree(&table.name)).or_default();
        }
        counters.entry(refcount_tree(&table.name)).or_default();
    }
    for (tree, expected) in counters {
        let actual: BTreeMap<Vec<u8>, u64> = entries(store, txn, &tree)
            .into_iter()
            .map(|(k, v)| {
                let bytes: [u8; 8] = v.as_slice().try_into().unwrap_or_default();
                (k, u64::from_be_bytes(bytes))
            })
            .collect();
        if actual != expected {
            return Err(format!(
                "counters `{tree}` are {actual:?} where the rows imply {expected:?}"
            ));
        }
    }
    Ok(())
}

/// Adds one row to the counters its table keeps: per bound group, the
/// small table's size, and per referenced row.
fn count_row(
    table: &TableSchema,
    row: &[Value],
    counters: &mut BTreeMap<String, BTreeMap<Vec<u8>, u64>>,
) -> Result<(), String> {
    let mut add = |tree: String, key: Vec<u8>| {
        *counters.entry(tree).or_default().entry(key).or_default() += 1;
    };
    for (i, bound) in table.bounds.iter().enumerate() {
        let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
        add(
            bound_tree(&table.name, i),
            encode_key(&values, &[]).map_err(|e| e.to_string())?,
        );
    }
    if table.small_max.is_some() {
        add(small_tree(&table.name), Vec::new());
    }
    for (column, spec) in table.columns.iter().enumerate() {
        if let (Some(target), false) = (spec.references.as_deref(), row[column] == Value::Null) {
            let key =
                encode_key(std::slice::from_ref(&row[column]), &[]).map_err(|e| e.to_string())?;
            add(refcount_tree(target), key);
        }
    }
    Ok(())
}
