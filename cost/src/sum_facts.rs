//! What the comparisons of the enclosing `if`s prove of a sum computed again inside their branches: `if n - m <= 5 { take(n - m) }` reads at most 5 (spec/cost.md §3.1).
//!
//! A comparison `L relation R` of two sides that are sums of named values
//! and literals (`sides.rs`) says that `D = L - R` stands in `relation` to
//! 0. A sum `E` (two or more named values, and a literal offset) written
//! in the branch that names some of `D`'s values with the same
//! coefficients as `D` does (or all negated) is `D` less the rest: so `E`
//! stands in that relation to the rest of `D` moved across, and its
//! interval is narrowed by [`Interval::assume`], the rule every
//! comparison narrows by. A name `D` holds with another coefficient
//! leaves the difference in the rest, at its range (`m - p == p` proves
//! `m - p` within `p`'s range). Both the checker and the plan verifier
//! narrow a sum with this, so they agree.

use crate::established::{disjunctions, established};
use crate::narrowing::{Condition, ENCLOSING_FACTS_READ};
use crate::sides::{signed, Side};
use crate::{Interval, Relation};
use std::sync::Arc;

/// The range of the sum `Σ ±names + offset`, whose range by interval
/// arithmetic is `interval`, where the facts `enclosing` (each with
/// whether it held) hold: `interval` narrowed by each comparison that
/// relates the same named values (`sum_within`'s module comment). A sum
/// whose names all cancel (`n - n`) is its offset. A sum of fewer than two
/// named values is returned as it is: a name's own narrowing covers it.
/// A name of the sum that a comparison does not name adds its range
/// (`range`'s, where it knows it) to what the comparison proves of the
/// rest: `n - m <= 5` bounds `n - m + i` by `5 + hi(i)`.
pub fn sum_within<N: PartialEq>(
    enclosing: &[(Arc<Condition<N>>, bool)],
    names: &[(N, bool)],
    offset: i64,
    interval: &Interval,
    range: &dyn Fn(&N) -> Option<Interval>,
) -> Interval {
    if names.len() < 2 {
        return interval.clone();
    }
    let coefficients = merged(names.iter().map(|(name, negated)| (name, *negated)));
    // Every name cancels (`n - n + 1`): one value less itself, the offset.
    if coefficients.is_empty() {
        return interval.intersect(&Interval::exact(offset));
    }
    // Some cancel (`n + m - m`, `d + m` with `d = n - m` read through):
    // the rest, each name at its range now times its coefficient, where
    // each has one (the same binding is the same integer each time).
    let cancelled = coefficients.len() < names.len();
    let mut narrowed = match cancelled.then(|| merged_range(&coefficients, offset, range)) {
        Some(Some(merged)) => interval.intersect(&merged),
        _ => interval.clone(),
    };
    if enclosing.is_empty() {
        return narrowed;
    }
    let nearest = &enclosing[enclosing.len().saturating_sub(ENCLOSING_FACTS_READ)..];
    for (fact, held) in nearest {
        narrowed = within_fact(fact, *held, (&coefficients, offset), narrowed, range);
    }
    narrowed
}

/// `narrowed`, the range of the sum of `coefficients` and `offset`,
/// within what `fact` being `held` proves of it: each comparison it
/// establishes that relates the same named values, and for each
/// disjunction it establishes (`a || b` true, `a && b` false), the join
/// of what each part proves (one of them holds), as `assume` reads one.
fn within_fact<N: PartialEq>(
    fact: &Condition<N>,
    held: bool,
    (coefficients, offset): (&[(&N, i64)], i64),
    mut narrowed: Interval,
    range: &dyn Fn(&N) -> Option<Interval>,
) -> Interval {
    let mut comparisons = Vec::new();
    established(fact, held, &mut comparisons);
    // Not an `Int?`'s: it proves nothing of the other side.
    let of_values = comparisons
        .into_iter()
        .filter(|(.., optional)| optional.is_none());
    for (left, relation, right, _) in of_values {
        if let Some((relation, other)) = relates(coefficients, left, relation, right, range) {
            narrowed = narrowed.assume(relation, &other.plus(&Interval::exact(offset)));
        }
    }
    for parts in disjunctions(fact, held) {
        // A part ruled out is not the one; all ruled out, a branch no run
        // takes, which this reading leaves as it is.
        let part = |part: crate::established::Part<'_, N>| {
            let (c, holds) = (part.condition, part.holds);
            within_fact(c, holds, (coefficients, offset), narrowed.clone(), range)
        };
        let mut parts = parts.into_iter().filter(|p| !p.ruled_out).map(part);
        let Some(first) = parts.next() else {
            continue;
        };
        let either = parts.fold(first, |joined, part| joined.join(&part));
        narrowed = narrowed.intersect(&either);
    }
    narrowed
}

