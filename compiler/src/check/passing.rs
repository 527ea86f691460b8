//! What a call checks of its arguments beyond their types: the ends a function's parameters declare, and functions it passes back without applying them.
//!
//! A function may declare ends on its parameters (`fn page(k: Int >= 0 <=
//! 100)`): its body was costed within them, so each call must prove its
//! argument within them (E0321).
//!
//! A function may return a function argument it never applies
//! (`fn passg(f: T -> U) = f`, or one it wraps as `x => f(x)`). Where the
//! call fixes none of that argument's parameter types (no other argument
//! binds `T`), the argument is not checked against its parameter: it is
//! kept as it is (a lambda stays delayed), and the call's result holds it
//! wherever the signature's result holds the parameter's own type. Sound
//! because the callee cannot apply it: with `T` bound by no argument, no
//! value of type `T` exists inside the call to apply it to, and its
//! signature's cost does not mention the argument's latent cost (checked:
//! otherwise it is checked as before). Each place that applies the result
//! then checks the lambda with the arguments it passes (spec/cost.md §6).

use super::expr::{Checker, FnSig};
use super::types::Ty;
use crate::cost::{Poly, Var};
use crate::span::Span;
use std::collections::BTreeMap;

/// Whether `pty` is a function type with a parameter type that mentions
/// a type parameter no argument has bound yet.
pub fn unbound_parameters(pty: &Ty, generics: &BTreeMap<String, Ty>) -> bool {
    match pty {
        Ty::Fn(f) => f
            .params
            .iter()
            .any(|p| p.generics().iter().any(|g| !generics.contains_key(g))),
        _ => false,
    }
}

