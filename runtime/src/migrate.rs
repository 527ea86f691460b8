//! Migrations: a program installed over another schema changes the stored rows and the trees derived from them in the install's transaction, reading each table a chunk at a time.
//!
//! What an install holds of a table is one chunk of its rows
//! ([`SALVAGE_CHUNK`] entries, `Session::each_chunk`), never the table
//! (issue 35 §6): each change reads the rows again rather than keeping
//! them, so its memory is a chunk and what it keeps per group (a bound's
//! counts, an aggregate's groups). The changes run in a fixed order, each
//! refusing (E0510) before the next begins, as when the rows were read
//! whole: every row read and each new or tightened length bound checked,
//! then the rows rewritten, the indexes back-filled, the bounds counted,
//! `small … max` checked, the `key auto` counter set, the aggregates
//! back-filled. A refusal partway leaves nothing written: the install is
//! one transaction.

use crate::column_changes::reshape_row;
use crate::encoding::key::encode_key;
use crate::encoding::row::{decode_row, encode_row};
use crate::error::{Result, RuntimeError};
use crate::rows::{aggregate_tree, bound_tree, index_tree, primary_key, small_tree, table_tree};
use crate::session::Session;
use crate::store::{Tree, SALVAGE_CHUNK};
use backfill::{backfill_index, count_groups};
use rqc_plan::{Schema, TableSchema, Value};

mod backfill;

fn refuse(change: String, why: &str) -> RuntimeError {
    RuntimeError::new(
        "E0510",
        format!("the program changes the installed schema incompatibly: {change}"),
        format!("{why}; or use a new --db directory"),
    )
}

/// What `new` drops of `old`, each named as `--migrate` takes it:
/// `table:T`, `index:T.name`, `bound:T(a, b)`, `max:T`, `aggregate:name`,
/// `length:T.column` (a `String <= n` bound removed; a looser one is kept).
pub fn dropped(old: &Schema, new: &Schema) -> Vec<String> {
    let mut dropped = Vec::new();
    for before in &old.tables {
        let Some(table) = new.table(&before.name) else {
            dropped.push(format!("table:{}", before.name));
            continue;
        };
        // A unique index made plain drops its uniqueness, a constraint
        // other programs rely on: named as the index (adversary finding:
        // an edited plan file turned it off with no `--migrate`).
        for index in &before.indexes {
            let plain = |now: &rqc_plan::IndexSchema| index.unique && !now.unique;
            if table.index(&index.name).is_none_or(plain) {
                dropped.push(format!("index:{}.{}", before.name, index.name));
            }
        }
        for bound in &before.bounds {
            if !table.bounds.iter().any(|b| b.columns == bound.columns) {
                let names: Vec<&str> = bound
                    .columns
                    .iter()
                    .map(|&c| before.columns[c].name.as_str())
                    .collect();
                dropped.push(format!("bound:{}({})", before.name, names.join(", ")));
            }
        }
        if before.small_max.is_some() && table.small_max.is_none() {
            dropped.push(format!("max:{}", before.name));
        }
        for column in before.columns.iter().filter(|c| c.max_len.is_some()) {
            if table
                .columns
                .iter()
                .any(|c| c.name == column.name && c.max_len.is_none())
            {
                dropped.push(format!("length:{}.{}", before.name, column.name));
            }
        }
        // An aggregate whose definition changed is dropped and added again.
        for aggregate in &before.aggregates {
            if !table.aggregates.contains(aggregate) {
                dropped.push(format!("aggregate:{}", aggregate.name));
            }
        }
    }
    dropped
}

/// A column as stored: its default matters only when it is added.
fn stored_shape(column: &rqc_plan::Column) -> (&str, &rqc_plan::ColumnType, &Option<String>) {
    (&column.name, &column.ty, &column.references)
}

/// Migrates the stored schema `stored` to `new` (see `catalog::install`),
/// reading each table [`SALVAGE_CHUNK`] rows at a time.
pub(crate) fn migrate(
    session: &mut Session<'_>,
    stored: &Schema,
    new: &Schema,
    drops: &[String],
) -> Result<()> {
    migrate_in_chunks(session, stored, new, drops, SALVAGE_CHUNK)
}

