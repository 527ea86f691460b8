//! Tests of narrowing: what conditions prove of the names and sums they compare.

use super::*;
use crate::sides::{signed, SideSum};

/// `name relation other` (`None`: `!=`).
fn compare(name: &'static str, relation: Option<Relation>, other: i64) -> Condition<&'static str> {
    compared_by(name_side(name), relation, other)
}

/// `side relation other` (`None`: `!=`).
fn compared_by(
    side: Side<&'static str>,
    relation: Option<Relation>,
    other: i64,
) -> Condition<&'static str> {
    Condition::Compare {
        left: Box::new(side),
        relation,
        right: Box::new(Side::opaque(Interval::exact(other))),
    }
}

/// What `condition` being `holds` proves, in order.
fn proved(condition: &Condition<&'static str>, holds: bool) -> Vec<(&'static str, Interval)> {
    let mut narrowed = Vec::new();
    assume(condition, holds, &mut narrowed);
    narrowed
}

/// The side that is the name `name`, of any value.
fn name_side(name: &'static str) -> Side<&'static str> {
    sum(&[(name, false, Interval::unbounded(name))], 0)
}

/// The side `±a ± b … + offset`.
fn sum(terms: &[(&'static str, bool, Interval)], offset: i64) -> Side<&'static str> {
    let mut sum = SideSum::default();
    sum.literal(offset, false);
    let mut interval = Interval::exact(offset);
    for (name, negated, range) in terms {
        sum.named(*name, *negated, range.clone());
        interval = interval.plus(&signed(*negated, range.clone()));
    }
    sum.side(interval)
}

fn ends(narrowed: &[(&str, Interval)]) -> Vec<(Option<i64>, Option<i64>)> {
    narrowed.iter().map(|(_, i)| (i.least, i.most)).collect()
}

/// `side relation other`.
fn compared(side: Side<&'static str>, relation: Relation, other: i64) -> Condition<&'static str> {
    compared_by(side, Some(relation), other)
}

/// Any integer from 0 to `most`.
fn from_zero_to(most: i64) -> Interval {
    let hi = crate::Poly::constant(most.unsigned_abs());
    Interval::new(hi, crate::Poly::zero(), Some(0), Some(most))
}

/// The last range `narrowed` holds of `name`.
fn last(narrowed: &[(&str, Interval)], name: &str) -> (Option<i64>, Option<i64>) {
    narrowed
        .iter()
        .rev()
        .find(|(n, _)| *n == name)
        .map_or((None, None), |(_, i)| (i.least, i.most))
}

#[test]
fn a_sum_of_names_and_literals_narrows_each_name() {
    let any = |name: &str| Interval::unbounded(name);
    let n = |negated: bool| ("n", negated, any("n"));
    // `n - 5 > 10`: `n ≥ 16` where it holds, `n ≤ 15` where it fails.
    let minus_five = compared(sum(&[n(false)], -5), Relation::Above, 10);
    let then = proved(&minus_five, true);
    assert_eq!(ends(&then), [(Some(16), None)]);
    let otherwise = proved(&minus_five, false);
    assert_eq!(ends(&otherwise), [(None, Some(15))]);
    // `10 - n >= 3`: `n ≤ 7`; `-n < 2`: `n ≥ -1`.
    let then = proved(&compared(sum(&[n(true)], 10), Relation::AtLeast, 3), true);
    assert_eq!(ends(&then), [(None, Some(7))]);
    let then = proved(&compared(sum(&[n(true)], 0), Relation::Below, 2), true);
    assert_eq!(ends(&then), [(Some(-1), None)]);
    // A second comparison reads the first's narrowing: `n - 5 > 10 &&
    // n + 1 < 20` is `16 ≤ n ≤ 18`.
    let both = Condition::And(
        Box::new(minus_five),
        Box::new(compared(sum(&[n(false)], 1), Relation::Below, 20)),
    );
    let then = proved(&both, true);
    assert_eq!(last(&then, "n"), (Some(16), Some(18)));
    // `n - k > 10` failing, `k` in `[0, 5]`: `n ≤ 15`, and `k ≥ n - 10`
    // proves nothing of `k` with `n` unbounded below.
    let k = ("k", true, from_zero_to(5));
    let otherwise = proved(
        &compared(sum(&[n(false), k.clone()], 0), Relation::Above, 10),
        false,
    );
    assert_eq!(last(&otherwise, "n"), (None, Some(15)));
    assert_eq!(last(&otherwise, "k"), (Some(0), Some(5)));
    // `k + n <= 15` (the name second) bounds `n` too.
    let k_plus_n = sum(&[("k", false, k.2.clone()), n(false)], 0);
    let then = proved(&compared(k_plus_n, Relation::AtMost, 15), true);
    assert_eq!(last(&then, "n"), (None, Some(15)));
    // `n - m <= 0 && m <= 10`: the term `m`, narrowed by the later
    // comparison, bounds `n` once the condition is read again.
    let chain = Condition::And(
        Box::new(compared(
            sum(&[n(false), ("m", true, any("m"))], 0),
            Relation::AtMost,
            0,
        )),
        Box::new(compared(name_side("m"), Relation::AtMost, 10)),
    );
    let mut then = Vec::new();
    assume_within(&[], &chain, true, &mut then, Reading::Checker);
    assert_eq!(last(&then, "n").1, Some(10));
    // Literals past `i64` make the side opaque: it narrows nothing.
    let mut huge = SideSum::default();
    huge.literal(i64::MAX, false);
    huge.literal(1, false);
    huge.named("n", false, any("n"));
    let then = proved(&compared(huge.side(any("side")), Relation::Below, 0), true);
    assert!(then.is_empty());
}

#[test]
fn a_chain_of_nested_ifs_is_read_through_in_either_order() {
    // `if x0 <= x1 { if x1 <= x2 { if x2 <= x3 { if x3 <= 10 { … } } } }`
    // bounds `x0`, and so does the same chain nested the other way.
    let link = |a: &'static str, b: &'static str| {
        Arc::new(Condition::Compare {
            left: Box::new(name_side(a)),
            relation: Some(Relation::AtMost),
            right: Box::new(name_side(b)),
        })
    };
    let innermost = compare("x3", Some(Relation::AtMost), 10);
    let outward = [link("x0", "x1"), link("x1", "x2"), link("x2", "x3")];
    let enclosing: Vec<_> = outward.iter().map(|c| (c.clone(), true)).collect();
    let mut narrowed = Vec::new();
    assume_within(
        &enclosing,
        &innermost,
        true,
        &mut narrowed,
        Reading::Checker,
    );
    assert_eq!(last(&narrowed, "x0").1, Some(10));
    let reversed: Vec<_> = enclosing.iter().rev().cloned().collect();
    let mut narrowed = Vec::new();
    assume_within(&reversed, &innermost, true, &mut narrowed, Reading::Checker);
    assert_eq!(last(&narrowed, "x0").1, Some(10));
}

#[test]
fn each_branch_learns_its_side() {
    let c = compare("n", Some(Relation::Above), 10);
    let then = proved(&c, true);
    assert_eq!(ends(&then), [(Some(11), None)]);
    let otherwise = proved(&c, false);
    assert_eq!(ends(&otherwise), [(None, Some(10))]);
}

#[test]
fn and_narrows_when_true_or_when_false_not_the_other_way() {
    let both = || {
        (
            Box::new(compare("n", Some(Relation::AtLeast), 0)),
            Box::new(compare("n", Some(Relation::Below), 10)),
        )
    };
    let (a, b) = both();
    let and = Condition::And(a, b);
    let then = proved(&and, true);
    // The second fact narrows the first's result: [0, 9].
    assert_eq!(
        then.last().map(|(_, i)| (i.least, i.most)),
        Some((Some(0), Some(9)))
    );
    // False, `n < 0` or `n >= 10`: the join of the two proves no end.
    let otherwise = proved(&and, false);
    assert!(ends(&otherwise).iter().all(|ends| *ends == (None, None)));
    let (a, b) = both();
    let or_true = proved(&Condition::Or(a, b), true);
    assert!(ends(&or_true).iter().all(|ends| *ends == (None, None)));
    let not = Condition::Not(Box::new(compare("n", Some(Relation::Below), 5)));
    let then = proved(&not, true);
    assert_eq!(ends(&then), [(Some(5), None)]);
}

#[test]
fn not_equal_proves_only_when_false() {
    let c = compare("n", None, 3);
    let then = proved(&c, true);
    assert!(then.is_empty());
    let otherwise = proved(&c, false);
    assert_eq!(ends(&otherwise), [(Some(3), Some(3))]);
    let equal = compare("n", Some(Relation::Equal), 3);
    let otherwise = proved(&equal, false);
    assert!(otherwise.is_empty());
}

#[test]
fn an_inner_fact_tightens_what_an_outer_comparison_related() {
    // `if n < m { if m < 10 { … } }`: `n ≤ 8` inside.
    let side = |name: &'static str| Box::new(name_side(name));
    let outer = Arc::new(Condition::Compare {
        left: side("n"),
        relation: Some(Relation::Below),
        right: side("m"),
    });
    let inner = compare("m", Some(Relation::Below), 10);
    let alone = proved(&inner, true);
    assert!(alone.iter().all(|(name, _)| *name == "m"));
    let mut within = Vec::new();
    assume_within(
        &[(outer.clone(), true)],
        &inner,
        true,
        &mut within,
        Reading::Checker,
    );
    let last_n = within.iter().rev().find(|(name, _)| *name == "n");
    assert_eq!(last_n.map(|(_, i)| i.most), Some(Some(8)));
    // Where the outer comparison failed (`n >= m`), `m ≤ 9` says
    // nothing of how large `n` is.
    let mut failed = Vec::new();
    assume_within(
        &[(outer, false)],
        &inner,
        true,
        &mut failed,
        Reading::Checker,
    );
    let last_n = failed.iter().rev().find(|(name, _)| *name == "n");
    assert_eq!(last_n.map(|(_, i)| i.most), Some(None));
}

#[test]
fn a_later_comparison_tightens_an_earlier_one_of_the_same_condition() {
    // `n <= m && m <= 10`: `n ≤ 10`, as with the tests the other way
    // round; `n > m || m > 10` false proves the same.
    let first = || {
        let side = |name: &'static str| Box::new(name_side(name));
        Box::new(Condition::Compare {
            left: side("n"),
            relation: Some(Relation::AtMost),
            right: side("m"),
        })
    };
    let second = || Box::new(compare("m", Some(Relation::AtMost), 10));
    let most_n = |condition: &Condition<&'static str>, holds: bool| {
        let mut narrowed = Vec::new();
        assume_within(&[], condition, holds, &mut narrowed, Reading::Checker);
        narrowed
            .iter()
            .rev()
            .find(|(name, _)| *name == "n")
            .and_then(|(_, i)| i.most)
    };
    assert_eq!(most_n(&Condition::And(first(), second()), true), Some(10));
    assert_eq!(most_n(&Condition::And(second(), first()), true), Some(10));
    let or = Condition::Or(
        Box::new(Condition::Not(first())),
        Box::new(Condition::Not(second())),
    );
    assert_eq!(most_n(&or, false), Some(10));
    // Either one may fail where the `&&` does: nothing of `n`.
    assert_eq!(most_n(&Condition::And(first(), second()), false), None);
}

#[test]
fn a_repeated_name_is_narrowed_by_its_coefficient() {
    let n = || ("n", false, Interval::unbounded("n"));
    let minus_n = || ("n", true, Interval::unbounded("n"));
    // `n + n <= 10`: `n ≤ 5`; `n + n <= 11`: still 5 (an integer).
    let twice = compared(sum(&[n(), n()], 0), Relation::AtMost, 10);
    assert_eq!(last(&proved(&twice, true), "n"), (None, Some(5)));
    let odd = compared(sum(&[n(), n()], 0), Relation::AtMost, 11);
    assert_eq!(last(&proved(&odd, true), "n"), (None, Some(5)));
    // `-n - n >= -7`: `2·n ≤ 7`, so `n ≤ 3`.
    let negated = compared(sum(&[minus_n(), minus_n()], 0), Relation::AtLeast, -7);
    assert_eq!(last(&proved(&negated, true), "n"), (None, Some(3)));
    // `n + n - n <= 3` is `n <= 3`; `n - n <= 3` says nothing of `n`.
    let once = compared(sum(&[n(), n(), minus_n()], 0), Relation::AtMost, 3);
    assert_eq!(last(&proved(&once, true), "n"), (None, Some(3)));
    let none = compared(sum(&[n(), minus_n()], 0), Relation::AtMost, 3);
    assert_eq!(last(&proved(&none, true), "n"), (None, None));
    // Beside another name of known range: `n + n + k <= 10`, `k` in
    // `[0, 4]`: `2·n ≤ 10`, `n ≤ 5`.
    let k = ("k", false, from_zero_to(4));
    let beside = compared(sum(&[n(), k, n()], 0), Relation::AtMost, 10);
    assert_eq!(last(&proved(&beside, true), "n"), (None, Some(5)));
}

#[test]
fn a_name_that_cancels_adds_nothing_to_its_side() {
    // `x >= n - n` gives `x ≥ 0`, however wide `n` is.
    let n = || ("n", false, Interval::unbounded("n"));
    let minus_n = || ("n", true, Interval::unbounded("n"));
    let condition = Condition::Compare {
        left: Box::new(name_side("x")),
        relation: Some(Relation::AtLeast),
        right: Box::new(sum(&[n(), minus_n()], 0)),
    };
    assert_eq!(last(&proved(&condition, true), "x"), (Some(0), None));
}

#[test]
fn a_name_on_both_sides_is_taken_from_both() {
    let n = |negated| ("n", negated, Interval::unbounded("n"));
    let m = |negated| ("m", negated, Interval::unbounded("m"));
    let none = |_: &&'static str| None;
    // `m + n <= 5 + n`: `m ≤ 5`, and `n` learns nothing.
    let added = crate::compared(
        sum(&[m(false), n(false)], 0),
        Some(Relation::AtMost),
        sum(&[n(false)], 5),
        &none,
    );
    assert_eq!(last(&proved(&added, true), "m"), (None, Some(5)));
    assert_eq!(last(&proved(&added, true), "n"), (None, None));
    // `m - n > 2 - n` fails: `m ≤ 2`.
    let subtracted = crate::compared(
        sum(&[m(false), n(true)], 0),
        Some(Relation::Above),
        sum(&[n(true)], 2),
        &none,
    );
    assert_eq!(last(&proved(&subtracted, false), "m"), (None, Some(2)));
    // `m + n <= 5 - n` is `m <= 5 - 2n`: nothing of `m`.
    let opposite = crate::compared(
        sum(&[m(false), n(false)], 0),
        Some(Relation::AtMost),
        sum(&[n(true)], 5),
        &none,
    );
    assert_eq!(last(&proved(&opposite, true), "m"), (None, None));
}

#[test]
fn a_name_times_a_literal_is_the_name_added_so_many_times() {
    use crate::sides::{scaled, sum_leaves, SumLeaf, SumShape, MAX_TERMS};
    /// `c * name`, or a name.
    enum E {
        Times(i64, Box<E>),
        Name(&'static str),
    }
    fn shape(e: &E) -> SumShape<'_, E> {
        match e {
            E::Times(c, inner) => scaled(*c, &**inner),
            E::Name(_) => SumShape::Leaf,
        }
    }
    let leaves = |e: &E| {
        let mut seen = Vec::new();
        sum_leaves(e, false, &shape, &mut |leaf, negated| {
            if let SumLeaf::Value(E::Name(name)) = leaf {
                seen.push((*name, negated));
            }
            true
        });
        seen
    };
    let m = || Box::new(E::Name("m"));
    assert_eq!(leaves(&E::Times(3, m())), vec![("m", false); 3]);
    assert_eq!(leaves(&E::Times(-2, m())), vec![("m", true); 2]);
    // 0, and past `MAX_TERMS`, are leaves: the product itself, no name.
    assert!(leaves(&E::Times(0, m())).is_empty());
    assert!(leaves(&E::Times(MAX_TERMS as i64 + 1, m())).is_empty());
    assert!(leaves(&E::Times(i64::MIN, m())).is_empty());
}

#[test]
fn a_comparison_taken_apart_keeps_the_one_as_written() {
    // `m < m`, `m` at most 3: taken apart it says `0 < 0` (nothing of
    // `m`); as written, `m ≤ 2`, which the verifier finds where the
    // right side is another spelling of `m`.
    let m = || {
        (
            "m",
            false,
            Interval::new(
                crate::Poly::constant(3),
                crate::Poly::unbounded("lo"),
                None,
                Some(3),
            ),
        )
    };
    let none = |_: &&'static str| None;
    let both = crate::compared(sum(&[m()], 0), Some(Relation::Below), sum(&[m()], 0), &none);
    let Condition::Both(as_written, _) = &both else {
        panic!("no reading as written beside the one taken apart: {both:?}");
    };
    assert!(matches!(&**as_written, Condition::Compare { left, .. } if left.terms.len() == 1));
    // What its left side learns: `m ≤ 2`.
    let proved = proved(&both, true);
    assert!(proved.iter().any(|(n, i)| *n == "m" && i.most == Some(2)));
}

/// `all(list, element => says)`.
fn all(
    list: &'static str,
    element: &'static str,
    says: Condition<&'static str>,
) -> Condition<&'static str> {
    Condition::Elements {
        list,
        element,
        says: Box::new(says),
    }
}

#[test]
fn all_narrows_the_elements_where_it_holds_and_nothing_where_it_fails() {
    let small = all("xs", "x", compare("x", Some(Relation::AtMost), 10));
    assert_eq!(ends(&proved(&small, true)), [(None, Some(10))]);
    assert_eq!(proved(&small, true)[0].0, "xs");
    assert!(proved(&small, false).is_empty());
    // `!all(…)` proves nothing in either branch of its own; `any(xs, x =>
    // x > 10)` false is `all(xs, x => x <= 10)`.
    let any_big = Condition::Not(Box::new(all(
        "xs",
        "x",
        Condition::Not(Box::new(compare("x", Some(Relation::Above), 10))),
    )));
    assert!(proved(&any_big, true).is_empty());
    assert_eq!(ends(&proved(&any_big, false)), [(None, Some(10))]);
    assert!(proved(&Condition::Not(Box::new(small.clone())), true).is_empty());
}

#[test]
fn all_proves_nothing_of_the_other_names_it_compares() {
    // `all(xs, x => n <= x)` holds of an empty list whatever `n` is: `n`
    // is not narrowed, only the elements (at least `n`'s least).
    let n = sum(&[("n", false, from_zero_to(50))], 0);
    let x = name_side("x");
    let above_n = Condition::Compare {
        left: Box::new(n),
        relation: Some(Relation::AtMost),
        right: Box::new(x),
    };
    let condition = all("xs", "x", above_n);
    let narrowed = proved(&condition, true);
    assert!(
        narrowed.iter().all(|(name, _)| *name == "xs"),
        "{narrowed:?}"
    );
    assert_eq!(ends(&narrowed), [(Some(0), None)]);
    // Beside a comparison of `n` itself, both hold, each of its own.
    let both = Condition::And(
        Box::new(condition),
        Box::new(compare("n", Some(Relation::AtMost), 5)),
    );
    let narrowed = proved(&both, true);
    assert_eq!(last(&narrowed, "n"), (None, Some(5)));
    assert_eq!(narrowed.iter().filter(|(name, _)| *name == "n").count(), 1);
}

/// Definitions where each of `chain` is bound to the next alone (an
/// alias), and `d` to `n - 5` (a sum, no alias).
fn aliases(
    chain: &'static [&'static str],
) -> impl Fn(&&'static str) -> Option<Arc<Side<&'static str>>> {
    move |name: &&'static str| {
        if *name == "d" {
            return Some(Arc::new(sum(&[("n", false, Interval::unbounded("n"))], -5)));
        }
        let at = chain.iter().position(|n| n == name)?;
        let next = chain.get(at + 1)?;
        Some(Arc::new(name_side(next)))
    }
}

#[test]
fn an_alias_chain_is_followed_to_its_end_within_its_depth() {
    let definition = aliases(&["zs", "ys", "xs"]);
    let all = |_: &&'static str| true;
    assert_eq!(alias_chain(&"zs", &definition, &all, 8), vec!["ys", "xs"]);
    assert_eq!(alias_chain(&"zs", &definition, &all, 1), vec!["ys"]);
    // Refused on the way: the chain stops before it.
    let not_xs = |n: &&'static str| *n != "xs";
    assert_eq!(alias_chain(&"zs", &definition, &not_xs, 8), vec!["ys"]);
    // A sum with a literal is no alias.
    assert!(alias_chain(&"d", &definition, &all, 8).is_empty());
}

#[test]
fn a_fact_through_aliases_holds_of_each_name_on_the_chain() {
    let definition = aliases(&["zs", "ys", "xs"]);
    let all = |_: &&'static str| true;
    // `all(zs, e => e <= 10)`: the elements of zs, ys and xs.
    let elements = Condition::elements(true, "zs", "e", compare("e", Some(Relation::AtMost), 10));
    let read = elements.through_aliases(&definition, &all, 8);
    let mut narrowed = Vec::new();
    assume(&read, true, &mut narrowed);
    for list in ["zs", "ys", "xs"] {
        assert_eq!(last(&narrowed, list), (None, Some(10)), "{list}");
    }
    // Where it fails, nothing of any of them.
    let mut failed = Vec::new();
    assume(&read, false, &mut failed);
    assert!(failed.is_empty());
    // `zs <= 3` as a comparison of one named value: each name too.
    let compared = compare("zs", Some(Relation::AtMost), 3).through_aliases(&definition, &all, 8);
    let mut narrowed = Vec::new();
    assume(&compared, true, &mut narrowed);
    for name in ["zs", "ys", "xs"] {
        assert_eq!(last(&narrowed, name), (None, Some(3)), "{name}");
    }
    // Read 1 deep: the end of the chain is not reached.
    let shallow = elements.through_aliases(&definition, &all, 1);
    let mut narrowed = Vec::new();
    assume(&shallow, true, &mut narrowed);
    assert_eq!(last(&narrowed, "xs"), (None, None));
    assert_eq!(last(&narrowed, "ys"), (None, Some(10)));
}

/// `name <= most`, of a name that is a path and a binding.
fn part_at_most(name: &str, binding: u64, most: i64) -> Condition<(String, u64)> {
    let named = (name.to_string(), binding);
    let mut side = SideSum::default();
    side.named(named.clone(), false, Interval::unbounded(name));
    Condition::Compare {
        left: Box::new(side.side(Interval::unbounded(name))),
        relation: Some(Relation::AtMost),
        right: Box::new(Side::opaque(Interval::exact(most))),
    }
}

#[test]
fn all_proves_of_each_elements_part_what_it_proves_of_its_elements() {
    // `all(ps, p => p.at <= 10)`: each element's `at`, `ps.[].at`, of the
    // list's binding; nothing of the element itself or of `p.at`.
    let (ps, p) = (("ps".to_string(), 1), ("p".to_string(), 2));
    let at = part_at_most("p.at", 2, 10);
    let condition = Condition::elements(true, ps.clone(), p.clone(), at);
    let mut narrowed = Vec::new();
    assume(&condition, true, &mut narrowed);
    let names: Vec<&(String, u64)> = narrowed.iter().map(|(n, _)| n).collect();
    assert_eq!(names, [&("ps.[].at".to_string(), 1)]);
    assert_eq!(narrowed[0].1.most, Some(10));
    // A part of another binding of the name (`let p = …` inside), or of
    // another name that starts alike (`pq.at`), is no part of the element.
    for (name, binding) in [("p.at", 3), ("pq.at", 2)] {
        let other = part_at_most(name, binding, 10);
        let condition = Condition::elements(true, ps.clone(), p.clone(), other);
        let mut narrowed = Vec::new();
        assume(&condition, true, &mut narrowed);
        assert!(narrowed.is_empty(), "{name}: {narrowed:?}");
    }
    // Where `all` fails, nothing.
    let failed = Condition::elements(true, ps, p, part_at_most("p.at", 2, 10));
    let mut narrowed = Vec::new();
    assume(&failed, false, &mut narrowed);
    assert!(narrowed.is_empty());
}

#[test]
fn a_path_below_a_root_is_its_steps_after_the_root_and_a_dot() {
    assert_eq!(crate::path_below("p", "p"), Some(""));
    assert_eq!(crate::path_below("p.at", "p"), Some("at"));
    assert_eq!(
        crate::path_below("p.body.length()", "p"),
        Some("body.length()")
    );
    assert_eq!(crate::path_below("pq.at", "p"), None);
    assert_eq!(crate::path_below("q.at", "p"), None);
}

/// The greatest number `condition`, where it held, leaves `name`, read
/// where the name `known` lies in `[0, 10]` (an enclosing `if`).
fn most_where(condition: &Condition<&'static str>, known: &'static str, name: &str) -> Option<i64> {
    let mut narrowed = vec![(known, Interval::exact(10).join(&Interval::exact(0)))];
    assume(condition, true, &mut narrowed);
    let found = narrowed.iter().rev().find(|(n, _)| *n == name);
    found.and_then(|(_, range)| range.most)
}

#[test]
fn an_optional_side_has_its_number_narrowed_and_narrows_nothing_else() {
    let literal = |value: i64| sum(&[], value);
    let of_an_option = |left: Side<&'static str>, relation, right: Side<&'static str>, side| {
        Condition::MayBeNone(
            Box::new(Condition::Compare {
                left: Box::new(left),
                relation: Some(relation),
                right: Box::new(right),
            }),
            side,
        )
    };
    // `o <= n`, `o` an `Int?`: nothing of `n` (a `none` stands below it).
    // Where it failed (`o > n`), the option is a number: `n` is narrowed.
    let condition = of_an_option(
        name_side("o"),
        Relation::AtMost,
        name_side("n"),
        Optional::Left,
    );
    assert!(proved(&condition, true)
        .iter()
        .all(|(name, _)| *name == "o"));
    assert!(proved(&condition, false)
        .iter()
        .any(|(name, _)| *name == "n"));
    // `n < o` read where `o`'s number is at most 10: `n` at most 9.
    let condition = of_an_option(
        name_side("n"),
        Relation::Below,
        name_side("o"),
        Optional::Right,
    );
    assert_eq!(most_where(&condition, "o", "n"), Some(9));
    // `o <= 50`: the number is at most 50, or above it where it failed.
    let condition = of_an_option(
        name_side("o"),
        Relation::AtMost,
        literal(50),
        Optional::Left,
    );
    assert_eq!(ends(&proved(&condition, true)), [(None, Some(50))]);
    assert_eq!(ends(&proved(&condition, false)), [(Some(51), None)]);
    // `50 >= o`, the option on the right.
    let condition = of_an_option(
        literal(50),
        Relation::AtLeast,
        name_side("o"),
        Optional::Right,
    );
    assert_eq!(ends(&proved(&condition, true)), [(None, Some(50))]);
    // `o <= n` read where `n` is at most 10 (an inner `if`): the number
    // within `n`'s range there.
    let condition = of_an_option(
        name_side("o"),
        Relation::AtMost,
        name_side("n"),
        Optional::Left,
    );
    assert_eq!(most_where(&condition, "n", "o"), Some(10));
    // Which side is the option; two options relate nothing.
    assert_eq!(Optional::of(false, false), Ok(None));
    assert_eq!(Optional::of(false, true), Ok(Some(Optional::Right)));
    assert!(Optional::of(true, true).is_err());
}

#[path = "narrowing_disjunction_tests.rs"]
mod disjunctions;
