//! End to end through the library: source text to rows in a real sled directory, across reopenings.

use rqc::{Database, Error, Value};
use std::path::PathBuf;

fn social() -> Vec<PathBuf> {
    vec![rqc_tests::repo_root().join("examples/social")]
}

fn runtime_code(error: Error) -> String {
    match error {
        Error::Runtime(e) => e.code.to_string(),
        other => panic!("expected a runtime error, got {other}"),
    }
}

#[test]
fn what_one_session_writes_the_next_one_reads() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = Database::open(dir.path()).unwrap();
        db.install_paths(&social()).unwrap();
        db.run(
            "add_user",
            &[1.into(), "ann".into(), "Ann".into(), "NZ".into()],
        )
        .unwrap();
        db.run(
            "add_user",
            &[2.into(), "bob".into(), "Bob".into(), "FR".into()],
        )
        .unwrap();
        let written = db.run("follow", &[1.into(), 2.into(), 100.into()]).unwrap();
        assert_eq!(written.written, 1);
        assert!(written.stats.seeks <= written.bound.seeks);
    }
    let mut db = Database::open(dir.path()).unwrap();
    db.install_paths(&social()).unwrap();
    let user = db.run("user", &[2.into()]).unwrap();
    assert_eq!(user.rows().len(), 1);
    assert_eq!(user.rows()[0].field("handle"), Some(&Value::from("bob")));
    let follow = db.run("follows", &[1.into(), 2.into()]).unwrap();
    assert_eq!(follow.rows()[0].field("since"), Some(&Value::Int(100)));
    assert!(db
        .run("follows", &[2.into(), 1.into()])
        .unwrap()
        .rows()
        .is_empty());
    assert_eq!(user.stats.seeks, 1);
    assert_eq!(user.stats.rows, 1);
}

#[test]
fn every_constraint_refuses_its_violation_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path()).unwrap();
    db.install_paths(&social()).unwrap();
    db.run(
        "add_user",
        &[1.into(), "ann".into(), "Ann".into(), "NZ".into()],
    )
    .unwrap();
    let again = db.run(
        "add_user",
        &[1.into(), "zed".into(), "Zed".into(), "NZ".into()],
    );
    assert_eq!(runtime_code(again.unwrap_err()), "E0501");
    let handle = db.run(
        "add_user",
        &[2.into(), "ann".into(), "Ann".into(), "NZ".into()],
    );
    assert_eq!(runtime_code(handle.unwrap_err()), "E0502");
    let dangling = db.run("follow", &[1.into(), 99.into(), 0.into()]);
    let error = dangling.unwrap_err();
    assert!(error.to_string().contains("`User` 99"), "{error}");
    assert_eq!(runtime_code(error), "E0503");
    // The refused rows left nothing behind: the handle and key are free.
    db.run(
        "add_user",
        &[2.into(), "bee".into(), "Bee".into(), "NZ".into()],
    )
    .unwrap();
    assert!(
        db.run("user", &[2.into()]).unwrap().rows()[0].field("handle") == Some(&Value::from("bee"))
    );
}

/// A required column added to a table that holds rows has no value for
/// them: refused whole (the empty table beside it is not changed either);
/// added to an empty table, it is taken.
#[test]
fn a_changed_schema_is_refused_whole() {
    const BEFORE: &str = "table E { id: Int key }\ntable T { id: Int key }
mutation put(id: Int) = insert T { id }\nquery t(id: Int) = T[id]";
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = Database::open(dir.path()).unwrap();
        db.install_source("a.rq", BEFORE).unwrap();
        db.run("put", &[1.into()]).unwrap();
    }
    let mut db = Database::open(dir.path()).unwrap();
    let changed = db.install_source(
        "a.rq",
        "table E { id: Int key  extra: Int }\ntable T { id: Int key  extra: Int }
mutation put(id: Int) = insert T { id, extra: 0 }\nquery t(id: Int) = T[id]",
    );
    let error = changed.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the new column `T.extra` has no value for the rows already stored"),
        "{error}"
    );
    assert_eq!(runtime_code(error), "E0510");
    // The original program still installs: nothing was half-applied.
    db.install_source("a.rq", BEFORE).unwrap();
    // The empty table takes the required column; its rows must give it.
    db.install_source(
        "a.rq",
        "table E { id: Int key  extra: Int }\ntable T { id: Int key }
mutation put(id: Int) = insert T { id }\nquery t(id: Int) = T[id]
mutation put_e(id: Int, x: Int) = insert E { id, extra: x }\nquery e(id: Int) = E[id]",
    )
    .unwrap();
    db.run("put_e", &[5.into(), 7.into()]).unwrap();
    let row = db.run("e", &[5.into()]).unwrap().value;
    assert_eq!(row.field("extra"), Some(&Value::Int(7)));
    assert_eq!(db.run("t", &[1.into()]).unwrap().rows().len(), 1);
}

