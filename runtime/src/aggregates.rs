//! Maintained aggregates: their upkeep on every write, their read, and their recount (backfill and verify).
//!
//! An aggregate's tree (`a:T:name`) holds, per group (the encoded values of
//! its `by` columns), the group's value as a one-value row: its count or
//! sum (an `Int`), or its least or greatest value of the column. A group
//! whose count or sum is 0, or that has no rows, has no entry: a read that
//! finds none reads 0 (count, sum) or `none` (min, max), a recount never
//! writes one, and an emptied group leaves nothing behind. Each write moves
//! each entry by what it actually changed, inside the mutation's
//! transaction, so the entry always equals a recount of the committed rows
//! (spec/cost.md §7.1, Invariant W). A `min`/`max` whose extreme row goes
//! finds the next one by [`ExtremePath`]: one seek into an index, or the
//! rows of a bounded group. A `count` or `sum` without `by` keeps the whole
//! table as one group, under the key [`WHOLE_TABLE`].

use crate::bound::BoundTable;
use crate::encoding::key::encode_key;
use crate::encoding::row::{decode_row, encode_row};
use crate::error::internal;
use crate::error::{Result, RuntimeError};
use crate::session::{DeferredSum, Session};
use crate::store::{prefix_end, Tree};
use rqc_plan::{compare, AggregateKind, AggregateSchema, ExtremePath, TableSchema, Value};
use std::cmp::Ordering;
use std::collections::BTreeMap;

pub use crate::rows::aggregate_tree;

/// An entry to write once every check of a write has passed (`None`: no
/// entry, the group's value is 0 or it has no rows).
pub struct Pending {
    tree: Tree,
    key: Vec<u8>,
    value: Option<Value>,
}

fn is_extreme(aggregate: &AggregateSchema) -> bool {
    matches!(aggregate.kind, AggregateKind::Min | AggregateKind::Max)
}

/// Whether `new` goes before `current` as the group's extreme.
fn better(aggregate: &AggregateSchema, new: &Value, current: &Value) -> bool {
    let wanted = match aggregate.kind {
        AggregateKind::Min => Ordering::Less,
        _ => Ordering::Greater,
    };
    compare(new, current) == wanted
}

/// The column value a `min`/`max` keeps of `row`.
fn kept_value<'r>(aggregate: &AggregateSchema, row: &'r [Value]) -> Result<&'r Value> {
    aggregate
        .column
        .and_then(|c| row.get(c))
        .ok_or_else(|| internal("a min or max aggregate without its column"))
}

/// What one row adds to its group's count or sum: 1 for a count, the
/// column's value for a sum (`none` adds nothing).
fn contribution(aggregate: &AggregateSchema, row: &[Value]) -> Result<i64> {
    match (aggregate.kind, aggregate.column) {
        (AggregateKind::Count, _) => Ok(1),
        (AggregateKind::Sum, Some(column)) => match &row[column] {
            Value::Int(n) => Ok(*n),
            Value::Null => Ok(0),
            other => Err(internal(&format!(
                "a sum over a value that is not an Int: {other}"
            ))),
        },
        _ => Err(internal("a count or sum without its column")),
    }
}

/// The key of a whole-table aggregate's one group (no `by` columns): no
/// store takes an empty key (LMDB refuses one), and no other key shares
/// its tree.
pub const WHOLE_TABLE: &[u8] = &[0];

/// The group key of `row` under `aggregate`.
pub fn group_key(aggregate: &AggregateSchema, row: &[Value]) -> Result<Vec<u8>> {
    let values: Vec<Value> = aggregate.by.iter().map(|&c| row[c].clone()).collect();
    group_bytes(encode_key(&values, &[])?)
}

/// A group's encoded values as its key in the aggregate's tree: the
/// whole table's group is [`WHOLE_TABLE`].
pub fn group_bytes(encoded: Vec<u8>) -> Result<Vec<u8>> {
    Ok(if encoded.is_empty() {
        WHOLE_TABLE.to_vec()
    } else {
        encoded
    })
}

/// A stored value; no entry is `None`.
fn decode_value(bytes: Option<Vec<u8>>) -> Result<Option<Value>> {
    let Some(bytes) = bytes else {
        return Ok(None);
    };
    let mut values = decode_row(&bytes, 1)?;
    match values.pop() {
        Some(value) if value != Value::Null => Ok(Some(value)),
        _ => Err(RuntimeError::corrupt("an aggregate's value")),
    }
}

fn as_int(value: Option<Value>) -> Result<i64> {
    match value {
        None => Ok(0),
        Some(Value::Int(n)) => Ok(n),
        Some(_) => Err(RuntimeError::corrupt("a count or sum that is not an Int")),
    }
}

