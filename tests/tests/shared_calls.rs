//! A call an `if` makes twice, computed once by the checker (`repeated_calls.rs`), runs as the program means: never where the condition would skip it (the right of `&&` or `||`, an `if` inside the condition, a built-in's default), never read stale through a lambda a mutation applies after it writes, and with the answer of the same program written with a `let`, within its printed bound.

use rqc::{Database, Value};
use rqc_tests::runs::run_within_bound as run;

const PROGRAM: &str = "
table Item { id: Int key, owner: Int, index by_owner (owner) }
fn inv(n: Int) -> Int = 100 / n
fn dbl(n: Int) -> Int = n * 2
fn lim(n: Int) -> Int = n * 2 + 1
fn owned(o: Int) -> Int = Item.by_owner[o] |> take(1000) |> count()
fn mk(o: Int) -> Int -> Int = if owned(o) > 5 { x => x } else { x => owned(o) + x }
query right_of_and(n: Int) = if n != 0 && inv(n) > 5 { inv(n) } else { 0 }
query right_of_or(n: Int) = if n == 0 || inv(n) > 5 { 1 } else { inv(n) }
query inside_an_if(n: Int) = if (if n == 0 { false } else { inv(n) > 5 }) { inv(n) } else { 0 }
query a_default(n: Int) = if ([1] |> first() |> unwrap_or(inv(n))) > 0 { 1 } else { inv(n) }
query past_the_largest(n: Int) = if n < 1000 && dbl(n) > 5 { dbl(n) } else { 0 }
query clamped(n: Int) = Item |> take(if lim(n) > 3 { 3 } else { lim(n) }) |> count()
query clamped_by_let(n: Int) = { let l = lim(n); Item |> take(if l > 3 { 3 } else { l }) |> count() }
query owned_clamped(o: Int) = if owned(o) > 2 { 2 } else { owned(o) }
fn given(o: Int) -> (Int -> Int) -> Int = g => if owned(o) > 5 { 5 } else { g(0) + owned(o) }
mutation put(id: Int, owner: Int) = insert Item { id: id, owner: owner }
mutation given_a_writing_function(o: Int, id: Int) =
  given(o)(x => { insert Item { id: id, owner: o }; x })
mutation applied_after_a_write(o: Int, id: Int) = {
  let g = mk(o);
  insert Item { id: id, owner: o };
  g(0)
}
";

#[test]
fn a_shared_call_runs_only_where_the_condition_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("shared.rq", PROGRAM).unwrap();
    // With `n` 0 the condition never divides: the program's answer, not
    // a division by zero hoisted before it.
    for (name, answer) in [
        ("right_of_and", 0),
        ("right_of_or", 1),
        ("inside_an_if", 0),
        ("a_default", 1),
    ] {
        let out = run(&db, name, &[Value::Int(0)]);
        assert_eq!(out.value, Value::Int(answer), "{name} with n = 0");
    }
    // Where it does, the shared value is the call's.
    assert_eq!(
        run(&db, "right_of_and", &[Value::Int(4)]).value,
        Value::Int(25)
    );
    assert_eq!(
        run(&db, "right_of_or", &[Value::Int(50)]).value,
        Value::Int(2)
    );
    // `dbl` of the largest Int overflows: the condition's `n < 1000` fails first.
    let out = run(&db, "past_the_largest", &[Value::Int(i64::MAX)]);
    assert_eq!(out.value, Value::Int(0));
}

#[test]
fn a_shared_call_answers_as_a_named_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("shared.rq", PROGRAM).unwrap();
    for id in 1..=6 {
        run(&db, "put", &[Value::Int(id), Value::Int(id % 2)]);
    }
    for n in [i64::MIN / 4, -1, 0, 1, 2, 100] {
        let shared = run(&db, "clamped", &[Value::Int(n)]).value;
        let named = run(&db, "clamped_by_let", &[Value::Int(n)]).value;
        assert_eq!(shared, named, "n = {n}");
    }
    assert_eq!(
        run(&db, "owned_clamped", &[Value::Int(1)]).value,
        Value::Int(2)
    );
    assert_eq!(
        run(&db, "owned_clamped", &[Value::Int(9)]).value,
        Value::Int(0)
    );
}

#[test]
fn a_lambda_applied_after_a_write_reads_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("shared.rq", PROGRAM).unwrap();
    // Owner 7 has no items when `mk` is called, one when its lambda runs.
    let out = run(
        &db,
        "applied_after_a_write",
        &[Value::Int(7), Value::Int(70)],
    );
    assert_eq!(out.value, Value::Int(1));
    let out = run(
        &db,
        "applied_after_a_write",
        &[Value::Int(7), Value::Int(71)],
    );
    assert_eq!(out.value, Value::Int(2));
    // A lambda a function returns, given a function that writes between
    // the two calls: the second reads the write (adversary round 67).
    for (id, answer) in [(80, 1), (81, 2)] {
        let args = [Value::Int(8), Value::Int(id)];
        let out = run(&db, "given_a_writing_function", &args);
        assert_eq!(out.value, Value::Int(answer), "item {id}");
    }
}