/// The range of a name bound by `let` to the sum `definition` (or a
/// parameter that keeps its argument's), read where the facts `enclosing`
/// hold: each term at its range now — `current`'s (the name still bound
/// to that binding), else what the facts prove of it (a name shadowed
/// since, a field, a length), else its range where the sum was made —
/// summed, and within what the facts prove of the sum ([`sum_within`]).
pub fn sum_now<N: crate::Name>(
    definition: &Side<N>,
    enclosing: &[(Arc<Condition<N>>, bool)],
    current: &dyn Fn(&N) -> Option<Interval>,
    read: crate::Reading,
) -> Interval {
    let mut proved: Option<Vec<(N, Interval)>> = None;
    let mut now = Interval::exact(definition.offset);
    let mut ranges: Vec<(N, Interval)> = Vec::new();
    for term in &definition.terms {
        let range = current(&term.name).unwrap_or_else(|| {
            let proved = proved.get_or_insert_with(|| {
                let mut proved = Vec::new();
                crate::assume_within(enclosing, &Condition::Opaque, true, &mut proved, read);
                proved
            });
            match proved.iter().rev().find(|(name, _)| *name == term.name) {
                Some((_, fact)) => term.interval.intersect(fact),
                None => term.interval.clone(),
            }
        });
        now = now.plus(&signed(term.negated, range.clone()));
        ranges.push((term.name.clone(), range));
    }
    let names: Vec<(N, bool)> = definition
        .terms
        .iter()
        .map(|term| (term.name.clone(), term.negated))
        .collect();
    let range = |name: &N| {
        ranges
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
    };
    sum_within(enclosing, &names, definition.offset, &now, &range)
}

/// Builds the sum [`sum_within`] narrows, as the checker and the verifier
/// walk an expression's `+`, `-` and negation: literals and named values
/// (any other leaf, or literals past `i64`, and the sum is not narrowed).
pub struct SumNames<N> {
    names: Vec<(N, bool)>,
    offset: i64,
    failed: bool,
}

impl<N> Default for SumNames<N> {
    fn default() -> Self {
        SumNames {
            names: Vec::new(),
            offset: 0,
            failed: false,
        }
    }
}

impl<N: PartialEq> SumNames<N> {
    /// Adds (or, `negated`, subtracts) the literal `c`.
    pub fn literal(&mut self, c: i64, negated: bool) {
        let c = if negated { c.checked_neg() } else { Some(c) };
        match c.and_then(|c| self.offset.checked_add(c)) {
            Some(offset) => self.offset = offset,
            None => self.failed = true,
        }
    }

    /// Adds (or subtracts) the named value `name`.
    pub fn named(&mut self, name: N, negated: bool) {
        self.names.push((name, negated));
    }

    /// A leaf of no use: the sum is not narrowed.
    pub fn fail(&mut self) {
        self.failed = true;
    }

    /// Whether the sum will not be narrowed (the walk may stop): a leaf
    /// failed, or it names more than [`crate::MAX_TERMS`] values.
    pub fn failed(&self) -> bool {
        self.failed || self.names.len() > crate::MAX_TERMS
    }

