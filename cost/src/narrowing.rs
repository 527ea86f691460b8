//! What a condition proves of the integers it compares, in the branch where it held and in the one where it failed: the rule both the checker and the plan verifier narrow names with (spec/cost.md §3.1).
//!
//! A condition is read as a tree ([`Condition`]) of comparisons of two
//! `Int`s under `!`, `&&` and `||`, and of conditions a `let` named. Each
//! comparison keeps both sides' intervals as they were when it was
//! evaluated, and for a side that is a name, what identifies that name's
//! binding (`N`: the checker's name and binding identity, the verifier's
//! parameter position or binding identity). [`assume`] lists, in order,
//! what the condition being true (or false) proves of each name: `&&`
//! proves both sides when true, `||` both negations when false, `!` swaps
//! them; a fact about a name narrows what an earlier fact in the same
//! condition proved of it. Knows nothing of expressions or plans: the
//! caller records the comparisons and rebinds the names.

use crate::{Interval, Relation};
use std::sync::Arc;

/// One side of a comparison: its range, and the name it is, if it is one.
#[derive(Clone, Debug, PartialEq)]
pub struct Side<N> {
    /// The side's range where the comparison was evaluated.
    pub interval: Interval,
    /// The binding the side reads, when it is a name or a name moved by
    /// constants (`n - 5`, `10 - n`: [`Shift`]).
    pub name: Option<N>,
    /// How the side's value is made from the name's (the default: it is
    /// the name's).
    pub shift: Shift,
}

/// A side's value made from its name's: the name's value, negated when
/// `negated`, plus a value within `offset` (`n - 5` is `{false, [-5, -5]}`,
/// `10 - n` is `{true, [10, 10]}`, `n + k` is `{false, k's range}`). The
/// arithmetic of a run stops on overflow (E0530), so where a branch runs,
/// the side's value is exactly the name's moved by the offset's value,
/// which lies within its range; a range proved of the side, less the
/// offset's (negated back), is then one of the name's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shift {
    /// The name's value is negated first.
    pub negated: bool,
    /// Then a value within this is added (`None`: nothing).
    pub offset: Option<Interval>,
}

impl Shift {
    /// `-v` of the side: `-(±n + d)` is `∓n - d`.
    pub fn negated(self) -> Shift {
        Shift {
            negated: !self.negated,
            offset: self.offset.map(|d| d.negate()),
        }
    }

    /// `v + d` of the side, `d` within `term`.
    pub fn plus(self, term: &Interval) -> Shift {
        Shift {
            negated: self.negated,
            offset: Some(match self.offset {
                Some(d) => d.plus(term),
                None => term.clone(),
            }),
        }
    }

    /// The side's range from the name's.
    fn apply(&self, name: &Interval) -> Interval {
        let signed = if self.negated {
            name.negate()
        } else {
            name.clone()
        };
        match &self.offset {
            Some(d) => signed.plus(d),
            None => signed,
        }
    }

    /// The name's range from the side's: the side less the offset,
    /// negated back.
    fn invert(&self, side: &Interval) -> Interval {
        let unmoved = match &self.offset {
            Some(d) => side.minus(d),
            None => side.clone(),
        };
        if self.negated {
            unmoved.negate()
        } else {
            unmoved
        }
    }
}

/// What a `Bool` expression says about the integers it compares.
#[derive(Debug, PartialEq)]
pub enum Condition<N> {
    /// `left relation right`; `relation` is `None` for `!=`.
    Compare {
        /// The left operand.
        left: Box<Side<N>>,
        /// `<`, `<=`, `>`, `>=`, `==`, or `None` for `!=`.
        relation: Option<Relation>,
        /// The right operand.
        right: Box<Side<N>>,
    },
    /// `!c`.
    Not(Box<Condition<N>>),
    /// `a && b`.
    And(Box<Condition<N>>, Box<Condition<N>>),
    /// `a || b`.
    Or(Box<Condition<N>>, Box<Condition<N>>),
    /// A `let`-bound condition, shared with its binding.
    Named(Arc<Condition<N>>),
    /// Anything else: proves nothing.
    Opaque,
}

