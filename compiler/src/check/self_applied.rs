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

use super::expr::{Checker, FnSig};
use super::join::join_types;
use super::measures::{self, Bindings};
use super::type_binding::merge_bindings;
use super::types::Ty;
use crate::cost::{Poly, Var};
use crate::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// Rounds of widening before the call is checked as if no range were
/// known (each round checks the function once more).
const ROUNDS: usize = 8;

/// The measures of what a function parameter `pty` returns that its own
/// parameters' requirements mention: those a call must find by iterating.
/// Empty for any other parameter.
pub fn fed_back(pty: &Ty) -> BTreeSet<Var> {
    let Ty::Fn(func) = pty else {
        return BTreeSet::new();
    };
    let produced = measures::generic_vars(&func.ret);
    let required: BTreeSet<Var> = func
        .params
        .iter()
        .flat_map(measures::generic_vars)
        .collect();
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
/// be), where no function that the call resolved already (`resolved`)
/// takes a `T`: the call may then widen it to what the function returns
/// (a function resolved earlier at the narrower `T` would not have been
/// checked at the wider; one resolved later is checked at the wider, `g`
/// in `fn gtw(f: T -> T, g: T -> Int, x: T)`; one that only returns a
/// `T`, `g: U -> T`, returns within the wider too).
pub fn fed_type(sig: &FnSig, i: usize, resolved: &[usize]) -> Option<String> {
    // Given the call's arguments only (`fn app(f: T -> T, x: T) = f(x)`):
    // never fed a result, so checked at the `T` they fix
    // (`applied_results.rs`).
    if sig.result_fixes_nothing(i) {
        return None;
    }
    let Ty::Fn(func) = &sig.params[i].1 else {
        return None;
    };
    let Ty::Generic(name) = &func.ret else {
        return None;
    };
    let takes = func.params.iter().any(|p| p.generics().contains(name));
    let takes_t = |t: &Ty| {
        t.any(&|u| matches!(u, Ty::Fn(f) if f.params.iter().any(|p| p.generics().contains(name))))
    };
    let earlier = resolved
        .iter()
        .any(|&j| j != i && takes_t(&sig.params[j].1));
    (takes && !earlier).then(|| name.clone())
}

/// What resolves argument `i` at a parameter type (the signature's, or
/// one at a round's guesses), the type parameters and measures given: its
/// value and the function type found.
pub type Resolve<'r, 'c, T> =
    &'r dyn Fn(&mut Checker<'c>, &Ty, &BTreeMap<String, Ty>, &Bindings) -> (T, Ty);

/// How the rounds of a fixed point of measures ended.
enum Rounds<T> {
    /// A round's results fit its guesses: its value and function type.
    Reached((T, Ty)),
    /// The definition was refused for checking too much (E0424): the last
    /// round's, with what it reported, so that nothing is checked again
    /// (the refusal stands, whatever else is found).
    Stopped((T, Ty)),
    /// No round reached one (nothing a failed round reported is kept).
    NotFound,
}

/// `ty` with each `Int` in it `any`, an integer no range bounds.
fn any_number(ty: &Ty, any: &crate::cost::Interval) -> Ty {
    ty.map(&|ty| match ty {
        Ty::Int(_) => Some(Ty::Int(any.clone())),
        _ => None,
    })
}

