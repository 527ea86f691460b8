//! The combinators at run time: over a bounded list (or an option), and the limiting consumers and `map` over a stream.

use crate::error::{Result, RuntimeError};
use crate::halt::Eval;
use crate::interp::{internal, Interp};
use crate::values::{Env, ListStream, Stream, Val};
use rqc_plan::{compare, Combinator, Node, Shape, Value};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// `c` over its input, as the checker typed it: an option (`Null` or the
/// value, whatever the value is), a list, or a stream (a stream value is
/// never anything else, so it is read as one whatever the shape says).
pub fn combinator<'p>(
    interp: &mut Interp<'p, '_>,
    c: Combinator,
    shape: Shape,
    args: &'p [Node],
    env: &Env<'p>,
) -> Eval<Val<'p>> {
    let input = interp.eval(&args[0], env)?;
    let on_a_stream = matches!(input, Val::Stream(_)) && shape != Shape::Option;
    let f = match args.get(1) {
        // A stream's `sort_by` key is its column, never applied.
        Some(_) if on_a_stream && matches!(c, Combinator::SortBy { .. }) => None,
        Some(node)
            if !matches!(
                c,
                Combinator::Take | Combinator::Skip | Combinator::UnwrapOr
            ) =>
        {
            Some(interp.eval(node, env)?)
        }
        _ => None,
    };
    let is_list = shape != Shape::Option;
    if let (Val::Stream(stream), true) = (&input, is_list) {
        return on_stream(interp, c, stream, f, args, env);
    }
    if shape == Shape::Stream && reads_a_stream(c) {
        return on_listed(interp, c, input, f, args, env);
    }
    if c == Combinator::UnwrapOr {
        return if input.is_none() {
            interp.eval(&args[1], env)
        } else {
            Ok(input)
        };
    }
    if c == Combinator::Skip {
        let n = count(interp.value(&args[1], env)?)?;
        return Ok(if is_list {
            Val::from_items(input.items()?.into_iter().skip(n).collect())
        } else if n == 0 {
            input
        } else {
            Val::Data(Value::Null)
        });
    }
    if c == Combinator::Reverse {
        return Ok(if is_list {
            let mut items = input.items()?;
            items.reverse();
            Val::from_items(items)
        } else {
            input
        });
    }
    if c == Combinator::Take {
        let n = count(interp.value(&args[1], env)?)?;
        return Ok(if is_list {
            Val::from_items(input.items_upto(n)?)
        } else if n == 0 {
            Val::Data(Value::Null)
        } else {
            input
        });
    }
    let items = if is_list {
        // Without a function, these read no more than the length or the
        // first item: a shared list is not copied whole for them.
        match (c, &f) {
            (Combinator::Count, None) => {
                return Ok(Val::Data(Value::Int(input.items_len()? as i64)))
            }
            (Combinator::First | Combinator::Exists, None) => input.items_upto(1)?,
            _ => input.items()?,
        }
    } else if input.is_none() {
        Vec::new()
    } else {
        vec![input]
    };
    // The function over every element, as one batch per level of reads
    // (`batch`); `any` and `all` stop where one by one they would.
    let applied: Option<Vec<Val<'p>>> = match &f {
        Some(f) => {
            let until: crate::batch::Until<'_, 'p> = match c {
                Combinator::Any => Some(&|v: &Val<'p>| Ok(v.clone().data()? == Value::Bool(true))),
                Combinator::All => Some(&|v: &Val<'p>| Ok(v.clone().data()? != Value::Bool(true))),
                _ => None,
            };
            Some(crate::batch::apply_all(interp, f, &items, until)?)
        }
        None => None,
    };
    // Each arm takes the results once: no copy of them.
    let mut applied = applied;
    let mut results = || {
        applied
            .take()
            .ok_or_else(|| internal("a combinator without its function"))
    };
    // The values a numeric combinator reads: the function's, or the elements.
    let data_of = |results: &mut dyn FnMut() -> Result<Vec<Val<'p>>>,
                   items: Vec<Val<'p>>|
     -> Result<Vec<Value>> {
        let values = if f.is_some() { results()? } else { items };
        values.into_iter().map(Val::data).collect()
    };
    Ok(match c {
        Combinator::Map => {
            let mapped = results()?;
            if is_list {
                Val::from_items(mapped)
            } else {
                mapped.into_iter().next().unwrap_or(Val::Data(Value::Null))
            }
        }
        Combinator::Filter => {
            let mut kept = Vec::new();
            for (item, keep) in items.into_iter().zip(results()?) {
                if keep.data()? == Value::Bool(true) {
                    kept.push(item);
                }
            }
            Val::from_items(kept)
        }
        Combinator::FlatMap => {
            let mut out = Vec::new();
            for each in results()? {
                out.extend(each.items()?);
            }
            Val::from_items(out)
        }
        Combinator::Flatten => {
            let mut out = Vec::new();
            for item in items {
                out.extend(item.items()?);
            }
            Val::from_items(out)
        }
        Combinator::SortBy { descending } => {
            let mut keys = results()?.into_iter();
            Val::from_items(sort_by_key(items, descending, |_| {
                keys.next()
                    .ok_or_else(|| internal("a sort key missing"))?
                    .data()
            })?)
        }
        Combinator::GroupBy => {
            // Groups in the order their keys first come, found by a hash of
            // the key (the same value as `==` and `distinct` say it): a
            // search of the groups so far took time in the square of their
            // number (65,536 keys: 13 s, adversary finding).
            let mut groups: Vec<(Value, Vec<Val<'p>>)> = Vec::new();
            let mut index: HashMap<Value, usize> = HashMap::new();
            for (item, key) in items.into_iter().zip(results()?) {
                let key = key.data()?;
                match index.get(&key) {
                    Some(&at) => groups[at].1.push(item),
                    None => {
                        index.insert(key.clone(), groups.len());
                        groups.push((key, vec![item]));
                    }
                }
            }
            Val::from_items(
                groups
                    .into_iter()
                    .map(|(key, rows)| {
                        Val::from_shape(group_shape(), vec![Val::Data(key), Val::from_items(rows)])
                    })
                    .collect(),
            )
        }
        Combinator::Distinct => {
            let mut seen = HashSet::new();
            let mut kept = Vec::new();
            for item in items {
                let value = item.data()?;
                // The same value as `==` and the key encoding say it.
                if seen.insert(value.clone()) {
                    kept.push(Val::Data(value));
                }
            }
            Val::from_items(kept)
        }
        Combinator::Count => Val::Data(Value::Int(items.len() as i64)),
        Combinator::Sum | Combinator::SumFloat => {
            // Exact whatever the order (2^64 elements of 64 bits fit 128),
            // as a kept aggregate's: only the total must fit 64 bits, so
            // `[MAX, 1, -5]` sums as `[MAX, -5, 1]` does. A sum of `Float`s
            // is a `Float`, `0.0` of none.
            let mut exact: i128 = 0;
            let mut float: Option<f64> = (c == Combinator::SumFloat).then_some(0.0);
            for value in data_of(&mut results, items)? {
                match value {
                    Value::Int(n) => exact += i128::from(n),
                    Value::Float(x) => *float.get_or_insert(0.0) += x,
                    _ => {}
                }
            }
            let int = i64::try_from(exact).map_err(|_| {
                RuntimeError::new(
                    "E0530",
                    format!("integer overflow in sum: the elements total {exact}"),
                    "the total does not fit in 64 bits",
                )
            })?;
            Val::Data(match float {
                Some(x) => Value::float(crate::arithmetic::finite(x + int as f64)?),
                None => Value::Int(int),
            })
        }
        Combinator::Avg => {
            let mut numbers = Vec::new();
            for value in data_of(&mut results, items)? {
                match value {
                    Value::Int(n) => numbers.push(n as f64),
                    Value::Float(x) => numbers.push(x),
                    _ => {}
                }
            }
            Val::Data(if numbers.is_empty() {
                Value::Null
            } else {
                Value::float(mean(&numbers))
            })
        }
        Combinator::Min | Combinator::Max => {
            let mut best: Option<Value> = None;
            for key in data_of(&mut results, items)? {
                let better = match &best {
                    None => true,
                    Some(k) => {
                        let ordering = compare(&key, k);
                        if c == Combinator::Min {
                            ordering.is_lt()
                        } else {
                            ordering.is_gt()
                        }
                    }
                };
                if better {
                    best = Some(key);
                }
            }
            // With a key function the key's extreme value, as the checker
            // types it; without, the element (its own key).
            Val::Data(best.unwrap_or(Value::Null))
        }
        Combinator::Any | Combinator::All => {
            // The applications stopped at the first answer that decides.
            let want = c == Combinator::Any;
            let decided = match results()?.last() {
                Some(last) => (last.clone().data()? == Value::Bool(true)) == want,
                None => false,
            };
            Val::Data(Value::Bool(if decided { want } else { !want }))
        }
        Combinator::First => items.into_iter().next().unwrap_or(Val::Data(Value::Null)),
        Combinator::Exists => Val::Data(Value::Bool(!items.is_empty())),
        Combinator::Take | Combinator::Skip | Combinator::UnwrapOr | Combinator::Reverse => {
            unreachable!("handled above")
        }
    })
}

/// A combinator over an unread range: a limiting consumer reads at most
/// what it takes; `map` adds a function to apply to each row read. The
/// checker lets nothing else reach a stream.
fn on_stream<'p>(
    interp: &mut Interp<'p, '_>,
    c: Combinator,
    stream: &Stream<'p>,
    f: Option<Val<'p>>,
    args: &'p [Node],
    env: &Env<'p>,
) -> Eval<Val<'p>> {
    match c {
        Combinator::Take => {
            let n = count(interp.value(&args[1], env)?)?;
            Ok(Val::from_items(interp.read(stream, n)?))
        }
        Combinator::First => Ok(interp
            .read(stream, 1)?
            .into_iter()
            .next()
            .unwrap_or(Val::Data(Value::Null))),
        Combinator::Exists => Ok(Val::Data(Value::Bool(!interp.read(stream, 1)?.is_empty()))),
        Combinator::Map => {
            let f = f.ok_or_else(|| internal("`map` without its function"))?;
            let mut maps = stream.maps.clone();
            maps.push(f);
            Ok(Val::Stream(Rc::new(Stream {
                maps,
                ..stream.clone()
            })))
        }
        Combinator::Skip => {
            let n = count(interp.value(&args[1], env)?)?;
            Ok(Val::Stream(Rc::new(Stream {
                skip: stream.skip.saturating_add(n),
                ..stream.clone()
            })))
        }
        // Read from the other end: the same range, seek and rows. Rows a
        // `skip` dropped from one end cannot be dropped from the other
        // without reading them (the checker refuses it, E0457).
        Combinator::Reverse | Combinator::SortBy { .. } => {
            if stream.skip > 0 {
                return Err(internal("a stream reversed after a `skip`").into());
            }
            let reverse = match c {
                Combinator::SortBy { descending } => descending != stream.next_descending,
                _ => !stream.reverse,
            };
            Ok(Val::Stream(Rc::new(Stream {
                reverse,
                ..stream.clone()
            })))
        }
        other => Err(internal(&format!("`{}` over an unread stream", other.name())).into()),
    }
}

