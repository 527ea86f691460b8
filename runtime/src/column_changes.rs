//! `--migrate rename:T.old=new` and `--migrate drop:T.column`: the installed schema read as the new program names its columns, and the stored rows reshaped to match (spec/storage.md, "Changing a column").
//!
//! A row is stored as its values in column order, and indexes, bounds and
//! aggregates name columns by position, so a rename changes only the
//! catalog's schema: everything that uses the column is renamed with it.
//! A drop removes one value from every row and moves every later position
//! one down; it is refused while anything of the installed schema uses the
//! column (the key, an index, a bound, an aggregate, or the column's own
//! reference, whose counters the referenced rows hold), naming each, since
//! dropping those first is a decision the user makes.

use crate::error::{Result, RuntimeError};
use rqc_plan::{Schema, TableSchema, Value};

/// For each table whose rows change shape, the old positions its rows
/// keep, in order.
pub type Layouts = Vec<(String, Vec<usize>)>;

/// One column change a `--migrate` flag names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ColumnChange {
    Rename {
        table: String,
        from: String,
        to: String,
    },
    Drop {
        table: String,
        column: String,
    },
}

/// The column changes among `flags` (other flags are drops of tables,
/// indexes and the like, read by `catalog::dropped`). A malformed one is
/// refused, never ignored: a typo must not install as no change.
fn parse(flags: &[String]) -> Result<Vec<ColumnChange>> {
    let mut changes = Vec::new();
    for flag in flags {
        if let Some(rest) = flag.strip_prefix("rename:") {
            let parsed = rest.split_once('=').and_then(|(column, to)| {
                let (table, from) = column.split_once('.')?;
                let named = [table, from, to].iter().all(|n| !n.trim().is_empty());
                named.then(|| ColumnChange::Rename {
                    table: table.trim().to_string(),
                    from: from.trim().to_string(),
                    to: to.trim().to_string(),
                })
            });
            changes.push(parsed.ok_or_else(|| malformed(flag, "rename:Table.old=new"))?);
        } else if let Some(rest) = flag.strip_prefix("drop:") {
            let parsed = rest.split_once('.').and_then(|(table, column)| {
                let named = !table.trim().is_empty() && !column.trim().is_empty();
                named.then(|| ColumnChange::Drop {
                    table: table.trim().to_string(),
                    column: column.trim().to_string(),
                })
            });
            changes.push(parsed.ok_or_else(|| malformed(flag, "drop:Table.column"))?);
        }
    }
    Ok(changes)
}

/// Refuses a malformed column change among `flags`, whether or not the
/// install changes the schema: a typo never installs as no change.
pub fn check(flags: &[String]) -> Result<()> {
    parse(flags).map(|_| ())
}

fn malformed(flag: &str, form: &str) -> RuntimeError {
    RuntimeError::new(
        "E0529",
        format!("`--migrate {flag}` is not a column change rqc reads"),
        format!("write it as `--migrate '{form}'`"),
    )
}

/// The installed schema `old` with the column changes `flags` names
/// applied, and for each table whose rows change shape, the old positions
/// its rows keep, in order. A change already applied (the column is gone,
/// or already has its new name) is skipped, so the same flags may be
/// given to every install.
///
/// Also the index drops the renames imply: a `unique` column's index, and
/// a `unique (a, b)`'s, are named after their columns (`tag`, `g_tag`),
/// so renaming a column renames them (`label`, `g_label`); the old index
/// is dropped and the new one built from the rows, with no `--migrate
/// index:` flag of its own (adversary finding: the rename took two flags).
pub fn reshaped(
    old: &Schema,
    new: &Schema,
    flags: &[String],
) -> Result<(Schema, Layouts, Vec<String>)> {
    let mut schema = old.clone();
    let mut layouts: Layouts = Vec::new();
    let mut implied = Vec::new();
    for change in parse(flags)? {
        match change {
            ColumnChange::Rename { table, from, to } => {
                let Some(t) = schema.tables.iter().position(|t| t.name == table) else {
                    continue;
                };
                let columns = &mut schema.tables[t].columns;
                let Some(c) = columns.iter().position(|c| c.name == from) else {
                    continue;
                };
                if columns.iter().any(|c| c.name == to) {
                    return Err(conflict(format!(
                        "`rename:{table}.{from}={to}`: `{table}` already has a column `{to}`"
                    )));
                }
                let declared = new.table(&table).and_then(|t| t.column(&to));
                if declared.is_none() {
                    return Err(conflict(format!(
                        "`rename:{table}.{from}={to}`: the program declares no column `{table}.{to}`"
                    )));
                }
                let named_after = |table: &TableSchema, index: &rqc_plan::IndexSchema| {
                    let names: Vec<&str> = index
                        .columns
                        .iter()
                        .map(|&x| table.columns[x].name.as_str())
                        .collect();
                    names.join("_")
                };
                let before: Vec<(usize, String)> = schema.tables[t]
                    .indexes
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| i.unique && i.columns.contains(&c))
                    .map(|(i, index)| (i, named_after(&schema.tables[t], index)))
                    .collect();
                schema.tables[t].columns[c].name = to;
                let table_now = &schema.tables[t];
                for (i, old_name) in before {
                    let index = &table_now.indexes[i];
                    let new_name = named_after(table_now, index);
                    let declared = new.table(&table).and_then(|n| {
                        let found = n.index(&new_name)?;
                        let columns: Vec<&str> = found
                            .columns
                            .iter()
                            .map(|&x| n.columns[x].name.as_str())
                            .collect();
                        Some(found.unique && columns.join("_") == new_name)
                    });
                    if index.name == old_name && declared == Some(true) {
                        implied.push(format!("index:{table}.{old_name}"));
                    }
                }
            }
            ColumnChange::Drop { table, column } => {
                let Some(t) = schema.tables.iter().position(|t| t.name == table) else {
                    continue;
                };
                let Some(c) = schema.tables[t]
                    .columns
                    .iter()
                    .position(|x| x.name == column)
                else {
                    continue;
                };
                if new.table(&table).and_then(|t| t.column(&column)).is_some() {
                    return Err(conflict(format!(
                        "`drop:{table}.{column}`: the program still declares `{table}.{column}`"
                    )));
                }
                let users = users(&schema.tables[t], c);
                if !users.is_empty() {
                    return Err(RuntimeError::new(
                        "E0528",
                        format!(
                            "`{table}.{column}` cannot be dropped: {} use{} it",
                            users.join(", "),
                            if users.len() == 1 { "s" } else { "" }
                        ),
                        "change what uses it first: install a program without them (naming each drop with --migrate, as E0519 lists them), then drop the column",
                    ));
                }
                let layout = match layouts.iter_mut().find(|(name, _)| *name == table) {
                    Some((_, layout)) => layout,
                    None => {
                        let all = (0..schema.tables[t].columns.len()).collect();
                        layouts.push((table.clone(), all));
                        &mut layouts.last_mut().expect("just pushed").1
                    }
                };
                layout.remove(c);
                without_column(&mut schema.tables[t], c);
            }
        }
    }
    // The lookups by name were built for the old names.
    Ok((renamed_lookups(schema), layouts, implied))
}