impl<'c> Checker<'c> {
    /// Argument `i` of a call of `sig` (`callee`), a function, resolved by
    /// `resolve`; where the callee feeds what it returns back to it, at a
    /// fixed point: of the type parameter it returns ([`fed_type`]: `T`
    /// widened to its join with the function's result, its measures bound
    /// again, until the join is `T`) and of its result's measures
    /// ([`fed_back`]). A round that widens keeps nothing it reported; each
    /// round after the first counts as a lambda checked again (E0424 past
    /// the limit). With no fixed point, `T` with every number in it any
    /// integer is tried ([`Checker::at_any_number`]: `twice(v => v * 2,
    /// 1)` returns some `Int`); where the function's cost or result grows
    /// with its numbers there too, resolved at the type the other
    /// arguments gave; if nothing refuses it there (a `T` only a `none`
    /// fixed admits any result), E0419.
    pub(super) fn fed_argument<T>(
        &mut self,
        (sig, i, callee, resolved): (&FnSig, usize, &str, &[usize]),
        span: Span,
        generics: &mut BTreeMap<String, Ty>,
        bindings: &mut Bindings,
        resolve: Resolve<'_, 'c, T>,
    ) -> T {
        let Some(t) = fed_type(sig, i, resolved) else {
            return self
                .at_measures(sig, i, span, generics, bindings, resolve)
                .0;
        };
        let given = (generics.clone(), bindings.clone());
        let mut last = None;
        for round in 0..ROUNDS {
            if round > 0 && !self.may_check_again(span) {
                // Refused (E0424): the last round's, checked no further.
                if let Some(value) = last {
                    return value;
                }
                break;
            }
            let reported = self.diagnostics.len();
            let (value, found) = self.at_measures(sig, i, span, generics, bindings, resolve);
            let (Ty::Fn(func), Some(bound)) = (&found, generics.get(&t).cloned()) else {
                return value;
            };
            let joined = join_types(&bound, &func.ret);
            let comparable = bound.accepts(&func.ret) || func.ret.accepts(&bound);
            if joined == bound || !comparable {
                return value;
            }
            // A refusal reported in this round stands (it is reported once).
            if !self.drop_reported_since(reported) {
                return value;
            }
            let mut values = Bindings::new();
            measures::bind(&Ty::Generic(t.clone()), &joined, &mut values);
            merge_bindings(bindings, &values);
            generics.insert(t.clone(), joined);
            last = Some(value);
        }
        // Widened once more, to every number (each `Int` in `T` any
        // integer): where the function then returns within that `T`, it
        // is a fixed point like any other (`twice(v => v + 1, n)`, whose
        // results grow by one each round, is checked at any `Int`).
        let widened = (sig, i, callee, span);
        if let Some(value) = self.at_any_number(&t, widened, generics, bindings, resolve) {
            return value;
        }
        (*generics, *bindings) = given;
        // A `T` an untyped `none` fixed (`Error` inside: `none`, `{ n:
        // none }`) fits any result, measures and all: there the check
        // below refuses nothing. (`T` wholly `Error` is a call deferred to
        // where its result is applied, checked again there, `deferred.rs`,
        // or one whose argument had an error, reported.)
        let unknown = generics
            .get(&t)
            .is_some_and(|bound| !bound.is_error() && bound.any(&|t| t.is_error()));
        let reported = self.diagnostics.len();
        let (value, _) = self.at_measures(sig, i, span, generics, bindings, resolve);
        if let Some(refusal) = self.diagnostics.get_mut(reported) {
            refusal.notes.push(format!(
                "`{callee}` gives this function its own results as `{t}`; widened to hold them, `{t}` grew at every one of {ROUNDS} tries, so it is checked at the `{t}` the other arguments give"
            ));
        } else if unknown {
            self.error(
                "E0419",
                format!(
                    "`{callee}` gives this function its own results as `{t}`, and they grow past every `{t}` tried"
                ),
                span,
                "its results keep growing",
            )
            .help
            .push(format!(
                "give `{callee}` a function whose results stay within what it is given (`n => if n > 10 {{ 10 }} else {{ n + 1 }}`), or a first value of the type it returns"
            ));
        }
        value
    }

