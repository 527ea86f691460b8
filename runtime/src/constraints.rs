//! Writes with every declared constraint checked (key, unique, ref, bound, small max) and every aggregate kept.
//!
//! Each function reads and writes through the run's [`Session`], inside the
//! mutation's write transaction, so its checks see the run's earlier writes
//! and nothing is stored unless the whole mutation commits. An update or a
//! delete names its row by key and acts on the row as it is at that point
//! (a row already deleted is skipped), so every counter changes by what
//! the write actually changed. The seeks and rows counted here are the
//! ones spec/cost.md charges for each write.

use crate::bound::{BoundTable, Tables};
use crate::encoding::key::encode_key;
use crate::encoding::row::{decode_row, encode_row};
use crate::error::{Result, RuntimeError};
use crate::row_types::conform_row;
use crate::rows::*;
use crate::session::Session;
use crate::store::Tree;
use rqc_plan::{TableSchema, Value};

/// Inserts `row`; with `generated`, its key is left out (its place holds
/// none) and is the `key auto` table's next key (the caller makes sure
/// the table is one). For a `key auto` table,
/// returns the row's key.
pub fn insert_row(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    mut row: Vec<Value>,
    generated: bool,
) -> Result<Option<i64>> {
    let counter = next_key(session, t, &mut row, generated)?;
    let key = counter.map(|_| row[t.schema.key[0]].clone());
    insert_checked(session, bound, t, row)?;
    if let (Some((tree, value)), Some(Value::Int(key))) = (counter, key) {
        session.set_counter(tree, b"", value)?;
        return Ok(Some(key));
    }
    Ok(None)
}

/// A `key auto` table's key for `row` (one seek, one row: the counter):
/// generated, the counter plus one written into the row; given, the
/// counter moved past it when it is larger. The counter's value after the
/// insert, written only once the row's checks pass; `None` for a table
/// without `key auto`.
fn next_key(
    session: &mut Session<'_>,
    t: &BoundTable,
    row: &mut [Value],
    generated: bool,
) -> Result<Option<(Tree, u64)>> {
    // A generated key outside a `key auto` table: the caller refused it.
    let Some(tree) = t.auto else {
        return Ok(None);
    };
    let key = t.schema.key[0];
    let counter = session.get_counter(tree, b"")?;
    if generated {
        let next = i64::try_from(counter)
            .ok()
            .and_then(|c| c.checked_add(1))
            .ok_or_else(|| used_up(&t.schema))?;
        row[key] = Value::Int(next);
        return Ok(Some((tree, next as u64)));
    }
    Ok(Some((tree, auto_counter_past(counter, &row[key]))))
}

/// Whether a loaded row leaves out a `key auto` table's key (its place
/// holds none, which an `Int` key never is): the load generates it.
pub fn key_left_out(t: &BoundTable, row: &[Value]) -> bool {
    t.auto.is_some() && row.get(t.schema.key[0]) == Some(&Value::Null)
}

/// E0660: the counter is at the largest `Int`.
fn used_up(table: &TableSchema) -> RuntimeError {
    RuntimeError::new(
        "E0660",
        format!(
            "`{}` has given out every generated key: its counter is at {} (the largest `Int`)",
            table.name,
            i64::MAX
        ),
        "keys are never reused: give the key in the insert (a smaller unused one), or move the rows to a new table",
    )
}

/// Inserts `row` after its key check, which refuses a key already taken.
fn insert_checked(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    row: Vec<Value>,
) -> Result<()> {
    let table = &t.schema;
    let row = conform_row(table, row)?;
    let primary = primary_key(table, &row)?;
    // Every check first, so a refused row leaves nothing in the session.
    if session.get(t.rows, &primary)?.is_some() {
        let key: Vec<Value> = table.key.iter().map(|&c| row[c].clone()).collect();
        return Err(RuntimeError::new(
            "E0501",
            format!("`{}` already has a row with key {}", table.name, show(&key)),
            "keys are unique: update the existing row, or insert with another key",
        ));
    }
    insert_absent(session, bound, t, row, &primary)
}

