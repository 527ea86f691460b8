//! Unit samples of the polynomial algebra: normal form, maxima, `max`, `le`, substitution and the large-product rule.
use super::*;

/// The sum of `n` parameters, each at most `max` (`None`: unbounded).
fn sum_of(n: usize, max: Option<u64>) -> Poly {
    (0..n).fold(Poly::zero(), |sum, i| {
        sum.plus(&Poly::var(Var::param(&format!("p{i}"), max)))
    })
}

#[test]
fn squaring_a_sum_again_and_again_stays_small_and_exact_at_the_maxima() {
    let mut x = sum_of(8, Some(9));
    for _ in 0..8 {
        let before = x.max_value().unwrap();
        x = x.times(&x);
        assert!(x.terms().count() <= 6435, "{} terms", x.terms().count());
        assert_eq!(x.max_value(), Some(before.saturating_mul(before)));
    }
}

#[test]
fn a_product_of_many_unbounded_terms_is_unbounded_not_computed() {
    let mut x = sum_of(8, None);
    for _ in 0..4 {
        x = x.times(&x);
    }
    assert!(x.terms().count() <= 6435, "{} terms", x.terms().count());
    assert!(!x.unbounded_params().is_empty());
    assert_eq!(x.max_value(), None);
}

fn fanout() -> Var {
    Var::new(VarKind::Fanout {
        table: "Follow".into(),
        columns: vec!["follower".into()],
        max: 5000,
    })
}

fn n() -> Var {
    Var::param("n", Some(100))
}

#[test]
fn normal_form_collects_like_terms() {
    let f = Poly::var(fanout());
    let rows = f.plus(&f.times(&Poly::constant(10)));
    assert_eq!(rows.to_string(), "11·5000");
    assert_eq!(rows.max_value(), Some(55000));
    let seeks = Poly::constant(1).plus(&f);
    assert_eq!(seeks.to_string(), "1 + 5000");
    assert_eq!(seeks.max_value(), Some(5001));
}

#[test]
fn products_multiply_exponents_and_coefficients() {
    let p = Poly::var(n()).plus(&Poly::constant(2));
    let square = p.times(&p);
    assert_eq!(square.to_string(), "4 + 4·n + n·n");
    assert_eq!(square.max_value(), Some(102 * 102));
}

#[test]
fn max_bounds_both_sides_and_le_is_coefficientwise() {
    let a = Poly::constant(3).plus(&Poly::var(n()));
    let b = Poly::constant(5);
    let m = a.max(&b);
    assert!(a.le(&m) && b.le(&m));
    assert!(!a.le(&b));
    assert!(Poly::zero().le(&b));
}

#[test]
fn max_of_bounded_polynomials_is_no_larger_than_the_larger_maximum() {
    let n = Poly::var(n());
    assert_eq!(Poly::constant(110).max(&n), Poly::constant(110));
    assert_eq!(n.max(&Poly::constant(3)).max_value(), Some(100));
    let f = Poly::var(fanout());
    assert_eq!(n.max(&f).max_value(), Some(5000));
    // Generic measures have no maximum yet: their greatest, which a
    // call fixes (`most.rs`; it was the sum `2 + |xs|`).
    let g = Poly::var(Var::new(VarKind::Generic("|xs|".into())));
    let most = g.max(&Poly::constant(2));
    assert_eq!(most.to_string(), "max(2, |xs|)");
    let at_call = most.substitute(&g.as_var().unwrap(), &Poly::constant(5));
    assert_eq!(at_call, Poly::constant(5));
}

#[test]
fn substitution_instantiates_generic_variables() {
    let size = Var::new(VarKind::Generic("|xs|".into()));
    let latent = Var::new(VarKind::Generic("seeks(key)".into()));
    let signature = Poly::var(size).times(&Poly::var(latent));
    let at_call = signature
        .substitute(&size, &Poly::var(fanout()))
        .substitute(&latent, &Poly::constant(2));
    assert_eq!(at_call.to_string(), "2·5000");
    assert_eq!(at_call.max_value(), Some(10000));
}

#[test]
fn tables_make_a_bound_unbounded() {
    let p = Poly::constant(1).plus(&Poly::var(Var::table("User")));
    assert_eq!(p.max_value(), None);
    assert_eq!(p.tables(), vec!["User".to_string()]);
    assert_eq!(p.to_string(), "1 + N(User)");
}

#[test]
fn substitution_of_every_measure_at_once_does_not_capture() {
    let generic = |n: &str| Var::new(VarKind::Generic(n.into()));
    let (a, b) = (generic("a"), generic("b"));
    // `f(a, b)` costs `a + b`; `w(b) = f(b, 5)` binds `a := b`, `b := 5`.
    let cost = Poly::var(a).plus(&Poly::var(b));
    let at_call = cost.substitute_all(&|v| {
        if *v == a {
            Some(Poly::var(b))
        } else if *v == b {
            Some(Poly::constant(5))
        } else {
            None
        }
    });
    assert_eq!(at_call, Poly::var(b).plus(&Poly::constant(5)));
    // Swapped: `a := b`, `b := a`.
    let swapped = Poly::var(a).substitute_all(&|v| {
        if *v == a {
            Some(Poly::var(b))
        } else if *v == b {
            Some(Poly::var(a))
        } else {
            None
        }
    });
    assert_eq!(swapped, Poly::var(b));
}
