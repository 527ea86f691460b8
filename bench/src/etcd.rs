//! `rqc-bench --etcd`: rqc on a local 3-member etcd cluster beside rqc on
//! LMDB (the embedded default), the same data and runs: P1 point reads, P2
//! timelines and the TPC-C mix, from 1 and from 8 client threads.

use crate::data::{uniform_keys, Social};
use crate::threaded::{check, timed, Line, RunOp};
use crate::tpcc::{compared, populate, ENTRIES};
use rqc::{Backend, Database, Durability, OpenOptions, Prepared, Value};
use rqc_tests::etcd_cluster::{ClusterOptions, EtcdCluster};
use rqc_tests::tpcc::{population, Mix, Scale, Txn};
use std::time::Instant;

/// Client threads of each experiment: one, then eight at once.
pub const THREADS: [usize; 2] = [1, 8];

/// The cluster's `--max-txn-ops`: the social example's `unfollow_all` is
/// proved to up to 45,001 operations in one commit, and a database refuses
/// to install a mutation that may not fit (E0570). No run here nears it.
pub const MAX_TXN_OPS: usize = 65_536;

/// The cluster's `--max-request-bytes`: `unfollow_all`'s commit is proved
/// to fit in about 43 MB (E0577 refuses to install it on a smaller limit).
pub const MAX_REQUEST_BYTES: usize = 64 << 20;

/// The systems, in the order the check compares them (LMDB first).
const SYSTEMS: [&str; 2] = ["rqc (lmdb)", "rqc (etcd)"];

#[derive(Clone, Copy, Debug)]
pub struct EtcdPlan {
    /// Rows in each of User, Post and Follow.
    pub n: i64,
    /// Timed runs per system and thread count.
    pub point_ops: usize,
    pub timeline_ops: usize,
    pub tpcc_ops: usize,
    pub tpcc: Scale,
    /// Runs checked (one at a time, untimed) before each workload.
    pub checked: usize,
    /// Runs per system per round (each thread takes runs from the batch):
    /// for P1, whose runs on LMDB take a microsecond, and for the others.
    pub point_batch: usize,
    pub batch: usize,
}

/// One workload at one thread count.
pub struct Experiment {
    pub name: &'static str,
    pub threads: usize,
    pub lines: Vec<Line>,
    /// The entry point of each run, by run number (TPC-C has several).
    pub entries: Vec<&'static str>,
}

pub struct EtcdRun {
    pub plan: EtcdPlan,
    pub experiments: Vec<Experiment>,
    /// Seconds each system took to load each data set.
    pub loads: Vec<(String, f64)>,
    /// Entry calls (one commit each) that loaded the TPC-C population.
    pub population: usize,
}

pub const P1: &str = "P1: point read by key (User[id])";
pub const P2: &str = "P2: timeline (20 follows × 10 posts, top 10)";
pub const MIX: &str = "P6: the TPC-C mix";

