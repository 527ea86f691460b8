//! A type narrowed at a path by what a condition proved there (spec/cost.md §3.1): an `Int`'s range, a string's bytes by its length, a list's elements by its greatest or least, a record's field, a row's column (kept in `Ty::Row`), each element's part (`ps.[].at`).

use super::narrowing::{extreme_field, LENGTH};
use super::types::Ty;
use crate::cost::Interval;

/// `ty` with the value that `fields` reach in it (through records' fields,
/// each element of a list, `[]`, and a row's columns, whose facts its type
/// keeps by path) within `interval`; `None` when they reach none.
pub(super) fn narrowed_ty(ty: &Ty, fields: &[&str], interval: &Interval) -> Option<Ty> {
    if let Some(greatest) = fields.first().and_then(|f| extreme_field(f)) {
        return super::elements::narrowed_by_extreme(ty, greatest, interval);
    }
    if fields == [LENGTH] {
        return match ty {
            Ty::Str(bytes) => Some(Ty::Str(crate::cost::bytes_within_length(bytes, interval))),
            _ => None,
        };
    }
    let Some((first, rest)) = fields.split_first() else {
        return match ty {
            Ty::Int(known) => Some(Ty::Int(known.intersect(interval))),
            // An `Int?` column a range read (`access.rs`): the number it
            // holds, when it holds one.
            Ty::Option(inner) => Some(Ty::option(narrowed_ty(inner, &[], interval)?)),
            _ => None,
        };
    };
    if *first == crate::cost::EACH_ELEMENT {
        // Each element of a list (an `Int?`'s one): what `all` proved of
        // a part of its element (`ps.[].at`, `rqc_cost::Name`).
        return match ty {
            Ty::List(elem, size, extremes) => Some(Ty::List(
                Box::new(narrowed_ty(elem, rest, interval)?),
                size.clone(),
                extremes.clone(),
            )),
            Ty::Option(inner) => Some(Ty::option(narrowed_ty(inner, rest, interval)?)),
            _ => None,
        };
    }
    let record = match ty {
        Ty::Record(record) => record,
        // A row's type holds what was proved of its columns by path (its
        // columns' types are its table's): read where a column is.
        Ty::Row(table, facts) => {
            let path = fields.join(".");
            let mut facts = facts.clone();
            match facts.iter_mut().find(|(known, _)| *known == path) {
                Some((_, known)) => *known = known.intersect(interval),
                None => facts.push((path, interval.clone())),
            }
            return Some(Ty::Row(table.clone(), facts));
        }
        _ => return None,
    };
    let at = record.iter().position(|(n, _)| n == first)?;
    let inner = narrowed_ty(&record[at].1, rest, interval)?;
    let mut record = record.clone();
    record[at].1 = inner;
    Some(Ty::Record(record))
}

/// `ty`, the type of the column `column` of a row whose type holds
/// `facts` (a `filter` kept it, [`narrowed_ty`]), within what they prove
/// of it: its range, its length, an `Int?`'s one value.
pub(super) fn column_within(ty: Ty, column: &str, facts: &[(String, Interval)]) -> Ty {
    facts.iter().fold(ty, |ty, (path, interval)| {
        let below = match crate::cost::path_below(path, column) {
            Some("") => Vec::new(),
            Some(rest) => rest.split('.').collect(),
            None => return ty,
        };
        narrowed_ty(&ty, &below, interval).unwrap_or(ty)
    })
}
