//! A function parameter applied to its own results (`f(f(x))`): the range of what it is given, found at the call by iterating to a fixed point.
//!
//! `fn twice(f: Int -> Int, x: Int) -> Int = f(f(x))` requires of `f` that
//! it admit `x` and `f`'s own results: the requirement is `max(x, f())`,
//! in terms of the measure the argument given for `f` fixes. Bound at a
//! call as any measure is, it would name itself, and is unbounded there
//! (`measures::bind_where`), so `twice(n => R |> take(n) |> count(), 3)`
//! was refused. Instead the call guesses the results' range `S` (at first
//! 0), checks the function at the arguments the requirement then allows,
//! and widens `S` by what it returns, until what it returns lies within
//! `S` (a few rounds at most; else the call is checked as before).
//!
//! Why this is sound: the body applies `f` only to values within the
//! requirement (it was recorded from every application), which is
//! monotone in `f()`. If checked at the requirement with `f() = S` the
//! function returns values within `S`, then by induction on the body's
//! applications (each given `x` or earlier results, all within the
//! requirement at `S`) every application is given a value that was
//! checked, and every result is within `S`: the check of the last round
//! covers every application the run makes.

use super::expr::{join_types, Checked, Checker, FnSig};
use super::measures::{self, Bindings};
use super::type_binding::merge_bindings;
use super::types::Ty;
use crate::cost::{Poly, Var};
use crate::syntax::ast::{Expr, ExprKind};
use std::collections::{BTreeMap, BTreeSet};

/// Rounds of widening before the call is checked as if no range were
/// known (each round checks the function once more).
const ROUNDS: usize = 4;

/// The measures of what a function parameter `pty` returns that its own
/// parameters' requirements mention: those a call must find by iterating.
/// Empty for any other parameter.
pub fn fed_back(pty: &Ty) -> BTreeSet<Var> {
    let Ty::Fn(func) = pty else {
        return BTreeSet::new();
    };
    let produced = measures::generic_vars(&func.ret);
    let required: BTreeSet<Var> = func.params.iter().flat_map(measures::generic_vars).collect();
    produced.intersection(&required).copied().collect()
}

/// `pty` at a round's `trial` bindings, each requirement met by several
/// uses (`uses`, the signature's) replaced by the largest of them at those
/// values (`max(3, 0)` is 3, where the signature's `x + f()` is their sum);
/// the caller's own measures (`keep`) stay variables.
pub fn at_uses(pty: &Ty, uses: &[(Poly, Vec<Poly>)], trial: &Bindings, keep: &BTreeSet<Var>) -> Ty {
    pty.map_polys(&|p| match uses.iter().find(|(key, _)| key == p) {
        Some((_, each)) => each
            .iter()
            .map(|u| measures::instantiate_keeping(u, trial, keep))
            .reduce(|a, b| a.max(&b))
            .unwrap_or_else(|| p.clone()),
        None => p.clone(),
    })
}

/// The type parameter that parameter `i` of `sig`, a function, returns
/// and takes (`f: T -> T`, applied to its own results as `f(f(x))` may
/// be), where no other parameter holding a function mentions it: a call
/// may then widen it to what the function returns (a function resolved
/// earlier at the narrower `T` would not have been checked at the wider).
pub fn fed_type(sig: &FnSig, i: usize) -> Option<String> {
    let Ty::Fn(func) = &sig.params[i].1 else {
        return None;
    };
    let Ty::Generic(name) = &func.ret else {
        return None;
    };
    let takes = func.params.iter().any(|p| p.generics().contains(name));
    let elsewhere = sig
        .params
        .iter()
        .enumerate()
        .any(|(j, (_, t))| j != i && t.holds_fn() && t.generics().contains(name));
    (takes && !elsewhere).then(|| name.clone())
}

