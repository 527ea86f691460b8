//! The ranges of a list of `Int`s' least and greatest element, carried with its type where they are tighter than its elements' (spec/cost.md §4.3, "The least and greatest of a list").
//!
//! A list's element type bounds every element, so it is the join of the
//! elements': `[n, 10]` holds `Int`s at most `n`, with no upper end. Its
//! least element, though, is at most 10, and `[n, 10] |> min()` is what a
//! user writes to cap a count. The type keeps that range beside the
//! element's ([`Ty::List`]'s third part), so it survives where the list's
//! value does unchanged: a `let`, a record's field, an `if` joining two
//! lists, a function's list parameter (a measure each call fixes), and
//! through `reverse` and `distinct`, which keep every value. Every
//! operation that makes a new list (`filter`, `take`, `map`, …) makes it
//! with none ([`Ty::list`]): a list that may have lost an element may
//! have lost its least, so keeping the range there would be unsound.
//! The ranges and their rules are `rqc_cost::Extremes`, which the plan
//! verifier keeps with its abstract lists too.

use super::types::Ty;
use crate::cost::{Extremes, Poly};

impl Ty {
    /// A list of `Int`s whose least and greatest elements lie in
    /// `extremes`; any other list as [`Ty::list`] makes it.
    /// A list of a type parameter's values keeps them too: a parameter
    /// `xs: [T]` carries its caller's (`least(xs)`), which the result of a
    /// generic function passing the list on (`reverse`, a `let`) keeps,
    /// and the call turns into the argument's where `T` is an `Int`.
    pub fn list_with(elem: Ty, size: Poly, extremes: Option<Extremes>) -> Ty {
        let holds_ints = elem.is_int() || matches!(elem, Ty::Generic(_));
        let extremes = extremes.filter(|_| holds_ints).map(Box::new);
        Ty::List(Box::new(elem), size, extremes)
    }

    /// The extremes a list's type carries (none where they are its
    /// elements' range): for an operation keeping every value, `reverse`
    /// and `distinct`, to carry on.
    pub fn kept_extremes(&self) -> Option<Extremes> {
        match self {
            Ty::List(_, _, extremes) => extremes.as_deref().cloned(),
            _ => None,
        }
    }

    /// Where a list of `Int`s' least and greatest elements lie: the ranges
    /// its type carries, or else its element's range for both. `None`
    /// for any other type.
    pub fn extremes(&self) -> Option<Extremes> {
        match self {
            // Within the elements' range too: a `[T]` parameter's carry
            // only the caller's least element's upper end and greatest's
            // lower end (`measures.rs`), the elements give the others.
            Ty::List(elem, _, Some(extremes)) => Some(match &**elem {
                Ty::Int(each) => extremes.within(each),
                _ => (**extremes).clone(),
            }),
            Ty::List(elem, _, None) => match &**elem {
                Ty::Int(each) => Some(Extremes::of_each(each)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The extremes of one list or the other: a list known empty (`[]`, of no
/// element type yet, or of at most 0 elements) adds nothing.
pub fn joined(a: &Ty, b: &Ty) -> Option<Extremes> {
    let empty =
        |t: &Ty| matches!(t, Ty::List(elem, size, _) if elem.is_error() || *size == Poly::zero());
    Extremes::joined(a.extremes(), empty(a), b.extremes(), empty(b))
}