/// What of `table` uses column `c`, each named as a user reads it.
fn users(table: &TableSchema, c: usize) -> Vec<String> {
    let mut users = Vec::new();
    if table.key.contains(&c) {
        users.push(format!("the key of `{}`", table.name));
    }
    if let Some(target) = &table.columns[c].references {
        users.push(format!("its reference to `{target}`"));
    }
    for index in table.indexes.iter().filter(|i| i.columns.contains(&c)) {
        users.push(format!("index `{}.{}`", table.name, index.name));
    }
    for bound in table.bounds.iter().filter(|b| b.columns.contains(&c)) {
        let names: Vec<&str> = bound
            .columns
            .iter()
            .map(|&x| table.columns[x].name.as_str())
            .collect();
        users.push(format!("`bound {} <= {}`", names.join(", "), bound.limit));
    }
    for aggregate in &table.aggregates {
        if aggregate.column == Some(c) || aggregate.by.contains(&c) {
            users.push(format!("aggregate `{}`", aggregate.name));
        }
    }
    users
}

/// `table` without column `c`, which nothing uses: every later position
/// one lower.
fn without_column(table: &mut TableSchema, c: usize) {
    let shift = |x: &mut usize| {
        if *x > c {
            *x -= 1;
        }
    };
    table.columns.remove(c);
    table.key.iter_mut().for_each(shift);
    for index in &mut table.indexes {
        index.columns.iter_mut().for_each(shift);
    }
    for bound in &mut table.bounds {
        bound.columns.iter_mut().for_each(shift);
    }
    for aggregate in &mut table.aggregates {
        aggregate.column.iter_mut().for_each(shift);
        aggregate.by.iter_mut().for_each(shift);
    }
}

/// The schema with its lookups by name forgotten (they are built on first
/// use, from the names and positions the schema held then).
fn renamed_lookups(mut schema: Schema) -> Schema {
    schema.lookups = Default::default();
    for table in &mut schema.tables {
        table.lookups = Default::default();
    }
    schema
}

/// A stored row in its new shape: the values at `layout`'s positions.
pub fn reshape_row(row: &[Value], layout: &[usize]) -> Vec<Value> {
    layout.iter().map(|&c| row[c].clone()).collect()
}

fn conflict(what: String) -> RuntimeError {
    RuntimeError::new(
        "E0529",
        format!("the column change does not fit the program: {what}"),
        "name the column as the installed schema and the program name it: `--migrate 'rename:Table.old=new'` where the program declares `new`, `--migrate 'drop:Table.column'` where it no longer declares the column",
    )
}

/// The flags that would apply the column changes between `before`
/// (installed) and `after` (the program), when there are some: each
/// column the program no longer declares is a rename to the first column
/// the installed schema does not declare, of the same type and reference,
/// not taken by an earlier one; otherwise a drop. For E0510's help.
pub fn suggested_flags(before: &TableSchema, after: &TableSchema) -> Option<String> {
    let mut added: Vec<&rqc_plan::Column> = after
        .columns
        .iter()
        .filter(|now| before.column(&now.name).is_none())
        .collect();
    let mut flags = Vec::new();
    for was in before
        .columns
        .iter()
        .filter(|was| after.column(&was.name).is_none())
    {
        let renamed = added
            .iter()
            .position(|now| now.ty == was.ty && now.references == was.references);
        flags.push(match renamed {
            Some(at) => format!(
                "--migrate 'rename:{}.{}={}'",
                before.name,
                was.name,
                added.remove(at).name
            ),
            None => format!("--migrate 'drop:{}.{}'", before.name, was.name),
        });
    }
    (!flags.is_empty()).then(|| flags.join(" "))
}
