//! A row's values against its table's column types: each fitted to its column (`-0.0` made `0.0`, an `Int` given for a `Float`), then checked for type, length and finiteness, with messages that show the value.

use crate::error::{Result, RuntimeError};
use rqc_plan::{ColumnType, TableSchema, Value};

/// A row as it is stored: each value fitted to its column's type
/// (`rqc_plan::number::conform`: an `Int` for a `Float` column is that
/// float, `-0.0` is `0.0`, a `Float` for an `Int` column is refused), then
/// checked against the schema ([`check_types`]).
pub fn conform_row(table: &TableSchema, row: Vec<Value>) -> Result<Vec<Value>> {
    let row = if row.len() == table.columns.len() {
        table
            .columns
            .iter()
            .zip(row)
            .map(|(column, value)| {
                rqc_plan::number::conform(&column.ty, value).map_err(|e| {
                    RuntimeError::new(
                        e.code,
                        format!("`{}.{}`: {}", table.name, column.name, e.message),
                        e.help,
                    )
                })
            })
            .collect::<Result<Vec<Value>>>()?
    } else {
        row
    };
    check_types(table, &row)?;
    Ok(row)
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
                    "`{}.{}` is `{}`, but the value is {}",
                    table.name,
                    column.name,
                    column.ty.name(),
                    shown(value)
                ),
                format!("give a `{}` value", column.ty.name()),
            ));
        }
        if let (Some(max), Value::Str(text)) = (column.max_len, value) {
            if text.len() as u64 > max {
                return Err(too_long(table, column, text.len(), max));
            }
        }
        if let Value::Str(text) = value {
            if text.len() as u64 > rqc_cost::MAX_STRING_BYTES {
                return Err(past_any_string(table, column, text.len()));
            }
        }
    }
    Ok(())
}

/// E0576: a string longer than its column's declared length bound.
fn too_long(table: &TableSchema, column: &rqc_plan::Column, len: usize, max: u64) -> RuntimeError {
    RuntimeError::new(
        "E0576",
        format!(
            "`{}.{}` holds at most {max} bytes (`String <= {max}`), and the value has {len}; nothing was written",
            table.name, column.name
        ),
        format!(
            "shorten the value to at most {max} bytes, or raise the column's bound in the program (`{}: {} <= {len}`) and install it again",
            column.name,
            column.ty.name()
        ),
    )
}

/// E0576: a string past the most any string may hold (16 MiB), whatever
/// its column declares: every cost bound counts a string's work as at
/// most that long (spec/cost.md §2, "Steps").
fn past_any_string(table: &TableSchema, column: &rqc_plan::Column, len: usize) -> RuntimeError {
    RuntimeError::new(
        "E0576",
        format!(
            "`{}.{}` would hold a string of {len} bytes, past the {} any string may hold; nothing was written",
            table.name,
            column.name,
            rqc_cost::MAX_STRING_BYTES
        ),
        "store a large document outside the database (a file or object store) and keep its name or address in the column",
    )
}

pub fn fits(ty: &ColumnType, value: &Value) -> bool {
    match (ty, value) {
        (ColumnType::Int, Value::Int(_))
        | (ColumnType::String, Value::Str(_))
        | (ColumnType::Bool, Value::Bool(_))
        | (ColumnType::Optional(_), Value::Null) => true,
        // No `Float` is infinite or NaN: JSON has no spelling for either.
        (ColumnType::Float, Value::Float(x)) => x.is_finite(),
        (ColumnType::Optional(inner), value) => fits(inner, value),
        _ => false,
    }
}

/// Whether `value` holds an infinite or NaN float (which prints as `null`,
/// so a message about it says what it is instead).
pub fn not_finite(value: &Value) -> bool {
    match value {
        Value::Float(x) => !x.is_finite(),
        Value::List(items) => items.iter().any(not_finite),
        Value::Record(record) => record.values().iter().any(not_finite),
        _ => false,
    }
}

/// What an error says a value is: itself, or, for an infinite or NaN
/// float, that.
pub fn shown(value: &Value) -> String {
    if not_finite(value) {
        "an infinite or NaN float (the largest float is about 1.8e308)".to_string()
    } else {
        value.to_string()
    }
}
