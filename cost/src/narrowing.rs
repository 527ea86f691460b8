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

/// One side of a comparison: its range, and, when it is a sum of named
/// values and integer literals, those values and the literals' sum.
#[derive(Clone, Debug, PartialEq)]
pub struct Side<N> {
    /// The side's range where the comparison was evaluated.
    pub interval: Interval,
    /// The named values the side adds, each negated or not (`n`, `n - k`,
    /// `10 - n`, `q.at + 1`, `length(s) - 1`); empty for any other side,
    /// which narrows nothing.
    pub terms: Vec<Term<N>>,
    /// The sum of the side's integer literals.
    pub offset: i64,
}

/// A named value a side adds (or subtracts): the binding (or a field of
/// it, or its length) and its range where the comparison was evaluated.
#[derive(Clone, Debug, PartialEq)]
pub struct Term<N> {
    /// What identifies the value.
    pub name: N,
    /// Whether the side subtracts it.
    pub negated: bool,
    /// Its range where the comparison was evaluated.
    pub interval: Interval,
}

/// At most this many named values in one side: a longer sum narrows
/// nothing (each narrowing reads every other term).
pub const MAX_TERMS: usize = 8;

impl<N> Side<N> {
    /// A side that is no sum of named values: its range only.
    pub fn opaque(interval: Interval) -> Side<N> {
        Side {
            interval,
            terms: Vec::new(),
            offset: 0,
        }
    }
}

/// Builds a [`Side`] from a sum's leaves, as the checker and the verifier
/// walk their expressions: any leaf that is neither a literal nor a named
/// value (`fail`), more than [`MAX_TERMS`] names, or literals whose sum
/// leaves `i64`, make the side opaque.
pub struct SideSum<N> {
    terms: Vec<Term<N>>,
    offset: Option<i64>,
}

impl<N> Default for SideSum<N> {
    fn default() -> Self {
        SideSum {
            terms: Vec::new(),
            offset: Some(0),
        }
    }
}

impl<N> SideSum<N> {
    /// Adds (or, `negated`, subtracts) the literal `c`.
    pub fn literal(&mut self, c: i64, negated: bool) {
        let c = if negated { c.checked_neg() } else { Some(c) };
        self.offset = self.offset.zip(c).and_then(|(a, c)| a.checked_add(c));
    }

    /// Adds (or subtracts) the named value `name`, within `interval`.
    pub fn named(&mut self, name: N, negated: bool, interval: Interval) {
        self.terms.push(Term {
            name,
            negated,
            interval,
        });
    }

    /// A leaf of no use: the side narrows nothing.
    pub fn fail(&mut self) {
        self.offset = None;
    }

    /// Whether a leaf failed already (the walk may stop).
    pub fn failed(&self) -> bool {
        self.offset.is_none() || self.terms.len() > MAX_TERMS
    }

    /// The side, whose range was `interval`.
    pub fn side(self, interval: Interval) -> Side<N> {
        match self.offset {
            Some(offset) if self.terms.len() <= MAX_TERMS => Side {
                interval,
                terms: self.terms,
                offset,
            },
            _ => Side::opaque(interval),
        }
    }
}

impl<N: Clone> Side<N> {
    /// The side with each term that is a name bound by `let` to a sum
    /// (`definition`: `let d = n - 5`) replaced by that sum, negated where
    /// the term is: the same value, as a sum of other names. `None` when
    /// no term has a definition, or the sum would hold more than
    /// [`MAX_TERMS`] names.
    pub fn expanded(&self, definition: &dyn Fn(&N) -> Option<Arc<Side<N>>>) -> Option<Side<N>> {
        let mut sum = SideSum::default();
        sum.literal(self.offset, false);
        let mut replaced = false;
        for term in &self.terms {
            match definition(&term.name) {
                Some(defined) => {
                    replaced = true;
                    sum.literal(defined.offset, term.negated);
                    for inner in &defined.terms {
                        let negated = inner.negated != term.negated;
                        sum.named(inner.name.clone(), negated, inner.interval.clone());
                    }
                }
                None => sum.named(term.name.clone(), term.negated, term.interval.clone()),
            }
        }
        let expanded = sum.side(self.interval.clone());
        (replaced && !expanded.terms.is_empty()).then_some(expanded)
    }
}

