//! Tests of what a disjunction proves (`a || b` true, `a && b` false): the join of what each part proves, and a part that leaves a value no value (a literal's other outcome, a `Bool` name's other value, both of its own parts) ruled out.

use super::*;
use crate::established::known;

#[test]
fn a_literal_part_of_a_disjunction_leaves_the_other() {
    let below_ten = || Box::new(compare("n", Some(Relation::AtMost), 10));
    let literal = |value| Box::new(Condition::Constant(value));
    // `n <= 10 || false` true, either way round: `n <= 10`.
    for or in [
        Condition::Or(below_ten(), literal(false)),
        Condition::Or(literal(false), below_ten()),
    ] {
        assert_eq!(ends(&proved(&or, true)), [(None, Some(10))]);
    }
    // `!(n <= 10 && true)`: `n > 10`.
    let and = Condition::And(below_ten(), literal(true));
    assert_eq!(ends(&proved(&and, false)), [(Some(11), None)]);
    // `n <= 10 || true` true proves nothing, nor does a branch no run
    // takes (`false || false`).
    let or = Condition::Or(below_ten(), literal(true));
    assert!(ends(&proved(&or, true)).iter().all(|e| *e == (None, None)));
    let never = Condition::Or(literal(false), literal(false));
    assert!(proved(&never, true).is_empty());
    // `!false` decides a disjunction as `true` does.
    let negated = Condition::Or(below_ten(), Box::new(Condition::Not(literal(true))));
    assert_eq!(ends(&proved(&negated, true)), [(None, Some(10))]);
    // A branch no run takes keeps what its parts say, a part a literal
    // rules out too: `c && (true || n > 10)` failed where `c` holds leaves
    // `!c` (ruled out by `c`) and `!true && n <= 10` (ruled out by its
    // literal), and reads `n <= 10`, as it does with a part that is not
    // decided in the literal's place (a call the reading knows nothing of).
    let flag = || Box::new(Condition::flag("n_c"));
    for decided in [literal(true), Box::new(Condition::Opaque)] {
        let above_ten = Box::new(compare("n", Some(Relation::Above), 10));
        let failed = Condition::Not(Box::new(Condition::And(
            flag(),
            Box::new(Condition::Or(decided, above_ten)),
        )));
        let where_c = Condition::And(flag(), Box::new(failed));
        assert_eq!(last(&proved(&where_c, true), "n"), (None, Some(10)));
    }
    // Where another part may hold, a part ruled out says nothing.
    let other = Condition::Or(
        Box::new(Condition::And(literal(false), below_ten())),
        Box::new(compare("n", Some(Relation::Above), 20)),
    );
    assert_eq!(ends(&proved(&other, true)), [(Some(21), None)]);
}

#[test]
fn either_part_proves_the_join_of_what_each_proves() {
    let or = |a: Condition<&'static str>, b: Condition<&'static str>| {
        Condition::Or(Box::new(a), Box::new(b))
    };
    // `n <= 10 || n <= 20`: at most 20.
    let loose = or(
        compare("n", Some(Relation::AtMost), 10),
        compare("n", Some(Relation::AtMost), 20),
    );
    assert_eq!(last(&proved(&loose, true), "n"), (None, Some(20)));
    // `n == 1 || n == 2`: from 1 to 2.
    let two = or(
        compare("n", Some(Relation::Equal), 1),
        compare("n", Some(Relation::Equal), 2),
    );
    assert_eq!(last(&proved(&two, true), "n"), (Some(1), Some(2)));
    // `!(n > 10 && n > 20)`: one of them fails, so at most 20.
    let and = Condition::And(
        Box::new(compare("n", Some(Relation::Above), 10)),
        Box::new(compare("n", Some(Relation::Above), 20)),
    );
    assert_eq!(last(&proved(&and, false), "n"), (None, Some(20)));
    // A name only one part narrows: nothing proved of it.
    let one = or(
        compare("n", Some(Relation::AtMost), 10),
        compare("m", Some(Relation::AtMost), 20),
    );
    assert!(proved(&one, true).is_empty());
    // False, `n <= 10 || n <= 20` proves both negations, as before.
    assert_eq!(last(&proved(&loose, false), "n"), (Some(21), None));
}

