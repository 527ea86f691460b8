//! Functions a function returns: their parameters measured by their own variables, replaced by the arguments' measures wherever the returned function is applied.
//!
//! `fn adder(a: Int) -> Int -> Int = x => x + a` returns a lambda whose
//! parameter the declaration types as any `Int`. Checked with that type,
//! its result would be any `Int` too, and `take(adder(2)(3))` unbounded.
//! Instead the lambda is checked with `x`'s ends as variables of their
//! own ([`VarKind::Own`]): unbounded while the body is checked (every
//! conclusion drawn then holds for any value), so the result is `x + a`
//! in terms of them. Applying the returned function replaces them by the
//! argument's ends (`3 + 2`), as a call binds a definition's parameters.
//!
//! Soundness rests on two facts: a formula in an own variable is an upper
//! bound for every value of it (the body was checked with it unbounded;
//! the ends are monotone in it), and an own variable is only ever
//! replaced at an application of the function it belongs to — each call
//! of a definition gives the functions it returns fresh instances
//! ([`Checker::fresh_own_instances`]), so no other function's application
//! can capture one. One left unreplaced counts as unbounded.

use super::expr::{Checker, FnSig};
use super::measures::Bindings;
use super::types::{FnCandidate, FnTy, Ty};
use crate::cost::{Cost, Interval, Poly, Var, VarKind};
use crate::span::Span;

/// `declared` (a definition's declared result) with the parameters of each
/// function it returns — and of the functions those return, curried —
/// measured by own variables where the declaration leaves them unbounded:
/// an `Int` or a `String` with no declared end. A parameter the
/// declaration bounds keeps its bound (the body may rely on it).
pub fn own_measures(declared: &Ty, path: &str) -> Ty {
    let func = match declared {
        Ty::Fn(func) => func,
        // Functions inside a record, a list or an option it returns
        // (`-> { g: Int -> Int }`) are returned as well.
        Ty::Record(fields) => {
            return Ty::Record(
                fields
                    .iter()
                    .map(|(name, t)| (name.clone(), own_measures(t, &format!("{path}.{name}"))))
                    .collect(),
            )
        }
        Ty::List(elem, size, _) => {
            return Ty::list(own_measures(elem, &format!("{path}[]")), size.clone())
        }
        Ty::Option(inner) => return Ty::option(own_measures(inner, path)),
        other => return other.clone(),
    };
    let params = func
        .params
        .iter()
        .enumerate()
        .map(|(i, param)| owned(param, &format!("{path}'s argument {}", i + 1)))
        .collect();
    Ty::Fn(Box::new(FnTy {
        params,
        ret: own_measures(&func.ret, &format!("{path}(…)")),
        latent: func.latent.clone(),
        proves: None,
    }))
}

/// A returned function's parameter type `param` with each measure the
/// declaration leaves unbounded made an own variable named after `at`:
/// an `Int`'s ends, a `String`'s length, a list's length and its
/// elements', an option's and a record's fields', at any depth. A measure
/// the declaration bounds keeps its bound (the body may rely on it).
fn owned(param: &Ty, at: &str) -> Ty {
    let var = |label: String| {
        Poly::var(Var::new(VarKind::Own {
            label,
            instance: 0,
            most: None,
        }))
    };
    match param {
        Ty::Int(ends) if ends.hi.grows_for_good() && ends.lo.grows_for_good() => {
            let (hi, lo) = (var(at.to_string()), var(format!("-({at})")));
            Ty::Int(Interval::new(hi, lo, ends.least, ends.most))
        }
        Ty::Str(bytes) if bytes.grows_for_good() => Ty::Str(var(format!("|{at}|"))),
        Ty::List(elem, size, _) => {
            let elem = owned(elem, &format!("{at}[]"));
            // Each application's length, within a declared `<= n` (which
            // the body relies on and each application is held to).
            let size = if size.grows_for_good() {
                var(format!("|{at}|"))
            } else if size.vars().is_empty() {
                Poly::var(Var::new(VarKind::Own {
                    label: format!("|{at}|"),
                    instance: 0,
                    most: Some(size.constant_term()),
                }))
            } else {
                size.clone()
            };
            // A list of `Int`s whose elements' ends are its own: its least
            // and greatest are too (`extremes.rs`), fixed at each application.
            let extremes = match &elem {
                Ty::Int(each) if is_own_poly(&each.hi) && is_own_poly(&each.lo) => {
                    Some(crate::cost::Extremes {
                        least: Interval::new(
                            var(format!("least({at})")),
                            each.lo.clone(),
                            each.least,
                            each.most,
                        ),
                        greatest: Interval::new(
                            each.hi.clone(),
                            var(format!("-greatest({at})")),
                            each.least,
                            each.most,
                        ),
                        nonempty: false,
                    })
                }
                _ => None,
            };
            Ty::list_with(elem, size, extremes)
        }
        Ty::Option(inner) => Ty::option(owned(inner, at)),
        // A stream's opening and each element cost what the argument's do
        // (`stream Follow -> [Follow]` given an island: its rows).
        Ty::Stream(stream) => {
            let mut owned_stream = (**stream).clone();
            owned_stream.elem = owned(&stream.elem, &format!("{at}[]"));
            owned_stream.open = owned_cost(&stream.open, &format!("open {at}"), &var);
            owned_stream.per_element = owned_cost(&stream.per_element, &format!("each {at}"), &var);
            Ty::Stream(Box::new(owned_stream))
        }
        Ty::Record(fields) => Ty::Record(
            fields
                .iter()
                .map(|(name, t)| (name.clone(), owned(t, &format!("{at}.{name}"))))
                .collect(),
        ),
        // A function it is given (`-> (Int -> Int) -> Int`): a call of it
        // costs, and gives, what the function given does; its parameters
        // admit what the body passes it, requirements fixed to the largest
        // once the body is checked (`measures.rs`), as a definition's
        // function parameter's are.
        Ty::Fn(func) => Ty::Fn(Box::new(FnTy {
            params: func
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| super::measures::required(p, &format!("{at}'s argument {}", i + 1)))
                .collect(),
            ret: owned(&func.ret, &format!("{at}(…)")),
            latent: owned_cost(&func.latent, &format!("a call of {at}"), &var),
            proves: None,
        })),
        other => other.clone(),
    }
}

