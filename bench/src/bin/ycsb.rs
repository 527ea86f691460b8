//! `ycsb`: the YCSB core workloads A–F on rqc (the embedded default, LMDB, running examples/ycsb), SQLite and raw LMDB side by side: loads N records of 10 fields of 100 bytes into each, runs each workload's operations interleaved in small rounds, checks that every system returns the same rows and ends with the same records, prints throughput and p50/p99 latency per operation.
//!
//! `cargo run --release -p rqc-bench --bin ycsb -- --workload A|B|C|D|E|F|all [--records N] [--ops N] [--db DIR] [--durability none|normal|full] [--seed N]`
//!
//! Defaults: 100,000 records, 10,000 timed operations per workload (and a
//! tenth as many untimed first, at least 50: the check), durability
//! `none` on all three (rqc `--durability none`, SQLite WAL with
//! `synchronous=OFF`, LMDB `MDB_NOSYNC`; `normal` is rqc's and LMDB's
//! `MDB_NOMETASYNC` beside SQLite's `NORMAL`; `full` a sync per commit
//! everywhere). `all` runs A, B, C, F, D, E on one load, in YCSB's
//! recommended order (D and E insert, so they come last). `--db DIR` keeps
//! the three databases there (`rqc/`, `ycsb.sqlite`, `lmdb/`); otherwise
//! they are in a scratch directory removed at exit. Keys are YCSB's
//! (`insertorder=hashed`: "user" and the FNV hash of the record's number),
//! requests scrambled Zipfian (θ = 0.99; D's "latest"), E's scan lengths
//! uniform in 1..=100, the `n <= 100` the RQL entry declares. Exits 1 when
//! the systems disagree: on any warm-up operation's rows, or on the digest
//! of every record at the end. What differs from YCSB is in BENCHMARKS.md
//! ("YCSB (issue 38 §4)").

#[allow(dead_code)] // the drivers' shared options; this one takes no flag
#[path = "../args.rs"]
mod args;
#[allow(dead_code)] // the benchmark's converters; the driver uses a few
#[path = "../cells.rs"]
mod cells;
#[allow(dead_code)] // the benchmark's report helpers; the driver prints a few
#[path = "../machine.rs"]
mod machine;
#[allow(dead_code)] // the interleaving helpers; the driver takes the quantiles
#[path = "../timing.rs"]
mod timing;
#[path = "../ycsb_gen.rs"]
mod ycsb_gen;
#[path = "../ycsb_report.rs"]
mod ycsb_report;
#[path = "../ycsb_sys.rs"]
mod ycsb_sys;

use args::Args;
use cells::Rows;
use rqc::{Database, Durability, OpenOptions};
use rqc_tests::Rng;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use ycsb_gen::{Keyspace, Workload};
use ycsb_report::Timed;
use ycsb_sys::{LmdbSide, RqcSide, SqliteSide, LOAD_BATCH};

/// Operations per system per round.
const BATCH: usize = 50;

/// What the command line asks for.
struct Options {
    workloads: Vec<Workload>,
    records: u64,
    ops: usize,
    db: Option<PathBuf>,
    durability: Durability,
    seed: u64,
}

fn options() -> Options {
    let args = Args::from_env();
    let workload = args.value("--workload").unwrap_or_else(|| {
        eprintln!("usage: ycsb --workload A|B|C|D|E|F|all [--records N] [--ops N] [--db DIR] [--durability none|normal|full] [--seed N]");
        std::process::exit(2)
    });
    let workloads = if workload.eq_ignore_ascii_case("all") {
        "ABCFDE".chars().filter_map(Workload::named).collect()
    } else {
        workload
            .chars()
            .filter(|c| *c != ',')
            .map(|c| Workload::named(c).unwrap_or_else(|| panic!("no workload {c}: A to F")))
            .collect()
    };
    Options {
        workloads,
        records: args.number("--records", 100_000).max(1),
        ops: args.number("--ops", 10_000).max(1) as usize,
        db: args.value("--db").map(Into::into),
        durability: args.durability(Durability::None),
        seed: args.number("--seed", 1),
    }
}