/// The group's value a query reads from the entry found (one seek, and
/// one row when found; the executor reads it, alone or in a batch).
pub fn value_of(aggregate: &AggregateSchema, found: Option<Vec<u8>>) -> Result<Value> {
    let value = decode_value(found)?;
    Ok(if is_extreme(aggregate) {
        value.unwrap_or(Value::Null)
    } else {
        Value::Int(as_int(value)?)
    })
}

/// The group's entry, read for an update of it: one seek and one row
/// (counted found or not, as a counter's read-modify-write is).
fn current(session: &mut Session<'_>, tree: Tree, key: &[u8]) -> Result<Option<Value>> {
    let found = session.get(tree, key)?;
    if found.is_none() {
        session.count_row();
    }
    decode_value(found)
}

/// The count or sum of the row's group after adding its contribution
/// (`joins`) or taking it away. E0526 when a sum would overflow; taking
/// `i64::MIN` away is a subtraction, never its negation (which has none).
fn moved(
    session: &mut Session<'_>,
    t: &BoundTable,
    i: usize,
    row: &[Value],
    joins: bool,
) -> Result<Option<Pending>> {
    let aggregate = &t.schema.aggregates[i];
    let tree = t.aggregates[i];
    let key = group_key(aggregate, row)?;
    let now = sum_now(session, tree, &key)?;
    let contribution = i128::from(contribution(aggregate, row)?);
    let value = if joins {
        now + contribution
    } else {
        now - contribution
    };
    settled(session, tree, key, value, || {
        let what = if joins {
            format!("the group's sum without this row is {now}, and the row adds {contribution}")
        } else {
            format!("the group's sum is {now}, and the row's {contribution} is taken out of it")
        };
        overflow(&t.schema, aggregate, row, &what)
    })
}

/// A count or sum of a group its row stays in, moved by the row's new part
/// less its old one, in 128 bits: E0526 only when the result is past 64.
fn stepped(
    session: &mut Session<'_>,
    t: &BoundTable,
    i: usize,
    old: &[Value],
    new: &[Value],
) -> Result<Option<Pending>> {
    let aggregate = &t.schema.aggregates[i];
    let tree = t.aggregates[i];
    let key = group_key(aggregate, new)?;
    let now = sum_now(session, tree, &key)?;
    let (was, is) = (contribution(aggregate, old)?, contribution(aggregate, new)?);
    let value = now - i128::from(was) + i128::from(is);
    settled(session, tree, key, value, || {
        let what = format!("the group's sum is {now}, and the row's part goes from {was} to {is}");
        overflow(&t.schema, aggregate, new, &what)
    })
}

/// A count or sum's entry as it stands in this session: a load's sum kept
/// past 64 bits, or the stored one.
fn sum_now(session: &mut Session<'_>, tree: Tree, key: &[u8]) -> Result<i128> {
    if let Some(deferred) = session.deferred_sums().and_then(|d| d.get(tree, key)) {
        return Ok(deferred.sum);
    }
    Ok(i128::from(as_int(current(session, tree, key)?)?))
}

/// The entry a new sum writes. Past 64 bits it is E0526, or in a load
/// ([`Session::deferring_sums`]) it is held back (nothing written) until
/// a later row brings it within them, and the commit refuses it if none
/// does.
fn settled(
    session: &mut Session<'_>,
    tree: Tree,
    key: Vec<u8>,
    value: i128,
    overflow: impl FnOnce() -> RuntimeError,
) -> Result<Option<Pending>> {
    let fits = i64::try_from(value).ok();
    if let Some(deferred) = session.deferred_sums() {
        if fits.is_none() {
            let error = overflow();
            deferred.hold(tree, key, DeferredSum { sum: value, error });
            return Ok(None);
        }
        deferred.release(tree, &key);
    }
    let value = fits.ok_or_else(overflow)?;
    Ok(Some(Pending {
        tree,
        key,
        value: (value != 0).then_some(Value::Int(value)),
    }))
}

/// A row joins its group: the entry of a count or sum moves; a `min`/`max`
/// takes the row's value when it goes first (`None`: nothing to write).
fn joined(
    session: &mut Session<'_>,
    t: &BoundTable,
    i: usize,
    row: &[Value],
) -> Result<Option<Pending>> {
    let aggregate = &t.schema.aggregates[i];
    if !is_extreme(aggregate) {
        return moved(session, t, i, row, true);
    }
    let tree = t.aggregates[i];
    let key = group_key(aggregate, row)?;
    let value = kept_value(aggregate, row)?;
    let takes = match current(session, tree, &key)? {
        None => true,
        Some(now) => better(aggregate, value, &now),
    };
    Ok(takes.then(|| Pending {
        tree,
        key,
        value: Some(value.clone()),
    }))
}

