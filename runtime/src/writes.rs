//! Writes with every declared constraint checked in the same atomic transaction.

use crate::catalog::{bound_tree, index_tree, small_tree, table_tree};
use crate::encoding::key::encode_key;
use crate::encoding::row::encode_row;
use crate::error::{Result, RuntimeError};
use crate::store::{Abort, Store};
use rqc_plan::{ColumnType, TableSchema, Value};
use std::cell::Cell;

/// Inserts one row, refusing it (and writing nothing) if it would break the
/// key, a `unique` index, a `ref`, a `bound` or `small … max`. Returns the
/// number of point reads the checks made.
pub fn insert_row(store: &dyn Store, table: &TableSchema, row: Vec<Value>) -> Result<u64> {
    check_types(table, &row)?;
    let key_values: Vec<Value> = table.key.iter().map(|&i| row[i].clone()).collect();
    let key = encode_key(&key_values, &[])?;
    let encoded = encode_row(&row)?;

    // Trees: the table, its indexes, its bound counters, then referenced tables.
    let mut trees = vec![table_tree(&table.name)];
    let index_base = trees.len();
    trees.extend(
        table
            .indexes
            .iter()
            .map(|i| index_tree(&table.name, &i.name)),
    );
    let bound_base = trees.len();
    trees.extend((0..table.bounds.len()).map(|b| bound_tree(&table.name, b)));
    let small_slot = trees.len();
    trees.push(small_tree(&table.name));
    let refs: Vec<(usize, &str)> = table
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.references.as_deref().map(|r| (i, r)))
        .filter(|(i, _)| row[*i] != Value::Null)
        .collect();
    let ref_base = trees.len();
    trees.extend(refs.iter().map(|(_, target)| table_tree(target)));

    let mut index_entries = Vec::new();
    for index in &table.indexes {
        let values: Vec<Value> = index.columns.iter().map(|&c| row[c].clone()).collect();
        let mut entry = encode_key(&values, &index.descending)?;
        if !index.unique {
            entry.extend_from_slice(&key);
        }
        index_entries.push(entry);
    }
    let mut counter_keys = Vec::new();
    for bound in &table.bounds {
        let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
        counter_keys.push(encode_key(&values, &[])?);
    }
    let mut ref_keys = Vec::new();
    for (column, _) in &refs {
        ref_keys.push(encode_key(std::slice::from_ref(&row[*column]), &[])?);
    }

    let reads = Cell::new(0u64);
    store.transact(&trees, &|txn| {
        let mut count = 0;
        count += 1;
        if txn.get(0, &key)?.is_some() {
            return Err(Abort::Refused(RuntimeError::new(
                "E0501",
                format!(
                    "`{}` already has a row with key {}",
                    table.name,
                    show(&key_values)
                ),
                "keys are unique: update the existing row, or insert with another key",
            )));
        }
        for (i, index) in table.indexes.iter().enumerate() {
            if index.unique {
                count += 1;
                if txn.get(index_base + i, &index_entries[i])?.is_some() {
                    let values: Vec<Value> =
                        index.columns.iter().map(|&c| row[c].clone()).collect();
                    return Err(Abort::Refused(RuntimeError::new(
                        "E0502",
                        format!(
                            "`{}.{}` is unique, and {} is taken",
                            table.name,
                            index.name,
                            show(&values)
                        ),
                        "choose another value, or update the row that holds it",
                    )));
                }
            }
        }
        for (i, (column, target)) in refs.iter().enumerate() {
            count += 1;
            if txn.get(ref_base + i, &ref_keys[i])?.is_none() {
                return Err(Abort::Refused(RuntimeError::new(
                    "E0503",
                    format!(
                        "`{}.{}` refers to `{target}` {}, which does not exist",
                        table.name, table.columns[*column].name, row[*column]
                    ),
                    format!("insert the `{target}` row first"),
                )));
            }
        }
        for (i, bound) in table.bounds.iter().enumerate() {
            count += 1;
            let current = read_counter(txn.get(bound_base + i, &counter_keys[i])?)?;
            if current + 1 > bound.limit {
                let names: Vec<&str> = bound
                    .columns
                    .iter()
                    .map(|&c| table.columns[c].name.as_str())
                    .collect();
                let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
                return Err(Abort::Refused(RuntimeError::new(
                    "E0504",
                    format!(
                        "`{}` allows at most {} rows per {} (`bound {} <= {}`), and {} has {}",
                        table.name,
                        bound.limit,
                        names.join(", "),
                        names.join(", "),
                        bound.limit,
                        show(&values),
                        current
                    ),
                    "delete a row of this group first, or raise the bound in the schema",
                )));
            }
            txn.put(
                bound_base + i,
                &counter_keys[i],
                &(current + 1).to_be_bytes(),
            )?;
        }
        if let Some(max) = table.small_max {
            count += 1;
            let current = read_counter(txn.get(small_slot, b"")?)?;
            if current + 1 > max {
                return Err(Abort::Refused(RuntimeError::new(
                    "E0505",
                    format!(
                        "`{}` is a small table of at most {max} rows, and it is full",
                        table.name
                    ),
                    "delete a row first, or raise `max` in the schema",
                )));
            }
            txn.put(small_slot, b"", &(current + 1).to_be_bytes())?;
        }
        txn.put(0, &key, &encoded)?;
        for (i, entry) in index_entries.iter().enumerate() {
            txn.put(index_base + i, entry, &key)?;
        }
        reads.set(count);
        Ok(())
    })?;
    Ok(reads.get())
}

