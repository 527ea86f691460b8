//! Predicates a function makes: what `fn le(k: Int) -> Int -> Bool = x => x <= k` proves of the argument of the lambda it returns, kept in its signature and, at each call, in the type of the function it returns, so `if le(10)(n) { take(n) }` and `filter(le(10))` are narrowed as `x <= 10` is (spec/cost.md §3.1).
//!
//! The returned lambda's body, where it is a condition, is read as a
//! `Bool` function's is (`guards.rs`), as a template over the positions of
//! the function's parameters followed by the lambda's
//! ([`Checker::returned_guard_proved`]). A call fills the function's own
//! positions with what its arguments are known to be: a constant as
//! itself, any other `Int` as its range only, never as a named value
//! ([`captured_side`]). The predicate it returns may be applied anywhere,
//! any number of times, and one call checked once may make many of them
//! at run time (one per element of a `map`), each with its own captured
//! value: a name would relate two of them as one value. A range holds of
//! every one. The function type carries the template and the captured
//! sides ([`ReturnedGuard`]); an application in a condition fills the rest
//! with its arguments' sums and records it as a `Bool` function's call
//! does, and a `filter` given it narrows the elements it keeps. A
//! function type made any other way (transformed, joined, declared)
//! proves nothing.

use super::expr::Checker;
use super::guards::{filled, GuardTemplate};
use super::narrowing::{Condition, Named, Side};
use super::types::{FnTy, Ty};
use crate::syntax::ast::{Def, DefKind, Expr, ExprKind, Ident, Stmt};
use std::sync::Arc;

/// What a predicate a function made proves of its arguments: the
/// function's template (over its own parameters, then the predicate's),
/// and what each of the function's arguments was known to be at the call
/// that made it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReturnedGuard {
    pub template: GuardTemplate,
    pub captured: Vec<Option<Arc<Side>>>,
}

impl ReturnedGuard {
    /// The sums its template's positions are filled with where the
    /// predicate is applied to arguments whose sums are `given`.
    fn sums(&self, given: &[Option<Arc<Side>>]) -> Vec<Option<Arc<Side>>> {
        let mut all = self.captured.clone();
        all.extend(given.iter().cloned());
        all
    }

    /// What applying the predicate to arguments whose sums are `given`
    /// proves where it returns true.
    pub fn says(&self, given: &[Option<Arc<Side>>]) -> super::narrowing::Condition {
        filled(&self.template, &self.sums(given))
    }
}

/// An argument of the call that made a predicate, as its template reads
/// it: a constant as itself, any other `Int` as its range and no name.
pub(super) fn captured_side(ty: Option<&Ty>) -> Option<Arc<Side>> {
    let ty @ Ty::Int(range) = ty? else {
        return None;
    };
    super::guards::constant_side(ty).or_else(|| Some(Arc::new(Side::opaque(range.clone()))))
}

/// The lambda a function's body returns: the body itself, or the last
/// expression of a block of `let`s before it (`{ let j = k + 100; p =>
/// p.at <= j }`), whose comparisons read each `let`-bound sum as the sum
/// it was bound to (`rqc_cost::compared`), so the template names the
/// function's parameters where the body named the `let`s.
fn returned_lambda(body: &Expr) -> Option<(&[Ident], &Expr)> {
    match &body.kind {
        ExprKind::Lambda(params, body) => Some((params, body)),
        ExprKind::Block(stmts, last) if stmts.iter().all(|s| matches!(s, Stmt::Let { .. })) => {
            returned_lambda(last)
        }
        _ => None,
    }
}

