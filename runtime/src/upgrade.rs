//! `rqc upgrade`: a database an older rqc wrote, brought to what this one writes, in one transaction — for now, every `-0.0` stored in a row or a key rewritten as `0.0` (spec/types.md, "Value identity").
//!
//! An older rqc stored `-0.0` and `0.0` apart (two keys, two groups,
//! two counters) while comparing them as one value, so its counters,
//! index entries and aggregates may disagree with its rows. This rqc
//! reads a stored `-0.0` as `0.0`; the upgrade rewrites the rows
//! canonical and every tree derived from them (index entries, bound and
//! reference counters, aggregates) from those rows, writing only the
//! entries that differ (a database with none is only read, a chunk at a
//! time). It refuses, naming the keys and writing nothing,
//! where the rows cannot all stand once the two zeros are one value: two
//! rows with one key or one unique value (E0553), a group past its bound
//! (E0554), a reference to no row (E0555). The storage format does not
//! change, so a database with no `-0.0` is left as it is.

use crate::aggregates::{aggregate_tree, recount};
use crate::encoding::key::{encode_key, key_holds_minus_zero};
use crate::encoding::row::{decode_row, encode_row, row_holds_minus_zero};
use crate::engine::Engine;
use crate::error::{Result, RuntimeError};
use crate::rows::{bound_tree, index_entry, index_tree, primary_key, refcount_tree, table_tree};
use crate::session::Session;
use crate::store::SALVAGE_CHUNK;
use crate::verify::count_row;
use rqc_plan::{Schema, TableSchema, Value};
use std::collections::BTreeMap;

type Entries = BTreeMap<Vec<u8>, Vec<u8>>;

/// What an upgrade rewrote: per tree, the entries written or removed.
/// Empty when the database held nothing to upgrade.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Upgraded {
    /// Each tree changed, by name, with how many of its entries were
    /// written or removed.
    pub trees: Vec<(String, u64)>,
}

impl Engine {
    /// Rewrites every stored `-0.0` as `0.0` (see the module's doc), in
    /// one write transaction; E0553, E0554 or E0555, naming the keys, when
    /// the rows could not all stand, and nothing is written.
    /// The catalog's schema is enough: a program of an older plan format
    /// (E0513 when it runs) is upgraded too, and installed again after.
    pub fn upgrade(&self) -> Result<Upgraded> {
        let schema = self.schema()?;
        let (upgraded, _) = crate::backoff::retrying(|| {
            let mut session = self.write_session()?;
            let upgraded = upgrade_in(&mut session, &schema)?;
            session.commit()?;
            Ok(upgraded)
        })?;
        Ok(upgraded)
    }
}

fn upgrade_in(session: &mut Session<'_>, schema: &Schema) -> Result<Upgraded> {
    if !holds_minus_zero(session, schema)? {
        return Ok(Upgraded::default());
    }
    // Only a database an older rqc wrote with `-0.0` gets here: its rows
    // are read whole, since where two rows become one value decides what
    // every derived tree holds.
    let mut rows_by_table = Vec::with_capacity(schema.tables.len());
    for table in &schema.tables {
        let stored = read_tree(session, &table_tree(&table.name))?;
        rows_by_table.push(canonical_rows(table, stored)?);
    }
    let mut wanted: BTreeMap<String, Entries> = BTreeMap::new();
    let mut counters: BTreeMap<String, BTreeMap<Vec<u8>, u64>> = BTreeMap::new();
    for (table, rows) in schema.tables.iter().zip(&rows_by_table) {
        let mut table_entries = Entries::new();
        for (primary, row) in rows {
            let bytes = encode_row(row)?;
            table_entries.insert(primary.clone(), bytes.clone());
            for index in &table.indexes {
                let entry = index_entry(index, row, primary)?;
                wanted
                    .entry(index_tree(&table.name, &index.name))
                    .or_default()
                    .insert(entry, bytes.clone());
            }
            count_row(table, row, &mut counters)?;
        }
        unique_values(table, rows)?;
        wanted.insert(table_tree(&table.name), table_entries);
        let values: Vec<Vec<Value>> = rows.values().cloned().collect();
        for aggregate in &table.aggregates {
            let entries = recount(table, aggregate, &values)?
                .into_iter()
                .map(|(key, value)| Ok((key, encode_row(&[value])?)))
                .collect::<Result<Entries>>()?;
            wanted.insert(aggregate_tree(&table.name, &aggregate.name), entries);
        }
    }
    within_bounds(schema, &counters)?;
    references_exist(schema, &rows_by_table)?;
    for table in &schema.tables {
        for (tree, _) in derived_trees(schema, table) {
            wanted.entry(tree).or_default();
        }
    }
    for (tree, counts) in counters {
        let entries = counts
            .into_iter()
            .map(|(key, count)| (key, count.to_be_bytes().to_vec()))
            .collect();
        wanted.insert(tree, entries);
    }
    let mut upgraded = Upgraded::default();
    for (name, entries) in wanted {
        let rewritten = rewrite(session, &name, entries)?;
        if rewritten > 0 {
            upgraded.trees.push((name, rewritten));
        }
    }
    Ok(upgraded)
}

