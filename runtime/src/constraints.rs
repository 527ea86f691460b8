//! Writes with every declared constraint checked: key, unique, ref, bound, small max.
//!
//! Each function reads and writes through the run's [`Session`], inside the
//! mutation's write transaction, so its checks see the run's earlier writes
//! and nothing is stored unless the whole mutation commits. An update or a
//! delete names its row by key and acts on the row as it is at that point
//! (a row already deleted is skipped), so every counter changes by what
//! the write actually changed. The seeks and rows counted here are the
//! ones spec/cost.md charges for each write.

use crate::encoding::key::encode_key;
use crate::encoding::row::{decode_row, encode_row};
use crate::error::{Result, RuntimeError};
use crate::rows::*;
use crate::session::Session;
use rqc_plan::{ColumnType, Schema, TableSchema, Value};

pub fn insert_row(session: &mut Session<'_>, table: &TableSchema, row: Vec<Value>) -> Result<()> {
    check_types(table, &row)?;
    let primary = primary_key(table, &row)?;
    let encoded = encode_row(&row)?;
    // Every check first, so a refused row leaves nothing in the session.
    if session.get(&table_tree(&table.name), &primary)?.is_some() {
        let key: Vec<Value> = table.key.iter().map(|&c| row[c].clone()).collect();
        return Err(RuntimeError::new(
            "E0501",
            format!("`{}` already has a row with key {}", table.name, show(&key)),
            "keys are unique: update the existing row, or insert with another key",
        ));
    }
    let mut entries = Vec::with_capacity(table.indexes.len());
    for index in &table.indexes {
        let entry = index_entry(index, &row, &primary)?;
        let tree = index_tree(&table.name, &index.name);
        if index.unique && session.get(&tree, &entry)?.is_some() {
            return Err(unique_taken(table, index, &row));
        }
        entries.push((tree, entry));
    }
    for (column, spec) in table.columns.iter().enumerate() {
        if let Some(target) = spec.references.as_deref() {
            if row[column] != Value::Null {
                reference_exists(session, table, column, target, &row[column])?;
            }
        }
    }
    let mut counters = Vec::new();
    for (i, bound) in table.bounds.iter().enumerate() {
        counters.push(next_count(session, table, i, bound, &row)?);
    }
    if let Some(small) = next_small(session, table)? {
        counters.push(small);
    }
    // Then every write.
    for (tree, entry) in entries {
        session.count_seek();
        session.put(&tree, &entry, &encoded)?;
    }
    add_references(session, table, &row, 1)?;
    for (tree, key, count) in counters {
        session.set_counter(&tree, &key, count)?;
    }
    session.put(&table_tree(&table.name), &primary, &encoded)
}

/// The counter of the row's group under `bound` after adding the row,
/// refused past the limit.
fn next_count(
    session: &mut Session<'_>,
    table: &TableSchema,
    i: usize,
    bound: &rqc_plan::schema::BoundSchema,
    row: &[Value],
) -> Result<(String, Vec<u8>, u64)> {
    let (tree, key, values) = group_key(table, i, bound, row)?;
    let count = session.get_counter(&tree, &key)?;
    if count + 1 > bound.limit {
        return Err(bound_refused(table, bound, &values, count));
    }
    Ok((tree, key, count + 1))
}

fn next_small(
    session: &mut Session<'_>,
    table: &TableSchema,
) -> Result<Option<(String, Vec<u8>, u64)>> {
    let Some(max) = table.small_max else {
        return Ok(None);
    };
    let tree = small_tree(&table.name);
    let count = session.get_counter(&tree, b"")?;
    if count + 1 > max {
        return Err(RuntimeError::new(
            "E0505",
            format!(
                "`{}` is a small table of at most {max} rows, and it is full",
                table.name
            ),
            "delete a row first, or raise `max` in the schema",
        ));
    }
    Ok(Some((tree, Vec::new(), count + 1)))
}

