//! What facts and sayings cross from one check of a lambda's body to another (spec/cost.md §3.1): a lambda made in another run of a body (another element of a `map`) captured that run's values under the identities this run's hold, so only values with one value here are narrowed by name, the others read at their ranges.

use crate::narrowing::{Condition, Fact};
use crate::sides::Side;
use std::sync::Arc;

/// The facts a lambda's body is checked under where it is applied: those
/// around the place it was made (`made`, which held when it was made, on
/// the bindings it captured, which never change, so they hold wherever it
/// is applied), then those around the application (`applied`) that are not
/// among them (the same condition, compared by identity, with the same
/// outcome), each with only the comparisons whose every named value `keep`
/// admits (the others made [`Condition::Opaque`]): a lambda made in another
/// check of a body than this one (another element of a `map`, another
/// application) may hold other values under the same bindings, so only
/// values with one binding per run (`keep`) are narrowed in it by the
/// facts of the application (spec/cost.md §3.1). `keep` is `None` for a
/// lambda applied in the check it was made in, whose bindings are the
/// application's. `None` when that is `applied` itself, so nothing is
/// copied.
pub fn facts_around<N: Clone>(
    made: &[Fact<N>],
    applied: &[Fact<N>],
    keep: Option<&dyn Fn(&N) -> bool>,
) -> Option<Vec<Fact<N>>> {
    let same = |a: &Fact<N>, b: &Fact<N>| Arc::ptr_eq(&a.0, &b.0) && a.1 == b.1;
    let prefix = made.len() <= applied.len() && made.iter().zip(applied).all(|(a, b)| same(a, b));
    if prefix && keep.is_none() {
        return None;
    }
    let mut around: Vec<Fact<N>> = made.to_vec();
    for fact in applied {
        if !made.iter().any(|m| same(m, fact)) {
            let kept = match keep {
                Some(keep) => (kept(&fact.0, keep), fact.1),
                None => fact.clone(),
            };
            around.push(kept);
        }
    }
    let unchanged =
        around.len() == applied.len() && around.iter().zip(applied).all(|(a, b)| same(a, b));
    (!unchanged).then_some(around)
}

/// What applying a lambda said of the values its body compared (a
/// condition's part, `if f(n)`), as the place it is applied may read it:
/// its comparisons of integers, not what it says of `Bool` names
/// ([`Condition::flag`]: the checker reads a name a `Bool` function was
/// given in the body, the verifier, which inlines the function, a name
/// the body's scope holds, gone where the body is read), whole where the
/// lambda was made in the check in progress here (`keep` `None`), and
/// otherwise with each side naming a value `keep` refuses (one without
/// one value here, `Frames::one_value`) read at its range alone, and each
/// `all` of such a list made [`Condition::Opaque`]. A lambda made in
/// another run of a body (another element of a `map`)
/// captured that run's values under the identities this run's hold, so
/// what it says of them is not of this run's (spec/cost.md §3.1).
pub fn said_where_applied<N: crate::Name>(
    says: Condition<N>,
    keep: Option<&dyn Fn(&N) -> bool>,
) -> Condition<N> {
    let says = Arc::unwrap_or_clone(kept_where(&Arc::new(says), (&|_| true, keep, false)));
    let Some(keep) = keep else {
        return says;
    };
    says.map_parts(
        &|left, relation, right| Condition::Compare {
            left: Box::new(at_range_unless(left, keep)),
            relation,
            right: Box::new(at_range_unless(right, keep)),
        },
        &|list, element, says| Condition::Elements {
            list: list.clone(),
            element: element.clone(),
            says: Box::new(element_said_apart(says, element, keep)),
        },
    )
}

/// What a predicate made in another check of a body than the one in
/// progress (a lambda of another element's run) says of its element
/// `element`, as `all` reads it here: each side naming a value `keep`
/// refuses, other than the element and its parts, read at its range where
/// it was compared alone. That run captured another value under the
/// identity this run's holds, which the facts here narrow, and `assume`
/// reads a predicate's other names at their ranges where it is read
/// (adversary round 44: `all(ys, g)` read `g`'s `k` of another element at
/// this element's `k <= 5`). An `all` inside it proves nothing.
pub fn element_said_apart<N: crate::Name>(
    says: &Condition<N>,
    element: &N,
    keep: &dyn Fn(&N) -> bool,
) -> Condition<N> {
    let own = |name: &N| keep(name) || name == element || name.in_each(element, element).is_some();
    says.map_parts(
        &|left, relation, right| Condition::Compare {
            left: Box::new(at_range_unless(left, &own)),
            relation,
            right: Box::new(at_range_unless(right, &own)),
        },
        &|_, _, _| Condition::Opaque,
    )
}

