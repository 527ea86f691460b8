//! A definition named as a value runs as the lambda that calls it: `map(inc)`, `app(inc, 3)`, a function parameter passed on to a generic function, a mutation's writes through `map(add)`; each answer right and within its printed bound.

use rqc::{Database, Value};
use rqc_tests::runs::run_within_bound as run;

const PROGRAM: &str = "
table Item { id: Int key, v: Int }
fn inc(x: Int) -> Int = x + 1
fn dbl(x: Int) -> Int = x * 2
fn app(f: T -> U, x: T) -> U = f(x)
fn outer(h: Int -> Int, x: Int) -> Int = app(h, x)
fn compose(f: Int -> Int, g: Int -> Int) -> Int -> Int = x => g(f(x))
fn adder(a: Int) -> Int -> Int = x => x + a
fn value_of(id: Int) -> Int = Item[id] |> map(r => r.v) |> unwrap_or(-1)
mutation put(id: Int) = insert Item { id: id, v: id * 10 }
mutation add_all(ids: [Int; <= 10]) = ids |> map(put) |> count()
query mapped(xs: [Int; <= 5]) = xs |> map(inc) |> map(dbl)
query first_items(n: Int <= 10) = Item |> take(app(inc, n))
query passed_on(n: Int <= 10) = Item |> take(outer(dbl, n))
query composed(n: Int <= 10) = Item |> take(compose(inc, dbl)(n))
query curried(n: Int <= 10) = Item |> take(app(adder, n)(1))
query values(ids: [Int; <= 5]) = ids |> map(value_of)
";

fn ints(xs: &[i64]) -> Value {
    Value::List(xs.iter().map(|&x| Value::Int(x)).collect())
}

fn count(value: &Value) -> usize {
    match value {
        Value::List(items) => items.len(),
        other => panic!("a list, not {other:?}"),
    }
}

#[test]
fn definitions_named_as_values_run_within_their_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("values.rq", PROGRAM).unwrap();
    let written = run(&db, "add_all", &[ints(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])]);
    assert_eq!(written.value, Value::Int(10));
    assert_eq!(written.written, 10);
    // Writing through the named function again: the keys are taken.
    assert!(db.run("add_all", &[ints(&[3])]).is_err());
    let again = run(&db, "add_all", &[ints(&[11, 12])]);
    assert_eq!(again.value, Value::Int(2));

    assert_eq!(
        run(&db, "mapped", &[ints(&[1, -3, 0])]).value,
        ints(&[4, -4, 2])
    );
    for (name, n, expected) in [
        ("first_items", 3, 4),
        ("first_items", -5, 0),
        ("passed_on", 4, 8),
        ("passed_on", 10, 12),
        ("composed", 2, 6),
        ("composed", -1, 0),
        ("curried", 5, 6),
    ] {
        let out = run(&db, name, &[Value::Int(n)]);
        assert_eq!(count(&out.value), expected, "{name}({n})");
    }
    let values = run(&db, "values", &[ints(&[2, 99, 12])]);
    assert_eq!(values.value, ints(&[20, -1, 120]));
    // Three keys looked up together: one round trip, as a lambda's would be.
    assert_eq!(values.stats.round_trips, 1);
}
