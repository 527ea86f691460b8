//! JSON lines for `rqc load`: one object per line, keys naming columns, each value checked against its column.

use super::{bad, unreadable};
use crate::json_text::{self, Json, JsonError};
use rqc::LoadRow;
use rqc_plan::{ColumnType, TableSchema, Value};
use rqc_runtime::RuntimeError;
use std::io::BufRead;
use std::path::Path;

/// The rows of `input`, one per line, each with its 1-based line number;
/// a column left out takes its default, or `none` if it is optional
/// (`Column::left_out`); an optional column may also be null. Blank lines are skipped.
pub fn rows<'a>(
    table: &'a TableSchema,
    mut input: impl BufRead + 'a,
    path: &'a Path,
) -> impl Iterator<Item = rqc_runtime::Result<LoadRow>> + 'a {
    let mut number = 0;
    let mut bytes = Vec::new();
    std::iter::from_fn(move || loop {
        bytes.clear();
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) => return None,
            Ok(_) => number += 1,
            Err(error) => return Some(Err(unreadable(path, error))),
        }
        let Ok(line) = std::str::from_utf8(&bytes) else {
            let error = bad("the line is not UTF-8".into(), "save the file as UTF-8");
            return Some(Ok((number, Err(error))));
        };
        if !line.trim().is_empty() {
            return Some(Ok((number, parse_line(table, line))));
        }
    })
}

/// One line's row. Keys are column names read in normal form C, none
/// twice; a number is read by its spelling (`-0` for an `Int` is 0), as
/// `crate::json_text` reads every JSON text of the CLI.
fn parse_line(table: &TableSchema, line: &str) -> Result<Vec<Value>, RuntimeError> {
    let fields = match json_text::read(line) {
        Ok(Json::Object(fields)) => fields,
        Ok(_) => {
            return Err(bad(
                "not a JSON object".into(),
                "write one object per line, keys naming columns",
            ))
        }
        Err(JsonError::Twice(key)) => {
            return Err(bad(
                format!("the key `{key}` is given twice"),
                "give each column once per line",
            ))
        }
        Err(JsonError::Syntax(e)) => {
            return Err(bad(
                format!("not JSON: {e}"),
                "write one JSON object per line",
            ))
        }
    };
    if let Some((unknown, _)) = fields.iter().find(|(k, _)| table.column(k).is_none()) {
        return Err(bad(
            format!("`{}` has no column `{unknown}`", table.name),
            "use the table's column names as keys",
        ));
    }
    let fields: std::collections::HashMap<&str, &serde_json::value::RawValue> =
        fields.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    table
        .columns
        .iter()
        .enumerate()
        .map(|(position, column)| {
            let Some(value) = fields.get(column.name.as_str()) else {
                return super::left_out(table, position).ok_or_else(|| {
                    bad(
                        format!("the column `{}` is missing", column.name),
                        "give every column that is neither optional (`?`) nor defaulted (`= …`) a value",
                    )
                });
            };
            from_json(&column.ty, value.get())
                .map_err(|error| super::bad_number(&column.name, error))?
                .ok_or_else(|| {
                    bad(
                        format!(
                            "`{}` is `{}`, and {} is not one",
                            column.name,
                            column.ty.name(),
                            value.get()
                        ),
                        "give each column a value of its type",
                    )
                })
        })
        .collect()
}

/// A field's value of its column's type, from its JSON text: a number
/// as the one number parser reads its spelling (`-0` for an `Int` is 0,
/// `1` for a `Float` is `1.0`; `1.0` or `-0.0` for an `Int` is E0007,
/// past 64 bits E0004), anything else not of the type `Ok(None)`.
fn from_json(ty: &ColumnType, text: &str) -> Result<Option<Value>, rqc_plan::number::NumberError> {
    use rqc_plan::number::{parse, NumberType};
    let Ok(json) = json_text::read(text) else {
        return Ok(None);
    };
    Ok(match (ty, json) {
        (ColumnType::Optional(_), Json::Null) => Some(Value::Null),
        (ColumnType::Optional(inner), _) => return from_json(inner, text),
        (ColumnType::Int, Json::Number(n)) => Some(parse(n, NumberType::Int)?),
        (ColumnType::Float, Json::Number(n)) => Some(parse(n, NumberType::Float)?),
        (ColumnType::String, Json::Str(s)) => Some(Value::Str(s)),
        (ColumnType::Bool, Json::Bool(b)) => Some(Value::Bool(b)),
        _ => None,
    })
}