/// The variables of one call's cost of the function parameter `pty`.
fn latent_vars(pty: &Ty) -> Vec<Var> {
    match pty {
        Ty::Fn(f) => f
            .latent
            .measures()
            .iter()
            .filter_map(|(_, p)| p.as_var())
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether argument `i` is kept unapplied: its parameter's types are not
/// fixed by the call, and the callee's cost does not apply it.
pub fn kept_unapplied(sig: &FnSig, i: usize, generics: &BTreeMap<String, Ty>) -> bool {
    let pty = &sig.params[i].1;
    if !unbound_parameters(pty, generics) {
        return false;
    }
    let vars = latent_vars(pty);
    !vars.is_empty()
        && !sig
            .cost
            .measures()
            .iter()
            .any(|(_, p)| vars.iter().any(|v| p.mentions(v)))
}

/// `ret` with the parameter's type `param` replaced by the argument's
/// `arg`: where it is `param` itself (`keep(f) = f`), and where it is a
/// function of `param`'s types that costs what `param` costs and constant
/// steps of its own (`wrap(f) = x => f(x)`: the call and its operands, a
/// step each), which `arg` then costs too when it is a known function. A
/// delayed lambda's steps are counted where it is applied; the wrapper's
/// few of its own are not (spec/cost.md §10).
fn replace_passed(ret: &Ty, param: &Ty, arg: &Ty) -> Ty {
    let Ty::Fn(assumed) = param else {
        return ret.replace(param, arg);
    };
    let steps = assumed.latent.steps.as_var();
    ret.map(&|t| {
        if t == param {
            return Some(arg.clone());
        }
        let (Ty::Fn(found), Some(var)) = (t, steps) else {
            return None;
        };
        let same_work = found.params == assumed.params
            && found.ret == assumed.ret
            && found.latent.seeks == assumed.latent.seeks
            && found.latent.rows == assumed.latent.rows
            && found.latent.trips == assumed.latent.trips;
        let own = found.latent.steps.substitute(&var, &Poly::zero());
        if !same_work
            || own.any_var(|_| true)
            || found.latent.steps != assumed.latent.steps.plus(&own)
        {
            return None;
        }
        Some(match arg {
            Ty::Fn(given) => {
                let mut given = given.clone();
                given.latent.steps = given.latent.steps.plus(&own);
                Ty::Fn(given)
            }
            other => other.clone(),
        })
    })
}

/// The signature's result with each kept argument in place of its
/// parameter's type.
pub fn passed_back(sig: &FnSig, kept: &[(usize, Ty)]) -> Ty {
    let mut ret = sig.ret.clone();
    for (i, arg) in kept {
        ret = replace_passed(&ret, &sig.params[*i].1, arg);
    }
    ret
}

/// The first kept argument (`kept_unapplied`) whose cost `ret`, the
/// signature's result with the kept arguments passed back in place, still
/// holds in another form (applied twice, or wrapped with other work).
pub fn kept_in_another_form(sig: &FnSig, kept: &[(usize, Ty)], ret: &Ty) -> Option<usize> {
    kept.iter().map(|(i, _)| *i).find(|&i| {
        let vars = latent_vars(&sig.params[i].1);
        ret.any_poly(&|p| vars.iter().any(|v| p.mentions(v)))
    })
}

/// An entry point's parameter measure (`|s|`, declared `<= max`) and the
/// most an argument's may be, when that may pass it.
fn entry_maximum(declared: &Poly, found: &Poly) -> Option<(u64, Option<u64>)> {
    let var = declared.as_var()?;
    let crate::cost::VarKind::Param { max: Some(max), .. } = var.kind() else {
        return None;
    };
    let may = found.max_value();
    may.is_none_or(|m| m > *max).then_some((*max, may))
}

impl Checker<'_> {
    /// E0321: an argument the caller cannot prove within the ends its
    /// parameter declares (`fn f(n: Int >= 0 <= 10)`, `s: String <= 20`):
    /// the function's body was costed assuming them.
    pub(super) fn within_declared_ends(
        &mut self,
        pty: &Ty,
        arg: &Ty,
        span: Span,
        callee: &str,
        param: &str,
    ) {
        // An option's ends are its value's (`none` is within them).
        let (pty, arg) = match (pty, arg) {
            (Ty::Option(declared), Ty::Option(found)) => (&**declared, &**found),
            (Ty::Option(declared), found) => (&**declared, found),
            other => other,
        };
        let outside = match (pty, arg) {
            (Ty::Int(declared), Ty::Int(found)) => {
                let (below, above) = declared.passed_ends(found);
                let above = above.map(|max| {
                    let may = found
                        .most
                        .map_or("any size".to_string(), |m| format!("up to {m}"));
                    (format!("`<= {max}`"), may)
                });
                let below = below.map(|min| {
                    let may = found.least.map_or("any negative number".to_string(), |l| {
                        format!("as low as {l}")
                    });
                    (format!("`>= {min}`"), may)
                });
                above.or(below)
            }
            (Ty::Str(declared), Ty::Str(found))
                if declared.as_var().is_none() && !found.le(declared) =>
            {
                let may = found
                    .max_value()
                    .map_or("any length".to_string(), |m| format!("{m} bytes long"));
                Some((format!("`<= {declared}` bytes"), may))
            }
            // A query's or mutation's parameter (`s: String <= 3`, `xs:
            // [Int; <= 3]`) is its declared maximum in the callee's cost,
            // whatever the call passes: the argument must stay within it.
            (Ty::Str(declared), Ty::Str(found)) => {
                entry_maximum(declared, found).map(|(max, may)| {
                    let may = may.map_or("any length".to_string(), |m| format!("{m} bytes long"));
                    (format!("`<= {max}` bytes"), may)
                })
            }
            (Ty::List(_, declared, _), Ty::List(_, found, _)) => {
                // A list parameter of this function, declared `<= n`, is at
                // most `n` long: every call of it proved so.
                let found = found.substitute_all(&|var| {
                    self.declared_sizes
                        .get(var)
                        .map(|n| crate::cost::Poly::constant(*n))
                });
                entry_maximum(declared, &found).map(|(max, may)| {
                    let may = may.map_or("any number of".to_string(), |m| format!("{m}"));
                    (
                        format!("`<= {max}` elements long"),
                        format!("{may} elements long"),
                    )
                })
            }
            _ => None,
        };
        let Some((declared, may)) = outside else {
            return;
        };
        self.error(
            "E0321",
            match param.strip_suffix("()") {
                Some(function) => format!("the result of `{callee}`'s parameter `{function}` is declared {declared}, and the function given may return one {may}"),
                None => format!("`{callee}`'s parameter `{param}` is declared {declared}, and this argument may be {may}"),
            },
            span,
            "may be outside the declared ends",
        )
        .help
        .push(match pty {
            // No test narrows a string's or a list's length.
            Ty::Str(_) => format!(
                "pass a value within them: a shorter literal, or a parameter declared with the same or a smaller maximum (`{param}: String <= …`)"
            ),
            // A function parameter's result (`g()`, `r.f()`).
            Ty::List(..) if param.ends_with("()") => "pass a function that returns a shorter list: limit it where it is made (`|> take(…)`), or pass one whose declared result is as short (`-> [Int; <= …]`)".to_string(),
            Ty::List(..) => format!(
                "pass a value within them: a shorter list, or a parameter declared with the same or a smaller maximum (`{param}: […; <= …]`)"
            ),
            _ => format!(
                "pass a value within them: a literal, a parameter declared with the same ends, or one an `if` has tested (`if x <= 10 {{ {callee}(x) }} else {{ … }}`)"
            ),
        });
    }

    /// E0425: a function argument whose parameter types the call does not
    /// fix, returned inside a function that applies it.
    pub(super) fn unfixed_lambda(&mut self, span: Span, callee: &str, param: &str) {
        self.error(
            "E0425",
            format!(
                "`{callee}` returns a function that applies `{param}`, and nothing in this call fixes `{param}`'s parameter types"
            ),
            span,
            "parameter types unknown here",
        )
        .help
        .push(format!(
            "pass `{callee}` the values `{param}` is applied to in the same call, so that their types are known; or apply the lambda where it is written"
        ));
    }
}