    /// The sum's range `interval` within what `enclosing` proves of it
    /// ([`sum_within`], each name's range `range`'s), and within what it
    /// proves of the same sum with each `let`-bound name (`definition`)
    /// read as the sum it was bound to: the same value (`let d = n + 1; if
    /// n - m <= 5 { take(d - m) }`, an inlined function's arguments bound
    /// by `let`).
    pub fn within(
        &self,
        enclosing: &[(Arc<Condition<N>>, bool)],
        interval: Interval,
        definition: &dyn Fn(&N) -> Option<Arc<Side<N>>>,
        range: &dyn Fn(&N) -> Option<Interval>,
    ) -> Interval
    where
        N: Clone,
    {
        if self.failed() {
            return interval;
        }
        let narrowed = sum_within(enclosing, &self.names, self.offset, &interval, range);
        let mut expanded = SumNames {
            names: Vec::new(),
            offset: self.offset,
            failed: false,
        };
        let mut replaced = false;
        for (name, negated) in &self.names {
            match definition(name) {
                Some(defined) => {
                    replaced = true;
                    expanded.literal(defined.offset, *negated);
                    for term in &defined.terms {
                        expanded.named(term.name.clone(), term.negated != *negated);
                    }
                }
                None => expanded.named(name.clone(), *negated),
            }
        }
        match replaced && !expanded.failed() {
            true => sum_within(
                enclosing,
                &expanded.names,
                expanded.offset,
                &narrowed,
                range,
            ),
            false => narrowed,
        }
    }
}

/// `offset` plus each name's range now (`range`) times its coefficient;
/// `None` where a name has no range known here.
fn merged_range<N>(
    coefficients: &[(&N, i64)],
    offset: i64,
    range: &dyn Fn(&N) -> Option<Interval>,
) -> Option<Interval> {
    coefficients
        .iter()
        .try_fold(Interval::exact(offset), |sum, (name, coefficient)| {
            Some(sum.plus(&range(name)?.times_coefficient(*coefficient)))
        })
}

/// Each name of a sum with its coefficient (`n + n - m`: `n` 2, `m` -1),
/// in the order first met, those that cancel left out.
fn merged<'n, N: PartialEq + 'n>(terms: impl Iterator<Item = (&'n N, bool)>) -> Vec<(&'n N, i64)> {
    let mut merged: Vec<(&N, i64)> = Vec::new();
    for (name, negated) in terms {
        let step = if negated { -1 } else { 1 };
        match merged.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += step,
            None => merged.push((name, step)),
        }
    }
    merged.retain(|(_, c)| *c != 0);
    merged
}

