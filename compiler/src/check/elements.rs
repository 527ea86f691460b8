//! What `all` and `any` prove of a list's elements in a condition (spec/cost.md §3.1): `if xs |> all(x => x <= 10)` narrows every element of `xs` to at most 10 in its then branch, `any(xs, x => x > 10)` in its else branch, by the shared rule (`rqc_cost::Condition::Elements`).
//!
//! Only a list bound to a name (a parameter, a `let`) is narrowed, and only
//! by a predicate written in place; its body's comparisons are read as a
//! condition over its parameter, as `filter`'s are. Nothing is proved of
//! any other name the predicate compares (an empty list makes `all` true
//! whatever they are), nor anything where `all` is false (any one element
//! may be the one).

use super::expr::Checker;
use super::narrowing::{Comparison, Condition, ConditionMark};
use super::types::Ty;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};

impl Checker<'_> {
    /// Closes the condition `all(list, predicate)` (`all`) or
    /// `any(list, predicate)` opened at `mark` around the predicate's
    /// check, and records what the call at `span` says of `list`'s
    /// elements, where it is (part of) an `if`'s condition.
    pub(super) fn record_elements(
        &mut self,
        all: bool,
        span: Span,
        list: &Expr,
        predicate: &Expr,
        mark: ConditionMark,
    ) {
        let says = match &predicate.kind {
            ExprKind::Lambda(params, body) if params.len() == 1 => {
                Some((params[0].name.clone(), self.condition(body, mark)))
            }
            _ => {
                self.condition(predicate, mark);
                None
            }
        };
        if self.conditions_open == 0 {
            return;
        }
        let (Some((param, says)), Some(&binding)) = (says, self.last_lambda_params.first()) else {
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
        let element = (param, binding);
        let says = match all {
            true => Condition::Elements {
                list,
                element,
                says: Box::new(says),
            },
            // `any(xs, p)` is `!all(xs, x => !p(x))`.
            false => Condition::Not(Box::new(Condition::Elements {
                list,
                element,
                says: Box::new(Condition::Not(Box::new(says))),
            })),
        };
        self.comparisons.push(Comparison::said_by_call(span, says));
    }
}

/// A list of `Int`s narrowed: each element within `interval` too.
pub(super) fn narrowed_elements(ty: &Ty, interval: &crate::cost::Interval) -> Option<Ty> {
    match ty {
        Ty::List(elem, size, extremes) => match &**elem {
            Ty::Int(known) => Some(Ty::List(
                Box::new(Ty::Int(known.intersect(interval))),
                size.clone(),
                extremes.clone(),
            )),
            _ => None,
        },
        _ => None,
    }
}
