//! The values a plan starts from, as the bound pass knows them: an entry point's arguments as the runtime admits them (their types, a scalar's declared maximum, a list's length), and a table's rows (their columns' types and length bounds).

use super::abstract_value::{Abs, Kind, RecordAbs};
use rqc_cost::{Interval, Poly};
use rqc_plan::{ColumnType, Entry, ParamType, Schema};
use std::rc::Rc;

/// An entry point's parameter as the runtime admits it (`check_args`).
pub(super) fn param<'p>(entry: &Entry, i: usize) -> Abs<'p> {
    let spec = &entry.params[i];
    // `ids: [Int; <= n]`: no longer than `n` either.
    let length = || {
        let by_param = spec
            .max_param
            .and_then(|n| entry.params.get(n))
            .and_then(|p| p.max)
            .map(|m| m.max(0) as u64);
        let own = spec.max.map(|m| m.max(0) as u64);
        match own.into_iter().chain(by_param).min() {
            Some(n) => Poly::constant(n),
            None if spec.max_param.is_some() => Poly::unbounded(&spec.name),
            None => Poly::unbounded(&format!("|{}|", spec.name)),
        }
    };
    match &spec.ty {
        // `n: Int >= a <= k` as the checker takes it (the runtime refuses
        // an argument outside, E0522); `s: String <= k` has at most k
        // bytes, so at most k characters.
        ParamType::Scalar(ty) => column_value(
            &spec.name,
            ty,
            spec.max.map(|k| k.max(0).unsigned_abs()),
            Interval::parameter(&spec.name, spec.min, spec.max),
        ),
        ParamType::List(ty) => Abs::list(
            column_value(&spec.name, ty, None, Interval::unbounded(&spec.name)),
            length(),
        ),
        ParamType::Records(fields) => {
            let fields: Vec<_> = fields
                .iter()
                .map(|(name, ty)| {
                    let what = format!("{}.{name}", spec.name);
                    let value = column_value(&what, ty, None, Interval::unbounded(&what));
                    (name.clone(), value)
                })
                .collect();
            let record = Abs::Record(Rc::new(RecordAbs::structural(fields)));
            Abs::list(record, length())
        }
    }
}

/// A value of a column type: an option of it for `T?`.
fn column_value<'p>(what: &str, ty: &ColumnType, max_len: Option<u64>, int: Interval) -> Abs<'p> {
    match ty {
        ColumnType::Optional(inner) => Abs::Opt(Box::new(column_value(what, inner, max_len, int))),
        ColumnType::Int => Abs::int(int),
        ColumnType::String => {
            Abs::string(max_len.map_or_else(|| Poly::unbounded(what), Poly::constant))
        }
        other => Abs::unknown(Kind::of(other), what),
    }
}

/// A row of table `t`: its columns' values, nothing known of them but
/// their types and length bounds.
pub(super) fn row<'p>(schema: &Schema, t: usize) -> Abs<'p> {
    let table = &schema.tables[t];
    let fields = table
        .columns
        .iter()
        .map(|c| {
            let what = format!("{}.{}", table.name, c.name);
            let value = column_value(&what, &c.ty, c.max_len, Interval::unbounded(&what));
            (c.name.clone(), value)
        })
        .collect();
    Abs::Record(Rc::new(RecordAbs {
        fields,
        table: Some(t),
    }))
}

/// Whether a stream is anywhere in the value.
pub(super) fn contains_stream(value: &Abs<'_>) -> bool {
    value.holds(&mut std::collections::HashSet::new(), &|part| {
        matches!(part, Abs::Stream(_))
    })
}
