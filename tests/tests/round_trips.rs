//! Round trips (spec/cost.md §11): the printed bound of the join shapes, the actual count on every backend (the same everywhere), the batch of an index nested loop as one call, the commit counted, and a bound set too small enforced (E0546, nothing written).

use rqc::{Backend, Database, OpenOptions, Value};

const PROGRAM: &str = "
table User {
  id: Int key
  name: String
  handle: String unique
  handle_of: Int
}
table Follow {
  follower: Int
  followee: Int
  key (follower, followee)
  bound follower <= 50
}
mutation add_user(id: Int, name: String, handle: String) =
  insert User { id, name, handle, handle_of: id + 10 }
mutation follow(a: Int, b: Int) = insert Follow { follower: a, followee: b }
// The index nested loop join over an island: one get_many for all k.
query followed(u: Int) = Follow[u] |> map(f => User[f.followee]) |> flatten()
// Two lookups per element, one keyed by a parameter, inside a record.
query pairs(u: Int, h: String) =
  Follow[u] |> map(f => { them: User[f.followee], me: User.handle[h] })
// A second level (keyed by a row read in the body): one more batch.
query second(u: Int) =
  Follow[u] |> map(f => { let x = User[f.followee]; x |> map(v => User[v.handle_of]) })
// Chosen by `if`: the branches taken, in one batch.
query chosen(u: Int) =
  Follow[u] |> map(f => if f.followee > 2 { User[f.followee] } else { none })
// Decided by the second follow (3) without a read; the others read a user
// that is not there (12, 14..16).
query decided(u: Int) =
  Follow[u] |> any(f => f.followee == 3 || (User[f.followee + 10] |> exists()))
// The third follow (4) fails before its read; the others read a user.
// (The divisor is the follower's, 1 in the test: `f.followee - 4` is
// proved 0 in that branch now that an `if` narrows fields, E0322.)
query failing(u: Int) =
  Follow[u] |> map(f => if f.followee == 4 { 1 / (f.follower - 1) } else {
    User[f.followee] |> map(v => v.id) |> unwrap_or(0) })
";

fn open(dir: &std::path::Path, backend: Backend) -> Database {
    installed(dir, backend, PROGRAM)
}

/// A database on `backend` in `dir` with `source` installed.
fn installed(dir: &std::path::Path, backend: Backend, source: &str) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            ..OpenOptions::default()
        },
    )
    .unwrap();
    db.install_source("rt.rq", source).unwrap();
    db
}

fn stock(db: &Database) {
    for id in 1..=6i64 {
        let name = format!("u{id}");
        db.run("add_user", &[id.into(), name.clone().into(), name.into()])
            .unwrap();
    }
    for b in 2..=6i64 {
        db.run("follow", &[1.into(), b.into()]).unwrap();
    }
}

/// (seeks, rows, round trips) of a run, and its bound's round trips.
type Figures = ((u64, u64, u64), u64);

fn figures(db: &Database, name: &str, args: &[Value]) -> Figures {
    let output = db.run(name, args).unwrap();
    let s = output.stats;
    ((s.seeks, s.rows, s.round_trips), output.bound.round_trips)
}

#[test]
fn the_printed_bounds_batch_the_join_and_nothing_else() {
    let compilation = rqc_compiler::compile(&[("rt.rq".to_string(), PROGRAM.to_string())]);
    let bound = |name: &str| {
        let entry = compilation.program.entry(name).unwrap();
        (entry.bound.seeks, entry.bound.round_trips)
    };
    assert_eq!(bound("followed"), (51, 2));
    assert_eq!(bound("pairs"), (1 + 50 + 100, 3));
    assert_eq!(bound("second"), (101, 3));
    assert_eq!(bound("chosen"), (51, 2));
    // A write's reads, and its commit: the changelog head's read and the
    // commit itself.
    let add = compilation.program.entry("add_user").unwrap();
    assert_eq!((add.bound.seeks, add.bound.round_trips), (3, 4));
}