#[test]
fn arguments_are_checked_against_parameter_types_and_bounds() {
    let mut db = Database::in_memory();
    db.install_source(
        "a.rq",
        "table T { id: Int key }\nmutation add(id: Int <= 10) = insert T { id: id }\nquery t(id: Int) = T[id]",
    )
    .unwrap();
    assert_eq!(
        runtime_code(db.run("t", &["x".into()]).unwrap_err()),
        "E0520"
    );
    assert_eq!(runtime_code(db.run("t", &[]).unwrap_err()), "E0520");
    assert_eq!(
        runtime_code(db.run("add", &[11.into()]).unwrap_err()),
        "E0522"
    );
    db.run("add", &[10.into()]).unwrap();
}

/// Both declared ends of an `Int` and a `String`'s bytes are checked
/// before the run: the bounds were proved under them (`skip(p * n)` reads
/// at most 10·10 + 10 rows only while `p >= 0`).
#[test]
fn arguments_are_checked_against_both_ends_and_string_lengths() {
    let mut db = Database::in_memory();
    db.install_source(
        "a.rq",
        "table T { id: Int key  g: Int  index by_g (g) }
mutation add(id: Int, g: Int) = insert T { id, g }
query page(g: Int, p: Int >= 0 <= 10, n: Int <= 10) = T.by_g[g] |> skip(p * n) |> take(n)
query below(k: Int >= -5 <= -1) = 0 - k
query named(s: String <= 4) = length(s)",
    )
    .unwrap();
    for id in 0..30 {
        db.run("add", &[id.into(), 1.into()]).unwrap();
    }
    let page = |db: &Database, p: i64, n: i64| db.run("page", &[1.into(), p.into(), n.into()]);
    let refused = page(&db, -1, -10).unwrap_err();
    assert_eq!(runtime_code(refused), "E0522");
    let refused = page(&db, 11, 1).unwrap_err();
    assert_eq!(runtime_code(refused), "E0522");
    let out = page(&db, 2, 10).unwrap();
    assert_eq!(out.rows().len(), 10);
    assert!(out.stats.rows <= 110, "{:?}", out.stats);
    // A negative count takes nothing.
    assert!(page(&db, 3, -2).unwrap().rows().is_empty());
    assert_eq!(
        runtime_code(db.run("below", &[0.into()]).unwrap_err()),
        "E0522"
    );
    assert_eq!(
        runtime_code(db.run("below", &[(-6).into()]).unwrap_err()),
        "E0522"
    );
    assert_eq!(
        db.run("below", &[(-5).into()]).unwrap().value,
        Value::Int(5)
    );
    // Bytes, not characters: "éé" is 4 bytes, "ééé" 6.
    assert_eq!(
        db.run("named", &["éé".into()]).unwrap().value,
        Value::Int(2)
    );
    let long = db.run("named", &["ééé".into()]).unwrap_err();
    assert!(long.to_string().contains("6 bytes long"), "{long}");
    assert_eq!(runtime_code(long), "E0522");
}