/// What a list given where a stream is taken allows, as a stream does
/// (`on_stream`): the limits, `map`, `skip` and `reverse` (a `sort_by`
/// over a stream is a read in its index's order, which a list has not:
/// the checker never types one over it).
pub fn reads_a_stream(c: Combinator) -> bool {
    matches!(
        c,
        Combinator::Take
            | Combinator::First
            | Combinator::Exists
            | Combinator::Map
            | Combinator::Skip
            | Combinator::Reverse
    )
}

/// A combinator over a list given where a stream is taken
/// ([`ListStream`]): as over a stream, `map` and `skip` wait for the limit
/// that reads it.
fn on_listed<'p>(
    interp: &mut Interp<'p, '_>,
    c: Combinator,
    input: Val<'p>,
    f: Option<Val<'p>>,
    args: &'p [Node],
    env: &Env<'p>,
) -> Eval<Val<'p>> {
    let listed = match input {
        Val::Listed(listed) => listed,
        list => Rc::new(ListStream {
            items: Rc::new(list.items()?),
            skip: 0,
            maps: Vec::new(),
        }),
    };
    match c {
        Combinator::Take => {
            let n = count(interp.value(&args[1], env)?)?;
            Ok(Val::from_items(read_listed(interp, &listed, n)?))
        }
        Combinator::First => Ok(read_listed(interp, &listed, 1)?
            .into_iter()
            .next()
            .unwrap_or(Val::Data(Value::Null))),
        Combinator::Exists => Ok(Val::Data(Value::Bool(
            !read_listed(interp, &listed, 1)?.is_empty(),
        ))),
        Combinator::Map | Combinator::Skip | Combinator::Reverse => {
            // A new stage over the same elements (shared, not copied).
            let mut next = ListStream {
                items: Rc::clone(&listed.items),
                skip: listed.skip,
                maps: listed.maps.clone(),
            };
            match c {
                Combinator::Map => {
                    next.maps
                        .push(f.ok_or_else(|| internal("`map` without its function"))?);
                }
                Combinator::Skip => {
                    let n = count(interp.value(&args[1], env)?)?;
                    next.skip = next.skip.saturating_add(n);
                }
                _ => {
                    if next.skip > 0 {
                        return Err(internal("a stream reversed after a `skip`").into());
                    }
                    let mut items = (*next.items).clone();
                    items.reverse();
                    next.items = Rc::new(items);
                }
            }
            Ok(Val::Listed(Rc::new(next)))
        }
        other => Err(internal(&format!("`{}` over a list read as a stream", other.name())).into()),
    }
}

