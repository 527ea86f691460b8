//! `--arg name=value` parsing against an entry point's typed parameters.

use crate::json_text::{self, Json, JsonError};
use rqc_plan::number::{self, NumberError, NumberType};
use rqc_plan::{ColumnType, Entry, ParamType, Value};
use rqc_runtime::RuntimeError;
use serde_json::value::RawValue;

/// Why a text is not a value of its parameter's type: not one at all, a
/// record giving a field twice, or a number the number parser refuses
/// (with its own code: E0004–E0007).
enum Refusal {
    NotOne,
    Twice(String),
    Number(NumberError),
}

impl From<JsonError> for Refusal {
    fn from(error: JsonError) -> Refusal {
        match error {
            JsonError::Twice(key) => Refusal::Twice(key),
            JsonError::Syntax(_) => Refusal::NotOne,
        }
    }
}

impl From<NumberError> for Refusal {
    fn from(error: NumberError) -> Refusal {
        Refusal::Number(error)
    }
}

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
        // A parameter's name is an identifier: read in normal form C, as
        // the program's own (spec/types.md, "Value identity").
        let name = json_text::name(name);
        let name = name.as_str();
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
        let value = parse_value(&param.ty, text).map_err(|refusal| match refusal {
            Refusal::Number(error) => RuntimeError::new(
                error.code,
                format!(
                    "parameter `{name}` is `{}`: {}",
                    param.ty.name(),
                    error.message
                ),
                error.help,
            ),
            Refusal::Twice(key) => RuntimeError::new(
                "E0520",
                format!(
                    "parameter `{name}` is `{}`, and `{text}` gives the field `{key}` twice",
                    param.ty.name()
                ),
                format!("give each field once in each record: {}", example(param)),
            ),
            Refusal::NotOne => RuntimeError::new(
                "E0520",
                format!(
                    "parameter `{name}` is `{}`, and `{text}` is not one",
                    param.ty.name()
                ),
                format!("pass {}", example(param)),
            ),
        })?;
        values[index] = Some(value);
    }
    let missing: Vec<&rqc_plan::ParamSpec> = entry
        .params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| p)
        .collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().map(ToString::to_string).collect();
        return Err(RuntimeError::new(
            "E0520",
            format!(
                "missing argument{} {}",
                if missing.len() == 1 { "" } else { "s" },
                shown.join(", ")
            ),
            format!(
                "pass each parameter with --arg, e.g. {}",
                missing
                    .iter()
                    .map(|p| example(p))
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

fn parse_value(ty: &ParamType, text: &str) -> Result<Value, Refusal> {
    let items = || match json_text::read(text)? {
        Json::Array(items) => Ok(items),
        _ => Err(Refusal::NotOne),
    };
    match ty {
        ParamType::Scalar(ty) => parse_scalar(ty, text),
        // A list is JSON: `[1, 2, 3]`, `["a", "b"]`.
        ParamType::List(ty) => items()?
            .iter()
            .map(|item| json_scalar(ty, item))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List),
        // A list of records is JSON objects with exactly the fields.
        ParamType::Records(fields) => items()?
            .iter()
            .map(|item| parse_record(fields, item))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List),
    }
}

fn parse_record(fields: &[(String, ColumnType)], item: &RawValue) -> Result<Value, Refusal> {
    let Json::Object(object) = json_text::read(item.get())? else {
        return Err(Refusal::NotOne);
    };
    if object.len() != fields.len() {
        return Err(Refusal::NotOne);
    }
    let values = fields
        .iter()
        .map(|(name, ty)| {
            let (_, value) = object
                .iter()
                .find(|(key, _)| key == name)
                .ok_or(Refusal::NotOne)?;
            Ok((name.clone(), json_scalar(ty, value)?))
        })
        .collect::<Result<Vec<_>, Refusal>>()?;
    Ok(Value::Record(rqc_plan::Record::new(values)))
}

/// An item of a JSON list or record, read from its JSON text as a scalar
/// `--arg` is: a number by its spelling (`-0` for an `Int` is 0, `1` for a
/// `Float` is `1.0`, `1.0` for an `Int` is E0007), a string as its text,
/// `null` as none. A list or an object is no scalar.
fn json_scalar(ty: &ColumnType, item: &RawValue) -> Result<Value, Refusal> {
    match item.get().as_bytes().first() {
        Some(b'[' | b'{') => Err(Refusal::NotOne),
        _ => parse_scalar(ty, item.get()),
    }
}

fn parse_scalar(ty: &ColumnType, text: &str) -> Result<Value, Refusal> {
    match ty {
        ColumnType::Int => Ok(number::parse(text, NumberType::Int)?),
        ColumnType::Float => Ok(number::parse(text, NumberType::Float)?),
        ColumnType::Bool => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(Refusal::NotOne),
        },
        // Text is taken as it is; a JSON-quoted string is unquoted.
        ColumnType::String => Ok(Value::Str(
            serde_json::from_str::<String>(text).unwrap_or_else(|_| text.to_string()),
        )),
        ColumnType::Optional(inner) => match text {
            "none" | "null" => Ok(Value::Null),
            _ => parse_scalar(inner, text),
        },
    }
}

/// An `--arg` for `param` that it takes: within its declared ends (a
/// number, a string's bytes, a list's length).
fn example(param: &rqc_plan::ParamSpec) -> String {
    let name = &param.name;
    // A list of at most one element (or none) shows that many.
    let two = param.max.map_or(2, |max| max.clamp(0, 2) as usize);
    let items = |one: &str| vec![one; two].join(", ");
    let ty = match &param.ty {
        ParamType::Scalar(ty) => ty,
        ParamType::List(ColumnType::String) => {
            return format!("`--arg {name}='[{}]'`", items("\"a\""))
        }
        ParamType::List(_) => return format!("`--arg {name}='[{}]'`", items("1")),
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
            // One record (two would write one key twice), none where
            // none may be given.
            let record = format!("{{{}}}", example.join(", "));
            let record = if two == 0 { String::new() } else { record };
            return format!("`--arg {name}='[{record}]'`");
        }
    };
    let value = match ty {
        ColumnType::Int => {
            let most = param.max.unwrap_or(i64::MAX);
            42.min(most).max(param.min.unwrap_or(i64::MIN)).to_string()
        }
        ColumnType::Float => "2.5".into(),
        ColumnType::Bool => "true".into(),
        // At most the declared bytes of `text`.
        ColumnType::String => {
            let most = param.max.map_or(4, |max| max.clamp(0, 4) as usize);
            "text"[..most].to_string()
        }
        ColumnType::Optional(_) => "none".into(),
    };
    format!("`--arg {name}={value}`")
}
