//! `--compare-backends`: the storage backends side by side through the public API, to choose the default.
//!
//! Each figure is the median of several rounds, and the rounds interleave
//! the backends (redb, LMDB, sled, then again), so that a slow moment of a
//! shared machine falls on all of them alike.

use crate::tpcc;
use crate::timing::{measure, Rng};
use rqc::{Backend, Database, OpenOptions};
use std::path::Path;
use std::time::Instant;

const PROGRAM: &str = "
table Item { id: Int key  group: Int  name: String  index by_group (group) }
mutation put(id: Int, group: Int, name: String) = insert Item { id, group, name }
query item(id: Int) = Item[id]
query recent(group: Int) = Item.by_group[group] |> take(10)
";

const BACKENDS: [Backend; 3] = [Backend::Redb, Backend::Lmdb, Backend::Sled];

fn open(dir: &Path, backend: Backend, durable: bool) -> Database {
    let options = OpenOptions {
        backend: Some(backend),
        flush_on_commit: durable,
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(dir, options).unwrap();
    db.install_source("items.rq", PROGRAM).unwrap();
    db
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Durable inserts by `writers` threads, `each` apiece: commits per second.
fn durable_inserts(db: &Database, writers: usize, each: usize, base: i64) -> f64 {
    let put = db.prepare("put").unwrap();
    let start = Instant::now();
    std::thread::scope(|scope| {
        for w in 0..writers {
            let put = &put;
            scope.spawn(move || {
                for i in 0..each {
                    let id = base + (w * each + i) as i64;
                    put.run(&[id.into(), (id % 100).into(), "x".into()]).unwrap();
                }
            });
        }
    });
    (writers * each) as f64 / start.elapsed().as_secs_f64()
}

/// The comparison as a markdown table (and on stderr as it goes).
pub fn compare(quick: bool) -> String {
    let rows: i64 = if quick { 5_000 } else { 100_000 };
    let iterations = if quick { 500 } else { 5_000 };
    let rounds = if quick { 3 } else { 5 };
    let root = tempfile::tempdir().unwrap();
    // One loaded database per backend for the reads.
    let loaded: Vec<Database> = BACKENDS
        .iter()
        .map(|backend| {
            let db = open(&root.path().join(format!("read-{}", backend.name())), *backend, false);
            let put = db.prepare("put").unwrap();
            for id in 0..rows {
                put.run(&[id.into(), (id % 100).into(), format!("item {id}").into()])
                    .unwrap();
            }
            db
        })
        .collect();
    let mut figures = vec![vec![Vec::new(); 6]; BACKENDS.len()];
    let scale = rqc_tests::tpcc::Scale {
        warehouses: 1,
        customers: tpcc::CUSTOMERS,
        items: tpcc::ITEMS,
    };
    let mut rng = Rng::new(17);
    let txns: Vec<_> = (0..if quick { 200 } else { 2_000 })
        .map(|_| rqc_tests::tpcc::Txn::draw(&mut rng, scale))
        .collect();
    let population = rqc_tests::tpcc::population(scale, 17);
    for round in 0..rounds {
        for (b, backend) in BACKENDS.iter().enumerate() {
            let db = &loaded[b];
            let item = db.prepare("item").unwrap();
            let mut rng = Rng::new(round as u64 + 1);
            let ids: Vec<i64> = (0..iterations * 2).map(|_| rng.below(rows as u64)).collect();
            let point = measure(iterations, |i| {
                assert_eq!(item.run(&[ids[i].into()]).unwrap().rows().len(), 1);
            });
            let recent = db.prepare("recent").unwrap();
            let range = measure(iterations, |i| {
                assert_eq!(recent.run(&[(ids[i] % 100).into()]).unwrap().rows().len(), 10);
            });
            let dir = root.path().join(format!("w{round}-{}", backend.name()));
            let insert = {
                let lazy = open(&dir.join("lazy"), *backend, false);
                let put = lazy.prepare("put").unwrap();
                measure(iterations, |i| {
                    put.run(&[(i as i64).into(), (i as i64 % 100).into(), "x".into()])
                        .unwrap();
                })
            };
            let durable = open(&dir.join("durable"), *backend, true);
            let each = if quick { 50 } else { 200 };
            let one = durable_inserts(&durable, 1, each * 2, 0);
            let eight = durable_inserts(&durable, 8, each, 1_000_000);
            drop(durable);
            let tpm = tpcc::rqc_run_on(&dir.join("tpcc"), *backend, &txns, &population);
            let found = [
                point.micros(),
                range.micros(),
                insert.micros(),
                one,
                eight,
                tpm,
            ];
            eprintln!("round {round} {}: {found:.1?}", backend.name());
            for (k, value) in found.into_iter().enumerate() {
                figures[b][k].push(value);
            }
            std::fs::remove_dir_all(&dir).ok();
        }
    }
    let mut table = format!(
        "Backends through the public API: medians of {rounds} interleaved rounds; {rows} rows for the reads.\n\n\
         | backend | point read | bounded range (10 rows) | insert, not synced | durable inserts, 1 writer | durable inserts, 8 writers | TPC-C mix (not synced) |\n\
         |---|---|---|---|---|---|---|\n"
    );
    for (b, backend) in BACKENDS.iter().enumerate() {
        let m: Vec<f64> = figures[b].iter().cloned().map(median).collect();
        table.push_str(&format!(
            "| {} | {:.2} µs | {:.2} µs | {:.1} µs | {:.0} commits/s | {:.0} commits/s | {:.0} tpm |\n",
            backend.name(),
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[5]
        ));
    }
    table
}