/// The first `n` elements of a listed stream past its skip, each mapped.
fn read_listed<'p>(
    interp: &mut Interp<'p, '_>,
    listed: &ListStream<'p>,
    n: usize,
) -> Eval<Vec<Val<'p>>> {
    let mut read = Vec::new();
    for item in listed.items.iter().skip(listed.skip).take(n) {
        let mut value = item.clone();
        for f in &listed.maps {
            value = interp.call(f, vec![value])?;
        }
        read.push(value);
    }
    Ok(read)
}

/// A count: at most zero takes nothing.
fn count(value: Value) -> Result<usize> {
    match value {
        Value::Int(n) => Ok(usize::try_from(n.max(0)).unwrap_or(usize::MAX)),
        _ => Err(internal("a count that is not an Int")),
    }
}

/// `items` ordered by `key` (ascending or descending), equal keys keeping
/// their order: `sort_by` and the top-k operator.
pub fn sort_by_key<T>(
    items: Vec<T>,
    descending: bool,
    mut key: impl FnMut(&T) -> Result<Value>,
) -> Result<Vec<T>> {
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

/// The mean of some finite numbers (at least one), itself finite: when their
/// total overflows (`[1e308, 1e308]`), the mean is the total of each divided
/// by their count, held within their least and greatest.
fn mean(numbers: &[f64]) -> f64 {
    let count = numbers.len() as f64;
    let total: f64 = numbers.iter().sum();
    if total.is_finite() {
        return total / count;
    }
    let least = numbers.iter().copied().fold(f64::INFINITY, f64::min);
    let greatest = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    numbers
        .iter()
        .map(|x| x / count)
        .sum::<f64>()
        .clamp(least, greatest)
}

/// The shape of `group_by`'s records, `{ key, rows }`: made once.
fn group_shape() -> &'static rqc_plan::RecordShape {
    static SHAPE: std::sync::OnceLock<rqc_plan::RecordShape> = std::sync::OnceLock::new();
    SHAPE.get_or_init(|| rqc_plan::RecordShape::of(vec!["key".into(), "rows".into()]))
}
