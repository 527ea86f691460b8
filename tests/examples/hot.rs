//! A scratch loop over the engine's hot paths, for profiling (`perf record`): point reads and short range reads through the engine, beside raw redb reads on one long-lived transaction.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Engine, OpenOptions};
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

fn main() {
    let rows: i64 = std::env::var("ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let reads: usize = std::env::var("READS").ok().and_then(|v| v.parse().ok()).unwrap_or(500_000);
    let which = std::env::var("WHICH").unwrap_or_else(|_| "point".into());
    let dir = tempfile::tempdir().unwrap();
    let compilation = compile(&[("hot.rq".to_string(), PROGRAM.to_string())]);
    assert!(compilation.diagnostics.is_empty());
    let mut engine = Engine::open(
        dir.path(),
        OpenOptions {
            backend: Backend::Redb,
            flush_on_commit: false,
        },
    )
    .unwrap();
    engine.install(compilation.program.clone()).unwrap();
    let rows_in: Vec<(usize, Result<Vec<Value>, _>)> = (0..rows)
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
    engine.load("Item", rows_in, &mut |_| {}).unwrap();
    let mut rng = Rng::new(7);
    let entry = engine.entry(if which == "point" { "item" } else { "cheap" }).unwrap();
    let start = Instant::now();
    let mut found = 0;
    for _ in 0..reads {
        let key = rng.below(rows as u64);
        let arg = if which == "point" { key } else { key % 1000 };
        let out = engine.run_entry(&entry, &[Value::Int(arg)]).unwrap();
        found += out.rows().len();
    }
    let elapsed = start.elapsed();
    println!(
        "{which}: {:.0} ns per run ({found} rows)",
        elapsed.as_nanos() as f64 / reads as f64
    );
}
