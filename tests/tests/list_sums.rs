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
