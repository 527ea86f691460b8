//! Values built of one name used many times run in time and memory linear in the program: a name's list or record is shared by its uses, never copied (adversary finding: `let a_i = [a_{i-1}, a_{i-1}]` doubled the run's memory at each `let`).

use rqc::{Database, Value};

/// `let a0 = [x, x]`, then `let a{i} = {step(i)}` up to `a{levels - 1}`,
/// then `{last}` on it.
fn doubling(name: &str, levels: usize, step: impl Fn(usize) -> String, last: &str) -> String {
    doubling_after("", name, levels, step, last)
}

/// `doubling`, its lets after `prelude`.
fn doubling_after(
    prelude: &str,
    name: &str,
    levels: usize,
    step: impl Fn(usize) -> String,
    last: &str,
) -> String {
    let mut body = format!("{prelude}  let a0 = [x, x];\n");
    for i in 1..levels {
        body.push_str(&format!("  let a{i} = {};\n", step(i)));
    }
    format!(
        "query {name}(x: Int) = {{\n{body}  a{} {last}\n}}\n",
        levels - 1
    )
}

/// Queries whose values hold 2^60 integers if each use of a name were a
/// copy: a run would never end, or end out of memory.
fn sixty_levels() -> String {
    let pair = |i: usize| format!("[a{}, a{}]", i - 1, i - 1);
    [
        "module m\nfn twice<T>(y: T) = [y, y]\n".to_string(),
        doubling("counted", 60, pair, "|> count()"),
        doubling(
            "mapped",
            60,
            pair,
            "|> map(y => y |> count()) |> sum(n => n)",
        ),
        doubling(
            "head",
            60,
            pair,
            "|> skip(1) |> map(y => y |> count()) |> sum(n => n)",
        ),
        doubling("called", 60, |i| format!("twice(a{})", i - 1), "|> count()"),
        doubling_after(
            "  let f = z => [z, z];\n",
            "lambda",
            60,
            |i| format!("f(a{})", i - 1),
            "|> count()",
        ),
        // A record of one name twice doubles its type too, which stops
        // records at 12 doublings (E0423).
        doubling(
            "records",
            11,
            |i| format!("{{p: a{0}, q: a{0}}}", i - 1),
            ".p.q.p.q.p.q.p.q.p.q |> count()",
        ),
    ]
    .concat()
}

/// A database holding `source`, every entry point of which checks.
fn installed(source: &str) -> Database {
    let compilation = rqc_compiler::compile(&[("m.rq".to_string(), source.to_string())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let mut db = Database::in_memory();
    db.install_source("m.rq", source)
        .expect("the program installs");
    db
}

fn answer(db: &Database, name: &str) -> Value {
    db.run(name, &[Value::Int(7)]).expect(name).value
}

#[test]
fn doubling_a_shared_value_sixty_times_runs_at_once() {
    let db = installed(&sixty_levels());
    assert_eq!(answer(&db, "counted"), Value::Int(2));
    assert_eq!(answer(&db, "mapped"), Value::Int(4));
    assert_eq!(answer(&db, "head"), Value::Int(2));
    assert_eq!(answer(&db, "called"), Value::Int(2));
    assert_eq!(answer(&db, "lambda"), Value::Int(2));
    assert_eq!(answer(&db, "records"), Value::Int(2));
}

/// The value of `a{levels - 1}` with `a0 = [x, x]` and each level a pair.
fn pairs(x: i64, levels: usize) -> Value {
    let mut value = Value::List(vec![Value::Int(x), Value::Int(x)]);
    for _ in 1..levels {
        value = Value::List(vec![value.clone(), value]);
    }
    value
}

#[test]
fn a_result_built_of_shared_parts_is_returned_whole() {
    let source = [
        "module m\n".to_string(),
        doubling("whole", 8, |i| format!("[a{}, a{}]", i - 1, i - 1), ""),
        // Shared parts beside fresh ones, in a record and an option.
        "query mixed(x: Int) = {\n  let a = [x, x];\n  let r = {a: a, b: [a, [x + 1]], c: a |> first()};\n  [r, r]\n}\n".to_string(),
        // Equality of two shared values, and of a shared value with a fresh one.
        "query equal(x: Int) = {\n  let a = [[x], [x]];\n  let b = [a, a];\n  [b == b, b == [[[x], [x]], [[x], [x + 1]]]]\n}\n".to_string(),
    ]
    .concat();
    let db = installed(&source);
    assert_eq!(answer(&db, "whole"), pairs(7, 8));
    let a = Value::List(vec![Value::Int(7), Value::Int(7)]);
    let record = Value::Record(
        [
            ("a".to_string(), a.clone()),
            (
                "b".to_string(),
                Value::List(vec![a.clone(), Value::List(vec![Value::Int(8)])]),
            ),
            ("c".to_string(), Value::Int(7)),
        ]
        .into_iter()
        .collect(),
    );
    assert_eq!(
        answer(&db, "mixed"),
        Value::List(vec![record.clone(), record])
    );
    assert_eq!(
        answer(&db, "equal"),
        Value::List(vec![Value::Bool(true), Value::Bool(false)])
    );
}

/// `count`, `first`, `take`, `skip` and `exists` on a shared list (and on
/// the flattened lists built of it) answer as on a fresh one.
#[test]
fn reading_part_of_a_shared_list_gives_what_a_fresh_one_would() {
    let mut lets = String::from("  let a0 = [x, x + 1];\n");
    for i in 1..13 {
        lets.push_str(&format!("  let a{i} = [a{0}, a{0}] |> flatten();\n", i - 1));
    }
    let source = format!(
        "module m\n\
         query parts(x: Int) = {{\n{lets}  [a12 |> count(), a12 |> first() |> unwrap_or(0), a12 |> take(3) |> sum(n => n), a12 |> skip(8190) |> sum(n => n)]\n}}\n\
         query some(x: Int) = {{\n  let a = [x, x];\n  let b = [a, a] |> flatten();\n  [b |> exists(), b |> skip(4) |> exists(), b |> take(0) |> exists()]\n}}\n"
    );
    let db = installed(&source);
    // 2^13 items alternating 7 and 8.
    assert_eq!(
        answer(&db, "parts"),
        Value::List(vec![
            Value::Int(8192),
            Value::Int(7),
            Value::Int(22),
            Value::Int(15)
        ])
    );
    assert_eq!(
        answer(&db, "some"),
        Value::List(vec![
            Value::Bool(true),
            Value::Bool(false),
            Value::Bool(false)
        ])
    );
}

/// A string joined to itself at each `let` doubles, and a joined string is
/// copied: past 16 MiB the run stops with E0539 (a query printed `rows ≤
/// 0` asked for 8 GB: adversary finding); below it, it runs.
#[test]
fn a_string_doubled_past_sixteen_mib_overflows() {
    let doubled = |levels: usize| {
        let mut body = String::from("  let s0 = \"abcdefgh\";\n");
        for i in 1..=levels {
            body.push_str(&format!("  let s{i} = s{} + s{};\n", i - 1, i - 1));
        }
        format!("query s{levels}(x: Int) = {{\n{body}  length(s{levels})\n}}\n")
    };
    let source = format!("module m\n{}{}", doubled(20), doubled(22));
    let db = installed(&source);
    assert_eq!(answer(&db, "s20"), Value::Int(8 << 20));
    let error = db.run("s22", &[Value::Int(7)]).unwrap_err();
    assert_eq!(error.code(), "E0539", "{error}");
}
