//! `tpcc-faults`: TPC-C under kill -9: terminal processes run the mix on one database and are killed at a random point, round after round; after each round every acknowledged transaction is there, a refused one left nothing, none is partial (the consistency conditions 3.3.2.1–12 hold) and `verify` finds the database sound.
//!
//! `cargo run --release -p rqc-bench --bin tpcc-faults -- [--small] [--warehouses W] [--rounds R] [--processes P] [--durability full|normal|none] [--db DIR] [--etcd] [--seed N]`
//!
//! `--etcd`: on a 3-member etcd cluster started on loopback (etcd and
//! etcdctl on PATH) instead of the embedded default; each round also kills
//! a member with SIGKILL halfway through the mix (the leader in odd
//! rounds, a follower in even ones) and starts it again before the check.
//! A transaction whose store failed meanwhile (E0590, or E0561 when no
//! member answered in time: committed or not, the terminal does not rely
//! on it) is logged as unanswered, as a killed one is;
//! one given up after its retries (E0596) as refused, nothing of it kept.
//!
//! The parent loads the population, then each round starts `P` terminal
//! processes (this program with `--terminal`), lets them run for a random
//! 0.2–1.5 s (2–5 s on etcd) and kills every one with SIGKILL,
//! mid-transaction or not.
//! Each terminal writes a line before each transaction (`S kind w h`) and
//! one after its acknowledgement (`A h`, with the orders a Delivery
//! answered), each handed to the kernel at once, so a kill loses none of
//! what was acknowledged. The transaction's `h` is unique over rounds and
//! terminals, and is the `now` New-Order and Delivery write (an order's
//! `entry_d`, a line's `delivery_d`) and a Payment's History id, so the
//! checker finds each one's effect in the database: an acknowledged
//! New-Order's order and Payment's History row are there, a refused
//! New-Order left no order, an acknowledged Delivery's orders carry a
//! carrier and are no new orders any more. A Delivery killed before its
//! answer counts the orders whose lines carry its `h` (all of an order's
//! lines or none, as condition 3.3.2.11 and the line counts check). The
//! conditions are checked on the whole database after every round, with
//! every Delivery so far counted (`rqc_tests::tpcc_conditions`). Exits 1
//! on any violation.

#[path = "../args.rs"]
mod args;
#[allow(dead_code)] // the benchmark's report helpers; this driver prints one
#[path = "../machine.rs"]
mod machine;
#[path = "../tpcc_faults_check.rs"]
mod tpcc_faults_check;
#[path = "../tpcc_load.rs"]
mod tpcc_load;

use args::Args;
use rqc::{Database, Durability, OpenOptions, Value};
use rqc_tests::etcd_cluster::EtcdCluster;
use rqc_tests::tpcc::{Mix, Scale, Txn};
use rqc_tests::Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use tpcc_faults_check::{missing, read_log, Acknowledged};

/// A terminal stops by itself after this long, should its parent be gone.
const TERMINAL_LIFETIME: Duration = Duration::from_secs(120);

/// What the command line asks for.
struct Options {
    scale: Scale,
    rounds: u64,
    processes: u64,
    seed: u64,
    durability: Durability,
    db: Option<PathBuf>,
    etcd: bool,
    /// `--terminal T --round R --log FILE`: run as terminal `T`.
    terminal: Option<(u64, u64, PathBuf)>,
}

fn options() -> Options {
    let args = Args::from_env();
    let terminal = args.value("--terminal").map(|_| {
        let log = args.value("--log").expect("--terminal takes --log FILE");
        (
            args.number("--terminal", 0),
            args.number("--round", 0),
            log.into(),
        )
    });
    Options {
        scale: tpcc_load::scale(&args),
        rounds: args.number("--rounds", 20),
        processes: args.number("--processes", 2).max(1),
        seed: args.number("--seed", 1),
        durability: args.durability(Durability::Full),
        db: args.value("--db").map(Into::into),
        etcd: args.flag("--etcd"),
        terminal,
    }
}

