//! The library's transactions (`Database::transaction`, `Database::begin`) on every backend and on etcd: calls see each other's writes, commit once at one changelog position, each held to its own bound and the whole to their sum with the commit counted once, and nothing of a refused or abandoned one is written.

use rqc::{Database, Error, Event, OpenOptions, Value};
use rqc_plan::COMMIT_ROUND_TRIPS;
use rqc_runtime::Backend;
use std::time::Duration;

const PROGRAM: &str = "
table Item { id: Int key  shelf: Int  stock: Int  index by_shelf (shelf, id)  bound shelf <= 100 }
aggregate stocked = sum(Item.stock) by shelf
mutation add(id: Int, shelf: Int, stock: Int) = insert Item { id, shelf, stock }
mutation sell(id: Int, n: Int) = update Item[id] { stock -= n }
mutation put(id: Int, shelf: Int, stock: Int) = upsert Item { id, shelf, stock }
mutation drop_item(id: Int) = delete Item[id]
query stock(id: Int) = Item[id] |> map(i => i.stock)
query shelf(s: Int) = Item.by_shelf[s] |> map(i => i.id)
query total(s: Int) = stocked[s]
query page(s: Int, n: Int <= 10) = Item.by_shelf[s] |> take(n)
";

/// A fresh database with the program, on each embedded backend and on etcd.
fn each_database(check: impl Fn(&mut Database)) {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let options = OpenOptions {
            backend: Some(backend),
            ..OpenOptions::default()
        };
        let mut db = Database::open_with(dir.path().join("db"), options).unwrap();
        db.install_source("shop.rq", PROGRAM).unwrap();
        check(&mut db);
        assert!(db.verify().unwrap().is_sound(), "{}", backend.name());
    }
    let mut db = Database::connect(&rqc_tests::etcd::fresh_url()).unwrap();
    db.install_source("shop.rq", PROGRAM).unwrap();
    check(&mut db);
    assert!(db.verify().unwrap().is_sound(), "etcd");
}

fn value(db: &Database, name: &str, args: &[Value]) -> Value {
    db.run(name, args).unwrap().value
}

#[test]
fn calls_see_each_other_and_commit_once_at_one_position() {
    each_database(|db| {
        let before = db.position().unwrap();
        let seen = db
            .transaction(|tx| {
                tx.prepare("add")?.run(&[1.into(), 7.into(), 10.into()])?;
                tx.prepare("add")?.run(&[2.into(), 7.into(), 5.into()])?;
                tx.run("sell", &[1.into(), 3.into()])?;
                tx.run("put", &[2.into(), 7.into(), 9.into()])?;
                // Queries inside see the transaction's own writes.
                let stock = tx.run("stock", &[1.into()])?.value;
                let total = tx.run("total", &[7.into()])?.value;
                Ok((stock, total))
            })
            .unwrap();
        assert_eq!(seen, (Value::Int(7), Value::Int(16)));
        // One commit: one changelog position for the four writes.
        assert_eq!(db.position().unwrap(), before + 1);
        assert_eq!(value(db, "total", &[7.into()]), Value::Int(16));
        assert_eq!(
            value(db, "shelf", &[7.into()]),
            Value::List(vec![1.into(), 2.into()])
        );
    });
}

#[test]
fn a_refused_call_or_an_error_of_the_body_leaves_nothing() {
    each_database(|db| {
        db.run("add", &[1.into(), 7.into(), 10.into()]).unwrap();
        let before = db.position().unwrap();
        let refused = db.transaction(|tx| {
            tx.run("sell", &[1.into(), 4.into()])?;
            tx.run("add", &[2.into(), 7.into(), 1.into()])?;
            // Key 1 is taken: the insert is refused, and the transaction.
            tx.run("add", &[1.into(), 8.into(), 1.into()])
        });
        assert_eq!(refused.unwrap_err().code(), "E0501");
        let abandoned = db.transaction(|tx| {
            tx.run("drop_item", &[1.into()])?;
            Err::<(), _>(Error::Runtime(rqc::RuntimeError::new(
                "E9999",
                "the body changed its mind",
                "none",
            )))
        });
        assert_eq!(abandoned.unwrap_err().code(), "E9999");
        // Overflow in a later call rolls back the earlier ones too.
        let overflow = db.transaction(|tx| {
            tx.run("add", &[3.into(), 7.into(), 0.into()])?;
            tx.run("sell", &[1.into(), i64::MIN.into()])
        });
        assert!(overflow.is_err());
        assert_eq!(db.position().unwrap(), before, "nothing committed");
        assert_eq!(value(db, "stock", &[1.into()]), Value::Int(10));
        assert_eq!(value(db, "stock", &[2.into()]), Value::Null);
        assert_eq!(value(db, "stock", &[3.into()]), Value::Null);
        assert_eq!(value(db, "total", &[7.into()]), Value::Int(10));
    });
}