/// An optional parameter's ends hold for the value it holds; `none` is
/// within them (a `take` through `unwrap_or` is bounded by them).
#[test]
fn an_optional_arguments_value_is_checked_against_its_ends() {
    let mut db = Database::in_memory();
    db.install_source(
        "a.rq",
        "table T { id: Int key  tag: String? <= 4 }
mutation put(id: Int, tag: String? <= 4) = upsert T { id, tag }
query first(n: Int? >= 1 <= 3) = T |> take(n |> unwrap_or(2)) |> map(t => t.id)",
    )
    .unwrap();
    for id in 0..5 {
        db.run("put", &[id.into(), Value::Null]).unwrap();
    }
    let long = db.run("put", &[9.into(), "abcde".into()]).unwrap_err();
    assert_eq!(runtime_code(long), "E0522");
    db.run("put", &[9.into(), "abcd".into()]).unwrap();
    for n in [0, 4] {
        let refused = db.run("first", &[n.into()]).unwrap_err();
        assert_eq!(runtime_code(refused), "E0522", "{n}");
    }
    assert_eq!(db.run("first", &[3.into()]).unwrap().rows().len(), 3);
    assert_eq!(db.run("first", &[Value::Null]).unwrap().rows().len(), 2);
}

#[test]
fn a_list_sized_by_a_parameter_is_no_longer_than_that_argument() {
    let mut db = Database::in_memory();
    db.install_source(
        "a.rq",
        "table T { id: Int key }\nquery ls(n: Int <= 10, ids: [Int; <= n]) = ids |> map(i => T[i])",
    )
    .unwrap();
    let five: Value = Value::List((1..=5).map(Value::Int).collect());
    assert_eq!(
        runtime_code(db.run("ls", &[3.into(), five.clone()]).unwrap_err()),
        "E0522"
    );
    assert_eq!(
        runtime_code(
            db.run("ls", &[(-1).into(), Value::List(vec![1.into()])])
                .unwrap_err()
        ),
        "E0522"
    );
    assert_eq!(db.run("ls", &[5.into(), five]).unwrap().rows().len(), 5);
}

#[test]
fn a_list_of_records_is_an_argument_like_any_other() {
    use rqc_plan::Record;
    let mut db = Database::in_memory();
    db.install_source(
        "batch.rq",
        "table Item { id: Int key  name: String  price: Int? }
mutation add_many(rows: [{ id: Int, name: String, price: Int? }; <= 3]) =
  rows |> map(r => insert Item { id: r.id, name: r.name, price: r.price })
query item(id: Int) = Item[id]",
    )
    .unwrap();
    let row = |id: i64, name: &str, price: Value| {
        Value::Record(Record::new(vec![
            ("id".into(), id.into()),
            ("name".into(), name.into()),
            ("price".into(), price),
        ]))
    };
    let out = db
        .run(
            "add_many",
            &[Value::List(vec![
                row(1, "lamp", 5.into()),
                row(2, "cup", Value::Null),
            ])],
        )
        .unwrap();
    assert_eq!(out.written, 2);
    assert_eq!(
        db.run("item", &[2.into()]).unwrap().rows()[0].field("name"),
        Some(&"cup".into())
    );
    // A record missing a field, or a fourth row, is refused before anything runs.
    let short = Value::Record(Record::new(vec![("id".into(), 3.into())]));
    assert_eq!(
        runtime_code(db.run("add_many", &[Value::List(vec![short])]).unwrap_err()),
        "E0520"
    );
    let four = Value::List((10..14).map(|i| row(i, "x", Value::Null)).collect());
    assert_eq!(
        runtime_code(db.run("add_many", &[four]).unwrap_err()),
        "E0522"
    );
    assert!(db.run("item", &[10.into()]).unwrap().rows().is_empty());
}

