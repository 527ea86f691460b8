//! What a condition being true (or false) establishes, read through `!`, `&&`, `||`, `Bool` literals, `let`-bound conditions and both readings of one comparison: its comparisons with the relation that holds, its disjunctions whole, and its facts of each element of a list (spec/cost.md §3.1).
//!
//! [`crate::assume`] and [`crate::sum_within`] narrow with what these
//! walks find; [`crate::infeasible`] reads only the comparisons of values
//! that exist (not an `Int?`'s number, which a `none` makes vacuous).

use crate::narrowing::Condition;
use crate::sides::Side;
use crate::Relation;

/// The disjunctions `condition` being `holds` establishes (`a || b` true,
/// `a && b` false): each one's parts, and whether one of them is true or
/// false ([`each_established`]).
pub(crate) fn disjunctions<N>(
    condition: &Condition<N>,
    holds: bool,
) -> Vec<(&Condition<N>, &Condition<N>, bool)> {
    let mut found = Vec::new();
    each_established(condition, holds, &mut |part, holds| {
        if let Condition::Or(a, b) | Condition::And(a, b) = part {
            found.push((&**a, &**b, holds));
        }
    });
    found
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

/// [`established`] less the comparisons of `Int?`s' numbers
/// ([`Condition::MayBeNone`]), which hold vacuously of a `none`: what the
/// values compared must meet wherever `condition` is `holds`.
pub(crate) fn established_of_values<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    out: &mut Vec<(&'c Side<N>, Relation, &'c Side<N>)>,
) {
    each_established_within(condition, holds, false, &mut |part, holds| {
        compared_in(part, holds, out)
    });
}

/// The comparisons `condition` being `holds` establishes, in order, each
/// with the relation that holds between its sides.
pub(crate) fn established<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    out: &mut Vec<(&'c Side<N>, Relation, &'c Side<N>)>,
) {
    each_established(condition, holds, &mut |part, holds| {
        compared_in(part, holds, out)
    });
}

/// `part`, when it is a comparison, with the relation that holds between
/// its sides where it is `holds` (none where that proves nothing).
fn compared_in<'c, N>(
    part: &'c Condition<N>,
    holds: bool,
    out: &mut Vec<(&'c Side<N>, Relation, &'c Side<N>)>,
) {
    if let Condition::Compare {
        left,
        relation,
        right,
    } = part
    {
        if let Some(relation) = holding(*relation, holds) {
            out.push((left, relation, right));
        }
    }
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
    each_established_within(condition, holds, true, visit);
}

/// [`each_established`], into the comparisons of `Int?`s' numbers
/// ([`Condition::MayBeNone`]) where `options`, past them where not.
fn each_established_within<'c, N>(
    condition: &'c Condition<N>,
    holds: bool,
    options: bool,
    visit: &mut dyn FnMut(&'c Condition<N>, bool),
) {
    let mut each = |inner: &'c Condition<N>, holds: bool| {
        each_established_within(inner, holds, options, visit)
    };
    match (condition, holds) {
        (Condition::Not(inner), _) => each(inner, !holds),
        (Condition::Named(inner), _) => each(inner, holds),
        (Condition::MayBeNone(inner), _) if options => each(inner, holds),
        (Condition::MayBeNone(_), _) => {}
        (Condition::Both(a, b), _)
        | (Condition::And(a, b), true)
        | (Condition::Or(a, b), false) => {
            each(a, holds);
            each(b, holds);
        }
        // A disjunction one of whose parts is always the other outcome:
        // that part is not the one, so the other is (`n <= 10 || false`).
        // Both always the other outcome: the branch is never taken, and
        // proving nothing there is sound.
        (Condition::And(a, b), false) | (Condition::Or(a, b), true)
            if known(a) == Some(!holds) || known(b) == Some(!holds) =>
        {
            match (known(a) == Some(!holds), known(b) == Some(!holds)) {
                (true, false) => each(b, holds),
                (false, true) => each(a, holds),
                _ => {}
            }
        }
        (
            Condition::Compare { .. }
            | Condition::Elements { .. }
            | Condition::And(..)
            | Condition::Or(..),
            _,
        ) => visit(condition, holds),
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
        Condition::Compare { .. }
        | Condition::Elements { .. }
        | Condition::MayBeNone(_)
        | Condition::Opaque => None,
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
