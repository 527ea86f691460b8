//! TPC-C's population into rqc, streamed: a batch of entry calls per commit, so the loader holds no more than a batch (`tpcc` and `tpcc-faults` load with it).

use crate::args::Args;
use rqc::{Database, Value};
use rqc_tests::etcd_cluster::{ClusterOptions, EtcdCluster};
use rqc_tests::tpcc::{each_population_call, Scale};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Calls per load commit: what the loader holds at once.
pub const LOAD_BATCH: usize = 2_000;

/// A batch of population calls: each entry point's name and arguments.
pub type Batch = Vec<(&'static str, Vec<Value>)>;

/// Loads the population of `scale` (drawn from `seed`) into `db`, one
/// transaction per `size` calls ([`LOAD_BATCH`] on a local store), handing
/// each batch to `beside` after rqc committed it (another system's
/// loader). Returns the calls made and rqc's time.
pub fn load(
    db: &Database,
    scale: Scale,
    seed: u64,
    size: usize,
    beside: &mut dyn FnMut(&Batch),
) -> (usize, Duration) {
    let mut batch: Batch = Vec::with_capacity(size);
    let (mut calls, mut spent) = (0, Duration::ZERO);
    let mut commit = |batch: &mut Batch| {
        let started = Instant::now();
        db.transaction(|tx| {
            for (name, args) in batch.iter() {
                tx.run(name, args)?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("loading: {e}"));
        spent += started.elapsed();
        beside(batch);
        batch.clear();
    };
    each_population_call(scale, seed, &mut |name, args| {
        batch.push((name, args));
        calls += 1;
        if batch.len() == size {
            commit(&mut batch);
        }
    });
    commit(&mut batch);
    (calls, spent)
}

/// TPC-C's scale from the command line: `--warehouses W` (1 by default)
/// at the specification's cardinalities, or with `--small` the reduced
/// ones CI uses (30 customers per district and 1,000 items, where TPC-C
/// has 3,000 and 100,000).
pub fn scale(args: &Args) -> Scale {
    let (customers, items) = if args.flag("--small") {
        (30, 1_000)
    } else {
        (3_000, 100_000)
    };
    Scale {
        warehouses: args.number("--warehouses", 1).max(1) as i64,
        customers,
        items,
    }
}

/// Every row of `from` into `to` (the same program installed in both),
/// table by table, referenced tables first, each through
/// [`Database::load`] (every row checked as `rqc load` checks one; on etcd
/// split into the load's transactions): how a population loaded into a
/// scratch embedded database reaches etcd in bulk, as `rqc dump` and `rqc
/// restore` would carry it. Holds one table's rows at a time (a table
/// read whole, then written). Returns the rows copied and the time.
pub fn copy_into(from: &Database, to: &Database) -> (u64, Duration) {
    let started = Instant::now();
    let program = from.program().expect("a program installed");
    let mut copied = 0;
    for table in program.schema.referenced_first() {
        let mut rows: Vec<Vec<Value>> = Vec::new();
        let (mut current, mut counter) = (false, None);
        from.dump_each(|dumped| {
            match dumped {
                rqc::Dumped::Table(name) => current = name == table.name,
                rqc::Dumped::Row(Value::Record(row)) if current => rows.push(row.values().to_vec()),
                rqc::Dumped::KeyCounter(name, at) if name == table.name => counter = Some(at),
                rqc::Dumped::Problem(problem) => panic!("copying {}: {problem}", table.name),
                _ => {}
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("reading {}: {e}", table.name));
        let report = to
            .load(&table.name, rows)
            .unwrap_or_else(|e| panic!("copying {}: {e}", table.name));
        assert!(
            report.rejected.is_empty(),
            "{}: {:?}",
            table.name,
            report.rejected
        );
        copied += report.written;
        // A generated key's counter goes with the rows, as a restore's.
        if let Some(at) = counter {
            to.raise_key_counter(&table.name, at)
                .unwrap_or_else(|e| panic!("{}'s key counter: {e}", table.name));
        }
    }
    (copied, started.elapsed())
}

/// A 3-member etcd cluster on loopback for TPC-C (`--etcd`): every commit
/// a Raft round and an fsync on a majority.
pub fn etcd_cluster() -> EtcdCluster {
    EtcdCluster::start_with(
        3,
        ClusterOptions {
            max_txn_ops: Some(65_536),
            // Under the 10 MB a member replays of one log entry when it
            // starts again ("wal: max entry size limit exceeded").
            max_request_bytes: Some(8 << 20),
            ..ClusterOptions::default()
        },
    )
}

/// Where rqc's database is: on the cluster, else `--db DIR`, else a
/// scratch directory.
pub fn database_at(cluster: Option<&EtcdCluster>, db: Option<&PathBuf>, scratch: &Path) -> PathBuf {
    match (cluster, db) {
        (Some(cluster), _) => PathBuf::from(cluster.url("tpcc")),
        (None, Some(db)) => db.clone(),
        (None, None) => scratch.join("rqc"),
    }
}
