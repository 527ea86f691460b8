//! The schema part of a program checked before install: names valid and unique, positions in range, defaults of their column's type, references to one-column keys of the same type, bounds over a prefix of the key or an index, aggregates the runtime can keep.
//!
//! The runtime derives every write's upkeep from the schema (the unique
//! checks, reference checks and counts, bound and small-table counters,
//! aggregate entries and index entries of `constraints.rs` and
//! `aggregates.rs`), so a schema that passes here is one whose
//! declarations the runtime enforces as written: two indexes of one name
//! would share one tree, a reference to a missing table would be checked
//! by nothing, a default of another type would be written into every row.

use super::{is_name, schema_fault, shown};
use crate::error::{Result, RuntimeError};
use crate::row_types::fits;
use rqc_cost::CEILING;
use rqc_plan::schema::BoundSchema;
use rqc_plan::{AggregateKind, ColumnType, Literal, Schema, TableSchema};
use std::collections::HashSet;

/// Checks every table, then the aggregates' names across tables (an
/// aggregate is found by its name alone).
pub(super) fn check_schema(schema: &Schema) -> Result<()> {
    let mut tables = HashSet::new();
    for table in &schema.tables {
        name("a table", &table.name)?;
        if !tables.insert(table.name.as_str()) {
            return Err(twice(format!("table {}", shown(&table.name))));
        }
    }
    let mut aggregates = HashSet::new();
    for table in &schema.tables {
        check_table(schema, table)?;
        for aggregate in &table.aggregates {
            if !aggregates.insert(aggregate.name.as_str()) {
                return Err(twice(format!("aggregate {}", shown(&aggregate.name))));
            }
        }
    }
    check_cascades(schema)
}

/// `on delete` (spec/cost.md §7.3): only on a `ref` column (`set none` on
/// an optional one) whose rows form an island, a `bound` over exactly it
/// that the key or an index begins with, and never around a cycle of
/// cascades: otherwise a delete would read rows no bound limits, or run
/// without end (E0616). Run after every table's positions and bounds
/// passed.
fn check_cascades(schema: &Schema) -> Result<()> {
    for table in &schema.tables {
        for (c, column) in table.columns.iter().enumerate() {
            let Some(action) = column.on_delete else {
                continue;
            };
            let what = format!(
                "`on delete {}` of column {}.{}",
                action.text(),
                shown(&table.name),
                shown(&column.name)
            );
            if column.references.is_none() {
                return Err(cascade_fault(format!(
                    "{what} is on a column that references no table"
                )));
            }
            if action == rqc_plan::OnDelete::SetNone
                && !matches!(column.ty, ColumnType::Optional(_))
            {
                return Err(cascade_fault(format!(
                    "{what} is on a `{}` column, which cannot hold none",
                    column.ty.name()
                )));
            }
            if action == rqc_plan::OnDelete::SetNone && table.key.contains(&c) {
                return Err(cascade_fault(format!(
                    "{what} is on a column of the key, which no write changes"
                )));
            }
            if table.island_of(c).is_none() {
                return Err(cascade_fault(format!(
                    "{what} is on a column no `bound` over exactly it limits: a delete would read rows no bound limits"
                )));
            }
        }
    }
    if let Some(cycle) = schema.cascade_cycle() {
        let names: Vec<String> = cycle.iter().map(|t| shown(t)).collect();
        return Err(cascade_fault(format!(
            "cascading deletes go around a cycle ({}): a delete would reach its own table again",
            names.join(" → ")
        )));
    }
    Ok(())
}

fn cascade_fault(message: String) -> RuntimeError {
    schema_fault("E0616", message)
}

fn name(what: &str, name: &str) -> Result<()> {
    if is_name(name) {
        return Ok(());
    }
    Err(schema_fault(
        "E0610",
        format!(
            "{what} is named {}, which is not a name (1 to 255 bytes of letters, digits and `_`, not starting with a digit; no control character, space or punctuation)",
            shown(name)
        ),
    ))
}

fn twice(what: String) -> RuntimeError {
    schema_fault("E0611", format!("{what} is declared twice"))
}

