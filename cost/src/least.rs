//! The least of upper ends that a function's callers fix: `min(x, k)` where a branch knows `x ≤ k` and neither end is a number until the call (spec/cost.md §3.1).
//!
//! A function is checked once, with its parameters' ends abstract. In
//! `fn g(k, x) = if x > k { 0 } else { take(x) }` the else branch knows
//! `x ≤ x` and `x ≤ k`, and which is smaller depends on the call:
//! `g(3, n)` must cost 3 for any `n`, `g(n, 3)` 3 for any `n`. Neither
//! end alone is right for both, so the bound is their least, a variable
//! of its own ([`VarKind::Least`]) that each call's substitution turns
//! into the least of what the arguments give, and that collapses to one
//! part as soon as one is provably no larger.
//!
//! Sound: each part bounds the quantity, so their least does; dropping a
//! part (one provably no smaller than another, one no call can bound, or
//! past [`MOST_PARTS`]) only loosens it.

use crate::var::Parts;
use crate::{Poly, Var, VarKind};

/// A `min` keeps at most this many parts: each further one is dropped
/// (looser, still sound), so formulas stay small.
pub const MOST_PARTS: usize = 4;

impl Poly {
    /// Whether the polynomial has no maximum now but every variable that
    /// makes it so is one a call fixes (a function's measures): a call
    /// may bound it.
    pub fn fixed_by_callers(&self) -> bool {
        self.max_value().is_none() && !self.grows_for_good()
    }

    /// Whether it grows with something no call nor application bounds: a
    /// large table or a parameter without a bound. A returned function's
    /// own measure (`Own`), any value until the function is applied
    /// ([`Poly::grows_for_good`] counts it), is fixed there.
    pub fn beyond_every_call(&self) -> bool {
        self.any_var(|v: &Var| {
            matches!(
                v.kind(),
                VarKind::Table(_) | VarKind::Param { max: None, .. }
            )
        })
    }

    /// Whether it grows with something no call bounds: a large table or
    /// a parameter without a bound.
    pub fn grows_for_good(&self) -> bool {
        !self.tables().is_empty() || !self.unbounded_params().is_empty()
    }

