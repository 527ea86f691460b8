//! What a condition proves of the integers it compares, in the branch where it held and in the one where it failed: the rule both the checker and the plan verifier narrow names with (spec/cost.md §3.1).
//!
//! A condition is read as a tree ([`Condition`]) of comparisons of two
//! `Int`s under `!`, `&&` and `||`, and of conditions a `let` named. Each
//! comparison keeps both sides' intervals as they were when it was
//! evaluated, and for a side that is a sum of named values and literals
//! (a name alone, `n - 5`, `n - k`: [`crate::Side`], `sides.rs`), what
//! identifies each value's binding (`N`: the checker's name and binding
//! identity, the verifier's parameter position or binding identity). [`assume`] lists, in order,
//! what the condition being true (or false) proves of each name: `&&`
//! proves both sides when true, `||` both negations when false, `!` swaps
//! them; a fact about a name narrows what an earlier fact in the same
//! condition proved of it. Knows nothing of expressions or plans: the
//! caller records the comparisons and rebinds the names.

use crate::condition_size::Reading;
use crate::established::{all_elements, disjunctions, established};
use crate::names::Name;
use crate::sides::Side;
use crate::{Interval, Relation};
use std::sync::Arc;

/// What a `Bool` expression says about the integers it compares.
#[derive(Clone, Debug, PartialEq)]
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
    /// `all(list, element => says)`: where it holds, every element of
    /// `list` is a value `element` for which `says` holds; where it fails,
    /// nothing (any one element may be the one). It proves nothing of any
    /// other name `says` compares: an empty list makes it hold whatever
    /// they are. (`any(list, e => p)` is `!all(list, e => !p)`.)
    Elements {
        /// The list, as the caller names values.
        list: N,
        /// The function's parameter, as its body's comparisons name it.
        element: N,
        /// What the body says.
        says: Box<Condition<N>>,
    },
    /// A comparison of an `Int?` (the side [`Optional`] names) with an
    /// `Int`: `none` compares below every number, so where it held (or
    /// failed) the option is either `none`, holding no number a fact could
    /// be false of, or a number in that relation to the other side. Only
    /// the option's number is narrowed, by the other side's range read
    /// where the fact is read; the other side never is (`o >= n` proves
    /// nothing of `n`), no sum is related through it, and it never shows a
    /// branch cannot run ([`crate::infeasible`]: a `none` makes `o < 5`
    /// hold whatever the number's range is). Where the option stands at
    /// or above the other side (`o >= n` true, `o < n` false, `o == n`
    /// true), it is no `none`, and the comparison is one of numbers.
    MayBeNone(Box<Condition<N>>, Optional),
    /// What a `Bool` name says where it is tested ([`Condition::flag`]):
    /// the comparison inside, read as it is; kept apart so that what
    /// applying a lambda says drops it ([`crate::said_where_applied`]).
    Flag(Box<Condition<N>>),
    /// A `Bool` literal: `true` or `false` wherever it is read. A part of
    /// a disjunction that is always the other outcome cannot be the one
    /// that holds, so the other part is established (`n <= 10 || false`
    /// true is `n <= 10` true: [`known`]).
    Constant(bool),
    /// Anything else: proves nothing.
    Opaque,
}

/// Which side of a comparison is an `Int?` ([`Condition::MayBeNone`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optional {
    /// The left side.
    Left,
    /// The right side.
    Right,
}

impl Optional {
    /// Which side of `left op right` is the `Int?`, each side given with
    /// whether it is one; `Ok(None)` for two `Int`s, `Err(())` for two
    /// `Int?`s, which relate nothing (either may be `none`, and neither's
    /// range then bounds the other's number).
    #[allow(clippy::result_unit_err)]
    pub fn of(left: bool, right: bool) -> Result<Option<Optional>, ()> {
        match (left, right) {
            (false, false) => Ok(None),
            (true, false) => Ok(Some(Optional::Left)),
            (false, true) => Ok(Some(Optional::Right)),
            (true, true) => Err(()),
        }
    }
}

