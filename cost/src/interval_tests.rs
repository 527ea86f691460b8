//! Tests of intervals: arithmetic, division and remainders, assumptions and joins, on both ends.

use super::*;

fn n(max: i64) -> Interval {
    Interval::parameter("n", None, Some(max))
}

#[test]
fn a_bounded_parameter_is_bounded_above_only() {
    assert_eq!(n(10).max_value(), Some(10));
    assert_eq!(n(10).negate().max_value(), None);
    assert_eq!(
        n(10).negate().why_unbounded().unwrap(),
        "`n` may be any negative number"
    );
    // A description of a value no name holds is prose, not code.
    let given = Interval::unbounded("a value the returned function is given");
    assert_eq!(
        given.why_unbounded().unwrap(),
        "a value the returned function is given has no upper bound"
    );
    // The polynomial keeps the parameter's name: bounds print as `n`.
    assert_eq!(n(10).hi.to_string(), "n");
}

#[test]
fn a_lower_end_bounds_the_negative_side() {
    let p = Interval::parameter("p", Some(0), Some(10));
    assert!(p.never_negative());
    assert_eq!(p.negate().max_value(), Some(0));
    let q = Interval::parameter("q", Some(-5), None);
    assert_eq!(q.negate().max_value(), Some(5));
    assert_eq!(q.max_value(), None);
    // A negative upper end: the polynomial says 0, the number -5.
    let r = Interval::parameter("r", None, Some(-5));
    assert_eq!(r.most, Some(-5));
    assert_eq!(r.plus(&Interval::exact(8)).max_value(), Some(3));
}

#[test]
fn subtraction_and_products_see_the_negative_side() {
    let m = Interval::parameter("m", None, Some(10));
    assert_eq!(n(10).minus(&m).max_value(), None);
    assert_eq!(n(10).times(&m).max_value(), None);
    assert_eq!(Interval::exact(0).minus(&n(10)).max_value(), None);
    let five = Interval::exact(5);
    assert_eq!(n(10).minus(&five).max_value(), Some(5));
    assert_eq!(five.minus(&Interval::exact(-3)).max_value(), Some(8));
    assert_eq!(
        Interval::exact(-3).times(&Interval::exact(-4)).max_value(),
        Some(12)
    );
    // `p * n` with `p` in [0, 10] and `n ≤ 10`: at most 100.
    let p = Interval::parameter("p", Some(0), Some(10));
    assert_eq!(p.times(&n(10)).max_value(), Some(100));
    assert_eq!(p.times(&n(10)).least, None);
}

#[test]
fn division_keeps_the_magnitude() {
    let m = Interval::parameter("m", None, Some(10));
    // m may be -1, so n / m may be -n: unbounded above.
    assert_eq!(n(10).divided_by(&m).max_value(), None);
    let two = Interval::exact(2);
    assert_eq!(n(10).divided_by(&two).max_value(), Some(5));
    let counted = Interval::up_to(Poly::constant(7));
    let halved = counted.divided_by(&Interval::exact(-2));
    assert_eq!((halved.least, halved.most), (Some(-3), Some(0)));
    let any = Interval::unbounded("x");
    assert_eq!(any.divided_by(&two).max_value(), None);
}

#[test]
fn a_divisor_with_no_value_divides_nothing() {
    // `c >= 0 <= 10` tested `c < 0`, then `5 / c` and `5 / (c + 1)`:
    // the divisor's ranges [0, -1] and [1, 0] are empty.
    let five = Interval::exact(5);
    for (least, most) in [(0, -1), (1, 0), (5, 2)] {
        let divisor = Interval::new(Poly::constant(10), Poly::zero(), Some(least), Some(most));
        let quotient = five.divided_by(&divisor);
        // Within the dividend's magnitude, whatever the divisor.
        assert_eq!(quotient.most, Some(5), "{least}..{most}");
        assert!(quotient.least.is_some_and(|l| (-5..=0).contains(&l)));
    }
}

#[test]
fn remainders_are_below_the_modulus() {
    let any = Interval::unbounded("x");
    let ten = Interval::exact(10);
    let r = any.remainder(&ten);
    assert_eq!((r.least, r.most), (Some(-9), Some(9)));
    assert_eq!(r.max_value(), Some(9));
    let natural = Interval::parameter("k", Some(0), None);
    let r = natural.remainder(&ten);
    assert_eq!((r.least, r.most), (Some(0), Some(9)));
    // By a negative modulus: the dividend's sign, below |m|.
    let r = any.remainder(&Interval::exact(-4));
    assert_eq!((r.least, r.most), (Some(-3), Some(3)));
    // By a modulus that may be any size: no smaller than the dividend.
    assert_eq!(any.remainder(&n(10)).max_value(), None);
    assert_eq!(
        n(7).remainder(&Interval::unbounded("m")).max_value(),
        Some(7)
    );
    let m = Interval::parameter("m", Some(1), Some(10));
    assert_eq!(any.remainder(&m).max_value(), Some(9));
}