/// `cost` with each measure that has no bound made an own variable
/// (`var`'s) named after `what`: a stream's opening, a function's call.
fn owned_cost(cost: &Cost, what: &str, var: &dyn Fn(String) -> Poly) -> Cost {
    let [seeks, rows, trips, steps] = cost.measures().map(|(name, poly)| {
        let name = if name == "round trips" { "trips" } else { name };
        if poly.grows_for_good() {
            var(format!("{name}({what})"))
        } else {
            poly.clone()
        }
    });
    Cost::new(seeks, rows, trips).with_steps(steps)
}

/// What applying `func` to arguments of `arg_tys` gives and costs: its
/// own variables replaced by the arguments' ends at the same positions.
pub fn applied(func: &FnTy, arg_tys: &[Ty]) -> (Ty, Cost) {
    let mut bindings = Bindings::new();
    for (param, arg) in func.params.iter().zip(arg_tys) {
        super::measures::bind_where(param, arg, &mut bindings, &is_own);
    }
    if bindings.is_empty() {
        return (func.ret.clone(), func.latent.clone());
    }
    let replace = |p: &Poly| super::measures::instantiate_bound(p, &bindings);
    (func.ret.map_polys(&replace), func.latent.map(replace))
}

/// Whether `param` is a function's parameter that admits what it is
/// given rather than saying what it holds: a returned function's, measured
/// by its own variables (it admits any value of its shape), or a function
/// parameter's, measured by requirements its body's uses fix
/// (`measures.rs`). Neither fixes a type parameter's ends: those come from
/// the values the callee is given, and the function is then checked to
/// admit them.
pub fn admits_any(param: &Ty) -> bool {
    let open = |p: &Poly| p.as_var().is_some_and(|v| is_own(&v) || is_requirement(&v));
    match param {
        Ty::Int(ends) => open(&ends.hi),
        Ty::Str(bytes) => open(bytes),
        Ty::List(_, size, _) => open(size) && !param.any_poly(&|p| !open(p)),
        // A stream parameter whose opening or elements are measured by
        // its own variables (`-> stream Post -> [Int]`) takes any stream
        // of its rows: what it costs comes from the stream given.
        Ty::Stream(stream) => [&stream.open, &stream.per_element]
            .iter()
            .flat_map(|cost| cost.measures())
            .any(|(_, p)| open(p)),
        // A function parameter whose cost per call is measured by its own
        // variables (`-> (Int -> Int) -> Int`) takes any function of its
        // shape: what a call costs comes from the function given.
        Ty::Fn(func) => func.latent.measures().iter().any(|(_, p)| open(p)),
        _ => false,
    }
}

fn is_requirement(var: &Var) -> bool {
    matches!(var.kind(), VarKind::Req(_))
}

