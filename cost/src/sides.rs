//! One side of a compared pair of `Int`s: its range and, when it is a sum of named values and literals, its terms, each narrowed by what the comparison proves of the side (spec/cost.md §3.1).

use crate::narrowing::Condition;
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
    /// The one named value this side is, alone (one term, not negated,
    /// no literal): what a name bound to it is an alias of (the checker's
    /// and the verifier's `alias`, [`crate::alias_chain`]).
    pub fn alias_of(&self) -> Option<&N> {
        match self.terms.as_slice() {
            [term] if self.offset == 0 && !term.negated => Some(&term.name),
            _ => None,
        }
    }

    /// The one number `value`, no name (a literal).
    pub fn exact(value: i64) -> Side<N> {
        Side {
            interval: Interval::exact(value),
            terms: Vec::new(),
            offset: value,
        }
    }

    /// A side that is no sum of named values: its range only.
    pub fn opaque(interval: Interval) -> Side<N> {
        Side {
            interval,
            terms: Vec::new(),
            offset: 0,
        }
    }
}

/// How an expression is made, as far as a sum is concerned: what the
/// checker's expressions and the verifier's plan nodes each answer, so
/// that both walk a sum by [`sum_leaves`].
pub enum SumShape<'e, E> {
    /// An integer literal.
    Literal(i64),
    /// `-e`.
    Negated(&'e E),
    /// `a + b`.
    Plus(&'e E, &'e E),
    /// `a - b`.
    Minus(&'e E, &'e E),
    /// `c * e` or `e * c`, `c` an integer literal: `e` added `c` times
    /// (subtracted `-c` times), when `c` is nonzero and at most
    /// [`MAX_TERMS`] either way.
    Scaled(i64, &'e E),
    /// Anything else: a leaf (a name, a field, a call, another product).
    Leaf,
}

/// The shape of `c * e`, `c` an integer literal: `e` added `c` times
/// ([`SumShape::Scaled`]), or a leaf where `c` is 0 or past [`MAX_TERMS`]
/// either way (a sum of so many names narrows nothing).
pub fn scaled<E>(c: i64, e: &E) -> SumShape<'_, E> {
    match c != 0 && c.unsigned_abs() <= MAX_TERMS as u64 {
        true => SumShape::Scaled(c, e),
        false => SumShape::Leaf,
    }
}

/// A leaf of a sum ([`sum_leaves`]).
pub enum SumLeaf<'e, E> {
    /// An integer literal.
    Literal(i64),
    /// Any other leaf.
    Value(&'e E),
}

