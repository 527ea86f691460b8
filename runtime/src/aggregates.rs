//! Maintained aggregates: their upkeep on every write, their read, and their recount (backfill and verify).
//!
//! An aggregate's tree (`a:T:name`) holds, per group (the encoded values of
//! its `by` columns), the group's count or sum as a one-value row. A group
//! whose value is 0 has no entry, so a read that finds none reads 0, a
//! recount never writes zeros, and an emptied group leaves nothing behind.
//! Each write moves each entry by what it actually changed, inside the
//! mutation's transaction, so the entry always equals a recount of the
//! committed rows (spec/cost.md §7.1, Invariant W).

use crate::bound::BoundTable;
use crate::encoding::key::encode_key;
use crate::encoding::row::{decode_row, encode_row};
use crate::error::{Result, RuntimeError};
use crate::session::Session;
use crate::store::Tree;
use rqc_plan::{AggregateKind, AggregateSchema, TableSchema, Value};
use std::collections::BTreeMap;

/// The tree of aggregate `name` over `table`.
pub fn aggregate_tree(table: &str, name: &str) -> String {
    format!("a:{table}:{name}")
}

/// An entry to write once every check of a write has passed.
pub struct Pending {
    tree: Tree,
    key: Vec<u8>,
    value: i64,
}

/// What one row adds to its group's value: 1 for a count, the column's
/// value for a sum (`none` adds nothing).
fn contribution(aggregate: &AggregateSchema, row: &[Value]) -> Result<i64> {
    match (aggregate.kind, aggregate.column) {
        (AggregateKind::Count, _) => Ok(1),
        (AggregateKind::Sum, Some(column)) => match &row[column] {
            Value::Int(n) => Ok(*n),
            Value::Null => Ok(0),
            other => Err(crate::interp::internal(&format!(
                "a sum over a value that is not an Int: {other}"
            ))),
        },
        _ => Err(crate::interp::internal(
            "an aggregate this runtime does not maintain",
        )),
    }
}

/// The group key of `row` under `aggregate`.
pub fn group_key(aggregate: &AggregateSchema, row: &[Value]) -> Result<Vec<u8>> {
    let values: Vec<Value> = aggregate.by.iter().map(|&c| row[c].clone()).collect();
    encode_key(&values, &[])
}

/// A stored value; no entry is 0.
fn decode_value(bytes: Option<Vec<u8>>) -> Result<i64> {
    let Some(bytes) = bytes else {
        return Ok(0);
    };
    match decode_row(&bytes, 1)?.as_slice() {
        [Value::Int(n)] => Ok(*n),
        _ => Err(RuntimeError::corrupt("an aggregate's value")),
    }
}

/// Reads the group's value for a query: one seek, and one row when found.
pub fn read(session: &mut Session<'_>, tree: Tree, key: &[u8]) -> Result<Value> {
    Ok(Value::Int(decode_value(session.get(tree, key)?)?))
}

/// The value of the row's group after adding `sign` times its
/// contribution: one seek and one row (counted found or not, as a
/// counter's read-modify-write is). E0526 when a sum would overflow.
fn moved(
    session: &mut Session<'_>,
    t: &BoundTable,
    i: usize,
    row: &[Value],
    sign: i64,
) -> Result<Pending> {
    let aggregate = &t.schema.aggregates[i];
    let tree = t.aggregates[i];
    let key = group_key(aggregate, row)?;
    let found = session.get(tree, &key)?;
    if found.is_none() {
        session.count_row();
    }
    let current = decode_value(found)?;
    let delta = contribution(aggregate, row)?;
    let value = delta
        .checked_mul(sign)
        .and_then(|d| current.checked_add(d))
        .ok_or_else(|| overflow(&t.schema, aggregate, row, current))?;
    Ok(Pending { tree, key, value })
}

