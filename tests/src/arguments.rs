//! Random arguments for an entry point, within its parameters' declared
//! bounds, drawn from pools a suite chooses so that they hit its rows.

use crate::Rng;
use rqc_plan::{ColumnType, Entry, ParamType, Value};

/// Where the values come from.
pub struct Pools<'a> {
    /// An `Int` without a declared maximum, and a list's items.
    pub int: &'a dyn Fn(&mut Rng) -> i64,
    /// A `Float` (see [`FLOATS`] for one that reaches the extremes).
    pub float: &'a dyn Fn(&mut Rng) -> f64,
    pub string: &'a dyn Fn(&mut Rng) -> String,
    /// The longest list drawn (a declared maximum may shorten it).
    pub list_len: i64,
}

/// One argument per parameter of `entry` (a list sized by an earlier
/// parameter no longer than that argument).
pub fn arguments(entry: &Entry, pools: &Pools<'_>, rng: &mut Rng) -> Vec<Value> {
    let mut args: Vec<Value> = Vec::with_capacity(entry.params.len());
    for param in &entry.params {
        let max = match param.max_param.and_then(|i| args.get(i)) {
            Some(Value::Int(n)) => Some(param.max.map_or(*n, |m| m.min(*n)).max(0)),
            _ => param.max,
        };
        args.push(argument(&param.ty, (param.min, max), pools, rng));
    }
    args
}

/// A value of `ty` within the declared ends `(min, max)` (a `String`'s max
/// in bytes).
fn argument(
    ty: &ParamType,
    (min, max): (Option<i64>, Option<i64>),
    pools: &Pools<'_>,
    rng: &mut Rng,
) -> Value {
    let within = |rng: &mut Rng, low: i64, high: i64| low + rng.below((high - low) as u64 + 1);
    match ty {
        ParamType::Scalar(ColumnType::Int) => match (min, max) {
            (Some(min), Some(max)) => within(rng, min, max).into(),
            (None, Some(max)) if max >= 0 => within(rng, 0, max).into(),
            (None, Some(max)) => within(rng, max - 10, max).into(),
            (Some(min), None) => within(rng, min, min + 33).into(),
            (None, None) => (pools.int)(rng).into(),
        },
        ParamType::Scalar(ColumnType::String) => {
            let drawn = (pools.string)(rng);
            // Cut at a character boundary to the declared bytes.
            let limit = max.map_or(usize::MAX, |m| m.max(0) as usize);
            let mut kept = String::new();
            for c in drawn.chars() {
                if kept.len() + c.len_utf8() > limit {
                    break;
                }
                kept.push(c);
            }
            kept.into()
        }
        ParamType::Scalar(ColumnType::Float) => Value::Float((pools.float)(rng)),
        ParamType::Scalar(ColumnType::Bool) => (rng.below(2) == 0).into(),
        ParamType::Scalar(ColumnType::Optional(_)) => Value::Null,
        // Items of the list's own type (an `Int` item from the pool).
        ParamType::List(item) => {
            let n = rng.below(max.unwrap_or(pools.list_len).min(pools.list_len) as u64 + 1);
            Value::List(
                (0..n)
                    .map(|_| argument(&ParamType::Scalar(item.clone()), (None, None), pools, rng))
                    .collect(),
            )
        }
        ParamType::Records(fields) => {
            let n = rng.below(max.unwrap_or(pools.list_len).min(pools.list_len) as u64 + 1);
            Value::List(
                (0..n)
                    .map(|_| {
                        let values = fields
                            .iter()
                            .map(|(name, ty)| {
                                let value = argument(
                                    &ParamType::Scalar(ty.clone()),
                                    (None, None),
                                    pools,
                                    rng,
                                );
                                (name.clone(), value)
                            })
                            .collect();
                        Value::Record(rqc_plan::Record::new(values))
                    })
                    .collect(),
            )
        }
    }
}

/// Floats that reach what a `Float` may be: both zeros (one value), the
/// extremes, the least magnitudes (whose halves underflow to a zero), and
/// a few ordinary ones.
pub const FLOATS: [f64; 11] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.5,
    f64::MIN,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    1e15,
];

/// One of [`FLOATS`], or a small whole number.
pub fn extreme_float(rng: &mut Rng) -> f64 {
    match rng.below(FLOATS.len() as u64 + 1) as usize {
        i if i < FLOATS.len() => FLOATS[i],
        _ => rng.below(100) as f64,
    }
}