#[test]
fn many_rows_may_hold_none_in_a_unique_column() {
    let mut db = Database::in_memory();
    db.install_source(
        "u.rq",
        "table Person { id: Int key  email: String? unique }
mutation add(id: Int, email: String?) = insert Person { id, email }
mutation set_email(id: Int, email: String?) = update Person[id] { email: email }
query by_email(e: String?) = Person.email[e]
query person(id: Int) = Person[id]",
    )
    .unwrap();
    for id in 1..=3 {
        db.run("add", &[id.into(), Value::Null]).unwrap();
    }
    db.run("add", &[4.into(), "ann@x".into()]).unwrap();
    assert_eq!(
        runtime_code(db.run("add", &[5.into(), "ann@x".into()]).unwrap_err()),
        "E0502"
    );
    let found = db.run("by_email", &["ann@x".into()]).unwrap();
    assert_eq!(found.rows()[0].field("id"), Some(&Value::Int(4)));
    // `none` matches no row, as in SQL.
    assert!(db
        .run("by_email", &[Value::Null])
        .unwrap()
        .rows()
        .is_empty());
    // A row holding none takes a free value, not a taken one; back to none.
    db.run("set_email", &[1.into(), "bo@x".into()]).unwrap();
    assert_eq!(
        runtime_code(db.run("set_email", &[2.into(), "bo@x".into()]).unwrap_err()),
        "E0502"
    );
    db.run("set_email", &[1.into(), Value::Null]).unwrap();
    db.run("set_email", &[2.into(), "bo@x".into()]).unwrap();
    let found = db.verify().unwrap();
    assert!(found.is_sound(), "{:?}", found.problems);
}

#[test]
fn values_convert_from_options_and_vectors_and_errors_show_their_code() {
    assert_eq!(Value::from(None::<i64>), Value::Null);
    assert_eq!(Value::from(Some("a")), Value::from("a"));
    assert_eq!(
        Value::from(vec![1i64, 2]),
        Value::List(vec![Value::Int(1), Value::Int(2)])
    );
    let db = Database::in_memory();
    let error = db.run("nothing", &[]).unwrap_err();
    assert!(error.to_string().starts_with("[E0514] Error: "), "{error}");
}

#[test]
fn functions_of_one_value_compute_as_written() {
    let mut db = Database::in_memory();
    db.install_source(
        "f.rq",
        "table Item { id: Int key  name: String  note: String? }
mutation add(id: Int, name: String, note: String?) = insert Item { id, name, note }
query show(id: Int) = Item[id] |> map(i => { len: length(i.name), up: upper(i.name), low: i.name |> lower(), half: float(i.id) / 2.0, note: length(i.note) })",
    )
    .unwrap();
    db.run("add", &[3.into(), "Lampé".into(), Value::Null])
        .unwrap();
    let row = db.run("show", &[3.into()]).unwrap().rows()[0].clone();
    assert_eq!(
        row.field("len"),
        Some(&Value::Int(5)),
        "characters, not bytes"
    );
    assert_eq!(row.field("up"), Some(&Value::from("LAMPÉ")));
    assert_eq!(row.field("low"), Some(&Value::from("lampé")));
    assert_eq!(row.field("half"), Some(&Value::Float(1.5)));
    assert_eq!(row.field("note"), Some(&Value::Null));
}

#[test]
fn avg_is_the_mean_and_none_of_nothing() {
    let mut db = Database::in_memory();
    db.install_source(
        "a.rq",
        "table Item { id: Int key  shelf: Int  price: Int  index by_shelf (shelf)  bound shelf <= 50 }
mutation add(id: Int, shelf: Int, price: Int) = insert Item { id, shelf, price }
query mean(s: Int) = Item.by_shelf[s] |> avg(i => i.price)",
    )
    .unwrap();
    for (id, shelf, price) in [(1, 1, 10), (2, 1, 15), (3, 2, 7)] {
        db.run("add", &[id.into(), shelf.into(), price.into()])
            .unwrap();
    }
    assert_eq!(
        db.run("mean", &[1.into()]).unwrap().value,
        Value::Float(12.5)
    );
    assert_eq!(db.run("mean", &[9.into()]).unwrap().value, Value::Null);
}

