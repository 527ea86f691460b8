//! P6: the TPC-C mix (tests/src/tpcc.rs draws it) on one warehouse, run
//! by rqc's prepared entry points and by SQLite (tpcc_sql.rs), the same
//! transactions in the same order, neither synced, interleaved in batches.

use crate::cells::rqc_rows;
use crate::timing::{interleave, Contender, Measured, Plan};
use rqc::{Backend, Database, Durability, OpenOptions, Value};
use rqc_tests::tpcc::{population, Mix, Scale, Txn};
use std::path::Path;

#[derive(Clone, Copy, Debug)]
pub struct TpccPlan {
    pub scale: Scale,
    /// Timed transactions per system, and how many run first, checked.
    pub ops: usize,
    pub checked: usize,
    pub batch: usize,
}

pub struct TpccRun {
    pub plan: TpccPlan,
    pub txns: Vec<Txn>,
    pub measured: Vec<Measured>,
    /// rqc entry calls made to load the population (one commit each).
    pub population: usize,
    /// What rqc counted for each checked transaction: (its index, B-tree
    /// seeks, entries read), from the run's own output.
    pub rqc_work: Vec<(usize, u64, u64)>,
}

/// The example's entry points the mix calls.
/// Each transaction as the entry point it runs (its position in
/// [`ENTRIES`]) and its arguments, built before timing.
pub fn calls(txns: &[Txn]) -> Vec<(usize, Vec<Value>)> {
    txns.iter()
        .enumerate()
        .map(|(h, txn)| {
            let (name, args) = txn.call(1, h as i64);
            (ENTRIES.iter().position(|e| *e == name).unwrap(), args)
        })
        .collect()
}

pub const ENTRIES: [&str; 7] = [
    "new_order",
    "payment",
    "payment_by_name",
    "order_status",
    "order_status_by_name",
    "delivery",
    "stock_level",
];

pub fn kind(txn: &Txn) -> &'static str {
    match txn {
        Txn::NewOrder { .. } => "New-Order",
        Txn::Payment { .. } => "Payment by id",
        Txn::PaymentByName { .. } => "Payment by name",
        Txn::OrderStatus { .. } => "Order-Status",
        Txn::OrderStatusByName { .. } => "Order-Status by name",
        Txn::Delivery { .. } => "Delivery",
        Txn::StockLevel { .. } => "Stock-Level",
    }
}

/// Whether the check compares what the transaction returns: the queries,
/// and New-Order's line count (the other mutations return no result the
/// SQL side computes).
pub fn compared(txn: &Txn) -> bool {
    matches!(
        txn,
        Txn::NewOrder { .. }
            | Txn::OrderStatus { .. }
            | Txn::OrderStatusByName { .. }
            | Txn::StockLevel { .. }
    )
}

fn rqc_database(
    dir: &Path,
    backend: Backend,
    population: &[(&'static str, Vec<Value>)],
) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    populate(&mut db, population);
    db
}

/// Installs the example into `db` (on any store) and runs the population's
/// entry calls, one commit each.
pub fn populate(db: &mut Database, population: &[(&'static str, Vec<Value>)]) {
    db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc")])
        .unwrap();
    let mut prepared = std::collections::HashMap::new();
    for (name, args) in population {
        let entry = prepared
            .entry(*name)
            .or_insert_with(|| db.prepare(name).unwrap());
        entry.run(args).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

pub fn run(plan: TpccPlan, seed: u64) -> TpccRun {
    let mut rng = rqc_tests::Rng::new(seed);
    // Timed transactions 0..ops, then the checked warm-up ones, which run
    // first (the harness numbers the warm-up after the timed operations).
    // No rollbacks: each system's answers are compared, and the `tpcc`
    // driver measures the rollbacks.
    let mix = Mix::new(plan.scale, seed, seed).without_rollbacks();
    let txns: Vec<Txn> = (0..plan.ops + plan.checked)
        .map(|_| mix.draw(&mut rng))
        .collect();
    let population = population(plan.scale, seed);
    let dir = tempfile::tempdir_in(crate::scratch_dir()).unwrap();
    // rqc on its default backend (LMDB), whose work is recorded, and on redb.
    let backends = [Backend::Lmdb, Backend::Redb];
    let dbs: Vec<Database> = backends
        .iter()
        .map(|&backend| {
            eprintln!(
                "  loading rqc on {} ({} entry calls)",
                backend.name(),
                population.len()
            );
            rqc_database(&dir.path().join(backend.name()), backend, &population)
        })
        .collect();
    let prepared: Vec<Vec<_>> = dbs
        .iter()
        .map(|db| ENTRIES.iter().map(|e| db.prepare(e).unwrap()).collect())
        .collect();
    // The arguments are built before timing, as SQLite's are bound from the Txn.
    let calls = calls(&txns);
    let work = std::cell::RefCell::new(Vec::new());
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    for (at, backend) in backends.iter().enumerate() {
        let (calls, txns, prepared, work) = (&calls, &txns, &prepared[at], &work);
        let name = format!("rqc ({})", backend.name());
        contenders.push(Contender::new(&name, move |i, sink| {
            let (entry, args) = &calls[i];
            let output = prepared[*entry].run(args).expect("the transaction runs");
            let Some(rows) = sink else {
                return drop(std::hint::black_box(output));
            };
            if at == 0 {
                work.borrow_mut()
                    .push((i, output.stats.seeks, output.stats.rows));
            }
            if compared(&txns[i]) {
                *rows = rqc_rows(&output);
            }
        }));
    }
    eprintln!("  loading SQLite");
    for covering in [false, true] {
        let path = dir.path().join(format!("tpcc-{covering}.sqlite"));
        // Not synced per commit, as rqc's side here.
        let mut conn = crate::tpcc_sql::create(&path, covering, Durability::None);
        crate::tpcc_sql::load(&mut conn, &population);
        let name = if covering {
            "SQLite, covering indexes"
        } else {
            "SQLite"
        };
        let txns = &txns;
        contenders.push(Contender::new(name, move |i, sink| {
            let sink = sink.filter(|_| compared(&txns[i]));
            let outcome = crate::tpcc_sql::run(&mut conn, 1, &txns[i], i as i64, sink);
            assert!(
                matches!(outcome, crate::tpcc_sql::Outcome::Committed(_)),
                "no rollbacks in this mix"
            );
        }));
    }
    let measured = interleave(
        &mut contenders,
        Plan {
            ops: plan.ops,
            batch: plan.batch,
            warmup: plan.checked,
            expect_rows: true,
        },
        seed,
    );
    drop(contenders);
    TpccRun {
        plan,
        population: population.len(),
        txns,
        measured,
        rqc_work: work.into_inner(),
    }
}