/// Gives `visit` each leaf of the sum `e` (`+`, `-` and negation over
/// leaves, as `shape` reads them) in order, with whether the sum
/// subtracts it (`negated` for the whole of `e`), until `visit` answers
/// `false`; whether it never did.
pub fn sum_leaves<'e, E>(
    e: &'e E,
    negated: bool,
    shape: &dyn Fn(&'e E) -> SumShape<'e, E>,
    visit: &mut dyn FnMut(SumLeaf<'e, E>, bool) -> bool,
) -> bool {
    match shape(e) {
        SumShape::Literal(c) => visit(SumLeaf::Literal(c), negated),
        SumShape::Negated(inner) => sum_leaves(inner, !negated, shape, visit),
        SumShape::Plus(a, b) => {
            sum_leaves(a, negated, shape, visit) && sum_leaves(b, negated, shape, visit)
        }
        SumShape::Minus(a, b) => {
            sum_leaves(a, negated, shape, visit) && sum_leaves(b, !negated, shape, visit)
        }
        // `c * e` is `e + e + …` (`c` times) wherever it evaluates: a run
        // stops on overflow, so the product and the sum are one integer.
        SumShape::Scaled(c, inner) => {
            let negated = negated != (c < 0);
            (0..c.unsigned_abs()).all(|_| sum_leaves(inner, negated, shape, visit))
        }
        SumShape::Leaf => visit(SumLeaf::Value(e), negated),
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
    /// the term is: the same value, as a sum of other names (which may be
    /// `let`-bound sums themselves: [`compared`] reads on through them). `None` when
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

/// At most this many `let`s are read through from a compared name
/// ([`compared`]): `let d = n - 5; let e = d + 1` is two.
pub const MAX_DEFINITIONS_READ: usize = 4;

/// The comparison `left relation right`, and where a side names a
/// `let`-bound sum (`definition`), the same comparison with the sum in
/// the name's place beside it ([`Condition::Both`]), and so on through the
/// sums' own `let`-bound names, up to [`MAX_DEFINITIONS_READ`] deep: `let
/// d = n - 5; if d > 10 { … } else { n }` narrows `d` and `n`, and `let a
/// = q.at; let d = a - 5` narrows `d`, `a` and `q.at`.
pub fn compared<N: Clone + PartialEq>(
    left: Side<N>,
    relation: Option<Relation>,
    right: Side<N>,
    definition: &dyn Fn(&N) -> Option<Arc<Side<N>>>,
) -> Condition<N> {
    let compare = |left: Side<N>, right: Side<N>| {
        let take_apart = cancelled(&left, &right);
        let as_written = Condition::Compare {
            left: Box::new(left),
            relation,
            right: Box::new(right),
        };
        // Both readings hold where the comparison does: the one as
        // written keeps what the sides' ranges say of each other (`m <
        // id(m)`, which no value meets, bounds `m` by `id(m)`'s range, as
        // the plan verifier, reading `id` inlined, finds too).
        match take_apart {
            Some((left, right)) => Condition::Both(
                Box::new(as_written),
                Box::new(Condition::Compare {
                    left: Box::new(left),
                    relation,
                    right: Box::new(right),
                }),
            ),
            None => as_written,
        }
    };
    let (mut l, mut r) = (left.expanded(definition), right.expanded(definition));
    // Most sides name no `let`-bound sum: one reading, nothing copied.
    if l.is_none() && r.is_none() {
        return compare(left, right);
    }
    let mut readings = compare(left.clone(), right.clone());
    let (mut left, mut right) = (left, right);
    for _ in 0..MAX_DEFINITIONS_READ {
        if l.is_none() && r.is_none() {
            break;
        }
        left = l.unwrap_or(left);
        right = r.unwrap_or(right);
        let through = compare(left.clone(), right.clone());
        readings = Condition::Both(Box::new(readings), Box::new(through));
        (l, r) = (left.expanded(definition), right.expanded(definition));
    }
    readings
}

/// `left` and `right` less the named values both add (or both subtract),
/// when they have any: `m + n <= 5 + n` compares `m` with `5`, as
/// subtracting one value from both sides keeps any relation between them
/// (the same name is the same binding, so the same value). A side left
/// with no name is its offset.
fn cancelled<N: Clone + PartialEq>(left: &Side<N>, right: &Side<N>) -> Option<(Side<N>, Side<N>)> {
    let twin = |t: &Term<N>, u: &Term<N>| t.name == u.name && t.negated == u.negated;
    if !left
        .terms
        .iter()
        .any(|t| right.terms.iter().any(|u| twin(t, u)))
    {
        return None;
    }
    let (mut left, mut right) = (left.clone(), right.clone());
    let mut i = 0;
    while i < left.terms.len() {
        match right.terms.iter().position(|u| twin(&left.terms[i], u)) {
            Some(j) => {
                left.terms.remove(i);
                right.terms.remove(j);
            }
            None => i += 1,
        }
    }
    for side in [&mut left, &mut right] {
        side.interval = side.rest(None, &[]);
    }
    Some((left, right))
}

/// `v`, or `-v` when `negated`.
pub(crate) fn signed(negated: bool, v: Interval) -> Interval {
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
    pub(crate) fn now(&self, narrowed: &[(N, Interval)]) -> Interval {
        match self.terms.as_slice() {
            [] => self.interval.clone(),
            [only] if self.offset == 0 => signed(only.negated, Side::term_now(only, narrowed)),
            _ => self.rest(None, narrowed),
        }
    }

    /// The offset plus the range now of every name but `skip`, each times
    /// its coefficient (a name met twice is `2·T`, and `n - n` adds
    /// nothing: one value, whatever its range).
    fn rest(&self, skip: Option<&N>, narrowed: &[(N, Interval)]) -> Interval {
        let mut sum = Interval::exact(self.offset);
        for (i, term) in self.terms.iter().enumerate() {
            let first = self.terms[..i].iter().all(|t| t.name != term.name);
            if !first || Some(&term.name) == skip {
                continue;
            }
            let coefficient = self.coefficient(&term.name);
            let range = Side::term_now(term, narrowed);
            sum = sum.plus(&range.times_coefficient(coefficient));
        }
        sum
    }

    /// How many times the side adds `name`, less how many it subtracts it.
    fn coefficient(&self, name: &N) -> i64 {
        self.terms
            .iter()
            .filter(|term| term.name == *name)
            .map(|term| if term.negated { -1 } else { 1 })
            .sum()
    }

    /// What the side lying in `proved` says of each term: `c·t = side -
    /// the rest`, `c` the term's coefficient (how many times the side adds
    /// the name, less how many it subtracts it: `n + n` is `2·n`), so `t`
    /// lies in `(proved - rest) / c`, and in what it was known to lie in.
    /// A name whose occurrences cancel (`n - n`) learns nothing.
    pub(crate) fn each_term(
        &self,
        proved: &Interval,
        narrowed: &[(N, Interval)],
    ) -> Vec<(N, Interval)> {
        let alone = self.terms.len() == 1 && self.offset == 0;
        self.terms
            .iter()
            .map(|term| {
                if alone {
                    return (term.name.clone(), signed(term.negated, proved.clone()));
                }
                let known = Side::term_now(term, narrowed);
                let coefficient = self.coefficient(&term.name);
                if coefficient == 0 {
                    return (term.name.clone(), known);
                }
                let unmoved = signed(
                    coefficient < 0,
                    proved.minus(&self.rest(Some(&term.name), narrowed)),
                );
                // `c·t` in `unmoved` with `|c| > 1`: `t` is the exact
                // quotient, within the truncated quotients' range.
                let scaled = match coefficient.unsigned_abs() {
                    1 => unmoved,
                    c => unmoved.divided_by(&Interval::exact(c as i64)),
                };
                // Within what the term was known to be too: both hold.
                (term.name.clone(), known.intersect(&scaled))
            })
            .collect()
    }
}