impl Checker<'_> {
    /// Where `def` is a function that returns a lambda whose body is a
    /// condition, its result declared a function giving `Bool`
    /// (`declared`), opens a condition for its body (its parameters, and
    /// the mark to read it from).
    pub(super) fn begin_returned_guard(
        &mut self,
        def: &Def,
        declared: Option<&Ty>,
    ) -> Option<(Vec<Named>, super::narrowing::ConditionMark)> {
        let Some(Ty::Fn(func)) = declared else {
            return None;
        };
        let (_, body) = returned_lambda(&def.body)?;
        let made = def.kind == DefKind::Fn
            && func.ret == Ty::Bool
            && super::guards::reads_as_condition(body);
        made.then(|| (self.params_named(def), self.begin_condition()))
    }

    /// What the lambda `def` returns (its body just checked, in the
    /// condition [`Checker::begin_returned_guard`] opened) proves of the
    /// function's parameters and its own, as the signature keeps it.
    pub(super) fn returned_guard_proved(
        &mut self,
        guard: Option<(Vec<Named>, super::narrowing::ConditionMark)>,
        def: &Def,
    ) -> Option<Arc<GuardTemplate>> {
        let (mut params, mark) = guard?;
        let (lambda_params, body) = returned_lambda(&def.body)?;
        // The bindings its last check gave its parameters.
        let bindings = self.last_lambda_params.clone();
        let says = self.condition(body, mark);
        if bindings.len() != lambda_params.len() {
            return None;
        }
        params.extend(
            lambda_params
                .iter()
                .zip(bindings)
                .map(|(param, binding)| (param.name.clone(), binding)),
        );
        super::guards::guard_template(&says, &params).map(Arc::new)
    }

    /// The function `ret` a call returns, given what the predicate it makes
    /// proves (`template`, the callee's) with the call's arguments of
    /// types `args` captured.
    pub(super) fn made_predicate(
        ret: Ty,
        template: Option<&Arc<GuardTemplate>>,
        args: &[Option<Ty>],
    ) -> Ty {
        let (Some(template), Ty::Fn(mut func)) = (template, ret.clone()) else {
            return ret;
        };
        func.proves = Some(Arc::new(ReturnedGuard {
            template: (**template).clone(),
            captured: args.iter().map(|ty| captured_side(ty.as_ref())).collect(),
        }));
        Ty::Fn(func)
    }

    /// The one function `callee` is, when it is a predicate a function
    /// made.
    pub(super) fn made_guard(callee: &Ty) -> Option<&Arc<ReturnedGuard>> {
        match callee {
            Ty::Fn(func) => func.proves.as_ref(),
            Ty::Fns(candidates) => match candidates.as_slice() {
                [super::types::FnCandidate::Known(FnTy {
                    proves: Some(guard),
                    ..
                })] => Some(guard),
                _ => None,
            },
            _ => None,
        }
    }

    /// Records what applying `guard` at `span` to arguments whose sums are
    /// `sums` says, where the application is (part of) a condition.
    pub(super) fn record_made_guard(
        &mut self,
        span: crate::span::Span,
        guard: &ReturnedGuard,
        sums: &[Option<Arc<Side>>],
    ) {
        self.record_guard(span, &guard.template, &guard.sums(sums));
    }

    /// The element type `elem` of the elements `filter` keeps where its
    /// predicate is `guard`: narrowed by what it proves of its argument.
    pub(super) fn kept_by_made(&self, guard: &ReturnedGuard, elem: Ty) -> Ty {
        match made_says(guard, &elem) {
            Some(((name, binding), kept)) => self.kept_by((&name, Some(&binding)), &kept, elem),
            None => elem,
        }
    }
}

/// What `guard` says of an element of type `elem` (an `Int`, or a row,
/// record or string whose parts it compares) it is applied
/// to, the element named by a binding nothing else has: for `filter`
/// ([`Checker::kept_by_made`]) and for `all` and `any` (`elements.rs`).
pub(super) fn made_says(guard: &ReturnedGuard, elem: &Ty) -> Option<(Named, Condition)> {
    // An `Int` at its range, an `Int?` at its number's (the template
    // reads it as an option: `Condition::MayBeNone`); a value of another
    // type (a row, a record, a string) as a named value alone, whose
    // fields, columns and length the template's comparisons read
    // (`guards::below_argument`).
    let range = match elem {
        Ty::Int(range) => range.clone(),
        Ty::Option(inner) => match &**inner {
            Ty::Int(range) => range.clone(),
            _ => return None,
        },
        Ty::Row(..) | Ty::Record(_) | Ty::Str(_) => crate::cost::Interval::unbounded("an element"),
        _ => return None,
    };
    let binding = super::narrowing::new_binding();
    let element = (ELEMENT.to_string(), binding);
    let mut sum = crate::cost::SideSum::default();
    sum.named(element.clone(), false, range.clone());
    let side = Arc::new(sum.side(range));
    Some((element, guard.says(&[Some(side)])))
}

/// The name the element `filter` tests goes by in [`Checker::kept_by_made`]
/// (no program can write it: it has a space).
const ELEMENT: &str = "the element";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::Interval;

    #[test]
    fn a_captured_value_is_its_range_and_no_name() {
        let ten = captured_side(Some(&Ty::Int(Interval::exact(10)))).unwrap();
        assert_eq!((ten.offset, ten.terms.len()), (10, 0));
        let any = Interval::parameter("k", None, Some(7));
        let k = captured_side(Some(&Ty::Int(any.clone()))).unwrap();
        assert!(k.terms.is_empty());
        assert_eq!(k.interval, any);
        assert!(captured_side(Some(&Ty::Bool)).is_none());
    }
}
