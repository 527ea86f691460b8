//! What `all` and `any`, and a list's greatest or least, prove of its elements in a condition (spec/cost.md §3.1): `if xs |> all(x => x <= 10)` narrows every element of `xs` to at most 10 in its then branch, `any(xs, x => x > 10)` in its else branch, by the shared rule (`rqc_cost::Condition::Elements`); `if (xs |> max() |> unwrap_or(0)) <= 10` too.
//!
//! Only a list bound to a name (a parameter, a `let`) is narrowed; its
//! predicate's body's comparisons are read as a condition over its
//! parameter, as `filter`'s are ([`Checker::predicate_says`], which both
//! use). Nothing is proved of
//! any other name the predicate compares (an empty list makes `all` true
//! whatever they are), nor anything where `all` is false (any one element
//! may be the one).

use super::expr::Checker;
use super::narrowing::{Condition, ConditionMark, Named};
use super::types::Ty;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};

impl Checker<'_> {
    /// What a predicate given to `filter`, `all` or `any` says of its
    /// parameter where it is true, closing the condition opened at `mark`
    /// before its check: the parameter's name and its body's condition,
    /// for a lambda written in place, or given by name (`let small = x =>
    /// x <= 5`, or a function's, `filter(valid)`: its body, as its
    /// application's check recorded it, `last_applied`); `None` for any
    /// other function value.
    pub(super) fn predicate_says(
        &mut self,
        predicate: &Expr,
        mark: ConditionMark,
    ) -> Option<(String, Condition)> {
        if let ExprKind::Lambda(params, body) = &predicate.kind {
            if params.len() == 1 {
                return Some((params[0].name.clone(), self.condition(body, mark)));
            }
        }
        match self.last_applied.take().filter(|l| l.params.len() == 1) {
            Some(lambda) => {
                let says = self.condition_of_predicate(&lambda.body, mark, &lambda.params[0].name);
                // Made in another check of a body, it says of the values it
                // captured only their ranges (`rqc_cost::element_said_apart`).
                let element = self.last_lambda_params.first().copied();
                let says = match (lambda.frame == self.frames.current(), element) {
                    (false, Some(binding)) => {
                        let frames = &self.frames;
                        let one_value = |(_, b): &Named| frames.one_value(*b);
                        let element = (lambda.params[0].name.clone(), binding);
                        crate::cost::element_said_apart(&says, &element, &one_value)
                    }
                    _ => says,
                };
                Some((lambda.params[0].name.clone(), says))
            }
            None => {
                self.condition(predicate, mark);
                None
            }
        }
    }

    /// Records what `all(list, predicate)` (`all`) or `any(…)` at `span`
    /// says of `list`'s elements, its predicate having said `says` of the
    /// element (its parameter's name and binding, [`Checker::predicate_says`];
    /// or a made predicate's element, `returned_guards::made_says`), where
    /// the call is (part of) an `if`'s condition.
    pub(super) fn record_elements(
        &mut self,
        all: bool,
        span: Span,
        list: &Expr,
        says: Option<(Named, Condition)>,
    ) {
        if self.conditions_open == 0 {
            return;
        }
        let Some((element, says)) = says else {
            return;
        };
        // A list bound to a name; not a field of one (a row's type is its
        // table's, the same for every row).
        let Some(list) = self.named(list).filter(|(name, _)| !name.contains('.')) else {
            return;
        };
        if says == Condition::Opaque {
            return;
        }
        // A list that is an alias of another (a parameter given `xs`, `let
        // ys = xs`): the same of that list too, a second reading.
        self.record_said(span, Condition::elements(all, list, element, says));
    }
}

impl Checker<'_> {
    /// `says`, recorded here, read also through the named values its names
    /// are aliases of (`super::sums::alias`), as a comparison is; an
    /// `all`'s list only where it is bound to a name (not a field of one).
    pub(super) fn through_aliases(&self, says: &Condition) -> Condition {
        says.through_aliases(
            &|named| self.definition_of(named),
            &|list: &Named| !list.0.contains('.'),
            crate::cost::MAX_DEFINITIONS_READ,
        )
    }
}

/// A list of `Int`s (or an `Int?`, a list of at most one) narrowed: each
/// element within `interval` too (`all`).
pub(super) fn narrowed_elements(ty: &Ty, interval: &crate::cost::Interval) -> Option<Ty> {
    each_element(ty, &|known| known.intersect(interval))
}

/// A list of `Int`s (or an `Int?`) whose greatest (`greatest`) or least
/// element was proved to lie in `interval`: each element within its upper
/// (or lower) end only; the other end says nothing of the others. An
/// `Int?` has one element at most, its greatest and its least: within
/// both.
pub(super) fn narrowed_by_extreme(
    ty: &Ty,
    greatest: bool,
    interval: &crate::cost::Interval,
) -> Option<Ty> {
    // An `Int?`'s one value is its greatest and its least: both ends. An
    // `Int` named so is one given for an `Int?` (a parameter's argument,
    // an alias `let q: Int? = n`): that value, always there.
    match ty {
        Ty::Option(_) => return narrowed_elements(ty, interval),
        Ty::Int(known) => return Some(Ty::Int(known.intersect(interval))),
        _ => {}
    }
    each_element(ty, &|known| match greatest {
        true => known.below_upper_of(interval),
        false => known.above_lower_of(interval),
    })
}

/// `ty`, a list of `Int`s or an `Int?`, with each element's range made
/// `narrowed` of it; `None` for any other type.
fn each_element(
    ty: &Ty,
    narrowed: &dyn Fn(&crate::cost::Interval) -> crate::cost::Interval,
) -> Option<Ty> {
    match ty {
        Ty::List(elem, size, extremes) => match &**elem {
            Ty::Int(known) => Some(Ty::List(
                Box::new(Ty::Int(narrowed(known))),
                size.clone(),
                extremes.clone(),
            )),
            // A list of `Int?`s: each one's number (`all(os, o => o <=
            // 50)`; `Ty::List`'s extremes are of `Int` lists only).
            Ty::Option(_) => Some(Ty::List(
                Box::new(each_element(elem, narrowed)?),
                size.clone(),
                extremes.clone(),
            )),
            _ => None,
        },
        Ty::Option(inner) => match &**inner {
            Ty::Int(known) => Some(Ty::option(Ty::Int(narrowed(known)))),
            _ => None,
        },
        _ => None,
    }
}
