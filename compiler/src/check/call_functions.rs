//! A call's function arguments (lambdas written in it, function values): each resolved once the call fixes its parameter types, those fed a type parameter's values at one `T` that holds what each returns (spec/cost.md, "Calls").

use super::expr::{Checked, Checker, FnSig};
use super::fed_types::PassState;
use super::measures::{self, Bindings};
use super::passing::{kept_unapplied, unbound_parameters};
use super::type_binding::{bind, merge_bindings};
use super::types::Ty;
use super::unknown_args::unknown_after_error;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};
use std::collections::BTreeMap;

/// A call of a definition, as `call_def` checked its plain arguments.
pub(super) struct CallSite<'a> {
    pub span: Span,
    /// The callee's name, for messages.
    pub name: &'a str,
    pub sig: &'a FnSig,
    pub args: &'a [&'a Expr],
    /// Each plain argument's type (`None` for a function, or where it
    /// bound nothing).
    pub arg_tys: &'a [Option<Ty>],
}

impl CallSite<'_> {
    /// Whether argument `i` is a lambda written here for a function
    /// parameter: checked last, at the parameter types the others fix.
    pub fn is_lambda_for_fn(&self, i: usize) -> bool {
        matches!(self.args[i].kind, ExprKind::Lambda(..))
            && matches!(self.sig.params[i].1, Ty::Fn(_))
    }
}