/// The comparison `left relation right`, and where a side names a
/// `let`-bound sum (`definition`), the same comparison of the sums it
/// stands for beside it ([`Condition::Both`]): `let d = n - 5; if d > 10
/// { … } else { n }` narrows `d` and `n`.
pub fn compared<N: Clone>(
    left: Side<N>,
    relation: Option<Relation>,
    right: Side<N>,
    definition: &dyn Fn(&N) -> Option<Arc<Side<N>>>,
) -> Condition<N> {
    let expanded = (left.expanded(definition), right.expanded(definition));
    if let (None, None) = expanded {
        return Condition::Compare {
            left: Box::new(left),
            relation,
            right: Box::new(right),
        };
    }
    let through = Condition::Compare {
        left: Box::new(expanded.0.unwrap_or_else(|| left.clone())),
        relation,
        right: Box::new(expanded.1.unwrap_or_else(|| right.clone())),
    };
    let direct = Condition::Compare {
        left: Box::new(left),
        relation,
        right: Box::new(right),
    };
    Condition::Both(Box::new(direct), Box::new(through))
}

/// `v`, or `-v` when `negated`.
fn signed(negated: bool, v: Interval) -> Interval {
    if negated {
        v.negate()
    } else {
        v
    }
}

impl<N: PartialEq + Clone> Side<N> {
    /// A term's range: its name's latest narrowing, or the range it had
    /// where it was compared.
    fn term_now(term: &Term<N>, narrowed: &[(N, Interval)]) -> Interval {
        narrowed
            .iter()
            .rev()
            .find(|(n, _)| *n == term.name)
            .map_or_else(|| term.interval.clone(), |(_, interval)| interval.clone())
    }

    /// The side's range now: the sum of its terms' ranges now and its
    /// offset (a name alone is its range), or the range it was compared
    /// at when it is no sum of named values.
    fn now(&self, narrowed: &[(N, Interval)]) -> Interval {
        match self.terms.as_slice() {
            [] => self.interval.clone(),
            [only] if self.offset == 0 => signed(only.negated, Side::term_now(only, narrowed)),
            _ => self.rest(None, narrowed),
        }
    }

    /// The offset plus every term's range now but the one at `skip`.
    fn rest(&self, skip: Option<usize>, narrowed: &[(N, Interval)]) -> Interval {
        self.terms
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .fold(Interval::exact(self.offset), |sum, (_, term)| {
                sum.plus(&signed(term.negated, Side::term_now(term, narrowed)))
            })
    }

