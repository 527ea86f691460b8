//! Where a table's rows and index entries live, and how they are keyed.

use crate::encoding::key::encode_key;
use crate::encoding::row::decode_columns;
use crate::error::{Result, RuntimeError};
use rqc_plan::{IndexSchema, TableSchema, Value};

/// The catalog's tree (`catalog.rs`): the format, the installed schema and
/// program, and the generation below.
pub(crate) const CATALOG: &str = "__catalog";

/// The schema's generation, in the catalog: bumped by every install that
/// changes the schema. Every commit of a mutation expects the generation
/// its engine installed or opened (`WriteTxn::expect`), so a process
/// holding an older schema cannot write past rules it does not know
/// (E0550).
pub const GENERATION_KEY: &[u8] = b"generation";

/// The tree of aggregate `name` over `table`.
pub fn aggregate_tree(table: &str, name: &str) -> String {
    format!("a:{table}:{name}")
}

const TABLE_TREE_PREFIX: &str = "t:";

pub fn table_tree(table: &str) -> String {
    format!("{TABLE_TREE_PREFIX}{table}")
}

/// Whether `tree` holds a table's rows (not an index or a counter).
pub fn is_table_tree(tree: &str) -> bool {
    tree.starts_with(TABLE_TREE_PREFIX)
}

pub fn index_tree(table: &str, index: &str) -> String {
    format!("i:{table}:{index}")
}

pub fn bound_tree(table: &str, bound: usize) -> String {
    format!("b:{table}:{bound}")
}

pub fn small_tree(table: &str) -> String {
    format!("b:{table}:small")
}

/// A `key auto` table's counter: the largest key it generated or was
/// given, which never goes back (spec/storage.md).
pub fn auto_tree(table: &str) -> String {
    format!("b:{table}:auto")
}

/// The counter after a key given by the insert: past it when it is larger.
pub fn auto_counter_past(counter: u64, key: &Value) -> u64 {
    match key {
        Value::Int(k) if *k > 0 => counter.max(*k as u64),
        _ => counter,
    }
}

/// How many rows reference each row of `table` (so a referenced row is
/// never deleted).
pub fn refcount_tree(table: &str) -> String {
    format!("r:{table}")
}

pub fn primary_key(table: &TableSchema, row: &[Value]) -> Result<Vec<u8>> {
    let key: Vec<Value> = table.key.iter().map(|&c| row[c].clone()).collect();
    encode_key(&key, &[])
}

/// A unique index's entry is its columns; a plain index's is its columns
/// then the primary key (so equal values stay distinct). Both hold a copy
/// of the row, so a scan of an index reads rows without a second seek.
/// A unique index's entry whose values include `none` is kept like a plain
/// one's: `none` equals no other value, so any number of rows may hold it
/// (and a lookup of `none` finds none of them, as `none` matches nothing).
pub fn index_entry(index: &IndexSchema, row: &[Value], primary: &[u8]) -> Result<Vec<u8>> {
    let values: Vec<Value> = index.columns.iter().map(|&c| row[c].clone()).collect();
    let mut entry = encode_key(&values, &index.descending)?;
    if !index.unique || values.contains(&Value::Null) {
        entry.extend_from_slice(primary);
    }
    Ok(entry)
}

pub fn record(table: &TableSchema, values: Vec<Value>) -> Value {
    Value::Record(
        table
            .columns
            .iter()
            .zip(values)
            .map(|(c, v)| (c.name.clone(), v))
            .collect(),
    )
}

/// A stored row as a record of its table's columns (their names shared,
/// not copied).
pub fn decode_record(table: &crate::bound::BoundTable, bytes: &[u8]) -> Result<Value> {
    decode_projected(table, bytes, None)
}

/// [`decode_record`] of only the columns `wanted` marks, where a plan uses
/// no other (`bound::Access::columns`); every other reads as none.
pub fn decode_projected(
    table: &crate::bound::BoundTable,
    bytes: &[u8],
    wanted: Option<&[bool]>,
) -> Result<Value> {
    let values = decode_columns(bytes, table.schema.columns.len(), wanted)?;
    Ok(Value::Record(rqc_plan::Record::with_names(
        table.columns.clone(),
        values,
    )))
}

/// The primary key of a row record: its key columns, encoded. A write names
/// its row by this key and acts on the row stored under it. The columns
/// are read by position: the verifier proved the row one of `table`'s,
/// which holds its columns in the schema's order.
pub fn record_key(table: &TableSchema, row: &Value) -> Result<Vec<u8>> {
    let key = table
        .key
        .iter()
        .map(|&c| {
            let name = &table.columns[c].name;
            let column = match row {
                Value::Record(record) => record.at(c),
                _ => None,
            };
            column.cloned().ok_or_else(|| {
                RuntimeError::new(
                    "E0594",
                    format!("a `{}` row lacks `{name}`", table.name),
                    "this is a bug in rqc; please report it with the program",
                )
            })
        })
        .collect::<Result<Vec<Value>>>()?;
    encode_key(&key, &[])
}
