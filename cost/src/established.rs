//! What a condition being true (or false) establishes, read through `!`, `&&`, `||`, `Bool` literals, `let`-bound conditions and both readings of one comparison: its comparisons with the relation that holds, its disjunctions whole, and its facts of each element of a list (spec/cost.md §3.1).
//!
//! [`crate::assume`] and [`crate::sum_within`] narrow with what these
//! walks find; an `Int?`'s comparison comes with the side that is the
//! option ([`Optional`]): only its number is narrowed, and neither a sum
//! nor [`crate::infeasible`] reads it (a `none` makes it vacuous), unless
//! the option stands at or above the other side, which no `none` does.

use crate::narrowing::{Condition, Optional};
use crate::sides::Side;
use crate::Relation;

/// The disjunctions `condition` being `holds` establishes (`a || b` true,
/// `a && b` false), each as the parts one of which is `holds` (each with
/// the outcome it then has): a chain of them read flat (`a || b || c`
/// is three parts, `!(a && b && c)` three negated ones). A part whose
/// literals decide it the other way is marked [`Part::ruled_out`]: it is
/// not the one (`n <= 10 || false`; [`each_established`] also gives the
/// other part alone), but what it says still holds where every part is
/// ruled out, a branch no run takes. So the reading is the same whether a
/// part is decided by its literals or says nothing of itself: `c && (true
/// || n > 10)` failed, read where `c` holds, proves `n <= 10` (its parts,
/// `!c` and `!true && n <= 10`, both ruled out) as `c && (id(d) || n >
/// 10)` does where `d` is unknown; the verifier reads an inlined call
/// with its literal arguments substituted, where the checker may read
/// the call as a name it knows nothing of (E0630 before, adversary
/// round 52). Flat, a chain of `n` parts is read once each, where reading
/// it two parts at a time read the literals of every prefix again
/// (quadratic: a nest of 64 `if`s each failing 64 comparisons took 3 s
/// in a release build).
pub(crate) fn disjunctions<N>(condition: &Condition<N>, holds: bool) -> Vec<Vec<Part<'_, N>>> {
    let mut found = Vec::new();
    each_established(condition, holds, &mut |part, holds| {
        if let Condition::Or(a, b) | Condition::And(a, b) = part {
            let mut parts = Vec::new();
            flat_parts(a, holds, &mut parts);
            flat_parts(b, holds, &mut parts);
            found.push(
                parts
                    .into_iter()
                    .map(|(condition, holds)| Part {
                        condition,
                        holds,
                        ruled_out: known(condition) == Some(!holds),
                    })
                    .collect(),
            );
        }
    });
    found
}

/// One part of a disjunction ([`disjunctions`]).
pub(crate) struct Part<'c, N> {
    pub condition: &'c Condition<N>,
    /// The outcome it has where it is the part that holds.
    pub holds: bool,
    /// Its literals decide it the other way: it is not the one.
    pub ruled_out: bool,
}

/// Adds to `parts` the parts of the disjunction `condition` is being
/// `holds` (itself, when it is none).
fn flat_parts<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    parts: &mut Vec<(&'c Condition<N>, bool)>,
) {
    match (condition, holds) {
        (Condition::Not(inner), _) => flat_parts(inner, !holds, parts),
        (Condition::Named(inner), _) => flat_parts(inner, holds, parts),
        (Condition::Or(a, b), true) | (Condition::And(a, b), false) => {
            flat_parts(a, holds, parts);
            flat_parts(b, holds, parts);
        }
        _ => parts.push((condition, holds)),
    }
}

/// The [`Condition::Elements`] that `condition` being `holds` establishes
/// (where each holds), as [`established`] finds comparisons.
pub(crate) fn all_elements<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    out: &mut Vec<(&'c N, &'c N, &'c Condition<N>)>,
) {
    each_established(condition, holds, &mut |part, holds| {
        if let (
            Condition::Elements {
                list,
                element,
                says,
            },
            true,
        ) = (part, holds)
        {
            out.push((list, element, says));
        }
    });
}

/// A comparison a condition establishes: its sides, the relation that
/// holds between them, and which side is an `Int?` (whose number alone
/// may be narrowed: [`Condition::MayBeNone`]), if one is.
pub(crate) type Established<'c, N> = (&'c Side<N>, Relation, &'c Side<N>, Option<Optional>);

/// The comparisons `condition` being `holds` establishes, in order, each
/// with the relation that holds between its sides.
pub(crate) fn established<'c, N: PartialEq>(
    condition: &'c Condition<N>,
    holds: bool,
    out: &mut Vec<Established<'c, N>>,
) {
    let start = out.len();
    // The options some comparison shows hold a number (they stood at or
    // above the other side), each a side of one named value.
    let mut numbers: Vec<&'c N> = Vec::new();
    each_established_within(condition, holds, None, &mut |part, holds, optional| {
        if let Condition::Compare {
            left,
            relation,
            right,
        } = part
        {
            if let Some(relation) = holding(*relation, holds) {
                let number = optional.filter(|side| holds_a_number(*side, relation));
                if let Some(name) =
                    number.and_then(|side| single_name(option_side(side, left, right)))
                {
                    numbers.push(name);
                }
                let optional = optional.filter(|_| number.is_none());
                out.push((left, relation, right, optional));
            }
        }
    });
    // Every comparison established here holds at once, so an option one
    // of them shows holds a number holds it in the others too (`o >= 0 &&
    // n <= o`: `n` at most `o`'s number).
    for (left, _, right, optional) in &mut out[start..] {
        let shown = optional
            .and_then(|side| single_name(option_side(side, left, right)))
            .is_some_and(|name| numbers.contains(&name));
        if shown {
            *optional = None;
        }
    }
}