/// [`migrate`], reading `chunk` rows at a time (a test reads a few).
pub(crate) fn migrate_in_chunks(
    session: &mut Session<'_>,
    stored: &Schema,
    new: &Schema,
    drops: &[String],
    chunk: usize,
) -> Result<()> {
    // Renamed and dropped columns first: the rest compares the program
    // with the installed schema as the program names its columns.
    let (reshaped, layouts, implied) = crate::column_changes::reshaped(stored, new, drops)?;
    let old = &reshaped;
    let unasked: Vec<String> = dropped(old, new)
        .into_iter()
        .filter(|d| !drops.contains(d) && !implied.contains(d))
        .collect();
    if !unasked.is_empty() {
        let flags: Vec<String> = unasked.iter().map(|d| format!("--migrate '{d}'")).collect();
        return Err(RuntimeError::new(
            "E0519",
            format!(
                "the program would drop what the database's schema declares: {} (is it older than the program that installed the schema?)",
                unasked.join(", ")
            ),
            format!(
                "run the program that installed the schema; to drop them, install with {} (a dropped table loses its rows)",
                flags.join(" ")
            ),
        ));
    }
    for gone in old.tables.iter().filter(|t| new.table(&t.name).is_none()) {
        release_references(session, gone, new, chunk)?;
        drop_table(session, gone, chunk)?;
    }
    for table in &new.tables {
        let Some(before) = old.table(&table.name) else {
            continue;
        };
        // A table the program declares as the database does (no column
        // renamed or dropped) has nothing to migrate: its rows are not
        // read, so writers of it meanwhile do not conflict with the
        // install (etcd compares every key an install read; reading every
        // table made a schema-changing install amid writers of other
        // tables give up, E0596: adversary finding).
        if before == table && !layouts.iter().any(|(name, _)| *name == table.name) {
            continue;
        }
        let kept = before.columns.len() <= table.columns.len()
            && before
                .columns
                .iter()
                .zip(&table.columns)
                .all(|(a, b)| stored_shape(a) == stored_shape(b));
        if !kept || before.key != table.key {
            let why = match crate::column_changes::suggested_flags(before, table) {
                Some(flags) => format!("to rename or drop a column, install with {flags}; columns may otherwise only be added, at the end (optional, or with a default)"),
                None => "columns may only be added, at the end (optional, or with a default), renamed or dropped (`--migrate 'rename:T.old=new'`, `--migrate 'drop:T.column'`); add a new table for other changes".to_string(),
            };
            return Err(refuse(
                format!("the columns or the key of `{}` changed", table.name),
                &why,
            ));
        }
        let added = &table.columns[before.columns.len()..];
        // A required column without a default has no value for the rows
        // stored, when there are some: an empty table takes it (one seek).
        let required = added
            .iter()
            .find(|c| c.default.is_none() && !matches!(c.ty, rqc_plan::ColumnType::Optional(_)));
        let holds_rows = match required {
            Some(_) => {
                let tree = session.tree(&table_tree(&table.name));
                !session.range(tree, &[], None, 1)?.is_empty()
            }
            None => false,
        };
        if let Some(column) = required.filter(|_| holds_rows) {
            return Err(refuse(
                format!(
                    "the new column `{}.{}` has no value for the rows already stored",
                    table.name, column.name
                ),
                &format!(
                    "declare it optional (`{}: {}?`) or give it a default (`{}: {} = …`)",
                    column.name,
                    column.ty.name(),
                    column.name,
                    column.ty.name()
                ),
            ));
        }
        if let Some(column) = added.iter().find(|c| {
            c.references.is_some() && c.default.as_ref().is_some_and(|d| d.value() != Value::Null)
        }) {
            return Err(refuse(
                format!(
                    "the new reference `{}.{}` has a default, which every stored row would reference",
                    table.name, column.name
                ),
                "declare it optional without a default: stored rows then reference nothing",
            ));
        }
        let layout = layouts.iter().find(|(name, _)| *name == table.name);
        let tree = session.tree(&table_tree(&table.name));
        let as_stored = match (layout, stored.table(&table.name)) {
            (Some((_, layout)), Some(as_stored)) => Rows {
                tree,
                columns: as_stored.columns.len(),
                layout: Some(layout),
                chunk,
            },
            _ => Rows {
                tree,
                columns: before.columns.len(),
                layout: None,
                chunk,
            },
        };
        // Every row is read, as stored, before anything is written: a row
        // that does not decode (damage) refuses the install, and a new or
        // tightened length bound is checked, before any other change.
        let survey = Survey::of(session, before, table, as_stored)?;
        survey.check_length_bounds(table)?;
        let rewritten = !added.is_empty() || layout.is_some();
        if rewritten {
            let defaults: Vec<Value> = added
                .iter()
                .map(|c| c.default.as_ref().map_or(Value::Null, |d| d.value()))
                .collect();
            // Each row goes back under its own key, at or before the last
            // key read, so the walk reads no row twice.
            as_stored.each(session, |session, mut row| {
                row.extend(defaults.iter().cloned());
                session.put(tree, &primary_key(table, &row)?, &encode_row(&row)?)
            })?;
        }
        // From here the rows are read as the program declares them.
        let rows = Rows {
            tree,
            columns: table.columns.len(),
            layout: None,
            chunk,
        };
        for index in &table.indexes {
            // Index entries hold a copy of the row: rewritten rows, new entries.
            if before.index(&index.name) == Some(index) && !rewritten {
                continue;
            }
            if before.index(&index.name).is_some() {
                clear(session, &index_tree(&table.name, &index.name), chunk)?;
            }
            backfill_index(session, table, index, rows)?;
        }
        for index in &before.indexes {
            if table.index(&index.name).is_none() {
                clear(session, &index_tree(&table.name, &index.name), chunk)?;
            }
        }
        if before.bounds != table.bounds {
            for i in 0..before.bounds.len() {
                clear(session, &bound_tree(&table.name, i), chunk)?;
            }
            for (i, bound) in table.bounds.iter().enumerate() {
                count_groups(session, table, i, bound, rows)?;
            }
        }
        if before.small_max != table.small_max {
            clear(session, &small_tree(&table.name), chunk)?;
            if let Some(max) = table.small_max {
                if survey.rows > max {
                    return Err(refuse(
                        format!(
                            "`{}` holds {} rows, more than `max {max}`",
                            table.name, survey.rows
                        ),
                        "delete rows first, or declare a larger max",
                    ));
                }
                let tree = session.tree(&small_tree(&table.name));
                session.set_counter(tree, b"", survey.rows)?;
            }
        }
        // `key auto` declared on a table with rows: its counter starts
        // past every stored key (one kept from an earlier `auto` stays if
        // larger: keys are never reused).
        if table.auto && !before.auto {
            let tree = session.tree(&crate::rows::auto_tree(&table.name));
            let counter = session.get_counter(tree, b"")?.max(survey.auto);
            session.set_counter(tree, b"", counter)?;
        }
        // A dropped (or redefined) aggregate's entries go; a new one is
        // back-filled from the rows, in this same transaction.
        for aggregate in &before.aggregates {
            if !table.aggregates.contains(aggregate) {
                clear(
                    session,
                    &aggregate_tree(&table.name, &aggregate.name),
                    chunk,
                )?;
            }
        }
        for aggregate in &table.aggregates {
            if !before.aggregates.contains(aggregate) {
                let mut recount = crate::aggregates::Recount::new(table, aggregate);
                rows.each(session, |_, row| recount.add(&row))?;
                crate::aggregates::backfill(session, table, aggregate, recount)?;
            }
        }
    }
    Ok(())
}

