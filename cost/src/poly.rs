//! Polynomials in normal form with non-negative coefficients.

use super::{Var, VarKind};
use serde::Serialize;
use smallvec::{smallvec, SmallVec};
use std::fmt;

/// A product of variables, sorted, each with its exponent (≥ 1). Most
/// have none or one: that one is kept inline.
#[derive(Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Monomial(pub SmallVec<[(Var, u32); 1]>);

/// A copy of the factors (`SmallVec`'s own clone goes element by element):
/// the common inline cases built in place, without a call to copy them.
impl Clone for Monomial {
    fn clone(&self) -> Monomial {
        match self.0.as_slice() {
            [] => Monomial(SmallVec::new()),
            [factor] => Monomial(SmallVec::from_buf([*factor])),
            factors => Monomial(SmallVec::from_slice(factors)),
        }
    }
}

impl Serialize for Monomial {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// Above this many products of terms, a product reads its operands'
/// bounded variables at their maxima first ([`Poly::times`]).
const PRODUCT_WORK: usize = 1 << 8;

/// The most products of terms a product makes with what is left.
const LARGEST_PRODUCT: usize = 1 << 12;

/// A formula's terms: most formulas have one, kept inline.
type Terms = SmallVec<[(Monomial, u64); 1]>;

impl Monomial {
    /// Both factors' variables, merged in order (each list is sorted).
    fn times(&self, other: &Monomial) -> Monomial {
        let (a, b) = (&self.0, &other.0);
        let mut factors = SmallVec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    factors.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    factors.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    factors.push((a[i].0, a[i].1 + b[j].1));
                    i += 1;
                    j += 1;
                }
            }
        }
        factors.extend_from_slice(&a[i..]);
        factors.extend_from_slice(&b[j..]);
        Monomial(factors)
    }

    fn degree(&self) -> u32 {
        self.0.iter().map(|(_, e)| e).sum()
    }
}

/// `Σ coefficient · monomial`, zero terms omitted, sorted by monomial with
/// each monomial once. A sorted vector rather than a map: most formulas
/// have one or two terms, and every typed node of a checked program holds
/// some, so a map's node per formula made each query cost kilobytes.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Poly(Terms);

/// The inline cases first: `SmallVec`'s own clone goes through `extend`.
impl Clone for Poly {
    fn clone(&self) -> Poly {
        match self.0.as_slice() {
            [] => Poly(Terms::new()),
            [(monomial, coefficient)] => {
                Poly(SmallVec::from_buf([(monomial.clone(), *coefficient)]))
            }
            terms => Poly(terms.iter().cloned().collect()),
        }
    }
}

impl Serialize for Poly {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(m, c)| (m, c)))
    }
}

/// Adds `coefficient` of `monomial` into sorted `terms`, combining with an
/// equal monomial's coefficient by `combine`.
fn add_term(
    terms: &mut Terms,
    monomial: &Monomial,
    coefficient: u64,
    combine: fn(u64, u64) -> u64,
) {
    match terms.binary_search_by(|(m, _)| m.cmp(monomial)) {
        Ok(at) => terms[at].1 = combine(terms[at].1, coefficient),
        Err(at) => terms.insert(at, (monomial.clone(), coefficient)),
    }
}