/// A row has left its group (it is already gone from the table, or stored
/// changed): a count or sum moves; a `min`/`max` whose extreme it held
/// finds the next one among the rows as they are now.
fn left(session: &mut Session<'_>, t: &BoundTable, i: usize, row: &[Value]) -> Result<()> {
    let aggregate = &t.schema.aggregates[i];
    if !is_extreme(aggregate) {
        return match moved(session, t, i, row, false)? {
            Some(pending) => write(session, pending),
            None => Ok(()),
        };
    }
    let tree = t.aggregates[i];
    let key = group_key(aggregate, row)?;
    // Compared as values are ordered (a float's bits, not IEEE equality):
    // the entry holds exactly some row's value.
    let value = kept_value(aggregate, row)?;
    let held = current(session, tree, &key)?;
    if held.is_none_or(|now| compare(&now, value) != Ordering::Equal) {
        return Ok(()); // another row holds the extreme
    }
    let value = successor(session, t, aggregate, row)?;
    write(session, Pending { tree, key, value })
}

/// The extreme of the row's group among the rows stored now: through the
/// index (its group's first or last entry) or the bounded group's rows.
fn successor(
    session: &mut Session<'_>,
    t: &BoundTable,
    aggregate: &AggregateSchema,
    row: &[Value],
) -> Result<Option<Value>> {
    let table = &t.schema;
    let (path, prefix) = table
        .extreme_path(aggregate)
        .ok_or_else(|| internal("a min or max aggregate no bound keeps"))?;
    let values: Vec<Value> = prefix.iter().map(|&c| row[c].clone()).collect();
    let columns = table.columns.len();
    match path {
        ExtremePath::Index(i) => {
            let index = &table.indexes[i];
            let n = prefix.len();
            let start = encode_key(&values, &index.descending[..n])?;
            let end = prefix_end(&start);
            // The least value first in an ascending index.
            let least_first = !index.descending[n];
            let reverse = (aggregate.kind == AggregateKind::Min) != least_first;
            let entries = session.range_in(t.indexes[i], &start, end.as_deref(), reverse, 1)?;
            entries
                .first()
                .map(|(_, bytes)| Ok(kept_value(aggregate, &decode_row(bytes, columns)?)?.clone()))
                .transpose()
        }
        ExtremePath::Group { index, limit } => {
            let (tree, start) = match index {
                Some(i) => (
                    t.indexes[i],
                    encode_key(&values, &table.indexes[i].descending[..prefix.len()])?,
                ),
                None if table.small_max.is_some() => (t.rows, Vec::new()),
                None => (t.rows, encode_key(&values, &[])?),
            };
            let end = prefix_end(&start);
            // W holds the group to its limit; one more is damage.
            let limit = usize::try_from(limit)
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let mut best: Option<Value> = None;
            for (_, bytes) in session.range(tree, &start, end.as_deref(), limit)? {
                let other = decode_row(&bytes, columns)?;
                if aggregate.by.iter().any(|&c| other[c] != row[c]) {
                    continue;
                }
                let value = kept_value(aggregate, &other)?;
                if best.as_ref().is_none_or(|b| better(aggregate, value, b)) {
                    best = Some(value.clone());
                }
            }
            Ok(best)
        }
    }
}

fn write(session: &mut Session<'_>, pending: Pending) -> Result<()> {
    match pending.value {
        None => session.delete(pending.tree, &pending.key),
        Some(value) => session.put(pending.tree, &pending.key, &encode_row(&[value])?),
    }
}

/// The entries an insert of `row` will write, read now (every check before
/// any write, so a refused row leaves nothing in the session).
pub fn on_insert(session: &mut Session<'_>, t: &BoundTable, row: &[Value]) -> Result<Vec<Pending>> {
    let mut pending = Vec::new();
    for i in 0..t.aggregates.len() {
        pending.extend(joined(session, t, i, row)?);
    }
    Ok(pending)
}

/// Writes what [`on_insert`] read.
pub fn apply(session: &mut Session<'_>, pending: Vec<Pending>) -> Result<()> {
    for entry in pending {
        write(session, entry)?;
    }
    Ok(())
}

/// A deleted row (already gone from its table and indexes) leaves its
/// group of every aggregate.
pub fn on_delete(session: &mut Session<'_>, t: &BoundTable, row: &[Value]) -> Result<()> {
    for i in 0..t.aggregates.len() {
        left(session, t, i, row)?;
    }
    Ok(())
}

/// An updated row (stored changed already) leaves its old group and joins
/// its new one, for every aggregate the change touches (a `by` column, or
/// the column read); when the group stays, the second read sees the
/// first's write.
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
        // A count or sum whose row stays in its group moves once, by the
        // difference: the sum without the row may pass 64 bits where the
        // sum with its new part does not (adversary finding).
        if !is_extreme(aggregate) && group_key(aggregate, old)? == group_key(aggregate, new)? {
            if let Some(pending) = stepped(session, t, i, old, new)? {
                write(session, pending)?;
            }
            continue;
        }
        left(session, t, i, old)?;
        if let Some(pending) = joined(session, t, i, new)? {
            write(session, pending)?;
        }
    }
    Ok(())
}