#[test]
fn plain_rows_load_all_or_nothing() {
    let mut db = Database::in_memory();
    db.install_source(
        "l.rq",
        "table Item { id: Int key  name: String }\nquery item(id: Int) = Item[id]",
    )
    .unwrap();
    let report = db
        .load(
            "Item",
            vec![vec![1.into(), "a".into()], vec![2.into(), "b".into()]],
        )
        .unwrap();
    assert_eq!(report.written, 2);
    let refused = db
        .load(
            "Item",
            vec![vec![3.into(), "c".into()], vec![1.into(), "again".into()]],
        )
        .unwrap();
    assert_eq!(refused.written, 0);
    assert_eq!(refused.rejected[0].0, 2, "the second row is refused");
    assert!(
        db.run("item", &[3.into()]).unwrap().rows().is_empty(),
        "nothing of it"
    );
}

/// No `Float` is infinite or NaN (JSON would print either as `null`): a
/// literal past the largest float is E0006, a division of floats by zero
/// E0531, a result past the largest float E0538, and an infinite argument
/// E0520. The same arithmetic within range answers as before.
#[test]
fn float_arithmetic_never_answers_an_infinity() {
    let mut db = Database::in_memory();
    let literal = db
        .install_source("big.rq", "query q(a: Int) = 1e999999")
        .unwrap_err();
    assert_eq!(literal.code(), "E0006", "{literal}");
    db.install_source(
        "f.rq",
        "query div(x: Float, y: Float) = x / y
query rem(x: Float, y: Float) = x % y
query mul(x: Float, y: Float) = x * y
query add(x: Float, y: Float) = x + y
query constant() = 1.0 / 0.0
query total(xs: [Float; <= 5]) = xs |> sum()
query mean(xs: [Float; <= 5]) = xs |> avg(x => x)",
    )
    .unwrap();
    let float = |x: f64| Value::Float(x);
    let floats = |xs: &[f64]| Value::List(xs.iter().copied().map(Value::Float).collect());
    let code = |db: &Database, name: &str, args: &[Value]| match db.run(name, args) {
        Ok(output) => panic!("`{name}` answered {}", output.value),
        Err(error) => runtime_code(error),
    };
    assert_eq!(code(&db, "div", &[float(1.0), float(0.0)]), "E0531");
    assert_eq!(code(&db, "div", &[float(-1.0), float(-0.0)]), "E0531");
    assert_eq!(code(&db, "div", &[float(0.0), float(0.0)]), "E0531");
    assert_eq!(code(&db, "rem", &[float(1.0), float(0.0)]), "E0531");
    assert_eq!(code(&db, "constant", &[]), "E0531");
    assert_eq!(code(&db, "mul", &[float(1e308), float(10.0)]), "E0538");
    assert_eq!(
        code(&db, "add", &[float(f64::MAX), float(f64::MAX)]),
        "E0538"
    );
    assert_eq!(code(&db, "div", &[float(-1e308), float(1e-10)]), "E0538");
    assert_eq!(code(&db, "total", &[floats(&[1e308, 1e308])]), "E0538");
    let infinite = db.run("div", &[float(f64::INFINITY), float(1.0)]);
    let error = infinite.unwrap_err();
    assert!(error.to_string().contains("infinite or NaN"), "{error}");
    assert_eq!(runtime_code(error), "E0520");
    assert_eq!(code(&db, "mul", &[float(f64::NAN), float(1.0)]), "E0520");
    assert_eq!(
        code(&db, "total", &[floats(&[1.0, f64::NEG_INFINITY])]),
        "E0520"
    );
    // Within range, as before; a mean of values near the largest is theirs.
    let value = |name: &str, args: &[Value]| db.run(name, args).unwrap().value;
    assert_eq!(value("div", &[float(1.0), float(4.0)]), float(0.25));
    assert_eq!(value("rem", &[float(7.5), float(2.0)]), float(1.5));
    assert_eq!(value("mul", &[float(1e154), float(1e154)]), float(1e308));
    assert_eq!(value("total", &[floats(&[1e308, -1e308])]), float(0.0));
    assert_eq!(value("mean", &[floats(&[1e308, 1e308])]), float(1e308));
    assert_eq!(
        value("mean", &[floats(&[f64::MAX, f64::MAX])]),
        float(f64::MAX)
    );
    assert_eq!(value("mean", &[floats(&[1.0, 2.0])]), float(1.5));
}