impl Poly {
    /// A total order by terms (for sorting a `min`'s parts; not by size).
    pub(crate) fn order(&self, other: &Poly) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }

    /// The polynomial 0 (no terms).
    pub fn zero() -> Poly {
        Poly::default()
    }

    /// The number `c`.
    pub fn constant(c: u64) -> Poly {
        if c == 0 {
            return Poly::zero();
        }
        Poly(smallvec![(Monomial::default(), c)])
    }

    /// The variable alone.
    pub fn var(var: Var) -> Poly {
        Poly(smallvec![(Monomial(smallvec![(var, 1)]), 1)])
    }

    /// A quantity nothing bounds, named for messages.
    pub fn unbounded(name: &str) -> Poly {
        Poly::var(Var::param(name, None))
    }

    /// Whether it has no terms.
    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// The variable, when the polynomial is exactly one variable.
    pub fn as_var(&self) -> Option<Var> {
        match self.0.first() {
            Some((monomial, 1)) if self.0.len() == 1 => match monomial.0.as_slice() {
                [(var, 1)] => Some(*var),
                _ => None,
            },
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant_term(&self) -> u64 {
        // The empty monomial sorts first.
        match self.0.first() {
            Some((m, c)) if m.0.is_empty() => *c,
            _ => 0,
        }
    }

    /// Whether `var` occurs in some term (inside a `min` too).
    pub fn mentions(&self, var: &Var) -> bool {
        self.any_var(|v| v == var)
    }

    /// Whether some variable satisfies `test`, inside a `min` too (nothing
    /// is collected).
    pub fn any_var(&self, test: impl Fn(&Var) -> bool) -> bool {
        self.any_var_dyn(&test)
    }

    fn any_var_dyn(&self, test: &dyn Fn(&Var) -> bool) -> bool {
        self.0.iter().any(|(m, _)| {
            m.0.iter().any(|(v, _)| {
                test(v)
                    || matches!(v.kind(), VarKind::Least(parts) | VarKind::Most(parts)
                        if parts.0.iter().any(|p| p.any_var_dyn(test)))
            })
        })
    }

    /// How many variables it holds, those inside a `max` or a `min`
    /// counted too: how large it is to walk or substitute.
    pub fn weight(&self) -> usize {
        let count = std::cell::Cell::new(0usize);
        self.any_var(|_| {
            count.set(count.get() + 1);
            false
        });
        count.get()
    }

    /// Each monomial with its coefficient, in normal-form order.
    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, u64)> {
        self.0.iter().map(|(m, c)| (m, *c))
    }

    /// The sum (coefficients saturate, above [`crate::CEILING`]).
    pub fn plus(&self, other: &Poly) -> Poly {
        if self.is_zero() {
            return other.clone();
        }
        let mut terms = self.0.clone();
        for (monomial, coefficient) in &other.0 {
            add_term(&mut terms, monomial, *coefficient, u64::saturating_add);
        }
        Poly(terms)
    }

    /// The product (coefficients saturate, above [`crate::CEILING`]).
    ///
    /// A product of many terms by many first reads each operand's bounded
    /// variables at their maxima (no smaller anywhere, every coefficient
    /// and variable being non-negative): `x₂ = x₁·x₁` of a sum of 8 bounded
    /// parameters, squared again and again, would otherwise hold C(2^k + 7,
    /// 7) terms after k squarings and take minutes, then hours, to check
    /// (adversary finding). When what is left is still too large — many
    /// unbounded variables — the product is an unbounded variable, which
    /// no bound accepts: the program is refused, never checked for ever.
    pub fn times(&self, other: &Poly) -> Poly {
        if self.0.len() * other.0.len() <= PRODUCT_WORK {
            return self.times_terms(other);
        }
        let (a, b) = (self.bounded_at_maxima(), other.bounded_at_maxima());
        if a.0.len() * b.0.len() <= LARGEST_PRODUCT {
            return a.times_terms(&b);
        }
        Poly::unbounded("a product of more than 4096 terms")
    }

    /// The polynomial with each variable that has a maximum replaced by
    /// it: no smaller anywhere, with only the unbounded variables left.
    pub fn bounded_at_maxima(&self) -> Poly {
        let mut terms = Terms::new();
        for (monomial, coefficient) in &self.0 {
            let mut coefficient = *coefficient;
            let mut kept = SmallVec::new();
            for &(var, exponent) in &monomial.0 {
                match Var::max(&var) {
                    Some(max) => {
                        for _ in 0..exponent {
                            coefficient = coefficient.saturating_mul(max);
                        }
                    }
                    None => kept.push((var, exponent)),
                }
            }
            if coefficient != 0 {
                add_term(
                    &mut terms,
                    &Monomial(kept),
                    coefficient,
                    u64::saturating_add,
                );
            }
        }
        Poly(terms)
    }

    fn times_terms(&self, other: &Poly) -> Poly {
        let mut terms = Terms::new();
        for (a, ca) in &self.0 {
            for (b, cb) in &other.0 {
                add_term(
                    &mut terms,
                    &a.times(b),
                    ca.saturating_mul(*cb),
                    u64::saturating_add,
                );
            }
        }
        Poly(terms)
    }

    /// An upper bound of both. Coefficient-wise, which holds since every
    /// variable is non-negative; where both have numeric maxima and one's
    /// constant term already covers the other's maximum, that one (so
    /// `max(11, n)` with `n ≤ 10` is 11, not `11 + n`), and where neither
    /// does but the coefficient-wise answer would be larger than both
    /// maxima, the larger maximum itself.
    pub fn max(&self, other: &Poly) -> Poly {
        // Each maximum evaluated once (this is on the checker's hot path).
        let (a, b) = (self.max_value(), other.max_value());
        // One provably no larger adds nothing (`min(x, k)` beside `k`, a
        // maximum its constant term covers).
        if self.le_with_maximum(other, || a) {
            return other.clone();
        }
        if other.le_with_maximum(self, || b) {
            return self.clone();
        }
        let mut terms = self.0.clone();
        for (monomial, coefficient) in &other.0 {
            add_term(&mut terms, monomial, *coefficient, u64::max);
        }
        let coefficientwise = Poly(terms);
        if let (Some(a), Some(b)) = (a, b) {
            if coefficientwise.max_value().is_some_and(|c| c > a.max(b)) {
                return Poly::constant(a.max(b));
            }
            return coefficientwise;
        }
        // Two ends a call fixes, neither known yet and neither provably the
        // larger: their greatest, which each call turns into the greatest
        // of what it gives (`most.rs`), where the coefficient-wise answer
        // adds incomparable terms (`max(|xs|, |ys|)` was `|xs| + |ys|`).
        if !self.beyond_every_call() && !other.beyond_every_call() {
            if let Some(most) = Poly::most_of([self.clone(), other.clone()]) {
                return most;
            }
        }
        coefficientwise
    }

    /// An upper bound of `min(self, other)`, where both are upper bounds
    /// of one quantity (either one is then sound): the one provably no
    /// larger, else the one with the smaller maximum, else the one with a
    /// maximum, else `self`.
    pub fn tighter(&self, other: &Poly) -> Poly {
        if self.le(other) {
            return self.clone();
        }
        if other.le(self) {
            return other.clone();
        }
        match (self.max_value(), other.max_value()) {
            (Some(a), Some(b)) if b < a => other.clone(),
            (None, Some(_)) => other.clone(),
            // Neither is known before a call or an application (a returned
            // function's own measure is fixed where it is applied): the
            // least of both (`least.rs`); one that no call bounds gives
            // way to one that may be.
            (None, None) => match (self.beyond_every_call(), other.beyond_every_call()) {
                (false, false) => Poly::least_of([self.clone(), other.clone()]),
                (true, false) => other.clone(),
                _ => self.clone(),
            },
            _ => self.clone(),
        }
    }

    /// `self ≤ other` for every value of the variables (sufficient tests:
    /// coefficient-wise, or `self`'s maximum below `other`'s constant).
    pub fn le(&self, other: &Poly) -> bool {
        self.le_with_maximum(other, || self.max_value())
    }

    /// [`Poly::le`], `self`'s maximum given by `maximum` (evaluated only
    /// where the test needs it, and only once where the caller knows it).
    fn le_with_maximum(&self, other: &Poly, maximum: impl FnOnce() -> Option<u64>) -> bool {
        self.0
            .iter()
            .all(|(m, c)| other.coefficient(m).is_some_and(|o| *c <= o))
            || maximum().is_some_and(|max| max <= other.constant_term())
            // A `min` is at most each of its parts, a `max` at most what
            // all of them are; anything at most one part is at most a `max`.
            || self.as_var().is_some_and(|v| match v.kind() {
                VarKind::Least(parts) => parts.0.iter().any(|p| p.le(other)),
                VarKind::Most(parts) => parts.0.iter().all(|p| p.le(other)),
                _ => false,
            })
            || other.as_var().is_some_and(|v| {
                matches!(v.kind(), VarKind::Most(parts) if parts.0.iter().any(|p| self.le(p)))
            })
    }

    /// The coefficient of `monomial`, if it is a term.
    fn coefficient(&self, monomial: &Monomial) -> Option<u64> {
        let at = self.0.binary_search_by(|(m, _)| m.cmp(monomial)).ok()?;
        Some(self.0[at].1)
    }

    /// Replaces `var` by `value` everywhere.
    pub fn substitute(&self, var: &Var, value: &Poly) -> Poly {
        if !self.mentions(var) {
            return self.clone();
        }
        let mut result = Poly::zero();
        for (monomial, coefficient) in &self.0 {
            let mut term = Poly::constant(*coefficient);
            for (v, exponent) in &monomial.0 {
                let factor = if v == var {
                    value.clone()
                } else {
                    match v.kind() {
                        VarKind::Least(parts) if parts.0.iter().any(|p| p.mentions(var)) => {
                            Poly::least_of(parts.0.iter().map(|p| p.substitute(var, value)))
                        }
                        VarKind::Most(parts) if parts.0.iter().any(|p| p.mentions(var)) => {
                            Poly::greatest_of(parts.0.iter().map(|p| p.substitute(var, value)))
                        }
                        _ => Poly::var(*v),
                    }
                };
                for _ in 0..*exponent {
                    term = term.times(&factor);
                }
            }
            result = result.plus(&term);
        }
        result
    }

    /// Every variable `value_of` gives a value for replaced by it, all at
    /// once, inside a `min` too: a value's own variables are never
    /// replaced again. One at a time, a function's measure `a` bound to a
    /// caller's measure `b` was replaced again where the callee's own `b`
    /// was replaced next (`fn w(b) = f(b, 5)` with `f(a, b)` costing
    /// `a + b` came out 10, not `b + 5`: adversary finding).
    pub fn substitute_all(&self, value_of: &dyn Fn(&Var) -> Option<Poly>) -> Poly {
        let mut result = Poly::zero();
        for (monomial, coefficient) in &self.0 {
            let mut term = Poly::constant(*coefficient);
            for (v, exponent) in &monomial.0 {
                let factor = match value_of(v) {
                    Some(value) => value,
                    None => match v.kind() {
                        VarKind::Least(parts) => {
                            Poly::least_of(parts.0.iter().map(|p| p.substitute_all(value_of)))
                        }
                        VarKind::Most(parts) => {
                            Poly::greatest_of(parts.0.iter().map(|p| p.substitute_all(value_of)))
                        }
                        _ => Poly::var(*v),
                    },
                };
                for _ in 0..*exponent {
                    term = term.times(&factor);
                }
            }
            result = result.plus(&term);
        }
        result
    }

    /// The numeric value with every variable at its maximum; `None` when a
    /// variable is unbounded. Saturates at `u64::MAX`, which is above the
    /// ceiling, so an overflowing formula is never taken for a small one.
    pub fn max_value(&self) -> Option<u64> {
        self.evaluate(&|var: &Var| var.max())
    }

    /// The numeric value with each variable at `value_of` (saturating);
    /// `None` when `value_of` has no value for a variable it holds.
    pub fn evaluate(&self, value_of: &dyn Fn(&Var) -> Option<u64>) -> Option<u64> {
        let mut total: u64 = 0;
        for (monomial, coefficient) in &self.0 {
            let mut term = *coefficient;
            for (var, exponent) in &monomial.0 {
                let value = match var.kind() {
                    // The least of the parts that have a value.
                    VarKind::Least(parts) => {
                        parts.0.iter().filter_map(|p| p.evaluate(value_of)).min()
                    }
                    // The greatest: every part must have a value.
                    VarKind::Most(parts) => parts
                        .0
                        .iter()
                        .map(|p| p.evaluate(value_of))
                        .collect::<Option<Vec<u64>>>()?
                        .into_iter()
                        .max(),
                    _ => value_of(var),
                }?;
                for _ in 0..*exponent {
                    term = term.saturating_mul(value);
                }
            }
            total = total.saturating_add(term);
        }
        Some(total)
    }

    /// Large tables named by `N(T)` variables (a `min` names them only
    /// when each of its parts grows with something no call bounds).
    pub fn tables(&self) -> Vec<String> {
        self.unbounded_names(&|var| match var.kind() {
            VarKind::Table(t) => Some(t.clone()),
            _ => None,
        })
    }

    /// Variables that have no bound of their own: unbounded parameters
    /// (a `min` names them only when each of its parts grows with
    /// something no call bounds).
    pub fn unbounded_params(&self) -> Vec<String> {
        self.unbounded_names(&|var| match var.kind() {
            VarKind::Param { name, max: None } => Some(name.clone()),
            // Any value until the returned function is applied.
            VarKind::Own {
                label, most: None, ..
            } => Some(label.clone()),
            _ => None,
        })
    }

    /// The entry point's parameters with no upper end this grows with
    /// (what a query's caller could make as large as it likes).
    pub fn unbounded_entry_params(&self) -> Vec<String> {
        self.unbounded_names(&|var| match var.kind() {
            VarKind::Param { name, max: None } => Some(name.clone()),
            _ => None,
        })
    }

    /// The names `name_of` gives the variables that grow without a bound,
    /// each once: inside a `min`, only when none of its parts is bounded.
    fn unbounded_names(&self, name_of: &dyn Fn(&Var) -> Option<String>) -> Vec<String> {
        let mut names = Vec::new();
        for (monomial, _) in &self.0 {
            for (var, _) in &monomial.0 {
                let found = match var.kind() {
                    VarKind::Least(parts) if parts.0.iter().all(Poly::grows_for_good) => parts
                        .0
                        .iter()
                        .flat_map(|p| p.unbounded_names(name_of))
                        .collect(),
                    // A `max` grows with any part that does.
                    VarKind::Most(parts) => parts
                        .0
                        .iter()
                        .flat_map(|p| p.unbounded_names(name_of))
                        .collect(),
                    _ => name_of(var).into_iter().collect::<Vec<_>>(),
                };
                for name in found {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
        }
        names
    }

    /// Its variables, each once, in order of first occurrence; a `min`'s
    /// own variable, then those of its parts.
    pub fn vars(&self) -> Vec<Var> {
        let mut vars: Vec<Var> = Vec::new();
        for (monomial, _) in &self.0 {
            for (var, _) in &monomial.0 {
                if !vars.contains(var) {
                    vars.push(*var);
                }
                if let VarKind::Least(parts) | VarKind::Most(parts) = var.kind() {
                    for inner in parts.0.iter().flat_map(Poly::vars) {
                        if !vars.contains(&inner) {
                            vars.push(inner);
                        }
                    }
                }
            }
        }
        vars
    }
}

impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "0");
        }
        // Constants first, then by degree, so `1 + 5000 + 10·5000` reads
        // from the fixed part to the repeated parts.
        let mut terms: Vec<(&Monomial, &u64)> = self.0.iter().map(|(m, c)| (m, c)).collect();
        terms.sort_by_key(|(m, _)| m.degree());
        let rendered: Vec<String> = terms
            .into_iter()
            .map(|(monomial, coefficient)| {
                let mut factors: Vec<String> = Vec::new();
                if *coefficient != 1 || monomial.0.is_empty() {
                    factors.push(coefficient.to_string());
                }
                for (var, exponent) in &monomial.0 {
                    for _ in 0..*exponent {
                        factors.push(var.to_string());
                    }
                }
                factors.join("·")
            })
            .collect();
        write!(f, "{}", rendered.join(" + "))
    }
}

#[cfg(test)]
#[path = "poly_tests.rs"]
mod tests;
