//! Entry points by name, and their arguments checked against their parameters before a run.

use crate::constraints::{fits, shown};
use crate::error::{Result, RuntimeError};
use rqc_plan::{CompiledProgram, Entry, ParamSpec, ParamType, Value};

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

/// Arguments must match the parameters in number, type and declared bound.
pub fn check_args(entry: &Entry, args: &[Value]) -> Result<()> {
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
    for (param, arg) in entry.params.iter().zip(args) {
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
        within_declared_ends(param, arg, args)?;
    }
    Ok(())
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
                _ => format!("parameter `{name}` is declared `<=` {max}, and the argument is {size}"),
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
    record.iter().count() == fields.len()
        && fields
            .iter()
            .all(|(name, ty)| record.get(name).is_some_and(|v| fits(ty, v)))
}