/// Adds to `narrowed`, in order, what `condition` being `holds` proves of
/// each name it compares: `(name, range)`, each range narrowed from the
/// name's latest one in `narrowed` (or its side's, for the first).
pub fn assume<N: Clone + PartialEq>(
    condition: &Condition<N>,
    holds: bool,
    narrowed: &mut Vec<(N, Interval)>,
) {
    match (condition, holds) {
        (Condition::Not(inner), _) => assume(inner, !holds, narrowed),
        (Condition::Named(inner), _) => assume(inner, holds, narrowed),
        (Condition::And(a, b), true) | (Condition::Or(a, b), false) => {
            assume(a, holds, narrowed);
            assume(b, holds, narrowed);
        }
        (
            Condition::Compare {
                left,
                relation,
                right,
            },
            _,
        ) => {
            let relation = match (relation, holds) {
                (Some(relation), true) => *relation,
                (Some(relation), false) => match relation.negated() {
                    Some(negated) => negated,
                    None => return,
                },
                // `a != b` false is `a == b`.
                (None, false) => Relation::Equal,
                (None, true) => return,
            };
            // A side's range: its name's latest narrowing, moved by the
            // side's shift, or the range it had where it was compared.
            let current = |side: &Side<N>, narrowed: &[(N, Interval)]| {
                side.name
                    .as_ref()
                    .and_then(|name| {
                        narrowed
                            .iter()
                            .rev()
                            .find(|(n, _)| n == name)
                            .map(|(_, interval)| side.shift.apply(interval))
                    })
                    .unwrap_or_else(|| side.interval.clone())
            };
            let (l, r) = (current(left, narrowed), current(right, narrowed));
            if let Some(name) = &left.name {
                let proved = left.shift.invert(&l.assume(relation, &r));
                narrowed.push((name.clone(), proved));
            }
            if let Some(name) = &right.name {
                let proved = right.shift.invert(&r.assume(relation.flipped(), &l));
                narrowed.push((name.clone(), proved));
            }
        }
        // `a && b` false or `a || b` true: either may be the one; nothing.
        _ => {}
    }
}

/// At most this many readings of one condition: each is sound (the
/// condition holds throughout its branch), so the cap only limits the
/// work of a long chain.
pub const CONDITION_PASSES: usize = 8;

/// How many comparisons `condition` holds, `Bool` names' included.
fn comparisons<N>(condition: &Condition<N>) -> usize {
    match condition {
        Condition::Not(inner) => comparisons(inner),
        Condition::Named(inner) => comparisons(inner),
        Condition::And(a, b) | Condition::Or(a, b) => comparisons(a) + comparisons(b),
        Condition::Compare { .. } => 1,
        Condition::Opaque => 0,
    }
}

/// At most this many enclosing facts are read again at each branch: the
/// ones nearest it. Each is sound to read or to leave out (it holds
/// throughout the branch), so the cap only limits the work a deep nest
/// of `if`s costs, quadratic in its depth without it.
pub const ENCLOSING_FACTS_READ: usize = 16;