impl Checker<'_> {
    /// Resolves the function arguments of `site`, binding the type
    /// parameters and measures each fixes into `state`: the functions it
    /// only passes back, unapplied (`passing.rs`), and each function
    /// given as resolved at the call's final types, by position.
    pub(super) fn resolve_call_functions(
        &mut self,
        site: &CallSite<'_>,
        state: PassState<'_>,
    ) -> (Vec<(usize, Ty)>, Vec<Option<Ty>>) {
        let CallSite {
            span,
            name,
            sig,
            args,
            arg_tys,
        } = *site;
        let (generics, bindings, origins, tirs) = state;
        let is_lambda_for_fn = |i: usize| site.is_lambda_for_fn(i);
        // A function whose result, given the arguments only, is the
        // call's (`applied_results.rs`), or that the body never reads.
        let result_fixes_nothing = |i: usize| sig.result_fixes_nothing(i);
        // What a function the body never reads returns binds nothing.
        let unread = |i: usize| sig.unread.get(i).copied().unwrap_or(false);
        let mut kept: Vec<(usize, Ty)>;
        // Then functions: lambdas written here and function values, each
        // once the call fixes its parameter types (checking one may bind a
        // type parameter another's parameters need: `ag(f: T -> U, g: V ->
        // T, x: V)` resolves `g` first, whether either is a lambda or a
        // definition named as a value).
        // Functions the callee feeds a type parameter's values (`f: T ->
        // T`, `g: T -> T`) are all checked at one `T` that holds what each
        // returns: the first widens `T` to its own fixed point
        // (`self_applied.rs`), and one resolved after it that returns
        // more has every function resolved again from the wider `T`
        // (`fed_types.rs`).
        let mut fed_types =
            super::fed_types::FedTypes::start(self, generics, bindings, origins, tirs);
        // Each function given, as resolved at the call's final types.
        let mut given_fns: Vec<Option<Ty>> = vec![None; args.len()];
        loop {
            kept = Vec::new();
            let mut pending: Vec<usize> = (0..args.len())
                .filter(|&i| is_lambda_for_fn(i) || sig.params[i].1.holds_fn())
                .collect();
            // The functions taken from `pending` so far, in turn.
            let mut resolved: Vec<usize> = Vec::new();
            while !pending.is_empty() {
                // And one whose parameters are costed at another's result
                // (`f(g(x))`: `f` at `g()`) after that one, which binds it.
                let waits = |i: usize| {
                    let Ty::Fn(func) = &sig.params[i].1 else {
                        return false;
                    };
                    let later: std::collections::BTreeSet<_> = pending
                        .iter()
                        .filter(|&&j| j != i)
                        .flat_map(|&j| measures::generic_vars(&sig.params[j].1))
                        .collect();
                    func.params
                        .iter()
                        .any(|p| measures::generic_vars(p).iter().any(|v| later.contains(v)))
                };
                let ready = |i: usize| !unbound_parameters(&sig.params[i].1, generics);
                // A function fed its own results first, so that the `T` it may
                // widen is the one every other function is checked at.
                let fed = |i: usize| super::self_applied::fed_type(sig, i, &resolved).is_some();
                let next = pending
                    .iter()
                    .position(|&i| ready(i) && !waits(i) && fed(i))
                    .or_else(|| pending.iter().position(|&i| ready(i) && !waits(i)))
                    .or_else(|| pending.iter().position(|&i| ready(i)))
                    .unwrap_or(0);
                let i = pending.remove(next);
                resolved.push(i);
                if !is_lambda_for_fn(i) {
                    // A function value (or a value holding functions).
                    let pty = &sig.params[i].1;
                    let Some(arg_ty) = arg_tys[i].clone() else {
                        continue;
                    };
                    if kept_unapplied(sig, i, generics) {
                        kept.push((i, arg_ty));
                        continue;
                    }
                    // Measures of this parameter not bound yet stay variables:
                    // they are bound to the argument's just below.
                    let resolve_at = |me: &mut Self,
                                      at: &Ty,
                                      generics: &BTreeMap<String, Ty>,
                                      bindings: &Bindings| {
                        let expected = at
                            .substitute_generics(generics)
                            .map_polys(&|p| measures::instantiate_bound(p, bindings));
                        let resolved = me.resolve_functions(&arg_ty, &expected, args[i].span, name);
                        // What a function given the arguments only returns
                        // is the call's result, costed nowhere in the body
                        // (`applied_results.rs`): only its parameters fit.
                        let expected = match (result_fixes_nothing(i), &expected, &resolved) {
                            (true, Ty::Fn(e), Ty::Fn(r)) => Ty::Fn(Box::new(super::types::FnTy {
                                ret: r.ret.clone(),
                                ..(**e).clone()
                            })),
                            _ => expected,
                        };
                        me.fits(&resolved, &expected, args[i].span, &format!("`{name}`"));
                        (resolved.clone(), resolved)
                    };
                    let found = self.fed_argument(
                        (sig, i, name, &resolved[..resolved.len() - 1]),
                        args[i].span,
                        generics,
                        bindings,
                        &resolve_at,
                    );
                    fed_types.returned(sig, i, &found, generics);
                    given_fns[i] = Some(found.clone());
                    if unread(i) {
                        // Its shape checked on a copy (`T -> T` given an
                        // `Int -> String` where `T` is an `Int`).
                        let names = (sig.params[i].0.as_str(), name);
                        let mut trial = generics.clone();
                        self.bind_type(names, pty, &found, args[i].span, &mut trial, false);
                    } else {
                        bind(pty, &found, generics);
                    }
                    unknown_after_error(pty, &found, generics);
                    let mut own = Bindings::new();
                    measures::bind(pty, &found, &mut own);
                    merge_bindings(bindings, &own);
                    origins.push((own, args[i].span));
                    continue;
                }
                if kept_unapplied(sig, i, generics) {
                    let checked = self.check(args[i]);
                    kept.push((i, checked.ty));
                    tirs[i] = Some(checked.tir);
                    continue;
                }
                let (param, pty) = &sig.params[i];
                let ExprKind::Lambda(params, body) = &args[i].kind else {
                    unreachable!("filtered to lambdas")
                };
                let span = args[i].span;
                let check_at = |me: &mut Self,
                                at: &Ty,
                                generics: &BTreeMap<String, Ty>,
                                bindings: &Bindings| {
                    let expected = me.expected_param(at, generics, bindings);
                    let checked = match &expected {
                        Ty::Fn(f) if f.params.len() == params.len() => {
                            let checked = me.check_lambda(params, body, &f.params);
                            if !result_fixes_nothing(i) {
                                me.result_within_its_type(
                                    pty,
                                    &checked.ty,
                                    generics,
                                    bindings,
                                    span,
                                    name,
                                );
                            }
                            checked
                        }
                        _ => {
                            let why = format!("parameter `{param}` of `{name}`");
                            me.mismatch(&expected, &Ty::Error, span, why);
                            Checked::error()
                        }
                    };
                    let ty = checked.ty.clone();
                    (checked, ty)
                };
                let checked = self.fed_argument(
                    (sig, i, name, &resolved[..resolved.len() - 1]),
                    span,
                    generics,
                    bindings,
                    &check_at,
                );
                fed_types.returned(sig, i, &checked.ty, generics);
                given_fns[i] = Some(checked.ty.clone());
                let names = (param.as_str(), name);
                if unread(i) {
                    let mut trial = generics.clone();
                    self.bind_type(names, pty, &checked.ty, args[i].span, &mut trial, false);
                } else {
                    self.bind_type(names, pty, &checked.ty, args[i].span, generics, false);
                }
                unknown_after_error(pty, &checked.ty, generics);
                let mut own = Bindings::new();
                measures::bind(pty, &checked.ty, &mut own);
                merge_bindings(bindings, &own);
                origins.push((own, args[i].span));
                tirs[i] = Some(checked.tir);
            }
            if !fed_types.again(
                self,
                span,
                (&mut *generics, &mut *bindings, &mut *origins, &mut *tirs),
            ) {
                break;
            }
        }
        (kept, given_fns)
    }
}