#[test]
fn every_backend_counts_the_same_round_trips_within_the_bound() {
    let mut seen: Option<Vec<Figures>> = None;
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path(), backend);
        stock(&db);
        let runs = vec![
            figures(&db, "followed", &[1.into()]),
            figures(&db, "pairs", &[1.into(), "u3".into()]),
            figures(&db, "second", &[1.into()]),
            figures(&db, "chosen", &[1.into()]),
            figures(&db, "followed", &[9.into()]),
        ];
        for ((_, _, trips), bound) in &runs {
            assert!(trips <= bound, "{backend:?}: {runs:?}");
        }
        // Five follows: the scan, then one batch; seeks still one per lookup.
        assert_eq!(runs[0].0, (6, 10, 2), "{backend:?}");
        assert_eq!(runs[1].0, (11, 15, 3), "{backend:?}");
        // A second level: one more batch (ids 12..16 are no users: 5 seeks,
        // no rows). Chosen by `if`: the four taken in one batch.
        assert_eq!(runs[2].0, (11, 10, 3), "{backend:?}");
        assert_eq!(runs[3].0, (5, 9, 2), "{backend:?}");
        // No follows: the scan alone.
        assert_eq!(runs[4].0, (1, 0, 1), "{backend:?}");
        match &seen {
            None => seen = Some(runs),
            Some(first) => assert_eq!(first, &runs, "{backend:?} counts differently"),
        }
    }
}

/// Applications read ahead and kept from the pass that completed them count
/// as one by one: `any` stops at the element that decides (what the
/// elements after it read in the batch is not counted), and an element's
/// error is the run's even when later elements needed another pass.
#[test]
fn kept_applications_count_and_fail_as_one_by_one() {
    for backend in [Backend::Memory, Backend::Lmdb] {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path(), backend);
        stock(&db);
        // One by one: the scan (1 seek, 5 rows), then follow 2's lookup of
        // user 12 (1 seek, no row), then follow 3 decides. One batch.
        let ((seeks, rows, trips), bound) = figures(&db, "decided", &[1.into()]);
        assert_eq!((seeks, rows, trips), (2, 5, 2), "{backend:?}");
        assert!(trips <= bound, "{backend:?}");
        let output = db.run("decided", &[1.into()]).unwrap();
        assert_eq!(output.value, Value::Bool(true), "{backend:?}");
        let error = db.run("failing", &[1.into()]).unwrap_err();
        assert_eq!(error.code(), "E0531", "{backend:?}: {error}");
    }
}

#[test]
fn a_mutation_counts_its_reads_and_its_commit() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), Backend::Redb);
    let added = db
        .run("add_user", &[1.into(), "a".into(), "a".into()])
        .unwrap();
    // The key check, the unique check: two reads, then the commit's read
    // of the changelog's head and the commit.
    assert_eq!(added.stats.round_trips, 4);
    assert!(added.stats.round_trips <= added.bound.round_trips);
    let refused = db
        .run("add_user", &[1.into(), "b".into(), "b".into()])
        .unwrap_err();
    assert_eq!(refused.code(), "E0501");
}

#[test]
fn explain_analyze_counts_without_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), Backend::Memory);
    stock(&db);
    let entry = db.program().unwrap().entry("followed").unwrap().clone();
    let output = db.analyze("followed", &[1.into()]).unwrap();
    let root = output.operators[entry.root.id as usize];
    assert_eq!(root.round_trips, 2);
    assert_eq!(output.stats.round_trips, 2);
}

/// The program installed in memory, stocked, with one entry point whose
/// round-trip bound is set below what it makes (as a checker bug would).
fn with_bound_too_small(name: &str, round_trips: u64) -> (rqc_runtime::Engine, rqc_plan::Entry) {
    let compilation = rqc_compiler::compile(&[("rt.rq".to_string(), PROGRAM.to_string())]);
    let mut engine = rqc_runtime::Engine::in_memory();
    engine.install(compilation.program.clone()).unwrap();
    // The edited plan claims fewer round trips than it makes: the verifier
    // would refuse it before the run; this is the run's own meter behind it.
    engine.skip_verifying_lines();
    for id in 1..=6i64 {
        let name = format!("u{id}");
        engine
            .run("add_user", &[id.into(), name.clone().into(), name.into()])
            .unwrap();
    }
    for b in 2..=6i64 {
        engine.run("follow", &[1.into(), b.into()]).unwrap();
    }
    let mut entry = compilation.program.entry(name).unwrap().clone();
    entry.bound.round_trips = round_trips;
    if let Some(bound) = entry.root.bound.as_mut() {
        bound.round_trips = round_trips;
    }
    (engine, entry)
}

