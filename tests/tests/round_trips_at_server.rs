//! Round trips counted at the etcd server (spec/cost.md §11): for every example's entry points, the requests the member receives during a run are exactly the run's reported round trips, and never more than its printed bound, with the default and a small `--max-txn-ops`.
//!
//! The member is the only one of its cluster and this test its only
//! client, with no subscription (so no watcher) open: the difference of
//! its `grpc_server_started_total` for the KV service (Range, Txn, Put,
//! DeleteRange) around a run is what that run sent. A run that is refused
//! (a constraint, an argument) is held to its bound all the same.

use rqc_plan::{CompiledProgram, Entry, EntryKind, Value};
use rqc_runtime::store::EtcdOptions;
use rqc_runtime::Engine;
use rqc_tests::arguments::{arguments, Pools};
use rqc_tests::etcd_cluster::{ClusterOptions, EtcdCluster};
use rqc_tests::tpcc::{last_name, population, Mix, Scale, Txn};
use rqc_tests::{relative, rq_files, Rng};
use std::collections::BTreeMap;

/// What one example's runs showed, by entry point.
#[derive(Default)]
struct Seen {
    /// Runs that succeeded, and those of them that committed writes.
    ok: BTreeMap<String, (u32, u32)>,
    runs: u32,
    requests: u64,
}

/// A database on the cluster, a member whose metrics count its requests.
struct Counted<'c> {
    engine: Engine,
    cluster: &'c EtcdCluster,
    /// The operation limit of the cluster: a batch of n reads is ⌈n/L⌉ requests.
    limit: u64,
}

