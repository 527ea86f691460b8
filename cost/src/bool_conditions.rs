//! What `Bool`s say in a condition: a name's flag, a `let`-bound name's condition, a test of two `Bool`s, and whether literals decide a condition (spec/cost.md §3.1).

use crate::narrowing::Condition;
use crate::sides::{Side, Term};
use crate::{Interval, Relation};
use std::sync::Arc;

impl<N> Condition<N> {
    /// The `Bool` an `if` chooses, `if c { a } else { b }`: `(c && a) ||
    /// (!c && b)`, and, the same where either holds
    /// ([`Condition::Both`]), `(!c || a) && (c || b)`, so that where it
    /// fails the second, negated, is read as the choice of `!a` or `!b`
    /// (`!(if admin { n > 10 } else { n > 5 })` proves `n <= 10`). Sound
    /// because its value is `a` exactly where `c` holds and `b` where it
    /// fails, and each branch was read where it ran (its comparisons with
    /// what `c`, or `!c`, narrowed). `c`, `a` and `b` are shared, not
    /// copied; a choice past the parts `read` keeps
    /// ([`crate::Reading::kept`]: nested ones double at each level) keeps
    /// its first reading alone, or says nothing, as a longer condition kept
    /// for a name does. The plan verifier keeps more than the checker: its
    /// readings of the same source are larger (a `Bool` function's body
    /// inlined, its parameters bound by `let`, where the checker reads a
    /// template), and must not be cut where the checker's were not (E0633).
    pub fn chosen(
        c: Condition<N>,
        a: Condition<N>,
        b: Condition<N>,
        read: crate::Reading,
    ) -> Condition<N> {
        if [&c, &a, &b]
            .iter()
            .all(|part| matches!(part, Condition::Opaque))
        {
            return Condition::Opaque;
        }
        let (c, a, b) = (Arc::new(c), Arc::new(a), Arc::new(b));
        let named = |part: &Arc<Condition<N>>| Box::new(Condition::Named(Arc::clone(part)));
        let not = |part: Box<Condition<N>>| Box::new(Condition::Not(part));
        let either = Condition::Or(
            Box::new(Condition::And(named(&c), named(&a))),
            Box::new(Condition::And(not(named(&c)), named(&b))),
        );
        let both = Condition::And(
            Box::new(Condition::Or(not(named(&c)), named(&a))),
            Box::new(Condition::Or(named(&c), named(&b))),
        );
        let budget = read.kept();
        let whole = Condition::Both(Box::new(either), Box::new(both));
        if whole.fits_within(budget) {
            return whole;
        }
        let Condition::Both(either, _) = whole else {
            unreachable!("built as both readings just above")
        };
        match either.fits_within(budget) {
            true => *either,
            false => Condition::Opaque,
        }
    }

    /// What a `Bool` value read by name (`name`: a parameter, a binding,
    /// or a field of one) says where it is tested: that it is true, read as the
    /// comparison `name >= 1` of an integer that is 1 for `true` and 0 for
    /// `false`. So a branch where `c` held knows `c` is 1, and a part of a
    /// disjunction that needs `c` false there (`!c`, of the failed
    /// `c && n > 10`) leaves it no value and cannot be the one that
    /// holds: `if c && n > 10 { … } else if c { n }` reads `n <= 10`
    /// ([`crate::assume`]). The 0/1 stands only for the name in conditions: a
    /// caller binds again only an `Int`'s facts, never a `Bool`'s.
    pub fn flag(name: N) -> Condition<N> {
        let bit = Interval::new(
            crate::Poly::constant(1),
            crate::Poly::zero(),
            Some(0),
            Some(1),
        );
        let side = Side {
            interval: bit.clone(),
            terms: vec![Term {
                name,
                negated: false,
                interval: bit,
            }],
            offset: 0,
        };
        Condition::Flag(Box::new(Condition::Compare {
            left: Box::new(side),
            relation: Some(Relation::AtLeast),
            right: Box::new(Side::exact(1)),
        }))
    }

    /// What a `Bool` name says where it is tested: its `flag` (read
    /// through its aliases) and, where a `let` bound it to a condition,
    /// what that condition says (`said`): both hold exactly where it does.
    /// The checker's and the verifier's readings of a name.
    pub fn of_bool_name(flag: Condition<N>, said: Option<&Arc<Condition<N>>>) -> Condition<N> {
        match said {
            Some(said) => {
                Condition::Both(Box::new(Condition::Named(Arc::clone(said))), Box::new(flag))
            }
            None => flag,
        }
    }

    /// The outcome this condition has wherever it is read, when its
    /// literals decide it (`true`, `!false`, `1 >= 1`); `None` when it
    /// depends on values.
    pub fn decided(&self) -> Option<bool> {
        crate::established::known(self)
    }

    /// What `a == b` (`equal`) or `a != b` of two `Bool`s says, `a` and `b`
    /// being what each says: `(a && b) || (!a && !b)`, or `(a && !b) ||
    /// (!a && b)`. Each reading is sound where its value is true and
    /// where it is false, so the two parts are the only ways the test can
    /// come out: `c == d && c` proves `d` (spec/cost.md §3.1). Each of
    /// `a` and `b` appears twice, shared; a result past
    /// [`crate::MAX_KEPT_CONDITION`] parts says nothing, so a nest of
    /// equalities (`((a == b) == c) == …`, each doubling) stays within a
    /// bound. The checker's and the verifier's reading of a `Bool`
    /// equality that no comparison of integers recorded.
    pub fn equal_outcomes(a: Condition<N>, b: Condition<N>, equal: bool) -> Condition<N> {
        if matches!(a, Condition::Opaque) || matches!(b, Condition::Opaque) {
            return Condition::Opaque;
        }
        let (a, b) = (Arc::new(a), Arc::new(b));
        let is = |c: &Arc<Condition<N>>, holds: bool| {
            let named = Condition::Named(Arc::clone(c));
            match holds {
                true => Box::new(named),
                false => Box::new(Condition::Not(Box::new(named))),
            }
        };
        let said = Condition::Or(
            Box::new(Condition::And(is(&a, true), is(&b, equal))),
            Box::new(Condition::And(is(&a, false), is(&b, !equal))),
        );
        match said.fits_within(crate::MAX_KEPT_CONDITION) {
            true => said,
            false => Condition::Opaque,
        }
    }
}
