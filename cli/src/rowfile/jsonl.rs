//! JSON lines for `rqc load`: one object per line, keys naming columns, each value checked against its column.

use super::{bad, unreadable};
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

/// One line's row.
fn parse_line(table: &TableSchema, line: &str) -> Result<Vec<Value>, RuntimeError> {
    serde_json::from_str::<Line>(line)
        .map_err(|e| bad(format!("not JSON: {e}"), "write one JSON object per line"))
        .and_then(|json| match json {
            Line::Object(pairs) => {
                let mut fields = serde_json::Map::new();
                for (key, value) in pairs {
                    if fields.insert(key.clone(), value).is_some() {
                        return Err(bad(
                            format!("the key `{key}` is given twice"),
                            "give each column once per line",
                        ));
                    }
                }
                if let Some(unknown) = fields.keys().find(|k| table.column(k).is_none()) {
                    return Err(bad(
                        format!("`{}` has no column `{unknown}`", table.name),
                        "use the table's column names as keys",
                    ));
                }
                table
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(position, column)| {
                        let value = match fields.get(&column.name) {
                            Some(value) => value.clone(),
                            None => {
                                return super::left_out(table, position).ok_or_else(|| {
                                    bad(
                                        format!("the column `{}` is missing", column.name),
                                        "give every column that is neither optional (`?`) nor defaulted (`= …`) a value",
                                    )
                                })
                            }
                        };
                        from_json(&column.ty, &value)
                            .map_err(|error| super::bad_number(&column.name, error))?
                            .ok_or_else(|| {
                                bad(
                                    format!(
                                        "`{}` is `{}`, and {value} is not one",
                                        column.name,
                                        column.ty.name()
                                    ),
                                    "give each column a value of its type",
                                )
                            })
                    })
                    .collect()
            }
            Line::Other => Err(bad(
                "not a JSON object".into(),
                "write one object per line, keys naming columns",
            )),
        })
}

/// A line of JSON: an object's key-value pairs in order, duplicates kept
/// (serde_json's map keeps only the last), or any other value.
enum Line {
    Object(Vec<(String, serde_json::Value)>),
    Other,
}

impl<'de> serde::Deserialize<'de> for Line {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Line, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Line;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Line, M::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, serde_json::Value>()? {
                    pairs.push(pair);
                }
                Ok(Line::Object(pairs))
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(self, mut seq: S) -> Result<Line, S::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Line::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Line, E> {
                Ok(Line::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Line, E> {
                Ok(Line::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Line, E> {
                Ok(Line::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Line, E> {
                Ok(Line::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Line, E> {
                Ok(Line::Other)
            }
            fn visit_unit<E>(self) -> Result<Line, E> {
                Ok(Line::Other)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A field's value of its column's type: a number as the one number
/// parser reads JSON (`1` for a `Float` is `1.0`; `1.0` for an `Int` is
/// E0007, past 64 bits E0004), anything else not of the type `Ok(None)`.
fn from_json(
    ty: &ColumnType,
    value: &serde_json::Value,
) -> Result<Option<Value>, rqc_plan::number::NumberError> {
    use rqc_plan::number::{from_json as number, NumberType};
    use serde_json::Value as J;
    Ok(match (ty, value) {
        (ColumnType::Optional(_), J::Null) => Some(Value::Null),
        (ColumnType::Optional(inner), other) => return from_json(inner, other),
        (ColumnType::Int, J::Number(n)) => Some(number(n, NumberType::Int)?),
        (ColumnType::Float, J::Number(n)) => Some(number(n, NumberType::Float)?),
        (ColumnType::String, J::String(s)) => Some(Value::Str(s.clone())),
        (ColumnType::Bool, J::Bool(b)) => Some(Value::Bool(*b)),
        _ => None,
    })
}