/// The `Bool` names a reading of a condition may not take from the scope
/// it is read in: those a block it reads binds again (their bindings are
/// gone, and a name there is another), or every one (a lambda's body, read
/// where it was applied: its names are its own scope's).
#[derive(Clone, Debug, PartialEq)]
pub enum Hidden<'n> {
    /// These names.
    Names(Vec<&'n str>),
    /// Every name.
    Every,
    /// Every name but these: a predicate given by name (`filter(p)`),
    /// whose parameter is the element, its parts read by what the check
    /// of its application recorded of them (the checker's
    /// `condition_of_predicate`).
    EveryBut(Vec<&'n str>),
}

impl<'n> Hidden<'n> {
    /// No name hidden.
    pub fn none() -> Hidden<'n> {
        Hidden::Names(Vec::new())
    }

    /// Whether it hides every name it does not list: a lambda's body
    /// read where it was applied, whose names are its own scope's (the
    /// entry parameters and `Bool` names of the scope here prove nothing
    /// there).
    pub fn hides_unlisted(&self) -> bool {
        matches!(self, Hidden::Every | Hidden::EveryBut(_))
    }

    /// Whether `name` is hidden.
    pub fn hides(&self, name: &str) -> bool {
        match self {
            Hidden::Names(names) => names.contains(&name),
            Hidden::Every => true,
            Hidden::EveryBut(names) => !names.contains(&name),
        }
    }

    /// These and `name` too (a block's `let`).
    pub fn and(&self, name: &'n str) -> Hidden<'n> {
        match self {
            Hidden::Names(names) => {
                let mut names = names.clone();
                names.push(name);
                Hidden::Names(names)
            }
            Hidden::Every => Hidden::Every,
            Hidden::EveryBut(names) => {
                Hidden::EveryBut(names.iter().copied().filter(|n| *n != name).collect())
            }
        }
    }
}

/// What [`Condition::map_compares`] makes of one comparison: its left
/// side, relation and right side.
pub type CompareMap<'f, N, M> = dyn Fn(&Side<N>, Option<Relation>, &Side<N>) -> Condition<M> + 'f;

/// What [`Condition::map_parts`] makes of one [`Condition::Elements`]: its
/// list, element and what its body says.
pub type ElementsMap<'f, N, M> = dyn Fn(&N, &N, &Condition<N>) -> Condition<M> + 'f;

impl<N> Condition<N> {
    /// This comparison, read as one of an `Int?`'s number where one side
    /// is an `Int?` (`optional`: [`Condition::MayBeNone`]), as itself
    /// where both are `Int`s.
    pub fn with_option(self, optional: Option<Optional>) -> Condition<N> {
        match optional {
            Some(side) => Condition::MayBeNone(Box::new(self), side),
            None => self,
        }
    }

    /// What `all(list, element => says)` says (`all`), or `any(…)`, read as
    /// `!all(list, element => !says)`.
    pub fn elements(all: bool, list: N, element: N, says: Condition<N>) -> Condition<N> {
        let says = match all {
            true => says,
            false => Condition::Not(Box::new(says)),
        };
        let elements = Condition::Elements {
            list,
            element,
            says: Box::new(says),
        };
        match all {
            true => elements,
            false => Condition::Not(Box::new(elements)),
        }
    }

    /// The same tree of `!`, `&&`, `||` and readings with each comparison
    /// replaced by what `compare` makes of its sides and relation (a
    /// `let`-bound condition read through): a condition over other names.
    /// What an `all` says is not a comparison's: it proves nothing there.
    pub fn map_compares<M>(&self, compare: &CompareMap<'_, N, M>) -> Condition<M> {
        self.map_parts(compare, &|_, _, _| Condition::Opaque)
    }

    /// [`Condition::map_compares`], with each [`Condition::Elements`]
    /// replaced by what `elements` makes of its list, element and body.
    pub fn map_parts<M>(
        &self,
        compare: &CompareMap<'_, N, M>,
        elements: &ElementsMap<'_, N, M>,
    ) -> Condition<M> {
        let inner = |c: &Condition<N>| Box::new(c.map_parts(compare, elements));
        match self {
            Condition::Compare {
                left,
                relation,
                right,
            } => compare(left, *relation, right),
            Condition::Not(c) => Condition::Not(inner(c)),
            Condition::And(a, b) => Condition::And(inner(a), inner(b)),
            Condition::Or(a, b) => Condition::Or(inner(a), inner(b)),
            Condition::Both(a, b) => Condition::Both(inner(a), inner(b)),
            Condition::MayBeNone(c, optional) => match c.map_parts(compare, elements) {
                Condition::Opaque => Condition::Opaque,
                mapped => Condition::MayBeNone(Box::new(mapped), *optional),
            },
            Condition::Flag(c) => match c.map_parts(compare, elements) {
                Condition::Opaque => Condition::Opaque,
                mapped => Condition::Flag(Box::new(mapped)),
            },
            Condition::Named(c) => c.map_parts(compare, elements),
            Condition::Elements {
                list,
                element,
                says,
            } => elements(list, element, says),
            Condition::Constant(value) => Condition::Constant(*value),
            Condition::Opaque => Condition::Opaque,
        }
    }
}

/// A definition of named values, as [`crate::compared`] reads them: the
/// sum a name is bound to, if it is bound to one.
pub type Definitions<'f, N> = dyn Fn(&N) -> Option<Arc<Side<N>>> + 'f;

impl<N: Clone + PartialEq> Condition<N> {
    /// The same condition, read also through the named values its names
    /// are bound to (`definition`), where it is recorded: each comparison
    /// as [`crate::compared`] reads it and, for a side that is one named
    /// value, with each value it is an alias of in its place; each `all`
    /// of a list also of each list it is an alias of (`admit`ted: a list
    /// bound to a name). An alias is a sum of one value alone
    /// ([`alias_chain`], followed up to `depth` deep). All readings hold
    /// together ([`Condition::Both`]): each is the same value.
    pub fn through_aliases(
        &self,
        definition: &Definitions<'_, N>,
        admit: &dyn Fn(&N) -> bool,
        depth: usize,
    ) -> Condition<N> {
        let both = |a: Condition<N>, b: Condition<N>| Condition::Both(Box::new(a), Box::new(b));
        self.map_parts(
            &|left, relation, right| {
                let readings = crate::compared(left.clone(), relation, right.clone(), definition);
                // Each alias of a side's one named value in its place.
                let chain = |side: &Side<N>| match side.terms.as_slice() {
                    [term] => alias_chain(&term.name, definition, &|_| true, depth),
                    _ => Vec::new(),
                };
                let on_left = chain(left).into_iter().map(|target| (true, target));
                let on_right = chain(right).into_iter().map(|target| (false, target));
                on_left
                    .chain(on_right)
                    .fold(readings, |readings, (at_left, target)| {
                        let (mut left, mut right) = (left.clone(), right.clone());
                        let side = if at_left { &mut left } else { &mut right };
                        side.terms[0].name = target;
                        let reading = Condition::Compare {
                            left: Box::new(left),
                            relation,
                            right: Box::new(right),
                        };
                        both(readings, reading)
                    })
            },
            &|list, element, says| {
                let reading = |list: &N| Condition::Elements {
                    list: list.clone(),
                    element: element.clone(),
                    says: Box::new(says.clone()),
                };
                alias_chain(list, definition, admit, depth)
                    .iter()
                    .fold(reading(list), |readings, target| {
                        both(readings, reading(target))
                    })
            },
        )
    }
}

/// The named values `name` is an alias of, in turn (each bound to the
/// next as a sum of it alone, with no literal: the same value), each
/// `admit`ted, at most `depth` of them.
pub fn alias_chain<N: Clone + PartialEq>(
    name: &N,
    definition: &Definitions<'_, N>,
    admit: &dyn Fn(&N) -> bool,
    depth: usize,
) -> Vec<N> {
    let mut chain = Vec::new();
    let mut at = name.clone();
    while chain.len() < depth {
        let Some(side) = definition(&at) else {
            break;
        };
        match side.alias_of().filter(|name| admit(name)) {
            Some(name) => {
                at = name.clone();
                chain.push(at.clone());
            }
            None => break,
        }
    }
    chain
}

/// Adds to `narrowed`, in order, what `condition` being `holds` proves of
/// each name it compares: `(name, range)`, each range narrowed from the
/// name's latest one in `narrowed` (or its side's, for the first).
pub fn assume<N: Name>(condition: &Condition<N>, holds: bool, narrowed: &mut Vec<(N, Interval)>) {
    assume_counting(condition, holds, narrowed);
}

/// [`assume`], answering whether what it proved of a value (not of a
/// list's elements) leaves that value no value: then `condition` cannot
/// be `holds` there. What `all` proves of a list's elements never does:
/// an empty list makes `all` true whatever its elements' range is, so an
/// empty range of elements is no contradiction (adversary round 45: `all(big,
/// k => k <= 10) || n <= 10`, with `big`'s elements above 1000, read
/// `n <= 10`, and a run where `big` was empty read 11 rows under 10).
fn assume_counting<N: Name>(
    condition: &Condition<N>,
    holds: bool,
    narrowed: &mut Vec<(N, Interval)>,
) -> bool {
    let mut contradicts = false;
    let mut compared = Vec::new();
    established(condition, holds, &mut compared);
    for (left, relation, right, optional) in compared {
        // Each side's range now, and what the comparison proves of each
        // term of each: every term is read from the same ranges. Of an
        // `Int?`'s comparison, only the option's number.
        let (l, r) = (left.now(narrowed), right.now(narrowed));
        let mut proved = Vec::new();
        if optional != Some(Optional::Right) {
            proved = left.each_term(&l.assume(relation, &r), narrowed);
        }
        if optional != Some(Optional::Left) {
            proved.extend(right.each_term(&r.assume(relation.flipped(), &l), narrowed));
        }
        contradicts |= proved.iter().any(|(_, range)| range.is_empty());
        narrowed.extend(proved);
    }
    let mut lists = Vec::new();
    all_elements(condition, holds, &mut lists);
    for (list, element, says) in lists {
        // Read apart, from the ranges known now (appended, then taken off
        // again: nothing before them changes, and no copy is made): only
        // what it proves of the element leaves it, as a fact of the
        // list's elements.
        let from = narrowed.len();
        for _ in 0..comparisons(says).clamp(1, CONDITION_PASSES) {
            assume(says, true, narrowed);
        }
        let apart = narrowed.split_off(from);
        // The element's range is the list's elements'; a part's, that
        // part of each element's.
        let proved: Vec<(N, Interval)> = apart
            .iter()
            .filter_map(|(name, interval)| match name == element {
                true => Some((list.clone(), interval.clone())),
                false => Some((name.in_each(element, list)?, interval.clone())),
            })
            .collect();
        narrowed.extend(proved);
    }
    for parts in disjunctions(condition, holds) {
        // One of the parts is the one that holds (each with its outcome):
        // a name every part narrows lies in the join of what each proves
        // of it; a name one part leaves alone, in nothing proved.
        // Each part read apart, from the ranges known now: what it proves
        // is appended, then taken off again (nothing before it changes, so
        // no copy of what is known is made).
        let mut read: Vec<(Vec<(N, Interval)>, bool)> = Vec::with_capacity(parts.len());
        // All but one ruled out by literals: that one was read as
        // established already (`each_established`), so this disjunction
        // adds only what holds where that one cannot hold either.
        let decided = parts.iter().filter(|part| !part.ruled_out).count() == 1;
        for part in parts {
            let from = narrowed.len();
            let empty = assume_counting(part.condition, part.holds, narrowed) || part.ruled_out;
            read.push((narrowed.split_off(from), empty));
        }
        if decided && read.iter().any(|(_, empty)| !*empty) {
            continue;
        }
        // A part that leaves some value no value where the ranges known
        // now hold cannot be the one (`!(n > 10 && m > 10)` read where `n >
        // 10`: `m <= 10`), so one of the others holds.
        if read.iter().all(|(_, empty)| *empty) {
            // None can be the one: the condition cannot be `holds` here
            // (a branch that never runs), so all each proves holds, an
            // empty range among it: a disjunction this one is a part of
            // then reads this part as the one that is not (`(m > 10 && n >
            // 10) && (m > 10 && n > 10)` false, read where `m > 10`: its
            // second part's comparisons, read where the first held, leave
            // no value to either of its own parts, so the first part
            // failed, and `n <= 10`).
            for (facts, _) in read {
                narrowed.extend(facts);
            }
            contradicts = true;
            continue;
        }
        let mut possible = read.into_iter().filter(|(_, empty)| !*empty);
        let Some((first, _)) = possible.next() else {
            continue;
        };
        let others: Vec<Vec<(N, Interval)>> = possible.map(|(facts, _)| facts).collect();
        // One part only can hold: all it proves.
        if others.is_empty() {
            narrowed.extend(first);
            continue;
        }
        let last = |facts: &[(N, Interval)], name: &N| {
            facts
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, range)| range.clone())
        };
        let mut joined: Vec<(N, Interval)> = Vec::new();
        for (name, _) in &first {
            if joined.iter().any(|(n, _)| n == name) {
                continue;
            }
            let mut range = last(&first, name);
            for facts in &others {
                range = match (range, last(facts, name)) {
                    (Some(range), Some(other)) => Some(range.join(&other)),
                    _ => None,
                };
            }
            if let Some(range) = range {
                joined.push((name.clone(), range));
            }
        }
        narrowed.extend(joined);
    }
    contradicts
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
        Condition::Flag(inner) => comparisons(inner),
        Condition::MayBeNone(inner, _) => comparisons(inner),
        Condition::Both(a, b) => comparisons(a) + comparisons(b),
        Condition::And(a, b) | Condition::Or(a, b) => comparisons(a) + comparisons(b),
        Condition::Compare { .. } | Condition::Elements { .. } => 1,
        Condition::Constant(_) | Condition::Opaque => 0,
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
pub fn assume_within<N: Name>(
    enclosing: &[(Arc<Condition<N>>, bool)],
    condition: &Condition<N>,
    holds: bool,
    narrowed: &mut Vec<(N, Interval)>,
    read: Reading,
) {
    // A condition past the reading's size is read to its first parts
    // only (`first_parts`: sound, less is proved), so that the work stays
    // within a bound: reading one is quadratic in its size, and a
    // condition of hundreds of parts (`b8(n, m)` of a `Bool` function
    // calling another twice, inlined) took 13 s and more at each `&&`
    // (adversary round 45).
    let first = condition.first_parts(read.parts());
    let condition = first.as_ref();
    // A later comparison of one condition may tighten a name an earlier
    // one related another name to (`n <= m && m <= 10`: `n ≤ 10` once
    // `m ≤ 10`), so the condition is read again, once per comparison it
    // holds (a chain of them, in any order), up to `CONDITION_PASSES`.
    // A pass that tightens nothing would be followed by the same ones.
    let mut settled = false;
    for _ in 0..comparisons(condition).clamp(1, CONDITION_PASSES) {
        if !assume_new(condition, holds, narrowed) {
            settled = true;
            break;
        }
    }
    // The nearest ones, as many as `read`'s parts allow with the
    // condition's (one larger than the reading's size is skipped, and the
    // next one out read instead): each is read again at every narrowing inside its
    // branch (each `&&` of a condition there too), so a nest of `if`s each
    // testing 64 comparisons read 16 of them at each of 64 `&&`s, and
    // took 8 s at 16 levels and 55 s at 64 (adversary round 46). Only the
    // nearest `ENCLOSING_FACTS_READ` are measured: measuring every one at
    // each `&&` was quadratic in the depth of the nest.
    let nearest = &enclosing[enclosing.len().saturating_sub(ENCLOSING_FACTS_READ)..];
    let mut budget = read
        .parts()
        .saturating_sub(condition.parts_within(read.parts()).unwrap_or(0));
    let mut taken: Vec<&Fact<N>> = Vec::new();
    for fact in nearest.iter().rev() {
        let Some(parts) = fact.0.parts_within(read.parts()) else {
            continue;
        };
        if parts > budget {
            break;
        }
        budget -= parts;
        taken.push(fact);
    }
    taken.reverse();
    let nearest = taken;
    if nearest.is_empty() {
        return;
    }
    // Outermost first, then innermost first: a chain of names related
    // by nested `if`s (`if a <= b { if b <= c { if c <= 10 { … } } }`)
    // is read through in whichever order its links were nested.
    let mut tightened = false;
    for (fact, held) in nearest.iter().copied() {
        tightened |= assume_new(fact, *held, narrowed);
    }
    // Nothing the facts said tightened what the condition, read until it
    // tightened nothing, proved: each fact read again in the other order,
    // and the condition again, would read the same ranges and prove the
    // same (half the work of a nest of `if`s testing wide conditions).
    if settled && !tightened {
        return;
    }
    assume_new(condition, holds, narrowed);
    for (fact, held) in nearest.iter().rev().copied() {
        assume_new(fact, *held, narrowed);
    }
    assume_new(condition, holds, narrowed);
}

/// [`assume`], keeping of what it adds only the facts that are not a
/// name's latest range already (each is read from the latest, so one
/// equal to it says nothing more, and dropping it keeps what is known
/// short: every later reading of a name searches it); whether any was
/// kept. A nest of `if`s each testing 64 comparisons took 8 s at 16
/// levels (adversary round 46), reading again facts that added nothing.
fn assume_new<N: Name>(
    condition: &Condition<N>,
    holds: bool,
    narrowed: &mut Vec<(N, Interval)>,
) -> bool {
    let from = narrowed.len();
    assume(condition, holds, narrowed);
    let added = narrowed.split_off(from);
    let mut kept = false;
    for (name, range) in added {
        let latest = narrowed.iter().rev().find(|(n, _)| *n == name);
        if latest.is_some_and(|(_, known)| *known == range) {
            continue;
        }
        narrowed.push((name, range));
        kept = true;
    }
    kept
}

/// An enclosing `if`'s condition and whether it held there.
pub type Fact<N> = (Arc<Condition<N>>, bool);

#[cfg(test)]
#[path = "narrowing_tests.rs"]
mod tests;
