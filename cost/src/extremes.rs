//! Where a non-empty list of `Int`s' least and greatest elements lie: the rule both the checker (`compiler/src/check/extremes.rs`) and the plan verifier (`runtime/src/verifier/abstract_value.rs`) keep with a list (spec/cost.md §4.3).

use crate::{Interval, Poly};

/// The ranges of a non-empty list's least and greatest elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extremes {
    /// Where the least element lies (`min()` of the list).
    pub least: Interval,
    /// Where the greatest element lies (`max()` of the list).
    pub greatest: Interval,
    /// Whether the list is known to hold an element (a literal of some,
    /// and what keeps every value of one: a `let`, `reverse`, `distinct`,
    /// an `if` of two such), so that its `min()` and `max()` are never
    /// `none` and `unwrap_or`'s default is never the value.
    pub nonempty: bool,
}

impl Extremes {
    /// Of a list whose elements lie in these ranges, one per element (a
    /// literal's): the least is at most the smallest upper end, the
    /// greatest at least the largest lower end.
    pub fn of_elements(elements: &[Interval]) -> Option<Extremes> {
        Some(Extremes {
            least: Interval::least_of(elements)?,
            greatest: Interval::greatest_of(elements)?,
            nonempty: !elements.is_empty(),
        })
    }

    /// Of a list whose every element lies in `each`: both are within it.
    pub fn of_each(each: &Interval) -> Extremes {
        Extremes {
            least: each.clone(),
            greatest: each.clone(),
            nonempty: false,
        }
    }

    /// These ranges where they say something, the elements' range `each`
    /// where they do not: numerically each range within `each`, and a
    /// polynomial end holding a value nothing bounds (a `[T]` parameter's
    /// unknown ends: its caller fixes only the least's upper end and the
    /// greatest's lower end) replaced by `each`'s.
    pub fn within(&self, each: &Interval) -> Extremes {
        let unbounded =
            |v: &crate::Var| matches!(v.kind(), crate::VarKind::Param { max: None, .. });
        let unknown = |p: &Poly| p.any_var(unbounded);
        let within = |end: &Interval| {
            let hi = if unknown(&end.hi) { &each.hi } else { &end.hi };
            let lo = if unknown(&end.lo) { &each.lo } else { &end.lo };
            let least = match (end.least, each.least) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            let most = match (end.most, each.most) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            Interval::new(hi.clone(), lo.clone(), least, most)
        };
        Extremes {
            least: within(&self.least),
            greatest: within(&self.greatest),
            nonempty: self.nonempty,
        }
    }

    /// Both ranges, each rebuilt by `f`'s map of its ends.
    pub fn map_polys(&self, f: &dyn Fn(&Poly) -> Poly) -> Extremes {
        Extremes {
            least: self.least.map_polys(f),
            greatest: self.greatest.map_polys(f),
            nonempty: self.nonempty,
        }
    }

    /// Whether an end of either range satisfies `test`.
    pub fn any_poly(&self, test: &dyn Fn(&Poly) -> bool) -> bool {
        [&self.least, &self.greatest]
            .iter()
            .any(|i| test(&i.hi) || test(&i.lo))
    }

    /// Of a value that is one list or the other (an `if`).
    pub fn join(&self, other: &Extremes) -> Extremes {
        Extremes {
            least: self.least.join(&other.least),
            greatest: self.greatest.join(&other.greatest),
            nonempty: self.nonempty && other.nonempty,
        }
    }

    /// Of one list or the other, where either may be known empty (`[]`,
    /// which adds nothing) or carry none (`None`: then none).
    pub fn joined(
        a: Option<Extremes>,
        a_empty: bool,
        b: Option<Extremes>,
        b_empty: bool,
    ) -> Option<Extremes> {
        match (a, b) {
            (Some(x), Some(y)) => Some(x.join(&y)),
            // One may be the empty one: it may hold none.
            (Some(x), None) if b_empty => Some(Extremes {
                nonempty: false,
                ..x
            }),
            (None, Some(y)) if a_empty => Some(Extremes {
                nonempty: false,
                ..y
            }),
            _ => None,
        }
    }
}