/// Where a table's rows are and how they are read: decoded as `columns`
/// values, reshaped by `layout` where a column was renamed or dropped,
/// `chunk` rows at a time.
#[derive(Clone, Copy)]
struct Rows<'a> {
    tree: Tree,
    columns: usize,
    layout: Option<&'a [usize]>,
    chunk: usize,
}

impl Rows<'_> {
    /// Hands `each` every row in key order, holding one chunk of them.
    fn each<'s>(
        &self,
        session: &mut Session<'s>,
        mut each: impl FnMut(&mut Session<'s>, Vec<Value>) -> Result<()>,
    ) -> Result<()> {
        session.each_chunk(self.tree, self.chunk, |session, entries| {
            for (_, bytes) in entries {
                let row = decode_row(&bytes, self.columns)?;
                let row = match self.layout {
                    Some(layout) => reshape_row(&row, layout),
                    None => row,
                };
                each(session, row)?;
            }
            Ok(())
        })
    }
}

/// What the first read of a changed table's rows finds, as they are
/// stored: how many there are (for `small … max`), the largest `key auto`
/// key, and the longest value of each column whose length bound is new or
/// tightened (looser or dropped ones always hold).
struct Survey {
    rows: u64,
    auto: u64,
    /// Each such column's position, its new bound, and its longest value.
    lengths: Vec<(usize, u64, Option<u64>)>,
}

impl Survey {
    fn of(
        session: &mut Session<'_>,
        before: &TableSchema,
        table: &TableSchema,
        rows: Rows<'_>,
    ) -> Result<Survey> {
        let mut survey = Survey {
            rows: 0,
            auto: 0,
            lengths: before
                .columns
                .iter()
                .zip(&table.columns)
                .enumerate()
                .filter_map(|(i, (was, column))| {
                    let max = column.max_len?;
                    was.max_len
                        .is_none_or(|was| max < was)
                        .then_some((i, max, None))
                })
                .collect(),
        };
        let auto = (table.auto && !before.auto).then(|| table.key[0]);
        rows.each(session, |_, row| {
            survey.rows += 1;
            if let Some(key) = auto {
                survey.auto = crate::rows::auto_counter_past(survey.auto, &row[key]);
            }
            for (i, _, longest) in &mut survey.lengths {
                if let Some(Value::Str(text)) = row.get(*i) {
                    *longest = (*longest).max(Some(text.len() as u64));
                }
            }
            Ok(())
        })?;
        Ok(survey)
    }

