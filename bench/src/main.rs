//! `rqc-bench`: rqc against SQLite and the raw stores (redb, LMDB, sled),
//! interleaved in one process run; writes a markdown report and its plot.
//!
//! `cargo run --release -p rqc-bench -- [--quick | --full] [--only SECTIONS] [--sizes N,N…] [--out FILE]`;
//! `-- --etcd` measures rqc on a local etcd cluster beside rqc on LMDB instead.

mod cells;
mod data;
mod etcd;
mod etcd_report;
mod machine;
mod plot;
mod profile_loop;
mod raw;
mod reads;
mod report;
mod social;
mod threaded;
mod timing;
mod tpcc;
mod tpcc_sql;
mod writes;

use rqc::Durability;
use std::path::PathBuf;

const HELP: &str = "rqc-bench [--quick | --full | --etcd] [--only reads,inserts,tpcc] [--sizes N,N...] [--sled-max N] [--out FILE] [--tmp DIR]

Measures rqc (on LMDB, its default, redb and sled) beside SQLite (two lines: as an application opens it, and with mmap
and a large page cache) and the raw stores (redb, LMDB, sled), interleaved in small batches in a
random order each round: six read shapes at each table size N, inserts (at each durability level
beside SQLite's matching synchronous setting: none/OFF, normal/NORMAL, full/FULL; eight concurrent
durable writers) and the TPC-C mix. Writes a markdown report (default BENCHMARKS.md) and an SVG
plot beside it.

  (default)  N = 10^4, 10^5, 10^6; about 15 minutes on 2 cores
  --full     N up to 10^7, the run BENCHMARKS.md comes from; about an hour, ~25 GB of scratch disk
  --quick    tiny sizes, a few seconds in a debug build: the harness's smoke test, not for quoting
  --etcd     instead: rqc on a 3-member etcd cluster it starts on loopback (needs etcd and etcdctl on
             PATH) beside rqc on LMDB, P1 point reads, P2 timelines and the TPC-C mix from 1 and 8
             threads, with round trips against the proved bound; writes its section into the report
             file (replacing the one there), N = the first --sizes (default 10^4); a few minutes.
             With --quick: tiny sizes, the smoke test
  --only     some sections only (the report then has only those)
  --sizes    the read sizes instead of the mode's
  --sled-max N  measure sled in the reads up to N rows (default 10^6; 0: not at all)
  --tmp DIR  where the databases go (default: the system's temporary directory)
  --loop SHAPE  instead: one read shape (point, unique, range, island, timeline, top-k) in a tight
             loop on rqc (LMDB) and raw LMDB at the first --sizes (say --sizes 100000), for a profiler;
             RQC_LOOP_SECONDS (default 3), RQC_LOOP_ONLY=rqc";

/// Which experiments run, and how large.
#[derive(Clone, Debug)]
pub struct Config {
    pub mode: &'static str,
    pub args: Vec<String>,
    pub out: PathBuf,
    pub sections: Vec<String>,
    pub sizes: Vec<i64>,
    pub reads: reads::ReadPlan,
    pub inserts: writes::InsertPlan,
    pub tpcc: tpcc::TpccPlan,
    /// `--etcd`: the etcd experiments instead of the others.
    pub etcd: Option<etcd::EtcdPlan>,
    /// `--loop SHAPE`: that shape in a tight loop instead.
    pub profile_loop: Option<reads::Shape>,
}

impl Config {
    fn parse(args: Vec<String>) -> Result<Config, String> {
        let mut mode = "default";
        let mut out = PathBuf::from("BENCHMARKS.md");
        let mut sections = vec!["reads".to_string(), "inserts".into(), "tpcc".into()];
        let mut sizes = None;
        let mut sled_max = 1_000_000;
        let mut with_etcd = false;
        let mut profile_loop = None;
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--quick" => mode = "quick",
                "--full" => mode = "full",
                "--etcd" => with_etcd = true,
                "--loop" => {
                    let name = value()?;
                    let shape = reads::SHAPES.iter().find(|s| s.short() == name);
                    profile_loop = Some(*shape.ok_or(format!("--loop {name}: no such shape"))?);
                }
                "--out" => out = PathBuf::from(value()?),
                "--tmp" => {
                    let _ = SCRATCH.set(PathBuf::from(value()?));
                }
                "--only" => sections = value()?.split(',').map(str::to_string).collect(),
                "--sizes" => {
                    let list = value()?;
                    let parsed: Result<Vec<i64>, _> = list.split(',').map(str::parse).collect();
                    sizes = Some(parsed.map_err(|e| format!("--sizes {list}: {e}"))?);
                }
                "--sled-max" => {
                    let v = value()?;
                    sled_max = v.parse().map_err(|e| format!("--sled-max {v}: {e}"))?;
                }
                "--help" | "-h" => return Err(HELP.into()),
                other => return Err(format!("unknown argument `{other}`\n\n{HELP}")),
            }
        }
        if let Some(bad) = sections
            .iter()
            .find(|s| !["reads", "inserts", "tpcc"].contains(&s.as_str()))
        {
            return Err(format!("unknown section `{bad}` (reads, inserts, tpcc)"));
        }
        let quick = mode == "quick";
        let scale = |customers, items| rqc_tests::tpcc::Scale {
            warehouses: 1,
            customers,
            items,
        };
        let etcd = with_etcd.then(|| etcd::EtcdPlan {
            n: sizes
                .as_ref()
                .and_then(|s: &Vec<i64>| s.first().copied())
                .unwrap_or(if quick { 1_000 } else { 10_000 }),
            point_ops: if quick { 32 } else { 4_096 },
            timeline_ops: if quick { 16 } else { 480 },
            tpcc_ops: if quick { 16 } else { 960 },
            tpcc: if quick {
                scale(10, 200)
            } else {
                scale(60, 2_000)
            },
            checked: if quick { 8 } else { 40 },
            point_batch: if quick { 16 } else { 256 },
            batch: if quick { 8 } else { 32 },
        });
        Ok(Config {
            profile_loop,
            etcd,
            mode,
            args,
            out,
            sections,
            sizes: sizes.unwrap_or_else(|| match mode {
                "quick" => vec![1_000, 4_000],
                "full" => vec![10_000, 100_000, 1_000_000, 10_000_000],
                _ => vec![10_000, 100_000, 1_000_000],
            }),
            reads: reads::ReadPlan {
                ops: if quick { 200 } else { 20_000 },
                slow_ops: if quick { 40 } else { 2_000 },
                batch: if quick { 20 } else { 25 },
                checked: if quick { 20 } else { 100 },
                sled_max,
            },
            inserts: writes::InsertPlan {
                prefill: if quick { 200 } else { 100_000 },
                ops: if quick { 60 } else { 5_000 },
                durable_ops: if quick { 20 } else { 1_000 },
                batch: if quick { 10 } else { 25 },
                writers: 8,
                per_writer: if quick { 2 } else { 10 },
                bursts: if quick { 3 } else { 20 },
            },
            tpcc: tpcc::TpccPlan {
                // TPC-C's own sizes per warehouse in a measuring run.
                scale: if quick {
                    scale(10, 200)
                } else {
                    scale(3_000, 100_000)
                },
                ops: if quick { 150 } else { 10_000 },
                checked: if quick { 30 } else { 200 },
                batch: if quick { 10 } else { 50 },
            },
        })
    }

    pub fn runs(&self, section: &str) -> bool {
        self.sections.iter().any(|s| s == section)
    }

    /// The command that reproduces this run, for the report's first line.
    pub fn command(&self) -> String {
        let mut cmd = "cargo run --release -p rqc-bench".to_string();
        if !self.args.is_empty() {
            cmd.push_str(" --");
            for a in &self.args {
                cmd.push(' ');
                cmd.push_str(a);
            }
        }
        cmd
    }
}

