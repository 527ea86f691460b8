//! Generated keys (`id: Int key auto`) and `now()` end to end on every backend (the embedded stores and etcd): keys counted up from 1, never reused after a delete, moved past a larger key given or upserted, the insert's value its key, the counter's end refused (E0660), `verify` holding after each run; `now()` one value per transaction, fixed by `RQC_NOW`.

use rqc_plan::Value;
use rqc_tests::stores::{each_store, Db};

const PROGRAM: &str = "
table Post {
  id: Int key auto
  author: Int
  at: Int = 0
  title: String <= 20
  index by_author (author)
}
table Tag {
  post: Int ref Post
  tag: String <= 20
  key (post, tag)
}

mutation post(author: Int, title: String) = insert Post { author, title }
mutation post_at(id: Int, author: Int) = insert Post { id, author, title: \"\" }
mutation tagged(author: Int) = {
  let id = insert Post { author, title: \"t\" };
  insert Tag { post: id, tag: \"new\" };
  id
}
mutation twice(author: Int) = insert Post { author, title: \"a\" } * 1000 + insert Post { author, title: \"b\" }
mutation put(id: Int) = upsert Post { id, author: 0, title: \"u\" }
mutation remove(id: Int) = delete Post[id]
mutation stamped(author: Int) = {
  let a = insert Post { author, at: now(), title: \"s\" };
  let b = insert Post { author, at: now(), title: \"s\" };
  Post[b] |> map(p => p.at - now()) |> unwrap_or(-1)
}
mutation clock() = now()
query at(id: Int) = Post[id] |> map(p => p.at)
query title(id: Int) = Post[id] |> map(p => p.title)
";

fn post(db: &Db) -> i64 {
    match db.value("post", &[1.into(), "x".into()]) {
        Value::Int(id) => id,
        other => panic!("{}: an insert into a `key auto` table gave {other}", db.on),
    }
}

/// `verify` finds the database sound, its counter past every key.
fn verified(db: &Db) {
    let found = db.engine.verify().unwrap();
    assert!(found.is_sound(), "{}: {:?}", db.on, found.problems);
}

#[test]
fn keys_count_up_never_go_back_and_move_past_a_larger_key_given() {
    each_store(PROGRAM, |db| {
        assert_eq!(post(&db), 1);
        assert_eq!(post(&db), 2);
        // Deleted, the largest key is not given again.
        db.value("remove", &[2.into()]);
        assert_eq!(post(&db), 3);
        // A key given evaluates to itself; a larger one moves the counter.
        assert_eq!(db.value("post_at", &[10.into(), 1.into()]), Value::Int(10));
        assert_eq!(post(&db), 11);
        // A smaller one (or a negative one, or 0) leaves it.
        assert_eq!(db.value("post_at", &[5.into(), 1.into()]), Value::Int(5));
        assert_eq!(
            db.value("post_at", &[(-7).into(), 1.into()]),
            Value::Int(-7)
        );
        assert_eq!(db.value("post_at", &[0.into(), 1.into()]), Value::Int(0));
        assert_eq!(post(&db), 12);
        // A key given that is taken is refused, and moves nothing.
        assert_eq!(db.refused("post_at", &[12.into(), 1.into()]), "E0501");
        assert_eq!(post(&db), 13);
        // An upsert's insert path moves the counter too; its update path
        // (a key already there) reads no counter and moves none.
        assert_eq!(db.value("put", &[20.into()]), Value::Int(1));
        assert_eq!(post(&db), 21);
        assert_eq!(db.value("put", &[3.into()]), Value::Int(1));
        assert_eq!(db.value("title", &[3.into()]), Value::Str("u".into()));
        assert_eq!(post(&db), 22);
        verified(&db);
    });
}

#[test]
fn the_key_is_used_in_the_same_mutation_and_a_refusal_spends_nothing() {
    each_store(PROGRAM, |db| {
        assert_eq!(db.value("tagged", &[1.into()]), Value::Int(1));
        // Two inserts of one mutation: two keys, in order.
        assert_eq!(db.value("twice", &[1.into()]), Value::Int(2 * 1000 + 3));
        assert_eq!(post(&db), 4);
        // A mutation refused after generating a key commits nothing: the
        // key is not spent.
        assert_eq!(db.refused("post_at", &[4.into(), 1.into()]), "E0501");
        assert_eq!(post(&db), 5);
        verified(&db);
    });
}

#[test]
fn the_counter_at_the_largest_int_is_refused_not_wrapped() {
    each_store(PROGRAM, |db| {
        let max = Value::Int(i64::MAX);
        assert_eq!(db.value("post_at", &[max.clone(), 1.into()]), max);
        assert_eq!(db.refused("post", &[1.into(), "x".into()]), "E0660");
        // A key given is still taken, below the end.
        assert_eq!(db.value("post_at", &[7.into(), 1.into()]), Value::Int(7));
        verified(&db);
    });
}

#[test]
fn now_is_one_value_per_transaction_and_rqc_now_fixes_it() {
    // Every test of this file reads the clock through `RQC_NOW` only here.
    std::env::set_var("RQC_NOW", "1700000000000001");
    each_store(PROGRAM, |db| {
        assert_eq!(db.value("clock", &[]), Value::Int(1_700_000_000_000_001));
        // Both rows carry the same time, and the value read after them too.
        assert_eq!(db.value("stamped", &[1.into()]), Value::Int(0));
        assert_eq!(
            db.value("at", &[1.into()]),
            Value::Int(1_700_000_000_000_001)
        );
    });
    std::env::set_var("RQC_NOW", "soon");
    each_store(PROGRAM, |db| {
        assert_eq!(db.refused("clock", &[]), "E0663");
    });
    std::env::remove_var("RQC_NOW");
}

#[test]
fn etcd_clients_inserting_at_once_each_get_their_own_key_in_order() {
    let compiled = rqc_compiler::compile(&[("program.rq".into(), PROGRAM.into())]);
    let url = rqc_tests::etcd::fresh_url();
    let options = rqc_runtime::store::EtcdOptions::default();
    let mut first = rqc_runtime::Engine::connect(&url, &options).unwrap();
    first.install(compiled.program.clone()).unwrap();
    let clients: Vec<_> = (0..3)
        .map(|_| {
            let (url, options, program) = (url.clone(), options.clone(), compiled.program.clone());
            std::thread::spawn(move || {
                let mut engine = rqc_runtime::Engine::connect(&url, &options).unwrap();
                engine.install(program).unwrap();
                (0..8)
                    .map(
                        |_| match engine.run("post", &[1.into(), "x".into()]).unwrap().value {
                            Value::Int(id) => id,
                            other => panic!("an insert gave {other}"),
                        },
                    )
                    .collect::<Vec<i64>>()
            })
        })
        .collect();
    let mut all = Vec::new();
    for client in clients {
        let keys = client.join().unwrap();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        all.extend(keys);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=24).collect::<Vec<i64>>());
    assert!(first.verify().unwrap().is_sound());
}

#[test]
fn a_load_generates_the_keys_it_leaves_out_on_every_backend() {
    each_store(PROGRAM, |db| {
        // `Post`'s columns: id, author, at, title. `none` in the key's
        // place is a key left out (a file without the column), `at` its
        // default.
        let row = |id: Value, title: &str| vec![id, 1.into(), 0.into(), title.into()];
        let mut rows: rqc_runtime::load::LoadRows = vec![
            (1, Ok(row(Value::Null, "a"))),
            (2, Ok(row(Value::Int(6), "b"))),
            (3, Ok(row(Value::Null, "c"))),
        ];
        let report = db.engine.load("Post", &mut rows, &mut |_| {}).unwrap();
        assert_eq!(report.written, 3, "{}: {:?}", db.on, report.rejected);
        assert_eq!(db.value("title", &[1.into()]), Value::Str("a".into()));
        assert_eq!(db.value("title", &[7.into()]), Value::Str("c".into()));
        assert_eq!(post(&db), 8);
        verified(&db);
    });
}

#[test]
fn declaring_auto_on_a_table_with_rows_starts_the_counter_past_them() {
    // The same tables, the key given by every insert, as before `auto`.
    let plain = "
table Post {
  id: Int key
  author: Int
  at: Int = 0
  title: String <= 20
  index by_author (author)
}
table Tag {
  post: Int ref Post
  tag: String <= 20
  key (post, tag)
}
mutation post_at(id: Int, author: Int) = insert Post { id, author, title: \"\" }
";
    let before = rqc_compiler::compile(&[("program.rq".into(), plain.into())]);
    assert!(before.diagnostics.is_empty(), "{:?}", before.diagnostics);
    let after = rqc_compiler::compile(&[("program.rq".into(), PROGRAM.into())]);
    let dir = tempfile::tempdir().unwrap();
    let mut engine = rqc_runtime::Engine::open(&dir.path().join("db"), Default::default()).unwrap();
    engine.install(before.program).unwrap();
    for id in [5, 9, -3] {
        engine.run("post_at", &[id.into(), 1.into()]).unwrap();
    }
    engine.install(after.program).unwrap();
    let next = engine.run("post", &[1.into(), "x".into()]).unwrap().value;
    assert_eq!(next, Value::Int(10));
    assert!(engine.verify().unwrap().is_sound());
}

#[test]
fn verify_reports_a_counter_below_a_stored_key() {
    each_store(PROGRAM, |db| {
        assert_eq!(db.value("post_at", &[9.into(), 1.into()]), Value::Int(9));
        let store = db.engine.store();
        let mut session = rqc_runtime::session::Session::write(store).unwrap();
        let tree = store.tree(&rqc_runtime::rows::auto_tree("Post"));
        session.set_counter(tree, b"", 4).unwrap();
        session.commit().unwrap();
        let found = db.engine.verify().unwrap();
        assert!(
            found
                .problems
                .iter()
                .any(|p| p.contains("counter is at 4, below the stored key 9")),
            "{}: {:?}",
            db.on,
            found.problems
        );
    });
}