fn overflow(
    table: &TableSchema,
    aggregate: &AggregateSchema,
    row: &[Value],
    what: &str,
) -> RuntimeError {
    overflow_in(table, aggregate, &group_values(aggregate, row), what)
}

/// The values of `row` that name its group of `aggregate`.
fn group_values(aggregate: &AggregateSchema, row: &[Value]) -> Vec<Value> {
    aggregate.by.iter().map(|&c| row[c].clone()).collect()
}

/// E0526 for the group whose values are `group`.
fn overflow_in(
    table: &TableSchema,
    aggregate: &AggregateSchema,
    group: &[Value],
    what: &str,
) -> RuntimeError {
    let group: Vec<String> = group.iter().map(Value::to_string).collect();
    let group = if group.is_empty() {
        "the whole table".to_string()
    } else {
        format!("group {}", group.join(", "))
    };
    RuntimeError::new(
        "E0526",
        format!(
            "the aggregate `{}` over `{}` would overflow a 64-bit integer for {group} ({what})",
            aggregate.name, table.name
        ),
        "keep smaller values in the summed column, or sum a smaller unit",
    )
}

/// Every group's value recounted from `rows` (no entry for a count or sum
/// of 0, as stored). E0526 when a group's sum is past 64 bits; its partial
/// sums, in whatever order the rows come, may be (the writes that made the
/// group kept every sum they left within 64 bits, in their own order).
pub fn recount(
    table: &TableSchema,
    aggregate: &AggregateSchema,
    rows: &[Vec<Value>],
) -> Result<BTreeMap<Vec<u8>, Value>> {
    let mut recount = Recount::new(table, aggregate);
    for row in rows {
        recount.add(row)?;
    }
    recount.finish()
}

/// A [`recount`] under way, its rows added one at a time (`verify` reads a
/// table in chunks): it holds a value per group, never the rows.
pub struct Recount<'a> {
    table: &'a TableSchema,
    aggregate: &'a AggregateSchema,
    values: BTreeMap<Vec<u8>, Value>,
    /// A count or sum, exact (2^64 rows of 64 bits fit 128), and the
    /// group's values for a message.
    sums: BTreeMap<Vec<u8>, (i128, Vec<Value>)>,
}

impl<'a> Recount<'a> {
    pub fn new(table: &'a TableSchema, aggregate: &'a AggregateSchema) -> Recount<'a> {
        Recount {
            table,
            aggregate,
            values: BTreeMap::new(),
            sums: BTreeMap::new(),
        }
    }

    /// Counts one row in its group.
    pub fn add(&mut self, row: &[Value]) -> Result<()> {
        let aggregate = self.aggregate;
        let key = group_key(aggregate, row)?;
        if is_extreme(aggregate) {
            let value = kept_value(aggregate, row)?;
            let slot = self.values.entry(key).or_insert_with(|| value.clone());
            if better(aggregate, value, slot) {
                *slot = value.clone();
            }
            return Ok(());
        }
        let slot = self
            .sums
            .entry(key)
            .or_insert_with(|| (0, group_values(aggregate, row)));
        slot.0 += i128::from(contribution(aggregate, row)?);
        Ok(())
    }

    /// Every group's value, as stored.
    pub fn finish(mut self) -> Result<BTreeMap<Vec<u8>, Value>> {
        for (key, (sum, group)) in self.sums {
            let sum = i64::try_from(sum).map_err(|_| {
                overflow_in(
                    self.table,
                    self.aggregate,
                    &group,
                    &format!("its rows sum to {sum}"),
                )
            })?;
            if sum != 0 {
                self.values.insert(key, Value::Int(sum));
            }
        }
        Ok(self.values)
    }
}

/// Writes a recount, its rows all added, into an empty tree (an aggregate
/// added by a migration, which adds the rows a chunk at a time).
pub fn backfill(
    session: &mut Session<'_>,
    table: &TableSchema,
    aggregate: &AggregateSchema,
    recount: Recount<'_>,
) -> Result<()> {
    let tree = session.tree(&aggregate_tree(&table.name, &aggregate.name));
    for (key, value) in recount.finish()? {
        session.put(tree, &key, &encode_row(&[value])?)?;
    }
    Ok(())
}

/// The stored entries of an aggregate, decoded, for `verify`.
pub fn stored(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Result<BTreeMap<Vec<u8>, Value>> {
    entries
        .into_iter()
        .map(|(key, bytes)| {
            let value = decode_value(Some(bytes))?.ok_or_else(|| internal("an empty entry"))?;
            Ok((key, value))
        })
        .collect()
}
