//! A list given where a stream is taken runs as a stream: a function the callee maps over it runs on the elements its limit reads, never on the whole list, and every answer is the list's first elements past the skip (spec/cost.md §4.2).

use rqc::{Database, Value};
use rqc_tests::runs::run_within_bound as run;

const PROGRAM: &str = "
table User { id: Int key  name: String }
table Follow {
  follower: Int ref User
  followee: Int ref User
  key (follower, followee)
  bound follower <= 50
}
fn names(s: stream Follow) -> [String] =
  s |> map(f => User[f.followee] |> map(u => u.name) |> unwrap_or(\"?\")) |> take(5)
fn later(s: stream Follow) -> [String] =
  s |> skip(2) |> map(f => User[f.followee] |> map(u => u.name) |> unwrap_or(\"?\")) |> take(3)
fn any_named(s: stream Follow) -> Bool = s |> map(f => User[f.followee]) |> exists()
mutation user(id: Int, name: String) = insert User { id, name }
mutation follow(a: Int, b: Int) = insert Follow { follower: a, followee: b }
query first_names(u: Int) = { let fs = Follow[u]; names(fs) }
query later_names(u: Int) = { let fs = Follow[u]; later(fs) }
query some(u: Int) = { let fs = Follow[u]; any_named(fs) }
query direct(u: Int) = names(Follow[u])
";

fn names(value: &Value) -> Vec<String> {
    match value {
        Value::List(items) => items
            .iter()
            .map(|v| match v {
                Value::Str(s) => s.clone(),
                other => panic!("a name, not {other:?}"),
            })
            .collect(),
        other => panic!("a list, not {other:?}"),
    }
}

#[test]
fn a_list_read_as_a_stream_maps_only_what_its_limit_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("list_as_stream.rq", PROGRAM).unwrap();
    for id in 1..=41 {
        run(&db, "user", &[Value::Int(id), Value::Str(format!("u{id}"))]);
    }
    // User 1 follows 40 others: the list holds 40 rows.
    for b in 2..=41 {
        run(&db, "follow", &[Value::Int(1), Value::Int(b)]);
    }
    let u = [Value::Int(1)];
    let first = run(&db, "first_names", &u);
    assert_eq!(names(&first.value), ["u2", "u3", "u4", "u5", "u6"]);
    // The range's seek, then one lookup for each of the five read (the
    // 40-row list is made whole; the lookups are not made for all 40).
    assert_eq!(first.stats.seeks, 1 + 5);
    assert_eq!(first.stats.rows, 40 + 5);
    let later = run(&db, "later_names", &u);
    assert_eq!(names(&later.value), ["u4", "u5", "u6"]);
    assert_eq!(later.stats.seeks, 1 + 3);
    let some = run(&db, "some", &u);
    assert_eq!(some.value, Value::Bool(true));
    assert_eq!(some.stats.seeks, 1 + 1);
    assert_eq!(run(&db, "some", &[Value::Int(2)]).value, Value::Bool(false));
    // The island given directly is read as its stream: 5 rows only.
    let direct = run(&db, "direct", &u);
    assert_eq!(names(&direct.value), names(&first.value));
    assert_eq!(direct.stats.rows, 5 + 5);
}