#[test]
fn a_bool_name_rules_out_the_part_that_needs_its_other_value() {
    // `if c && n > 10 { … } else if c { … }`: `n <= 10` in the second
    // branch; under `!c` instead, nothing of `n`.
    let failed = Arc::new(Condition::And(
        Box::new(Condition::flag("c")),
        Box::new(compare("n", Some(Relation::Above), 10)),
    ));
    let mut narrowed = Vec::new();
    assume_within(
        &[(failed.clone(), false)],
        &Condition::flag("c"),
        true,
        &mut narrowed,
        Reading::Checker,
    );
    assert_eq!(last(&narrowed, "n"), (None, Some(10)));
    assert_eq!(last(&narrowed, "c"), (Some(1), Some(1)));
    let mut narrowed = Vec::new();
    assume_within(
        &[(failed, false)],
        &Condition::flag("c"),
        false,
        &mut narrowed,
        Reading::Checker,
    );
    assert_eq!(last(&narrowed, "n"), (None, None));
    assert_eq!(last(&narrowed, "c"), (Some(0), Some(0)));
}

#[test]
fn a_failed_conjunction_of_two_equal_parts_is_read_through_either() {
    // `if (m > 10 && n > 10) && (m > 10 && n > 10) { … } else if m > 10 { … }`:
    // `n <= 10` in the second branch, as with one part.
    let part = || {
        Box::new(Condition::And(
            Box::new(compare("m", Some(Relation::Above), 10)),
            Box::new(compare("n", Some(Relation::Above), 10)),
        ))
    };
    // `n`'s range where `m > 10`, inside the else branch of `failed`.
    let n_where_m_is_above_10 = |failed: Arc<Condition<&'static str>>| {
        let mut narrowed = Vec::new();
        let inner = compare("m", Some(Relation::Above), 10);
        assume_within(
            &[(failed, false)],
            &inner,
            true,
            &mut narrowed,
            Reading::Checker,
        );
        last(&narrowed, "n")
    };
    let failed = Arc::new(Condition::And(part(), part()));
    assert_eq!(n_where_m_is_above_10(failed), (None, Some(10)));
    // The second part's comparisons read where the first held (`&&`
    // evaluates it there): its sides' ranges are above 10.
    let above = || {
        Interval::new(
            crate::Poly::unbounded("x"),
            crate::Poly::zero(),
            Some(11),
            None,
        )
    };
    let narrowed_side = |name| sum(&[(name, false, above())], 0);
    let second = Box::new(Condition::And(
        Box::new(compared(narrowed_side("m"), Relation::Above, 10)),
        Box::new(compared(narrowed_side("n"), Relation::Above, 10)),
    ));
    let failed = Arc::new(Condition::And(part(), second));
    assert_eq!(n_where_m_is_above_10(failed), (None, Some(10)));
}

#[test]
fn a_test_of_two_bools_says_their_outcomes() {
    let below_ten = || compare("n", Some(Relation::AtMost), 10);
    let flag = || Condition::flag("c");
    // `c == (n <= 10)` with `c`: `n <= 10`; with `!c`: `n > 10`.
    for (equal, c, n) in [
        (true, true, (None, Some(10))),
        (true, false, (Some(11), None)),
        (false, true, (Some(11), None)),
        (false, false, (None, Some(10))),
    ] {
        let test = Condition::equal_outcomes(flag(), below_ten(), equal);
        let c_is = match c {
            true => flag(),
            false => Condition::Not(Box::new(flag())),
        };
        let both = Condition::And(Box::new(c_is), Box::new(test));
        assert_eq!(last(&proved(&both, true), "n"), n, "{equal} {c}");
    }
    // The test alone proves nothing of `n`: `c` may be either.
    let alone = Condition::equal_outcomes(flag(), below_ten(), true);
    assert_eq!(last(&proved(&alone, true), "n"), (None, None));
    // A side that says nothing leaves the test nothing to say.
    let opaque = Condition::equal_outcomes(flag(), Condition::Opaque, true);
    assert_eq!(opaque, Condition::Opaque);
    // Each test doubles its sides: past `MAX_KEPT_CONDITION` parts, nothing.
    let mut nested = below_ten();
    let mut opaque_at = None;
    for depth in 1..=12 {
        nested = Condition::equal_outcomes(nested, flag(), true);
        if nested == Condition::Opaque {
            opaque_at = Some(depth);
            break;
        }
    }
    assert!(
        matches!(opaque_at, Some(depth) if depth > 2),
        "{opaque_at:?}"
    );
}