#[test]
fn assumptions_narrow_each_end() {
    let any = Interval::unbounded("n");
    let ten = Interval::exact(10);
    let below = any.assume(Relation::AtMost, &ten);
    assert_eq!(below.max_value(), Some(10));
    assert_eq!(any.assume(Relation::Below, &ten).max_value(), Some(9));
    let above = any.assume(Relation::Above, &ten);
    assert_eq!((above.least, above.max_value()), (Some(11), None));
    assert!(above.never_negative());
    let equal = any.assume(Relation::Equal, &ten);
    assert_eq!(equal.constant(), Some(10));
    // Against a value nothing bounds: nothing learnt.
    assert_eq!(any.assume(Relation::Below, &any), any);
}

#[test]
fn extremes_of_several_values() {
    let values = [Interval::unbounded("n"), Interval::exact(10)];
    let least = Interval::least_of(&values).unwrap();
    assert_eq!((least.least, least.max_value()), (None, Some(10)));
    let greatest = Interval::greatest_of(&values).unwrap();
    assert_eq!((greatest.least, greatest.max_value()), (Some(10), None));
    assert!(Interval::least_of(&[]).is_none());
}

#[test]
fn within_sees_both_kinds_of_ends() {
    let five = Interval::exact(5);
    let zero = Interval::exact(0);
    let up_to_ten = Interval::up_to(Poly::constant(10));
    assert!(five.within(&up_to_ten));
    // Polynomial ends cannot say `≥ 5`: the numbers do.
    assert!(zero.hi.le(&five.hi) && zero.lo.le(&five.lo));
    assert!(!zero.within(&five));
    assert!(!up_to_ten.within(&five));
}

#[test]
fn join_covers_both() {
    let joined = Interval::exact(-4).join(&Interval::exact(9));
    assert_eq!(joined.max_value(), Some(9));
    assert_eq!(joined.lo.max_value(), Some(4));
    assert_eq!((joined.least, joined.most), (Some(-4), Some(9)));
}

#[test]
fn ends_past_64_bits_say_nothing() {
    let big = Interval::exact(i64::MAX);
    let sum = big.plus(&big);
    assert_eq!(sum.most, None);
    // The polynomial saturates above the ceiling: never a small bound.
    assert!(sum.max_value().unwrap() > crate::CEILING);
    let product = Interval::parameter("p", Some(0), Some(1 << 40)).times(&Interval::parameter(
        "q",
        Some(0),
        Some(1 << 40),
    ));
    assert_eq!(product.most, None);
    assert_eq!(product.max_value(), Some(u64::MAX));
}

#[test]
fn the_remainder_of_two_numbers_is_that_number() {
    let rem = Interval::exact(4).remainder(&Interval::exact(2));
    assert_eq!(rem.constant(), Some(0));
    let rem = Interval::exact(-7).remainder(&Interval::exact(4));
    assert_eq!(rem.constant(), Some(-3));
}

#[test]
fn an_extreme_bounds_every_element_by_one_end_only() {
    let element = Interval::new(
        crate::Poly::constant(100),
        crate::Poly::constant(100),
        Some(-100),
        Some(100),
    );
    let greatest = Interval::new(
        crate::Poly::constant(10),
        crate::Poly::constant(0),
        Some(5),
        Some(10),
    );
    // The greatest at least 5 says nothing of the others' least.
    let below = element.below_upper_of(&greatest);
    assert_eq!((below.least, below.most), (Some(-100), Some(10)));
    let above = element.above_lower_of(&greatest);
    assert_eq!((above.least, above.most), (Some(5), Some(100)));
}

#[test]
fn an_end_past_the_ints_is_the_int_there_not_an_unknown_end() {
    // 2 · 4294967297 · 4294967297 is past the largest `Int`: a run that
    // computes it stops, so a value it goes on with is at least that
    // `Int` (none is), and a quotient by it is at most 0.
    let big = Interval::exact(4294967297);
    let product = Interval::exact(2).times(&big).times(&big);
    assert_eq!(product.least, Some(i64::MAX));
    let quotient = Interval::parameter("n", Some(0), Some(6)).divided_by(&product);
    assert_eq!(quotient.most, Some(0));
    // Below the least `Int`, the same at the other end.
    let negative = Interval::exact(-2).times(&big).times(&big);
    assert_eq!(negative.most, Some(i64::MIN));
    // Within the `Int`s, nothing changes; an end past them on the side
    // that has no numbers stays unknown.
    assert_eq!(Interval::exact(3).times(&big).least, Some(3 * 4294967297));
    assert_eq!(product.most, None);
}
