//! Measures: the sizes, value ranges and costs inside types, named at a function's parameters, bound at its calls, compared where a value flows into a place costed for another.
//!
//! A function is checked once, with its parameters' measures abstract: the
//! length of a list parameter is `|xs|`, an `Int` parameter lies in
//! `[-lo(n), n]`, one call of a function parameter costs `seeks(f)`,
//! `rows(f)` and `trips(f)`. These sit at *covariant* positions (what the caller gives) and
//! are bound at each call to the argument's measures at the same position
//! ([`bind`]). At *contravariant* positions — the parameters of a function
//! parameter, which the body applies — a measure is a requirement `Req`:
//! every application in the body records what it passes ([`Requirements`]),
//! and once the body is checked the requirement is fixed to the largest
//! (spec/cost.md, "Functions").
//!
//! Where a value flows into a place whose measures were assumed when a cost
//! was computed — an argument applied to a function whose body was costed
//! for its parameter types — `Checker::fits` (`fits.rs`) proves the value's measures
//! within the assumed ones, or reports E0419.

use super::types::{FnTy, Ty};
use crate::cost::Interval;
use crate::cost::{Cost, Poly, Var, VarKind};
use std::collections::BTreeMap;

/// Measure variables bound to the argument's measures at one call.
pub type Bindings = BTreeMap<Var, Poly>;

/// What each requirement variable must admit, gathered from the body:
/// the largest use, and each use apart (their coefficient-wise `max` is a
/// sum where they differ in variables: `max(x, f())` is `x + f()`).
#[derive(Default)]
pub struct Requirements(pub BTreeMap<Var, Poly>, BTreeMap<Var, Vec<Poly>>);

impl Requirements {
    pub(super) fn record(&mut self, var: &Var, at_least: &Poly) {
        let slot = self.0.entry(*var).or_default();
        *slot = slot.max(at_least);
        let uses = self.1.entry(*var).or_default();
        if !uses.contains(at_least) {
            uses.push(at_least.clone());
        }
    }

    /// Each requirement met by more than one use, solved (as it stands in
    /// the signature), with its uses solved: a call that knows the values
    /// of their variables takes their largest, not their sum
    /// (`self_applied.rs`). A requirement solved to the same formula as
    /// another with other uses is left out (the formula could not tell
    /// them apart).
    pub fn uses(&self) -> Vec<(Poly, Vec<Poly>)> {
        let mut found: Vec<(Poly, Vec<Poly>)> = Vec::new();
        let mut ambiguous: Vec<Poly> = Vec::new();
        for (var, uses) in &self.1 {
            if uses.len() < 2 {
                continue;
            }
            let key = self.solve(&Poly::var(*var));
            let uses: Vec<Poly> = uses.iter().map(strip_requirements).collect();
            match found.iter().find(|(k, _)| *k == key) {
                Some((_, other)) if *other != uses => ambiguous.push(key),
                Some(_) => {}
                None => found.push((key, uses)),
            }
        }
        found.retain(|(key, _)| !ambiguous.contains(key));
        found
    }

    /// Every requirement variable of `ty` fixed: to the largest use, or
    /// unbounded where the body made none (then nothing relied on it).
    pub fn solve(&self, poly: &Poly) -> Poly {
        replace_vars(poly, is_requirement, |var| match var.kind() {
            VarKind::Req(name) => Some(
                self.0
                    .get(var)
                    .map(strip_requirements)
                    .unwrap_or_else(|| Poly::unbounded(name)),
            ),
            _ => None,
        })
    }
}

/// Requirements that mention requirements are not solved: taken as unbounded.
fn strip_requirements(poly: &Poly) -> Poly {
    replace_vars(poly, is_requirement, |var| match var.kind() {
        VarKind::Req(name) => Some(Poly::unbounded(name)),
        _ => None,
    })
}

fn is_requirement(var: &Var) -> bool {
    matches!(var.kind(), VarKind::Req(_))
}

/// `poly` with each variable that `value_of` gives a value for replaced by
/// it, all at once (`Poly::substitute_all`: capture-free). `selects` is a cheap test,
/// true of every such variable: when it picks none, `poly` is copied as it
/// is, without listing its variables (most formulas have none to replace).
fn replace_vars(
    poly: &Poly,
    selects: impl Fn(&Var) -> bool,
    value_of: impl Fn(&Var) -> Option<Poly>,
) -> Poly {
    if !poly.any_var(&selects) {
        return poly.clone();
    }
    // All at once: a value's own variables are never replaced again.
    poly.substitute_all(&|var| if selects(var) { value_of(var) } else { None })
}

