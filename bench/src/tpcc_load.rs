//! TPC-C's population into rqc, streamed: a batch of entry calls per commit, so the loader holds no more than a batch (`tpcc` and `tpcc-faults` load with it).

use crate::args::Args;
use rqc::{Database, Value};
use rqc_tests::tpcc::{each_population_call, Scale};
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