/// When `left relation right` relates the sum whose coefficients are
/// `sum` (its offset aside) to the rest of `D = left - right`: the
/// relation the sum stands in to the rest moved across, and that rest's
/// range. `D` is read as `s·E' + rest` for the sign `s` (`+1`, or `-1`
/// for a sum written the other way round) under which more of the sum's
/// names have in `D` exactly `s` times their coefficient in the sum; a
/// name with another coefficient in `D` (`m - p == p` read for `m - p`,
/// `D = m - 2p`) leaves the difference times its range in the rest. A
/// value of the sum that `D` does not name adds its range times its
/// coefficient. `None` when no name of the sum has its coefficient in `D`
/// under either sign, when a range needed is not known (`range`'s), or
/// when the literals leave `i64`.
fn relates<N: PartialEq>(
    sum: &[(&N, i64)],
    left: &Side<N>,
    relation: Relation,
    right: &Side<N>,
    range: &dyn Fn(&N) -> Option<Interval>,
) -> Option<(Relation, Interval)> {
    if left.terms.is_empty() && right.terms.is_empty() {
        return None;
    }
    let terms = || {
        let lefts = left.terms.iter().map(|t| (t, t.negated));
        lefts.chain(right.terms.iter().map(|t| (t, !t.negated)))
    };
    let difference = merged(terms().map(|(t, negated)| (&t.name, negated)));
    let coefficient = |name: &N| {
        difference
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, c)| *c)
    };
    let matching = |sign: i64| {
        sum.iter()
            .filter(|(name, c)| coefficient(name) == sign * c)
            .count()
    };
    let sign = match (matching(1), matching(-1)) {
        (0, 0) => return None,
        (same, opposite) if same >= opposite => 1,
        _ => -1,
    };
    // `c` copies of a range, added one by one: a polynomial end (`n`, `2n`)
    // stays one.
    let scaled = |known: Interval, c: i64| {
        let signed_range = match c < 0 {
            true => known.negate(),
            false => known,
        };
        let mut total = Interval::exact(0);
        for _ in 0..c.unsigned_abs() {
            total = total.plus(&signed_range);
        }
        total
    };
    // The sum's values `D` does not name (`added`, outside `E'`), and
    // what those it names with another coefficient leave in the rest.
    let mut added = Interval::exact(0);
    let mut rest = Interval::exact(0);
    for (name, c) in sum.iter().map(|e| (e.0, e.1)) {
        let in_difference = coefficient(name);
        if in_difference == 0 {
            added = added.plus(&scaled(range(name)?, c));
        } else if in_difference != sign * c {
            rest = rest.plus(&scaled(range(name)?, in_difference - sign * c));
        }
    }
    // `D = s·E' + rest + k` (E' the named part without its offset) stands
    // in `relation` to 0, so `s·E'` stands in it to `-(rest + k)`. A side
    // that is no sum of named values (`if x > 0 { 100 } else { 200 }`,
    // `x * 2`) is its whole range in `rest`, not its offset (which is 0):
    // a literal's range is its value.
    let offset = |side: &Side<N>| match side.terms.is_empty() {
        true => 0,
        false => side.offset,
    };
    let k = offset(left).checked_sub(offset(right))?;
    for (side, negated) in [(left, false), (right, true)] {
        if side.terms.is_empty() {
            rest = rest.plus(&signed(negated, side.interval.clone()));
        }
    }
    // A term of `D` the sum does not name, at its range where the
    // comparison was evaluated, within its range now where that is known
    // (the same binding: `if a - b <= c { if c <= 10 { take(a - b) } }`).
    for (term, negated) in terms() {
        if !sum.iter().any(|(name, _)| **name == term.name) {
            let interval = match range(&term.name) {
                Some(now) => term.interval.intersect(&now),
                None => term.interval.clone(),
            };
            rest = rest.plus(&signed(negated, interval));
        }
    }
    let moved = Interval::exact(k).plus(&rest).negate();
    Some(match sign {
        1 => (relation, moved.plus(&added)),
        _ => (relation.flipped(), moved.negate().plus(&added)),
    })
}

/// Whether `condition` cannot be `holds` at all: some comparison it
/// would establish is impossible between its sides' ranges (`9 > 4`
/// false, `n - n > 0`), so a branch under it never runs. The ranges are
/// those the sides had where the comparison was evaluated, each name's
/// occurrences merged (`Side`'s coefficients).
pub fn infeasible<N: PartialEq + Clone>(condition: &Condition<N>, holds: bool) -> bool {
    // Its literals decide it the other way (`false`, `x <= 3 && false`).
    if crate::established::known(condition) == Some(!holds) {
        return true;
    }
    // Not an `Int?`'s number: a `none` meets any of its comparisons.
    let mut comparisons = Vec::new();
    established(condition, holds, &mut comparisons);
    let of_values = comparisons
        .into_iter()
        .filter(|(.., optional)| optional.is_none());
    of_values.into_iter().any(|(left, relation, right, _)| {
        let (l, r) = (left.now(&[]), right.now(&[]));
        let below = |a: Option<i64>, b: Option<i64>| matches!((a, b), (Some(a), Some(b)) if a < b);
        match relation {
            // `l < r` needs some `l` below some `r`: impossible when the
            // least `l` is at least the greatest `r`.
            Relation::Below => !below(l.least, r.most) && l.least.is_some() && r.most.is_some(),
            Relation::AtMost => below(r.most, l.least),
            Relation::Above => !below(r.least, l.most) && r.least.is_some() && l.most.is_some(),
            Relation::AtLeast => below(l.most, r.least),
            Relation::Equal => below(l.most, r.least) || below(r.most, l.least),
        }
    })
}

#[cfg(test)]
#[path = "sum_facts_tests.rs"]
mod tests;