#[test]
fn a_run_past_its_round_trips_stops_at_the_call_past_the_bound() {
    // The scan, then a batch per level: the second batch is past a bound of 2.
    let (engine, entry) = with_bound_too_small("second", 2);
    let error = engine.run_entry(&entry, &[1.into()]).unwrap_err();
    assert_eq!(error.code, "E0546", "{error}");
    assert!(error.message.contains("made 3 round trips"), "{error}");
}

#[test]
fn a_mutation_whose_commit_would_pass_its_bound_writes_nothing() {
    // Two checks read, then the commit would be the third call.
    let (engine, entry) = with_bound_too_small("add_user", 2);
    let args = [Value::from(7), "g".into(), "g".into()];
    let error = engine.run_entry(&entry, &args).unwrap_err();
    assert_eq!(error.code, "E0546", "{error}");
    assert!(error.message.contains("with its commit"), "{error}");
    // Nothing was written: the same row inserts now.
    let added = engine.run("add_user", &args).unwrap();
    assert_eq!(added.written, 1);
}

/// One stream read by two functions over a list, with two limits
/// (`skip(3) |> take(2)` and `take(4)`): the batch reads the range twice
/// and keeps the larger answer, so the run finds both reads in it — one
/// round trip, as proved (the smaller answer kept made a second call,
/// E0546).
#[test]
fn one_range_wanted_with_two_limits_is_answered_by_the_larger() {
    let source = "
table Post {
  id: Int key
  author: Int
  index by_author (author, id)
}
mutation post(id: Int, a: Int) = insert Post { id, author: a }
query held(a: Int) =
  [s => s |> skip(3) |> take(2), s => s |> take(4)] |> map(g => g(Post.by_author[a])) |> flatten()
";
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let db = installed(dir.path(), backend, source);
        for id in 0..7i64 {
            db.run("post", &[id.into(), 22.into()]).unwrap();
        }
        let output = db.run("held", &[22.into()]).unwrap();
        assert_eq!(
            output.stats.rows, 9,
            "5 rows for the first, 4 for the second"
        );
        assert_eq!(
            (output.stats.round_trips, output.bound.round_trips),
            (1, 1),
            "{backend:?}"
        );
    }
}

/// A writing lambda handed on through a record field, an `if` or a block
/// inside an outer lambda: the checker must not count the outer one as
/// batched (the runtime's dry pass gives up at the write), so every run
/// stays within its bound (found by an adversary: 6 round trips of 4).
#[test]
fn a_writing_lambda_reached_through_a_value_is_counted_per_element() {
    const WRITES: &str = "
table T { id: Int key }
mutation via_field(ids: [Int; <= 10]) = {
  let r = { f: x => insert T { id: x } };
  ids |> map(i => [i] |> map(r.f))
}
mutation via_if(ids: [Int; <= 10]) = {
  let g = x => insert T { id: x };
  ids |> map(i => [i] |> map(if true { g } else { g }))
}
mutation via_block(ids: [Int; <= 10]) = {
  let g = x => insert T { id: x };
  ids |> map(i => [i] |> map({ let h = g; h }))
}
fn app(xs: [Int], g: Int -> Int) = xs |> map(x => [x] |> map(if true { g } else { g }))
mutation via_fn(ids: [Int; <= 10]) = app(ids, x => insert T { id: x })
";
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let db = installed(dir.path(), backend, WRITES);
        for (n, name) in ["via_field", "via_if", "via_block", "via_fn"]
            .iter()
            .enumerate()
        {
            let ids: Vec<Value> = (0..3).map(|i| Value::Int(n as i64 * 10 + i)).collect();
            let output = db
                .run(name, &[Value::List(ids)])
                .unwrap_or_else(|e| panic!("{backend:?} {name}: {e}"));
            assert_eq!(output.written, 3, "{backend:?} {name}");
            assert!(
                output.stats.round_trips <= output.bound.round_trips,
                "{backend:?} {name}: {:?}",
                output.stats
            );
        }
    }
}