/// `side` as it is where `keep` admits each value it names, and otherwise
/// at its range where it was compared alone, which bounds its value in
/// every run, with no names (as the checker's made predicates read what
/// they captured). A value `keep` refuses that was one number where the
/// comparison was evaluated (a `let` of a literal inside an inlined
/// function's body, `fb(x.n, 0)`'s `m`) is that number in the sum, its
/// name gone: the comparison holds of this evaluation's values, and the
/// checker's template reads the literal itself (adversary round 62,
/// E0633).
fn at_range_unless<N: Clone>(side: &Side<N>, keep: &dyn Fn(&N) -> bool) -> Side<N> {
    let mut folded = Side {
        interval: side.interval.clone(),
        terms: Vec::with_capacity(side.terms.len()),
        offset: side.offset,
    };
    for term in &side.terms {
        if keep(&term.name) {
            folded.terms.push(term.clone());
            continue;
        }
        let number = term.interval.constant().and_then(|c| match term.negated {
            true => c.checked_neg(),
            false => Some(c),
        });
        match number.and_then(|c| folded.offset.checked_add(c)) {
            Some(offset) => folded.offset = offset,
            None => return Side::opaque(side.interval.clone()),
        }
    }
    folded
}

/// `condition` with each comparison that names a value `keep` refuses made
/// [`Condition::Opaque`]; the same `Arc` when it has none.
fn kept<N: Clone>(condition: &Arc<Condition<N>>, keep: &dyn Fn(&N) -> bool) -> Arc<Condition<N>> {
    let names = |c: &Condition<N>| match c {
        Condition::Compare { left, right, .. } => {
            left.terms.iter().chain(&right.terms).all(|t| keep(&t.name))
        }
        _ => true,
    };
    kept_where(condition, (&names, Some(keep), true))
}

/// What [`kept_where`] keeps: the comparisons the first admits, the `all`s
/// of a list the second admits (each, where it is `None`), and what a
/// `Bool` name says where the third is true.
type Keep<'k, N> = (
    &'k dyn Fn(&Condition<N>) -> bool,
    Option<&'k dyn Fn(&N) -> bool>,
    bool,
);

/// `condition` with each part `keep` refuses made [`Condition::Opaque`];
/// the same `Arc` when it has none.
fn kept_where<N: Clone>(condition: &Arc<Condition<N>>, keep: Keep<'_, N>) -> Arc<Condition<N>> {
    fn admits<N>(condition: &Condition<N>, keep: Keep<'_, N>) -> bool {
        match condition {
            Condition::Compare { .. } => (keep.0)(condition),
            Condition::Flag(inner) => keep.2 && admits(inner, keep),
            Condition::Not(inner) | Condition::MayBeNone(inner, _) => admits(inner, keep),
            Condition::Named(inner) => admits(inner, keep),
            Condition::And(a, b) | Condition::Or(a, b) | Condition::Both(a, b) => {
                admits(a, keep) && admits(b, keep)
            }
            // What it proves is of the list alone: its element is the
            // predicate's own parameter, a name no other place holds, and
            // the other names its body compares are read at their ranges
            // where it ran (numbers that still bound those values), never
            // narrowed by it (`assume`).
            Condition::Elements { list, .. } => keep.1.is_none_or(|keep| keep(list)),
            Condition::Constant(_) | Condition::Opaque => true,
        }
    }
    fn filtered<N: Clone>(condition: &Condition<N>, keep: Keep<'_, N>) -> Condition<N> {
        let both = |a: &Condition<N>, b: &Condition<N>| {
            (Box::new(filtered(a, keep)), Box::new(filtered(b, keep)))
        };
        match condition {
            Condition::Compare { .. } | Condition::Elements { .. } if !admits(condition, keep) => {
                Condition::Opaque
            }
            Condition::Elements { .. } | Condition::Compare { .. } => condition.clone(),
            Condition::Flag(_) if !keep.2 => Condition::Opaque,
            Condition::Flag(inner) => Condition::Flag(Box::new(filtered(inner, keep))),
            Condition::Not(inner) => Condition::Not(Box::new(filtered(inner, keep))),
            Condition::MayBeNone(inner, optional) => {
                Condition::MayBeNone(Box::new(filtered(inner, keep)), *optional)
            }
            Condition::Named(inner) => Condition::Named(kept_where(inner, keep)),
            Condition::And(a, b) => {
                let (a, b) = both(a, b);
                Condition::And(a, b)
            }
            Condition::Or(a, b) => {
                let (a, b) = both(a, b);
                Condition::Or(a, b)
            }
            Condition::Both(a, b) => {
                let (a, b) = both(a, b);
                Condition::Both(a, b)
            }
            Condition::Constant(value) => Condition::Constant(*value),
            Condition::Opaque => Condition::Opaque,
        }
    }
    if admits(condition, keep) {
        return Arc::clone(condition);
    }
    Arc::new(filtered(condition, keep))
}
