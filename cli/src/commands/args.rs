//! `--arg name=value` parsing against an entry point's typed parameters.

use rqc_plan::{ColumnType, Entry, ParamType, Value};
use rqc_runtime::RuntimeError;

/// Orders named arguments by parameter and converts each to its type.
/// Unknown, repeated, missing and ill-typed arguments are errors that name
/// the parameter and its type.
pub fn parse_args(entry: &Entry, raw: &[String]) -> Result<Vec<Value>, RuntimeError> {
    let signature = || {
        let params: Vec<String> = entry.params.iter().map(ToString::to_string).collect();
        format!("{}({})", entry.name, params.join(", "))
    };
    let mut values: Vec<Option<Value>> = vec![None; entry.params.len()];
    for item in raw {
        let Some((name, text)) = item.split_once('=') else {
            return Err(RuntimeError::new(
                "E0520",
                format!("`--arg {item}` has no value"),
                format!(
                    "write `--arg name=value`; the parameters are {}",
                    signature()
                ),
            ));
        };
        let Some(index) = entry.params.iter().position(|p| p.name == name) else {
            return Err(RuntimeError::new(
                "E0520",
                format!("`{}` has no parameter `{name}`", entry.name),
                format!("the parameters are {}", signature()),
            ));
        };
        if values[index].is_some() {
            return Err(RuntimeError::new(
                "E0520",
                format!("parameter `{name}` is given twice"),
                "give each parameter one `--arg`",
            ));
        }
        let param = &entry.params[index];
        let value = parse_value(&param.ty, text).ok_or_else(|| {
            RuntimeError::new(
                "E0520",
                format!(
                    "parameter `{name}` is `{}`, and `{text}` is not one",
                    param.ty.name()
                ),
                format!("pass {}", example(&param.ty, name)),
            )
        })?;
        values[index] = Some(value);
    }
    let missing: Vec<String> = entry
        .params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| p.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(RuntimeError::new(
            "E0520",
            format!(
                "missing argument{} {}",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ),
            format!(
                "pass each parameter with --arg, e.g. {}",
                entry
                    .params
                    .iter()
                    .map(|p| example(&p.ty, &p.name))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ));
    }
    Ok(values
        .into_iter()
        .map(|v| v.expect("all present"))
        .collect())
}

fn parse_value(ty: &ParamType, text: &str) -> Option<Value> {
    match ty {
        ParamType::Scalar(ty) => parse_scalar(ty, text),
        // A list is JSON: `[1, 2, 3]`, `["a", "b"]`.
        ParamType::List(ty) => match serde_json::from_str::<serde_json::Value>(text).ok()? {
            serde_json::Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    serde_json::Value::String(s) => {
                        parse_scalar(ty, &serde_json::to_string(s).ok()?)
                    }
                    other => parse_scalar(ty, &other.to_string()),
                })
                .collect::<Option<Vec<_>>>()
                .map(Value::List),
            _ => None,
        },
        // A list of records is JSON objects with exactly the fields.
        ParamType::Records(fields) => match serde_json::from_str::<serde_json::Value>(text).ok()? {
            serde_json::Value::Array(items) => items
                .iter()
                .map(|item| parse_record(fields, item))
                .collect::<Option<Vec<_>>>()
                .map(Value::List),
            _ => None,
        },
    }
}

fn parse_record(fields: &[(String, ColumnType)], item: &serde_json::Value) -> Option<Value> {
    let serde_json::Value::Object(object) = item else {
        return None;
    };
    if object.len() != fields.len() {
        return None;
    }
    let values = fields
        .iter()
        .map(|(name, ty)| {
            let value = match object.get(name)? {
                serde_json::Value::String(s) => parse_scalar(ty, &serde_json::to_string(s).ok()?),
                other => parse_scalar(ty, &other.to_string()),
            }?;
            Some((name.clone(), value))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Value::Record(rqc_plan::Record::new(values)))
}

fn parse_scalar(ty: &ColumnType, text: &str) -> Option<Value> {
    match ty {
        ColumnType::Int => text.replace('_', "").parse().ok().map(Value::Int),
        ColumnType::Float => text
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .map(Value::Float),
        ColumnType::Bool => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        // Text is taken as it is; a JSON-quoted string is unquoted.
        ColumnType::String => Some(Value::Str(
            serde_json::from_str::<String>(text).unwrap_or_else(|_| text.to_string()),
        )),
        ColumnType::Optional(inner) => match text {
            "none" | "null" => Some(Value::Null),
            _ => parse_scalar(inner, text),
        },
    }
}

fn example(ty: &ParamType, name: &str) -> String {
    let ty = match ty {
        ParamType::Scalar(ty) => ty,
        ParamType::List(ColumnType::String) => return format!("`--arg {name}='[\"a\", \"b\"]'`"),
        ParamType::List(_) => return format!("`--arg {name}='[1, 2]'`"),
        ParamType::Records(fields) => {
            let example: Vec<String> = fields
                .iter()
                .map(|(field, ty)| {
                    let value = match ty {
                        ColumnType::String => "\"text\"",
                        ColumnType::Float => "2.5",
                        ColumnType::Bool => "true",
                        ColumnType::Optional(_) => "null",
                        ColumnType::Int => "1",
                    };
                    format!("\"{field}\": {value}")
                })
                .collect();
            return format!("`--arg {name}='[{{{}}}]'`", example.join(", "));
        }
    };
    let value = match ty {
        ColumnType::Int => "42",
        ColumnType::Float => "2.5",
        ColumnType::Bool => "true",
        ColumnType::String => "text",
        ColumnType::Optional(_) => "none",
    };
    format!("`--arg {name}={value}`")
}
