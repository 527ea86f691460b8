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
        if let Some(narrowed) = each_item(value, &|known| known.intersect(interval)) {
            return Some(narrowed);
        }
        return plain_int(value).map(|known| Abs::int(known.intersect(interval)));
    };
    if let Step::Each = step {
        // Each element of a list (each of a literal's), an `Int?`'s one.
        let each = |item: &Abs<'p>| narrow_at(item, rest, interval);
        return match value {
            Abs::List(element, len, extremes) => Some(Abs::List(
                Box::new(each(element)?),
                len.clone(),
                extremes.clone(),
            )),
            Abs::Opt(inner) => Some(Abs::Opt(Box::new(each(inner)?))),
            Abs::Literal(items) => {
                let items = items.iter().map(each).collect::<Option<Vec<_>>>()?;
                Some(Abs::Literal(Rc::new(items)))
            }
            _ => None,
        };
    }
    let Abs::Record(record) = value else {
        return None;
    };
    let at = match step {
        Step::Column(position) => *position,
        Step::Field(name) => record.fields.iter().position(|(n, _)| n == name)?,
        Step::Length | Step::Extreme(..) | Step::Each => return None,
    };
    let inner = narrow_at(&record.fields.get(at)?.1, rest, interval)?;
    let mut record = (**record).clone();
    record.fields[at].1 = inner;
    Some(Abs::Record(Rc::new(record)))
}

/// A list of `Int`s (or an `Int?`) whose greatest (`greatest`) or least
/// element was proved to lie in `interval`: each element within that end
/// only (as the checker's `narrowed_by_extreme`).
fn narrow_by_extreme<'p>(value: &Abs<'p>, greatest: bool, interval: &Interval) -> Option<Abs<'p>> {
    // An `Int?`'s one value (held, or a plain `Int` always there) is its
    // greatest and its least: both ends, as the checker's.
    if let Abs::Opt(_) | Abs::Scalar(_) = value {
        return each_item(value, &|known| known.intersect(interval));
    }
    each_item(value, &|known| match greatest {
        true => known.below_upper_of(interval),
        false => known.above_lower_of(interval),
    })
}

/// `value`, a list of `Int`s (each item of a literal) or an `Int?`, with
/// each element's interval made `narrowed` of it (as the checker's
/// `each_element`); `None` for any other value.
fn each_item<'p>(value: &Abs<'p>, narrowed: &dyn Fn(&Interval) -> Interval) -> Option<Abs<'p>> {
    // An item that is an `Int?` (a list of them): its number, as an
    // `Int?` alone is.
    let item = |item: &Abs<'p>| match item {
        Abs::Opt(_) => each_item(item, narrowed),
        _ => Some(Abs::int(narrowed(&plain_int(item)?))),
    };
    match value {
        Abs::List(element, len, extremes) => Some(Abs::List(
            Box::new(item(element)?),
            len.clone(),
            extremes.clone(),
        )),
        Abs::Opt(inner) => Some(Abs::Opt(Box::new(item(inner)?))),
        // An `Int?` that holds a plain `Int` (`let q: Int? = n`, an `Int`
        // given for an `Int?`): its one element, always there.
        Abs::Scalar(_) => item(value),
        Abs::Literal(items) => {
            let items = items.iter().map(item).collect::<Option<Vec<_>>>()?;
            Some(Abs::Literal(Rc::new(items)))
        }
        _ => None,
    }
}