fn read_counter(bytes: Option<Vec<u8>>) -> std::result::Result<u64, Abort> {
    match bytes {
        None => Ok(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes.as_slice())
            .map(u64::from_be_bytes)
            .map_err(|_| Abort::Refused(RuntimeError::corrupt("bound counter"))),
    }
}

fn show(values: &[Value]) -> String {
    let parts: Vec<String> = values.iter().map(Value::to_string).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// The compiler checked types statically; this guards rows that come from
/// elsewhere (loaded files, the library) against the schema.
pub fn check_types(table: &TableSchema, row: &[Value]) -> Result<()> {
    if row.len() != table.columns.len() {
        return Err(RuntimeError::new(
            "E0520",
            format!(
                "a `{}` row has {} columns, not {}",
                table.name,
                table.columns.len(),
                row.len()
            ),
            "give one value per column",
        ));
    }
    for (column, value) in table.columns.iter().zip(row) {
        if !fits(&column.ty, value) {
            return Err(RuntimeError::new(
                "E0520",
                format!(
                    "`{}.{}` is `{}`, but the value is {value}",
                    table.name,
                    column.name,
                    column.ty.name()
                ),
                format!("give a `{}` value", column.ty.name()),
            ));
        }
    }
    Ok(())
}

pub fn fits(ty: &ColumnType, value: &Value) -> bool {
    matches!(
        (ty, value),
        (ColumnType::Int, Value::Int(_))
            | (ColumnType::Float, Value::Float(_))
            | (ColumnType::String, Value::Str(_))
            | (ColumnType::Bool, Value::Bool(_))
            | (ColumnType::Optional(_), Value::Null)
    ) || matches!(ty, ColumnType::Optional(inner) if fits(inner, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, SledStore};
    use rqc_plan::schema::BoundSchema;
    use rqc_plan::Column;

    /// `small table Slot max 2 { group: Int, id: Int, key (group, id), bound group <= 3 }`
    fn slots() -> TableSchema {
        let int = |name: &str| Column {
            name: name.into(),
            ty: ColumnType::Int,
            references: None,
        };
        TableSchema {
            name: "Slot".into(),
            columns: vec![int("group"), int("id")],
            key: vec![0, 1],
            indexes: vec![],
            bounds: vec![BoundSchema {
                columns: vec![0],
                limit: 3,
            }],
            small_max: Some(2),
        }
    }

    fn counter(store: &dyn Store, group: i64) -> Option<Vec<u8>> {
        let key = encode_key(&[Value::Int(group)], &[]).unwrap();
        store.get(&bound_tree("Slot", 0), &key).unwrap()
    }

    fn refused_write_leaves_nothing(store: &dyn Store) {
        let table = slots();
        insert_row(store, &table, vec![Value::Int(1), Value::Int(1)]).unwrap();
        insert_row(store, &table, vec![Value::Int(1), Value::Int(2)]).unwrap();
        // The third row passes the key check and the bound (and its counter
        // is written), then the small-table maximum refuses it.
        let error = insert_row(store, &table, vec![Value::Int(1), Value::Int(3)]).unwrap_err();
        assert_eq!(error.code, "E0505");
        assert_eq!(
            counter(store, 1),
            Some(2u64.to_be_bytes().to_vec()),
            "counter rolled back"
        );
        let key = encode_key(&[Value::Int(1), Value::Int(3)], &[]).unwrap();
        assert_eq!(store.get(&table_tree("Slot"), &key).unwrap(), None);
    }

    #[test]
    fn a_refused_insert_writes_nothing_in_memory() {
        refused_write_leaves_nothing(&MemoryStore::new());
    }

    #[test]
    fn a_refused_insert_writes_nothing_in_sled() {
        let dir = tempfile::tempdir().unwrap();
        refused_write_leaves_nothing(&SledStore::open(dir.path(), true).unwrap());
    }

    #[test]
    fn the_bound_refuses_the_row_past_its_limit() {
        let store = MemoryStore::new();
        let mut table = slots();
        table.small_max = None;
        for id in 0..3 {
            insert_row(&store, &table, vec![Value::Int(7), Value::Int(id)]).unwrap();
        }
        let error = insert_row(&store, &table, vec![Value::Int(7), Value::Int(3)]).unwrap_err();
        assert_eq!(error.code, "E0504");
        assert!(
            error.message.contains("at most 3 rows per group"),
            "{}",
            error.message
        );
        assert!(error.message.contains("7 has 3"), "{}", error.message);
        // Another group has its own counter.
        insert_row(&store, &table, vec![Value::Int(8), Value::Int(0)]).unwrap();
    }
}