/// The written type of parameter `name` with a variable at every measure:
/// `Generic` where the caller's value fixes it, `Req` where the body's
/// applications do.
pub fn abstract_measures(ty: &Ty, name: &str) -> Ty {
    measured(ty, name, true)
}

/// `ty`, a function parameter's parameter (what the body passes it), with
/// each measure a requirement named after `path`: fixed, once the body is
/// checked, to the largest the body passes (a returned function's function
/// parameter's, `returned.rs`, as a definition's function parameter's).
pub fn required(ty: &Ty, path: &str) -> Ty {
    measured(ty, path, false)
}

fn measured(ty: &Ty, path: &str, covariant: bool) -> Ty {
    let var = |label: String| {
        Poly::var(Var::new(if covariant {
            VarKind::Generic(label)
        } else {
            VarKind::Req(label)
        }))
    };
    match ty {
        Ty::Int(_) => Ty::Int(Interval::symbolic(
            var(path.to_string()),
            var(format!("lo({path})")),
        )),
        Ty::Str(_) => Ty::Str(var(format!("|{path}|"))),
        Ty::Option(inner) => Ty::option(measured(inner, path, covariant)),
        // A list of `Int`s the caller gives carries where its least and
        // greatest elements lie (`extremes.rs`): `least(xs)` bounds the
        // least from above and `-lo(greatest(xs))` the greatest from below;
        // their other ends are the elements'. A function parameter's
        // parameter (contravariant) admits any list: the elements' range.
        Ty::List(elem, _, _) => {
            let elem = measured(elem, &format!("{path}[]"), covariant);
            let extremes = match &elem {
                Ty::Int(each) if covariant => Some(crate::cost::Extremes {
                    least: Interval::symbolic(var(format!("least({path})")), each.lo.clone()),
                    greatest: Interval::symbolic(
                        each.hi.clone(),
                        var(format!("lo(greatest({path}))")),
                    ),
                    nonempty: false,
                }),
                // `xs: [T]`: the same, should `T` be an `Int` at a call;
                // the other ends are unknown here (the caller's elements').
                Ty::Generic(_) if covariant => Some(crate::cost::Extremes {
                    least: Interval::symbolic(
                        var(format!("least({path})")),
                        Poly::unbounded(&format!("lo(least({path}))")),
                    ),
                    greatest: Interval::symbolic(
                        Poly::unbounded(&format!("greatest({path})")),
                        var(format!("lo(greatest({path}))")),
                    ),
                    nonempty: false,
                }),
                _ => None,
            };
            Ty::list_with(elem, var(format!("|{path}|")), extremes)
        }
        Ty::Record(fields) => Ty::Record(
            fields
                .iter()
                .map(|(n, t)| (n.clone(), measured(t, &format!("{path}.{n}"), covariant)))
                .collect(),
        ),
        Ty::Stream(stream) => {
            let mut stream = (**stream).clone();
            stream.elem = measured(&stream.elem, &format!("{path}[]"), covariant);
            stream.open = Cost::new(
                var(format!("seeks(open {path})")),
                var(format!("rows(open {path})")),
                var(format!("trips(open {path})")),
            )
            .with_steps(var(format!("steps(open {path})")));
            stream.per_element = Cost::new(
                var(format!("seeks(each {path})")),
                var(format!("rows(each {path})")),
                var(format!("trips(each {path})")),
            )
            .with_steps(var(format!("steps(each {path})")));
            Ty::Stream(Box::new(stream))
        }
        Ty::Fn(func) => Ty::Fn(Box::new(FnTy {
            params: func
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| measured(p, &format!("{path}.{i}"), !covariant))
                .collect(),
            ret: measured(&func.ret, &format!("{path}()"), covariant),
            latent: Cost::new(
                var(format!("seeks({path})")),
                var(format!("rows({path})")),
                var(format!("trips({path})")),
            )
            .with_steps(var(format!("steps({path})"))),
            proves: None,
        })),
        other => other.clone(),
    }
}

/// Binds the `Generic` measures of `param` (a signature's parameter type)
/// to the argument's at the same positions; a variable met twice takes the
/// larger. Contravariant positions are not bound: the signature already
/// says what they admit, and [`Checker::fits`] checks the argument.
pub fn bind(param: &Ty, arg: &Ty, bindings: &mut Bindings) {
    bind_where(param, arg, bindings, &|v| {
        matches!(v.kind(), VarKind::Generic(_))
    });
}