    /// The round of [`Checker::fed_argument`] at `T` (`t`) with each of
    /// its `Int`s widened to any integer: its value where the function's
    /// result lies within that `T` and nothing was reported (a cost that
    /// grows with a number is unbounded there, and refused); `None`, with
    /// nothing kept, otherwise. Sound as any fixed point is (the module's
    /// note): the function was checked at a `T` that holds its results.
    fn at_any_number<T>(
        &mut self,
        t: &str,
        (sig, i, callee, span): (&FnSig, usize, &str, Span),
        generics: &mut BTreeMap<String, Ty>,
        bindings: &mut Bindings,
        resolve: Resolve<'_, 'c, T>,
    ) -> Option<T> {
        let bound = generics.get(t)?.clone();
        // Named in messages as what `callee` feeds back to its function
        // (E0302's note, where it bounds a count).
        let named =
            format!("the results {callee} feeds back to its function, which grow each time");
        let number = crate::cost::Interval::unbounded(&named);
        let any = any_number(&bound, &number);
        if any == bound || !self.may_check_again(span) {
            return None;
        }
        let (kept_generics, kept_bindings) = (generics.clone(), bindings.clone());
        let mut values = Bindings::new();
        measures::bind(&Ty::Generic(t.to_string()), &any, &mut values);
        merge_bindings(bindings, &values);
        generics.insert(t.to_string(), any.clone());
        let reported = self.diagnostics.len();
        let (value, found) = self.at_measures(sig, i, span, generics, bindings, resolve);
        // Every number is some integer: a result that is `T` but for its
        // numbers is within it.
        let fixed = matches!(&found, Ty::Fn(func) if any_number(&func.ret, &number) == any);
        if fixed && self.diagnostics.len() == reported {
            return Some(value);
        }
        self.drop_reported_since(reported);
        (*generics, *bindings) = (kept_generics, kept_bindings);
        None
    }

    /// [`Checker::fed_argument`] at the type parameters `generics`: at a
    /// fixed point of the measures its result feeds back, if any.
    fn at_measures<T>(
        &mut self,
        sig: &FnSig,
        i: usize,
        span: Span,
        generics: &BTreeMap<String, Ty>,
        bindings: &Bindings,
        resolve: Resolve<'_, 'c, T>,
    ) -> (T, Ty) {
        let pty = &sig.params[i].1;
        let fed = fed_back(pty);
        if !fed.is_empty() {
            let at_round = |me: &mut Checker<'c>, trial: &Bindings| {
                let keep = me.def_measures.clone();
                let at = at_uses(pty, &sig.uses, trial, &keep);
                resolve(me, &at, generics, trial)
            };
            match self.at_fixed_point(pty, &fed, span, bindings, at_round) {
                Rounds::Reached(found) => return found,
                // Refused (E0424): the last round's, checked no further.
                Rounds::Stopped(last) => return last,
                Rounds::NotFound => {}
            }
        }
        resolve(self, pty, generics, bindings)
    }

    /// The argument for a function parameter `pty` whose results are fed
    /// back to it (`fed`, [`fed_back`]), resolved by `resolve` at the
    /// call's `bindings` with a guess for each fed measure, widened until
    /// the function's results fit the guess. `resolve` gives its value and
    /// the function type found; see [`Rounds`] for how the rounds end.
    fn at_fixed_point<T>(
        &mut self,
        pty: &Ty,
        fed: &BTreeSet<Var>,
        span: Span,
        bindings: &Bindings,
        mut resolve: impl FnMut(&mut Self, &Bindings) -> (T, Ty),
    ) -> Rounds<T> {
        let mut guess: Bindings = fed.iter().map(|var| (*var, Poly::zero())).collect();
        let mut last = None;
        for round in 0..ROUNDS {
            if round > 0 && !self.may_check_again(span) {
                return last.map_or(Rounds::NotFound, Rounds::Stopped);
            }
            let reported = self.diagnostics.len();
            let mut trial = bindings.clone();
            trial.extend(guess.iter().map(|(var, value)| (*var, value.clone())));
            let (value, found) = resolve(self, &trial);
            let mut returned = Bindings::new();
            measures::bind(pty, &found, &mut returned);
            let mut within = true;
            for var in fed {
                let Some(result) = returned.get(var) else {
                    if !self.drop_reported_since(reported) {
                        return Rounds::Stopped((value, found));
                    }
                    return Rounds::NotFound;
                };
                let end = guess.get_mut(var).expect("a guess for every fed measure");
                if !result.le(end) {
                    within = false;
                    *end = end.max(result);
                }
            }
            if within {
                return Rounds::Reached((value, found));
            }
            if !self.drop_reported_since(reported) {
                return Rounds::Stopped((value, found));
            }
            last = Some((value, found));
        }
        Rounds::NotFound
    }
}
