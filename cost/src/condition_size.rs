//! How large a condition is, and the most parts one kept for a `Bool` name or read for narrowing may hold, so that narrowing's work stays bounded (spec/cost.md §3.1).

use crate::narrowing::Condition;

/// At most this many parts (comparisons, `all`s, names' flags, and the
/// `!`, `&&`, `||` over them, a `let`-bound condition's read through) in
/// a condition a `let` keeps for a `Bool` name: a name bound to one that
/// reads another twice (`let d1 = d0 && d0; let d2 = d1 && d1; …`) doubles
/// it at each `let`, and each reading of it would cost that many steps.
/// A larger one is kept as saying nothing (sound: it proves less).
pub const MAX_KEPT_CONDITION: usize = 256;

impl<N> Condition<N> {
    /// Whether this condition has at most `budget` parts, read through
    /// the `let`-bound conditions it names; stops counting past it, so
    /// the answer costs at most `budget` steps.
    pub fn fits_within(&self, budget: usize) -> bool {
        self.parts_within(budget).is_some()
    }

    /// How many parts this condition has ([`Condition::fits_within`]),
    /// when at most `budget`; `None` past it, counted no further.
    pub fn parts_within(&self, budget: usize) -> Option<usize> {
        fn count<N>(c: &Condition<N>, left: &mut usize) -> bool {
            if *left == 0 {
                return false;
            }
            *left -= 1;
            match c {
                Condition::Not(inner) | Condition::MayBeNone(inner, _) => count(inner, left),
                Condition::Flag(inner) => count(inner, left),
                Condition::Named(inner) => count(inner, left),
                Condition::And(a, b) | Condition::Or(a, b) | Condition::Both(a, b) => {
                    count(a, left) && count(b, left)
                }
                Condition::Elements { says, .. } => count(says, left),
                Condition::Compare { .. } | Condition::Constant(_) | Condition::Opaque => true,
            }
        }
        let mut left = budget;
        count(self, &mut left).then_some(budget - left)
    }
}

impl<N: Clone> Condition<N> {
    /// This condition, its first `budget` parts kept in order (left to
    /// right; a part that fits what is left kept whole) and each part past
    /// them read as [`Condition::Opaque`], which proves nothing either
    /// way: what is left proves less, never more (sound). A conjunction
    /// with a part that says nothing proves its other part where it holds
    /// and nothing where it fails, and one more such part changes neither,
    /// so `(k && ?) && ?` is kept as `k && ?` (and a disjunction alike):
    /// what is kept holds about `budget` parts, and reading it costs no
    /// more. So `n <= 10 &&` eight tests of `Bool`s, each 17 parts, still
    /// proves `n <= 10`, where the whole condition past the reading's size
    /// proved nothing (adversary round 47). Itself when it fits.
    pub fn first_parts(&self, budget: usize) -> std::borrow::Cow<'_, Condition<N>> {
        fn kept<N: Clone>(c: &Condition<N>, left: &mut usize) -> Condition<N> {
            if let Some(parts) = c.parts_within(*left) {
                *left -= parts;
                return c.clone();
            }
            let opaque = |c: &Condition<N>| matches!(c, Condition::Opaque);
            // `x` with one more part that says nothing (`x && ?`, where
            // `and`): `x` itself when it is such a one already.
            let joined = |and: bool, a: Condition<N>, b: Condition<N>| {
                let same = |x: &Condition<N>| match (x, and) {
                    (Condition::And(p, q), true) | (Condition::Or(p, q), false) => {
                        opaque(p) || opaque(q)
                    }
                    _ => false,
                };
                match (a, b) {
                    (a, b) if opaque(&a) && opaque(&b) => Condition::Opaque,
                    (a, b) if opaque(&b) && same(&a) => a,
                    (a, b) if opaque(&a) && same(&b) => b,
                    (a, b) if and => Condition::And(Box::new(a), Box::new(b)),
                    (a, b) => Condition::Or(Box::new(a), Box::new(b)),
                }
            };
            match c {
                Condition::Not(inner) => match kept(inner, left) {
                    Condition::Opaque => Condition::Opaque,
                    inner => Condition::Not(Box::new(inner)),
                },
                Condition::Named(inner) => kept(inner, left),
                Condition::And(a, b) => {
                    let a = kept(a, left);
                    joined(true, a, kept(b, left))
                }
                Condition::Or(a, b) => {
                    let a = kept(a, left);
                    joined(false, a, kept(b, left))
                }
                // Two readings of one comparison: either alone is one.
                Condition::Both(a, b) => match (kept(a, left), kept(b, left)) {
                    (Condition::Opaque, other) | (other, Condition::Opaque) => other,
                    (a, b) => Condition::Both(Box::new(a), Box::new(b)),
                },
                // A comparison's wrappers and an `all`: whole or nothing.
                Condition::Flag(_)
                | Condition::MayBeNone(..)
                | Condition::Elements { .. }
                | Condition::Compare { .. }
                | Condition::Constant(_)
                | Condition::Opaque => Condition::Opaque,
            }
        }
        match self.fits_within(budget) {
            true => std::borrow::Cow::Borrowed(self),
            false => std::borrow::Cow::Owned(kept(self, &mut budget.clone())),
        }
    }
}

/// Who reads a condition ([`crate::assume_within`]), and so the largest one it
/// reads: the checker reads fewer parts than the plan verifier, whose
/// conditions hold the same comparisons and at least the checker's
/// readings through aliases (it reads every alias), so whatever the
/// checker reads, the verifier reads too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The checker: at most [`MAX_READ_CONDITION`] parts.
    Checker,
    /// The plan verifier: four times as many.
    Verifier,
}

/// The most parts (comparisons, `all`s, flags and the `!`, `&&`, `||`
/// over them, `let`-bound conditions read through) a condition the
/// checker narrows by may hold ([`Reading`]).
pub const MAX_READ_CONDITION: usize = 128;

impl Reading {
    pub(crate) fn parts(self) -> usize {
        match self {
            Reading::Checker => MAX_READ_CONDITION,
            Reading::Verifier => 4 * MAX_READ_CONDITION,
        }
    }

    /// The most parts a condition this reading builds of others may keep
    /// (`Condition::chosen`): [`MAX_KEPT_CONDITION`] for the checker, four
    /// times as many for the verifier, as for [`Reading::parts`].
    pub fn kept(self) -> usize {
        match self {
            Reading::Checker => MAX_KEPT_CONDITION,
            Reading::Verifier => 4 * MAX_KEPT_CONDITION,
        }
    }
}