/// [`bind`], of the variables `selects` picks (a returned function's own,
/// at its application: `returned.rs`).
pub fn bind_where(param: &Ty, arg: &Ty, bindings: &mut Bindings, selects: &dyn Fn(&Var) -> bool) {
    let mut one = |p: &Poly, a: &Poly| {
        if let Some(var) = p.as_var().filter(|v| selects(v)) {
            let slot = bindings.entry(var).or_default();
            // A value given in terms of the measure it fixes (a function
            // parameter applied to its own result, `f(f(x))`, whose
            // argument's result is then in terms of `f()`) has no end that
            // is known before it: unbounded, not a formula that names
            // the callee's measure in the caller. The measure itself (a
            // returned function resolved against a type holding its own
            // parameter's, `passg(twice())`) fixes it at itself: nothing.
            let itself = a.as_var().is_some_and(|v| v == var);
            let a = if a.mentions(&var) && !itself {
                Poly::unbounded(&var.to_string())
            } else {
                a.clone()
            };
            *slot = slot.max(&a);
        }
    };
    match (param, arg) {
        (Ty::Int(p), Ty::Int(a)) => {
            one(&p.hi, &a.hi);
            one(&p.lo, &a.lo);
        }
        (Ty::Str(p), Ty::Str(a)) => one(p, a),
        // An untyped `none` (its type fixed by nothing) holds no value: it
        // fixes the measures at a value within the parameter's ends.
        (Ty::Option(p), Ty::Option(a)) if a.is_error() => {
            bind_where(p, &p.held_by_none(), bindings, selects)
        }
        (Ty::Option(p), Ty::Option(a)) => bind_where(p, a, bindings, selects),
        (Ty::Option(p), a) => bind_where(p, a, bindings, selects),
        (Ty::List(pe, ps, extremes), Ty::List(ae, size, _)) => {
            one(ps, size);
            // Only a parameter whose type has extremes of its own: one
            // without has its element's measures, bound just below.
            if let (Some(p), Some(a)) = (extremes, arg.extremes()) {
                one(&p.least.hi, &a.least.hi);
                one(&p.greatest.lo, &a.greatest.lo);
            }
            bind_where(pe, ae, bindings, selects);
        }
        (Ty::Record(p), Ty::Record(a)) => {
            for (name, pt) in p {
                if let Some((_, at)) = a.iter().find(|(n, _)| n == name) {
                    bind_where(pt, at, bindings, selects);
                }
            }
        }
        (Ty::Stream(p), Ty::Stream(a)) => {
            for (pc, ac) in [(&p.open, &a.open), (&p.per_element, &a.per_element)] {
                for ((_, pm), (_, am)) in pc.measures().into_iter().zip(ac.measures()) {
                    one(pm, am);
                }
            }
            bind_where(&p.elem, &a.elem, bindings, selects);
        }
        (Ty::Fn(p), Ty::Fn(a)) => {
            for ((_, pm), (_, am)) in p.latent.measures().into_iter().zip(a.latent.measures()) {
                one(pm, am);
            }
            bind_where(&p.ret, &a.ret, bindings, selects);
        }
        (Ty::Generic(_), a) => one(&param.values(), &a.walk_steps()),
        _ => {}
    }
}

/// Replaces bound variables by their values; any `Generic` variable of the
/// signature left unbound (its argument had no such measure) becomes
/// unbounded rather than leaking into the caller's formulas.
pub fn instantiate(poly: &Poly, bindings: &Bindings) -> Poly {
    instantiate_keeping(poly, bindings, &std::collections::BTreeSet::new())
}

/// [`instantiate`], but a `Generic` variable in `keep` (a measure of the
/// calling definition's own parameters, which [`apart`] kept the
/// signature's from sharing) is left as it is.
pub fn instantiate_keeping(
    poly: &Poly,
    bindings: &Bindings,
    keep: &std::collections::BTreeSet<Var>,
) -> Poly {
    replace_vars(
        poly,
        |var| matches!(var.kind(), VarKind::Generic(_)) && !keep.contains(var),
        |var| match var.kind() {
            VarKind::Generic(name) => Some(
                bindings
                    .get(var)
                    .cloned()
                    .unwrap_or_else(|| Poly::unbounded(name)),
            ),
            _ => None,
        },
    )
}

/// The `Generic` measures inside `ty`.
pub fn generic_vars(ty: &Ty) -> std::collections::BTreeSet<Var> {
    let found = std::cell::RefCell::new(std::collections::BTreeSet::new());
    ty.any_poly(&collecting_generics(&found));
    found.into_inner()
}

