//! A value narrowed by a fact proved of it: an `Int`'s interval, a record's field, a string's length, a list's elements (`all`) or the end its greatest or least proves (spec/cost.md §3.1).

use super::abstract_value::{Abs, Kind, Scalar};
use super::narrowing::{plain_int, Step};
use rqc_cost::Interval;
use std::rc::Rc;

/// `value` with the plain `Int` that `path` reaches in it intersected with
/// `interval`; `None` when the path reaches none.
pub(super) fn narrow_at<'p>(
    value: &Abs<'p>,
    path: &[Step<'p>],
    interval: &Interval,
) -> Option<Abs<'p>> {
    if let [Step::Extreme(greatest, _)] = path {
        return narrow_by_extreme(value, *greatest, interval);
    }
    if let [Step::Length] = path {
        // A string whose length lies in `interval`: that many characters
        // at most, of at most 4 bytes each (`bytes_within_length`, as the
        // checker), and `length` of it within `interval`.
        let Abs::Scalar(string) = value else {
            return None;
        };
        if string.kind != Kind::Str {
            return None;
        }
        let length = match &string.length {
            Some(known) => known.intersect(interval),
            None => interval.clone(),
        };
        return Some(Abs::Scalar(Rc::new(Scalar {
            chars: rqc_cost::bytes_within_length(&string.chars, interval),
            length: Some(length),
            ..(**string).clone()
        })));
    }
    let Some((step, rest)) = path.split_first() else {
        // A list's elements (`all`, `elements.rs`): each of a literal's.
        match value {
            Abs::List(element, len, extremes) => {
                let known = plain_int(element)?;
                let element = Abs::int(known.intersect(interval));
                return Some(Abs::List(Box::new(element), len.clone(), extremes.clone()));
            }
            // An `Int?`, a list of at most one.
            Abs::Opt(inner) => {
                let known = plain_int(inner)?;
                return Some(Abs::Opt(Box::new(Abs::int(known.intersect(interval)))));
            }
            Abs::Literal(items) => {
                let items = items
                    .iter()
                    .map(|item| Some(Abs::int(plain_int(item)?.intersect(interval))))
                    .collect::<Option<Vec<_>>>()?;
                return Some(Abs::Literal(Rc::new(items)));
            }
            _ => {}
        }
        return plain_int(value).map(|known| Abs::int(known.intersect(interval)));
    };
    let Abs::Record(record) = value else {
        return None;
    };
    let at = match step {
        Step::Column(position) => *position,
        Step::Field(name) => record.fields.iter().position(|(n, _)| n == name)?,
        Step::Length | Step::Extreme(..) => return None,
    };
    let inner = narrow_at(&record.fields.get(at)?.1, rest, interval)?;
    let mut record = (**record).clone();
    record.fields[at].1 = inner;
    Some(Abs::Record(Rc::new(record)))
}

/// A list of `Int`s whose greatest (`greatest`) or least element was
/// proved to lie in `interval`: each element within that end only (as the
/// checker's `narrowed_by_extreme`); a literal's items each.
fn narrow_by_extreme<'p>(value: &Abs<'p>, greatest: bool, interval: &Interval) -> Option<Abs<'p>> {
    let narrowed = |item: &Abs<'p>| {
        let known = plain_int(item)?;
        Some(Abs::int(match greatest {
            true => known.below_upper_of(interval),
            false => known.above_lower_of(interval),
        }))
    };
    match value {
        Abs::List(element, len, extremes) => Some(Abs::List(
            Box::new(narrowed(element)?),
            len.clone(),
            extremes.clone(),
        )),
        Abs::Literal(items) => {
            let items = items.iter().map(narrowed).collect::<Option<Vec<_>>>()?;
            Some(Abs::Literal(Rc::new(items)))
        }
        _ => None,
    }
}
