//! A generic call whose type parameters only the application of its result fixes: `twice(x => x + 1)(3)`, where `fn twice(f: T -> T) -> T -> T = x => f(f(x))`.
//!
//! Nothing in `twice(x => x + 1)` says what `T` is, and the function it
//! returns applies the lambda twice, which no signature can cost without
//! it (E0425). But the call's result is applied: the types it is applied
//! to are `T`'s. Such a call is *deferred*: its value is the lambda
//! `(·applied0, …) => twice(x => x + 1)(·applied0, …)`, delayed like any
//! lambda, so that each application checks the call again with the
//! application's argument types as a hint. There `T` takes the hint's
//! shape with every measure unbounded (any value of that shape): the
//! callee's body was checked for any `T`, so any value of the shape is
//! sound, and a bound that depends on `T`'s ends is then unbounded
//! (refused where a bound is asked of it), never a guess. A call that the
//! hint does not fix either is E0425, as before, so a deferral happens
//! once.

use super::expr::{Checked, Checker};
use super::types::Ty;
use crate::cost::Poly;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Ident, Stmt};
use std::collections::BTreeMap;

/// The deferred lambda's parameters are named this and a number: no
/// program can write the name (it holds `·`).
const APPLIED: &str = "·applied";

impl Checker<'_> {
    /// Where `callee(args)` is a call applied to `applied`, all of them a
    /// deferred lambda's parameters (`twice(f)(·applied0)`): their types,
    /// as the hint for the call at `callee`'s span.
    pub(super) fn note_application_hint(&mut self, callee: &Expr, applied: &[&Expr]) {
        let tys: Option<Vec<Ty>> = applied
            .iter()
            .map(|arg| match &arg.kind {
                ExprKind::Name(name) if name.name.starts_with(APPLIED) => {
                    self.local(&name.name).map(|local| local.ty.clone())
                }
                _ => None,
            })
            .collect();
        self.call_hint = tys
            .filter(|tys| !tys.is_empty())
            .map(|tys| (callee.span, tys));
    }

    /// The hint for the call at `span`, if one was noted for it; any other
    /// is dropped (a hint is for the one call it was noted at).
    pub(super) fn take_call_hint(&mut self, span: Span) -> Option<Vec<Ty>> {
        self.call_hint
            .take()
            .filter(|(at, _)| *at == span)
            .map(|(_, tys)| tys)
    }

    /// The deferred value of the call `callee(args)` (spanning `span`),
    /// whose result is a function of `arity` parameters.
    pub(super) fn deferred_call(
        &mut self,
        span: Span,
        callee: &Expr,
        args: &[&Expr],
        arity: usize,
    ) -> Checked {
        let call = Expr {
            kind: ExprKind::Call(
                Box::new(callee.clone()),
                args.iter().map(|a| (*a).clone()).collect(),
            ),
            span,
        };
        self.delay_applying(call, APPLIED, arity)
    }
}

impl Checker<'_> {
    /// The deferred value of the call `callee(args)` (spanning `span`)
    /// whose result's parameter types hold a type parameter no argument
    /// fixes (`konst(5)`, with `fn konst(x: T) -> U -> T = u => x`): each
    /// argument bound first, where the call is, to a name no program can
    /// write, then the deferred lambda `(·applied0, …) =>
    /// konst(·given0)(·applied0, …)`. So the arguments are evaluated once,
    /// where the call is written, whether its result is applied never or
    /// many times, and what they cost is the call's.
    pub(super) fn deferred_after_arguments(
        &mut self,
        span: Span,
        callee: &Expr,
        args: &[&Expr],
        arity: usize,
    ) -> Checked {
        let given: Vec<Ident> = (0..args.len())
            .map(|i| Ident {
                name: format!("{GIVEN}{i}"),
                span: args[i].span,
            })
            .collect();
        let lets = given
            .iter()
            .zip(args)
            .map(|(ident, arg)| Stmt::Let {
                name: ident.clone(),
                ty: None,
                value: (*arg).clone(),
            })
            .collect();
        let given = given
            .into_iter()
            .map(|ident| Expr {
                span: ident.span,
                kind: ExprKind::Name(ident),
            })
            .collect();
        let call = Expr {
            kind: ExprKind::Call(Box::new(callee.clone()), given),
            span,
        };
        let (applied, body) = super::functions::applying(call, APPLIED, arity);
        let lambda = Expr {
            kind: ExprKind::Lambda(applied, Box::new(body)),
            span,
        };
        self.check(&Expr {
            kind: ExprKind::Block(lets, Box::new(lambda)),
            span,
        })
    }
}

/// The names [`Checker::deferred_after_arguments`] binds a deferred call's
/// arguments to: no program can write them (they hold `·`).
const GIVEN: &str = "·given";

/// Binds the type parameters of `ret` (a signature's result function)
/// that nothing has bound yet, from the hint's types at its parameters:
/// their shapes, every measure unbounded.
pub fn bind_from_hint(ret: &Ty, hint: &[Ty], generics: &mut BTreeMap<String, Ty>) {
    let Ty::Fn(ret) = ret else {
        return;
    };
    let mut found = BTreeMap::new();
    for (param, given) in ret.params.iter().zip(hint) {
        // Checked before its application (for names only): unknown, which
        // fits everything, rather than a `T` nothing fixes (E0425).
        if given.is_error() {
            super::unknown_args::unknown_generics(param, &mut found);
            continue;
        }
        super::type_binding::bind(param, &any_of_shape(given), &mut found);
    }
    for (name, ty) in found {
        generics.entry(name).or_insert(ty);
    }
}

/// Any value of `ty`'s shape: every measure and numeric end unbounded.
fn any_of_shape(ty: &Ty) -> Ty {
    const ANY: &str = "a value the returned function is given";
    match ty {
        Ty::Int(_) => Ty::any_int(ANY),
        Ty::Str(_) => Ty::Str(Poly::unbounded(ANY)),
        Ty::List(elem, _, _) => Ty::list(any_of_shape(elem), Poly::unbounded(ANY)),
        Ty::Option(inner) => Ty::option(any_of_shape(inner)),
        Ty::Record(fields) => Ty::Record(
            fields
                .iter()
                .map(|(name, t)| (name.clone(), any_of_shape(t)))
                .collect(),
        ),
        other => other.clone(),
    }
}