/// A stream made elsewhere (a `let`) whose `map` writes, limited inside a
/// lambda applied over a list: each limit reads it afresh and runs its
/// writes, so the body is counted once per element, never batched (found by
/// an adversary: an operator's 5 round trips against its claim of 4).
#[test]
fn a_writing_stream_made_elsewhere_is_counted_where_each_limit_reads_it() {
    const WRITES: &str = "
table Post { id: Int key  author: Int  index by_author (author, id desc) }
mutation post(id: Int, a: Int) = insert Post { id, author: a }
mutation firsts(a: Int) = {
  let s = Post.by_author[a] |> map(p => { delete Post[p.id]; p.id });
  [1, 2] |> map(x => s |> first())
}
mutation pairs(a: Int) = {
  let s = Post.by_author[a] |> map(p => { delete Post[p.id]; p.id });
  [1, 2, 3] |> map(x => s |> take(2))
}
mutation through_let(a: Int) = {
  let s = Post.by_author[a] |> map(p => { delete Post[p.id]; p.id });
  let f = x => s |> first();
  [1, 2] |> map(f)
}
";
    // (entry, rows it deletes of the 12 posts, ids it returns in order)
    let cases: [(&str, u64, &[i64]); 3] = [
        ("firsts", 2, &[12, 11]),
        ("pairs", 6, &[12, 11, 10, 9, 8, 7]),
        ("through_let", 2, &[12, 11]),
    ];
    for backend in Backend::ALL {
        for (name, written, ids) in cases {
            let dir = tempfile::tempdir().unwrap();
            let db = installed(dir.path(), backend, WRITES);
            for id in 1..=12i64 {
                db.run("post", &[id.into(), 7.into()]).unwrap();
            }
            let output = db
                .run(name, &[7.into()])
                .unwrap_or_else(|e| panic!("{backend:?} {name}: {e}"));
            assert_eq!(output.written, written, "{backend:?} {name}");
            let got: Vec<i64> = match &output.value {
                Value::List(items) => items
                    .iter()
                    .flat_map(|v| match v {
                        Value::List(inner) => inner.clone(),
                        other => vec![other.clone()],
                    })
                    .map(|v| match v {
                        Value::Int(i) => i,
                        other => panic!("{name}: an id, not {other:?}"),
                    })
                    .collect(),
                other => panic!("{name}: a list, not {other:?}"),
            };
            assert_eq!(got, ids, "{backend:?} {name}");
            let (s, b) = (&output.stats, &output.bound);
            assert!(
                s.seeks <= b.seeks && s.rows <= b.rows && s.round_trips <= b.round_trips,
                "{backend:?} {name}: read {s:?}, bound {b:?}"
            );
        }
    }
}

/// A function a function returns, taking a stream, given in a mutation a
/// range whose `map` deletes: the returned function's `skip(1)` drops a
/// row before the `map` runs on it and its `take(2)` reads two more, so
/// two rows are deleted, the two it answers (spec/cost.md §4.2), within
/// the bound that charges the skipped row's `map` too.
#[test]
fn a_returned_function_reads_a_writing_stream_as_it_limits_it() {
    const WRITES: &str = "
table Post { id: Int key  author: Int  index by_author (author, id desc) }
mutation post(id: Int, a: Int) = insert Post { id, author: a }
fn mk_ids(n: Int <= 10) -> stream Post -> [Int] = s => s |> skip(1) |> map(p => p.id) |> take(n)
mutation deletes(a: Int) = mk_ids(2)(Post.by_author[a] |> map(p => { delete Post[p.id]; p }))
query left(a: Int) = Post.by_author[a] |> take(10) |> map(p => p.id)
";
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let db = installed(dir.path(), backend, WRITES);
        for id in 1..=6i64 {
            db.run("post", &[id.into(), 3.into()]).unwrap();
        }
        let output = db.run("deletes", &[3.into()]).unwrap();
        assert_eq!(
            output.value,
            Value::List(vec![5.into(), 4.into()]),
            "{backend:?}"
        );
        assert_eq!(output.written, 2, "{backend:?}");
        let (s, b) = (&output.stats, &output.bound);
        assert!(
            s.seeks <= b.seeks && s.rows <= b.rows && s.round_trips <= b.round_trips,
            "{backend:?}: read {s:?}, bound {b:?}"
        );
        let left = db.run("left", &[3.into()]).unwrap().value;
        let ids = [6, 3, 2, 1].map(Value::Int).to_vec();
        assert_eq!(left, Value::List(ids), "{backend:?}");
    }
}
