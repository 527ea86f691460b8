//! The join of two types: a type that holds a value of either (an `if`'s branches, a list's elements, the functions a value may be).

use super::types::{FnCandidate, StreamSource, StreamTy, Ty};

/// A type that holds a value of either type: every size, range and cost
/// the larger, a function either function (the `if`'s branches, a list's
/// elements, the results of the functions a value may be).
/// The join of `tys`, in pairs and then pairs of those: joined one by one,
/// a list of thousands of different symbolic integers copied its growing
/// bound into each join.
pub(super) fn join_all(mut tys: Vec<Ty>) -> Ty {
    while tys.len() > 1 {
        let mut pairs = tys.into_iter();
        let mut joined = Vec::with_capacity(pairs.len().div_ceil(2));
        while let Some(a) = pairs.next() {
            joined.push(match pairs.next() {
                Some(b) => join_types(&a, &b),
                None => a,
            });
        }
        tys = joined;
    }
    tys.pop().unwrap_or(Ty::Error)
}

pub fn join_types(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Error, other) | (other, Ty::Error) => other.clone(),
        (Ty::Int(x), Ty::Int(y)) => Ty::Int(x.join(y)),
        (Ty::Str(x), Ty::Str(y)) => Ty::Str(x.max(y)),
        (Ty::List(x, sx, _), Ty::List(y, sy, _)) => {
            Ty::list_with(join_types(x, y), sx.max(sy), super::extremes::joined(a, b))
        }
        // A row either branch kept: what both proved of a column, joined.
        (Ty::Row(x, xs), Ty::Row(y, ys)) if x == y => Ty::Row(
            x.clone(),
            xs.iter()
                .filter_map(|(path, a)| {
                    let (_, b) = ys.iter().find(|(other, _)| other == path)?;
                    Some((path.clone(), a.join(b)))
                })
                .collect(),
        ),
        (Ty::Option(x), Ty::Option(y)) => Ty::option(join_types(x, y)),
        (Ty::Option(x), y) | (y, Ty::Option(x)) => Ty::option(join_types(x, y)),
        (Ty::Record(xs), Ty::Record(ys)) => Ty::Record(
            xs.iter()
                .map(|(name, x)| match ys.iter().find(|(n, _)| n == name) {
                    Some((_, y)) => (name.clone(), join_types(x, y)),
                    None => (name.clone(), x.clone()),
                })
                .collect(),
        ),
        (Ty::Stream(x), Ty::Stream(y)) => Ty::Stream(Box::new(StreamTy {
            elem: join_types(&x.elem, &y.elem),
            open: x.open.max(&y.open),
            per_element: x.per_element.max(&y.per_element),
            source: StreamSource {
                // Either branch's order only when both have it.
                order: x
                    .source
                    .order
                    .clone()
                    .filter(|_| x.source.order == y.source.order),
                skipped: x.source.skipped || y.source.skipped,
                ..x.source.clone()
            },
        })),
        (Ty::Fn(_) | Ty::Fns(_), Ty::Fn(_) | Ty::Fns(_)) => {
            Ty::one_of(candidates_of(a).into_iter().chain(candidates_of(b)))
        }
        _ => a.clone(),
    }
}

fn candidates_of(ty: &Ty) -> Vec<FnCandidate> {
    match ty {
        Ty::Fn(func) => vec![FnCandidate::Known((**func).clone())],
        Ty::Fns(candidates) => candidates.clone(),
        _ => Vec::new(),
    }
}