/// Each call counts only what it read (not the calls before it), the
/// transaction's bound is the calls' bounds summed with the commit counted
/// once, and the transaction's round trips are the calls' and one commit.
#[test]
fn each_call_is_held_to_its_own_bound_and_the_whole_to_the_sum() {
    each_database(|db| {
        db.run("add", &[1.into(), 7.into(), 10.into()]).unwrap();
        let alone = db.run("sell", &[1.into(), 1.into()]).unwrap();
        let read_alone = db.run("shelf", &[7.into()]).unwrap();
        let tx = db.begin().unwrap();
        let mut outputs = Vec::new();
        for _ in 0..3 {
            outputs.push(tx.run("sell", &[1.into(), 1.into()]).unwrap());
            outputs.push(tx.run("shelf", &[7.into()]).unwrap());
        }
        for (at, pair) in outputs.chunks(2).enumerate() {
            // The same work as alone: a mutation's figures without its
            // commit's two round trips (etcd's transaction answers a key it
            // read before from what it holds: later calls send fewer).
            assert_eq!(pair[0].stats.seeks, alone.stats.seeks);
            assert_eq!(pair[0].stats.rows, alone.stats.rows);
            let trips = pair[0].stats.round_trips + COMMIT_ROUND_TRIPS;
            match at {
                0 => assert_eq!(trips, alone.stats.round_trips),
                _ => assert!(trips <= alone.stats.round_trips),
            }
            assert_eq!(pair[1].stats, read_alone.stats);
        }
        let bound = tx.bound();
        let sum = |f: fn(&rqc_plan::Bound) -> u64| outputs.iter().map(|o| f(&o.bound)).sum::<u64>();
        assert_eq!(bound.seeks, sum(|b| b.seeks));
        assert_eq!(bound.rows, sum(|b| b.rows));
        assert_eq!(
            bound.round_trips,
            sum(|b| b.round_trips) - 2 * COMMIT_ROUND_TRIPS,
            "three mutations, one commit"
        );
        let stats = tx.commit().unwrap();
        let made: u64 = outputs.iter().map(|o| o.stats.round_trips).sum();
        assert_eq!(stats.round_trips, made + COMMIT_ROUND_TRIPS);
        assert!(stats.round_trips <= bound.round_trips);
        assert!(stats.seeks <= bound.seeks && stats.rows <= bound.rows);
        assert_eq!(value(db, "stock", &[1.into()]), Value::Int(6));
    });
}

#[test]
fn a_transaction_dropped_without_commit_writes_nothing() {
    each_database(|db| {
        let before = db.position().unwrap();
        {
            let tx = db.begin().unwrap();
            tx.run("add", &[1.into(), 7.into(), 10.into()]).unwrap();
            assert_eq!(tx.run("stock", &[1.into()]).unwrap().value, Value::Int(10));
        }
        assert_eq!(db.position().unwrap(), before);
        assert_eq!(value(db, "stock", &[1.into()]), Value::Null);
        // A transaction that only reads commits nothing.
        db.transaction(|tx| tx.run("stock", &[1.into()])).unwrap();
        assert_eq!(db.position().unwrap(), before);
    });
}

#[test]
fn pages_and_subscriptions_are_refused_inside() {
    let mut db = Database::in_memory();
    db.install_source("shop.rq", PROGRAM).unwrap();
    let refused = db.transaction(|tx| tx.prepare("page")?.run_page(&[7.into(), 2.into()]));
    assert_eq!(refused.unwrap_err().code(), "E0667");
    let refused = db.transaction(|tx| tx.prepare("shelf")?.subscribe(&[7.into()]));
    assert_eq!(
        refused.err().map(|e| e.code().to_string()).as_deref(),
        Some("E0667")
    );
    // A prepared query runs inside, and page_arguments is not a read.
    let page = db.transaction(|tx| tx.prepare("page")?.run(&[7.into(), 2.into()]));
    assert_eq!(page.unwrap().value, Value::List(vec![]));
}

/// A subscriber sees a transaction's writes in one event, at the position
/// of its one commit, never a state between two of its calls.
#[test]
fn a_subscriber_sees_the_transaction_at_one_position() {
    each_database(|db| {
        let live = db.prepare("shelf").unwrap().subscribe(&[7.into()]).unwrap();
        let first = live.next_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(first.position(), db.position().unwrap());
        db.transaction(|tx| {
            for id in 1..=3i64 {
                tx.run("add", &[id.into(), 7.into(), 1.into()])?;
            }
            tx.run("drop_item", &[2.into()])
        })
        .unwrap();
        let position = db.position().unwrap();
        match live.next_timeout(Duration::from_secs(10)).unwrap() {
            Event::Rows {
                position: at,
                added,
                removed,
            } => {
                assert_eq!(at, position);
                assert_eq!(added, vec![Value::Int(1), Value::Int(3)]);
                assert!(removed.is_empty());
            }
            other => panic!("expected one change, got {other:?}"),
        }
        assert_eq!(live.next_timeout(Duration::from_millis(300)), None);
    });
}

