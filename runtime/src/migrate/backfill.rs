//! What a new index or bound needs of the rows already stored, built in the install's transaction a chunk at a time: each index entry written (a unique index verified by its entry count), each bound's groups counted.

use super::{clear, refuse, Rows};
use crate::encoding::key::encode_key;
use crate::encoding::row::encode_row;
use crate::error::{internal, Result};
use crate::rows::{bound_tree, index_entry, index_tree, primary_key};
use crate::session::Session;
use rqc_plan::{TableSchema, Value};

/// Writes an index entry for every row into the index's empty tree. A
/// unique index is verified without holding its entries: two rows with
/// one entry leave fewer entries than rows; only then are the rows read
/// again, each entry looked up before it is written, to name the first
/// row (in key order) whose entry another row holds.
pub(super) fn backfill_index(
    session: &mut Session<'_>,
    table: &TableSchema,
    index: &rqc_plan::IndexSchema,
    rows: Rows<'_>,
) -> Result<()> {
    let name = index_tree(&table.name, &index.name);
    let tree = session.tree(&name);
    let mut written = 0u64;
    rows.each(session, |session, row| {
        let entry = index_entry(index, &row, &primary_key(table, &row)?)?;
        written += 1;
        session.put(tree, &entry, &encode_row(&row)?)
    })?;
    if !index.unique {
        return Ok(());
    }
    let mut entries = 0u64;
    session.each_chunk(tree, rows.chunk, |_, chunk| {
        entries += chunk.len() as u64;
        Ok(())
    })?;
    if entries == written {
        return Ok(());
    }
    clear(session, &name, rows.chunk)?;
    rows.each(session, |session, row| {
        let entry = index_entry(index, &row, &primary_key(table, &row)?)?;
        if session.get(tree, &entry)?.is_none() {
            return session.put(tree, &entry, &[]);
        }
        let values: Vec<String> = index.columns.iter().map(|&c| row[c].to_string()).collect();
        Err(refuse(
            format!(
                "the new unique index `{}.{}` finds {} twice",
                table.name,
                index.name,
                values.join(", ")
            ),
            "make the values unique first, or declare a plain `index`",
        ))
    })?;
    Err(internal(
        "a unique index's entries fewer than its rows, with no two rows sharing one",
    ))
}

pub(super) fn count_groups(
    session: &mut Session<'_>,
    table: &TableSchema,
    i: usize,
    bound: &rqc_plan::schema::BoundSchema,
    rows: Rows<'_>,
) -> Result<()> {
    let mut counts: std::collections::BTreeMap<Vec<u8>, (u64, Vec<Value>)> =
        std::collections::BTreeMap::new();
    rows.each(session, |_, row| {
        // A row holding `none` in a bound column is in no group.
        if crate::constraints::in_no_group(bound, &row) {
            return Ok(());
        }
        let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
        let key = encode_key(&values, &[])?;
        counts.entry(key).or_insert((0, values)).0 += 1;
        Ok(())
    })?;
    let names: Vec<&str> = bound
        .columns
        .iter()
        .map(|&c| table.columns[c].name.as_str())
        .collect();
    for (key, (count, values)) in counts {
        if count > bound.limit {
            let shown: Vec<String> = values.iter().map(Value::to_string).collect();
            return Err(refuse(
                format!(
                    "the new `bound {} <= {}` on `{}` is broken by {} ({count} rows)",
                    names.join(", "),
                    bound.limit,
                    table.name,
                    shown.join(", ")
                ),
                "delete rows of that group first, or declare a larger bound",
            ));
        }
        let tree = session.tree(&bound_tree(&table.name, i));
        session.set_counter(tree, &key, count)?;
    }
    Ok(())
}
