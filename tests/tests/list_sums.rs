//! A list's `sum` is exact whatever the order of its elements, as a kept aggregate's is: only the total must fit 64 bits (adversary finding: `[MAX, 1, -5]` overflowed while `[MAX, -5, 1]` summed).

use rqc::{Database, Value};

const PROGRAM: &str = "
query total(xs: [Int; <= 4]) = xs |> sum()
";

fn total(db: &Database, xs: &[i64]) -> Result<Value, String> {
    let list = Value::List(xs.iter().map(|&x| Value::Int(x)).collect());
    db.run("total", &[list])
        .map(|out| out.value)
        .map_err(|e| e.code().to_string())
}

#[test]
fn a_sum_does_not_depend_on_the_order_of_its_elements() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("sums.rq", PROGRAM).unwrap();
    let (max, min) = (i64::MAX, i64::MIN);
    for order in [[max, 1, -5], [max, -5, 1], [1, max, -5], [-5, 1, max]] {
        assert_eq!(total(&db, &order), Ok(Value::Int(max - 4)), "{order:?}");
    }
    for order in [[min, -1, 5], [5, min, -1], [-1, 5, min]] {
        assert_eq!(total(&db, &order), Ok(Value::Int(min + 4)), "{order:?}");
    }
    // The total itself past 64 bits is refused, at either end.
    assert_eq!(total(&db, &[max, 1]), Err("E0530".to_string()));
    assert_eq!(total(&db, &[min, min, max]), Err("E0530".to_string()));
    assert_eq!(total(&db, &[max, max, min, min]), Ok(Value::Int(-2)));
}

/// A sum of `Float`s is a `Float` when the list is empty too: `0.0`, not
/// the `Int` 0 (adversary: `(xs |> sum()) == 0.0` was false for `[]`, and
/// `(xs |> sum()) + 0.5` failed with E0594, "a bug in rqc").
#[test]
fn an_empty_sum_of_floats_is_a_float() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source(
        "floats.rq",
        "query zero(xs: [Float; <= 3]) = (xs |> sum()) == 0.0
query plus(xs: [Float; <= 3]) = (xs |> sum()) + 0.5
query fields(rs: [{ a: Float }; <= 3]) = rs |> sum(r => r.a)
query ints(xs: [Int; <= 3]) = xs |> sum()
",
    )
    .unwrap();
    let floats = |xs: &[f64]| Value::List(xs.iter().map(|&x| Value::Float(x)).collect());
    let run = |name: &str, arg: Value| db.run(name, &[arg]).map(|o| o.value);
    assert_eq!(run("zero", floats(&[])).unwrap(), Value::Bool(true));
    assert_eq!(run("plus", floats(&[])).unwrap(), Value::Float(0.5));
    assert_eq!(run("plus", floats(&[1.0, 2.0])).unwrap(), Value::Float(3.5));
    assert_eq!(
        run("fields", Value::List(vec![])).unwrap(),
        Value::Float(0.0)
    );
    assert_eq!(run("ints", Value::List(vec![])).unwrap(), Value::Int(0));
}