/// Inserts `row`, conformed to its types, under `primary`, which a read
/// just found free: every other check, then every write.
fn insert_absent(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    row: Vec<Value>,
    primary: &[u8],
) -> Result<()> {
    let table = &t.schema;
    let encoded = encode_row(&row)?;
    let mut entries = Vec::with_capacity(table.indexes.len());
    for (index, &tree) in table.indexes.iter().zip(&t.indexes) {
        let entry = index_entry(index, &row, primary)?;
        if index.unique && session.get(tree, &entry)?.is_some() {
            return Err(unique_taken(table, index, &row));
        }
        entries.push((tree, entry));
    }
    for (column, target) in t.references.iter().enumerate() {
        if let Some(target) = target {
            if row[column] != Value::Null {
                reference_exists(session, t, column, &bound.tables[*target], &row[column])?;
            }
        }
    }
    let mut counters = Vec::new();
    for i in 0..table.bounds.len() {
        counters.extend(next_count(session, t, i, &row)?);
    }
    if let Some(small) = next_small(session, t)? {
        counters.push(small);
    }
    let aggregates = crate::aggregates::on_insert(session, t, &row)?;
    // Then every write.
    for (tree, entry) in entries {
        session.count_seek();
        session.put(tree, &entry, &encoded)?;
    }
    add_references(session, bound, t, &row, 1)?;
    for (tree, key, count) in counters {
        session.set_counter(tree, &key, count)?;
    }
    crate::aggregates::apply(session, aggregates)?;
    session.put_row(t.rows, primary, &encoded)
}

/// The counter of the row's group under `bound` after adding the row,
/// refused past the limit.
/// `None` for a row in no group: `none` is no group of any bound
/// (spec/types.md), so a row whose bound columns hold it is not counted.
fn next_count(
    session: &mut Session<'_>,
    t: &BoundTable,
    i: usize,
    row: &[Value],
) -> Result<Option<(Tree, Vec<u8>, u64)>> {
    let bound = &t.schema.bounds[i];
    if in_no_group(bound, row) {
        return Ok(None);
    }
    let (key, values) = group_key(bound, row)?;
    let count = session.get_counter(t.bounds[i], &key)?;
    if count + 1 > bound.limit {
        return Err(bound_refused(&t.schema, bound, &values, count));
    }
    Ok(Some((t.bounds[i], key, count + 1)))
}

/// Whether `row` holds `none` in a column of `bound`: it is then in no
/// group of the bound (`none` equals no value, so no access reads such a
/// group, and nothing counts it).
pub fn in_no_group(bound: &rqc_plan::schema::BoundSchema, row: &[Value]) -> bool {
    bound.columns.iter().any(|&c| row[c] == Value::Null)
}