/// Whether `ty` holds an own variable: a formula in the arguments of a
/// function not applied yet.
pub fn mentions_own(ty: &Ty) -> bool {
    ty.any_poly(&|p| p.any_var(is_own))
}

/// Whether `p` would be bounded if every own variable in it were: it
/// grows with nothing else (no large table, no unbounded parameter), so
/// it is bounded wherever the returned function it belongs to is applied
/// to a bounded argument.
pub fn bounded_but_own(p: &Poly) -> bool {
    p.any_var(is_own)
        && !p
            .substitute_all(&|var| is_own(var).then(Poly::zero))
            .grows_for_good()
}

/// Whether a returned function's cost `latent`, bounded but for its own
/// variables, became unbounded when they were replaced by the arguments'
/// measures (`applied`): the argument given has no bound. An argument in
/// terms of another returned function's own variables (`n => mkc(a)(n)`
/// inside a function that returns it) is bounded where that one is
/// applied.
pub fn grows_with_argument(latent: &Cost, applied: &Cost) -> bool {
    let grows = |cost: &Cost| {
        cost.measures()
            .iter()
            .any(|(_, p)| p.grows_for_good() && !bounded_but_own(p))
    };
    grows(applied)
        && latent
            .measures()
            .iter()
            .all(|(_, p)| !p.grows_for_good() || bounded_but_own(p))
}

/// The own variables in `ty`, each once.
fn own_vars(ty: &Ty) -> Vec<Var> {
    let found = std::cell::RefCell::new(Vec::new());
    ty.any_poly(&|p| {
        p.any_var(|v| {
            if is_own(v) && !found.borrow().contains(v) {
                found.borrow_mut().push(*v);
            }
            false
        })
    });
    found.into_inner()
}

fn is_own(var: &Var) -> bool {
    matches!(var.kind(), VarKind::Own { .. })
}

/// Whether `end` is one own variable.
fn is_own_poly(end: &Poly) -> bool {
    end.as_var().is_some_and(|v| is_own(&v))
}

impl Checker<'_> {
    /// The function(s) a definition's body returns, resolved against its
    /// declared result `declared` with own variables at its parameters. A
    /// value that is one of several lambdas (an `if` between two) stays
    /// one of several known functions, each applied on its own where the
    /// result is applied: the larger of `7 + 1` and `7 * 2`, not of the
    /// two formulas joined before the argument is known.
    pub fn resolve_returned(&mut self, body: &Ty, declared: &Ty, span: Span, name: &str) -> Ty {
        let own = own_measures(declared, name);
        // While the returned functions' bodies are checked, their own
        // variables are values of this definition (the argument each is
        // applied to), as its parameters' measures are: a type parameter
        // bound to one is one value, not any (`measures.rs`, `fit_poly`).
        let added: Vec<Var> = own_vars(&own)
            .into_iter()
            .filter(|v| self.def_measures.insert(*v))
            .collect();
        let resolved = self.resolve_returned_at(body, &own, span, name);
        for v in added {
            self.def_measures.remove(&v);
        }
        resolved
    }

    fn resolve_returned_at(&mut self, body: &Ty, own: &Ty, span: Span, name: &str) -> Ty {
        match (body, own) {
            (Ty::Fns(candidates), Ty::Fn(expected)) if candidates.len() > 1 => {
                let known: Vec<FnCandidate> = candidates
                    .iter()
                    .map(|candidate| {
                        let one = Ty::Fns(vec![candidate.clone()]);
                        FnCandidate::Known(self.as_function(
                            &one,
                            expected,
                            span,
                            &format!("`{name}`"),
                        ))
                    })
                    .collect();
                Ty::one_of(known)
            }
            _ => self.resolve_functions(body, own, span, name),
        }
    }

    /// `sig` (a definition's signature, at one of its calls) with every own
    /// variable in it made a fresh instance, this call's own: the
    /// functions it returns, and what its parameters must admit.
    pub fn fresh_own_instances(&mut self, sig: FnSig) -> FnSig {
        let owns = |p: &Poly| p.any_var(is_own);
        if !sig.any_poly(&owns) {
            return sig;
        }
        self.own_instances += 1;
        let instance = self.own_instances;
        let fresh = |p: &Poly| {
            if !owns(p) {
                return p.clone();
            }
            p.substitute_all(&|var| match var.kind() {
                VarKind::Own { label, most, .. } => Some(Poly::var(Var::new(VarKind::Own {
                    label: label.clone(),
                    instance,
                    most: *most,
                }))),
                _ => None,
            })
        };
        sig.map_polys(&fresh)
    }
}
