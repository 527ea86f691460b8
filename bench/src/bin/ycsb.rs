//! `ycsb`: the YCSB core workloads A–F on rqc (the embedded default, LMDB, running examples/ycsb), SQLite and raw LMDB side by side: loads N records of 10 fields of 100 bytes into each, runs each workload's operations interleaved in small rounds, checks that every system returns the same rows and ends with the same records, prints throughput and p50/p99 latency per operation.
//!
//! `cargo run --release -p rqc-bench --bin ycsb -- --workload A|B|C|D|E|F|all [--records N] [--ops N] [--db DIR] [--durability none|normal|full] [--seed N] [--in-turn]`
//!
//! Defaults: 100,000 records, 10,000 timed operations per workload (and a
//! tenth as many untimed first, at least 50: the check), durability
//! `none` on all three (rqc `--durability none`, SQLite WAL with
//! `synchronous=OFF`, LMDB `MDB_NOSYNC`; `normal` is rqc's and LMDB's
//! `MDB_NOMETASYNC` beside SQLite's `NORMAL`; `full` a sync per commit
//! everywhere). `all` runs A, B, C, F, D, E on one load, in YCSB's
//! recommended order (D and E insert, so they come last). `--db DIR` keeps
//! the three databases there (`rqc/`, `ycsb.sqlite`, `lmdb/`); otherwise
//! they are in a scratch directory removed at exit. `--in-turn` runs
//! each system alone with the machine, one after another (its load, every
//! workload, its digest; without `--db` its store is removed before the
//! next one loads): at 10^7 records the three stores do not fit the page
//! cache together. The operations are the same either way (each system
//! draws from a keyspace of the same seed); the warm-ups are compared by
//! digest with rqc's. Keys are YCSB's
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
use ycsb_gen::{Keyspace, Kind, Workload};
use ycsb_report::Timed;
use ycsb_sys::{Digest, LmdbSide, RqcSide, SqliteSide, LOAD_BATCH};

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
    /// Each system alone with the machine, one after another (at 10^7
    /// records the three stores do not fit the page cache together).
    in_turn: bool,
}