fn write(session: &mut Session<'_>, pending: Pending) -> Result<()> {
    if pending.value == 0 {
        session.delete(pending.tree, &pending.key)
    } else {
        session.put(
            pending.tree,
            &pending.key,
            &encode_row(&[Value::Int(pending.value)])?,
        )
    }
}

/// The entries an insert of `row` will write, read now (every check before
/// any write, so a refused row leaves nothing in the session).
pub fn on_insert(session: &mut Session<'_>, t: &BoundTable, row: &[Value]) -> Result<Vec<Pending>> {
    (0..t.aggregates.len())
        .map(|i| moved(session, t, i, row, 1))
        .collect()
}

/// Writes what [`on_insert`] read.
pub fn apply(session: &mut Session<'_>, pending: Vec<Pending>) -> Result<()> {
    for entry in pending {
        write(session, entry)?;
    }
    Ok(())
}

/// A deleted row leaves its group of every aggregate.
pub fn on_delete(session: &mut Session<'_>, t: &BoundTable, row: &[Value]) -> Result<()> {
    for i in 0..t.aggregates.len() {
        let pending = moved(session, t, i, row, -1)?;
        write(session, pending)?;
    }
    Ok(())
}

/// An updated row leaves its old group and joins its new one, for every
/// aggregate the change touches (a `by` column, or the column read); the
/// two reads see each other's write when the group stays.
pub fn on_update(
    session: &mut Session<'_>,
    t: &BoundTable,
    old: &[Value],
    new: &[Value],
    changed: &[usize],
) -> Result<()> {
    for (i, aggregate) in t.schema.aggregates.iter().enumerate() {
        let touched = aggregate.by.iter().any(|c| changed.contains(c))
            || aggregate.column.is_some_and(|c| changed.contains(&c));
        if !touched {
            continue;
        }
        let pending = moved(session, t, i, old, -1)?;
        write(session, pending)?;
        let pending = moved(session, t, i, new, 1)?;
        write(session, pending)?;
    }
    Ok(())
}

fn overflow(
    table: &TableSchema,
    aggregate: &AggregateSchema,
    row: &[Value],
    current: i64,
) -> RuntimeError {
    let group: Vec<String> = aggregate.by.iter().map(|&c| row[c].to_string()).collect();
    RuntimeError::new(
        "E0526",
        format!(
            "the aggregate `{}` over `{}` would overflow a 64-bit integer for group {} (it is {current})",
            aggregate.name,
            table.name,
            group.join(", ")
        ),
        "keep smaller values in the summed column, or sum a smaller unit",
    )
}

/// Every group's value recounted from `rows` (zeros left out, as stored).
/// E0526 when a sum overflows.
pub fn recount(
    table: &TableSchema,
    aggregate: &AggregateSchema,
    rows: &[Vec<Value>],
) -> Result<BTreeMap<Vec<u8>, i64>> {
    let mut values: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
    for row in rows {
        let key = group_key(aggregate, row)?;
        let value = values.entry(key).or_insert(0);
        *value = value
            .checked_add(contribution(aggregate, row)?)
            .ok_or_else(|| overflow(table, aggregate, row, *value))?;
    }
    values.retain(|_, v| *v != 0);
    Ok(values)
}

/// Writes a recount into an empty tree (an aggregate added by a migration).
pub fn backfill(
    session: &mut Session<'_>,
    table: &TableSchema,
    aggregate: &AggregateSchema,
    rows: &[Vec<Value>],
) -> Result<()> {
    let tree = session.tree(&aggregate_tree(&table.name, &aggregate.name));
    for (key, value) in recount(table, aggregate, rows)? {
        session.put(tree, &key, &encode_row(&[Value::Int(value)])?)?;
    }
    Ok(())
}

/// The stored entries of an aggregate, decoded, for `verify`.
pub fn stored(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Result<BTreeMap<Vec<u8>, i64>> {
    entries
        .into_iter()
        .map(|(key, bytes)| Ok((key, decode_value(Some(bytes))?)))
        .collect()
}
