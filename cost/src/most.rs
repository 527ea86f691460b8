//! The greatest of upper ends that calls fix: `max(|xs|, |ys|)`, the length of `if c { xs } else { ys }` for two list parameters, where the coefficient-wise maximum is their sum (spec/cost.md §1).
//!
//! A function is checked once, with its parameters' measures abstract, and
//! `Poly::max` of two that are not comparable (`|xs|` and `|ys|`) was the
//! sum of both: an upper bound, but one a call cannot tighten, so `cnt(if
//! c { xs } else { ys })` for `cnt(zs: [Int; <= 2])` read as 4 elements
//! and was refused (E0321). Their greatest is a variable of its own
//! ([`VarKind::Most`]) that each call's substitution turns into the
//! greatest of what the arguments give (2 for two lists of at most 2).
//!
//! Sound: the quantity is at most one of the parts, each an upper bound
//! in its case, so it is at most their greatest; the greatest is monotone
//! in each part, as a polynomial with non-negative coefficients is in its
//! variables; a part provably no larger than another adds nothing and is
//! dropped; past [`MOST_PARTS`] the parts are added up instead (their sum
//! is at least their greatest).

use crate::var::Parts;
use crate::{Poly, Var, VarKind};

/// A `max` keeps at most this many parts: past it the parts' sum stands
/// for them (looser, still sound), so formulas stay small.
pub const MOST_PARTS: usize = 4;

/// A part of a `max` holds at most this many terms: past it the parts'
/// sum stands for them.
pub const MOST_PART_TERMS: usize = 4;

impl Poly {
    /// The greatest of `parts` as a `max` variable, flattened, each part
    /// once, those provably no larger than another dropped; the one part
    /// left where only one is; `None` past [`MOST_PARTS`] parts.
    pub fn most_of(parts: impl IntoIterator<Item = Poly>) -> Option<Poly> {
        let mut flat: Vec<Poly> = Vec::new();
        for part in parts {
            match part.as_var().map(|v| v.kind()) {
                Some(VarKind::Most(inner)) => flat.extend(inner.0.iter().cloned()),
                _ => flat.push(part),
            }
        }
        let nested = |p: &Poly| {
            p.any_var(|v: &Var| match v.kind() {
                VarKind::Most(_) => true,
                VarKind::Least(parts) => parts.0.iter().any(holds_most_or_least),
                _ => false,
            })
        };
        // A part holding a `max`, or a `min` of parts that hold one, is
        // read flattened (`Poly::flattened`, an upper bound of it: each
        // `max` the sum of its parts, each `min` a `min` of plain parts):
        // a `max` then holds at most a `min` of plain parts, two levels,
        // so formulas a chain of calls substitutes again at each call
        // stay small, where clamps of clamps, five deep, took minutes to
        // check (adversary round 41).
        let flat: Vec<Poly> = flat
            .into_iter()
            .map(|p| if nested(&p) { p.flattened() } else { p })
            .collect();
        // Parts all with a maximum: `Poly::max`'s numeric rules already
        // give their greatest a number's precision (`max(1, 5000)` for a
        // fanout is 5000), with no variable to carry.
        if flat.iter().all(|p| p.max_value().is_some()) {
            return flat.into_iter().reduce(|a, b| a.max(&b));
        }
        let mut kept: Vec<Poly> = Vec::new();
        for part in flat {
            if kept.iter().any(|k| part.le(k)) {
                continue;
            }
            kept.retain(|k| !k.le(&part));
            kept.push(part);
        }
        // Small parts only, and none holding a `max` of its own or a `min`
        // of parts that hold one: a `max` of large or nested formulas,
        // substituted again at every call and multiplied by others, grew
        // past any time a check may take (functions each taking the
        // product of their callee's joins, five deep, checked for
        // minutes); their sum is a bound. A `min` of plain parts is kept
        // (`clamp`'s `x` narrowed below `hi` is `min(x, hi)`, and the join
        // with `lo` is `max(lo, min(x, hi))`, which a call makes 25 for
        // `clamp(n, 1, 25)`): two levels at most.
        if kept
            .iter()
            .any(|p| p.terms().count() > MOST_PART_TERMS || nested(p))
        {
            return None;
        }
        kept.sort_by(Poly::order);
        match kept.len() {
            0 => Some(Poly::zero()),
            1 => kept.pop(),
            n if n > MOST_PARTS => None,
            _ => Some(Poly::var(Var::new(VarKind::Most(Parts(kept))))),
        }
    }