fn options() -> Options {
    let args = Args::from_env();
    let workload = args.value("--workload").unwrap_or_else(|| {
        eprintln!("usage: ycsb --workload A|B|C|D|E|F|all [--records N] [--ops N] [--db DIR] [--durability none|normal|full] [--seed N] [--in-turn]");
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
        in_turn: args.flag("--in-turn"),
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
/// with what the first system that ran them read (`expected`, filled by
/// the first call: by rqc, the first system of the first group). Returns
/// the rows compared, or the first difference.
fn check(
    sides: &mut [Side<'_>],
    warm: std::ops::Range<usize>,
    expected: &mut Vec<Digest>,
) -> Result<u64, String> {
    for (name, op) in sides.iter_mut() {
        let first = expected.is_empty();
        for (w, i) in warm.clone().enumerate() {
            let mut rows = Vec::new();
            op(i, Some(&mut rows));
            let seen = ycsb_sys::rows_digest(&rows);
            if first {
                expected.push(seen);
            } else if seen != expected[w] {
                return Err(format!(
                    "operation {i}: {name} returns {} row(s) (digest {:016x}), rqc {} ({:016x})",
                    seen.records, seen.hash, expected[w].records, expected[w].hash,
                ));
            }
        }
    }
    Ok(expected.iter().map(|d| d.records).sum())
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
        "machine: {}; commit {}; durability {durability} (rqc {durability}, SQLite synchronous={}, LMDB {}); {}",
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
        if o.in_turn {
            "the systems in turn, each alone with the machine (its load, every workload, its digest)"
        } else {
            "the systems interleaved"
        },
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let root = o.db.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    let stores = Stores {
        rqc: root.join("rqc"),
        sqlite: root.join("ycsb.sqlite"),
        lmdb: root.join("lmdb"),
    };
    for system in 0..SYSTEMS.len() {
        stores.remove(system);
    }

    let peak = Peak {
        kb: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    let agreed = std::thread::scope(|scope| {
        scope.spawn(|| peak.sample());
        // The sampler stops however the run ends (a panic included).
        let _stop = Stop(&peak.stop);
        run(&o, &peak, &stores)
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

/// The systems, in the order every table names them; rqc first, the one
/// the others are compared with.
const SYSTEMS: [&str; 3] = ["rqc", "SQLite", "LMDB"];

/// Where each system's store lives.
struct Stores {
    rqc: PathBuf,
    sqlite: PathBuf,
    lmdb: PathBuf,
}

impl Stores {
    fn sqlite_files(&self) -> [PathBuf; 3] {
        ["", "-wal", "-shm"].map(|end| PathBuf::from(format!("{}{end}", self.sqlite.display())))
    }

    /// The bytes system `s`'s store takes on disk.
    fn disk(&self, s: usize) -> u64 {
        match s {
            0 => disk_bytes(&self.rqc),
            1 => self.sqlite_files().iter().map(|f| disk_bytes(f)).sum(),
            _ => disk_bytes(&self.lmdb),
        }
    }

    fn remove(&self, s: usize) {
        match s {
            0 => drop(std::fs::remove_dir_all(&self.rqc)),
            1 => self
                .sqlite_files()
                .iter()
                .for_each(|f| drop(std::fs::remove_file(f))),
            _ => drop(std::fs::remove_dir_all(&self.lmdb)),
        }
    }
}

/// What a workload gathered, over every group of systems.
struct Gathered {
    kinds: Vec<Kind>,
    samples: Vec<Vec<f64>>,
    /// The warm-up's rows, operation by operation, as the first system read them.
    expected: Vec<Digest>,
    rows_compared: u64,
    /// The share of the CPU other processes took, per group.
    others: Vec<f64>,
}

/// Loads, runs the workloads and compares the records, the systems either
/// all together (interleaved in rounds) or one group of one after
/// another: whether every check passed.
fn run(o: &Options, peak: &Peak, stores: &Stores) -> bool {
    let groups: Vec<Vec<usize>> = if o.in_turn {
        (0..SYSTEMS.len()).map(|s| vec![s]).collect()
    } else {
        vec![(0..SYSTEMS.len()).collect()]
    };
    let mut gathered: Vec<Gathered> = o
        .workloads
        .iter()
        .map(|_| Gathered {
            kinds: Vec::new(),
            samples: vec![Vec::new(); SYSTEMS.len()],
            expected: Vec::new(),
            rows_compared: 0,
            others: Vec::new(),
        })
        .collect();
    let mut loads = Vec::new();
    let mut digests = Vec::new();
    let mut records = 0;
    for group in &groups {
        match run_group(o, peak, stores, group, &mut gathered, &mut loads) {
            Ok((mut ends, expected_records)) => {
                digests.append(&mut ends);
                records = expected_records;
            }
            Err(e) => {
                println!("{e}");
                return false;
            }
        }
        if o.in_turn && o.db.is_none() {
            group.iter().for_each(|&s| stores.remove(s));
        }
    }
    println!(
        "load: {} records of {} fields of {} bytes, {LOAD_BATCH} per commit: {}; VmHWM {} (counts LMDB's mapped pages)",
        o.records,
        ycsb_gen::FIELDS,
        ycsb_gen::FIELD_BYTES,
        loads.join("; "),
        mb(status_kb("VmHWM:"))
    );
    let mut failed = false;
    for (w, g) in o.workloads.iter().zip(gathered) {
        println!("\n### Workload {}: {}", w.name, w.describe());
        if g.rows_compared > 0 {
            println!(
                "check {}: {} warm-up operations, the same rows on rqc, SQLite and LMDB ({} rows compared)",
                w.name,
                g.expected.len(),
                g.rows_compared
            );
        } else {
            println!("check {}: the warm-up read no rows at all", w.name);
            failed = true;
        }
        let timed = Timed {
            kinds: g.kinds,
            systems: SYSTEMS.to_vec(),
            samples: g.samples,
            batch: BATCH,
        };
        print!("{}", timed.table());
        let others: Vec<String> = g
            .others
            .iter()
            .map(|x| format!("{:.0}%", 100.0 * x))
            .collect();
        println!(
            "{} operations per system in rounds of {BATCH}; other processes took {} of the machine's CPU meanwhile{}",
            o.ops,
            others.join(", "),
            if o.in_turn { " (during rqc's, SQLite's and LMDB's runs)" } else { "" }
        );
    }

    let first = digests[0].1;
    if digests.iter().all(|(_, d)| *d == first) && first.records == records {
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
        println!("\nDISAGREEMENT: the systems end with other records ({records} expected)");
        failed = true;
    }
    !failed
}

/// The systems of `group`: their loads (each in turn, the same records,
/// LOAD_BATCH per commit), every workload on them interleaved (the same
/// operations for every group: each draws from a keyspace of the same
/// seed), and the digest of every record each ends with, beside the
/// record count expected.
#[allow(clippy::type_complexity)]
fn run_group(
    o: &Options,
    peak: &Peak,
    stores: &Stores,
    group: &[usize],
    gathered: &mut [Gathered],
    loads: &mut Vec<String>,
) -> Result<(Vec<(&'static str, Digest)>, u64), String> {
    let has = |s: usize| group.contains(&s);
    let db = has(0).then(|| {
        let mut db = Database::open_with(
            &stores.rqc,
            OpenOptions {
                durability: o.durability,
                ..OpenOptions::default()
            },
        )
        .expect("open");
        db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ycsb")])
            .expect("install examples/ycsb");
        db
    });
    let mut conn = has(1).then(|| ycsb_sys::sqlite_create(&stores.sqlite, o.durability));
    let env = has(2).then(|| ycsb_sys::lmdb_open(&stores.lmdb, o.durability));
    let mut lmdb = env.as_ref().map(LmdbSide::new);
    for &s in group {
        let before = peak.reset();
        let mut spent = Duration::ZERO;
        each_batch(o.records, o.seed, |batch| {
            let started = Instant::now();
            match (&db, &mut conn, &mut lmdb) {
                (Some(db), _, _) if s == 0 => RqcSide::load(db, batch),
                (_, Some(conn), _) if s == 1 => ycsb_sys::sqlite_load(conn, batch),
                (_, _, Some(lmdb)) => lmdb.load(batch),
                _ => unreachable!("system {s} is open"),
            }
            spent += started.elapsed();
        });
        loads.push(format!(
            "{} {:.1} s ({:.0} records/s), peak RssAnon {} (from {} before), {:.2} GB on disk",
            SYSTEMS[s],
            spent.as_secs_f64(),
            o.records as f64 / spent.as_secs_f64(),
            mb(peak.get()),
            mb(before),
            stores.disk(s) as f64 / 1e9
        ));
        eprintln!("{}", loads.last().unwrap());
    }

    let rqc = db.as_ref().map(RqcSide::new);
    let mut sql = conn.as_ref().map(SqliteSide::new);
    let mut space = Keyspace::new(o.records, o.seed);
    let mut order_rng = Rng::new(o.seed ^ 0x0051_1CE5);
    for (&w, g) in o.workloads.iter().zip(gathered.iter_mut()) {
        let warmup = (o.ops / 10).max(50);
        let warm = space.draw(w, warmup);
        let mut ops = space.draw(w, o.ops);
        ops.extend(warm);
        let args: Vec<Vec<rqc::Value>> = ops.iter().map(ycsb_sys::rqc_args).collect();
        let (ops, args) = (&ops, &args);
        let mut sides: Vec<Side<'_>> = Vec::new();
        if let Some(rqc) = &rqc {
            sides.push((
                "rqc",
                Box::new(move |i, sink| rqc.run(ops[i].kind, &args[i], sink)),
            ));
        }
        if let Some(sql) = &mut sql {
            sides.push(("SQLite", Box::new(|i, sink| sql.run(&ops[i], sink))));
        }
        if let Some(lmdb) = &mut lmdb {
            sides.push(("LMDB", Box::new(|i, sink| lmdb.run(&ops[i], sink))));
        }
        let started = Instant::now();
        g.rows_compared += check(&mut sides, o.ops..o.ops + warmup, &mut g.expected)
            .map_err(|e| format!("check {} FAILED: {e}", w.name))?;
        let cpu = machine::cpu_ticks();
        let samples = time(&mut sides, o.ops, &mut order_rng);
        g.others
            .push(machine::others_share(cpu, machine::cpu_ticks()));
        drop(sides);
        for (&s, samples) in group.iter().zip(samples) {
            g.samples[s] = samples;
        }
        g.kinds = ops[..o.ops].iter().map(|op| op.kind).collect();
        eprintln!(
            "workload {} on {} in {:.0} s",
            w.name,
            group
                .iter()
                .map(|&s| SYSTEMS[s])
                .collect::<Vec<_>>()
                .join(", "),
            started.elapsed().as_secs_f64()
        );
    }
    drop(sql);
    let mut ends = Vec::new();
    if let Some(rqc) = &rqc {
        ends.push(("rqc", rqc.digest()));
    }
    if let Some(conn) = &conn {
        ends.push(("SQLite", SqliteSide::digest(conn)));
    }
    if let Some(lmdb) = &mut lmdb {
        ends.push(("LMDB", lmdb.digest()));
    }
    Ok((ends, space.records))
}