fn next_small(session: &mut Session<'_>, t: &BoundTable) -> Result<Option<(Tree, Vec<u8>, u64)>> {
    let (Some(max), Some(tree)) = (t.schema.small_max, t.small) else {
        return Ok(None);
    };
    let table = &t.schema;
    let count = session.get_counter(tree, b"")?;
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

/// The row stored under `primary` now: one seek, and one row when found.
pub fn live_row(
    session: &mut Session<'_>,
    t: &BoundTable,
    primary: &[u8],
) -> Result<Option<Vec<Value>>> {
    match session.get(t.rows, primary)? {
        Some(bytes) => Ok(Some(decode_row(&bytes, t.schema.columns.len())?)),
        None => Ok(None),
    }
}

/// Deletes the row stored under `primary`; whether there was one (a row
/// listed twice, or deleted earlier in the mutation, is gone: nothing to do).
pub fn delete_row(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    primary: &[u8],
) -> Result<bool> {
    let table = &t.schema;
    let Some(mut row) = live_row(session, t, primary)? else {
        return Ok(false);
    };
    // The rows that reference it with `on delete` first: deleted, or set
    // to `none` (spec/cost.md §7.3); its counter then counts only the
    // references that refuse the delete.
    if !t.cascades.is_empty() && crate::cascade::run(session, bound, t, &row)? {
        // A `set none` may have changed the row itself: read it as it is.
        match live_row(session, t, primary)? {
            Some(now) => row = now,
            None => return Ok(true),
        }
    }
    if t.referenced {
        let count = session.get_counter(t.refcount, primary)?;
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
                "delete the rows that reference it first (a reference must always name an existing row), or declare `on delete cascade` on their column over an island (`bound column <= n`)",
            ));
        }
    }
    for (index, &tree) in table.indexes.iter().zip(&t.indexes) {
        session.count_seek();
        session.delete(tree, &index_entry(index, &row, primary)?)?;
    }
    add_references(session, bound, t, &row, -1)?;
    for i in 0..table.bounds.len() {
        move_counter(session, t, i, &row, -1)?;
    }
    shrink_small(session, t)?;
    session.delete_row(t.rows, primary)?;
    // After the row and its index entries are gone: a `min`/`max` whose
    // extreme it held finds the next one among the rows left.
    crate::aggregates::on_delete(session, t, &row)?;
    Ok(true)
}

/// Changes `changes` (column, value) of the row stored under `primary`, as
/// it is now; whether that changed it (a row that is gone, or already has
/// those values, is left alone: nothing is written).
pub fn update_row(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    primary: &[u8],
    changes: &[(usize, Value)],
) -> Result<bool> {
    let Some(old) = live_row(session, t, primary)? else {
        return Ok(false);
    };
    rewrite_row(session, bound, t, primary, old, changes)
}

/// Upserts `row` (every column: the ones named, the others' defaults):
/// the row stored under its key, read once, gets the columns `named`
/// (an update's checks and upkeep); without one, `row` is inserted (an
/// insert's, that read its key check). Whether that changed anything.
pub fn upsert_row(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    row: Vec<Value>,
    named: &[usize],
) -> Result<bool> {
    let row = conform_row(&t.schema, row)?;
    let primary = primary_key(&t.schema, &row)?;
    match live_row(session, t, &primary)? {
        Some(old) => {
            let changes: Vec<(usize, Value)> = named
                .iter()
                .filter(|c| !t.schema.key.contains(c))
                .map(|&c| (c, row[c].clone()))
                .collect();
            rewrite_row(session, bound, t, &primary, old, &changes)
        }
        None => {
            // The insert path moves a `key auto` table's counter past the
            // key it names, as an insert that gives its key does.
            let counter = match t.auto {
                Some(tree) => Some((tree, session.get_counter(tree, b"")?)),
                None => None,
            };
            let key = row[t.schema.key[0]].clone();
            insert_absent(session, bound, t, row, &primary)?;
            if let Some((tree, counter)) = counter {
                session.set_counter(tree, b"", auto_counter_past(counter, &key))?;
            }
            Ok(true)
        }
    }
}