fn check_table(schema: &Schema, table: &TableSchema) -> Result<()> {
    let t = shown(&table.name);
    let mut columns = HashSet::new();
    for column in &table.columns {
        name(&format!("a column of {t}"), &column.name)?;
        if !columns.insert(column.name.as_str()) {
            return Err(twice(format!("column {} of {t}", shown(&column.name))));
        }
        let what = format!("column {}.{}", t, shown(&column.name));
        if let ColumnType::Optional(inner) = &column.ty {
            if matches!(**inner, ColumnType::Optional(_)) {
                return Err(malformed(format!("{what} is an option of an option")));
            }
        }
        check_length(&what, column)?;
        if let Some(default) = &column.default {
            check_default(&what, column, default)?;
        }
        if let Some(target) = &column.references {
            check_reference(schema, &what, &column.ty, target)?;
        }
    }
    let width = table.columns.len();
    positions(&format!("the key of {t}"), &table.key, width)?;
    // A key names one row; `none` equals no value (E0247 in the checker).
    if let Some(&c) = table
        .key
        .iter()
        .find(|&&c| matches!(table.columns[c].ty, ColumnType::Optional(_)))
    {
        return Err(malformed(format!(
            "the key of {t} holds the optional column {}",
            shown(&table.columns[c].name)
        )));
    }
    if table.auto
        && !matches!(table.key.as_slice(), [c] if table.columns[*c].ty == ColumnType::Int && table.columns[*c].default.is_none())
    {
        return Err(malformed(format!(
            "{t} is `key auto` but its key is not one `Int` column without a default"
        )));
    }
    let mut indexes = HashSet::new();
    for index in &table.indexes {
        name(&format!("an index of {t}"), &index.name)?;
        if !indexes.insert(index.name.as_str()) {
            return Err(twice(format!(
                "index {} of {t} (two indexes of one name would share one tree)",
                shown(&index.name)
            )));
        }
        let what = format!("index {}.{}", t, shown(&index.name));
        positions(&what, &index.columns, width)?;
        if index.descending.len() != index.columns.len() {
            return Err(schema_fault(
                "E0612",
                format!(
                    "{what} has {} columns but {} directions",
                    index.columns.len(),
                    index.descending.len()
                ),
            ));
        }
    }
    let mut bounded = HashSet::new();
    for bound in &table.bounds {
        check_bound(table, bound)?;
        if !bounded.insert(bound.columns.as_slice()) {
            return Err(twice(format!("a `bound` over the same columns of {t}")));
        }
    }
    if let Some(max) = table.small_max {
        within_ceiling(&format!("the `max` of small table {t}"), max)?;
    }
    for aggregate in &table.aggregates {
        check_aggregate(table, aggregate)?;
    }
    Ok(())
}

/// E0615: a declaration the language never makes.
fn malformed(what: String) -> RuntimeError {
    schema_fault("E0615", what)
}

/// A list of column positions: at least one, each a column, none twice.
fn positions(what: &str, positions: &[usize], width: usize) -> Result<()> {
    if positions.is_empty() {
        return Err(schema_fault("E0612", format!("{what} names no column")));
    }
    for (i, &p) in positions.iter().enumerate() {
        if p >= width {
            return Err(schema_fault(
                "E0612",
                format!("{what} names column position {p}, and the table has {width} columns"),
            ));
        }
        if positions[..i].contains(&p) {
            return Err(schema_fault(
                "E0612",
                format!("{what} names column position {p} twice"),
            ));
        }
    }
    Ok(())
}

fn within_ceiling(what: &str, n: u64) -> Result<()> {
    if (1..=CEILING).contains(&n) {
        return Ok(());
    }
    Err(malformed(format!(
        "{what} is {n}; it must be between 1 and {CEILING}"
    )))
}

/// `String <= n`: on a `String` or `String?` column, 1 to the ceiling.
fn check_length(what: &str, column: &rqc_plan::Column) -> Result<()> {
    let Some(max) = column.max_len else {
        return Ok(());
    };
    if base(&column.ty) != &ColumnType::String {
        return Err(malformed(format!(
            "{what} is `{}` and has a length bound",
            column.ty.name()
        )));
    }
    within_ceiling(&format!("the length bound of {what}"), max)
}

/// The type under `?`.
fn base(ty: &ColumnType) -> &ColumnType {
    match ty {
        ColumnType::Optional(inner) => inner,
        other => other,
    }
}

