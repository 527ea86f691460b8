//! `rqc-insert-loop`: a plain loop of one-row inserts through rqc's embedding API, to profile the write path (`perf record -g`).
//!
//! `cargo run --release -p rqc-bench --bin rqc-insert-loop -- [--rows 20000] [--threads 1] [--prefill 0] [--durability none|normal|full] [--backend lmdb] [--tmp DIR]`
//!
//! The table is the insert benchmark's (`T(a key, b, c)`, two secondary
//! indexes holding the row); each insert is its own commit. Prints the
//! wall time, the rows per second and the mean µs per insert.

#[allow(dead_code)] // the drivers' shared options; this one takes no flag
#[path = "../args.rs"]
mod args;

use args::Args;
use rqc::{Backend, Database, Durability, OpenOptions, Value};
use std::time::Instant;

const PROGRAM: &str = "
table T { a: Int key  b: Int  c: Int  index by_b (b)  index by_c (c) }
mutation put(a: Int, b: Int, c: Int) = insert T { a, b, c }
query row(a: Int) = T[a]
";

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn row(i: u64) -> [Value; 3] {
    let a = (i.wrapping_mul(0xD6E8_FEB8_6659_FD93) & ((1 << 40) - 1)) as i64;
    [
        Value::Int(a),
        Value::Int((mix(i ^ 0xB) >> 24) as i64),
        Value::Int((mix(i ^ 0xC) >> 24) as i64),
    ]
}

/// This process's CPU time so far (user and system), from /proc, in
/// seconds: the timed loop's own cost, whatever else the machine runs.
/// `None` where /proc does not say (another OS).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command's closing parenthesis; utime and stime are
    // the 14th and 15th of the whole line, in ticks of 1/100 s.
    let (_, after) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

fn main() {
    let args = Args::from_env();
    let rows = args.number("--rows", 20_000);
    let threads = args.number("--threads", 1);
    let prefill = args.number("--prefill", 0);
    // Not synced unless asked, as before the levels.
    let durability = args.durability(Durability::None);
    let backend = match args.value("--backend").as_deref() {
        None | Some("lmdb") => Backend::Lmdb,
        Some("redb") => Backend::Redb,
        Some("sled") => Backend::Sled,
        Some(other) => panic!("unknown backend {other}"),
    };
    let tmp = args
        .value("--tmp")
        .unwrap_or_else(|| std::env::temp_dir().display().to_string());
    let dir = tempfile::tempdir_in(tmp).expect("scratch directory");
    let mut db = Database::open_with(
        dir.path(),
        OpenOptions {
            backend: Some(backend),
            durability,
            ..OpenOptions::default()
        },
    )
    .expect("open");
    db.install_source("t.rq", PROGRAM).expect("install");
    // Rows past the timed ones, loaded first, so that the trees are deep.
    for start in (0..prefill).step_by(50_000) {
        let mut load: rqc::LoadRows = (start..(start + 50_000).min(prefill))
            .map(|i| (i as usize + 1, Ok(row(rows + i).to_vec())))
            .collect();
        db.load_from("T", &mut load, &mut |_| {}).expect("prefill");
    }
    let start = Instant::now();
    let cpu = cpu_seconds();
    std::thread::scope(|s| {
        for t in 0..threads {
            let db = &db;
            s.spawn(move || {
                let put = db.prepare("put").expect("put");
                for i in (t..rows).step_by(threads as usize) {
                    put.run(&row(i)).expect("insert");
                }
            });
        }
    });
    let took = start.elapsed();
    let cpu = cpu_seconds().zip(cpu).map(|(end, start)| end - start);
    let read = db.prepare("row").expect("row");
    for i in [0, rows / 2, rows - 1] {
        let [a, b, c] = row(i);
        let found = read.run(std::slice::from_ref(&a)).expect("read back");
        let back = found.rows()[0].clone();
        assert_eq!(back.field("b"), Some(&b), "row {i} read back");
        assert_eq!(back.field("c"), Some(&c), "row {i} read back");
    }
    println!(
        "{rows} inserts, {threads} thread(s), durability {}: {:.3} s, {:.0} rows/s, {:.1} µs per insert; CPU {} per insert",
        durability.name(),
        took.as_secs_f64(),
        rows as f64 / took.as_secs_f64(),
        took.as_secs_f64() * 1e6 / rows as f64,
        cpu.map_or("unknown".to_string(), |cpu| format!(
            "{:.1} µs",
            cpu * 1e6 / rows as f64
        ))
    );
}