impl<'c> Counted<'c> {
    fn new(cluster: &'c EtcdCluster, prefix: &str, program: CompiledProgram) -> Counted<'c> {
        let mut engine = Engine::connect(&cluster.url(prefix), &EtcdOptions::default()).unwrap();
        engine.install(program).unwrap();
        let limit = engine_limit(&engine);
        Counted {
            engine,
            cluster,
            limit,
        }
    }

    /// Runs `name`, checking the requests the member received against the
    /// run's reported round trips and its bound.
    fn run(&self, name: &str, args: &[Value], seen: &mut Seen) {
        let entry: Entry = self.engine.entry(name).unwrap().clone();
        let before = self.cluster.kv_requests();
        let result = self.engine.run(name, args);
        let made = self.cluster.kv_requests() - before;
        // The bound as the runtime holds it on a store with a limit.
        let bound = entry.bound.round_trips + entry.bound.seeks / self.limit;
        seen.runs += 1;
        seen.requests += made;
        match result {
            Ok(output) => {
                assert_eq!(
                    made, output.stats.round_trips,
                    "{name}({args:?}): the member received {made} requests, the run reported {}",
                    output.stats.round_trips
                );
                assert!(
                    made <= output.bound.round_trips,
                    "{name}({args:?}): {made} requests past its bound of {}",
                    output.bound.round_trips
                );
                assert_eq!(output.bound.round_trips, bound);
                assert_eq!(output.attempts, 1, "no other client, no conflict");
                let counts = seen.ok.entry(name.to_string()).or_default();
                counts.0 += 1;
                if output.written > 0 {
                    counts.1 += 1;
                }
            }
            Err(error) => assert!(
                made <= bound,
                "{name}({args:?}) failed with {} after {made} requests, past its bound of {bound}",
                error.code
            ),
        }
    }
}

fn engine_limit(engine: &Engine) -> u64 {
    engine
        .store()
        .max_txn_ops()
        .expect("etcd has an operation limit") as u64
}

/// An example's accepted entry points and schema.
fn example(name: &str) -> CompiledProgram {
    let files: Vec<(String, String)> = rq_files(&format!("examples/{name}"))
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    rqc_compiler::compile(&files).program
}

/// Every entry point of `program` run with drawn arguments: the mutations
/// first, round after round, so that the data they need is there, then
/// every entry point, round after round, in a drawn order.
fn drive(db: &Counted<'_>, program: &CompiledProgram, rounds: u32, seen: &mut Seen) {
    let int = |rng: &mut Rng| 1 + rng.below(6);
    let string = |rng: &mut Rng| {
        ["ann", "bo", "cy", "user001", "user002"][rng.below(5) as usize].to_string()
    };
    let pools = Pools {
        int: &int,
        string: &string,
        float: &rqc_tests::arguments::extreme_float,
        list_len: 4,
    };
    let mut rng = Rng::new(0x5eed);
    let (mutations, _): (Vec<&Entry>, Vec<&Entry>) = program
        .entries
        .iter()
        .map(|e| e.as_ref())
        .partition(|e| e.kind == EntryKind::Mutation);
    for _ in 0..rounds {
        for entry in &mutations {
            let args = arguments(entry, &pools, &mut rng);
            db.run(&entry.name, &args, seen);
        }
    }
    for _ in 0..rounds {
        let mut order: Vec<&Entry> = program.entries.iter().map(|e| e.as_ref()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for entry in order {
            let args = arguments(entry, &pools, &mut rng);
            db.run(&entry.name, &args, seen);
        }
    }
}

/// TPC-C: its population loaded through its mutations, then its mix.
fn tpcc(db: &Counted<'_>, seen: &mut Seen) {
    let scale = Scale {
        warehouses: 1,
        customers: 3,
        items: 20,
    };
    for (name, args) in population(scale, 7) {
        db.run(name, &args, seen);
    }
    let mut rng = Rng::new(11);
    let mix = Mix::new(scale, 7, 11).without_rollbacks();
    for h in 0..60 {
        let (name, args) = mix.draw(&mut rng).call(1, 1000 + h);
        db.run(name, &args, seen);
    }
    // Order-Status by name is 2.4% of the mix: once more for certain, so
    // every entry point runs whatever the draws.
    let by_name = Txn::OrderStatusByName {
        d: 1,
        name: last_name(0),
    };
    let (name, args) = by_name.call(1, 2000);
    db.run(name, &args, seen);
}

/// Runs every example, each on a cluster of its own whose operation limit
/// its largest commit fits (decisions.md); returns what was seen.
fn every_example() -> BTreeMap<&'static str, Seen> {
    let mut all = BTreeMap::new();
    // The social example's `unfollow_all` may delete 5,000 follows and
    // their index entries in one commit.
    for (name, ops, bytes) in [
        ("social", 65536, Some(64 << 20)),
        ("ycsb", 1024, None),
        ("linkbench", 1024, None),
        ("feature_store", 1024, None),
        ("tpch", 1024, None),
        ("tpcc", 1024, None),
    ] {
        let cluster = EtcdCluster::start_with(
            1,
            ClusterOptions {
                max_txn_ops: Some(ops),
                max_request_bytes: bytes,
                ..Default::default()
            },
        );
        let program = example(name);
        let db = Counted::new(&cluster, name, program.clone());
        let mut seen = Seen::default();
        if name == "tpcc" {
            tpcc(&db, &mut seen);
        } else {
            // The social example's `unfollow` writes only when its drawn
            // pair was followed and `unfollow_all` has not cleared it since:
            // enough rounds that one does, whatever else the program holds.
            let rounds = if name == "social" { 32 } else { 12 };
            drive(&db, &program, rounds, &mut seen);
        }
        all.insert(name, seen);
    }
    all
}

/// Which entry points of `program` never ran to the end, and which
/// mutations never committed a write.
fn uncovered(program: &CompiledProgram, seen: &Seen) -> Vec<String> {
    program
        .entries
        .iter()
        .filter(|e| {
            let (ok, wrote) = seen.ok.get(&e.name).copied().unwrap_or_default();
            ok == 0 || (e.kind == EntryKind::Mutation && wrote == 0)
        })
        .map(|e| e.name.clone())
        .collect()
}

#[test]
fn every_example_entry_point_sends_what_it_reports_within_its_bound() {
    let all = every_example();
    for (name, seen) in &all {
        eprintln!(
            "{name}: {} runs, {} requests, entry points run to the end: {}",
            seen.runs,
            seen.requests,
            seen.ok.len()
        );
    }
    // The figures are about runs that happened: every entry point of each
    // example ran to the end, and every mutation committed a write.
    for (name, seen) in &all {
        let program = example(name);
        let missed = uncovered(&program, seen);
        eprintln!("{name}: never ran to the end or never wrote: {missed:?}");
        assert!(
            missed.is_empty(),
            "{name}: entry points that never ran to the end or never wrote: {missed:?}"
        );
    }
}

#[test]
fn a_small_operation_limit_splits_batches_into_the_requests_reported() {
    let cluster = EtcdCluster::start_with(
        1,
        ClusterOptions {
            max_txn_ops: Some(20),
            ..Default::default()
        },
    );
    let program = rqc_tests::accepted(FANOUT);
    let db = Counted::new(&cluster, "fanout", program.clone());
    assert_eq!(db.limit, 20);
    let mut seen = Seen::default();
    for id in 1..=45i64 {
        db.run("add_user", &[id.into()], &mut seen);
    }
    for b in 2..=42i64 {
        db.run("follow", &[1.into(), b.into()], &mut seen);
    }
    let before = seen.requests;
    db.run("followed", &[1.into()], &mut seen);
    // 1 read of the 40 follows, then 40 lookups in ⌈40/20⌉ = 2 requests.
    assert_eq!(seen.requests - before, 3);
    drive(&db, &program, 6, &mut seen);
    assert!(uncovered(&program, &seen).is_empty());
}

/// A fan-out past a small operation limit: one batch of lookups per follow.
const FANOUT: &str = "
table User { id: Int key }
table Follow {
  follower: Int ref User
  followee: Int ref User
  key (follower, followee)
  bound follower <= 40
}
mutation add_user(id: Int) = insert User { id }
mutation follow(a: Int, b: Int) = insert Follow { follower: a, followee: b }
query followed(u: Int) = Follow[u] |> map(f => User[f.followee]) |> flatten()
";

/// A table of rows put by key, for writers on disjoint rows.
const PUTS: &str = "
table T { id: Int key  v: Int }
mutation put(id: Int, v: Int) = insert T { id, v }
";

/// The database at `prefix` of `cluster` with [`PUTS`] installed, and its URL.
fn puts_on(cluster: &EtcdCluster, prefix: &str) -> (String, Engine) {
    let url = cluster.url(prefix);
    let mut engine = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    engine.install(rqc_tests::accepted(PUTS)).unwrap();
    (url, engine)
}

/// Writer `w` putting rows of its own on the database at `url` until
/// `stop`, or until another process's install changed the schema (E0550:
/// then true).
fn put_until(url: &str, stop: &std::sync::atomic::AtomicBool, w: i64) -> bool {
    let engine = Engine::connect(url, &EtcdOptions::default()).unwrap();
    let mut i = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        match engine.run("put", &[(w * 100_000 + i).into(), i.into()]) {
            Ok(_) => i += 1,
            Err(e) if e.code == "E0550" => return true,
            Err(e) => panic!("{e}"),
        }
    }
    false
}

