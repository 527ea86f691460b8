//! Entry points by name, and their arguments checked against their parameters before a run.

use crate::error::{Result, RuntimeError};
use crate::row_types::{fits, shown};
use rqc_plan::number::{conform, NumberError};
use rqc_plan::{ColumnType, CompiledProgram, Entry, ParamSpec, ParamType, Value};

/// The entry point of `program` called `name` (or `module.name`); E0521,
/// listing the entry points, when there is none.
pub fn find_entry<'p>(program: &'p CompiledProgram, name: &str) -> Result<&'p Entry> {
    program.entry(name).ok_or_else(|| {
        let names: Vec<&str> = program.entries.iter().map(|e| e.name.as_str()).collect();
        RuntimeError::new(
            "E0521",
            format!("the program has no query or mutation `{name}`"),
            if names.is_empty() {
                "the program has no accepted entry points; run `rqc check` on it".to_string()
            } else {
                format!("the entry points are: {}", names.join(", "))
            },
        )
    })
}

/// Arguments must match the parameters in number, type and declared bound;
/// the arguments as the run takes them: each fitted to its parameter's
/// type (`rqc_plan::number::conform`: an `Int` for a `Float` is that
/// float, `-0.0` is `0.0`, a `Float` for an `Int` is refused), so no
/// value enters a run that is not canonical (spec/types.md).
pub fn check_args(entry: &Entry, args: &[Value]) -> Result<Vec<Value>> {
    if args.len() != entry.params.len() {
        let expected: Vec<String> = entry.params.iter().map(ToString::to_string).collect();
        return Err(RuntimeError::new(
            "E0520",
            format!(
                "`{}` takes {} argument{}, {} given",
                entry.name,
                entry.params.len(),
                if entry.params.len() == 1 { "" } else { "s" },
                args.len()
            ),
            format!("its parameters are ({})", expected.join(", ")),
        ));
    }
    let args = entry
        .params
        .iter()
        .zip(args)
        .map(|(param, arg)| {
            conform_param(&param.ty, arg.clone()).map_err(|e| refused(&param.name, e))
        })
        .collect::<Result<Vec<Value>>>()?;
    for (param, arg) in entry.params.iter().zip(&args) {
        let longest = arg.longest_string();
        if longest > rqc_cost::MAX_STRING_BYTES {
            return Err(RuntimeError::new(
                "E0522",
                format!(
                    "parameter `{}` is given a string of {longest} bytes, past the {} any string may hold",
                    param.name,
                    rqc_cost::MAX_STRING_BYTES
                ),
                "pass a shorter string: every bound is proved for strings of at most 16 MiB",
            ));
        }
        let fits_param = match (&param.ty, arg) {
            (ParamType::Scalar(ty), value) => fits(ty, value),
            (ParamType::List(ty), Value::List(items)) => items.iter().all(|i| fits(ty, i)),
            (ParamType::Records(fields), Value::List(items)) => {
                items.iter().all(|item| record_fits(fields, item))
            }
            (ParamType::List(_) | ParamType::Records(_), _) => false,
        };
        if !fits_param {
            return Err(RuntimeError::new(
                "E0520",
                format!(
                    "parameter `{}` is `{}`, but the argument is {}",
                    param.name,
                    param.ty.name(),
                    shown(arg)
                ),
                format!("pass a `{}` value for `{}`", param.ty.name(), param.name),
            ));
        }
        within_declared_ends(param, arg, &args)?;
    }
    Ok(args)
}

/// An argument fitted to its parameter's type, through lists and records.
fn conform_param(ty: &ParamType, arg: Value) -> std::result::Result<Value, NumberError> {
    let each = |ty: &ColumnType, items: Vec<Value>| {
        items
            .into_iter()
            .map(|item| conform(ty, item))
            .collect::<std::result::Result<Vec<Value>, NumberError>>()
    };
    match (ty, arg) {
        (ParamType::Scalar(ty), arg) => conform(ty, arg),
        (ParamType::List(ty), Value::List(items)) => Ok(Value::List(each(ty, items)?)),
        (ParamType::Records(fields), Value::List(items)) => Ok(Value::List(
            items
                .into_iter()
                .map(|item| match item {
                    // Held in the order of its names, as every structural
                    // record is (the plan reads its fields by position).
                    Value::Record(record) => Ok(Value::Record(rqc_plan::Record::structural(
                        record
                            .iter()
                            .map(|(name, value)| {
                                let value = match fields.iter().find(|(field, _)| field == name) {
                                    Some((_, ty)) => conform(ty, value.clone())?,
                                    None => value.clone(),
                                };
                                Ok((name.clone(), value))
                            })
                            .collect::<std::result::Result<_, NumberError>>()?,
                    ))),
                    other => Ok(other),
                })
                .collect::<std::result::Result<_, NumberError>>()?,
        )),
        (_, arg) => Ok(arg.canonical()),
    }
}

/// A number given for parameter `name` that does not fit its type, with
/// the number parser's own code (E0004, E0007).
fn refused(name: &str, error: NumberError) -> RuntimeError {
    RuntimeError::new(
        error.code,
        format!("parameter `{name}`: {}", error.message),
        error.help,
    )
}

/// E0522: an argument outside its parameter's declared ends: an `Int`
/// below `>= min` or above `<= max`, a list longer than its `<= k` (or than
/// the earlier parameter that sizes it), a `String` of more bytes than its
/// `<= k`. The bounds of the run are proved under these ends.
fn within_declared_ends(param: &ParamSpec, arg: &Value, args: &[Value]) -> Result<()> {
    let size = match arg {
        Value::Int(n) => Some(*n),
        Value::List(items) => Some(items.len() as i64),
        Value::Str(s) => Some(i64::try_from(s.len()).unwrap_or(i64::MAX)),
        _ => None,
    };
    let Some(size) = size else {
        return Ok(());
    };
    if let (Some(min), Value::Int(n)) = (param.min, arg) {
        if *n < min {
            return Err(RuntimeError::new(
                "E0522",
                format!(
                    "parameter `{}` is declared `>= {min}`, and the argument is {n}",
                    param.name
                ),
                format!("pass a value of at least {min}"),
            ));
        }
    }
    // `ids: [Int; <= n]`: no longer than the `n` given either.
    let max = match (param.max_param.and_then(|i| args.get(i)), param.max) {
        (Some(Value::Int(n)), Some(max)) => Some(max.min((*n).max(0))),
        (Some(Value::Int(n)), None) => Some((*n).max(0)),
        _ => param.max,
    };
    match max {
        Some(max) if size > max => {
            let name = &param.name;
            let message = match arg {
                Value::List(_) => {
                    format!("parameter `{name}` holds at most {max}, and the argument is {size} long")
                }
                Value::Str(_) => format!(
                    "parameter `{name}` is declared `<= {max}` (bytes), and the argument is {size} bytes long"
                ),
                _ => format!("parameter `{name}` is declared `<= {max}`, and the argument is {size}"),
            };
            Err(RuntimeError::new(
                "E0522",
                message,
                format!("pass a value of at most {max}"),
            ))
        }
        _ => Ok(()),
    }
}

/// A record with exactly these fields, each of its column type.
fn record_fits(fields: &[(String, rqc_plan::ColumnType)], value: &Value) -> bool {
    let Value::Record(record) = value else {
        return false;
    };
    record.len() == fields.len()
        && fields
            .iter()
            .all(|(name, ty)| record.get(name).is_some_and(|v| fits(ty, v)))
}