/// Each binding whose value names another bound measure (`f()` bound to
/// `g() + 1`, where `f` was resolved at `g`'s result before `g` was bound)
/// with that measure's value, until none does. Sound: the value was
/// proved for every value of the measure (it was a variable then), and
/// it is monotone in it. A cycle (`f()` in terms of `g()` and back) stops
/// after as many rounds as there are bindings, its measures left for
/// [`cut_callee_measures`] to make unbounded.
pub fn close_bindings(bindings: &mut Bindings) {
    let names_another = |bindings: &Bindings, var: &Var, value: &Poly| {
        value.any_var(|v| v != var && bindings.contains_key(v))
    };
    for _ in 0..bindings.len() {
        // Most calls bind no measure in terms of another: nothing copied.
        if !bindings
            .iter()
            .any(|(var, value)| names_another(bindings, var, value))
        {
            return;
        }
        let before = bindings.clone();
        for (var, value) in bindings.iter_mut() {
            if names_another(&before, var, value) {
                *value = replace_vars(
                    value,
                    |v| v != var && before.contains_key(v),
                    |v| before.get(v).cloned(),
                );
            }
        }
    }
}

/// `poly` with every `Generic` measure not in `keep` (the calling
/// definition's own, from which the callee's were named apart) replaced
/// by an unbounded quantity named after the callee `callee`: after a call
/// is instantiated, one that is left is the callee's, come in through a
/// value bound in terms of its measures: two function parameters applied
/// to each other's results (`f(g(f(x)))` makes `f`'s requirement name `g()`
/// and `g`'s name `f()`), whose bindings then name each other. No end of
/// it is known before the call, and left in the caller's formula the
/// callee's variable could be bound again by another callee of the same
/// parameter name (it was: a bound of 8 printed for 24, which the plan
/// verifier refused).
pub fn cut_callee_measures(
    poly: &Poly,
    keep: &std::collections::BTreeSet<Var>,
    callee: &str,
) -> Poly {
    replace_vars(
        poly,
        |var| matches!(var.kind(), VarKind::Generic(_)) && !keep.contains(var),
        |var| Some(Poly::unbounded(&format!("{callee}'s {var}"))),
    )
}

/// The `Generic` measures of a signature: its parameters', result's and
/// cost's.
fn sig_measures(sig: &super::expr::FnSig) -> std::collections::BTreeSet<Var> {
    let found = std::cell::RefCell::new(std::collections::BTreeSet::new());
    sig.any_poly(&collecting_generics(&found));
    found.into_inner()
}

/// A test that never holds and adds each `Generic` variable it sees to
/// `found`: an `any_poly` walk that collects.
fn collecting_generics(
    found: &std::cell::RefCell<std::collections::BTreeSet<Var>>,
) -> impl Fn(&Poly) -> bool + '_ {
    move |p| {
        let mut set = found.borrow_mut();
        for var in p.vars() {
            if matches!(var.kind(), VarKind::Generic(_)) {
                set.insert(var);
            }
        }
        false
    }
}

/// `sig` with each `Generic` measure that `callers` also holds renamed
/// (`x` to `x′`, primed until it is new to both): the caller's measures
/// and the callee's are then apart, so binding one never replaces the
/// other.
pub fn apart(
    sig: super::expr::FnSig,
    callers: &std::collections::BTreeSet<Var>,
) -> super::expr::FnSig {
    if callers.is_empty() {
        return sig;
    }
    let own = sig_measures(&sig);
    let clashing: Vec<Var> = own
        .iter()
        .filter(|v| callers.contains(v))
        .copied()
        .collect();
    if clashing.is_empty() {
        return sig;
    }
    let mut renamed: BTreeMap<Var, Poly> = BTreeMap::new();
    for var in clashing {
        let VarKind::Generic(label) = var.kind() else {
            continue;
        };
        let mut name = format!("{label}′");
        loop {
            let candidate = Var::new(VarKind::Generic(name.clone()));
            if !callers.contains(&candidate) && !own.contains(&candidate) {
                renamed.insert(var, Poly::var(candidate));
                break;
            }
            name.push('′');
        }
    }
    sig.map_polys(&|p| replace_vars(p, |v| renamed.contains_key(v), |v| renamed.get(v).cloned()))
}

/// Replaces the bound variables only.
pub fn instantiate_bound(poly: &Poly, bindings: &Bindings) -> Poly {
    replace_vars(
        poly,
        |var| bindings.contains_key(var),
        |var| bindings.get(var).cloned(),
    )
}