    /// [`Poly::most_of`], or past [`MOST_PARTS`] parts their sum: a
    /// substitution's recombination, which must give a bound.
    pub fn greatest_of(parts: impl IntoIterator<Item = Poly>) -> Poly {
        let parts: Vec<Poly> = parts.into_iter().collect();
        Poly::most_of(parts.clone())
            .unwrap_or_else(|| parts.iter().fold(Poly::zero(), |sum, p| sum.plus(p)))
    }
}

impl Poly {
    /// An upper bound of it that holds no `max`, and a `min` only of plain
    /// parts: each `max` the sum of its parts flattened ([`summed`]), each
    /// `min` the `min` of its parts made plain ([`Poly::plain`]);
    /// monotone, as every polynomial here is.
    pub fn flattened(&self) -> Poly {
        self.substitute_all(&|v| match v.kind() {
            VarKind::Most(parts) => Some(summed(parts, Poly::flattened)),
            VarKind::Least(parts) => Some(Poly::least_of(parts.0.iter().map(Poly::plain))),
            _ => None,
        })
    }

    /// An upper bound of it that holds no `max` nor `min`: each `max` the
    /// sum of its parts, each `min` its lightest part (fewest variables),
    /// made plain in turn.
    pub fn plain(&self) -> Poly {
        self.substitute_all(&|v| match v.kind() {
            VarKind::Most(parts) => Some(summed(parts, Poly::plain)),
            VarKind::Least(parts) => parts.0.iter().min_by_key(|p| p.weight()).map(Poly::plain),
            _ => None,
        })
    }
}

/// The sum of a `max`'s `parts`, each read by `each`: at least their
/// greatest, since each is at least 0.
fn summed(parts: &Parts, each: fn(&Poly) -> Poly) -> Poly {
    parts
        .0
        .iter()
        .fold(Poly::zero(), |sum, p| sum.plus(&each(p)))
}