/// A default is a value of the column's type (a finite `Float` that is not
/// `-0.0`, which the system never holds), within its length bound. The
/// refusal says what the default is (a NaN is a float, not "another
/// type"; `-0.0` is named as written, not as the `0.0` it would read as)
/// and its help gives a default to write.
fn check_default(what: &str, column: &rqc_plan::Column, default: &Literal) -> Result<()> {
    let value = default.value();
    let wrong = |why: String, fix: &str, example: &str| {
        RuntimeError::new(
            "E0613",
            format!(
                "the program's schema is refused: {what} is `{}`, and its default {why}: it would be written into every stored row",
                column.declared()
            ),
            format!(
                "give the column {fix}, such as `{}: {} = {example}`, then compile the program again with this rqc (`rqc compile SOURCES -o FILE`, or install the sources) and install that; nothing was installed",
                column.name,
                column.declared()
            ),
        )
    };
    if let (Literal::Float(bits), ColumnType::Float) = (default, base(&column.ty)) {
        let x = f64::from_bits(*bits);
        let why = if x.is_nan() {
            Some("is NaN (not a number), which no `Float` holds".to_string())
        } else if x.is_infinite() {
            let sign = if x < 0.0 { "-" } else { "" };
            Some(format!("is infinite ({sign}inf), which no `Float` holds"))
        } else if x == 0.0 && x.is_sign_negative() {
            Some(
                "is -0.0, which no `Float` holds (every float zero is 0.0, spec/types.md \"Value identity\")"
                    .to_string(),
            )
        } else {
            None
        };
        if let Some(why) = why {
            return Err(wrong(why, "a finite default that is not -0.0", "0.0"));
        }
    }
    let example = match base(&column.ty) {
        _ if matches!(column.ty, ColumnType::Optional(_)) => "none",
        ColumnType::Int => "0",
        ColumnType::Float => "0.0",
        ColumnType::Bool => "false",
        _ => "\"\"",
    };
    if !fits(&column.ty, &value) {
        return Err(wrong(
            format!("{value} is not of that type"),
            "a default of its type",
            example,
        ));
    }
    if let Literal::String(text) = default {
        if text.len() as u64 > rqc_cost::MAX_STRING_BYTES {
            return Err(wrong(
                format!(
                    "is {} bytes long, past the {} any string may hold",
                    text.len(),
                    rqc_cost::MAX_STRING_BYTES
                ),
                "a short default",
                "\"\"",
            ));
        }
    }
    if let (Some(max), Literal::String(text)) = (column.max_len, default) {
        if text.len() as u64 > max {
            return Err(wrong(
                format!("is {} bytes long, past its bound of {max}", text.len()),
                "a default within its length bound",
                "\"\"",
            ));
        }
    }
    Ok(())
}

/// `ref T`: `T` is a table whose key is one column, of this column's type
/// (under `?`).
fn check_reference(schema: &Schema, what: &str, ty: &ColumnType, target: &str) -> Result<()> {
    let Some(table) = schema.tables.iter().find(|t| t.name == target) else {
        return Err(schema_fault(
            "E0614",
            format!(
                "{what} references {}, which is no table of the schema (no write would check the reference)",
                shown(target)
            ),
        ));
    };
    let key = match table.key.as_slice() {
        [k] => table.columns.get(*k),
        _ => None,
    };
    match key {
        Some(key) if &key.ty == base(ty) => Ok(()),
        Some(key) => Err(schema_fault(
            "E0614",
            format!(
                "{what} is `{}` and references {}, whose key is `{}`",
                ty.name(),
                shown(target),
                key.ty.name()
            ),
        )),
        None => Err(schema_fault(
            "E0614",
            format!(
                "{what} references {}, whose key is not one column",
                shown(target)
            ),
        )),
    }
}

/// `bound cols <= n`: over columns that begin the key or an index, in
/// order (the runtime counts them with one range read), 1 to the ceiling.
fn check_bound(table: &TableSchema, bound: &BoundSchema) -> Result<()> {
    let what = format!("a `bound` of {}", shown(&table.name));
    positions(&what, &bound.columns, table.columns.len())?;
    let n = bound.columns.len();
    let begins = |cols: &[usize]| cols.len() >= n && cols[..n] == bound.columns[..];
    if !begins(&table.key) && !table.indexes.iter().any(|i| begins(&i.columns)) {
        return Err(malformed(format!(
            "{what} is not over a prefix of the key or of an index"
        )));
    }
    within_ceiling(&format!("the limit of {what}"), bound.limit)
}

/// An aggregate: `count` reads no column, `sum` an `Int` one, `min`/`max`
/// a column that always holds a value and whose next extreme is found
/// within a bound (`TableSchema::extreme_path`).
fn check_aggregate(table: &TableSchema, aggregate: &rqc_plan::AggregateSchema) -> Result<()> {
    name("an aggregate", &aggregate.name)?;
    let what = format!("aggregate {}", shown(&aggregate.name));
    let width = table.columns.len();
    for (i, &p) in aggregate.by.iter().enumerate() {
        if p >= width || aggregate.by[..i].contains(&p) {
            return Err(schema_fault(
                "E0612",
                format!("{what} groups by column position {p}, out of range or named twice"),
            ));
        }
    }
    let column = match aggregate.column {
        Some(c) => Some(table.columns.get(c).ok_or_else(|| {
            schema_fault(
                "E0612",
                format!("{what} reads column position {c}, and the table has {width} columns"),
            )
        })?),
        None => None,
    };
    let fine = match (aggregate.kind, column) {
        (AggregateKind::Count, None) => true,
        (AggregateKind::Sum, Some(c)) => base(&c.ty) == &ColumnType::Int,
        (AggregateKind::Min | AggregateKind::Max, Some(c)) => {
            !matches!(c.ty, ColumnType::Optional(_)) && table.extreme_path(aggregate).is_some()
        }
        _ => false,
    };
    if fine {
        return Ok(());
    }
    Err(malformed(format!(
        "{what} is a `{}` the runtime cannot keep over {} (count reads no column, sum an `Int` column, min and max a column that always holds a value, with an index or a bound to find the next extreme)",
        aggregate.kind.name(),
        shown(&table.name)
    )))
}