fn open(dir: &Path, durability: Durability) -> Database {
    if let Some(url) = dir.to_str().filter(|d| d.starts_with("etcd://")) {
        return Database::connect(url).unwrap_or_else(|e| panic!("connect {url}: {e}"));
    }
    Database::open_with(
        dir,
        OpenOptions {
            durability,
            ..OpenOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("open {}: {e}", dir.display()))
}

/// The unique `h` of terminal `t`'s `k`-th transaction in round `round`:
/// far above the population's values, never shared.
fn unique_h(round: u64, processes: u64, t: u64, k: u64) -> i64 {
    (1_000_000_000 * (round + 1) + t + k * processes) as i64
}

/// A terminal process: the mix, back to back, each transaction logged
/// before it starts and after it is acknowledged, until it is killed.
fn terminal(o: &Options, dir: &Path, (t, round, log): &(u64, u64, PathBuf)) {
    let db = open(dir, o.durability);
    let mut log = std::fs::File::create(log).expect("the terminal's log");
    let mix = Mix::new(o.scale, o.seed, o.seed.wrapping_add(1));
    let mut rng = Rng::new(o.seed ^ (round * 1_000 + t + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let w = 1 + (*t as i64) % o.scale.warehouses;
    let started = Instant::now();
    for k in 0.. {
        if started.elapsed() > TERMINAL_LIFETIME {
            break;
        }
        let txn = mix.draw(&mut rng);
        let h = unique_h(*round, o.processes, *t, k);
        let (name, args) = txn.call(w, h);
        // Each line goes to the kernel before the next step: a kill -9
        // loses no line written.
        writeln!(log, "S {name} {w} {h}").expect("log");
        let answer = match db.run(name, &args) {
            Ok(output) => {
                assert!(!txn.rolls_back(), "{name}({args:?}) committed");
                match txn {
                    Txn::Delivery { .. } => delivered(output.rows()),
                    _ => String::new(),
                }
            }
            Err(e) if txn.rolls_back() && e.code() == "E0503" => " refused".into(),
            // Given up after its retries: nothing of it was committed.
            Err(e) if e.code() == "E0596" => " refused".into(),
            // The store failed (an etcd member killed): committed or not,
            // this terminal cannot tell; unanswered, as a killed one is.
            Err(rqc::Error::Runtime(e)) if e.is_store_failure() || e.code == "E0561" => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        writeln!(log, "A {h}{answer}").expect("log");
    }
}

/// A Delivery's answer in the log: ` d o` per order it delivered.
fn delivered(rows: &[Value]) -> String {
    rows.iter()
        .map(|r| {
            let int = |n: &str| match r.field(n) {
                Some(Value::Int(v)) => *v,
                other => panic!("a delivery row's `{n}` is {other:?}"),
            };
            format!(" {} {}", int("district"), int("order"))
        })
        .collect()
}

/// Waits until every member of `cluster` answers as healthy (a member
/// started again has caught up), so that the next round's kill never
/// leaves the cluster without a quorum.
fn every_member_healthy(cluster: &EtcdCluster) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let healthy = cluster
            .etcdctl_command()
            .args(["endpoint", "health"])
            .output()
            .is_ok_and(|out| out.status.success());
        if healthy {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let logs: String = std::fs::read_dir(cluster.dir())
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(5).collect();
            format!("{}:\n{}\n", e.path().display(), tail.join("\n"))
        })
        .collect();
    panic!("the etcd cluster is not healthy 60 s after a member started again\n{logs}");
}

fn kill_all(children: &mut [Child]) {
    for child in children.iter_mut() {
        // SIGKILL: no handler, no flush, no unwinding.
        let _ = child.kill();
    }
    for child in children.iter_mut() {
        let _ = child.wait();
    }
}

fn main() {
    let o = options();
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let mut cluster = (o.etcd && o.terminal.is_none()).then(tpcc_load::etcd_cluster);
    let dir = tpcc_load::database_at(cluster.as_ref(), o.db.as_ref(), scratch.path());
    if let Some(terminal_of) = &o.terminal {
        terminal(&o, &dir, terminal_of);
        return;
    }
    println!(
        "machine: {}; commit {}; {}",
        machine::describe(),
        machine::commit(),
        match cluster {
            Some(_) => "a 3-member etcd cluster on loopback".to_string(),
            None => format!("durability {}", o.durability.name()),
        }
    );
    let started = Instant::now();
    {
        let install = |mut db: Database| {
            db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc")])
                .expect("install examples/tpcc");
            db
        };
        let db = install(open(&dir, o.durability));
        // On etcd, into an embedded database first, then copied in bulk:
        // etcd takes the population's calls (each a mutation with reads of
        // its own) too slowly for a full-scale load (BENCHMARKS.md).
        let staging = cluster
            .is_some()
            .then(|| install(open(&scratch.path().join("staging"), Durability::None)));
        let into = staging.as_ref().unwrap_or(&db);
        let (calls, spent) =
            tpcc_load::load(into, o.scale, o.seed, tpcc_load::LOAD_BATCH, &mut |_| {});
        println!(
            "loaded {} warehouse(s), {} customers per district, {} items: {calls} calls in {:.1} s",
            o.scale.warehouses,
            o.scale.customers,
            o.scale.items,
            spent.as_secs_f64()
        );
        if let Some(staging) = staging {
            let (rows, spent) = tpcc_load::copy_into(&staging, &db);
            println!("copied {rows} rows to etcd in {:.1} s", spent.as_secs_f64());
        }
    }
    let logs = scratch.path().join("logs");
    std::fs::create_dir_all(&logs).expect("the logs' directory");
    let exe = std::env::current_exe().expect("this program");
    let mut rng = Rng::new(o.seed ^ 0xFA_17);
    let mut acked = Acknowledged::default();
    let mut violations = 0;
    for round in 0..o.rounds {
        let mut children: Vec<Child> = (0..o.processes)
            .map(|t| {
                let mut command = Command::new(&exe);
                command
                    .arg("--terminal")
                    .arg(t.to_string())
                    .arg("--round")
                    .arg(round.to_string())
                    .arg("--log")
                    .arg(logs.join(format!("{round}-{t}.log")))
                    .arg("--db")
                    .arg(&dir)
                    .args(["--processes", &o.processes.to_string()])
                    .args(["--seed", &o.seed.to_string()])
                    .args(["--warehouses", &o.scale.warehouses.to_string()])
                    .args(["--durability", o.durability.name()]);
                if o.scale.items < 100_000 {
                    command.arg("--small");
                }
                command.spawn().expect("a terminal process")
            })
            .collect();
        // On etcd a terminal takes longer to connect and to commit.
        let run = match cluster {
            Some(_) => Duration::from_millis(2_000 + rng.below(3_000) as u64),
            None => Duration::from_millis(200 + rng.below(1_300) as u64),
        };
        // On etcd, a member killed halfway: the leader, then a follower.
        let killed = cluster.as_mut().map(|cluster| {
            std::thread::sleep(run / 2);
            let leader = cluster.leader().expect("the cluster has a leader");
            let member = if round % 2 == 0 {
                leader
            } else {
                (leader + 1) % 3
            };
            cluster.kill(member);
            (
                member,
                if member == leader {
                    "leader"
                } else {
                    "follower"
                },
            )
        });
        std::thread::sleep(if killed.is_some() { run / 2 } else { run });
        kill_all(&mut children);
        if let (Some(cluster), Some((member, _))) = (cluster.as_mut(), killed) {
            // As a crashed machine would: down for a while.
            std::thread::sleep(Duration::from_secs(1));
            cluster.restart(member);
            every_member_healthy(cluster);
        }
        for t in 0..o.processes {
            acked.take(read_log(&logs.join(format!("{round}-{t}.log"))));
        }
        let db = open(&dir, o.durability);
        let found = missing(&db, o.scale, &acked);
        violations += found.len();
        println!(
            "round {}{}: {} transactions acknowledged so far, {} killed before their answer; {} violation(s){}",
            round + 1,
            killed.map_or(String::new(), |(_, role)| format!(" (the {role} killed)")),
            acked.transactions,
            acked.unanswered,
            found.len(),
            found
                .iter()
                .take(5)
                .map(|v| format!("\n  {v}"))
                .collect::<String>()
        );
    }
    println!(
        "{} round(s) of {} terminal process(es) killed with SIGKILL: {} transactions acknowledged ({} New-Orders, {} refused, {} Payments, {} orders delivered), {} killed before their answer; {violations} violation(s) in all; {:.0} s",
        o.rounds,
        o.processes,
        acked.transactions,
        acked.orders.len(),
        acked.refused.len(),
        acked.payments.len(),
        acked.delivered.len(),
        acked.unanswered,
        started.elapsed().as_secs_f64()
    );
    if violations > 0 {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::tpcc_faults_check::int;
    use super::*;
    use std::collections::BTreeSet;

    /// The checker is not blind: on a freshly loaded database, an order,
    /// a payment and a delivery acknowledged but absent are each reported,
    /// and so is a refused New-Order whose order is there.
    #[test]
    fn what_was_acknowledged_and_is_not_there_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let scale = Scale {
            warehouses: 1,
            customers: 30,
            items: 1_000,
        };
        let mut db = open(dir.path(), Durability::None);
        db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc")])
            .unwrap();
        tpcc_load::load(&db, scale, 1, tpcc_load::LOAD_BATCH, &mut |_| {});
        assert_eq!(
            missing(&db, scale, &Acknowledged::default()),
            Vec::<String>::new()
        );
        // An order the population holds: its entry date.
        let dump = db.dump().unwrap();
        let (_, orders) = dump.tables.iter().find(|(n, _)| n == "Orders").unwrap();
        let undelivered = orders
            .iter()
            .find(|o| o.field("carrier_id") == Some(&Value::Null))
            .unwrap();
        let mut acked = Acknowledged::default();
        acked.orders.insert(unique_h(0, 1, 0, 0));
        acked.refused.insert(int(undelivered, "entry_d"));
        acked.payments.insert(unique_h(0, 1, 0, 1));
        acked.delivered.insert((
            int(undelivered, "w_id"),
            int(undelivered, "d_id"),
            int(undelivered, "id"),
        ));
        let found = missing(&db, scale, &acked);
        for wanted in [
            "has no order",
            "left an order",
            "has no History row",
            "is not delivered",
        ] {
            assert!(
                found.iter().any(|f| f.contains(wanted)),
                "{wanted}: {found:?}"
            );
        }
    }

    /// A log cut by the kill: a transaction begun and not answered is
    /// read as such, and a half-written line as never written.
    #[test]
    fn a_log_cut_mid_line_reads_as_what_was_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(
            &path,
            "S payment 1 7\nA 7\nS delivery 1 9\nA 9 1 30 2 31\nS delivery 1 11\nA 1",
        )
        .unwrap();
        let logged = read_log(&path);
        assert_eq!(logged.len(), 3);
        let mut acked = Acknowledged::default();
        acked.take(logged);
        assert_eq!(acked.payments, BTreeSet::from([7]));
        assert_eq!(acked.delivered, BTreeSet::from([(1, 1, 30), (1, 2, 31)]));
        assert_eq!(acked.unanswered_deliveries, vec![(11, 1)]);
        assert_eq!((acked.transactions, acked.unanswered), (2, 1));
    }
}