/// The side of `left op right` that is the option.
fn option_side<'s, N>(side: Optional, left: &'s Side<N>, right: &'s Side<N>) -> &'s Side<N> {
    match side {
        Optional::Left => left,
        Optional::Right => right,
    }
}

/// The named value a side of one term holds (`o`, `o + 1`): where the
/// side holds a number, so does the value.
fn single_name<N>(side: &Side<N>) -> Option<&N> {
    match side.terms.as_slice() {
        [term] => Some(&term.name),
        _ => None,
    }
}

/// Whether an `Int?` on `side` of a comparison whose sides stand in
/// `relation` holds a number: `none` compares below every number, so an
/// option at or above the other side (`o >= n`, `n < o`, `o == n`) is
/// one, and the comparison is one of numbers, read as one (both sides
/// narrowed, sums related through it, [`crate::infeasible`] reading it).
fn holds_a_number(side: Optional, relation: Relation) -> bool {
    let seen_from_the_option = match side {
        Optional::Left => relation,
        Optional::Right => relation.flipped(),
    };
    matches!(
        seen_from_the_option,
        Relation::Above | Relation::AtLeast | Relation::Equal
    )
}

/// Gives `visit` each comparison and each [`Condition::Elements`] that
/// `condition` being `holds` establishes, in order, with whether it holds:
/// `&&` true and `||` false both, `!` swapped, a `let`-bound condition and
/// both readings of one comparison; and each disjunction it establishes,
/// `&&` false or `||` true, whole (either part may be the one: [`assume`]
/// joins what each proves).
fn each_established<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    visit: &mut dyn FnMut(&'c Condition<N>, bool),
) {
    each_established_within(condition, holds, None, &mut |part, holds, _| {
        visit(part, holds)
    });
}

/// [`each_established`], each part given with the side that is an `Int?`
/// where it is inside a [`Condition::MayBeNone`] (`optional`).
fn each_established_within<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    optional: Option<Optional>,
    visit: &mut dyn FnMut(&'c Condition<N>, bool, Option<Optional>),
) {
    let mut each = |inner: &'c Condition<N>, holds: bool, optional: Option<Optional>| {
        each_established_within(inner, holds, optional, visit)
    };
    match (condition, holds) {
        (Condition::Not(inner), _) => each(inner, !holds, optional),
        (Condition::Named(inner), _) => each(inner, holds, optional),
        (Condition::Flag(inner), _) => each(inner, holds, optional),
        (Condition::MayBeNone(inner, side), _) => each(inner, holds, Some(*side)),
        (Condition::Both(a, b), _)
        | (Condition::And(a, b), true)
        | (Condition::Or(a, b), false) => {
            each(a, holds, optional);
            each(b, holds, optional);
        }
        // A disjunction one of whose parts is always the other outcome:
        // that part is not the one, so the other is (`n <= 10 || false`).
        // Given whole too, with the part marked ruled out
        // ([`disjunctions`]): where the other cannot hold either, the
        // branch is never taken and what each part says holds there.
        (Condition::And(a, b), false) | (Condition::Or(a, b), true)
            if known(a) == Some(!holds) || known(b) == Some(!holds) =>
        {
            match (known(a) == Some(!holds), known(b) == Some(!holds)) {
                (true, false) => each(b, holds, optional),
                (false, true) => each(a, holds, optional),
                _ => {}
            }
            visit(condition, holds, optional);
        }
        (
            Condition::Compare { .. }
            | Condition::Elements { .. }
            | Condition::And(..)
            | Condition::Or(..),
            _,
        ) => visit(condition, holds, optional),
        _ => {}
    }
}

/// The outcome `condition` has wherever it is read, when its literals
/// decide it (`false`, `!true`, `x <= 3 && false`); `None` when it
/// depends on values.
pub(crate) fn known<N>(condition: &Condition<N>) -> Option<bool> {
    match condition {
        Condition::Constant(value) => Some(*value),
        Condition::Not(inner) => known(inner).map(|value| !value),
        Condition::Named(inner) => known(inner),
        Condition::Flag(inner) => known(inner),
        Condition::Both(a, b) => known(a).or_else(|| known(b)),
        Condition::And(a, b) => match (known(a), known(b)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Condition::Or(a, b) => match (known(a), known(b)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        // Two sides each of one number (`1 >= 1`: a `Bool` literal given
        // for a parameter a template tests, `Condition::flag`; a name a
        // `let` bound to a literal, whose range is that number).
        Condition::Compare {
            left,
            relation,
            right,
        } => {
            let (l, r) = (left.interval.constant()?, right.interval.constant()?);
            Some(match relation {
                None => l != r,
                Some(Relation::Below) => l < r,
                Some(Relation::AtMost) => l <= r,
                Some(Relation::Above) => l > r,
                Some(Relation::AtLeast) => l >= r,
                Some(Relation::Equal) => l == r,
            })
        }
        Condition::Elements { .. } | Condition::MayBeNone(..) | Condition::Opaque => None,
    }
}

/// The relation that holds between a comparison's sides where it was
/// `holds` (`relation` `None` for `!=`): `a < b` false is `a >= b`, `a !=
/// b` false is `a == b`; `None` where that proves nothing (`a == b`
/// false, `a != b` true).
pub(crate) fn holding(relation: Option<Relation>, holds: bool) -> Option<Relation> {
    match (relation, holds) {
        (Some(relation), true) => Some(relation),
        (Some(relation), false) => relation.negated(),
        (None, false) => Some(Relation::Equal),
        (None, true) => None,
    }
}