/// The row stored under `primary` now, and its encoding: one seek, and one
/// row when found.
fn live_row(
    session: &mut Session<'_>,
    table: &TableSchema,
    primary: &[u8],
) -> Result<Option<(Vec<Value>, Vec<u8>)>> {
    match session.get(&table_tree(&table.name), primary)? {
        Some(bytes) => Ok(Some((decode_row(&bytes, table.columns.len())?, bytes))),
        None => Ok(None),
    }
}

/// Deletes the row stored under `primary`; whether there was one (a row
/// listed twice, or deleted earlier in the mutation, is gone: nothing to do).
pub fn delete_row(
    session: &mut Session<'_>,
    schema: &Schema,
    table: &TableSchema,
    primary: &[u8],
) -> Result<bool> {
    let Some((row, _)) = live_row(session, table, primary)? else {
        return Ok(false);
    };
    if schema.is_referenced(&table.name) {
        let count = session.get_counter(&refcount_tree(&table.name), primary)?;
        if count > 0 {
            let key: Vec<Value> = table.key.iter().map(|&c| row[c].clone()).collect();
            return Err(RuntimeError::new(
                "E0506",
                format!(
                    "`{}` {} is referenced by {count} row{} and cannot be deleted",
                    table.name,
                    show(&key),
                    if count == 1 { "" } else { "s" }
                ),
                "delete the rows that reference it first (a reference must always name an existing row)",
            ));
        }
    }
    for index in &table.indexes {
        session.count_seek();
        session.delete(
            &index_tree(&table.name, &index.name),
            &index_entry(index, &row, primary)?,
        )?;
    }
    add_references(session, table, &row, -1)?;
    for (i, bound) in table.bounds.iter().enumerate() {
        move_counter(session, table, i, bound, &row, -1)?;
    }
    shrink_small(session, table)?;
    session.delete(&table_tree(&table.name), primary)?;
    Ok(true)
}

/// Changes `changes` (column, value) of the row stored under `primary`, as
/// it is now; whether that changed it (a row that is gone, or already has
/// those values, is left alone: nothing is written).
pub fn update_row(
    session: &mut Session<'_>,
    table: &TableSchema,
    primary: &[u8],
    changes: &[(usize, Value)],
) -> Result<bool> {
    let Some((old, stored)) = live_row(session, table, primary)? else {
        return Ok(false);
    };
    let mut new = old.clone();
    for (column, value) in changes {
        new[*column] = value.clone();
    }
    check_types(table, &new)?;
    let encoded = encode_row(&new)?;
    if encoded == stored {
        return Ok(false);
    }
    let changed: Vec<usize> = changes
        .iter()
        .map(|(c, _)| *c)
        .filter(|&c| old[c] != new[c])
        .collect();
    for index in &table.indexes {
        let tree = index_tree(&table.name, &index.name);
        let old_entry = index_entry(index, &old, primary)?;
        let new_entry = index_entry(index, &new, primary)?;
        if old_entry != new_entry {
            if index.unique && session.get(&tree, &new_entry)?.is_some() {
                return Err(unique_taken(table, index, &new));
            }
            session.count_seek();
            session.delete(&tree, &old_entry)?;
        }
        // The entry holds a copy of the row: rewritten even where its key
        // stays.
        session.count_seek();
        session.put(&tree, &new_entry, &encoded)?;
    }
    for &column in &changed {
        let Some(target) = table.columns[column].references.as_deref() else {
            continue;
        };
        if new[column] != Value::Null {
            reference_exists(session, table, column, target, &new[column])?;
            bump(session, &refcount_tree(target), &new[column], 1)?;
        }
        if old[column] != Value::Null {
            bump(session, &refcount_tree(target), &old[column], -1)?;
        }
    }
    for (i, bound) in table.bounds.iter().enumerate() {
        if bound.columns.iter().any(|c| changed.contains(c)) {
            move_counter(session, table, i, bound, &old, -1)?;
            move_counter(session, table, i, bound, &new, 1)?;
        }
    }
    session.put(&table_tree(&table.name), primary, &encoded)?;
    Ok(true)
}