static SCRATCH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Where the databases are made (`--tmp`, or the temporary directory).
pub fn scratch_dir() -> PathBuf {
    SCRATCH.get_or_init(std::env::temp_dir).clone()
}

/// Everything one run measured.
pub struct Results {
    pub reads: Vec<reads::SizeRun>,
    pub inserts: Vec<writes::InsertRun>,
    pub concurrent: Option<writes::ConcurrentRun>,
    pub tpcc: Option<tpcc::TpccRun>,
    pub meta: report::Meta,
}

fn main() {
    let config = match Config::parse(std::env::args().skip(1).collect()) {
        Ok(config) => config,
        Err(message) => {
            let help = message == HELP;
            if help {
                println!("{message}");
            } else {
                eprintln!("{message}");
            }
            std::process::exit(if help { 0 } else { 2 });
        }
    };
    let started = std::time::Instant::now();
    // The commit the run starts from: later commits during a long run do
    // not change what was measured.
    let commit = machine::commit();
    let (load_before, cpu_before) = (machine::load_average(), machine::cpu_ticks());
    let seed = 12;
    if let Some(shape) = config.profile_loop {
        profile_loop::run(shape, config.sizes.first().copied().unwrap_or(10_000));
        return;
    }
    if let Some(plan) = config.etcd {
        let run = etcd::run(plan, seed);
        let meta = meta(&config, commit, started, load_before, cpu_before);
        let section = etcd_report::render(&run, &meta, config.mode == "quick");
        let old = std::fs::read_to_string(&config.out).unwrap_or_default();
        std::fs::write(&config.out, etcd_report::splice(&old, &section)).expect("write the report");
        eprintln!(
            "wrote the etcd section of {} in {:.0} s",
            config.out.display(),
            started.elapsed().as_secs_f64()
        );
        return;
    }
    let mut results = Results {
        reads: Vec::new(),
        inserts: Vec::new(),
        concurrent: None,
        tpcc: None,
        meta: report::Meta::default(),
    };
    if config.runs("reads") {
        for &n in &config.sizes {
            eprintln!("reads at N = {n}");
            results.reads.push(reads::run_size(n, config.reads, seed));
        }
    }
    if config.runs("inserts") {
        // Each level beside SQLite's matching `synchronous`, never across.
        for level in [Durability::None, Durability::Normal, Durability::Full] {
            eprintln!(
                "inserts, durability {} (SQLite synchronous = {})",
                level.name(),
                writes::sqlite_synchronous(level)
            );
            results
                .inserts
                .push(writes::single_writer(config.inserts, level, seed));
        }
        eprintln!("inserts, {} concurrent writers", config.inserts.writers);
        results.concurrent = Some(writes::concurrent_writers(config.inserts, seed));
    }
    if config.runs("tpcc") {
        eprintln!("the TPC-C mix");
        results.tpcc = Some(tpcc::run(config.tpcc, seed));
    }
    results.meta = meta(&config, commit, started, load_before, cpu_before);
    let svg = config.out.with_extension("svg");
    if !results.reads.is_empty() {
        plot::latency_plot(&svg, &results.reads).expect("plot");
    }
    let mut text = report::render(&config, &results, &svg);
    // The etcd section comes from its own run (`--etcd`): kept as it was.
    let old = std::fs::read_to_string(&config.out).unwrap_or_default();
    if let Some(section) = etcd_report::kept(&old) {
        text = etcd_report::splice(&text, section);
    }
    // So is the `tpcc` driver's, written by hand from its runs.
    let (begin, end) = (etcd_report::TPCC_BEGIN, etcd_report::TPCC_END);
    if let Some(section) = etcd_report::kept_between(&old, begin, end) {
        text = etcd_report::splice_between(&text, section, begin, end);
    }
    std::fs::write(&config.out, text).expect("write the report");
    eprintln!(
        "wrote {} in {:.0} s",
        config.out.display(),
        started.elapsed().as_secs_f64()
    );
}

fn meta(
    config: &Config,
    commit: String,
    started: std::time::Instant,
    load_before: f64,
    cpu_before: machine::CpuTicks,
) -> report::Meta {
    report::Meta {
        command: config.command(),
        commit,
        machine: machine::describe(),
        seconds: started.elapsed().as_secs_f64(),
        load: (load_before, machine::load_average()),
        others: machine::others_share(cpu_before, machine::cpu_ticks()),
        clock_ns: timing::clock_overhead_ns(),
    }
}