#[test]
fn a_comparison_of_two_numbers_is_decided() {
    let number = |value| Box::new(Side::exact(value));
    let test = |l, relation, r| Condition::Compare {
        left: number(l),
        relation,
        right: number(r),
    };
    assert_eq!(known(&test(1, Some(Relation::AtLeast), 1)), Some(true));
    assert_eq!(known(&test(0, Some(Relation::AtLeast), 1)), Some(false));
    assert_eq!(known(&test(0, None, 1)), Some(true));
    assert_eq!(known(&test(2, Some(Relation::Below), 2)), Some(false));
    // A side with a range, not one number, decides nothing.
    let ranged = Condition::Compare {
        left: Box::new(Side::opaque(from_zero_to(1))),
        relation: Some(Relation::AtLeast),
        right: number(1),
    };
    assert_eq!(known(&ranged), None);
    // `c && n > 10` with `c` given `true` (`big(true, n)`), false: `n <= 10`.
    let c_true = Condition::Flag(Box::new(test(1, Some(Relation::AtLeast), 1)));
    let big = Condition::And(
        Box::new(c_true),
        Box::new(compare("n", Some(Relation::Above), 10)),
    );
    assert_eq!(last(&proved(&big, false), "n"), (None, Some(10)));
}

#[test]
fn a_chain_of_parts_is_read_flat() {
    let at_most = |name, most| Box::new(compare(name, Some(Relation::AtMost), most));
    let or = |a, b| Box::new(Condition::Or(a, b));
    // `n <= 10 || n <= 30 || n <= 20`, either way nested: at most 30.
    let left = or(or(at_most("n", 10), at_most("n", 30)), at_most("n", 20));
    let right = or(at_most("n", 10), or(at_most("n", 30), at_most("n", 20)));
    for chain in [&left, &right] {
        assert_eq!(last(&proved(chain, true), "n"), (None, Some(30)));
    }
    // A name one part leaves alone is proved nothing of.
    let m_alone = or(or(at_most("n", 10), at_most("m", 5)), at_most("n", 20));
    assert_eq!(last(&proved(&m_alone, true), "n"), (None, None));
    // `!(n > 10 && c && m > 3)` where `c` holds: `n <= 10 || m <= 3`, the
    // part `!c` ruled out wherever it stands in the chain.
    let above = |name, least| Box::new(compare(name, Some(Relation::Above), least));
    let flag = || Box::new(Condition::flag("n_c"));
    for conjunction in [
        Condition::And(
            Box::new(Condition::And(above("n", 10), flag())),
            above("n", 3),
        ),
        Condition::And(
            flag(),
            Box::new(Condition::And(above("n", 10), above("n", 3))),
        ),
    ] {
        let c_and = Condition::And(flag(), Box::new(Condition::Not(Box::new(conjunction))));
        assert_eq!(last(&proved(&c_and, true), "n"), (None, Some(10)));
    }
    // A part decided the other way, inside the chain, is not the one.
    let literal = Box::new(Condition::Constant(false));
    let with_false = or(or(at_most("n", 10), literal), at_most("n", 20));
    assert_eq!(last(&proved(&with_false, true), "n"), (None, Some(20)));
}