fn add_references(
    session: &mut Session<'_>,
    table: &TableSchema,
    row: &[Value],
    delta: i64,
) -> Result<()> {
    for (column, spec) in table.columns.iter().enumerate() {
        let Some(target) = spec.references.as_deref() else {
            continue;
        };
        if row[column] == Value::Null {
            continue;
        }
        bump(session, &refcount_tree(target), &row[column], delta)?;
    }
    Ok(())
}

fn reference_exists(
    session: &mut Session<'_>,
    table: &TableSchema,
    column: usize,
    target: &str,
    value: &Value,
) -> Result<()> {
    let key = encode_key(std::slice::from_ref(value), &[])?;
    if session.get(&table_tree(target), &key)?.is_none() {
        return Err(RuntimeError::new(
            "E0503",
            format!(
                "`{}.{}` refers to `{target}` {value}, which does not exist",
                table.name, table.columns[column].name
            ),
            format!("insert the `{target}` row first"),
        ));
    }
    Ok(())
}

fn bump(session: &mut Session<'_>, tree: &str, value: &Value, delta: i64) -> Result<()> {
    let key = encode_key(std::slice::from_ref(value), &[])?;
    let count = session.get_counter(tree, &key)?;
    session.set_counter(tree, &key, count.saturating_add_signed(delta))
}

/// Adds `delta` to the counter of the row's group under `bound`, refusing
/// to go past the limit.
fn move_counter(
    session: &mut Session<'_>,
    table: &TableSchema,
    i: usize,
    bound: &rqc_plan::schema::BoundSchema,
    row: &[Value],
    delta: i64,
) -> Result<()> {
    let (tree, key, count) = if delta > 0 {
        next_count(session, table, i, bound, row)?
    } else {
        let (tree, key, _) = group_key(table, i, bound, row)?;
        let count = session.get_counter(&tree, &key)?;
        (tree, key, count.saturating_add_signed(delta))
    };
    session.set_counter(&tree, &key, count)
}

/// The counter tree and key of the row's group under `bound`, and the
/// group's values.
fn group_key(
    table: &TableSchema,
    i: usize,
    bound: &rqc_plan::schema::BoundSchema,
    row: &[Value],
) -> Result<(String, Vec<u8>, Vec<Value>)> {
    let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
    let key = encode_key(&values, &[])?;
    Ok((bound_tree(&table.name, i), key, values))
}

/// E0504: the row would be the `limit + 1`-th of its group.
fn bound_refused(
    table: &TableSchema,
    bound: &rqc_plan::schema::BoundSchema,
    values: &[Value],
    count: u64,
) -> RuntimeError {
    let names: Vec<&str> = bound
        .columns
        .iter()
        .map(|&c| table.columns[c].name.as_str())
        .collect();
    RuntimeError::new(
        "E0504",
        format!(
            "`{}` allows at most {} rows per {} (`bound {} <= {}`), and {} has {}",
            table.name,
            bound.limit,
            names.join(", "),
            names.join(", "),
            bound.limit,
            show(values),
            count
        ),
        "delete a row of this group first, or raise the bound in the schema",
    )
}

/// One row fewer in a small table (a delete: never refused).
fn shrink_small(session: &mut Session<'_>, table: &TableSchema) -> Result<()> {
    if table.small_max.is_some() {
        let tree = small_tree(&table.name);
        let count = session.get_counter(&tree, b"")?;
        session.set_counter(&tree, b"", count.saturating_sub(1))?;
    }
    Ok(())
}

fn unique_taken(table: &TableSchema, index: &rqc_plan::IndexSchema, row: &[Value]) -> RuntimeError {
    let values: Vec<Value> = index.columns.iter().map(|&c| row[c].clone()).collect();
    RuntimeError::new(
        "E0502",
        format!(
            "`{}.{}` is unique, and {} is taken",
            table.name,
            index.name,
            show(&values)
        ),
        "choose another value, or update the row that holds it",
    )
}

fn show(values: &[Value]) -> String {
    let parts: Vec<String> = values.iter().map(Value::to_string).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// Rows that come from outside the compiler (loaded files, the library)
/// are checked against the schema.
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
