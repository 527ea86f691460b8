//! A scratch loop over the engine's hot paths, for profiling (`perf record`): point reads, short range reads and one-row inserts through the engine (`WHICH=point|range|insert`), the TPC-C mix, and concurrent durable writers.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::Rng;
use std::time::Instant;

const PROGRAM: &str = "
table Item {
  id: Int key
  name: String
  price: Int
  stock: Int
  index by_price (price)
}
mutation add(id: Int, name: String, price: Int, stock: Int) = insert Item { id, name, price, stock }
query item(id: Int) = Item[id]
query cheap(p: Int) = Item.by_price[p] |> take(10)
";

/// `BACKEND=lmdb|redb|sled` (LMDB, the default, when unset).
fn backend() -> Backend {
    std::env::var("BACKEND")
        .ok()
        .and_then(|b| Backend::named(&b))
        .unwrap_or_default()
}

/// The TPC-C mix through the engine: microseconds per transaction.
fn tpcc(n: usize) {
    use rqc_tests::tpcc::{population, Mix, Scale, Txn};
    let scale = Scale {
        warehouses: 1,
        customers: 30,
        items: 1000,
    };
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rq") {
            files.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    let compilation = compile(&files);
    let mut engine = Engine::open(
        dir.path(),
        OpenOptions {
            backend: Some(backend()),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    engine.install(compilation.program.clone()).unwrap();
    for (name, args) in population(scale, 17) {
        engine.run(name, &args).unwrap();
    }
    let mut rng = Rng::new(17);
    let mix = Mix::new(scale, 17, 17).without_rollbacks();
    let txns: Vec<Txn> = (0..n).map(|_| mix.draw(&mut rng)).collect();
    let start = Instant::now();
    for (h, txn) in txns.iter().enumerate() {
        let (name, args) = txn.call(1, h as i64);
        engine.run(name, &args).unwrap();
    }
    println!(
        "tpcc: {:.1} µs per transaction",
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

/// Durable inserts from `threads` writers at once: commits per second.
fn writers(threads: usize, per_thread: i64) {
    let dir = tempfile::tempdir().unwrap();
    let compilation = compile(&[("hot.rq".to_string(), PROGRAM.to_string())]);
    let mut engine = Engine::open(
        dir.path(),
        OpenOptions {
            backend: Some(backend()),
            durability: Durability::Full,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    engine.install(compilation.program.clone()).unwrap();
    let engine = std::sync::Arc::new(engine);
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let engine = std::sync::Arc::clone(&engine);
            std::thread::spawn(move || {
                for i in 0..per_thread {
                    let id = t as i64 * 1_000_000 + i;
                    let args = [id.into(), "w".into(), (id % 100).into(), 1.into()];
                    engine.run("add", &args).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let commits = threads as f64 * per_thread as f64;
    println!(
        "{threads} writers: {:.0} durable commits per second",
        commits / start.elapsed().as_secs_f64()
    );
}

fn main() {
    if let Ok(Ok(threads)) = std::env::var("WRITERS").map(|w| w.parse::<usize>()) {
        return writers(threads, 200);
    }
    if std::env::var("WHICH").is_ok_and(|w| w == "tpcc") {
        let n = std::env::var("READS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        return tpcc(n);
    }
    let rows: i64 = std::env::var("ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let reads: usize = std::env::var("READS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500_000);
    let which = std::env::var("WHICH").unwrap_or_else(|_| "point".into());
    let dir = tempfile::tempdir().unwrap();
    let compilation = compile(&[("hot.rq".to_string(), PROGRAM.to_string())]);
    assert!(compilation.diagnostics.is_empty());
    let mut engine = Engine::open(
        dir.path(),
        OpenOptions {
            backend: Some(backend()),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    engine.install(compilation.program.clone()).unwrap();
    let mut rows_in: Vec<(usize, Result<Vec<Value>, _>)> = (0..rows)
        .map(|i| {
            (
                i as usize,
                Ok(vec![
                    i.into(),
                    format!("item number {i}").into(),
                    (i % 1000).into(),
                    (i * 7 % 13).into(),
                ]),
            )
        })
        .collect();
    engine.load("Item", &mut rows_in, &mut |_| {}).unwrap();
    let mut rng = Rng::new(7);
    if which == "insert" {
        // Unsynced one-row inserts past the loaded rows, one index.
        let add = engine.entry("add").unwrap();
        let start = Instant::now();
        for i in 0..reads as i64 {
            let id = rows + i;
            let args = [id.into(), "inserted".into(), (id % 1000).into(), 1.into()];
            engine.run_entry(add, &args).unwrap();
        }
        println!(
            "insert: {:.0} ns per run",
            start.elapsed().as_nanos() as f64 / reads as f64
        );
        return;
    }
    let entry = engine
        .entry(if which == "point" { "item" } else { "cheap" })
        .unwrap();
    let start = Instant::now();
    let mut found = 0;
    for _ in 0..reads {
        let key = rng.below(rows as u64);
        let arg = if which == "point" { key } else { key % 1000 };
        let out = engine.run_entry(entry, &[Value::Int(arg)]).unwrap();
        found += out.rows().len();
    }
    let elapsed = start.elapsed();
    println!(
        "{which}: {:.0} ns per run ({found} rows)",
        elapsed.as_nanos() as f64 / reads as f64
    );
}
