//! Reading rows for `rqc load`: JSON lines or CSV, each field checked against its column.

use rqc_plan::{ColumnType, TableSchema, Value};
use rqc_runtime::RuntimeError;

/// One parsed row per data line, with its 1-based line number; a line that
/// does not parse is an error for that line only.
pub type ParsedRows = rqc::LoadRows;

fn bad(message: String, help: &str) -> RuntimeError {
    RuntimeError::new("E0525", message, help)
}

/// Rows from JSON lines: one object per line, keys naming columns; an
/// optional column may be absent or null. Blank lines are skipped.
pub fn parse_jsonl(table: &TableSchema, text: &str) -> ParsedRows {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Line>(line)
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
                        .map(|column| {
                            let value = match fields.get(&column.name) {
                                Some(value) => value.clone(),
                                None if matches!(column.ty, ColumnType::Optional(_)) => {
                                    serde_json::Value::Null
                                }
                                None => {
                                    return Err(bad(
                                        format!("the column `{}` is missing", column.name),
                                        "give every column without `?` a value",
                                    ))
                                }
                            };
                            from_json(&column.ty, &value).ok_or_else(|| {
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
            });
        rows.push((number, parsed));
    }
    rows
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

fn from_json(ty: &ColumnType, value: &serde_json::Value) -> Option<Value> {
    use serde_json::Value as J;
    match (ty, value) {
        (ColumnType::Optional(_), J::Null) => Some(Value::Null),
        (ColumnType::Optional(inner), other) => from_json(inner, other),
        (ColumnType::Int, J::Number(n)) => n.as_i64().map(Value::Int),
        (ColumnType::Float, J::Number(n)) => n.as_f64().filter(|x| x.is_finite()).map(Value::Float),
        (ColumnType::String, J::String(s)) => Some(Value::Str(s.clone())),
        (ColumnType::Bool, J::Bool(b)) => Some(Value::Bool(*b)),
        _ => None,
    }
}

/// Rows from CSV: a header line naming the columns (in any order, all of
/// them but optional ones), then one row per line; fields may be quoted
/// with `"` (a doubled `""` inside is a quote); an empty field of an
/// optional column is none.
pub fn parse_csv(table: &TableSchema, text: &str) -> ParsedRows {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    let Some((_, header)) = lines.next() else {
        return Vec::new();
    };
    let header = match split_csv(header) {
        Some(h) => h,
        None => {
            return vec![(
                1,
                Err(bad(
                    "the header line has an unclosed quote".into(),
                    "close every quoted field",
                )),
            )]
        }
    };
    let mut positions = Vec::new();
    for name in &header {
        match table.column(name.trim()) {
            Some(p) => positions.push(p),
            None => {
                return vec![(
                    1,
                    Err(bad(
                        format!("`{}` has no column `{}`", table.name, name.trim()),
                        "name the table's columns in the header",
                    )),
                )]
            }
        }
    }
    if let Some(missing) = table
        .columns
        .iter()
        .enumerate()
        .find(|(i, c)| !positions.contains(i) && !matches!(c.ty, ColumnType::Optional(_)))
    {
        return vec![(
            1,
            Err(bad(
                format!("the header lacks the column `{}`", missing.1.name),
                "name every column without `?` in the header",
            )),
        )];
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed = split_csv(line)
            .ok_or_else(|| bad("an unclosed quote".into(), "close every quoted field"))
            .and_then(|fields| {
                if fields.len() != positions.len() {
                    return Err(bad(
                        format!(
                            "{} fields, the header has {}",
                            fields.len(),
                            positions.len()
                        ),
                        "give one field per header column",
                    ));
                }
                let mut row = vec![Value::Null; table.columns.len()];
                for (field, &position) in fields.iter().zip(&positions) {
                    let column = &table.columns[position];
                    row[position] = from_text(&column.ty, field).ok_or_else(|| {
                        bad(
                            format!(
                                "`{}` is `{}`, and `{field}` is not one",
                                column.name,
                                column.ty.name()
                            ),
                            "give each column a value of its type",
                        )
                    })?;
                }
                Ok(row)
            });
        rows.push((number, parsed));
    }
    rows
}

fn from_text(ty: &ColumnType, text: &str) -> Option<Value> {
    match ty {
        ColumnType::Optional(_) if text.is_empty() => Some(Value::Null),
        ColumnType::Optional(inner) => from_text(inner, text),
        ColumnType::Int => text.trim().parse().ok().map(Value::Int),
        ColumnType::Float => text
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .map(Value::Float),
        ColumnType::Bool => match text.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ColumnType::String => Some(Value::Str(text.to_string())),
    }
}

/// Splits one CSV line; `None` on an unclosed quote.
fn split_csv(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (_, c) => field.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(field);
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rqc_plan::Column;

    fn table() -> TableSchema {
        let column = |name: &str, ty| Column {
            name: name.into(),
            ty,
            references: None,
            default: None,
        };
        TableSchema {
            name: "T".into(),
            columns: vec![
                column("id", ColumnType::Int),
                column("name", ColumnType::String),
                column("note", ColumnType::Optional(Box::new(ColumnType::String))),
            ],
            key: vec![0],
            indexes: vec![],
            bounds: vec![],
            small_max: None,
        }
    }

    #[test]
    fn csv_fields_quotes_and_optional_columns() {
        let rows = parse_csv(&table(), "name,id\n\"a, \"\"b\"\"\",1\nplain,2\n");
        let values: Vec<Vec<Value>> = rows.into_iter().map(|(_, r)| r.unwrap()).collect();
        assert_eq!(
            values[0],
            vec![Value::Int(1), Value::Str("a, \"b\"".into()), Value::Null]
        );
        assert_eq!(values[1][1], Value::Str("plain".into()));
    }

    #[test]
    fn bad_lines_are_errors_with_their_line_numbers() {
        let rows = parse_csv(&table(), "id,name\n1,a\nx,b\n3\n");
        assert!(rows[0].1.is_ok());
        assert_eq!(rows[1].0, 3);
        assert!(rows[1]
            .1
            .as_ref()
            .unwrap_err()
            .message
            .contains("`x` is not one"));
        assert!(rows[2]
            .1
            .as_ref()
            .unwrap_err()
            .message
            .contains("1 fields, the header has 2"));
        let rows = parse_jsonl(
            &table(),
            "{\"id\": 1, \"name\": \"a\"}\n\n{\"id\": \"2\", \"name\": \"b\"}\nnot json\n",
        );
        assert!(rows[0].1.is_ok());
        assert_eq!(rows[1].0, 3);
        assert!(rows[1]
            .1
            .as_ref()
            .unwrap_err()
            .message
            .contains("`id` is `Int`"));
        assert_eq!(rows[2].0, 4);
    }

    #[test]
    fn a_header_without_a_required_column_is_refused() {
        let rows = parse_csv(&table(), "id\n1\n");
        assert!(rows[0]
            .1
            .as_ref()
            .unwrap_err()
            .message
            .contains("lacks the column `name`"));
    }

    #[test]
    fn duplicate_keys_missing_columns_infinite_floats_and_byte_order_marks() {
        let message =
            |rows: &ParsedRows, at: usize| rows[at].1.as_ref().unwrap_err().message.clone();
        let rows = parse_jsonl(
            &table(),
            "\u{feff}{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \"a\", \"name\": \"b\"}\n{\"id\": 3}\n[1]\n",
        );
        assert!(rows[0].1.is_ok(), "a byte-order mark is skipped");
        assert!(message(&rows, 1).contains("the key `name` is given twice"));
        assert!(message(&rows, 2).contains("the column `name` is missing"));
        assert!(message(&rows, 3).contains("not a JSON object"));
        let floats = TableSchema {
            columns: vec![
                table().columns[0].clone(),
                Column {
                    name: "x".into(),
                    ty: ColumnType::Float,
                    references: None,
                    default: None,
                },
            ],
            ..table()
        };
        let rows = parse_csv(&floats, "\u{feff}id,x\n1,1e999999\n2,2.5\n");
        assert!(message(&rows, 0).contains("`1e999999` is not one"));
        assert_eq!(rows[1].1.as_ref().unwrap()[1], Value::Float(2.5));
    }
}