    /// An upper bound of the least of `parts`, each an upper bound of one
    /// quantity: the one part left when the others are dropped (each
    /// provably no smaller than another, or growing for good beside one
    /// that may not, or a number larger than another number), else their
    /// `min`, flattened and sorted.
    pub fn least_of(parts: impl IntoIterator<Item = Poly>) -> Poly {
        let mut flat: Vec<Poly> = Vec::new();
        for part in parts {
            match part.as_var().map(|v| v.kind()) {
                Some(VarKind::Least(inner)) => flat.extend(inner.0.iter().cloned()),
                _ => flat.push(part),
            }
        }
        // A part no call or application can bound is dropped beside one
        // that some may: a returned function's own measure (`Own`, any
        // value until it is applied) is fixed at its application, so it
        // is kept over a caller's unbounded parameter (`mk(n)(10)` for `k
        // => m => take(min(k, m))` is 10, where keeping `n` made it `n`).
        if flat.iter().any(|p| !p.beyond_every_call()) {
            flat.retain(|p| !p.beyond_every_call());
        }
        // A part holding a `max` or a `min` of its own is read plain
        // (`Poly::plain`, an upper bound of it): a `min` holds plain parts
        // only, so formulas a chain of calls substitutes again at each
        // call stay small (clamps of clamps of clamps, five deep, took
        // minutes to check: adversary round 41).
        let flat: Vec<Poly> = flat
            .into_iter()
            .map(|p| match crate::most::holds_most_or_least(&p) {
                true => p.plain(),
                false => p,
            })
            .collect();
        // Of the parts with a maximum, the smallest stands for them all
        // as far as numbers go; the others are kept only for the calls.
        let mut kept: Vec<Poly> = Vec::new();
        for part in flat {
            if kept.iter().any(|k| k.le(&part)) {
                continue;
            }
            kept.retain(|k| !part.le(k));
            kept.push(part);
        }
        let numbers: Vec<u64> = kept.iter().filter_map(Poly::max_value).collect();
        if let Some(&smallest) = numbers.iter().min() {
            let mut seen = false;
            kept.retain(|p| match p.max_value() {
                Some(max) if max == smallest && !seen => {
                    seen = true;
                    true
                }
                Some(_) => false,
                None => true,
            });
        }
        kept.sort_by(Poly::order);
        kept.truncate(MOST_PARTS);
        match kept.len() {
            0 => Poly::zero(),
            1 => kept.pop().unwrap_or_default(),
            _ => Poly::var(Var::new(VarKind::Least(Parts(kept)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic(name: &str) -> Poly {
        Poly::var(Var::new(VarKind::Generic(name.into())))
    }

    #[test]
    fn two_ends_a_call_fixes_stay_both_until_the_call() {
        let (x, k) = (generic("x"), generic("k"));
        let least = x.tighter(&k);
        assert_eq!(least.to_string(), "min(k, x)");
        assert_eq!(least.max_value(), None);
        assert!(least.fixed_by_callers());
        let [xv, kv] = [&x, &k].map(|p| p.as_var().unwrap());
        // `g(3, n)`: 3 whatever `n` is.
        let at_call = least
            .substitute(&kv, &Poly::constant(3))
            .substitute(&xv, &Poly::unbounded("n"));
        assert_eq!(at_call, Poly::constant(3));
        // `g(n, 3)`: 3 too.
        let other_way = least
            .substitute(&kv, &Poly::unbounded("n"))
            .substitute(&xv, &Poly::constant(3));
        assert_eq!(other_way, Poly::constant(3));
        // `g(n, m)`, both unbounded: unbounded, and says why.
        let neither = least
            .substitute(&kv, &Poly::unbounded("n"))
            .substitute(&xv, &Poly::unbounded("m"));
        assert_eq!(neither.max_value(), None);
        assert!(!neither.unbounded_params().is_empty());
    }

    #[test]
    fn a_part_provably_no_smaller_is_dropped_and_numbers_keep_the_least() {
        let x = generic("x");
        let more = x.plus(&Poly::constant(1));
        assert_eq!(Poly::least_of([x.clone(), more]), x);
        let bounded = |n: &str, max| Poly::var(Var::param(n, Some(max)));
        let least = Poly::least_of([bounded("a", 100), bounded("b", 3), x.clone()]);
        assert_eq!(least.max_value(), Some(3));
        assert_eq!(least.to_string(), "min(b, x)");
        // Nested: flattened.
        let nested = Poly::least_of([least.clone(), generic("y")]);
        assert_eq!(nested.to_string(), "min(b, x, y)");
        assert!(nested.mentions(&x.as_var().unwrap()));
    }

    #[test]
    fn a_returned_functions_own_measure_stays_beside_a_callers() {
        let k = generic("k");
        let own = Poly::var(Var::new(VarKind::Own {
            label: "m".into(),
            instance: 0,
            most: None,
        }));
        // Both fixed later (a call, an application): the least of both.
        let least = own.tighter(&k);
        assert_eq!(least, Poly::least_of([own.clone(), k.clone()]));
        assert_eq!(k.tighter(&own), least);
        // A `min` is at most each part, so beside one it adds nothing.
        assert!(least.le(&k) && least.le(&own));
        assert!(!k.le(&least));
        assert_eq!(least.max(&k), k);
        assert_eq!(k.max(&least), k);
        // The caller's `k` bound to an unbounded `n`: the own measure,
        // which the application fixes, stands for the least.
        let at_call = least.substitute(&k.as_var().unwrap(), &Poly::unbounded("n"));
        assert_eq!(at_call, own);
        let applied = at_call.substitute(&own.as_var().unwrap(), &Poly::constant(10));
        assert_eq!(applied, Poly::constant(10));
        // A part no call bounds still gives way to one some call may.
        assert_eq!(Poly::unbounded("n").tighter(&own), own);
        assert_eq!(own.tighter(&Poly::unbounded("n")), own);
    }

    #[test]
    fn a_part_holding_a_greatest_is_read_plain() {
        let (x, y, k) = (generic("x"), generic("y"), generic("k"));
        // `min(k, max(x, y))`: the `max` read as `x + y`, so the `min`
        // holds plain parts, and a call still makes it its least.
        let least = k.tighter(&x.max(&y));
        let plain = |p: &Poly| !crate::most::holds_most_or_least(p);
        let Some(VarKind::Least(parts)) = least.as_var().map(|v| v.kind()) else {
            panic!("a `min`: {least}")
        };
        assert!(parts.0.iter().all(plain), "{least}");
        let [xv, yv, kv] = [&x, &y, &k].map(|p| p.as_var().unwrap());
        let at_call = least
            .substitute(&kv, &Poly::unbounded("n"))
            .substitute(&xv, &Poly::constant(3))
            .substitute(&yv, &Poly::constant(4));
        assert_eq!(at_call, Poly::constant(7));
    }
}
