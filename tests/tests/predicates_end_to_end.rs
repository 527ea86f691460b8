//! The predicates over indexes end to end, through examples/social's
//! search.rq and a program of String keys: answers, order, each row once,
//! and the batch's one round trip, in memory and on etcd; `none` in every
//! position, run.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Engine, Output};
use rqc_tests::{relative, rq_files};

#[derive(Clone, Copy)]
enum On {
    Memory,
    Etcd,
}

fn engine_for(files: Vec<(String, String)>, on: On) -> Engine {
    let compilation = compile(&files);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:#?}",
        compilation.diagnostics
    );
    let mut engine = match on {
        On::Memory => Engine::in_memory(),
        On::Etcd => rqc_tests::etcd::engine(),
    };
    engine.install(compilation.program).unwrap();
    engine
}

fn run(engine: &Engine, name: &str, args: Vec<Value>) -> Output {
    let output = engine
        .run(name, &args)
        .unwrap_or_else(|e| panic!("{name}({args:?}): {e}"));
    assert!(
        output.stats.seeks <= output.bound.seeks
            && output.stats.rows <= output.bound.rows
            && output.stats.round_trips <= output.bound.round_trips,
        "{name}: {:?} over {:?}",
        output.stats,
        output.bound
    );
    output
}

fn ints(values: &[i64]) -> Value {
    Value::List(values.iter().map(|&v| Value::Int(v)).collect())
}

/// The values of one field of each row of a list.
fn field(value: &Value, name: &str) -> Vec<Value> {
    let Value::List(rows) = value else {
        panic!("not a list: {value:?}")
    };
    rows.iter()
        .map(|r| r.field(name).unwrap().clone())
        .collect()
}

fn social_search(on: On) {
    // On etcd, without deleting a whole island: its commit passes the
    // cluster's operation limit (refused at install, E0570), and the
    // search needs it not.
    let files = rq_files("examples/social")
        .iter()
        .map(|p| {
            let mut text = std::fs::read_to_string(p).unwrap();
            if matches!(on, On::Etcd) {
                text = text.replace("pub mutation unfollow_all(u: Int) = delete Follow[u]", "");
            }
            (relative(p), text)
        })
        .collect();
    let e = engine_for(files, on);
    for (id, handle, country) in [
        (1, "ann", "NZ"),
        (2, "anna", "NL"),
        (3, "bob", ""),
        (4, "an\0x", "XX"),
        (5, "zoe", "NZ"),
    ] {
        run(
            &e,
            "add_user",
            vec![id.into(), handle.into(), "N".into(), country.into()],
        );
    }
    run(&e, "add_country", vec!["NZ".into(), "New Zealand".into()]);
    run(&e, "add_country", vec!["NL".into(), "Netherlands".into()]);
    run(&e, "add_country", vec!["DE".into(), "Germany".into()]);
    for (a, b) in [(1, 2), (1, 3), (2, 3), (2, 5)] {
        run(&e, "follow", vec![a.into(), b.into(), 0.into()]);
    }
    for (id, author, at) in [(10, 1, 5), (11, 1, 7), (12, 2, 6)] {
        run(
            &e,
            "add_post",
            vec![id.into(), author.into(), at.into(), "x".into()],
        );
    }

    // In the list's order, each once, unknown ids left out; one batch.
    let users = run(&e, "users", vec![ints(&[3, 1, 3, 99, 2])]);
    assert_eq!(
        field(&users.value, "id"),
        vec![3.into(), 1.into(), 2.into()]
    );
    assert_eq!(users.stats.round_trips, 1, "one batch for the list");
    assert_eq!(users.stats.seeks, 4, "one lookup per distinct id");

    let handles = run(&e, "handles_starting", vec!["an".into(), 20.into()]);
    assert_eq!(
        field(&handles.value, "handle"),
        vec!["an\0x".into(), "ann".into(), "anna".into()],
        "handle order, `\\0` sorting first, nothing that merely sorts near"
    );
    let escaped = run(&e, "handles_starting", vec!["an\0".into(), 20.into()]);
    assert_eq!(field(&escaped.value, "handle"), vec![Value::from("an\0x")]);
    let limited = run(&e, "handles_starting", vec!["".into(), 2.into()]);
    assert_eq!(limited.stats.rows, 2, "a limit stops the range");

    let countries = run(&e, "countries_starting", vec!["N".into()]);
    assert_eq!(
        field(&countries.value, "code"),
        vec!["NL".into(), "NZ".into()]
    );

    let either = run(&e, "followed_by_either", vec![1.into(), 2.into()]);
    assert_eq!(either.value, ints(&[2, 3, 5]));

    // The same author on both sides: each post once.
    let same = run(&e, "two_authors", vec![1.into(), 1.into(), 20.into()]);
    assert_eq!(field(&same.value, "id"), vec![11.into(), 10.into()]);
    let two = run(&e, "two_authors", vec![2.into(), 1.into(), 1.into()]);
    assert_eq!(field(&two.value, "id"), vec![12.into(), 11.into()]);

    let which = run(&e, "follows_which", vec![2.into(), ints(&[5, 1, 3, 5])]);
    assert_eq!(which.value, ints(&[5, 3]));
    assert_eq!(which.stats.round_trips, 1);

    let card = |id: i64| run(&e, "card", vec![id.into()]).value;
    assert_eq!(card(1).field("country"), Some(&Value::from("New Zealand")));
    assert_eq!(
        card(3).field("country"),
        Some(&Value::Null),
        "no country: none"
    );
    assert_eq!(
        card(4).field("country"),
        Some(&Value::Null),
        "an unknown code: none"
    );
}

#[test]
fn social_search_in_memory() {
    social_search(On::Memory);
}

#[test]
fn social_search_on_etcd() {
    social_search(On::Etcd);
}

/// `none` as an argument, a field, a list element, an `if` branch, compared,
/// written into an optional column and through a generic function.
#[test]
fn none_in_every_position_runs() {
    let source = "\
table P {
  id: Int key
  nick: String?
}
fn or_zero(x: Int?) = x |> unwrap_or(0)
fn pair<A>(a: A, b: A) = [a, b]
mutation add(id: Int, nick: String?) = insert P { id, nick }
mutation clear(id: Int) = update P[id] { nick: none }
query argument() = or_zero(none)
query fields(i: Int) = P[i] |> map(p => { nick: if p.id > 1 { p.nick } else { none }, missing: p.nick == none })
query elements(x: Int) = [none, x] |> flatten()
query generic(x: Int) = pair(none, x)
";
    let e = engine_for(vec![("n.rq".into(), source.into())], On::Memory);
    run(&e, "add", vec![1.into(), Value::Null]);
    run(&e, "add", vec![2.into(), "b".into()]);
    assert_eq!(run(&e, "argument", vec![]).value, Value::Int(0));
    let two = run(&e, "fields", vec![2.into()]).value;
    assert_eq!(two.field("nick"), Some(&Value::from("b")));
    assert_eq!(two.field("missing"), Some(&Value::Bool(false)));
    let one = run(&e, "fields", vec![1.into()]).value;
    assert_eq!(one.field("nick"), Some(&Value::Null));
    assert_eq!(one.field("missing"), Some(&Value::Bool(true)));
    run(&e, "clear", vec![2.into()]);
    assert_eq!(
        run(&e, "fields", vec![2.into()]).value.field("missing"),
        Some(&Value::Bool(true))
    );
    assert_eq!(run(&e, "elements", vec![7.into()]).value, ints(&[7]));
    assert_eq!(
        run(&e, "generic", vec![7.into()]).value,
        Value::List(vec![Value::Null, Value::Int(7)])
    );
}