/// Changes `changes` of `old`, the row stored under `primary` as a read
/// just found it; whether that changed it.
pub fn rewrite_row(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    primary: &[u8],
    old: Vec<Value>,
    changes: &[(usize, Value)],
) -> Result<bool> {
    let table = &t.schema;
    let mut new = old.clone();
    for (column, value) in changes {
        new[*column] = value.clone();
    }
    let new = conform_row(table, new)?;
    // "Changed" means what the key encoding sees: a float by its canonical
    // bits (`0.0` to `-0.0` is no change, and moves no counter, since it
    // moves no index entry either; spec/types.md, "Value identity").
    if new == old {
        return Ok(false);
    }
    let encoded = encode_row(&new)?;
    let changed: Vec<usize> = changes
        .iter()
        .map(|(c, _)| *c)
        .filter(|&c| old[c] != new[c])
        .collect();
    for (index, &tree) in table.indexes.iter().zip(&t.indexes) {
        let old_entry = index_entry(index, &old, primary)?;
        let new_entry = index_entry(index, &new, primary)?;
        if old_entry != new_entry {
            if index.unique && session.get(tree, &new_entry)?.is_some() {
                return Err(unique_taken(table, index, &new));
            }
            session.count_seek();
            session.delete(tree, &old_entry)?;
        }
        // The entry holds a copy of the row: rewritten even where its key
        // stays.
        session.count_seek();
        session.put(tree, &new_entry, &encoded)?;
    }
    for &column in &changed {
        let Some(target) = t.references[column] else {
            continue;
        };
        let target = &bound.tables[target];
        if new[column] != Value::Null {
            reference_exists(session, t, column, target, &new[column])?;
            bump(session, target.refcount, &new[column], 1)?;
        }
        if old[column] != Value::Null {
            bump(session, target.refcount, &old[column], -1)?;
        }
    }
    for (i, b) in table.bounds.iter().enumerate() {
        if b.columns.iter().any(|c| changed.contains(c)) {
            move_counter(session, t, i, &old, -1)?;
            move_counter(session, t, i, &new, 1)?;
        }
    }
    session.put_row(t.rows, primary, &encoded)?;
    // After the row and its index entries hold the new values (see delete).
    crate::aggregates::on_update(session, t, &old, &new, &changed)?;
    Ok(true)
}

fn add_references(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    row: &[Value],
    delta: i64,
) -> Result<()> {
    for (column, target) in t.references.iter().enumerate() {
        let Some(target) = target else {
            continue;
        };
        if row[column] == Value::Null {
            continue;
        }
        bump(session, bound.tables[*target].refcount, &row[column], delta)?;
    }
    Ok(())
}

fn reference_exists(
    session: &mut Session<'_>,
    t: &BoundTable,
    column: usize,
    target: &BoundTable,
    value: &Value,
) -> Result<()> {
    let key = encode_key(std::slice::from_ref(value), &[])?;
    if session.get(target.rows, &key)?.is_none() {
        let target = &target.schema.name;
        return Err(RuntimeError::new(
            "E0503",
            format!(
                "`{}.{}` refers to `{target}` {value}, which does not exist",
                t.schema.name, t.schema.columns[column].name
            ),
            format!("insert the `{target}` row first"),
        ));
    }
    Ok(())
}

fn bump(session: &mut Session<'_>, tree: Tree, value: &Value, delta: i64) -> Result<()> {
    let key = encode_key(std::slice::from_ref(value), &[])?;
    let count = session.get_counter(tree, &key)?;
    session.set_counter(tree, &key, count.saturating_add_signed(delta))
}

/// Adds `delta` to the counter of the row's group under bound `i`,
/// refusing to go past the limit.
fn move_counter(
    session: &mut Session<'_>,
    t: &BoundTable,
    i: usize,
    row: &[Value],
    delta: i64,
) -> Result<()> {
    if in_no_group(&t.schema.bounds[i], row) {
        return Ok(());
    }
    let (tree, key, count) = if delta > 0 {
        match next_count(session, t, i, row)? {
            Some(next) => next,
            None => return Ok(()),
        }
    } else {
        let (key, _) = group_key(&t.schema.bounds[i], row)?;
        let count = session.get_counter(t.bounds[i], &key)?;
        (t.bounds[i], key, count.saturating_add_signed(delta))
    };
    session.set_counter(tree, &key, count)
}

/// The counter key of the row's group under `bound`, and the group's values.
pub(crate) fn group_key(
    bound: &rqc_plan::schema::BoundSchema,
    row: &[Value],
) -> Result<(Vec<u8>, Vec<Value>)> {
    let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
    let key = encode_key(&values, &[])?;
    Ok((key, values))
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
fn shrink_small(session: &mut Session<'_>, t: &BoundTable) -> Result<()> {
    if let Some(tree) = t.small {
        let count = session.get_counter(tree, b"")?;
        session.set_counter(tree, b"", count.saturating_sub(1))?;
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