/// On etcd, a transaction whose calls each fit one commit but together
/// pass `--max-txn-ops` is refused at its commit (E0665), nothing stored;
/// the same calls split in two transactions commit.
#[test]
fn past_the_operation_limit_a_transaction_is_refused_on_etcd() {
    let cluster = rqc_tests::etcd_cluster::EtcdCluster::start_with(
        1,
        rqc_tests::etcd_cluster::ClusterOptions {
            max_txn_ops: Some(64),
            ..Default::default()
        },
    );
    let mut db = Database::connect(&cluster.url("limit")).unwrap();
    db.install_source("shop.rq", PROGRAM).unwrap();
    let before = db.position().unwrap();
    let calls = |tx: &rqc::Transaction<'_>, ids: std::ops::Range<i64>| {
        for id in ids {
            tx.run("add", &[id.into(), (id % 3).into(), 1.into()])?;
        }
        Ok(())
    };
    let refused = db.transaction(|tx| calls(tx, 0..40));
    let error = refused.unwrap_err();
    assert_eq!(error.code(), "E0665", "{error}");
    assert!(error.to_string().contains("40 runs"), "{error}");
    assert_eq!(db.position().unwrap(), before);
    assert_eq!(value(&db, "stock", &[0.into()]), Value::Null);
    db.transaction(|tx| calls(tx, 0..8)).unwrap();
    db.transaction(|tx| calls(tx, 8..16)).unwrap();
    assert_eq!(db.position().unwrap(), before + 2);
    assert!(db.verify().unwrap().is_sound());
}

/// On etcd, transactions that conflict run again, whole: two clients each
/// move stock between two items in transactions, and no move is lost.
#[test]
fn conflicting_transactions_run_again_on_etcd() {
    let url = rqc_tests::etcd::fresh_url();
    let mut db = Database::connect(&url).unwrap();
    db.install_source("shop.rq", PROGRAM).unwrap();
    db.run("add", &[1.into(), 7.into(), 1000.into()]).unwrap();
    db.run("add", &[2.into(), 7.into(), 0.into()]).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            let url = url.clone();
            scope.spawn(move || {
                let db = Database::connect(&url).unwrap();
                for _ in 0..15 {
                    db.transaction(|tx| {
                        let left = tx.run("stock", &[1.into()])?.value;
                        tx.run("sell", &[1.into(), 1.into()])?;
                        tx.run("sell", &[2.into(), (-1).into()])?;
                        // The read inside agrees with the write after it.
                        let now = tx.run("stock", &[1.into()])?.value;
                        let Value::Int(left) = left else {
                            panic!("{left:?}")
                        };
                        assert_eq!(now, Value::Int(left - 1));
                        Ok(())
                    })
                    .unwrap();
                }
            });
        }
    });
    assert_eq!(value(&db, "stock", &[1.into()]), Value::Int(970));
    assert_eq!(value(&db, "stock", &[2.into()]), Value::Int(30));
    assert_eq!(value(&db, "total", &[7.into()]), Value::Int(1000));
    assert!(db.verify().unwrap().is_sound());
}

/// On etcd, a transaction whose calls each fit one request but together
/// pass `--max-request-bytes` is refused at its commit (E0666), nothing
/// stored.
#[test]
fn past_the_request_size_a_transaction_is_refused_on_etcd() {
    let cluster = rqc_tests::etcd::cluster_taking(64 * 1024);
    let mut db = Database::connect(&cluster.url("bytes")).unwrap();
    db.install_source(
        "notes.rq",
        "table Note { id: Int key  text: String <= 2000 }
         mutation note(id: Int, text: String <= 2000) = insert Note { id, text }
         query text(id: Int) = Note[id] |> map(n => n.text)",
    )
    .unwrap();
    let before = db.position().unwrap();
    let long = "x".repeat(2000);
    let refused = db.transaction(|tx| {
        for id in 0..60i64 {
            tx.run("note", &[id.into(), long.as_str().into()])?;
        }
        Ok(())
    });
    let error = refused.unwrap_err();
    assert_eq!(error.code(), "E0666", "{error}");
    assert_eq!(db.position().unwrap(), before);
    assert_eq!(db.run("text", &[0.into()]).unwrap().value, Value::Null);
    db.transaction(|tx| tx.run("note", &[0.into(), long.as_str().into()]))
        .unwrap();
    assert_eq!(db.position().unwrap(), before + 1);
}