    /// What the side lying in `proved` says of each term: `±t = side -
    /// the rest`, so `t` lies in `±(proved - rest)`, and in what it was
    /// known to lie in.
    fn each_term(&self, proved: &Interval, narrowed: &[(N, Interval)]) -> Vec<(N, Interval)> {
        (0..self.terms.len())
            .map(|j| {
                let term = &self.terms[j];
                if self.terms.len() == 1 && self.offset == 0 {
                    return (term.name.clone(), signed(term.negated, proved.clone()));
                }
                // Within what the term was known to be too: both hold.
                let unmoved = proved.minus(&self.rest(Some(j), narrowed));
                let known = Side::term_now(term, narrowed);
                (
                    term.name.clone(),
                    known.intersect(&signed(term.negated, unmoved)),
                )
            })
            .collect()
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
    /// Two readings of one comparison (one with `let`-bound names replaced
    /// by the sums they were bound to, [`compared`]): each holds exactly
    /// where the other does.
    Both(Box<Condition<N>>, Box<Condition<N>>),
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
        (Condition::Both(a, b), _) => {
            assume(a, holds, narrowed);
            assume(b, holds, narrowed);
        }
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
            // Each side's range now, and what the comparison proves of
            // each term of each: every term is read from the same ranges.
            let (l, r) = (left.now(narrowed), right.now(narrowed));
            let mut proved = left.each_term(&l.assume(relation, &r), narrowed);
            proved.extend(right.each_term(&r.assume(relation.flipped(), &l), narrowed));
            narrowed.extend(proved);
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
        Condition::Both(a, b) => comparisons(a) + comparisons(b),
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
/// one after them, twice (outermost first, then innermost first): each
/// fact holds throughout the branch, so reading any of them again, in any
/// order, is sound. The checker and the
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
    // Outermost first, then innermost first: a chain of names related
    // by nested `if`s (`if a <= b { if b <= c { if c <= 10 { … } } }`)
    // is read through in whichever order its links were nested.
    for (fact, held) in nearest {
        assume(fact, *held, narrowed);
    }
    assume(condition, holds, narrowed);
    for (fact, held) in nearest.iter().rev() {
        assume(fact, *held, narrowed);
    }
    assume(condition, holds, narrowed);
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
            left: Box::new(name_side(name)),
            relation,
            right: Box::new(Side::opaque(Interval::exact(other))),
        }
    }

    /// The side that is the name `name`, of any value.
    fn name_side(name: &'static str) -> Side<&'static str> {
        sum(&[(name, false, Interval::unbounded(name))], 0)
    }

    /// The side `±a ± b … + offset`.
    fn sum(terms: &[(&'static str, bool, Interval)], offset: i64) -> Side<&'static str> {
        let mut sum = SideSum::default();
        sum.literal(offset, false);
        let mut interval = Interval::exact(offset);
        for (name, negated, range) in terms {
            sum.named(*name, *negated, range.clone());
            interval = interval.plus(&signed(*negated, range.clone()));
        }
        sum.side(interval)
    }

    fn ends(narrowed: &[(&str, Interval)]) -> Vec<(Option<i64>, Option<i64>)> {
        narrowed.iter().map(|(_, i)| (i.least, i.most)).collect()
    }

    /// `side relation other`.
    fn compared(
        side: Side<&'static str>,
        relation: Relation,
        other: i64,
    ) -> Condition<&'static str> {
        Condition::Compare {
            left: Box::new(side),
            relation: Some(relation),
            right: Box::new(Side::opaque(Interval::exact(other))),
        }
    }

    /// The last range `narrowed` holds of `name`.
    fn last(narrowed: &[(&str, Interval)], name: &str) -> (Option<i64>, Option<i64>) {
        narrowed
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map_or((None, None), |(_, i)| (i.least, i.most))
    }

    #[test]
    fn a_sum_of_names_and_literals_narrows_each_name() {
        let any = |name: &str| Interval::unbounded(name);
        let n = |negated: bool| ("n", negated, any("n"));
        // `n - 5 > 10`: `n ≥ 16` where it holds, `n ≤ 15` where it fails.
        let minus_five = compared(sum(&[n(false)], -5), Relation::Above, 10);
        let mut then = Vec::new();
        assume(&minus_five, true, &mut then);
        assert_eq!(ends(&then), [(Some(16), None)]);
        let mut otherwise = Vec::new();
        assume(&minus_five, false, &mut otherwise);
        assert_eq!(ends(&otherwise), [(None, Some(15))]);
        // `10 - n >= 3`: `n ≤ 7`; `-n < 2`: `n ≥ -1`.
        let mut then = Vec::new();
        assume(
            &compared(sum(&[n(true)], 10), Relation::AtLeast, 3),
            true,
            &mut then,
        );
        assert_eq!(ends(&then), [(None, Some(7))]);
        let mut then = Vec::new();
        assume(
            &compared(sum(&[n(true)], 0), Relation::Below, 2),
            true,
            &mut then,
        );
        assert_eq!(ends(&then), [(Some(-1), None)]);
        // A second comparison reads the first's narrowing: `n - 5 > 10 &&
        // n + 1 < 20` is `16 ≤ n ≤ 18`.
        let both = Condition::And(
            Box::new(minus_five),
            Box::new(compared(sum(&[n(false)], 1), Relation::Below, 20)),
        );
        let mut then = Vec::new();
        assume(&both, true, &mut then);
        assert_eq!(last(&then, "n"), (Some(16), Some(18)));
        // `n - k > 10` failing, `k` in `[0, 5]`: `n ≤ 15`, and `k ≥ n - 10`
        // proves nothing of `k` with `n` unbounded below.
        let k = (
            "k",
            true,
            Interval::new(
                crate::Poly::constant(5),
                crate::Poly::zero(),
                Some(0),
                Some(5),
            ),
        );
        let mut otherwise = Vec::new();
        assume(
            &compared(sum(&[n(false), k.clone()], 0), Relation::Above, 10),
            false,
            &mut otherwise,
        );
        assert_eq!(last(&otherwise, "n"), (None, Some(15)));
        assert_eq!(last(&otherwise, "k"), (Some(0), Some(5)));
        // `k + n <= 15` (the name second) bounds `n` too.
        let k_plus_n = sum(&[("k", false, k.2.clone()), n(false)], 0);
        let mut then = Vec::new();
        assume(&compared(k_plus_n, Relation::AtMost, 15), true, &mut then);
        assert_eq!(last(&then, "n"), (None, Some(15)));
        // `n - m <= 0 && m <= 10`: the term `m`, narrowed by the later
        // comparison, bounds `n` once the condition is read again.
        let chain = Condition::And(
            Box::new(compared(
                sum(&[n(false), ("m", true, any("m"))], 0),
                Relation::AtMost,
                0,
            )),
            Box::new(compared(name_side("m"), Relation::AtMost, 10)),
        );
        let mut then = Vec::new();
        assume_within(&[], &chain, true, &mut then);
        assert_eq!(last(&then, "n").1, Some(10));
        // Literals past `i64` make the side opaque: it narrows nothing.
        let mut huge = SideSum::default();
        huge.literal(i64::MAX, false);
        huge.literal(1, false);
        huge.named("n", false, any("n"));
        let mut then = Vec::new();
        assume(
            &compared(huge.side(any("side")), Relation::Below, 0),
            true,
            &mut then,
        );
        assert!(then.is_empty());
    }

    #[test]
    fn a_chain_of_nested_ifs_is_read_through_in_either_order() {
        // `if x0 <= x1 { if x1 <= x2 { if x2 <= x3 { if x3 <= 10 { … } } } }`
        // bounds `x0`, and so does the same chain nested the other way.
        let link = |a: &'static str, b: &'static str| {
            Arc::new(Condition::Compare {
                left: Box::new(name_side(a)),
                relation: Some(Relation::AtMost),
                right: Box::new(name_side(b)),
            })
        };
        let innermost = compare("x3", Some(Relation::AtMost), 10);
        let outward = [link("x0", "x1"), link("x1", "x2"), link("x2", "x3")];
        let enclosing: Vec<_> = outward.iter().map(|c| (c.clone(), true)).collect();
        let mut narrowed = Vec::new();
        assume_within(&enclosing, &innermost, true, &mut narrowed);
        assert_eq!(last(&narrowed, "x0").1, Some(10));
        let reversed: Vec<_> = enclosing.iter().rev().cloned().collect();
        let mut narrowed = Vec::new();
        assume_within(&reversed, &innermost, true, &mut narrowed);
        assert_eq!(last(&narrowed, "x0").1, Some(10));
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
        let side = |name: &'static str| Box::new(name_side(name));
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
            let side = |name: &'static str| Box::new(name_side(name));
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
