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
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<serde_json::Value>(line)
            .map_err(|e| bad(format!("not JSON: {e}"), "write one JSON object per line"))
            .and_then(|json| match json {
                serde_json::Value::Object(fields) => {
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
                            let value = fields
                                .get(&column.name)
                                .cloned()
                                .unwrap_or(serde_json::Value::Null);
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
                _ => Err(bad(
                    "not a JSON object".into(),
                    "write one object per line, keys naming columns",
                )),
            });
        rows.push((number, parsed));
    }
    rows
}

fn from_json(ty: &ColumnType, value: &serde_json::Value) -> Option<Value> {
    use serde_json::Value as J;
    match (ty, value) {
        (ColumnType::Optional(_), J::Null) => Some(Value::Null),
        (ColumnType::Optional(inner), other) => from_json(inner, other),
        (ColumnType::Int, J::Number(n)) => n.as_i64().map(Value::Int),
        (ColumnType::Float, J::Number(n)) => n.as_f64().map(Value::Float),
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
        ColumnType::Float => text.trim().parse().ok().map(Value::Float),
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
}