/// Whether a row, or a key of a tree derived from rows, stores `-0.0`:
/// each tree read a chunk at a time (`Session::each_chunk`), so the
/// usual upgrade, which finds none, holds a chunk, never a table.
fn holds_minus_zero(session: &mut Session<'_>, schema: &Schema) -> Result<bool> {
    let mut found = false;
    for table in &schema.tables {
        let columns = table.columns.len();
        let tree = session.tree(&table_tree(&table.name));
        session.each_chunk(tree, SALVAGE_CHUNK, |_, entries| {
            found |= entries.iter().any(|(key, row)| {
                key_holds_minus_zero(key, &[]) || row_holds_minus_zero(row, columns)
            });
            Ok(())
        })?;
        for (name, descending) in derived_trees(schema, table) {
            let tree = session.tree(&name);
            session.each_chunk(tree, SALVAGE_CHUNK, |_, entries| {
                found |= entries
                    .iter()
                    .any(|(key, _)| key_holds_minus_zero(key, &descending));
                Ok(())
            })?;
        }
        if found {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Every entry of the tree called `name`, read in the upgrade's transaction.
fn read_tree(session: &Session<'_>, name: &str) -> Result<Entries> {
    let tree = session.tree(name);
    Ok(session
        .reads()
        .range(tree, &[], None, false, usize::MAX)?
        .into_iter()
        .collect())
}

/// The trees the rows of `table` decide, each with its components'
/// directions: its indexes, bound counters and aggregates, and the
/// reference counters of the rows it holds (the small table's count
/// does not depend on any value).
fn derived_trees(schema: &Schema, table: &TableSchema) -> Vec<(String, Vec<bool>)> {
    let mut trees: Vec<(String, Vec<bool>)> = table
        .indexes
        .iter()
        .map(|i| (index_tree(&table.name, &i.name), i.descending.clone()))
        .collect();
    trees.extend((0..table.bounds.len()).map(|i| (bound_tree(&table.name, i), Vec::new())));
    trees.extend(
        table
            .aggregates
            .iter()
            .map(|a| (aggregate_tree(&table.name, &a.name), Vec::new())),
    );
    let referenced = schema.tables.iter().any(|t| {
        t.columns
            .iter()
            .any(|c| c.references.as_deref() == Some(table.name.as_str()))
    });
    if referenced {
        trees.push((refcount_tree(&table.name), Vec::new()));
    }
    trees
}

/// The rows of a table by their key as this rqc encodes it; E0553 when two
/// stored rows have one key once `-0.0` is `0.0`, E0591 for a row that
/// does not decode (damage: `rqc verify` lists it).
fn canonical_rows(table: &TableSchema, stored: Entries) -> Result<BTreeMap<Vec<u8>, Vec<Value>>> {
    let mut rows: BTreeMap<Vec<u8>, Vec<Value>> = BTreeMap::new();
    for (_, bytes) in stored {
        let row = decode_row(&bytes, table.columns.len()).map_err(|error| {
            RuntimeError::new(
                "E0591",
                format!("`{}`: a row does not decode: {}", table.name, error.message),
                "run `rqc verify` to see the damage, and `rqc dump` to copy out what is readable",
            )
        })?;
        let key = primary_key(table, &row)?;
        if rows.insert(key, row.clone()).is_some() {
            let values: Vec<Value> = table.key.iter().map(|&c| row[c].clone()).collect();
            return Err(collide(table, "key", &values));
        }
    }
    Ok(rows)
}

/// E0553 where two rows hold one value of a unique index.
fn unique_values(table: &TableSchema, rows: &BTreeMap<Vec<u8>, Vec<Value>>) -> Result<()> {
    for index in table.indexes.iter().filter(|i| i.unique) {
        let mut seen = std::collections::HashSet::new();
        for (primary, row) in rows {
            let values: Vec<Value> = index.columns.iter().map(|&c| row[c].clone()).collect();
            // `none` is no value: any number of rows may hold it.
            if !values.contains(&Value::Null) && !seen.insert(index_entry(index, row, primary)?) {
                return Err(collide(table, &format!("unique `{}`", index.name), &values));
            }
        }
    }
    Ok(())
}

fn collide(table: &TableSchema, what: &str, values: &[Value]) -> RuntimeError {
    RuntimeError::new(
        "E0553",
        format!(
            "`{}`: two rows would have the {what} {} once -0.0 is 0.0; nothing was written",
            table.name,
            show(values)
        ),
        "delete or change one of the two rows with the rqc that wrote them, then run `rqc upgrade` again",
    )
}

/// E0554 where a bound's group would hold more rows than its limit once
/// its `-0.0` and `0.0` are one group.
fn within_bounds(
    schema: &Schema,
    counters: &BTreeMap<String, BTreeMap<Vec<u8>, u64>>,
) -> Result<()> {
    for table in &schema.tables {
        for (i, bound) in table.bounds.iter().enumerate() {
            let Some(groups) = counters.get(&bound_tree(&table.name, i)) else {
                continue;
            };
            for (key, &count) in groups {
                if count > bound.limit {
                    let (values, _) =
                        crate::encoding::key::decode_key(key, &[], bound.columns.len())?;
                    let names: Vec<&str> = bound
                        .columns
                        .iter()
                        .map(|&c| table.columns[c].name.as_str())
                        .collect();
                    return Err(RuntimeError::new(
                        "E0554",
                        format!(
                            "`{}`: the group {} would hold {count} rows once -0.0 is 0.0, past `bound {} <= {}`; nothing was written",
                            table.name,
                            show(&values),
                            names.join(", "),
                            bound.limit
                        ),
                        "delete rows of that group with the rqc that wrote them, or raise the bound, then run `rqc upgrade` again",
                    ));
                }
            }
        }
    }
    Ok(())
}

/// E0555 where a reference would name no row.
fn references_exist(schema: &Schema, rows: &[BTreeMap<Vec<u8>, Vec<Value>>]) -> Result<()> {
    for (table, table_rows) in schema.tables.iter().zip(rows) {
        for (column, spec) in table.columns.iter().enumerate() {
            let Some(target) = spec.references.as_deref() else {
                continue;
            };
            let Some(at) = schema.tables.iter().position(|t| t.name == target) else {
                continue;
            };
            for row in table_rows.values() {
                let value = &row[column];
                if *value != Value::Null
                    && !rows[at].contains_key(&encode_key(std::slice::from_ref(value), &[])?)
                {
                    return Err(RuntimeError::new(
                        "E0555",
                        format!(
                            "`{}.{}` refers to `{target}` {value}, which does not exist; nothing was written",
                            table.name, spec.name
                        ),
                        format!("insert the `{target}` row, or delete the row that refers to it, with the rqc that wrote them, then run `rqc upgrade` again"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn show(values: &[Value]) -> String {
    let parts: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("({})", parts.join(", "))
}

/// Makes the tree called `name` hold exactly `wanted`: removes the entries
/// it should not hold, writes those that differ; how many it changed.
fn rewrite(session: &mut Session<'_>, name: &str, wanted: Entries) -> Result<u64> {
    let stored = read_tree(session, name)?;
    let tree = session.tree(name);
    let mut changed = 0;
    for key in stored.keys().filter(|k| !wanted.contains_key(*k)) {
        session.delete(tree, key)?;
        changed += 1;
    }
    for (key, value) in &wanted {
        if stored.get(key) != Some(value) {
            session.put(tree, key, value)?;
            changed += 1;
        }
    }
    Ok(changed)
}