/// Whether `p` holds a `max` or a `min` variable.
pub(crate) fn holds_most_or_least(p: &Poly) -> bool {
    p.any_var(|v: &Var| matches!(v.kind(), VarKind::Most(_) | VarKind::Least(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic(name: &str) -> Poly {
        Poly::var(Var::new(VarKind::Generic(name.into())))
    }

    #[test]
    fn two_lengths_a_call_fixes_are_their_greatest_until_the_call() {
        let (xs, ys) = (generic("|xs|"), generic("|ys|"));
        let most = xs.max(&ys);
        assert_eq!(most.to_string(), "max(|xs|, |ys|)");
        assert_eq!(most.max_value(), None);
        assert!(xs.le(&most) && ys.le(&most));
        assert!(!most.le(&xs));
        assert!(most.le(&xs.plus(&ys)));
        // Each at most 2: the greatest is 2, where the sum was 4.
        let [x, y] = [&xs, &ys].map(|p| p.as_var().unwrap());
        let at_call = most
            .substitute(&x, &Poly::constant(2))
            .substitute(&y, &Poly::constant(2));
        assert_eq!(at_call, Poly::constant(2));
        let all_at_once = most.substitute_all(&|v| (v == &x || v == &y).then(|| Poly::constant(3)));
        assert_eq!(all_at_once, Poly::constant(3));
        // A part no larger than another adds nothing; nested ones flatten.
        assert_eq!(
            xs.max(&xs.plus(&Poly::constant(1))),
            xs.plus(&Poly::constant(1))
        );
        let three = most.max(&generic("|zs|"));
        assert_eq!(three.to_string(), "max(|xs|, |ys|, |zs|)");
        // One that grows with what no call bounds: the sum, as before.
        let n = Poly::unbounded("n");
        assert_eq!(xs.max(&n), xs.plus(&n));
        assert!(!xs.max(&n).unbounded_params().is_empty());
    }

    #[test]
    fn a_greatest_grows_with_any_part_and_is_known_when_all_are() {
        let xs = generic("|xs|");
        let bounded = Poly::var(Var::param("k", Some(7)));
        let most = xs.max(&bounded);
        assert_eq!(most.max_value(), None, "|xs| is known only at a call");
        let x = xs.as_var().unwrap();
        assert_eq!(most.substitute(&x, &Poly::constant(3)).max_value(), Some(7));
        assert_eq!(most.substitute(&x, &Poly::constant(9)).max_value(), Some(9));
        let grows = most.substitute(&x, &Poly::unbounded("n"));
        assert_eq!(grows.max_value(), None);
        assert!(!grows.unbounded_params().is_empty());
        // Past the limit of parts, their sum.
        let many: Vec<Poly> = (0..MOST_PARTS + 1)
            .map(|i| generic(&format!("p{i}")))
            .collect();
        assert_eq!(Poly::most_of(many.clone()), None);
        let sum = many.iter().fold(Poly::zero(), |s, p| s.plus(p));
        assert_eq!(Poly::greatest_of(many), sum);
    }

    /// How deep `max` and `min` variables nest in `p`.
    fn depth(p: &Poly) -> usize {
        p.vars()
            .into_iter()
            .map(|v| match v.kind() {
                VarKind::Most(parts) | VarKind::Least(parts) => {
                    1 + parts.0.iter().map(depth).max().unwrap_or(0)
                }
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn only_small_flat_parts_make_a_greatest() {
        let (xs, ys) = (generic("|xs|"), generic("|ys|"));
        let most = xs.max(&ys);
        let at = |p: &Poly, values: &[(&str, u64)]| {
            let mut p = p.clone();
            for (name, value) in values {
                let var = generic(name).as_var().expect("a variable");
                p = p.substitute(&var, &Poly::constant(*value));
            }
            p.max_value()
        };
        let nests = |p: &Poly| {
            p.any_var(|v: &Var| match v.kind() {
                VarKind::Most(parts) | VarKind::Least(parts) => {
                    parts.0.iter().any(holds_most_or_least)
                }
                _ => false,
            })
        };
        // A part holding a `max` of its own is read flattened: the inner
        // `max` the sum of its parts, an upper bound (`max(|xs|, |ys|)·|zs|`
        // is at most `(|xs| + |ys|)·|zs|`), nesting no further.
        let zs = generic("|zs|");
        let nested = most.times(&zs);
        let flattened = Poly::most_of([nested.clone(), generic("|ws|")]).expect("flattened");
        assert!(!nests(&flattened), "{flattened}");
        let point = [("|xs|", 1), ("|ys|", 2), ("|zs|", 3), ("|ws|", 1)];
        assert_eq!(at(&flattened, &point), Some(9));
        assert!(at(&nested, &point) <= at(&flattened, &point));
        // A `min` of plain parts is kept, and each call makes it the
        // least of what it gives.
        let least = xs.tighter(&ys);
        let kept = Poly::most_of([least.clone(), zs.clone()]).expect("a `max` of a plain `min`");
        let values = |x, y, z| [("|xs|", x), ("|ys|", y), ("|zs|", z)];
        assert_eq!(at(&kept, &values(25, 1000, 1)), Some(25));
        assert_eq!(at(&kept, &values(25, 1000, 30)), Some(30));
        // A `min` given a `max` holds it plain (`min(|ws|, |xs| + |ys|)`):
        // the `max` of it nests two levels at most.
        let least_of_most = generic("|ws|").tighter(&most);
        assert!(!nests(&least_of_most), "{least_of_most}");
        let greatest = Poly::most_of([least_of_most, zs.clone()]).expect("two levels");
        assert_eq!(depth(&greatest), 2, "{greatest}");
        assert_eq!(depth(&flattened), 1, "{flattened}");
        // A part of more than `MOST_PART_TERMS` terms: their sum.
        let long =
            (0..=MOST_PART_TERMS).fold(Poly::zero(), |sum, i| sum.plus(&generic(&format!("p{i}"))));
        assert_eq!(Poly::most_of([long.clone(), zs.clone()]), None);
        assert_eq!(long.max(&zs), long.plus(&zs));
    }
}