#[test]
fn a_condition_past_the_reading_is_read_to_its_first_parts() {
    let at_most = |name, most| Box::new(compare(name, Some(Relation::AtMost), most));
    // `n <= 10 && m <= 0 && m <= 1 && …` (left to right), 40 comparisons.
    let mut chain = *at_most("n", 10);
    for k in 0..39 {
        chain = Condition::And(Box::new(chain), at_most("m", k));
    }
    assert_eq!(chain.parts_within(1000), Some(79));
    // Within 79 parts, itself; within 20, its first parts: `n <= 10`
    // kept, `m`'s last comparisons read as saying nothing.
    assert!(matches!(
        chain.first_parts(79),
        std::borrow::Cow::Borrowed(_)
    ));
    let first = chain.first_parts(20);
    assert!(first.parts_within(20 + 40).is_some());
    assert_eq!(last(&proved(&first, true), "n"), (None, Some(10)));
    // What it proves of `m` is within what the whole proves (less, never more).
    let (whole, part) = (
        last(&proved(&chain, true), "m"),
        last(&proved(&first, true), "m"),
    );
    assert_eq!(whole, (None, Some(0)));
    assert!(part.1.is_none_or(|most| most >= 0), "{part:?}");
    // Read as false, the kept part's failure is one way it can fail, the
    // dropped parts the others: nothing is proved of `n`.
    assert_eq!(last(&proved(&first, false), "n"), (None, None));
    // The bound last, past the first parts: not proved.
    // (`n <= 10 && … && m <= 8` is 19 parts: none is left for it.)
    let late = Condition::And(Box::new(chain.clone()), at_most("n", 5));
    assert_eq!(
        last(&proved(&late.first_parts(19), true), "n"),
        (None, Some(10))
    );
    // A chain far past the reading keeps about the reading's parts.
    let mut long = *at_most("n", 10);
    for k in 0..300 {
        long = Condition::And(Box::new(long), at_most("m", k));
    }
    let first = long.first_parts(20);
    assert!(first.parts_within(30).is_some());
    assert_eq!(last(&proved(&first, true), "n"), (None, Some(10)));
}

#[test]
fn a_bool_an_if_chooses_is_read_either_way() {
    // `if c { n <= 100 } else { n <= 10 }`: at most 100 where it holds,
    // and where it fails, above 10 (`!c`'s `n > 10`, `c`'s `n > 100`).
    let choice = || {
        Condition::chosen(
            Condition::flag("c"),
            compare("n", Some(Relation::AtMost), 100),
            compare("n", Some(Relation::AtMost), 10),
            crate::Reading::Checker,
        )
    };
    assert_eq!(last(&proved(&choice(), true), "n"), (None, Some(100)));
    assert_eq!(last(&proved(&choice(), false), "n"), (Some(11), None));
    // `!(if c { n > 10 } else { n > 5 })`: at most 10, read through the
    // second reading's negation (each branch's own negation).
    let negated = Condition::Not(Box::new(Condition::chosen(
        Condition::flag("c"),
        compare("n", Some(Relation::Above), 10),
        compare("n", Some(Relation::Above), 5),
        crate::Reading::Checker,
    )));
    assert_eq!(last(&proved(&negated, true), "n"), (None, Some(10)));
    // One branch that says nothing leaves the value unbounded.
    let open = Condition::chosen(
        Condition::flag("c"),
        compare("n", Some(Relation::AtMost), 100),
        Condition::Opaque,
        crate::Reading::Checker,
    );
    assert_eq!(last(&proved(&open, true), "n"), (None, None));
    // Nothing to read: nothing kept.
    let nothing = Condition::<&str>::chosen(
        Condition::Opaque,
        Condition::Opaque,
        Condition::Opaque,
        crate::Reading::Checker,
    );
    assert!(matches!(nothing, Condition::Opaque));
}

#[test]
fn nested_choices_stay_within_the_kept_size() {
    // Each choice in another's condition doubles it: past the kept size,
    // the first reading alone, then nothing, never an unbounded tree.
    for (read, kept) in [
        (crate::Reading::Checker, crate::MAX_KEPT_CONDITION),
        (crate::Reading::Verifier, 4 * crate::MAX_KEPT_CONDITION),
    ] {
        let mut choice = compare("n", Some(Relation::AtMost), 10);
        for _ in 0..40 {
            choice = Condition::chosen(
                choice,
                compare("n", Some(Relation::AtMost), 20),
                compare("n", Some(Relation::AtMost), 30),
                read,
            );
            assert!(choice.fits_within(kept));
        }
    }
}