impl Checker<'_> {
    /// The lambda written as argument `i` of a call of `sig` (`name`),
    /// checked at its parameter's type; where the callee feeds what it
    /// returns back to it, at a fixed point: of the type parameter it
    /// returns ([`fed_type`]: `T` widened by the lambda's result, joined,
    /// and its measures bound again) and of its result's measures
    /// ([`fed_back`]). A round that reports nothing is the last; one that
    /// widens reports nothing of its own.
    pub(super) fn lambda_argument(
        &mut self,
        sig: &FnSig,
        i: usize,
        arg: &Expr,
        generics: &mut BTreeMap<String, Ty>,
        bindings: &mut Bindings,
        name: &str,
    ) -> Checked {
        let widened = fed_type(sig, i);
        let given = widened.as_ref().map(|_| (generics.clone(), bindings.clone()));
        for _ in 0..ROUNDS {
            let reported = self.diagnostics.len();
            let checked = self.lambda_at_measures(sig, i, arg, generics, bindings, name);
            let (Some(t), Ty::Fn(func), true) = (&widened, &checked.ty, self.diagnostics.len() > reported) else {
                return checked;
            };
            let Some(bound) = generics.get(t).cloned() else {
                return checked;
            };
            let joined = join_types(&bound, &func.ret);
            if joined == bound || !bound.accepts(&func.ret) {
                return checked;
            }
            self.diagnostics.truncate(reported);
            let mut values = Bindings::new();
            measures::bind(&Ty::Generic(t.clone()), &joined, &mut values);
            merge_bindings(bindings, &values);
            generics.insert(t.clone(), joined);
        }
        // No fixed point: checked at the type the other arguments gave,
        // whose refusal names what the caller wrote.
        if let Some((given_generics, given_bindings)) = given {
            *generics = given_generics;
            *bindings = given_bindings;
        }
        self.lambda_at_measures(sig, i, arg, generics, bindings, name)
    }

    /// [`Checker::lambda_argument`] at the type parameters `generics`: at
    /// a fixed point of the measures its result feeds back, if any.
    fn lambda_at_measures(
        &mut self,
        sig: &FnSig,
        i: usize,
        arg: &Expr,
        generics: &BTreeMap<String, Ty>,
        bindings: &Bindings,
        name: &str,
    ) -> Checked {
        let (param, pty) = &sig.params[i];
        let ExprKind::Lambda(params, body) = &arg.kind else {
            unreachable!("called for lambdas written as arguments")
        };
        let check_at = |me: &mut Self, at: &Ty, bindings: &Bindings| {
            let expected = me.expected_param(at, generics, bindings);
            match &expected {
                Ty::Fn(f) if f.params.len() == params.len() => {
                    let checked = me.check_lambda(params, body, &f.params);
                    me.result_within_its_type(pty, &checked.ty, generics, bindings, arg.span, name);
                    checked
                }
                _ => {
                    me.mismatch(
                        &expected,
                        &Ty::Error,
                        arg.span,
                        format!("parameter `{param}` of `{name}`"),
                    );
                    Checked::error()
                }
            }
        };
        let fed = fed_back(pty);
        let at_fixed_point = (!fed.is_empty())
            .then(|| {
                self.at_fixed_point(pty, &fed, bindings, |me, trial| {
                    let keep = me.def_measures.clone();
                    let at = at_uses(pty, &sig.uses, trial, &keep);
                    let checked = check_at(me, &at, trial);
                    let ty = checked.ty.clone();
                    (checked, ty)
                })
            })
            .flatten();
        match at_fixed_point {
            Some(checked) => checked,
            None => check_at(self, pty, bindings),
        }
    }

    /// The argument for a function parameter `pty` whose results are fed
    /// back to it (`fed`, [`fed_back`]), resolved by `resolve` at the
    /// call's `bindings` with a guess for each fed measure, widened until
    /// the function's results fit the guess. `resolve` gives its value and
    /// the function type found. `None` when no round reached a fixed point
    /// (nothing a failed round reported is kept).
    pub fn at_fixed_point<T>(
        &mut self,
        pty: &Ty,
        fed: &BTreeSet<Var>,
        bindings: &Bindings,
        mut resolve: impl FnMut(&mut Self, &Bindings) -> (T, Ty),
    ) -> Option<T> {
        let mut guess: Bindings = fed.iter().map(|var| (*var, Poly::zero())).collect();
        for _ in 0..ROUNDS {
            let reported = self.diagnostics.len();
            let mut trial = bindings.clone();
            trial.extend(guess.iter().map(|(var, value)| (*var, value.clone())));
            let (value, found) = resolve(self, &trial);
            let mut returned = Bindings::new();
            measures::bind(pty, &found, &mut returned);
            let mut within = true;
            for var in fed {
                let Some(result) = returned.get(var) else {
                    self.diagnostics.truncate(reported);
                    return None;
                };
                let end = guess.get_mut(var).expect("a guess for every fed measure");
                if !result.le(end) {
                    within = false;
                    *end = end.max(result);
                }
            }
            if within {
                return Some(value);
            }
            self.diagnostics.truncate(reported);
        }
        None
    }
}