/// What `condition` being `holds` proves in a branch that is itself
/// inside the branches of `enclosing` (outermost first, each with whether
/// it held there). The new fact may tighten a name an outer comparison
/// related another name to (`if n < m { if m < 10 { n } }`: `n ≤ 8`
/// once `m ≤ 9`), so the outer facts are read again after it, and the new
/// one after them, twice: each fact holds throughout the branch, so
/// reading any of them again, in any order, is sound. The checker and the
/// plan verifier both narrow with this, so they agree.
pub fn assume_within<N: Clone + PartialEq>(
    enclosing: &[(Arc<Condition<N>>, bool)],
    condition: &Condition<N>,
    holds: bool,
    narrowed: &mut Vec<(N, Interval)>,
) {
    // A later comparison of one condition may tighten a name an earlier
    // one related another name to (`n <= m && m <= 10`: `n ≤ 10` once
    // `m ≤ 10`), so the condition is read again, once per comparison it
    // holds (a chain of them, in any order), up to `CONDITION_PASSES`.
    for _ in 0..comparisons(condition).clamp(1, CONDITION_PASSES) {
        assume(condition, holds, narrowed);
    }
    let nearest = &enclosing[enclosing.len().saturating_sub(ENCLOSING_FACTS_READ)..];
    if nearest.is_empty() {
        return;
    }
    for _ in 0..2 {
        for (fact, held) in nearest {
            assume(fact, *held, narrowed);
        }
        assume(condition, holds, narrowed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(
        name: &'static str,
        relation: Option<Relation>,
        other: i64,
    ) -> Condition<&'static str> {
        Condition::Compare {
            left: Box::new(Side {
                interval: Interval::unbounded(name),
                name: Some(name),
                shift: Shift::default(),
            }),
            relation,
            right: Box::new(Side {
                interval: Interval::exact(other),
                name: None,
                shift: Shift::default(),
            }),
        }
    }

    fn ends(narrowed: &[(&str, Interval)]) -> Vec<(Option<i64>, Option<i64>)> {
        narrowed.iter().map(|(_, i)| (i.least, i.most)).collect()
    }

    /// `name` moved by `shift`, compared by `relation` with `other`.
    fn compare_shifted(shift: Shift, relation: Relation, other: i64) -> Condition<&'static str> {
        let name = Interval::unbounded("n");
        Condition::Compare {
            left: Box::new(Side {
                interval: shift.apply(&name),
                name: Some("n"),
                shift,
            }),
            relation: Some(relation),
            right: Box::new(Side {
                interval: Interval::exact(other),
                name: None,
                shift: Shift::default(),
            }),
        }
    }

    #[test]
    fn a_name_moved_by_constants_is_narrowed_moved_back() {
        let by = |c: i64| Interval::exact(c);
        let minus_five = Shift::default().plus(&by(-5));
        // `n - 5 > 10`: `n ≥ 16` where it holds, `n ≤ 15` where it fails.
        let c = compare_shifted(minus_five, Relation::Above, 10);
        let mut then = Vec::new();
        assume(&c, true, &mut then);
        assert_eq!(ends(&then), [(Some(16), None)]);
        let mut otherwise = Vec::new();
        assume(&c, false, &mut otherwise);
        assert_eq!(ends(&otherwise), [(None, Some(15))]);
        // `10 - n >= 3`: `n ≤ 7`; `-n < 2`: `n ≥ -1`.
        let ten_minus = Shift::default().negated().plus(&by(10));
        let mut then = Vec::new();
        assume(
            &compare_shifted(ten_minus, Relation::AtLeast, 3),
            true,
            &mut then,
        );
        assert_eq!(ends(&then), [(None, Some(7))]);
        let negated = Shift::default().negated();
        let mut then = Vec::new();
        assume(
            &compare_shifted(negated, Relation::Below, 2),
            true,
            &mut then,
        );
        assert_eq!(ends(&then), [(Some(-1), None)]);
        // A second comparison reads the first's narrowing moved by its
        // own shift: `n - 5 > 10 && n + 1 < 20` is `16 ≤ n ≤ 18`.
        let both = Condition::And(
            Box::new(c),
            Box::new(compare_shifted(
                Shift::default().plus(&by(1)),
                Relation::Below,
                20,
            )),
        );
        let mut then = Vec::new();
        assume(&both, true, &mut then);
        assert_eq!(
            then.last().map(|(_, i)| (i.least, i.most)),
            Some((Some(16), Some(18)))
        );
        // `n - k <= 10` with `k` in `[0, 5]`: `n ≤ 15`.
        let minus_k = Shift::default().plus(
            &Interval::new(
                crate::Poly::constant(5),
                crate::Poly::zero(),
                Some(0),
                Some(5),
            )
            .negate(),
        );
        let mut otherwise = Vec::new();
        assume(
            &compare_shifted(minus_k, Relation::Above, 10),
            false,
            &mut otherwise,
        );
        assert_eq!(ends(&otherwise), [(None, Some(15))]);
        // An offset past `i64` keeps only what its other ends prove: the
        // offset is at least 0, so `n + (MAX + MAX) < 0` gives `n ≤ -1`.
        let huge = Shift::default().plus(&by(i64::MAX)).plus(&by(i64::MAX));
        let mut then = Vec::new();
        assume(&compare_shifted(huge, Relation::Below, 0), true, &mut then);
        assert_eq!(ends(&then), [(None, Some(-1))]);
    }

    #[test]
    fn each_branch_learns_its_side() {
        let c = compare("n", Some(Relation::Above), 10);
        let mut then = Vec::new();
        assume(&c, true, &mut then);
        assert_eq!(ends(&then), [(Some(11), None)]);
        let mut otherwise = Vec::new();
        assume(&c, false, &mut otherwise);
        assert_eq!(ends(&otherwise), [(None, Some(10))]);
    }

    #[test]
    fn and_narrows_when_true_or_when_false_not_the_other_way() {
        let both = || {
            (
                Box::new(compare("n", Some(Relation::AtLeast), 0)),
                Box::new(compare("n", Some(Relation::Below), 10)),
            )
        };
        let (a, b) = both();
        let and = Condition::And(a, b);
        let mut then = Vec::new();
        assume(&and, true, &mut then);
        // The second fact narrows the first's result: [0, 9].
        assert_eq!(
            then.last().map(|(_, i)| (i.least, i.most)),
            Some((Some(0), Some(9)))
        );
        let mut otherwise = Vec::new();
        assume(&and, false, &mut otherwise);
        assert!(otherwise.is_empty());
        let (a, b) = both();
        let mut or_true = Vec::new();
        assume(&Condition::Or(a, b), true, &mut or_true);
        assert!(or_true.is_empty());
        let not = Condition::Not(Box::new(compare("n", Some(Relation::Below), 5)));
        let mut then = Vec::new();
        assume(&not, true, &mut then);
        assert_eq!(ends(&then), [(Some(5), None)]);
    }

    #[test]
    fn not_equal_proves_only_when_false() {
        let c = compare("n", None, 3);
        let mut then = Vec::new();
        assume(&c, true, &mut then);
        assert!(then.is_empty());
        let mut otherwise = Vec::new();
        assume(&c, false, &mut otherwise);
        assert_eq!(ends(&otherwise), [(Some(3), Some(3))]);
        let equal = compare("n", Some(Relation::Equal), 3);
        let mut otherwise = Vec::new();
        assume(&equal, false, &mut otherwise);
        assert!(otherwise.is_empty());
    }

    #[test]
    fn an_inner_fact_tightens_what_an_outer_comparison_related() {
        // `if n < m { if m < 10 { … } }`: `n ≤ 8` inside.
        let side = |name: &'static str| {
            Box::new(Side {
                interval: Interval::unbounded(name),
                name: Some(name),
                shift: Shift::default(),
            })
        };
        let outer = Arc::new(Condition::Compare {
            left: side("n"),
            relation: Some(Relation::Below),
            right: side("m"),
        });
        let inner = compare("m", Some(Relation::Below), 10);
        let mut alone = Vec::new();
        assume(&inner, true, &mut alone);
        assert!(alone.iter().all(|(name, _)| *name == "m"));
        let mut within = Vec::new();
        assume_within(&[(outer.clone(), true)], &inner, true, &mut within);
        let last_n = within.iter().rev().find(|(name, _)| *name == "n");
        assert_eq!(last_n.map(|(_, i)| i.most), Some(Some(8)));
        // Where the outer comparison failed (`n >= m`), `m ≤ 9` says
        // nothing of how large `n` is.
        let mut failed = Vec::new();
        assume_within(&[(outer, false)], &inner, true, &mut failed);
        let last_n = failed.iter().rev().find(|(name, _)| *name == "n");
        assert_eq!(last_n.map(|(_, i)| i.most), Some(None));
    }

    #[test]
    fn a_later_comparison_tightens_an_earlier_one_of_the_same_condition() {
        // `n <= m && m <= 10`: `n ≤ 10`, as with the tests the other way
        // round; `n > m || m > 10` false proves the same.
        let first = || {
            let side = |name: &'static str| {
                Box::new(Side {
                    interval: Interval::unbounded(name),
                    name: Some(name),
                    shift: Shift::default(),
                })
            };
            Box::new(Condition::Compare {
                left: side("n"),
                relation: Some(Relation::AtMost),
                right: side("m"),
            })
        };
        let second = || Box::new(compare("m", Some(Relation::AtMost), 10));
        let most_n = |condition: &Condition<&'static str>, holds: bool| {
            let mut narrowed = Vec::new();
            assume_within(&[], condition, holds, &mut narrowed);
            narrowed
                .iter()
                .rev()
                .find(|(name, _)| *name == "n")
                .and_then(|(_, i)| i.most)
        };
        assert_eq!(most_n(&Condition::And(first(), second()), true), Some(10));
        assert_eq!(most_n(&Condition::And(second(), first()), true), Some(10));
        let or = Condition::Or(
            Box::new(Condition::Not(first())),
            Box::new(Condition::Not(second())),
        );
        assert_eq!(most_n(&or, false), Some(10));
        // Either one may fail where the `&&` does: nothing of `n`.
        assert_eq!(most_n(&Condition::And(first(), second()), false), None);
    }
}