/// A field of /proc/self/status, in kB.
fn status_kb(name: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// The highest RssAnon seen since the last reset, sampled every 2 ms by a
/// thread of its own. LMDB's pages (rqc's and the raw store's) are mapped
/// from the file and count in RSS and VmHWM whatever the code holds, so
/// the anonymous part is the process's own memory.
struct Peak {
    kb: AtomicU64,
    stop: AtomicBool,
}

impl Peak {
    fn reset(&self) -> u64 {
        let now = status_kb("RssAnon:");
        self.kb.store(now, Ordering::Relaxed);
        now
    }

    fn sample(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            self.kb.fetch_max(status_kb("RssAnon:"), Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn get(&self) -> u64 {
        self.kb
            .fetch_max(status_kb("RssAnon:"), Ordering::Relaxed)
            .max(self.kb.load(Ordering::Relaxed))
    }
}

/// The records of the load, a batch at a time: key number k is "user" and
/// its hash, every field the same 100 random characters (the example's
/// `insert_record` takes one value for the ten fields).
fn each_batch(records: u64, seed: u64, mut f: impl FnMut(&[(String, String)])) {
    let mut rng = Rng::new(seed ^ 0x10AD);
    let mut batch = Vec::with_capacity(LOAD_BATCH);
    for k in 0..records {
        batch.push((ycsb_gen::key(k), ycsb_gen::value(&mut rng)));
        if batch.len() == LOAD_BATCH || k + 1 == records {
            f(&batch);
            batch.clear();
        }
    }
}

/// The bytes a directory or file takes on disk.
fn disk_bytes(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .map(|d| d.flatten().map(|e| disk_bytes(&e.path())).sum())
            .unwrap_or(0)
    } else {
        meta.blocks() * 512
    }
}

/// One system's side of a workload: operation `i`, its rows into the sink
/// when checking.
type Side<'a> = (&'static str, Box<dyn FnMut(usize, Option<&mut Rows>) + 'a>);

/// The warm-up operations `warm` on every side in turn, each compared
/// with rqc's rows. Returns the rows compared, or the first difference.
fn check(sides: &mut [Side<'_>], warm: std::ops::Range<usize>) -> Result<usize, String> {
    let mut expected: Vec<Rows> = Vec::new();
    for (s, (name, op)) in sides.iter_mut().enumerate() {
        for (w, i) in warm.clone().enumerate() {
            let mut rows = Vec::new();
            op(i, Some(&mut rows));
            if s == 0 {
                expected.push(rows);
            } else if rows != expected[w] {
                return Err(format!(
                    "operation {i}: {name} returns {} row(s) {:?}…, rqc {} {:?}…",
                    rows.len(),
                    rows.first().map(|r| &r[0]),
                    expected[w].len(),
                    expected[w].first().map(|r| &r[0]),
                ));
            }
        }
    }
    Ok(expected.iter().map(Vec::len).sum())
}

/// Operations `0..ops` on every side, `BATCH` per round, the sides in a
/// random order each round; each operation timed on its own, the clock's
/// cost taken off.
fn time(sides: &mut [Side<'_>], ops: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    let overhead = timing::clock_overhead_ns();
    let mut samples: Vec<Vec<f64>> = sides.iter().map(|_| Vec::with_capacity(ops)).collect();
    let mut order: Vec<usize> = (0..sides.len()).collect();
    for start in (0..ops).step_by(BATCH) {
        for k in (1..order.len()).rev() {
            order.swap(k, rng.below(k as u64 + 1) as usize);
        }
        for &s in &order {
            let op = &mut sides[s].1;
            for i in start..(start + BATCH).min(ops) {
                let t = Instant::now();
                op(i, None);
                let ns = t.elapsed().as_nanos() as f64;
                samples[s].push((ns - overhead).max(0.0));
            }
        }
    }
    samples
}

fn mb(kb: u64) -> String {
    format!("{:.0} MB", kb as f64 / 1024.0)
}

fn main() {
    let o = options();
    let durability = o.durability.name();
    println!(
        "machine: {}; commit {}; durability {durability} (rqc {durability}, SQLite synchronous={}, LMDB {})",
        machine::describe(),
        machine::commit(),
        match o.durability {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
            Durability::None => "OFF",
        },
        match o.durability {
            Durability::Full => "synced per commit",
            Durability::Normal => "MDB_NOMETASYNC",
            Durability::None => "MDB_NOSYNC",
        },
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let root = o.db.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    let (rqc_dir, sqlite_path, lmdb_dir) = (
        root.join("rqc"),
        root.join("ycsb.sqlite"),
        root.join("lmdb"),
    );
    for stale in [&rqc_dir, &lmdb_dir] {
        let _ = std::fs::remove_dir_all(stale);
    }
    for stale in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{stale}", sqlite_path.display()));
    }

    let peak = Peak {
        kb: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    let agreed = std::thread::scope(|scope| {
        scope.spawn(|| peak.sample());
        // The sampler stops however the run ends (a panic included).
        let _stop = Stop(&peak.stop);
        run(&o, &peak, &rqc_dir, &sqlite_path, &lmdb_dir)
    });
    drop(scratch);
    if !agreed {
        std::process::exit(1);
    }
}

struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Loads, runs the workloads and compares the records: whether every
/// check passed.
fn run(o: &Options, peak: &Peak, rqc_dir: &Path, sqlite_path: &Path, lmdb_dir: &Path) -> bool {
    // The load: each system in turn, the same records, LOAD_BATCH per commit.
    let mut db = Database::open_with(
        rqc_dir,
        OpenOptions {
            durability: o.durability,
            ..OpenOptions::default()
        },
    )
    .expect("open");
    db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ycsb")])
        .expect("install examples/ycsb");
    let mut conn = ycsb_sys::sqlite_create(sqlite_path, o.durability);
    let env = ycsb_sys::lmdb_open(lmdb_dir, o.durability);
    let mut lmdb = LmdbSide::new(&env);
    let mut loads = Vec::new();
    for system in ["rqc", "SQLite", "LMDB"] {
        let before = peak.reset();
        let mut spent = Duration::ZERO;
        each_batch(o.records, o.seed, |batch| {
            let started = Instant::now();
            match system {
                "rqc" => RqcSide::load(&db, batch),
                "SQLite" => ycsb_sys::sqlite_load(&mut conn, batch),
                _ => lmdb.load(batch),
            }
            spent += started.elapsed();
        });
        let disk = match system {
            "rqc" => disk_bytes(rqc_dir),
            "SQLite" => {
                disk_bytes(sqlite_path)
                    + disk_bytes(&PathBuf::from(format!("{}-wal", sqlite_path.display())))
            }
            _ => disk_bytes(lmdb_dir),
        };
        loads.push(format!(
            "{system} {:.1} s ({:.0} records/s), peak RssAnon {} (from {} before), {:.2} GB on disk",
            spent.as_secs_f64(),
            o.records as f64 / spent.as_secs_f64(),
            mb(peak.get()),
            mb(before),
            disk as f64 / 1e9
        ));
    }
    println!(
        "load: {} records of {} fields of {} bytes, {LOAD_BATCH} per commit: {}; VmHWM {} (counts LMDB's mapped pages)",
        o.records,
        ycsb_gen::FIELDS,
        ycsb_gen::FIELD_BYTES,
        loads.join("; "),
        mb(status_kb("VmHWM:"))
    );

    let rqc = RqcSide::new(&db);
    let mut sql = SqliteSide::new(&conn);
    let mut space = Keyspace::new(o.records, o.seed);
    let mut order_rng = Rng::new(o.seed ^ 0x0051_1CE5);
    let mut failed = false;
    for &w in &o.workloads {
        let warmup = (o.ops / 10).max(50);
        let warm = space.draw(w, warmup);
        let mut ops = space.draw(w, o.ops);
        ops.extend(warm);
        let args: Vec<Vec<rqc::Value>> = ops.iter().map(ycsb_sys::rqc_args).collect();
        let (ops, args, rqc) = (&ops, &args, &rqc);
        let mut sides: Vec<Side<'_>> = vec![
            (
                "rqc",
                Box::new(move |i, sink| rqc.run(ops[i].kind, &args[i], sink)),
            ),
            ("SQLite", Box::new(|i, sink| sql.run(&ops[i], sink))),
            ("LMDB", Box::new(|i, sink| lmdb.run(&ops[i], sink))),
        ];
        println!("\n### Workload {}: {}", w.name, w.describe());
        match check(&mut sides, o.ops..o.ops + warmup) {
            Ok(rows) if rows > 0 => println!(
                "check {}: {warmup} warm-up operations, the same rows on rqc, SQLite and LMDB ({rows} rows compared)",
                w.name
            ),
            Ok(_) => {
                println!("check {}: the warm-up read no rows at all", w.name);
                failed = true;
            }
            Err(e) => {
                println!("check {} FAILED: {e}", w.name);
                return false;
            }
        }
        let cpu = machine::cpu_ticks();
        let samples = time(&mut sides, o.ops, &mut order_rng);
        let others = machine::others_share(cpu, machine::cpu_ticks());
        drop(sides);
        let timed = Timed {
            kinds: ops[..o.ops].iter().map(|op| op.kind).collect(),
            systems: vec!["rqc", "SQLite", "LMDB"],
            samples,
            batch: BATCH,
        };
        print!("{}", timed.table());
        println!(
            "{} operations per system in rounds of {BATCH}; other processes took {:.0}% of the machine's CPU meanwhile",
            o.ops,
            100.0 * others
        );
    }
    drop(sql);

    let digests = [
        ("rqc", rqc.digest()),
        ("SQLite", SqliteSide::digest(&conn)),
        ("LMDB", lmdb.digest()),
    ];
    let first = digests[0].1;
    if digests.iter().all(|(_, d)| *d == first) && first.records == space.records {
        println!(
            "\nagreement: every record the same on rqc, SQLite and LMDB ({} records, digest {:016x}); RssAnon {}, VmHWM {}",
            first.records,
            first.hash,
            mb(status_kb("RssAnon:")),
            mb(status_kb("VmHWM:"))
        );
    } else {
        for (name, d) in &digests {
            println!("{name}: {} records, digest {:016x}", d.records, d.hash);
        }
        println!(
            "\nDISAGREEMENT: the systems end with other records ({} expected)",
            space.records
        );
        failed = true;
    }
    !failed
}
