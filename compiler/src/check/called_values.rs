//! Calls of function values: a function value in scope (`f(x)`), a field holding one (`r.g(x)`), and the value an expression gives (`mk()(u)`), each checked at its application.

use super::calls::CALLED_VALUE;
use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::Cost;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Ident};

impl Checker<'_> {
    /// `mk()(u)`, `(if c { f } else { g })(u)`, `r.g(u)`: the function
    /// value an expression gives, called as `{ let f = mk(); f(u) }` is,
    /// under a name no program can write (a name has no space), so it is
    /// checked as a function value in scope is: at its application.
    pub(super) fn call_value(&mut self, span: Span, callee: &Expr, all: &[&Expr]) -> Checked {
        if matches!(callee.kind, ExprKind::Call(..)) {
            self.note_application_hint(callee, all);
        }
        let name = Ident {
            name: CALLED_VALUE.to_string(),
            span: callee.span,
        };
        let called = Expr {
            kind: ExprKind::Name(name.clone()),
            span: callee.span,
        };
        let call = Expr {
            kind: ExprKind::Call(Box::new(called), all.iter().map(|e| (*e).clone()).collect()),
            span,
        };
        let block = Expr::let_in(name, callee.clone(), call, span);
        self.check(&block)
    }

    /// `f(args)` where `f` is a function value in scope.
    pub(super) fn call_local(
        &mut self,
        span: Span,
        name: &str,
        ty: &Ty,
        args: &[&Expr],
    ) -> Checked {
        if !ty.is_fn() && !ty.is_error() {
            let what = if name == CALLED_VALUE {
                format!("this value is a `{ty}`, not a function")
            } else {
                format!("`{name}` is a `{ty}`, not a function")
            };
            self.error("E0412", what, span, "not callable")
                .help
                .push("only functions are called: call a function by name, `f(x)`, or a function value, `(if c { f } else { g })(x)`".into());
            return Checked::error();
        }
        let mut cost = Cost::zero();
        let mut tys = Vec::new();
        let mut tirs = Vec::new();
        let mut sums = Vec::new();
        // The sums the arguments are, for a predicate a function made,
        // taken while each argument's leaves are recorded
        // (`returned_guards.rs`).
        let made = Checker::made_guard(ty).cloned();
        let mut guard_sums = Vec::new();
        // A list given where a stream is taken in a place that may write.
        for (i, arg) in args.iter().enumerate() {
            self.island_stream = None;
            // Checked inside a condition, as a `let`'s value is, so that
            // the sum it is keeps its names' ranges.
            let mark = self.begin_condition();
            // A lambda passed to a known function is checked with the type
            // that function gives its parameter.
            let checked = match (ty, &arg.kind) {
                (Ty::Fn(func), ExprKind::Lambda(params, body)) => match func.params.get(i) {
                    Some(Ty::Fn(expected)) if expected.params.len() == params.len() => {
                        self.check_lambda(params, body, &expected.params)
                    }
                    _ => self.check(arg),
                },
                _ => self.check(arg),
            };
            // A function value whose parameter types are not known yet (a
            // lambda bound by `let`, a definition named as a value) is
            // resolved against the parameter as a lambda written here is,
            // so what it costs is known where the requirement is recorded.
            let mut checked = checked;
            if let (Ty::Fn(func), Ty::Fns(_)) = (ty, &checked.ty) {
                if let Some(Ty::Fn(expected)) = func.params.get(i) {
                    let place = format!("`{name}`");
                    let resolved = self.as_function(&checked.ty, expected, arg.span, &place);
                    checked.ty = Ty::Fn(Box::new(resolved));
                }
            }
            // A list or an island given where the function value takes a
            // stream is read as one, as for a named function (`calls.rs`;
            // spec/cost.md §4.2), where nothing may write.
            if let Ty::List(..) = &checked.ty {
                // (Where something may write, `apply` refuses it and says why.)
                if takes_stream(ty, i) && !self.may_write {
                    checked = self.read_as_stream_at(checked, arg.span);
                }
            }
            let sum = self.definition(arg, &checked.ty);
            if made.is_some() {
                guard_sums.push(
                    sum.clone()
                        .or_else(|| super::guards::constant_side(&checked.ty)),
                );
            }
            sums.push(sum);
            self.condition(arg, mark);
            cost = cost.plus(&checked.cost);
            tys.push(checked.ty);
            tirs.push(checked.tir);
        }
        let place = match name {
            CALLED_VALUE => "the function called here".to_string(),
            name => format!("`{name}`"),
        };
        // A predicate a function made says what its template does with
        // these arguments (`returned_guards.rs`).
        if let Some(guard) = made {
            self.record_made_guard(span, &guard, &guard_sums);
        }
        self.argument_sums = sums;
        let from = self.comparisons.len();
        let applied = self.apply(ty, &tys, span, &place, super::functions::AppliedBy::Call);
        // A lambda applied inside a condition says what its body's
        // condition says (`guards.rs`).
        self.record_lambda_guard(span, ty, from);
        Checked::new(
            applied.ret,
            cost.plus(&applied.latent),
            TExpr::CallLocal(name.to_string(), tirs),
        )
    }
}

/// Whether every function a value of type `callee` may be declares its
/// parameter `i` a stream (one function, or several known ones joined by
/// an `if` or a list; a lambda not applied yet declares nothing).
fn takes_stream(callee: &Ty, i: usize) -> bool {
    let declares = |func: &super::types::FnTy| matches!(func.params.get(i), Some(Ty::Stream(_)));
    match callee {
        Ty::Fn(func) => declares(func),
        Ty::Fns(candidates) => {
            !candidates.is_empty()
                && candidates.iter().all(|c| match c {
                    super::types::FnCandidate::Known(func) => declares(func),
                    super::types::FnCandidate::Lambda(_) => false,
                })
        }
        _ => false,
    }
}

impl Checker<'_> {
    /// `found` with every function value inside it that flows where
    /// `expected` has a known function type resolved against that type
    /// (delayed lambdas checked with its parameters).
    pub(super) fn resolve_functions(
        &mut self,
        found: &Ty,
        expected: &Ty,
        span: Span,
        callee: &str,
    ) -> Ty {
        match (found, expected) {
            (Ty::Fn(_) | Ty::Fns(_), Ty::Fn(e)) => {
                let func = self.as_function(found, e, span, &format!("`{callee}`"));
                Ty::Fn(Box::new(func))
            }
            (Ty::List(f, size, extremes), Ty::List(e, _, _)) => Ty::list_with(
                self.resolve_functions(f, e, span, callee),
                size.clone(),
                extremes.as_deref().cloned(),
            ),
            (Ty::Option(f), Ty::Option(e)) => {
                Ty::option(self.resolve_functions(f, e, span, callee))
            }
            // A function where an optional one is taken: the function.
            (Ty::Fn(_) | Ty::Fns(_), Ty::Option(e)) => {
                self.resolve_functions(found, e, span, callee)
            }
            (Ty::Record(fs), Ty::Record(es)) => Ty::Record(
                fs.iter()
                    .map(|(n, f)| match es.iter().find(|(m, _)| m == n) {
                        Some((_, e)) => (n.clone(), self.resolve_functions(f, e, span, callee)),
                        None => (n.clone(), f.clone()),
                    })
                    .collect(),
            ),
            _ => found.clone(),
        }
    }
}
