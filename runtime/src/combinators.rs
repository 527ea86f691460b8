//! The list combinators at run time: each over a bounded list (or an option).

use crate::error::Result;
use crate::interp::{internal, Env, Interp, Val};
use rqc_plan::{compare, Combinator, Node, Value};
use std::collections::HashSet;

pub fn combinator<'p>(
    interp: &mut Interp<'p, '_>,
    c: Combinator,
    args: &'p [Node],
    env: &Env<'p>,
) -> Result<Val<'p>> {
    let input = interp.value(&args[0], env)?;
    let is_list = matches!(input, Value::List(_));
    let items = input.clone().into_items();
    let f = match args.get(1) {
        Some(node) if !matches!(c, Combinator::Take | Combinator::UnwrapOr) => {
            Some(interp.eval(node, env)?)
        }
        _ => None,
    };
    let apply = |interp: &mut Interp<'p, '_>, item: &Value| -> Result<Value> {
        let f = f
            .as_ref()
            .ok_or_else(|| internal("a combinator without its function"))?;
        interp.call(f, vec![Val::Data(item.clone())])?.data()
    };
    let value = match c {
        Combinator::Map => {
            let mapped = items
                .iter()
                .map(|i| apply(interp, i))
                .collect::<Result<Vec<_>>>()?;
            if is_list {
                Value::List(mapped)
            } else {
                mapped.into_iter().next().unwrap_or(Value::Null)
            }
        }
        Combinator::Filter => {
            let mut kept = Vec::new();
            for item in items {
                if apply(interp, &item)? == Value::Bool(true) {
                    kept.push(item);
                }
            }
            Value::List(kept)
        }
        Combinator::FlatMap => {
            let mut out = Vec::new();
            for item in &items {
                out.extend(apply(interp, item)?.into_items());
            }
            Value::List(out)
        }
        Combinator::Flatten => Value::List(items.into_iter().flat_map(Value::into_items).collect()),
        Combinator::SortBy { descending } => {
            Value::List(sort_by_key(items, descending, |item| apply(interp, item))?)
        }
        Combinator::GroupBy => {
            let mut groups: Vec<(Value, Vec<Value>)> = Vec::new();
            for item in items {
                let key = apply(interp, &item)?;
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, rows)) => rows.push(item),
                    None => groups.push((key, vec![item])),
                }
            }
            Value::List(
                groups
                    .into_iter()
                    .map(|(key, rows)| {
                        Value::Record(vec![
                            ("key".into(), key),
                            ("rows".into(), Value::List(rows)),
                        ])
                    })
                    .collect(),
            )
        }
        Combinator::Distinct => {
            let mut seen = HashSet::new();
            Value::List(
                items
                    .into_iter()
                    .filter(|i| seen.insert(i.to_string()))
                    .collect(),
            )
        }
        Combinator::Count => Value::Int(items.len() as i64),
        Combinator::Sum => {
            let values = match f {
                Some(_) => items
                    .iter()
                    .map(|i| apply(interp, i))
                    .collect::<Result<Vec<_>>>()?,
                None => items,
            };
            let mut int: i64 = 0;
            let mut float: Option<f64> = None;
            for v in values {
                match v {
                    Value::Int(n) => {
                        int = int.checked_add(n).ok_or_else(|| {
                            crate::error::RuntimeError::new(
                                "E0530",
                                "integer overflow in sum",
                                "the total does not fit in 64 bits",
                            )
                        })?
                    }
                    Value::Float(x) => *float.get_or_insert(0.0) += x,
                    _ => {}
                }
            }
            match float {
                Some(x) => Value::Float(x + int as f64),
                None => Value::Int(int),
            }
        }
        Combinator::Min | Combinator::Max => {
            let mut best: Option<(Value, Value)> = None;
            for item in items {
                let key = match f {
                    Some(_) => apply(interp, &item)?,
                    None => item.clone(),
                };
                let better = match &best {
                    None => true,
                    Some((k, _)) => {
                        let ordering = compare(&key, k);
                        if c == Combinator::Min {
                            ordering.is_lt()
                        } else {
                            ordering.is_gt()
                        }
                    }
                };
                if better {
                    best = Some((key, item));
                }
            }
            // With a key function the result is the key's extreme value,
            // as the checker types it; without, the element.
            match (best, f.is_some()) {
                (Some((key, _)), true) => key,
                (Some((_, item)), false) => item,
                (None, _) => Value::Null,
            }
        }
        Combinator::Any | Combinator::All => {
            let want = c == Combinator::Any;
            let mut result = !want;
            for item in &items {
                if (apply(interp, item)? == Value::Bool(true)) == want {
                    result = want;
                    break;
                }
            }
            Value::Bool(result)
        }
        Combinator::Take => {
            let n = match interp.value(&args[1], env)? {
                Value::Int(n) => n.max(0) as usize,
                _ => 0,
            };
            if is_list {
                Value::List(items.into_iter().take(n).collect())
            } else if n == 0 {
                Value::Null
            } else {
                input
            }
        }
        Combinator::First => items.into_iter().next().unwrap_or(Value::Null),
        Combinator::Exists => Value::Bool(!items.is_empty()),
        Combinator::UnwrapOr => match input {
            Value::Null => interp.value(&args[1], env)?,
            other => other,
        },
    };
    Ok(Val::Data(value))
}

/// `items` ordered by `key` (ascending or descending), equal keys keeping
/// their order: `sort_by` and the top-k operator.
pub fn sort_by_key(
    items: Vec<Value>,
    descending: bool,
    mut key: impl FnMut(&Value) -> Result<Value>,
) -> Result<Vec<Value>> {
    let mut keyed = Vec::with_capacity(items.len());
    for item in items {
        keyed.push((key(&item)?, item));
    }
    keyed.sort_by(|a, b| {
        let ordering = compare(&a.0, &b.0);
        if descending {
            ordering.reverse()
        } else {
            ordering
        }
    });
    Ok(keyed.into_iter().map(|(_, item)| item).collect())
}
