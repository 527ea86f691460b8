//! `tpcc`: TPC-C on rqc: loads W warehouses (streamed, a batch of calls per commit), runs the mix from terminal threads for a while, checks the consistency conditions, prints tpmC and each transaction's 90th-percentile response time.
//!
//! `cargo run --release -p rqc-bench --bin tpcc -- --warehouses W [--small] [--db DIR] [--threads N] [--seconds S] [--seed N]`
//!
//! `--small`: 30 customers per district and 1,000 items (CI's size; TPC-C
//! has 3,000 and 100,000). `--db DIR`: the database is kept there (`rqc
//! verify --db DIR`, `rqc dump --db DIR --out OUT`); otherwise it is a
//! scratch directory. Terminal `t` runs in warehouse `1 + t % W`. The
//! conditions are checked on a `dump` held in memory (576 MB peak RSS at
//! W = 1, full scale, in a debug build).
//! Exits 1 when a condition does not hold.

use rqc::{Database, OpenOptions, Value};
use rqc_tests::tpcc::{each_population_call, Scale, Txn};
use rqc_tests::tpcc_conditions::{check, Deliveries};
use std::path::Path;
use std::time::{Duration, Instant};

/// Calls per load commit: what the loader holds at once.
const LOAD_BATCH: usize = 2_000;

const KINDS: [&str; 6] = [
    "New-Order",
    "Payment",
    "Payment by name",
    "Order-Status",
    "Delivery",
    "Stock-Level",
];

fn kind(txn: &Txn) -> usize {
    match txn {
        Txn::NewOrder { .. } => 0,
        Txn::Payment { .. } => 1,
        Txn::PaymentByName { .. } => 2,
        Txn::OrderStatus { .. } => 3,
        Txn::Delivery { .. } => 4,
        Txn::StockLevel { .. } => 5,
    }
}

fn load(db: &Database, scale: Scale, seed: u64) -> usize {
    let mut batch: Vec<(&'static str, Vec<Value>)> = Vec::with_capacity(LOAD_BATCH);
    let mut calls = 0;
    let commit = |batch: &mut Vec<(&'static str, Vec<Value>)>| {
        db.transaction(|tx| {
            for (name, args) in batch.iter() {
                tx.run(name, args)?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("loading: {e}"));
        batch.clear();
    };
    each_population_call(scale, seed, &mut |name, args| {
        batch.push((name, args));
        calls += 1;
        if batch.len() == LOAD_BATCH {
            commit(&mut batch);
        }
    });
    commit(&mut batch);
    calls
}

/// What one terminal did: response times by kind, and what its
/// Deliveries delivered.
struct Terminal {
    times: [Vec<Duration>; 6],
    deliveries: Deliveries,
}

fn terminal(
    db: &Database,
    scale: Scale,
    t: u64,
    threads: u64,
    until: Instant,
    seed: u64,
) -> Terminal {
    let w = 1 + (t as i64) % scale.warehouses;
    let mut rng = rqc_tests::Rng::new(seed ^ (t + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut done = Terminal {
        times: Default::default(),
        deliveries: Deliveries::default(),
    };
    // History ids: terminal t's k-th transaction is t + k·threads, so
    // terminals never share one (the population's are negative).
    for k in 0.. {
        let now = Instant::now();
        if now >= until {
            break;
        }
        let txn = Txn::draw(&mut rng, scale);
        let (name, args) = txn.call(w, (t + k * threads) as i64);
        let output = db
            .run(name, &args)
            .unwrap_or_else(|e| panic!("{name}({args:?}): {e}"));
        done.times[kind(&txn)].push(now.elapsed());
        if let Txn::Delivery { .. } = txn {
            done.deliveries.record(w, output.rows());
        }
    }
    done
}

fn p90(times: &mut [Duration]) -> Option<Duration> {
    times.sort();
    let at = (times.len() * 9).div_ceil(10).checked_sub(1)?;
    Some(times[at])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: u64| {
        value(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a number"))
        })
    };
    let small = args.iter().any(|a| a == "--small");
    let (customers, items) = if small { (30, 1_000) } else { (3_000, 100_000) };
    let scale = Scale {
        warehouses: number("--warehouses", 1).max(1) as i64,
        customers,
        items,
    };
    let threads = number("--threads", 2).max(1);
    let seconds = number("--seconds", 10);
    let seed = number("--seed", 1);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let dir = value("--db").map_or(scratch.path().to_path_buf(), Into::into);
    let mut db = Database::open_with(&dir, OpenOptions::default()).expect("open");
    db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc")])
        .expect("install examples/tpcc");

    let started = Instant::now();
    let calls = load(&db, scale, seed);
    println!(
        "loaded {} warehouse(s), {customers} customers per district, {items} items: {calls} calls in {:.1} s ({} per commit) into {}",
        scale.warehouses,
        started.elapsed().as_secs_f64(),
        LOAD_BATCH,
        dir.display()
    );

    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let terminals: Vec<Terminal> = std::thread::scope(|s| {
        let db = &db;
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || terminal(db, scale, t, threads, until, seed)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a terminal"))
            .collect()
    });
    let minutes = started.elapsed().as_secs_f64() / 60.0;
    let mut deliveries = Deliveries::default();
    let mut times: [Vec<Duration>; 6] = Default::default();
    for done in terminals {
        for (district, n) in done.deliveries.0 {
            *deliveries.0.entry(district).or_default() += n;
        }
        for (all, mine) in times.iter_mut().zip(done.times) {
            all.extend(mine);
        }
    }
    let total: usize = times.iter().map(Vec::len).sum();
    println!(
        "mix: {total} transactions from {threads} terminal(s) in {:.1} s; tpmC {:.0}",
        minutes * 60.0,
        times[0].len() as f64 / minutes
    );
    println!("| transaction | count | p90 (ms) |\n|---|---|---|");
    for (name, times) in KINDS.iter().zip(times.iter_mut()) {
        let p90 = p90(times).map_or("-".to_string(), |d| format!("{:.3}", d.as_secs_f64() * 1e3));
        println!("| {name} | {} | {p90} |", times.len());
    }

    let dump = db.dump().expect("dump");
    let violations = check(&dump, scale, &deliveries);
    for v in &violations {
        println!("violation {v}");
    }
    println!(
        "consistency conditions 3.3.2.1-12: {} violation(s)",
        violations.len()
    );
    if !violations.is_empty() {
        std::process::exit(1);
    }
}
