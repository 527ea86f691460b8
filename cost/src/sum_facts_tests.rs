//! Tests of what enclosing comparisons prove of a sum computed again in their branches.

use super::*;
use crate::sides::SideSum;

type Fact = (Arc<Condition<&'static str>>, bool);

/// The side `±a ± b … + offset`, each name of any value but those given.
fn side(terms: &[(&'static str, bool)], offset: i64) -> Side<&'static str> {
    let mut sum = SideSum::default();
    sum.literal(offset, false);
    let mut interval = Interval::exact(offset);
    for (name, negated) in terms {
        let range = match *name {
            "k" => Interval::new(
                crate::Poly::constant(10),
                crate::Poly::zero(),
                Some(0),
                Some(10),
            ),
            _ => Interval::unbounded(name),
        };
        sum.named(*name, *negated, range.clone());
        interval = interval.plus(&signed(*negated, range));
    }
    sum.side(interval)
}

/// The fact `left relation right`, held (`holds`) or failed.
fn fact(
    left: Side<&'static str>,
    relation: Option<Relation>,
    right: Side<&'static str>,
    holds: bool,
) -> Fact {
    let compare = Condition::Compare {
        left: Box::new(left),
        relation,
        right: Box::new(right),
    };
    (Arc::new(compare), holds)
}

/// The ends of `Σ ±names + offset` (each unbounded) under `facts`.
fn ends(facts: &[Fact], names: &[(&'static str, bool)], offset: i64) -> (Option<i64>, Option<i64>) {
    let interval = side(names, offset).interval;
    let narrowed = sum_within(facts, names, offset, &interval, &|_| None);
    (narrowed.least, narrowed.most)
}

const N_MINUS_M: &[(&str, bool)] = &[("n", false), ("m", true)];

/// The fact `n - m relation k`, held (`holds`) or failed.
fn difference(relation: Option<Relation>, k: i64, holds: bool) -> Fact {
    fact(side(N_MINUS_M, 0), relation, side(&[], k), holds)
}

#[test]
fn a_compared_difference_bounds_the_same_difference() {
    let at_most_5 = difference(Some(Relation::AtMost), 5, true);
    assert_eq!(
        ends(std::slice::from_ref(&at_most_5), N_MINUS_M, 0),
        (None, Some(5))
    );
    // Moved by a literal, and negated: `m - n ≥ -5`.
    assert_eq!(
        ends(std::slice::from_ref(&at_most_5), N_MINUS_M, 3),
        (None, Some(8))
    );
    let m_minus_n = [("m", false), ("n", true)];
    assert_eq!(ends(&[at_most_5], &m_minus_n, 0), (Some(-5), None));
}

#[test]
fn terms_on_either_side_are_moved_across() {
    // `n <= m + 5` is `n - m <= 5`.
    let moved = fact(
        side(&[("n", false)], 0),
        Some(Relation::AtMost),
        side(&[("m", false)], 5),
        true,
    );
    assert_eq!(ends(&[moved], N_MINUS_M, 0), (None, Some(5)));
    // `n - m - k <= 0` with `k` in [0, 10]: `n - m <= k <= 10`.
    let with_k = fact(
        side(&[("n", false), ("m", true), ("k", true)], 0),
        Some(Relation::AtMost),
        side(&[], 0),
        true,
    );
    assert_eq!(ends(&[with_k], N_MINUS_M, 0), (None, Some(10)));
}

#[test]
fn a_failed_comparison_proves_its_negation() {
    let above_5 = difference(Some(Relation::Above), 5, false);
    assert_eq!(ends(&[above_5], N_MINUS_M, 0), (None, Some(5)));
    let strictly = difference(Some(Relation::Below), 5, true);
    assert_eq!(ends(&[strictly], N_MINUS_M, 0), (None, Some(4)));
    // `a != b` false is `a == b`; `a == b` false proves nothing.
    let differs = difference(None, 5, false);
    assert_eq!(ends(&[differs], N_MINUS_M, 0), (Some(5), Some(5)));
    let equal = difference(Some(Relation::Equal), 5, false);
    assert_eq!(ends(&[equal], N_MINUS_M, 0), (None, None));
}

#[test]
fn another_sum_is_not_narrowed() {
    let at_most_5 = difference(Some(Relation::AtMost), 5, true);
    let facts = [at_most_5];
    assert_eq!(ends(&facts, &[("n", false), ("m", false)], 0), (None, None));
    assert_eq!(ends(&facts, &[("n", false), ("k", true)], 0).1, None);
    // A sum naming a value the comparison does not: nothing.
    let more = [("n", false), ("m", true), ("j", false)];
    assert_eq!(ends(&facts, &more, 0), (None, None));
}

#[test]
fn repeated_names_are_coefficients() {
    let twice = fact(
        side(&[("n", false), ("n", false)], 0),
        Some(Relation::AtMost),
        side(&[], 10),
        true,
    );
    let n_plus_n = [("n", false), ("n", false)];
    assert_eq!(
        ends(std::slice::from_ref(&twice), &n_plus_n, 0),
        (None, Some(10))
    );
    // `n + n` is not `n + m`, nor `n` once.
    assert_eq!(ends(&[twice], N_MINUS_M, 0), (None, None));
}

#[test]
fn only_what_a_condition_establishes_is_read() {
    let at_most_5 = side(N_MINUS_M, 0);
    let compare = |relation| Condition::Compare {
        left: Box::new(at_most_5.clone()),
        relation: Some(relation),
        right: Box::new(side(&[], 5)),
    };
    // `a || b` true: either may be the one, so the sum lies in the join
    // of what each proves: of `<= 5` and `>= 5`, nothing.
    let apart = Condition::Or(
        Box::new(compare(Relation::AtMost)),
        Box::new(compare(Relation::AtLeast)),
    );
    assert_eq!(ends(&[(Arc::new(apart), true)], N_MINUS_M, 0), (None, None));
    // Of `<= 5` and `< 5`: at most 5.
    let either = Condition::Or(
        Box::new(compare(Relation::AtMost)),
        Box::new(compare(Relation::Below)),
    );
    assert_eq!(
        ends(&[(Arc::new(either), true)], N_MINUS_M, 0),
        (None, Some(5))
    );
    let negated = Condition::Not(Box::new(compare(Relation::Above)));
    assert_eq!(
        ends(&[(Arc::new(negated), true)], N_MINUS_M, 0),
        (None, Some(5))
    );
}

#[test]
fn literals_past_i64_prove_nothing() {
    let wide = fact(
        side(N_MINUS_M, i64::MIN),
        Some(Relation::AtMost),
        side(&[], 1),
        true,
    );
    assert_eq!(ends(&[wide], N_MINUS_M, 0), (None, None));
}

#[test]
fn a_sum_whose_names_cancel_is_its_offset() {
    let n_minus_n = [("n", false), ("n", true)];
    assert_eq!(ends(&[], &n_minus_n, 3), (Some(3), Some(3)));
    let twice_less_twice = [
        ("n", false),
        ("m", true),
        ("n", false),
        ("n", true),
        ("n", true),
    ];
    assert_eq!(ends(&[], &twice_less_twice, 0), (None, None));
}

#[test]
fn a_comparison_its_ranges_rule_out_is_infeasible() {
    let compare =
        |left: Side<&'static str>, relation, right: Side<&'static str>| Condition::Compare {
            left: Box::new(left),
            relation,
            right: Box::new(right),
        };
    // `8 + 1 > 4` always holds: failing, it is infeasible.
    let nine_above_four = compare(side(&[], 9), Some(Relation::Above), side(&[], 4));
    assert!(infeasible(&nine_above_four, false));
    assert!(!infeasible(&nine_above_four, true));
    // `n - n > 0` never holds, whatever `n`.
    let cancelled = compare(side(N_MINUS_M, 0), Some(Relation::Above), side(&[], 0));
    assert!(!infeasible(&cancelled, true), "`n - m` may be above 0");
    let n_minus_n = compare(
        side(&[("n", false), ("n", true)], 0),
        Some(Relation::Above),
        side(&[], 0),
    );
    assert!(infeasible(&n_minus_n, true));
    assert!(!infeasible(&n_minus_n, false));
    // `k` in `[0, 10]`: `k < 0` and `k == 11` never hold, `k <= 0` may.
    let k = || side(&[("k", false)], 0);
    assert!(infeasible(
        &compare(k(), Some(Relation::Below), side(&[], 0)),
        true
    ));
    assert!(infeasible(
        &compare(k(), Some(Relation::Equal), side(&[], 11)),
        true
    ));
    assert!(!infeasible(
        &compare(k(), Some(Relation::AtMost), side(&[], 0)),
        true
    ));
    assert!(!infeasible(
        &compare(k(), Some(Relation::AtLeast), side(&[], 10)),
        true
    ));
    assert!(infeasible(
        &compare(k(), Some(Relation::Above), side(&[], 10)),
        true
    ));
    // The same of an `Int?`'s number below the other side rules nothing
    // out: a `none` meets `o < 0` whatever the number's range. At or above
    // it (`o == 11`), the option is no `none`: read as numbers.
    let of_an_option = |c| Condition::MayBeNone(Box::new(c), crate::Optional::Left);
    assert!(!infeasible(
        &of_an_option(compare(k(), Some(Relation::Below), side(&[], 0))),
        true
    ));
    assert!(infeasible(
        &of_an_option(compare(k(), Some(Relation::Equal), side(&[], 11))),
        true
    ));
    assert!(!infeasible(
        &of_an_option(compare(k(), Some(Relation::AtLeast), side(&[], 11))),
        false
    ));
    // Literals that decide a condition the other way rule it out.
    let never: Condition<&str> = Condition::Constant(false);
    assert!(infeasible(&never, true));
    assert!(!infeasible(&never, false));
    assert!(infeasible(
        &Condition::And(
            Box::new(n_minus_n.clone()),
            Box::new(Condition::Constant(false))
        ),
        true
    ));
    // Unbounded sides rule nothing out; `||` true establishes nothing.
    let n = || side(&[("n", false)], 0);
    assert!(!infeasible(
        &compare(n(), Some(Relation::Below), side(&[], i64::MIN)),
        false
    ));
    let either = Condition::Or(Box::new(nine_above_four), Box::new(n_minus_n));
    assert!(!infeasible(&either, true));
}

#[test]
fn a_value_the_comparison_does_not_name_adds_its_range() {
    let at_most_5 = difference(Some(Relation::AtMost), 5, true);
    let facts = std::slice::from_ref(&at_most_5);
    let one_to_two = Interval::new(
        crate::Poly::constant(2),
        crate::Poly::zero(),
        Some(1),
        Some(2),
    );
    let range = |name: &&str| (*name == "i").then(|| one_to_two.clone());
    let within = |names: &[(&'static str, bool)], offset: i64| {
        let interval = side(names, offset).interval;
        let narrowed = sum_within(facts, names, offset, &interval, &range);
        (narrowed.least, narrowed.most)
    };
    // `n - m + i` and `n + i - m`, `i` in [1, 2]: at most 5 + 2.
    assert_eq!(
        within(&[("n", false), ("m", true), ("i", false)], 0),
        (None, Some(7))
    );
    assert_eq!(
        within(&[("n", false), ("i", false), ("m", true)], 1),
        (None, Some(8))
    );
    // Subtracted, it lowers the bound by its least.
    assert_eq!(
        within(&[("n", false), ("m", true), ("i", true)], 0),
        (None, Some(4))
    );
    // Twice: its range twice.
    assert_eq!(
        within(&[("n", false), ("m", true), ("i", false), ("i", false)], 0),
        (None, Some(9))
    );
    // A value of no known range proves nothing of the sum.
    assert_eq!(
        within(&[("n", false), ("m", true), ("j", false)], 0),
        (None, None)
    );
    // Nor does a comparison naming none of the sum's values, or one with
    // another coefficient.
    assert_eq!(within(&[("i", false), ("j", false)], 0), (None, None));
    assert_eq!(
        within(&[("n", false), ("n", false), ("m", true), ("i", false)], 0),
        (None, None)
    );
}

#[test]
fn a_side_of_no_sum_is_its_whole_range() {
    // `n - m <= s` where `s` is no sum of named values (an `if`, a
    // product) in [100, 200]: `n - m` is at most 200, not 0 (the bound
    // property's seed 160568, which read past the bound it proved).
    let s = Side::opaque(Interval::new(
        crate::Poly::constant(200),
        crate::Poly::zero(),
        Some(100),
        Some(200),
    ));
    let against_opaque = fact(side(N_MINUS_M, 0), Some(Relation::AtMost), s, true);
    assert_eq!(
        ends(std::slice::from_ref(&against_opaque), N_MINUS_M, 0),
        (None, Some(200))
    );
    // Unbounded above, it bounds nothing.
    let any = Side::opaque(Interval::unbounded("s"));
    let against_any = fact(side(N_MINUS_M, 0), Some(Relation::AtMost), any, true);
    assert_eq!(ends(&[against_any], N_MINUS_M, 0), (None, None));
}

#[test]
fn names_that_cancel_in_part_leave_the_rest() {
    let k = side(&[("k", false)], 0).interval;
    let range = |name: &&'static str| match *name {
        "k" => Some(k.clone()),
        _ => Some(Interval::unbounded(name)),
    };
    let within = |names: &[(&'static str, bool)],
                  offset: i64,
                  range: &dyn Fn(&&'static str) -> Option<Interval>| {
        let interval = side(names, offset).interval;
        let narrowed = sum_within(&[], names, offset, &interval, range);
        (narrowed.least, narrowed.most)
    };
    // `k + m - m + 1`, `k` in `[0, 10]`: `[1, 11]`.
    let cancelled = [("k", false), ("m", false), ("m", true)];
    assert_eq!(within(&cancelled, 1, &range), (Some(1), Some(11)));
    // `k + 2m - m - m`: coefficients merge the same way.
    let twice = [
        ("k", false),
        ("m", false),
        ("m", false),
        ("m", true),
        ("m", true),
    ];
    assert_eq!(within(&twice, 0, &range), (Some(0), Some(10)));
    // `k + m - m + m` leaves `m`, and `m`'s range is no number.
    let left_over = [("k", false), ("m", false), ("m", true), ("m", false)];
    assert_eq!(within(&left_over, 0, &range), (None, None));
    // A name whose range is not known here proves nothing.
    assert_eq!(within(&cancelled, 0, &|_| None), (None, None));
}