    /// E0510 naming the first column (in order) holding a value longer
    /// than its new bound, and the longest such value.
    fn check_length_bounds(&self, table: &TableSchema) -> Result<()> {
        for &(i, max, longest) in &self.lengths {
            let column = &table.columns[i];
            if let Some(longest) = longest.filter(|&longest| longest > max) {
                return Err(refuse(
                    format!(
                        "`{}.{}` would hold at most {max} bytes, but a stored value has {longest}",
                        table.name, column.name
                    ),
                    &format!(
                        "declare `{}: {} <= {longest}` or more, or shorten the stored values first",
                        column.name,
                        column.ty.name()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A dropped table's rows no longer reference anything: each reference
/// they hold to a table that stays is taken off its counter, or the
/// referenced row could never be deleted again (E0506) and `verify` would
/// find the counter wrong (adversary finding). One read of the dropped
/// rows, one counter write per reference, in the install's transaction.
fn release_references(
    session: &mut Session<'_>,
    table: &TableSchema,
    new: &Schema,
    chunk: usize,
) -> Result<()> {
    let staying: Vec<(usize, &str)> = table
        .columns
        .iter()
        .enumerate()
        .filter_map(|(c, column)| Some((c, column.references.as_deref()?)))
        .filter(|(_, target)| new.table(target).is_some())
        .collect();
    if staying.is_empty() {
        return Ok(());
    }
    let rows = Rows {
        tree: session.tree(&table_tree(&table.name)),
        columns: table.columns.len(),
        layout: None,
        chunk,
    };
    rows.each(session, |session, row| {
        for &(c, target) in &staying {
            if row[c] == Value::Null {
                continue;
            }
            let tree = session.tree(&crate::rows::refcount_tree(target));
            let key = encode_key(std::slice::from_ref(&row[c]), &[])?;
            let count = session.get_counter(tree, &key)?;
            session.set_counter(tree, &key, count.saturating_sub(1))?;
        }
        Ok(())
    })
}

/// Every tree of a table dropped with `--migrate table:T`: its rows go.
fn drop_table(session: &mut Session<'_>, table: &TableSchema, chunk: usize) -> Result<()> {
    clear(session, &table_tree(&table.name), chunk)?;
    for index in &table.indexes {
        clear(session, &index_tree(&table.name, &index.name), chunk)?;
    }
    for i in 0..table.bounds.len() {
        clear(session, &bound_tree(&table.name, i), chunk)?;
    }
    clear(session, &small_tree(&table.name), chunk)?;
    clear(session, &crate::rows::auto_tree(&table.name), chunk)?;
    for aggregate in &table.aggregates {
        clear(
            session,
            &aggregate_tree(&table.name, &aggregate.name),
            chunk,
        )?;
    }
    clear(session, &crate::rows::refcount_tree(&table.name), chunk)
}

/// Removes every entry of the tree called `name`, a chunk at a time.
fn clear(session: &mut Session<'_>, name: &str, chunk: usize) -> Result<()> {
    let tree = session.tree(name);
    session.each_chunk(tree, chunk, |session, entries| {
        entries
            .iter()
            .try_for_each(|(key, _)| session.delete(tree, key))
    })
}

#[cfg(test)]
mod tests {
    use super::clear;
    use crate::session::Session;
    use crate::store::MemoryStore;

    /// A tree walked three entries at a time while each entry read is
    /// written back (a rewrite) and one is written past the walk: every
    /// key is read once, in order, the one written ahead in its turn.
    #[test]
    fn a_walk_in_chunks_reads_each_key_once_while_it_writes_the_tree() {
        let store = MemoryStore::new();
        let mut session = Session::write(&store).unwrap();
        let tree = session.tree("t:T");
        for key in 0u8..10 {
            session.put(tree, &[key], b"old").unwrap();
        }
        let mut seen = Vec::new();
        session
            .each_chunk(tree, 3, |session, entries| {
                assert!(entries.len() <= 3);
                for (key, value) in entries {
                    assert_eq!(value, b"old", "{key:?} read after it was rewritten");
                    session.put(tree, &key, b"new")?;
                    if key == [4] {
                        session.put(tree, &[20], b"old")?;
                    }
                    seen.push(key[0]);
                }
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20]);
        let stored = session.range(tree, &[], None, usize::MAX).unwrap();
        assert!(stored.iter().all(|(_, value)| value == b"new"));
        // A tree of a whole number of chunks, emptied a chunk at a time.
        session.delete(tree, &[20]).unwrap();
        session.delete(tree, &[9]).unwrap();
        clear(&mut session, "t:T", 3).unwrap();
        assert!(session.range(tree, &[], None, 1).unwrap().is_empty());
    }
}