pub fn run(plan: EtcdPlan, seed: u64) -> EtcdRun {
    eprintln!("starting a 3-member etcd cluster (--max-txn-ops {MAX_TXN_OPS} --max-request-bytes {MAX_REQUEST_BYTES})");
    let cluster = EtcdCluster::start_with(
        3,
        ClusterOptions {
            max_txn_ops: Some(MAX_TXN_OPS),
            max_request_bytes: Some(MAX_REQUEST_BYTES),
            ..ClusterOptions::default()
        },
    );
    let dir = tempfile::tempdir_in(crate::scratch_dir()).expect("scratch directory");
    let mut loads = Vec::new();
    let mut timed_load = |what: String, f: &mut dyn FnMut() -> Database| {
        let t = Instant::now();
        let db = f();
        let s = t.elapsed().as_secs_f64();
        eprintln!("  loaded {what} in {s:.1} s");
        loads.push((what, s));
        db
    };
    let open = |name: &str| {
        Database::open_with(
            dir.path().join(name),
            OpenOptions {
                backend: Some(Backend::Lmdb),
                durability: Durability::None,
                ..OpenOptions::default()
            },
        )
        .expect("open rqc on LMDB")
    };
    let connect = |prefix: &str| Database::connect(&cluster.url(prefix)).expect("the cluster");

    let social = Social { n: plan.n };
    let social_dbs = [
        timed_load(format!("the social data, {}", SYSTEMS[0]), &mut || {
            let mut db = open("social");
            crate::social::fill(&mut db, social);
            db
        }),
        timed_load(format!("the social data, {}", SYSTEMS[1]), &mut || {
            let mut db = connect("social");
            crate::social::fill(&mut db, social);
            db
        }),
    ];
    let pop = population(plan.tpcc, seed);
    let tpcc_dbs = [
        timed_load(format!("TPC-C, {}", SYSTEMS[0]), &mut || {
            let mut db = open("tpcc");
            populate(&mut db, &pop);
            db
        }),
        timed_load(format!("TPC-C, {}", SYSTEMS[1]), &mut || {
            let mut db = connect("tpcc");
            populate(&mut db, &pop);
            db
        }),
    ];
    let systems: Vec<String> = SYSTEMS.iter().map(|s| s.to_string()).collect();
    let mut experiments = Vec::new();

    // P1 and P2: the checked runs first, then the timed runs of each
    // thread count, each with keys of its own.
    for (k, (name, entry, ops, batch, range)) in [
        (P1, "user", plan.point_ops, plan.point_batch, social.n),
        (
            P2,
            "timeline",
            plan.timeline_ops,
            plan.batch,
            social.followers(),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let total = plan.checked + ops * THREADS.len();
        let keys = uniform_keys(total, range, seed ^ (plan.n as u64) ^ k as u64);
        let args: Vec<Vec<Value>> = keys
            .iter()
            .map(|&key| match entry {
                "user" => vec![key.into()],
                _ => vec![key.into(), 10i64.into()],
            })
            .collect();
        let prepared: Vec<Prepared<'_>> = social_dbs
            .iter()
            .map(|db| db.prepare(entry).expect("the entry is installed"))
            .collect();
        let op = |s: usize, i: usize| prepared[s].run(&args[i]);
        let entries = vec![entry; total];
        let work = Workload {
            name,
            ops,
            batch,
            checked: plan.checked,
            entries: &entries,
        };
        experiments.extend(workload(work, &systems, &op, &|_| true, seed));
    }

    // The mix: drawn once; the check's transactions run first, then each
    // thread count's, all on the same two databases.
    let mut rng = rqc_tests::Rng::new(seed);
    let total = plan.checked + plan.tpcc_ops * THREADS.len();
    // No rollbacks: a refused call counts as a failed operation here.
    let mix = Mix::new(plan.tpcc, seed, seed).without_rollbacks();
    let txns: Vec<Txn> = (0..total).map(|_| mix.draw(&mut rng)).collect();
    let calls = crate::tpcc::calls(&txns);
    let prepared: Vec<Vec<Prepared<'_>>> = tpcc_dbs
        .iter()
        .map(|db| ENTRIES.iter().map(|e| db.prepare(e).unwrap()).collect())
        .collect();
    let op = |s: usize, i: usize| prepared[s][calls[i].0].run(&calls[i].1);
    let entries: Vec<&'static str> = calls.iter().map(|(e, _)| ENTRIES[*e]).collect();
    let compare = |i: usize| compared(&txns[i]);
    let work = Workload {
        name: MIX,
        ops: plan.tpcc_ops,
        batch: plan.batch,
        checked: plan.checked,
        entries: &entries,
    };
    experiments.extend(workload(work, &systems, &op, &compare, seed));
    // The databases close before the cluster they talk to stops.
    drop(prepared);
    drop((social_dbs, tpcc_dbs));
    drop(cluster);
    EtcdRun {
        plan,
        experiments,
        loads,
        population: pop.len(),
    }
}

/// What one workload runs: `checked` runs first, then `ops` timed runs per
/// thread count, in rounds of `batch`.
struct Workload<'e> {
    name: &'static str,
    ops: usize,
    batch: usize,
    checked: usize,
    entries: &'e [&'static str],
}

/// Checks runs `0..checked` on both systems, then times `ops` runs at each
/// thread count (runs `checked + t * ops ..`, `t` the count's place).
fn workload(
    w: Workload<'_>,
    systems: &[String],
    op: &RunOp<'_>,
    compare: &dyn Fn(usize) -> bool,
    seed: u64,
) -> Vec<Experiment> {
    eprintln!("{}: checking {} runs", w.name, w.checked);
    check(systems, op, 0..w.checked, compare);
    THREADS
        .iter()
        .enumerate()
        .map(|(t, &threads)| {
            eprintln!("{}: {} runs from {threads} thread(s)", w.name, w.ops);
            let first = w.checked + t * w.ops;
            let lines = timed(systems, op, first, w.ops, threads, w.batch, seed + t as u64);
            Experiment {
                name: w.name,
                threads,
                lines,
                entries: w.entries.to_vec(),
            }
        })
        .collect()
}