/// Two clients inserting disjoint rows: their commits share only the
/// changelog's head, so a commit that finds it moved is sent again after
/// it (one request more, an attempt more) and never runs again (they
/// conflicted there, and ran again from scratch: issue 35). The member
/// receives exactly what the runs reported: each run's round trips, and
/// one request per commit sent again.
#[test]
fn disjoint_writers_send_a_commit_again_and_never_run_again() {
    let cluster = EtcdCluster::start(1);
    let (url, first) = puts_on(&cluster, "disjoint");
    let second = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    let writers = [first, second];
    let (mut reported, mut again, mut rounds) = (0u64, 0u64, 0);
    let before = cluster.kv_requests();
    // Rounds until two commits met at the head (at most ten).
    while again == 0 && rounds < 10 {
        let totals: Vec<(u64, u64)> = std::thread::scope(|scope| {
            let runs: Vec<_> = writers
                .iter()
                .enumerate()
                .map(|(w, engine)| {
                    scope.spawn(move || {
                        let (mut trips, mut extra) = (0u64, 0u64);
                        for i in 0..50i64 {
                            let id = (rounds * 1000 + w as i64 * 100 + i).into();
                            let output = engine.run("put", &[id, i.into()]).unwrap();
                            trips += output.stats.round_trips;
                            extra += u64::from(output.attempts - 1);
                        }
                        (trips, extra)
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        for (trips, extra) in totals {
            reported += trips + extra;
            again += extra;
        }
        rounds += 1;
    }
    assert!(
        again > 0,
        "no two commits met at the head in {rounds} rounds"
    );
    assert_eq!(
        cluster.kv_requests() - before,
        reported,
        "a run made again would send its reads again ({again} commits sent again)"
    );
    assert!(writers[0].verify().unwrap().is_sound());
}

/// An install amid writers on disjoint rows: its entry is made from the
/// changelog's head like theirs (its position, written into the catalog,
/// made again with it), so it is sent again after the head they move and
/// never starves (an install at the head read once was given up, E0596,
/// beside six writers: adversary finding). A transaction's commit is sent
/// again the same way, and counted.
#[test]
fn installs_and_transactions_amid_writers_are_sent_again_after_the_head() {
    let cluster = EtcdCluster::start(1);
    let (url, mut installer) = puts_on(&cluster, "installs");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let resent = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..3i64)
            .map(|w| {
                let (url, stop) = (&url, &stop);
                scope.spawn(move || assert!(!put_until(url, stop, w), "no schema changed"))
            })
            .collect();
        let before = rqc_runtime::store::resent_commits();
        let done = (|| -> rqc_runtime::Result<()> {
            // Programs of one schema, so the writers' plans stay valid.
            for n in 0..6 {
                let program = format!("{PUTS}query get{n}(id: Int) = T[id]\n");
                installer.install(rqc_tests::accepted(&program))?;
            }
            // A transaction whose head read is of its revision, before the
            // writers' commits: its commit is sent again after theirs.
            let mut transaction = installer.begin()?;
            let put = installer.entry("put")?.clone();
            transaction.run_entry(&put, &[(-1).into(), 0.into()])?;
            std::thread::sleep(std::time::Duration::from_millis(50));
            transaction.commit().map(|_| ())
        })();
        // The writers stop whatever the installs gave.
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for writer in writers {
            writer.join().unwrap();
        }
        done.unwrap();
        rqc_runtime::store::resent_commits() - before
    });
    assert!(resent > 0, "the transaction's commit found the head moved");
    let fresh = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    assert!(fresh.entry("get5").is_ok());
    // The transaction's row is there, read by the last program's query.
    let row = fresh.run("get5", &[(-1).into()]).unwrap().value;
    assert_ne!(row, rqc_plan::Value::Null, "the transaction committed");
}

/// A schema-changing install (a table added) amid writers of another
/// table: it reads no row of the table declared as before, so it does not
/// conflict with them and commits (it read every table, and was given up
/// after 16 conflicts beside six writers: adversary finding); the writers
/// then stop at E0550, nothing written under the old schema after it.
#[test]
fn a_schema_changing_install_amid_writers_of_another_table_commits() {
    let cluster = EtcdCluster::start(1);
    let (url, mut installer) = puts_on(&cluster, "schema");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let refused = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..4i64)
            .map(|w| {
                let (url, stop) = (&url, &stop);
                scope.spawn(move || put_until(url, stop, w))
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let mut program = PUTS.to_string();
        let installed: Result<(), String> = (0..3).try_for_each(|n| {
            program.push_str(&format!("table Extra{n} {{ id: Int key }}\n"));
            installer
                .install(rqc_tests::accepted(&program))
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        // The writers stop whatever the installs gave.
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        installed.unwrap();
        writers
            .into_iter()
            .map(|w| w.join().unwrap())
            .filter(|refused| *refused)
            .count()
    });
    assert_eq!(refused, 4, "every writer met the new schema");
    let fresh = Engine::connect(&url, &EtcdOptions::default()).unwrap();
    assert!(fresh.verify().unwrap().is_sound());
}
